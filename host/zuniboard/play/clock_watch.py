"""The game's clocks as ``zuni play`` shows them: ``ClockWatch``.

The board keeps the clocks (docs/clocks.md); ``clocks`` is their view from its reports.
The watch says once a move when a person's flag is about to fall. Part of
``controller.GameController``.
"""

from __future__ import annotations

from zuniboard.games.clock_view import ClockView
from zuniboard.games.words import count_words, side_title
from zuniboard.play.actions import Action, say
from zuniboard.play.state import GameState


class ClockWatch:
    """The clocks of the game of ``state`` (off without)."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.clocks = ClockView()
        self.low_said: tuple[str, int] | None = None  # (side, moves) whose low time was said

    def text(self, now: float) -> str:
        """The clocks in words ('' without), the running one marked so."""
        return self.clocks.text(now).replace(" *", " (running)")

    def low_time(self, side: str, now: float) -> list[Action]:
        """A person's flag about to fall: said once a move (the board ticks its home row)."""
        clocks = self.clocks
        if not clocks.on or clocks.running != side or self.state.seat(side).is_ai:
            return []
        left = clocks.remaining_ms(side, now)
        moves = len(self.state.moves)
        if left > clocks.low_ms(side) or left <= 0 or self.low_said == (side, moves):
            return []
        self.low_said = (side, moves)
        return [say("%s: %s left on the clock" % (side_title(side), count_words(-(-left // 1000), "second")), "clock")]
