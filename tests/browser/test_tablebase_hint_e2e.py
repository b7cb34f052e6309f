"""End to end: "win in N" from the endgame tables, where a player reads it.

A small table (Kolowis short, up to 3 pieces: well under a second to build) is built
into the test's own tablebase directory; `zuni play` starts from a position the table
covers (``--from``), and HINT is pressed:

- on the virtual board (the real firmware under the MicroPython unix port on a pty,
  `zuni play --port` as a subprocess, the position set up by a test hand with lifts and
  places as the board asks): the terminal says the table's best move and "win in N
  moves", the board lights it (double flash: blue origin, green landing); the typed
  `hint` says the same;
- on the browser page (`zuni play --sim`, real headless chromium): the page says it;
- `zuni analyze` of a logged game from the position that plays a drawing move says
  "missed a win in N", the same N.

N is what the table says (``tablebase.probe``), counted in moves of both sides, the
hinted move included (docs/tablebases.md).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from play_helpers import ZuniPlay
from play_helpers import zuni as run_zuni
from waiting import wait_until

from zuni.position import parse_position, position_text
from zuniboard.ai import tablebase
from zuniboard.games.words import table_words
from zuniboard.records.db import Database
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
    from zuniboard.virtual.board import VirtualBoard
except (MicroPythonMissing, ImportError) as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)

# South to move, 2 against 1: a win the table knows to the move (found with the table;
# one best move, a step, so the lights are known).
POSITION = "kolowis size=short | south to move | south m4 s6 | north n3"
BLUE = (0, 40, 255)
GREEN = (0, 255, 0)


@pytest.fixture
def tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Kolowis short tables up to 3 pieces in this test's own tablebase directory (where
    the `zuni` subprocesses look too: they inherit the environment)."""
    where = tmp_path / "tablebases"
    monkeypatch.setenv("ZUNI_TABLEBASE_DIR", str(where))
    monkeypatch.setattr(tablebase, "_LOADED", {})
    tablebase.save(tablebase.build("kolowis size=short", 3))
    return where


def _verdict() -> tablebase.Verdict:
    verdict = tablebase.probe(parse_position(POSITION))
    assert verdict is not None and verdict.result == "win" and verdict.moves > 5, verdict
    assert len(verdict.best_moves) == 1, verdict.best_moves
    return verdict


def _wait_lit(vb: Any, want: dict[str, tuple[int, int, int]], timeout: float = 10.0) -> None:
    """The hint's double flash is dark most of the time: look until one frame shows it."""
    seen: dict[str, tuple[int, int, int]] = {}

    def shown_lit() -> bool:
        nonlocal seen
        leds = vb.leds()
        seen = {p: leds[p] for p in want}
        return seen == want

    wait_until(shown_lit, lambda: "the hint shown lit: want %s, last seen %s" % (want, seen), timeout)


def test_hint_on_the_virtual_board_says_win_in_n_and_lights_the_tables_move(tables: Path, tmp_path: Path) -> None:
    from vboard_helpers import fast_layout, side_points
    from vboard_helpers import wait_lit as _wait_asked

    verdict = _verdict()
    best = verdict.best_moves[0]
    game = parse_position(POSITION)
    names = game.geometry.names
    origin, dest = str(names[best.origin]), str(names[best.dest])
    vb = VirtualBoard(
        fast_layout("board25", tmp_path), ruleset="kolowis size=short", pieces="start", flash=tmp_path / "f"
    )
    play: ZuniPlay | None = None
    try:
        vb.start()
        play = ZuniPlay("--port", vb.port_path, "--from", POSITION, "--north", "human", db=tmp_path / "games.sqlite3")
        play.expect(r"^new game #\d+: kolowis size=short from ")
        for point in sorted(vb.occupied):
            vb.lift(point)
        placed: set[str] = set()
        for side, points in side_points(game).items():
            _wait_asked(vb, points, side, placed | set(points))  # the board asks for one side at a time
            for point in points:
                vb.place(point)
            placed |= set(points)
            vb.wait_stable(placed, 10)
        play.expect(r"south to move")
        vb.press("hint")
        line = play.expect(r"^hint for south: (\S+) \((.*)\), shown on the board; endgame table: (.*)$", 30)
        assert line.group(1) == best.text(), line.group(0)
        assert line.group(2) == "lift %s, put it on %s" % (origin, dest)
        assert line.group(3) == table_words("win", verdict.moves)
        assert line.group(3).startswith("win in %d moves (" % verdict.moves)
        _wait_lit(vb, {origin: BLUE, dest: GREEN})
        # The terminal's hint command says the same.
        play.send("hint")
        again = play.expect(r"^hint for south: ", 30)
        assert again.string == line.string, (again.string, line.string)
        play.send("quit")
        assert play.wait() == 0
    finally:
        if play is not None:
            play.close()
        vb.close()


def test_the_page_says_win_in_n_after_its_hint_button(tables: Path, tmp_path: Path) -> None:
    from test_web_browser import CHROMIUM, CHROMIUM_ARGS, sync_playwright, wait

    if sync_playwright is None or not Path(CHROMIUM).exists():
        pytest.skip("no playwright or no chromium (tools/ensure_browser.sh installs it)")
    verdict = _verdict()
    best = verdict.best_moves[0].text()
    play = ZuniPlay(
        "--sim",
        "--from",
        POSITION,
        "--north",
        "human",
        db=tmp_path / "games.sqlite3",
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    try:
        url = play.expect(r"^browser page of the virtual board: (http://\S+)", 40).group(1)
        play.expect(r"the board is set up", 40)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                page.goto(url)
                wait(lambda: "South to move" in page.inner_text("#now"), "the page to say South is to move", 20.0)
                assert page.locator("#hint-said").is_hidden()
                page.click("#btn-hint")
                said = page.locator("#hint-said")
                wait(lambda: said.is_visible() and "Endgame table" in said.inner_text(), "the hint on the page", 30.0)
                text = " ".join(said.inner_text().split())
                assert text.startswith("Hint for South: %s (" % best), text
                assert "Endgame table: %s." % table_words("win", verdict.moves) in text, text
                assert re.search(r"win in %d moves \(\d+ of them yours\)" % verdict.moves, text), text
                # A move played: the hint was for the position before it, and goes.
                play.send(best)
                wait(lambda: said.is_hidden(), "the hint gone once the move is played", 30.0)
            finally:
                browser.close()
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()


def test_analyze_says_missed_a_win_in_n_with_the_tables_n(tables: Path, tmp_path: Path) -> None:
    verdict = _verdict()
    game = parse_position(POSITION)
    # A move that throws the win away: the table says so (a draw or a loss after it).
    scored = tablebase.move_values(game, tablebase.for_ruleset("kolowis size=short"))
    worse = next(m for m, v in scored if v <= 0)
    db_path = tmp_path / "games.sqlite3"
    with Database(db_path) as db:
        gid = db.new_game(
            "kolowis size=short", players={"south": "human", "north": "human"}, position=position_text(game)
        )
        db.add_move(gid, 0, worse.text())
    out = run_zuni("analyze", str(gid), "--db", str(db_path), "--nodes", "200")
    assert out.returncode == 0, out.stderr
    first = next(line for line in out.stdout.splitlines() if line.startswith("1. south"))
    assert first.startswith("1. south %s " % worse.text()), first
    assert "better %s (win in %d)" % (verdict.best_moves[0].text(), verdict.moves) in first, first
    assert "[tablebase: win in %d]" % verdict.moves in first, first
    assert "south: 1 mistake: missed a win in %d" % verdict.moves in out.stdout, out.stdout
