"""A fast move generator of the line games (Mosona, Kolowis) for searches: the same moves
as ``zuni.line.LineGame.legal_moves()``, in the same order, written as bytes into one
preallocated buffer, with make/unmake and the evaluation on that buffer.

The board's own hint searches thousands of positions a second on an RP2040, where one
``legal_moves()`` call (a Move object per move, tuples, lists) costs 2.5-5.4 ms. Here a
position's moves are records in a bytearray and nothing is allocated per position; the
loops are MicroPython viper functions (machine code over raw bytes on the board, the
unix port and the RP2040 alike) and plain Python under CPython, where ``ptr8`` and the
decorators are identities (host/micropython.py). tests/shared/test_linefast.py checks
that both give the engine's moves, in its order, on every ruleset's options.

``arena(game, size)`` makes the buffer ("arena"): a header, the board, the board's tables
(``zuni.line.adjacency``, ``zuni.line.jump_table``) and from ``MOVES`` on the records,
each ``L, path...``: ``L`` the path's length (2 a step; 3, 5, ... a jump or chain, its
captures the path's odd places, as in ``Move.path``). ``gen(mem, pos, mode)`` writes the
side to move's moves from ``pos`` and returns where they end (-1: no room); ``make`` and
``unmake`` play a record and take it back; ``team0(mem)`` is
``zuni.evaluate.line_team0`` of the arena's board.
"""

import micropython
from micropython import const
from zuni.core import Move

try:
    ptr8  # type: ignore[has-type,used-before-def]  # noqa: B018  # a viper cast on the board
except NameError:

    def ptr8(buf):  # type: ignore[no-redef]
        """CPython and bytecode: a bytearray is its own byte view."""
        return buf


# The header: points, jump table width, chain rule (0 none, 1 optional, 2 forced), capture
# forced, the mover's and the other side's board bytes, gen()'s "a step exists" flag, and
# its evaluation (mode 2: two bytes).
H_N = const(0)
H_WIDTH = const(1)
H_CHAIN = const(2)
H_MUST = const(3)
H_ME = const(4)
H_FOE = const(5)
H_STEPS = const(6)
H_EVAL = const(8)
# Fixed places, sized for the long Kolowis board (49 points, 220 directed edges, 5
# landings an edge): the board, adjacency's first and targets, the landings, one chain's
# path while it is built (at most 1 + 2 * 24 points), then the records.
BOARD = const(16)
FIRST = const(80)
TARGETS = const(136)
LAND = const(360)
PATH = const(1464)
MOVES = const(1520)
# Board bytes of a line game's men (zuni.core.piece_code): South 1, North 5.
SOUTH_MAN = const(1)
NORTH_MAN = const(5)
# zuni.evaluate's terms: a piece, and an empty point next to a piece.
_PIECE = const(100)
_MOBILITY = const(3)
# team0 in the header as 16 bits: at most 24 pieces a side, 6 free points each.
_EVAL_BIAS = const(32768)


def arena(game, size):
    """The arena of ``game`` (a LineGame) at its position, side to move first: ``size``
    bytes (or ``size`` itself, a bytearray of more than MOVES bytes, filled in), the
    records from MOVES to the end."""
    from zuni.line import adjacency, jump_table

    geometry = game.geometry
    first, targets, _rows = adjacency(geometry.k, geometry.lined)
    width, landings = jump_table(geometry.k, geometry.lined, game.ruleset["jumps"])
    mem = bytearray(size) if isinstance(size, int) else size
    n = len(game.board)
    mem[H_N] = n
    mem[H_WIDTH] = width
    chain = game.ruleset["chain"]
    mem[H_CHAIN] = 0 if chain == "none" else 1 if chain == "optional" else 2
    mem[H_MUST] = 1 if game.ruleset["capture"] == "forced" else 0
    mem[BOARD : BOARD + n] = game.board
    mem[FIRST : FIRST + len(first)] = first
    mem[TARGETS : TARGETS + len(targets)] = targets
    mem[LAND : LAND + len(landings)] = landings
    set_turn(mem, game.turn == 0)
    return mem


def set_turn(mem, south):
    """The side to move: South if ``south``."""
    mem[H_ME] = SOUTH_MAN if south else NORTH_MAN
    mem[H_FOE] = NORTH_MAN if south else SOUTH_MAN


def to_move(mem, pos, names):
    """The record at ``pos`` as a Move (for the few moves a search reports)."""
    n = mem[pos]
    path = tuple(mem[pos + 1 : pos + 1 + n])
    if n == 2:
        return Move(0, path, (), names)  # STEP
    return Move(1, path, tuple(path[i] for i in range(1, n, 2)), names)  # JUMP


def moves(game, size=4096):
    """``game.legal_moves()`` made by ``gen`` (the tests compare the two)."""
    mem = arena(game, size)
    end = gen(mem, MOVES, 0)
    if end < 0:
        raise MemoryError("%d bytes hold not every move of the position" % size)
    out = []
    pos = MOVES
    names = game.geometry.names
    while pos < end:
        out.append(to_move(mem, pos, names))
        pos += mem[pos] + 1
    return out


@micropython.viper
def _emit(mem, plen: int, pos: int) -> int:
    """The chain in PATH (``plen`` points) as a record at ``pos``; its end, or -1."""
    m = ptr8(mem)
    if pos + plen + 1 > int(len(mem)):
        return -1
    m[pos] = plen
    i = 0
    while i < plen:
        m[pos + 1 + i] = m[PATH + i]
        i += 1
    return pos + plen + 1


@micropython.viper
def _extend(mem, plen: int, pos: int) -> int:
    """The chains that go on from the path in PATH (``plen`` points, its captures and its
    mover already off the board), as records from ``pos``; their end, or -1 (no room).
    LineGame._extend's order: an optional chain at each stop, then its extensions."""
    m = ptr8(mem)
    foe = m[H_FOE]
    optional = m[H_CHAIN] == 1
    width = m[H_WIDTH]
    if optional:
        pos = int(_emit(mem, plen, pos))
        if pos < 0:
            return -1
    a = m[PATH + plen - 1]
    more = 0
    e = m[FIRST + a]
    e1 = m[FIRST + a + 1]
    while e < e1:
        b = m[TARGETS + e]
        if m[BOARD + b] == foe:
            j = e * width
            jend = j + width
            while j < jend:
                c = m[LAND + j]
                if c == 255:
                    break
                if m[BOARD + c] == 0:
                    more = 1
                    m[BOARD + b] = 0
                    m[PATH + plen] = b
                    m[PATH + plen + 1] = c
                    pos = int(_extend(mem, plen + 2, pos))
                    m[BOARD + b] = foe
                    if pos < 0:
                        return -1
                j += 1
        e += 1
    if more == 0 and not optional:
        pos = int(_emit(mem, plen, pos))
    return pos


@micropython.viper
def gen(mem, pos: int, mode: int) -> int:
    """The mover's moves as records from ``pos`` (mode 0: all legal moves, as
    LineGame.legal_moves(); 1: the jumps only, as legal_captures(); 2: the jumps, and
    ``team0`` into the header: ``evaluation(mem)``); returns their end, or -1 if the arena
    has no room. H_STEPS: 1 if the mover has a step."""
    m = ptr8(mem)
    cap = int(len(mem)) - 4
    me = m[H_ME]
    foe = m[H_FOE]
    n = m[H_N]
    width = m[H_WIDTH]
    chain = m[H_CHAIN]
    start = pos
    steps = 0
    score = 0
    a = 0
    while a < n:
        code = m[BOARD + a]
        if code == me or (mode == 2 and code != 0):
            free = 0
            e = m[FIRST + a]
            e1 = m[FIRST + a + 1]
            while e < e1:
                b = m[TARGETS + e]
                there = m[BOARD + b]
                if there == 0:
                    free += 1
                elif there == foe and code == me:
                    j = e * width
                    jend = j + width
                    while j < jend:
                        c = m[LAND + j]
                        if c == 255:
                            break
                        if m[BOARD + c] == 0:
                            if chain == 0:
                                if pos > cap:
                                    return -1
                                m[pos] = 3
                                m[pos + 1] = a
                                m[pos + 2] = b
                                m[pos + 3] = c
                                pos += 4
                            else:
                                # Lift the mover and take the jumped piece at once: the
                                # rest of the chain sees both points empty.
                                m[BOARD + a] = 0
                                m[BOARD + b] = 0
                                m[PATH] = a
                                m[PATH + 1] = b
                                m[PATH + 2] = c
                                pos = int(_extend(mem, 3, pos))
                                m[BOARD + b] = foe
                                m[BOARD + a] = me
                                if pos < 0:
                                    return -1
                        j += 1
                e += 1
            if code == me and free != 0:
                steps = 1
            if code == SOUTH_MAN:
                score += _PIECE + _MOBILITY * free
            else:
                score -= _PIECE + _MOBILITY * free
        a += 1
    m[H_STEPS] = steps
    if mode == 2:
        score += _EVAL_BIAS
        m[H_EVAL] = score & 255
        m[H_EVAL + 1] = (score >> 8) & 255
    if mode != 0 or steps == 0 or (m[H_MUST] and pos > start):
        return pos
    a = 0
    while a < n:
        if m[BOARD + a] == me:
            e = m[FIRST + a]
            e1 = m[FIRST + a + 1]
            while e < e1:
                b = m[TARGETS + e]
                if m[BOARD + b] == 0:
                    if pos > cap:
                        return -1
                    m[pos] = 2
                    m[pos + 1] = a
                    m[pos + 2] = b
                    pos += 3
                e += 1
        a += 1
    return pos


def evaluation(mem):
    """``team0`` of the position of the last ``gen(mem, pos, 2)``."""
    return mem[H_EVAL] + (mem[H_EVAL + 1] << 8) - _EVAL_BIAS


@micropython.viper
def make(mem, pos: int) -> int:
    """Play the record at ``pos`` for the side to move (then the other side moves);
    returns the pieces it captured. LineGame.push's order: origin, captures, landing."""
    m = ptr8(mem)
    n = m[pos]
    me = m[H_ME]
    m[BOARD + m[pos + 1]] = 0
    i = 2
    while i < n:
        m[BOARD + m[pos + i]] = 0
        i += 2
    m[BOARD + m[pos + n]] = me
    m[H_ME] = m[H_FOE]
    m[H_FOE] = me
    return (n - 1) >> 1


@micropython.viper
def unmake(mem, pos: int):
    """Take back the record at ``pos``, the last move made (LineGame.pop's order)."""
    m = ptr8(mem)
    n = m[pos]
    me = m[H_FOE]
    foe = m[H_ME]
    m[H_ME] = me
    m[H_FOE] = foe
    m[BOARD + m[pos + n]] = 0
    i = 2
    while i < n:
        m[BOARD + m[pos + i]] = foe
        i += 2
    m[BOARD + m[pos + 1]] = me


@micropython.viper
def team0(mem) -> int:
    """zuni.evaluate.line_team0 of the arena's board: material and mobility for South."""
    m = ptr8(mem)
    n = m[H_N]
    score = 0
    p = 0
    while p < n:
        code = m[BOARD + p]
        if code != 0:
            free = 0
            e = m[FIRST + p]
            e1 = m[FIRST + p + 1]
            while e < e1:
                if m[BOARD + m[TARGETS + e]] == 0:
                    free += 1
                e += 1
            if code == SOUTH_MAN:
                score += _PIECE + _MOBILITY * free
            else:
                score -= _PIECE + _MOBILITY * free
        p += 1
    return score


@micropython.viper
def longest(mem, pos: int, end: int) -> int:
    """The longest record's path length among the records from ``pos`` to ``end``."""
    m = ptr8(mem)
    most = 0
    while pos < end:
        n = m[pos]
        if n > most:
            most = n
        pos += n + 1
    return most


@micropython.viper
def promote(mem, pos: int, end: int, key: int):
    """Move the step ``key`` (origin * 256 + landing), if among the records from ``pos``
    to ``end``, to the place of the first step (captures stay first)."""
    m = ptr8(mem)
    first = -1
    while pos < end:
        n = m[pos]
        if n == 2:
            if first < 0:
                first = pos
            if (m[pos + 1] << 8) + m[pos + 2] == key:
                if pos != first:
                    m[pos + 1] = m[first + 1]
                    m[pos + 2] = m[first + 2]
                    m[first + 1] = key >> 8
                    m[first + 2] = key & 255
                return
        pos += n + 1
