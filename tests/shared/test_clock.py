"""Game clocks (zuni.clock): parsing, Fischer, Bronstein, flag fall, journal state.

Runs under CPython and MicroPython; times are made up (no clock is read)."""

from check import eq, raises
from zuni.clock import (
    BRONSTEIN,
    FISCHER,
    SUDDEN,
    ClockError,
    GameClock,
    TimeControl,
    clock_spec_text,
    parse_clock_spec,
)
from zuni.core import EAST, NORTH, SOUTH, WEST

TWO = (SOUTH, NORTH)
FOUR = (SOUTH, WEST, NORTH, EAST)


def test_parse_forms_and_round_trip():
    for text, base, mode, extra in (
        ("10", 600000, SUDDEN, 0),
        ("90s", 90000, SUDDEN, 0),
        ("5+3", 300000, FISCHER, 3000),
        ("5d2", 300000, BRONSTEIN, 2000),
        ("0.5+0.5", 30000, FISCHER, 500),
        ("1.5s+1", 1500, FISCHER, 1000),
    ):
        c = TimeControl.parse(text)
        eq((c.base_ms, c.mode, c.extra_ms), (base, mode, extra), text)
        eq(TimeControl.parse(c.text()), c, "round trip of " + text)
    eq(TimeControl.parse("0.5+0.5").text(), "30s+0.5")


def test_bad_controls_name_the_bad_part():
    for text, part in (("", "examples"), ("x", "'x'"), ("5+y", "increment"), ("5dz", "delay"), ("-3", "negative")):
        with raises(ClockError, part):
            TimeControl.parse(text)
    with raises(ClockError, "10 hours"):
        TimeControl.parse("601")
    with raises(ClockError, "no time for north"):
        parse_clock_spec("south=5", TWO)
    with raises(ClockError, "bad side 'west'"):
        parse_clock_spec("south=5 west=5", TWO)
    with raises(ClockError, "twice"):
        parse_clock_spec("south=5 south=3 north=1", TWO)


def test_spec_per_side():
    controls = parse_clock_spec("south=5+3 north=10", TWO)
    eq(controls[SOUTH].text(), "5+3")
    eq(controls[NORTH].text(), "10")
    eq(controls[WEST], None)
    eq(clock_spec_text(controls), "south=5+3 north=10")
    eq(clock_spec_text(parse_clock_spec("3d2", FOUR)), "3d2")


def test_sudden_death_runs_only_the_mover_and_flags():
    clock = GameClock(parse_clock_spec("1", TWO))
    clock.start(1000, SOUTH)
    eq(clock.remaining_ms(31000, SOUTH), 30000)
    eq(clock.remaining_ms(31000, NORTH), 60000)
    eq(clock.switch(31000, NORTH), 30000)
    eq(clock.remaining_ms(41000, SOUTH), 30000, "south stopped")
    eq(clock.remaining_ms(41000, NORTH), 50000)
    eq(clock.flagged(90999), -1)
    eq(clock.flagged(91000), NORTH)
    eq(clock.moves[SOUTH], 1)


def test_fischer_adds_after_each_move_and_not_after_flag_fall():
    clock = GameClock(parse_clock_spec("10s+5", TWO))
    clock.start(0, SOUTH)
    clock.switch(2000, NORTH)
    eq(clock.remaining_ms(2000, SOUTH), 13000)
    clock.switch(14000, SOUTH)  # north used 12 s of 10: flag fell, no increment
    eq(clock.remaining_ms(14000, NORTH), -2000)


def test_bronstein_gives_back_at_most_the_delay():
    clock = GameClock(parse_clock_spec("1d3", TWO))
    clock.start(0, SOUTH)
    clock.switch(2000, NORTH)  # used 2 s, back 2 s
    eq(clock.remaining_ms(2000, SOUTH), 60000)
    clock.switch(12000, SOUTH)  # used 10 s, back 3 s
    eq(clock.remaining_ms(12000, NORTH), 53000)


def test_different_times_per_side():
    clock = GameClock(parse_clock_spec("south=1+1 north=2", TWO))
    clock.start(0, SOUTH)
    clock.switch(10000, NORTH)
    clock.switch(20000, SOUTH)
    eq((clock.remaining_ms(20000, SOUTH), clock.remaining_ms(20000, NORTH)), (51000, 110000))


def test_four_players_in_turn():
    clock = GameClock(parse_clock_spec("1", FOUR))
    clock.start(0, SOUTH)
    t = 0
    for side, nxt in ((SOUTH, WEST), (WEST, NORTH), (NORTH, EAST), (EAST, SOUTH)):
        t += 1000 * (side + 1)
        clock.switch(t, nxt)
    eq([clock.remaining_ms(t, s) for s in FOUR], [59000, 58000, 57000, 56000])


def test_stop_and_restore_lose_no_time_across_a_power_cut():
    clock = GameClock(parse_clock_spec("5+3", TWO))
    clock.start(500, SOUTH)
    clock.switch(10500, NORTH)
    clock.stop(15500)  # power cut noticed at the last save
    left, running = clock.state()
    eq(left, [293000, 0, 295000, 0])
    eq(running, -1)
    again = GameClock(parse_clock_spec("5+3", TWO))
    # The board came back with its tick counter restarted near 0.
    again.restore(left, NORTH, 20)
    eq(again.remaining_ms(1020, NORTH), 294000)
    eq(again.remaining_ms(1020, SOUTH), 293000)


def test_misuse_is_an_error():
    clock = GameClock(parse_clock_spec("5", TWO))
    with raises(ClockError, "no clock is running"):
        clock.switch(10, NORTH)
    with raises(ClockError, "west has no clock"):
        clock.start(0, WEST)
    clock.start(100, SOUTH)
    with raises(ClockError, "went back"):
        clock.switch(50, NORTH)
    with raises(ClockError, "4 times"):
        clock.restore([1, 2], SOUTH, 0)
