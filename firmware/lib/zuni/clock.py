"""Game clocks: sudden death, increment (Fischer) and delay (Bronstein), side by side.

Pure logic shared by the board and the host: every call takes the time as an argument
(``now_ms`` from ``time.ticks_ms()`` on the board, any millisecond counter on the host)
and differences go through ``ticks_diff``, so a wrapping tick counter is fine.

A time control is written as text (``TimeControl.parse``):

- ``"10"``: 10 minutes, sudden death; ``"90s"``: 90 seconds.
- ``"5+3"``: 5 minutes, 3 s added after each of the side's moves (Fischer).
- ``"5d2"``: 5 minutes, Bronstein delay of 2 s: after a move the side gets back the time
  it used, at most 2 s (its clock never gains).
- Different times per side: ``"south=5+3 north=10"`` (``parse_clock_spec``).

>>> clock = GameClock(parse_clock_spec("5+3", (SOUTH, NORTH)))
>>> clock.start(0, SOUTH)
>>> clock.switch(4000, NORTH)     # South's move took 4 s: 300 - 4 + 3 = 299 s left
4000
>>> clock.remaining_ms(4000, SOUTH)
299000
"""

from micropython import const
from zuni.core import SIDE_NAMES
from zuni.errors import ZuniError

try:
    from time import ticks_diff  # type: ignore[attr-defined]
except ImportError:  # CPython: plain integers, no wrap

    def ticks_diff(a, b):  # type: ignore
        return a - b


SUDDEN = const(0)
FISCHER = const(1)
BRONSTEIN = const(2)
MODE_NAMES = ("sudden death", "increment", "delay")
# Longest base time accepted: 10 hours keeps every figure below 2**30 ms... and sane.
_MAX_MS = const(36000000)
_MAX_EXTRA_MS = const(3600000)


class ClockError(ZuniError):
    """A time control text that cannot be read, or a clock used out of order."""


def _ms(text, what, unit, limit_ms):
    """Milliseconds in ``text``, a number of ``unit`` ("minutes" or "seconds"; may have a
    decimal point), at most ``limit_ms``; ``what`` names it in messages."""
    try:
        value = float(text)
    except ValueError:
        raise ClockError("bad %s %r in a time control (a number of %s)" % (what, text, unit))
    if value != value or value < 0:  # NaN is not equal to itself
        raise ClockError("bad %s %r in a time control (a number of %s, not negative)" % (what, text, unit))
    ms = value * (60000 if unit == "minutes" else 1000)
    if ms > limit_ms:  # inf included
        raise ClockError(
            "bad %s %r in a time control (at most %d %s: %d hour%s)"
            % (
                what,
                text,
                limit_ms // (60000 if unit == "minutes" else 1000),
                unit,
                limit_ms // 3600000,
                "" if limit_ms == 3600000 else "s",
            )
        )
    return int(ms + 0.5)


class TimeControl:
    """One side's time control: base time, mode, increment or delay (all in ms)."""

    def __init__(self, base_ms, mode=SUDDEN, extra_ms=0):
        if base_ms <= 0 or base_ms > _MAX_MS:
            raise ClockError("bad base time %d ms (more than 0, at most 10 hours)" % base_ms)
        if extra_ms < 0 or extra_ms > _MAX_EXTRA_MS or (mode == SUDDEN and extra_ms):
            raise ClockError("bad increment or delay %d ms" % extra_ms)
        self.base_ms = base_ms
        self.mode = mode
        self.extra_ms = extra_ms

    @classmethod
    def parse(cls, text):
        """``"10"``, ``"90s"``, ``"5+3"``, ``"5d2"`` (minutes, then seconds); see the module doc."""
        t = text.strip()
        mode = SUDDEN
        extra = "0"
        for sep, m in (("+", FISCHER), ("d", BRONSTEIN)):
            if sep in t:
                t, extra = t.split(sep, 1)
                mode = m
                break
        if not t:
            raise ClockError("bad time control %r (examples: 10, 90s, 5+3, 5d2)" % (text,))
        if t.endswith("s"):
            base = _ms(t[:-1], "base time", "seconds", _MAX_MS)
        else:
            base = _ms(t, "base time", "minutes", _MAX_MS)
        extra_ms = _ms(extra, "increment" if mode == FISCHER else "delay", "seconds", _MAX_EXTRA_MS)
        return cls(base, mode, extra_ms)

    def text(self):
        """The text form ``parse`` reads back: ``"5+3"``, ``"90s"``."""
        base = self.base_ms
        if base % 60000 == 0:
            t = "%d" % (base // 60000)
        else:
            t = _num(base) + "s"
        if self.mode == FISCHER:
            t += "+" + _num(self.extra_ms)
        elif self.mode == BRONSTEIN:
            t += "d" + _num(self.extra_ms)
        return t

    def __eq__(self, other):
        return (
            isinstance(other, TimeControl)
            and self.base_ms == other.base_ms
            and self.mode == other.mode
            and self.extra_ms == other.extra_ms
        )

    def __repr__(self):
        return "TimeControl(%r)" % (self.text(),)


def _num(ms):
    """Seconds of ``ms`` as short text: 3000 -> "3", 1500 -> "1.5"."""
    if ms % 1000 == 0:
        return "%d" % (ms // 1000)
    text = "%d.%03d" % (ms // 1000, ms % 1000)
    while text.endswith("0"):
        text = text[:-1]
    return text


def parse_clock_spec(text, sides):
    """Per-side controls, a list indexed by side (None for sides not in ``sides``).

    ``"5+3"`` gives every side of ``sides`` the same control; ``"south=5+3 north=10"``
    names each (every side in play must be named once)."""
    controls = [None, None, None, None]
    words = text.split()
    if not words:
        raise ClockError("empty time control (examples: 10, 5+3, south=5+3 north=10)")
    if len(words) == 1 and "=" not in words[0]:
        control = TimeControl.parse(words[0])
        for s in sides:
            controls[s] = control
        return controls
    for word in words:
        if "=" not in word:
            raise ClockError("time control %r: name each side, as south=5+3 north=10" % (text,))
        name, value = word.split("=", 1)
        side = -1
        for s in sides:
            if SIDE_NAMES[s] == name:
                side = s
        if side < 0:
            raise ClockError(
                "time control %r: bad side %r (allowed: %s)" % (text, name, ", ".join(SIDE_NAMES[s] for s in sides))
            )
        if controls[side] is not None:
            raise ClockError("time control %r: %s is named twice" % (text, name))
        controls[side] = TimeControl.parse(value)
    for s in sides:
        if controls[s] is None:
            raise ClockError("time control %r: no time for %s" % (text, SIDE_NAMES[s]))
    return controls


def clock_spec_text(controls):
    """The text of per-side controls: one control if all agree, else ``side=control`` words."""
    used = [s for s in range(4) if controls[s] is not None]
    first = controls[used[0]]
    if all(controls[s] == first for s in used):
        return first.text()
    return " ".join("%s=%s" % (SIDE_NAMES[s], controls[s].text()) for s in used)


class GameClock:
    """The clocks of the sides in play; at most one runs.

    ``start(now, side)`` runs a side's clock, ``switch(now, next_side)`` ends the running
    side's move (increment or delay applied) and starts the next, ``stop(now)`` pauses
    (game over, power off: the journal keeps ``state()``), ``flagged(now)`` names a side
    whose time is out."""

    def __init__(self, controls):
        self.controls = controls
        # Milliseconds left per side, as of ``since`` for the running side.
        self.left = [c.base_ms if c is not None else 0 for c in controls]
        self.running = -1
        self.since = 0
        self.moves = [0, 0, 0, 0]

    def start(self, now_ms, side):
        if self.controls[side] is None:
            raise ClockError("%s has no clock in this game" % SIDE_NAMES[side])
        if self.running >= 0:
            self._charge(now_ms)
        self.running = side
        self.since = now_ms

    def _charge(self, now_ms):
        """Take the time since ``since`` off the running side; the time used."""
        used = ticks_diff(now_ms, self.since)
        if used < 0:
            raise ClockError("the clock went back %d ms" % (-used))
        s = self.running
        self.left[s] -= used
        self.since = now_ms
        return used

    def remaining_ms(self, now_ms, side):
        """Time left for ``side`` at ``now_ms`` (negative once its flag has fallen)."""
        if side == self.running:
            return self.left[side] - ticks_diff(now_ms, self.since)
        return self.left[side]

    def flagged(self, now_ms):
        """The side whose time has run out (only the running one can), or -1."""
        s = self.running
        if s >= 0 and self.remaining_ms(now_ms, s) <= 0:
            return s
        return -1

    def switch(self, now_ms, next_side):
        """The running side's move is made at ``now_ms``: its time used (ms); run ``next_side``.

        Fischer adds the increment after the move; Bronstein gives back the time used, at
        most the delay. A side whose flag fell keeps its negative time (the caller ends
        the game on ``flagged`` before this)."""
        s = self.running
        if s < 0:
            raise ClockError("no clock is running")
        used = self._charge(now_ms)
        control = self.controls[s]
        if self.left[s] > 0:
            if control.mode == FISCHER:
                self.left[s] += control.extra_ms
            elif control.mode == BRONSTEIN:
                self.left[s] += used if used < control.extra_ms else control.extra_ms
        self.moves[s] += 1
        self.running = next_side
        return used

    def stop(self, now_ms):
        """Pause: the running side is charged up to ``now_ms`` and no clock runs."""
        if self.running >= 0:
            self._charge(now_ms)
        self.running = -1

    def state(self):
        """What the journal keeps: ``(left per side, running side)``, clocks as if stopped."""
        return (list(self.left), self.running)

    def restore(self, left, running, now_ms):
        """Back to a journaled ``state()``: the time while the board was off is not charged."""
        if len(left) != 4:
            raise ClockError("bad clock state %r (4 times)" % (left,))
        self.left = list(left)
        self.running = -1
        if running >= 0:
            self.start(now_ms, running)
