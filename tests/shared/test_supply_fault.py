"""The LED supply switch's ~FAULT line (zuni_hw.fault): debounced by time, latched; the
rail's switch stays off after it (zuni_hw.pico.LedPower.trip); the app reports it and
shows nothing (zuni_board.app.supply_fault). Runs under CPython and MicroPython."""

from board_helpers import Table

from check import eq
from zuni_board.ticks import ticks_add
from zuni_hw.fault import FAULT_BLANK_MS, FaultPin, SupplyFault
from zuni_hw.pico import USB_CONFIGURED, LedPower


def _run(watch, pin, levels, start=0, step=10):
    """Feed ``levels`` (one 0/1 per scan, ``step`` ms apart); the times ``step`` tripped."""
    trips = []
    now = start
    for level in levels:
        pin.pull_low(level == 0)
        if watch.step(now):
            trips.append(now)
        now += step
    return trips


def test_a_low_line_trips_only_after_the_blanking_time():
    pin = FaultPin()
    watch = SupplyFault(pin)
    eq(FAULT_BLANK_MS, 50)
    # High, then low from t=100: confirmed at the first read 50 ms after the first low one.
    trips = _run(watch, pin, [1] * 10 + [0] * 10)
    eq(trips, [150], "tripped once, at the first low read 50 ms after the first")
    eq(watch.tripped, True)
    eq(watch.level, 0)


def test_glitches_shorter_than_the_blanking_time_are_not_faults():
    pin = FaultPin()
    watch = SupplyFault(pin)
    # Low for 40 ms (five reads), high again, low for 40 ms: never 50 ms without a high read.
    trips = _run(watch, pin, [0] * 5 + [1] + [0] * 5 + [1] * 3)
    eq(trips, [])
    eq(watch.tripped, False)
    eq(watch.level, 1)


def test_slow_scans_still_trip_and_the_fault_is_latched():
    pin = FaultPin()
    watch = SupplyFault(pin)
    # Scans 100 ms apart (a commit, a flash write): two low reads in a row are enough.
    trips = _run(watch, pin, [1, 0, 0, 0, 1, 1, 0, 0], step=100)
    eq(trips, [200], "once only")
    eq(watch.tripped, True, "the line going high again does not clear it")


def test_time_wraps_like_ticks_ms():
    pin = FaultPin()
    watch = SupplyFault(pin)
    # ticks_ms wraps (at 2**30 on MicroPython): a low line across the wrap trips on time.
    start = (1 << 30) - 30
    pin.pull_low(True)
    trips = []
    for k in range(8):
        now = ticks_add(start, 10 * k)
        if watch.step(now):
            trips.append(k)
    eq(trips, [5], "tripped at 50 ms, across the wrap")


class _Out:
    """A GPIO output: keeps the last value driven."""

    def __init__(self):
        self.v = -1

    def __call__(self, v):
        self.v = v


class _ConfiguredUsb:
    def state(self):
        return USB_CONFIGURED


def test_a_tripped_rail_stays_off_whatever_the_host_does():
    enable, data = _Out(), _Out()
    rail = LedPower(enable, data, _ConfiguredUsb(), 0, 3000, 20, 50)
    rail.step(0)
    eq(enable.v, 1, "configured: the rail comes on")
    rail.step(20)
    eq(rail.ready, True)
    rail.trip()
    eq((enable.v, data.v, rail.ready), (0, 0, False))
    for now in range(50, 2000, 50):
        rail.step(now)
    eq((enable.v, rail.on, rail.ready), (0, False, False), "a configured host does not turn it on again")


def test_the_app_reports_the_fault_once_and_shows_nothing():
    t = Table("mosona")
    t.setup()
    frame = t.app.frame(t.now)
    eq(any(frame), True, "in play some point is lit (the side to move)")
    t.app.supply_fault(t.now)
    t.app.supply_fault(t.now + 10)
    t.app.outbox.flush()
    eq([e for e in t.link.events if e[0] == "fault"], [("fault", "led-supply")])
    eq(any(t.app.frame(t.now + 20)), False, "all dark while faulted")
    t.app.supply = SupplyFault(FaultPin())
    info = t.app.state_info()
    eq(info.get("fault"), "led-supply")
    eq(info.get("faultline"), 1)
