"""The game ``zuni play`` mirrors and who plays it: ``GameState``, what every part of the
game controller (``controller.GameController``) reads.

It owns the mirrored ``zuni.Game`` and its move list, the board's id of the game, the
seats, the board's phase, the game's number in the log and the position's generation
(answers thought about for an older position are dropped). When the position changes
(``new_position``) the parts that keep something about the old one forget it: each
registers its ``forget`` with ``on_new_position``. The end of a game (``ended``) is
here too: it ends the position for all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import zuni
from zuniboard.games.words import board_error_words, move_words, outcome_words
from zuniboard.play.actions import CANCEL, REDRAW, Action, Ended, Think, say
from zuniboard.play.seats import Seat

MOVES_AT_BOARD = "on the board"
MOVES_AT_PAGE = "on the page"  # the virtual board with --manual: the terminal's hand is off


class GameState:
    """The mirrored game, its seats and phase (``hand``: the terminal's hand moves pieces
    on the virtual board; ``moves_at``: where a person makes moves)."""

    def __init__(self, *, hand: bool, deterministic: bool, moves_at: str) -> None:
        self.hand = hand  # the terminal's hand moves pieces (the virtual board)
        self.moves_at = moves_at  # where a person makes moves (without the hand, typed ones too)
        self.deterministic = deterministic
        self.seats: dict[str, Seat] = {}
        self.game: Any = None  # zuni.Game mirroring the board's game
        self.moves: list[str] = []
        self.board_game = ""  # the board's id of its game
        self.ruleset = ""
        self.position = ""  # the start position of the game mirrored ("": the rules' start)
        self.number = 0  # the game's number in the log (said to the player)
        self.phase = "?"  # the board's: setup, play, over ("?" not known yet)
        self.gen = 0  # position generation: answers for older positions are dropped
        self.busy: set[str] = set()  # searches running: ai, hint, grade
        self._forgets: list[Callable[[], None]] = []

    # -- what it is ------------------------------------------------------------------
    def turn_side(self) -> str | None:
        if self.game is None or self.game.is_game_over():
            return None
        return str(zuni.SIDE_NAMES[self.game.turn])

    def is_over(self) -> bool:
        return self.game is not None and bool(self.game.is_game_over())

    def seat(self, side: str) -> Seat:
        return self.seats.get(side) or Seat("human")

    def human_side(self) -> str | None:
        """The side a typed command speaks for: the side to move if a person plays it,
        else the first side a person plays."""
        side = self.turn_side()
        if side is not None and not self.seat(side).is_away:
            return side
        for s, seat in self.seats.items():
            if not seat.is_away:
                return s
        return None

    def who(self, side: str) -> str:
        seat = self.seat(side)
        return seat.name if seat.is_remote else "the computer" if seat.is_ai else "a person here"

    def how(self, text: str) -> str:
        """Move ``text`` in words (the text itself when the rules refuse it here)."""
        try:
            return move_words(self.game, self.game.parse_move(text))
        except zuni.MoveError:
            return text

    def board_words(self, text: str) -> str:
        """The board's ``missing: m6; extra: m5`` said as the rule that refused the move."""
        return text if self.game is None else board_error_words(self.game, text)

    # -- what changes it -----------------------------------------------------------------
    def think(self, what: str, side: str, level: int, limits: tuple[tuple[str, float], ...] = ()) -> Think:
        """A search of the position for ``side`` (``what``: ai, hint, grade), marked running."""
        self.busy.add(what)
        return Think(what, side, self.game.copy(), level, self.gen, limits)

    def on_new_position(self, forget: Callable[[], None]) -> None:
        """``forget`` is called whenever the position changes."""
        self._forgets.append(forget)

    def new_position(self, out: list[Action]) -> None:
        """The position changed: answers being thought about are for the old one."""
        self.gen += 1
        self.busy.clear()
        out.append(CANCEL)
        for forget in self._forgets:
            forget()

    def ended(self, outcome: zuni.Outcome) -> list[Action]:
        self.new_position([])
        self.phase = "over"
        return [
            Ended(str(outcome.result), str(outcome.termination)),
            say(
                "%s. Game #%d is logged; press OK on the board or type new for a new game, quit to leave"
                % (outcome_words(self.game, outcome), self.number),
                "over",
            ),
        ]

    def declare(self, outcome: zuni.Outcome) -> list[Action]:
        """A declared end (resignation, agreement) the board accepted."""
        out = [CANCEL] + self.ended(outcome)
        out.append(REDRAW)
        return out

    def time_lost(self) -> list[Action]:
        """A flag fell (the mirror already ended so, docs/clocks.md)."""
        outcome = self.game.outcome()
        return [CANCEL] + (self.ended(outcome) if outcome is not None else []) + [REDRAW]
