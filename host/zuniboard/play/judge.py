"""The computer's word on an offered end: it agrees to a draw or to counting only when
its own evaluation says the agreement is worth at least what playing on is.

Playing on is worth a win when the search scores the position above ``MARGIN`` for the
computer, a loss below ``-MARGIN``, else a draw. The agreement is worth its result
(a draw; counting: whoever has more pieces). The computer agrees when the agreement is
worth more, or as much and there is nothing left to play for (a win either way, or an
even position with at most ``SETTLED_PIECES`` pieces on the board). So at the start of
a game, an even position, it plays on.
"""

from __future__ import annotations

import zuni
from zuniboard.ai import Searcher, score_text

MARGIN = 50  # hundredths of a piece: closer to 0 than this is an even position
SETTLED_PIECES = 4
JUDGE_TIME_S = 0.2  # thinking time of the computer weighing an offer
JUDGE_NODES = 4000  # ... when it plays deterministically (a clock would make it vary)


def _value(score: int) -> int:
    return 1 if score > MARGIN else (-1 if score < -MARGIN else 0)


def verdict(game: zuni.Game, what: str, side: str, *, deterministic: bool = False) -> str:
    """'' when the computer playing ``side`` agrees to ``what`` (draw, count), else why not."""
    team = game.team_of(zuni.SIDE_NAMES.index(side))
    if what == "count":
        outcome = game.copy().agree("count")
        offered = 0 if outcome.winner is None else (1 if outcome.winner == team else -1)
    else:
        offered = 0
    if deterministic:
        result = Searcher().search(game, time_limit=None, node_limit=JUDGE_NODES)
    else:
        result = Searcher().search(game, time_limit=JUDGE_TIME_S)
    score = result.score if game.team_of(game.turn) == team else -result.score
    expected = _value(score)
    pieces = sum(1 for code in game.board if code)
    if offered > expected or (offered == expected and (offered == 1 or pieces <= SETTLED_PIECES)):
        return ""
    word = "a draw" if what == "draw" else "counting"
    if expected > 0:
        return "%s declines %s: it stands better (%s)" % (side, word, score_text(score))
    if offered < expected:
        return "%s declines %s: counting now would lose for it (%s)" % (side, word, score_text(score))
    return "%s declines %s: the game is still open (%s, %d pieces on the board); play on" % (
        side,
        word,
        score_text(score),
        pieces,
    )
