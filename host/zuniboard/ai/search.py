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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast

import zuni
from zuni.awith import AwithGame
from zuni.line import LineGame
from zuniboard.ai import tablebase
from zuniboard.ai.evaluate import Evaluator, awith_contacts_threats, make_evaluator
from zuniboard.ai.tablebase import Tablebase

INF = 10**9
WIN = 10**6
# Scores above WIN - MAX_PLY are "win in (WIN - score) plies".
MAX_PLY = 200
WIN_BOUND = WIN - MAX_PLY
# Quiescence plies at most (captures shrink the board, but optional chains can branch).
MAX_QPLY = 12
# Nodes between clock / stop-flag checks (a node costs 20-50 us: a check every 16 is
# well under a millisecond apart, and the clock read costs about 0.1 us).
CHECK_EVERY = 16
# The search stops this long before its time is up: returning the move, building the
# result and the caller's own work take the rest.
TIME_MARGIN = 0.004
# A new depth is not begun once this share of the time is spent: it would not finish,
# and a partly searched depth rarely changes the move.
NEW_DEPTH_SHARE = 0.6
# Line games under stall=more: what a material lead gains as the quiet count nears its
# end (at the end the count wins the game), in hundredths of a piece.
QUIET_LEAD = 60
# Table entries before it is cleared (a dict entry is about 200 bytes).
TT_MAX = 400_000

EXACT, LOWER, UPPER = 0, 1, 2


class StopFlag(Protocol):
    def is_set(self) -> bool: ...


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


class _Abort(Exception):
    """Raised inside the search when the time, the node budget or the stop flag ends it."""


class Searcher:
    """An alpha-beta searcher. One instance may search many positions (one at a time).

    ``evaluator``: a function game -> score for team 0; built from the ruleset by default.
    ``use_tablebase``: probe the endgame tables on disk (line games). ``contempt``: what
    a draw costs the root's team, in hundredths of a piece (0: a draw is even; a player
    uses a little, so that it plays on in a level ending instead of drifting into the
    quiet rule's draw). ``quiet_aware``: in line games the evaluation follows the quiet
    count (``_quiet_adjusted``); only with the built-in evaluation. ``contact``
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
        self._evaluator = evaluator
        self.quiet_aware = quiet_aware
        self.contact = contact
        self.threat = threat
        self._contact_on = False
        self.contempt = contempt
        self._root_team = 0
        self.use_tablebase = use_tablebase
        self._tb: Tablebase | None = None
        self._tb_pieces = 0
        self.tb_hits = 0
        self._evaluator_for: str | None = None
        self.nodes = 0
        self._tt: dict[bytes, tuple[int, int, int, zuni.Move | None]] = {}
        self._killers: list[list[tuple[int, ...] | None]] = []
        self._history: dict[tuple[int, tuple[int, ...]], int] = {}
        self._capture_check: Callable[[zuni.Game], bool] | None = None
        self._capture_for: str | None = None
        self._quiet_limit = 0
        self._line_quiet = False
        self._stall_more = False
        self._deadline = 0.0
        self._soft_deadline = 0.0
        self._node_limit = 0
        self._next_check = 0
        self._stop: StopFlag | None = None
        self._game: zuni.Game = None  # type: ignore[assignment]  # set by _prepare before a search
        self._evaluate: Evaluator = _zero

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
        work = self._game
        if self._tb is not None and self._tb.covers(work):
            return self._tablebase_move(work, start, seed)
        root_moves = list(work.legal_moves())
        rng = random.Random(_position_seed(seed, work.key()))
        rng.shuffle(root_moves)
        root_moves = self._order(root_moves, None, 0)
        root_team = work.team_of(work.turn)
        root_len = len(work.move_stack)

        best_move = root_moves[0]
        best_score = self._static_for_mover(work)
        completed = 0
        stopped = False
        pv: list[zuni.Move] = [best_move]
        if len(root_moves) > 1:
            for depth in range(1, max_depth + 1):
                try:
                    score, move = self._root(root_moves, depth, root_team)
                except _Abort:
                    while len(work.move_stack) > root_len:
                        work.pop()
                    stopped = self._stop is not None and self._stop.is_set()
                    # A move that beat the previous best in the unfinished depth is kept.
                    if self._partial_move is not None:
                        best_move = self._partial_move
                        best_score = self._partial_score
                        pv = [best_move]
                    break
                best_move, best_score, completed = move, score, depth
                # The next depth starts with this depth's best move.
                root_moves.remove(move)
                root_moves.insert(0, move)
                pv = self._principal_variation(work, move)
                if progress is not None:
                    progress(SearchInfo(depth, self.nodes, move, score, time.monotonic() - start, pv))
                if abs(score) >= WIN_BOUND and WIN - abs(score) <= depth:
                    break  # a forced result inside the horizon: deeper search cannot change it
                if self._soft_deadline and time.monotonic() >= self._soft_deadline:
                    break
        return SearchResult(
            depth=completed,
            nodes=self.nodes,
            best_move=best_move,
            score=best_score,
            elapsed=time.monotonic() - start,
            pv=pv,
            completed_depth=completed,
            stopped=stopped,
        )

    def _tablebase_move(self, game: zuni.Game, start: float, seed: int | None) -> SearchResult:
        """The tables' best move: the fastest win, else a draw, else the longest loss;
        among equals (a draw or a loss), the one that sets the opponent the most traps
        (``_tb_traps``)."""
        assert self._tb is not None
        scored = tablebase.move_values(game, self._tb)
        best_value = scored[0][1]
        best = [m for m, v in scored if v == best_value]
        rng = random.Random(_position_seed(seed, game.key()))
        rng.shuffle(best)
        if len(best) > 1 and best_value <= 0:
            # The traps cost a table look-up per reply: only while the time allows.
            traps: dict[tuple[int, ...], tuple[int, float]] = {}
            for m in best:
                if self._soft_deadline and time.monotonic() >= self._soft_deadline:
                    break
                traps[m.path] = self._tb_traps(game, m)
            best.sort(key=lambda m: traps.get(m.path, (-1, -1.0)), reverse=True)
        move = best[0]
        score = tablebase_score(best_value, 0)
        self.nodes = len(scored)
        return SearchResult(
            depth=0,
            nodes=self.nodes,
            best_move=move,
            score=score,
            elapsed=time.monotonic() - start,
            pv=[move],
            completed_depth=0,
            stopped=False,
        )

    def _tb_traps(self, game: zuni.Game, move: zuni.Move) -> tuple[int, float]:
        """The traps ``move`` sets the opponent: how many of its replies lose it the game
        although the punishment starts with a quiet move (no piece hangs: a short
        search does not see the loss), then the share of its replies that lose.

        Against UCT at 1 s in Kolowis short (docs/strength-vs-uct.jsonl) a third of the
        replies in the drawn 3 v 3 endings lost, and UCT never played one in 120 moves:
        nearly all left a piece to be taken at once. The quiet-punished ones are the
        chances, so they count first."""
        assert self._tb is not None
        tb = self._tb
        game.push(move)
        try:
            if game.is_game_over():
                return 0, 0.0
            replies = tablebase.move_values(game, tb)
            losing = [m for m, v in replies if v < 0]
            quiet = 0
            for reply in losing:
                game.push(reply)
                try:
                    if game.is_game_over():
                        continue
                    answers = tablebase.move_values(game, tb)
                    top = answers[0][1]
                    if not any(m.captures for m, v in answers if v == top):
                        quiet += 1
                finally:
                    game.pop()
            return quiet, len(losing) / len(replies)
        finally:
            game.pop()

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
        work = self._game
        moves = self._order(list(work.legal_moves()), None, 0)
        root_team = work.team_of(work.turn)
        root_len = len(work.move_stack)
        scored: list[tuple[zuni.Move, int]] = []
        done = 0
        for depth in range(1, max_depth + 1):
            this: list[tuple[zuni.Move, int]] = []
            try:
                for move in moves:
                    this.append((move, self._child(move, depth, 1, root_team, -INF, INF)))
            except _Abort:
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
                s = self._static_for_mover(work)
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
        ruleset = str(game.ruleset)
        if self._evaluator is not None:
            self._evaluate = self._evaluator
        elif self._evaluator_for != ruleset:
            self._evaluate = make_evaluator(game)
            self._evaluator_for = ruleset
        self._game = game.copy()
        self._root_team = game.team_of(game.turn)
        self._quiet_limit = game.ruleset.get_int("quiet")
        line = game.ruleset.game_id != "awithlaknakwe"
        self._line_quiet = line and self.quiet_aware and self._evaluator is None
        self._stall_more = line and game.ruleset["stall"] == "more"
        self._contact_on = not line and (self.contact != 0 or self.threat != 0) and self._evaluator is None
        if self._capture_for != ruleset:
            self._capture_check = line_capture_check(game)
            self._capture_for = ruleset
        self._tb = (
            tablebase.for_ruleset(ruleset, wait=False)
            if self.use_tablebase and game.ruleset.game_id != "awithlaknakwe"
            else None
        )
        self._tb_pieces = self._tb.max_pieces if self._tb is not None else 0
        self.tb_hits = 0
        self._deadline = start + max(time_limit - TIME_MARGIN, time_limit / 2) if time_limit is not None else 0.0
        self._soft_deadline = start + NEW_DEPTH_SHARE * time_limit if time_limit is not None else 0.0
        self._node_limit = node_limit or 0
        self._stop = stop
        self.nodes = 0
        self._next_check = CHECK_EVERY
        self._tt = {}
        self._killers = [[None, None] for _ in range(MAX_PLY + MAX_QPLY + 2)]
        self._history = {}
        self._partial_move: zuni.Move | None = None
        self._partial_score = 0

    # -- the search ---------------------------------------------------------
    def _check(self) -> None:
        self._next_check = self.nodes + CHECK_EVERY
        if self._node_limit and self.nodes >= self._node_limit:
            raise _Abort
        if self._deadline and time.monotonic() >= self._deadline:
            raise _Abort
        if self._stop is not None and self._stop.is_set():
            raise _Abort

    def _root(self, moves: list[zuni.Move], depth: int, team: int) -> tuple[int, zuni.Move]:
        alpha = -INF
        best_move = moves[0]
        self._partial_move = None
        for i, move in enumerate(moves):
            if i == 0:
                score = self._child(move, depth, 1, team, alpha, INF)
            else:
                # Principal variation search: a null window proves the move no better,
                # a full one only when it is.
                score = self._child(move, depth, 1, team, alpha, alpha + 1)
                if score > alpha:
                    score = self._child(move, depth, 1, team, alpha, INF)
            if score > alpha:
                alpha = score
                best_move = move
                if i > 0:
                    self._partial_move, self._partial_score = move, score
        self._store(self._game.key(), depth, EXACT, alpha, best_move, 0)
        return alpha, best_move

    def _child(self, move: zuni.Move, depth: int, ply: int, team: int, alpha: int, beta: int) -> int:
        """Score of ``move`` for ``team`` (the mover's team), searched to ``depth - 1``."""
        game = self._game
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
            self._check()
        game = self._game
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
        entry = self._tt.get(key)
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
            return self._terminal(outcome, ply)
        if len(moves) == 1:
            depth += 1  # a forced reply costs no depth
        elif len(moves) > 1:
            moves = self._order(moves, tt_move, ply)
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
                            self._remember_cutoff(move, ply, depth)
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
        game = self._game
        if qply:
            self.nodes += 1
            if self.nodes >= self._next_check:
                self._check()
            if self._tb_pieces and sum(cast(LineGame, game).counts) <= self._tb_pieces:
                exact = self._probe(game, ply)
                if exact is not None:
                    return exact
        capture_check = self._capture_check
        if capture_check is None or game.quiet >= self._quiet_limit or not capture_check(game):
            outcome = game.outcome()
            if outcome is not None:
                return self._terminal(outcome, ply)
            if capture_check is not None:
                return self._static_for_mover(game)  # a line game with no capture: quiet
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
            best = self._static_for_mover(game)
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

    # -- helpers ------------------------------------------------------------
    def _probe(self, game: zuni.Game, ply: int) -> int | None:
        assert self._tb is not None
        value = self._tb.value(game)
        if value is None:
            return None
        self.tb_hits += 1
        if value == 0:
            return self._draw_score(game)
        return tablebase_score(value, ply)

    def _draw_score(self, game: zuni.Game) -> int:
        """A draw, for the side to move: below an even position for the root's team by
        ``contempt`` (it plays on rather than settle for a draw), above it for the other."""
        if game.team_of(game.turn) == self._root_team:
            return -self.contempt
        return self.contempt

    def _static_for_mover(self, game: zuni.Game) -> int:
        score = self._evaluate(game)
        if self._line_quiet:
            score = self._quiet_adjusted(cast(LineGame, game), score)  # _line_quiet: a line game
        elif self._contact_on:
            # _contact_on: Awithlaknakwe's
            contacts, threats = awith_contacts_threats(cast(AwithGame, game), self._root_team)
            bonus = self.contact * contacts + self.threat * threats
            score += bonus if self._root_team == 0 else -bonus
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
        limit = self._quiet_limit
        counts: list[int] = game.counts
        lead = counts[0] - counts[1]
        if lead and self._stall_more:
            return score + (QUIET_LEAD * q // limit if lead > 0 else -QUIET_LEAD * q // limit)
        draw = -self.contempt if self._root_team == 0 else self.contempt
        return (score * (limit - q) + draw * q) // limit

    def _terminal(self, outcome: zuni.Outcome, ply: int) -> int:
        winner = outcome.winner
        game = self._game
        if winner is None:
            return self._draw_score(game)
        if winner == game.team_of(game.turn):
            return WIN - ply
        return -(WIN - ply)

    def _order(self, moves: Sequence[zuni.Move], tt_move: zuni.Move | None, ply: int) -> list[zuni.Move]:
        # Paths identify moves within a position (RULES.md) and compare faster than Moves.
        killers = self._killers[ply] if ply < len(self._killers) else _NO_KILLERS
        killer0, killer1 = killers[0], killers[1]
        tt_path = tt_move.path if tt_move is not None else None
        history = self._history
        turn = self._game.turn

        def rank(move: zuni.Move) -> int:
            path = move.path
            if path == tt_path:
                return 1 << 40
            n = len(move.captures)
            if n:
                return (1 << 30) + (n << 20)
            if path == killer0 or path == killer1:
                return 1 << 19
            return history.get((turn, path), 0)

        return sorted(moves, key=rank, reverse=True)

    def _remember_cutoff(self, move: zuni.Move, ply: int, depth: int) -> None:
        killers = self._killers[ply]
        if killers[0] != move.path:
            killers[1] = killers[0]
            killers[0] = move.path
        key = (self._game.turn, move.path)
        self._history[key] = min(self._history.get(key, 0) + depth * depth, 1 << 18)

    def _store(self, key: bytes, depth: int, flag: int, score: int, move: zuni.Move | None, ply: int) -> None:
        if len(self._tt) >= TT_MAX:
            self._tt.clear()
        self._tt[key] = (depth, flag, _to_tt(score, ply), move)

    def _principal_variation(self, game: zuni.Game, first: zuni.Move) -> list[zuni.Move]:
        """The best line: ``first``, then the table's moves while they stay legal."""
        line = [first]
        game.push(first)
        seen = {game.key()}
        while len(line) < 16 and not game.is_game_over():
            entry = self._tt.get(game.key())
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


_NO_KILLERS: list[tuple[int, ...] | None] = [None, None]


def _zero(game: zuni.Game) -> int:
    return 0


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


def tablebase_score(value: int, ply: int) -> int:
    """A tablebase value (win in d: ``WIN_T - d``) as a search score at ``ply``."""
    if value > 0:
        return WIN - (ply + tablebase.WIN_T - value)
    if value < 0:
        return -(WIN - (ply + tablebase.WIN_T + value))
    return 0


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


def _position_seed(seed: int | None, key: bytes) -> int:
    """A tie-break seed from the player's seed and the position only (not the history)."""
    return ((seed or 0) * 1_000_003) ^ zlib.crc32(key)
