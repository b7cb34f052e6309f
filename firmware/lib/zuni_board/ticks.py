"""Tick arithmetic for the board's pure logic: ``ticks_diff``, ``ticks_add`` and ``Deadline``.

MicroPython's own functions where they exist (the Pico's millisecond ticks wrap); on
CPython the same arithmetic on a 30-bit period, so tests see the wrap too. It is the one
copy of the fallback, and of the deadline every timer of the board is made of.
"""

try:
    from time import ticks_add, ticks_diff
except ImportError:  # CPython: the Pico's tick arithmetic (30-bit wrap)
    _PERIOD = 1 << 30

    def ticks_diff(a, b):  # type: ignore
        d = (a - b) & (_PERIOD - 1)
        return d - _PERIOD if d >= _PERIOD // 2 else d

    def ticks_add(a, b):  # type: ignore
        return (a + b) & (_PERIOD - 1)


class Deadline:
    """A retriggerable deadline, as Peter Hinch's ``Delay_ms`` but pure: the caller gives
    the time. ``set(now, ms)`` arms it (again: the later time wins), ``due(now)`` is True
    from then on until ``cancel()``; a deadline never set is never due. Neither allocates,
    so a scan may check any number of them."""

    def __init__(self):
        self.at = 0
        self.armed = False

    def set(self, now, ms):
        self.at = ticks_add(now, ms)
        self.armed = True

    def cancel(self):
        self.armed = False

    def due(self, now):
        return self.armed and ticks_diff(now, self.at) >= 0
