"""A client of the virtual board's control channel, for the browser page's server.

The channel (``firmware/lib/zuni_hw/virtual.py``): TCP on 127.0.0.1, one command per
line, one JSON object per line back: replies in the order of the commands, and events
pushed at any time (``hello``, ``sensors``, ``stable``, ``leds``). This client keeps the
latest of each event and calls ``on_change`` from its reader thread, so the page
follows the board without polling.

>>> client = ControlClient.connect(port)
>>> client.command("lift m5")
{'reply': 'lift', 'ok': True}
>>> client.occupied, client.frame[:12]
(['m1', ...], '000000ff0000')
"""

from __future__ import annotations

import json
import queue
import socket
import threading
from collections.abc import Callable
from typing import Any

REPLY_TIMEOUT_S = 5.0


class ControlError(RuntimeError):
    """The board refused a command (the message is the board's) or did not answer."""


class ControlClient:
    def __init__(
        self, sock: socket.socket, on_change: Callable[[str], None] | None = None, timeout: float = REPLY_TIMEOUT_S
    ) -> None:
        self.sock = sock
        self.on_change = on_change
        self.points: list[str] = []
        self.layout = ""
        self.occupied: list[str] = []
        self.stable: list[str] | None = None
        self.frame = ""
        # The board application's state (phase, turn, moves, result, error) where the
        # firmware's control channel reports it (a "state" event, or the reply to
        # "state?"); None where it does not.
        self.status: dict[str, Any] | None = None
        self.closed = False
        self._replies: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._send_lock = threading.Lock()
        self._hello = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, name="zuni-web-control", daemon=True)
        self._reader.start()
        if not self._hello.wait(timeout):
            self.close()
            raise ControlError("the virtual board's control channel sent no hello within %.1f s" % timeout)

    @classmethod
    def connect(
        cls,
        port: int,
        host: str = "127.0.0.1",
        on_change: Callable[[str], None] | None = None,
        timeout: float = REPLY_TIMEOUT_S,
    ) -> ControlClient:
        """Connect and wait for the board's hello (``timeout`` seconds for each)."""
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise ControlError("cannot reach the virtual board's control channel at %s:%d: %s" % (host, port, exc))
        sock.settimeout(None)
        client = cls(sock, on_change, timeout)
        try:
            reply = client.command("state?")
        except ControlError:
            pass  # a firmware whose control channel does not report the app's state
        else:
            client.status = {k: v for k, v in reply.items() if k not in ("reply", "ok")}
        return client

    def close(self) -> None:
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    # -- commands -----------------------------------------------------------------
    def command(self, line: str) -> dict[str, Any]:
        """Send one command line and return its reply; ControlError if the board refuses it."""
        with self._send_lock:
            if self.closed:
                raise ControlError("the control channel is closed (%s)" % line)
            try:
                self.sock.sendall((line + "\n").encode())
            except OSError as exc:
                raise ControlError("%s: the control channel failed: %s" % (line, exc))
            try:
                reply = self._replies.get(timeout=REPLY_TIMEOUT_S)
            except queue.Empty:
                raise ControlError("%s: the virtual board did not answer within %.0f s" % (line, REPLY_TIMEOUT_S))
        if reply is None:
            raise ControlError("%s: the virtual board closed the control channel" % line)
        if not reply.get("ok"):
            raise ControlError(str(reply.get("error", "refused: %s" % line)))
        return reply

    # -- events -------------------------------------------------------------------
    def _read_loop(self) -> None:
        buf = b""
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        self._handle(json.loads(line))
        except (OSError, ValueError):
            pass
        finally:
            self.closed = True
            self._replies.put(None)
            if self.on_change is not None:
                self.on_change("closed")

    def _handle(self, msg: dict[str, Any]) -> None:
        if "reply" in msg:
            self._replies.put(msg)
            return
        event = str(msg.get("event", ""))
        if event == "hello":
            self.layout = str(msg.get("layout", ""))
            self.points = list(msg.get("points", []))
            self.occupied = list(msg.get("occupied", []))
            self.frame = str(msg.get("frame", ""))
            self._hello.set()
        elif event == "sensors":
            self.occupied = list(msg.get("occupied", []))
        elif event == "stable":
            self.stable = list(msg.get("occupied") or [])
        elif event == "leds":
            self.frame = str(msg.get("frame", ""))
        elif event == "state":
            self.status = {k: v for k, v in msg.items() if k != "event"}
        if self.on_change is not None:
            self.on_change(event)
