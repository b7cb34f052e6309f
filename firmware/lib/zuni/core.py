"""Types shared by every game: sides, pieces, moves, geometry, outcomes, the game base.

Conventions (the firmware, the host and the tests rely on them):

- A point is a small integer index into ``Geometry.names``.
- A board is a ``bytearray`` with one byte per point: 0 is empty, otherwise
  ``piece_code(side, kind)``.
- Sides are numbered in the seating order of four players, so that a two-player game
  uses SOUTH and NORTH and no table changes size between games.
- A move's ``path`` follows docs/rules.md: origin, then for a step the point moved to, and
  for each jump the point jumped over and the point landed on; a drop is ``(square,)``
  and a pass is ``()``.
"""

from micropython import const
from zuni.errors import GameOverError, IllegalMoveError, MoveParseError

SOUTH = const(0)
WEST = const(1)
NORTH = const(2)
EAST = const(3)
SIDE_NAMES = ("south", "west", "north", "east")

# Piece kinds. Line games only have MAN; Awithlaknakwe has warriors (MAN) and priests.
MAN = const(0)
PRIEST = const(1)

# The newest moves a MoveStack keeps as objects, and the size of its chunks of packed
# moves (see MoveStack).
_RECENT = const(4)
_CHUNK = const(256)

# Move kinds.
STEP = const(0)
JUMP = const(1)
DROP = const(2)
PASS = const(3)


def piece_code(side, kind):
    """The board byte for a piece: ``piece_code(NORTH, MAN) == 5``."""
    return 1 + side * 2 + kind


def piece_side(code):
    return (code - 1) >> 1


def piece_kind(code):
    return (code - 1) & 1


def side_from_name(name):
    """``side_from_name("north") == NORTH``; raises ValueError for anything else."""
    for i in range(4):
        if SIDE_NAMES[i] == name:
            return i
    raise ValueError("unknown side %r (allowed: south, west, north, east)" % (name,))


def _abstract(self, *args):
    """What a subclass must implement."""
    raise NotImplementedError


class Move:
    """One whole turn, identified by its path (see the module docstring).

    ``captures`` lists the points whose pieces the move removes, in the order they are
    taken: the jumped points of a jump, the custody captures of Awithlaknakwe.
    ``names`` is the geometry's name list, shared, so that a move prints itself.

    >>> str(move), repr(move)
    ('s3xm4-m5', "Move('s3xm4-m5')")
    """

    def __init__(self, kind, path, captures, names):
        self.kind = kind
        self.path = path
        self.captures = captures
        self.names = names

    @property
    def origin(self):
        """The point the mover leaves, or -1 for a drop or a pass."""
        if self.kind == STEP or self.kind == JUMP:
            return self.path[0]
        return -1

    @property
    def dest(self):
        """The point the mover ends on, or -1 for a pass."""
        if self.path:
            return self.path[-1]
        return -1

    def landings(self):
        """The landing points of a jump in order (the last one is ``dest``)."""
        if self.kind != JUMP:
            return ()
        # No extended slices: this MicroPython build supports only step 1.
        path = self.path
        return tuple(path[i] for i in range(2, len(path), 2))

    def empties(self):
        """Points that are occupied before the move and empty after it.

        A chain may land on a point whose piece it captured earlier (bent leaps):
        that point is occupied before and after, so it is not listed."""
        dest = self.dest
        out = [p for p in self.captures if p != dest]
        origin = self.origin
        if origin >= 0 and origin != dest:
            out.append(origin)
        return out

    def fills(self):
        """The point that is empty before the move and occupied after it, or -1.

        A chain that comes back to its origin, or that ends on a point whose piece it
        captured on the way, fills nothing new."""
        dest = self.dest
        if dest < 0 or dest == self.origin or dest in self.captures:
            return -1
        return dest

    def text(self):
        kind = self.kind
        names = self.names
        path = self.path
        if kind == PASS:
            return "pass"
        if kind == DROP:
            return "@" + names[path[0]]
        if kind == STEP:
            return names[path[0]] + "-" + names[path[1]]
        parts = [names[path[0]]]
        for i in range(1, len(path), 2):
            parts.append("x" + names[path[i]] + "-" + names[path[i + 1]])
        return "".join(parts)

    # One function object, not two (each costs heap when the module is imported).
    __str__ = text

    def __repr__(self):
        return "Move(%r)" % (self.text(),)

    # ``!=`` is ``not ==`` in CPython 3 and MicroPython without a __ne__.
    def __eq__(self, other):
        return isinstance(other, Move) and self.kind == other.kind and self.path == other.path

    def __hash__(self):
        return hash(self.path) ^ self.kind


def _chunk():
    chunk = bytearray(_CHUNK)
    # Empty, with the room kept: MicroPython keeps a bytearray's capacity across
    # ``[:] = b""``, so records are added in place.
    chunk[:] = b""
    return chunk


class MoveStack:
    """A game's moves, oldest first: the last few as Move objects, the rest packed in
    bytes.

    It reads like a list of Moves (``len``, ``[i]``, ``[-1]``, slices, iteration,
    ``==`` with a list or another stack) at 4 bytes a move plus its points, where a
    list holds a Move and its tuples (about 150 bytes each on the 64-bit unix port).
    The newest moves stay objects, so that the push/pop of a search or of perft packs
    and unpacks nothing and ``pop()`` returns the very Move pushed; older ones are made
    again when read (equal, not the same objects). Points and kinds must be < 256.

    The bytes are chunks of 256, so that a long game never needs one large free block
    (a fragmented MicroPython heap may have plenty of small ones and no large one).
    ``room``: bytes of chunks to make up front. A record is ``kind, len(path),
    len(captures), path..., captures..., record length``, within one chunk; the first
    byte is read going forward, the last going back.

    >>> stack = MoveStack(names)
    >>> stack.append(move); stack[-1] is move
    True
    """

    def __init__(self, names, room=0):
        self.names = names
        self._chunks = []  # type: list[bytearray]
        # Empty chunks kept for reuse (made up front, or emptied by pop()).
        self._spare = [_chunk() for _ in range((room + _CHUNK - 1) // _CHUNK)]
        self._packed = 0
        # The Moves of the last len(_recent) records, oldest first.
        self._recent = []  # type: list

    def __len__(self):
        return self._packed + len(self._recent)

    def append(self, move):
        recent = self._recent
        recent.append(move)
        if len(recent) > _RECENT:
            self._pack(recent.pop(0))

    def _pack(self, move):
        path = move.path
        captures = move.captures
        n = len(path)
        c = len(captures)
        chunks = self._chunks
        if not chunks or len(chunks[-1]) + n + c + 4 > _CHUNK:
            chunks.append(self._spare.pop() if self._spare else _chunk())
        data = chunks[-1]
        data.append(move.kind)
        data.append(n)
        data.append(c)
        data.extend(path)
        data.extend(captures)
        data.append(n + c + 4)
        self._packed += 1

    def extend(self, moves):
        for move in moves:
            self.append(move)

    def pop(self):
        """Remove the last move and return it."""
        if self._recent:
            return self._recent.pop()
        if not self._packed:
            raise IndexError("pop from an empty move stack")
        data = self._chunks[-1]
        start = len(data) - data[-1]
        move = self._read(data, start)
        data[start:] = b""
        if not start:
            self._spare.append(self._chunks.pop())
        self._packed -= 1
        return move

    def trailing_quiet(self):
        """How many moves at the end capture nothing (all of them if none does)."""
        recent = self._recent
        count = 0
        for i in range(len(recent) - 1, -1, -1):
            if recent[i].captures:
                return count
            count += 1
        chunks = self._chunks
        for k in range(len(chunks) - 1, -1, -1):
            data = chunks[k]
            end = len(data)
            while end:
                start = end - data[end - 1]
                if data[start + 2]:
                    return count
                count += 1
                end = start
        return count

    def _read(self, data, start):
        n = data[start + 1]
        c = data[start + 2]
        i = start + 3
        # tuple() of nothing is the shared empty tuple: no allocation for a quiet move.
        return Move(data[start], tuple(data[i : i + n]), tuple(data[i + n : i + n + c]), self.names)

    def __getitem__(self, key):
        if not isinstance(key, int):
            # A slice: a list, as a list's slice would be.
            return list(self)[key]
        packed = self._packed
        size = packed + len(self._recent)
        i = key + size if key < 0 else key
        if i < 0 or i >= size:
            raise IndexError("move index %d out of range (%d moves)" % (key, size))
        if i >= packed:
            return self._recent[i - packed]
        for data in self._chunks:
            start = 0
            end = len(data)
            while start < end:
                if not i:
                    return self._read(data, start)
                i -= 1
                start += data[start + 1] + data[start + 2] + 4

    def __iter__(self):
        for data in self._chunks:
            start = 0
            end = len(data)
            while start < end:
                yield self._read(data, start)
                start += data[start + 1] + data[start + 2] + 4
        for move in self._recent:
            yield move

    def __eq__(self, other):
        if isinstance(other, (MoveStack, list, tuple)):
            return list(self) == list(other)
        return False

    def __repr__(self):
        return repr(list(self))


class Geometry:
    """The fixed points of a board and how to draw them.

    - ``names[i]``: the point's name (docs/rules.md), ``index[name]`` the reverse.
    - ``coords[i]``: (x, y) in board units, x to the East, y to the North. Line
      boards use half units for the outer rows (``(3.5, 1)``); square boards use the
      square's (c, r).
    - ``edges``: pairs (i, j), i < j, along which pieces move on line boards (empty
      for square boards).
    - ``neighbors[i]``: tuple of the points joined to i by an edge.
    - ``lines``: polylines to draw, each a tuple of points.
    - ``homes``: side -> tuple of points (start rows of line games, home rows of
      Awithlaknakwe).
    - ``shape``: "lines" or "squares".

    ``coords``, ``edges`` and ``lines`` may be given as None: a subclass then makes
    them on first use (``_make_coords`` ...), and ``neighbors`` and ``index`` are always
    made on first use, so that a board that only plays never holds what only drawing
    or a host needs (several KiB of a 64 KiB MicroPython heap). What is made is kept
    as a plain attribute: later reads cost nothing more.
    """

    def __init__(self, shape, names, coords, edges, lines, homes):
        self.shape = shape
        self.names = names
        self.homes = homes
        if coords is not None:
            self.coords = coords
        if edges is not None:
            self.edges = edges
        if lines is not None:
            self.lines = lines
        # The index, once made; point() reads it without making it.
        self._index = None  # type: dict | None

    def __getattr__(self, name):
        # Called only for an attribute not made yet (one function, where properties
        # would cost a function and a property object each).
        if name == "coords":
            value = self._make_coords()
        elif name == "edges":
            value = self._make_edges()
        elif name == "lines":
            value = self._make_lines()
        elif name == "neighbors":
            neighbors = [[] for _ in self.names]  # type: list[list[int]]
            for a, b in self.edges:
                neighbors[a].append(b)
                neighbors[b].append(a)
            value = tuple(tuple(sorted(n)) for n in neighbors)
        elif name == "index":
            names = self.names
            value = {}
            for i in range(len(names)):
                value[names[i]] = i
            self._index = value
        else:
            raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))
        setattr(self, name, value)
        return value

    # What a subclass that passes None for coords, edges or lines implements.
    _make_coords = _make_edges = _make_lines = _abstract

    def __len__(self):
        return len(self.names)

    def point(self, name):
        """The index of a point by name; MoveParseError names an unknown one."""
        index = self._index
        if index is not None:
            p = index.get(name)
            if p is not None:
                return p
        else:
            # No dict on the board just to read a move now and then: a scan of at
            # most a few hundred names.
            names = self.names
            for p in range(len(names)):
                if names[p] == name:
                    return p
        raise MoveParseError("unknown point %r" % (name,))


class Outcome:
    """How a finished game ended.

    - ``result``: "south", "north", "draw"; with four players "south+east" or
      "north+west" (the text ``zuni moves`` prints after ``over``).
    - ``winner``: the winning team index (0: South's side, 1: North's side), or None.
    - ``termination``: why it ended, e.g. "no-pieces", "no-moves", "quiet", "blocked",
      "resign", "agreed-draw", "agreed-count", "time" (a flag fell: ``lose_on_time``).
    - ``scores``: (team 0 score, team 1 score) where the game keeps one, else None.
    """

    def __init__(self, winner, termination, scores=None):
        self.winner = winner
        self.termination = termination
        self.scores = scores
        self.result = "draw"

    def __repr__(self):
        return "Outcome(result=%r, termination=%r, scores=%r)" % (
            self.result,
            self.termination,
            self.scores,
        )

    def __eq__(self, other):
        return (
            isinstance(other, Outcome)
            and self.winner == other.winner
            and self.termination == other.termination
            and self.scores == other.scores
        )


class Game:
    """Base of every game: what does not depend on the rules.

    A subclass calls ``Game.__init__`` with its ruleset, geometry, start board
    (bytearray) and first side to move, and implements the methods below that raise
    NotImplementedError.
    """

    def __init__(self, ruleset, geometry, board, turn):
        self.ruleset = ruleset
        self.geometry = geometry
        self.board = board
        self.turn = turn
        self.move_stack = []
        # An end that is not a board position: resignation or agreement. Set by
        # resign()/agree(), cleared by pop() of any move and by clear_agreement().
        self._declared = None

    # -- what each game implements -----------------------------------------
    # legal_moves(): list of the legal moves (empty once the game is over).
    # push(move): play a legal move (not checked: use push_text or is_legal on
    #   untrusted input).
    # pop(): take back the last move exactly and return it.
    # team_of(side): 0 for South's team, 1 for North's team.
    # team_names(): result names of the two teams: ("south", "north") or
    #   ("south+east", "north+west").
    # copy(): an independent game with the same history.
    # _natural_outcome(): the Outcome the rules give this position, or None while play
    #   goes on.
    # _state_bytes(): bytes for the side to move and every counter or right that is not
    #   on the board.
    # One shared function object stands for all of them (each def costs heap).
    legal_moves = push = pop = team_of = team_names = copy = _natural_outcome = _state_bytes = _abstract

    # -- position -----------------------------------------------------------
    def piece_at(self, point):
        """(side, kind) of the piece on a point, or None."""
        code = self.board[point]
        if code == 0:
            return None
        return (piece_side(code), piece_kind(code))

    def occupancy(self):
        """bytearray with 1 where a piece stands: what the reed switches see."""
        board = self.board
        out = bytearray(len(board))
        for i in range(len(board)):
            if board[i]:
                out[i] = 1
        return out

    def key(self):
        """Bytes that equal exactly when two positions are the same for the rules:
        the board, the side to move and every counter or right that changes what
        happens next. Usable as a dict key (transposition tables, repetition)."""
        return bytes(self.board) + self._state_bytes()

    def ply(self):
        return len(self.move_stack)

    # -- moves --------------------------------------------------------------
    def parse_move(self, text):
        """The legal move written ``text`` in this position.

        Raises MoveParseError for text that is not a move of this game and
        IllegalMoveError for a move that is not legal here; both name the position.
        Point names are lower case; ``S4-M5`` is read as ``s4-m5``."""
        text = text.strip().lower()
        if not text:
            raise MoveParseError("empty move text (%s)" % (self.describe(),))
        try:
            self._check_syntax(text)
        except MoveParseError as exc:
            # The check knows what is wrong (an unknown point...); the reader also needs
            # the move as typed and the position.
            raise MoveParseError("%s: %s (%s)" % (text, exc, self.describe()))
        for move in self.legal_moves():
            if move.text() == text:
                return move
        if self.is_game_over():
            raise IllegalMoveError("%s: the game is over (%s)" % (text, self.describe()))
        raise IllegalMoveError("%s is not legal in %s" % (text, self.describe()))

    def push_text(self, text):
        move = self.parse_move(text)
        self.push(move)
        return move

    def _check_syntax(self, text):
        """Check names and punctuation, so that typos are told apart from illegal moves."""
        geometry = self.geometry
        if text == "pass":
            return
        if text[0] == "@":
            geometry.point(text[1:])
            return
        chunks = text.replace("x", " x").replace("-", " -").split()
        if len(chunks) < 2 or chunks[0][0] in "x-":
            raise MoveParseError("malformed move %r (expected e.g. m6-m5, n4xm5-s4, @e1, pass)" % (text,))
        geometry.point(chunks[0])
        jump = "x" in text
        expect = "x" if jump else "-"
        for chunk in chunks[1:]:
            if len(chunk) < 2 or chunk[0] != expect:
                raise MoveParseError("malformed move %r" % (text,))
            geometry.point(chunk[1:])
            if jump:
                expect = "-" if expect == "x" else "x"
        if jump and expect != "x":
            raise MoveParseError("malformed move %r: a jump needs a landing point" % (text,))
        if not jump and len(chunks) != 2:
            raise MoveParseError("malformed move %r: a step has two points" % (text,))

    def is_legal(self, move):
        return move in self.legal_moves()

    def count_moves(self):
        """``len(self.legal_moves())``; a game may count without building the moves
        (perft's last ply)."""
        return len(self.legal_moves())

    def legal_captures(self):
        """The legal moves that capture, in ``legal_moves()`` order (a search's
        quiescence); a game may find them without building its other moves."""
        return [m for m in self.legal_moves() if m.captures]

    # -- end ----------------------------------------------------------------
    def is_game_over(self):
        return self.outcome() is not None

    def outcome(self):
        """An Outcome when the game is over, else None."""
        if self._declared is not None:
            return self._declared
        outcome = self._natural_outcome()
        if outcome is not None:
            self._name_result(outcome)
        return outcome

    def resign(self, side):
        """``side`` resigns: its team loses."""
        self._require_in_progress()
        outcome = Outcome(1 - self.team_of(side), "resign")
        self._declared = self._name_result(outcome)
        return outcome

    def lose_on_time(self, side):
        """``side``'s clock ran out (its flag fell): its team loses, termination "time"."""
        self._require_in_progress()
        outcome = Outcome(1 - self.team_of(side), "time")
        self._declared = self._name_result(outcome)
        return outcome

    def agree(self, what):
        """Both sides agree an end: ``"draw"``, or ``"count"`` (the side with more
        pieces on the board wins, equal counts draw)."""
        self._require_in_progress()
        if what == "draw":
            outcome = Outcome(None, "agreed-draw")
        elif what == "count":
            outcome = self._count_outcome("agreed-count")
        else:
            raise ValueError("unknown agreement %r (allowed: draw, count)" % (what,))
        self._declared = self._name_result(outcome)
        return outcome

    def clear_agreement(self):
        self._declared = None

    def _require_in_progress(self):
        if self.is_game_over():
            raise GameOverError("the game is already over (%s)" % (self.describe(),))

    def _name_result(self, outcome):
        if outcome.winner is None:
            outcome.result = "draw"
        else:
            outcome.result = self.team_names()[outcome.winner]
        return outcome

    def _count_outcome(self, termination):
        counts = [0, 0]
        board = self.board
        for i in range(len(board)):
            code = board[i]
            if code:
                counts[self.team_of(piece_side(code))] += 1
        if counts[0] > counts[1]:
            return Outcome(0, termination, (counts[0], counts[1]))
        if counts[1] > counts[0]:
            return Outcome(1, termination, (counts[0], counts[1]))
        return Outcome(None, termination, (counts[0], counts[1]))

    # -- text ---------------------------------------------------------------
    def describe(self):
        """Short text naming the position, for error messages: ruleset, ply, mover."""
        n = len(self.move_stack)
        return "%s after %d move%s, %s to move" % (
            self.ruleset,
            n,
            "" if n == 1 else "s",
            SIDE_NAMES[self.turn],
        )

    def __repr__(self):
        return "<%s %s ply=%d turn=%s>" % (
            type(self).__name__,
            self.ruleset,
            len(self.move_stack),
            SIDE_NAMES[self.turn],
        )


def perft(game, depth):
    """Number of legal move sequences of exactly ``depth`` moves (docs/rules.md)."""
    if depth == 0:
        return 1
    if depth == 1:
        return game.count_moves()
    moves = game.legal_moves()
    total = 0
    for move in moves:
        game.push(move)
        total += perft(game, depth - 1)
        game.pop()
    return total
