"""Awithlaknakwe (docs/rules.md, "Awithlaknakwe"): 168 squares, warriors, bow priests, custody.

>>> game = AwithGame(parse_ruleset("awithlaknakwe"))
>>> [str(m) for m in game.legal_moves()][:3]
['e1-d2', 'e1-f2', 'f1-e2']

Representation (fixed-size, except the undo stack, which grows by a few bytes a move):

- ``board``: bytearray of the 168 squares (core.py piece codes).
- ``_pcs[side]``: bytearray(7) with the squares of the side's pieces, 255 where a
  piece is gone; slots 0-5 are warriors, slot 6 the bow priest. It lets move
  generation visit 6-12 pieces instead of 168 squares.
- ``prs``: bytearray(4), the priest state of each side: ``P_NONE`` (none, or not yet
  earned), ``P_HAND`` (earned, off the board), ``P_BOARD``, ``P_GONE`` (captured; it
  never comes back). With a team priest (4 players, ``priests=team`` or
  ``teams=combined``) at most one partner is ever out of ``P_NONE``: the owner.
- ``quiet``: consecutive moves with no capture, no warrior move and no drop.
- ``taken``: bytearray(2), pieces captured by each team (the score's first part).
- ``_uchunks``: the undo records of the moves in ``move_stack`` (see ``push``), in
  256-byte chunks.

Move generation reads precomputed neighbour tables (``NB[d][square]``, -1 off the
board) and allocates nothing but the moves; the moves it makes are light subclasses of
``core.Move`` (kind and names on the class).

With ``teams=combined`` the side to move is the team, written as its first player:
``turn`` is SOUTH for South+East and NORTH for North+West.
"""

from array import array

from micropython import const
from zuni.core import (
    Game,
    Geometry,
    Move,
    MoveStack,
    Outcome,
    piece_code,
    piece_kind,
    piece_side,
)
from zuni.errors import MoveParseError, ZuniError
from zuni.ruleset import Ruleset, parse_ruleset

# zuni.core's sides, piece kinds and move kinds (the same values), as private constants:
# they are compiled in and, unlike imported names, take no slot in the module's globals
# (a dict that grows by reallocation while the module is imported).
_SOUTH = const(0)
_WEST = const(1)
_NORTH = const(2)
_EAST = const(3)
_MAN = const(0)
_PRIEST = const(1)
_STEP = const(0)
_DROP = const(2)
_PASS = const(3)

P_NONE = const(0)
P_HAND = const(1)
P_BOARD = const(2)
P_GONE = const(3)
PRIEST_STATES = ("none", "hand", "board", "gone")

N_SQUARES = const(168)
_GONE = const(255)  # an empty slot of _pcs
_PRIEST_SLOT = const(6)
# The undo records are kept in chunks of this many bytes (as MoveStack keeps the
# history), so that a long game never needs one large free block of a fragmented heap
# (the board's hint pushes its line past the game's, and may need the next chunk in
# the middle of its search: 192 rather than 256 lets two-player Awithlaknakwe with the
# hint finish in 137 KiB instead of 138 on the 64-bit unix port, the games without it
# in the same heap as with 256).
_UCHUNK = const(192)
SIDE_LETTERS = "swne"  # SOUTH, WEST, NORTH, EAST, as in the `order` option
TEAM = b"\x00\x01\x01\x00"  # side -> team: South+East 0, North+West 1

# Directions, clockwise from North: (dc, dr). Side s looks forward in direction 2*s
# (South N, West E, North S, East W), so its forward-left/right diagonals are 2s-1, 2s+1
# and a priest's five moves are 2s-2 .. 2s+2 (mod 8).
_DC = (0, 1, 1, 1, 0, -1, -1, -1)
_DR = (1, 1, 0, -1, -1, -1, 0, 1)


def on_board(c, r):
    """True for the 168 squares: the 12x12 main board and the four 6-square extensions."""
    if 0 <= c <= 11 and 0 <= r <= 11:
        return True
    if (r == -1 or r == 12) and 3 <= c <= 8:
        return True
    return (c == -1 or c == 12) and 3 <= r <= 8


def square_name(c, r):
    """``square_name(-1, 3) == "a5"``: file a + (c + 1), rank r + 2."""
    return chr(97 + c + 1) + str(r + 2)


# The 168 names, rank by rank from the South (the point order). Written out as a list
# made into a tuple: each element is then loaded by its own instruction as an interned
# string of the .mpy (about 4 KB with the tuple). A constant tuple is instead loaded as
# 168 heap string objects (about 10 KB on a 64-bit port). Tests check the names against
# square_name().
# fmt: off
_NAMES = tuple([
    "e1", "f1", "g1", "h1", "i1", "j1",
    "b2", "c2", "d2", "e2", "f2", "g2", "h2", "i2", "j2", "k2", "l2", "m2",
    "b3", "c3", "d3", "e3", "f3", "g3", "h3", "i3", "j3", "k3", "l3", "m3",
    "b4", "c4", "d4", "e4", "f4", "g4", "h4", "i4", "j4", "k4", "l4", "m4",
    "a5", "b5", "c5", "d5", "e5", "f5", "g5", "h5", "i5", "j5", "k5", "l5", "m5", "n5",
    "a6", "b6", "c6", "d6", "e6", "f6", "g6", "h6", "i6", "j6", "k6", "l6", "m6", "n6",
    "a7", "b7", "c7", "d7", "e7", "f7", "g7", "h7", "i7", "j7", "k7", "l7", "m7", "n7",
    "a8", "b8", "c8", "d8", "e8", "f8", "g8", "h8", "i8", "j8", "k8", "l8", "m8", "n8",
    "a9", "b9", "c9", "d9", "e9", "f9", "g9", "h9", "i9", "j9", "k9", "l9", "m9", "n9",
    "a10", "b10", "c10", "d10", "e10", "f10", "g10", "h10", "i10", "j10", "k10", "l10", "m10", "n10",
    "b11", "c11", "d11", "e11", "f11", "g11", "h11", "i11", "j11", "k11", "l11", "m11",
    "b12", "c12", "d12", "e12", "f12", "g12", "h12", "i12", "j12", "k12", "l12", "m12",
    "b13", "c13", "d13", "e13", "f13", "g13", "h13", "i13", "j13", "k13", "l13", "m13",
    "e14", "f14", "g14", "h14", "i14", "j14",
])
# fmt: on


def _squares():
    """(index, c, r) of every square, in point order."""
    i = 0
    for r in range(-1, 13):
        for c in range(-1, 13):
            if on_board(c, r):
                yield i, c, r
                i += 1


class SquaresGeometry(Geometry):
    """The 168 squares. ``coords`` are made on first use: the board never draws, and
    168 pairs cost 7 KB of a 64-bit port's heap (3 KB on the Pico)."""

    def _make_coords(self):
        return _coords()


def _coords():
    coords = [None] * N_SQUARES  # type: list
    for i, c, r in _squares():
        coords[i] = (c, r)
    return tuple(coords)


def _build():
    # Built with as few temporaries as possible: on the board, holes left between the
    # objects that stay would fragment the heap for the whole game.
    names = _NAMES
    n = len(names)
    # grid[(r + 1) * 14 + (c + 1)] = 1 + index of square (c, r), 0 off the board.
    grid = bytearray(196)
    for i, c, r in _squares():
        grid[(r + 1) * 14 + c + 1] = i + 1

    def at(c, r):
        if -1 <= c <= 12 and -1 <= r <= 12:
            return grid[(r + 1) * 14 + c + 1] - 1
        return -1

    # One table per direction: NB[d][p] is the square next to p in direction d, or -1.
    zeros = bytes(2 * n)
    nb = [array("h", zeros) for _ in range(8)]
    for i, c, r in _squares():
        for d in range(8):
            nb[d][i] = at(c + _DC[d], r + _DR[d])
    homes = {
        _SOUTH: tuple(at(c, -1) for c in range(3, 9)),
        _NORTH: tuple(at(c, 12) for c in range(3, 9)),
        _WEST: tuple(at(-1, r) for r in range(3, 9)),
        _EAST: tuple(at(12, r) for r in range(3, 9)),
    }
    # No lines: a square board is drawn as its squares (coords), and the diagonal trails
    # cross every square the same way; listing them would cost 4 KB of board RAM.
    geometry = SquaresGeometry("squares", names, None, (), (), homes)
    return geometry, tuple(nb)


GEOMETRY, NB = _build()
NAMES = GEOMETRY.names
HOMES = GEOMETRY.homes
# The home a side's pieces aim for (and score on): the opposite side's home.
TARGET = (_NORTH, _EAST, _SOUTH, _WEST)
# Per side: the two warrior directions and the five priest directions (tables).
WARRIOR_NB = tuple((NB[(2 * s - 1) % 8], NB[(2 * s + 1) % 8]) for s in range(4))
PRIEST_NB = tuple(tuple(NB[(2 * s + k) % 8] for k in (-2, -1, 0, 1, 2)) for s in range(4))


DIAG_NB = (NB[1], NB[3], NB[5], NB[7])
ORTH_NB = (NB[0], NB[2], NB[4], NB[6])


def _team_table(team, friendly):
    # Indexed by piece code (0 = empty): 1 where the piece is a friend (or an enemy) of team.
    out = bytearray(9)
    for code in range(1, 9):
        same = TEAM[piece_side(code)] == team
        out[code] = 1 if same == friendly else 0
    return bytes(out)


FRIEND = (_team_table(0, True), _team_table(1, True))
ENEMY = (_team_table(0, False), _team_table(1, False))
_EMPTY = ()


class _Step(Move):
    """A step of this game: ``kind`` and ``names`` are class attributes, so that the
    move is made faster and holds less (a game keeps every move in move_stack)."""

    kind = _STEP
    names = NAMES

    def __init__(self, path, captures):
        self.path = path
        self.captures = captures


class _Drop(Move):
    """A priest's entry, ``@e1``; see _Step."""

    kind = _DROP
    names = NAMES

    def __init__(self, path, captures):
        self.path = path
        self.captures = captures


def _custody(board, sq, enemy, friend, nbs):
    """The squares of the enemy pieces a piece arriving on ``sq`` captures (a tuple).

    ``nbs`` are the neighbour tables of the custody directions. Only the arriving piece
    captures: an enemy on sq+d is taken when a friend stands on sq+2d."""
    out = _EMPTY  # type: tuple[int, ...]
    for nb in nbs:
        e = nb[sq]
        if e >= 0 and enemy[board[e]]:
            f = nb[e]
            if f >= 0 and friend[board[f]]:
                out = out + (e,)
    return out


def _turns(ruleset, order, four, combined):
    """AwithGame's turn tables: (who moves after each side, who moved before it, the sides
    whose pieces each side moves, the first side), ``order`` the four players' order."""
    nxt = bytearray(4)
    movers = [(s,) for s in range(4)]  # type: list[tuple[int, ...]]
    if combined:
        nxt[_SOUTH] = _NORTH
        nxt[_NORTH] = _SOUTH
        movers[_SOUTH] = tuple(s for s in order if TEAM[s] == 0)
        movers[_NORTH] = tuple(s for s in order if TEAM[s] == 1)
        first = _NORTH if ruleset["first"] == "north" else _SOUTH
    elif four:
        for i in range(4):
            nxt[order[i]] = order[(i + 1) % 4]
        first = order[0]
    else:
        nxt[_SOUTH] = _NORTH
        nxt[_NORTH] = _SOUTH
        first = _NORTH if ruleset["first"] == "north" else _SOUTH
    prev = bytearray(4)
    s = first
    while True:  # round the cycle of turns from the first
        prev[nxt[s]] = s
        s = nxt[s]
        if s == first:
            break
    return bytes(nxt), bytes(prev), tuple(movers), first


class AwithGame(Game):
    """An Awithlaknakwe game; ``AwithGame(ruleset)`` is the start position.

    ``ruleset`` is a Ruleset or its text. See ``from_position`` for hand-made positions.
    """

    # The piece letters and priest states of positions (zuni.awith_pos reads them here:
    # it does not import this module, which loads it).
    letters = SIDE_LETTERS
    priest_states = PRIEST_STATES

    def __init__(self, ruleset):
        # The undo records (push(), 3 bytes a move, more with captures) are in 256-byte
        # chunks: _uchunks[_uk] (also _ubuf) is being filled up to _utop; _uends holds
        # where each earlier chunk's records end. A record never spans two chunks. The
        # first chunk is made before the reading of the options leaves its temporaries
        # about the heap; later ones are made when needed and kept for reuse.
        self._ubuf = bytearray(_UCHUNK)
        self._uchunks = [self._ubuf]
        self._uk = 0
        self._uends = []  # type: list[int]
        self._utop = 0
        if not isinstance(ruleset, Ruleset):
            ruleset = parse_ruleset(ruleset)
        if ruleset.game_id != "awithlaknakwe":
            raise ZuniError("AwithGame plays awithlaknakwe, not %r" % (ruleset.game_id,))
        four = ruleset["players"] == "4"
        combined = four and ruleset["teams"] == "combined"
        self.players = 4 if four else 2
        self.combined = combined
        # One priest per team (seed 000) unless 2 players or priests=each.
        self.team_priest = four and (combined or ruleset["priests"] == "team")
        self.sides = (_SOUTH, _WEST, _NORTH, _EAST) if four else (_SOUTH, _NORTH)
        order = tuple(SIDE_LETTERS.index(ch) for ch in ruleset["order"])
        self.order = order if four else (_SOUTH, _NORTH)
        # The counter lives in 2 bytes of the undo record; no game lasts that long.
        self.quiet_limit = min(ruleset.get_int("quiet"), 0xFFFF)
        self.arrivals = ruleset["scoring"] == "captures+arrivals"
        # Custody directions: the diagonals, and with custody=all the orthogonals too.
        self._orth = ruleset["custody"] == "all"
        self._cnb = NB if self._orth else DIAG_NB
        # Turn tables: who moves after `turn`, who moved before it, and which sides'
        # pieces `turn` moves.
        self._next, self._prev, self._movers, first = _turns(ruleset, order, four, combined)
        board = bytearray(N_SQUARES)
        Game.__init__(self, ruleset, GEOMETRY, board, first)
        self._pcs = [bytearray(b"\xff" * 7) for _ in range(4)]
        for s in self.sides:
            pcs = self._pcs[s]
            code = piece_code(s, _MAN)
            k = 0
            for sq in HOMES[s]:
                board[sq] = code
                pcs[k] = sq
                k += 1
        self.prs = bytearray(4)
        self.quiet = 0
        self.taken = bytearray(2)
        # The history (packed by MoveStack, about 6 bytes a move) grows by 256-byte
        # chunks, which a fragmented heap still has: room for the first ~170 moves is
        # made now, while the heap is not yet fragmented.
        self.move_stack = MoveStack(NAMES, 1024)  # type: ignore[assignment]

    # -- hand-made positions ------------------------------------------------
    @classmethod
    def from_position(cls, ruleset, pieces, turn, priests=None, quiet=0, taken=(0, 0)):
        """A game in a hand-made position, with an empty history (zuni.awith_pos, loaded
        only when used: the board never needs it).

        >>> g = AwithGame.from_position("awithlaknakwe", {"f5": "s", "g6": "n"}, "south",
        ...                             priests={"north": "hand"})
        """
        from zuni.awith_pos import from_position

        return from_position(cls, ruleset, pieces, turn, priests, quiet, taken)

    def position(self):
        """``(pieces, turn, priests)`` in the form ``from_position`` takes."""
        from zuni.awith_pos import position

        return position(self)

    def pieces_of(self, side):
        """The squares of ``side``'s pieces: a bytearray(7), slots 0-5 the warriors, 6 the
        bow priest, 255 where a piece is gone or not on the board (the evaluation reads it
        instead of scanning 168 squares). Read-only, but for ``zuni.awith_pos``, which fills
        it for a hand-made position."""
        return self._pcs[side]

    # -- moves ----------------------------------------------------------------
    def legal_moves(self):
        if self._declared is not None or self.quiet >= self.quiet_limit:
            return []
        moves = []  # type: list[Move]
        for s in self._movers[self.turn]:
            self._gen(s, moves, False)
        if moves:
            return moves
        if self._anyone_can_move():
            return [Move(_PASS, (), _EMPTY, NAMES)]
        return []

    def legal_captures(self):
        # Only the moves that capture become Moves (most capture nothing; a pass never).
        if self._declared is not None or self.quiet >= self.quiet_limit:
            return []
        moves = []  # type: list[Move]
        for s in self._movers[self.turn]:
            self._gen(s, moves, True)
        return moves

    def _gen(self, s, moves, captures_only):
        board = self.board
        team = TEAM[s]
        enemy = ENEMY[team]
        friend = FRIEND[team]
        cnb = self._cnb
        pcs = self._pcs[s]
        wnb = WARRIOR_NB[s]
        ne = NB[1]
        se = NB[3]
        sw = NB[5]
        nw = NB[7]
        orth = self._orth
        step_cls = _Step  # locals are faster than globals under MicroPython
        # Warrior steps are most of the moves: the custody test is written out here
        # (no call per move), the rarer priest moves and drops call _custody.
        for k in range(6):
            p = pcs[k]
            if p == _GONE:
                continue
            for nb in wnb:
                d = nb[p]
                if d < 0 or board[d]:
                    continue
                caps = _EMPTY  # type: tuple[int, ...]
                e = ne[d]
                if e >= 0 and enemy[board[e]]:
                    f = ne[e]
                    if f >= 0 and friend[board[f]]:
                        caps = (e,)
                e = se[d]
                if e >= 0 and enemy[board[e]]:
                    f = se[e]
                    if f >= 0 and friend[board[f]]:
                        caps = caps + (e,)
                e = sw[d]
                if e >= 0 and enemy[board[e]]:
                    f = sw[e]
                    if f >= 0 and friend[board[f]]:
                        caps = caps + (e,)
                e = nw[d]
                if e >= 0 and enemy[board[e]]:
                    f = nw[e]
                    if f >= 0 and friend[board[f]]:
                        caps = caps + (e,)
                if orth:
                    for cn in ORTH_NB:
                        e = cn[d]
                        if e >= 0 and enemy[board[e]]:
                            f = cn[e]
                            if f >= 0 and friend[board[f]]:
                                caps = caps + (e,)
                if caps or not captures_only:
                    moves.append(step_cls((p, d), caps))
        state = self.prs[s]
        if state == P_BOARD:
            p = pcs[_PRIEST_SLOT]
            for nb in PRIEST_NB[s]:
                d = nb[p]
                if d >= 0 and not board[d]:
                    caps = _custody(board, d, enemy, friend, cnb)
                    if caps or not captures_only:
                        moves.append(_Step((p, d), caps))
        elif state == P_HAND:
            for d in HOMES[s]:
                if not board[d]:
                    caps = _custody(board, d, enemy, friend, cnb)
                    if caps or not captures_only:
                        moves.append(_Drop((d,), caps))

    def _count(self, s):
        """The number of side s's own legal moves (a pass excluded), without making them."""
        board = self.board
        pcs = self._pcs[s]
        n = 0
        for nb in WARRIOR_NB[s]:
            for k in range(6):
                p = pcs[k]
                if p != _GONE:
                    d = nb[p]
                    if d >= 0 and not board[d]:
                        n += 1
        state = self.prs[s]
        if state == P_BOARD:
            p = pcs[_PRIEST_SLOT]
            for nb in PRIEST_NB[s]:
                d = nb[p]
                if d >= 0 and not board[d]:
                    n += 1
        elif state == P_HAND:
            for d in HOMES[s]:
                if not board[d]:
                    n += 1
        return n

    def count_moves(self):
        """``len(self.legal_moves())`` without making the moves (perft's last ply)."""
        if self._declared is not None or self.quiet >= self.quiet_limit:
            return 0
        n = 0
        for s in self._movers[self.turn]:
            n += self._count(s)
        if n:
            return n
        return 1 if self._anyone_can_move() else 0

    def _anyone_can_move(self):
        for s in self.sides:
            if self._count(s):
                return True
        return False

    def push(self, move):
        board = self.board
        kind = move.kind
        caps = move.captures
        # Undo record, on a byte stack of chunks for the whole game: the quiet counter
        # (2 bytes), the four priest states (2 bits each), then (code, slot) of each
        # capture. The turn before is _prev[turn].
        i = self._utop
        rec = self._ubuf
        if i + 3 + 2 * len(caps) > _UCHUNK:
            rec = self._unext(i)
            i = 0
        q = self.quiet
        rec[i] = q & 255
        rec[i + 1] = q >> 8
        prs = self.prs
        rec[i + 2] = prs[0] | (prs[1] << 2) | (prs[2] << 4) | (prs[3] << 6)
        i += 3
        quiet = True
        if kind == _STEP:
            o = move.path[0]
            d = move.path[1]
            code = board[o]
            board[o] = 0
            board[d] = code
            side = piece_side(code)
            pcs = self._pcs[side]
            if piece_kind(code) == _PRIEST:
                pcs[_PRIEST_SLOT] = d
            else:
                quiet = False
                for k in range(6):
                    if pcs[k] == o:
                        pcs[k] = d
                        break
        elif kind == _DROP:
            d = move.path[0]
            side = self._priest_in_hand(d)
            board[d] = piece_code(side, _PRIEST)
            self._pcs[side][_PRIEST_SLOT] = d
            self.prs[side] = P_BOARD
            quiet = False
        if caps:
            quiet = False
            lost = 0  # bit per side that lost a warrior in this move
            for e in caps:
                code = board[e]
                board[e] = 0
                victim = piece_side(code)
                pcs = self._pcs[victim]
                rec[i] = code
                if piece_kind(code) == _PRIEST:
                    pcs[_PRIEST_SLOT] = _GONE
                    self.prs[victim] = P_GONE
                    rec[i + 1] = _PRIEST_SLOT
                else:
                    for k in range(6):
                        if pcs[k] == e:
                            pcs[k] = _GONE
                            rec[i + 1] = k
                            break
                    lost |= 1 << victim
                i += 2
            if lost:
                self._earn_priests(lost)
            self.taken[TEAM[self.turn]] += len(caps)
        if quiet:
            self.quiet += 1
        else:
            self.quiet = 0
        self.turn = self._next[self.turn]
        self.move_stack.append(move)
        self._utop = i

    def _unext(self, end):
        # The current undo chunk is full at `end`: go on to the next (a new one the
        # first time), and return it.
        self._uends.append(end)
        k = self._uk + 1
        chunks = self._uchunks
        if k == len(chunks):
            chunks.append(bytearray(_UCHUNK))
        self._uk = k
        buf = chunks[k]
        self._ubuf = buf
        return buf

    def _priest_in_hand(self, sq):
        # The side whose priest in hand a drop on sq enters: the mover, or with
        # teams=combined the team member who owns the priest (its home holds sq).
        for s in self._movers[self.turn]:
            if self.prs[s] == P_HAND and sq in HOMES[s]:
                return s
        raise ZuniError("drop on %s: no bow priest in hand enters there (%s)" % (NAMES[sq], self.describe()))

    def _earn_priests(self, lost):
        # A side's first warrior loss makes its priest available; a team priest goes to
        # the partner who lost first, and on a tie to the one first in `order`.
        prs = self.prs
        for s in self.order:
            if lost & (1 << s) and prs[s] == P_NONE:
                if self.team_priest and prs[3 - s] != P_NONE:
                    continue
                prs[s] = P_HAND

    def pop(self):
        move = self.move_stack.pop()
        board = self.board
        kind = move.kind
        caps = move.captures
        top = self._utop
        if not top:
            # The current chunk is empty: the record is at the end of the one before
            # (kept for the next push that needs it).
            k = self._uk - 1
            self._uk = k
            self._ubuf = self._uchunks[k]
            top = self._uends.pop()
        rec = self._ubuf
        top -= 3 + 2 * len(caps)
        self._utop = top
        i = top + 3
        turn = self._prev[self.turn]
        for e in caps:
            code = rec[i]
            board[e] = code
            self._pcs[piece_side(code)][rec[i + 1]] = e
            i += 2
        if caps:
            self.taken[TEAM[turn]] -= len(caps)
        if kind == _STEP:
            o = move.path[0]
            d = move.path[1]
            code = board[d]
            board[d] = 0
            board[o] = code
            pcs = self._pcs[piece_side(code)]
            if piece_kind(code) == _PRIEST:
                pcs[_PRIEST_SLOT] = o
            else:
                for k in range(6):
                    if pcs[k] == d:
                        pcs[k] = o
                        break
        elif kind == _DROP:
            d = move.path[0]
            code = board[d]
            board[d] = 0
            self._pcs[piece_side(code)][_PRIEST_SLOT] = _GONE
        self.turn = turn
        self.quiet = rec[top] | (rec[top + 1] << 8)
        packed = rec[top + 2]
        prs = self.prs
        prs[0] = packed & 3
        prs[1] = (packed >> 2) & 3
        prs[2] = (packed >> 4) & 3
        prs[3] = packed >> 6
        self._declared = None
        return move

    def _check_syntax(self, text):
        Game._check_syntax(self, text)
        if "x" in text:
            raise MoveParseError("malformed move %r: Awithlaknakwe has no jumps (e.g. e1-f2, @e1, pass)" % (text,))

    # -- teams, end, score ---------------------------------------------------
    def team_of(self, side):
        return TEAM[side]

    def team_names(self):
        if self.players == 4:
            return ("south+east", "north+west")
        return ("south", "north")

    def scores(self):
        """(team 0 score, team 1 score) now: captures, plus arrivals unless scoring=captures."""
        s0 = self.taken[0]
        s1 = self.taken[1]
        if self.arrivals:
            board = self.board
            for s in self.sides:
                count = 0
                home = HOMES[TARGET[s]]
                for sq in home:
                    code = board[sq]
                    if code and piece_side(code) == s:
                        count += 1
                if TEAM[s] == 0:
                    s0 += count
                else:
                    s1 += count
        return (s0, s1)

    def _natural_outcome(self):
        if self.quiet >= self.quiet_limit:
            termination = "quiet"
        elif self._anyone_can_move():
            return None
        else:
            termination = "blocked"
        return self._count_outcome(termination)

    def _count_outcome(self, termination):
        # The game is won on score, so an agreed end by counting counts the score too.
        scores = self.scores()
        winner = None
        if scores[0] > scores[1]:
            winner = 0
        elif scores[1] > scores[0]:
            winner = 1
        return Outcome(winner, termination, scores)

    def _state_bytes(self):
        q = self.quiet
        return bytes((self.turn, q & 255, q >> 8)) + bytes(self.prs) + bytes(self.taken)

    def copy(self):
        game = AwithGame(self.ruleset)
        game.board[:] = self.board
        for s in range(4):
            game._pcs[s][:] = self._pcs[s]
        game.prs[:] = self.prs
        game.taken[:] = self.taken
        game.quiet = self.quiet
        game.turn = self.turn
        game.move_stack.extend(self.move_stack)  # into the room the new game reserved
        game._uchunks = [bytearray(c) for c in self._uchunks]
        game._uk = self._uk
        game._ubuf = game._uchunks[self._uk]
        game._uends = list(self._uends)
        game._utop = self._utop
        game._declared = self._declared
        return game
