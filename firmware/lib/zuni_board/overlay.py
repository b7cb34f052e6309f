"""Pictures shown for a while on top of the game's: notices, the LED test, the LED walk.

``Overlays(n, names, led_of, emit)``: ``n`` points, their names, the LED index of each
point (the layout's), and ``emit(kind, text)`` to tell the host (the app's best-effort
event). While ``active()``, the LEDs show ``renderer`` instead of the game picture; the
app calls ``step(now)`` every scan and it returns True on the scan an overlay ends, so
the game picture is drawn again. The bring-up sequences live in ``ledcheck``, imported
only while one runs (a maker's tool should not cost every game its heap). Pure: times
are arguments.
"""

from micropython import const
from zuni_board import leds as L

try:
    from time import ticks_add, ticks_diff
except ImportError:  # CPython: the one fallback (the Pico's 30-bit tick arithmetic)
    from zuni_board.ticks import ticks_add, ticks_diff

NOTICE_MS = const(1500)


class Overlays:
    def __init__(self, n, names, led_of, emit):
        self.names = names
        self.led_of = led_of
        self.emit = emit
        self.renderer = L.Renderer(n)
        self.on = False
        self._until = 0
        self._seq = None  # type: ignore  # a ledcheck sequence, or None for a notice

    def active(self):
        return self.on  # (also a plain attribute, ``on``, for the scan's hot path)

    def step(self, now):
        """Advance the overlay if its time is up; True when it has just ended."""
        if not self.on or ticks_diff(now, self._until) < 0:
            return False
        seq = self._seq
        if seq is not None:
            ms = seq.next(self.renderer)
            if ms >= 0:
                self._until = ticks_add(now, ms)
                return False
        self._end()
        return True

    def player_acted(self, now):
        """A sensor change: a notice gives way at once (the player is playing); True if
        an overlay ended."""
        if self.on and self._seq is None:
            self._end()
            return True
        return False

    def notice(self, now, paint, *args):
        """Show ``paint(renderer, *args)`` for NOTICE_MS (a forced pass, the journal failing)."""
        if self._seq is not None:
            return  # a maker's LED test runs: it is not interrupted
        paint(self.renderer, *args)
        self.on = True
        self._until = ticks_add(now, NOTICE_MS)

    def ledtest(self, now, walk_ms=0):
        """The host's ``ledtest`` (``walk_ms`` 0: the colours) or ``ledtest walk [MS]`` (the
        pace, checked by the command table zuni_link.commands); see ``ledcheck``."""
        from zuni_board import ledcheck

        seq = ledcheck.LedWalk(walk_ms, self.names, self.led_of, self.emit) if walk_ms else ledcheck.LedTest()  # type: ignore
        self._seq = seq
        self.on = True
        self._until = ticks_add(now, seq.start(self.renderer))

    def _end(self):
        self.on = False
        if self._seq is not None:
            self._seq = None
            # Unloaded again, as the layout loader is (zuni_board.load_board).
            from zuni_board import unload

            unload(("zuni_board.ledcheck",), True)
