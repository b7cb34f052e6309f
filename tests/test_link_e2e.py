"""The link end to end: the real BoardSession under the MicroPython unix port on a pty,
pyserial and BoardLink on the host side, a relay between them that can pull the cable,
stop reading, and drop, corrupt, cut, duplicate, delay and invent lines.

The board is tools/link_testboard.py (the session with a small app on the rules engine;
the game survives a restart in a journal file). Tests wait for events, not fixed sleeps.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

import zuni
from zuniboard.link import BoardError, BoardLink, LinkEvent, SerialPort
from zuniboard.mpy import MicroPythonMissing, micropython_executable

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))  # linkrig; zuniboard.link put firmware/lib on the path

from linkrig import Faults, Relay, TestBoard  # noqa: E402
from zuni_link import codec  # noqa: E402
from zuni_link.session import QUEUE_BYTES  # noqa: E402

try:
    micropython_executable()
except MicroPythonMissing as exc:  # pragma: no cover
    pytest.skip("no MicroPython unix port: %s" % exc, allow_module_level=True)


@pytest.fixture
def relay() -> Iterator[Relay]:
    with Relay(seed=7) as r:
        yield r


@pytest.fixture
def board(relay: Relay, tmp_path: Path) -> Iterator[TestBoard]:
    with TestBoard(relay.board_path, tmp_path / "journal") as b:
        yield b


def _open(relay: Relay, silence_s: float | None = None) -> BoardLink:
    """A BoardLink that follows the relay's host pty (it changes on a hard unplug)."""

    def opener(url: str) -> SerialPort:
        port: SerialPort = serial.serial_for_url(relay.host_path, baudrate=115200, timeout=0.05)
        return port

    link = BoardLink(relay.host_path, opener=opener)
    if silence_s is not None:
        link.silence_s = silence_s
    link.start()
    assert link.wait_connected(5.0), "no hello from the board"
    return link


def _agree(link: BoardLink, board: TestBoard, timeout: float = 10.0) -> list[str]:
    """Waits until the host's mirror equals the board's game; returns the moves."""
    deadline = time.monotonic() + timeout
    while True:
        game, n, digest, moves = board.dump()
        if link.moves == moves and link.game == game and link.wait_synced(0.05):
            return moves
        if time.monotonic() > deadline:
            raise AssertionError("host %r (%s) != board %r (%s)" % (link.moves, link.game, moves, game))
        time.sleep(0.05)


def _replay(events: list[LinkEvent]) -> list[str]:
    """The move list a consumer builds from the event stream alone."""
    moves: list[str] = []
    for e in events:
        if e.kind == "reset":
            moves = []
        elif e.kind == "undo":
            del moves[e.index :]
        elif e.kind == "move":
            assert e.index == len(moves), "move %d arrived with %d moves held: %r" % (e.index, len(moves), events)
            moves.append(e.text)
    return moves


def _drain(link: BoardLink) -> list[LinkEvent]:
    out = []
    while not link.events.empty():
        out.append(link.events.get())
    return out


def test_hello_then_sync_of_moves_made_before_the_host_came(board: TestBoard, relay: Relay) -> None:
    board.play(6)
    board.wait_idle()
    link = _open(relay)
    try:
        assert link.hello["proto"] == "1"
        assert link.hello["layout"] == "testboard"
        moves = _agree(link, board)
        assert len(moves) == 6
        assert link.ruleset == "mosona"
        board.play(4)
        assert link.wait_moves(10, 5.0)
        moves = _agree(link, board)
        events = _drain(link)
        assert _replay(events) == moves
        assert board.stats()["pending"] == 0, "every move acknowledged"
    finally:
        link.close()


def test_host_requests_reach_the_board_and_bad_ones_change_nothing(board: TestBoard, relay: Relay) -> None:
    link = _open(relay)
    try:
        board.play(2)
        _agree(link, board)
        with pytest.raises(BoardError) as err:
            link.host_move("m1-m9")
        assert err.value.code == "illegal" and "m9" in err.value.message
        with pytest.raises(BoardError) as err:
            link.new_game("mosona board=wobbly")
        assert err.value.code == "illegal" and "wobbly" in err.value.message
        assert board.dump()[3] == link.moves and len(link.moves) == 2
        legal = zuni.new_game("mosona")
        for m in link.moves:
            legal.push_text(m)
        target = legal.legal_moves()[0].text()
        link.host_move(target)
        board.play(1)
        assert link.wait_moves(3, 5.0)
        assert link.moves[-1] == target
        link.take_back()
        assert link.moves == board.dump()[3] and len(link.moves) == 2
        link.new_game("kolowis size=short")
        assert link.moves == [] and link.ruleset == "kolowis size=short"
        assert link.state()["ruleset"] == "kolowis size=short"
        link.led_test()
        link.raw(True)
        link.hint("")
        link.press_ok()
    finally:
        link.close()


def test_garbage_oversized_wrong_version_unknown_and_unchecked_requests(board: TestBoard, relay: Relay) -> None:
    board.play(3)
    board.wait_idle()
    before = board.dump()
    port = serial.serial_for_url(relay.host_path, baudrate=115200, timeout=0.05)
    asm = codec.LineAssembler()

    expected = (
        "0 garbage control or non-ASCII",
        "0 garbage not a frame",
        "0 toolong line of 705 bytes",
        "2 version board speaks protocol 1",
        "3 unknown unknown verb 'teleport'",
        "4 readonly takeback needs a real checksum",
        "5 hello say hello first",
        "6 args moves from 99",
    )

    def errors(timeout: float = 5.0) -> list[str]:
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            data = port.read(4096)
            pos = 0
            while pos < len(data):
                pos = asm.push(data, pos, len(data))
                if asm.ready == codec.LINE:
                    frame = codec.decode(asm.line())
                    if frame[1] == "err":
                        got.append(frame[2])
            if all(any(e in g for g in got) for e in expected):
                return got
        raise AssertionError("missing errors: %r" % [e for e in expected if not any(e in g for g in got)])

    try:
        port.write(b"\x03\x03garbage \xff\n")
        port.write(b"print('hello')\n")
        port.write(b"~1 " + b"x" * 700 + b" *\n")
        port.write(codec.encode(2, "hello", "proto=9"))
        port.write(codec.encode(3, "teleport", "m1"))
        port.write(b"~4 takeback *\n")
        port.write(codec.encode(5, "takeback"))  # no hello yet on this connection
        port.write(codec.encode(6, "moves", "99"))
        port.write(b"~7 ping *\n")
        errors()
        assert board.dump() == before, "bad input changed nothing"
        assert board.stats()["rxerr"] >= 8
    finally:
        port.close()


def test_host_unplugged_and_back_gets_every_move(board: TestBoard, relay: Relay) -> None:
    link = _open(relay, silence_s=3.0)
    try:
        board.play(3)
        _agree(link, board)
        relay.unplug(hard=True)  # the device vanishes: reads fail, the path changes
        board.play(5)
        board.wait_idle()
        assert link.wait_moves(8, 0.5) is False
        relay.replug()
        assert link.wait_moves(8, 10.0)
        moves = _agree(link, board)
        assert _replay(_drain(link)) == moves
        assert link.stats.reconnects >= 1
    finally:
        link.close()


def test_cable_pulled_without_the_host_noticing(board: TestBoard, relay: Relay) -> None:
    link = _open(relay, silence_s=3.0)
    try:
        board.play(2)
        _agree(link, board)
        relay.unplug()  # soft: the port stays, nothing passes; the host sees silence
        board.play(4)
        board.back()  # and a take-back on the board meanwhile
        board.play(1)
        board.wait_idle()
        deadline = time.monotonic() + 10
        while link.connected and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not link.connected, "silence noticed"
        relay.replug()
        assert link.wait_connected(10.0)
        moves = _agree(link, board)
        assert len(moves) == 6
        assert _replay(_drain(link)) == moves
    finally:
        link.close()


def test_board_reset_resumes_and_the_host_follows(board: TestBoard, relay: Relay) -> None:
    link = _open(relay)
    try:
        board.play(4)
        _agree(link, board)
        old_boot = board.boot
        board.restart()
        assert board.boot != old_boot
        board.play(3)
        assert link.wait_moves(7, 10.0)
        moves = _agree(link, board)
        events = _drain(link)
        assert any(e.kind == "boardreset" and e.text == board.boot for e in events), events
        assert _replay(events) == moves
        link.take_back()  # the reset board knows this host again (it said hello anew)
        assert len(_agree(link, board)) == 6
    finally:
        link.close()


HOST_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from zuniboard.link import BoardLink
    link = BoardLink.open(sys.argv[1], timeout=5)
    print("up", flush=True)
    while True:
        e = link.events.get()
        if e.kind == "move":
            print("move", e.index, flush=True)
    """
)


def test_host_crash_then_a_new_host_gets_the_whole_game(board: TestBoard, relay: Relay, tmp_path: Path) -> None:
    script = tmp_path / "host.py"
    script.write_text(HOST_SCRIPT)
    host = subprocess.Popen(
        [sys.executable, str(script), relay.host_path], stdout=subprocess.PIPE, text=True, cwd=str(REPO)
    )
    try:
        assert host.stdout is not None
        assert host.stdout.readline().strip() == "up"
        board.play(20)
        while True:  # crash while moves are arriving
            line = host.stdout.readline()
            if line.startswith("move") and int(line.split()[1]) >= 5:
                break
        host.send_signal(signal.SIGKILL)
        host.wait(timeout=5)
    finally:
        if host.poll() is None:
            host.kill()
    board.wait_idle()
    link = _open(relay)
    try:
        moves = _agree(link, board)
        assert len(moves) == 20
        assert _replay(_drain(link)) == moves
    finally:
        link.close()


def test_board_keeps_scanning_while_the_host_does_not_read(board: TestBoard, relay: Relay) -> None:
    link = _open(relay)
    try:
        _agree(link, board)
        relay.read_board = False  # the PC holds the port open and reads nothing
        s0 = board.stats()
        t0 = time.monotonic()
        board.send("flood 300")
        board.play(10)
        board.wait_idle()
        time.sleep(0.5)
        s1 = board.stats()
        elapsed = time.monotonic() - t0
        assert s1["queued"] <= QUEUE_BYTES
        assert s1["dropped"] > 0, "diagnostics were dropped"
        # The loop waits at most 5 ms a scan: it went on at (nearly) that rate.
        assert s1["scans"] - s0["scans"] > 0.3 * elapsed / 0.005, (s0, s1, elapsed)
        relay.read_board = True
        assert link.wait_moves(10, 10.0)
        _agree(link, board)
    finally:
        link.close()


def test_whole_game_through_a_faulty_line(board: TestBoard, relay: Relay) -> None:
    """A game of Mosona with the computer (host) playing North through a line that
    drops, corrupts, cuts, duplicates, delays and invents lines in both directions."""
    faults = Faults(drop=0.05, corrupt=0.05, cut=0.03, duplicate=0.05, delay=0.1, max_delay_s=0.2, garbage=0.03)
    link = _open(relay)
    try:
        relay.set_faults(faults, Faults(**vars(faults)))
        game = zuni.new_game("mosona")
        took_back = False
        for _ in range(120):
            if game.is_game_over():
                break
            ply = len(game.move_stack)
            if game.turn == zuni.NORTH:
                text = game.legal_moves()[ply % len(game.legal_moves())].text()
                link.host_move(text, timeout=20)
            board.play(1)
            assert link.wait_moves(ply + 1, 20.0), "move %d never arrived" % ply
            game.push_text(link.moves[ply])
            if ply == 6 and not took_back:
                took_back = True
                link.take_back(timeout=20)
                game.pop()
        moves = _agree(link, board, timeout=30)
        assert [m.text() for m in game.move_stack] == moves
        assert game.is_game_over() or len(moves) >= 100
        assert _replay(_drain(link)) == moves
        damaged = relay.stats_up.corrupted + relay.stats_up.dropped + relay.stats_down.corrupted
        assert damaged > 5, "the line really was faulty"
        assert link.stats.bad_frames > 0
    finally:
        link.close()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs ptys")
def test_the_host_never_opens_at_1200_baud(relay: Relay) -> None:
    from zuniboard import link as link_module

    assert link_module.BAUD != 1200
