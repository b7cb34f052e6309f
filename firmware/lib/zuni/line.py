"""Rules engine of the line games: Awithlaknannai Mosona and Kolowis Awithlaknannai.

docs/rules.md ("Line games") is the contract: point names, edges, start, jumps, chains, end.

>>> game = LineGame("mosona")
>>> [str(m) for m in game.legal_moves()]
['s3xm4-m5']
>>> game = LineGame.from_position("kolowis size=short", "south s3 north m4", "south")

Per board and jump reading, the engine precomputes once (module-level cache) one flat
bytearray: for each directed edge A->B, the points C a jump over B may land on. Move
generation then only reads the board and these tables; a chain is searched by lifting
the mover and removing each jumped piece on the board itself, and putting everything
back afterwards, so that "removed at once" holds by construction.
"""

from micropython import const
from zuni.core import JUMP, MAN, NORTH, SIDE_NAMES, SOUTH, STEP, Game, Geometry, Move, MoveStack, Outcome, piece_code
from zuni.errors import MoveParseError, RulesetError, ZuniError
from zuni.ruleset import Ruleset, parse_ruleset

# Board byte of each side's man, indexed by side (SOUTH=0, NORTH=2).
_CODES = (piece_code(SOUTH, MAN), 0, piece_code(NORTH, MAN))

_CHAIN_NONE = const(0)
_CHAIN_OPTIONAL = const(1)
_CHAIN_FORCED = const(2)
_CHAINS = {"none": _CHAIN_NONE, "optional": _CHAIN_OPTIONAL, "forced": _CHAIN_FORCED}


# (k, lined) -> LineGeometry; (k, lined) -> adjacency; (k, lined, jumps) -> jump table.
# One board is live at a time on the Pico, so these hold one entry each there.
_GEOMETRIES = {}  # type: dict
_ADJACENCY = {}  # type: dict
_JUMP_TABLES = {}  # type: dict


def board_size(ruleset):
    """(K, lined) for a line-game ruleset: K points on each outer row."""
    if ruleset.game_id == "mosona":
        return 8, ruleset["board"] == "lined"
    return (16 if ruleset["size"] == "long" else 8), True


def _doubled(k):
    """Point coordinates with x doubled, so that every coordinate is an int."""
    out = []
    for i in range(1, k + 1):
        out.append((2 * i + 1, 1))
    for i in range(1, k + 2):
        out.append((2 * i, 0))
    for i in range(1, k + 1):
        out.append((2 * i + 1, -1))
    return out


def _name(row, i):
    """The name of point ``i`` of a row ("n", "m", "s"), interned.

    getattr() makes MicroPython keep the text as a qstr, and a string formatted after
    that is the qstr itself: about 16 bytes in the qstr pool instead of a 64-byte heap
    string (49 names on the long board). CPython just returns the text."""
    getattr(_CODES, "%s%d" % (row, i), None)
    return "%s%d" % (row, i)


def _edge_list(k, lined):
    """The edges (i, j), i < j, sorted, of the line board with K points a row."""
    edges = []
    for i in range(k):
        # n(i+1) = i, m(i+1) = k + i, s(i+1) = 2k + 1 + i
        n = i
        m = k + i
        s = 2 * k + 1 + i
        edges.append((m, m + 1))
        edges.append((n, m))
        edges.append((n, m + 1))
        edges.append((m, s))
        edges.append((m + 1, s))
        if lined and i < k - 1:
            edges.append((n, n + 1))
            edges.append((s, s + 1))
    edges.sort()
    return edges


class _Step(Move):
    """A step of a line game. ``kind`` and ``captures`` are class attributes, and
    ``names`` one of a subclass per board (``LineGeometry.step_class``): a Move that
    holds only its path takes 64 bytes of a 64-bit MicroPython heap instead of 96, and
    a position's moves are the engine's largest heap peak."""

    kind = STEP
    captures = ()

    def __init__(self, path):
        self.path = path


class _Jump(Move):
    """A jump or chain of a line game; see _Step."""

    kind = JUMP

    def __init__(self, path, captures):
        self.path = path
        self.captures = captures


class LineGeometry(Geometry):
    """The Geometry of a line board with K points on the outer rows.

    Points are numbered n1..nK, m1..m(K+1), s1..sK. ``coords``, ``edges``, ``lines``
    and ``neighbors`` are made on first use: the engine reads the flat tables of
    ``adjacency`` and ``jump_table`` instead."""

    def __init__(self, k, lined):
        names = []
        for i in range(1, k + 1):
            names.append(_name("n", i))
        for i in range(1, k + 2):
            names.append(_name("m", i))
        for i in range(1, k + 1):
            names.append(_name("s", i))
        half = k // 2
        # South: s1..sK and the East half of the middle row; North the reverse.
        south = tuple(range(2 * k + 1, 3 * k + 1)) + tuple(range(k + half + 1, 2 * k + 1))
        north = tuple(range(k)) + tuple(range(k, k + half))
        Geometry.__init__(self, "lines", tuple(names), None, None, None, {SOUTH: south, NORTH: north})
        self.k = k
        self.lined = lined
        # The Move classes of this board: its names on the class, not on every move.
        self.step_class = type("Step", (_Step,), {"names": self.names})
        self.jump_class = type("Jump", (_Jump,), {"names": self.names})

    def _make_coords(self):
        k = self.k
        coords = []
        # n(i) and s(i) share one float object for x (floats take heap on the Pico).
        halves = [i + 0.5 for i in range(k + 1)]
        for i in range(1, k + 1):
            coords.append((halves[i], 1))
        for i in range(1, k + 2):
            coords.append((i, 0))
        for i in range(1, k + 1):
            coords.append((halves[i], -1))
        return tuple(coords)

    def _make_edges(self):
        return tuple(_edge_list(self.k, self.lined))

    def _make_lines(self):
        k = self.k
        # n(i) = i - 1, m(i) = k + i - 1, s(i) = 2k + i (i from 1), written out: no
        # closures, which would stay in the heap as code of their own.
        lines = []
        if self.lined:
            lines.append(tuple(range(k)))  # n1..nK
        lines.append(tuple(range(k, 2 * k + 1)))  # m1..m(K+1)
        if self.lined:
            lines.append(tuple(range(2 * k + 1, 3 * k + 1)))  # s1..sK
        # The diagonals are straight lines through a middle point: n(i)-m(i+1)-s(i+1)
        # and s(i)-m(i+1)-n(i+1), drawn south to north; the ends are two-point lines.
        lines.append((2 * k + 1, k))  # s1-m1
        lines.append((k, 0))  # m1-n1
        for i in range(1, k):
            lines.append((2 * k + i + 1, k + i, i - 1))  # s(i+1)-m(i+1)-n(i)
            lines.append((2 * k + i, k + i, i))  # s(i)-m(i+1)-n(i+1)
        lines.append((2 * k, k - 1))  # m(K+1)-nK
        lines.append((3 * k, 2 * k))  # sK-m(K+1)
        return tuple(lines)


def line_geometry(k, lined):
    """The LineGeometry of a line board with K points on the outer rows (cached)."""
    key = (k, lined)
    geometry = _GEOMETRIES.get(key)
    if geometry is None:
        geometry = _GEOMETRIES[key] = LineGeometry(k, lined)
    return geometry


def _neighbours(k, lined, p):
    """The points joined to point ``p`` by an edge, ascending (a short list)."""
    out = []
    if p < k:  # n(i), i = p + 1
        i = p + 1
        if lined and i > 1:
            out.append(p - 1)
        if lined and i < k:
            out.append(p + 1)
        out.append(k + i - 1)  # m(i)
        out.append(k + i)  # m(i + 1)
    elif p <= 2 * k:  # m(i), i = p - k + 1
        i = p - k + 1
        if i > 1:
            out.append(i - 2)  # n(i - 1)
        if i <= k:
            out.append(i - 1)  # n(i)
        if i > 1:
            out.append(p - 1)
        if i <= k:
            out.append(p + 1)
        if i > 1:
            out.append(2 * k + i - 1)  # s(i - 1)
        if i <= k:
            out.append(2 * k + i)  # s(i)
    else:  # s(i), i = p - 2k
        i = p - 2 * k
        out.append(k + i - 1)  # m(i)
        out.append(k + i)  # m(i + 1)
        if lined and i > 1:
            out.append(p - 1)
        if lined and i < k:
            out.append(p + 1)
    return out


def adjacency(k, lined):
    """The neighbours of every point, as ``(first, targets, rows)`` (cached).

    The directed edges A->B are numbered A = 0, 1, ... and B ascending (the order of
    ``geometry.neighbors``); edge ``e`` goes to ``targets[e]``, the edges out of A are
    ``range(first[A], first[A + 1])`` and ``rows[A]`` is a memoryview of their targets.
    About 2 KiB on the long board, where tuples of neighbours take 3.5 KiB of a
    MicroPython heap; made in place, without a list of edges (a 1 KiB block that a
    fragmented heap may not have)."""
    key = (k, lined)
    table = _ADJACENCY.get(key)
    if table is not None:
        return table
    count = 3 * k + 1
    # Twice the edges: 5 per middle point but the last, and the outer rows' own.
    targets = bytearray(2 * (5 * k + (2 * (k - 1) if lined else 0)))
    first = bytearray(count + 1)
    e = 0
    for a in range(count):
        first[a] = e
        for b in _neighbours(k, lined, a):
            targets[e] = b
            e += 1
    first[count] = e
    view = memoryview(targets)
    # One 32-byte view per point into ``targets``: iterating it is as fast as a tuple
    # (faster under CPython) and allocates nothing, at half a tuple's heap.
    rows = tuple(view[first[a] : first[a + 1]] for a in range(count))
    table = _ADJACENCY[key] = (first, targets, rows)
    return table


def jump_table(k, lined, jumps):
    """Landing points of jumps, as ``(width, landings)``, ignoring what is on the board.

    ``landings[width * e : width * (e + 1)]`` are the points C that a jump along the
    directed edge ``e`` (A->B, numbered as in ``adjacency``) over B may land on under
    the reading ``jumps``, padded with 255. beyond: u . v > 0 with u = B - A,
    v = C - B; straight: v == u; pattern: any C != A. One flat bytearray keeps the
    table small on the Pico."""
    key = (k, lined, jumps)
    table = _JUMP_TABLES.get(key)
    if table is not None:
        return table
    if jumps not in ("beyond", "straight", "pattern"):
        raise RulesetError("bad value %r for option 'jumps' (allowed: beyond, straight, pattern)" % (jumps,))
    first, targets, _rows = adjacency(k, lined)
    xy = _doubled(k)
    # At most 5 landings (a middle point has 6 neighbours); straight leaps have one.
    width = 1 if jumps == "straight" else 5
    landings = bytearray(b"\xff" * (width * len(targets)))
    for a in range(len(first) - 1):
        ax, ay = xy[a]
        for e in range(first[a], first[a + 1]):
            b = targets[e]
            bx, by = xy[b]
            ux = bx - ax
            uy = by - ay
            i = width * e
            for f in range(first[b], first[b + 1]):
                c = targets[f]
                if c == a:
                    continue
                cx, cy = xy[c]
                vx = cx - bx
                vy = cy - by
                if jumps == "straight":
                    ok = vx == ux and vy == uy
                elif jumps == "beyond":
                    # The dot product in real units, times 4 (x is doubled).
                    ok = ux * vx + 4 * uy * vy > 0
                else:
                    ok = True
                if ok:
                    landings[i] = c
                    i += 1
    table = (width, landings)
    _JUMP_TABLES[key] = table
    return table


def _line_ruleset(ruleset):
    if not isinstance(ruleset, Ruleset):
        ruleset = parse_ruleset(ruleset)
    if ruleset.game_id not in ("mosona", "kolowis"):
        raise RulesetError("%r is not a line game (allowed: mosona, kolowis)" % (str(ruleset),))
    return ruleset


def _side_arg(turn):
    if turn == SOUTH or turn == "south":
        return SOUTH
    if turn == NORTH or turn == "north":
        return NORTH
    raise ZuniError("bad side %r for a line game (allowed: south, north)" % (turn,))


class LineGame(Game):
    """A game of Mosona or Kolowis, from the start position (or see ``from_position``).

    Besides the base Game API: ``quiet`` (moves since the last capture), ``counts``
    (pieces per team: [south, north]) and ``position_text()``."""

    def __init__(self, ruleset):
        ruleset = _line_ruleset(ruleset)
        k, lined = board_size(ruleset)
        geometry = line_geometry(k, lined)
        board = bytearray(len(geometry.names))
        for side in (SOUTH, NORTH):
            for p in geometry.homes[side]:
                board[p] = _CODES[side]
        turn = SOUTH if ruleset["first"] == "south" else NORTH
        Game.__init__(self, ruleset, geometry, board, turn)
        self._width, self._landings = jump_table(k, lined, ruleset["jumps"])
        self._first, targets, self._rows = adjacency(k, lined)
        # The steps found by _generate, as point pairs, before they become Moves.
        self._pairs = bytearray(2 * len(targets))
        self._chain = _CHAINS[ruleset["chain"]]
        self._must_capture = ruleset["capture"] == "forced"
        self._quiet_limit = ruleset.get_int("quiet")
        self._stall_draw = ruleset["stall"] == "draw"
        self.quiet = 0
        # The quiet count of the first position; pop() recounts from the history, so
        # that no list grows beside move_stack.
        self._quiet0 = 0
        # The history, packed in small chunks made as it grows (see core.MoveStack).
        self.move_stack = MoveStack(geometry.names)  # type: ignore[assignment]
        n = len(geometry.homes[SOUTH])
        self.counts = [n, n]

    @classmethod
    def from_position(cls, ruleset, pieces, turn="south", quiet=0):
        """A game at a hand-made position with no history.

        ``pieces`` is text: a side name, then the points it holds, then the other side:
        ``"south s3 m6 north m4 n5"``. ``turn``: "south"/"north" (or SOUTH/NORTH);
        ``quiet``: moves since the last capture. ZuniError names any bad part.

        >>> game = LineGame.from_position("mosona", "south s3 north m4", "south")
        >>> sorted(str(m) for m in game.legal_moves())  # jumps=beyond: every landing beyond m4
        ['s3xm4-m5', 's3xm4-n3', 's3xm4-n4']
        """
        game = cls(ruleset)
        geometry = game.geometry
        board = game.board
        for i in range(len(board)):
            board[i] = 0
        counts = [0, 0]
        side = -1
        for word in pieces.split():
            if word == "south" or word == "north":
                side = _side_arg(word)
                continue
            if side < 0:
                raise ZuniError("position %r: name a side (south or north) before the points" % (pieces,))
            p = geometry.index.get(word)
            if p is None:
                raise ZuniError("position %r: unknown point %r" % (pieces, word))
            if board[p]:
                raise ZuniError("position %r: point %r is given twice" % (pieces, word))
            board[p] = _CODES[side]
            counts[side >> 1] += 1
        if not isinstance(quiet, int) or quiet < 0:
            raise ZuniError("bad quiet count %r (allowed: an integer >= 0)" % (quiet,))
        game.turn = _side_arg(turn)
        game.quiet = quiet
        game._quiet0 = quiet
        game.counts = counts
        return game

    def position_text(self):
        """The position in ``from_position``'s form: ``"south s3 m6 north m4 n5"``."""
        names = self.geometry.names
        board = self.board
        parts = []
        for side in (SOUTH, NORTH):
            parts.append(SIDE_NAMES[side])
            for p in range(len(board)):
                if board[p] == _CODES[side]:
                    parts.append(names[p])
        return " ".join(parts)

    # -- moves ------------------------------------------------------------------
    def legal_moves(self):
        if self._declared is not None or self._ended():
            return []
        return self._generate(False)

    def legal_captures(self):
        # The jumps alone: no step becomes a Move (most of legal_moves' time and heap).
        if self._declared is not None or self._ended():
            return []
        return self._generate(True)

    def _ended(self):
        """Over without looking at the moves: no pieces, or the quiet limit reached."""
        counts = self.counts
        return counts[0] == 0 or counts[1] == 0 or self.quiet >= self._quiet_limit

    def _generate(self, jumps_only):
        board = self.board
        turn = self.turn
        me = _CODES[turn]
        foe = _CODES[2 - turn]
        rows = self._rows
        first = self._first
        width = self._width
        landings = self._landings
        step = self.geometry.step_class
        jump = self.geometry.jump_class
        chain = self._chain
        pairs = self._pairs
        moves = []  # type: list[Move]
        n = 0
        for a in range(len(board)):
            if board[a] != me:
                continue
            i = first[a] * width
            for b in rows[a]:
                there = board[b]
                if not there:
                    # A step is wasted work once a jump is forced; skip it then.
                    if not (jumps_only or (moves and self._must_capture)):
                        pairs[n] = a
                        pairs[n + 1] = b
                        n += 2
                elif there == foe:
                    for j in range(i, i + width):
                        c = landings[j]
                        if c == 255:
                            break
                        if board[c]:
                            continue
                        if chain == _CHAIN_NONE:
                            moves.append(jump((a, b, c), (b,)))
                            continue
                        # Lift the mover and take the jumped piece at once: the rest
                        # of the chain sees both points empty.
                        board[a] = 0
                        board[b] = 0
                        self._extend([a, b, c], [b], moves, foe, chain == _CHAIN_OPTIONAL)
                        board[b] = foe
                        board[a] = me
                i += width
        if jumps_only or (moves and self._must_capture):
            return moves
        # The steps go into a list made at its final size, after the jumps: a list
        # that grows by doubling needs, at the moment the heap holds every Move of the
        # position, a free block twice as long as the one it leaves.
        j = len(moves)
        out = moves + [None] * (n >> 1) if j else [None] * (n >> 1)
        for i in range(0, n, 2):
            out[j] = step((pairs[i], pairs[i + 1]))
            j += 1
        return out

    def _extend(self, path, taken, moves, foe, optional):
        """Add the chains that go on from ``path`` (its ``taken`` pieces already off).

        ``taken`` is kept beside ``path`` because some MicroPython builds have no
        extended slices (``path[1::2]``)."""
        board = self.board
        if optional:
            moves.append(self.geometry.jump_class(tuple(path), tuple(taken)))
        more = False
        a = path[-1]
        width = self._width
        landings = self._landings
        i = self._first[a] * width
        for b in self._rows[a]:
            if board[b] == foe:
                for j in range(i, i + width):
                    c = landings[j]
                    if c == 255:
                        break
                    if board[c]:
                        continue
                    more = True
                    board[b] = 0
                    path.append(b)
                    path.append(c)
                    taken.append(b)
                    self._extend(path, taken, moves, foe, optional)
                    taken.pop()
                    path.pop()
                    path.pop()
                    board[b] = foe
            i += width
        if not more and not optional:
            moves.append(self.geometry.jump_class(tuple(path), tuple(taken)))

    def count_moves(self):
        """``len(self.legal_moves())`` without building the moves (perft's last ply)."""
        if self._declared is not None or self._ended():
            return 0
        board = self.board
        me = _CODES[self.turn]
        foe = _CODES[2 - self.turn]
        rows = self._rows
        first = self._first
        width = self._width
        landings = self._landings
        chain = self._chain
        jumps = 0
        steps = 0
        for a in range(len(board)):
            if board[a] != me:
                continue
            i = first[a] * width
            for b in rows[a]:
                there = board[b]
                if not there:
                    steps += 1
                elif there == foe:
                    for j in range(i, i + width):
                        c = landings[j]
                        if c == 255:
                            break
                        if board[c]:
                            continue
                        if chain == _CHAIN_NONE:
                            jumps += 1
                            continue
                        board[a] = 0
                        board[b] = 0
                        jumps += self._count_chains(c, foe, chain == _CHAIN_OPTIONAL)
                        board[b] = foe
                        board[a] = me
                i += width
        if jumps and self._must_capture:
            return jumps
        return jumps + steps

    def _count_chains(self, a, foe, optional):
        """How many moves ``_extend`` would add for a chain that has reached ``a``."""
        board = self.board
        width = self._width
        landings = self._landings
        count = 1 if optional else 0
        more = False
        i = self._first[a] * width
        for b in self._rows[a]:
            if board[b] == foe:
                for j in range(i, i + width):
                    c = landings[j]
                    if c == 255:
                        break
                    if board[c]:
                        continue
                    more = True
                    board[b] = 0
                    count += self._count_chains(c, foe, optional)
                    board[b] = foe
            i += width
        if not more and not optional:
            return 1
        return count

    def _has_move(self):
        board = self.board
        me = _CODES[self.turn]
        foe = _CODES[2 - self.turn]
        rows = self._rows
        first = self._first
        width = self._width
        landings = self._landings
        for a in range(len(board)):
            if board[a] != me:
                continue
            i = first[a] * width
            for b in rows[a]:
                there = board[b]
                if not there:
                    return True
                if there == foe:
                    for j in range(i, i + width):
                        c = landings[j]
                        if c == 255:
                            break
                        if not board[c]:
                            return True
                i += width
        return False

    def _check_syntax(self, text):
        if text == "pass" or text[0] == "@":
            raise MoveParseError("line games have no drops or passes (expected e.g. m6-m5, n4xm5-s4)")
        Game._check_syntax(self, text)

    def push(self, move):
        board = self.board
        turn = self.turn
        path = move.path
        captures = move.captures
        # Origin first and landing last: a chain may end on its origin or on a point
        # it emptied itself.
        board[path[0]] = 0
        for p in captures:
            board[p] = 0
        board[path[-1]] = _CODES[turn]
        if captures:
            self.quiet = 0
            self.counts[1 - (turn >> 1)] -= len(captures)
        else:
            self.quiet += 1
        self.turn = 2 - turn
        self.move_stack.append(move)

    def pop(self):
        if not self.move_stack:
            raise IndexError("no move to take back (%s)" % (self.describe(),))
        move = self.move_stack.pop()
        self._declared = None
        turn = 2 - self.turn
        self.turn = turn
        board = self.board
        path = move.path
        captures = move.captures
        board[path[-1]] = 0
        foe = _CODES[2 - turn]
        for p in captures:
            board[p] = foe
        board[path[0]] = _CODES[turn]
        if captures:
            self.counts[1 - (turn >> 1)] += len(captures)
            # The quiet count before a capture: the quiet moves since the one before.
            stack = self.move_stack
            quiet = stack.trailing_quiet()  # type: ignore[attr-defined]
            self.quiet = quiet + (self._quiet0 if quiet == len(stack) else 0)
        else:
            self.quiet -= 1
        return move

    # -- sides, copies, state ------------------------------------------------------
    def team_of(self, side):
        return 0 if side == SOUTH else 1

    def team_names(self):
        return ("south", "north")

    def copy(self):
        game = LineGame(self.ruleset)
        game.board = bytearray(self.board)
        game.turn = self.turn
        game.move_stack.extend(self.move_stack)
        game._declared = self._declared
        game.quiet = self.quiet
        game._quiet0 = self._quiet0
        game.counts = list(self.counts)
        return game

    def _state_bytes(self):
        q = self.quiet
        return bytes((self.turn, q & 255, (q >> 8) & 255, (q >> 16) & 255, (q >> 24) & 255))

    def _natural_outcome(self):
        counts = self.counts
        mover = self.turn >> 1
        if counts[mover] == 0:
            return Outcome(1 - mover, "no-pieces")
        if counts[1 - mover] == 0:
            return Outcome(mover, "no-pieces")
        if not self._has_move():
            return Outcome(1 - mover, "no-moves")
        if self.quiet >= self._quiet_limit:
            if self._stall_draw:
                return Outcome(None, "quiet")
            return self._count_outcome("quiet")
        return None
