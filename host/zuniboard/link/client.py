"""The host side of the board link (docs/protocol.md): ``BoardLink``.

>>> link = BoardLink.open("auto")            # or "/dev/ttyACM0", "socket://host:7777", a pty path
>>> link.wait_synced(5.0)
>>> link.moves                               # the board's game, mirrored
['s3xm4-m5']
>>> event = link.events.get(timeout=60)      # Moved(index=1, text="m6-m5"), ... (link.events)
>>> link.host_move("n4xm5-s4")               # raises BoardError if the board refuses it
>>> link.begin("host_move", ("n4xm5-s4",), now, inbox.put)   # the same, without waiting

``BoardLink`` joins these parts, one concern each:

- ``zuniboard.link.port.LinkPort``: the serial port and its thread (open by URL, read
  lines, reopen after an unplug, a board reset or silence);
- ``zuniboard.link.requests.Requests``: requests numbered and resent until answered, done
  once by the board;
- ``zuniboard.link.mirror.BoardMirror``: the pure copy of the board's game, which
  changes only by the rules of the history version (a take-back only on a report with a
  higher version than the mirror's: a late reply or a heartbeat queued behind a move
  takes nothing back), kept from the board's frames by
  ``zuniboard.link.keeper.BoardKeeper`` (with the board's hello, state, ruleset);
- ``zuniboard.link.registration.Registration``: hello until the board answers, acks as
  keep-alive, a silent board dropped;
- ``zuniboard.link.calls.Calls``: the named requests as frames, and their results;
  ``zuniboard.link.blocking.BlockingCalls``: the same, waiting.

- ``zuniboard.link.router.FrameRouter``: the port thread's handler, each frame to its part.

Here: the events and the waits. Consumers of ``events`` see every move once, in order, with
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
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import serial

from zuni_link import codec
from zuniboard.link.blocking import REQUEST_TIMEOUT_S, WAIT_GRACE_S, BlockingCalls
from zuniboard.link.calls import CALLS, Calls
from zuniboard.link.events import (
    Answered,
    Failed,
    LinkEvent,
    Refused,
    RequestResult,
)
from zuniboard.link.keeper import FETCH_RETRY_S, BoardKeeper
from zuniboard.link.mirror import BoardMirror
from zuniboard.link.port import BAUD, PICO_PID, PICO_VID, Clock, LinkError, LinkPort, SerialPort, discover
from zuniboard.link.registration import HELLO_TRIES, Registration
from zuniboard.link.requests import REQUEST_RESEND_S, BoardError, Requests
from zuniboard.link.router import FrameRouter
from zuniboard.link.timers import REAL_TIMERS, LinkTimers

__all__ = [
    "BAUD",
    "CALLS",
    "FETCH_RETRY_S",
    "HELLO_TRIES",
    "PICO_PID",
    "PICO_VID",
    "REQUEST_RESEND_S",
    "REQUEST_TIMEOUT_S",
    "WAIT_GRACE_S",
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
KEEPALIVE_S = LinkTimers.keepalive_s  # an ack as keep-alive (the board stops resending after 6 s of silence)
SILENCE_S = LinkTimers.silence_s  # nothing heard for this long: reopen (the board beats every 2 s)


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


class BoardLink(BlockingCalls):
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
        self.console: deque[str] = deque(maxlen=200)
        self._cond = threading.Condition(threading.RLock())  # mirror and connection state
        self.registration = Registration(self._cond, timers)
        self.keeper = BoardKeeper(self._cond, self._emit, self._send, self.registration.want_ack)
        self.requests = Requests(self, timers.request_resend_s)
        self.calls = Calls(self.requests, self.keeper)
        self.router = FrameRouter(
            url, self.registration, self.keeper, self.requests, self._emit, self._send, self.console.append
        )
        self.port = LinkPort(url, self.router, opener, clock, timers.reopen_s)
        self.port.console_log = self.console.append

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
        with self._cond:
            self._cond.notify_all()
        self.port.close()
        self.requests.close("the link closed", self.clock())
        with self._cond:
            self._cond.notify_all()

    def __enter__(self) -> BoardLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what the companion uses --------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.registration.connected

    @property
    def session_id(self) -> str:
        return self.registration.session_id

    @property
    def version_error(self) -> str:
        """The board speaks another protocol version: what it said ("" if not)."""
        return self.registration.version_error

    @property
    def mirror(self) -> BoardMirror:
        return self.keeper.mirror

    @property
    def hello(self) -> dict[str, str]:
        """The board's last hello."""
        return self.keeper.hello

    @property
    def info(self) -> dict[str, str]:
        """The board's last state."""
        return self.keeper.info

    @property
    def ruleset(self) -> str:
        return self.keeper.ruleset

    @property
    def position(self) -> str:
        """The start position of the board's game when set up from one, else ""."""
        return self.keeper.position

    @property
    def move_times(self) -> dict[tuple[str, int, str], tuple[int, int]]:
        """On a clock: (game, index, move text) -> (ms the move took, the mover's ms left)."""
        return self.keeper.move_times

    @property
    def game(self) -> str:
        return self.mirror.game

    @property
    def stats(self) -> LinkStats:
        k = self.keeper.stats
        r = self.requests.stats
        return LinkStats(
            frames_in=self.router.frames_in,
            frames_out=self.port.frames_out,
            bad_frames=self.router.bad_frames + self.port.bad_lines,
            duplicates=k.duplicates,
            stale=k.stale,
            fetches=k.fetches,
            reconnects=self.port.reconnects,
            resends=r.resends,
            already_done=r.already_done,
        )

    @property
    def board_id(self) -> str:
        """The board's unique id from its hello (``id``: a Pico's ``machine.unique_id()``
        in hex, a virtual board's from its flash image); "" if it sends none."""
        with self._cond:
            return self.hello.get("id", "")

    @property
    def moves(self) -> list[str]:
        with self._cond:
            return list(self.mirror.moves)

    def _wait_for(self, ready: Callable[[], bool], timeout: float) -> bool:
        """Blocks (the caller's thread) until ``ready()`` or ``timeout`` s pass."""
        deadline = self.clock() + timeout
        with self._cond:
            while not ready():
                left = deadline - self.clock()
                if left <= 0 or self.port.closed:
                    return False
                self._cond.wait(min(left, 0.25))
            return True

    def wait_connected(self, timeout: float) -> bool:
        return self._wait_for(lambda: self.connected, timeout)

    def synced(self) -> bool:
        """True when the mirror matches the board's freshest word (hello, beat, reply, move)."""
        with self._cond:
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
        return self._wait_for(lambda: self.connected and self.mirror.synced(), timeout)

    def wait_moves(self, count: int, timeout: float) -> bool:
        """Waits until the mirror holds at least ``count`` moves."""
        return self._wait_for(lambda: len(self.mirror.moves) >= count, timeout)

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
        self.calls.begin(call, args, now, then, timeout)

    def send_raw_line(self, line: bytes) -> None:
        """Writes bytes as they are (diagnostics and tests: garbage, hand-made frames)."""
        self.port.write(line)

    # --- what Requests needs (link.requests.Channel) -----------------------------------

    def write(self, data: bytes) -> None:
        self.port.write(data)

    def registered(self) -> bool:
        return self.registration.connected

    def registrations(self) -> int:
        return self.registration.registrations

    def reregister(self) -> None:
        self.registration.register_again()

    def _send(self, verb: str, body: str = "") -> int:
        """Fire and forget, from the link thread (a lost one is asked again later)."""
        seq = self.requests.next_seq()
        with contextlib.suppress(OSError, serial.SerialException, LinkError):
            self.port.write(codec.encode(seq, verb, body))
        return seq

    # --- what the router calls (from the port thread) -------------------------------------

    def _emit(self, event: LinkEvent) -> None:
        self.events.put(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception as exc:  # a consumer's bug must not stop the link
                self.console.append("on_event failed: %r" % exc)
