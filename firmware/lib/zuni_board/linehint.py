"""The board's own hint in the line games (Mosona, Kolowis): an alpha-beta search on
``zuni.linefast``'s byte records, done a bounded slice per scan cycle.

``LineSearch`` has ``zuni_board.hint.HintSearch``'s interface (``step(budget)``, ``stop()``,
``best``, ``score``, ``depth``, ``nodes``, ``work``, ``slices``, ``depth_slices``,
``done``, ``oom``); ``hintrun.search_for`` picks it for a line game. What makes it deep
enough for the RP2040 (docs/firmware-timing.md, "The board's own hint"):

- its own copy of the position (``linefast.arena``: 3 KB, ``hintrun.ARENA``, made once): the game is
  never touched, so a slice does not play the line again and take it back, and the
  search's line stays on the arena between slices;
- no allocation per node: a position's moves are records on the arena's move stack, each
  ply's move list after its parent's; make/unmake in place; the per-ply state in lists
  made with the search;
- the loops over the board are viper code on MicroPython (``zuni.linefast``);
- move ordering: captures first (the generator's order), the killer step of the ply next,
  and at the root the last depth's best first.

Search: iterative deepening, fail-soft negamax alpha-beta to the depth, then a quiescence
search of captures (the mover may stand pat on the evaluation unless every move of it
captures; only the chains that take the most; at most ``_MAX_QPLY`` plies, then the
evaluation), scores for the side to move: ``zuni.evaluate.line_team0`` (material and
mobility), a won game ``_WIN`` less the plies to it. A depth's value is exact whatever the
ordering: tests/shared/test_linehint.py checks it against a plain recursive search on
``LineGame`` at fixed depths.

Work: a node (a position entered) is one tick; ``budget`` and ``max_work`` are in
``hint.LEGAL``'s work units, ``PER_UNIT`` ticks each, scaled by the board's points, so
that a slice takes about as long on every board; the search ends by itself once
``max_work`` is spent (then ``best`` is the deepest completed depth's, or a move that beat
it in the unfinished one), at ``max_depth``, at a forced result, or when the next depth
would not finish in the work left.
"""

import micropython
from micropython import const
from zuni.linefast import H_EVAL, H_STEPS, MOVES, arena, gen, longest, make, promote, to_move, unmake

_INF = const(1 << 29)
_WIN = const(1 << 24)
_WIN_BOUND = const((1 << 24) - 1000)
_MAX_QPLY = const(4)
_EVAL_BIAS = const(32768)  # zuni.linefast's
MAX_DEPTH = const(12)
# Ticks (nodes) a work unit on a 25-point board; a 49-point one gets 5/7 of them (a node
# there cost 1.3 times as much on the emulated RP2040: 0.24 and 0.32 ms).
PER_UNIT = const(10)
# Work units of a whole search: more than the RP2040 does in the 1.3 s the board thinks
# (250-450, docs/firmware-timing.md), so that there the time ends it; on a PC this does,
# before the board's 1.3 s (as the general search's hint.MAX_WORK).
MAX_WORK = const(600)
# The arena's bytes when the caller gives none (hintrun.ARENA, which makes it first).
ARENA = const(3072)
_ENTER = const(0)
_NEXT = const(1)


class LineSearch:
    def __init__(self, game, moves=None, max_depth=MAX_DEPTH, max_work=MAX_WORK, buf=None):
        # ``moves``: the position's legal moves if the caller has them (the app's Position
        # does): ``best`` is then one of them. ``buf``: the arena's bytes
        # (hintrun.ARENA, made before the search's code is loaded), else made here.
        self.game = game
        self.nodes = 0
        self.work = 0
        self.slices = 0
        self.best = None  # type: ignore
        self.score = 0
        self.depth = 0
        self.depth_slices = []  # type: list  # the slice in which each depth completed
        self.done = False
        self.oom = False  # out of heap: the best move so far
        self.full = False  # out of arena (move stack): the best move so far
        self._moves = moves
        self._root_len = len(game.move_stack)
        n = len(game.board)
        self._per_unit = PER_UNIT * 85 // (60 + n)
        self._max_nodes = max_work * self._per_unit
        self._max_depth = max_depth
        if buf is None:
            buf = bytearray(ARENA)
        self._mem = arena(game, buf)
        self._side = 0 if game.turn == 0 else 1  # the root's mover: 0 South, 1 North
        self._cnt = [game.counts[0], game.counts[1]]
        self._qlimit = game.ruleset.get_int("quiet")
        self._draw = game.ruleset["stall"] == "draw"
        self._must = game.ruleset["capture"] == "forced"
        plies = max_depth + _MAX_QPLY + 2
        # Per ply: where its moves start and end, the next one, alpha, beta, the best value,
        # the depth left (<= 0: quiescence, -qply), the quiet count, the move made to the
        # child, the shortest record searched (quiescence: the longest chains), the killer.
        self._lo = [0] * plies
        self._hi = [0] * plies
        self._nx = [0] * plies
        self._al = [0] * plies
        self._be = [0] * plies
        self._bv = [0] * plies
        self._dp = [0] * plies
        self._qt = [0] * plies
        self._mv = [0] * plies
        self._ml = [0] * plies
        self._kl = [0] * plies
        self._lo[0] = MOVES
        self._qt[0] = game.quiet
        self._sp = 0
        self._phase = _ENTER
        self._order = []  # type: list  # the root's records, best first
        self._ready = False  # the root's moves made
        self._ri = 0  # the root's next move (index in _order)
        self._rbest = 0
        self._started = 0  # nodes at the current depth's start

    def step(self, budget):
        """One slice of at most ``budget`` work units (and at least one node); True once
        finished."""
        if self.done:
            return True
        if len(self.game.move_stack) != self._root_len:
            self.best = None  # the game moved on: whatever the caller asked, this is stale
            self.stop()
            return True
        self.slices += 1
        try:
            if self._run(budget * self._per_unit):
                self.done = True
        except MemoryError:
            self.done = True
            self.oom = True
        self.work = self.nodes // self._per_unit
        if self.done:
            self.stop()
        return self.done

    def stop(self):
        """End the search now (the caller's time is up): ``best`` is what it has."""
        self.done = True
        self._mem = None  # type: ignore
        self._order = []

    def _move(self, i):
        """The root move ``_order[i]`` as the caller's Move (or a new one)."""
        pos = self._order[i]
        moves = self._moves
        if moves is not None:
            # The records are in legal_moves() order (tests/shared/test_linefast.py).
            mem = self._mem
            k = 0
            p = MOVES
            while p < pos:
                p += mem[p] + 1
                k += 1
            if k < len(moves):
                return moves[k]
        return to_move(self._mem, pos, self.game.geometry.names)

    def _root(self):
        """The root's moves, once; True if there is nothing to weigh."""
        mem = self._mem
        end = gen(mem, MOVES, 0)
        if end < 0:
            self.full = True
            return True
        order = []
        p = MOVES
        while p < end:
            order.append(p)
            p += mem[p] + 1
        self._order = order
        self._hi[0] = end
        if order:
            self.best = self._move(0)
        if len(order) < 2:
            return True
        self._new_depth(1)
        return False

    def _new_depth(self, depth):
        self._dp[0] = depth
        self._al[0] = -_INF
        self._be[0] = _INF
        self._bv[0] = -_INF
        self._ri = 0
        self._rbest = 0
        self._started = self.nodes
        self._phase = _NEXT

    def _depth_done(self):
        """The root's last move searched: True if the search is over."""
        order = self._order
        i = self._rbest
        best = order[i]
        while i:
            order[i] = order[i - 1]
            i -= 1
        order[0] = best
        self.best = self._move(0)
        score = self._bv[0]
        self.score = score
        depth = self._dp[0]
        self.depth = depth
        self.depth_slices.append(self.slices)
        if score >= _WIN_BOUND or score <= -_WIN_BOUND or depth >= self._max_depth:
            return True  # a forced result, or deep enough
        spent = self.nodes - self._started
        if spent > self._max_nodes - self.nodes:
            return True  # the next depth costs more than this one: it would not finish
        self._new_depth(depth + 1)
        return False

    def _run(self, left):
        """The search's loop for ``left`` nodes at most (one at least); True once over."""
        if not self._ready:
            self._ready = True
            if self._root():
                return True
        return self._loop(left)

    @micropython.native
    def _loop(self, left):
        """_run's loop (machine code on the board: most of a node's time is here)."""
        mem = self._mem
        lo = self._lo
        hi = self._hi
        nx = self._nx
        al = self._al
        be = self._be
        bv = self._bv
        dp = self._dp
        qt = self._qt
        mv = self._mv
        ml = self._ml
        kl = self._kl
        cnt = self._cnt
        root_side = self._side
        qlimit = self._qlimit
        max_nodes = self._max_nodes
        sp = self._sp
        phase = self._phase
        must = self._must
        nodes = self.nodes
        # The slice's last node: at least one, at most left, none past max_nodes.
        last = nodes + (left if left > 0 else 1)
        if last > max_nodes:
            last = max_nodes
        while True:
            if phase == _ENTER:
                # -- a node: its value now, or its moves on the move stack --
                if nodes >= last:
                    if nodes >= max_nodes:
                        self.nodes = nodes
                        return True
                    break
                nodes += 1
                side = root_side ^ (sp & 1)
                mine = cnt[side]
                theirs = cnt[1 - side]
                start = lo[sp]
                d = dp[sp]
                if mine == 0:
                    value = sp - _WIN
                elif theirs == 0:
                    value = _WIN - sp
                elif qt[sp] >= qlimit:
                    end = gen(mem, start, 1)
                    if end == start and not mem[H_STEPS]:
                        value = sp - _WIN  # no move at all: lost before the quiet rule
                    elif self._draw or mine == theirs:
                        value = 0
                    else:
                        value = _WIN - sp if mine > theirs else sp - _WIN
                elif d > 0:
                    end = gen(mem, start, 0)
                    if end < 0:
                        self.full = True
                        self.nodes = nodes
                        return True
                    if end == start:
                        value = sp - _WIN
                    else:
                        hi[sp] = end
                        nx[sp] = start
                        ml[sp] = 0
                        bv[sp] = -_INF
                        if kl[sp]:
                            promote(mem, start, end, kl[sp] - 1)
                        phase = _NEXT
                        continue
                else:
                    # The captures and the evaluation in one pass over the board.
                    end = gen(mem, start, 2)
                    if end < 0:
                        self.full = True
                        self.nodes = nodes
                        return True
                    steps = mem[H_STEPS]
                    # zuni.linefast.evaluation(mem), for the side to move
                    stand = mem[H_EVAL] + (mem[H_EVAL + 1] << 8) - _EVAL_BIAS
                    if side:
                        stand = -stand
                    if end == start:
                        value = stand if steps else sp - _WIN
                    elif -d >= _MAX_QPLY:
                        value = stand
                    else:
                        best = -_INF
                        value = _INF  # none yet
                        if steps and not must:
                            best = stand
                            if best >= be[sp]:
                                value = best
                            elif best > al[sp]:
                                al[sp] = best
                        if value == _INF:
                            hi[sp] = end
                            nx[sp] = start
                            ml[sp] = longest(mem, start, end)
                            bv[sp] = best
                            phase = _NEXT
                            continue
            else:
                # -- the next move of the ply at sp, or its value --
                if sp == 0:
                    i = self._ri
                    order = self._order
                    if i >= len(order):
                        self.nodes = nodes
                        if self._depth_done():
                            return True
                        continue
                    self._ri = i + 1
                    p = order[i]
                else:
                    p = nx[sp]
                    end = hi[sp]
                    if al[sp] < be[sp]:
                        shortest = ml[sp]
                        while p < end and mem[p] < shortest:
                            p += mem[p] + 1
                    else:
                        p = end
                    if p >= end:
                        value = bv[sp]
                        p = -1
                    else:
                        nx[sp] = p + mem[p] + 1
                if p >= 0:
                    side = root_side ^ (sp & 1)
                    taken = make(mem, p)
                    mv[sp] = p
                    if taken:
                        cnt[1 - side] -= taken
                        qt[sp + 1] = 0
                    else:
                        qt[sp + 1] = qt[sp] + 1
                    lo[sp + 1] = hi[sp]
                    al[sp + 1] = -be[sp]
                    be[sp + 1] = -al[sp]
                    dp[sp + 1] = dp[sp] - 1
                    sp += 1
                    phase = _ENTER
                    continue
            # -- the value of the node at sp back to its parent --
            sp -= 1
            p = mv[sp]
            unmake(mem, p)
            taken = (mem[p] - 1) >> 1
            if taken:
                cnt[1 - (root_side ^ (sp & 1))] += taken
            value = -value
            if value > bv[sp]:
                bv[sp] = value
                if sp == 0:
                    i = self._ri - 1
                    self._rbest = i
                    if i > 0:
                        # Better than this depth's first move (the last depth's best):
                        # worth keeping even if this depth does not finish.
                        self.best = self._move(i)
                        self.score = value
                if value > al[sp]:
                    al[sp] = value
                    if value >= be[sp] and mem[p] == 2:
                        kl[sp] = (mem[p + 1] << 8) + mem[p + 2] + 1
            phase = _NEXT
        self.nodes = nodes
        self._sp = sp
        self._phase = phase
        return False
