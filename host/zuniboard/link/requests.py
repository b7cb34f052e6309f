"""The request layer of the board link: ``Requests`` numbers requests, sends each until
its reply comes and hands the reply to the caller's callback (docs/protocol.md,
"Sequence numbers").

Nothing here blocks or reads a clock: ``submit(verb, body, now, timeout, then)`` sends a
request and returns at once; ``reply(re, verb, body, now)`` (a frame from the board) and
``tick(now)`` (called by the link's loop every few tens of ms) resend it every
REQUEST_RESEND_S, end it at its deadline and call ``then(result, now)`` exactly once with
a ``Reply``, a ``Refusal`` or a ``NoReply``.

A request is resent with the same ``seq``; the board does it once (it remembers the last
request of this host session) and answers a resend with a reply made at that moment. A
board reset forgets the request: so when the link registered again since the request was
last sent, ``done(state)`` asks the board's state first (a request of its own, as
non-blocking as the rest) whether it was done already, and a take-back names the history
it takes the last move of, which the board refuses (``stale``) once that history is gone.
"""

from __future__ import annotations

import contextlib
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import serial

from zuni_link import codec
from zuniboard.link.port import LinkError
from zuniboard.link.timers import LinkTimers

REQUEST_RESEND_S = LinkTimers.request_resend_s  # no reply to a request: send it again

Done = Callable[[dict[str, str]], bool]


class BoardError(LinkError):
    """The board refused a request: ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__("board refused (%s): %s" % (code, message))
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Reply:
    """The board's answer frame: ``ok`` (body: ``<seq> <fields>``) or ``state``/``hello``."""

    verb: str
    body: str


@dataclass(frozen=True)
class Refusal:
    """``err <seq> <code> <message>``: the board will not do it."""

    code: str
    message: str


@dataclass(frozen=True)
class NoReply:
    """No answer by the deadline, or the link closed (``why``)."""

    why: str


Result = Reply | Refusal | NoReply
Then = Callable[[Result, float], None]


class Channel(Protocol):
    """What Requests needs of the link."""

    def write(self, data: bytes) -> None: ...

    def registered(self) -> bool:
        """The board answered our hello on this connection: requests may go."""

    def registrations(self) -> int:
        """Counts hello replies: another one since a send means the board may have forgotten it."""

    def reregister(self) -> None:
        """The board forgot this host (err hello): say hello again."""


@dataclass
class RequestStats:
    resends: int = 0
    already_done: int = 0  # requests found done by the board (its state) before a resend


def reply_seq(body: str) -> tuple[int, str]:
    """``ok``/``err`` bodies start with the request's sequence number: (seq, the rest)."""
    head, _, rest = body.partition(" ")
    return codec.parse_index(head, "reply sequence number"), rest


class _Pending:
    """One request on its way: what to send, until when, and what to call at the end."""

    def __init__(self, seq: int, verb: str, body: str, deadline: float, timeout: float, then: Then, done: Done | None):
        self.seq = seq
        self.verb = verb
        self.body = body
        self.deadline = deadline
        self.timeout = timeout
        self.then = then
        self.done = done
        self.sent_in = -1  # the registration it was last sent in (-1: not sent yet)
        self.next_send = 0.0  # resend at (once registered)
        self.checking = False  # a state request asks whether the board did it already
        self.refusal: Refusal | None = None  # ``stale``: refused unless the state says done
        self.finished = False


class Requests:
    """Outstanding requests by sequence number; the host starts at a random one."""

    def __init__(self, channel: Channel, resend_s: float = REQUEST_RESEND_S) -> None:
        self.channel = channel
        self.resend_s = resend_s
        self.stats = RequestStats()
        self._lock = threading.Lock()
        self._seq = random.randint(1, codec.MAX_SEQ)
        self._pending: dict[int, _Pending] = {}

    def next_seq(self) -> int:
        with self._lock:
            self._seq = codec.next_seq(self._seq)
            return self._seq

    def outstanding(self) -> int:
        with self._lock:
            return len(self._pending)

    def submit(self, verb: str, body: str, now: float, timeout: float, then: Then, done: Done | None = None) -> int:
        """Sends a request (now if the board is registered, else once it is) and returns
        its seq; ``then`` gets its result, from whichever thread ends it."""
        p = _Pending(self.next_seq(), verb, body, now + timeout, timeout, then, done)
        go = self.channel.registered()
        if go:  # due again only after a resend interval: the port thread's tick leaves it alone
            p.sent_in = self.channel.registrations()
            p.next_send = now + self.resend_s
        with self._lock:
            self._pending[p.seq] = p
        if go:
            with contextlib.suppress(OSError, serial.SerialException, LinkError):
                self.channel.write(codec.encode(p.seq, p.verb, p.body))
        return p.seq

    def tick(self, now: float) -> None:
        """Resends what is due and ends what is past its deadline."""
        with self._lock:
            pending = list(self._pending.values())
        registered = self.channel.registered()
        for p in pending:
            if now >= p.deadline:
                self._finish(p, NoReply("no reply to %s within %.1f s" % (p.verb, p.timeout)), now)
            elif registered and not p.checking and now >= p.next_send:
                self._send(p, now)

    def reply(self, re: int, verb: str, body: str, now: float) -> bool:
        """A reply came (from the port thread); True if a request waited for it."""
        with self._lock:
            p = self._pending.get(re)
        if p is None or p.finished:
            return False
        if verb == "err":
            _, rest = reply_seq(body)
            code, _, message = rest.partition(" ")
            if code == codec.E_HELLO:
                # The board was reset and forgot us: hello again, then the request again.
                self.channel.reregister()
                p.next_send = now
                return True
            if code == codec.E_STALE and p.done is not None:
                # The history the request names is gone: done already (before a reset),
                # or the board changed it meanwhile. Its state tells.
                p.refusal = Refusal(code, message)
                self._check(p, now)
                return True
            self._finish(p, Refusal(code, message), now)
            return True
        self._finish(p, Reply(verb, body), now)
        return True

    def close(self, why: str, now: float) -> None:
        """Ends every request: the link is gone."""
        with self._lock:
            pending = list(self._pending.values())
        for p in pending:
            self._finish(p, NoReply(why), now)

    # -- inside -------------------------------------------------------------------------

    def _send(self, p: _Pending, now: float) -> None:
        if p.sent_in >= 0:
            self.stats.resends += 1
            if p.done is not None and p.sent_in != self.channel.registrations():
                self._check(p, now)
                return
        self._write(p, now)

    def _write(self, p: _Pending, now: float) -> None:
        p.sent_in = self.channel.registrations()
        p.next_send = now + self.resend_s
        with contextlib.suppress(OSError, serial.SerialException, LinkError):
            self.channel.write(codec.encode(p.seq, p.verb, p.body))

    def _check(self, p: _Pending, now: float) -> None:
        """Asks the board's state whether it did ``p`` already; ``p`` waits meanwhile."""
        p.checking = True

        def checked(result: Result, at: float) -> None:
            p.checking = False
            if p.finished:
                return  # its own reply came meanwhile
            if isinstance(result, Reply) and result.verb == "state":
                state = codec.kv_decode(result.body)
                assert p.done is not None
                if p.done(state):
                    self.stats.already_done += 1
                    self._finish(p, Reply("ok", "%d %s" % (p.seq, _state_triple(state))), at)
                    return
            if p.refusal is not None:
                self._finish(p, p.refusal, at)
            elif p.sent_in >= 0 and self.channel.registered():
                self._write(p, at)  # not done: send it again now

        self.submit("state", "", now, max(0.1, p.deadline - now), checked)

    def _finish(self, p: _Pending, result: Result, now: float) -> None:
        with self._lock:
            if p.finished:
                return
            p.finished = True
            self._pending.pop(p.seq, None)
        p.then(result, now)


def _state_triple(state: dict[str, str]) -> str:
    return str(codec.kv_encode([(k, state.get(k, "")) for k in ("game", "moves", "digest", "hv")]))
