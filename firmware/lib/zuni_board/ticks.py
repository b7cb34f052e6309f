"""Tick arithmetic for the board's pure logic: ``ticks_diff`` and ``ticks_add``.

MicroPython's own functions where they exist (the Pico's millisecond ticks wrap); on
CPython the same arithmetic on a 30-bit period, so tests see the wrap too. The board's
modules take ``time``'s own and import this module only where ``time`` lacks them
(CPython), so on the board it costs no heap; it is the one copy of the fallback.
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
