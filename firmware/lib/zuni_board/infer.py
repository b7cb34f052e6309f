"""Move inference: which legal move is the player making, from reed-switch occupancy only.

A reed switch says "a piece is here", never whose. The board knows the last legal
position (``Position``, computed once per position) and compares the current stable
occupancy with it. ``infer(position, stable, touched)`` answers with a ``Result``:

- ``SAME``: the board shows the last legal position.
- ``PROGRESS``: a half-made move: ``result.candidates`` are the legal moves the
  changes are consistent with; ``result.remove`` the captured pieces still on the
  board, ``result.land`` the landing points still to reach. Never an error.
- ``FINISHED``: the board shows a legal move's whole result. ``result.finished`` lists
  the moves with exactly this result, best first (the one whose landing points the
  player touched); ``result.extendable`` says whether the board is also a half-made
  longer move (an optional chain stopped early, or a step where a jump to the same
  point exists), so the app waits for OK, an opponent's lift or the settle time.
- ``ERROR``: matches nothing: ``result.missing`` (pieces gone that no legal move takes
  away) and ``result.extra`` (pieces where none should be), both relative to the last
  legal position, which is what the player restores. ``result.stuck`` is the point of
  a single lifted piece that may not move (-1 otherwise): the LEDs then show the
  pieces that may.

The footprint of a move is worked out here from its path and captures (not from
``Move.empties()``), so that a chain landing on a point it captured earlier, or coming
back to its origin, is still matched right.

>>> pos = Position(game)              # once per position
>>> r = infer(pos, stable, touched)   # once per change of the stable occupancy
>>> r.kind == FINISHED and r.finished[0].move.text()
's3xm4-m5'
"""

from micropython import const
from zuni.core import DROP, JUMP, PASS, STEP

SAME = const(0)
PROGRESS = const(1)
FINISHED = const(2)
ERROR = const(3)
KIND_NAMES = ("same", "progress", "finished", "error")


class Footprint:
    """What one legal move does to the occupancy, and what may be seen while it is made.

    Kept small (a few ints and the move's own tuples): a position with many chains has
    one per legal move. While the move is made, its origin and captured points may be
    empty (``may_empty``) and the mover may rest on a landing point that was empty
    (``lands``). The finished move empties ``n_gone`` points (origin and captures, less
    the landing point) and covers ``add`` (-1 when the mover ends where a piece stood
    before, e.g. a chain back to its origin).
    """

    def __init__(self, move, occ):
        self.move = move
        kind = move.kind
        path = move.path
        origin = path[0] if (kind == STEP or kind == JUMP) else -1
        dest = path[-1] if path else -1
        self.origin = origin
        self.dest = dest
        captures = move.captures
        n = 0
        if origin >= 0 and origin != dest:
            n = 1
        for c in captures:
            if c != dest and c != origin:
                n += 1
        self.n_gone = n
        self.add = dest if (dest >= 0 and not occ[dest]) else -1

    # Read from the move rather than stored: a footprint holds as little as it can.
    @property
    def captures(self):
        return self.move.captures

    @property
    def drop(self):
        return self.move.kind == DROP

    @property
    def jump(self):
        return self.move.kind == JUMP

    def may_empty(self, p):
        return p == self.origin or p in self.captures

    def lands(self, p):
        """True if the mover touches down on p (a landing point, the drop square)."""
        if self.jump:
            path = self.move.path
            for i in range(2, len(path), 2):
                if path[i] == p:
                    return True
            return False
        return p == self.dest

    @property
    def landings(self):
        if self.jump:
            path = self.move.path
            return tuple(path[i] for i in range(2, len(path), 2))
        if self.dest >= 0:
            return (self.dest,)
        return ()

    @property
    def gone(self):
        """The points the finished move empties, sorted (for tests and tools)."""
        out = []
        if self.origin >= 0 and self.origin != self.dest:
            out.append(self.origin)
        for c in self.captures:
            if c != self.dest and c not in out:
                out.append(c)
        out.sort()
        return tuple(out)

    def may_fill(self, occ):
        """Landing points empty in ``occ`` (the position before the move)."""
        return tuple(p for p in self.landings if not occ[p])

    def progress(self, gone, added):
        """True when the changes ``gone``/``added`` are this move, half made or done."""
        if len(added) > 1:
            return False
        origin = self.origin
        captures = self.move.captures
        for p in gone:
            if p != origin and p not in captures:
                return False
        if added:
            # ``added`` points were empty before, so only a landing point will do.
            if not self.lands(added[0]):
                return False
            # A piece on a landing point while the origin is still covered would be a
            # second piece: not this move.
            if origin >= 0 and origin not in gone:
                return False
        return True

    def finished(self, gone, added):
        """True when ``gone``/``added`` (already a ``progress`` of this move) is exactly
        its result."""
        if len(gone) != self.n_gone or self.dest in gone:
            return False
        if self.add < 0:
            return not added
        return len(added) == 1 and added[0] == self.add

    def text(self):
        return self.move.text()

    def __repr__(self):
        return "Footprint(%s)" % self.move.text()


class Position:
    """Everything inference needs about one legal position, computed once.

    ``occ``: occupancy (bytearray); ``moves``: legal moves; ``foot``: their footprints;
    ``movable``: origins of the legal moves (sorted); ``drops``: drop squares;
    ``pass_move``: the forced pass, if that is the only legal move, else None.
    """

    def __init__(self, game):
        occ = game.occupancy()
        self.occ = occ
        self.n = len(occ)
        moves = game.legal_moves()
        self.moves = moves
        foot = [Footprint(m, occ) for m in moves]
        self.foot = foot
        movable = []
        drops = []
        for f in foot:
            if f.origin >= 0 and f.origin not in movable:
                movable.append(f.origin)
            if f.drop and f.dest not in drops:
                drops.append(f.dest)
        movable.sort()
        drops.sort()
        self.movable = movable
        self.drops = drops
        self.pass_move = moves[0] if (len(moves) == 1 and moves[0].kind == PASS) else None

    def find(self, move):
        """The footprint of a legal move (by path), or None."""
        for f in self.foot:
            if f.move == move:
                return f
        return None


class Result:
    def __init__(self, kind, gone, added):
        self.kind = kind
        self.gone = gone
        self.added = added
        self.candidates = []  # type: list[Footprint]
        self.finished = []  # type: list[Footprint]
        self.extendable = False
        self.remove = []  # type: list[int]
        self.land = []  # type: list[int]
        self.stuck = -1

    @property
    def missing(self):
        return self.gone

    @property
    def extra(self):
        return self.added

    @property
    def move(self):
        """The best finished move, or None."""
        return self.finished[0].move if self.finished else None

    def __repr__(self):
        return "Result(%s gone=%r added=%r finished=%r candidates=%r extendable=%r)" % (
            KIND_NAMES[self.kind],
            self.gone,
            self.added,
            self.finished,
            self.candidates,
            self.extendable,
        )


def diff(occ, stable):
    """(gone, added): points covered in ``occ`` and empty in ``stable``, and the reverse."""
    gone = []
    added = []
    for p in range(len(occ)):
        a = occ[p]
        b = stable[p]
        if a != b:
            if a:
                gone.append(p)
            else:
                added.append(p)
    return gone, added


def _touch_score(f, touched):
    if touched is None:
        return 0
    score = 0
    if f.jump:
        path = f.move.path
        for i in range(2, len(path), 2):
            if touched[path[i]]:
                score += 1
    return score


def classify(position, gone, added, touched=None, only=None):
    """Like ``infer`` with the differences already worked out. ``only``: restrict to
    these footprints (a host move to carry out)."""
    if not gone and not added:
        return Result(SAME, gone, added)
    pool = only if only is not None else position.foot
    result = Result(ERROR, gone, added)
    candidates = result.candidates
    finished = result.finished
    if len(added) <= 1:
        for f in pool:
            if f.progress(gone, added):
                if f.finished(gone, added):
                    finished.append(f)
                else:
                    candidates.append(f)
    if finished:
        result.kind = FINISHED
        result.extendable = len(candidates) > 0
        if len(finished) > 1 and touched is not None:
            # Same effect, different paths: the one whose landings were touched.
            best = 0
            best_score = _touch_score(finished[0], touched)
            for i in range(1, len(finished)):
                s = _touch_score(finished[i], touched)
                if s > best_score:
                    best = i
                    best_score = s
            if best:
                finished.insert(0, finished.pop(best))
    elif candidates:
        result.kind = PROGRESS
    elif len(gone) == 1 and not added:
        result.stuck = gone[0]
    if result.kind != ERROR:
        _needs(result, gone, added)
    return result


def _needs(result, gone, added):
    """What the candidate moves still need: captured pieces to remove, points to land on."""
    remove = result.remove
    land = result.land
    for f in result.candidates:
        for c in f.captures:
            if c not in gone and c not in remove and c != f.dest:
                remove.append(c)
        if f.add >= 0 and f.add not in added and f.add not in land:
            land.append(f.add)


def infer(position, stable, touched=None, only=None):
    """Classify the stable occupancy ``stable`` against ``position`` (see the module doc).

    ``touched``: bytearray, non-zero for each point lifted or placed since the last
    commit (decides between moves with the same result). ``only``: a list of
    footprints to consider instead of every legal move."""
    if position.occ == stable:
        return Result(SAME, [], [])  # one C-level compare (a position just committed)
    gone, added = diff(position.occ, stable)
    return classify(position, gone, added, touched, only)
