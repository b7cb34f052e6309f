"""The host link's timers, one object: ``LinkTimers()`` holds the real ones (what a
board on a cable needs); tests of the real path pass shorter ones to ``BoardLink``
(``LinkTimers.scaled``) instead of patching module globals."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class LinkTimers:
    """Seconds. The board's own timers (zuni_link.session: a beat every 2 s, resends every
    1 s, the host counted away after 6 s of silence) bound these: ``silence_s`` must stay
    above a few beats, ``keepalive_s`` well under the board's host timeout."""

    hello_resend_s: float = 0.5  # no hello reply: say it again
    request_resend_s: float = 0.5  # no reply to a request: send it again (the board does it once)
    keepalive_s: float = 1.5  # an ack as keep-alive (the board stops resending after 6 s of silence)
    silence_s: float = 8.0  # nothing heard for this long: reopen (the board beats every 2 s)
    reopen_s: tuple[float, ...] = (0.05, 0.1, 0.2, 0.5, 1.0)  # back-off between attempts to reopen

    def __post_init__(self) -> None:
        values = (self.hello_resend_s, self.request_resend_s, self.keepalive_s, self.silence_s, *self.reopen_s)
        if not self.reopen_s or any(v <= 0 for v in values):
            raise ValueError("link timers must be positive seconds, got %r" % (self,))

    def scaled(self, factor: float, *, silence_s: float | None = None) -> LinkTimers:
        """The host's own timers times ``factor`` (resends, keep-alive, reopen back-off);
        ``silence_s`` stays (it answers the board's beat) unless given."""
        return replace(
            self,
            hello_resend_s=self.hello_resend_s * factor,
            request_resend_s=self.request_resend_s * factor,
            keepalive_s=self.keepalive_s * factor,
            silence_s=self.silence_s if silence_s is None else silence_s,
            reopen_s=tuple(s * factor for s in self.reopen_s),
        )


REAL_TIMERS = LinkTimers()  # a board on a cable
