"""The LED language: what the board shows, as a pure renderer (state in, frame out).

Every point gets a colour and a pattern. Colours say *what* (blue: a piece to move,
green: where it goes, orange: a captured piece, red: a mistake, white: a piece belongs
here, magenta: a priest entry square, yellow/cyan: South's and North's team); patterns
say *how urgent*, so that a colour-blind player reads the board too: steady = possible
or for information, slow blink = put a piece here, fast blink = take this piece away,
double flash = a suggestion (hint, the host's move), triple flash = a mistake. The
colours themselves stay apart under red-green colour blindness (green leans to blue,
away from orange and yellow): tests/test_leds_colourblind.py measures both. The table
for players is ``docs/leds.md``.

The app paints on a state change (``Renderer.begin()``, ``mark()``..., ``end()``, or
one of the ``paint_*`` helpers); ``frame(now_ms)`` then only evaluates the blink
patterns into a preallocated buffer, and ``dirty(now_ms)`` says whether that frame
changed since the last one drawn, so a scan with nothing new costs almost nothing.

>>> r = Renderer(25)
>>> paint_sync(r, target, stable)      # setup: where pieces belong
>>> r.dirty(now) and leds.show(r.frame(now))
"""

import micropython
from micropython import const
from zuni_board.infer import FINISHED
from zuni_board.ticks import ticks_diff

# Patterns.
OFF = const(0)
STEADY = const(1)
SLOW = const(2)  # 1 s period, half on: "put a piece here"
FAST = const(3)  # 250 ms period, half on: "take this away"
DOUBLE = const(4)  # two 150 ms flashes per 1.2 s: a suggestion
TRIPLE = const(5)  # three 100 ms flashes, then 0.5 s dark: a mistake
N_PATTERNS = const(6)

# Colours (index into PALETTE). Full scale: the LED driver scales them to the layout's
# max_level, which keeps the board inside its current budget.
BLACK = const(0)
WHITE = const(1)
DIM_WHITE = const(2)
RED = const(3)
GREEN = const(4)
DIM_GREEN = const(5)
BLUE = const(6)
ORANGE = const(7)
MAGENTA = const(8)
YELLOW = const(9)
CYAN = const(10)
DIM_YELLOW = const(11)
DIM_CYAN = const(12)
PALETTE = bytes(
    (
        0, 0, 0,
        255, 255, 255,
        48, 48, 48,
        255, 0, 0,
        0, 255, 128,
        0, 56, 28,
        0, 40, 255,
        255, 96, 0,
        255, 0, 200,
        255, 200, 0,
        0, 220, 255,
        64, 50, 0,
        0, 56, 64,
    )
)  # fmt: skip

try:
    ptr8  # type: ignore[has-type,used-before-def]  # noqa: B018  # a viper cast on the board
except NameError:

    def ptr8(buf):  # type: ignore[no-redef]
        """CPython and bytecode: a byte buffer is its own byte view."""
        return buf


_zero = b""  # Renderer's zero bytes, shared

# Team colours: team 0 (South, South+East) yellow, team 1 (North, North+West) cyan.
TEAM_COLOUR = (YELLOW, CYAN)
TEAM_DIM = (DIM_YELLOW, DIM_CYAN)


def pattern_on(pattern, now_ms):
    """Whether a pattern is lit at ``now_ms`` (phases follow the tick counter, so all
    points with the same pattern blink together; a renderer starts the double flash's
    when a suggestion appears)."""
    if pattern == STEADY:
        return True
    if pattern == SLOW:
        return now_ms % 1000 < 500
    if pattern == FAST:
        return now_ms % 250 < 125
    if pattern == DOUBLE:
        t = now_ms % 1200
        return t < 150 or 300 <= t < 450
    if pattern == TRIPLE:
        t = now_ms % 1000
        return t < 500 and t % 200 < 100
    return False


class Renderer:
    """Per-point colour and pattern, and the frame they give at a time.

    ``frame(now)`` returns the same bytearray each time (3 bytes r, g, b per point);
    it allocates nothing."""

    def __init__(self, n):
        self.n = n
        self.colour = bytearray(n)
        self.pattern = bytearray(n)
        self.buf = bytearray(3 * n)
        # Zero bytes: begin() and frame() clear with C-level copies instead of a
        # Python loop over every point (on an RP2040 that loop is milliseconds); one
        # for the app's renderers (the game's and the overlays'), and the app's own use.
        global _zero
        if len(_zero) != n:
            _zero = bytes(n)
        self.zero = _zero
        self.version = 0
        self._uses = 0  # bit per pattern present
        self._drawn_version = -1
        self._drawn_phase = -1
        # A suggestion (the computer's or a remote player's move, a hint) flashes at once
        # when it appears: the double flash's phase starts then, not on the tick
        # counter's next multiple of 1.2 s (up to 0.9 s dark before its first flash).
        self._double_on = False
        self._double_fresh = False
        self._double_at = 0

    def begin(self):
        """Start a new picture: every point off."""
        self.colour[:] = self.zero
        self.pattern[:] = self.zero
        # The patterns marked since (phase() follows the blinking ones); kept by mark(),
        # not by a loop over every point in end(), which is milliseconds on an RP2040.
        # A point marked twice may leave a pattern's bit that no point has any more: a
        # frame drawn again the same, never one missed.
        self._uses = 0

    def mark(self, point, colour, pattern=STEADY):
        if 0 <= point < self.n:
            self.colour[point] = colour
            self.pattern[point] = pattern
            self._uses |= 1 << pattern

    def mark_all(self, points, colour, pattern=STEADY):
        for p in points:
            self.mark(p, colour, pattern)

    def end(self):
        """Finish the picture; the next ``dirty()`` is True if it differs."""
        self.version += 1
        double = (self._uses & (1 << DOUBLE)) != 0
        if double and not self._double_on:
            self._double_fresh = True  # its phase starts at the next phase() (the frame's time)
        self._double_on = double

    def get(self, point):
        """(colour, pattern) of a point: for tests and ``describe``."""
        return self.colour[point], self.pattern[point]

    def phase(self, now_ms):
        """Bits of the blink patterns in use that are lit at ``now_ms``."""
        uses = self._uses
        if self._double_fresh:
            self._double_fresh = False
            self._double_at = now_ms
        bits = 0
        for p in range(SLOW, N_PATTERNS):
            if uses & (1 << p) and pattern_on(p, ticks_diff(now_ms, self._double_at) if p == DOUBLE else now_ms):
                bits |= 1 << p
        return bits

    def invalidate(self):
        """The LEDs showed something else (an overlay): the next ``dirty()`` is True."""
        self._drawn_version = -1

    def dirty(self, now_ms):
        """True when ``frame(now_ms)`` would differ from the last frame drawn."""
        if self.version != self._drawn_version:
            return True
        return self.phase(now_ms) != self._drawn_phase

    def frame(self, now_ms):
        phase = self.phase(now_ms) | (1 << STEADY)
        colour = self.colour
        pattern = self.pattern
        buf = self.buf
        zero = self.zero
        n = self.n
        buf[0:n] = zero  # (explicit bounds: no slice object is allocated)
        buf[n : 2 * n] = zero
        buf[2 * n : 3 * n] = zero
        self._drawn_version = self.version
        self._drawn_phase = phase & ~(1 << STEADY)
        if colour == zero:
            return buf  # nothing lit (a commit's own frame)
        # Then only the lit points: most pictures light a few points of the board.
        _paint(buf, colour, pattern, phase)
        return buf

    def describe(self, names=None):
        """Text of the lit points, e.g. ``"m5:green/steady s3:blue/steady"`` (tests, logs;
        the colour and pattern names live in ``ledtext``, loaded only for this)."""
        from zuni_board import ledtext

        return ledtext.describe(self, names)


@micropython.viper
def _paint(buf, colour, pattern, phase: int):
    """Each point whose colour is set and whose pattern is lit in ``phase`` gets its
    PALETTE colour in ``buf`` (3 bytes a point). Viper code on the board: the loop over
    every point was milliseconds of each frame in bytecode (168 points on an RP2040)."""
    b = ptr8(buf)
    c = ptr8(colour)
    pat = ptr8(pattern)
    pal = ptr8(PALETTE)
    n = int(len(colour))
    i = 0
    while i < n:
        k = int(c[i])
        if k and (phase & (1 << int(pat[i]))):
            k *= 3
            j = 3 * i
            b[j] = pal[k]
            b[j + 1] = pal[k + 1]
            b[j + 2] = pal[k + 2]
        i += 1


# -- the pictures ------------------------------------------------------------


def paint_sync(r, target, stable):
    """Setup, resume, take-back: show where pieces belong until the board matches.

    Covered as it should be: dim white. A piece belongs here but the point is empty:
    white slow blink. Covered but should be empty: red fast blink."""
    r.begin()
    for p in range(r.n):
        want = target[p]
        have = stable[p] if stable is not None else 0
        if want and have:
            r.mark(p, DIM_WHITE, STEADY)
        elif want:
            r.mark(p, WHITE, SLOW)
        elif have:
            r.mark(p, RED, FAST)
    r.end()


def paint_idle(r, position, team, hint=None, host=None, graded=None):
    """The last legal position on the board: whose turn (the pieces that may move, dim
    in the team's colour), priest entry squares (magenta), the last move's grade if the
    host called it a mistake (``graded``: (point, kind)), and a hint or the host's move
    if there is one (painted last: they win on a shared point)."""
    r.begin()
    r.mark_all(position.movable, TEAM_DIM[team], STEADY)
    r.mark_all(position.drops, MAGENTA, STEADY)
    if graded is not None:
        # The mistake's own pattern; orange a mistake (1), red a blunder (2).
        r.mark(graded[0], RED if graded[1] == 2 else ORANGE, TRIPLE)
    if hint is not None:
        paint_suggestion(r, hint, position.occ)
    if host is not None:
        paint_suggestion(r, host, position.occ)
    r.end()


def paint_suggestion(r, foot, occ, stable=None):
    """A move to make (hint or host move), double flash: origin blue, landings green,
    captured pieces orange. With ``stable``, the parts already done are left dark."""
    if foot.origin >= 0 and (stable is None or stable[foot.origin]):
        r.mark(foot.origin, BLUE, DOUBLE)
    for p in foot.landings:
        if stable is None or not stable[p] or p == foot.dest:
            r.mark(p, GREEN, DOUBLE)
    for c in foot.captures:
        if stable is None or stable[c]:
            r.mark(c, ORANGE, FAST if stable is not None else DOUBLE)


def paint_progress(r, position, result, team, host=None):
    """A half-made move (or a finished one waiting to be committed): what it still needs.

    Lifted origin: blue steady. Possible destinations: green steady (intermediate
    landings of chains dim green). Pieces the move captures: orange, steady while the
    mover is in the hand, fast blink once it has landed (take them away). A captured
    piece lifted first: the pieces that can take it blink blue."""
    r.begin()
    gone = result.gone
    added = result.added
    landed = len(added) > 0
    for f in result.candidates:
        if f.origin >= 0:
            if f.origin in gone:
                r.mark(f.origin, BLUE, STEADY)
            else:
                # The mover is still on its point: the player lifted a captured piece.
                r.mark(f.origin, BLUE, SLOW)
        for p in f.landings:
            if p != f.dest and p not in added:
                r.mark(p, DIM_GREEN, STEADY)
    for f in result.candidates:
        if f.dest >= 0 and f.dest not in added:
            r.mark(f.dest, GREEN, STEADY)
    for p in result.remove:
        r.mark(p, ORANGE, FAST if landed else STEADY)
    for p in added:
        r.mark(p, GREEN, STEADY)
    if result.kind == FINISHED:
        best = result.finished[0]
        if best.dest >= 0:
            # A chain stopped early: green slow blink on the mover says "OK to end".
            r.mark(best.dest, GREEN, SLOW if result.extendable else STEADY)
    if host is not None:
        paint_suggestion(r, host, position.occ, _stable_from(position.occ, gone, added))
    r.end()


def _stable_from(occ, gone, added):
    s = bytearray(occ)
    for p in gone:
        s[p] = 0
    for p in added:
        s[p] = 1
    return s


def paint_error(r, position, result, host=None):
    """A position no legal move explains: red triple flash, the mistake's own pattern
    (so that it never reads as a capture's fast blink): where a piece is missing (put it
    back, the point is empty) and where a piece should not be (take it away). When
    every legal move captures (a capture is compulsory), the pieces that must capture
    blink blue: the rule that refused the move, shown where it applies."""
    r.begin()
    if host is not None:
        paint_suggestion(r, host, position.occ)
    else:
        moves = position.moves
        forced = len(moves) > 0
        for m in moves:
            if not m.captures:
                forced = False
                break
        if forced:
            r.mark_all(position.movable, BLUE, SLOW)
    r.mark_all(result.gone, RED, TRIPLE)
    r.mark_all(result.added, RED, TRIPLE)
    r.end()


def paint_stuck(r, position, point):
    """A lifted piece that may not move: its point flashes red three times (a mistake);
    the pieces that may move (and the priest entry squares) blink blue."""
    r.begin()
    r.mark_all(position.movable, BLUE, SLOW)
    r.mark_all(position.drops, MAGENTA, SLOW)
    r.mark(point, RED, TRIPLE)
    r.end()


def paint_over(r, board, team_of, winner):
    """Game over: the winning team's pieces blink slowly in its colour; a draw: every
    piece blinks slowly white. ``board``: piece codes; ``team_of(code)`` -> 0 or 1."""
    r.begin()
    for p in range(r.n):
        code = board[p]
        if not code:
            continue
        if winner is None:
            r.mark(p, WHITE, SLOW)
        elif team_of(code) == winner:
            r.mark(p, TEAM_COLOUR[winner], SLOW)
    r.end()


def paint_pass(r, board, team_of, team):
    """A forced pass: the passing team's pieces flash twice."""
    r.begin()
    for p in range(r.n):
        code = board[p]
        if code and team_of(code) == team:
            r.mark(p, TEAM_COLOUR[team], DOUBLE)
    r.end()


LEDTEST_COLOURS = (RED, GREEN, BLUE, WHITE)
LEDTEST_STEP_MS = const(500)


def paint_ledtest(r, step):
    """LED test, step 0..3: every point red, green, blue, white."""
    r.begin()
    colour = LEDTEST_COLOURS[step % len(LEDTEST_COLOURS)]
    for p in range(r.n):
        r.mark(p, colour, STEADY)
    r.end()


def paint_journal_failing(r):
    """The journal cannot write (flash full or failing): every point flashes red."""
    r.begin()
    for p in range(r.n):
        r.mark(p, RED, FAST)
    r.end()


def __getattr__(name):
    """``COLOUR_NAMES`` and ``PATTERN_NAMES`` for host tools (the web page's palette):
    they live in ``ledtext``, which the board loads only to describe a picture."""
    if name in ("COLOUR_NAMES", "PATTERN_NAMES"):
        from zuni_board import ledtext

        return getattr(ledtext, name)
    raise AttributeError(name)
