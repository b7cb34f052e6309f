"""Move grades: best, good, inaccuracy, mistake, blunder (thresholds: docs/strength.md,
"Move grades").

``grade(analysis)`` grades a move from the computer's verdict on it
(``zuniboard.ai.analyze``: the endgame tables' exact values where they cover the
position, the search elsewhere), in words and as the colour its LED would show.

>>> grade_of(best=120, played=120).name, grade_of(best=120, played=-100).name
('best', 'blunder')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zuniboard.ai.search import WIN, WIN_BOUND
from zuniboard.records.record import GRADE_NAMES

GRADES = GRADE_NAMES  # the log keeps the names (records.record): one list
# The largest loss (in hundredths of a piece, the search's unit) of each grade but the last.
GOOD_MAX = 30  # the analysis's own tolerance: the search cannot tell these apart
INACCURACY_MAX = 80
MISTAKE_MAX = 200
SLOWER_WIN_GOOD = 4  # a win kept, this many moves slower at most: still good
COLOURS = {
    "best": "green",
    "good": "cyan",
    "inaccuracy": "yellow",
    "mistake": "orange",
    "blunder": "red",
}


@dataclass(frozen=True)
class MoveGrade:
    name: str  # one of GRADES
    words: str  # why, e.g. "missed a win in 5", "0.95 pieces worse than n4xm5-s4"

    @property
    def colour(self) -> str:
        return COLOURS[self.name]

    @property
    def is_mistake(self) -> bool:
        return self.name in ("mistake", "blunder")


def grade_of(best: int, played: int, better: str = "") -> MoveGrade:
    """The grade of a move scored ``played`` where the best scored ``best`` (both for the
    mover, in the search's units: hundredths of a piece, wins and losses beyond
    ``WIN_BOUND``)."""
    than = " than %s" % better if better else ""
    if best >= WIN_BOUND and played < WIN_BOUND:
        return MoveGrade("blunder", "missed a win in %d%s" % (WIN - best, " (%s)" % better if better else ""))
    if played <= -WIN_BOUND < best:
        return MoveGrade("blunder", "walks into a forced loss (lost in %d)" % (WIN + played))
    if best >= WIN_BOUND:
        slower = (WIN - played) - (WIN - best)
        if slower <= 0:
            return MoveGrade("best", "wins in %d" % (WIN - played))
        name = "good" if slower <= SLOWER_WIN_GOOD else "inaccuracy"
        return MoveGrade(name, "wins, %d moves slower%s" % (slower, than))
    if best <= -WIN_BOUND:
        quicker = (WIN + best) - (WIN + played)
        if quicker <= 0:
            return MoveGrade("best", "holds out longest")
        return MoveGrade("inaccuracy", "loses %d moves sooner%s" % (quicker, than))
    loss = best - played
    if loss <= 0:
        return MoveGrade("best", "the best move")
    words = "%.2f pieces worse%s" % (loss / 100.0, than)
    if loss <= GOOD_MAX:
        return MoveGrade("good", words)
    if loss <= INACCURACY_MAX:
        return MoveGrade("inaccuracy", words)
    if loss <= MISTAKE_MAX:
        return MoveGrade("mistake", words)
    return MoveGrade("blunder", words)


def grade(analysis: Any) -> MoveGrade:
    """The grade of an ``ai.Analysis`` (the move played, against the best found)."""
    better = "" if analysis.best_move == analysis.move else str(analysis.best_move)
    return grade_of(int(analysis.best_score), int(analysis.score), better)
