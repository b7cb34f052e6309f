"""A new user's first game: `zuni play --sim` (the README's main command, on the virtual
board), a whole game of Mosona against the computer played in the browser page it
prints, and the game found in `zuni log`.

`zuni play` runs as a subprocess with its own virtual board and page (``--manual``: the
terminal's hand moves nothing; every piece is moved on the page). A real headless
chromium (Playwright, as in test_web_browser.py) clicks the disks like a person: lift,
place, each captured disk lifted and laid beside the board. The person's moves are
greedy; the computer's are read from `zuni play`'s output ("carry out ... on the board")
and carried out on the page the same way.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_play_helpers import ZuniPlay
from test_play_helpers import zuni as run_zuni
from test_web_browser import CHROMIUM, CHROMIUM_ARGS, disks_shown, shot, sync_playwright, wait

import zuni
from zuniboard.ai import GreedyPlayer
from zuniboard.mpy import MicroPythonMissing, micropython_executable
from zuniboard.play.words import outcome_words
from zuniboard.records.db import Database

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


@pytest.mark.slow
def test_a_new_user_plays_mosona_in_the_browser_and_finds_it_in_the_log(page_browser: Any, tmp_path: Path) -> None:
    started = time.monotonic()
    db = tmp_path / "games.sqlite3"
    play = ZuniPlay(
        "--sim",
        "--manual",
        "--north",
        "ai:1",
        "--deterministic",
        "--seed",
        "3",
        db=db,
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    game = zuni.new_game("mosona")
    person = GreedyPlayer(11)
    try:
        url = play.expect(r"^browser page of the virtual board: (http://\S+)").group(1)
        play.expect(r"^new game #\d+: mosona")
        page = page_browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_function("document.body.dataset.seq !== undefined")
        wait(lambda: len(disks_shown(page)) == 24, "the 24 disks on the page")
        while not game.is_game_over():
            side = str(zuni.SIDE_NAMES[game.turn])
            n = len(game.move_stack) + 1
            if side == "south":
                text = str(person.choose(game).text())
            else:
                text = play.expect(r"^carry out (\S+) on the board").group(1)
            carry_out(page, game, text)
            play.expect(r"^%d\. %s %s( |$)" % (n, side, re.escape(text)))
            game.push_text(text)
            on_board = {str(game.geometry.names[i]) for i in range(len(game.board)) if game.board[i]}
            assert set(disks_shown(page)) == on_board
            assert len(game.move_stack) < MAX_PLIES
        outcome = game.outcome()
        play.expect(r"^%s\. Game #\d+ is logged" % re.escape(outcome_words(game, outcome)))
        said = "result %s (%s)" % (outcome.result, outcome.termination)
        wait(lambda: said in " ".join(page.inner_text("#status").split()), "the page to say " + said, 10.0)
        path = shot(page, tmp_path, "mosona-game-over.png")
        assert path.stat().st_size > 10_000
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
        r"human vs ai:1 +%d +%s" % (len(moves), re.escape(outcome.result)), listing.stdout
    ), listing.stdout
    shown = run_zuni("log", "show", "last", "--db", str(db))
    assert shown.returncode == 0 and moves[-1] in shown.stdout and outcome.termination in shown.stdout
    print("mosona in the browser: %d plies in %.1f s, %s" % (len(moves), time.monotonic() - started, path))
