"""Rules of Mosona and Kolowis (zuni.line) on hand-made positions, under CPython and
MicroPython. Positions are written as in ``LineGame.from_position``: a side, then its
points."""

from check import eq, raises
from zuni import NORTH, SOUTH, GameOverError, IllegalMoveError, MoveParseError, ZuniError, new_game, perft
from zuni.line import LineGame


def texts(game):
    return sorted(str(m) for m in game.legal_moves())


def pos(ruleset, pieces, turn="south", quiet=0):
    return LineGame.from_position(ruleset, pieces, turn, quiet)


# -- board ---------------------------------------------------------------------


def test_point_and_edge_counts():
    for ruleset, points, edges in (
        ("mosona", 25, 54),
        ("mosona board=open", 25, 40),
        ("kolowis", 49, 110),
        ("kolowis size=short", 25, 54),
    ):
        geometry = new_game(ruleset).geometry
        eq(len(geometry.names), points, ruleset + " points")
        eq(len(geometry.edges), edges, ruleset + " edges")
        eq(geometry.shape, "lines")


def test_names_coords_and_neighbours():
    geometry = new_game("mosona").geometry
    index = geometry.index
    eq(geometry.coords[index["m1"]], (1, 0))
    eq(geometry.coords[index["n4"]], (4.5, 1))
    eq(geometry.coords[index["s8"]], (8.5, -1))
    eq(geometry.names[index["m9"]], "m9")
    around = sorted(geometry.names[p] for p in geometry.neighbors[index["m5"]])
    eq(around, ["m4", "m6", "n4", "n5", "s4", "s5"], "neighbours of m5")
    around = sorted(geometry.names[p] for p in geometry.neighbors[index["n1"]])
    eq(around, ["m1", "m2", "n2"], "neighbours of n1 (lined)")
    open_board = new_game("mosona board=open").geometry
    around = sorted(open_board.names[p] for p in open_board.neighbors[open_board.index["n1"]])
    eq(around, ["m1", "m2"], "neighbours of n1 (open)")
    eq(geometry.point("s3"), index["s3"])
    with raises(MoveParseError, "z1"):
        geometry.point("z1")


def test_lines_draw_every_edge_once_and_are_straight():
    for ruleset in ("mosona", "mosona board=open", "kolowis"):
        geometry = new_game(ruleset).geometry
        drawn = []
        for line in geometry.lines:
            (x0, y0), (x1, y1) = geometry.coords[line[0]], geometry.coords[line[1]]
            for i in range(len(line) - 1):
                a, b = line[i], line[i + 1]
                drawn.append((min(a, b), max(a, b)))
                (xa, ya), (xb, yb) = geometry.coords[a], geometry.coords[b]
                eq((xb - xa, yb - ya), (x1 - x0, y1 - y0), "straight line %r" % (line,))
        eq(sorted(drawn), sorted(geometry.edges), ruleset + " lines cover the edges once")
    rows = [line for line in new_game("mosona board=open").geometry.lines if len(line) > 3]
    eq(len(rows), 1, "open board draws only the middle row")


def test_start_position():
    for ruleset, each, centre in (("mosona", 12, "m5"), ("kolowis", 24, "m9"), ("kolowis size=short", 12, "m5")):
        game = new_game(ruleset)
        geometry = game.geometry
        eq(game.counts, [each, each], ruleset)
        eq(len(geometry.homes[SOUTH]), each)
        eq(game.board[geometry.index[centre]], 0, "centre empty")
        eq(sum(game.occupancy()), 2 * each)
        eq(game.turn, SOUTH)
    game = new_game("mosona")
    eq(
        game.position_text(),
        "south m6 m7 m8 m9 s1 s2 s3 s4 s5 s6 s7 s8 north n1 n2 n3 n4 n5 n6 n7 n8 m1 m2 m3 m4",
    )
    eq(game.piece_at(game.geometry.index["m4"]), (NORTH, 0))


# -- first moves -----------------------------------------------------------------
# Hand-derived perft (RULES.md's rules applied by hand):
# mosona (beyond, forced): perft(1) = 1: only s3 can leap into m5 (s3 over m4, then along
#   the middle line turns by less than a right angle); m6, s4, s5 must not step since a
#   jump exists. perft(2) = 2: North has n5xm5-m4 and m2xs2-s3 (over s2 along the south
#   line into the emptied s3); n4 over m5 to m4 turns back (dot product < 0).
# mosona board=open: perft(2) = 1: the south line does not exist, only n5xm5-m4.
# kolowis size=short (straight, optional): perft(1) = 3 (m6-m5, s4-m5, s5-m5), perft(2) = 4:
#   after m6-m5 only m4xm5-m6; after s4-m5 only n5xm5-s4; after s5-m5 n4xm5-s5 and n6xm6-s5.
# mosona capture=free: perft(1) = 4: s3xm4-m5 and the three steps into m5.


def test_only_first_move_of_mosona():
    eq(texts(new_game("mosona")), ["s3xm4-m5"])
    eq(texts(new_game("mosona board=open")), ["s3xm4-m5"])
    game = new_game("mosona")
    game.push_text("s3xm4-m5")
    eq(texts(game), ["m2xs2-s3", "n5xm5-m4"])


def test_first_moves_straight_and_free():
    eq(texts(new_game("kolowis size=short")), ["m6-m5", "s4-m5", "s5-m5"])
    eq(texts(new_game("kolowis")), ["m10-m9", "s8-m9", "s9-m9"])
    eq(texts(new_game("mosona capture=free")), ["m6-m5", "s3xm4-m5", "s4-m5", "s5-m5"])
    game = new_game("kolowis size=short")
    game.push_text("s5-m5")
    eq(texts(game), ["n4xm5-s5", "n6xm6-s5"])


def test_first_north():
    game = new_game("mosona first=north")
    eq(game.turn, NORTH)
    # The start is symmetric under a half turn: s3 <-> n6, m4 <-> m6.
    eq(texts(game), ["n6xm6-m5"])
    eq(texts(new_game("kolowis size=short first=north")), ["m4-m5", "n4-m5", "n5-m5"])


# -- jump geometry -----------------------------------------------------------------


def test_two_leaps_between_the_same_points():
    # North n4 leaps to s4 over South's m4 or over m5 (beyond): both are written, since
    # the jumped piece tells them apart.
    pieces = "north n4 south m4 m5 s8"
    eq(
        texts(pos("mosona chain=none", pieces, "north")),
        ["n4xm4-m3", "n4xm4-s3", "n4xm4-s4", "n4xm5-m6", "n4xm5-s4", "n4xm5-s5"],
    )
    eq(texts(pos("mosona jumps=straight chain=none", pieces, "north")), ["n4xm4-s3", "n4xm5-s5"])
    pattern = texts(pos("mosona jumps=pattern chain=none", pieces, "north"))
    for text in ("n4xm4-s4", "n4xm5-s4", "n4xm4-n3", "n4xm5-n5", "n4xm4-m3", "n4xm4-s3"):
        assert text in pattern, text


def test_v_shaped_leap_only_under_pattern():
    # m6 over n5 back down to m5: a turn of more than a right angle.
    pieces = "south m6 north n5 n1"
    eq(texts(pos("mosona jumps=pattern chain=none", pieces)), ["m6xn5-m5", "m6xn5-n4", "m6xn5-n6"])
    eq(texts(pos("mosona chain=none", pieces)), ["m6xn5-n4"])
    eq(texts(pos("mosona jumps=straight chain=none", pieces)), ["m6-m5", "m6-m7", "m6-n6", "m6-s5", "m6-s6"])
    game = new_game("mosona jumps=pattern chain=none")
    assert "m6xn5-m5" in texts(game)


def test_open_board_outer_pieces_only_under_pattern():
    # On the open board n4 has only diagonal neighbours: nothing lies beyond it.
    pieces = "south m4 north n4 n8"
    eq(texts(pos("mosona board=open chain=none", pieces)), ["m4-m3", "m4-m5", "m4-n3", "m4-s3", "m4-s4"])
    eq(texts(pos("mosona board=open jumps=pattern chain=none", pieces)), ["m4xn4-m5"])


# -- chains ------------------------------------------------------------------------
CHAIN_POSITION = "south m1 north m2 m4 n8"


def test_chain_forced_optional_none():
    eq(texts(pos("kolowis size=short chain=forced", CHAIN_POSITION)), ["m1xm2-m3xm4-m5"])
    eq(texts(pos("kolowis size=short chain=optional", CHAIN_POSITION)), ["m1xm2-m3", "m1xm2-m3xm4-m5"])
    eq(texts(pos("kolowis size=short chain=none", CHAIN_POSITION)), ["m1xm2-m3"])


def test_capture_free_adds_steps():
    eq(
        texts(pos("kolowis size=short chain=none capture=free", CHAIN_POSITION)),
        ["m1-n1", "m1-s1", "m1xm2-m3"],
    )
    # Without any jump, steps are legal under either rule.
    eq(texts(pos("mosona", "south m1 north n8")), ["m1-m2", "m1-n1", "m1-s1"])


def test_forced_chain_branches_and_prefixes():
    # Straight leaps: n1 over m2 down to s2, then on over s3 or up over m3.
    pieces = "south n1 north m2 s3 m3 n8"
    game = pos("kolowis size=short chain=forced", pieces)
    eq(texts(game), ["n1xm2-s2xm3-n3", "n1xm2-s2xs3-s4"])
    game = pos("kolowis size=short chain=optional", pieces)
    eq(texts(game), ["n1xm2-s2", "n1xm2-s2xm3-n3", "n1xm2-s2xs3-s4"])
    eq(texts(pos("kolowis size=short chain=none", pieces)), ["n1xm2-s2"])
    move = game.parse_move("n1xm2-s2xm3-n3")
    names = game.geometry.names
    eq([names[p] for p in move.captures], ["m2", "m3"])
    eq([names[p] for p in move.landings()], ["s2", "n3"])
    eq(move.origin, game.geometry.index["n1"])
    game.push(move)
    eq(game.position_text(), "south n3 north n8 s3")


def test_jumped_piece_is_removed_at_once():
    # Under pattern m3 could leap over m4 to m5 and back over m4 to m3 if m4 stayed.
    game = pos("mosona jumps=pattern", "south m3 north m4 n8")
    eq(texts(game), ["m3xm4-m5", "m3xm4-n3", "m3xm4-n4", "m3xm4-s3", "m3xm4-s4"])
    for move in game.legal_moves():
        eq(len(move.captures), 1, str(move))


def test_chain_may_land_on_its_origin():
    # n4 leaps over m4 to s4, then over m5 back to n4 (beyond: each turn is less than a
    # right angle), or on to m6 or n5.
    game = pos("mosona", "north n4 south m4 m5 s8", "north")
    eq(
        texts(game),
        [
            "n4xm4-m3",
            "n4xm4-s3",
            "n4xm4-s4xm5-m6",
            "n4xm4-s4xm5-n4",
            "n4xm4-s4xm5-n5",
            "n4xm5-m6",
            "n4xm5-s4xm4-m3",
            "n4xm5-s4xm4-n3",
            "n4xm5-s4xm4-n4",
            "n4xm5-s5",
        ],
    )
    move = game.parse_move("n4xm4-s4xm5-n4")
    eq(move.fills(), -1)
    before = game.key()
    game.push(move)
    eq(game.position_text(), "south s8 north n4")
    eq(game.counts, [1, 1])
    game.pop()
    eq(game.key(), before)


def test_chain_may_end_on_a_point_it_captured():
    # n5 takes n4, n2, m3 and m4 and lands on n4, where its first victim stood.
    game = pos("mosona", "south n5 m8 m9 s6 s7 north n1 n2 n4 m3 m4 s2")
    move = game.parse_move("n5xn4-n3xn2-m2xm3-s3xm4-n4")
    before = game.key()
    game.push(move)
    eq(game.position_text(), "south n4 m8 m9 s6 s7 north n1 s2")
    eq(game.counts, [5, 2])
    game.pop()
    eq(game.key(), before)
    eq(game.counts, [5, 6])


# -- end ---------------------------------------------------------------------------


def test_no_pieces_loses():
    game = pos("kolowis size=short", "south m1 north m2")
    game.push_text("m1xm2-m3")
    outcome = game.outcome()
    eq((outcome.result, outcome.termination, outcome.winner), ("south", "no-pieces", 0))
    eq(game.legal_moves(), [])
    assert game.is_game_over()
    with raises(IllegalMoveError, "the game is over"):
        game.parse_move("m3-m2")


def test_no_moves_loses():
    # North's n1 is boxed in: every neighbour is held and nothing lies free beyond.
    game = pos("kolowis size=short", "north n1 south m1 m2 n2 n3 s2", "north")
    eq(game.legal_moves(), [])
    outcome = game.outcome()
    eq((outcome.result, outcome.termination), ("south", "no-moves"))
    # No moves is checked before the quiet rule.
    game = pos("kolowis size=short quiet=3", "north n1 south m1 m2 n2 n3 s2", "north", quiet=3)
    eq(game.outcome().termination, "no-moves")


def test_quiet_more_and_draw():
    pieces = "south m1 s1 north n8"
    game = pos("mosona quiet=3", pieces, quiet=2)
    assert game.outcome() is None
    game.push_text("m1-m2")
    eq(game.quiet, 3)
    outcome = game.outcome()
    eq((outcome.result, outcome.termination, outcome.scores), ("south", "quiet", (2, 1)))
    eq(game.legal_moves(), [])
    game.pop()
    eq(game.quiet, 2)
    assert game.outcome() is None
    game = pos("mosona quiet=3 stall=draw", pieces, quiet=2)
    game.push_text("m1-m2")
    eq((game.outcome().result, game.outcome().termination), ("draw", "quiet"))
    game = pos("mosona quiet=1", "south m1 north n8")
    game.push_text("m1-m2")
    eq(game.outcome().result, "draw", "equal counts under stall=more")


def test_capture_resets_quiet():
    game = pos("kolowis size=short quiet=5", "south m1 s1 north m2 n8", quiet=4)
    game.push_text("m1xm2-m3")
    eq(game.quiet, 0)
    assert game.outcome() is None
    game.pop()
    eq(game.quiet, 4)


def test_start_game_quiet_counts_to_the_limit():
    game = new_game("kolowis size=short quiet=2")
    game.push_text("m6-m5")
    eq(game.quiet, 1)
    game.push_text("m4xm5-m6")
    eq(game.quiet, 0)


def test_resign_and_agree():
    game = new_game("mosona")
    outcome = game.resign(SOUTH)
    eq((outcome.result, outcome.termination), ("north", "resign"))
    eq(game.legal_moves(), [])
    with raises(GameOverError, "already over"):
        game.agree("draw")
    game.clear_agreement()
    game.push_text("s3xm4-m5")
    outcome = game.agree("count")
    eq((outcome.result, outcome.termination, outcome.scores), ("south", "agreed-count", (12, 11)))
    game.pop()
    assert game.outcome() is None, "taking back a move clears the agreement"
    eq(game.agree("draw").result, "draw")
    game.clear_agreement()
    with raises(ValueError, "truce"):
        game.agree("truce")
    eq(new_game("mosona").resign(NORTH).result, "south")


# -- text -------------------------------------------------------------------------


def test_move_text_round_trip():
    for ruleset, pieces in (
        ("mosona jumps=pattern chain=optional capture=free", "south m3 m6 s1 north m4 n5 n4 n8"),
        ("mosona", "north n4 south m4 m5 s8"),
        ("kolowis", ""),
    ):
        game = pos(ruleset, pieces) if pieces else new_game(ruleset)
        moves = game.legal_moves()
        assert moves, ruleset
        for move in moves:
            eq(game.parse_move(str(move)), move, str(move))
            eq(repr(move), "Move(%r)" % (str(move),))


def test_parse_errors_name_move_and_position():
    game = new_game("mosona")
    where = "mosona after 0 moves, south to move"
    with raises(IllegalMoveError, "m6-m5 is not legal in " + where):
        game.parse_move("m6-m5")
    with raises(IllegalMoveError, where):
        game.parse_move("s4xm4-m5")
    for text in ("q7-m5", "m6-m10", "m6-", "m6xm5", "s3xm4-m5-m6", "s3-m4xm5", "pass", "@m5", "m6--m5"):
        with raises(MoveParseError, where) as caught:
            game.parse_move(text)
        assert text in str(caught.value), str(caught.value)
    with raises(MoveParseError, "unknown point 'q7'"):
        game.parse_move("q7-m5")
    with raises(MoveParseError, "empty"):
        game.parse_move("  ")
    eq(game.ply(), 0, "errors change nothing")
    eq(texts(game), ["s3xm4-m5"])


def test_from_position_errors():
    with raises(ZuniError, "unknown point 'm10'"):
        pos("mosona", "south m10")
    with raises(ZuniError, "given twice"):
        pos("mosona", "south m1 north m1")
    with raises(ZuniError, "name a side"):
        pos("mosona", "m1 north m2")
    with raises(ZuniError, "bad side"):
        pos("mosona", "south m1", "east")
    with raises(ZuniError, "quiet"):
        pos("mosona", "south m1", "south", -1)
    with raises(ZuniError, "not a line game"):
        LineGame("awithlaknakwe")
    game = pos("kolowis", "south m17 s16 north n1", "north", 7)
    eq(game.position_text(), "south m17 s16 north n1")
    eq((game.turn, game.quiet, game.counts), (NORTH, 7, [2, 1]))


# -- state -------------------------------------------------------------------------


def test_push_pop_copy_and_key():
    game = new_game("kolowis size=short")
    start_key = game.key()
    start_board = bytes(game.board)
    played = []
    for _ in range(12):
        moves = game.legal_moves()
        if not moves:
            break
        move = moves[len(played) % len(moves)]
        played.append(game.key())
        game.push(move)
    twin = game.copy()
    eq(twin.key(), game.key())
    eq(twin.move_stack, game.move_stack)
    twin.pop()
    assert twin.key() != game.key(), "copies are independent"
    while game.move_stack:
        game.pop()
        eq(game.key(), played.pop())
    eq(game.key(), start_key)
    eq(bytes(game.board), start_board)
    with raises(IndexError, "no move to take back"):
        game.pop()


def test_key_holds_turn_and_quiet():
    a = pos("mosona", "south m1 north n8", "south", 0)
    b = pos("mosona", "south m1 north n8", "north", 0)
    c = pos("mosona", "south m1 north n8", "south", 1)
    assert a.key() != b.key()
    assert a.key() != c.key()
    eq(a.key(), pos("mosona", "north n8 south m1").key())


def test_count_moves_matches_legal_moves():
    cases = (
        ("mosona", "north n4 south m4 m5 s8", "north"),
        ("mosona jumps=pattern chain=optional", "north n4 south m4 m5 s8 s4", "north"),
        ("kolowis size=short chain=forced", "south n1 north m2 s3 m3 n8", "south"),
        ("kolowis size=short chain=none capture=free", CHAIN_POSITION, "south"),
        ("kolowis size=short", "north n1 south m1 m2 n2 n3 s2", "north"),
    )
    for ruleset, pieces, turn in cases:
        game = pos(ruleset, pieces, turn)
        eq(game.count_moves(), len(game.legal_moves()), ruleset + " " + pieces)
    game = new_game("mosona")
    game.resign(SOUTH)
    eq(game.count_moves(), 0)


def test_legal_captures_are_the_capturing_legal_moves():
    # The same moves in the same order, found without building the steps; none where
    # there is no capture (free captures: the steps are still there) or the game is over.
    cases = (
        ("mosona", "north n4 south m4 m5 s8", "north"),
        ("mosona jumps=pattern chain=optional", "north n4 south m4 m5 s8 s4", "north"),
        ("kolowis size=short chain=forced", "south n1 north m2 s3 m3 n8", "south"),
        ("kolowis size=short chain=none capture=free", CHAIN_POSITION, "south"),
        ("kolowis size=short", "north n1 south m1 m2 n2 n3 s2", "north"),
        ("mosona", "north n1 south s8", "north"),
    )
    found = 0
    for ruleset, pieces, turn in cases:
        game = pos(ruleset, pieces, turn)
        expected = [m for m in game.legal_moves() if m.captures]
        eq(game.legal_captures(), expected, ruleset + " " + pieces)
        found += len(expected)
    assert found > 5, found
    game = new_game("mosona")
    game.resign(SOUTH)
    eq(game.legal_captures(), [])


# -- perft -------------------------------------------------------------------------
# Counted by this engine and checked against tests/refgen_line.py, an independent
# generator (tests/unit/test_rules_line_props.py checks every option at small depths).
PERFT = (
    ("mosona", (1, 2, 2, 15, 50, 285, 1140, 5903)),
    ("mosona board=open", (1, 1, 4, 11, 32, 113, 383, 1407)),
    ("mosona jumps=straight", (3, 4, 9, 23, 76, 233, 636)),
    ("mosona jumps=pattern", (4, 72, 1565)),
    ("mosona chain=optional", (1, 2, 3, 29, 127, 1160)),
    ("mosona chain=none", (1, 2, 2, 6, 16, 62, 264, 1216)),
    ("mosona capture=free", (4, 21, 134, 1262)),
    ("mosona first=north", (1, 2, 2, 15, 50, 285)),
    ("kolowis", (3, 4, 9, 23, 76, 252)),
    ("kolowis size=short", (3, 4, 9, 23, 76, 252, 768)),
    ("kolowis jumps=beyond", (1, 2, 6, 51, 312)),
    ("kolowis chain=forced", (3, 4, 9, 23, 76, 233, 636)),
    ("kolowis capture=free", (3, 7, 21, 104, 562)),
)


def test_perft_tables():
    for ruleset, counts in PERFT:
        game = new_game(ruleset)
        eq(perft(game, 0), 1)
        for depth in range(1, len(counts) + 1):
            eq(perft(game, depth), counts[depth - 1], "%s perft(%d)" % (ruleset, depth))
        eq(game.ply(), 0)
