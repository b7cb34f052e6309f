"""The host side of the board link (docs/protocol.md): ``BoardLink``.

>>> link = BoardLink.open("auto")            # or "/dev/ttyACM0", "socket://host:7777", a pty path
>>> link.wait_synced(5.0)
>>> link.moves                               # the board's game, mirrored
['s3xm4-m5']
>>> event = link.events.get(timeout=60)      # Moved(index=1, text="m6-m5"), ... (link.events)
>>> link.host_move("n4xm5-s4")               # raises BoardError if the board refuses it
>>> link.begin("host_move", ("n4xm5-s4",), now, inbox.put)   # the same, without waiting

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
take-backs explicit (``Undone``) and a cleared mirror as ``Reset`` (``link.events``).

The clock is read at the edge only: the port thread's loop reads ``clock`` (by default
``time.monotonic``) and passes ``now`` to ``opened``, ``line``, ``idle``; a request is
``begin(call, args, now, then)``, which returns at once and calls ``then`` with an
``Answered``, ``Refused`` or ``Failed`` (the loop that waits on a board never blocks).
The blocking methods (``state()``, ``host_move()``, ...) are that plus a wait, for
scripts and commands that have nothing else to do meanwhile.
"""

from __future__ import annotations

import contextlib
import queue
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import serial

from zuni_link import codec
from zuni_link.codec import FrameError
from zuniboard import __version__
from zuniboard.link.events import (
    Answered,
    BoardEvent,
    BoardRestarted,
    Connected,
    Console,
    Disconnected,
    Failed,
    LinkEvent,
    LinkFault,
    Moved,
    Refused,
    RequestResult,
    Reset,
    StateSent,
    Undone,
)
from zuniboard.link.mirror import BoardMirror, Change, Outcome, Report
from zuniboard.link.port import BAUD, PICO_PID, PICO_VID, Clock, LinkError, LinkPort, SerialPort, discover
from zuniboard.link.requests import (
    REQUEST_RESEND_S,
    BoardError,
    Done,
    NoReply,
    Refusal,
    Requests,
    Result,
    reply_seq,
)
from zuniboard.link.timers import REAL_TIMERS, LinkTimers

__all__ = [
    "BAUD",
    "PICO_PID",
    "PICO_VID",
    "REQUEST_RESEND_S",
    "Answered",
    "BoardError",
    "BoardLink",
    "Failed",
    "LinkError",
    "LinkEvent",
    "LinkStats",
    "LinkTimers",
    "Refused",
    "RequestResult",
    "SerialPort",
    "discover",
]

# The real timers (zuniboard.link.timers.LinkTimers; a BoardLink takes others as ``timers``).
HELLO_RESEND_S = LinkTimers.hello_resend_s  # no hello reply: say it again
HELLO_TRIES = 20  # then reopen the port (10 s: as a request, longer than the worst round trip)
REQUEST_TIMEOUT_S = 10.0  # above the worst round trip survived: 2 x 2.5 s on the line, a pulled cable, resends
KEEPALIVE_S = LinkTimers.keepalive_s  # an ack as keep-alive (the board stops resending after 6 s of silence)
SILENCE_S = LinkTimers.silence_s  # nothing heard for this long: reopen (the board beats every 2 s)
FETCH_RETRY_S = 1.0  # do not ask for the same moves again sooner
WAIT_GRACE_S = 5.0  # a blocking call waits this much past its timeout for the link thread's verdict

# The requests ``begin`` knows (the names the play, lesson and replay controllers ask for).
CALLS = (
    "ping",
    "state",
    "host_move",
    "hint",
    "grade",
    "led_test",
    "raw",
    "resign",
    "agree",
    "press_ok",
    "take_back",
    "new_game",
)


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
        clock: Clock = time.monotonic,
        timers: LinkTimers = REAL_TIMERS,
    ) -> None:
        self.url = url
        self.on_event = on_event
        self.timers = timers
        self.clock = clock  # read by the port thread's loop and the blocking calls only
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
        self._last_heard = 0.0  # when the last line came
        self._registrations = 0  # hello replies: a new one after a reconnect or reset
        self._boot = ""
        self._ack_due = False
        self._fetch: tuple[int, float] | None = None  # (from index, when asked)
        self._counts = LinkStats()
        self.port = LinkPort(url, self, opener, clock, timers.reopen_s)
        self.port.console_log = self.console.append
        self.requests = Requests(self, timers.request_resend_s)

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
        self.requests.close("the link closed", self.clock())
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

    def _wait_for(self, ready: Callable[[], bool], timeout: float) -> bool:
        """Blocks (the caller's thread) until ``ready()`` or ``timeout`` s pass."""
        deadline = self.clock() + timeout
        with self._lock:
            while not ready():
                left = deadline - self.clock()
                if left <= 0 or self.port.closed:
                    return False
                self._cond.wait(min(left, 0.25))
            return True

    def wait_connected(self, timeout: float) -> bool:
        return self._wait_for(lambda: self._connected, timeout)

    def synced(self) -> bool:
        """True when the mirror matches the board's freshest word (hello, beat, reply, move)."""
        with self._lock:
            return self.mirror.synced()

    def unread_events(self) -> Iterator[LinkEvent]:
        """The events not yet read, oldest first, until none is left (never waits)."""
        while True:
            try:
                yield self.events.get_nowait()
            except queue.Empty:
                return

    def drop_events(self) -> None:
        """Forget the events not yet read: what the link said before a new game or
        lesson is about the old one."""
        for _ in self.unread_events():
            pass

    def wait_synced(self, timeout: float) -> bool:
        return self._wait_for(lambda: self._connected and self.mirror.synced(), timeout)

    def wait_moves(self, count: int, timeout: float) -> bool:
        """Waits until the mirror holds at least ``count`` moves."""
        return self._wait_for(lambda: len(self.mirror.moves) >= count, timeout)

    # --- requests: ``begin`` never blocks; the named methods wait for its result ------------

    def begin(
        self,
        call: str,
        args: tuple[str, ...],
        now: float,
        then: Callable[[RequestResult], None],
        timeout: float = REQUEST_TIMEOUT_S,
    ) -> None:
        """Starts request ``call`` (one of ``CALLS``) with ``args`` and returns at once;
        ``then`` gets its ``Answered`` (the reply's fields), ``Refused`` or ``Failed``,
        exactly once, from the link's thread (or this one). ``new_game``'s args:
        (ruleset, position, clock), the last two may be ""."""
        if call not in CALLS:
            raise ValueError("no link request %r (known: %s)" % (call, ", ".join(CALLS)))

        def finish(result: Result, at: float) -> None:
            then(_result(call, args, result))

        if call == "new_game":
            self._begin_new_game(args, now, then, timeout)
            return
        verb, body, done = self._plan(call, args)
        self.requests.submit(verb, body, now, timeout, finish, done)

    def _plan(self, call: str, args: tuple[str, ...]) -> tuple[str, str, Done | None]:
        """The frame of request ``call``: verb, body, and how the board's state shows it done."""
        arg = args[0] if args else ""
        if call == "take_back":
            return self._plan_take_back()
        plans: dict[str, tuple[str, str, Done | None]] = {
            "ping": ("ping", "", None),
            "state": ("state", "", None),
            "host_move": ("hostmove", arg, None),
            "hint": ("hint", arg, None),
            "grade": ("grade", " ".join(args), None),
            "led_test": ("ledtest", "walk %s" % arg if arg else "", None),
            "raw": ("raw", arg, None),
            "resign": ("resign", arg, _ended_by("resign")),
            "agree": ("agree", arg, _ended_by("agreed-" + arg)),
            "press_ok": ("button", "ok", None),
        }
        return plans[call]

    def _plan_take_back(self) -> tuple[str, str, Done | None]:
        """The request names the history it takes the last move from (``takeback <hv>
        <moves>``): the board refuses it once that history is gone, so a resend after a
        board reset never takes a second move back."""
        with self._lock:
            held = self.mirror.held()
            before = codec.hex8(self.mirror.digest(held.moves - 1)) if held.moves > 0 else ""
        if held.moves == 0:
            # Nothing held: maybe the board's end of game (a declared end) is taken back.
            return "takeback", "", None

        def done(state: dict[str, str]) -> bool:
            return (state.get("game"), state.get("moves"), state.get("digest")) == (
                held.game,
                str(held.moves - 1),
                before,
            )

        return "takeback", "%d %d" % (held.hv, held.moves), done

    def _begin_new_game(
        self, args: tuple[str, ...], now: float, then: Callable[[RequestResult], None], timeout: float
    ) -> None:
        """``new`` (or ``setup`` from a position), then ``state``: the new game's ruleset,
        position and phase, before ``then`` hears that it is done."""
        ruleset, position, clock = (tuple(args) + ("", "", ""))[:3]
        prefix = "clock=%s " % codec.esc(clock) if clock else ""
        with self._lock:
            game = self.mirror.game

        def done(state: dict[str, str]) -> bool:
            return state.get("game", game) != game and state.get("moves") == "0"

        def started(result: Result, at: float) -> None:
            first = _result("new_game", args, result)
            if isinstance(first, Refused) and position and first.code == codec.E_UNKNOWN:
                first = Refused(
                    "new_game",
                    args,
                    first.code,
                    "this board's firmware is too old to set up a position (it does not know 'setup'): "
                    "deploy the new firmware (zuni deploy)",
                )
            if not isinstance(first, Answered):
                then(first)
                return
            if position:
                with self._lock:
                    self.position = position

            def stated(state: Result, at2: float) -> None:
                second = _result("new_game", args, state)
                then(first if isinstance(second, Answered) else second)

            self.requests.submit("state", "", at, timeout, stated)

        if position:
            self.requests.submit("setup", prefix + position, now, timeout, started, done)
        else:
            self.requests.submit("new", prefix + ruleset, now, timeout, started, done)

    def call(self, call: str, args: tuple[str, ...], timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """``begin`` and wait (this thread) for its result: the reply's fields;
        BoardError when the board refuses, LinkError when no reply comes in time."""
        box: list[RequestResult] = []
        ended = threading.Event()

        def then(result: RequestResult) -> None:
            box.append(result)
            ended.set()

        self.begin(call, args, self.clock(), then, timeout)
        if not ended.wait(timeout + WAIT_GRACE_S):  # the link thread ends it at the deadline
            raise LinkError("no reply to %s within %.1f s" % (call, timeout))
        result = box[0]
        if isinstance(result, Refused):
            raise BoardError(result.code, result.message)
        if isinstance(result, Failed):
            raise LinkError(result.why)
        return result.fields

    def ping(self, timeout: float = REQUEST_TIMEOUT_S) -> float:
        """Round-trip time of one request in seconds."""
        start = self.clock()
        self.call("ping", (), timeout)
        return self.clock() - start

    def state(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """The board's whole state: game, ruleset, moves, digest, hv, phase, turn, ..."""
        return self.call("state", (), timeout)

    def new_game(
        self, ruleset: str, timeout: float = REQUEST_TIMEOUT_S, *, position: str = "", clock: str = ""
    ) -> dict[str, str]:
        """A new game of ``ruleset``; with ``position`` (a position text, docs/rules.md
        "Positions as text", whose ruleset wins over ``ruleset``) a game from that position,
        which the board has the player set up one side at a time (``setup``). A board whose
        firmware predates ``setup`` raises ``BoardError`` (code ``unknown``) saying so.
        ``clock``: a time control (``zuni.clock`` text, e.g. "5+3", "south=5+3 north=10"):
        the board keeps the game's clocks (docs/clocks.md)."""
        return self.call("new_game", (ruleset, position, clock), timeout)

    def take_back(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Takes the last move back (once, even across a board reset: ``_plan_take_back``)."""
        return self.call("take_back", (), timeout)

    def host_move(self, text: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows the computer's move on the board; the player carries it out."""
        return self.call("host_move", (text,), timeout)

    def hint(self, text: str = "", timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows a suggested move ("" clears it)."""
        return self.call("hint", (text,), timeout)

    def grade(self, kind: str, point: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows a graded mistake (``kind``: mistake, blunder; off clears) on ``point``,
        the moved piece's (docs/protocol.md)."""
        return self.call("grade", (kind, point) if point else (kind,), timeout)

    def led_test(self, timeout: float = REQUEST_TIMEOUT_S, walk_ms: int | None = None) -> dict[str, str]:
        """Every LED red, green, blue, white; with ``walk_ms``: one LED at a time in chain
        order, ``walk_ms`` each, each step a ``BoardEvent("ledwalk", "<LED index> <point>")``."""
        return self.call("led_test", () if walk_ms is None else (str(walk_ms),), timeout)

    def raw(self, on: bool, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Raw sensor view: the board sends "raw" events with every sensed change."""
        return self.call("raw", ("on" if on else "off",), timeout)

    def resign(self, side: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        return self.call("resign", (side,), timeout)

    def agree(self, what: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """``what``: "draw" or "count"."""
        return self.call("agree", (what,), timeout)

    def press_ok(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """The OK button, from the PC."""
        return self.call("press_ok", (), timeout)

    def send_raw_line(self, line: bytes) -> None:
        """Writes bytes as they are (diagnostics and tests: garbage, hand-made frames)."""
        self.port.write(line)

    # --- what Requests needs (link.requests.Channel) -----------------------------------

    def write(self, data: bytes) -> None:
        self.port.write(data)

    def registered(self) -> bool:
        return self._connected

    def registrations(self) -> int:
        return self._registrations

    def reregister(self) -> None:
        with self._lock:
            self._need_hello = True
            self._connected = False

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

    def opened(self, now: float) -> None:
        with self._lock:
            self._need_hello = True
            self._hello_at = now
            self._hello_tries = 0
            self._last_heard = now
            self._keepalive_at = now + self.timers.keepalive_s

    def dropped(self, why: str) -> None:
        with self._lock:
            was = self._connected
            self._connected = False
            self._cond.notify_all()
        if was:
            self._emit(Disconnected(why))

    def closed_tick(self, now: float) -> None:
        self.requests.tick(now)

    def idle(self, now: float) -> None:
        if self._need_hello and now >= self._hello_at:
            if self._hello_tries >= HELLO_TRIES:
                raise LinkError("no hello from the board after %d tries" % self._hello_tries)
            self._hello_tries += 1
            self._hello_at = now + self.timers.hello_resend_s
            self._hello_seq = self._send(
                "hello", "proto=%d host=zuni/%s sid=%s" % (codec.PROTO, __version__, self.session_id)
            )
        if self._connected and now >= self._keepalive_at:
            self._keepalive_at = now + self.timers.keepalive_s
            self._ack_due = True
        if self._connected and now - self._last_heard > self.timers.silence_s:
            raise LinkError("the board went silent for %.1f s" % self.timers.silence_s)
        if self._ack_due and self._connected:
            self._ack_due = False
            with self._lock:
                held = self.mirror.held()
            self._send("ack", "%s %d %s" % (codec.esc(held.game), held.moves, codec.hex8(held.digest)))
        self.requests.tick(now)

    def line(self, line: bytes, now: float) -> None:
        self._last_heard = now
        if not line.startswith(b"~"):
            text = line.decode("ascii", "replace")
            self.console.append(text)
            self._emit(Console(text))
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
            self._on_frame(verb, body, now)
        except FrameError:
            self._counts.bad_frames += 1

    def _on_frame(self, verb: str, body: str, now: float) -> None:
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
                self._apply(self.mirror.move(game, hv, index, text, digest), now)
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
                self._apply(self.mirror.report(r), now)
        elif verb == "hello":
            self._on_hello(codec.kv_decode(body), now)
        elif verb == "state":
            kv = codec.kv_decode(body)
            with self._lock:
                self.info = kv
                self._reconcile_kv(kv, now)
            if kv.get("re", "0") == "0":
                # Unsolicited: a new game, a take-back, the end, setup done. ``info``
                # holds it all; the event says the phase.
                self._emit(StateSent(kv.get("phase", "")))
            re = kv.get("re", "0")
            if re.isdigit():
                self.requests.reply(int(re), verb, body, now)
        elif verb in ("ok", "err"):
            seq, rest = reply_seq(body)
            if verb == "ok":
                with self._lock:
                    self._reconcile_kv(codec.kv_decode(rest), now)
            elif seq == 0:
                self._emit(LinkFault(rest))
            elif seq == self._hello_seq and rest.startswith(codec.E_VERSION + " "):
                self.version_error = rest[len(codec.E_VERSION) + 1 :]
                self.console.append("the board refused our hello: " + self.version_error)
            self.requests.reply(seq, verb, body, now)
        elif verb == "event":
            kind, _, text = body.partition(" ")
            self._emit(BoardEvent(codec.unesc(kind), text))
        # Unknown verbs from a newer board are ignored (forward compatible).

    def _on_hello(self, kv: dict[str, str], now: float) -> None:
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
            self._emit(BoardRestarted(boot))
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
            self._emit(Connected(self.url))
        with self._lock:
            self._reconcile_kv(kv, now)
        self.requests.tick(now)  # what waited for the board goes now

    # --- keeping the mirror (lock held) ---------------------------------------------------

    def _reconcile_kv(self, kv: dict[str, str], now: float) -> None:
        r = _report(kv)
        if r is not None:
            self._apply(self.mirror.report(r), now)
        if "ruleset" in kv:
            self.ruleset = kv["ruleset"]
            self._learn_position(kv)

    def _learn_position(self, kv: dict[str, str]) -> None:
        """The start position a hello or state names; ``+``: one too long for that frame
        (the 168-point board's state), the one known stays (from the hello, or sent)."""
        position = kv.get("position", "")
        if position != "+":
            self.position = position

    def _apply(self, out: Outcome, now: float) -> None:
        """Does what the mirror asks: events, fetches, acks (lock held)."""
        if out.stale:
            self._counts.stale += 1
        if out.duplicate:
            self._counts.duplicates += 1
        for change in out.changes:
            if change.kind == "reset":
                self._fetch = None
            self._emit(_event_of(change))
        if out.ask_state:
            self._send("state")  # its ruleset
        if out.fetch_from is not None:
            self._ask_moves(out.fetch_from, now)
        elif out.changes and self._fetch is not None and self._fetch[0] < len(self.mirror.moves):
            self._fetch = None
        if out.ack:
            self._ack_due = True
        self._cond.notify_all()

    def _ask_moves(self, start: int, now: float) -> None:
        """Asks for the moves from ``start`` unless just asked."""
        if self._fetch is not None and self._fetch[0] == start and now - self._fetch[1] < FETCH_RETRY_S:
            return
        self._fetch = (start, now)
        self._counts.fetches += 1
        self._send("moves", str(start))


def _event_of(change: Change) -> LinkEvent:
    """The event of one change of the mirror."""
    if change.kind == "move":
        return Moved(change.index, change.text)
    if change.kind == "undo":
        return Undone(change.index)
    return Reset(change.text)


def _result(call: str, args: tuple[str, ...], result: Result) -> RequestResult:
    """What request ``call`` came to: the reply's fields, the board's refusal, or none."""
    if isinstance(result, Refusal):
        return Refused(call, args, result.code, result.message)
    if isinstance(result, NoReply):
        return Failed(call, args, result.why)
    if result.verb == "ok":
        _, rest = reply_seq(result.body)
        return Answered(call, args, codec.kv_decode(rest))
    return Answered(call, args, codec.kv_decode(result.body))
