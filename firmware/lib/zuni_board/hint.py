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

Heap: the search is one generator (``_values``) made with the search, its plies on an
explicit stack of small lists (a ply: a few ints and that node's moves, its steps as 3
bytes each, ``_pack``), the root a plain method; so once started it needs no new
generator frame (a few hundred contiguous bytes, which a fragmented heap may lack
where the same bytes in small pieces are free), and the root's moves stay the caller's
list, their order a byte each (``_ranks``). The board app unloads this module and the
evaluation once the hint is shown.
"""

from micropython import const
from zuni.core import Move

# Scores: the evaluation is in hundredths of a piece; a win is far above any of them.
_INF = const(1 << 29)
_WIN = const(1 << 24)
_WIN_BOUND = const((1 << 24) - 1000)
# Quiescence plies at most (optional chains can branch; 3 would finish depth 1 sooner,
# 0.82 s instead of 1.06 on the estimate for the slowest Kolowis position of
# tools/bench_firmware.py's game, but misses the double captures of tests/shared/test_hint.py).
_MAX_QPLY = const(4)
# Forced replies are searched one ply deeper only up to this many plies from the root.
_MAX_EXTEND_PLY = const(6)
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


# The search's state (HintSearch._at): the root's depth, the index of the root move being
# searched (-1: none yet), its alpha and best move, the work at the depth's start; what
# the root asks _values (depth, alpha, beta) and its answer; the root's team, the depth
# limit, the root's length of move_stack, the slice's work left and whether it has no
# node yet; the plies of _values' stack, the root's moves, the evaluation, _values,
# the root's moves' order (_ranks); max_work, the line of moves the search has
# pushed, the costs of a legal_captures() call and of an evaluation (in work units).
_DEPTH = const(0)
_INDEX = const(1)
_ALPHA = const(2)
_BEST = const(3)
_STARTED = const(4)
_ASK_DEPTH = const(5)
_ASK_ALPHA = const(6)
_ASK_BETA = const(7)
_SCORE = const(8)
_TEAM = const(9)
_MAX_DEPTH = const(10)
_ROOT_LEN = const(11)
_LEFT = const(12)
_FRESH = const(13)
_PLIES = const(14)
_MOVES = const(15)
_TEAM0 = const(16)
_VALUES = const(17)
_ORDER = const(18)
_MAX_WORK = const(19)
_LINE = const(20)
_CAPTURES_COST = const(21)
_EVAL_COST = const(22)
_SLOTS = const(23)


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


def _pack(moves):
    """``moves`` as the search holds them while it searches their children: the
    captures as Moves in ``_order``'s order, then the others in the engine's order,
    the steps as 3 bytes each (kind, origin, landing; a Kolowis position's 60 steps: 180
    bytes, not some 6 KB of a 64-bit heap, a Move made again when its turn comes) and
    other moves (drops, passes) kept in ``kept``, marked 255 and their index."""
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
    return _order(captures), steps, kept


def _keep(ply, moves, depth):
    """A node's ``moves`` into its ply (slots 10-12, _pack's; slot 8 the next one's index):
    past the horizon only the captures that take the most (a chain that may stop
    anywhere is not searched at every stop: Kolowis' optional chains)."""
    ply[8] = 0
    if depth > 0:
        ply[10], ply[11], ply[12] = _pack(moves)
        return
    most = 0
    for move in moves:
        if len(move.captures) > most:
            most = len(move.captures)
    ply[10] = [m for m in moves if len(m.captures) == most]
    ply[11] = ply[12] = None


def _next(ply, names):
    """The ply's next move (None after its last), a step made again as a Move."""
    i = ply[8]
    ply[8] = i + 1
    captures = ply[10]
    if i < len(captures):
        return captures[i]
    steps = ply[11]
    i = (i - len(captures)) * 3
    if steps is None or i >= len(steps):
        return None
    kind = steps[i]
    if kind == 255:
        return ply[12][steps[i + 1]]
    return Move(kind, (steps[i + 1], steps[i + 2]), (), names)


def _ranks(moves):
    """The indices of ``moves`` in ``_order``'s order, a byte each: the root keeps the
    caller's list of moves (the app's Position holds it anyway), not a copy of it."""
    n = len(moves)
    order = bytearray(n) if n <= 256 else [0] * n
    most = 0
    for move in moves:
        if len(move.captures) > most:
            most = len(move.captures)
    k = 0
    for c in range(most, -1, -1):
        for i in range(n):
            if len(moves[i].captures) == c:
                order[k] = i
                k += 1
    return order


def costs(game):
    """The work units of a ``legal_captures()`` call and of an evaluation in ``game``
    (LEGAL a legal_moves() call, see LEGAL). Awithlaknakwe tests every move for its
    captures; its four-player evaluation walks four sides; a line game's captures and
    evaluation walk its points."""
    if game.ruleset.game_id == "awithlaknakwe":
        return 2, len(game.sides)
    points = len(game.board)
    return 1 + points // 32, 1 + points // 20


class HintSearch:
    def __init__(self, game, moves=None, max_depth=MAX_DEPTH, max_work=MAX_WORK):
        # ``moves``: the position's legal moves if the caller has them (the app's
        # Position does), which saves one node.
        # The larger blocks first (the search's generator frame, its state), while the
        # heap still has holes of their size; the evaluation's code last.
        self.game = game
        # The search's private state in one list, not attributes: an instance's
        # attributes are a hash table, one more contiguous block to find as it grows.
        at = self._at = [0] * _SLOTS  # type: list
        # The search's one generator, made here: no frame to find room for mid-search.
        at[_VALUES] = self._values()
        self.nodes = 0
        self.work = 0
        self.slices = 0
        self.best = None  # type: ignore
        self.score = 0
        self.depth = 0
        self.depth_slices = []  # type: list  # the slice in which each depth completed
        self.done = False
        self.oom = False  # it ran out of heap (the benchmarks count that as a failure)
        at[_DEPTH] = 1
        at[_MAX_WORK] = max_work
        at[_LINE] = []  # the moves the search has pushed, in order
        at[_INDEX] = -1
        at[_ALPHA] = -_INF
        at[_TEAM] = game.team_of(game.turn)
        at[_MAX_DEPTH] = max_depth
        at[_ROOT_LEN] = len(game.move_stack)
        at[_PLIES] = []  # grown a ply at a time as the search goes deeper, then reused
        at[_MOVES] = moves
        if moves is not None:
            at[_ORDER] = _ranks(moves)
            if moves:
                self.best = moves[at[_ORDER][0]]
        at[_CAPTURES_COST], at[_EVAL_COST] = costs(game)
        # The evaluation for team 0 (zuni.evaluate's terms), loaded with the search.
        if game.ruleset.game_id == "awithlaknakwe":
            from zuni.evaluate_awith import awith_team0 as team0
        else:
            from zuni.evaluate import line_team0 as team0
        at[_TEAM0] = team0

    def step(self, budget):
        """One slice of at most ``budget`` work (and at least one node); True once finished."""
        if self.done:
            return True
        game = self.game
        if len(game.move_stack) != self._at[_ROOT_LEN]:
            self.best = None  # the game moved on: whatever the caller asked, this is stale
            self.stop()
            return True
        line = self._at[_LINE]
        # Pushing the line again costs too, and taking it back: a unit a move.
        at = self._at
        at[_LEFT] = budget - len(line)
        at[_FRESH] = 1
        self.slices += 1
        try:
            for move in line:
                game.push(move)
            if self._root():
                self.done = True
        except MemoryError:
            self.done = True  # no room for a deeper line: the best move so far
            self.oom = True
        # Back to the game's own position, whatever happened in the slice.
        while len(game.move_stack) > at[_ROOT_LEN]:
            game.pop()
        if self.done:
            self.stop()
        return self.done

    def stop(self):
        """End the search now (the caller's time is up): ``best`` is what it has."""
        self.done = True
        self._at[_VALUES] = self._at[_MOVES] = None
        self._at[_LINE] = []

    def _room(self, cost):
        """Count a node of ``cost`` if this slice has room for it; False: yield first.
        A slice takes nodes while their cost fits its budget, and always at least one;
        once ``max_work`` is spent the search is done (it yields, never to go on)."""
        if self.work + cost > self._at[_MAX_WORK]:
            self.done = True
            return False
        at = self._at
        if cost > at[_LEFT] and not at[_FRESH]:
            return False
        at[_FRESH] = 0
        at[_LEFT] -= cost
        self.work += cost
        self.nodes += 1
        return True

    # -- the search (generators: each ``yield`` ends a slice) ---------------------------
    def _root(self):
        """The root's part of a slice (a plain method: its state in ``_at``, no frame held
        between slices): each root move's score from ``_values``; True once the search
        is over, False at the slice's end."""
        game = self.game
        at = self._at
        moves = at[_MOVES]
        if moves is None:
            if not self._room(LEGAL):
                return self.done
            moves = at[_MOVES] = game.legal_moves()
            at[_ORDER] = _ranks(moves)
            if moves:
                self.best = moves[at[_ORDER][0]]
            at[_STARTED] = self.work
        if len(moves) < 2:
            return True  # no move, or one (a forced capture, a pass): nothing to weigh
        line = self._at[_LINE]
        order = at[_ORDER]
        while True:
            i = at[_INDEX]
            if i >= 0:
                if not next(at[_VALUES]):
                    return self.done  # the slice's end, or max_work spent
                score = at[_SCORE]
                if game.team_of(game.turn) != at[_TEAM]:
                    score = -score
                game.pop()
                line.pop()
                if score > at[_ALPHA]:
                    at[_ALPHA] = score
                    at[_BEST] = i
                    if i > 0:
                        # Better than this depth's first move (the last depth's best):
                        # worth keeping even if this depth does not finish.
                        self.best = moves[order[i]]
                        self.score = score
                i += 1
            else:
                i = 0
            at[_INDEX] = i
            if i < len(moves):
                move = moves[order[i]]
                game.push(move)
                line.append(move)
                if game.team_of(game.turn) == at[_TEAM]:
                    at[_ASK_DEPTH] = at[_DEPTH] - 1
                    at[_ASK_ALPHA] = at[_ALPHA]
                    at[_ASK_BETA] = _INF
                else:
                    at[_ASK_DEPTH] = at[_DEPTH] - 1
                    at[_ASK_ALPHA] = -_INF
                    at[_ASK_BETA] = -at[_ALPHA]
                continue
            # The depth is done.
            if self._depth_done(moves, order):
                return True

    def _depth_done(self, moves, order):
        """A depth of the root is searched: its best move first for the next one; True if
        the search is over (a forced result, the work or depth limit), else the next
        depth set up. (Once a depth, not a node: no cost to the search's loop.)"""
        at = self._at
        i = at[_BEST]
        best = order[i]
        while i:
            order[i] = order[i - 1]
            i -= 1
        order[0] = best
        self.best = moves[best]
        self.score = at[_ALPHA]
        self.depth = at[_DEPTH]
        self.depth_slices.append(self.slices)
        if at[_ALPHA] >= _WIN_BOUND or at[_ALPHA] <= -_WIN_BOUND:
            return True  # a forced result: a deeper search cannot change it
        if self.work - at[_STARTED] > at[_MAX_WORK] - self.work or at[_DEPTH] >= at[_MAX_DEPTH]:
            # The next depth costs more than this one and would not finish: stop
            # here (sooner, and no deeper lines held in the heap).
            return True
        at[_DEPTH] += 1
        at[_INDEX] = -1
        at[_ALPHA] = -_INF
        at[_BEST] = 0
        at[_STARTED] = self.work
        return False

    def _over(self):
        """The score of the finished game for the team to move: a win sooner is better.
        (A plain function: its frame is not held on the heap as a generator's is.)"""
        game = self.game
        outcome = game.outcome()
        winner = outcome.winner if outcome is not None else None
        ply = len(self._at[_LINE])
        return 0 if winner is None else _WIN - ply if winner == game.team_of(game.turn) else ply - _WIN

    def _up(self, plies, sp, value):
        """The ply at ``sp`` is done with ``value``: back to its parent's position, the
        parent's alpha and best (ply slots 1, 6) updated; the parent's slot, or -1 at
        the top (the value then in _SCORE). A plain method: no frame held on the heap."""
        game = self.game
        line = self._at[_LINE]
        ply = plies[sp]
        forced = ply[4]
        while forced:
            game.pop()
            line.pop()
            forced -= 1
        value *= ply[5]
        ply[10] = ply[11] = ply[12] = None
        if sp == 0:
            self._at[_SCORE] = value
            return -1
        if ply[9]:
            value = -value
        game.pop()
        line.pop()
        ply = plies[sp - 1]
        if value > ply[6]:
            ply[6] = value
            if value > ply[1]:
                ply[1] = value
        return sp - 1

    def _values(self):
        """The scores the root asks for (``_ask``: depth, alpha, beta; the score for the
        team to move into ``_score``, then it yields 1; 0 ends a slice): alpha-beta for
        depth plies, then captures only (quiescence: the mover may stand pat on the
        evaluation unless every move captures). One generator for the whole search, its
        plies on an explicit stack (``_plies``), all made once with the search:
        in a fragmented heap a generator frame of a few hundred contiguous bytes may not
        be found where the same bytes in small pieces are."""
        game = self.game
        line = self._at[_LINE]
        # Per ply: depth, alpha, beta, qply, forced, sign, best, team, index, negated,
        # and its moves: captures, steps, kept (_pack).
        at = self._at
        plies = at[_PLIES]
        team0 = at[_TEAM0]
        captures_cost = at[_CAPTURES_COST]
        eval_cost = at[_EVAL_COST]
        names = game.geometry.names
        while True:
            depth = at[_ASK_DEPTH]
            alpha = at[_ASK_ALPHA]
            beta = at[_ASK_BETA]
            sp = 0  # the ply's slot in plies
            qply = 0
            negated = 0
            while sp >= 0:
                # -- a node: its value now, or its moves on the stack --
                forced = 0
                sign = 1
                value = None
                while True:
                    while not self._room(LEGAL if depth > 0 else captures_cost):
                        yield 0
                    # At the horizon (depth 0) only the captures are searched.
                    moves = game.legal_moves() if depth > 0 else game.legal_captures()
                    n = len(moves)
                    best = -_INF
                    if not n and (depth > 0 or game.outcome() is not None):
                        value = self._over()
                        break
                    if depth > 0:
                        if n == 1 and len(line) < _MAX_EXTEND_PLY:
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
                        if n:
                            while not self._room(captures_cost):
                                yield 0
                        # Quiet moves too (count_moves builds no move): the mover may stand pat.
                        if not n or qply >= _MAX_QPLY or game.count_moves() > n:
                            while not self._room(eval_cost):
                                yield 0
                            best = team0(game)
                            if game.team_of(game.turn):
                                best = -best  # zuni.evaluate.evaluate: for the team to move
                            if not n or best >= beta or qply >= _MAX_QPLY:
                                value = best  # (no forced reply at the horizon)
                                break
                            if best > alpha:
                                alpha = best
                        qply += 1
                    break
                if sp == len(plies):
                    plies.append([0] * 13)
                ply = plies[sp]
                ply[4] = forced
                ply[5] = sign
                ply[9] = negated
                if value is None:
                    _keep(ply, moves, depth)
                    moves = None
                    ply[0] = depth
                    ply[3] = qply
                    ply[7] = game.team_of(game.turn)
                # -- back up the stack: the node's value to its parent, or its next move --
                while True:
                    ply = plies[sp]
                    if value is None:
                        # The next move of the ply at sp, if any and alpha < beta.
                        ply[1] = alpha
                        ply[2] = beta
                        ply[6] = best
                        move = _next(ply, names) if alpha < beta else None
                        if move is not None:
                            team = ply[7]
                            game.push(move)
                            line.append(move)
                            move = None
                            depth = ply[0] - 1
                            qply = ply[3]
                            if game.team_of(game.turn) == team:
                                negated = 0
                            else:
                                negated = 1
                                alpha, beta = -beta, -alpha
                            sp += 1
                            break  # to the child node
                        value = best
                    sp = self._up(plies, sp, value)
                    if sp < 0:
                        break
                    ply = plies[sp]
                    alpha = ply[1]
                    beta = ply[2]
                    best = ply[6]
                    value = None
            yield 1
