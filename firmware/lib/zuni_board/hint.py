"""The board's own hint: a small alpha-beta search, done a bounded slice per scan cycle.

``HintSearch(game)`` searches ``game``'s position for the team to move;
``step(budget)`` does one slice of the search and returns True once it has finished
(``best`` is then its move, ``score`` the score for the mover's team, ``depth`` the
deepest depth completed, ``nodes`` and ``work`` what it cost). A node is one call of
``game.legal_moves()``, of ``game.legal_captures()`` (at the horizon), of
``count_moves()`` or of the evaluation, each with its cost in work units (``LEGAL``
a ``legal_moves()`` call: MICROPYTHON-NOTES, 2.5-5.4 ms a position on an RP2040; the
others measured against it on the unix port); pushing the line again at the start of
a slice costs too. A slice takes nodes while their cost fits ``budget``, and at least
one, so a slice is bounded on the chip as on the PC; the whole search stops once
``max_work`` is spent (then ``best`` is the best move of the deepest depth done, or a
move that beat it in the unfinished one).

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
an exchange. The horizon asks the engine for its captures only (``legal_captures``: a
line game builds no step moves there), which makes depth 1 cheap enough to finish on
the long Kolowis board's 60-move positions. The evaluation is the one the host's
search uses (``zuni.evaluate``): its per-game half only (``line_team0``, or
``zuni.evaluate_awith.awith_team0`` without zuni.evaluate's code), for the team to move.

Heap: per ply of its line the search holds a generator frame and that node's moves,
its steps as 3 bytes each (``_packed``), and nothing else; the board app unloads this
module and the evaluation once the hint is shown.
"""

from micropython import const
from zuni.core import Move

# Scores: the evaluation is in hundredths of a piece; a win is far above any of them.
INF = const(1 << 29)
WIN = const(1 << 24)
WIN_BOUND = const((1 << 24) - 1000)
# Quiescence plies at most (optional chains can branch; 3 would finish depth 1 sooner,
# 0.82 s instead of 1.06 on the estimate for the slowest Kolowis position of
# tools/bench_firmware.py's game, but misses the double captures of tests/shared/test_hint.py).
MAX_QPLY = const(4)
# Forced replies are searched one ply deeper only up to this many plies from the root.
MAX_EXTEND_PLY = const(6)
# Work units: a legal_moves() call costs LEGAL, about 4.5 us a unit on the unix port
# (the best of 15 runs, 2026-12-02: legal_moves() 12-25 us a position; a line game's
# legal_captures() 3-8 us without a capture, up to 19 with chains, count_moves() about
# the same; Awithlaknakwe's legal_captures() about half a legal_moves(); the evaluation
# 4.4 us on 25 points, 9-14 on 49, 8 (two players) and 16 (four) on Awithlaknakwe; push
# and pop of a move 2-4 us, 4-7 on Awithlaknakwe).
LEGAL = const(4)
# Defaults: a search of this size takes 0.6-1.4 s on an RP2040 (estimated by
# tools/bench_firmware.py from the unix port), and beats random and greedy movers
# (tools/bench_hint.py).
MAX_DEPTH = const(3)
MAX_WORK = const(600)


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


def _each(moves, names):
    """``moves`` in ``_order``'s order, as the search holds them while it searches their
    children: the captures as Moves, the steps as 3 bytes each (kind, origin, landing; a
    Kolowis position's 60 steps: 180 bytes, not some 6 KB of a 64-bit heap) and a Move
    made again when its turn comes; other moves (drops, passes) kept, in their place."""
    steps = bytearray()
    kept = []  # type: list
    captures = []  # type: list
    for move in moves:
        path = move.path
        if move.captures:
            captures.append(move)
        elif len(path) == 2:
            steps.append(move.kind)
            steps.append(path[0])
            steps.append(path[1])
        else:
            steps.append(255)  # kept[i] here
            steps.append(len(kept))
            steps.append(0)
            kept.append(move)
    moves = None  # the Moves of the steps are garbage from here on
    for move in _order(captures):
        yield move
    captures = None  # type: ignore
    for j in range(0, len(steps), 3):
        kind = steps[j]
        yield kept[steps[j + 1]] if kind == 255 else Move(kind, (steps[j + 1], steps[j + 2]), (), names)


class HintSearch:
    def __init__(self, game, moves=None, max_depth=MAX_DEPTH, max_work=MAX_WORK):
        # ``moves``: the position's legal moves if the caller has them (the app's
        # Position does), which saves one node.
        self.game = game
        self.root_len = len(game.move_stack)
        self.max_work = max_work
        self.nodes = 0
        self.work = 0
        self.slices = 0
        self.best = None  # type: ignore
        self.score = 0
        self.depth = 0
        self.depth_slices = []  # type: list  # the slice in which each depth completed
        self.done = False
        self.oom = False  # it ran out of heap (the benchmarks count that as a failure)
        self._line = []  # type: list  # the moves the search has pushed, in order
        self._left = 0  # work this slice may still do
        # Costs in work units (LEGAL a legal_moves() call, see LEGAL). Awithlaknakwe
        # tests every move for its captures; its four-player evaluation walks four
        # sides; a line game's captures and evaluation walk its points.
        points = len(game.board)
        # The evaluation for team 0 (zuni.evaluate's terms), loaded with the search.
        if game.ruleset.game_id == "awithlaknakwe":
            from zuni.evaluate_awith import awith_team0 as team0
        else:
            from zuni.evaluate import line_team0 as team0
        self._team0 = team0
        if game.ruleset.game_id == "awithlaknakwe":
            self.captures_cost = 2
            self.eval_cost = len(game.sides)
        else:
            self.captures_cost = 1 + points // 32
            self.eval_cost = 1 + points // 20
        self._fresh = True  # no node yet in this slice
        self._gen = self._run(moves, max_depth)

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
        # Pushing the line again costs too, and taking it back: a unit a move.
        self._left = budget - len(line)
        self._fresh = True
        self.slices += 1
        try:
            for move in line:
                game.push(move)
            next(self._gen)  # returns at a slice's end, or once max_work is spent (done)
        except StopIteration:
            self.done = True
        except MemoryError:
            self.done = True  # no room for a deeper line: the best move so far
            self.oom = True
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
        if self.work + cost > self.max_work:
            self.done = True
            return False
        if cost > self._left and not self._fresh:
            return False
        self._fresh = False
        self._left -= cost
        self.work += cost
        self.nodes += 1
        return True

    # -- the search (generators: each ``yield`` ends a slice) ---------------------------
    def _run(self, moves, max_depth):
        game = self.game
        if moves is None:
            while not self._room(LEGAL):
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
        for depth in range(1, max_depth + 1):
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
            self.depth_slices.append(self.slices)
            moves.remove(best)
            moves.insert(0, best)
            if alpha >= WIN_BOUND or alpha <= -WIN_BOUND:
                return  # a forced result: a deeper search cannot change it
            if self.work - started > self.max_work - self.work:
                # The next depth costs more than this one and would not finish: stop
                # here (sooner, and no deeper lines held in the heap).
                return

    def _over(self):
        """The score of the finished game for the team to move: a win sooner is better.
        (A plain function: its frame is not held on the heap as a generator's is.)"""
        game = self.game
        outcome = game.outcome()
        winner = outcome.winner if outcome is not None else None
        ply = len(self._line)
        return 0 if winner is None else WIN - ply if winner == game.team_of(game.turn) else ply - WIN

    def _value(self, depth, alpha, beta, qply):
        """Score for the team to move: alpha-beta for ``depth`` plies, then captures only
        (quiescence: the mover may stand pat on the evaluation unless every move captures)."""
        game = self.game
        line = self._line
        # Forced replies are played in this frame (no generator of their own: four-
        # player Awithlaknakwe's passes chain), ``sign`` -1 once the team to move changed.
        forced = 0
        sign = 1
        while True:
            while not self._room(LEGAL if depth > 0 else self.captures_cost):
                yield
            # At the horizon (depth 0) only the captures are searched.
            moves = game.legal_moves() if depth > 0 else game.legal_captures()
            best = -INF
            if not moves and (depth > 0 or game.outcome() is not None):
                best = self._over()
                break
            if depth > 0:
                if len(moves) == 1 and len(line) < MAX_EXTEND_PLY:
                    # A forced reply costs no depth, near the root only: four-player
                    # Awithlaknakwe's forced passes could otherwise chain dozens of plies.
                    team = game.team_of(game.turn)
                    game.push(moves[0])
                    line.append(moves[0])
                    forced += 1
                    if game.team_of(game.turn) != team:
                        sign = -sign
                        alpha, beta = -beta, -alpha
                    continue
            else:
                # (No forced reply at the horizon: nothing to take back before a return.)
                if moves:
                    while not self._room(self.captures_cost):
                        yield
                # Quiet moves too (count_moves builds no move): the mover may stand pat.
                if not moves or qply >= MAX_QPLY or game.count_moves() > len(moves):
                    while not self._room(self.eval_cost):
                        yield
                    best = self._team0(game)
                    if game.team_of(game.turn):
                        best = -best  # zuni.evaluate.evaluate: for the team to move
                    if not moves or best >= beta or qply >= MAX_QPLY:
                        return best
                    if best > alpha:
                        alpha = best
                qply += 1
            if depth <= 0:
                # Past the horizon only the captures that take the most: a chain that may
                # stop anywhere is not searched at every stop (Kolowis' optional chains).
                most = 0
                for move in moves:
                    if len(move.captures) > most:
                        most = len(move.captures)
                moves = [m for m in moves if len(m.captures) == most]
            moves = _each(moves, game.geometry.names) if depth > 0 else moves
            team = game.team_of(game.turn)
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
            break
        while forced:
            game.pop()
            line.pop()
            forced -= 1
        return best * sign
