"""End to end: the real firmware (firmware/main.py) under the MicroPython unix port, with
its link on a pseudo-terminal and the control channel, driven by host/zuniboard/virtual/board.py.

Every wait is for an event pushed by the firmware (or a link reply), never a fixed sleep;
the Hand's pauses are the simulated player's own timing."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from waiting import wait_until

import zuni
from zuni_link import codec
from zuniboard.link.client import BoardLink
from zuniboard.virtual.board import Hand, SimError, VirtualBoard, free_port, start_position
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


def test_lift_and_place_change_the_sensors_it_reports(board: VirtualBoard) -> None:
    start = start_position("mosona")
    assert board.sensors() == start
    board.wait_stable(start)
    board.lift("s3")
    event = board.wait_for(lambda e: e.get("event") == "sensors")
    assert event["changed"] == ["-s3"]
    assert board.sensors() == start - {"s3"}
    board.place("m5")
    assert board.sensors() == (start - {"s3"}) | {"m5"}
    board.wait_stable((start - {"s3"}) | {"m5"})
    board.set_occupied([])
    assert board.sensors() == set()
    board.wait_stable(set())


def test_bad_control_input_is_refused_and_changes_nothing(board: VirtualBoard) -> None:
    before = board.sensors()
    with pytest.raises(SimError, match="unknown point 'zz'"):
        board.place("m5", "zz")
    with pytest.raises(SimError, match="press: expected one of ok, back, hint"):
        board.command("press maybe")
    with pytest.raises(SimError, match="unknown command 'fly'"):
        board.command("fly m5")
    assert board.sensors() == before, "a refused command changed nothing (m5 was not placed)"


def test_slide_is_not_seen_but_a_rest_is(board: VirtualBoard) -> None:
    start = start_position("mosona")
    board.wait_stable(start)
    mark = board.mark()
    hand = Hand(board, seed=3, bounce=True)
    # s3 slides over m5 on its way... and comes back home: no stable position has m5.
    hand.slide("s3", "s3", via=["m5"])
    board.wait_for(lambda e: e.get("event") == "sensors" and "+m5" in e["changed"], since=mark)
    # The next stable report, if any, must not show the brushed point.
    board.lift("n1")
    board.wait_stable(start - {"n1"})
    stables = [e for e in board.events[mark:] if e.get("event") == "stable"]
    assert all("m5" not in e["occupied"] for e in stables), stables
    assert set(stables[-1]["occupied"]) == start - {"n1"}


def test_a_move_reaches_the_host_and_survives_a_power_cycle(board: VirtualBoard) -> None:
    game = zuni.new_game("mosona")
    board.wait_stable(start_position("mosona"))
    with BoardLink.open(board.port_path, timeout=30.0) as link:
        assert link.wait_synced(5.0)
        boot = link.hello["boot"]
        text = game.legal_moves()[0].text()
        Hand(board, seed=1).play(game, text)
        assert link.wait_moves(1, 30.0), link.moves
        assert link.moves == [text]
    game.push_text(text)
    board.restart()  # SIGKILL: no clean shutdown, the journal must already be on flash
    assert board.sensors() == {game.geometry.names[i] for i, v in enumerate(game.occupancy()) if v}
    with BoardLink.open(board.port_path, timeout=30.0) as link:
        assert link.wait_synced(5.0)
        assert link.hello["boot"] != boot, "a new boot"
        assert link.moves == [text], "the move was resumed from the flash journal"
        # ... and play goes on from there.
        board.wait_until(lambda vb: vb.stable is not None)
        reply = game.legal_moves()[0].text()
        Hand(board, seed=2).play(game, reply)
        assert link.wait_moves(2, 30.0), link.moves
        assert link.moves == [text, reply]
        # A second power cycle with the host's port left open: it sees the new boot and
        # agrees on the moves again without reopening anything.
        boot = link.hello["boot"]
        board.restart()
        # Polling the link's own state: no event to wait on here.
        wait_until(lambda: link.hello.get("boot") != boot, "the host to see the new boot", 30, step=0.05)
        assert link.wait_synced(5.0)
        assert link.moves == [text, reply]


def test_control_channel_reports_the_apps_state(board: VirtualBoard) -> None:
    # state? answers the app's state as JSON; a state event is pushed when a move is
    # committed (and not for every scan: the lift alone changes nothing the state has).
    board.wait_stable(start_position("mosona"))
    board.wait_for(lambda e: e.get("event") == "state" and e["phase"] == "play", since=0)
    reply = board.command("state?")
    assert reply["phase"] == "play" and reply["turn"] == "south" and reply["moves"] == 0
    assert reply["ruleset"] == "mosona" and len(reply["occupancy"]) == 25
    with pytest.raises(SimError, match="state\\? takes no arguments"):
        board.command("state? now")
    game = zuni.new_game("mosona")
    mark = board.mark()
    Hand(board, seed=3).play(game, "s3xm4-m5")
    event = board.wait_for(lambda e: e.get("event") == "state" and e["moves"] == 1, since=mark)
    assert event["turn"] == "north" and event["phase"] == "play"
    states = [e for e in board.events[mark:] if e.get("event") == "state"]
    assert len(states) == 1, states


def test_hint_button_changes_the_leds(board: VirtualBoard) -> None:
    board.wait_stable(start_position("mosona"))
    board.wait_until(lambda vb: any(vb.frame.values()))
    before = board.leds()
    mark = board.mark()
    board.press("hint")
    event = board.wait_for(lambda e: e.get("event") == "leds", since=mark)
    assert event["frame"] != "".join("%02x%02x%02x" % before[n] for n in board.names)


def _ping_frames(n: int) -> bytes:
    return b"".join(codec.encode(i % 1000 + 1, "ping") for i in range(n))


def test_never_blocks_when_the_host_does_not_read(board: VirtualBoard) -> None:
    """The host opens the port, floods requests and never reads a reply: the firmware's
    output backs up (pty full), yet its scan loop keeps going."""
    start = start_position("mosona")
    board.wait_stable(start)
    fd = os.open(board.port_path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        flood = _ping_frames(3000)  # each ping gets a reply: far more than a pty holds
        sent = 0
        deadline = time.monotonic() + 10
        while sent < len(flood) and time.monotonic() < deadline:
            try:
                sent += os.write(fd, flood[sent : sent + 4096])
            except BlockingIOError:
                select.select([], [fd], [], 0.05)
        assert sent == len(flood), "the firmware kept reading the host's requests (%d bytes taken)" % sent
        waiting = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        assert waiting >= 4000, "the replies backed up in the pty (%d bytes unread)" % waiting
        # The loop still scans: a lift becomes a stable position, answered promptly.
        # (A blocked loop would never see it: the wait fails. No wall-clock bound: on a
        # loaded machine "promptly" takes seconds, issue 26 point 12.)
        board.lift("s1")
        board.wait_stable(start - {"s1"})
        assert board.sensors() == start - {"s1"}, "control round trip while the link is backed up"
        assert board.alive
        # Once the host reads again, the link works: a new ping gets its reply.
        _drain(fd, 0.3)
        os.write(fd, codec.encode(4242, "ping"))
        assert b" ok 4242 " in _drain(fd, 3.0, until=b" ok 4242 ")
    finally:
        os.close(fd)


def _drain(fd: int, seconds: float, until: bytes | None = None) -> bytes:
    got = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (until and until in got):
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            got += os.read(fd, 65536)
    return got


def test_link_on_a_pty_path(tmp_path: Path) -> None:
    """--link PTY_PATH: the firmware opens the pty by path (here the test holds the other end)."""
    vb = VirtualBoard("board25", pieces="start", flash=tmp_path / "f.img", link_mode="path")
    vb.start()
    try:
        os.write(vb.master, codec.encode(7, "ping"))
        got = b""
        deadline = time.monotonic() + 5
        while b" ok 7 " not in got and time.monotonic() < deadline:
            ready, _, _ = select.select([vb.master], [], [], 0.2)
            if ready:
                got += os.read(vb.master, 4096)
        assert b"~" in got and b" ok 7 " in got, got[-400:]
    finally:
        vb.close()


def test_bad_arguments_are_named(tmp_path: Path) -> None:
    from zuniboard.paths import FIRMWARE_DIR, HARDWARE_DIR
    from zuniboard.virtual.mpy import micropython_command, micropython_env

    layout = str(HARDWARE_DIR / "layouts" / "board25.json")
    cases = [
        (["--layout", layout, "--colour", "red"], "unknown argument '--colour'"),
        (["--layout", layout, "--control", "99999"], "--control 99999: expected a TCP port"),
        (["--layout", str(tmp_path / "none.json")], "cannot read the layout"),
        (["--layout", layout, "--occupied", "m1,q9"], "--occupied: unknown point 'q9'"),
        (["--layout", layout, "--link", "tcp:0"], "--link tcp:0: expected tcp:PORT (1..65535)"),
        (["--layout", layout, "--lifeline", "tcp:4000"], "expected FD or tcp:PORT:TOKEN"),
        (["--layout", layout, "--link-ms", "250,500"], "--link-ms 250,500: expected three ms counts"),
        (["--layout", layout, "--link-ms", "250,5,1500"], "--link-ms 250,5,1500: expected three ms counts"),
        (["--layout", layout, "--link-ms", "a,b,c"], "--link-ms a,b,c: expected three ms counts"),
        # The host is gone before the board could reach it: no board left running alone.
        (["--layout", layout, "--lifeline", "tcp:%d:secret" % free_port()], "--lifeline tcp:"),
    ]
    for args, message in cases:
        result = subprocess.run(
            micropython_command(FIRMWARE_DIR / "main.py", *args),
            env=micropython_env(),
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert message in result.stderr, (message, result.stderr)


def test_zuni_sim_command_prints_the_port(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "zuniboard.cli", "sim", "--seconds", "0.5", "--flash", str(tmp_path / "sim.img")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "serial port:     /dev/pts/" in result.stdout
    assert "control channel: 127.0.0.1:" in result.stdout
    assert (tmp_path / "sim.img").stat().st_size == 64 * 4096


def test_control_port_in_use_is_named() -> None:
    import socket

    from zuniboard.paths import FIRMWARE_DIR, HARDWARE_DIR
    from zuniboard.virtual.mpy import micropython_command, micropython_env

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run(
            micropython_command(
                FIRMWARE_DIR / "main.py",
                "--layout",
                str(HARDWARE_DIR / "layouts" / "board25.json"),
                "--control",
                str(port),
            ),
            env=micropython_env(),
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert result.returncode == 3, result.stdout + result.stderr
    assert "--control %d: cannot listen" % port in result.stderr


def test_a_wait_that_runs_out_says_whether_the_firmware_still_runs(board: VirtualBoard) -> None:
    """A start-up that never reports its position (a rare failure under load) must say
    whether the firmware hung, died or was only slow."""
    board.wait_stable(start_position("mosona"))
    with pytest.raises(SimError) as running:
        board.wait_until(lambda vb: False, 0.3)
    assert "the firmware's process running" in str(running.value)
    assert "the last stable position it reported: " in str(running.value)
    assert board.proc is not None
    board.proc.kill()
    board.proc.wait(timeout=10)
    with pytest.raises(SimError) as died:
        board.wait_until(lambda vb: False, 0.3)
    assert "the firmware's process exited with status -9" in str(died.value)
