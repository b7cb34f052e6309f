"""End to end: the LED supply switch's ~FAULT on the virtual board (the real firmware under
the MicroPython unix port, its ~FAULT line an explicit fake pulled low by the control
channel's ``fault on``): the board turns its LEDs dark, sends ``event fault led-supply``
and reports ``fault=`` and ``faultline=`` in its state; the host says it in plain words."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from zuniboard.commands.board_check import supply_report
from zuniboard.games import layouts
from zuniboard.link.client import BoardLink
from zuniboard.link.events import BoardEvent
from zuniboard.play.controller import SUPPLY_FAULT_WORDS, supply_fault_words
from zuniboard.virtual.board import SimError, VirtualBoard, start_position
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
except MicroPythonMissing as exc:  # pragma: no cover
    pytest.skip("virtual board not available: %s" % exc, allow_module_level=True)


@pytest.fixture
def board(tmp_path: Path) -> Iterator[VirtualBoard]:
    vb = VirtualBoard("board25", pieces="start", flash=tmp_path / "flash.img")
    vb.start()
    try:
        yield vb
    finally:
        vb.close()


def _fault_event(link: BoardLink, timeout: float) -> BoardEvent:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            event = link.events.get(timeout=0.2)
        except queue.Empty:
            continue
        if isinstance(event, BoardEvent) and event.name == "fault":
            return event
    raise AssertionError("no fault event within %.0f s" % timeout)


def test_a_fault_darkens_the_board_and_reaches_the_host(board: VirtualBoard) -> None:
    layout = layouts.load_layout("board25")
    board.wait_stable(start_position("mosona"))
    board.wait_until(lambda vb: any(any(rgb) for rgb in vb.frame.values()))  # play: points lit
    with BoardLink.open(board.port_path, timeout=30.0) as link:
        assert link.wait_synced(5.0)
        state = link.state()
        assert state.get("faultline") == "1" and "fault" not in state
        assert supply_report(layout, state) == ("LED supply ~FAULT (GP20, TP_FAULT): high (fine)", None)

        with pytest.raises(SimError, match="fault: expected on or off"):
            board.command("fault maybe")
        mark = board.mark()
        board.command("fault on")
        event = board.wait_for(lambda e: e.get("event") == "state" and e.get("fault") == "led-supply", since=mark)
        assert event["faultline"] == 0
        assert _fault_event(link, 30.0).text == "led-supply"
        board.wait_until(lambda vb: not any(any(rgb) for rgb in vb.frame.values()))
        assert all(rgb == (0, 0, 0) for rgb in board.leds().values()), "every LED dark"

        board.command("fault off")  # the short is gone: the fault stays until a restart
        state = link.state()
        assert state.get("fault") == "led-supply"
        line, problem = supply_report(layout, state)
        assert "the board cut the LED rail" in line
        assert problem is not None and problem.startswith(SUPPLY_FAULT_WORDS)
        # The game goes on without LEDs: the sensors still work.
        board.lift("s3")
        board.wait_stable(start_position("mosona") - {"s3"})
        assert all(rgb == (0, 0, 0) for rgb in board.leds().values()), "still dark"

    board.restart()  # a restart (the user unplugged it) clears the latch
    board.wait_until(lambda vb: any(any(rgb) for rgb in vb.frame.values()))
    assert "fault" not in board.command("state?")


def test_the_host_says_the_fault_in_plain_words() -> None:
    assert supply_fault_words("led-supply") == (
        "the LED supply switched off: too much current (short on the LED line?)"
    )
    assert supply_fault_words("other") == "the board reports a fault: other"


def test_a_low_line_and_a_firmware_without_it_are_problems() -> None:
    layout = layouts.load_layout("board25")
    state = {"faultline": "0"}
    line, problem = supply_report(layout, state)
    assert line.endswith("LOW") and problem is not None and "R3" in problem
    line, problem = supply_report(layout, {})
    assert problem is not None and "reports no ~FAULT line" in problem
