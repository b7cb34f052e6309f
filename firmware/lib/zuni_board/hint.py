"""The board's own hint: a small alpha-beta search, done a bounded slice per scan cycle.

``HintSearch(game)`` searches ``game``'s position for the team to move;
``step(budget)`` does one slice of the search and returns True once it has finished
(``best`` is then its move, ``score`` the score for the mover's team, ``depth`` the
deepest depth completed, ``nodes`` and ``work`` what it cost). A node is one call of
``game.legal_moves()`` (cost 1) or of the evaluation (cost ``eval_cost``: it walks the
board): the two things that take time on the chip (MICROPYTHON-NOTES: ``legal_moves()``
2.5-5.4 ms per position on an RP2040). A slice takes nodes while their cost fits
``budget``, and at least one, so a slice is bounded on the chip as on the PC; the whole
search stops once ``max_work`` is spent (then ``best`` is the best move of the deepest
depth done, or a move that beat it in the unfinished one).

The search works on the game it is given, not on a copy (a copy of a 168-square game
costs kilobytes of the board's heap): between slices the game is always back in its
own position, since the line of moves the search stands on is taken back at the end of
each slice and played again at the start of the next. The board app drops the search
on any change (a lift, a new game, a take-back); ``step`` also stops by itself if the
game moved on meanwhile.

Search: iterative deepening from depth 1 to ``max_depth``, alpha-beta on team value
(four-player Awithlaknakwe does not alternate teams: a score is negated only where the
team to move changes), captures first, the previous depth's best move first, and at the
horizon a quiescence search of captures (the side to move may stand pat on the
evaluation unless every move captures), so that the hint never stops in the middle of
an exchange. The evaluation is the one the host's search uses,
``zuni.evaluate.evaluate`` (score for the team to move).
"""

from micropython import const
from zuni.evaluate import evaluate

# Scores: the evaluation is in hundredths of a piece; a win is far above any of them.
INF = const(1 << 29)
WIN = const(1 << 24)
WIN_BOUND = const((1 << 24) - 1000)
# Quiescence plies at most (optional chains can branch).
MAX_QPLY = const(4)
# Forced replies are searched one ply deeper only up to this many plies from the root.
MAX_EXTEND_PLY = const(6)
# Defaults: a search of this size takes 0.8-1.4 s on an RP2040 (estimated by
# tools/bench_firmware.py from the unix port), and beats random and greedy movers
# (tools/bench_hint.py).
MAX_DEPTH = const(3)
MAX_WORK = const(100)


def _order(moves):
    """Captures first, the biggest first; equal moves keep the engine's order (so the
    search is the same under MicroPython, whose sort is not stable, and CPython)."""
    most = 0
    for move in moves:
        n = len(move.captures)
        if n > most:
            most = n
    if not most:
        return moves
    ordered = []
    for n in range(most, -1, -1):
        for move in moves:
            if len(move.captures) == n:
                ordered.append(move)
    return ordered


class HintSearch:
    def __init__(self, game, moves=None, max_depth=MAX_DEPTH, max_work=MAX_WORK):
        # ``moves``: the position's legal moves if the caller has them (the app's
        # Position does), which saves one node.
        self.game = game
        self.root_len = len(game.move_stack)
        self.max_depth = max_depth
        self.max_work = max_work
        self.nodes = 0
        self.work = 0
        self.slices = 0
        self.best = None  # type: ignore
        self.score = 0
        self.depth = 0
        self.done = False
        self._line = []  # type: list  # the moves the search has pushed, in order
        self._spent = 0
        self._budget = 0
        # Cost of a node in units of one legal_moves() call (measured on the unix port):
        # an evaluation costs about as much, twice that with four players.
        self.eval_cost = 2 if game.ruleset.game_id == "awithlaknakwe" and len(game.sides) == 4 else 1
        self._gen = self._run(moves)

    def step(self, budget):
        """One slice of at most ``budget`` work (and at least one node); True once finished."""
        if self.done:
            return True
        game = self.game
        if len(game.move_stack) != self.root_len:
            self.best = None  # the game moved on: whatever the caller asked, this is stale
            self.stop()
            return True
        line = self._line
        self._spent = 0
        self._budget = budget
        self.slices += 1
        try:
            for move in line:
                game.push(move)
            next(self._gen)  # returns at a slice's end, or once max_work is spent (done)
        except StopIteration:
            self.done = True
        except MemoryError:
            self.done = True  # no room for a deeper line: the best move so far
        # Back to the game's own position, whatever happened in the slice.
        while len(game.move_stack) > self.root_len:
            game.pop()
        if self.done:
            self.stop()
        return self.done

    def stop(self):
        """End the search now (the caller's time is up): ``best`` is what it has."""
        self.done = True
        self._gen = None
        self._line = []

    def _room(self, cost):
        """Count a node of ``cost`` if this slice has room for it; False: yield first.
        A slice takes nodes while their cost fits its budget, and always at least one;
        once ``max_work`` is spent the search is done (it yields, never to go on)."""
        spent = self._spent
        if self.work + cost > self.max_work:
            self.done = True
            return False
        if spent and spent + cost > self._budget:
            return False
        self._spent = spent + cost
        self.work += cost
        self.nodes += 1
        return True

    # -- the search (generators: each ``yield`` ends a slice) ---------------------------
    def _run(self, moves):
        game = self.game
        if moves is None:
            while not self._room(1):
                yield
            moves = game.legal_moves()
        moves = list(_order(moves))
        if not moves:
            return
        self.best = moves[0]
        if len(moves) == 1:
            return  # one legal move (a forced capture, a pass): nothing to weigh
        team = game.team_of(game.turn)
        line = self._line
        for depth in range(1, self.max_depth + 1):
            started = self.work
            alpha = -INF
            best = moves[0]
            for i in range(len(moves)):
                move = moves[i]
                game.push(move)
                line.append(move)
                if game.team_of(game.turn) == team:
                    score = yield from self._value(depth - 1, alpha, INF, 0)
                else:
                    score = -(yield from self._value(depth - 1, -INF, -alpha, 0))
                game.pop()
                line.pop()
                if score > alpha:
                    alpha = score
                    best = move
                    if i > 0:
                        # Better than this depth's first move (the last depth's best):
                        # worth keeping even if this depth does not finish.
                        self.best = move
                        self.score = score
            self.best = best
            self.score = alpha
            self.depth = depth
            moves.remove(best)
            moves.insert(0, best)
            if alpha >= WIN_BOUND or alpha <= -WIN_BOUND:
                return  # a forced result: a deeper search cannot change it
            if self.work - started > self.max_work - self.work:
                # The next depth costs more than this one and would not finish: stop
                # here (sooner, and no deeper lines held in the heap).
                return

    def _value(self, depth, alpha, beta, qply):
        """Score for the team to move: alpha-beta for ``depth`` plies, then captures only
        (quiescence: the mover may stand pat on the evaluation unless every move captures)."""
        game = self.game
        while not self._room(1):
            yield
        moves = game.legal_moves()
        if not moves:
            outcome = game.outcome()
            winner = outcome.winner if outcome is not None else None
            if winner is None:
                return 0
            ply = len(self._line)
            return WIN - ply if winner == game.team_of(game.turn) else ply - WIN
        if depth > 0:
            best = -INF
            if len(moves) == 1 and len(self._line) < MAX_EXTEND_PLY:
                # A forced reply costs no depth, near the root only: four-player
                # Awithlaknakwe's forced passes could otherwise chain dozens of plies.
                depth += 1
        else:
            captures = [m for m in moves if m.captures]
            if len(captures) < len(moves) or qply >= MAX_QPLY:
                while not self._room(self.eval_cost):
                    yield
                best = evaluate(game)
                if not captures or best >= beta or qply >= MAX_QPLY:
                    return best
                if best > alpha:
                    alpha = best
            else:
                best = -INF
            moves = captures  # the quiet moves are not needed: free them
            qply += 1
        moves = _order(moves)
        team = game.team_of(game.turn)
        line = self._line
        for move in moves:
            game.push(move)
            line.append(move)
            if game.team_of(game.turn) == team:
                score = yield from self._value(depth - 1, alpha, beta, qply)
            else:
                score = -(yield from self._value(depth - 1, -beta, -alpha, qply))
            game.pop()
            line.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best


def prepare(game):
    """Build the evaluation's tables for ``game`` now: they are built on its first use,
    which takes longer than a scan cycle (the Awithlaknakwe distance tables: about 1.5
    ms per side on the unix port, some 250 ms on an RP2040; the line adjacency rows)."""
    evaluate(game)
