"""The virtual board's firmware as an operating-system process: ``FirmwareProcess``.

It starts the command ``zuniboard.virtual.mpy.board_command`` made (MicroPython's unix
port, or CPython), in its own session so that a Ctrl-C in the terminal is the host's,
with its output in a log file; it kills it as a power cut does (no clean exit) and says
whether it still runs and what its log ends with (what tells a hung firmware from a dead
one when a wait runs out).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path
from typing import Any

from zuniboard.virtual.mpy import micropython_env


class FirmwareProcess:
    """One firmware process at a time, logging to ``log_path`` (appended across starts)."""

    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def spawn(self, command: list[str], pass_fds: tuple[int, ...]) -> None:
        """Starts ``command``, handing it the file descriptors ``pass_fds`` (POSIX)."""
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

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def exit_status(self) -> int | None:
        """The exit status once it ended; None while it runs (or never started)."""
        return None if self.proc is None else self.proc.poll()

    def status(self) -> str:
        """ "not started", "running" or "exited with status N"."""
        proc = self.proc
        if proc is None:
            return "not started"
        if proc.poll() is None:
            return "running"
        return "exited with status %s" % proc.returncode

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def kill(self) -> None:
        """SIGKILL (TerminateProcess on Windows): a power cut, no clean exit."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        if proc is not None:
            proc.wait(timeout=10)
