"""The host's registration with the board: ``Registration``.

On every new connection the host says ``hello`` (its protocol, version and session id)
and says it again every ``hello_resend_s`` until the board answers; after HELLO_TRIES it
gives the port up (reopened by the port thread). Once registered it acks every
``keepalive_s`` (the board stops resending moves to a host silent for 6 s) and drops a
port that was silent for ``silence_s`` (the board beats every 2 s). A board that booted
again, or forgot the host, is registered with again. Nothing here reads a clock or
writes: ``hello_due(now)`` and ``ack_due(now)`` say what to send.
"""

from __future__ import annotations

import secrets
import threading

from zuni_link import codec
from zuniboard import __version__
from zuniboard.link.port import LinkError
from zuniboard.link.timers import LinkTimers

HELLO_TRIES = 20  # then reopen the port (10 s: as a request, longer than the worst round trip)


class Registration:
    """Whether the board knows this host on the open connection, and the timers that keep
    it so. ``cond``: the link's lock, held for every change of ``connected``."""

    def __init__(self, cond: threading.Condition, timers: LinkTimers) -> None:
        self.cond = cond
        self.timers = timers
        # This host's session: the board forgets the request of another (a restarted host).
        self.session_id = secrets.token_hex(4)
        self.version_error = ""  # the board speaks another protocol version: what it said
        self.connected = False
        self.registrations = 0  # hello replies: a new one after a reconnect or reset
        self.hello_seq = -1  # the seq of the last hello sent
        self._need_hello = False
        self._hello_at = 0.0
        self._hello_tries = 0
        self._keepalive_at = 0.0
        self._last_heard = 0.0  # when the last line came
        self._ack_due = False

    def hello_body(self) -> str:
        return "proto=%d host=zuni/%s sid=%s" % (codec.PROTO, __version__, self.session_id)

    def opened(self, now: float) -> None:
        """A new connection: hello now."""
        with self.cond:
            self._need_hello = True
            self._hello_at = now
            self._hello_tries = 0
            self._last_heard = now
            self._keepalive_at = now + self.timers.keepalive_s

    def dropped(self) -> bool:
        """The port closed; True if the board was registered on it."""
        with self.cond:
            was = self.connected
            self.connected = False
            self.cond.notify_all()
        return was

    def register_again(self) -> None:
        """The board forgot this host (a reset, an ``err hello``): hello again."""
        with self.cond:
            self._need_hello = True
            self.connected = False

    def hello_unsolicited(self) -> None:
        """The board (re)booted and said hello of itself: it does not know this host."""
        with self.cond:
            self._need_hello = True

    def answered(self) -> bool:
        """The board answered our hello; True if it is a new registration."""
        with self.cond:
            newly = not self.connected
            self._need_hello = False
            self.connected = True
            self.registrations += 1
            self.cond.notify_all()
        return newly

    def heard(self, now: float) -> None:
        """A line came."""
        self._last_heard = now

    def frame_heard(self) -> None:
        """A valid frame came: the hello tries count from zero again once registered."""
        if not self._need_hello:
            self._hello_tries = 0

    def want_ack(self) -> None:
        self._ack_due = True

    def refused(self, seq: int, rest: str) -> bool:
        """An ``err``: True (and ``version_error`` kept) if it refuses our hello's version."""
        if seq != self.hello_seq or not rest.startswith(codec.E_VERSION + " "):
            return False
        self.version_error = rest[len(codec.E_VERSION) + 1 :]
        return True

    def hello_due(self, now: float) -> bool:
        """True when a hello is to be said now; LinkError after HELLO_TRIES (the port is
        dropped and opened again)."""
        if not (self._need_hello and now >= self._hello_at):
            return False
        if self._hello_tries >= HELLO_TRIES:
            raise LinkError("no hello from the board after %d tries" % self._hello_tries)
        self._hello_tries += 1
        self._hello_at = now + self.timers.hello_resend_s
        return True

    def ack_due(self, now: float) -> bool:
        """True when an ack is to be sent now (a keep-alive, or the mirror asked for one);
        LinkError when the board has been silent for ``silence_s``."""
        if self.connected and now >= self._keepalive_at:
            self._keepalive_at = now + self.timers.keepalive_s
            self._ack_due = True
        if self.connected and now - self._last_heard > self.timers.silence_s:
            raise LinkError("the board went silent for %.1f s" % self.timers.silence_s)
        ack = self._ack_due and self.connected
        if ack:
            self._ack_due = False
        return ack
