"""The computer player: random, greedy and searching players, and move analysis.

>>> import zuni
>>> from zuniboard.ai import SearchPlayer
>>> game = zuni.new_game("mosona")
>>> game.push(SearchPlayer(level=2, seed=1).choose(game))

``analyze(game, i)`` judges the i-th move of a game (``zuni analyze``): its score and the
better moves the player had.
"""

from __future__ import annotations

from dataclasses import dataclass

import zuni
from zuniboard.ai import tablebase
from zuniboard.ai.evaluate import make_evaluator
from zuniboard.ai.players import (
    DEFAULT_LEVEL,
    LEVEL_NODES,
    LEVEL_TIMES,
    LEVELS,
    GreedyPlayer,
    Player,
    RandomPlayer,
    SearchPlayer,
)
from zuniboard.ai.search import (
    WIN,
    WIN_BOUND,
    ProgressCallback,
    Searcher,
    SearchInfo,
    SearchResult,
    StopFlag,
    score_text,
    tablebase_score,
)

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "LEVEL_NODES",
    "LEVEL_TIMES",
    "WIN",
    "WIN_BOUND",
    "Analysis",
    "GreedyPlayer",
    "Player",
    "ProgressCallback",
    "RandomPlayer",
    "SearchInfo",
    "SearchPlayer",
    "SearchResult",
    "Searcher",
    "StopFlag",
    "analyze",
    "make_evaluator",
    "make_player",
    "score_text",
]

# A played move within this many hundredths of the best is not called a mistake.
TOLERANCE = 30


@dataclass
class Analysis:
    """The verdict on one played move, scores from the mover's team's point of view.

    ``alternatives``: the moves that score better than the one played, best first (at
    most ``max_alternatives``). ``loss``: how much worse the played move is than the best
    (0 when it was the best or within ``TOLERANCE``)."""

    move_index: int
    move: zuni.Move
    side: int
    score: int
    best_move: zuni.Move
    best_score: int
    alternatives: list[tuple[zuni.Move, int]]
    depth: int
    # The endgame tables' verdict on the position before the move ("win in 5",
    # "drawn", "lost in 3"), when a table covers it; the scores are then exact.
    verdict: str | None = None

    @property
    def loss(self) -> int:
        if self.best_score - self.score <= TOLERANCE:
            return 0
        return self.best_score - self.score

    @property
    def is_best(self) -> bool:
        return not self.alternatives

    def summary(self) -> str:
        """One line: ``12. north n4-m5 (-1.00): better n4xm5-s4 (+0.00)``."""
        head = "%d. %s %s (%s)" % (
            self.move_index + 1,
            zuni.SIDE_NAMES[self.side],
            self.move,
            score_text(self.score),
        )
        tail = " [tablebase: %s]" % self.verdict if self.verdict else ""
        if not self.alternatives:
            return head + ": best move" + tail
        better = ", ".join("%s (%s)" % (m, score_text(s)) for m, s in self.alternatives)
        return head + ": better " + better + tail


def analyze(
    game: zuni.Game,
    move_index: int,
    *,
    time_limit: float | None = 1.0,
    node_limit: int | None = None,
    max_alternatives: int = 3,
    stop: StopFlag | None = None,
) -> Analysis:
    """Judge ``game.move_stack[move_index]``: search every legal move of the position
    before it and compare. ``game`` is not changed.

    Raises IndexError naming the index when the game has no such move."""
    count = len(game.move_stack)
    if not 0 <= move_index < count:
        raise IndexError("no move %d to analyze: the game has %d moves (0..%d)" % (move_index, count, count - 1))
    before = game.copy()
    while len(before.move_stack) > move_index:
        before.pop()
    played = game.move_stack[move_index]
    side = before.turn
    verdict = tablebase.probe(before)
    if verdict is not None:
        tb = tablebase.for_ruleset(str(before.ruleset))
        assert tb is not None
        scored = [(m, tablebase_score(v, 0)) for m, v in tablebase.move_values(before, tb)]
        depth = 0
    else:
        scored, depth = Searcher().score_moves(before, time_limit=time_limit, node_limit=node_limit, stop=stop)
    score = next(s for m, s in scored if m == played)
    best_move, best_score = scored[0]
    if best_score - score <= TOLERANCE:
        alternatives: list[tuple[zuni.Move, int]] = []
    else:
        alternatives = [(m, s) for m, s in scored if s - score > TOLERANCE][:max_alternatives]
    return Analysis(
        move_index,
        played,
        side,
        score,
        best_move,
        best_score,
        alternatives,
        depth,
        verdict.text if verdict is not None else None,
    )


def make_player(kind: str, level: int = DEFAULT_LEVEL, seed: int | None = None) -> Player:
    """A player by name: ``"random"``, ``"greedy"``, ``"search"`` (at ``level``), or ``"level1"``..``"level5"``."""
    if kind == "random":
        return RandomPlayer(seed)
    if kind == "greedy":
        return GreedyPlayer(seed)
    if kind == "search":
        return SearchPlayer(level, seed)
    if kind.startswith("level") and kind[5:].isdigit():
        return SearchPlayer(int(kind[5:]), seed)
    raise ValueError("unknown player %r (allowed: random, greedy, search, level1..level5)" % (kind,))
