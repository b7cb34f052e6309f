"""Test rig for the board link (CPython): a fault-injecting pty relay and a stand-in board.

Used by tests/test_link_e2e.py and tools/bench_link.py::

    with Relay() as relay, TestBoard(relay.board_path, tmp / "journal") as board:
        link = BoardLink(relay.host_path) ...

``Relay`` joins two pseudo-terminals: the board opens ``board_path``, the host
``host_path``; a thread copies lines between them and can drop, corrupt, cut,
duplicate, delay (in order) and invent lines (``Faults``), unplug the host side, or stop
reading the board (the board's writes then back up, as when a PC holds the port open
without reading). ``TestBoard`` runs tools/link_testboard.py under the MicroPython unix
port and drives it through its stdin control channel.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import random
import select
import subprocess
import termios
import threading
import time
import tty
from dataclasses import dataclass
from pathlib import Path

from zuniboard.mpy import micropython_command, micropython_env

TOOLS = Path(__file__).resolve().parent


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

    def any(self) -> bool:
        return any((self.drop, self.corrupt, self.cut, self.duplicate, self.delay, self.garbage))


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


class _Direction:
    def __init__(self, faults: Faults, rng: random.Random) -> None:
        self.faults = faults
        self.rng = rng
        self.partial = b""
        self.out: list[tuple[float, bytes]] = []  # (release time, bytes), in order
        self.stats = RelayStats()

    def feed(self, data: bytes, now: float) -> None:
        data = self.partial + data
        lines = data.split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            self._line(line + b"\n", now)
        if not self.faults.any() and self.partial:
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

    def due(self, now: float) -> bytes:
        out = []
        while self.out and self.out[0][0] <= now:
            out.append(self.out.pop(0)[1])
        return b"".join(out)


def _pty() -> tuple[int, int, str]:
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    return master, slave, os.ttyname(slave)


class Relay:
    """Two ptys and a thread between them. ``to_host`` / ``to_board`` are the Faults."""

    def __init__(self, seed: int = 1) -> None:
        rng = random.Random(seed)
        self.to_host = Faults()
        self.to_board = Faults()
        self._up = _Direction(self.to_host, rng)  # board -> host
        self._down = _Direction(self.to_board, rng)  # host -> board
        self.board_master, self._board_slave, self.board_path = _pty()
        self.host_master, self._host_slave, self.host_path = _pty()
        self.plugged = True
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

    def replug(self) -> None:
        with self._lock:
            if self.host_master < 0:
                self.host_master, self._host_slave, self.host_path = _pty()
                self.generation += 1
            else:
                termios.tcflush(self._host_slave, termios.TCIFLUSH)  # nothing stale
            self.plugged = True

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        for fd in (self.board_master, self._board_slave, self.host_master, self._host_slave):
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
                    fds.append(self.board_master)
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
                        continue  # EIO: nobody on the slave side
                    if fd == self.board_master:
                        if self.plugged:
                            self._up.feed(data, now)
                        else:
                            self._up.stats.lost_unplugged += 1
                    elif fd == self.host_master and self.plugged:
                        self._down.feed(data, now)
                up = self._up.due(now)
                if up and self.plugged and self.host_master >= 0:
                    self._write(self.host_master, up)
                down = self._down.due(now)
                if down and self.plugged:
                    self._write(self.board_master, down)


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
        self.boot = self._expect("ready", 10.0).split()[1]

    @staticmethod
    def _reader(proc: subprocess.Popen[str], lines: queue.Queue[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put("EOF")

    def _expect(self, prefix: str, timeout: float = 5.0) -> str:
        deadline = time.monotonic() + timeout
        seen = []
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

    def wait_idle(self, timeout: float = 20.0) -> None:
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
