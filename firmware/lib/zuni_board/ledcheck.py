"""Bring-up pictures, loaded only while one runs (``Overlays`` imports this module for
the host's ``ledtest`` and drops it again): the LED test (every point red, green, blue,
white) and the LED walk (one LED at a time in chain order). Pure: times are arguments.

Each is an object with ``start(renderer)`` and ``next(renderer)``, both returning the
time the step lasts in ms, or -1 when the sequence is over.
"""

from zuni_board import leds as L


class LedTest:
    def __init__(self):
        self.step = 0

    def start(self, r):
        L.paint_ledtest(r, 0)
        return L.LEDTEST_STEP_MS

    def next(self, r):
        if self.step >= len(L.LEDTEST_COLOURS) - 1:
            return -1
        self.step += 1
        L.paint_ledtest(r, self.step)
        return L.LEDTEST_STEP_MS


class LedWalk:
    """``ledtest walk [MS]``: light the LEDs one at a time in CHAIN order (LED index, not
    point order), MS each (default LEDWALK_STEP_MS), telling the host each step (event
    ``ledwalk <LED index> <point>``) so a maker sees where the chain breaks: ``ledwalk
    start <count> <ms>``, ``ledwalk 0 s1``, ..., ``ledwalk end <count>``. ``ms`` was
    checked by the command table (zuni_link.commands)."""

    def __init__(self, ms, names, led_of, emit):
        self.ms = ms
        self.names = names
        self.led_of = led_of
        self.emit = emit
        order = list(range(len(names)))
        order.sort(key=lambda p: led_of[p])
        self.order = order
        self.step = 0

    def start(self, r):
        self.emit("ledwalk", "start %d %d" % (len(self.order), self.ms))
        return self._show(r)

    def next(self, r):
        if self.step >= len(self.order) - 1:
            self.emit("ledwalk", "end %d" % len(self.order))
            return -1
        self.step += 1
        return self._show(r)

    def _show(self, r):
        p = self.order[self.step]
        r.begin()
        r.mark(p, L.WHITE, L.STEADY)
        r.end()
        self.emit("ledwalk", "%d %s" % (self.led_of[p], self.names[p]))
        return self.ms
