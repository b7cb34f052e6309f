"""The alpha-beta tree below a root: principal variation search with a transposition
table, the endgame tables' exact values, move ordering, and quiescence at the horizon
(see ``search`` for the whole). ``search.Searcher`` drives it one depth at a time.

This is the host search's hot path: a node costs 20-50 us, and everything a node does
is a method of ``AlphaBeta`` itself or of the few objects it holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, cast

import zuni
from zuni.line import LineGame
from zuniboard.ai.search_leaf import MAX_PLY, WIN_BOUND, LeafScores
from zuniboard.ai.search_order import MoveOrdering
from zuniboard.ai.search_tables import tablebase_score
from zuniboard.ai.tablebase import Tablebase

INF = 10**9
# Quiescence plies at most (captures shrink the board, but optional chains can branch).
MAX_QPLY = 12
# Nodes between clock / stop-flag checks (a node costs 20-50 us: a check every 16 is
# well under a millisecond apart, and the clock read costs about 0.1 us).
CHECK_EVERY = 16
# Table entries before it is cleared (a dict entry is about 200 bytes).
TT_MAX = 400_000

EXACT, LOWER, UPPER = 0, 1, 2

TableEntry = tuple[int, int, int, "zuni.Move | None"]


class StopFlag(Protocol):
    def is_set(self) -> bool: ...


class Abort(Exception):
    """Raised inside the search when the time, the node budget or the stop flag ends it."""


class AlphaBeta:
    """The tree search from one root at a time (``start``), to a given depth (``root``,
    ``child``); ``nodes`` and ``tb_hits`` count its work since ``start``."""

    def __init__(self, scores: LeafScores) -> None:
        self.scores = scores
        self.ordering = MoveOrdering()
        self.nodes = 0
        self.tb_hits = 0
        self.tt: dict[bytes, TableEntry] = {}
        self.game: zuni.Game = None  # type: ignore[assignment]  # set by start before a search
        # The best move of an unfinished depth, when it beat the depth's first move.
        self.partial_move: zuni.Move | None = None
        self.partial_score = 0
        self._tb: Tablebase | None = None
        self._tb_pieces = 0
        self._capture_check: Callable[[zuni.Game], bool] | None = None
        self._capture_for: str | None = None
        self._deadline = 0.0
        self._node_limit = 0
        self._next_check = 0
        self._stop: StopFlag | None = None

    def start(
        self, game: zuni.Game, tb: Tablebase | None, deadline: float, node_limit: int, stop: StopFlag | None
    ) -> None:
        """A fresh search from a copy of ``game`` (``self.game``), with the tables
        ``tb`` and the limits (``deadline``: a ``time.monotonic()`` time, 0: none;
        ``node_limit``: 0, none), so that a search depends on the position only."""
        ruleset = str(game.ruleset)
        self.game = game.copy()
        if self._capture_for != ruleset:
            self._capture_check = line_capture_check(game)
            self._capture_for = ruleset
        self._tb = tb
        self._tb_pieces = tb.max_pieces if tb is not None else 0
        self.tb_hits = 0
        self._deadline = deadline
        self._node_limit = node_limit
        self._stop = stop
        self.nodes = 0
        self._next_check = CHECK_EVERY
        self.tt = {}
        self.ordering.reset(MAX_PLY + MAX_QPLY + 2)
        self.partial_move = None
        self.partial_score = 0

    def check(self) -> None:
        self._next_check = self.nodes + CHECK_EVERY
        if self._node_limit and self.nodes >= self._node_limit:
            raise Abort
        if self._deadline and time.monotonic() >= self._deadline:
            raise Abort
        if self._stop is not None and self._stop.is_set():
            raise Abort

    def root(self, moves: list[zuni.Move], depth: int, team: int) -> tuple[int, zuni.Move]:
        alpha = -INF
        best_move = moves[0]
        self.partial_move = None
        for i, move in enumerate(moves):
            if i == 0:
                score = self.child(move, depth, 1, team, alpha, INF)
            else:
                # Principal variation search: a null window proves the move no better,
                # a full one only when it is.
                score = self.child(move, depth, 1, team, alpha, alpha + 1)
                if score > alpha:
                    score = self.child(move, depth, 1, team, alpha, INF)
            if score > alpha:
                alpha = score
                best_move = move
                if i > 0:
                    self.partial_move, self.partial_score = move, score
        self._store(self.game.key(), depth, EXACT, alpha, best_move, 0)
        return alpha, best_move

    def child(self, move: zuni.Move, depth: int, ply: int, team: int, alpha: int, beta: int) -> int:
        """Score of ``move`` for ``team`` (the mover's team), searched to ``depth - 1``."""
        game = self.game
        game.push(move)
        if game.team_of(game.turn) == team:
            score = self._negamax(depth - 1, ply, alpha, beta)
        else:
            score = -self._negamax(depth - 1, ply, -beta, -alpha)
        game.pop()
        return score

    def _negamax(self, depth: int, ply: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes >= self._next_check:
            self.check()
        game = self.game
        # Over or not shows in the moves (none once it is over): outcome() is asked only
        # then, which saves the rules' own has-a-move scan at every node.
        # Tables only for the line games: the game is a LineGame when _tb_pieces is set.
        if self._tb_pieces and sum(cast(LineGame, game).counts) <= self._tb_pieces:
            exact = self._probe(game, ply)
            if exact is not None:
                return exact
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(ply, alpha, beta, 0)
        key = game.key()
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, flag, e_score, tt_move = entry
            if e_depth >= depth:
                score = _from_tt(e_score, ply)
                if flag == EXACT:
                    return score
                if flag == LOWER and score >= beta:
                    return score
                if flag == UPPER and score <= alpha:
                    return score
        moves = game.legal_moves()
        if not moves:
            outcome = game.outcome()
            assert outcome is not None, "no legal move in a game that is not over"
            return self.scores.terminal(game, outcome, ply)
        if len(moves) == 1:
            depth += 1  # a forced reply costs no depth
        elif len(moves) > 1:
            moves = self.ordering.order(moves, tt_move, ply, game.turn)
        team = game.team_of(game.turn)
        original_alpha = alpha
        best = -INF
        best_move = None
        first = True
        for move in moves:
            game.push(move)
            same = game.team_of(game.turn) == team
            if first or beta - alpha <= 1:
                first = False
                if same:
                    score = self._negamax(depth - 1, ply + 1, alpha, beta)
                else:
                    score = -self._negamax(depth - 1, ply + 1, -beta, -alpha)
            else:
                # Principal variation search: after the first move, a null window shows
                # a move no better than the best so far; one that is better is searched
                # again with the full window.
                if same:
                    score = self._negamax(depth - 1, ply + 1, alpha, alpha + 1)
                    if alpha < score < beta:
                        score = self._negamax(depth - 1, ply + 1, alpha, beta)
                else:
                    score = -self._negamax(depth - 1, ply + 1, -alpha - 1, -alpha)
                    if alpha < score < beta:
                        score = -self._negamax(depth - 1, ply + 1, -beta, -alpha)
            game.pop()
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not move.captures:
                            self.ordering.remember_cutoff(move, ply, depth, game.turn)
                        break
        if best <= original_alpha:
            flag = UPPER
        elif best >= beta:
            flag = LOWER
        else:
            flag = EXACT
        self._store(key, depth, flag, best, best_move, ply)
        return best

    def _quiesce(self, ply: int, alpha: int, beta: int, qply: int) -> int:
        """Captures only, until the position is quiet. The side to move may decline
        them ("stand pat" on the static evaluation) unless every legal move captures."""
        game = self.game
        if qply:
            self.nodes += 1
            if self.nodes >= self._next_check:
                self.check()
            if self._tb_pieces and sum(cast(LineGame, game).counts) <= self._tb_pieces:
                exact = self._probe(game, ply)
                if exact is not None:
                    return exact
        capture_check = self._capture_check
        scores = self.scores
        if capture_check is None or game.quiet >= scores.quiet_limit or not capture_check(game):
            outcome = game.outcome()
            if outcome is not None:
                return scores.terminal(game, outcome, ply)
            if capture_check is not None:
                return scores.static_for_mover(game)  # a line game with no capture: quiet
        # (A line game with a jump to make is not over: both sides have pieces.)
        if capture_check is None:
            # Awithlaknakwe: most leaves have no capture; only the capturing moves
            # become Moves, the others are only counted (the same moves and order as
            # filtering legal_moves(), for a third less time per leaf).
            captures = game.legal_captures()
            n_moves = game.count_moves() if captures else 1
        else:
            moves = game.legal_moves()
            captures = [m for m in moves if m.captures]
            n_moves = len(moves)
        if len(captures) < n_moves or qply >= MAX_QPLY or ply >= MAX_PLY + MAX_QPLY:
            best = scores.static_for_mover(game)
            if not captures or best >= beta or qply >= MAX_QPLY or ply >= MAX_PLY + MAX_QPLY:
                return best
            if best > alpha:
                alpha = best
        else:
            best = -INF
        if len(captures) > 1:
            captures.sort(key=_capture_size, reverse=True)
        team = game.team_of(game.turn)
        for move in captures:
            game.push(move)
            if game.team_of(game.turn) == team:
                score = self._quiesce(ply + 1, alpha, beta, qply + 1)
            else:
                score = -self._quiesce(ply + 1, -beta, -alpha, qply + 1)
            game.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def _probe(self, game: zuni.Game, ply: int) -> int | None:
        assert self._tb is not None
        value = self._tb.value(game)
        if value is None:
            return None
        self.tb_hits += 1
        if value == 0:
            return self.scores.draw(game)
        return tablebase_score(value, ply)

    def _store(self, key: bytes, depth: int, flag: int, score: int, move: zuni.Move | None, ply: int) -> None:
        if len(self.tt) >= TT_MAX:
            self.tt.clear()
        self.tt[key] = (depth, flag, _to_tt(score, ply), move)


def _capture_size(move: zuni.Move) -> int:
    return len(move.captures)


def line_capture_check(game: zuni.Game) -> Callable[[zuni.Game], bool] | None:
    """For a line game, a function telling whether the side to move has a jump, much
    cheaper than generating the moves (quiescence asks it at every leaf); None for
    Awithlaknakwe, whose custody captures come with any move."""
    if game.ruleset.game_id == "awithlaknakwe":
        return None
    from zuni.line import adjacency, jump_table

    geometry = game.geometry
    first, _targets, rows = adjacency(geometry.k, geometry.lined)
    width, landings = jump_table(geometry.k, geometry.lined, game.ruleset["jumps"])
    south = zuni.piece_code(zuni.SOUTH, zuni.MAN)
    north = zuni.piece_code(zuni.NORTH, zuni.MAN)
    points = range(len(game.board))
    starts = [first[a] * width for a in points]

    def has_capture(position: zuni.Game) -> bool:
        board = position.board
        me, foe = (south, north) if position.turn == zuni.SOUTH else (north, south)
        for a in points:
            if board[a] != me:
                continue
            i = starts[a]
            for b in rows[a]:
                if board[b] == foe:
                    for j in range(i, i + width):
                        c = landings[j]
                        if c == 255:
                            break
                        if not board[c]:
                            return True
                i += width
        return False

    return has_capture


def _to_tt(score: int, ply: int) -> int:
    # Wins are stored relative to the node, so that they read right from any ply.
    if score >= WIN_BOUND:
        return score + ply
    if score <= -WIN_BOUND:
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score >= WIN_BOUND:
        return score - ply
    if score <= -WIN_BOUND:
        return score + ply
    return score
