"""The replay on a board: ``ReplayDriver`` runs a ``ReplayController`` on a ``BoardLink``.

It feeds the controller what the link reports (the board's moves and phase, button
presses), typed keys (``key``, from any thread) and the time, and does what the
controller asks: host moves, take-backs and hints on the link, the computer's analysis,
the terminal's hand on the virtual board. One thread: ``pump()``, which reads the clock
(``now``, by default ``time.monotonic``) and never waits on the board: requests are
begun on the link, their results come back through the inbox.

>>> driver = ReplayDriver(link, ReplayController(ReplayCursor(record)), ui.message)
>>> driver.start()                   # a new game on the board, at the record's start
>>> end = driver.run()               # Quit() or PlayOn(line, ply)
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from typing import Any, assert_never

import zuni
from zuniboard.ai import analyze
from zuniboard.link.client import BoardError, BoardLink, LinkError
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
    Woken,
)
from zuniboard.link.port import Clock
from zuniboard.replay.control import (
    Action,
    Analyze,
    Carry,
    End,
    PlayOn,
    Quit,
    ReplayController,
    Say,
    SetUp,
    Show,
    ShowHint,
    TakeBack,
)

ANALYZE_TIME_S = 0.5  # the computer's thinking time for the view of one move
REQUEST_TIMEOUT_S = 10.0


class ReplayStartError(Exception):
    """The replay cannot start on this board (no answer, a game it cannot set up)."""


class ReplayDriver:
    def __init__(
        self,
        link: BoardLink,
        controller: ReplayController,
        say: Callable[[str, str], None],
        *,
        hand: Any = None,
        analyze_time: float = ANALYZE_TIME_S,
        on_change: Callable[[ReplayController], None] | None = None,
        now: Clock = time.monotonic,
    ) -> None:
        self.now = now  # the clock: read by ``pump`` and ``start``, the edges
        self.link = link
        self.controller = controller
        self.say = say
        self.hand = hand
        self.analyze_time = analyze_time
        self.on_change = on_change or (lambda c: None)
        self.inbox: queue.Queue[str | RequestResult | Woken] = queue.Queue()
        link.on_event = lambda _event: self.inbox.put(Woken())  # a board move handled as it comes
        self.phase = "?"
        self.end: End | None = None

    def start(self, timeout: float = 10.0) -> None:
        """A new game on the board with the record's rules, from the start position."""
        record = self.controller.cursor.record
        if not self.link.wait_synced(timeout):
            raise ReplayStartError("the board did not answer and agree on its game within %.0f s" % timeout)
        position = record.position or ""
        try:
            # A game from a set-up position: the board has it set up one side at a time.
            self.link.new_game(str(record.ruleset), timeout=REQUEST_TIMEOUT_S, position=position)
            state = self.link.state(timeout=REQUEST_TIMEOUT_S)
        except BoardError as exc:
            what = "the position %r" % position if position else str(record.ruleset)
            raise ReplayStartError("the board cannot start %s: %s" % (what, exc.message))
        except LinkError as exc:
            raise ReplayStartError("no new game on the board: %s" % exc)
        self.link.drop_events()  # what the link said before the new game is about the old one
        self._phase(state.get("phase", "?"), state.get("setup", ""))
        self._feed(self.now())

    def key(self, line: str) -> None:
        """A typed line (from any thread)."""
        self.inbox.put(line)

    def run(self) -> End:
        while self.end is None:
            self.pump(0.05)
        return self.end

    def pump(self, timeout: float = 0.05) -> None:
        """Handles what arrived (waiting at most ``timeout`` s for a typed line or a reply)."""
        items: list[str | RequestResult | Woken] = []
        try:
            items.append(self.inbox.get(timeout=timeout))
        except queue.Empty:
            pass
        self.step(self.now(), items)

    def step(self, now: float, items: list[str | RequestResult | Woken] | None = None) -> None:
        """One pass at time ``now``: the link's events, ``items`` and the inbox, what is due."""
        for event in self.link.unread_events():
            self._on_event(event, now)
        pending = list(items or [])
        while True:
            for item in pending:
                if isinstance(item, str):
                    self._do(self.controller.key(item, now), now)
                elif not isinstance(item, Woken):  # a wake-up: the link's events are read above
                    self._replied(item, now)
            pending = []
            try:
                pending.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        self._do(self.controller.tick(now), now)

    # -- events ------------------------------------------------------------------
    def _on_event(self, event: LinkEvent, now: float) -> None:
        match event:
            case StateSent(phase):
                self._phase(phase, self.link.info.get("setup", ""))
                self._feed(now)
            case Moved():
                self.phase = "play"
                self._feed(now)
            case Undone():
                self.phase = "setup"
                self._feed(now)
            case Reset() | Connected():
                self._feed(now)
            case BoardEvent("setup", text):  # a staged setup goes on to this side's pieces
                self._set_up(text.strip())
            case BoardEvent("over"):
                self.phase = "over"
                self._feed(now)
            case BoardEvent("button", text):
                self._do(self.controller.button(text.strip(), now), now)
            case BoardEvent("wrong" | "error", text):
                self.say("board", "the board: %s" % text)
            case Disconnected(why):
                self.say("link", "board disconnected (%s); waiting for it to come back" % why)
            case BoardEvent() | BoardRestarted() | LinkFault() | Console():
                pass
            case _:
                assert_never(event)

    def _phase(self, phase: str, side: str = "") -> None:
        if phase:
            self.phase = phase
        if phase == "setup":
            self._set_up(side)

    def _set_up(self, side: str) -> None:
        """The terminal's hand sets the position up: all of it, or in a staged setup (a
        game from a position) the pieces of the sides up to ``side``, in seating order."""
        if self.hand is None:
            return
        game = self.controller.cursor.game
        board = getattr(self.hand, "board", None)
        if not side or side not in zuni.SIDE_NAMES or board is None:
            self.hand.set_up(game)
            return
        upto = zuni.SIDE_NAMES.index(side)
        names = game.geometry.names
        board.set_occupied(
            {str(names[i]) for i in range(len(names)) if game.board[i] and zuni.piece_side(game.board[i]) <= upto}
        )

    def _feed(self, now: float) -> None:
        if not self.link.synced():
            return  # the link is refetching: its list is not the board's yet
        self._do(self.controller.board(self.link.moves, self.phase, now), now)

    # -- actions -----------------------------------------------------------------
    def _do(self, actions: list[Action], now: float) -> None:
        changed = False
        for action in actions:
            changed = True
            self._act(action, now)
        if changed:
            self.on_change(self.controller)

    def _act(self, action: Action, now: float) -> None:
        c = self.controller
        match action:
            case Say(text, tone):
                self.say(tone, text)
            case Show(move):
                self._begin("host_move", (move,), now)
            case TakeBack():
                self._begin("take_back", (), now)
            case ShowHint(move):
                self._begin("hint", (move,), now)
            case Analyze(ply):
                game = c.cursor.game.copy()
                game.push(c.cursor.moves[ply])
                try:
                    result = analyze(game, ply, time_limit=self.analyze_time)
                except (IndexError, ValueError) as exc:
                    self._do(c.analysed(ply, None, str(exc)), now)
                    return
                self._do(c.analysed(ply, result), now)
            case Carry(carried):
                if self.hand is not None:
                    nxt = c.cursor.next_move()
                    if nxt is not None and nxt.text() == carried:
                        self.hand.make_move(c.cursor.game, nxt)
            case SetUp():
                if self.phase == "setup":
                    self._set_up(self.link.info.get("setup", ""))
            case PlayOn() | Quit():
                self.end = action
            case _:
                assert_never(action)

    def _begin(self, call: str, args: tuple[str, ...], now: float) -> None:
        self.link.begin(call, args, now, self.inbox.put, timeout=REQUEST_TIMEOUT_S)

    def _replied(self, result: RequestResult, now: float) -> None:
        """How a request ended, as the controller (or the user) hears it."""
        c = self.controller
        match result:
            case Answered("host_move", (text,)):
                self._do(c.shown(text, now, True), now)
            case Refused("host_move", (text,), message=message) | Failed("host_move", (text,), why=message):
                self._do(c.shown(text, now, False, message), now)
            case Refused("take_back", message=message):
                self.say("error", "take-back: the board refused: %s" % message)
            case Failed("take_back", why=why):
                self.say("error", "take-back: %s" % why)
            case Refused("hint", code=code, message=message):
                self.say("hint", "(the board could not show the hint: %s)" % BoardError(code, message))
            case Failed("hint", why=why):
                self.say("hint", "(the board could not show the hint: %s)" % why)
            case Answered() | Refused() | Failed():
                pass
            case _:
                assert_never(result)
