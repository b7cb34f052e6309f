"""Pictures shown for a while on top of the game's: the LED test, the LED walk, notices.

``Overlays(n, names, led_of, emit)``: ``n`` points, their names, the LED index of each
point (the layout's), and ``emit(kind, text)`` to tell the host (the app's best-effort
event). While ``active()``, the LEDs show ``renderer`` instead of the game picture; the
app calls ``step(now)`` every scan and it returns True on the scan an overlay ends, so
the game picture is drawn again. Pure: times are arguments.
"""

from micropython import const
from zuni_board import leds as L
from zuni_board.ticks import ticks_add, ticks_diff

NONE = const(0)
LEDTEST = const(1)
NOTICE = const(2)
LEDWALK = const(3)

NOTICE_MS = const(1500)
# LED walk: one LED at a time in chain order; the host may ask for another pace.
LEDWALK_STEP_MS = const(250)
LEDWALK_MIN_MS = const(20)
LEDWALK_MAX_MS = const(5000)


class Overlays:
    def __init__(self, n, names, led_of, emit):
        self.n = n
        self.names = names
        self.led_of = led_of
        self.emit = emit
        self.renderer = L.Renderer(n)
        self.kind = NONE
        self._until = 0
        self._step = 0
        self._walk = None  # type: list | None  # points in LED (chain) order during a walk
        self._walk_ms = LEDWALK_STEP_MS

    def active(self):
        return self.kind != NONE

    def step(self, now):
        """Advance the overlay if its time is up; True when it has just ended."""
        if self.kind == NONE or ticks_diff(now, self._until) < 0:
            return False
        return self._next(now)

    def player_acted(self, now):
        """A sensor change: a notice gives way at once (the player is playing); True if
        an overlay ended."""
        if self.kind == NOTICE:
            return self._next(now)
        return False

    # -- what can be shown ------------------------------------------------------------
    def notice(self, now, paint, *args):
        """Show ``paint(renderer, *args)`` for NOTICE_MS (a forced pass, the journal failing)."""
        paint(self.renderer, *args)
        self.kind = NOTICE
        self._until = ticks_add(now, NOTICE_MS)

    def ledtest(self, now):
        """Every point red, green, blue, white in turn (LEDTEST_STEP_MS each)."""
        self.kind = LEDTEST
        self._step = 0
        L.paint_ledtest(self.renderer, 0)
        self._until = ticks_add(now, L.LEDTEST_STEP_MS)

    def walk(self, now, arg):
        """``ledtest walk [MS]``: light the LEDs one at a time in CHAIN order (LED index,
        not point order), MS each (default LEDWALK_STEP_MS), telling the host each step
        (event ``ledwalk <LED index> <point>``) so a maker sees where the chain breaks:
        ``ledwalk start <count> <ms>``, ``ledwalk 0 s1``, ..., ``ledwalk end <count>``.
        ValueError names a bad argument."""
        words = arg.split()
        ms = LEDWALK_STEP_MS
        if not words or words[0] != "walk" or len(words) > 2:
            raise ValueError("ledtest takes nothing (colours) or walk [MS] (one LED at a time), not %r" % (arg,))
        if len(words) == 2:
            w = words[1]
            if not w.isdigit() or not LEDWALK_MIN_MS <= int(w) <= LEDWALK_MAX_MS:
                raise ValueError(
                    "ledtest walk: step %r is not a number of ms %d..%d" % (w, LEDWALK_MIN_MS, LEDWALK_MAX_MS)
                )
            ms = int(w)
        led_of = self.led_of
        order = list(range(self.n))
        order.sort(key=lambda p: led_of[p])
        self._walk = order
        self._walk_ms = ms
        self.kind = LEDWALK
        self._step = 0
        self.emit("ledwalk", "start %d %d" % (len(order), ms))
        self._walk_step(now)

    # -- inside -----------------------------------------------------------------------
    def _walk_step(self, now):
        walk = self._walk
        if walk is None:
            return
        p = walk[self._step]
        r = self.renderer
        r.begin()
        r.mark(p, L.WHITE, L.STEADY)
        r.end()
        self._until = ticks_add(now, self._walk_ms)
        self.emit("ledwalk", "%d %s" % (self.led_of[p], self.names[p]))

    def _next(self, now):
        kind = self.kind
        if kind == LEDWALK:
            walk = self._walk
            if walk is not None and self._step < len(walk) - 1:
                self._step += 1
                self._walk_step(now)
                return False
            self._walk = None
            self.emit("ledwalk", "end %d" % self.n)
        elif kind == LEDTEST and self._step < len(L.LEDTEST_COLOURS) - 1:
            self._step += 1
            L.paint_ledtest(self.renderer, self._step)
            self._until = ticks_add(now, L.LEDTEST_STEP_MS)
            return False
        self.kind = NONE
        return True
