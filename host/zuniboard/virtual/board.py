"""The virtual board on the PC: the real firmware under the MicroPython unix port, and a
"hand" that moves pieces on it.

>>> with VirtualBoard("board25", pieces="start") as vb:
...     link = BoardLink.open(vb.port_path)       # the host talks to it like to a board
...     vb.lift("s3"); vb.place("m5")             # the control channel: magnets and buttons
...     vb.wait_stable({"m5", ...})               # the firmware's debounced view
...     vb.leds()["m5"]                           # (r, g, b) per point
...     vb.restart()                              # a power cut: same flash, same pieces

``VirtualBoard`` creates the link (``zuniboard.virtual.transport.LinkEnds``), starts
``micropython firmware/main.py`` (or, with no unix port for this machine, the same
firmware under CPython: ``zuniboard.virtual.fw_cpython``) as a process
(``zuniboard.virtual.process.FirmwareProcess``) with a TCP control channel on 127.0.0.1
and a littlefs flash image, and mirrors what the control channel pushes (sensors, stable
positions, LED frames: ``zuniboard.virtual.control.ControlChannel``). ``Hand`` plays moves
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

import os
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import zuni
from zuniboard.games import layouts
from zuniboard.oslock import LockBusy, ProcessLock, lock_path
from zuniboard.paths import FIRMWARE_DIR
from zuniboard.virtual.control import REPLY_TIMEOUT_S, RGB, WAIT_TIMEOUT_S, ControlChannel, Event, parse_frame
from zuniboard.virtual.errors import FlashBusy, SimError
from zuniboard.virtual.mpy import board_command
from zuniboard.virtual.process import FirmwareProcess
from zuniboard.virtual.transport import HAVE_PTY, LOOPBACK, TRANSPORTS, LinkEnds, free_port

__all__ = [
    "BUTTONS",
    "CPYTHON_NOTICE",
    "HAVE_PTY",
    "LOOPBACK",
    "REPLY_TIMEOUT_S",
    "RGB",
    "TRANSPORTS",
    "WAIT_TIMEOUT_S",
    "Event",
    "FlashBusy",
    "Hand",
    "SimError",
    "VirtualBoard",
    "default_transport",
    "free_port",
    "parse_frame",
    "start_position",
]

TRANSPORT_ENV = "ZUNI_SIM_TRANSPORT"
# What `zuni play` and `zuni sim` say, in one line, when the firmware runs under CPython.
CPYTHON_NOTICE = (
    "no MicroPython unix port on this computer: the virtual board runs the same firmware under CPython "
    "(it is written in their common subset)"
)
MAIN = FIRMWARE_DIR / "main.py"
START_TIMEOUT_S = 30.0  # generous: returns as soon as the board is up (a loaded machine takes seconds)
BUTTONS = ("ok", "back", "hint")
EXIT_PORT_TAKEN = 3  # firmware/main.py's exit status when it cannot listen on --control


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
        self._fixed_port = control_port
        self.control_port = 0
        self._initial = self._pieces(pieces)
        self.process = FirmwareProcess(self._tmp / "firmware.log")
        self.ends = LinkEnds(self.transport, link_mode)
        self.control = ControlChannel(self.process)

    def _pieces(self, pieces: str | Iterable[str]) -> set[str]:
        if isinstance(pieces, str):
            if pieces == "start":
                return start_position(self.ruleset or self.layout.rulesets[0])
            if pieces == "empty":
                return set()
            return {p for p in pieces.replace(",", " ").split() if p}
        return set(pieces)

    # -- what the parts hold, by the names callers know ----------------------------------------
    @property
    def port_path(self) -> str:
        """What the host opens: the pty's path, or socket://127.0.0.1:PORT."""
        return self.ends.port_path

    @property
    def master(self) -> int:
        return self.ends.master

    @property
    def slave(self) -> int:
        return self.ends.slave

    @property
    def link_port(self) -> int:
        return self.ends.link_port

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        return self.process.proc

    @property
    def log_path(self) -> Path:
        return self.process.log_path

    @property
    def starts(self) -> int:
        return self.process.starts

    @property
    def events(self) -> list[Event]:
        return self.control.events

    @property
    def names(self) -> list[str]:
        return self.control.names

    @property
    def occupied(self) -> set[str]:
        return self.control.occupied

    @property
    def stable(self) -> set[str] | None:
        return self.control.stable

    @property
    def frame(self) -> dict[str, RGB]:
        return self.control.frame

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
        self.ends.open()
        self._launch(self._initial)

    def _firmware_args(self, occupied: set[str]) -> tuple[list[str], tuple[int, ...]]:
        args = ["--layout", str(self.layout_path), "--layout-packed", str(self._packed_dir())]
        args += ["--control", str(self.control_port), "--flash", str(self.flash)]
        if self.link_ms is not None:
            args += ["--link-ms", ",".join(str(ms) for ms in self.link_ms)]
        link_args, pass_fds = self.ends.firmware_args()
        args += link_args
        if self.ruleset:
            args += ["--ruleset", self.ruleset]
        if occupied:
            args += ["--occupied", ",".join(sorted(occupied))]
        return args, pass_fds

    def _launch(self, occupied: set[str]) -> None:
        last_error = ""
        for _attempt in range(3):
            self.control_port = self._fixed_port or free_port()
            args, pass_fds = self._firmware_args(occupied)
            command, self.runtime = board_command(MAIN, *args, heap=self.heap)
            self.process.spawn(command, pass_fds)
            try:
                deadline = time.monotonic() + START_TIMEOUT_S
                self.ends.accept_lifeline(deadline, self.process, START_TIMEOUT_S)  # the firmware opens it first
                self.control.connect(self.control_port, deadline, START_TIMEOUT_S)
                self.ends.port_fixed = True  # the host's URL names it from now on
                return
            except SimError as exc:
                last_error = str(exc)
                port_taken = self.process.exit_status() == EXIT_PORT_TAKEN
                self._kill()
                fresh_ports = not self._fixed_port or (self.transport == "socket" and not self.ends.port_fixed)
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

    def log_tail(self, lines: int = 30) -> str:
        return self.process.log_tail(lines)

    def _kill(self) -> None:
        self.process.kill()  # a power cut, no clean exit
        self.ends.hang_up()
        self.control.disconnect()

    def restart(self, pieces: Iterable[str] | None = None) -> None:
        """A power cycle: kill the firmware (no clean shutdown) and start it again with the
        same flash image and the pieces where they are now (``pieces``: where the caller's
        hand left them, taken as they are)."""
        occupied = set(self.occupied if pieces is None else pieces)
        if self.alive and pieces is None:
            # The mirror follows pushed events on this client's own channel, which may lag
            # behind a change another control client (the page's server) made a moment
            # ago: the firmware's own answer is the pieces where they are now. A query,
            # not an action: wait_for still looks from the last one.
            try:
                occupied = set(self.control.commands(["sensors?"], timeout=1.0, mark=False)[0]["occupied"])
            except (SimError, OSError):
                pass
        self._kill()
        self.control.forget_view()
        self._launch(occupied)

    def close(self) -> None:
        self._kill()
        self.ends.close()
        shutil.rmtree(self._tmp, ignore_errors=True)
        self._flash_lock.release()

    @property
    def alive(self) -> bool:
        return self.process.alive

    @property
    def control_address(self) -> str:
        return "127.0.0.1:%d" % self.control_port

    # -- the control channel ------------------------------------------------------------------
    def command(self, line: str, timeout: float = REPLY_TIMEOUT_S) -> Event:
        """Send one control line and return its reply; SimError if it was refused."""
        return self.control.commands([line], timeout)[0]

    def commands(self, lines: Sequence[str], timeout: float = REPLY_TIMEOUT_S) -> None:
        """Send control lines in one write, then take their replies; SimError if one was
        refused. The board reads them in one go, between two of its scans, however long
        this process waits between its own steps."""
        self.control.commands(lines, timeout)

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
        return self.control.mark()

    def wait_for(
        self, predicate: Callable[[Event], bool], timeout: float = WAIT_TIMEOUT_S, since: int | None = None
    ) -> Event:
        """The first pushed event, from ``since`` (default: the last command sent) on, that
        satisfies ``predicate``; SimError after ``timeout`` seconds."""
        return self.control.wait_for(predicate, timeout, since)

    def wait_until(self, condition: Callable[[VirtualBoard], bool], timeout: float = WAIT_TIMEOUT_S) -> None:
        """Wait until ``condition(self)`` holds on the mirrored state (stable, frame, ...)."""
        self.control.wait_until(lambda: condition(self), timeout)

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
