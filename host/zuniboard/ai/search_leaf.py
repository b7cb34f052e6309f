"""The search's scores where it stops: a position's static evaluation for the side to
move (with the quiet count's pull in line games and Awithlaknakwe's contacts and
threats), a draw (below even for the root's team by the contempt) and a game's end."""

from __future__ import annotations

from typing import cast

import zuni
from zuni.awith import AwithGame
from zuni.line import LineGame
from zuniboard.ai.evaluate import Evaluator, awith_contacts_threats, make_evaluator

WIN = 10**6
# Scores above WIN - MAX_PLY are "win in (WIN - score) plies".
MAX_PLY = 200
WIN_BOUND = WIN - MAX_PLY
# Line games under stall=more: what a material lead gains as the quiet count nears its
# end (at the end the count wins the game), in hundredths of a piece.
QUIET_LEAD = 60


class LeafScores:
    """Scores of the positions where the search stops, for the side to move there.

    ``evaluator``, ``contempt``, ``quiet_aware``, ``contact`` and ``threat`` are the
    ``Searcher``'s options (see there); ``prepare`` sets the scores up for a root."""

    def __init__(
        self, evaluator: Evaluator | None, *, contempt: int, quiet_aware: bool, contact: int, threat: int
    ) -> None:
        self._evaluator = evaluator
        self.contempt = contempt
        self.quiet_aware = quiet_aware
        self.contact = contact
        self.threat = threat
        self._evaluator_for: str | None = None
        self._evaluate: Evaluator = _zero
        self.root_team = 0
        self.quiet_limit = 0
        self._line_quiet = False
        self._stall_more = False
        self._contact_on = False

    def prepare(self, game: zuni.Game) -> None:
        """Set up for a search from ``game``'s position."""
        ruleset = str(game.ruleset)
        if self._evaluator is not None:
            self._evaluate = self._evaluator
        elif self._evaluator_for != ruleset:
            self._evaluate = make_evaluator(game)
            self._evaluator_for = ruleset
        self.root_team = game.team_of(game.turn)
        self.quiet_limit = game.ruleset.get_int("quiet")
        line = game.ruleset.game_id != "awithlaknakwe"
        self._line_quiet = line and self.quiet_aware and self._evaluator is None
        self._stall_more = line and game.ruleset["stall"] == "more"
        self._contact_on = not line and (self.contact != 0 or self.threat != 0) and self._evaluator is None

    def draw(self, game: zuni.Game) -> int:
        """A draw, for the side to move: below an even position for the root's team by
        ``contempt`` (it plays on rather than settle for a draw), above it for the other."""
        if game.team_of(game.turn) == self.root_team:
            return -self.contempt
        return self.contempt

    def static_for_mover(self, game: zuni.Game) -> int:
        score = self._evaluate(game)
        if self._line_quiet:
            score = self._quiet_adjusted(cast(LineGame, game), score)  # _line_quiet: a line game
        elif self._contact_on:
            # _contact_on: Awithlaknakwe's
            contacts, threats = awith_contacts_threats(cast(AwithGame, game), self.root_team)
            bonus = self.contact * contacts + self.threat * threats
            score += bonus if self.root_team == 0 else -bonus
        return -score if game.team_of(game.turn) else score

    def _quiet_adjusted(self, game: LineGame, score: int) -> int:
        """A line game's evaluation (team 0's) as the quiet rule nears its end.

        The quiet rule ends the game after ``quiet`` moves without a capture: then the
        count decides (``stall=more``) or it is a draw. So the nearer the end, the
        nearer a position's value is to that result: with equal material (or
        ``stall=draw``) the positional part fades into the draw's score, which the
        root's team holds below even (contempt), so that it makes progress (a
        capture, a trade into a won table position) while there is time, instead of
        shuffling into the count; with more pieces under ``stall=more`` the side ahead
        gains up to ``QUIET_LEAD`` as the count nears the end, so that the side behind
        seeks the exchanges early and the side ahead keeps its lead safe."""
        q: int = game.quiet
        if not q:
            return score
        limit = self.quiet_limit
        counts: list[int] = game.counts
        lead = counts[0] - counts[1]
        if lead and self._stall_more:
            return score + (QUIET_LEAD * q // limit if lead > 0 else -QUIET_LEAD * q // limit)
        draw = -self.contempt if self.root_team == 0 else self.contempt
        return (score * (limit - q) + draw * q) // limit

    def terminal(self, game: zuni.Game, outcome: zuni.Outcome, ply: int) -> int:
        winner = outcome.winner
        if winner is None:
            return self.draw(game)
        if winner == game.team_of(game.turn):
            return WIN - ply
        return -(WIN - ply)


def _zero(game: zuni.Game) -> int:
    return 0
