"""The host side of the board link (docs/protocol.md): ``BoardLink``.

>>> link = BoardLink.open("auto")            # or "/dev/ttyACM0", "socket://host:7777", a pty path
>>> link.wait_synced(5.0)
>>> link.moves                               # the board's game, mirrored
['s3xm4-m5']
>>> event = link.events.get(timeout=60)      # LinkEvent("move", index=1, text="m6-m5"), ...
>>> link.host_move("n4xm5-s4")               # raises BoardError if the board refuses it

``BoardLink`` joins three parts, one concern each:

- ``zuniboard.link.port.LinkPort``: the serial port and its thread (open by URL, read
  lines, reopen after an unplug, a board reset or silence);
- ``zuniboard.link.requests.Requests``: requests numbered and resent until answered, done
  once by the board;
- ``zuniboard.link.mirror.BoardMirror``: the pure copy of the board's game, which
  changes only by the rules of the history version (a take-back only on a report with a
  higher version than the mirror's: a late reply or a heartbeat queued behind a move
  takes nothing back).

Here: registration (hello), frames to the mirror and to waiting requests, acks and
keep-alive, and the events. Consumers of ``events`` see every move once, in order, with
take-backs explicit ("undo") and a cleared mirror as "reset".
"""

from __future__ import annotations

import contextlib
import queue
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import serial

from zuni_link import codec
from zuni_link.codec import FrameError
from zuniboard import __version__
from zuniboard.link.mirror import BoardMirror, Outcome, Report
from zuniboard.link.port import BAUD, PICO_PID, PICO_VID, LinkError, LinkPort, SerialPort, discover
from zuniboard.link.requests import REQUEST_RESEND_S, BoardError, Done, Requests, reply_seq

__all__ = [
    "BAUD",
    "PICO_PID",
    "PICO_VID",
    "REQUEST_RESEND_S",
    "BoardError",
    "BoardLink",
    "LinkError",
    "LinkEvent",
    "LinkStats",
    "SerialPort",
    "discover",
]

HELLO_RESEND_S = 0.5  # no hello reply: say it again
HELLO_TRIES = 20  # then reopen the port (10 s: as a request, longer than the worst round trip)
REQUEST_TIMEOUT_S = 10.0  # above the worst round trip survived: 2 x 2.5 s on the line, a pulled cable, resends
KEEPALIVE_S = 1.5  # an ack as keep-alive (the board stops resending after 6 s of silence)
SILENCE_S = 8.0  # nothing heard for this long: reopen (the board beats every 2 s; 3 beats late is busy, not gone)
FETCH_RETRY_S = 1.0  # do not ask for the same moves again sooner


@dataclass(frozen=True)
class LinkEvent:
    """Something that happened on the link, in order.

    kinds: "move" (index, text), "undo" (index = moves left), "reset" (the mirror was
    cleared: a new game or a divergence; text = game id), "connected" (text = url),
    "disconnected" (text = why), "boardreset" (text = new boot id), "linkerror" (the
    board could not read a line from us; text = "code message"), "console" (a line that is not
    a frame: MicroPython output), "state" (the board sent its state on its own: a new game,
    a take-back, the end, setup done; text = its phase, the whole state in ``info``), and
    the board's own events: "button", "over", "raw", "sensed", "ledwalk", ...
    """

    kind: str
    text: str = ""
    index: int = -1


@dataclass
class LinkStats:
    frames_in: int = 0
    frames_out: int = 0
    bad_frames: int = 0
    duplicates: int = 0
    stale: int = 0  # reports older than the mirror (a late reply, a queued heartbeat): ignored
    fetches: int = 0
    reconnects: int = 0
    resends: int = 0
    already_done: int = 0  # requests found done by the board (its state) before a resend


def _ended_by(termination: str) -> Done:
    """For a resend check: the game is over, ended this way."""

    def done(state: dict[str, str]) -> bool:
        return state.get("phase") == "over" and state.get("termination") == termination

    return done


def _report(kv: dict[str, str]) -> Report | None:
    """The (game, hv, moves, digest) of a hello, state or ok; None if it has none."""
    if not all(k in kv for k in ("game", "moves", "digest", "hv")):
        return None
    return Report(
        kv["game"],
        codec.parse_index(kv["hv"], "hv"),
        codec.parse_index(kv["moves"], "moves"),
        codec.parse_digest(kv["digest"]),
    )


class BoardLink:
    """A connection to one board that keeps itself up. Use ``BoardLink.open(url)``."""

    def __init__(
        self,
        url: str = "auto",
        *,
        on_event: Callable[[LinkEvent], None] | None = None,
        opener: Callable[[str], SerialPort] | None = None,
    ) -> None:
        self.url = url
        self.on_event = on_event
        self.events: queue.Queue[LinkEvent] = queue.Queue()
        self.hello: dict[str, str] = {}  # the board's last hello
        self.info: dict[str, str] = {}  # the board's last state
        # On a clock: (game, index, move text) -> (ms the move took, the mover's ms left),
        # from the board's move frames (docs/clocks.md).
        self.move_times: dict[tuple[str, int, str], tuple[int, int]] = {}
        self.console: deque[str] = deque(maxlen=200)
        self.ruleset = ""
        # The start position of the board's game when it was set up from one (the board's
        # ``position=`` in hello and state; docs/rules.md "Positions as text"), else "".
        self.position = ""
        self.silence_s = SILENCE_S  # tests shorten it
        # This host's session: the board forgets the request of another (a restarted host).
        self.session_id = secrets.token_hex(4)
        self.version_error = ""  # the board speaks another protocol version: what it said
        self.mirror = BoardMirror()
        self._lock = threading.RLock()  # mirror and connection state
        self._cond = threading.Condition(self._lock)
        self._connected = False
        self._need_hello = False
        self._hello_seq = -1
        self._hello_at = 0.0
        self._hello_tries = 0
        self._keepalive_at = 0.0
        self._registrations = 0  # hello replies: a new one after a reconnect or reset
        self._boot = ""
        self._ack_due = False
        self._fetch: tuple[int, float] | None = None  # (from index, when asked)
        self._counts = LinkStats()
        self.port = LinkPort(url, self, opener)
        self.port.console_log = self.console.append
        self.requests = Requests(self)

    # --- opening and closing ------------------------------------------------------------

    @classmethod
    def open(
        cls,
        url: str = "auto",
        timeout: float = 5.0,
        on_event: Callable[[LinkEvent], None] | None = None,
    ) -> BoardLink:
        """Connects and waits for the first hello; LinkError if no board answers in time."""
        link = cls(url, on_event=on_event)
        link.start()
        if not link.wait_connected(timeout):
            link.close()
            if link.version_error:
                raise LinkError("the board on %s speaks another link protocol: %s" % (url, link.version_error))
            raise LinkError("no board answered hello on %s within %.1f s" % (url, timeout))
        return link

    def start(self) -> None:
        self.port.start()

    def close(self) -> None:
        with self._lock:
            self._cond.notify_all()
        self.port.close()
        with self._lock:
            self._cond.notify_all()

    def __enter__(self) -> BoardLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what the companion uses --------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def game(self) -> str:
        return self.mirror.game

    @property
    def stats(self) -> LinkStats:
        c = self._counts
        r = self.requests.stats
        return LinkStats(
            frames_in=c.frames_in,
            frames_out=self.port.frames_out,
            bad_frames=c.bad_frames + self.port.bad_lines,
            duplicates=c.duplicates,
            stale=c.stale,
            fetches=c.fetches,
            reconnects=self.port.reconnects,
            resends=r.resends,
            already_done=r.already_done,
        )

    @property
    def board_id(self) -> str:
        """The board's unique id from its hello (``id``: a Pico's ``machine.unique_id()``
        in hex, a virtual board's from its flash image); "" if it sends none."""
        with self._lock:
            return self.hello.get("id", "")

    @property
    def moves(self) -> list[str]:
        with self._lock:
            return list(self.mirror.moves)

    def wait_connected(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._connected and not self.port.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return self._connected

    def synced(self) -> bool:
        """True when the mirror matches the board's freshest word (hello, beat, reply, move)."""
        with self._lock:
            return self.mirror.synced()

    def drop_events(self) -> None:
        """Forget the events not yet read: what the link said before a new game or
        lesson is about the old one."""
        while True:
            try:
                self.events.get_nowait()
            except queue.Empty:
                return

    def wait_synced(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            while not (self._connected and self.mirror.synced()):
                left = deadline - time.monotonic()
                if left <= 0 or self.port.closed:
                    return False
                self._cond.wait(left)
            return True

    def wait_moves(self, count: int, timeout: float) -> bool:
        """Waits until the mirror holds at least ``count`` moves."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self.mirror.moves) < count:
                left = deadline - time.monotonic()
                if left <= 0 or self.port.closed:
                    return False
                self._cond.wait(left)
            return True

    def ping(self, timeout: float = REQUEST_TIMEOUT_S) -> float:
        """Round-trip time of one request in seconds."""
        start = time.monotonic()
        self.requests.request("ping", "", timeout)
        return time.monotonic() - start

    def state(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """The board's whole state: game, ruleset, moves, digest, hv, phase, turn, ..."""
        _, body = self.requests.request("state", "", timeout)
        info: dict[str, str] = codec.kv_decode(body)
        return info

    def new_game(
        self, ruleset: str, timeout: float = REQUEST_TIMEOUT_S, *, position: str = "", clock: str = ""
    ) -> dict[str, str]:
        """A new game of ``ruleset``; with ``position`` (a position text, docs/rules.md
        "Positions as text", whose ruleset wins over ``ruleset``) a game from that position,
        which the board has the player set up one side at a time (``setup``). A board whose
        firmware predates ``setup`` raises ``BoardError`` (code ``unknown``) saying so.
        ``clock``: a time control (``zuni.clock`` text, e.g. "5+3", "south=5+3 north=10"):
        the board keeps the game's clocks (docs/clocks.md)."""
        prefix = "clock=%s " % codec.esc(clock) if clock else ""
        with self._lock:
            game = self.mirror.game

        def done(state: dict[str, str]) -> bool:
            return state.get("game", game) != game and state.get("moves") == "0"

        if position:
            try:
                result = self._command("setup", prefix + position, timeout, done)
            except BoardError as exc:
                if exc.code != codec.E_UNKNOWN:
                    raise
                raise BoardError(
                    exc.code,
                    "this board's firmware is too old to set up a position (it does not know 'setup'): "
                    "deploy the new firmware (zuni deploy)",
                ) from exc
            with self._lock:
                self.position = position
        else:
            result = self._command("new", prefix + ruleset, timeout, done)
        self.state(timeout)  # the new game's ruleset, position and phase
        return result

    def take_back(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Takes the last move back. The request names the history it takes it from
        (``takeback <hv> <moves>``): the board refuses it once that history is gone, so a
        resend after a board reset never takes a second move back."""
        with self._lock:
            held = self.mirror.held()
            before = codec.hex8(self.mirror.digest(held.moves - 1)) if held.moves > 0 else ""
        if held.moves == 0:
            # Nothing held: maybe the board's end of game (a declared end) is taken back.
            return self._command("takeback", "", timeout)

        def done(state: dict[str, str]) -> bool:
            return (state.get("game"), state.get("moves"), state.get("digest")) == (
                held.game,
                str(held.moves - 1),
                before,
            )

        return self._command("takeback", "%d %d" % (held.hv, held.moves), timeout, done)

    def host_move(self, text: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows the computer's move on the board; the player carries it out."""
        return self._command("hostmove", text, timeout)

    def hint(self, text: str = "", timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows a suggested move ("" clears it)."""
        return self._command("hint", text, timeout)

    def grade(self, kind: str, point: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows a graded mistake (``kind``: mistake, blunder; off clears) on ``point``,
        the moved piece's (docs/protocol.md)."""
        return self._command("grade", ("%s %s" % (kind, point)).strip(), timeout)

    def led_test(self, timeout: float = REQUEST_TIMEOUT_S, walk_ms: int | None = None) -> dict[str, str]:
        """Every LED red, green, blue, white; with ``walk_ms``: one LED at a time in chain
        order, ``walk_ms`` each, each step an event "ledwalk" (``<LED index> <point>``)."""
        return self._command("ledtest", "" if walk_ms is None else "walk %d" % walk_ms, timeout)

    def raw(self, on: bool, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Raw sensor view: the board sends "raw" events with every sensed change."""
        return self._command("raw", "on" if on else "off", timeout)

    def resign(self, side: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        return self._command("resign", side, timeout, _ended_by("resign"))

    def agree(self, what: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """``what``: "draw" or "count"."""
        return self._command("agree", what, timeout, _ended_by("agreed-" + what))

    def press_ok(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """The OK button, from the PC."""
        return self._command("button", "ok", timeout)

    def send_raw_line(self, line: bytes) -> None:
        """Writes bytes as they are (diagnostics and tests: garbage, hand-made frames)."""
        self.port.write(line)

    # --- what Requests needs (link.requests.Channel) -----------------------------------

    def write(self, data: bytes) -> None:
        self.port.write(data)

    def registrations(self) -> int:
        return self._registrations

    def reregister(self) -> None:
        with self._lock:
            self._need_hello = True
            self._connected = False

    def _command(self, verb: str, arg: str, timeout: float, done: Done | None = None) -> dict[str, str]:
        _, body = self.requests.request(verb, arg, timeout, done)
        _, rest = reply_seq(body)
        result: dict[str, str] = codec.kv_decode(rest)
        return result

    def _send(self, verb: str, body: str = "") -> int:
        """Fire and forget, from the link thread (a lost one is asked again later)."""
        seq = self.requests.next_seq()
        with contextlib.suppress(OSError, serial.SerialException, LinkError):
            self.port.write(codec.encode(seq, verb, body))
        return seq

    # --- the port thread (link.port.LinkHandler) ---------------------------------------

    def _emit(self, event: LinkEvent) -> None:
        self.events.put(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception as exc:  # a consumer's bug must not stop the link
                self.console.append("on_event failed: %r" % exc)

    def opened(self) -> None:
        now = time.monotonic()
        with self._lock:
            self._need_hello = True
            self._hello_at = 0.0
            self._hello_tries = 0
            self._keepalive_at = now + KEEPALIVE_S

    def dropped(self, why: str) -> None:
        with self._lock:
            was = self._connected
            self._connected = False
            self._cond.notify_all()
        if was:
            self._emit(LinkEvent("disconnected", why))

    def idle(self, now: float) -> None:
        if self._need_hello and now >= self._hello_at:
            if self._hello_tries >= HELLO_TRIES:
                raise LinkError("no hello from the board after %d tries" % self._hello_tries)
            self._hello_tries += 1
            self._hello_at = now + HELLO_RESEND_S
            self._hello_seq = self._send(
                "hello", "proto=%d host=zuni/%s sid=%s" % (codec.PROTO, __version__, self.session_id)
            )
        if self._connected and now >= self._keepalive_at:
            self._keepalive_at = now + KEEPALIVE_S
            self._ack_due = True
        if self._connected and now - self.port.last_in > self.silence_s:
            raise LinkError("the board went silent for %.1f s" % self.silence_s)
        if self._ack_due and self._connected:
            self._ack_due = False
            with self._lock:
                held = self.mirror.held()
            self._send("ack", "%s %d %s" % (codec.esc(held.game), held.moves, codec.hex8(held.digest)))

    def line(self, line: bytes) -> None:
        if not line.startswith(b"~"):
            text = line.decode("ascii", "replace")
            self.console.append(text)
            self._emit(LinkEvent("console", text))
            return
        try:
            seq, verb, body, checked = codec.decode(line)
        except FrameError:
            self._counts.bad_frames += 1
            return
        if not checked:  # the board always sends checksums: a placeholder is corruption
            self._counts.bad_frames += 1
            return
        self._counts.frames_in += 1
        if not self._need_hello:
            self._hello_tries = 0
        try:
            self._on_frame(verb, body)
        except FrameError:
            self._counts.bad_frames += 1

    def _on_frame(self, verb: str, body: str) -> None:
        if verb == "move":
            t = codec.tokens(body)
            if len(t) not in (5, 7):
                raise FrameError(codec.E_ARGS, "move needs 5 fields (7 on a clock)")
            game = codec.unesc(t[0])
            index = codec.parse_index(t[1], "index")
            text = codec.unesc(t[2])
            digest = codec.parse_digest(t[3])
            hv = codec.parse_index(t[4], "hv")
            times = None
            if len(t) == 7:
                try:
                    times = (int(t[5]), int(t[6]))
                except ValueError:
                    raise FrameError(codec.E_ARGS, "move: bad clock fields %r %r" % (t[5], t[6])) from None
            with self._lock:
                if times is not None:
                    # The move's time and the mover's clock after it (docs/clocks.md).
                    self.move_times[(game, index, text)] = times
                self._apply(self.mirror.move(game, hv, index, text, digest))
        elif verb == "beat":
            t = codec.tokens(body)
            if len(t) < 4:
                raise FrameError(codec.E_ARGS, "beat needs 4 fields")
            r = Report(
                codec.unesc(t[0]),
                codec.parse_index(t[3], "hv"),
                codec.parse_index(t[1], "moves"),
                codec.parse_digest(t[2]),
            )
            with self._lock:
                if len(t) > 4 and self._boot and t[4] != self._boot:
                    # A board that booted again, whose boot hello we missed: register
                    # again; its hello (with the new boot) is its word, not this beat.
                    self._need_hello = True
                    return
                self._apply(self.mirror.report(r))
        elif verb == "hello":
            self._on_hello(codec.kv_decode(body))
        elif verb == "state":
            kv = codec.kv_decode(body)
            with self._lock:
                self.info = kv
                self._reconcile_kv(kv)
            if kv.get("re", "0") == "0":
                # Unsolicited: a new game, a take-back, the end, setup done. ``info``
                # holds it all; the event says the phase.
                self._emit(LinkEvent("state", kv.get("phase", "")))
            re = kv.get("re", "0")
            if re.isdigit():
                self.requests.reply(int(re), verb, body)
        elif verb in ("ok", "err"):
            seq, rest = reply_seq(body)
            if verb == "ok":
                with self._lock:
                    self._reconcile_kv(codec.kv_decode(rest))
            elif seq == 0:
                self._emit(LinkEvent("linkerror", rest))
            elif seq == self._hello_seq and rest.startswith(codec.E_VERSION + " "):
                self.version_error = rest[len(codec.E_VERSION) + 1 :]
                self.console.append("the board refused our hello: " + self.version_error)
            self.requests.reply(seq, verb, body)
        elif verb == "event":
            kind, _, text = body.partition(" ")
            self._emit(LinkEvent(codec.unesc(kind), text))
        # Unknown verbs from a newer board are ignored (forward compatible).

    def _on_hello(self, kv: dict[str, str]) -> None:
        if kv.get("proto") != str(codec.PROTO):
            self.version_error = "board speaks protocol %s, this host %d" % (kv.get("proto"), codec.PROTO)
            self.console.append(self.version_error)
            return
        boot = kv.get("boot", "")
        with self._lock:
            if boot != self._boot:
                # A board that booted again may have lost its journal (its version with it).
                self.mirror.new_boot()
            old_boot, self._boot = self._boot, boot
            self.hello = kv
            if "ruleset" in kv:
                self.ruleset = kv["ruleset"]
                self._learn_position(kv)
        if old_boot and boot != old_boot:
            self._emit(LinkEvent("boardreset", boot))
        if kv.get("re", "0") == "0":
            # Unsolicited: the board (re)booted and does not know us. Register again.
            with self._lock:
                self._need_hello = True
            return
        with self._lock:
            newly = not self._connected
            self._need_hello = False
            self._connected = True
            self._registrations += 1
            self._cond.notify_all()
        if newly:
            self._emit(LinkEvent("connected", self.url))
        with self._lock:
            self._reconcile_kv(kv)

    # --- keeping the mirror (lock held) ---------------------------------------------------

    def _reconcile_kv(self, kv: dict[str, str]) -> None:
        r = _report(kv)
        if r is not None:
            self._apply(self.mirror.report(r))
        if "ruleset" in kv:
            self.ruleset = kv["ruleset"]
            self._learn_position(kv)

    def _learn_position(self, kv: dict[str, str]) -> None:
        """The start position a hello or state names; ``+``: one too long for that frame
        (the 168-point board's state), the one known stays (from the hello, or sent)."""
        position = kv.get("position", "")
        if position != "+":
            self.position = position

    def _apply(self, out: Outcome) -> None:
        """Does what the mirror asks: events, fetches, acks (lock held)."""
        if out.stale:
            self._counts.stale += 1
        if out.duplicate:
            self._counts.duplicates += 1
        for change in out.changes:
            if change.kind == "reset":
                self._fetch = None
            self._emit(LinkEvent(change.kind, change.text, change.index))
        if out.ask_state:
            self._send("state")  # its ruleset
        if out.fetch_from is not None:
            self._ask_moves(out.fetch_from)
        elif out.changes and self._fetch is not None and self._fetch[0] < len(self.mirror.moves):
            self._fetch = None
        if out.ack:
            self._ack_due = True
        self._cond.notify_all()

    def _ask_moves(self, start: int) -> None:
        """Asks for the moves from ``start`` unless just asked."""
        now = time.monotonic()
        if self._fetch is not None and self._fetch[0] == start and now - self._fetch[1] < FETCH_RETRY_S:
            return
        self._fetch = (start, now)
        self._counts.fetches += 1
        self._send("moves", str(start))
