"""The shared static evaluation (zuni.evaluate). Runs under CPython and MicroPython."""

from check import eq
from zuni import new_game
from zuni.awith import AwithGame
from zuni.evaluate import LINE_MOBILITY, PIECE, evaluate
from zuni.evaluate_awith import ARRIVAL, ARRIVAL_PATH, PRIEST_ON_BOARD, WARRIOR
from zuni.line import LineGame

SHORT = "kolowis size=short"


def test_every_start_is_level():
    for ruleset in ("mosona", "mosona board=open", "kolowis", SHORT, "awithlaknakwe", "awithlaknakwe players=4"):
        eq(evaluate(new_game(ruleset)), 0, ruleset)


def test_line_material_and_mobility_for_the_side_to_move():
    # South m3 (free: n2 n3 m2 m4 s2 s3 = 6) and m6 (6), North n1 (free: n2 m1 m2 = 3).
    south = LineGame.from_position(SHORT, "south m3 m6 north n1", "south")
    eq(evaluate(south), PIECE + LINE_MOBILITY * (6 + 6 - 3), "south to move")
    north = LineGame.from_position(SHORT, "south m3 m6 north n1", "north")
    eq(evaluate(north), -evaluate(south), "north to move")


def test_warriors_stuck_behind_their_own_arrived_pieces_earn_no_path_credit():
    # The position it came from: North's warriors stuck on c2, e2, j2 (c2 leads off the
    # board; e2 only to f1 and j2 only to i1, which North's own arrived warriors hold).
    # The old table (distances on the empty board) counted e2 and j2 as one move away.
    pieces = {"c2": "n", "e2": "n", "j2": "n", "f1": "n", "i1": "n", "e14": "s"}
    game = AwithGame.from_position("awithlaknakwe", pieces, "north")
    north = 5 * WARRIOR + 2 * ARRIVAL
    south = WARRIOR + ARRIVAL
    eq(evaluate(game), north - south, "stuck warriors")
    # Free f1: e2 is one move from arriving again.
    del pieces["f1"]
    game = AwithGame.from_position("awithlaknakwe", pieces, "north")
    north = 4 * WARRIOR + ARRIVAL + ARRIVAL_PATH * 13 // 14
    eq(evaluate(game), north - south, "f1 free")


def test_no_more_warriors_credited_than_free_target_squares():
    # North's priest and four warriors hold e1..i1; j1 is the one free square. i2 and k2
    # (c = 7, 9) can both reach j1, but only one of them can arrive there.
    pieces = {"e1": "N", "f1": "n", "g1": "n", "h1": "n", "i1": "n", "i2": "n", "k2": "n", "e14": "s"}
    game = AwithGame.from_position("awithlaknakwe", pieces, "north")
    north = 6 * WARRIOR + PRIEST_ON_BOARD + 5 * ARRIVAL + ARRIVAL_PATH * 13 // 14
    eq(evaluate(game), north - (WARRIOR + ARRIVAL), "one free square")


def test_evaluation_does_not_allocate_under_micropython():
    # The board's search calls it at every leaf; a collection there stalls the scan.
    try:
        import micropython
    except ImportError:
        return
    if not hasattr(micropython, "heap_lock"):
        return  # CPython: the shim has no heap to lock
    # One game at a time, as on the board (the tables of a board are made on first use).
    for ruleset in ("mosona", "kolowis", "awithlaknakwe", "awithlaknakwe players=4"):
        game = new_game(ruleset)
        game.push(game.legal_moves()[0])
        expected = evaluate(game)
        got = 0
        micropython.heap_lock()
        try:
            got = evaluate(game)
        finally:
            micropython.heap_unlock()
        eq(got, expected, ruleset + ", with the heap locked")
