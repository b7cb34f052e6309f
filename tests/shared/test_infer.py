"""Move inference (zuni_board.infer) on real games: every order of lifts and places,
half-made moves, chains, same-effect moves, custody, drops, passes, errors."""

import board_helpers  # noqa: F401  (puts firmware/lib on the path under CPython)

import zuni
from check import eq
from zuni_board.infer import ERROR, FINISHED, PROGRESS, SAME, Position, infer


def _game(ruleset, texts=()):
    game = zuni.new_game(ruleset)
    for t in texts:
        game.push_text(t)
    return game


class Board:
    """Occupancy edited by point name, against a fixed position."""

    def __init__(self, game):
        self.game = game
        self.pos = Position(game)
        self.occ = bytearray(self.pos.occ)
        self.touched = bytearray(len(self.occ))

    def p(self, name):
        return self.game.geometry.index[name]

    def apply(self, word):
        i = self.p(word[1:])
        self.occ[i] = 1 if word[0] == "+" else 0
        self.touched[i] = 1

    def see(self, *words):
        for w in words:
            self.apply(w)
        return infer(self.pos, self.occ, self.touched)

    def names(self, points):
        return sorted(self.game.geometry.names[p] for p in points)


def _permutations(items):
    if len(items) <= 1:
        return [list(items)]
    out = []
    for i in range(len(items)):
        for rest in _permutations(items[:i] + items[i + 1 :]):
            out.append([items[i]] + rest)
    return out


def _every_order(ruleset, texts, words, expect):
    """Each order of the gestures (the mover is placed only after it is lifted, the
    first word): every state before the last is a half-made move, the last is the
    finished move ``expect``."""
    tried = 0
    for order in _permutations(list(words)):
        lift = order.index(words[0])
        if any(order[k][0] == "+" for k in range(lift)):
            continue
        tried += 1
        b = Board(_game(ruleset, texts))
        for k in range(len(order)):
            r = b.see(order[k])
            if k < len(order) - 1:
                eq(r.kind, PROGRESS, "after %r of %r" % (order[: k + 1], order))
                assert expect in [f.text() for f in r.candidates], (order, r)
            else:
                eq(r.kind, FINISHED, "after %r" % (order,))
                eq(r.move.text(), expect)
    assert tried >= 2


def test_nothing_changed_is_same():
    b = Board(_game("mosona"))
    r = b.see()
    eq(r.kind, SAME)


def test_mosona_first_jump_in_every_order():
    _every_order("mosona", (), ("-s3", "+m5", "-m4"), "s3xm4-m5")


def test_both_hands_at_once():
    b = Board(_game("mosona"))
    r = b.see("-s3", "-m4")  # mover and captured piece lifted together
    eq(r.kind, PROGRESS)
    eq(b.names(r.land), ["m5"])
    r = b.see("+m5")
    eq(r.kind, FINISHED)
    eq(r.extendable, False)


def test_lifted_piece_shows_destinations_and_captures():
    b = Board(_game("mosona", ["s3xm4-m5"]))
    r = b.see("-n5")
    eq(r.kind, PROGRESS)
    eq([f.text() for f in r.candidates], ["n5xm5-m4"])
    eq(b.names(r.land), ["m4"])
    eq(b.names(r.remove), ["m5"])


def test_captured_piece_lifted_before_the_mover():
    b = Board(_game("mosona", ["s3xm4-m5"]))
    r = b.see("-m5")
    eq(r.kind, PROGRESS, "a captured piece lifted first is a half-made move")
    eq([f.text() for f in r.candidates], ["n5xm5-m4"])
    r = b.see("-n5", "+m4")
    eq(r.kind, FINISHED)
    eq(r.move.text(), "n5xm5-m4")


def test_touch_and_put_back_is_same():
    b = Board(_game("mosona", ["s3xm4-m5"]))
    eq(b.see("-n5").kind, PROGRESS)
    eq(b.see("+n5").kind, SAME)


def test_piece_that_may_not_move_is_stuck():
    b = Board(_game("mosona", ["s3xm4-m5"]))
    r = b.see("-n1")  # North must capture: n1 cannot move
    eq(r.kind, ERROR)
    eq(b.names([r.stuck]), ["n1"])
    eq(b.names(b.pos.movable), ["m2", "n5"])


def test_error_names_missing_and_extra_points():
    b = Board(_game("mosona"))
    r = b.see("-s1", "+m5")
    eq(r.kind, ERROR)
    eq(b.names(r.missing), ["s1"])
    eq(b.names(r.extra), ["m5"])
    eq(r.stuck, -1)


def test_second_piece_on_a_landing_point_is_an_error():
    b = Board(_game("mosona"))
    r = b.see("+m5")  # a piece from off the board, the mover still on s3
    eq(r.kind, ERROR)


def test_forced_chain_paused_is_progress_until_the_end():
    b = Board(_game("mosona", ["s3xm4-m5", "m2xs2-s3"]))
    eq(b.see("-s4").kind, PROGRESS)
    r = b.see("+s2", "-s3")  # paused on the first landing, first capture removed
    eq(r.kind, PROGRESS, "a forced chain cannot stop: still half made")
    eq(b.names(r.land), ["m4"])
    eq(b.names(r.remove), ["m3"])
    r = b.see("-s2", "+m4")
    eq(r.kind, PROGRESS)
    r = b.see("-m3")
    eq(r.kind, FINISHED)
    eq(r.move.text(), "s4xs3-s2xm3-m4")
    eq(r.extendable, False)


def test_forced_chain_without_touching_landings_in_every_order():
    _every_order("mosona", ["s3xm4-m5", "m2xs2-s3"], ("-s4", "+m4", "-s3", "-m3"), "s4xs3-s2xm3-m4")


KOLOWIS_CHAIN = ["s4-m5", "n5xm5-s4", "m6-n5", "m4-m5", "s6-m6", "s4xs5-s6", "m6xm5-m4", "m3xm4-m5", "s7xs6-s5"]


def test_optional_chain_stopped_early_is_finished_and_extendable():
    b = Board(_game("kolowis size=short", KOLOWIS_CHAIN))
    r = b.see("-n7", "+s6", "-m7")
    eq(r.kind, FINISHED)
    eq(r.move.text(), "n7xm7-s6")
    eq(r.extendable, True)
    eq(b.names(r.remove), ["s5"], "the piece the chain could take next")
    # Lifting that piece is read as going on with the chain, not as an error.
    r = b.see("-s5")
    eq(r.kind, PROGRESS)
    eq(b.names(r.land), ["s4"])
    r = b.see("-s6", "+s4")
    eq(r.kind, FINISHED)
    eq(r.move.text(), "n7xm7-s6xs5-s4")


def test_optional_chain_every_order():
    _every_order("kolowis size=short", KOLOWIS_CHAIN, ("-n7", "+s4", "-m7", "-s5"), "n7xm7-s6xs5-s4")


MOSONA_TWINS = ["s3xm4-m5", "m2xs2-s3", "s4xs3-s2xm3-m4", "n4xm4-s4xm5-n4", "s5-s4"]


def test_same_effect_prefers_the_touched_landings():
    # n6xm6-m5xs4-s3 and n6xm6-s5xs4-s3 leave the same occupancy.
    for via, expect in (("m5", "n6xm6-m5xs4-s3"), ("s5", "n6xm6-s5xs4-s3")):
        b = Board(_game("mosona", MOSONA_TWINS))
        b.see("-n6")
        b.see("+" + via)
        b.see("-" + via)
        r = b.see("+s3", "-m6", "-s4")
        eq(r.kind, FINISHED)
        eq(len(r.finished), 2)
        eq(r.move.text(), expect, "touched " + via)


def test_same_effect_untouched_picks_one():
    b = Board(_game("mosona", MOSONA_TWINS))
    r = b.see("-n6", "+s3", "-m6", "-s4")
    eq(r.kind, FINISHED)
    assert r.move.text() in ("n6xm6-m5xs4-s3", "n6xm6-s5xs4-s3")


def test_chain_back_to_its_origin():
    b = Board(_game("mosona", ["s3xm4-m5", "m2xs2-s3", "s4xs3-s2xm3-m4"]))
    r = b.see("-n4")
    eq(r.kind, PROGRESS)
    r = b.see("+n4")  # back on its origin, nothing taken yet: the position as it was
    eq(r.kind, SAME)
    r = b.see("-m4", "-m5")
    eq(r.kind, FINISHED)
    eq(r.move.text(), "n4xm4-s4xm5-n4")


def test_step_where_a_jump_to_the_same_point_exists_is_extendable():
    # V-shaped leaps (jumps=pattern) and free captures: n7-n6 and n7xm7-n6 are both legal.
    b = Board(_game("mosona jumps=pattern capture=free", ["s5-m5", "n6xm6-s5xm5-m6xs6-s5xs4-m5", "s7-s6"]))
    r = b.see("-n7", "+n6")
    eq(r.kind, FINISHED)
    eq(r.move.text(), "n7-n6")
    eq(r.extendable, True, "the player may still take m7")
    r = b.see("-m7")
    eq(r.kind, FINISHED)
    eq(r.move.text(), "n7xm7-n6")


def test_only_restricts_to_the_given_moves():
    b = Board(_game("mosona", ["s3xm4-m5"]))
    f = b.pos.find(b.game.parse_move("m2xs2-s3"))
    b.apply("-n5")
    r = infer(b.pos, b.occ, b.touched, [f])
    eq(r.kind, ERROR)


AWITH_CUSTODY = (
    "h1-g2 h14-i13 e1-d2 g14-h13 i1-j2 i13-h12 g2-h3 h13-i12 h3-i4 i12-h11 j2-k3 f14-e13 k3-j4 e13-f12 g1-f2 "
    "f12-g11 d2-e3 j14-k13 f2-g3 i14-h13 j1-k2 k13-l12 f1-e2 h11-i10 e3-f4 e14-d13 k2-l3 i10-h9 j4-i5 h13-g12 "
    "f4-g5 h9-g8 i4-h5 g8-f7 i5-j6 l12-k11 e2-f3 g12-f11 h5-i6 f11-g10 j6-i7 f7-g6 g5-f6 g10-f9 f6-e7 d13-c12 "
    "l3-m4 h12-i11 m4-n5 k11-l10 n5-m6 c12-d11 i7-j8 i11-h10 g3-h4 g6-h5"
).split()


def test_custody_capture_must_be_removed():
    game = _game("awithlaknakwe", AWITH_CUSTODY)
    move = game.parse_move("f3-g4")
    eq(len(move.captures) > 0, True)
    b = Board(game)
    captured = b.names(move.captures)
    r = b.see("-f3", "+g4")
    eq(r.kind, PROGRESS, "custody captures still on the board: half made")
    eq(b.names(r.remove), captured)
    r = b.see(*["-" + c for c in captured])
    eq(r.kind, FINISHED)
    eq(r.move.text(), "f3-g4")


def test_custody_capture_removed_first():
    game = _game("awithlaknakwe", AWITH_CUSTODY)
    b = Board(game)
    captured = b.names(game.parse_move("f3-g4").captures)
    r = b.see(*["-" + c for c in captured])
    eq(r.kind, PROGRESS)
    r = b.see("-f3", "+g4")
    eq(r.kind, FINISHED)


AWITH_DROP = (
    "f1-e2 i14-h13 e1-f2 g14-f13 f2-g3 h13-i12 h1-i2 i12-j11 j1-k2 h14-g13 e2-f3 f14-e13 i2-j3 e14-d13 j3-i4 "
    "g13-h12 i1-j2 d13-e12 k2-l3 j11-k10 g1-f2 e13-d12 l3-k4 e12-d11 i4-h5 d11-e10 g3-f4 e10-f9 k4-j5 k10-l9 "
    "f4-e5 h12-i11 j5-i6 d12-c11 h5-g6 j14-i13 e5-d6 l9-m8 f3-g4 i11-h10 g6-h7 m8-n7 g4-h5 f13-e12 f2-e3 "
    "i13-h12 e3-d4 h10-g9 d4-e5 f9-g8 j2-k3 h12-i11 d6-e7 c11-b10 e5-f6 b10-c9 k3-j4 i11-j10 j4-k5 j10-k9 "
    "f6-g7 e12-d11 g7-h8 k9-l8 k5-l6 g8-f7 l6-m7 c9-b8 m7-n8 g9-f8 h8-g9"
).split()


def test_priest_drop_squares_and_drop():
    game = _game("awithlaknakwe", AWITH_DROP)
    b = Board(game)
    assert b.pos.drops, "a drop is available"
    assert "e14" in b.names(b.pos.drops)
    r = b.see("+e14")
    expect = game.parse_move("@e14")
    if expect.captures:
        eq(r.kind, PROGRESS)
    else:
        eq(r.kind, FINISHED)
        eq(r.move.text(), "@e14")


def test_forced_pass_is_known_per_position():
    game = zuni.new_game("mosona")
    eq(Position(game).pass_move, None)


def test_position_footprints_of_first_move():
    b = Board(_game("mosona"))
    f = b.pos.foot[0]
    eq(b.names(f.gone), ["m4", "s3"])
    eq(b.names([f.add]), ["m5"])
    eq(b.names(f.may_fill(b.pos.occ)), ["m5"])
