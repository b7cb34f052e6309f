"""Static evaluation of a position, shared by the host's search and the board's own.

``evaluate(game)`` is the score, in hundredths of a piece, for the *team of the side to
move* (positive: good for it). Terms, per game:

- line games (Mosona, Kolowis): material (``PIECE`` a piece), plus ``LINE_MOBILITY`` per
  empty point next to a piece (a cheap count of step moves). Both games are decided by
  material: the last piece, or the count when the quiet rule ends the game.
- Awithlaknakwe: the estimated final score difference: captures so far, arrived pieces
  (``ARRIVAL``), and for a warrior on its way a share of ``ARRIVAL_PATH`` that falls with
  the moves left, counted only while a square of its target row that it can reach is
  not held by its own side (an arrived warrior never leaves: it blocks that square for
  good), and for no more warriors than such free squares; priests in hand or on the board.

Written in the MicroPython/CPython common subset: small ints, bytearray tables built once
per ruleset kind (about 1.3 KB for four players), no allocation per call on the line
games and only small ints on Awithlaknakwe.

>>> import zuni
>>> evaluate(zuni.new_game("mosona"))
0
"""

from micropython import const

# One piece, one point of score: the unit every term is measured in.
PIECE = const(100)
# A won game. Search scores above WIN - MAX_PLY read "win in (WIN - score) plies".
WIN = const(1000000)
# Line games: per empty point next to a piece.
LINE_MOBILITY = const(3)
# Awithlaknakwe: an arrival is one point of score; a warrior on its way earns up to
# ARRIVAL_PATH of it, falling with the number of moves left (13 at most).
ARRIVAL = const(100)
ARRIVAL_PATH = const(55)
# A priest waiting in hand is worth something (it can enter when needed), less than on the board.
PRIEST_IN_HAND = const(30)
PRIEST_ON_BOARD = const(45)
# A warrior on the board, besides its path credit: a partner for custody captures.
WARRIOR = const(10)

_P_HAND = const(1)
_DEEPEST = const(14)  # more than the longest warrior path (13 moves)

# Per side (0..3): (reach, dist), two bytearrays over the 168 squares, made on first use.
# reach[p]: bit t set when a warrior of the side on p can get to square t (0..5) of
# its target row; dist[p]: moves from p to that row (every warrior move advances one
# row, so the distance does not depend on which target square).
_AWITH_TABLES = [None, None, None, None]  # type: list
# The line board last evaluated and its neighbour rows (zuni.line.adjacency).
_LINE_ROWS = [None, None]  # type: list
# Per side, the squares of its target row (zuni.awith.HOMES of TARGET), made on first use.
_TARGETS = [None]  # type: list
# Path credit of a warrior d moves from its target row (0 for d = 0: arrived).
_CREDIT = bytes([(ARRIVAL_PATH * (_DEEPEST - d) // _DEEPEST if 0 < d < _DEEPEST else 0) for d in range(16)])
# Warriors on their way per distance (when more are on their way than free target
# squares), reused by every call (no allocation).
_ROW = const(16)
_BY_DIST = bytearray(_ROW)


def evaluate(game):
    """Score for the team of the side to move, in hundredths of a piece."""
    if game.ruleset.game_id == "awithlaknakwe":
        score = awith_team0(game)
    else:
        score = line_team0(game)
    return -score if game.team_of(game.turn) else score


def line_team0(game):
    """Material and mobility of a line game, for team 0 (South)."""
    geometry = game.geometry
    cache = _LINE_ROWS
    if cache[0] is not geometry:
        from zuni.line import adjacency

        cache[1] = adjacency(geometry.k, geometry.lined)[2]
        cache[0] = geometry
    rows = cache[1]
    board = game.board
    score = PIECE * (game.counts[0] - game.counts[1])
    for p in range(len(board)):
        code = board[p]
        if code:
            free = 0
            for q in rows[p]:
                if not board[q]:
                    free += 1
            # South's man is code 1, North's code 5 (core.piece_code).
            if code == 1:
                score += LINE_MOBILITY * free
            else:
                score -= LINE_MOBILITY * free
    return score


def awith_tables(side):
    """``(reach, dist)`` of ``side`` (see ``_AWITH_TABLES``), built once."""
    tables = _AWITH_TABLES[side]
    if tables is not None:
        return tables
    from zuni.awith import HOMES, N_SQUARES, TARGET, WARRIOR_NB

    reach = bytearray(N_SQUARES)
    dist = bytearray(N_SQUARES)
    home = HOMES[TARGET[side]]
    for t in range(len(home)):
        reach[home[t]] = 1 << t
    left, right = WARRIOR_NB[side]
    # Warriors only advance, so as many sweeps as the board is deep settle every square.
    for _ in range(_DEEPEST + 1):
        changed = False
        for p in range(N_SQUARES):
            if p in home:
                continue
            bits = 0
            d = 0
            for nxt in (left[p], right[p]):
                if nxt >= 0 and reach[nxt]:
                    bits |= reach[nxt]
                    d = dist[nxt] + 1
            if bits != reach[p] or d != dist[p]:
                reach[p] = bits
                dist[p] = d
                changed = True
        if not changed:
            break
    tables = _AWITH_TABLES[side] = (reach, dist)
    return tables


def awith_team0(game):
    """Estimated final score difference of Awithlaknakwe, for team 0 (South+East)."""
    targets = _TARGETS[0]
    if targets is None:
        targets = _target_rows()
    board = game.board
    arrivals = game.arrivals
    tables = _AWITH_TABLES
    credit = _CREDIT
    score = PIECE * (game.taken[0] - game.taken[1])
    for side in game.sides:
        home = targets[side]
        held = _held(board, home, 1 + 2 * side)
        if tables[side] is None:
            awith_tables(side)
        reach, dist = tables[side]
        pcs = game.pieces_of(side)
        v = 0
        path = 0
        on_way = 0
        # Slots 0-5: the warriors (zuni.awith), 255 where gone.
        for k in range(6):
            sq = pcs[k]
            if sq != 255:
                v += WARRIOR
                if reach[sq] & ~held:
                    d = dist[sq]
                    if d:
                        path += credit[d]
                        on_way += 1
        if pcs[6] != 255:
            v += PRIEST_ON_BOARD
        if arrivals:
            n = _popcount6(held)
            free = len(home) - n
            v += ARRIVAL * n
            if on_way <= free:
                v += path
            else:
                # More warriors on their way than free squares: credit the nearest only.
                v += _capped_credit(pcs, reach, dist, held, free)
        if game.prs[side] == _P_HAND:
            v += PRIEST_IN_HAND
        if game.team_of(side):
            score -= v
        else:
            score += v
    return score


def _target_rows():
    # Looked up once: an import statement allocates, and so does a generator, even
    # when its line is not run (MicroPython makes the closure's frame on the heap).
    from zuni.awith import HOMES, TARGET

    rows = _TARGETS[0] = tuple(HOMES[TARGET[s]] for s in range(4))
    return rows


def _held(board, home, man):
    """Bits of the target squares that the side's own pieces hold (arrived: they block)."""
    held = 0
    for t in range(len(home)):
        code = board[home[t]]
        if code == man or code == man + 1:
            held |= 1 << t
    return held


def _capped_credit(pcs, reach, dist, held, free):
    """Path credit for at most ``free`` warriors (the free target squares), nearest first."""
    by_dist = _BY_DIST
    for i in range(_ROW):
        by_dist[i] = 0
    for k in range(6):
        sq = pcs[k]
        if sq != 255 and reach[sq] & ~held:
            by_dist[dist[sq]] += 1
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


def _popcount6(bits):
    n = 0
    while bits:
        n += bits & 1
        bits >>= 1
    return n
