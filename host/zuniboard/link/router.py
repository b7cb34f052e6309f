"""The frames of the board, each to its part: ``FrameRouter``, the port thread's handler
(``zuniboard.link.port.LinkHandler``) for a ``BoardLink``.

A line that is not a frame is console output; a frame that fails its checksum or its
parse is counted and dropped; the rest go to the registration (hello, silence), the
keeper of the mirror (moves, beats, states, replies' reports) and the requests waiting
for their replies. The router never reads a clock: the port thread hands it ``now``.
"""

from __future__ import annotations

from collections.abc import Callable

from zuni_link import codec
from zuni_link.codec import FrameError
from zuniboard.link.events import (
    BoardEvent,
    BoardRestarted,
    Connected,
    Console,
    Disconnected,
    LinkEvent,
    LinkFault,
    StateSent,
)
from zuniboard.link.keeper import BoardKeeper
from zuniboard.link.registration import Registration
from zuniboard.link.requests import Requests, reply_seq


class FrameRouter:
    """Reads the port's lines for one link (``url``: what ``Connected`` names); ``emit``
    sends an event to the link's consumers, ``send`` writes a frame, ``log`` keeps a
    console line."""

    def __init__(
        self,
        url: str,
        registration: Registration,
        keeper: BoardKeeper,
        requests: Requests,
        emit: Callable[[LinkEvent], None],
        send: Callable[[str, str], int],
        log: Callable[[str], None],
    ) -> None:
        self.url = url
        self.registration = registration
        self.keeper = keeper
        self.requests = requests
        self.emit = emit
        self.send = send
        self.log = log
        self.frames_in = 0
        self.bad_frames = 0

    def opened(self, now: float) -> None:
        self.registration.opened(now)

    def dropped(self, why: str) -> None:
        if self.registration.dropped():
            self.emit(Disconnected(why))

    def closed_tick(self, now: float) -> None:
        self.requests.tick(now)

    def idle(self, now: float) -> None:
        registration = self.registration
        if registration.hello_due(now):
            registration.hello_seq = self.send("hello", registration.hello_body())
        if registration.ack_due(now):
            self.send("ack", self.keeper.ack_body())
        self.requests.tick(now)

    def line(self, line: bytes, now: float) -> None:
        self.registration.heard(now)
        if not line.startswith(b"~"):
            text = line.decode("ascii", "replace")
            self.log(text)
            self.emit(Console(text))
            return
        try:
            seq, verb, body, checked = codec.decode(line)
        except FrameError:
            self.bad_frames += 1
            return
        if not checked:  # the board always sends checksums: a placeholder is corruption
            self.bad_frames += 1
            return
        self.frames_in += 1
        self.registration.frame_heard()
        try:
            self._on_frame(verb, body, now)
        except FrameError:
            self.bad_frames += 1

    def _on_frame(self, verb: str, body: str, now: float) -> None:
        if verb == "move":
            self.keeper.on_move(body, now)
        elif verb == "beat":
            if not self.keeper.on_beat(body, now):
                # A board that booted again, whose boot hello we missed: register
                # again; its hello (with the new boot) is its word, not this beat.
                self.registration.hello_unsolicited()
        elif verb == "hello":
            self._on_hello(codec.kv_decode(body), now)
        elif verb == "state":
            self._on_state(body, now)
        elif verb in ("ok", "err"):
            self._on_reply(verb, body, now)
        elif verb == "event":
            kind, _, text = body.partition(" ")
            self.emit(BoardEvent(codec.unesc(kind), text))
        # Unknown verbs from a newer board are ignored (forward compatible).

    def _on_state(self, body: str, now: float) -> None:
        kv = codec.kv_decode(body)
        self.keeper.on_state(kv, now)
        re = kv.get("re", "0")
        if re == "0":
            # Unsolicited: a new game, a take-back, the end, setup done. ``info``
            # holds it all; the event says the phase.
            self.emit(StateSent(kv.get("phase", "")))
        if re.isdigit():
            self.requests.reply(int(re), "state", body, now)

    def _on_reply(self, verb: str, body: str, now: float) -> None:
        seq, rest = reply_seq(body)
        if verb == "ok":
            self.keeper.reconcile(codec.kv_decode(rest), now)
        elif seq == 0:
            self.emit(LinkFault(rest))
        elif self.registration.refused(seq, rest):
            self.log("the board refused our hello: " + self.registration.version_error)
        self.requests.reply(seq, verb, body, now)

    def _on_hello(self, kv: dict[str, str], now: float) -> None:
        if kv.get("proto") != str(codec.PROTO):
            self.registration.version_error = "board speaks protocol %s, this host %d" % (
                kv.get("proto"),
                codec.PROTO,
            )
            self.log(self.registration.version_error)
            return
        old_boot = self.keeper.on_hello(kv)
        boot = kv.get("boot", "")
        if old_boot and boot != old_boot:
            self.emit(BoardRestarted(boot))
        if kv.get("re", "0") == "0":
            # Unsolicited: the board (re)booted and does not know us. Register again.
            self.registration.hello_unsolicited()
            return
        if self.registration.answered():
            self.emit(Connected(self.url))
        self.keeper.reconcile(kv, now)
        self.requests.tick(now)  # what waited for the board goes now
