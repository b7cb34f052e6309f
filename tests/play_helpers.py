"""Helpers of the `zuni play` tests: the command as a subprocess driven through its
stdin and stdout, and a recording UI for the session in process."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ZUNI = Path(sys.executable).parent / "zuni"


def sigint_default() -> None:
    """A child's Ctrl-C as a terminal's: SIGINT unblocked and at its default. A test
    worker may run with SIGINT ignored or blocked (both are inherited through exec),
    and a zuni started from it then never sees the test's SIGINT (its main thread was
    found asleep in its loop, with no KeyboardInterrupt raised)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class ZuniPlay:
    """``zuni play ARGS`` as a subprocess: ``send(key)``, ``expect(regex)`` on its output."""

    def __init__(
        self, *args: str, db: Path, timeout: float = 60.0, tty: bool = False, env: dict[str, str] | None = None
    ) -> None:
        env = dict(os.environ, **(env or {}))
        env["NO_COLOR"] = "1"
        env["PYTHONUNBUFFERED"] = "1"
        env["PYTHONFAULTHANDLER"] = "1"  # a stuck process's stacks on SIGABRT (wait)
        # The page on any free port: parallel tests do not take turns on 8765 (the default).
        self.command = [str(ZUNI), "play", "--db", str(db), "--color", "never", "--http", "0", *args]
        # tty: standard input is a terminal (keys act without Enter); else a pipe.
        self.tty_master = self.tty_slave = -1
        stdin: int = subprocess.PIPE
        if tty:
            self.tty_master, self.tty_slave = os.openpty()
            stdin = self.tty_slave
        self.proc = subprocess.Popen(
            self.command,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            env=env,
            cwd=REPO,
            preexec_fn=sigint_default,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.timeout = timeout
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put("\0EOF")

    def send(self, text: str) -> None:
        if self.tty_master >= 0:
            os.write(self.tty_master, text.encode())
            return
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def expect(self, pattern: str, timeout: float | None = None) -> re.Match[str]:
        """Waits for an output line matching ``pattern`` (re.search); returns the match."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(0.01, left))
            except queue.Empty:
                raise AssertionError(
                    "no line matching %r within %.0f s; last output:\n%s"
                    % (pattern, timeout or self.timeout, self.tail())
                ) from None
            if line == "\0EOF":
                raise AssertionError(
                    "zuni play exited (%s) before %r; output:\n%s" % (self.proc.poll(), pattern, self.tail())
                )
            self.seen.append(line)
            match = regex.search(line)
            if match:
                return match

    def tail(self, n: int = 60) -> str:
        return "\n".join(self.seen[-n:])

    def interrupt(self) -> None:
        self.proc.send_signal(signal.SIGINT)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)

    def wait(self, timeout: float = 60.0) -> int:  # generous: a clean exit under load
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            # A stuck exit: SIGABRT makes faulthandler (PYTHONFAULTHANDLER) print every
            # thread's stack, so the failure says where it hangs.
            self.proc.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)
            time.sleep(0.5)
            raise AssertionError("no exit within %.0f s; the stacks and the output:\n%s" % (timeout, self.tail(120)))
        # Collect what is left of the output.
        with contextlib.suppress(queue.Empty):
            while True:
                line = self.lines.get(timeout=0.5)
                if line == "\0EOF":
                    break
                self.seen.append(line)
        return code

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()  # clean first: zuni play stops its virtual board
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for fd in (self.tty_master, self.tty_slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.tty_master = self.tty_slave = -1


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]|\r")


class ZuniReplay(ZuniPlay):
    """``zuni log replay ARGS`` as a subprocess (ZuniPlay's send and expect)."""

    def __init__(self, *args: str, db: Path, env: dict[str, str]) -> None:
        self.command = [str(ZUNI), "log", "replay", "--db", str(db), "--color", "never", "--http", "0", *args]
        self.tty_master = self.tty_slave = -1
        self.proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            env=dict(os.environ, NO_COLOR="1", PYTHONUNBUFFERED="1", **env),
            cwd=REPO,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.timeout = 30.0
        threading.Thread(target=self._read, daemon=True).start()


class TtyPlay:
    """``zuni play ARGS`` on a pseudo-terminal (standard input, output and error), as a
    person runs it: the line editor is on. ``type(line)`` types a line and Enter;
    ``expect(regex)`` waits for it in the output, escape codes stripped, and consumes
    the output up to the match."""

    def __init__(
        self,
        *args: str,
        db: Path,
        timeout: float = 60.0,
        env: dict[str, str] | None = None,
        command: tuple[str, ...] = ("play",),
    ) -> None:
        env = dict(os.environ, **(env or {}))
        env.update({"NO_COLOR": "1", "PYTHONUNBUFFERED": "1", "TERM": "xterm", "COLUMNS": "120", "LINES": "50"})
        env["PROMPT_TOOLKIT_NO_CPR"] = "1"  # the test answers no cursor position requests
        # The page on any free port: parallel tests do not take turns on 8765 (the default).
        self.command = [str(ZUNI), *command, "--db", str(db), "--color", "never", "--http", "0", *args]
        self.master, slave = os.openpty()
        import fcntl
        import struct
        import termios

        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
        self.proc = subprocess.Popen(
            self.command, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=REPO, start_new_session=True
        )
        os.close(slave)
        self.text = ""
        self.all = ""
        self.lock = threading.Condition()
        self.timeout = timeout
        self.done = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                data = b""
            with self.lock:
                if not data:
                    self.done = True
                    self.lock.notify_all()
                    return
                clean = ANSI.sub("", data.decode("utf-8", "replace"))
                self.text += clean
                self.all += clean
                self.lock.notify_all()

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def keys(self, raw: str) -> None:
        os.write(self.master, raw.encode())

    def expect(self, pattern: str, timeout: float | None = None) -> re.Match[str]:
        regex = re.compile(pattern, re.M)
        deadline = time.monotonic() + (timeout or self.timeout)
        with self.lock:
            while True:
                match = regex.search(self.text)
                if match:
                    self.text = self.text[match.end() :]
                    return match
                left = deadline - time.monotonic()
                if left <= 0 or self.done:
                    raise AssertionError(
                        "no %r within %.0f s (exited: %s); last output:\n%s"
                        % (pattern, timeout or self.timeout, self.proc.poll(), self.all[-3000:])
                    )
                self.lock.wait(min(left, 0.2))

    def wait(self, timeout: float = 60.0) -> int:  # generous: a clean exit under load
        return self.proc.wait(timeout=timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        with contextlib.suppress(OSError):
            os.close(self.master)


class RecordingUI:
    """The session's reports, kept for assertions."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, str]] = []
        self.positions = 0
        self.progress: list[Any] = []
        self.lock = threading.Lock()

    def message(self, kind: str, text: str) -> None:
        with self.lock:
            self.messages.append((kind, text))

    def position(self, session: Any) -> None:
        self.positions += 1

    def thinking(self, side: str, info: Any) -> None:
        if info is not None:
            self.progress.append(info)

    def texts(self, kind: str | None = None) -> list[str]:
        return [t for k, t in self.messages if kind is None or k == kind]

    def find(self, pattern: str, kind: str | None = None) -> re.Match[str] | None:
        regex = re.compile(pattern)
        for text in self.texts(kind):
            match = regex.search(text)
            if match:
                return match
        return None


def zuni(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ZUNI), *args], capture_output=True, text=True, timeout=timeout, cwd=REPO)
