"""The virtual board where there are no pseudo-terminals (Windows): the link on a loopback
socket (``transport="socket"``: the firmware serves 127.0.0.1:PORT, the host opens
``socket://127.0.0.1:PORT``), the lifeline on a socket too, and a host that imports
nothing POSIX-only. Windows is played here by ``tests/windows_like`` (no termios, tty,
pty, fcntl, select.poll or os.openpty for this project's code), under the MicroPython
unix port and under the CPython fallback."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from play_helpers import REPO, ZuniPlay
from test_sim_cli import _alive, _children
from waiting import wait_until

import zuni
from zuniboard.link.client import BoardLink
from zuniboard.virtual import board as sim
from zuniboard.virtual.board import Hand, VirtualBoard
from zuniboard.virtual.fw_cpython import POLLIN, SelectPoll
from zuniboard.virtual.mpy import HIDE_ENV, MicroPythonMissing, micropython_executable

WINDOWS_LIKE = REPO / "tests" / "windows_like"
BIN = Path(sys.executable).parent


@pytest.fixture(params=["micropython", "cpython"])
def runtime(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """What runs the firmware: the unix port (skipped where it is missing or hidden) or
    CPython (the unix port hidden, as where it has no wheel)."""
    name: str = request.param
    if name == "cpython":
        monkeypatch.setenv(HIDE_ENV, "1")
    else:
        try:
            micropython_executable()
        except MicroPythonMissing as exc:
            pytest.skip("MicroPython half of the suite not run: %s" % exc)
    return name


def test_moves_reconnects_and_a_power_cut_over_the_socket_link(tmp_path: Path, runtime: str) -> None:
    game = zuni.new_game("mosona")
    with VirtualBoard("board25", ruleset="mosona", pieces="start", flash=tmp_path / "f.img", transport="socket") as vb:
        assert vb.runtime == runtime
        assert vb.port_path == "socket://127.0.0.1:%d" % vb.link_port
        hand = Hand(vb, seed=1, speed=2.0, bounce=True)
        vb.wait_stable(sim.start_position("mosona"))
        with BoardLink.open(vb.port_path, timeout=10.0) as link:
            assert link.wait_synced(10.0)
            for text in ("s3xm4-m5", "n5xm5-m4"):
                hand.play(game, text)
                game.push(game.parse_move(text))
                assert link.wait_moves(len(game.move_stack), 10.0), link.moves
            assert link.moves == ["s3xm4-m5", "n5xm5-m4"]
        # A second host (the first one closed its port): the same game, from the board.
        with BoardLink.open(vb.port_path, timeout=10.0) as again:
            assert again.wait_synced(10.0) and again.moves == ["s3xm4-m5", "n5xm5-m4"]
            vb.restart()  # a power cut: same port, same flash; the host reconnects by itself
            assert vb.port_path == "socket://127.0.0.1:%d" % vb.link_port
            vb.wait_until(lambda board: board.stable is not None)
            third = game.legal_moves()[0].text()
            hand.play(game, third)
            game.push(game.parse_move(third))
            assert again.wait_moves(3, 15.0), again.moves
            assert again.moves == ["s3xm4-m5", "n5xm5-m4", third]
            assert again.stats.reconnects >= 1


def test_the_socket_link_takes_only_the_newest_host_and_drops_output_without_one() -> None:
    """``zuni_hw.virtual.SocketLink`` (the firmware's side) under CPython, as the fallback runs it."""
    from zuni_hw.virtual import SocketLink

    port = sim.free_port()
    link = SocketLink(port)
    buf = bytearray(64)
    try:
        assert link.read_into(buf) == 0 and link.write(b"beat\n") == 5 and link.dropped == 5
        first = socket.create_connection(("127.0.0.1", port))
        first.sendall(b"hello 1\n")
        deadline = time.monotonic() + 5
        got = b""
        while b"\n" not in got and time.monotonic() < deadline:
            got += bytes(buf[: link.read_into(buf)])
        assert got == b"hello 1\n" and link.connections == 1
        assert link.write(b"to first\n") == 9 and first.recv(64) == b"to first\n"
        second = socket.create_connection(("127.0.0.1", port))  # a host reopening its port
        second.sendall(b"hello 2\n")
        got = b""
        while b"\n" not in got and time.monotonic() < deadline:
            got += bytes(buf[: link.read_into(buf)])
        assert got == b"hello 2\n" and link.connections == 2
        first.settimeout(5)
        assert first.recv(64) == b""  # the old connection was closed
        second.close()
        while link.conn is not None and time.monotonic() < deadline:
            link.read_into(buf)
        assert link.conn is None  # the host hung up: dropped
        assert link.write(b"beat\n") == 5 and link.dropped == 10
        first.close()
    finally:
        link.close()
    with pytest.raises(ValueError, match="tcp:PORT"):
        from zuni_hw.virtual import open_link

        open_link("tcp:http")


def test_select_poll_for_windows_sees_data_and_a_hang_up() -> None:
    a, b = socket.socketpair()
    try:
        poller = SelectPoll()
        poller.register(a, POLLIN)
        assert poller.poll(0) == []
        b.sendall(b"x")
        assert poller.poll(1000) == [(a.fileno(), POLLIN)] and a.recv(1) == b"x"
        b.close()
        assert poller.poll(1000) == [(a.fileno(), POLLIN)] and a.recv(1) == b""  # hung up: readable, empty
        poller.unregister(a)
        t0 = time.monotonic()
        assert poller.poll(30) == [] and time.monotonic() - t0 >= 0.025  # nothing left to wait on but time
    finally:
        a.close()


def test_the_transport_is_chosen_by_the_machine_and_overridden_by_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(sim.TRANSPORT_ENV, raising=False)
    assert sim.default_transport() == ("pty" if sim.HAVE_PTY else "socket")
    monkeypatch.setenv(sim.TRANSPORT_ENV, "socket")
    board = VirtualBoard("board25")
    try:
        assert sim.default_transport() == "socket" and board.transport == "socket"
    finally:
        board.close()
    monkeypatch.setenv(sim.TRANSPORT_ENV, "serial")
    with pytest.raises(sim.SimError, match="ZUNI_SIM_TRANSPORT=serial: expected one of pty, socket"):
        sim.default_transport()
    with pytest.raises(ValueError, match="transport must be one of"):
        VirtualBoard("board25", transport="usb")


def _windows_like(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"PYTHONPATH": str(WINDOWS_LIKE), "ZUNI_BLOCKED_LOG": str(tmp_path / "blocked.log"), **extra}


def test_no_module_of_the_host_needs_termios_pty_or_fcntl(tmp_path: Path) -> None:
    """Every module of the zuniboard package imports where termios, tty, pty, fcntl,
    select.poll and os.openpty do not exist (as on Windows); the virtual board picks the
    socket transport there by itself."""
    script = (
        "import importlib, os, pkgutil, select, zuniboard\n"
        "assert not hasattr(select, 'poll') and not hasattr(os, 'openpty')\n"
        "try:\n    import termios\nexcept ImportError:\n    pass\nelse:\n    raise SystemExit('termios not blocked')\n"
        "bad = []\n"
        "names = [m.name for m in pkgutil.walk_packages(zuniboard.__path__, 'zuniboard.')]\n"
        "for name in names:\n"
        "    try:\n        importlib.import_module(name)\n"
        "    except Exception as e:\n        bad.append('%s: %r' % (name, e))\n"
        "from zuniboard.virtual import board as sim\n"
        "print('modules', len(names), 'transport', sim.default_transport())\n"
        "print('\\n'.join(bad))\n"
    )
    env = dict(os.environ, **_windows_like(tmp_path))
    env.pop(sim.TRANSPORT_ENV, None)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    first, *failures = out.stdout.strip().splitlines()
    assert failures == [], "\n".join(failures)
    words = first.split()
    assert int(words[1]) > 50 and words[3] == "socket", first  # the subpackages' modules too
    # The blocker was there: zuniboard.virtual.transport's guarded import of termios was refused.
    assert "termios imported by zuniboard.virtual.transport" in (tmp_path / "blocked.log").read_text()


def test_zuni_play_as_on_windows_plays_on_the_socket_link_under_cpython(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No unix port, no ptys: `zuni play` says it runs the firmware under CPython, the
    link is socket://, and a move and the computer's reply go through it."""
    env = _windows_like(tmp_path, **{"ZUNI_SIM_DIR": str(tmp_path / "sim"), HIDE_ENV: "1"})
    monkeypatch.delenv(sim.TRANSPORT_ENV, raising=False)  # chosen by the machine: socket, as there are no ptys
    play = ZuniPlay("--north", "ai:1", "--show", "0.2", db=tmp_path / "games.sqlite3", env=env)
    try:
        play.expect(
            r"^no MicroPython unix port on this computer: the virtual board runs the same firmware under CPython"
        )
        play.expect(r"^virtual board: layout board25, serial port socket://127\.0\.0\.1:\d+, ")
        play.expect(r"south to move \(type it")
        play.send("s3xm4-m5")
        play.expect(r"^1\. south s3xm4-m5$")
        play.expect(r"^2\. north \S+ \(carried out on the board\)$")
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    blocked = (tmp_path / "blocked.log").read_text().splitlines()
    # Each import of a POSIX-only module is guarded where it is made: the virtual board's
    # pty (termios) and the locks between processes (fcntl; msvcrt on Windows).
    guarded = {"termios imported by zuniboard.virtual.transport", "fcntl imported by zuniboard.oslock"}
    assert "termios imported by zuniboard.virtual.transport" in blocked and set(blocked) <= guarded, blocked


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the firmware process")
def test_an_orphaned_board_exits_when_its_host_is_killed_on_the_socket_transport(tmp_path: Path, runtime: str) -> None:
    env = dict(os.environ, **{sim.TRANSPORT_ENV: "socket"})
    proc = subprocess.Popen(
        [str(BIN / "zuni"), "sim", "--no-http", "--flash", str(tmp_path / "flash.img")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    firmware: list[int] = []
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if "Ctrl-C to stop" in line:
                break
        assert any(line.startswith("serial port:     socket://127.0.0.1:") for line in seen), "".join(seen)
        # `zuni sim` says in one line, as `zuni play` does, when the firmware runs under CPython.
        assert (seen[0] == sim.CPYTHON_NOTICE + "\n") == (runtime == "cpython"), "".join(seen)
        firmware += [pid for pid in _children(proc.pid) if "main.py" in Path("/proc/%d/cmdline" % pid).read_text()]
        assert len(firmware) == 1, "expected one firmware process, found %r" % firmware
        cmdline = Path("/proc/%d/cmdline" % firmware[0]).read_text().split("\0")
        assert cmdline[cmdline.index("--lifeline") + 1].startswith("tcp:")
        assert ("fw_cpython" in " ".join(cmdline)) == (runtime == "cpython")
        os.kill(proc.pid, signal.SIGKILL)  # no clean-up at all in the host
        assert proc.wait(timeout=20) == -signal.SIGKILL
        wait_until(
            lambda: not _alive(firmware[0]),
            "the firmware process to end with `zuni sim` (socket transport)",
            5,
            step=0.05,
        )
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=10)
        for pid in firmware:  # an orphan this test failed to see exit must not run on
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_socket_port_is_opened_without_nagle_and_counts_the_bytes_waiting() -> None:
    """With Nagle's algorithm a request written while the last frame waited for its ACK
    was held for the board's delayed ACK: 44 ms a ping instead of under 1 ms. pyserial's
    socket:// port says 1 byte waiting whatever is there: the link read a byte a call."""
    import serial

    from zuniboard.link.port import SocketURLPort, default_opener

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = default_opener("socket://127.0.0.1:%d" % server.getsockname()[1])
        try:
            assert isinstance(port, SocketURLPort)
            assert port.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
            board, _ = server.accept()
            with board:
                assert port.in_waiting == 0
                board.sendall(b"x" * 300)
                wait_until(lambda: port.in_waiting >= 300, "the 300 bytes to arrive", 5, step=0.01)
                assert port.in_waiting == 300 and port.read(300) == b"x" * 300
                port.write(b"ping\n")
                assert board.recv(64) == b"ping\n"
            with pytest.raises(serial.SerialException):  # the board hung up: the link reopens
                port.read(max(1, port.in_waiting))
        finally:
            port.close()


def test_the_firmware_under_cpython_writes_files_as_micropython_whatever_the_locale(tmp_path: Path) -> None:
    """Under a locale that is not UTF-8 (as Windows' cp1252) CPython's open would write
    the journal's text otherwise than the board does; firmware_open writes UTF-8 and "\\n"."""
    script = (
        "import sys; from zuniboard.virtual.fw_cpython import firmware_open\n"
        "f = firmware_open(sys.argv[1], 'w'); f.write('caf\\u00e9\\n'); f.close()\n"
        "print(firmware_open(sys.argv[1]).read() == 'caf\\u00e9\\n')\n"
    )
    env = dict(os.environ, LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONIOENCODING="ascii")
    path = tmp_path / "record"
    out = subprocess.run([sys.executable, "-c", script, str(path)], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stdout + out.stderr
    assert path.read_bytes() == b"caf\xc3\xa9\n"
