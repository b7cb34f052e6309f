"""Test rig for the board link (CPython): a fault-injecting pty relay, the real firmware
behind it with a player's hand, and the board's own record of its game.

Used by tests/e2e/test_link_e2e.py and tools/bench_link.py::

    with FirmwareBoard(tmp) as board:               # firmware/main.py under MicroPython
        link = BoardLink(board.relay.host_path) ...  # the host talks through the relay
        board.play(3)                                # the hand makes three moves
        board.truth()                                # the game as the board's flash has it

``Relay`` joins the virtual board's link pty (``board_path``) to a pseudo-terminal of
its own for the host (``host_path``); a thread copies lines between them and can drop,
corrupt, cut, duplicate, delay (in order: a line never overtakes another, so no line
waits more than ``max_delay_s``) and invent lines, and pull the cable for a while at a
random line (``Faults``), unplug the host side, or stop reading the board (the board's
writes then back up, as when a PC holds the port open without reading). A tap records
every frame the board wrote, before any fault: tests wait on it for a committed move
instead of sleeping.

``FirmwareBoard`` is ``zuniboard.virtual.board.VirtualBoard`` (the real firmware: BoardApp,
BoardSession, Journal on a littlefs image) with a ``Hand`` that carries out moves by
lifting and placing magnets through the control channel. ``journal(flash)`` reads the
board's game from a copy of its flash image with the firmware's own Journal code under
MicroPython: the board's truth, independent of the link under test.

``TestBoard`` is the older stand-in (tools/link_testboard.py: the real BoardSession with a
small rules app, driven through stdin); tests/e2e/test_play_standin.py still uses it for
fast, deterministic play-session tests.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import queue
import random
import select
import shutil
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import zuni
from zuniboard.paths import FIRMWARE_LIB, HARDWARE_DIR
from zuniboard.virtual import board as sim
from zuniboard.virtual.mpy import micropython_command, micropython_env

if str(FIRMWARE_LIB) not in sys.path:
    sys.path.append(str(FIRMWARE_LIB))

from zuni_link import codec

# The longest wait for the board or the link (they return as soon as it happens): generous,
# as the tests run beside other jobs on two cores (issue 26, point 12).
WAIT_S = 30.0


TOOLS = Path(__file__).resolve().parent

# The layout's clock made faster (shorter debounce and commit times) so that whole games
# fit in the test budget; the link timers are the real ones unless given (``link_ms``; the
# host's ``LinkTimers``).
FAST_TIMING = {
    "scan_ms": 5,
    "debounce_scans": 2,
    "stable_ms": 40,
    "commit_ms": 80,
    "error_ms": 300,
    "chain_settle_ms": 400,
}


@dataclass
class Faults:
    """Per-line probabilities of each fault (one direction)."""

    drop: float = 0.0
    corrupt: float = 0.0
    cut: float = 0.0  # the line loses its end and its line end: it runs into the next one
    duplicate: float = 0.0
    delay: float = 0.0
    max_delay_s: float = 0.3
    garbage: float = 0.0  # a made-up line (random printable text or bytes) is inserted
    unplug: float = 0.0  # the cable is pulled at this line (both directions) for unplug_s
    unplug_s: float = 1.0

    def any(self) -> bool:
        return any((self.drop, self.corrupt, self.cut, self.duplicate, self.delay, self.garbage, self.unplug))


@dataclass
class RelayStats:
    lines: int = 0
    dropped: int = 0
    corrupted: int = 0
    cut: int = 0
    duplicated: int = 0
    delayed: int = 0
    garbage: int = 0
    lost_unplugged: int = 0
    unplugs: int = 0


class _Direction:
    def __init__(self, faults: Faults, rng: random.Random) -> None:
        self.faults = faults
        self.rng = rng
        self.partial = b""
        self.out: list[tuple[float, bytes]] = []  # (release time, bytes), in order
        self.stats = RelayStats()
        self.once: list[tuple[bytes, str, float]] = []  # (pattern, fault, seconds): the next line with it gets it
        self.pull = False  # a line asked for the cable to be pulled (Faults.unplug)

    def feed(self, data: bytes, now: float) -> None:
        data = self.partial + data
        lines = data.split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            self._line(line + b"\n", now)
        if not self.faults.any() and not self.once and self.partial:
            self._emit(self.partial, now)  # no faults: pass bytes through at once
            self.partial = b""

    def _emit(self, data: bytes, now: float) -> None:
        release = now
        if self.out:
            release = max(release, self.out[-1][0])  # never reorder
        self.out.append((release, data))

    def _line(self, line: bytes, now: float) -> None:
        f = self.faults
        rng = self.rng
        s = self.stats
        s.lines += 1
        for i, (pattern, fault, seconds) in enumerate(self.once):
            if pattern in line:
                del self.once[i]
                self._fault(line, fault, now, seconds)
                return
        if f.unplug and rng.random() < f.unplug:  # (no draw without: the old seeds' lines stay the same)
            s.unplugs += 1
            self.pull = True
            return
        if rng.random() < f.garbage:
            s.garbage += 1
            if rng.random() < 0.5:
                junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
            else:
                junk = bytes(rng.randrange(0x20, 0x7F) for _ in range(rng.randrange(1, 80)))
            self._emit(junk.replace(b"\n", b"") + b"\n", now)
        if rng.random() < f.drop:
            s.dropped += 1
            return
        if rng.random() < f.corrupt and len(line) > 1:
            s.corrupted += 1
            b = bytearray(line)
            i = rng.randrange(len(b) - 1)
            b[i] = rng.choice([c for c in range(0x20, 0x7F) if c != b[i]])
            line = bytes(b)
        if rng.random() < f.cut and len(line) > 2:
            s.cut += 1
            line = line[: rng.randrange(1, len(line) - 1)]
        if rng.random() < f.delay:
            s.delayed += 1
            now += rng.random() * f.max_delay_s
        self._emit(line, now)
        if rng.random() < f.duplicate:
            s.duplicated += 1
            self._emit(line, now)

    def _fault(self, line: bytes, fault: str, now: float, seconds: float = 0.0) -> None:
        s = self.stats
        if fault == "delay":  # this line and (in order) every one after it wait
            s.delayed += 1
            self._emit(line, now + seconds)
        elif fault == "drop":
            s.dropped += 1
        elif fault == "duplicate":
            s.duplicated += 1
            self._emit(line, now)
            self._emit(line, now)
        elif fault == "corrupt":  # one byte of the checksum changed: only the CRC can tell
            s.corrupted += 1
            b = bytearray(line)
            i = line.rfind(b"*") + 1
            b[i] = ord("0") if b[i] != ord("0") else ord("1")
            self._emit(bytes(b), now)
        else:
            raise ValueError("fault %r: expected drop, duplicate, corrupt or delay" % fault)

    def due(self, now: float) -> bytes:
        out = []
        while self.out and self.out[0][0] <= now:
            out.append(self.out.pop(0)[1])
        return b"".join(out)


class Frame(NamedTuple):
    """A frame the board wrote, as the tap saw it (before any fault)."""

    time: float
    seq: int
    verb: str
    body: str


class _Tap:
    """Decodes what the board writes; ``frames`` grows, ``cond`` is notified."""

    def __init__(self) -> None:
        self.asm = codec.LineAssembler()
        self.frames: list[Frame] = []
        self.bytes = 0
        self.cond = threading.Condition()

    def feed(self, data: bytes, now: float) -> None:
        self.bytes += len(data)
        new = []
        pos = 0
        while pos < len(data):
            pos = self.asm.push(data, pos, len(data))
            if self.asm.ready == codec.LINE:
                try:
                    seq, verb, body, _ = codec.decode(self.asm.line())
                except codec.FrameError:
                    continue  # console text (a traceback) or a line the board never sent whole
                new.append(Frame(now, seq, verb, body))
        if new:
            with self.cond:
                self.frames.extend(new)
                self.cond.notify_all()


def _pty() -> tuple[int, int, str]:
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    return master, slave, os.ttyname(slave)


def _open_tty(path: str) -> int:
    """The other end of an existing pty (the virtual board's link), raw and non-blocking."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    tty.setraw(fd)
    return fd


class Relay:
    """A host pty and a thread between it and the board. ``to_host`` / ``to_board`` are
    the Faults. ``board_path``: the board's pty to join (the virtual board's
    ``port_path``); without it the relay makes a pty pair for the board too (for
    ``TestBoard``, which opens ``relay.board_path`` itself)."""

    def __init__(self, seed: int = 1, board_path: str | None = None) -> None:
        rng = random.Random(seed)
        self.to_host = Faults()
        self.to_board = Faults()
        self._up = _Direction(self.to_host, rng)  # board -> host
        self._down = _Direction(self.to_board, rng)  # host -> board
        self.tap = _Tap()
        if board_path is None:
            self.board_fd, self._board_other, self.board_path = _pty()
        else:
            self.board_fd, self._board_other, self.board_path = _open_tty(board_path), -1, board_path
        self.host_master, self._host_slave, self.host_path = _pty()
        self.plugged = True
        self._replug_at: float | None = None  # a pull by Faults.unplug ends then
        self.read_board = True  # False: the board's output backs up in its pty
        self.generation = 0  # counts hard unplugs (new host pty each time)
        self._lock = threading.Lock()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="relay", daemon=True)
        self._thread.start()

    @property
    def stats_up(self) -> RelayStats:
        return self._up.stats

    @property
    def stats_down(self) -> RelayStats:
        return self._down.stats

    def set_faults(self, to_host: Faults, to_board: Faults) -> None:
        with self._lock:
            self._up.faults = self.to_host = to_host
            self._down.faults = self.to_board = to_board

    def unplug(self, hard: bool = False) -> None:
        """The cable is pulled: nothing passes. ``hard``: the host's device vanishes too
        (its reads fail) and comes back under a new path on ``replug``."""
        with self._lock:
            self.plugged = False
            self._up.out.clear()
            self._down.out.clear()
            self._up.partial = self._down.partial = b""
            if hard:
                for fd in (self.host_master, self._host_slave):
                    with contextlib.suppress(OSError):
                        os.close(fd)
                self.host_master = -1

    def _pull(self, now: float, seconds: float) -> None:
        """A soft unplug from the relay thread (lock held) that ends by itself."""
        self.plugged = False
        self._up.out.clear()
        self._down.out.clear()
        self._up.partial = self._down.partial = b""
        self._replug_at = now + seconds

    def replug(self) -> None:
        with self._lock:
            if self.host_master < 0:
                self.host_master, self._host_slave, self.host_path = _pty()
                self.generation += 1
            else:
                termios.tcflush(self._host_slave, termios.TCIFLUSH)  # nothing stale
            self.plugged = True

    def fault_next(self, direction: str, pattern: bytes, fault: str, seconds: float = 0.0) -> None:
        """The next line going ``direction`` ("up": to the host, "down": to the board)
        that contains ``pattern`` is dropped, duplicated, corrupted or delayed by
        ``seconds`` (the lines after it wait behind it: a line never overtakes another)."""
        if fault not in ("drop", "duplicate", "corrupt", "delay"):
            raise ValueError("fault %r: expected drop, duplicate, corrupt or delay" % fault)
        side = {"up": self._up, "down": self._down}.get(direction)
        if side is None:
            raise ValueError("direction %r: expected up or down" % direction)
        with self._lock:
            side.once.append((pattern, fault, seconds))

    def pending_faults(self) -> int:
        with self._lock:
            return len(self._up.once) + len(self._down.once)

    # -- the tap ------------------------------------------------------------------------
    def mark(self) -> int:
        """A frame index: ``frames(since=mark)`` / ``wait_frame(..., since=mark)`` look only later."""
        with self.tap.cond:
            return len(self.tap.frames)

    def frames(self, verb: str | None = None, since: int = 0) -> list[Frame]:
        with self.tap.cond:
            return [f for f in self.tap.frames[since:] if verb is None or f.verb == verb]

    def wait_frame(self, predicate: Any, timeout: float = WAIT_S, since: int = 0) -> Frame:
        """The first frame the board wrote (from ``since`` on) that satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        i = since
        with self.tap.cond:
            while True:
                frames = self.tap.frames
                while i < len(frames):
                    if predicate(frames[i]):
                        return frames[i]
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("the board wrote no such frame in %.1f s" % timeout)
                self.tap.cond.wait(left)

    # -- life cycle ----------------------------------------------------------------------
    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        for fd in (self.board_fd, self._board_other, self.host_master, self._host_slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def __enter__(self) -> Relay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, fd: int, data: bytes) -> None:
        try:
            os.write(fd, data)
        except OSError as exc:  # full (nobody reading) or gone: dropped, as USB would
            if exc.errno not in (errno.EAGAIN, errno.EIO, errno.EBADF):
                raise

    def _run(self) -> None:
        while not self._stop:
            with self._lock:
                fds = []
                if self.read_board:
                    fds.append(self.board_fd)
                if self.host_master >= 0:
                    fds.append(self.host_master)
            try:
                ready, _, _ = select.select(fds, [], [], 0.005)
            except (OSError, ValueError):
                continue
            now = time.monotonic()
            with self._lock:
                for fd in ready:
                    try:
                        data = os.read(fd, 65536)
                    except OSError:
                        continue  # EIO: nobody on the other side (a board between restarts)
                    if fd == self.board_fd:
                        self.tap.feed(data, now)
                        if self.plugged:
                            self._up.feed(data, now)
                        else:
                            self._up.stats.lost_unplugged += 1
                    elif fd == self.host_master and self.plugged:
                        self._down.feed(data, now)
                for side in (self._up, self._down):
                    if side.pull:
                        side.pull = False
                        if self.plugged:
                            self._pull(now, side.faults.unplug_s)
                if self._replug_at is not None and now >= self._replug_at:
                    self._replug_at = None
                    self.plugged = True
                up = self._up.due(now)
                if up and self.plugged and self.host_master >= 0:
                    self._write(self.host_master, up)
                down = self._down.due(now)
                if down and self.plugged:
                    self._write(self.board_fd, down)


# -- the board's truth: its journal on flash ---------------------------------------------

# Reads the newest game of each image path given on stdin (one a line) and prints it as
# JSON: one MicroPython process serves a whole test (start-up is the slow part).
_JOURNAL_READ = """
import sys, json, vfs
from zuni_hw.virtual import mount_flash
from zuni_board import flashboot, flashlog
from zuni_board.journal import Journal
blocks = int(sys.argv[1])
while True:
    path = sys.stdin.readline().strip()
    if not path:
        break
    dev = mount_flash(path, "/flash", blocks)
    try:
        # What waits in the journal's flash log into the game files first, as at boot.
        reserved = flashboot.reserved("/flash")
        if reserved:
            flashboot.replay("/flash", flashlog.FlashLog(dev, reserved))
        found = Journal("/flash").resume()
        if found is not None:
            found = (found[0], found[1], list(found[2]), found[3])  # its Texts as a list for JSON
    finally:
        vfs.umount("/flash")
    print("JOURNAL " + json.dumps(found))
"""

_JOURNAL_WRITE = """
import sys, json
from zuni_hw.virtual import mount_flash
from zuni_board.journal import Journal
mount_flash(sys.argv[1], "/flash", int(sys.argv[2]))
data = json.loads(sys.stdin.read())
j = Journal("/flash")
j.start(data["ruleset"])
i = 0
for text in data["moves"]:
    j.move(i, text)
    i += 1
print("JOURNAL " + j.game_id)
"""


def _micropython(script: str, *args: str, stdin: str = "") -> str:
    with tempfile.TemporaryDirectory(prefix="zuni-journal-") as tmp:
        path = Path(tmp) / "journal_tool.py"
        path.write_text(script)
        result = subprocess.run(
            micropython_command(path, *args),
            input=stdin,
            env=micropython_env(),
            capture_output=True,
            text=True,
            timeout=30,
        )
    for line in result.stdout.splitlines():
        if line.startswith("JOURNAL "):
            return line[len("JOURNAL ") :]
    raise RuntimeError("journal tool failed (status %d): %s%s" % (result.returncode, result.stdout, result.stderr))


class Truth(NamedTuple):
    """The board's game as its flash journal has it."""

    game: str
    ruleset: str
    moves: list[str]
    digest: str


def digest_of(game: str, moves: list[str]) -> str:
    """The protocol's game digest (docs/protocol.md) of ``moves`` in game ``game``."""
    d = codec.digest_seed(game)
    for text in moves:
        d = codec.digest_step(d, text)
    return str(codec.hex8(d))


class JournalReader:
    """The newest game in a flash image, read by the firmware's Journal under MicroPython.

    It reads a copy of the image, so a board running on it is not disturbed
    (Journal.resume may repair a torn tail, which writes). ``read(flash)`` -> Truth."""

    def __init__(self, blocks: int = 64) -> None:
        self._tmp = Path(tempfile.mkdtemp(prefix="zuni-journal-"))
        script = self._tmp / "journal_read.py"
        script.write_text(_JOURNAL_READ)
        self.proc = subprocess.Popen(
            micropython_command(script, str(blocks)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=micropython_env(),
            text=True,
            bufsize=1,
        )

    def read(self, flash: Path | str) -> Truth:
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        copy = self._tmp / "flash.img"
        shutil.copyfile(flash, copy)
        proc.stdin.write("%s\n" % copy)
        proc.stdin.flush()
        seen: list[str] = []
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError("the journal reader died: %s" % "".join(seen))
            if line.startswith("JOURNAL "):
                break
            seen.append(line)
        found = json.loads(line[len("JOURNAL ") :])
        if found is None:
            raise RuntimeError("no game in the journal of %s" % flash)
        game, ruleset, moves, _end = found
        return Truth(game, ruleset, moves, digest_of(game, moves))

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self._tmp, ignore_errors=True)


def journal(flash: Path | str, blocks: int = 64) -> Truth:
    """The newest game in a flash image (one-off; ``JournalReader`` for many reads)."""
    reader = JournalReader(blocks)
    try:
        return reader.read(flash)
    finally:
        reader.close()


def write_journal(flash: Path | str, ruleset: str, moves: list[str], blocks: int = 64) -> str:
    """Start a game in a flash image (made if missing) with these moves, as the board's own
    Journal writes them when they are committed; returns the game id. The firmware checks
    every move with the rules engine when it resumes the game."""
    return _micropython(_JOURNAL_WRITE, str(flash), str(blocks), stdin=json.dumps({"ruleset": ruleset, "moves": moves}))


def long_game(ruleset: str, length: int, seed: int = 0) -> list[str]:
    """``length`` legal moves of ``ruleset`` with the game still going: each side picks a
    move after which the other has no capture, where there is one. Use a ruleset with a
    large ``quiet=`` so that the no-capture rule does not end it."""
    for attempt in range(50):
        rnd = random.Random(seed * 1000 + attempt)
        game = zuni.new_game(ruleset)
        texts: list[str] = []
        while len(texts) < length:
            moves = game.legal_moves()
            if not moves:
                break
            safe = []
            for m in moves:
                game.push(m)
                if not game.is_game_over() and not any(x.captures for x in game.legal_moves()):
                    safe.append(m)
                game.pop()
            move = rnd.choice(safe or moves)
            game.push(move)
            if game.is_game_over():
                break
            texts.append(move.text())
        if len(texts) == length:
            return texts
    raise RuntimeError("no %d-move game of %s found" % (length, ruleset))


# -- the real firmware with a hand ------------------------------------------------------


def fast_layout(name: str, directory: Path) -> Path:
    """A copy of layout ``name`` with FAST_TIMING, written in ``directory``."""
    data = json.loads((HARDWARE_DIR / "layouts" / (name + ".json")).read_text())
    data["timing"] = dict(FAST_TIMING)
    path = directory / (name + "-fast.json")
    path.write_text(json.dumps(data))
    return path


def occupied_points(game: Any) -> set[str]:
    names = game.geometry.names
    occ = game.occupancy()
    return {str(names[i]) for i in range(len(names)) if occ[i]}


class FirmwareBoard:
    """The real firmware on a virtual board, its link behind a ``Relay``, and a player.

    ``game`` is the player's view of the board's game (the moves the board committed,
    as the tap saw them). ``play(n)`` makes n moves with the hand and, with ``wait``,
    waits for each commit on the tap; ``truth()`` is the game on the board's flash."""

    def __init__(
        self,
        directory: Path,
        ruleset: str = "mosona",
        layout: str = "board25",
        fast: bool = True,
        seed: int = 7,
        flash: Path | None = None,
        relay_seed: int = 7,
        pieces: str | set[str] = "start",
        link_ms: tuple[int, int, int] | None = None,
    ) -> None:
        self.directory = directory
        self.link_ms = link_ms  # the firmware link's (resend, beat, host timeout); None: its own
        self.layout_path = fast_layout(layout, directory) if fast else HARDWARE_DIR / "layouts" / (layout + ".json")
        self.flash = flash or directory / "flash.img"
        self.rng = random.Random(seed)
        self.vb = sim.VirtualBoard(self.layout_path, ruleset, pieces=pieces, flash=self.flash, link_ms=link_ms)
        self.relay: Relay | None = None
        self._reader: JournalReader | None = None
        self.hand = sim.Hand(self.vb, seed=seed, speed=3.0)
        self.game = zuni.new_game(ruleset)
        self.vb.start()
        try:
            self.relay = Relay(seed=relay_seed, board_path=self.vb.port_path)
            # The firmware reports its first stable position stable_ms after it starts:
            # moves are made only once the app has seen the pieces.
            self.vb.wait_stable(set(self.vb.occupied), 10)
        except BaseException:
            self.close()
            raise

    @property
    def link_relay(self) -> Relay:
        assert self.relay is not None
        return self.relay

    # -- moves ---------------------------------------------------------------------------
    def choose(self, keep_going: bool = True) -> str:
        """A legal move whose result no other legal move shares (the board cannot commit
        a twin) and, with ``keep_going``, that does not end the game, where there is one."""
        game = self.game
        moves = game.legal_moves()
        if not moves:
            raise RuntimeError("the game is over: %s" % (game.outcome(),))
        results: dict[bytes, int] = {}
        after: list[tuple[Any, bytes, bool]] = []
        for m in moves:
            game.push(m)
            key = bytes(game.occupancy())
            after.append((m, key, game.is_game_over()))
            game.pop()
            results[key] = results.get(key, 0) + 1
        good = [m for m, key, over in after if results[key] == 1 and not (over and keep_going)]
        unique = [m for m, key, _ in after if results[key] == 1]
        pick = self.rng.choice(good or unique or moves)
        return str(pick.text())

    def carry_out(self, text: str, wait: bool = True, timeout: float = WAIT_S) -> str:
        """The hand makes move ``text`` (a host move or the player's own); with ``wait``,
        returns once the board has sent it (its committed text)."""
        relay = self.link_relay
        index = len(self.game.move_stack)
        mark = relay.mark()
        self.hand.play(self.game, text)
        self.game.push_text(text)
        self.vb.wait_stable(occupied_points(self.game), timeout)
        if not wait:
            return text
        frame = relay.wait_frame(lambda f: f.verb == "move" and f.body.split(" ")[1] == str(index), timeout, mark)
        committed = str(codec.unesc(frame.body.split(" ")[2]))
        if committed != text:  # a twin with the same result (docs/board.md): the board's word counts
            self.game.pop()
            self.game.push_text(committed)
        return committed

    def play(self, n: int = 1, wait: bool = True) -> list[str]:
        """n moves of the player's own choosing; returns their texts."""
        return [self.carry_out(self.choose(), wait) for _ in range(n)]

    def back(self, timeout: float = WAIT_S) -> None:
        """BACK pressed, then the pieces put back as they were before the last move."""
        mark = self.link_relay.mark()
        self.vb.press("back")
        self.link_relay.wait_frame(lambda f: f.verb == "event" and f.body.startswith("takeback "), timeout, mark)
        self.game.pop()
        self.restore(timeout)

    def restore(self, timeout: float = WAIT_S) -> None:
        """Pieces back to ``game``'s position (after a take-back the board waits for it)."""
        want = occupied_points(self.game)
        self.vb.set_occupied(want)
        self.vb.wait_stable(want, timeout)

    def take_back_applied(self) -> None:
        """The host took the last move back: the player follows on the board."""
        self.game.pop()
        self.restore()

    def new_game(self, ruleset: str) -> None:
        """The host started a new game: the player sets up its start position."""
        self.game = zuni.new_game(ruleset)
        self.restore()

    # -- the board ------------------------------------------------------------------------
    def truth(self) -> Truth:
        """The board's game as its flash journal has it."""
        if self._reader is None:
            self._reader = JournalReader()
        return self._reader.read(self.flash)

    def wait_truth(self, moves: int, timeout: float = WAIT_S) -> Truth:
        """The journal once it holds ``moves`` moves (a board committing without a host)."""
        deadline = time.monotonic() + timeout
        while True:
            t = self.truth()
            if len(t.moves) >= moves or time.monotonic() > deadline:
                return t

    def stats(self) -> dict[str, Any]:
        """The firmware loop's figures (control channel): iterations, scans, busy time."""
        return dict(self.vb.command("stats?"))

    def restart(self, timeout: float = WAIT_S) -> None:
        """A board reset: power cycle with the same flash and the pieces where they are."""
        self.vb.restart()
        self.vb.wait_stable(occupied_points(self.game), timeout)

    def close(self) -> None:
        if self.relay is not None:
            self.relay.close()
        if self._reader is not None:
            self._reader.close()
        self.vb.close()

    def __enter__(self) -> FirmwareBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TestBoard:
    """tools/link_testboard.py under MicroPython on ``tty_path``; ``journal`` keeps its game."""

    __test__ = False  # not a pytest class

    def __init__(self, tty_path: str, journal: Path | str, ruleset: str = "mosona", heap: str = "512K") -> None:
        self.tty_path = tty_path
        self.journal = str(journal)
        self.ruleset = ruleset
        self.heap = heap
        self.proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str] = queue.Queue()
        self.boot = ""
        self.start()

    def start(self) -> None:
        script = TOOLS / "link_testboard.py"
        command = micropython_command(script, self.tty_path, self.journal, self.ruleset, heap=self.heap)
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=micropython_env(),
            text=True,
            bufsize=1,
        )
        self._lines = queue.Queue()
        threading.Thread(target=self._reader, args=(self.proc, self._lines), daemon=True).start()
        self.boot = self._expect("ready", WAIT_S).split()[1]

    @staticmethod
    def _reader(proc: subprocess.Popen[str], lines: queue.Queue[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put("EOF")

    def _expect(self, prefix: str, timeout: float = 5.0) -> str:
        deadline = time.monotonic() + timeout
        seen: list[str] = []
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(0.01, left))
            except queue.Empty:
                raise TimeoutError("board said no %r in %.1f s; it said %r" % (prefix, timeout, seen)) from None
            if line.startswith(prefix):
                return line
            seen.append(line)
            if line == "EOF":
                raise RuntimeError("the test board exited: %r" % seen)

    def send(self, command: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def play(self, n: int = 1) -> None:
        self.send("play %d" % n)

    def back(self) -> None:
        self.send("back")

    def dump(self) -> tuple[str, int, str, list[str]]:
        """(game, count, digest, moves) as the board has them."""
        self.send("dump")
        words = self._expect("moves ").split(" ")
        return words[1], int(words[2]), words[3], [w for w in words[4:] if w]

    def stats(self) -> dict[str, int]:
        self.send("stats")
        words = self._expect("stats ").split(" ")[1:]
        return {k: int(v) for k, v in (w.split("=") for w in words)}

    def wait_idle(self, timeout: float = 2 * WAIT_S) -> None:
        """Until the board has played every move it was told to."""
        deadline = time.monotonic() + timeout
        while self.stats()["playing"]:
            if time.monotonic() > deadline:
                raise TimeoutError("the board is still playing")
            time.sleep(0.02)

    def kill(self) -> None:
        """Power off: no goodbye."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)

    def restart(self) -> None:
        """A board reset: the process dies and starts again on the same pty and journal."""
        self.kill()
        self.start()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                self.send("quit")
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> TestBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
