"""A remote game on two pages (docs/remote.md): two `zuni play --remote`, each with its
own virtual board (the firmware under MicroPython) and browser page, through a real
Mosquitto and referee that the test starts, two real headless chromium pages.

The page of the game's maker shows the invite code (copied by its button) and the
command the other types; each page lists the seats with their players' names and
whether they are connected; a draw offered on one page is answered on the other with
its Decline button, and the referee's word shows on both; the people play every move by
typing it on their page (the terminal's hand makes it on the board, and carries out the
other's move), to the end; a player whose PC dies shows as connection lost on the other
page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from play_helpers import ZuniPlay
from remote_net import Mosquitto, RefereeThread
from test_web_browser import CHROMIUM, CHROMIUM_ARGS, shot, sync_playwright, wait

import zuni
from zuniboard.ai import GreedyPlayer
from zuniboard.games.words import outcome_words
from zuniboard.records.db import Database
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

if sync_playwright is None:
    pytestmark = pytest.mark.skip(reason="the Python package playwright is not installed (pip install playwright)")
elif not Path(CHROMIUM).exists():
    pytestmark = pytest.mark.skip(
        reason="no browser: %s is missing (tools/ensure_browser.sh installs Debian's chromium)" % CHROMIUM
    )
else:
    try:
        micropython_executable()
    except MicroPythonMissing as exc:  # pragma: no cover
        pytestmark = pytest.mark.skip(reason="no virtual board: %s" % exc)

MAX_PLIES = 300
NAMES = {"south": "Ann", "north": "Bea"}


@pytest.fixture
def browser() -> Iterator[Any]:
    assert sync_playwright is not None
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def broker_url(tmp_path: Path) -> Iterator[str]:
    home = tmp_path / "broker"
    home.mkdir()
    broker = Mosquitto(home).start()
    referee = RefereeThread(broker.url, tmp_path / "referee").start()
    yield broker.url
    referee.stop()
    broker.stop()


def text_of(page: Any, selector: str) -> str:
    return " ".join(str(page.inner_text(selector)).split())


def seat_line(page: Any, seat: str) -> str:
    return text_of(page, '#remote-seats li[data-seat="%s"]' % seat)


def type_line(page: Any, line: str) -> None:
    page.fill("#line", line)
    page.click("#btn-line")
    wait(lambda: page.input_value("#line") == "", "the line %r taken" % line)


def only_pass(game: zuni.Game) -> bool:
    moves = game.legal_moves()
    return len(moves) == 1 and moves[0].kind == zuni.PASS


def test_two_pages_play_a_remote_game_to_the_end(browser: Any, broker_url: str, tmp_path: Path) -> None:
    plays: dict[str, ZuniPlay] = {}
    try:

        def start(side: str, *remote: str) -> ZuniPlay:
            home = tmp_path / side
            home.mkdir()
            args = ["--broker", broker_url, "--name", NAMES[side], "--seat", side, "--show", "0.2", *remote]
            plays[side] = ZuniPlay(*args, db=home / "games.sqlite3", env={"ZUNI_REMOTE_DIR": str(home / "remote")})
            return plays[side]

        code = start("south", "--remote", "new").expect(r"invite code: (\S+)").group(1)
        start("north", "--remote", code)
        pages: dict[str, Any] = {}
        for side, play in plays.items():
            url = play.expect(r"^browser page of the virtual board: (http://\S+)").group(1)
            play.expect(r"^new game #\d+: mosona")
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.grant_permissions(["clipboard-read", "clipboard-write"])
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e, errs=errors: errs.append(str(e)))
            page.goto(url)
            page.wait_for_selector("#remote-panel:not([hidden])", timeout=30000)
            pages[side] = page
        south, north = pages["south"], pages["north"]

        # The invite code and the command the other player types, on the maker's page.
        assert text_of(south, "#remote-code") == code
        assert text_of(south, "#remote-invite") == "zuni play --remote %s --broker %s" % (code, broker_url)
        south.click("#btn-copy-code")
        wait(lambda: south.evaluate("navigator.clipboard.readText()") == code, "the code in the clipboard")
        # Each page: the seats, the names, the other connected.
        wait(lambda: seat_line(south, "north") == "North (Bea): connected", "North connected on South's page")
        assert seat_line(south, "south") == "South (Ann): you"
        wait(lambda: seat_line(north, "south") == "South (Ann): connected", "South connected on North's page")

        game = zuni.new_game("mosona")
        person = GreedyPlayer(5)
        while not game.is_game_over():
            side = str(zuni.SIDE_NAMES[game.turn])
            other = "north" if side == "south" else "south"
            n = len(game.move_stack) + 1
            if n == 3:
                # A draw offered on South's page (the controller asks to confirm, as at the
                # terminal), declined with North's button.
                type_line(south, "draw")
                plays["south"].expect(r"offer a draw for south\? \(yes/no\)")
                type_line(south, "yes")
                wait(lambda: north.is_visible("#remote-offer button[data-line=no]"), "the offer on North's page")
                assert text_of(north, "#remote-offer") == "South (Ann) offers a draw: Agree Decline"
                assert "You offered a draw" in text_of(south, "#remote-offer")
                shot(north, tmp_path, "remote-offer-north.png")
                north.click("#remote-offer button[data-line=no]")
                for page in pages.values():
                    wait(
                        lambda p=page: "north declined south's draw offer" in text_of(p, "#remote-note"),
                        "the referee's word on the declined offer",
                    )
                    wait(lambda p=page: p.is_hidden("#remote-offer"), "the offer closed")
            if only_pass(game):
                text = "pass"  # each board commits a forced pass by itself
                for play in plays.values():
                    play.expect(r"^%d\. %s pass" % (n, side))
            else:
                text = str(person.choose(game).text())
                type_line(pages[side], text)
                plays[side].expect(r"^%d\. %s %s$" % (n, side, re.escape(text)))
                plays[other].expect(r"^%d\. %s %s \(carried out on the board\)$" % (n, side, re.escape(text)))
            game.push_text(text)
            assert len(game.move_stack) < MAX_PLIES, "the game does not end"
        outcome = game.outcome()
        assert outcome is not None
        words = outcome_words(game, outcome)
        for play in plays.values():
            play.expect(r"^%s\. Game #\d+ is logged" % re.escape(words))
        for page in pages.values():
            wait(lambda p=page: words in text_of(p, "#now"), "the result on the page")

        # North's PC dies: South's page says so at once (North's last will).
        plays["north"].kill()
        wait(
            lambda: seat_line(south, "north") == "North (Bea): connection lost: the game waits for them",
            "North's connection lost on South's page",
        )
        plays["south"].send("quit")
        assert plays["south"].wait() == 0
        with Database(tmp_path / "south" / "games.sqlite3") as db:
            record = db.get(db.game_ids()[-1])
        assert record.move_texts() == [m.text() for m in game.move_stack]
        assert record.players == {"south": "human", "north": "remote:Bea"}
    finally:
        for play in plays.values():
            play.close()


def page_state(page: Any) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate("fetch('/api/state').then((r) => r.json())")
    return state


def test_a_remote_game_started_and_joined_from_the_pages(browser: Any, broker_url: str, tmp_path: Path) -> None:
    """Two plain `zuni play` (each against the computer, as a new user starts): page A's
    "New remote game" shows the invite code, page B refuses a code that is none in words
    and then joins with the code typed into its box; both boards go over to the remote
    game and the people play moves on their pages."""
    plays: dict[str, ZuniPlay] = {}
    pages: dict[str, Any] = {}
    try:
        for who, name in (("a", "Ann"), ("b", "Bea")):
            home = tmp_path / who
            home.mkdir()
            env = {"ZUNI_REMOTE_DIR": str(home / "remote"), "ZUNI_SIM_DIR": str(home / "sim")}
            plays[who] = ZuniPlay(
                "--broker", broker_url, "--name", name, "--show", "0.2", db=home / "games.sqlite3", env=env
            )
            url = plays[who].expect(r"^browser page of the virtual board: (http://\S+)").group(1)
            plays[who].expect(r"^new game #\d+: mosona")
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.goto(url)
            page.wait_for_selector("#lobby-panel:not([hidden])", timeout=30000)
            pages[who] = page
        a, b = pages["a"], pages["b"]
        assert a.input_value("#lobby-name") == "Ann"
        assert text_of(a, "#lobby-broker") == broker_url

        # A code that is no code, then one no game has: said in words, nothing changes.
        b.fill("#lobby-code", "12")
        b.click("#btn-lobby-join")
        wait(lambda: "invite code '12'" in text_of(b, "#lobby-error"), "a malformed code refused")
        b.fill("#lobby-code", "zzz-zzz")
        b.click("#btn-lobby-join")
        wait(lambda: "no game has the invite code zzzzzz" in text_of(b, "#lobby-error"), "an unknown code refused")
        # It stays said while the page goes on taking states (a line typed, the computer's
        # move): the refusal changed nothing on the server, and each state after it wiped
        # it, under load before the test (or a person) could read it.
        said = b.eval_on_selector("#said", "e => e.textContent")
        type_line(b, "help")
        wait(lambda: b.eval_on_selector("#said", "e => e.textContent") != said, "a state after the refusal")
        assert "no game has the invite code zzzzzz" in text_of(b, "#lobby-error")
        shot(b, tmp_path, "lobby-refused-b.png")
        assert page_state(b).get("remote") is None
        assert b.is_hidden("#btn-lobby-cancel")
        assert b.is_visible("#btn-lobby-join")

        # Page A starts a game: its code shows while it waits for the other.
        a.click("#btn-lobby-new")
        wait(lambda: re.fullmatch(r"[A-Z0-9]{3}-[A-Z0-9]{3}", text_of(a, "#lobby-code-shown")), "the code on A")
        code = text_of(a, "#lobby-code-shown")
        assert text_of(a, "#lobby-invite") == "zuni play --remote %s --broker %s" % (code, broker_url)
        assert a.is_visible("#btn-lobby-cancel") and a.is_hidden("#lobby-form")
        shot(a, tmp_path, "lobby-waiting-a.png")
        b.fill("#lobby-code", code.lower())
        b.click("#btn-lobby-join")
        for play in plays.values():
            play.expect(r"the remote game %s starts on this board" % code)
            play.expect(r"^new game #\d+: mosona")
        for page in pages.values():
            page.wait_for_selector("#remote-panel:not([hidden])", timeout=30000)
            wait(lambda p=page: p.is_hidden("#lobby-panel"), "the lobby gives way to the remote panel")
        seats = {who: str(page_state(page)["remote"]["seat"]) for who, page in pages.items()}
        assert sorted(seats.values()) == ["north", "south"]
        by_seat = {seat: who for who, seat in seats.items()}
        assert text_of(a, "#remote-code") == code
        wait(
            lambda: seat_line(a, seats["b"]) == "%s (Bea): connected" % seats["b"].capitalize(),
            "B connected on A's page",
        )

        game = zuni.new_game("mosona")
        person = GreedyPlayer(5)
        for _ in range(6):
            side = str(zuni.SIDE_NAMES[game.turn])
            mover, other = by_seat[side], by_seat["north" if side == "south" else "south"]
            n = len(game.move_stack) + 1
            if only_pass(game):
                break
            text = str(person.choose(game).text())
            type_line(pages[mover], text)
            plays[mover].expect(r"^%d\. %s %s$" % (n, side, re.escape(text)))
            plays[other].expect(r"^%d\. %s %s \(carried out on the board\)$" % (n, side, re.escape(text)))
            game.push_text(text)
        for page in pages.values():
            wait(
                lambda p=page: page_state(p)["play"].get("moves") == [m.text() for m in game.move_stack],
                "the moves on the page",
            )
        shot(b, tmp_path, "lobby-joined-b.png")
        for play in plays.values():
            play.send("quit")
            assert play.wait() == 0
        # Each log keeps the remote game with the other's name (and the computer game
        # left before it, unfinished).
        with Database(tmp_path / "a" / "games.sqlite3") as db:
            record = db.get(db.game_ids()[-1])
        assert record.move_texts() == [m.text() for m in game.move_stack]
        assert record.players == {seats["a"]: "human", seats["b"]: "remote:Bea"}
    finally:
        for play in plays.values():
            play.close()
