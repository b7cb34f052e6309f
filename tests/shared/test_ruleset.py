"""Ruleset strings and the engine's shared types (docs/rules.md, "Ruleset strings")."""

from check import eq, raises
from zuni import (
    DROP,
    JUMP,
    NORTH,
    PASS,
    SOUTH,
    STEP,
    Move,
    RulesetError,
    parse_ruleset,
    piece_code,
    piece_kind,
    piece_side,
)
from zuni.core import side_from_name


def test_defaults_and_canonical_text():
    rs = parse_ruleset("kolowis")
    eq(rs["jumps"], "straight", "kolowis jumps")
    eq(rs["chain"], "optional", "kolowis chain")
    eq(parse_ruleset("mosona")["jumps"], "beyond", "mosona jumps")
    eq(parse_ruleset("mosona")["chain"], "forced", "mosona chain")
    eq(str(parse_ruleset("kolowis  chain=forced size=short")), "kolowis size=short chain=forced")
    eq(str(parse_ruleset("mosona board=lined quiet=40")), "mosona")
    eq(parse_ruleset("mosona quiet=12").get_int("quiet"), 12)


def test_equality_ignores_order_and_defaults():
    assert parse_ruleset("mosona jumps=pattern board=open") == parse_ruleset("mosona board=open jumps=pattern")
    assert parse_ruleset("mosona") != parse_ruleset("mosona board=open")
    assert parse_ruleset("awithlaknakwe players=2") == parse_ruleset("awithlaknakwe")


def test_unknown_game_names_the_allowed_games():
    with raises(RulesetError, "chess") as err:
        parse_ruleset("chess")
    assert "mosona" in str(err.value) and "awithlaknakwe" in str(err.value)
    with raises(RulesetError, "empty"):
        parse_ruleset("   ")


def test_unknown_option_and_value_name_what_is_allowed():
    with raises(RulesetError, "size") as err:
        parse_ruleset("mosona size=short")
    assert "board" in str(err.value)
    with raises(RulesetError, "maybe") as err:
        parse_ruleset("kolowis chain=maybe")
    assert "forced, optional, none" in str(err.value)
    with raises(RulesetError, "positive integer"):
        parse_ruleset("mosona quiet=0")
    with raises(RulesetError, "positive integer"):
        parse_ruleset("mosona quiet=x")
    with raises(RulesetError, "no value"):
        parse_ruleset("mosona board")
    with raises(RulesetError, "twice"):
        parse_ruleset("mosona board=open board=lined")
    with raises(RulesetError, "board"):
        parse_ruleset("kolowis board=lined")


def test_awithlaknakwe_option_combinations():
    rs = parse_ruleset("awithlaknakwe players=4 teams=combined")
    eq(rs["teams"], "combined")
    eq(str(parse_ruleset("awithlaknakwe players=4 order=snwe")), "awithlaknakwe players=4 order=snwe")
    with raises(RulesetError, "priests=each"):
        parse_ruleset("awithlaknakwe players=4 teams=combined priests=each")
    with raises(RulesetError, "order"):
        parse_ruleset("awithlaknakwe players=4 order=swnn")
    with raises(RulesetError, "players=4"):
        parse_ruleset("awithlaknakwe order=swne")
    with raises(RulesetError, "first"):
        parse_ruleset("awithlaknakwe players=4 first=north")
    eq(parse_ruleset("awithlaknakwe players=4 teams=combined first=north")["first"], "north")


def test_piece_codes_round_trip():
    for side in range(4):
        for kind in range(2):
            code = piece_code(side, kind)
            assert 1 <= code <= 8
            eq(piece_side(code), side)
            eq(piece_kind(code), kind)
    eq(side_from_name("north"), NORTH)
    with raises(ValueError, "up"):
        side_from_name("up")


def test_move_text_and_footprint():
    names = ["a", "b", "c", "d", "e"]
    step = Move(STEP, (0, 1), (), names)
    eq(str(step), "a-b")
    eq(repr(step), "Move('a-b')")
    eq(step.empties(), [0])
    eq(step.fills(), 1)
    chain = Move(JUMP, (0, 1, 2, 3, 4), (1, 3), names)
    eq(str(chain), "axb-cxd-e")
    eq(tuple(chain.landings()), (2, 4))
    eq(sorted(chain.empties()), [0, 1, 3])
    eq(chain.fills(), 4)
    back_home = Move(JUMP, (0, 1, 2, 3, 0), (1, 3), names)
    eq(sorted(back_home.empties()), [1, 3], "a chain ending on its origin does not empty it")
    eq(back_home.fills(), -1)
    onto_captured = Move(JUMP, (0, 1, 2, 3, 4, 2, 1), (1, 3, 2), names)
    eq(sorted(onto_captured.empties()), [0, 2, 3], "landing on a point captured earlier leaves it occupied")
    eq(onto_captured.fills(), -1)
    drop = Move(DROP, (4,), (3,), names)
    eq(str(drop), "@e")
    eq(drop.origin, -1)
    eq(drop.empties(), [3])
    passing = Move(PASS, (), (), names)
    eq(str(passing), "pass")
    eq(passing.fills(), -1)
    assert step == Move(STEP, (0, 1), (), names)
    assert step != Move(STEP, (1, 0), (), names)
    assert len({step, Move(STEP, (0, 1), (), names)}) == 1
    eq(SOUTH, 0)
