"""The virtual board's wait (firmware/main.py ``VirtualWait``) sees its host hang up even
when the loop is behind and never has time to wait (a loop that raises every scan once
ran on alone at full CPU after its host was gone)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "firmware" / "lib"))
sys.path.insert(0, str(REPO / "firmware"))

import main as firmware_main  # noqa: E402  (firmware/main.py, under CPython)


@pytest.mark.parametrize("ms", [0, -50, 5])
def test_a_hung_up_lifeline_ends_the_board_however_late_the_loop_is(ms: int) -> None:
    read_end, write_end = os.pipe()
    try:
        wait = firmware_main.VirtualWait(None, None, read_end)
        wait(0)  # the host is there: nothing happens
        os.close(write_end)
        write_end = -1
        with pytest.raises(SystemExit):
            wait(ms)
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
