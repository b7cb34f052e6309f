"""The host's link and the board's, real on both ends, on one virtual clock: ``LinkPair``.

The board end is the firmware's own code under CPython: ``zuni_board.app.BoardApp`` with
its journal in a folder and ``zuni_link.session.BoardSession`` (its real timers: moves
resent every second, a beat every two, the host counted away after six). The host end is
``zuniboard.link.client.BoardLink`` with its real ``LinkTimers``. Between them an
in-memory cable (``Wire``, one per direction) that can be pulled (softly: nothing passes;
hard: the host's device is gone) and that drops, corrupts, duplicates and delays lines,
one chosen line at a time (``fault_next``) or at random (``Faults``).

No thread and no sleep: ``LinkPair`` is both loops (``driven``: a thread steps them while
the caller blocks on the link, for the code above it that still does). ``run(ms)`` lets time pass in 10 ms
scans: the lines due arrive, the board's app scans and its session polls, the host's
link reads and ticks as its port thread does (``LinkPort._converse``: ``line`` then
``idle``; a ``LinkError`` drops the port, which is reopened after the back-off while the
device is there). ``Player`` makes moves on the board's sensors as a person does (the
board's debouncer's stable time after each gesture). A request goes by ``begin`` (the
host's non-blocking path) and ``call`` runs the clock until its result comes.

The true end-to-end path (MicroPython on a pty, pyserial, the port thread) is
tests/e2e/test_link_e2e.py; this is where the behaviours that wait only on the link's own
timers (resends, deadlines, reconnects, silence) run, in virtual seconds.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from board_helpers import Table

import zuni
from zuni_board.app import PLAY
from zuni_link import codec
from zuni_link.codec import FrameError
from zuni_link.session import BoardSession
from zuniboard.link.client import BoardLink
from zuniboard.link.events import RequestResult
from zuniboard.link.mirror import digest_of
from zuniboard.link.port import LinkError
from zuniboard.link.timers import REAL_TIMERS, LinkTimers

SCAN_MS = 10
LATENCY_MS = 2  # each way: USB CDC's round trip is ~1 ms


@dataclass
class Faults:
    """Chances per line (and the longest delay, in ms)."""

    drop: float = 0.0
    corrupt: float = 0.0
    cut: float = 0.0  # the line loses its end and its line end: it runs into the next one
    duplicate: float = 0.0
    garbage: float = 0.0  # a made-up line (random printable text or bytes) goes first
    delay: float = 0.0
    max_delay_ms: int = 0


class Frame(NamedTuple):
    time_ms: int
    verb: str
    body: str


@dataclass
class WireStats:
    dropped: int = 0
    corrupted: int = 0
    cut: int = 0
    garbage: int = 0
    duplicated: int = 0
    delayed: int = 0


@dataclass
class Wire:
    """One direction of the cable: lines arrive in order after LATENCY_MS (or later)."""

    rng: random.Random
    faults: Faults = field(default_factory=Faults)
    plugged: bool = True
    stats: WireStats = field(default_factory=WireStats)
    tap: list[Frame] = field(default_factory=list)  # every frame put on the wire, before faults
    _lock: threading.Lock = field(default_factory=threading.Lock)  # see LinkPair.driven
    _partial: bytes = b""
    _queue: list[tuple[int, bytes]] = field(default_factory=list)
    _next: list[tuple[bytes, str, int]] = field(default_factory=list)  # (pattern, fault, ms)

    def fault_next(self, pattern: bytes, fault: str, ms: int = 0) -> None:
        """The next line holding ``pattern``: drop, corrupt, duplicate or delay (by ``ms``)."""
        self._next.append((pattern, fault, ms))

    def pending_faults(self) -> int:
        return len(self._next)

    def send(self, data: bytes, now: int) -> None:
        with self._lock:
            lines = (self._partial + data).split(b"\n")
            self._partial = lines.pop()
            for line in lines:
                self._line(line + b"\n", now)

    def _line(self, line: bytes, now: int) -> None:
        try:
            _, verb, body, _ = codec.decode(line[:-1])
            self.tap.append(Frame(now, verb, body))
        except FrameError:
            pass
        if not self.plugged:
            return
        if self.rng.random() < self.faults.garbage:
            self.stats.garbage += 1
            self._queue_line(self._junk(), now, 0)
        fault, ms = self._fault_of(line)
        if fault == "drop":
            self.stats.dropped += 1
            return
        if fault == "corrupt":
            self.stats.corrupted += 1
            i = self.rng.randrange(1, len(line) - 1)
            line = line[:i] + bytes([line[i] ^ 0x01]) + line[i + 1 :]
        elif fault == "cut":
            self.stats.cut += 1
            line = line[: self.rng.randrange(1, len(line) - 1)]
        elif fault == "delay":
            self.stats.delayed += 1
        self._queue_line(line, now, ms)
        if fault == "duplicate":
            self.stats.duplicated += 1
            self._queue_line(line, now, ms)

    def _queue_line(self, line: bytes, now: int, ms: int) -> None:
        last = self._queue[-1][0] if self._queue else 0
        self._queue.append((max(last, now + LATENCY_MS + ms), line))

    def _junk(self) -> bytes:
        rng = self.rng
        if rng.random() < 0.5:
            junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        else:
            junk = bytes(rng.randrange(0x20, 0x7F) for _ in range(rng.randrange(1, 80)))
        return junk.replace(b"\n", b"") + b"\n"

    def _fault_of(self, line: bytes) -> tuple[str, int]:
        for i, (pattern, fault, ms) in enumerate(self._next):
            if pattern in line:
                del self._next[i]
                return fault, ms
        f, r = self.faults, self.rng.random()
        for fault, chance in (("drop", f.drop), ("corrupt", f.corrupt), ("cut", f.cut), ("duplicate", f.duplicate)):
            if r < chance:
                return fault, 0
            r -= chance
        if r < f.delay:
            return "delay", self.rng.randint(1, max(1, f.max_delay_ms))
        return "", 0

    def due(self, now: int) -> list[bytes]:
        out = []
        with self._lock:
            while self._queue and self._queue[0][0] <= now:
                out.append(self._queue.pop(0)[1])
        return out

    def frames(self, verb: str, since: int = 0) -> list[Frame]:
        return [f for f in self.tap[since:] if f.verb == verb]


class BoardPort:
    """The board's end of the cable, as BoardSession reads and writes it."""

    def __init__(self, pair: LinkPair) -> None:
        self.pair = pair
        self.inbox = bytearray()

    def read_into(self, buf: bytearray) -> int:
        n = min(len(buf), len(self.inbox))
        buf[:n] = self.inbox[:n]
        del self.inbox[:n]
        return n

    def write(self, data: bytes) -> int:
        self.pair.up.send(bytes(data), self.pair.now_ms)
        return len(data)


class HostPort:
    """The host's end, as BoardLink's port writes it (the pair hands it the lines)."""

    def __init__(self, pair: LinkPair) -> None:
        self.pair = pair
        self.closed = False

    @property
    def in_waiting(self) -> int:
        return 0

    def read(self, size: int = 1) -> bytes:
        return b""

    def write(self, data: bytes) -> int | None:
        if self.closed or not self.pair.device:
            raise OSError("the device is gone")
        self.pair.down.send(data, self.pair.now_ms)
        return len(data)

    def close(self) -> None:
        self.closed = True


class Truth(NamedTuple):
    game: str
    moves: list[str]
    digest: str


class LinkPair:
    """See the module doc. ``timers``: the host's (default the real ones); ``board_ms``:
    the board session's (resend, beat, host timeout), default its own."""

    def __init__(
        self,
        ruleset: str = "mosona",
        seed: int = 7,
        timers: LinkTimers = REAL_TIMERS,
        board_ms: tuple[int, int, int] | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.ruleset = ruleset
        self.board_ms = board_ms
        self.up = Wire(random.Random(seed + 1))  # board -> host
        self.down = Wire(random.Random(seed + 2))  # host -> board
        self.dir = tempfile.mkdtemp(prefix="zuni-linkpair-")
        self.table = PairTable(self, ruleset, self.dir, 1000)
        self.boots = 0
        self.session = self._attach_session()
        self.device = True  # the host's serial device exists (False: hard-unplugged)
        self.link = BoardLink("memory://", clock=lambda: self.now_ms / 1000.0, timers=timers)
        self._host: HostPort | None = None
        self._reopen_at = 0
        self._attempt = 0
        self.reopens = 0
        self.bad_lines = 0  # too long or with control bytes: the host's port dropped them
        # Called with the host's time after each scan of its link (the loops above the
        # link that run on the same clock: a PlaySession's ``step``).
        self.on_scan: list[Callable[[float], None]] = []
        self._open_host()
        self.table.setup()
        self.run(100)

    @property
    def now_ms(self) -> int:
        return self.table.now

    @property
    def app(self) -> Any:
        return self.table.app

    @property
    def game(self) -> zuni.Game:
        return self.table.app.game

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> LinkPair:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the two ends ------------------------------------------------------------------

    def _attach_session(self) -> BoardSession:
        self.boots += 1
        self.board_port = BoardPort(self)
        session = BoardSession(self.board_port, self.table.app, "b%05d" % self.boots, self.board_ms)
        self.table.app.attach(session)
        session.poll(self.now_ms)  # the boot hello
        return session

    def _open_host(self) -> None:
        self._host = HostPort(self)
        self._asm = codec.LineAssembler()  # as the port thread's (LinkPort._converse)
        self.link.port.attach(self._host, self.now_ms / 1000.0)

    def _drop_host(self, why: str) -> None:
        if self._host is not None:
            self._host.close()
        self._host = None
        self.link.router.dropped(why)
        self._reopen_at = self.now_ms + int(1000 * self.link.timers.reopen_s[min(self._attempt, 4)])
        self._attempt += 1

    def scan(self) -> None:
        """One 10 ms scan of both loops."""
        now = self.table.now
        self.board_port.inbox += b"".join(self.down.due(now))
        self.table.app.step(now, None, 0)
        self.session.poll(now)
        t = now / 1000.0
        router = self.link.router
        if self._host is None:
            for hook in self.on_scan:
                hook(t)
            router.closed_tick(t)
            if now >= self._reopen_at:
                if self.device:
                    self.reopens += 1
                    self._open_host()
                else:
                    self._reopen_at = now + int(1000 * self.link.timers.reopen_s[min(self._attempt, 4)])
                    self._attempt += 1
            self.up.due(now)  # nobody reads: lost
            return
        try:
            self._read(b"".join(self.up.due(now)), t)
            router.idle(t)
            self._attempt = 0
        except LinkError as exc:
            self._drop_host(str(exc))
        for hook in self.on_scan:
            hook(t)

    def _read(self, data: bytes, t: float) -> None:
        """The host's port reads ``data``: its lines to the link, as the port thread does."""
        asm, pos = self._asm, 0
        while pos < len(data):
            pos = asm.push(data, pos, len(data))
            if asm.ready == codec.LINE:
                self.link.router.line(bytes(asm.line()), t)
            elif asm.ready != codec.NONE:
                self.bad_lines += 1

    def run(self, ms: int) -> None:
        end = self.table.now + ms
        while self.table.now < end:
            self.table.now += SCAN_MS
            self.scan()

    @contextlib.contextmanager
    def driven(self) -> Iterator[None]:
        """For a caller that blocks on the link (a blocking call, ``wait_synced``): a
        thread scans meanwhile, a virtual 10 ms per real millisecond. The wires are the
        only state both threads touch (the host's writes), and they lock."""
        stop = threading.Event()

        def drive() -> None:
            while not stop.is_set():
                self.table.now += SCAN_MS
                self.scan()
                time.sleep(0.001)

        driver = threading.Thread(target=drive, name="link-pair", daemon=True)
        driver.start()
        try:
            yield
        finally:
            stop.set()
            driver.join()

    def run_until(self, done: Any, ms: int, what: str = "") -> None:
        """Scans until ``done()`` (AssertionError after ``ms`` virtual ms)."""
        end = self.table.now + ms
        while not done():
            assert self.table.now < end, "not within %d ms: %s" % (ms, what or done)
            self.table.now += SCAN_MS
            self.scan()

    # --- the cable and the board ---------------------------------------------------------

    def unplug(self, hard: bool = False) -> None:
        """Soft: the cable passes nothing (the host hears silence); hard: the host's device
        is gone too (its port drops now and cannot be reopened until ``replug``)."""
        self.up.plugged = self.down.plugged = False
        if hard:
            self.device = False
            if self._host is not None:
                self._drop_host("unplugged")

    def replug(self) -> None:
        self.up.plugged = self.down.plugged = True
        self.device = True

    def restart_board(self) -> None:
        """A power cycle: the app and its session lost (queued output too), a new app from
        the same journal with the pieces where they are, a new session with a new boot."""
        occ = bytearray(self.table.occ)
        self.table = PairTable(self, self.ruleset, self.dir, self.table.now)
        self.session = self._attach_session()
        self.table.occ[:] = occ
        self.table.settle()
        self.run(50)

    def choose(self, keep_going: bool = True) -> str:
        """A legal move whose result no other legal move shares (the board cannot commit
        a twin) and, with ``keep_going``, that does not end the game, where there is one."""
        game = self.game
        moves = game.legal_moves()
        assert moves, "the game is over"
        results: dict[bytes, int] = {}
        after = []
        for m in moves:
            game.push(m)
            key = bytes(game.occupancy())
            after.append((m, key, game.is_game_over()))
            game.pop()
            results[key] = results.get(key, 0) + 1
        good = [m for m, key, over in after if results[key] == 1 and not (over and keep_going)]
        unique = [m for m, key, _ in after if results[key] == 1]
        return str(self.rng.choice(good or unique or moves).text())

    def carry_out(self, text: str) -> None:
        """The player makes move ``text`` on the board (until the app commits it)."""
        self.table.do(text)

    def play(self, n: int = 1) -> list[str]:
        out = []
        for _ in range(n):
            out.append(self.choose())
            self.carry_out(out[-1])
        return out

    def pieces_follow(self) -> None:
        """The player puts the pieces where the board's game wants them (after a take-back
        or a new game the host asked for)."""
        self.table.occ[:] = self.table.app.target
        self.table.settle()
        self.run(50)
        assert self.table.app.phase == PLAY, self.table.app.describe()

    def truth(self) -> Truth:
        """The board's game as its app (resumed from its journal after a reset) has it."""
        app = self.table.app
        moves = [str(m.text()) for m in app.game.move_stack]
        return Truth(app.game_id, moves, codec.hex8(digest_of(app.game_id, moves)))

    # --- requests --------------------------------------------------------------------------

    def begin(self, call: str, *args: str, timeout: float = 10.0) -> list[RequestResult]:
        """Starts a request; the returned list gets its result when it ends."""
        box: list[RequestResult] = []
        self.link.begin(call, tuple(args), self.now_ms / 1000.0, box.append, timeout)
        return box

    def call(self, call: str, *args: str, timeout: float = 10.0) -> RequestResult:
        box = self.begin(call, *args, timeout=timeout)
        self.run_until(lambda: box, int(timeout * 1000) + 1000, call)
        return box[0]


class PairTable(Table):
    """A ``Table`` whose waits let the pair's time pass (both loops scan meanwhile)."""

    def __init__(self, pair: LinkPair, ruleset: str, journal_dir: str, now: int) -> None:
        super().__init__(ruleset, journal_dir)
        self.pair = pair
        self.now = now

    def settle(self) -> None:
        self.pair.run(self.stable_ms)
        self.app.step(self.now, bytearray(self.occ), 0)

    def wait(self, ms: int, step: int = SCAN_MS) -> None:
        self.pair.run(ms)

    def press(self, buttons: int) -> None:
        self.pair.run(SCAN_MS)
        self.app.step(self.now, None, buttons)
