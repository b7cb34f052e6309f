"""The board controller (zuni_board.app) with made-up times: setup, commits and their
timing, half-made moves, errors and recovery, take-back, host moves, chains, passes,
game over, host commands. Runs under CPython and MicroPython."""

import sys

from board_helpers import RecordingLink, Table, board_layout, journal_with, remove_dir, temp_dir

import zuni
from check import eq, raises
from zuni_board import unload
from zuni_board.app import OVER, PLAY, SETUP
from zuni_board.hintrun import search_for
from zuni_board.infer import PROGRESS
from zuni_board.journal import Journal
from zuni_board.play import HINT_CODE, HINT_THINK_MS, HOST_HINT_MS
from zuni_board.scan import Debouncer

MOSONA_END = [
    "s3xm4-m5",
    "n5xm5-m4",
    "m7xn6-n5",
    "m2xs2-s3xs4-m5xn5-n6xm6-m5",
    "m8xn7-n6",
    "m1xs1-s2",
    "m9xn8-n7",
    "n2-m2",
    "s5xm5-n5",
    "n4xn5-m6",
    "n6xm6-m5xm4-s3xs2-s1xm2-n2xn3-m4xm3-n2xn1-m1",
]
KOLOWIS_CHAIN = ["s4-m5", "n5xm5-s4", "m6-n5", "m4-m5", "s6-m6", "s4xs5-s6", "m6xm5-m4", "m3xm4-m5", "s7xs6-s5"]


def _lit(t, name):
    return t.app.renderer.get(t.p(name))


class Scanned:
    """The table under real scanning, as firmware/main.py's loop runs it: the sensors
    through a ``Debouncer`` every ``scan_ms`` (default timings unless the table has
    others), presses as the button driver reports them, the LED frame after each step.
    ``commit_times`` and ``frame_times`` record when moves were sent and frames drawn."""

    def __init__(self, t):
        self.t = t
        timing = t.layout.timing
        self.scan_ms = timing["scan_ms"]
        app = t.app
        self.deb = Debouncer(t.n, app.sensor_of, timing["debounce_scans"], timing["stable_ms"])
        self.raw = bytearray(t.occ)  # sensor index = point index in test layouts
        self.commit_times = []
        self.frame_times = []
        self.run(400)  # the debouncer's first report: the board as the app already saw it

    def set(self, word):
        """``"-s3"`` lifts, ``"+m5"`` places (on the raw sensors, from the next scan)."""
        self.raw[self.t.p(word[1:])] = 1 if word[0] == "+" else 0

    def run(self, ms, press_at=-1, buttons=1):
        """Scan for ``ms``; ``press_at``: ms into the run at which the press is reported."""
        t = self.t
        app = t.app
        end = t.now + ms
        start = t.now
        while t.now < end:
            t.now += self.scan_ms
            pressed = buttons if press_at >= 0 and t.now - start >= press_at else 0
            if pressed:
                press_at = -1
            moves = len(t.link.moves)
            app.step(t.now, self.deb.step(t.now, self.raw), pressed, self.deb.in_motion())
            if len(t.link.moves) != moves:
                self.commit_times.append(t.now)
            if app.frame_dirty(t.now):
                app.frame(t.now)
                self.frame_times.append(t.now)

    def gesture(self, *words):
        """Each word a gesture, then 300 ms of stillness (a person's pace)."""
        for w in words:
            self.set(w)
            self.run(300)


def _resumed(ruleset, texts, link=None):
    """A table whose app resumed ``texts`` from its journal, set up and in play."""
    d = temp_dir()
    journal_with(d, ruleset, texts)
    t = Table(ruleset, journal_dir=d, link=link)
    t.dir = d
    eq(len(t.app.game.move_stack), len(texts), "resumed moves")
    t.setup()
    return t


# -- setup --------------------------------------------------------------------------


def test_setup_shows_where_pieces_belong_and_starts_play():
    t = Table("mosona")
    eq(t.app.phase, SETUP)
    # Nothing on the board: every start point blinks white (put a piece here).
    eq(_lit(t, "s3"), (1, 2))  # WHITE, SLOW
    eq(_lit(t, "m5"), (0, 0))  # the centre stays empty
    t.place("m5")
    t.settle()
    eq(_lit(t, "m5"), (3, 3), "covered but should be empty: red fast blink")
    t.lift("m5")
    t.setup()
    eq(t.app.phase, PLAY)
    eq(t.link.moves, [])


def test_frame_is_rgb_per_point_and_blinks():
    t = Table("mosona")
    f = t.app.frame(0)  # slow blink on (0 % 1000 < 500)
    eq(len(f), 3 * 25)
    i = t.p("s3")
    eq(bytes(f[3 * i : 3 * i + 3]), b"\xff\xff\xff")
    eq(t.app.frame_dirty(100), False, "same blink phase")
    eq(t.app.frame_dirty(600), True, "the blink turned off")
    f = t.app.frame(600)
    eq(bytes(f[3 * i : 3 * i + 3]), b"\x00\x00\x00")


# -- moves --------------------------------------------------------------------------


def test_move_committed_within_commit_ms_of_the_last_change():
    t = Table("mosona")
    t.setup()
    t.lift("s3")
    t.settle()
    t.place("m5")
    t.settle()
    t.lift("m4")
    last_change = t.now
    t.settle()
    # commit_ms = stable_ms (150): a finished move that cannot be extended is committed
    # by the scan that first sees it stable.
    eq(t.now - last_change, 150)
    eq(t.link.moves, [(0, "s3xm4-m5")])


def test_finished_move_and_its_frame_within_200ms_of_the_last_change():
    # docs/board.md: a finished move that cannot be extended is committed, with its LED frame,
    # at most 200 ms after the last change (it was commit_ms = 500 after it).
    t = Table("mosona")
    t.setup()
    sc = Scanned(t)
    sc.gesture("-s3", "+m5")
    sc.set("-m4")
    last_change = t.now + sc.scan_ms  # the next scan sees it
    sc.run(400)
    eq(t.link.texts(), ["s3xm4-m5"])
    latency = sc.commit_times[0] - last_change
    assert latency <= 200, latency
    assert sc.commit_times[0] in sc.frame_times, "the new picture is drawn in the committing scan"


def _deferred(ruleset="mosona"):
    """A table as firmware/main.py runs the app (defer_writes), set up and scanned."""
    t = Table(ruleset)
    t.app.defer_writes()
    t.setup()
    return t, Scanned(t)


def _until_commit(sc, commits, ms=400):
    """Scan by scan until the app has made ``commits`` commits; the scan's time."""
    t = sc.t
    end = t.now + ms
    while t.app.play.commits < commits:
        assert t.now < end, "not committed: %s" % t.app.describe()
        sc.run(sc.scan_ms)
    return t.now


def test_deferred_commit_frame_at_once_whole_picture_one_scan_later():
    # As on the board: the scan that sees the finished move stable commits it and draws
    # its frame (the move's picture gone); the scan after makes the next position's
    # legal moves and draws its whole picture (what may move next).
    t, sc = _deferred()
    sc.gesture("-s3", "+m5")
    sc.set("-m4")
    seen = t.now + sc.scan_ms  # the next scan sees it
    committed = _until_commit(sc, 1)
    eq(committed - seen, 150, "committed by the scan that saw it stable")
    assert committed in sc.frame_times, "the commit's frame is drawn in its own scan"
    eq(t.app.describe(), "", "the move's picture is gone")
    eq(t.app.play.pos, None, "the next position: the next scan's work")
    sc.run(sc.scan_ms)
    assert t.now in sc.frame_times, "the whole picture one scan later"
    eq(_lit(t, "n5"), (12, 1), "North's pieces that may move, dim cyan")
    sc.run(sc.scan_ms)
    eq(t.link.texts(), ["s3xm4-m5"], "then the journal record and the move to the host")


def test_deferred_commit_the_next_lift_one_scan_after_the_commit():
    # The fastest hands: the opponent lifts the next piece in the very scan after the
    # commit, while the board is still making the position's legal moves. The lift is
    # believed and stable later as any other (it waits for nothing and is not lost),
    # its destinations are shown, and the reply is committed 150 ms after its last change.
    t, sc = _deferred()
    sc.gesture("-s3", "+m5")
    sc.set("-m4")
    _until_commit(sc, 1)
    sc.set("-n5")  # seen by the next scan, the one that completes the position
    lifted = t.now + sc.scan_ms
    sc.run(sc.scan_ms)
    assert t.app.play.pos.moves, "the position was completed in that scan"
    sc.run(200)
    eq(_lit(t, "n5"), (6, 1), "the lifted piece: blue")
    eq(_lit(t, "m4"), (4, 1), "its landing point: green")
    eq(_lit(t, "m5"), (7, 1), "the piece it captures: orange")
    eq(t.app.play.result.kind, PROGRESS, "the lift is a half-made move, %d ms after it" % (t.now - lifted))
    sc.set("+m4")
    sc.run(sc.scan_ms)
    sc.set("-m5")  # the captured piece one scan after the landing
    seen = t.now + sc.scan_ms
    committed = _until_commit(sc, 2)
    eq(committed - seen, 150)
    sc.run(3 * sc.scan_ms)
    eq(t.link.texts(), ["s3xm4-m5", "n5xm5-m4"])
    eq(t.link.moves[-1][0], 1, "in order")


def test_deferred_commit_a_press_150ms_after_the_change_acts_on_the_moves_position():
    # HINT pressed 150 ms after the change that finished a move (the commit's own scan)
    # and one scan later (the scan that completes the position): both act on the
    # position the move made: the hint is the next side's.
    for press_at in (150, 160):
        t, sc = _deferred()
        sc.gesture("-s3", "+m5")
        sc.set("-m4")
        sc.run(400, press_at=press_at + sc.scan_ms, buttons=4)
        eq(t.link.texts(), ["s3xm4-m5"], "HINT %d ms after the change" % press_at)
        _think(t)
        hint = t.app.play.hint
        assert hint is not None, "HINT %d ms after the change: no hint" % press_at
        eq(hint.move in t.app.game.legal_moves(), True, "a move of the side now to move")
        sc.run(sc.scan_ms)  # the event goes out in the scan after (defer_writes)
        eq(t.link.events[-1], ("hint", hint.move.text()))


def test_deferred_commit_a_host_request_in_the_commit_scan_sees_the_whole_position():
    # The session polls after the app's step, in the commit's own scan: a host move
    # (it needs the new position's legal moves) is refused by nothing and shown.
    t, sc = _deferred()
    sc.gesture("-s3", "+m5")
    sc.set("-m4")
    _until_commit(sc, 1)
    eq(t.app.play.pos, None)
    t.app.command("hostmove", "n5xm5-m4")
    eq(t.app.play.host.move.text(), "n5xm5-m4")
    eq(_lit(t, "n5"), (6, 4), "the host's move shown: origin blue double flash")
    eq(t.link.texts(), ["s3xm4-m5"], "its journal record and the move went out first")


def test_quick_commit_makes_no_false_commit_from_slides_touches_or_corrections():
    t = Table("kolowis size=short")
    t.setup()
    sc = Scanned(t)
    # Touched and put back, quickly and slowly: nothing happens.
    sc.set("-s4")
    sc.run(100)
    sc.set("+s4")
    sc.run(400)
    sc.gesture("-s4", "+s4")
    # The wrong piece put on m5 for a moment, taken back: s5-m5 is never committed.
    sc.set("-s5")
    sc.run(200)
    sc.set("+m5")
    sc.run(120)
    sc.set("-m5")
    sc.run(60)
    sc.set("+s5")
    sc.run(400)
    eq(t.link.moves, [], "touches and a corrected placement commit nothing")
    # A piece slid across s5's point on its way (60 ms over it) is never seen there.
    sc.set("-m6")
    sc.run(80)
    sc.set("+m5")
    sc.run(400)
    eq(t.link.texts(), ["m6-m5"])


def test_ok_150ms_after_the_last_capture_lifted_ends_the_chain():
    # A chain stopped early: the last captured piece is taken off and OK comes 150 ms
    # later (or sooner: it waits for the position it followed). It was ignored.
    for press_at in (150, 60):
        t = _resumed("kolowis size=short", KOLOWIS_CHAIN)
        sc = Scanned(t)
        sc.gesture("-n7", "+s6")
        sc.set("-m7")
        sc.run(400, press_at=press_at + sc.scan_ms)
        eq(t.link.texts(), ["n7xm7-s6"], "OK %d ms after the change" % press_at)
        remove_dir(t.dir)


def test_a_press_waits_at_most_a_second_for_a_board_that_never_settles():
    # A magnet at the edge of a switch keeps changing (believed every 60 ms, never stable
    # for 150 ms): a press still acts, HOLD_MS (1 s) after it came, not never.
    from zuni_board.app import HOLD_MS

    t = _resumed("kolowis size=short", KOLOWIS_CHAIN)
    sc = Scanned(t)
    sc.gesture("-n7", "+s6", "-m7")
    sc.set("+m3")  # an empty point: the flicker begins
    sc.run(30)
    pressed = t.now + sc.scan_ms
    sc.run(10, press_at=0)
    flicker = True
    while not t.link.moves and t.now - pressed < 3000:
        flicker = not flicker
        sc.set("+m3" if flicker else "-m3")
        sc.run(60)
    eq(t.link.texts(), ["n7xm7-s6"], "OK acted")
    waited = sc.commit_times[0] - pressed
    assert HOLD_MS <= waited <= HOLD_MS + 100, waited
    remove_dir(t.dir)


def test_opponent_lift_150ms_after_the_last_removal_commits_the_chain():
    # The opponent lifts a piece 150 ms after the chain's last capture was removed: two
    # positions in order (the chain stopped, then South's lift), not one mistake.
    t = _resumed("kolowis size=short", KOLOWIS_CHAIN)
    sc = Scanned(t)
    sc.gesture("-n7", "+s6")
    sc.set("-m7")
    sc.run(150)
    sc.set("-s2")
    sc.run(1500)
    eq(t.link.texts(), ["n7xm7-s6"])
    # (s2 itself may not move: after error_ms that is said, and only that.)
    errors = [e for e in t.link.events if e[0] in ("error", "wrong")]
    eq(errors, [("error", "s2 may not move")], "no mistake in the merged position")
    eq(t.app.play.result.gone, [t.p("s2")], "South's lift belongs to South's turn")
    remove_dir(t.dir)


def test_every_lifting_order_commits_the_same_move():
    for order in (("-s3", "+m5", "-m4"), ("-m4", "-s3", "+m5"), ("-s3", "-m4", "+m5")):
        t = Table("mosona")
        t.setup()
        t.act(*order)
        t.wait(400)
        eq(t.link.texts(), ["s3xm4-m5"], "order %r" % (order,))


def test_both_hands_at_once_and_sliding_over_points():
    t = Table("mosona")
    t.setup()
    # Lift mover and captured piece in one gesture; the debouncer never reports the
    # points the piece slid over, so the app only sees the result.
    t.lift("s3", "m4")
    t.place("m5")
    t.settle()
    t.wait(400)
    eq(t.link.texts(), ["s3xm4-m5"])


def test_half_made_move_is_never_an_error():
    t = Table("mosona")
    t.setup()
    t.act("-s3")
    t.wait(10000, 200)  # a piece held in the hand for ten seconds
    t.act("+m5")
    t.wait(10000, 200)  # the captured piece left on the board
    eq(t.link.moves, [])
    assert "error" not in t.link.kinds() and "wrong" not in t.link.kinds()
    eq(_lit(t, "m4"), (7, 3), "captured piece to remove: orange fast blink")
    t.act("-m4")
    t.wait(400)
    eq(t.link.texts(), ["s3xm4-m5"])


def test_touch_and_put_back_commits_nothing():
    t = Table("mosona")
    t.setup()
    t.act("-s3", "+s3")
    t.wait(3000)
    eq(t.link.moves, [])
    eq(t.app.phase, PLAY)


def test_lifted_piece_shows_its_destinations():
    t = Table("mosona")
    t.setup()
    t.act("-s3")
    eq(_lit(t, "s3"), (6, 1), "lifted: blue steady")
    eq(_lit(t, "m5"), (4, 1), "destination: green steady")
    eq(_lit(t, "m4"), (7, 1), "capture: orange steady")


def test_piece_that_may_not_move_shows_those_that_may():
    t = Table("mosona")
    t.setup()
    t.act("-s1")
    eq(_lit(t, "s1"), (3, 5), "red triple flash: a mistake")
    eq(_lit(t, "s3"), (6, 2), "the piece that may move: blue slow blink")
    t.act("+s1")
    t.wait(2000)
    eq(t.link.moves, [])


def test_mistake_shown_after_error_ms_and_recovered_by_restoring():
    t = Table("mosona")
    t.setup()
    t.lift("s1")
    t.place("m5")
    last_change = t.now
    t.settle()
    eq(_lit(t, "s1")[0] != 3, True, "not an error yet")
    t.wait(1000 - 150 - 20)
    assert "error" not in t.link.kinds()
    t.wait(40)
    assert t.now - last_change <= 1000 + 20
    eq(t.link.kinds(), ["error"])
    eq(_lit(t, "s1"), (3, 5), "missing: red triple flash (the point is empty: put it back)")
    eq(_lit(t, "m5"), (3, 5), "extra: red triple flash (a piece on it: take it away)")
    eq(t.app.state_info()["error"], "missing:_s1;_extra:_m5")
    t.act("-m5", "+s1")
    eq(_lit(t, "s3"), (11, 1), "back to the legal position: whose turn shown")
    t.wait(2000)
    eq(t.link.moves, [])
    t.act("-s3", "+m5", "-m4")
    t.wait(400)
    eq(t.link.texts(), ["s3xm4-m5"])


def test_knocked_over_board_recovers_by_restoring():
    t = Table("mosona")
    t.setup()
    for name in ("n1", "n2", "m1", "s7", "s8"):
        t.lift(name)
    t.settle()
    t.wait(1500)
    eq(t.link.kinds(), ["error"])
    t.place("n1", "n2", "m1", "s7", "s8")
    t.settle()
    t.do("s3xm4-m5")
    eq(t.link.texts(), ["s3xm4-m5"])


# -- take-back ----------------------------------------------------------------------


def test_restoring_the_previous_position_takes_the_move_back():
    t = Table("mosona")
    t.setup()
    t.do("s3xm4-m5")
    t.act("-m5", "+s3", "+m4")
    eq(t.link.kinds()[-1], "takeback")
    eq(len(t.app.game.move_stack), 0)
    eq(t.app.phase, PLAY)
    t.do("s3xm4-m5")
    eq(t.link.moves, [(0, "s3xm4-m5"), (0, "s3xm4-m5")])


def test_back_button_takes_back_and_shows_the_position_to_restore():
    t = Table("mosona")
    t.setup()
    t.do("s3xm4-m5")
    t.press(2)
    eq(t.app.phase, SETUP)
    eq(len(t.app.game.move_stack), 0)
    eq(_lit(t, "m4"), (1, 2), "put the captured piece back: white slow blink")
    eq(_lit(t, "m5"), (3, 3), "take the mover off: red fast blink")
    t.act("-m5", "+s3", "+m4")
    eq(t.app.phase, PLAY)


def test_host_takeback_and_nothing_to_take_back():
    t = Table("mosona")
    t.setup()
    with raises(ValueError, "nothing to take back"):
        t.app.command("takeback", "")
    t.do("s3xm4-m5")
    t.app.command("takeback", "")
    eq(len(t.app.game.move_stack), 0)
    eq(t.app.state_info()["moves"], 0)


# -- the host's moves ---------------------------------------------------------------


def test_host_move_shown_then_done_right():
    t = Table("mosona")
    t.setup()
    t.do("s3xm4-m5")
    t.app.command("hostmove", "n5xm5-m4")
    eq(_lit(t, "n5"), (6, 4), "origin: blue double flash")
    eq(_lit(t, "m4"), (4, 4), "landing: green double flash")
    eq(_lit(t, "m5"), (7, 4), "capture: orange double flash")
    t.act("-n5", "+m4", "-m5")
    t.wait(400)
    eq(t.link.texts(), ["s3xm4-m5", "n5xm5-m4"])
    eq(t.app.play.host, None)


def test_host_move_done_wrong_is_said_and_not_committed():
    t = Table("mosona")
    t.setup()
    t.do("s3xm4-m5")
    t.app.command("hostmove", "n5xm5-m4")
    # The player makes the other legal capture instead.
    t.act("-m2", "+s3", "-s2")
    t.wait(1500)
    eq(t.link.texts(), ["s3xm4-m5"], "the wrong move is not committed")
    eq(t.link.kinds()[-1], "wrong")
    assert "expected n5xm5-m4" in t.link.events[-1][1], t.link.events
    eq(_lit(t, "n5")[0], 6, "the host's move is still shown")
    t.act("-s3", "+m2", "+s2")  # undo it
    t.act("-n5", "+m4", "-m5")
    t.wait(400)
    eq(t.link.texts(), ["s3xm4-m5", "n5xm5-m4"])


def test_quick_reply_after_host_move_is_not_lost():
    t = Table("mosona")
    t.setup()
    t.do("s3xm4-m5")
    t.app.command("hostmove", "n5xm5-m4")
    t.act("-n5", "+m4", "-m5")
    # Within the commit window the opponent already lifts the piece to answer.
    t.act("-m7")
    eq(t.link.texts(), ["s3xm4-m5", "n5xm5-m4"], "committed at the opponent's lift")
    t.act("+n5", "-n6")
    t.wait(400)
    eq(t.link.texts(), ["s3xm4-m5", "n5xm5-m4", "m7xn6-n5"])


def test_bad_host_commands_change_nothing():
    t = Table("mosona")
    with raises(ValueError, "no game in play"):
        t.app.command("hostmove", "s3xm4-m5")
    t.setup()
    with raises(ValueError, "zz9"):
        t.app.command("hostmove", "zz9-m5")
    with raises(ValueError, "s1-m5"):
        t.app.command("hostmove", "s1-m5")
    with raises(ValueError, "awithlaknakwe"):
        t.app.command("new", "awithlaknakwe")
    with raises(ValueError, "bogus"):
        t.app.command("new", "bogus")
    with raises(ValueError, "maybe"):
        t.app.command("agree", "maybe")
    with raises(ValueError, "west"):
        t.app.command("resign", "west")
    with raises(ValueError, "frobnicate"):
        t.app.command("frobnicate", "")
    eq(t.app.phase, PLAY)
    eq(t.app.play.host, None)
    eq(len(t.app.game.move_stack), 0)


# -- chains -------------------------------------------------------------------------


def test_chain_stopped_early_commits_on_ok():
    t = _resumed("kolowis size=short", KOLOWIS_CHAIN)
    t.act("-n7", "+s6", "-m7")
    t.wait(1000)
    eq(t.link.moves, [], "could go on: waits")
    eq(_lit(t, "s6"), (4, 2), "the mover blinks green: OK to end here")
    t.press(1)
    eq(t.link.texts(), ["n7xm7-s6"])
    remove_dir(t.dir)


def test_chain_stopped_early_commits_after_settle_time():
    t = _resumed("kolowis size=short", KOLOWIS_CHAIN)
    t.act("-n7", "+s6")
    t.act("-m7")
    t.wait(2000 - 150 - 40)
    eq(t.link.moves, [])
    t.wait(60)
    eq(t.link.texts(), ["n7xm7-s6"])
    remove_dir(t.dir)


def test_chain_stopped_early_commits_on_opponent_lift():
    t = _resumed("kolowis size=short", KOLOWIS_CHAIN)
    t.act("-n7", "+s6", "-m7")
    t.act("-s2")  # South lifts a piece the chain could not take next
    eq(t.link.texts(), ["n7xm7-s6"])
    eq(t.app.play.result.gone, [t.p("s2")], "South's lift now belongs to South's turn")
    remove_dir(t.dir)


def test_chain_goes_on_when_the_next_capture_is_lifted():
    t = _resumed("kolowis size=short", KOLOWIS_CHAIN)
    t.act("-n7", "+s6", "-m7")
    t.act("-s5")  # the piece the chain could take next: read as going on
    eq(t.link.moves, [])
    t.act("-s6", "+s4")
    t.wait(400)
    if not t.link.moves:
        t.press(1)
    eq(t.link.texts(), ["n7xm7-s6xs5-s4"])
    remove_dir(t.dir)


# -- custody, priests, passes -------------------------------------------------------

AWITH_CUSTODY = (
    "h1-g2 h14-i13 e1-d2 g14-h13 i1-j2 i13-h12 g2-h3 h13-i12 h3-i4 i12-h11 j2-k3 f14-e13 k3-j4 e13-f12 g1-f2 "
    "f12-g11 d2-e3 j14-k13 f2-g3 i14-h13 j1-k2 k13-l12 f1-e2 h11-i10 e3-f4 e14-d13 k2-l3 i10-h9 j4-i5 h13-g12 "
    "f4-g5 h9-g8 i4-h5 g8-f7 i5-j6 l12-k11 e2-f3 g12-f11 h5-i6 f11-g10 j6-i7 f7-g6 g5-f6 g10-f9 f6-e7 d13-c12 "
    "l3-m4 h12-i11 m4-n5 k11-l10 n5-m6 c12-d11 i7-j8 i11-h10 g3-h4 g6-h5"
).split()


def test_custody_capture_blinks_until_removed():
    t = _resumed("awithlaknakwe", AWITH_CUSTODY)
    move = t.app.game.parse_move("f3-g4")
    captured = [t.names[c] for c in move.captures]
    t.act("-f3", "+g4")
    t.wait(3000)
    eq(t.link.moves, [], "not committed while the captured piece is on the board")
    for c in captured:
        eq(_lit(t, c), (7, 3), "captured: orange fast blink")
    t.act(*["-" + c for c in captured])
    t.wait(400)
    eq(t.link.texts(), ["f3-g4"])
    remove_dir(t.dir)


def test_priest_entry_squares_are_shown():
    drop_line = (
        "f1-e2 i14-h13 e1-f2 g14-f13 f2-g3 h13-i12 h1-i2 i12-j11 j1-k2 h14-g13 e2-f3 f14-e13 i2-j3 e14-d13 j3-i4 "
        "g13-h12 i1-j2 d13-e12 k2-l3 j11-k10 g1-f2 e13-d12 l3-k4 e12-d11 i4-h5 d11-e10 g3-f4 e10-f9 k4-j5 k10-l9 "
        "f4-e5 h12-i11 j5-i6 d12-c11 h5-g6 j14-i13 e5-d6 l9-m8 f3-g4 i11-h10 g6-h7 m8-n7 g4-h5 f13-e12 f2-e3 "
        "i13-h12 e3-d4 h10-g9 d4-e5 f9-g8 j2-k3 h12-i11 d6-e7 c11-b10 e5-f6 b10-c9 k3-j4 i11-j10 j4-k5 j10-k9 "
        "f6-g7 e12-d11 g7-h8 k9-l8 k5-l6 g8-f7 l6-m7 c9-b8 m7-n8 g9-f8 h8-g9"
    ).split()
    t = _resumed("awithlaknakwe", drop_line)
    eq(_lit(t, "e14"), (8, 1), "priest entry square: magenta")
    t.act("+e14")
    t.wait(400)
    if t.app.game.move_stack[-1].text() != "@e14":
        t.act(*["-" + t.names[c] for c in t.app.play.pos.find(t.app.game.parse_move("@e14")).captures])
        t.wait(400)
    eq(t.link.texts(), ["@e14"])
    remove_dir(t.dir)


def test_forced_pass_is_committed_by_itself():
    import zuni
    from zuni_board.journal import Journal

    # A position where one side has no move: found by the rules engine, replayed here.
    line = (
        "f1-e2 i14-h13 e1-f2 g14-f13 f2-g3 h13-i12 h1-i2 i12-j11 j1-k2 h14-g13 e2-f3 f14-e13 i2-j3 e14-d13 j3-i4 "
        "g13-h12 i1-j2 d13-e12 k2-l3 j11-k10 g1-f2 e13-d12 l3-k4 e12-d11 i4-h5 d11-e10 g3-f4 e10-f9 k4-j5 k10-l9 "
        "f4-e5 h12-i11 j5-i6 d12-c11 h5-g6 j14-i13 e5-d6 l9-m8 f3-g4 i11-h10 g6-h7 m8-n7 g4-h5 f13-e12 f2-e3 "
        "i13-h12 e3-d4 h10-g9 d4-e5 f9-g8 j2-k3 h12-i11 d6-e7 c11-b10 e5-f6 b10-c9 k3-j4 i11-j10 j4-k5 j10-k9 "
        "f6-g7 e12-d11 g7-h8 k9-l8 k5-l6 g8-f7 l6-m7 c9-b8 m7-n8 g9-f8 h8-g9 d11-c10 i6-j7 @j14 j7-k8 j14-i13 "
        "g9-h10 f7-e6 h7-i8 i13-j12 n8-m9 e6-d5 h5-g6 l8-k7 i8-h9 c10-b9 h9-i10 j12-j11 e7-d8 k7-l6 d8-c9 b9-c8 "
        "k8-j9 j11-k11 m9-n10 n7-m6 g6-f7 b8-c7 n10-m11 c7-b6 c9-b10 k11-k10 h10-g11 l6-m5 g11-f12 m6-n5 i10-h11 "
        "k10-l9 h11-g12 m5-l4 f12-g13 l9-m8 j9-i10 m8-n8 b10-c11 n5-m4 m11-l12 b6-c5 l12-k13 l4-k3 f7-g8 m4-l3 "
        "c11-b12 l3-k2 g12-f13 n8-n7 i10-h11 c5-b4 h11-g12 k3-l2 k13-j14 k2-j1 f13-g14 n7-n6 b12-c13 n6-n5 "
        "g13-h14 c8-b7 g8-f9 n5-m5 f9-g10 b4-c3 g10-h11 d5-c4 g12-h13 b7-c6 h11-g12 c4-b3 g12-f13 b3-c2 h13-i14 "
        "c3-d2 f13-e14"
    ).split()
    last = "c6-d5"
    game = zuni.new_game("awithlaknakwe")
    for text in line + [last]:
        game.push_text(text)
    eq([m.text() for m in game.legal_moves()], ["pass"])
    d = temp_dir()
    journal_with(d, "awithlaknakwe", line)
    t = Table("awithlaknakwe", journal_dir=d)
    t.setup()
    t.do(last)
    eq(t.link.texts(), [last, "pass"], "the pass follows by itself")
    eq(t.app.describe().count("/double") > 0, True, "the pass is shown")
    eq(Journal(d).resume()[2][-2:], [last, "pass"])
    remove_dir(d)


# -- game over ----------------------------------------------------------------------


def test_natural_game_over_is_shown_and_sent():
    t = _resumed("mosona", MOSONA_END[:-1])
    t.do(MOSONA_END[-1])
    eq(t.app.phase, OVER)
    eq(t.link.events[-1], ("over", "south no-pieces"))
    eq(t.app.state_info()["result"], "south")
    # South's pieces blink in South's colour (yellow, slow).
    eq(_lit(t, "m1"), (9, 2))
    remove_dir(t.dir)


def test_resign_and_agree_end_the_game_and_back_undoes_it():
    t = Table("mosona")
    t.setup()
    t.app.command("resign", "north")
    eq(t.app.phase, OVER)
    eq(t.link.events[-1], ("over", "south resign"))
    with raises(ValueError, "over"):
        t.app.command("agree", "draw")
    t.press(2)  # BACK: the resignation is taken back
    eq(t.app.phase, PLAY)
    t.app.command("agree", "draw")
    eq(t.link.events[-1], ("over", "draw agreed-draw"))
    eq(_lit(t, "s1"), (1, 2), "a draw: every piece blinks white")


def test_ok_after_game_over_starts_a_new_game():
    t = Table("mosona")
    t.setup()
    t.app.command("resign", "south")
    old = t.app.game_id
    t.press(1)
    eq(t.app.phase, PLAY, "the pieces are still on their start points")
    eq(len(t.app.game.move_stack), 0)
    eq(t.app.game_id != old or old == "nojournal", True)


# -- host commands and buttons ------------------------------------------------------


def test_new_game_from_host_goes_to_setup():
    t = Table("mosona")
    t.setup()
    t.do("s3xm4-m5")
    t.app.command("new", "mosona board=open")
    eq(t.app.phase, SETUP)
    eq(str(t.app.game.ruleset), "mosona board=open")
    t.act("-m5", "+s3", "+m4")
    eq(t.app.phase, PLAY)


def _think(t, ms=2000):
    """Scans until the board shows its own hint (or ``ms`` pass)."""
    end = t.now + ms
    while t.app.play.hint_busy() and t.now < end:
        t.now += 10
        t.app.step(t.now, None, 0)


def _own_hint(game):
    """What the board's search picks in ``game``'s position, searched apart."""
    search = search_for(game)
    while not search.step(1000):
        pass
    return search.best


def test_hint_button_and_host_hint():
    t = Table("mosona")
    t.setup()
    t.press(4)
    eq(t.link.events[-1], ("button", "hint"))
    _think(t)
    best = _own_hint(t.app.game)
    eq(t.link.events[-1], ("hint", best.text()), "the board's own hint, told to the host")
    eq(_lit(t, t.app.game.geometry.names[best.origin]), (6, 4), "hint origin: blue double flash")
    t.do("s3xm4-m5")
    t.app.command("hint", "m2xs2-s3")
    eq(_lit(t, "m2"), (6, 4))
    t.app.command("hint", "")
    eq(_lit(t, "m2"), (12, 1), "hint cleared: whose turn again")


def test_hint_with_no_host_is_the_searchs_best_and_hint_again_cycles():
    t = Table("mosona")
    t.setup()
    t.play(["s3xm4-m5", "m2xs2-s3", "s4xs3-s2xm3-m4"])
    game = t.app.game
    best = _own_hint(game)
    # North's double capture beats the engine's first legal move (a single one).
    eq(len(best.captures), 2, "best: %s" % best.text())
    eq(len(game.legal_moves()[0].captures), 1)
    t.press(4)
    eq(t.app.play.hint, None, "thinking: nothing shown yet")
    scans = 0
    while t.app.play.hint is None:
        t.now += 10
        t.app.step(t.now, None, 0)
        scans += 1
        assert scans < 200, "no hint after 2 s"
    eq(t.app.play.hint.move, best)
    eq(t.link.events[-1], ("hint", best.text()))
    names = game.geometry.names
    eq(_lit(t, names[best.origin]), (6, 4), "origin: blue double flash")
    eq(_lit(t, names[best.dest]), (4, 4), "landing: green double flash")
    for c in best.captures:
        eq(_lit(t, names[c]), (7, 4), "captured: orange double flash")
    # HINT again: the next legal move, as before the board could think.
    t.press(4)
    foot = t.app.play.pos.foot
    eq(t.app.play.hint, foot[(foot.index(t.app.play.pos.find(best)) + 1) % len(foot)])
    # The hinted move played: the game goes on (the hint was only a suggestion).
    t.do(best.text())
    eq(t.app.play.hint, None)


def _hint_scans(ruleset, moves):
    """HINT in ``ruleset`` after ``moves``, with none of the search's code loaded: per
    scan until the hint is shown, the search's modules it loaded, whether a search was
    there at its start and at its end, the slices it ran; and the hint shown."""
    t = Table(ruleset)
    t.setup()
    t.play(moves)
    best = _own_hint(t.app.game)
    play = t.app.play
    play.gc_due = False  # the last commit's collection done (it is a scan's work too)
    unload(HINT_CODE, True)  # as the board is before a HINT (on CPython too, for this test)
    t.press(4)
    eq([m for m in HINT_CODE if m in sys.modules], [], "nothing loaded in the press's scan")
    assert play.hint_busy(), "thinking"
    scans = []
    while play.hint is None:
        assert len(scans) < 300, "no hint after 3 s"
        before = [m for m in HINT_CODE if m in sys.modules]
        search = play.thinking
        slices = search.slices if search is not None else 0
        t.now += 10
        t.app.step(t.now, None, 0)
        loaded = [m for m in HINT_CODE if m in sys.modules and m not in before]
        ran = search.slices - slices if search is not None else 0
        scans.append((loaded, search is not None, play.thinking is not None, ran))
    return t, best, scans


def _check_hint_scans(ruleset, moves, code):
    # CPython keeps modules loaded (zuni_board.unload): the ones the other tests hold are
    # put back after this one loaded its own copies.
    saved = [(m, sys.modules[m]) for m in HINT_CODE if m in sys.modules]
    try:
        _check_hint_scans_of(ruleset, moves, code)
    finally:
        for name, module in saved:
            sys.modules[name] = module
            package, _, attr = name.rpartition(".")
            setattr(sys.modules[package], attr, module)


def _check_hint_scans_of(ruleset, moves, code):
    t, best, scans = _hint_scans(ruleset, moves)
    eq(t.app.play.hint.move, best, "the hint is the search's best")
    eq(t.link.events[-1], ("hint", best.text()))
    loads = [s[0] for s in scans if s[0]]
    # One module a scan, in the order that needs no import within an import (the code
    # of a module loaded with it would load in the same scan).
    eq(loads, [[m] for m in code], "one module a scan")
    for i, (loaded, had, has, ran) in enumerate(scans):
        assert ran <= 1, "scan %d ran %d slices" % (i, ran)
        assert not (loaded and (had or has)), "scan %d loaded %s with a search there" % (i, loaded)
        if not had and has:
            eq(ran, 0, "scan %d made the search and ran it too" % i)
    made = [i for i, s in enumerate(scans) if not s[1] and s[2]]
    eq(len(made), 1, "the search is made once")
    # The scan after the last import collects the imports' garbage: nothing else.
    last_load = max(i for i, s in enumerate(scans) if s[0])
    eq(made[0], last_load + 2, "a scan of its own for the collection")
    # The search ended in a scan (a slice, then dropped and unloaded), the hint shown in
    # the next one, which runs nothing of the search.
    assert scans[-2][1] and not scans[-2][2], "the search dropped the scan before the hint"
    eq(scans[-1][1:], (False, False, 0), "the showing scan only shows")
    if sys.implementation.name == "micropython":
        eq([m for m in HINT_CODE if m in sys.modules], [], "the search's code unloaded")
    assert t.app.play.gc_due, "its garbage is collected in a quiet scan after"
    t.now += 10
    t.app.step(t.now, None, 0)
    eq(t.app.play.gc_due, False)


def test_the_line_hint_loads_one_module_a_scan_and_no_scan_does_two_steps():
    _check_hint_scans(
        "mosona",
        ["s3xm4-m5", "m2xs2-s3", "s4xs3-s2xm3-m4"],
        ("zuni_board.hintrun", "zuni.linefast", "zuni_board.linehint"),
    )


def test_the_kolowis_hint_is_spread_over_scans_too():
    _check_hint_scans("kolowis", [], ("zuni_board.hintrun", "zuni.linefast", "zuni_board.linehint"))


def test_the_awithlaknakwe_hint_loads_its_tables_in_scans_of_their_own():
    code = ("zuni_board.hintrun", "zuni.awith_reach", "zuni.evaluate_awith", "zuni_board.hint")
    _check_hint_scans("awithlaknakwe", [], code)


def test_a_lift_while_the_board_thinks_cancels_the_hint():
    t = Table("mosona")
    t.setup()
    t.press(4)
    t.now += 10
    t.app.step(t.now, None, 0)
    assert t.app.play.hint_busy(), "thinking"
    t.act("-s3")
    eq(t.app.play.hint_busy(), False, "the lift cancelled the search")
    eq(t.app.play.thinking, None)
    t.wait(2000)
    eq(t.app.play.hint, None, "no hint comes later")
    eq([e for e in t.link.events if e[0] == "hint"], [])
    eq(t.app.game.key(), zuni.new_game("mosona").key(), "the game is back in its position")
    t.act("+s3")
    t.do("s3xm4-m5")
    eq(len(t.app.game.move_stack), 1)


class _HostLink(RecordingLink):
    """A link whose host is connected (the session's host_present)."""

    def host_present(self, now):
        return True


def test_a_connected_host_has_a_moment_to_send_its_own_hint():
    t = Table("mosona", link=_HostLink())
    t.setup()
    t.play(["s3xm4-m5", "m2xs2-s3", "s4xs3-s2xm3-m4"])
    t.press(4)
    t.wait(HOST_HINT_MS - 50, 10)
    eq(t.app.play.hint, None, "the board waits for the host's hint")
    own = _own_hint(t.app.game)
    other = [m.text() for m in t.app.game.legal_moves() if m != own][0]
    t.app.command("hint", other)
    eq(t.app.play.hint.move.text(), other, "the host's hint")
    t.wait(2000, 10)
    eq(t.app.play.hint.move.text(), other, "the board's own never replaces it")
    eq([e for e in t.link.events if e[0] == "hint"], [])
    # The host does not answer: the board's own hint after HOST_HINT_MS.
    t.do(other)
    t.press(4)
    pressed = t.now
    while t.app.play.hint is None:
        t.now += 10
        t.app.step(t.now, None, 0)
        assert t.now - pressed < 2000, "no hint"
    assert t.now - pressed >= HOST_HINT_MS, "shown after %d ms" % (t.now - pressed)
    eq(t.link.events[-1], ("hint", _own_hint(t.app.game).text()))


def test_a_slow_chip_shows_the_hint_in_time():
    # Scans 400 ms apart (a board far slower than the search's budget assumes): the
    # app's cap ends the search and shows the best move found by then.
    t = Table("kolowis")
    t.setup()
    t.press(4)
    pressed = t.now
    while t.app.play.hint is None:
        t.now += 400
        t.app.step(t.now, None, 0)
        assert t.now - pressed <= HINT_THINK_MS + 800, "no hint in time"
    assert t.app.play.hint.move in t.app.game.legal_moves()


def test_ledtest_then_back_to_the_game():
    t = Table("mosona")
    t.setup()
    t.app.command("ledtest", "")
    eq(t.app.describe().count("red/steady"), 25)
    t.wait(2100)
    eq(t.app.describe(), "s3:dim-yellow/steady")
    eq(t.app.frame_dirty(t.now), True)
    import sys

    # The bring-up code is loaded only while it runs (heap for the game).
    eq("zuni_board.ledcheck" in sys.modules, False, "ledcheck unloaded again")


def test_led_walk_in_chain_order_with_events():
    t = Table("mosona")
    # Wire the chain backwards: point i on LED 24 - i, so chain order is not point order.
    layout = board_layout("mosona")
    for name in layout.points:
        layout.points[name][1] = 24 - layout.points[name][1]
    link = RecordingLink()
    from zuni_board.app import BoardApp

    app = BoardApp(layout, "mosona", None, link)
    t.app = app
    t.link = link
    t.setup()
    app.command("ledtest", "walk 40", t.now)
    names = app.game.geometry.names
    eq(link.events[-2], ("ledwalk", "start 25 40"))
    eq(link.events[-1], ("ledwalk", "0 %s" % names[24]), "LED 0 serves the last point")
    eq(app.describe(), "%s:white/steady" % names[24], "one LED lit")
    lit = [app.describe()]
    for _ in range(24):
        t.wait(40, step=40)
        lit.append(app.describe())
    walk = [e for e in link.events if e[0] == "ledwalk"]
    eq([e[1] for e in walk[1:]], ["%d %s" % (k, names[24 - k]) for k in range(25)], "every LED once, in chain order")
    eq(lit, ["%s:white/steady" % names[24 - k] for k in range(25)], "one LED at a time")
    t.wait(40, step=40)
    eq(link.events[-1], ("ledwalk", "end 25"))
    eq(app.describe(), "s3:dim-yellow/steady", "back to the game")
    with raises(ValueError, "walk"):
        app.command("ledtest", "run")
    with raises(ValueError, "5000"):
        app.command("ledtest", "walk 9999")
    with raises(ValueError, "walk"):
        app.command("ledtest", "walk 40 40")
    eq(app.describe(), "s3:dim-yellow/steady", "a refused walk changes nothing")


def test_every_button_press_is_an_event():
    t = Table("mosona")
    t.press(4)  # HINT during setup: nothing to show, still reported
    t.press(1)
    t.press(2)
    eq(t.link.events, [("button", "hint"), ("button", "ok"), ("button", "back")])
    eq(t.app.phase, SETUP, "the presses did nothing in setup")
    t.setup()
    t.do("s3xm4-m5")
    t.press(2)  # BACK takes the move back, and is reported first
    eq(t.link.kinds()[-2:], ["button", "takeback"])
    eq(t.link.events[-2], ("button", "back"))
    t.press(1 | 4)
    eq(t.link.events[-2:], [("button", "ok"), ("button", "hint")], "two at once: both")


def test_state_is_sent_when_setup_turns_into_play():
    t = Table("mosona")
    before = t.link.states
    t.place("s3")
    t.settle()
    eq(t.link.states, before, "still setting up")
    t.setup()
    eq(t.link.states, before + 1, "set up: the host is told")
    t.do("s3xm4-m5")
    t.app.command("takeback", "")
    eq(t.app.phase, SETUP)
    n = t.link.states
    t.setup()
    eq(t.link.states, n + 1, "set up again after the take-back")


def test_raw_on_sends_the_sensed_occupancy_first():
    t = Table("mosona")
    t.place("m5", "s3")
    t.settle()
    t.app.command("raw", "on")
    bits = ["0"] * 25
    bits[t.p("m5")] = "1"
    bits[t.p("s3")] = "1"
    eq(t.link.events[-1], ("sensed", "".join(bits)), "what the switches show now")
    eq(t.app.state_info()["occupancy"], bytes([1 if b == "1" else 0 for b in bits]), "state has it too")
    t.app.command("raw", "off")
    eq(t.link.events[-1][0], "sensed", "off sends nothing")


def test_raw_sensor_events():
    t = Table("mosona")
    t.setup()
    t.app.command("raw", "on")
    t.act("-s3")
    eq(t.link.events[-1], ("raw", "-s3"))
    t.app.command("raw", "off")
    t.act("+s3")
    eq(t.link.events[-1], ("raw", "-s3"))


def test_standalone_without_link_or_buttons():
    t = Table("mosona", link=None)
    t.app.link = None
    t.setup()
    t.do("s3xm4-m5")
    t.do("n5xm5-m4")
    eq([m.text() for m in t.app.game.move_stack], ["s3xm4-m5", "n5xm5-m4"])


def test_state_and_hello_info_for_the_link():
    t = Table("mosona", link=RecordingLink())
    t.setup()
    t.do("s3xm4-m5")
    info = t.app.state_info()
    eq(info["moves"], 1)
    eq(info["phase"], "play")
    eq(info["turn"], "north")
    hello = t.app.hello_info()
    eq(hello["ruleset"], "mosona")
    eq(hello["layout"], "test25")
    eq("id" in hello, False, "no id given: none sent")
    from zuni_board.app import BoardApp

    app = BoardApp(t.layout, "mosona", None, None, "e6614104032b5c2a")
    eq(app.hello_info()["id"], "e6614104032b5c2a", "the board's unique id")
    eq(info["occupancy"], bytes(t.occ), "the sensed occupancy")
    eq(t.app.moves_from(0), ["s3xm4-m5"])
    eq(t.app.moves_from(1), [])


# -- journal and resume -------------------------------------------------------------


def test_resume_after_reset_waits_for_the_pieces():
    d = temp_dir()
    t = Table("mosona", journal_dir=d)
    t.setup()
    t.do("s3xm4-m5")
    t.do("n5xm5-m4")
    # Power cut: a new app on the same journal, the pieces where they were.
    t2 = Table("mosona", journal_dir=d)
    eq(t2.app.phase, SETUP)
    eq(t2.app.game_id, t.app.game_id)
    eq(t2.app.moves_from(0), ["s3xm4-m5", "n5xm5-m4"])
    t2.occ[:] = t.occ
    t2.settle()
    eq(t2.app.phase, PLAY)
    t2.do("m6xm5-m4" if False else t2.app.play.pos.moves[0].text())
    eq(len(t2.app.game.move_stack), 3)
    remove_dir(d)


def test_finished_game_in_journal_is_not_resumed():
    d = temp_dir()
    journal_with(d, "mosona", MOSONA_END)
    t = Table("mosona", journal_dir=d)
    eq(len(t.app.game.move_stack), 0, "a new game")
    remove_dir(d)


# -- a failing journal --------------------------------------------------------------


class FailingJournal(Journal):
    """A real journal (files in a temp dir) whose writes fail while ``fail`` is an errno,
    as littlefs raises on a full or broken flash: the hardware fault the board cannot
    make here on demand."""

    def __init__(self, directory):
        Journal.__init__(self, directory)
        self.fail = 0

    def _check(self):
        if self.fail:
            raise OSError(self.fail)

    def start(self, ruleset_text, game_id=None):
        self._check()
        return Journal.start(self, ruleset_text, game_id)

    def move(self, index, text):
        self._check()
        Journal.move(self, index, text)

    def takeback(self, index):
        self._check()
        Journal.takeback(self, index)

    def end(self, how, arg):
        self._check()
        Journal.end(self, how, arg)

    def rewrite(self, moves):
        self._check()
        Journal.rewrite(self, moves)

    def make_room(self):
        self._check()
        return Journal.make_room(self)


def _failing_table(ruleset):
    d = temp_dir()
    t = Table(ruleset, journal_dir=d)
    j = FailingJournal(d)
    j.start(ruleset)
    t.app.journal = j
    t.app.outbox.journal = j
    t.dir = d
    return t, j


def test_journal_write_error_keeps_the_game_going_and_recovers():
    # Flash full (ENOSPC) during a commit: the move is still made and sent, every later
    # move too; the host and the LEDs are told; once the flash takes writes again the
    # whole game is written back, so a reset resumes it with nothing lost.
    t, j = _failing_table("mosona")
    t.setup()
    t.do("s3xm4-m5")
    j.fail = 28
    t.do("n5xm5-m4")
    eq(t.link.texts(), ["s3xm4-m5", "n5xm5-m4"], "the move is made and sent")
    errors = [e[1] for e in t.link.events if e[0] == "error"]
    assert errors and "journal failing" in errors[0], t.link.events
    eq(t.app.state_info().get("journal"), "failing")
    eq(t.app.play.pos is not None and t.app.phase, PLAY, "play goes on")
    t.do("m7xn6-n5")
    eq(len(t.link.moves), 3, "later moves are not ignored")
    eq(Journal(t.dir).resume()[2], ["s3xm4-m5"], "nothing half written in the meantime")
    j.fail = 0
    t.do("m2xs2-s3xs4-m5xn5-n6xm6-m5")
    eq(t.app.state_info().get("journal"), None, "the journal works again")
    eq(t.link.kinds().count("journal"), 1, "and the host is told")
    t2 = Table("mosona", journal_dir=t.dir)
    eq(t2.app.game_id, t.app.game_id, "the same game")
    eq(t2.app.moves_from(0), MOSONA_END[:4], "the whole game is back in the journal")
    remove_dir(t.dir)


def test_journal_failing_is_shown_on_the_leds():
    t, j = _failing_table("mosona")
    t.setup()
    j.fail = 5  # EIO: a littlefs error
    t.do("s3xm4-m5")
    assert "red/fast" in t.app.describe(), t.app.describe()
    t.wait(2000)
    assert "red/fast" not in t.app.describe(), "a notice: then the game again"
    remove_dir(t.dir)


def test_takeback_and_new_game_with_a_failing_journal():
    t, j = _failing_table("mosona")
    t.setup()
    t.do("s3xm4-m5")
    j.fail = 28
    t.app.command("takeback", "")
    eq(len(t.app.game.move_stack), 0, "taken back although the journal failed")
    eq(t.link.kinds().count("takeback"), 1)
    t.app.command("new", "mosona")
    assert t.app.game_id.startswith("nojournal-"), t.app.game_id
    eq(t.app.phase, SETUP, "a new game although no file could be started")
    t.setup()
    j.fail = 0
    t.do("s3xm4-m5")
    t2 = Table("mosona", journal_dir=t.dir)
    eq(t2.app.game_id, t.app.game_id, "written under the id the host knows")
    eq(t2.app.moves_from(0), ["s3xm4-m5"])
    remove_dir(t.dir)


def test_full_flash_makes_room_by_deleting_the_oldest_other_game():
    d = temp_dir()
    old = journal_with(d, "mosona", MOSONA_END)  # a finished game: the app starts a new one
    old_id = old.numbers()[0]
    t = Table("mosona", journal_dir=d)
    eq(len(old.numbers()), 2, "the old game and the new")
    j = FailingJournal(d)
    j.resume()
    t.app.journal = j
    t.app.outbox.journal = j
    t.setup()

    def full_once(index, text, _move=j.move):
        # ENOSPC until another game's file is deleted.
        if old_id in j.numbers():
            raise OSError(28)
        _move(index, text)

    j.move = full_once
    t.do("s3xm4-m5")
    eq(t.app.state_info().get("journal"), None, "room was made: no degraded mode")
    assert old_id not in j.numbers(), j.numbers()
    eq(Journal(d).resume()[2], ["s3xm4-m5"])
    remove_dir(d)


def test_commit_scan_writes_no_flash_the_next_scans_complete_then_write_then_send():
    # As firmware/main.py runs it (defer_writes): the commit's own scan does the commit
    # and its LED frame only (the move's picture gone); the next scan makes the new
    # position's legal moves and its picture, the one after writes the journal record
    # and then sends the move to the host, in the order they were made.
    d = temp_dir()
    t = Table("mosona", journal_dir=d)
    t.app.defer_writes()
    t.setup()
    t.wait(20)
    states = t.link.states
    assert states >= 1, "the setup's state went out in the scan after"
    t.act("-s3", "+m5", "-m4")
    eq(t.app.play.commits, 1, "committed by the scan that saw it stable")
    eq(t.link.moves, [], "nothing sent in the commit's scan")
    eq(Journal(d).resume()[2], [], "nothing written in the commit's scan")
    assert t.app.frame_dirty(t.now), "but the new picture is due"
    eq(t.app.describe(), "", "the commit's frame: the move's picture is gone")
    eq(t.app.play.pos, None, "the next position is the next scan's work")
    t.wait(10, 10)
    assert t.app.play.pos.moves, "the next scan made them"
    eq(_lit(t, "n5"), (12, 1), "and the new picture: North's pieces that may move, dim cyan")
    eq(Journal(d).resume()[2], [], "not yet written")
    t.wait(10, 10)
    eq(Journal(d).resume()[2], ["s3xm4-m5"], "written in the scan after")
    eq(t.link.moves, [(0, "s3xm4-m5")], "and then sent")
    # The host asking in the commit's own scan gets nothing the journal lacks: what it
    # reads is written (and sent) first.
    t.act("-n5", "+m4")
    t.act("-m5")
    while t.app.play.commits < 2:
        t.wait(10, 10)
    eq(len(t.link.moves), 1, "not sent yet")
    eq(t.app.state_info()["moves"], 2)
    eq(Journal(d).resume()[2], ["s3xm4-m5", "n5xm5-m4"], "written before the state was read")
    eq(t.link.texts(), ["s3xm4-m5", "n5xm5-m4"], "and the move sent before the state")
    remove_dir(d)


# -- with LINK's real session -------------------------------------------------------


def test_with_the_link_session_deferred_writes_keep_the_order():
    # As on the board (defer_writes): the session reading the state in the commit's own
    # scan writes the journal and sends the move first; nothing is sent twice.
    from board_helpers import MemoryPort

    from zuni_link.session import BoardSession

    d = temp_dir()
    t = Table("mosona", link=None, journal_dir=d)
    t.app.defer_writes()
    port = MemoryPort()
    session = BoardSession(port, t.app, boot_id="b00t02")
    t.app.attach(session)
    t.setup()
    port.send(1, "hello", "proto=1 host=test")
    session.poll(t.now)
    port.frames()
    t.act("-s3", "+m5", "-m4")
    while not t.app.play.commits:
        t.wait(10, 10)
    port.send(2, "state", "")
    session.poll(t.now)  # in the commit's scan
    verbs = [f[1] for f in port.frames()]
    assert "move" in verbs and verbs.index("move") < len(verbs) - 1, verbs
    eq(Journal(d).resume()[2], ["s3xm4-m5"])
    t.wait(40, 10)
    session.poll(t.now)
    eq([f[1] for f in port.frames()].count("move"), 0, "the move was sent once")
    remove_dir(d)


def test_with_the_link_session_host_move_commit_and_errors():
    from board_helpers import MemoryPort

    from zuni_link.codec import kv_decode
    from zuni_link.session import BoardSession

    t = Table("mosona", link=None)
    port = MemoryPort()
    session = BoardSession(port, t.app, boot_id="b00t01")
    t.app.attach(session)
    t.setup()
    session.poll(t.now)
    port.send(1, "hello", "proto=3 host=test")
    session.poll(t.now)
    hello = [f for f in port.frames() if f[1] == "hello"][-1]
    kv = kv_decode(hello[2])
    eq(kv["ruleset"], "mosona")
    eq(kv["moves"], "0")
    eq(kv["game"], t.app.game_id)
    # The player's move goes to the host.
    t.do("s3xm4-m5")
    session.poll(t.now)
    moves = [f for f in port.frames() if f[1] == "move"]
    eq(len(moves), 1)
    assert " 0 s3xm4-m5 " in moves[0][2], moves
    # An illegal host move is refused with a reason and changes nothing.
    port.send(2, "hostmove", "n1-m5")
    session.poll(t.now)
    errs = [f for f in port.frames() if f[1] == "err"]
    eq(len(errs), 1)
    assert "n1-m5" in errs[0][2] and "illegal" in errs[0][2], errs
    eq(t.app.play.host, None)
    # The host's move is carried out on the board and committed.
    port.send(3, "hostmove", "n5xm5-m4")
    session.poll(t.now)
    eq([f[1] for f in port.frames()], ["ok"])
    t.act("-n5", "+m4", "-m5")
    t.wait(400)
    session.poll(t.now)
    moves = [f for f in port.frames() if f[1] == "move"]
    eq(len(moves), 1)
    assert " 1 n5xm5-m4 " in moves[0][2], moves
    # Resignation through the link: the result reaches the host.
    port.send(4, "resign", "south")
    session.poll(t.now)
    frames = port.frames()
    events = [f[2] for f in frames if f[1] == "event"]
    eq(events, ["over north resign"])
    state = [kv_decode(f[2]) for f in frames if f[1] == "state"][-1]
    eq(state["phase"], "over")
    eq(state["result"], "north")


def test_with_the_link_session_walk_snapshot_id_and_setup_state():
    from board_helpers import MemoryPort

    from zuni_board.app import BoardApp
    from zuni_link.codec import kv_decode
    from zuni_link.session import BoardSession

    t = Table("mosona", link=None)
    t.app = BoardApp(t.layout, "mosona", None, None, "e6614104032b5c2a")
    port = MemoryPort()
    session = BoardSession(port, t.app, boot_id="b00t02")
    t.app.attach(session)
    session.poll(t.now)
    port.send(1, "hello", "proto=3 host=test")
    session.poll(t.now)
    hello = [kv_decode(f[2]) for f in port.frames() if f[1] == "hello"][-1]
    eq(hello["id"], "e6614104032b5c2a", "hello names the board")
    # Setup done: the board says so with a state of its own (re=0).
    t.setup()
    session.poll(t.now)
    states = [kv_decode(f[2]) for f in port.frames() if f[1] == "state"]
    eq([(s["re"], s["phase"]) for s in states], [("0", "play")])
    eq(states[0]["occupancy"], "".join(["1" if v else "0" for v in t.occ]))
    # raw on: the snapshot comes before the reply.
    port.send(2, "raw", "on")
    session.poll(t.now)
    eq([(f[1], f[2].split(" ")[0]) for f in port.frames()], [("event", "sensed"), ("ok", "2")])
    # The LED walk, chain order (LED i serves point i on this test layout).
    port.send(3, "ledtest", "walk 20")
    session.poll(t.now)
    frames = port.frames()
    eq([f[2] for f in frames if f[1] == "event"], ["ledwalk start 25 20", "ledwalk 0 %s" % t.names[0]])
    for _ in range(25):
        t.wait(20, step=20)
        session.poll(t.now)
    events = [f[2] for f in port.frames() if f[1] == "event"]
    eq(len(events), 25)
    eq(events[-1], "ledwalk end 25")
    port.send(4, "ledtest", "walk 20 30 40")
    session.poll(t.now)
    errs = [f[2] for f in port.frames() if f[1] == "err"]
    assert errs and " args " in " " + errs[0], errs


def test_scan_without_change_allocates_nothing():
    # Under MicroPython the heap is locked: any allocation in the hot path raises
    # MemoryError. (CPython has no heap lock; there the loop just runs.)
    import micropython

    for deferred in (False, True):
        t = Table("mosona")
        if deferred:
            # As the outer loop runs it: once a commit's work is done (the next
            # position's moves, the journal record and the message, the collection).
            t.app.defer_writes()
            t.setup()
            t.act("-s3", "+m5", "-m4")
            t.wait(40, 10)
            eq(t.link.texts(), ["s3xm4-m5"])
            t.act("-n5", "+m4")  # a half-made move: the captured piece blinks fast
        else:
            t.setup()
            t.act("-s3", "+m5")  # a half-made move: the captured piece blinks fast
        app = t.app
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
        assert frames >= 20, frames  # 3 s of a 4 Hz blink: a new frame at every change
        eq(len(t.link.moves), 1 if deferred else 0)


# -- a resume replayed over scans (firmware/main.py's RESUME_SLICE) -------------------------


def _left(app):
    """Moves of a resumed game still to replay."""
    return 0 if app.replay is None else len(app.replay) - app.replayed


def _sliced(d, texts, slice_moves=2, link=None):
    journal_with(d, "mosona", texts)
    from zuni_board.app import BoardApp

    return BoardApp(board_layout("mosona"), "mosona", d, link or RecordingLink(), "", slice_moves)


def test_resume_in_slices_answers_the_host_from_the_journal_first():
    from board_helpers import MemoryPort

    from zuni_link.session import BoardSession, digest_seed, digest_step, hex8

    d = temp_dir()
    texts = MOSONA_END[:6]
    app = _sliced(d, texts)
    eq(len(app.game.move_stack), 0, "nothing replayed in the constructor")
    eq(_left(app), 6)
    if sys.implementation.name == "micropython":
        eq("zuni_board.journalread" in sys.modules, False, "the journal's reader unloaded after the boot")
    port = MemoryPort()
    session = BoardSession(port, app, boot_id="b00t01")
    app.attach(session)
    session.poll(0)  # the boot hello, before any move is replayed
    hello = [f for f in port.frames() if f[1] == "hello"]
    eq(len(hello), 1)
    from zuni_link.codec import kv_decode

    kv = kv_decode(hello[0][2])
    chain = digest_seed(app.game_id)
    for text in texts:
        chain = digest_step(chain, text)
    got = (kv["moves"], kv["digest"], kv["game"], kv["phase"], kv["resuming"])
    eq(got, ("6", hex8(chain), app.game_id, "setup", "6"))
    state = app.state_info()
    eq((state["moves"], state["resuming"], "turn" in state), (6, 6, False))
    eq(app.moves_from(4), texts[4:])
    eq(app.moves_from(1, 2), texts[1:3])
    # Each scan replays at most two moves (bounded work), the last scan ends the resume.
    done = []
    for now in (10, 20, 30):
        eq(app.phase, SETUP)
        app.step(now, None, 0)
        done.append(len(app.game.move_stack))
    eq(done, [2, 4, 6])
    eq(_left(app), 0)
    eq(app.moves_from(0), texts)
    eq(app.state_info()["turn"] in ("south", "north"), True)
    session.poll(40)
    states = [kv_decode(f[2]) for f in port.frames() if f[1] == "state"]
    eq([(s["moves"], s["digest"], "resuming" in s) for s in states], [("6", hex8(chain), False)], "the end told")
    remove_dir(d)


def test_a_game_with_no_move_yet_is_resumed_whole_in_the_constructor():
    # Every boot after a new game: nothing to replay, so no replay scans, no "resuming"
    # in the boot hello and no state after it (which loaded the host's code at boot).
    d = temp_dir()
    first = _sliced(d, [])
    from zuni_board.app import BoardApp

    link = RecordingLink()
    app = BoardApp(board_layout("mosona"), "mosona", d, link, "", 2)
    eq((app.replay, app.game_id, app.phase), (None, first.game_id, SETUP))
    eq("resuming" in app.hello_info(), False)
    app.step(10, None, 0)
    eq(link.states, 0, "no state to end a replay")
    if sys.implementation.name == "micropython":
        eq("zuni_board.resume" in sys.modules, False, "the resume's code unloaded at once")
    remove_dir(d)


def test_power_cut_during_a_sliced_resume_loses_nothing():
    d = temp_dir()
    texts = MOSONA_END[:6]
    app = _sliced(d, texts)
    path = app.journal.path
    with open(path) as f:
        before = f.read()
    app.step(10, None, 0)
    eq(len(app.game.move_stack), 2)
    # The power is cut here; at the next boot the whole game comes back.
    with open(path) as f:
        eq(f.read(), before, "nothing written while the resume runs")
    again = _sliced_again(d)
    eq([m.text() for m in again.game.move_stack], texts)
    eq(again.game_id, app.game_id)
    remove_dir(d)


def _sliced_again(d):
    from zuni_board.app import BoardApp

    return BoardApp(board_layout("mosona"), "mosona", d, RecordingLink(), "", 0)


def test_sliced_resume_of_a_finished_game_starts_a_new_one_and_says_so():
    d = temp_dir()
    link = RecordingLink()
    app = _sliced(d, MOSONA_END, 4, link)
    old = app.game_id
    for now in (10, 20, 30):
        app.step(now, None, 0)
    eq(_left(app), 0)
    eq((len(app.game.move_stack), app.game_id != old, link.states), (0, True, 1))
    remove_dir(d)


def test_pieces_and_presses_during_a_sliced_resume_wait_for_it():
    d = temp_dir()
    link = RecordingLink()
    texts = MOSONA_END[:6]
    app = _sliced(d, texts, 2, link)
    # Where the pieces stand after the six moves: the board is set up while it replays.
    game = zuni.new_game("mosona")
    for text in texts:
        game.push_text(text)
    app.step(10, bytearray(game.occupancy()), 4)  # pieces sensed and HINT, in the first scan
    eq((app.phase, link.kinds()), (SETUP, []))
    app.step(20, None, 0)
    app.step(30, None, 0)
    eq(app.phase, PLAY, "the pieces sensed during the resume start play")
    eq(link.kinds(), ["button"], "the press acted after the resume")
    remove_dir(d)


def test_a_host_command_during_a_sliced_resume_finishes_it_or_replaces_it():
    d = temp_dir()
    texts = MOSONA_END[:6]
    app = _sliced(d, texts)
    app.step(10, None, 0)
    app.command("button", "ok", 15)  # needs the position: the rest replayed at once
    eq((_left(app), len(app.game.move_stack)), (0, 6))
    remove_dir(d)
    d = temp_dir()
    app = _sliced(d, texts)
    old = app.game_id
    app.command("new", "mosona", 5)  # a new game: no need of the old one's position
    eq((_left(app), len(app.game.move_stack), app.game_id != old), (0, 0, True))
    app.step(10, None, 0)
    eq(len(app.game.move_stack), 0, "the old replay does not come back")
    remove_dir(d)
