"""The board's game clocks (zuni_board.clocks in the app) with made-up times: the commit
switches the clocks, increment and delay, the computer's move, low time on the home
row, flag fall as a loss on time, the journal's times across a reset. Runs under
CPython and MicroPython."""

from board_helpers import RecordingLink, Table, remove_dir, temp_dir

from check import eq, raises
from zuni_board.app import OVER, PLAY, SETUP
from zuni_board.clocks import SAVE_MS
from zuni_board.journal import Journal

SOUTH = 0
NORTH = 2


def _clocked(spec, ruleset="mosona", journal_dir=None):
    t = Table(ruleset, journal_dir=journal_dir)
    t.app.command("new", "clock=%s %s" % (spec.replace(" ", "%20"), ruleset), t.now)
    eq(t.app.phase, SETUP)
    return t


def test_clock_starts_with_play_and_the_commit_switches_it():
    t = _clocked("1+2")
    eq(t.app.clock.running, -1, "no clock runs while the pieces are set up")
    t.wait(5000)
    t.setup()
    eq(t.app.clock.running, SOUTH)
    start = t.now
    t.wait(3000)
    t.do("s3xm4-m5")
    used = t.link.times[0][0]
    # the move took from play's start to its commit (3 s and the gestures' settling)
    eq(used, t.app.clock.left[SOUTH] and used)
    assert 3000 <= used <= t.now - start, used
    eq(t.link.times[0][1], 60000 - used + 2000, "the increment is added after the move")
    eq(t.link.times[0][2], SOUTH)
    eq(t.app.clock.running, NORTH)
    info = t.app.state_info()
    eq(info["tc"], "1+2")
    eq(info["running"], "north")
    left = info["clock"].split(",")
    eq(int(left[SOUTH]), 60000 - used + 2000)
    assert int(left[NORTH]) <= 60000
    eq((left[1], left[3]), ("-", "-"), "west and east have no clock")


def test_delay_gives_back_at_most_the_delay():
    t = _clocked("1d2")
    t.setup()
    t.wait(500)
    t.do("s3xm4-m5")
    eq(t.link.times[0][1], 60000, "a quick move under a delay costs nothing")
    t.wait(4000)
    t.do("n5xm5-m4")
    used = t.link.times[1][0]
    eq(t.link.times[1][1], 60000 - used + 2000)


def test_different_times_per_side():
    t = _clocked("south=30s north=1")
    t.setup()
    info = t.app.state_info()
    eq(info["clock"], "30000,-,60000,-")


def test_flag_fall_ends_the_game_as_a_loss_on_time():
    d = temp_dir()
    try:
        t = _clocked("3s", journal_dir=d)
        t.setup()
        t.do("s3xm4-m5")
        t.wait(2000)
        eq(t.app.phase, PLAY)
        t.wait(1500)  # north's 3 s are out
        eq(t.app.phase, OVER)
        outcome = t.app.game.outcome()
        eq((outcome.result, outcome.termination), ("south", "time"))
        assert ("over", "south time") in t.link.events, t.link.events
        eq(t.app.clock.mask, None, "no low-time tick once the game is over")
        info = t.app.state_info()
        eq((info["result"], info["termination"]), ("south", "time"))
        eq(info["running"], "")
        assert int(info["clock"].split(",")[NORTH]) <= 0
        # the journal keeps the end: a reset does not resume a lost game
        eq(Journal(d).resume()[3], ("time", "north"))
        with raises(ValueError, "loss on time cannot be taken back"):
            t.app.command("takeback", "")
        eq(t.app.phase, OVER)
    finally:
        remove_dir(d)


def test_a_move_finished_in_the_flags_scan_is_too_late():
    t = _clocked("3s")
    t.setup()
    start = t.now
    t.lift("s3")
    t.settle()
    t.place("m5")
    t.settle()
    t.lift("m4")
    # the last change reaches the app in the very scan its flag falls
    t.now = start + 3000
    t.app.step(t.now, bytearray(t.occ), 0)
    eq(t.app.phase, OVER)
    eq(t.app.game.outcome().termination, "time")
    t.wait(400)
    eq(t.link.moves, [], "no move after the flag")


def test_low_time_ticks_on_the_home_row():
    t = _clocked("30s")  # low at 6 s (a fifth of 30 s)
    t.setup()
    eq(t.app.clock.mask, None)
    t.wait(23000)
    eq(t.app.clock.mask, None)
    t.wait(1200)
    low = t.app.clock.mask
    home = t.app.game.geometry.homes[SOUTH]
    eq([p for p in range(t.n) if low[p]], sorted(home))
    eq(low[home[0]], 9, "yellow: South's")
    # the tick shows only where the picture is dark, in South's colour, once a second
    described = t.app.clock.describe(t.app.game.geometry.names, t.app.renderer)
    dark = [t.names[p] for p in home if not t.app.renderer.colour[p]]
    assert dark, described
    assert dark[0] + ":yellow/tick" in described, described  # South's colour
    now = (t.now // 1000 + 1) * 1000 + 50
    assert t.app.frame_dirty(now), "the tick's flash is a new frame"
    frame = t.app.frame(now)
    p = t.p(dark[0])
    eq(bytes(frame[3 * p : 3 * p + 3]), bytes((255, 200, 0)))
    assert not t.app.frame_dirty(now + 20)
    assert t.app.frame_dirty(now + 300), "and its end"
    frame = t.app.frame(now + 300)
    eq(bytes(frame[3 * p : 3 * p + 3]), bytes((0, 0, 0)))
    # south moves: its clock stops (still low: no increment); north is not low
    t.do("s3xm4-m5")
    eq([p for p in range(t.n) if t.app.clock.mask[p]], sorted(home))


def test_the_computers_move_stops_its_clock_when_announced():
    t = _clocked("1")
    t.setup()
    t.do("s3xm4-m5")
    t.wait(2000)
    t.app.command("hostmove", "n5xm5-m4", t.now)
    eq(t.app.clock.running, SOUTH, "the player's clock runs while the move is carried out")
    t.app.command("hostmove", "n5xm5-m4", t.now + 100)  # a resend switches nothing
    eq(t.app.clock.running, SOUTH)
    t.wait(5000)
    t.do("n5xm5-m4")
    used = t.link.times[1][0]
    assert 2000 <= used < 2500, used
    eq(t.app.clock.running, SOUTH)


def test_reset_resumes_the_clocks_from_the_journal():
    d = temp_dir()
    try:
        t = _clocked("1", journal_dir=d)
        t.setup()
        t.wait(4000)
        t.do("s3xm4-m5")
        south_left = t.link.times[0][1]
        t.wait(SAVE_MS * 2 + 3000)  # north thinks 23 s: two saves, then 3 s more
        north_now = t.app.clock.remaining_ms(t.now, NORTH)
        # power cut: a new app on the same journal
        t2 = Table("mosona", journal_dir=d)
        eq(t2.app.phase, SETUP)
        eq(t2.app.clock.spec, "1")
        eq(t2.app.clock.running, -1, "the clock waits for the pieces to match")
        t2.occ = bytearray(t2.app.target)
        t2.wait(60000)  # the board off and set up again: no time charged
        t2.settle()
        eq(t2.app.phase, PLAY)
        eq(t2.app.clock.running, NORTH)
        eq(t2.app.clock.remaining_ms(t2.now, SOUTH), south_left)
        north_after = t2.app.clock.remaining_ms(t2.now, NORTH)
        lost = north_after - north_now
        assert 0 <= lost <= SAVE_MS, "north gets back at most the time since its last save: %d" % lost
    finally:
        remove_dir(d)


def test_a_game_without_a_clock_has_none():
    t = Table("mosona", link=RecordingLink())
    t.setup()
    t.do("s3xm4-m5")
    eq(t.app.clock, None)
    eq(t.link.times, {})
    assert "clock" not in t.app.state_info()


def test_bad_time_control_is_refused_and_changes_nothing():
    t = Table("mosona")
    t.setup()
    game = t.app.game_id
    with raises(ValueError, "5x"):
        t.app.command("new", "clock=5x mosona", t.now)
    with raises(ValueError, "east"):
        t.app.command("new", "clock=east=5 mosona", t.now)
    eq(t.app.game_id, game)
    eq(t.app.phase, PLAY)


def test_new_game_after_the_end_keeps_the_time_control():
    t = _clocked("3s")
    t.setup()
    t.wait(3500)
    eq(t.app.phase, OVER)
    t.press(1)  # OK: the same rules again (the pieces stand as they started: play)
    eq(t.app.phase, PLAY)
    eq(t.app.clock.spec, "3s")
    eq(t.app.clock.running, SOUTH)
    eq(t.app.clock.remaining_ms(t.now, SOUTH), 3000)


def test_journal_keeps_the_clocks_and_a_rewrite_keeps_them_too():
    import zuni
    from zuni_board.clocks import resume

    game = zuni.new_game("mosona")
    d = temp_dir()
    try:
        j = Journal(d)
        j.start("mosona", None, None, "south=5+3 north=10")
        j.move(0, "s3xm4-m5", (4200, 302800, SOUTH))
        j._append("K 2 590000")
        j2 = Journal(d)
        found = j2.resume()
        eq(found[2], ["s3xm4-m5"])
        eq(j2.clock, "south=5+3 north=10")
        eq(resume(j2.clock, game, j2).left, [302800, 0, 590000, 0])
        # the degraded mode's rewrite (repair) keeps the control and the times
        j2.rewrite(["s3xm4-m5"], [302800, -1, 585000, -1])
        j3 = Journal(d)
        j3.resume()
        eq(j3.clock, "south=5+3 north=10")
        eq(resume(j3.clock, game, j3).left, [302800, 0, 585000, 0])
        # a torn clock record is dropped with what follows, as any record
        f = open(j3.path, "a")
        f.write("K 2 1*0000\n")
        f.close()
        j4 = Journal(d)
        eq(j4.resume()[2], ["s3xm4-m5"])
        eq(resume(j4.clock, game, j4).left[NORTH], 585000)
        # a time control this firmware cannot read: the game is not resumed on a clock
        with raises(ValueError, "bad"):
            resume("5x", game, j4)
    finally:
        remove_dir(d)


def test_a_position_set_up_on_a_clock_starts_the_side_to_move_once_set_up():
    d = temp_dir()
    try:
        t = Table("mosona", journal_dir=d)
        t.setup()
        t.app.command("setup", "clock=south=30s%20north=20s mosona | north to move | south s3 s5 | north m4")
        eq(t.app.clock.running, -1)
        t.occ = bytearray(t.app.target)  # South's pieces
        t.settle()
        eq(t.app.clock.running, -1, "no clock runs while the position is set up")
        t.press(1)  # OK: North's next
        t.occ = bytearray(t.app.target)
        t.settle()
        eq(t.app.phase, PLAY)
        eq(t.app.clock.running, NORTH, "north is to move in the position")
        eq(t.app.state_info()["clock"].split(",")[NORTH], "20000")
        t.wait(1000)
        t.do("m4xs3-s2")
        eq(t.link.times[0][2], NORTH)
        # the journal's header keeps the position and its T record the clocks
        j = Journal(d)
        j.resume()
        eq((j.position is not None, j.clock), (True, "south=30s north=20s"))
    finally:
        remove_dir(d)


def test_a_takeback_pauses_the_clocks_and_gives_no_time_back():
    t = _clocked("1")
    t.setup()
    t.wait(2000)
    t.do("s3xm4-m5")
    south_after = t.link.times[0][1]
    t.wait(1000)
    t.app.command("takeback", "", t.now)
    eq(t.app.phase, SETUP)
    eq(t.app.clock.running, -1, "no clock runs while the position is restored")
    north = t.app.clock.left[NORTH]
    t.wait(5000)
    eq(t.app.clock.left[NORTH], north)
    t.occ = bytearray(t.app.target)  # the position before the move, restored
    t.settle()
    eq(t.app.phase, PLAY)
    eq(t.app.clock.running, SOUTH)
    eq(t.app.clock.remaining_ms(t.now, SOUTH), south_after, "south's time as its move left it")


def test_back_after_a_flag_fall_does_nothing():
    t = _clocked("3s")
    t.setup()
    t.wait(3100)
    eq(t.app.phase, OVER)
    t.press(2)  # BACK
    eq(t.app.phase, OVER)
    eq(t.app.game.outcome().termination, "time")


def test_a_scan_with_a_clock_running_allocates_nothing():
    # Under MicroPython the heap is locked: any allocation in the hot path raises
    # MemoryError. South's time is low, so its home row ticks in the frames too. (The
    # journal's save every SAVE_MS allocates its record: a write, not a plain scan.)
    import micropython

    t = _clocked("30s")
    t.setup()
    t.wait(25000)
    app = t.app
    assert app.clock.mask is not None, "low time: the tick is drawn"
    app.clock.save_due = t.now + 60000  # no save in this stretch
    lock = getattr(micropython, "heap_lock", None)
    unlock = getattr(micropython, "heap_unlock", None)
    now = t.now
    frames = 0
    if lock is not None:
        lock()
    try:
        for _ in range(300):
            now += 10
            app.step(now, None, 0)
            if app.frame_dirty(now):
                app.frame(now)
                frames += 1
    finally:
        if unlock is not None:
            unlock()
    assert frames >= 6, frames  # 3 s of ticks: on and off each second
    eq(app.phase, PLAY)
