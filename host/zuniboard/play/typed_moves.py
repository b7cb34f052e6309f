"""Moves typed at the terminal or on the page: ``TypedMoves``.

On the virtual board the terminal's hand makes a typed move; typed while the board is
being set up, the move waits until it is (told once). The move the hand made is kept
until the board reports it, so that a chain the board cannot tell from another (the
same points, the same pieces taken) is said as the one typed. Without the hand (a real
board, ``--manual``) a typed move is only told where to make it. Part of
``controller.GameController``.
"""

from __future__ import annotations

import zuni
from zuniboard.play.actions import Action, MakeMove, request, say
from zuniboard.play.state import MOVES_AT_PAGE, GameState


class TypedMoves:
    """The typed moves of the game of ``state``."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.typed_ahead: zuni.Move | None = None  # a move typed while the board was being set up
        self.ahead_unsaid = False  # ... not told yet that it waits for the setup
        self.ahead_text = ""
        self.typed = ""  # the typed move the terminal's hand made, until the board reports it
        state.on_new_position(self.forget)

    def forget(self) -> None:
        self.typed_ahead = None
        self.ahead_unsaid = False
        self.typed = ""

    def move(self, text: str, move: zuni.Move) -> list[Action]:
        """A person typed ``move`` (``text``)."""
        state = self.state
        if not state.hand:
            why = "with --manual" if state.moves_at == MOVES_AT_PAGE else "on a real board"
            return [say("%s: make it %s (the terminal does not move pieces %s)" % (text, state.moves_at, why))]
        side = state.turn_side()
        if side is not None and state.seat(side).is_away:
            return [say("%r: it is %s's turn (%s)" % (text, side, state.who(side)))]
        if state.phase != "play":
            # The phase known may be a moment old: ask; the move is made once the board
            # is set up (at once, if it is already).
            self.typed_ahead = move
            self.ahead_unsaid = True
            self.ahead_text = text
            return [request("state")]
        self.typed = text
        return [MakeMove(move)]

    def reported(self) -> str:
        """The board reported a move: the one the hand made for a typed move ('' none)."""
        typed, self.typed = self.typed, ""
        return typed

    def ahead_note(self) -> list[Action]:
        """Once: the move typed ahead waits for the setup."""
        if self.typed_ahead is None or not self.ahead_unsaid:
            return []
        self.ahead_unsaid = False
        return [say("%s: the board is being set up; the move is made as soon as it is" % self.ahead_text)]

    def set_up(self) -> list[Action]:
        """The board is set up: the move typed ahead is made now (if still legal)."""
        ahead, self.typed_ahead = self.typed_ahead, None
        self.ahead_unsaid = False
        game = self.state.game
        if ahead is not None and self.state.hand and game is not None and ahead in game.legal_moves():
            self.typed = ahead.text()
            return [MakeMove(ahead)]
        return []
