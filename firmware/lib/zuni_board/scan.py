"""Debounce of the reed switches: raw sensor scans in, a stable occupancy per point out.

Two filters, both counted in the scan loop's own terms so that a layout tunes them:

- per point, a change is believed only after ``debounce_scans`` equal consecutive scans
  (a bouncing reed contact, or a magnet at the edge of a switch's range, flickers for a
  few milliseconds; docs/board.md's "per-board threshold of scans");
- the board position is reported only once no point has changed for ``stable_ms``, so a
  piece slid across other points on its way is never seen there. That time counts from
  the change itself (the first scan that saw the point's new state), not from the scan
  that believed it: docs/board.md's 150 ms are 150 ms after the hand, whatever the debounce.

>>> d = Debouncer(3, [0, 1, 2], 2, 150)
>>> d.step(0, bytearray(b"\\x01\\x00\\x00"))     # first scan: nothing believed yet
>>> d.step(10, bytearray(b"\\x01\\x00\\x00"))    # None: believed, not yet stable
>>> d.step(160, bytearray(b"\\x01\\x00\\x00"))
bytearray(b'\\x01\\x00\\x00')

Pure: the time is an argument, tick arithmetic goes through ``ticks_diff`` (the Pico's
ticks wrap). ``step`` allocates nothing unless the stable position changes.
"""

from array import array

try:
    from time import ticks_diff
except ImportError:  # CPython: the one fallback (the Pico's 30-bit tick arithmetic)
    from zuni_board.ticks import ticks_diff


class Debouncer:
    """``Debouncer(n_points, sensor_of, debounce_scans, stable_ms)``.

    ``sensor_of[p]`` is point p's index in the raw scan (the layout's sensor index).
    ``step(now_ms, raw)`` takes the raw scan (a bytearray per sensor, non-zero = magnet
    present) and returns a new bytearray (1/0 per point) when the stable occupancy
    changes, else None. The very first stable position is always reported, even an
    empty board. ``stable`` is the last one reported (all zero before that); ``debounced``
    the per-point state after the scan filter, not yet stable.
    """

    def __init__(self, n_points, sensor_of, debounce_scans=3, stable_ms=150):
        if len(sensor_of) != n_points:
            raise ValueError("sensor_of has %d entries for %d points" % (len(sensor_of), n_points))
        if debounce_scans < 1 or debounce_scans > 255:
            raise ValueError("debounce_scans must be 1..255, not %r" % (debounce_scans,))
        if stable_ms < 0:
            raise ValueError("stable_ms must be >= 0, not %r" % (stable_ms,))
        for p in range(n_points):
            if sensor_of[p] < 0:
                raise ValueError("point %d has no sensor (sensor_of[%d] = %r)" % (p, p, sensor_of[p]))
        self.n = n_points
        self.sensor_of = sensor_of
        self.debounce_scans = debounce_scans
        self.stable_ms = stable_ms
        self.debounced = bytearray(n_points)
        self.stable = bytearray(n_points)
        # Consecutive scans that disagreed with `debounced` (they all agree with each
        # other: a scan that agrees with `debounced` again resets the count).
        self._count = bytearray(n_points)
        # The scan at which each point's count began: the time of its change. (Ticks are
        # below 2**30, so a 32-bit 'i' holds them.)
        self._began = array("i", bytes(4 * n_points))
        # Fast path: while nobody touches the board, a scan equal to the last one with no
        # point mid-count changes nothing, and one C-level compare replaces the loop.
        self._last_raw = None  # type: bytearray | None
        self._counting = False
        self._changed_at = 0
        self._pending = False  # `debounced` changed since the last report
        self._reported = False
        self._started = False
        self.scans = 0

    def step(self, now_ms, raw):
        """One scan; see the class docstring."""
        if not self._started:
            self._started = True
            self._changed_at = now_ms
            self._pending = True  # report the first stable position, whatever it is
        self.scans += 1
        last = self._last_raw
        if last is None or len(last) != len(raw):
            last = self._last_raw = bytearray(len(raw))
            last[:] = raw
        elif not self._counting and raw == last:
            return self._report(now_ms)
        else:
            last[:] = raw
        deb = self.debounced
        count = self._count
        sensor_of = self.sensor_of
        need = self.debounce_scans
        began = self._began
        changed_at = self._changed_at
        changed = False
        counting = False
        for p in range(self.n):
            v = 1 if raw[sensor_of[p]] else 0
            if v == deb[p]:
                count[p] = 0
            else:
                c = count[p] + 1
                if c == 1:
                    began[p] = now_ms
                if c >= need:
                    deb[p] = v
                    count[p] = 0
                    if not changed or ticks_diff(began[p], changed_at) > 0:
                        changed_at = began[p]
                    changed = True
                else:
                    count[p] = c
                    counting = True
        self._counting = counting
        if changed:
            # The latest change: a point believed now may have begun before another's.
            if ticks_diff(changed_at, self._changed_at) > 0 or not self._pending:
                self._changed_at = changed_at
            self._pending = True
        return self._report(now_ms)

    def _report(self, now_ms):
        deb = self.debounced
        if not self._pending or ticks_diff(now_ms, self._changed_at) < self.stable_ms:
            return None
        self._pending = False
        if self._reported and deb == self.stable:
            return None  # touched and put back: nothing happened
        self._reported = True
        # A fresh bytearray: the caller may keep the one it was given.
        self.stable = bytearray(deb)
        return self.stable

    def in_motion(self):
        """True while a change has been seen that is not yet stable (a hand over the
        board): one being debounced or one believed and not yet reported."""
        return self._pending or self._counting

    @property
    def changed_at(self):
        """The time of the last change believed (the scan that first saw it)."""
        return self._changed_at
