"""The virtual board's page in a real headless browser (Playwright driving Debian's
chromium): a person's clicks, drags and taps reach the firmware as lifts and places,
and the lights on the page are the firmware's frame.

Needs ``/usr/bin/chromium`` (``tools/ensure_browser.sh`` installs it) and the Python
``playwright`` package; Playwright's own browser download is never used. Screenshots go
to the test's tmp dir (and to ``$ZUNI_SCREENSHOT_DIR`` when set).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from vboard_helpers import frame_hex, idle_picture
from waiting import wait_until

import zuni
from zuniboard.virtual.board import VirtualBoard
from zuniboard.web import WebServer, start_web

CHROMIUM = os.environ.get("ZUNI_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

if sync_playwright is None:
    pytestmark = pytest.mark.skip(reason="the Python package playwright is not installed (pip install playwright)")
elif not Path(CHROMIUM).exists():
    pytestmark = pytest.mark.skip(
        reason="no browser: %s is missing (tools/ensure_browser.sh installs Debian's chromium)" % CHROMIUM
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert sync_playwright is not None
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[tuple[VirtualBoard, WebServer]]:
    with VirtualBoard("board25", ruleset="mosona", pieces="empty", flash=tmp_path / "flash.img") as vb:
        with start_web(vb, 0) as web:
            yield vb, web


def shot(page: Page, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=True)
    extra = os.environ.get("ZUNI_SCREENSHOT_DIR")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / name)
    return path


def shown_leds(page: Page) -> dict[str, str]:
    """The lights the page shows: point -> "#rrggbb" of every lit glow."""
    leds: dict[str, str] = page.eval_on_selector_all(
        ".glow", "els => Object.fromEntries(els.map(e => [e.dataset.point, e.dataset.led]))"
    )
    return {p: c for p, c in leds.items() if c != "#000000"}


def disks_shown(page: Page) -> dict[str, str]:
    """point -> side of the disks drawn on the board."""
    pairs: dict[str, str] = page.eval_on_selector_all(
        "#board .disk", "els => Object.fromEntries(els.map(e => [e.dataset.point, e.dataset.side]))"
    )
    return pairs


def wait(predicate: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    return wait_until(predicate, what, timeout, step=0.03)


def wait_leds(page: Page, want: dict[str, str], what: str) -> None:
    def same() -> bool:
        return shown_leds(page) == want

    try:
        wait(same, what)
    except AssertionError:
        raise AssertionError("%s: the page shows %s, expected %s" % (what, shown_leds(page), want))


def wait_page_matches_firmware(
    page: Page, board: VirtualBoard, showing: Callable[[dict[str, str]], bool] = lambda lit: True
) -> dict[str, str]:
    """Until the page's lights equal the firmware's frame (asked on the control channel)
    and that frame is ``showing`` what is expected."""
    seen: dict[str, Any] = {}

    def same() -> bool:
        seen["page"], seen["fw"] = shown_leds(page), frame_hex(board)
        return bool(seen["page"] == seen["fw"] and showing(seen["fw"]))

    try:
        wait(same, "the page's lights to match the firmware's frame")
    except AssertionError:
        raise AssertionError("page %s != firmware %s" % (seen["page"], seen["fw"]))
    return seen["page"]  # type: ignore[no-any-return]


def open_page(browser: Browser, web: WebServer, **context: Any) -> Page:
    page = browser.new_context(**context).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(web.url)
    page.wait_for_function("document.body.dataset.seq !== undefined")
    page.errors = errors  # type: ignore[attr-defined]
    return page


def point(page: Page, name: str) -> Any:
    return page.locator('#board .hit[data-point="%s"]' % name)


@pytest.mark.slow
def test_play_the_opening_by_clicking(browser: Browser, sim: tuple[VirtualBoard, WebServer], tmp_path: Path) -> None:
    board, web = sim
    page = open_page(browser, web, viewport={"width": 1280, "height": 860})
    assert page.locator("#board .hit").count() == 25
    assert "Mosona" in page.inner_text("#game-title")

    # The board is empty: the firmware blinks white where the pieces belong.
    page.click("#btn-setup")
    game = zuni.new_game("mosona")
    wait_leds(page, idle_picture(game), "the start position's picture")
    assert wait_page_matches_firmware(page, board) == idle_picture(game)
    assert len(disks_shown(page)) == 24 and disks_shown(page)["s3"] == "south"

    names = game.geometry.names
    for ply in range(3):  # the opening: three moves, each a capture
        move = game.legal_moves()[0]
        origin, dest = names[move.origin], names[move.dest]
        point(page, origin).click()  # lift
        wait(lambda o=origin: o not in board.sensors(), "the firmware to see %s lifted" % origin)
        lit = wait_page_matches_firmware(page, board, lambda lit, o=origin: lit.get(o) == "#0028ff")
        assert lit.get(origin) == "#0028ff", lit  # the lifted piece: blue
        assert lit.get(dest) == "#00ff80", lit  # where it goes: green
        assert page.locator("#hand .chip").count() == 1
        status = page.inner_text("#status-text")  # the page reads the lights out
        assert "the disk to move" in status and "where the disk goes" in status, status
        if ply == 0:
            shot(page, tmp_path, "mosona-lifted.png")
        point(page, dest).click()  # place
        for captured in move.captures:
            point(page, names[captured]).click()  # take the captured disk off...
            wait(lambda: page.locator("#hand .chip").count() == 1, "the captured disk in the hand")
            page.click("#btn-discard")  # ...and lay it beside the board
        game.push(move)
        wait_leds(page, idle_picture(game), "the firmware to commit %s" % move)
        wait_page_matches_firmware(page, board)
        on_board = {names[i] for i in range(len(names)) if game.board[i]}
        assert set(disks_shown(page)) == on_board == set(board.sensors())
    tray = page.locator("#tray .chip").count()
    assert tray == 24 - sum(1 for code in game.board if code)
    path = shot(page, tmp_path, "mosona-desktop.png")
    assert path.stat().st_size > 10_000
    assert page.errors == []  # type: ignore[attr-defined]


# The page hears of every change two seconds late (each "state" pushed to it is held back):
# what fast hands meet when the server's push comes after the reply to their click.
LATE_STATES = """
(() => {
  const Plain = window.EventSource;
  window.EventSource = function (url) {
    const es = new Plain(url);
    const add = es.addEventListener.bind(es);
    es.addEventListener = (kind, fn) =>
      add(kind, (e) => (kind === "state" && window.zuniLate ? setTimeout(() => fn(e), 2000) : fn(e)));
    return es;
  };
})();
"""


def test_a_disk_placed_before_the_page_hears_of_its_lift(browser: Browser, sim: tuple[VirtualBoard, WebServer]) -> None:
    """Click a disk and its landing point at once: the place goes to the board though the
    page's picture does not yet show the disk in the hand (it used to say "Your hand is
    empty" and drop the click when the reply to the lift came before the pushed state)."""
    board, web = sim
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.add_init_script("window.zuniLate = false;" + LATE_STATES)
    page = context.new_page()
    page.goto(web.url)
    page.wait_for_function("document.body.dataset.seq !== undefined")
    page.click("#btn-setup")
    game = zuni.new_game("mosona")
    wait_leds(page, idle_picture(game), "the start position's picture")
    move = game.legal_moves()[0]
    origin, dest = game.geometry.names[move.origin], game.geometry.names[move.dest]
    page.evaluate("window.zuniLate = true")  # from now on the page hears late
    point(page, origin).click()  # lift
    wait(lambda: origin not in board.sensors(), "the firmware to see %s lifted" % origin)
    point(page, dest).click()  # place, the page still showing the disk on the board
    wait(lambda: dest in board.sensors(), "the firmware to see the disk put down on %s" % dest)


def test_drag_and_drop_a_disk(browser: Browser, sim: tuple[VirtualBoard, WebServer], tmp_path: Path) -> None:
    board, web = sim
    page = open_page(browser, web, viewport={"width": 1100, "height": 800})
    page.click("#btn-setup")
    wait(lambda: len(disks_shown(page)) == 24, "the disks set up")
    # As a person waits for the lights: the firmware believes a position only once it has
    # stood still for stable_ms, so a lift sooner leaves it in setup, never seeing the start.
    game = zuni.new_game("mosona")
    wait_leds(page, idle_picture(game), "the start position's picture")
    a = point(page, "s3").bounding_box()
    b = point(page, "m5").bounding_box()
    assert a is not None and b is not None
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    for i in range(1, 11):  # a drag, not a click: the disk follows the pointer
        t = i / 10
        page.mouse.move(
            a["x"] + a["width"] / 2 + t * (b["x"] - a["x"]), a["y"] + a["height"] / 2 + t * (b["y"] - a["y"])
        )
    assert page.locator(".ghost").count() == 1
    page.mouse.up()
    wait(lambda: "m5" in board.sensors() and "s3" not in board.sensors(), "the firmware to see s3 -> m5")
    wait(lambda: disks_shown(page).get("m5") == "south", "the disk drawn on m5")
    assert page.locator(".ghost").count() == 0
    # Drag the captured disk into the tray.
    c = point(page, "m4").bounding_box()
    tray = page.locator("#tray-panel").bounding_box()
    assert c is not None and tray is not None
    page.mouse.move(c["x"] + c["width"] / 2, c["y"] + c["height"] / 2)
    page.mouse.down()
    page.mouse.move(c["x"] + 30, c["y"] + 30)
    page.mouse.move(tray["x"] + tray["width"] / 2, tray["y"] + tray["height"] / 2, steps=5)
    page.mouse.up()
    captured = '#tray .chip[aria-label^="North piece, beside the board"]'
    wait(lambda: page.locator(captured).count() == 1, "the captured disk in the tray")
    assert "m4" not in board.sensors()
    game.push_text("s3xm4-m5")
    wait_leds(page, idle_picture(game), "the firmware to commit s3xm4-m5")


def test_phone_touch_and_buttons(browser: Browser, sim: tuple[VirtualBoard, WebServer], tmp_path: Path) -> None:
    board, web = sim
    page = open_page(browser, web, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    # Mosona's board on an upright phone: across, South at the bottom (issue 26; only
    # Kolowis' long board is turned a quarter, below).
    assert page.get_attribute("#board", "data-rotated") == "0"
    box = page.locator("#board").bounding_box()
    assert box is not None and box["width"] <= 390 and box["width"] > box["height"]
    page.tap("#btn-setup")
    game = zuni.new_game("mosona")
    wait_leds(page, idle_picture(game), "the start position's picture")
    point(page, "s3").tap()
    wait(lambda: "s3" not in board.sensors(), "the firmware to see s3 lifted")
    point(page, "m5").tap()
    wait(lambda: "m5" in board.sensors(), "the firmware to see m5 placed")
    # HINT on the page is the board's HINT button: the firmware answers with lights.
    point(page, "m4").tap()
    wait(lambda: "m4" not in board.sensors(), "m4 lifted")
    page.tap("#btn-discard")
    game.push_text("s3xm4-m5")
    wait_leds(page, idle_picture(game), "the firmware to commit s3xm4-m5")
    page.tap("#btn-hint")
    wait(lambda: any(c == "#0028ff" for c in shown_leds(page).values()), "the hint's blue light")
    path = shot(page, tmp_path, "mosona-phone.png")
    assert path.stat().st_size > 10_000
    assert page.errors == []  # type: ignore[attr-defined]


def test_square_board_page(browser: Browser, tmp_path: Path) -> None:
    with VirtualBoard("board168", ruleset="awithlaknakwe", pieces="start", flash=tmp_path / "f.img") as vb:
        with start_web(vb, 0) as web:
            page = open_page(browser, web, viewport={"width": 1280, "height": 900})
            assert page.locator("#board rect.sq").count() == 168
            wait(lambda: len(disks_shown(page)) == 12, "the 12 warriors")
            game = zuni.new_game("awithlaknakwe")
            wait_leds(page, idle_picture(game), "South's movable warriors")
            assert page.locator('#tray .chip[aria-label^="South bow priest, beside the board"]').count() == 1
            # By keyboard this time: Tab to a point, Enter lifts its disk or puts one down.
            point(page, "g1").focus()
            page.keyboard.press("Enter")
            lit = wait_page_matches_firmware(page, vb, lambda lit: lit.get("g1") == "#0028ff")
            assert lit["g1"] == "#0028ff" and lit["f2"] == "#00ff80" and lit["h2"] == "#00ff80"
            label = page.get_attribute('#board .hit[data-point="g1"]', "aria-label")
            assert label == "g1, empty; light: the disk to move"
            point(page, "f2").focus()
            page.keyboard.press("Enter")
            game.push_text("g1-f2")
            wait_leds(page, idle_picture(game), "the firmware to commit g1-f2")
            # The bow priest beside the board is reached by the keyboard too: Enter takes
            # it in the hand (to bring it in where the rules let it), Delete on the board
            # lays it back.
            page.locator("#tray .chip").first.focus()
            page.keyboard.press("Enter")
            wait(lambda: page.locator("#hand .chip").count() == 1, "the priest in the hand")
            assert page.get_attribute("#hand .chip", "aria-label") == "South bow priest, in your hand"
            point(page, "f2").focus()
            page.keyboard.press("Delete")
            wait(lambda: page.locator("#hand .chip").count() == 0, "the priest beside the board again")
            shot(page, tmp_path, "awithlaknakwe-desktop.png")
            assert page.errors == []  # type: ignore[attr-defined]


def test_phone_rotated_kolowis_board_beside_its_buttons_and_words(browser: Browser, tmp_path: Path) -> None:
    """Kolowis' long board on an upright phone (390x844): turned a quarter, as tall as
    the screen, with the buttons and the game's words beside it, all above the fold."""
    from zuniboard.games import layouts

    layout = layouts.layout_for_ruleset("kolowis").name
    with VirtualBoard(layout, ruleset="kolowis", pieces="start", flash=tmp_path / "f.img") as vb:
        with start_web(vb, 0) as web:
            page = open_page(browser, web, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
            wait(lambda: page.get_attribute("#board", "data-rotated") == "1", "the board turned upright")
            wait(lambda: "South to move" in page.inner_text("#now"), "the game's words")
            board_box = page.locator("#board").bounding_box()
            side_box = page.locator("#side").bounding_box()
            assert board_box is not None and side_box is not None
            assert board_box["height"] > 600, board_box  # the screen's height
            assert side_box["x"] >= board_box["x"] + board_box["width"] - 1, "the controls beside the board"
            assert side_box["x"] + side_box["width"] > 0.9 * 390, "the width used"
            for selector in ("#btn-ok", "#btn-back", "#btn-hint", "#game-panel", "#status"):
                box = page.locator(selector).bounding_box()
                assert box is not None and box["y"] + box["height"] <= 844, (selector, box)
            # Turned, South is on the left: the edges say whose side is whose (issue 26).
            south = page.locator('#board .side-name[data-side="south"]').bounding_box()
            north = page.locator('#board .side-name[data-side="north"]').bounding_box()
            s3 = point(page, "s3").bounding_box()
            n3 = point(page, "n3").bounding_box()
            assert south is not None and north is not None and s3 is not None and n3 is not None
            disk = s3["width"] / 2 * 0.3 / 0.45  # a disk's radius (0.3) in the hit circle's (0.45)
            assert south["x"] + south["width"] <= s3["x"] + s3["width"] / 2 - disk, (south, s3)
            assert n3["x"] + n3["width"] / 2 + disk <= north["x"], (north, n3)
            assert page.text_content('#board .side-name[data-side="south"]') == "South"
            path = shot(page, tmp_path, "kolowis-phone.png")
            assert path.stat().st_size > 10_000
            assert page.errors == []  # type: ignore[attr-defined]


def test_the_replay_panel_shows_the_moves_the_current_one_and_the_analysis(
    browser: Browser, sim: tuple[VirtualBoard, WebServer]
) -> None:
    _, web = sim
    page = open_page(browser, web)
    assert page.locator("#replay-panel").is_hidden()  # no replay: no panel
    moves = ["s3xm4-m5", "m2xs2-s3", "s4xs3-s2xm3-m4"]
    view = {
        "moves": moves,
        "ply": 1,
        "showing": "m2xs2-s3",
        "analysis": "move 2, North m2xs2-s3 (+1.24): ...",
        "ruleset": "mosona",
        "game_id": 4,
    }
    web.sim.publish("replay", view)
    wait(lambda: page.locator("#replay-panel").is_visible(), "the replay panel")
    assert page.inner_text("#replay-moves .mv.current") == "m2xs2-s3"
    head = page.inner_text("#replay-head")
    assert "Game #4 (mosona): move 1 of 3" in head and "the board shows m2xs2-s3" in head, head
    assert page.inner_text("#replay-analysis").startswith("The computer's view: move 2, North")
    web.sim.publish("replay", dict(view, ply=2, showing="", analysis=""))
    wait(lambda: page.inner_text("#replay-moves .mv.current") == "s4xs3-s2xm3-m4", "the next move current")
    assert page.locator("#replay-analysis").is_hidden()
    web.sim.publish("replay", None)
    wait(lambda: page.locator("#replay-panel").is_hidden(), "the panel gone after the replay")
    assert page.errors == []  # type: ignore[attr-defined]


FAULT_WORDS = "The LED supply switched off: too much current (short on the LED line?)"


def test_a_tripped_led_supply_darkens_the_page_and_says_why(
    browser: Browser, sim: tuple[VirtualBoard, WebServer], tmp_path: Path
) -> None:
    # The board's LED supply switch trips (its ~FAULT line pulled low through the page's
    # API): every light goes dark and the page says why.
    board, web = sim
    page = open_page(browser, web)
    page.click("#btn-setup")
    wait_leds(page, idle_picture(zuni.new_game("mosona")), "the start position's picture")
    assert page.is_hidden("#error-text")
    # The page's own API, from the page's origin (the server obeys only its page).
    status = page.evaluate(
        """async () => (await fetch("/api/fault", {method: "POST",
             headers: {"Content-Type": "application/json"}, body: JSON.stringify({on: true})})).status"""
    )
    assert status == 200
    wait(lambda: page.is_visible("#error-text") and page.inner_text("#error-text") == FAULT_WORDS, "the fault's words")
    wait(lambda: shown_leds(page) == {}, "every light dark")
    assert all(rgb == (0, 0, 0) for rgb in board.leds().values())
    refused = page.evaluate(
        """async () => (await fetch("/api/fault", {method: "POST",
             headers: {"Content-Type": "application/json"}, body: JSON.stringify({on: "yes"})})).status"""
    )
    assert refused == 400
    assert shot(page, tmp_path, "led-supply-fault.png").stat().st_size > 10_000
    assert page.errors == []  # type: ignore[attr-defined]
