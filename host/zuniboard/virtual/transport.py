"""The virtual board's link and lifeline: ``LinkEnds`` (the two transports of
``zuniboard.virtual.board``).

- ``pty``: a pseudo-terminal pair; the firmware gets the master fd (``link_mode`` "fd")
  or opens the slave by its path ("path"); the host opens the slave's path. The lifeline
  is the read end of a pipe whose write end only this process holds (not inheritable).
- ``socket``: the firmware serves the link on 127.0.0.1:PORT, the same port across
  restarts; the host opens ``socket://127.0.0.1:PORT``. The lifeline is a connection the
  firmware opens to this process's server, saying a token, which this process holds and
  never writes on (a pipe cannot be polled on Windows).

Either way the firmware exits when the lifeline hangs up: the board never outlives its host.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
import socket
import time

from zuniboard.virtual.errors import SimError
from zuniboard.virtual.process import FirmwareProcess

try:  # POSIX only: Windows has neither, and there the link is a socket
    import termios
    import tty
except ImportError:  # pragma: no cover - exercised by tests/e2e/test_sim_socket.py with them blocked
    termios = None  # type: ignore[assignment]
    tty = None  # type: ignore[assignment]

TRANSPORTS = ("pty", "socket")
HAVE_PTY = termios is not None and tty is not None and hasattr(os, "openpty")
LOOPBACK = "127.0.0.1"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (the firmware cannot report the one it got)."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        port: int = s.getsockname()[1]
        return port


class LinkEnds:
    """The link's and the lifeline's ends for one virtual board, kept across restarts."""

    def __init__(self, transport: str, link_mode: str) -> None:
        self.transport = transport
        self.link_mode = link_mode
        self.master = -1
        self.slave = -1
        self.link_port = 0  # socket transport: the link's port on 127.0.0.1 (kept across restarts)
        self.port_fixed = False  # the host's URL names link_port: it stays
        self.port_path = ""  # what the host opens: the pty's path, or socket://127.0.0.1:PORT
        self._lifeline_r = self._lifeline_w = -1
        self._lifeline_server: socket.socket | None = None
        self._lifeline_conn: socket.socket | None = None
        self._lifeline_token = secrets.token_hex(16)
        if transport == "pty":
            self._lifeline_r, self._lifeline_w = os.pipe()

    def open(self) -> None:
        """The pty, or the lifeline's server (once; a restart keeps them)."""
        if self.transport == "pty":
            if self.master < 0:
                self._open_pty()
        elif self._lifeline_server is None:
            server = socket.socket()
            server.bind((LOOPBACK, 0))
            server.listen(4)
            self._lifeline_server = server

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

    def firmware_args(self) -> tuple[list[str], tuple[int, ...]]:
        """The firmware's ``--link`` and ``--lifeline`` arguments, and the fds it inherits
        (socket transport: a new link port until the host's URL has named one)."""
        if self.transport == "socket":
            assert self._lifeline_server is not None
            if not self.port_fixed:
                self.link_port = free_port()
                self.port_path = "socket://%s:%d" % (LOOPBACK, self.link_port)
            lifeline_port = self._lifeline_server.getsockname()[1]
            args = ["--link", "tcp:%d" % self.link_port]
            return args + ["--lifeline", "tcp:%d:%s" % (lifeline_port, self._lifeline_token)], ()
        args = ["--lifeline", str(self._lifeline_r)]
        if self.link_mode == "fd":
            return args + ["--link", "fd:%d" % self.master], (self._lifeline_r, self.master)
        return args + ["--link", self.port_path], (self._lifeline_r,)

    def accept_lifeline(self, deadline: float, process: FirmwareProcess, timeout_s: float) -> None:
        """Takes the firmware's lifeline connection (socket transport; nothing on a pty):
        the first one on the lifeline port that says this board's token; others are closed."""
        server = self._lifeline_server
        if self.transport != "socket" or server is None:
            return
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SimError("the virtual board did not open its lifeline within %.0f s" % timeout_s)
            server.settimeout(min(left, 0.5))
            try:
                conn, _addr = server.accept()
            except OSError:  # timeout
                if not process.alive:
                    raise SimError(
                        "the virtual board exited (status %s):\n%s" % (process.exit_status(), process.log_tail())
                    ) from None
                continue
            if self._says_token(conn):
                conn.settimeout(None)
                self._lifeline_conn = conn
                return
            conn.close()  # someone else on this computer: not our board

    def _says_token(self, conn: socket.socket) -> bool:
        conn.settimeout(1.0)
        said = b""
        with contextlib.suppress(OSError):
            while not said.endswith(b"\n") and len(said) < 64:
                data = conn.recv(64)
                if not data:
                    break
                said += data
        return hmac.compare_digest(said.strip(), self._lifeline_token.encode())

    def hang_up(self) -> None:
        """Closes the lifeline's connection (the firmware was killed)."""
        conn, self._lifeline_conn = self._lifeline_conn, None
        if conn is not None:
            conn.close()

    def close(self) -> None:
        self.hang_up()
        for fd in (self.master, self.slave, self._lifeline_r, self._lifeline_w):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.master = self.slave = self._lifeline_r = self._lifeline_w = -1
        if self._lifeline_server is not None:
            self._lifeline_server.close()
            self._lifeline_server = None
