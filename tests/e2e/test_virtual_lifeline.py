"""The virtual board's wait (firmware/main.py ``VirtualWait``) sees its host hang up even
when the loop is behind and never has time to wait (a loop that raises every scan once
ran on alone at full CPU after its host was gone)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
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


@pytest.mark.parametrize("ms", [0, -50, 5])
def test_a_socket_lifeline_that_hangs_up_ends_the_board_too(ms: int) -> None:
    """Where a pipe cannot be polled (Windows) the lifeline is a socket to the host
    (zuni_hw.virtual.connect_lifeline); the host never writes on it, so it reads only
    when the host is gone."""
    import socket

    board_end, host_end = socket.socketpair()
    try:
        wait = firmware_main.VirtualWait(None, None, board_end)
        wait(0)
        host_end.close()
        with pytest.raises(SystemExit):
            wait(ms)
    finally:
        board_end.close()
        host_end.close()


def test_the_wait_wakes_for_a_host_that_connected_to_the_socket_link_after_it_was_built() -> None:
    import socket
    import time

    from zuni_hw.virtual import SocketLink
    from zuniboard.virtual.board import free_port

    port = free_port()
    link = SocketLink(port)
    try:
        wait = firmware_main.VirtualWait(link, None)
        host = socket.create_connection(("127.0.0.1", port))
        with host:
            wait(1000)  # the listening socket wakes it: a host is there
            assert link.read_into(bytearray(8)) == 0 and link.conn is not None  # accepted
            host.sendall(b"ping\n")
            t0 = time.monotonic()
            wait(60000)  # the new connection's data wakes it (the wait polls it since it came)
            # Woken by the data, long before the minute it would otherwise sleep.
            assert time.monotonic() - t0 < 30
            buf = bytearray(8)
            assert bytes(buf[: link.read_into(buf)]) == b"ping\n"
    finally:
        link.close()
