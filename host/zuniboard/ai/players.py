"""Computer players: random, capture-greedy, and searching at five levels.

Every player has ``choose(game) -> Move`` (the game is not changed) and a ``name``.

Levels of ``SearchPlayer`` are set by thinking time per move; with
``deterministic=True`` a node budget replaces the clock, so that the same seed and the
same position always give the same move, on any machine and under any load:

=====  ==========  ===========  =========================================
level  time/move   node budget  meant for
=====  ==========  ===========  =========================================
1      0.05 s      1 000        beginners: sees captures, little else
2      0.1 s       2 000
3      0.2 s       4 000        the default
4      0.5 s       10 000
5      2 s         40 000       strongest
=====  ==========  ===========  =========================================

(The node budgets match the times at about 20 000 nodes per second, this search's rate on
a line game in CPython 3.11; see ``tools/bench_ai.py``.)

>>> import zuni
>>> game = zuni.new_game("kolowis")
>>> move = SearchPlayer(level=1, seed=7, deterministic=True).choose(game)
>>> move in game.legal_moves()
True
"""

from __future__ import annotations

import random
from typing import Protocol

import zuni
from zuniboard.ai import book
from zuniboard.ai.search import ProgressCallback, Searcher, SearchResult, StopFlag

LEVEL_TIMES = {1: 0.05, 2: 0.1, 3: 0.2, 4: 0.5, 5: 2.0}
LEVEL_NODES = {1: 1_000, 2: 2_000, 3: 4_000, 4: 10_000, 5: 40_000}
LEVELS = tuple(sorted(LEVEL_TIMES))
# A draw costs the player this much (hundredths of a piece): with even material it plays
# on rather than let the quiet rule end the game in a draw (the level endings of
# Kolowis short were drawn that way against UCT). Analysis uses none.
CONTEMPT = 25
# Awithlaknakwe: what a pair of enemy pieces near each other on a diagonal is worth to
# the player (hundredths of a piece; a warrior's step earns about 4): without contact
# both sides' warriors pass each other, arrive, and the game is drawn (against UCT, 3
# of 8 games at 0.2 s ended 6-6 with no capture).
CONTACT = 4
# Awithlaknakwe: what each enemy piece the player could take with one warrior step is
# worth to it (hundredths of a piece): in the games against UCT the player won when it
# made such threats (UCT's random playouts do not see them: 6-28 plies with a threat in
# the won games) and drew 6-6 when it made none (0-2 plies: contact alone is no threat).
THREAT = 12
DEFAULT_LEVEL = 3
# From this level up the computer plays the proven winning strategy of Mosona where it
# has it (``book``: North's moves of the proof tree); the beginners' levels 1-2 play
# their search, so that a beginner can beat them as South.
BOOK_LEVEL = 3


class Player(Protocol):
    name: str

    def choose(self, game: zuni.Game) -> zuni.Move: ...


def _legal(game: zuni.Game) -> list[zuni.Move]:
    moves: list[zuni.Move] = list(game.legal_moves())
    if not moves:
        raise zuni.GameOverError("no move to choose: the game is over (%s)" % (game.describe(),))
    return moves


class RandomPlayer:
    """Any legal move, uniformly at random (the seed makes a sequence of games repeatable)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.name = "random"

    def choose(self, game: zuni.Game) -> zuni.Move:
        return self.rng.choice(_legal(game))


class GreedyPlayer:
    """A move that captures the most pieces now, at random among equals; no look-ahead."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.name = "greedy"

    def choose(self, game: zuni.Game) -> zuni.Move:
        moves = _legal(game)
        most = max(len(m.captures) for m in moves)
        return self.rng.choice([m for m in moves if len(m.captures) == most])


class SearchPlayer:
    """Alpha-beta search (``search.Searcher``) at a level 1..5 (table in the module doc).

    - ``seed`` breaks ties between equally good moves (per position, not per game);
      without one, a random seed unless ``deterministic``.
    - ``deterministic``: think for ``LEVEL_NODES[level]`` nodes instead of
      ``LEVEL_TIMES[level]`` seconds.
    - ``time_limit`` / ``node_limit`` override the level's limit.
    - ``progress(info)`` is called after each depth; ``stop.is_set()`` ends the search
      early (the best move found so far is played).
    - ``last`` is the last ``SearchResult`` (depth, nodes, score, principal variation).
    - From level ``BOOK_LEVEL`` up, a position of the proven strategy of Mosona
      (``book``) is answered by its book move, without a search (``last.from_book``).
    """

    def __init__(
        self,
        level: int = DEFAULT_LEVEL,
        seed: int | None = None,
        *,
        deterministic: bool = False,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: ProgressCallback | None = None,
        stop: StopFlag | None = None,
    ) -> None:
        if level not in LEVEL_TIMES:
            raise ValueError("unknown level %r (allowed: %s)" % (level, ", ".join(str(n) for n in LEVELS)))
        self.level = level
        if seed is None and not deterministic:
            # Unseeded games vary: ties between equal moves fall differently each game.
            seed = random.randrange(1 << 30)
        self.seed = seed
        self.deterministic = deterministic
        if time_limit is None and node_limit is None:
            if deterministic:
                node_limit = LEVEL_NODES[level]
            else:
                time_limit = LEVEL_TIMES[level]
        elif deterministic and time_limit is not None:
            raise ValueError("deterministic=True thinks by nodes: give node_limit, not time_limit")
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.progress = progress
        self.stop = stop
        self.searcher = Searcher(contempt=CONTEMPT, contact=CONTACT, threat=THREAT)
        self.last: SearchResult | None = None
        self.name = "level%d" % level

    def choose(self, game: zuni.Game) -> zuni.Move:
        _legal(game)
        if self.level >= BOOK_LEVEL:
            proven = book.book_move(game)
            if proven is not None:
                self.last = SearchResult(
                    depth=0, nodes=0, best_move=proven, score=0, elapsed=0.0, pv=[proven], from_book=True
                )
                return proven
        result = self.searcher.search(
            game,
            time_limit=self.time_limit,
            node_limit=self.node_limit,
            progress=self.progress,
            stop=self.stop,
            seed=self.seed,
        )
        self.last = result
        move = result.best_move
        assert move is not None, "a search of a game in progress always has a move"
        return move
