"""The page without a mouse or without sight (docs/play.md, *A page anyone can use*), in
real headless chromium (Playwright, as test_web_browser.py):

- a whole short game against the computer played by the keyboard alone (Tab to the
  board, arrow keys along its lines, Enter lifts and places, Delete lays a captured
  disk beside the board), read from the live region's announcements only;
- an axe-core audit (the npm package's axe.min.js, shipped by the PyPI package
  axe-playwright-python) with no serious or critical violation in play, in setup, in
  replay and with a clock;
- the page's speech setting hands the announcements to the browser's speech.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from play_helpers import ZuniPlay, ZuniReplay
from test_web_browser import CHROMIUM, CHROMIUM_ARGS, sync_playwright, wait

import zuni
from zuniboard.ai import GreedyPlayer
from zuniboard.games.spoken import move_spoken
from zuniboard.link.mirror import start_game
from zuniboard.virtual.board import VirtualBoard
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable
from zuniboard.web import start_web

try:
    import axe_playwright_python

    AXE_JS: str | None = Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text(encoding="utf-8")
except (ImportError, OSError):  # pragma: no cover - depends on the machine
    AXE_JS = None

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

# A short game: South (the keyboard) has three pieces, North (the computer) two.
SHORT = "mosona | south to move | south s2 s6 m7 | north m4 n6"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    assert sync_playwright is not None
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def new_page(browser: Any, url: str) -> Any:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("document.body.dataset.seq !== undefined")
    page.errors = errors
    return page


def audit(page: Any, where: str) -> list[str]:
    """axe-core's serious and critical violations of the page as it is (``rule: nodes``)."""
    assert AXE_JS is not None
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=AXE_JS)
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    assert len(result["passes"]) > 10, "axe ran its rules"
    bad = [
        "%s (%s): %s" % (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:5])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    return ["%s: %s" % (where, b) for b in bad]


def said(page: Any) -> list[str]:
    out: list[str] = page.evaluate("window.zuniSaid.slice()")
    return out


def focused_point(page: Any) -> str:
    name: str = page.evaluate("document.activeElement && document.activeElement.getAttribute('data-point') || ''")
    return name


def coords(url: str) -> dict[str, tuple[float, float]]:
    with urllib.request.urlopen(url + "api/board", timeout=10) as reply:
        b = json.load(reply)
    return {n: (c[0], c[1]) for n, c in zip(b["names"], b["coords"], strict=True)}


def go_to(page: Any, where: dict[str, tuple[float, float]], target: str) -> int:
    """Moves the keyboard's cursor to ``target`` with the arrow keys only, as a person
    who knows the board would: the key towards it on the axis that is further off first
    (the board's y grows upwards, the screen's down). Returns the keys pressed."""
    presses = 0
    while focused_point(page) != target:
        here = focused_point(page)
        assert here, "the focus left the board"
        (x0, y0), (x1, y1) = where[here], where[target]
        dx, dy = x1 - x0, y1 - y0
        keys = []
        horizontal = "ArrowRight" if dx > 0 else "ArrowLeft"
        vertical = "ArrowUp" if dy > 0 else "ArrowDown"
        if abs(dx) >= abs(dy):
            keys = [horizontal] + ([vertical] if abs(dy) > 0.01 else [])
        else:
            keys = [vertical] + ([horizontal] if abs(dx) > 0.01 else [])
        for key in keys:
            page.keyboard.press(key)
            presses += 1
            if focused_point(page) != here:
                break
        else:
            raise AssertionError("stuck on %s on the way to %s" % (here, target))
        assert presses < 60, "no way to %s" % target
    return presses


def wait_said(page: Any, pattern: str, what: str, timeout: float = 30.0, start: int = 0) -> str:
    regex = re.compile(pattern)

    def found() -> str:
        for line in said(page)[start:]:
            if regex.search(line):
                return line
        return ""

    try:
        line: str = wait(found, what, timeout)
    except AssertionError:
        raise AssertionError("%s: the page announced %s" % (what, said(page)[start:])) from None
    return line


def test_a_whole_short_game_by_keyboard_alone(browser: Any, tmp_path: Path) -> None:
    """South plays by the keyboard alone, reading only the announcements (what a screen
    reader says and the page's speech speaks): each of its moves and the computer's are
    announced, the captured pieces named to take off, and the result."""
    play = ZuniPlay(
        "--sim",
        "--from",
        SHORT,
        "--north",
        "ai:1",
        "--deterministic",
        "--seed",
        "2",
        "--show",
        "0.5",
        db=tmp_path / "games.sqlite3",
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    game = start_game("mosona", SHORT)
    person = GreedyPlayer(7)
    try:
        url = play.expect(r"^browser page of the virtual board: (http://\S+)").group(1)
        page = new_page(browser, url)
        page.check("#speak")
        where = coords(url)
        wait(lambda: page.evaluate("!!(window.zuniSaid)"), "the page's announcements")
        play.expect(r"^south to move \(", 60)
        # The setting is kept for the next visit; from the top of the page, Tab reaches
        # the board (its cursor) first.
        page.reload()
        page.wait_for_function("document.body.dataset.seq !== undefined")
        assert page.is_checked("#speak")
        page.keyboard.press("Tab")
        wait(lambda: focused_point(page) != "", "the board's cursor focused by Tab")
        label = page.evaluate("document.activeElement.getAttribute('aria-label')")
        assert re.match(r"^[a-z]\d+, (South piece|North piece|empty)", label), label
        presses = 0
        mark = 0  # the announcements read so far
        while not game.is_game_over():
            if zuni.SIDE_NAMES[game.turn] == "north":
                line = wait_said(page, r"^North, ", "the computer's move announced", 60, mark)
                played = play.expect(r"^\d+\. north (\S+) \(carried out on the board\)", 60).group(1)
                move = game.parse_move(played)
                assert line.startswith("North, %s" % move_spoken(played)), line
                game.push(move)
                mark = said(page).index(line, mark) + 1
                if not game.is_game_over():
                    turn = wait_said(page, r"^South to move$", "South's turn announced", 30, mark)
                    mark = said(page).index(turn, mark) + 1
                continue
            move = person.choose(game)
            names = game.geometry.names
            origin, dest = str(names[move.path[0]]), str(names[move.path[-1]])
            presses += go_to(page, where, origin)
            page.keyboard.press("Enter")
            wait_said(page, r"^lifted the South piece from %s; it can play " % origin, "the lift announced", 10, mark)
            presses += go_to(page, where, dest)
            page.keyboard.press("Enter")
            line = wait_said(page, r"^put on %s" % dest, "the landing announced", 10, mark)
            for p in move.captures:
                taken = str(names[p])
                assert " %s" % taken in line.split("take", 1)[1], "the piece to take off is named: %s" % line
                presses += go_to(page, where, taken)
                page.keyboard.press("Enter")
                wait_said(page, r"^lifted the North piece from %s" % taken, "the captured piece lifted", 10, mark)
                page.keyboard.press("Delete")
                wait_said(page, r"^laid the North piece beside the board", "laid aside", 10, mark)
            line = wait_said(page, r"^South, %s$" % re.escape(move_spoken(move.text())), "South's move", 20, mark)
            game.push(move)
            mark = said(page).index(line, mark) + 1
        outcome = game.outcome()
        assert outcome is not None
        head = "North wins" if outcome.result == "north" else "South wins" if outcome.result == "south" else "A draw"
        wait_said(page, "^" + head, "the result announced", 30)
        assert page.errors == []
        spoken = page.evaluate("window.zuniSpoken.slice()")
        assert any(s.startswith("North, ") for s in spoken) and any(s.startswith(head) for s in spoken), spoken
        assert presses > 0
    finally:
        play.close()


def test_the_axe_audit_in_play_with_a_clock_in_setup_and_in_replay(browser: Any, tmp_path: Path) -> None:
    if AXE_JS is None:
        pytest.skip("axe-core is missing (pip install axe-playwright-python)")
    found: list[str] = []
    # In setup: a board with no disks on it, waiting for the position to be set up.
    with VirtualBoard("board25", ruleset="mosona", pieces="empty", flash=tmp_path / "flash.img") as vb:
        with start_web(vb, 0) as web:
            page = new_page(browser, web.url)
            wait(lambda: "Set up the pieces" in page.inner_text("#now"), "the setup shown")
            found += audit(page, "setup")
            page.check("#contrast")
            found += audit(page, "setup, high contrast")
            page.close()
    # In play with a clock, the computer's move shown, a refusal said.
    play = ZuniPlay(
        "--sim",
        "--clock",
        "5",
        "--north",
        "ai:1",
        "--deterministic",
        "--show",
        "30",
        db=tmp_path / "games.sqlite3",
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    try:
        url = play.expect(r"^browser page of the virtual board: (http://\S+)").group(1)
        page = new_page(browser, url)
        play.expect(r"^south to move \(", 60)
        wait(lambda: page.locator("#clocks").is_visible(), "the clocks shown")
        found += audit(page, "play with a clock")
        # Fast hands: the next line typed while the page still waits for the first one's
        # reply (held back a second here) is neither erased nor sent empty when it comes.
        page.evaluate(
            """() => {
              const plain = window.fetch;
              window.fetch = (url, opts) => plain(url, opts).then((r) =>
                String(url).endsWith("/api/line") ? new Promise((ok) => setTimeout(() => ok(r), 1000)) : r);
            }"""
        )
        page.fill("#line", "m6-m5")
        page.press("#line", "Enter")
        page.fill("#line", "s3xm4-m5")
        wait_said(page, r"^m6 to m5: a capture is compulsory", "the refusal announced")
        time.sleep(1.5)  # the first line's reply has come by now
        assert page.input_value("#line") == "s3xm4-m5", "the line typed meanwhile was erased"
        page.press("#line", "Enter")
        wait_said(page, r"^North, ", "the computer's move announced", 60)
        found += audit(page, "play, the computer's move shown")
        page.fill("#line", "where")
        page.press("#line", "Enter")
        wait_said(page, r"^North to move\. North, \d+ pieces: .*Clocks: South", "where, answered", 20)
        page.close()
        play.send("quit")
        play.wait()
    finally:
        play.close()
    # In replay: the game just logged, replayed on the virtual board.
    run = ZuniReplay(
        "last",
        "--sim",
        "--show",
        "0.2",
        "--time",
        "0.1",
        db=tmp_path / "games.sqlite3",
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim2")},
    )
    try:
        url = run.expect(r"^browser page of the virtual board: (http://\S+/)").group(1)
        page = new_page(browser, url)
        wait(lambda: page.locator("#replay-panel").is_visible(), "the replay shown")
        run.send("n")
        time.sleep(0.5)
        found += audit(page, "replay")
        page.close()
        run.send("q")
        run.wait()
    finally:
        run.close()
    assert found == []
