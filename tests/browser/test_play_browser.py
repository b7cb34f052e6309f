"""A new user's first game: `make play` (`zuni play` with no options: the virtual board
when none is plugged in), a whole game of Mosona against the computer played in the
browser page it prints, and the game found in `zuni log`.

`zuni play` runs as a subprocess with its own virtual board and page; the terminal's
hand carries out the computer's moves, as `make play` does. A real headless chromium
(Playwright, as in test_web_browser.py) clicks the disks like a person for South: lift,
place, each captured disk lifted and laid beside the board (greedy moves). The test
reads from the page what a person reads there.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from play_helpers import ZuniPlay
from play_helpers import zuni as run_zuni
from test_web_browser import CHROMIUM, CHROMIUM_ARGS, disks_shown, shot, sync_playwright, wait

import zuni
from zuni.position import parse_position
from zuniboard.ai import GreedyPlayer
from zuniboard.games.words import outcome_words, plays_words
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

MAX_PLIES = 200


@pytest.fixture
def page_browser() -> Iterator[Any]:
    assert sync_playwright is not None
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def hit(page: Any, name: str) -> Any:
    return page.locator('#board .hit[data-point="%s"]' % name)


def in_hand(page: Any) -> int:
    n: int = page.locator("#hand .chip").count()
    return n


def carry_out(page: Any, game: zuni.Game, text: str) -> None:
    """Makes move ``text`` of ``game`` on the page as a person: lift the mover, put it on
    its last landing point, then lift each captured disk and lay it beside the board."""
    move = game.parse_move(text)
    names = game.geometry.names
    origin, dest = str(names[move.path[0]]), str(names[move.path[-1]])
    hit(page, origin).click()
    wait(lambda: in_hand(page) == 1 and origin not in disks_shown(page), "%s in the hand" % origin)
    hit(page, dest).click()
    wait(lambda: in_hand(page) == 0 and dest in disks_shown(page), "the disk put on %s" % dest)
    for p in move.captures:
        captured = str(names[p])
        hit(page, captured).click()
        wait(lambda c=captured: in_hand(page) == 1 and c not in disks_shown(page), "%s lifted" % captured)
        page.click("#btn-discard")
        wait(lambda: in_hand(page) == 0, "%s laid beside the board" % captured)


def same_effect(game: zuni.Game, text: str) -> list[str]:
    """The legal moves with the origin, landing and captures of move ``text``."""
    move = game.parse_move(text)
    return [
        str(m)
        for m in game.legal_moves()
        if (m.path[0], m.path[-1], sorted(m.captures)) == (move.path[0], move.path[-1], sorted(move.captures))
    ]


def page_text(page: Any, selector: str) -> str:
    return " ".join(str(page.inner_text(selector)).split())


@pytest.mark.slow
def test_a_new_user_plays_mosona_in_the_browser_and_finds_it_in_the_log(page_browser: Any, tmp_path: Path) -> None:
    """`make play` as it is but for the seats (`zuni play --north ai:3`: the person plays
    South here, the side whose moves a greedy player finds; `make play` seats the person as
    North, test_first_game.py), the log's file and the page on a free port instead of 8765,
    so that parallel tests do not share it: no board plugged in, so the virtual
    board; North the computer at its default level; the terminal's hand carries out the
    computer's moves), the person's moves made by clicks on the page. The page says the
    computer's move in words while the board shows it, why a move is refused, the last
    move and the list of moves, and the result in plain words."""
    started = time.monotonic()
    db = tmp_path / "games.sqlite3"
    play = ZuniPlay("--north", "ai:3", db=db, env={"ZUNI_SIM_DIR": str(tmp_path / "sim")})
    game = zuni.new_game("mosona")
    person = GreedyPlayer(11)
    try:
        play.expect(r"^no board plugged in")
        url = play.expect(r"^browser page of the virtual board: (http://\S+)").group(1)
        play.expect(r"^new game #\d+: mosona, south human, north ai:3")
        page = page_browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
        phone = page_browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        phone_page = phone.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        phone_page.goto(url)
        page.wait_for_function("document.body.dataset.seq !== undefined")
        wait(lambda: len(disks_shown(page)) == 24, "the 24 disks on the page")
        wait(lambda: "South to move" in page_text(page, "#now"), "the page to say whose turn it is")
        # Mosona's natural first step is refused, and the page says by which rule.
        hit(page, "m6").click()
        hit(page, "m5").click()
        wait(
            lambda: "m6-m5: a capture is compulsory: s3xm4-m5" in page_text(page, "#refusal"),
            "the page to name the rule that refuses m6-m5",
            30.0,
        )
        shot(page, tmp_path, "play-refused-desktop.png")
        hit(page, "m5").click()
        hit(page, "m6").click()
        wait(lambda: page.locator("#refusal").is_hidden(), "the refusal gone once the disk is back")
        # A line typed on the page goes to the same game controller as the terminal's:
        # a refused move is answered with its rule, a move is made by the terminal's hand.
        page.fill("#line", "m6-m5")
        page.click("#btn-line")
        wait(
            lambda: (
                "m6-m5: a capture is compulsory: s3xm4-m5"
                in page.eval_on_selector_all("#said li", "els => els.map(e => e.textContent)")
            ),
            "the controller's answer to the line typed on the page (not the board's own word)",
        )
        play.expect(r"^m6-m5: a capture is compulsory: s3xm4-m5$")  # the terminal says it too
        said_by_page: list[str] = []
        said_and_drawn: list[str] = []
        typed_on_page = ""
        while not game.is_game_over():
            side = str(zuni.SIDE_NAMES[game.turn])
            n = len(game.move_stack) + 1
            if side == "south" and n == 3:
                text = typed_on_page = str(person.choose(game).text())
                page.fill("#line", text)
                page.click("#btn-line")
                play.expect(r"^%d\. south %s$" % (n, re.escape(text)))
                wait(lambda: page.input_value("#line") == "", "the line cleared once taken")
            elif side == "south":
                text = str(person.choose(game).text())
                carry_out(page, game, text)
                # The board sees the origin, the landing and the pieces taken, not the
                # path in the air: a chain with a twin of the same effect (s7xm7-m6xn5-n4
                # and s7xm7-n6xn5-n4) may be read as either.
                twins = "|".join(re.escape(t) for t in same_effect(game, text))
                text = play.expect(r"^%d\. south (%s)$" % (n, twins)).group(1)
            else:
                text = play.expect(r"^North plays (\S+): ").group(1)
                words = plays_words(game, game.parse_move(text))
                # Lit on the board and said on the page before the hand carries it out.
                wait(lambda w=words: w in page_text(page, "#now"), "the page to say " + words, 30.0)
                # ... and drawn on the board steadily while its lights flash.
                drawn = page.eval_on_selector_all("#board .shown-path", "els => els.map(e => e.dataset.move)")
                assert drawn in ([text], []), drawn  # [] only when the hand was quicker than this look
                if drawn:
                    said_and_drawn.append(text)
                said_by_page.append(words)
                if len(said_by_page) == 2:
                    shot(page, tmp_path, "play-computer-move-desktop.png")
                    shot(phone_page, tmp_path, "play-computer-move-phone.png")
                play.expect(r"^%d\. north %s \(carried out on the board\)$" % (n, re.escape(text)))
            game.push_text(text)
            wait(
                lambda t=text: page.locator("#moves .mv.last").count() == 1 and page_text(page, "#moves .mv.last") == t,
                "the move list to end with " + text,
            )
            on_board = {str(game.geometry.names[i]) for i in range(len(game.board)) if game.board[i]}
            wait(lambda b=on_board: set(disks_shown(page)) == b, "the disks where the game has them")
            lights = page_text(page, "#status-text")  # the frame shown now, nothing from before
            assert not ("South's side to move" in lights and "North's side to move" in lights), lights
            move = game.move_stack[-1]
            marked = set(page.eval_on_selector_all("#board .last-ring", "els => els.map(e => e.dataset.point)"))
            assert marked == {str(game.geometry.names[move.origin]), str(game.geometry.names[move.dest])}
            assert len(game.move_stack) < MAX_PLIES
        outcome = game.outcome()
        result = outcome_words(game, outcome)
        play.expect(r"^%s\. Game #\d+ is logged" % re.escape(result))
        wait(lambda: result + ". Press OK to start a new game." in page_text(page, "#now"), "the result in words")
        assert "game over" not in page_text(page, "#side").lower(), "no engine words on the page"
        assert page.locator("#moves .mv").count() == len(game.move_stack)
        path = shot(page, tmp_path, "play-game-over-desktop.png")
        shot(phone_page, tmp_path, "play-game-over-phone.png")
        assert path.stat().st_size > 10_000
        assert said_by_page, "the computer moved at least once"
        assert said_and_drawn, "the computer's move was drawn on the board while shown"
        assert typed_on_page, "a move was typed on the page"
        assert errors == []
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    moves = [m.text() for m in game.move_stack]
    with Database(db) as d:
        record = d.get(d.game_ids()[-1])
        assert record.move_texts() == moves
        assert (record.result, record.termination) == (outcome.result, outcome.termination)
    listing = run_zuni("log", "list", "--db", str(db))
    assert listing.returncode == 0 and re.search(
        r"human vs ai:3 +%d +%s" % (len(moves), re.escape(outcome.result)), listing.stdout
    ), listing.stdout
    print("mosona in the browser: %d plies in %.1f s, %s" % (len(moves), time.monotonic() - started, path))


def _placeholder_fit(page: Any) -> tuple[str, float, float]:
    """The typing box's placeholder, its drawn width and the box's room for text (px)."""
    fit: list[Any] = page.evaluate(
        """() => {
          const box = document.getElementById("line");
          const style = getComputedStyle(box, "::placeholder"), own = getComputedStyle(box);
          const pen = document.createElement("canvas").getContext("2d");
          pen.font = style.fontSize + " " + own.fontFamily;
          const room = box.clientWidth - parseFloat(own.paddingLeft) - parseFloat(own.paddingRight);
          return [box.placeholder, pen.measureText(box.placeholder).width, room];
        }"""
    )
    return str(fit[0]), float(fit[1]), float(fit[2])


def _game_disks(position: str, moves: list[str]) -> dict[str, str]:
    """point -> side of the pieces of ``position`` after ``moves`` (the rules engine's word)."""
    game = parse_position(position)
    for text in moves:
        game.push_text(text)
    names = game.geometry.names
    return {str(names[p]): str(zuni.SIDE_NAMES[zuni.piece_side(c)]) for p, c in enumerate(game.board) if c}


@pytest.mark.slow
def test_the_page_colours_the_disks_of_a_game_from_a_position_and_after_a_take_back(
    page_browser: Any, tmp_path: Path
) -> None:
    """`zuni play --sim --from POSITION`: m4 is North's at the start but South's in the
    position; the disk left standing on m4 was drawn North's (red). Each disk is drawn in
    the colour of the side whose piece it is, after a move and after a take-back too."""
    position = "kolowis size=short | south to move | south m4 s6 | north n3"
    play = ZuniPlay(
        "--sim",
        "--from",
        position,
        "--north",
        "ai:1",
        db=tmp_path / "g.sqlite3",
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    try:
        url = play.expect(r"^browser page of the virtual board: (http://\S+)").group(1)
        play.expect(r"^new game #\d+: kolowis size=short from ")
        page = page_browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        phone = page_browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        phone_page = phone.new_page()
        want = _game_disks(position, [])
        assert want == {"m4": "south", "s6": "south", "n3": "north"}
        legal = sorted(str(m.text()) for m in parse_position(position).legal_moves())
        for p in (page, phone_page):
            p.goto(url)
            p.wait_for_function("document.body.dataset.seq !== undefined")
            try:
                wait(lambda p=p: disks_shown(p) == want and "South to move" in page_text(p, "#now"), "the position")
            except AssertionError:
                raise AssertionError("the page draws %s, the game has %s" % (disks_shown(p), want))
            # The typing box's example is a move of this game, and it fits in the box.
            example, width, room = _placeholder_fit(p)
            assert example == "e.g. %s, hint" % min(legal, key=len), example
            assert width <= room, "the example %r (%.0f px) is cut off in a box %.0f px wide" % (example, width, room)
        game = parse_position(position)
        text = str(game.legal_moves()[0].text())
        play.send(text)
        play.expect(r"^1\. south %s$" % re.escape(text))
        reply = play.expect(r"^2\. north (\S+) \(carried out on the board\)$").group(1)
        after = _game_disks(position, [text, reply])
        wait(lambda: disks_shown(page) == after, "the disks after %s %s: %s" % (text, reply, after))
        play.send("undo")
        play.expect(r"take|took|back", 20)

        def taken_back() -> bool:
            moves = list(page.eval_on_selector_all("#moves .mv", "els => els.map(e => e.textContent.trim())"))
            return len(moves) < 2 and disks_shown(page) == _game_disks(position, moves)

        try:
            wait(taken_back, "the disks of the position after the take-back", 30.0)
        except AssertionError:
            raise AssertionError("after undo the page draws %s\n%s" % (disks_shown(page), play.tail()))
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()


def test_grades_and_the_review_on_the_page(page_browser: Any, tmp_path: Path) -> None:
    """`zuni play --assist south=warn,north=none --hint-limit 2` from a position where
    South's s2xm2-n1 throws away a win in 1: the page shows each seat's help, the blunder
    graded in words once it is made, and after the game (South resigns) the review."""
    position = "mosona | south to move | south m6 m7 s2 s4 | north n3 m3 m2 | quiet 0"
    play = ZuniPlay(
        "--from",
        position,
        "--south",
        "human",
        "--north",
        "human",
        "--assist",
        "south=warn,north=none",
        "--hint-limit",
        "2",
        "--deterministic",
        db=tmp_path / "games.sqlite3",
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    try:
        url = play.expect(r"^browser page of the virtual board: (http://\S+)").group(1)
        page = page_browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
        page.goto(url)
        wait(lambda: page.is_visible("#review-panel"), "the help panel")
        wait(
            lambda: page_text(page, "#help-levels") == "south: help warn, 2 hints left · north: help none",
            "each seat's help on the page",
        )
        play.expect(r"south to move")
        play.send("s2xm2-n1")
        play.expect(r"^1\. south s2xm2-n1: blunder, missed a win in 1 \(s2xm2-n2xn3-m4xm3-n2\)$")
        wait(lambda: "s2xm2-n1: blunder" in page_text(page, "#review-moves"), "the blunder on the page")
        assert page.text_content("#review-head") == "Help and grades"
        play.send("resign")
        play.expect(r"resign the game for")
        play.send("yes")
        wait(lambda: page.text_content("#review-head") == "Review of the game", "the review after the game")
        assert page_text(page, "#review-counts") == "south: 1 blunder"
        graded = "1. south s2xm2-n1: blunder, missed a win in 1 (s2xm2-n2xn3-m4xm3-n2)"
        assert page_text(page, "#review-moves") == graded
        shot(page, tmp_path, "play-review.png")
    finally:
        play.close()
