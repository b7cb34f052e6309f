"""The request layer of the board link: ``Requests`` numbers requests, sends each until
its reply comes and hands the reply to the caller's thread (docs/protocol.md,
"Sequence numbers").

A request is resent with the same ``seq`` every REQUEST_RESEND_S; the board does it once
(it remembers the last request of this host session) and answers a resend with a reply
made at that moment. A board reset forgets the request: so when the link registered
again since the request was last sent, ``done(state)`` asks the board's state first
whether it was done already, and a take-back names the history it takes the last move
of, which the board refuses (``stale``) once that history is gone.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import serial

from zuni_link import codec
from zuniboard.link.port import LinkError

REQUEST_RESEND_S = 0.5  # no reply to a request: send it again (the board does it once)

Done = Callable[[dict[str, str]], bool]


class BoardError(LinkError):
    """The board refused a request: ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__("board refused (%s): %s" % (code, message))
        self.code = code
        self.message = message


class Channel(Protocol):
    """What Requests needs of the link."""

    def write(self, data: bytes) -> None: ...

    def wait_connected(self, timeout: float) -> bool: ...

    def registrations(self) -> int:
        """Counts hello replies: another one since a send means the board may have forgotten it."""

    def reregister(self) -> None:
        """The board forgot this host (err hello): say hello again."""

    def state(self, timeout: float) -> dict[str, str]: ...


@dataclass
class _Waiter:
    event: threading.Event = field(default_factory=threading.Event)
    verb: str = ""
    body: str = ""


@dataclass
class RequestStats:
    resends: int = 0
    already_done: int = 0  # requests found done by the board (its state) before a resend


def reply_seq(body: str) -> tuple[int, str]:
    """``ok``/``err`` bodies start with the request's sequence number: (seq, the rest)."""
    head, _, rest = body.partition(" ")
    return codec.parse_index(head, "reply sequence number"), rest


class Requests:
    """Outstanding requests by sequence number; the host starts at a random one."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.stats = RequestStats()
        self._lock = threading.Lock()
        self._seq = random.randint(1, codec.MAX_SEQ)
        self._waiters: dict[int, _Waiter] = {}

    def next_seq(self) -> int:
        with self._lock:
            self._seq = codec.next_seq(self._seq)
            return self._seq

    def reply(self, re: int, verb: str, body: str) -> bool:
        """A reply came (from the port thread); True if a request waited for it."""
        with self._lock:
            waiter = self._waiters.get(re)
        if waiter is None or waiter.event.is_set():
            return False
        waiter.verb = verb
        waiter.body = body
        waiter.event.set()
        return True

    def request(self, verb: str, body: str, timeout: float, done: Done | None = None) -> tuple[str, str]:
        """Sends a request until its reply comes; (verb, body) of the reply. BoardError
        when the board refuses it, LinkError when no reply comes within ``timeout``."""
        channel = self.channel
        deadline = time.monotonic() + timeout
        seq = self.next_seq()
        waiter = _Waiter()
        with self._lock:
            self._waiters[seq] = waiter
        try:
            sent_in = -1  # the registration it was last sent in
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not channel.wait_connected(left):
                    raise LinkError("no reply to %s within %.1f s" % (verb, timeout))
                if sent_in >= 0:
                    self.stats.resends += 1
                    if done is not None and sent_in != channel.registrations():
                        state = channel.state(left)
                        if done(state):
                            self.stats.already_done += 1
                            return "ok", "%d %s" % (seq, _state_triple(state))
                if not waiter.event.is_set():  # (a reply may have come during the check)
                    sent_in = channel.registrations()
                    with contextlib.suppress(OSError, serial.SerialException, LinkError):
                        channel.write(codec.encode(seq, verb, body))
                    left = deadline - time.monotonic()
                    if not waiter.event.wait(max(0.0, min(REQUEST_RESEND_S, left))):
                        continue
                if waiter.verb == "err":
                    _, rest = reply_seq(waiter.body)
                    code, _, message = rest.partition(" ")
                    if code == codec.E_HELLO:
                        # The board was reset and forgot us: hello again, then retry.
                        waiter.event.clear()
                        channel.reregister()
                        continue
                    if code == codec.E_STALE and done is not None:
                        # The history the request names is gone: done already (before a
                        # reset), or the board changed it meanwhile. Its state tells.
                        state = channel.state(max(0.1, deadline - time.monotonic()))
                        if done(state):
                            self.stats.already_done += 1
                            return "ok", "%d %s" % (seq, _state_triple(state))
                    raise BoardError(code, message)
                return waiter.verb, waiter.body
        finally:
            with self._lock:
                self._waiters.pop(seq, None)


def _state_triple(state: dict[str, str]) -> str:
    return str(codec.kv_encode([(k, state.get(k, "")) for k in ("game", "moves", "digest", "hv")]))
