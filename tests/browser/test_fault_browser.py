"""The page when the board's LED supply switch trips (the virtual board's ~FAULT line
pulled low through the page's API): every light goes dark and the page says why. Real
headless chromium, real firmware under the MicroPython unix port."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_web_browser import browser, open_page, shot, shown_leds, sim, wait, wait_leds  # noqa: F401
from vboard_helpers import idle_picture

import zuni
from zuniboard.virtual.board import VirtualBoard
from zuniboard.web import WebServer

WORDS = "The LED supply switched off: too much current (short on the LED line?)"


def test_a_tripped_led_supply_darkens_the_page_and_says_why(
    browser: Any,
    sim: tuple[VirtualBoard, WebServer],
    tmp_path: Path,  # noqa: F811
) -> None:
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
    wait(lambda: page.is_visible("#error-text") and page.inner_text("#error-text") == WORDS, "the fault's words")
    wait(lambda: shown_leds(page) == {}, "every light dark")
    assert all(rgb == (0, 0, 0) for rgb in board.leds().values())
    refused = page.evaluate(
        """async () => (await fetch("/api/fault", {method: "POST",
             headers: {"Content-Type": "application/json"}, body: JSON.stringify({on: "yes"})})).status"""
    )
    assert refused == 400
    assert shot(page, tmp_path, "led-supply-fault.png").stat().st_size > 10_000
    assert page.errors == []  # type: ignore[attr-defined]
