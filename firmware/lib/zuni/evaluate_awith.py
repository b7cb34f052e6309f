"""Awithlaknakwe's terms of the shared evaluation (``zuni.evaluate``, which loads this
module at the first Awithlaknakwe evaluation): the estimated final score difference, for
team 0 (South+East), in hundredths of a piece: captures so far, arrived pieces
(``ARRIVAL``), and for a warrior on its way a share of ``ARRIVAL_PATH`` that falls with
the moves left, counted only while a square of its target row that it can reach is not
held by its own side (an arrived warrior never leaves: it blocks that square for good),
and for no more warriors than such free squares; priests in hand or on the board.

The warrior tables are computed on the PC (``zuni.awith_reach``, tools/gen_awith_reach.py,
168 bytes a side).
Common subset, only small ints per call.
"""

from micropython import const
from zuni.awith import HOMES, TARGET
from zuni.awith_reach import SPREAD, TABLE

# One piece (zuni.evaluate.PIECE, not imported: the board's hint loads this module
# without zuni.evaluate).
_PIECE = const(100)
# An arrival is one point of score; a warrior on its way earns up to ARRIVAL_PATH of
# it, falling with the number of moves left (13 at most).
ARRIVAL = const(100)
ARRIVAL_PATH = const(55)
# A priest waiting in hand is worth something (it can enter when needed), less than on the board.
PRIEST_IN_HAND = const(30)
PRIEST_ON_BOARD = const(45)
# A warrior on the board, besides its path credit: a partner for custody captures.
WARRIOR = const(10)

_P_HAND = const(1)
_DEEPEST = const(14)  # more than the longest warrior path (13 moves)

# Per side, the squares of its target row.
_TARGETS = tuple(HOMES[TARGET[s]] for s in range(4))
# Path credit of a warrior d moves from its target row (0 for d = 0: arrived).
_CREDIT = bytes([(ARRIVAL_PATH * (_DEEPEST - d) // _DEEPEST if 0 < d < _DEEPEST else 0) for d in range(16)])
# Warriors on their way per distance (when more are on their way than free target
# squares), reused by every call (no allocation).
_ROW = const(16)
_BY_DIST = bytearray(_ROW)


def awith_team0(game):
    """Estimated final score difference of Awithlaknakwe, for team 0 (South+East)."""
    targets = _TARGETS
    table = TABLE
    spread = SPREAD
    board = game.board
    arrivals = game.arrivals
    credit = _CREDIT
    score = _PIECE * (game.taken[0] - game.taken[1])
    for side in game.sides:
        home = targets[side]
        # The target squares the side's own pieces hold (arrived: they block), as bits.
        man = 1 + 2 * side
        held = 0
        n = 0
        for t in range(len(home)):
            code = board[home[t]]
            if code == man or code == man + 1:
                held |= 1 << t
                n += 1
        row = table[side]
        pcs = game.pieces_of(side)
        v = 0
        path = 0
        on_way = 0
        # Slots 0-5: the warriors (zuni.awith), 255 where gone.
        for k in range(6):
            sq = pcs[k]
            if sq != 255:
                v += WARRIOR
                e = row[sq]
                if spread[e & 15] & ~held:
                    d = e >> 4
                    if d:
                        path += credit[d]
                        on_way += 1
        if pcs[6] != 255:
            v += PRIEST_ON_BOARD
        if arrivals:
            free = len(home) - n
            v += ARRIVAL * n
            if on_way <= free:
                v += path
            else:
                # More warriors on their way than free squares: credit the nearest only.
                v += _capped_credit(pcs, row, held, free)
        if game.prs[side] == _P_HAND:
            v += PRIEST_IN_HAND
        if game.team_of(side):
            score -= v
        else:
            score += v
    return score


def _capped_credit(pcs, row, held, free):
    """Path credit for at most ``free`` warriors (the free target squares), nearest first."""
    by_dist = _BY_DIST
    for i in range(_ROW):
        by_dist[i] = 0
    for k in range(6):
        sq = pcs[k]
        if sq != 255:
            e = row[sq]
            if SPREAD[e & 15] & ~held:
                by_dist[e >> 4] += 1
    value = 0
    d = 1
    while free > 0 and d < _DEEPEST:
        n = by_dist[d]
        if n > free:
            n = free
        value += n * _CREDIT[d]
        free -= n
        d += 1
    return value
