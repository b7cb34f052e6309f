"""The virtual board on the PC: the real firmware under the MicroPython unix port, and a
"hand" that moves pieces on it.

>>> with VirtualBoard("board25", pieces="start") as vb:
...     link = BoardLink.open(vb.port_path)       # the host talks to it like to a board
...     vb.lift("s3"); vb.place("m5")             # the control channel: magnets and buttons
...     vb.wait_stable({"m5", ...})               # the firmware's debounced view
...     vb.leds()["m5"]                           # (r, g, b) per point
...     vb.restart()                              # a power cut: same flash, same pieces

``VirtualBoard`` creates the link, starts ``micropython firmware/main.py`` (or, with no
unix port for this machine, the same firmware under CPython: ``zuniboard.virtual.fw_cpython``)
with a TCP control channel on 127.0.0.1 and a littlefs flash image, and mirrors what the
control channel pushes (sensors, stable positions, LED frames). ``Hand`` plays moves
with a player's timing: lifts, slides over other points, bouncing contacts, captured
pieces removed.

The link has two transports; the host opens either by URL (``port_path``, pyserial's
``serial_for_url``), so everything above the port is one code path:

- ``pty`` (where there are ptys: Linux, macOS): a pseudo-terminal pair; the firmware gets
  the master fd, non-blocking; ``port_path`` is the slave's path. The lifeline is a pipe.
- ``socket`` (where there are none: Windows): the firmware serves the link on
  127.0.0.1:PORT (``zuni_hw.virtual.SocketLink``), ``port_path`` is
  ``socket://127.0.0.1:PORT``, the same port across restarts. The lifeline is a socket
  the firmware opens to this process (a pipe cannot be polled there).

``transport=None`` picks pty where it exists, else socket; ``$ZUNI_SIM_TRANSPORT``
(``pty`` or ``socket``) overrides that choice, e.g. to test the socket transport on Linux.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import random
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import zuni
from zuniboard.games import layouts
from zuniboard.oslock import LockBusy, ProcessLock, lock_path
from zuniboard.paths import FIRMWARE_DIR
from zuniboard.virtual.mpy import board_command, micropython_env

try:  # POSIX only: Windows has neither, and there the link is a socket
    import termios
    import tty
except ImportError:  # pragma: no cover - exercised by tests/e2e/test_sim_socket.py with them blocked
    termios = None  # type: ignore[assignment]
    tty = None  # type: ignore[assignment]

TRANSPORT_ENV = "ZUNI_SIM_TRANSPORT"
TRANSPORTS = ("pty", "socket")
HAVE_PTY = termios is not None and tty is not None and hasattr(os, "openpty")
LOOPBACK = "127.0.0.1"
# What `zuni play` and `zuni sim` say, in one line, when the firmware runs under CPython.
CPYTHON_NOTICE = (
    "no MicroPython unix port on this computer: the virtual board runs the same firmware under CPython "
    "(it is written in their common subset)"
)
MAIN = FIRMWARE_DIR / "main.py"
START_TIMEOUT_S = 30.0  # generous: returns as soon as the board is up (a loaded machine takes seconds)
REPLY_TIMEOUT_S = 5.0
# How long the wait_* helpers wait for the board by default: they return as soon as it
# happens, so a generous limit costs nothing, and a machine under load (the test suite
# beside other jobs on two cores) can take seconds for what takes milliseconds alone.
WAIT_TIMEOUT_S = 30.0
BUTTONS = ("ok", "back", "hint")
EXIT_PORT_TAKEN = 3  # firmware/main.py's exit status when it cannot listen on --control

Event = dict[str, Any]
RGB = tuple[int, int, int]


class SimError(RuntimeError):
    """The virtual board did not start, died, or refused a control command."""


class FlashBusy(SimError):
    """Another process runs a virtual board on this flash image (two firmwares writing one
    littlefs image would each lose the other's games)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (the firmware cannot report the one it got)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def default_transport() -> str:
    """``$ZUNI_SIM_TRANSPORT`` if set, else ``pty`` where this computer has ptys, else ``socket``."""
    chosen = os.environ.get(TRANSPORT_ENV, "").strip()
    if chosen:
        if chosen not in TRANSPORTS:
            raise SimError("$%s=%s: expected one of %s" % (TRANSPORT_ENV, chosen, ", ".join(TRANSPORTS)))
        return chosen
    return "pty" if HAVE_PTY else "socket"


def start_position(ruleset: str) -> set[str]:
    """The points occupied at the start of ``ruleset``."""
    game = zuni.new_game(ruleset)
    occ = game.occupancy()
    names = game.geometry.names
    return {str(names[i]) for i in range(len(names)) if occ[i]}


def parse_frame(hex_frame: str, names: Sequence[str]) -> dict[str, RGB]:
    data = bytes.fromhex(hex_frame)
    return {name: (data[3 * i], data[3 * i + 1], data[3 * i + 2]) for i, name in enumerate(names)}


class VirtualBoard:
    """The firmware as a process, with its link pty and control channel (see module doc).

    ``layout``: a layout name or path. ``pieces``: "start" (the start position of the
    ruleset), "empty", or point names: the magnets on the board at power-on. ``flash``:
    the littlefs image (default: a temporary one, removed by ``close``). ``transport``:
    ``pty``, ``socket`` or None (``default_transport()``); ``link_mode`` (pty only): the
    firmware gets the pty's master as an fd, or opens the slave by ``path``. ``link_ms``:
    the firmware link's (resend, beat, host timeout) in ms instead of its own (tests of the
    link's real path run them shorter, with the host's ``LinkTimers`` scaled alike).
    """

    def __init__(
        self,
        layout: str | Path = "board25",
        ruleset: str | None = None,
        pieces: str | Iterable[str] = "empty",
        flash: str | Path | None = None,
        control_port: int | None = None,
        heap: str | None = None,
        link_mode: str = "fd",
        transport: str | None = None,
        link_ms: tuple[int, int, int] | None = None,
    ) -> None:
        self.layout = layouts.load_layout(str(layout))
        self.link_ms = link_ms
        self.layout_path = Path(self.layout.path).resolve()
        self.ruleset = ruleset
        self.names: list[str] = []
        self.heap = heap
        self.runtime = ""  # what runs the firmware: "micropython" (the unix port) or "cpython"
        if link_mode not in ("fd", "path"):
            raise ValueError("link_mode must be 'fd' or 'path', not %r" % (link_mode,))
        self.link_mode = link_mode
        self.transport = transport or default_transport()
        if self.transport not in TRANSPORTS:
            raise ValueError("transport must be one of %s, not %r" % (", ".join(TRANSPORTS), self.transport))
        if self.transport == "pty" and not HAVE_PTY:
            raise SimError("this computer has no pseudo-terminals: use transport='socket'")
        self._tmp = Path(tempfile.mkdtemp(prefix="zuni-sim-"))
        self.flash = Path(flash) if flash is not None else self._tmp / "flash.img"
        # One virtual board per flash image, across processes (held from start to close).
        self._flash_lock = ProcessLock(
            lock_path("flash", str(self.flash.resolve())), "the virtual board's flash image %s" % self.flash
        )
        self.log_path = self._tmp / "firmware.log"
        self._fixed_port = control_port
        self.control_port = 0
        self._initial = self._pieces(pieces)
        self.proc: subprocess.Popen[bytes] | None = None
        # The lifeline: the firmware exits when it hangs up, so the board never outlives
        # its host. On a pty the read end of a pipe whose write end only this process
        # holds (not inheritable); on a socket a connection the firmware opens to
        # _lifeline_server, saying _lifeline_token, which this process holds and never
        # writes on (a pipe cannot be polled on Windows).
        self._lifeline_r = self._lifeline_w = -1
        self._lifeline_server: socket.socket | None = None
        self._lifeline_conn: socket.socket | None = None
        self._lifeline_token = secrets.token_hex(16)
        if self.transport == "pty":
            self._lifeline_r, self._lifeline_w = os.pipe()
        self.master = -1
        self.slave = -1
        self.link_port = 0  # socket transport: the link's port on 127.0.0.1 (kept across restarts)
        self._link_port_fixed = False
        self.port_path = ""  # what the host opens: the pty's path, or socket://127.0.0.1:PORT
        self._sock: socket.socket | None = None
        self._reader: threading.Thread | None = None
        self._cond = threading.Condition()
        self.events: list[Event] = []
        self._replies: list[Event] = []
        self._mark = 0
        self.occupied: set[str] = set()
        self.stable: set[str] | None = None
        self.frame: dict[str, RGB] = {}
        self.starts = 0

    def _pieces(self, pieces: str | Iterable[str]) -> set[str]:
        if isinstance(pieces, str):
            if pieces == "start":
                return start_position(self.ruleset or self.layout.rulesets[0])
            if pieces == "empty":
                return set()
            return {p for p in pieces.replace(",", " ").split() if p}
        return set(pieces)

    # -- life cycle ------------------------------------------------------------------------
    def __enter__(self) -> VirtualBoard:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        try:
            self._flash_lock.acquire()
        except LockBusy as exc:
            raise FlashBusy(str(exc)) from None
        if self.transport == "pty":
            if self.master < 0:
                self._open_pty()
        elif self._lifeline_server is None:
            server = socket.socket()
            server.bind((LOOPBACK, 0))
            server.listen(4)
            self._lifeline_server = server
        self._launch(self._initial)

    def _open_pty(self) -> None:
        assert termios is not None and tty is not None
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes pass as they are
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        os.set_blocking(master, False)
        self.master = master
        self.slave = slave
        self.port_path = os.ttyname(slave)

    def _launch(self, occupied: set[str]) -> None:
        last_error = ""
        for _attempt in range(3):
            self.control_port = self._fixed_port or free_port()
            args = ["--layout", str(self.layout_path), "--layout-packed", str(self._packed_dir())]
            args += ["--control", str(self.control_port)]
            args += ["--flash", str(self.flash)]
            if self.link_ms is not None:
                args += ["--link-ms", ",".join(str(ms) for ms in self.link_ms)]
            pass_fds: tuple[int, ...] = ()
            if self.transport == "socket":
                assert self._lifeline_server is not None
                if not self._link_port_fixed:
                    self.link_port = free_port()
                    self.port_path = "socket://%s:%d" % (LOOPBACK, self.link_port)
                lifeline_port = self._lifeline_server.getsockname()[1]
                args += ["--link", "tcp:%d" % self.link_port]
                args += ["--lifeline", "tcp:%d:%s" % (lifeline_port, self._lifeline_token)]
            else:
                args += ["--lifeline", str(self._lifeline_r)]
                pass_fds += (self._lifeline_r,)
                if self.link_mode == "fd":
                    args += ["--link", "fd:%d" % self.master]
                    pass_fds += (self.master,)
                else:
                    args += ["--link", self.port_path]
            if self.ruleset:
                args += ["--ruleset", self.ruleset]
            if occupied:
                args += ["--occupied", ",".join(sorted(occupied))]
            command, self.runtime = board_command(MAIN, *args, heap=self.heap)
            # A Ctrl-C in the terminal is for the host, not the board: its own session
            # (POSIX) or process group (Windows, where pass_fds does not exist either).
            detach: dict[str, Any] = {"start_new_session": True, "pass_fds": pass_fds}
            if os.name == "nt":  # pragma: no cover - Windows
                detach = {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
            with open(self.log_path, "ab") as log:  # the child keeps its own copy of the fd
                self.proc = subprocess.Popen(
                    command,
                    env=micropython_env(),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    **detach,
                )
            self.starts += 1
            try:
                self._connect()
                self._link_port_fixed = True  # the host's URL names it from now on
                return
            except SimError as exc:
                last_error = str(exc)
                port_taken = self.proc is not None and self.proc.poll() == EXIT_PORT_TAKEN
                self._kill()
                fresh_ports = not self._fixed_port or (self.transport == "socket" and not self._link_port_fixed)
                if not (port_taken and fresh_ports):
                    break  # only a port taken between free_port() and the bind is worth a retry
        raise SimError(last_error)

    def _packed_dir(self) -> Path:
        """The folder of the layout packed as on a Pico (``layouts.packed_source``, the
        module tools/deploy.py compiles for the board): the firmware reads the layout from
        it, as the chip does, while the file is the one it was made from. Written at each
        start, so that a layout file edited meanwhile is packed again."""
        folder = self._tmp / "packed"
        folder.mkdir(exist_ok=True)
        (folder / (layouts.PACKED_MODULE + ".py")).write_text(layouts.packed_source(self.layout_path))
        return folder

    def _accept_lifeline(self, deadline: float) -> None:
        """Takes the firmware's lifeline connection (socket transport): the first one on
        the lifeline port that says this board's token; others are closed."""
        server = self._lifeline_server
        assert server is not None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SimError("the virtual board did not open its lifeline within %.0f s" % START_TIMEOUT_S)
            server.settimeout(min(left, 0.5))
            try:
                conn, _addr = server.accept()
            except OSError:  # timeout
                assert self.proc is not None
                if self.proc.poll() is not None:
                    raise SimError(
                        "the virtual board exited (status %s):\n%s" % (self.proc.returncode, self.log_tail())
                    )
                continue
            conn.settimeout(1.0)
            said = b""
            with contextlib.suppress(OSError):
                while not said.endswith(b"\n") and len(said) < 64:
                    data = conn.recv(64)
                    if not data:
                        break
                    said += data
            if hmac.compare_digest(said.strip(), self._lifeline_token.encode()):
                conn.settimeout(None)
                self._lifeline_conn = conn
                return
            conn.close()  # someone else on this computer: not our board

    def _connect(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        if self.transport == "socket":
            self._accept_lifeline(deadline)  # the firmware opens it first thing
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise SimError("the virtual board exited (status %s):\n%s" % (self.proc.returncode, self.log_tail()))
            try:
                sock = socket.create_connection(("127.0.0.1", self.control_port), timeout=0.5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SimError("no control channel on port %d after %.0f s" % (self.control_port, START_TIMEOUT_S))
                time.sleep(0.02)
        sock.settimeout(None)
        with self._cond:
            self._sock = sock
            self._replies = []
            since = len(self.events)
        self._reader = threading.Thread(target=self._read_events, args=(sock,), daemon=True, name="zuni-sim-control")
        self._reader.start()
        hello = self.wait_for(lambda e: e.get("event") == "hello", START_TIMEOUT_S, since=since)
        self.names = list(hello["points"])

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _kill(self) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()  # SIGKILL; TerminateProcess on Windows: a power cut, no clean exit
        if proc is not None:
            proc.wait(timeout=10)
        lifeline = self._lifeline_conn
        self._lifeline_conn = None
        if lifeline is not None:
            lifeline.close()
        sock = self._sock
        self._sock = None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if self._reader is not None:
            self._reader.join(timeout=5)
            self._reader = None

    def restart(self) -> None:
        """A power cycle: kill the firmware (no clean shutdown) and start it again with the
        same flash image and the pieces where they are now."""
        occupied = set(self.occupied)
        if self.alive:
            # The mirror follows pushed events on this client's own channel, which may lag
            # behind a change another control client (the page's server) made a moment
            # ago: the firmware's own answer is the pieces where they are now.
            mark = self._mark  # a query, not an action: wait_for still looks from the last one
            with contextlib.suppress(SimError, OSError):
                occupied = set(self.command("sensors?", timeout=1.0)["occupied"])
            self._mark = mark
        self._kill()
        with self._cond:
            self.stable = None
            self.frame = {}
        self._launch(occupied)

    def close(self) -> None:
        self._kill()
        for fd in (self.master, self.slave, self._lifeline_r, self._lifeline_w):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.master = self.slave = self._lifeline_r = self._lifeline_w = -1
        if self._lifeline_server is not None:
            self._lifeline_server.close()
            self._lifeline_server = None
        shutil.rmtree(self._tmp, ignore_errors=True)
        self._flash_lock.release()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def control_address(self) -> str:
        return "127.0.0.1:%d" % self.control_port

    # -- the control channel ------------------------------------------------------------------
    def _read_events(self, sock: socket.socket) -> None:
        buf = b""
        while True:
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                with self._cond:
                    self.events.append({"event": "closed"})
                    self._cond.notify_all()
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    msg = {"event": "garbage", "text": line.decode(errors="replace")}
                self._on_message(msg)

    def _on_message(self, msg: Event) -> None:
        with self._cond:
            if "reply" in msg:
                self._replies.append(msg)
            else:
                kind = msg.get("event")
                if kind == "hello":
                    self.names = list(msg["points"])
                    self.occupied = set(msg["occupied"])
                    self.frame = parse_frame(msg["frame"], self.names)
                elif kind == "sensors":
                    self.occupied = set(msg["occupied"])
                elif kind == "stable":
                    self.stable = set(msg["occupied"])
                elif kind == "leds":
                    self.frame = parse_frame(msg["frame"], self.names)
                msg["time"] = time.monotonic()
                self.events.append(msg)
            self._cond.notify_all()

    def command(self, line: str, timeout: float = REPLY_TIMEOUT_S) -> Event:
        """Send one control line and return its reply; SimError if it was refused."""
        with self._cond:
            sock = self._sock
            if sock is None:
                raise SimError("the virtual board is not running")
            self._mark = len(self.events)
            sock.sendall((line + "\n").encode())
            deadline = time.monotonic() + timeout
            while not self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or not self.alive:
                    raise SimError("no reply to %r from the virtual board\n%s" % (line, self.log_tail()))
                self._cond.wait(min(left, 0.2))
            reply = self._replies.pop(0)
        if not reply.get("ok"):
            raise SimError(str(reply.get("error", reply)))
        return reply

    def commands(self, lines: Sequence[str], timeout: float = REPLY_TIMEOUT_S) -> None:
        """Send control lines in one write, then take their replies; SimError if one was
        refused. The board reads them in one go, between two of its scans, however long
        this process waits between its own steps."""
        with self._cond:
            sock = self._sock
            if sock is None:
                raise SimError("the virtual board is not running")
            self._mark = len(self.events)
            sock.sendall("".join(line + "\n" for line in lines).encode())
            deadline = time.monotonic() + timeout
            while len(self._replies) < len(lines):
                left = deadline - time.monotonic()
                if left <= 0 or not self.alive:
                    raise SimError("no reply to %r from the virtual board\n%s" % (lines, self.log_tail()))
                self._cond.wait(min(left, 0.2))
            replies, self._replies = self._replies[: len(lines)], self._replies[len(lines) :]
        for reply in replies:
            if not reply.get("ok"):
                raise SimError(str(reply.get("error", reply)))

    def lift(self, *points: str) -> None:
        self.command("lift " + " ".join(points))

    def place(self, *points: str) -> None:
        self.command("place " + " ".join(points))

    def set_occupied(self, points: Iterable[str]) -> None:
        """Exactly these points hold magnets (all changed at once)."""
        self.command("set " + " ".join(sorted(points)))

    def place_its_game(self) -> int:
        """Puts the magnets where the game in its flash stands: a board that comes back
        with a game in progress has its pieces where that game left them (a person leaves
        them on the wood), not at the start, which would leave it waiting to be set up
        (issue 26). Returns the game's moves (0: nothing done, no game with moves)."""
        from zuniboard.link.mirror import start_game

        try:
            state = self.command("state?")
            moves = [str(m) for m in self.command("moves?").get("moves", [])]
        except SimError:
            return 0  # a firmware without a board application or without moves?
        if state.get("phase") != "setup" or not moves:
            return 0
        try:
            game = start_game(str(state["ruleset"]), str(state.get("position", "")))
            for text in moves:
                game.push_text(text)
        except (zuni.ZuniError, KeyError):
            return 0
        names = game.geometry.names
        self.set_occupied(str(names[i]) for i in range(len(names)) if game.board[i])
        return len(moves)

    def press(self, button: str) -> None:
        if button not in BUTTONS:
            raise ValueError("button %r: expected one of %s" % (button, ", ".join(BUTTONS)))
        self.command("press " + button)

    def sensors(self) -> set[str]:
        """Points whose sensor reads a magnet now (asked from the firmware)."""
        return set(self.command("sensors?")["occupied"])

    def leds(self) -> dict[str, RGB]:
        """The LED colour per point (full scale, before the driver's brightness cap)."""
        return parse_frame(self.command("leds?")["frame"], self.names)

    def mark(self) -> int:
        """An event index: ``wait_for(..., since=mark)`` looks only at later events."""
        with self._cond:
            return len(self.events)

    def wait_for(
        self, predicate: Callable[[Event], bool], timeout: float = WAIT_TIMEOUT_S, since: int | None = None
    ) -> Event:
        """The first pushed event, from ``since`` (default: the last command sent) on, that
        satisfies ``predicate``; SimError after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            i = self._mark if since is None else since
            while True:
                while i < len(self.events):
                    event = self.events[i]
                    i += 1
                    if predicate(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self._timed_out(timeout, "an event from the virtual board")
                self._cond.wait(min(left, 0.2))

    def wait_until(self, condition: Callable[[VirtualBoard], bool], timeout: float = WAIT_TIMEOUT_S) -> None:
        """Wait until ``condition(self)`` holds on the mirrored state (stable, frame, ...)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not condition(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self._timed_out(timeout, "the virtual board")
                self._cond.wait(min(left, 0.2))

    def _timed_out(self, timeout: float, what: str) -> SimError:
        """The error of a wait that ran out, with what tells a hung firmware from a slow
        one: whether its process still runs, the position it last reported, its log."""
        proc = self.proc
        if proc is None:
            running = "not started"
        elif proc.poll() is None:
            running = "running"
        else:
            running = "exited with status %s" % proc.returncode
        stable = "none" if self.stable is None else " ".join(sorted(self.stable)) or "empty"
        return SimError(
            "timed out after %.1f s waiting for %s (the firmware's process %s; the last stable position it"
            " reported: %s); the end of its log:\n%s" % (timeout, what, running, stable, self.log_tail(15))
        )

    def wait_stable(self, occupied: Iterable[str], timeout: float = WAIT_TIMEOUT_S) -> None:
        """Wait until the firmware's debounced position is ``occupied``."""
        want = set(occupied)
        self.wait_until(lambda vb: vb.stable == want, timeout)


class Hand:
    """Moves pieces on a virtual board the way a player does.

    Between lift and place 60-200 ms; a slide touches intermediate points for less than
    the debouncer's stable time; with ``bounce`` a placed magnet chatters for a few ms.
    ``play(game, text)`` carries out a whole move of a rules ``Game`` (not pushed).
    """

    def __init__(self, board: VirtualBoard, seed: int | None = None, speed: float = 1.0, bounce: bool = True) -> None:
        self.board = board
        self.rng = random.Random(seed)
        self.speed = speed
        self.bounce = bounce

    def pause(self, low_ms: float, high_ms: float) -> None:
        time.sleep(self.rng.uniform(low_ms, high_ms) / 1000.0 / self.speed)

    def lift(self, point: str) -> None:
        self.board.lift(point)

    def place(self, point: str) -> None:
        if not self.bounce:
            self.board.place(point)
            return
        # Reed contacts chatter when a magnet arrives, for well under a scan: sent in one
        # write, which the board takes between two scans. (Sent apart, with sleeps, a
        # loaded machine stretched a chatter past the commit time: the board saw the
        # move made, the piece lifted again, which restored the position before it and
        # took the move back, then the move again; issue 27.)
        lines = ["place " + point]
        for _ in range(self.rng.randint(1, 3)):
            lines += ["lift " + point, "place " + point]
        self.board.commands(lines)

    def slide(self, origin: str, dest: str, via: Sequence[str] = ()) -> None:
        """Lift ``origin``, brush over ``via`` (each well under the stable time), place ``dest``."""
        self.lift(origin)
        self.pause(60, 200)
        for point in via:
            self.board.place(point)
            self.pause(20, 60)
            self.board.lift(point)
            self.pause(10, 30)
        self.place(dest)

    def play(self, game: zuni.Game, text: str, touch_landings: bool = True) -> None:
        """Carry out move ``text`` of ``game`` on the board: the mover along its path
        (touching each landing point when ``touch_landings``), then the captures removed."""
        move = game.parse_move(text)
        names = game.geometry.names
        path = [str(names[p]) for p in move.path]
        if move.kind == zuni.DROP:
            self.pause(60, 200)
            self.place(path[0])
        elif move.kind in (zuni.STEP, zuni.JUMP):
            landings = [str(names[p]) for p in move.landings()] if move.kind == zuni.JUMP else [path[-1]]
            self.lift(path[0])
            self.pause(60, 200)
            if touch_landings:
                for point in landings[:-1]:
                    self.board.place(point)
                    self.pause(40, 100)
                    self.board.lift(point)
                    self.pause(20, 60)
            self.place(landings[-1])
        for p in move.captures:
            self.pause(80, 250)
            self.lift(str(names[p]))
