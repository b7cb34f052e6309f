"""Positions as one line of text (zuni.position): every game, round trips, bad input.

Runs under CPython and MicroPython."""

import zuni
from check import eq, raises
from zuni.position import PositionError, parse_position, position_text


def test_line_position_plays_and_round_trips():
    game = parse_position("mosona | south to move | south s3 | north m4")
    # jumps=beyond: every landing beyond m4 as seen from s3 (docs/rules.md).
    eq(sorted(str(m) for m in game.legal_moves()), ["s3xm4-m5", "s3xm4-n3", "s3xm4-n4"])
    text = position_text(game)
    eq(text, "mosona | south to move | south s3 | north m4 | quiet 0")
    eq(position_text(parse_position(text)), text)


def test_start_positions_round_trip_for_every_ruleset():
    for ruleset in (
        "mosona",
        "mosona board=open",
        "kolowis",
        "kolowis size=short",
        "awithlaknakwe",
        "awithlaknakwe players=4",
        "awithlaknakwe players=4 teams=combined",
    ):
        game = zuni.new_game(ruleset)
        text = position_text(game)
        again = parse_position(text)
        eq(position_text(again), text, ruleset)
        eq(sorted(str(m) for m in again.legal_moves()), sorted(str(m) for m in game.legal_moves()), ruleset)


def test_positions_after_moves_round_trip_with_counters():
    game = zuni.new_game("kolowis size=short")
    for _ in range(6):
        game.push(game.legal_moves()[0])
    text = position_text(game)
    again = parse_position(text)
    eq(again.board, game.board, "board")
    eq((again.turn, again.quiet), (game.turn, game.quiet))


def test_awith_position_with_priests_and_taken():
    text = (
        "awithlaknakwe players=4 | west to move | south e1 f1 priest g5 | west a5 | north e14 "
        "priest hand | east n5 | quiet 3 | taken 2 1"
    )
    game = parse_position(text)
    eq(zuni.SIDE_NAMES[game.turn], "west")
    eq(game.quiet, 3)
    eq((game.taken[0], game.taken[1]), (2, 1))
    again = position_text(game)
    eq(parse_position(again).board, game.board)
    eq(
        again,
        "awithlaknakwe players=4 | west to move | south e1 f1 priest g5 | west a5 | north e14 priest hand"
        " | east n5 | quiet 3 | taken 2 1",
    )
    moves = [
        str(m)
        for m in parse_position(
            "awithlaknakwe | north to move | south f5 | north e14 priest hand | taken 0 1"
        ).legal_moves()
    ]
    eq("@f14" in moves, True, "a priest in hand drops")


def test_bad_positions_name_the_bad_field():
    for text, part in (
        ("mosona", "fields separated by |"),
        ("chess | south to move", "chess"),
        ("mosona | south moves | south s3", "SIDE to move"),
        ("mosona | south to move | south s3 | north m4 | west a5", "no west"),
        ("mosona | south to move | south s3 zz9 | north m4", "zz9"),
        ("mosona | south to move | south s3 | south s4", "twice"),
        ("mosona | south to move | south s3 | quiet x", "bad number"),
        ("mosona | south to move | south s3 | taken 1 2", "Awithlaknakwe only"),
        ("mosona | south to move | south s3 | colour red", "unknown field"),
        ("awithlaknakwe | south to move | south f5 f5", "twice"),
        ("awithlaknakwe | south to move | south f5 priest", "needs a square"),
        ("awithlaknakwe | south to move | south priest f5 priest hand", "two priests"),
        ("awithlaknakwe | west to move | south f5", "west"),
    ):
        with raises(PositionError, part):
            parse_position(text)
