"""The replay on a board: ``ReplayDriver`` runs a ``ReplayController`` on a ``BoardLink``.

It feeds the controller what the link reports (the board's moves and phase, button
presses), typed keys (``key``, from any thread) and the time, and does what the
controller asks: host moves, take-backs and hints on the link, the computer's analysis,
the terminal's hand on the virtual board. One thread: ``pump()``.

>>> driver = ReplayDriver(link, ReplayController(ReplayCursor(record)), ui.message)
>>> driver.start()                   # a new game on the board, at the record's start
>>> end = driver.run()               # Action("quit") or Action("play", ...)
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from typing import Any

import zuni
from zuniboard.ai import analyze
from zuniboard.link.client import BoardError, BoardLink, LinkError, LinkEvent
from zuniboard.replay.control import Action, ReplayController

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
    ) -> None:
        self.link = link
        self.controller = controller
        self.say = say
        self.hand = hand
        self.analyze_time = analyze_time
        self.on_change = on_change or (lambda c: None)
        self.inbox: queue.Queue[str] = queue.Queue()
        self.phase = "?"
        self.end: Action | None = None

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
        self._feed()

    def key(self, line: str) -> None:
        """A typed line (from any thread)."""
        self.inbox.put(line)

    def run(self) -> Action:
        while self.end is None:
            self.pump(0.05)
        return self.end

    def pump(self, timeout: float = 0.05) -> None:
        while True:
            try:
                event = self.link.events.get_nowait()
            except queue.Empty:
                break
            self._on_event(event)
        try:
            line: str | None = self.inbox.get(timeout=timeout)
        except queue.Empty:
            line = None
        while line is not None:
            self._do(self.controller.key(line, time.monotonic()))
            try:
                line = self.inbox.get_nowait()
            except queue.Empty:
                line = None
        self._do(self.controller.tick(time.monotonic()))

    # -- events ------------------------------------------------------------------
    def _on_event(self, event: LinkEvent) -> None:
        kind = event.kind
        if kind == "state":
            self._phase(event.text, self.link.info.get("setup", ""))
            self._feed()
        elif kind == "setup":  # a staged setup goes on to this side's pieces
            self._set_up(event.text.strip())
        elif kind in ("move", "undo", "reset", "connected"):
            if kind == "move":
                self.phase = "play"
            elif kind == "undo":
                self.phase = "setup"
            self._feed()
        elif kind == "over":
            self.phase = "over"
            self._feed()
        elif kind == "button":
            self._do(self.controller.button(event.text.strip(), time.monotonic()))
        elif kind in ("wrong", "error"):
            self.say("board", "the board: %s" % event.text)
        elif kind == "disconnected":
            self.say("link", "board disconnected (%s); waiting for it to come back" % event.text)

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

    def _feed(self) -> None:
        if not self.link.synced():
            return  # the link is refetching: its list is not the board's yet
        self._do(self.controller.board(self.link.moves, self.phase, time.monotonic()))

    # -- actions -----------------------------------------------------------------
    def _do(self, actions: list[Action]) -> None:
        changed = False
        for action in actions:
            changed = True
            self._act(action)
        if changed:
            self.on_change(self.controller)

    def _act(self, action: Action) -> None:
        kind = action.kind
        c = self.controller
        if kind == "say":
            self.say(action.tone, action.text)
        elif kind == "show":
            try:
                self.link.host_move(action.text, timeout=REQUEST_TIMEOUT_S)
            except BoardError as exc:
                self._do(c.shown(action.text, time.monotonic(), False, exc.message))
                return
            except LinkError as exc:
                self._do(c.shown(action.text, time.monotonic(), False, str(exc)))
                return
            self._do(c.shown(action.text, time.monotonic(), True))
        elif kind == "takeback":
            try:
                self.link.take_back(timeout=REQUEST_TIMEOUT_S)
            except BoardError as exc:
                self.say("error", "take-back: the board refused: %s" % exc.message)
            except LinkError as exc:
                self.say("error", "take-back: %s" % exc)
        elif kind == "hint":
            try:
                self.link.hint(action.text, timeout=REQUEST_TIMEOUT_S)
            except LinkError as exc:
                self.say("hint", "(the board could not show the hint: %s)" % exc)
        elif kind == "analyze":
            game = c.cursor.game.copy()
            game.push(c.cursor.moves[action.ply])
            try:
                result = analyze(game, action.ply, time_limit=self.analyze_time)
            except (IndexError, ValueError) as exc:
                self._do(c.analysed(action.ply, None, str(exc)))
                return
            self._do(c.analysed(action.ply, result))
        elif kind == "carry":
            if self.hand is not None:
                move = c.cursor.next_move()
                if move is not None and move.text() == action.text:
                    self.hand.make_move(c.cursor.game, move)
        elif kind == "setup":
            if self.phase == "setup":
                self._set_up(self.link.info.get("setup", ""))
        elif kind in ("play", "quit"):
            self.end = action
