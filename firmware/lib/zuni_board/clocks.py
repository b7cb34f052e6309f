"""The board's game clocks (docs/clocks.md): ``zuni.clock.GameClock`` plus what the board
does with it: low time, the journal's saves, and the computer's move switched early.

Loaded only for a game on a clock (``BoardApp``: ``new clock=5+3 mosona``), so a game
without one pays no heap for it. Pure, as the app: times are arguments.

- **Low time**: a side with at most ``low_ms`` left (10 s, or a fifth of its base time if
  that is less: a 30 s game turns low at 6 s) has its home row tick red (docs/leds.md);
  ``low_bits(now)`` says which sides are low, one bit per side.
- **Saves**: the running side's time is journaled (``K`` record) every ``SAVE_MS`` and
  when its clock stops, so a power cut costs the board at most that: after a reset the
  side to move goes on from its last saved time (it gets back at most ``SAVE_MS`` of
  thinking; docs/clocks.md).
- **The computer's move** (``hostmove``) ends the computer's turn on the clock at once
  (``switch_early``): its thinking time is what it used; the time the player takes to
  carry the move out on the board is the player's.
"""

from micropython import const
from zuni.clock import GameClock, parse_clock_spec

try:
    from time import ticks_add, ticks_diff
except ImportError:  # CPython: the one fallback
    from zuni_board.ticks import ticks_add, ticks_diff

# The running side's time is journaled this often (a power cut costs at most this).
SAVE_MS = const(10000)
# Low time: at most this left (or a fifth of the side's base time, if that is less).
LOW_MS = const(10000)


class BoardClock:
    def __init__(self, spec, sides):
        """``spec``: a time control's text (``zuni.clock.parse_clock_spec``, e.g. ``5+3``,
        ``south=5+3 north=10``) for the sides in play; ClockError if it cannot be read."""
        controls = parse_clock_spec(spec, sides)
        self.spec = spec
        self.clock = GameClock(controls)
        self.low_ms = [0, 0, 0, 0]
        for s in range(4):
            c = controls[s]
            if c is not None:
                self.low_ms[s] = LOW_MS if c.base_ms // 5 > LOW_MS else c.base_ms // 5
        self.sides = sides
        self.save_due = 0
        # The computer's move switched the clock early (``switch_early``): its time used,
        # and the side that moved; -1: not switched.
        self.early_ms = -1
        self.early_side = -1

    @property
    def running(self):
        return self.clock.running

    def start(self, now, side):
        """The side to move's clock runs (play starts, or goes on after a setup)."""
        self.clock.start(now, side)
        self.save_due = ticks_add(now, SAVE_MS)

    def stop(self, now):
        """Pause (setup, take-back, game over); the running side if one ran, else -1."""
        side = self.clock.running
        self.clock.stop(now)
        self.early_ms = -1
        return side

    def commit(self, now, mover, next_side):
        """Move made by ``mover`` at ``now``: (ms it took, ms the mover has left); the next
        side's clock runs (it already does if the computer's move switched it)."""
        clock = self.clock
        if self.early_ms >= 0 and self.early_side == mover:
            used = self.early_ms
            self.early_ms = -1
        elif clock.running == mover:
            used = clock.switch(now, next_side)
        else:
            # The clock was not running for the mover (a pass right after a resume):
            # nothing was charged.
            used = 0
            clock.start(now, next_side)
        self.save_due = ticks_add(now, SAVE_MS)
        return used, clock.left[mover]

    def switch_early(self, now, mover, next_side):
        """The computer (``mover``) announced its move: its clock stops now."""
        clock = self.clock
        if clock.running != mover or self.early_ms >= 0:
            return
        self.early_ms = clock.switch(now, next_side)
        self.early_side = mover
        self.save_due = ticks_add(now, SAVE_MS)

    def flagged(self, now):
        return self.clock.flagged(now)

    def save_due_now(self, now):
        return self.clock.running >= 0 and ticks_diff(now, self.save_due) >= 0

    def saved(self, now):
        self.save_due = ticks_add(now, SAVE_MS)

    def remaining(self, now, side):
        return self.clock.remaining_ms(now, side)

    def low_bits(self, now):
        """One bit per side whose time is low (see the module doc)."""
        bits = 0
        clock = self.clock
        for s in self.sides:
            if clock.remaining_ms(now, s) <= self.low_ms[s]:
                bits |= 1 << s
        return bits

    def left_now(self, now=None):
        """ms left per side (-1 for a side without a clock), the running side's as of
        its last charge (or ``now``)."""
        clock = self.clock
        out = [-1, -1, -1, -1]
        for s in self.sides:
            out[s] = clock.remaining_ms(now, s) if now is not None else clock.left[s]
        return out

    def restore(self, left):
        """The times read back from the journal (-1: the side's base time); stopped."""
        clock = self.clock
        for s in self.sides:
            if left[s] >= 0:
                clock.left[s] = left[s]
        clock.running = -1
