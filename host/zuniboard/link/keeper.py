"""What the host knows of the board, kept from its frames: ``BoardKeeper``.

The board's reports (``move``, ``beat``, ``state``, ``ok`` and ``hello`` frames) go to the
mirror (``zuniboard.link.mirror.BoardMirror``, the pure copy of its game); the keeper does
what the mirror asks (events, a fetch of missing moves, an ack) and keeps the rest the
board says of itself: its last hello and state, its ruleset, the start position, the
times of moves on a clock. It sends and emits through the two callbacks it is given and
never reads a clock: the link's loop hands it ``now``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from zuni_link import codec
from zuni_link.codec import FrameError
from zuniboard.link.events import LinkEvent, Moved, Reset, Undone
from zuniboard.link.mirror import BoardMirror, Change, Outcome, Report

FETCH_RETRY_S = 1.0  # do not ask for the same moves again sooner


@dataclass
class KeeperStats:
    duplicates: int = 0
    stale: int = 0  # reports older than the mirror (a late reply, a queued heartbeat): ignored
    fetches: int = 0


def report_of(kv: dict[str, str]) -> Report | None:
    """The (game, hv, moves, digest) of a hello, state or ok; None if it has none."""
    if not all(k in kv for k in ("game", "moves", "digest", "hv")):
        return None
    return Report(
        kv["game"],
        codec.parse_index(kv["hv"], "hv"),
        codec.parse_index(kv["moves"], "moves"),
        codec.parse_digest(kv["digest"]),
    )


def beat_report(fields: list[str]) -> Report:
    """The report of a ``beat`` frame's fields: game, moves, digest, hv (then its boot)."""
    if len(fields) < 4:
        raise FrameError(codec.E_ARGS, "beat needs 4 fields")
    return Report(
        codec.unesc(fields[0]),
        codec.parse_index(fields[3], "hv"),
        codec.parse_index(fields[1], "moves"),
        codec.parse_digest(fields[2]),
    )


class BoardKeeper:
    """The mirror and the board's own words about itself. Every method that changes them
    takes ``cond``'s lock (the link's lock: the blocking waits sleep on ``cond``)."""

    def __init__(
        self,
        cond: threading.Condition,
        emit: Callable[[LinkEvent], None],
        send: Callable[[str, str], int],
        want_ack: Callable[[], None],
    ) -> None:
        self.cond = cond
        self.emit = emit
        self.send = send
        self.want_ack = want_ack
        self.mirror = BoardMirror()
        self.hello: dict[str, str] = {}  # the board's last hello
        self.info: dict[str, str] = {}  # the board's last state
        # On a clock: (game, index, move text) -> (ms the move took, the mover's ms left),
        # from the board's move frames (docs/clocks.md).
        self.move_times: dict[tuple[str, int, str], tuple[int, int]] = {}
        self.ruleset = ""
        # The start position of the board's game when it was set up from one (the board's
        # ``position=`` in hello and state; docs/rules.md "Positions as text"), else "".
        self.position = ""
        self.boot = ""  # the boot id of the board's last hello
        self.stats = KeeperStats()
        self._fetch: tuple[int, float] | None = None  # (from index, when asked)

    # --- the board's frames -------------------------------------------------------------

    def on_move(self, body: str, now: float) -> None:
        """``move <game> <index> <text> <digest> <hv> [<ms> <left>]``."""
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
        with self.cond:
            if times is not None:
                # The move's time and the mover's clock after it (docs/clocks.md).
                self.move_times[(game, index, text)] = times
            self._apply(self.mirror.move(game, hv, index, text, digest), now)

    def on_beat(self, body: str, now: float) -> bool:
        """A heartbeat; False (and nothing kept) when it names another boot than the last
        hello's: a board that booted again, whose boot hello the host missed."""
        t = codec.tokens(body)
        report = beat_report(t)
        with self.cond:
            if len(t) > 4 and self.boot and t[4] != self.boot:
                return False
            self._apply(self.mirror.report(report), now)
            return True

    def on_state(self, kv: dict[str, str], now: float) -> None:
        with self.cond:
            self.info = kv
            self.reconcile(kv, now)

    def on_hello(self, kv: dict[str, str]) -> str:
        """Keeps a hello's words; returns the boot id of the hello before it."""
        boot = kv.get("boot", "")
        with self.cond:
            if boot != self.boot:
                # A board that booted again may have lost its journal (its version with it).
                self.mirror.new_boot()
            old_boot, self.boot = self.boot, boot
            self.hello = kv
            if "ruleset" in kv:
                self.ruleset = kv["ruleset"]
                self._learn_position(kv)
        return old_boot

    def reconcile(self, kv: dict[str, str], now: float) -> None:
        """A hello, state or ok: its report to the mirror, its ruleset and position kept."""
        with self.cond:
            r = report_of(kv)
            if r is not None:
                self._apply(self.mirror.report(r), now)
            if "ruleset" in kv:
                self.ruleset = kv["ruleset"]
                self._learn_position(kv)

    def set_position(self, position: str) -> None:
        """The host set the board's game up from ``position`` (a ``setup`` it asked for)."""
        with self.cond:
            self.position = position

    def ack_body(self) -> str:
        """The ``ack`` frame's body: the game, moves and digest the mirror holds."""
        with self.cond:
            held = self.mirror.held()
        return "%s %d %s" % (codec.esc(held.game), held.moves, codec.hex8(held.digest))

    # --- inside (lock held) ---------------------------------------------------------------

    def _learn_position(self, kv: dict[str, str]) -> None:
        """The start position a hello or state names; ``+``: one too long for that frame
        (the 168-point board's state), the one known stays (from the hello, or sent)."""
        position = kv.get("position", "")
        if position != "+":
            self.position = position

    def _apply(self, out: Outcome, now: float) -> None:
        """Does what the mirror asks: events, fetches, acks."""
        if out.stale:
            self.stats.stale += 1
        if out.duplicate:
            self.stats.duplicates += 1
        for change in out.changes:
            if change.kind == "reset":
                self._fetch = None
            self.emit(event_of(change))
        if out.ask_state:
            self.send("state", "")  # its ruleset
        if out.fetch_from is not None:
            self._ask_moves(out.fetch_from, now)
        elif out.changes and self._fetch is not None and self._fetch[0] < len(self.mirror.moves):
            self._fetch = None
        if out.ack:
            self.want_ack()
        self.cond.notify_all()

    def _ask_moves(self, start: int, now: float) -> None:
        """Asks for the moves from ``start`` unless just asked."""
        if self._fetch is not None and self._fetch[0] == start and now - self._fetch[1] < FETCH_RETRY_S:
            return
        self._fetch = (start, now)
        self.stats.fetches += 1
        self.send("moves", str(start))


def event_of(change: Change) -> LinkEvent:
    """The event of one change of the mirror."""
    if change.kind == "move":
        return Moved(change.index, change.text)
    if change.kind == "undo":
        return Undone(change.index)
    return Reset(change.text)
