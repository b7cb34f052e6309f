"""The page shows the game clocks (docs/clocks.md): `zuni play --clock` on the virtual
board, its page in a real headless chromium. South's clock runs on the page, counting
down; South plays a move by clicks, the computer answers, South's time runs out and the
page says the loss on time in words (the board's low-time tick: tests/shared/test_clock_board.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from play_helpers import ZuniPlay
from test_play_browser import carry_out, page_browser, page_text  # noqa: F401  (page_browser: a fixture)
from test_web_browser import CHROMIUM, shot, sync_playwright, wait

import zuni
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


def _clock_ms(page: Any, side: str) -> int:
    text = page_text(page, '#clocks .clock[data-side="%s"] .time' % side)
    m = re.fullmatch(r"(\d+):(\d\d)(?:\.(\d))?", text)
    assert m, text
    return (int(m.group(1)) * 60 + int(m.group(2))) * 1000 + int(m.group(3) or 0) * 100


def test_the_page_shows_the_clocks_and_the_loss_on_time(page_browser: Any, tmp_path: Path) -> None:  # noqa: F811
    db = tmp_path / "games.sqlite3"
    play = ZuniPlay("--sim", "--clock", "south=12s north=1", db=db, env={"ZUNI_SIM_DIR": str(tmp_path / "sim")})
    game = zuni.new_game("mosona")
    try:
        url = play.expect(r"^browser page of the virtual board: (http://\S+)").group(1)
        play.expect(r"^new game #\d+: mosona")
        page = page_browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        wait(lambda: "South to move" in page_text(page, "#now"), "whose turn it is")
        wait(lambda: page.locator("#clocks .clock.running[data-side=south]").count() == 1, "South's clock running")
        first = _clock_ms(page, "south")
        assert 0 < first <= 12000
        assert page_text(page, '#clocks .clock[data-side="north"] .time') == "1:00"
        wait(lambda: _clock_ms(page, "south") < first - 300, "South's clock counting down on the page")
        carry_out(page, game, "s3xm4-m5")
        play.expect(r"^1\. south s3xm4-m5$")
        game.push_text("s3xm4-m5")
        text = play.expect(r"^2\. north (\S+) \(carried out on the board\)$", timeout=30).group(1)
        game.push_text(text)
        wait(lambda: page.locator("#clocks .clock.running[data-side=south]").count() == 1, "South's clock again")
        assert _clock_ms(page, "north") < 60000, "the computer's thinking came off its clock"
        # South thinks on: the low-time tick, then the flag.
        wait(lambda: page.locator("#clocks .clock.low[data-side=south]").count() == 1, "South's time low", 15)
        result = "North wins on time: South ran out of time"
        play.expect(r"^%s\. Game #\d+ is logged" % re.escape(result), timeout=20)
        wait(lambda: result + ". Press OK to start a new game." in page_text(page, "#now"), "the loss on time")
        assert page_text(page, '#clocks .clock[data-side="south"] .time') == "0:00"
        assert page.locator("#clocks .clock.running").count() == 0, "no clock runs after the end"
        shot(page, tmp_path, "clock-loss-on-time.png")
        assert errors == []
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
