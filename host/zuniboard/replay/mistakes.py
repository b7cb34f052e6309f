"""What the computer's analysis of a logged game found, in words: the kind of mistake a
move was, and a side's mistakes summed (`zuni analyze`, the replay's notes)."""

from __future__ import annotations

from zuniboard.ai import Analysis
from zuniboard.ai.search import WIN, WIN_BOUND


def mistake_words(a: Analysis) -> str:
    """What kind of mistake a move was: '' (none, or an ordinary loss of points, which
    is summed), or a missed win / a forced loss in words (never added in as points)."""
    if a.loss <= 0:
        return ""
    if a.best_score >= WIN_BOUND and a.score < WIN_BOUND:
        return "missed a win in %d" % (WIN - a.best_score)
    if a.score <= -WIN_BOUND and a.best_score > -WIN_BOUND:
        return "walked into a forced loss (lost in %d)" % (WIN + a.score)
    if a.best_score >= WIN_BOUND:
        return "a slower win (in %d, not %d)" % (WIN - a.score, WIN - a.best_score)
    if a.best_score <= -WIN_BOUND:
        return "a quicker loss (in %d, not %d)" % (WIN + a.score, WIN + a.best_score)
    return ""


def mistakes_text(analyses: list[Analysis]) -> str:
    """``2 mistakes (1.50 lost in all), missed a win in 3``: points summed over ordinary
    evaluations only."""
    ordinary = [a.loss for a in analyses if a.loss > 0 and not mistake_words(a)]
    special = [mistake_words(a) for a in analyses if mistake_words(a)]
    count = len(ordinary) + len(special)
    text = "%d mistake%s" % (count, "" if count == 1 else "s")
    if ordinary:
        text += " (%.2f lost in all%s)" % (sum(ordinary) / 100.0, " in ordinary positions" if special else "")
    if special:
        text += ": " + ", ".join(special)
    return text
