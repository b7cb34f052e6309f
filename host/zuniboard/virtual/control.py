"""The virtual board's control channel: ``ControlChannel``.

The firmware serves JSON lines on a TCP port of 127.0.0.1 (``zuni_hw.virtual``): this
side sends commands (lift, place, press, ``state?``, ...) and takes their replies, and a
reader thread keeps what the firmware pushes: every event in order (``events``, for
``wait_for``), and the latest sensors, stable position and LED frame.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from zuniboard.virtual.errors import SimError
from zuniboard.virtual.process import FirmwareProcess

Event = dict[str, Any]
RGB = tuple[int, int, int]
REPLY_TIMEOUT_S = 5.0
# How long the waits wait for the board by default: they return as soon as it happens,
# so a generous limit costs nothing, and a machine under load (the test suite beside
# other jobs on two cores) can take seconds for what takes milliseconds alone.
WAIT_TIMEOUT_S = 30.0


def parse_frame(hex_frame: str, names: Sequence[str]) -> dict[str, RGB]:
    data = bytes.fromhex(hex_frame)
    return {name: (data[3 * i], data[3 * i + 1], data[3 * i + 2]) for i, name in enumerate(names)}


class ControlChannel:
    """The connection to one firmware process's control port, and what it pushed."""

    def __init__(self, process: FirmwareProcess) -> None:
        self.process = process
        self.events: list[Event] = []
        self.names: list[str] = []
        self.occupied: set[str] = set()
        self.stable: set[str] | None = None
        self.frame: dict[str, RGB] = {}
        self._cond = threading.Condition()
        self._sock: socket.socket | None = None
        self._reader: threading.Thread | None = None
        self._replies: list[Event] = []
        self._mark = 0

    def connect(self, port: int, deadline: float, timeout_s: float) -> None:
        """Connects to the firmware's control ``port`` (retrying until ``deadline``, while
        the process runs) and waits for its hello (the board's point names)."""
        while True:
            if not self.process.alive:
                raise SimError(
                    "the virtual board exited (status %s):\n%s" % (self.process.exit_status(), self.process.log_tail())
                )
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=0.5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SimError("no control channel on port %d after %.0f s" % (port, timeout_s)) from None
                time.sleep(0.02)
        sock.settimeout(None)
        with self._cond:
            self._sock = sock
            self._replies = []
            since = len(self.events)
        self._reader = threading.Thread(target=self._read_events, args=(sock,), daemon=True, name="zuni-sim-control")
        self._reader.start()
        hello = self.wait_for(lambda e: e.get("event") == "hello", timeout_s, since=since)
        self.names = list(hello["points"])

    def disconnect(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if self._reader is not None:
            self._reader.join(timeout=5)
            self._reader = None

    def forget_view(self) -> None:
        """A power cut: no stable position, no LED frame until the firmware says them."""
        with self._cond:
            self.stable = None
            self.frame = {}

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

    def commands(self, lines: Sequence[str], timeout: float = REPLY_TIMEOUT_S, *, mark: bool = True) -> list[Event]:
        """Sends control lines in one write and returns their replies; SimError if one
        was refused. ``mark``: later waits look at the events from now on (a query that
        is not an action leaves the mark where it was)."""
        with self._cond:
            sock = self._sock
            if sock is None:
                raise SimError("the virtual board is not running")
            if mark:
                self._mark = len(self.events)
            sock.sendall("".join(line + "\n" for line in lines).encode())
            deadline = time.monotonic() + timeout
            while len(self._replies) < len(lines):
                left = deadline - time.monotonic()
                if left <= 0 or not self.process.alive:
                    what = lines[0] if len(lines) == 1 else lines
                    raise SimError("no reply to %r from the virtual board\n%s" % (what, self.process.log_tail()))
                self._cond.wait(min(left, 0.2))
            replies, self._replies = self._replies[: len(lines)], self._replies[len(lines) :]
        for reply in replies:
            if not reply.get("ok"):
                raise SimError(str(reply.get("error", reply)))
        return replies

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
                    raise self.timed_out(timeout, "an event from the virtual board")
                self._cond.wait(min(left, 0.2))

    def wait_until(self, condition: Callable[[], bool], timeout: float = WAIT_TIMEOUT_S) -> None:
        """Waits until ``condition()`` holds on the pushed state (stable, frame, ...)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not condition():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self.timed_out(timeout, "the virtual board")
                self._cond.wait(min(left, 0.2))

    def timed_out(self, timeout: float, what: str) -> SimError:
        """The error of a wait that ran out, with what tells a hung firmware from a slow
        one: whether its process still runs, the position it last reported, its log."""
        stable = "none" if self.stable is None else " ".join(sorted(self.stable)) or "empty"
        return SimError(
            "timed out after %.1f s waiting for %s (the firmware's process %s; the last stable position it"
            " reported: %s); the end of its log:\n%s"
            % (timeout, what, self.process.status(), stable, self.process.log_tail(15))
        )
