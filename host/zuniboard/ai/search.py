"""Iterative-deepening alpha-beta search over the rules engine ``zuni``.

Scores are in hundredths of a piece (see ``evaluate``), always from the point of view of
the *team* to move at the node searched. Four-player Awithlaknakwe does not alternate
teams (``order=swne`` plays South, West, North, East: two team-1 moves follow each
other), so a child's score is negated only when the child's mover is on the other team:
a minimax on team value, written as a negamax that flips only at team changes.

Parts:

- transposition table keyed by ``game.key()`` (board, mover, counters), fresh per search
  so that a search depends on the position only;
- move ordering: table move, then captures by size, then killer moves, then history;
- quiescence: at the horizon the side to move may still play captures (and must, when
  every legal move is a capture, as under ``capture=forced``), so the search never stops
  in the middle of an exchange; a move with a single legal reply does not use depth;
- limits: a time limit (wall clock), or a node budget, which makes the search fully
  deterministic; a ``stop`` flag (``threading.Event`` or anything with ``is_set()``)
  checked every few nodes, for Ctrl-C;
- a progress callback called after each completed depth with ``SearchInfo``.

``Searcher`` (here) deepens the search and answers; the parts are ``search_tree`` (the
alpha-beta tree: table, quiescence, limits), ``search_order`` (move ordering),
``search_leaf`` (scores where the search stops) and ``search_tables`` (the move where the
endgame tables cover the root).

>>> import zuni
>>> result = Searcher().search(zuni.new_game("mosona"), node_limit=2000)
>>> str(result.best_move)
's3xm4-m5'
"""

from __future__ import annotations

import gc
import random
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import zuni
from zuniboard.ai import tablebase
from zuniboard.ai.evaluate import Evaluator
from zuniboard.ai.search_leaf import MAX_PLY, QUIET_LEAD, WIN, WIN_BOUND, LeafScores
from zuniboard.ai.search_tables import tablebase_move, tablebase_score
from zuniboard.ai.search_tree import CHECK_EVERY, INF, Abort, AlphaBeta, StopFlag, TableEntry, line_capture_check
from zuniboard.ai.tablebase import Tablebase

__all__ = [
    "CHECK_EVERY",
    "MAX_PLY",
    "QUIET_LEAD",
    "WIN",
    "WIN_BOUND",
    "Searcher",
    "StopFlag",
    "line_capture_check",
    "score_text",
    "tablebase_score",
]

# The search stops this long before its time is up: returning the move, building the
# result and the caller's own work take the rest.
TIME_MARGIN = 0.004
# A new depth is not begun once this share of the time is spent: it would not finish,
# and a partly searched depth rarely changes the move.
NEW_DEPTH_SHARE = 0.6


@dataclass
class SearchInfo:
    """What the search knows so far: shown by the terminal's thinking display.

    ``score`` is from the point of view of the team to move at the root; ``pv`` is the
    principal variation (best line) as far as the table remembers it."""

    depth: int
    nodes: int
    best_move: zuni.Move | None
    score: int
    elapsed: float
    pv: list[zuni.Move] = field(default_factory=list)

    def score_text(self) -> str:
        return score_text(self.score)


@dataclass
class SearchResult(SearchInfo):
    """The search's answer. ``completed_depth`` is the deepest depth fully searched;
    ``stopped`` tells whether the stop flag ended the search; ``from_book``: the move
    is the proven strategy's (``ai.book``), found without a search."""

    completed_depth: int = 0
    stopped: bool = False
    # The move is the proven strategy's (ai.book), not searched: score 0 means unknown.
    from_book: bool = False


ProgressCallback = Callable[[SearchInfo], None]


def score_text(score: int) -> str:
    """A score for people: ``+1.50`` (pieces), ``win in 3``, ``lost in 2``."""
    if score >= WIN_BOUND:
        return "win in %d" % (WIN - score)
    if score <= -WIN_BOUND:
        return "lost in %d" % (WIN + score)
    return "%+.2f" % (score / 100.0)


class Searcher:
    """An alpha-beta searcher. One instance may search many positions (one at a time).

    ``evaluator``: a function game -> score for team 0; built from the ruleset by default.
    ``use_tablebase``: probe the endgame tables on disk (line games). ``contempt``: what
    a draw costs the root's team, in hundredths of a piece (0: a draw is even; a player
    uses a little, so that it plays on in a level ending instead of drifting into the
    quiet rule's draw). ``quiet_aware``: in line games the evaluation follows the quiet
    count (``LeafScores``); only with the built-in evaluation. ``contact``
    (Awithlaknakwe): what each pair of enemy pieces near each other on a diagonal is
    worth to the root's team (``evaluate.awith_contacts``): a player that out-searches
    its opponent seeks the contact where captures are made. ``threat`` (Awithlaknakwe):
    what each enemy piece the root's team could take with one warrior step is worth to
    it (``evaluate.awith_threats``): a threat an opponent that does not search may miss.
    """

    def __init__(
        self,
        evaluator: Evaluator | None = None,
        *,
        use_tablebase: bool = True,
        contempt: int = 0,
        quiet_aware: bool = True,
        contact: int = 0,
        threat: int = 0,
    ) -> None:
        self.scores = LeafScores(evaluator, contempt=contempt, quiet_aware=quiet_aware, contact=contact, threat=threat)
        self.use_tablebase = use_tablebase
        self._tree = AlphaBeta(self.scores)
        self._tb: Tablebase | None = None
        self._soft_deadline = 0.0
        self._stop: StopFlag | None = None

    @property
    def nodes(self) -> int:
        """Nodes searched by the last search."""
        return self._tree.nodes

    @property
    def tb_hits(self) -> int:
        """Endgame-table look-ups that gave the last search an exact value."""
        return self._tree.tb_hits

    # -- public -------------------------------------------------------------
    def search(
        self,
        game: zuni.Game,
        *,
        time_limit: float | None = None,
        node_limit: int | None = None,
        max_depth: int = 64,
        progress: ProgressCallback | None = None,
        stop: StopFlag | None = None,
        seed: int | None = None,
    ) -> SearchResult:
        """Search ``game``'s position (the game itself is not changed) and return the best move.

        Give ``time_limit`` (seconds), ``node_limit`` (nodes) or both; with neither the
        search goes to ``max_depth``. A node limit alone makes the result a function of
        the position and ``seed`` only. ``seed`` breaks ties between equal moves.
        Raises GameOverError when the game is over."""
        if game.is_game_over():
            raise zuni.GameOverError("no move to search: the game is over (%s)" % (game.describe(),))
        start = time.monotonic()
        # No cyclic collection mid-search: with a large table one costs a tenth of a
        # second, which would overrun a short move's time (nothing here makes cycles).
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._search(game, start, time_limit, node_limit, max_depth, progress, stop, seed)
        finally:
            if collecting:
                gc.enable()

    def _search(
        self,
        game: zuni.Game,
        start: float,
        time_limit: float | None,
        node_limit: int | None,
        max_depth: int,
        progress: ProgressCallback | None,
        stop: StopFlag | None,
        seed: int | None,
    ) -> SearchResult:
        self._prepare(game, start, time_limit, node_limit, stop)
        tree = self._tree
        work = tree.game
        rng = random.Random(_position_seed(seed, work.key()))
        tb = self._tb
        if tb is not None and tb.covers(work):
            move, score, tree.nodes = tablebase_move(work, tb, rng, self._soft_deadline)
            return SearchResult(0, tree.nodes, move, score, time.monotonic() - start, [move])
        root_moves = list(work.legal_moves())
        rng.shuffle(root_moves)
        root_moves = tree.ordering.order(root_moves, None, 0, work.turn)
        root_team = work.team_of(work.turn)
        root_len = len(work.move_stack)

        best_move = root_moves[0]
        best_score = self.scores.static_for_mover(work)
        completed = 0
        stopped = False
        pv: list[zuni.Move] = [best_move]
        if len(root_moves) > 1:
            for depth in range(1, max_depth + 1):
                try:
                    score, move = tree.root(root_moves, depth, root_team)
                except Abort:
                    while len(work.move_stack) > root_len:
                        work.pop()
                    stopped = self._stop is not None and self._stop.is_set()
                    # A move that beat the previous best in the unfinished depth is kept.
                    if tree.partial_move is not None:
                        best_move = tree.partial_move
                        best_score = tree.partial_score
                        pv = [best_move]
                    break
                best_move, best_score, completed = move, score, depth
                # The next depth starts with this depth's best move.
                root_moves.remove(move)
                root_moves.insert(0, move)
                pv = _principal_variation(tree.tt, work, move)
                if progress is not None:
                    progress(SearchInfo(depth, tree.nodes, move, score, time.monotonic() - start, pv))
                if abs(score) >= WIN_BOUND and WIN - abs(score) <= depth:
                    break  # a forced result inside the horizon: deeper search cannot change it
                if self._soft_deadline and time.monotonic() >= self._soft_deadline:
                    break
        elapsed = time.monotonic() - start
        return SearchResult(completed, tree.nodes, best_move, best_score, elapsed, pv, completed, stopped)

    def score_moves(
        self,
        game: zuni.Game,
        *,
        time_limit: float | None = None,
        node_limit: int | None = None,
        max_depth: int = 64,
        stop: StopFlag | None = None,
    ) -> tuple[list[tuple[zuni.Move, int]], int]:
        """Every legal move with its exact score for the mover's team, best first,
        from the deepest depth completed for all moves; and that depth."""
        if game.is_game_over():
            raise zuni.GameOverError("no move to score: the game is over (%s)" % (game.describe(),))
        start = time.monotonic()
        self._prepare(game, start, time_limit, node_limit, stop)
        tree = self._tree
        work = tree.game
        moves = tree.ordering.order(list(work.legal_moves()), None, 0, work.turn)
        root_team = work.team_of(work.turn)
        root_len = len(work.move_stack)
        scored: list[tuple[zuni.Move, int]] = []
        done = 0
        for depth in range(1, max_depth + 1):
            this: list[tuple[zuni.Move, int]] = []
            try:
                for move in moves:
                    this.append((move, tree.child(move, depth, 1, root_team, -INF, INF)))
            except Abort:
                while len(work.move_stack) > root_len:
                    work.pop()
                break
            this.sort(key=lambda item: -item[1])
            scored, done = this, depth
            moves = [m for m, _ in this]
            if all(abs(s) >= WIN_BOUND for _, s in this):
                break
        if not scored:  # not even depth 1 finished: fall back on the static evaluation
            for move in moves:
                work.push(move)
                s = self.scores.static_for_mover(work)
                scored.append((move, s if work.team_of(work.turn) == root_team else -s))
                work.pop()
            scored.sort(key=lambda item: -item[1])
        return scored, done

    # -- set-up -------------------------------------------------------------
    def _prepare(
        self,
        game: zuni.Game,
        start: float,
        time_limit: float | None,
        node_limit: int | None,
        stop: StopFlag | None,
    ) -> None:
        if time_limit is not None and time_limit <= 0:
            raise ValueError("time_limit must be positive, not %r" % (time_limit,))
        if node_limit is not None and node_limit <= 0:
            raise ValueError("node_limit must be positive, not %r" % (node_limit,))
        self.scores.prepare(game)
        deadline = start + max(time_limit - TIME_MARGIN, time_limit / 2) if time_limit is not None else 0.0
        self._tb = (
            tablebase.for_ruleset(str(game.ruleset), wait=False)
            if self.use_tablebase and game.ruleset.game_id != "awithlaknakwe"
            else None
        )
        self._tree.start(game, self._tb, deadline, node_limit or 0, stop)
        self._soft_deadline = start + NEW_DEPTH_SHARE * time_limit if time_limit is not None else 0.0
        self._stop = stop


def _principal_variation(tt: dict[bytes, TableEntry], game: zuni.Game, first: zuni.Move) -> list[zuni.Move]:
    """The best line: ``first``, then the table's moves while they stay legal."""
    line = [first]
    game.push(first)
    seen = {game.key()}
    while len(line) < 16 and not game.is_game_over():
        entry = tt.get(game.key())
        if entry is None or entry[3] is None or entry[3] not in game.legal_moves():
            break
        line.append(entry[3])
        game.push(entry[3])
        if game.key() in seen:
            break
        seen.add(game.key())
    for _ in line:
        game.pop()
    return line


def _position_seed(seed: int | None, key: bytes) -> int:
    """A tie-break seed from the player's seed and the position only (not the history)."""
    return ((seed or 0) * 1_000_003) ^ zlib.crc32(key)
