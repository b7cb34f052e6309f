"""The LED supply switch's ~FAULT line (TPS2553 pin 4, open drain, R3 10 kOhm to 3.3 V),
read on a GPIO (the layout's ``power.fault``): low while the switch limits or has shut
off the LED rail's current.

``SupplyFault(pin)`` takes any callable pin (a ``machine.Pin`` on the Pico, ``FaultPin``
on the virtual board) and ``step(now_ms)`` reads it once per scan. The line
counts as a fault only once it has read low for ``FAULT_BLANK_MS`` with no high read in
between: debounced by time, not by a count of reads (scans on the chip may be 30-100 ms
apart around a commit). A fault is latched: the rail stays off until the board restarts,
because a short on the LED line does not mend itself and switching into it again and
again only heats the switch. Time comes in as an argument; nothing allocates.
"""

try:
    from time import ticks_diff as _ticks_diff
except ImportError:  # CPython (tests): the Pico's wrapping arithmetic
    from zuni_board.ticks import ticks_diff as _ticks_diff  # type: ignore

# Why 50 ms: the TPS2553 asserts ~FAULT for an overcurrent only after its own deglitch
# delay (6 / 7.5 / 9 ms min / typ / max, TI SLVS841; power.FAULT_DEGLITCH_MS), so the
# 2.1-3.1 ms charge of the 220 uF bulk capacitor at switch-on does not reach the line
# (hardware/<board>/power.md, "Switch-on against the limit"); an overtemperature
# asserts it at once, with no deglitch. The firmware adds its own blanking against what
# the chip's deglitch does not cover: a spike coupled into the 10 kOhm line (ESD on a
# button wire, the LED chain switching) and the switch-on of a rail whose capacitor is
# larger or whose chip is slower than the datasheet's typical figure. 50 ms is five scans at
# the layouts' scan_ms 10, far past any such spike, and a hard short (current limit, then
# thermal cycling, ~FAULT low throughout) is still reported within a tenth of a second
# (at most 9 ms deglitch + 50 ms + one scan).
FAULT_BLANK_MS = 50

FAULT_LED_SUPPLY = "led-supply"  # the state's fault= and the fault event's text


class SupplyFault:
    """``step(now_ms)`` returns True on the one read that confirms the fault; ``tripped``
    then stays True. ``level`` is the line's last read (1 high = fine, 0 low)."""

    def __init__(self, pin, blank_ms=FAULT_BLANK_MS):
        self.pin = pin
        self.blank_ms = blank_ms
        self.level = 1
        self.low_since = 0
        self.low = False  # the line has read low since low_since, no high in between
        self.tripped = False

    def step(self, now_ms):
        level = 1 if self.pin() else 0
        self.level = level
        if level:
            self.low = False
            return False
        if not self.low:
            self.low = True
            self.low_since = now_ms
        if self.tripped or _ticks_diff(now_ms, self.low_since) < self.blank_ms:
            return False
        self.tripped = True
        return True


class FaultPin:
    """The virtual board's ~FAULT line: an explicit fake of the open-drain line with its
    pull-up. High (1) until ``pull_low(True)`` (the control channel's ``fault on``)."""

    def __init__(self):
        self.level = 1

    def pull_low(self, low):
        self.level = 0 if low else 1

    def __call__(self):
        return self.level
