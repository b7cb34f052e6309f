"""The staged setup of a position (``BoardApp.cmd_setup``): one side's pieces at a time,
OK or a settle time between sides, the journal's start position. CPython and MicroPython."""

from board_helpers import Table, remove_dir, temp_dir

from check import eq, raises
from zuni_board.app import PLAY, SETUP
from zuni_board.journal import Journal
from zuni_board.staged import SETUP_SETTLE_MS

MOSONA = "mosona | north to move | south s3 s5 | north m4"
AWITH4 = "awithlaknakwe players=4 | south to move | south e1 f1 | west a6 | north e14 priest f14 | east n7"


def _placed(t):
    return [t.names[i] for i in range(t.n) if t.app.target[i]]


def _fill(t):
    """Put the pieces the board asks for now where they are lit."""
    target = t.app.target
    for i in range(t.n):
        t.occ[i] = target[i]
    t.settle()


def test_setup_goes_one_side_at_a_time_and_settles_without_buttons():
    t = Table("mosona")
    t.setup()
    t.app.command("setup", MOSONA)
    eq(t.app.phase, SETUP)
    eq(t.app.setup_side(), "south")
    eq(t.app.state_info()["setup"], "south")
    # The board shows only South's points; North's stay dark until South's are placed.
    t.occ = bytearray(t.n)
    t.settle()
    eq(sorted(_placed(t)), ["s3", "s5"])
    t.place("s3")
    t.settle()
    t.wait(SETUP_SETTLE_MS + 100)
    eq(t.app.setup_side(), "south")  # one missing: no going on
    t.place("s5")
    t.settle()
    t.wait(SETUP_SETTLE_MS - 100)
    eq(t.app.setup_side(), "south")  # not settled yet
    t.wait(200)
    eq(t.app.setup_side(), "north")
    eq(sorted(_placed(t)), ["m4", "s3", "s5"])
    eq(("setup", "north") in t.link.events, True)
    t.place("m4")
    t.settle()
    eq(t.app.phase, PLAY)
    eq(t.app.game.turn, 2)  # north
    eq(t.app.state_info()["position"], MOSONA)
    t.do("m4xs3-s2")
    eq(t.link.texts(), ["m4xs3-s2"])


def test_ok_goes_on_at_once_and_extra_pieces_hold_the_stage():
    t = Table("mosona")
    t.setup()
    t.app.command("setup", MOSONA)
    t.occ = bytearray(t.n)
    t.place("s3", "s5", "m4")  # North's piece too early: an extra piece
    t.settle()
    t.press(1)
    eq(t.app.setup_side(), "south")  # OK does nothing while the board does not match
    t.lift("m4")
    t.settle()
    t.press(1)
    eq(t.app.setup_side(), "north")
    t.place("m4")
    t.settle()
    eq(t.app.phase, PLAY)


def test_four_players_side_by_side_with_priests():
    t = Table("awithlaknakwe players=4")
    t.setup()
    t.app.command("setup", AWITH4)
    t.occ = bytearray(t.n)
    t.settle()
    sides = []
    while t.app.phase == SETUP:
        sides.append(t.app.setup_side())
        _fill(t)
        if t.app.phase == SETUP:
            t.app.command("button", "ok")
    eq(sides, ["south", "west", "north", "east"])
    eq(t.app.phase, PLAY)
    board = t.app.game.board
    from zuni.core import piece_side

    eq(piece_side(board[t.p("f14")]), 2)  # North's priest
    eq(piece_side(board[t.p("a6")]), 1)


def test_bad_positions_are_refused_and_change_nothing():
    t = Table("mosona")
    t.setup()
    game_id = t.app.game_id
    for bad in ("mosona | south to move | south zz9", "kolowis | south to move | south s3 | north m4", ""):
        with raises(ValueError):
            t.app.command("setup", bad)
    eq(t.app.game_id, game_id)
    eq(t.app.phase, PLAY)


def test_journal_keeps_the_position_and_a_reset_resumes_from_it():
    d = temp_dir()
    try:
        t = Table("mosona", journal_dir=d)
        t.setup()
        t.app.command("setup", MOSONA)
        t.occ = bytearray(t.n)
        t.place("s3", "s5")
        t.settle()
        t.press(1)
        t.place("m4")
        t.settle()
        t.do("m4xs3-s2")
        j = Journal(d)
        found = j.resume()
        eq(found[2], ["m4xs3-s2"])
        eq(j.position, MOSONA)
        eq(found[1], "mosona")
        # A reset: the app resumes the game from the position with its move.
        t2 = Table("mosona", journal_dir=d)
        eq(t2.app.position, MOSONA)
        eq([m.text() for m in t2.app.game.move_stack], ["m4xs3-s2"])
        eq(t2.app.game_id, t.app.game_id)
        t2.occ = bytearray(t.occ)
        t2.settle()
        eq(t2.app.phase, PLAY)
    finally:
        remove_dir(d)


def test_an_older_journal_still_reads():
    d = temp_dir()
    try:
        j = Journal(d)
        j.start("mosona")
        j.move(0, "s3xm4-m5")
        j2 = Journal(d)
        eq(j2.resume()[2], ["s3xm4-m5"])
        eq(j2.position, None)
    finally:
        remove_dir(d)


def test_a_position_too_long_for_the_state_frame_is_sent_as_plus():
    from zuni_link.codec import MAX_LINE, esc
    from zuni_link.session import _fit

    long_position = "x" * 300
    pairs = [("game", "g1"), ("occupancy", "0" * 168), ("position", long_position)]
    body = _fit(pairs)
    eq("position=+" in body, True)
    eq(len(body) < MAX_LINE, True)
    short = [("game", "g1"), ("position", "mosona | south to move")]
    eq(_fit(short), "game=g1 position=" + esc("mosona | south to move"))


def test_the_longest_position_is_refused():
    t = Table("mosona")
    t.setup()
    text = "mosona | south to move | south s3 | north m4" + " | quiet 0" * 40
    with raises(ValueError):
        t.app.command("setup", text)
    eq(t.app.phase, PLAY)
