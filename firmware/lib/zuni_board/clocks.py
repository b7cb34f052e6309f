"""The board's game clocks (docs/clocks.md): ``zuni.clock.GameClock`` plus what the board
does with it: start with play, switch at the commit, flag fall, low time on the home
row, the journal's saves, the computer's move switched early, the state's report.

Loaded only for a game on a clock (``new clock=5+3 mosona``): the app (``BoardApp``)
holds a ``BoardClock`` or None and calls its hooks with what they need (the game, the
outbox, the time; ``tick`` returns True when a flag fell and the app ends the game), so
a game without a clock pays no heap for any of this. Pure, as the app: times are
arguments.

- **Low time**: a side with at most ``low_ms`` left (10 s, or a fifth of its base time if
  that is less: a 30 s game turns low at 6 s) has its home row tick in its colour where
  the picture leaves it dark (docs/leds.md).
- **Saves**: the running side's time is journaled (``K`` record) every ``SAVE_MS`` and
  when its clock stops, so a power cut costs the board at most that: after a reset the
  side to move goes on from its last saved time (it gets back at most ``SAVE_MS`` of
  thinking; docs/clocks.md).
- **The computer's move** (``hostmove``) ends the computer's turn on the clock at once:
  its thinking time is what it used; the time the player takes to carry the move out on
  the board is the player's.
"""

from micropython import const
from zuni.clock import GameClock, parse_clock_spec
from zuni.core import SIDE_NAMES
from zuni_board.leds import PALETTE, TEAM_COLOUR

try:
    from time import ticks_add, ticks_diff
except ImportError:  # CPython: the one fallback
    from zuni_board.ticks import ticks_add, ticks_diff

# The running side's time is journaled this often (a power cut costs at most this).
SAVE_MS = const(10000)
# Low time: at most this left (or a fifth of the side's base time, if that is less).
LOW_MS = const(10000)


def split(text):
    """``clock=5+3 mosona`` -> ("5+3", "mosona"): the time control a ``new`` or ``setup``
    starts with (its value escaped as in key=value tokens), and the rest."""
    parts = text.split(" ", 1)
    word = parts[0][6:]
    if "%" in word:
        from zuni_link.codec import unesc

        word = unesc(word)
    return word, parts[1] if len(parts) > 1 else ""


def for_game(spec, game):
    """The clocks of ``spec`` for ``game``'s sides; ClockError (a ValueError) if bad."""
    return BoardClock(spec, game.sides if hasattr(game, "sides") else (0, 2))


def resume(spec, game, journal):
    """The clocks of the game ``journal`` resumed, stopped until play goes on: each
    side's time as its last record says (a move's ``M i text ms left side``, or ``K side
    left``; none: its base time)."""
    from zuni_board.journal import unseal

    clock = for_game(spec, game)
    f = open(journal.path, "r")
    try:
        while True:
            line = f.readline()
            body = unseal(line) if line else None
            if body is None:
                break  # the end, or a torn record (resume dropped it and what follows)
            parts = body.split(" ")
            if len(parts) == 6 and parts[0] == "M":
                side, left = parts[5], parts[4]
            elif len(parts) == 3 and parts[0] == "K":
                side, left = parts[1], parts[2]
            else:
                continue
            s = int(side)
            if s in clock.sides:
                clock.left[s] = int(left)
    finally:
        f.close()
    return clock


class BoardClock(GameClock):
    def __init__(self, spec, sides):
        GameClock.__init__(self, parse_clock_spec(spec, sides))
        self.spec = spec
        self.sides = sides
        low = [0, 0, 0, 0]
        for s in sides:
            base = self.controls[s].base_ms
            low[s] = LOW_MS if base // 5 > LOW_MS else base // 5
        self.low_ms = low
        self.low = 0  # sides shown with low time, a bit each
        # Their home rows: per point the colour that ticks where the picture leaves the
        # point dark (0: none), or None; and whether the tick was lit in the last frame
        # (-1: draw again).
        self.mask = None  # type: bytearray | None
        self.shown = -1
        self.save_due = 0
        # The computer's move switched the clock early (``hostmove``): its time used,
        # and the side that moved; -1: not switched.
        self.early_ms = -1
        self.early_side = -1

    def again(self):
        """New clocks of the same time control (a new game after the end)."""
        return BoardClock(self.spec, self.sides)

    # -- the app's hooks ----------------------------------------------------------
    def begin(self, game, now):
        """Play starts (or goes on after a setup): the side to move's clock runs."""
        if self.running < 0:
            self.start(now, game.turn)
            self.save_due = ticks_add(now, SAVE_MS)
        self.show_low(game, now)

    def pause(self, outbox, now):
        """Setup (a take-back, a resume) or game over: no clock runs; the running side's
        time is journaled."""
        side = self.running
        self.early_ms = -1
        if side >= 0:
            self.stop(now)
            outbox.clock_left(side, self.left[side])

    def tick(self, game, outbox, now):
        """Each scan in play: flag fall, low time, the periodic save. True if the flag
        fell: the side's team has lost on time (journaled), the app ends the game."""
        side = self.running
        if side < 0:
            return False
        left = self.remaining_ms(now, side)
        if left <= 0:
            self.pause(outbox, now)
            game.lose_on_time(side)
            outbox.end("time", SIDE_NAMES[side])
            return True
        if (left <= self.low_ms[side]) != ((self.low >> side) & 1 == 1):
            self.show_low(game, now)
        if ticks_diff(now, self.save_due) >= 0:
            self.save_due = ticks_add(now, SAVE_MS)
            outbox.clock_left(side, left)
        return False

    def committed(self, game, outbox, now, mover, index, text):
        """Move ``index`` (``text``) made by ``mover``: the clock switches to the side now
        to move; the journal and the host get the move's time and the mover's clock."""
        if self.early_ms >= 0 and self.early_side == mover:
            used = self.early_ms  # the computer's move: switched when it was shown
            self.early_ms = -1
        elif self.running == mover:
            used = self.switch(now, game.turn)
        else:
            used = 0  # no clock ran for the mover (a pass right after a resume)
            self.start(now, game.turn)
        self.save_due = ticks_add(now, SAVE_MS)
        outbox.move(index, text, (used, self.left[mover], mover))
        self.show_low(game, now)

    def hostmove(self, game, move, now):
        """The computer announced its ``move``: its clock stops now."""
        mover = game.turn
        if self.running != mover or self.early_ms >= 0:
            return  # a resend of the same move: switched already
        game.push(move)
        after = game.turn
        game.pop()
        self.early_ms = self.switch(now, after)
        self.early_side = mover
        self.save_due = ticks_add(now, SAVE_MS)

    def report(self, info, now):
        """The state's clock keys: the time control, every side's ms left ``now`` ("-": a
        side without a clock) and the side whose clock runs ("" for none)."""
        info["tc"] = self.spec
        info["clock"] = ",".join([str(self.remaining_ms(now, s)) if s in self.sides else "-" for s in range(4)])
        info["running"] = SIDE_NAMES[self.running] if self.running >= 0 else ""

    def times_left(self):
        """ms left per side (-1 for a side without a clock) as of the last charge."""
        return [self.left[s] if s in self.sides else -1 for s in range(4)]

    def show_low(self, game, now, over=False):
        """The home rows of the sides whose time is low tick (docs/leds.md); ``over``
        (the game is): none."""
        bits = 0
        if not over:
            for s in self.sides:
                if self.remaining_ms(now, s) <= self.low_ms[s]:
                    bits |= 1 << s
        if bits == self.low:
            return
        self.low = bits
        self.shown = -1
        if not bits:
            self.mask = None
            return
        homes = game.geometry.homes
        mask = bytearray(len(game.board))
        for s in self.sides:
            if bits & (1 << s) and s in homes:
                colour = TEAM_COLOUR[game.team_of(s)]
                for p in homes[s]:
                    mask[p] = colour
        self.mask = mask

    # -- the low time's tick on the LEDs (docs/leds.md) --------------------------
    # One 120 ms flash a second, in phase with the tick counter, on the points of the
    # low sides' home rows that the game's picture leaves dark.
    def _lit(self, now):
        return 1 if self.mask is not None and now % 1000 < 120 else 0

    def dirty(self, now):
        """True when the tick's next frame differs from the last one drawn."""
        return self._lit(now) != self.shown

    def paint(self, renderer, buf, now):
        """Add the tick to ``buf``, the frame of ``renderer``'s picture at ``now``."""
        lit = self._lit(now)
        self.shown = lit
        mask = self.mask
        if not lit or mask is None:
            return
        colour = renderer.colour
        palette = PALETTE
        for i in range(len(mask)):
            c = mask[i]
            if c and not colour[i]:
                k = 3 * c
                buf[3 * i] = palette[k]
                buf[3 * i + 1] = palette[k + 1]
                buf[3 * i + 2] = palette[k + 2]

    def describe(self, names, renderer):
        """The ticking points as text (``s1:yellow/tick s2:yellow/tick``), for tests:
        ``names`` of the points, ``renderer`` the game's picture."""
        mask = self.mask
        if mask is None:
            return ""
        from zuni_board.ledtext import COLOUR_NAMES

        colour = renderer.colour
        return " ".join(
            [names[i] + ":" + COLOUR_NAMES[mask[i]] + "/tick" for i in range(len(mask)) if mask[i] and not colour[i]]
        )
