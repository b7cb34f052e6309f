"""The LED language (zuni_board.leds): patterns in time, the frame buffer, the dirty
check, and the pictures for each state, on real positions."""

import board_helpers  # noqa: F401  (puts firmware/lib on the path under CPython)

import zuni
from check import eq
from zuni_board import leds as L
from zuni_board.infer import Position, infer


def test_patterns_in_time():
    eq([L.pattern_on(L.STEADY, t) for t in (0, 400, 999)], [True, True, True])
    eq([L.pattern_on(L.SLOW, t) for t in (0, 499, 500, 999, 1000)], [True, True, False, False, True])
    eq([L.pattern_on(L.FAST, t) for t in (0, 124, 125, 249, 250)], [True, True, False, False, True])
    eq(
        [L.pattern_on(L.DOUBLE, t) for t in (0, 149, 150, 300, 449, 450, 1199)],
        [True, True, False, True, True, False, False],
    )
    eq(
        [L.pattern_on(L.TRIPLE, t) for t in (0, 99, 100, 200, 400, 499, 500, 999)],
        [True, True, False, True, True, True, False, False],
    )
    eq(L.pattern_on(L.OFF, 0), False)


def test_patterns_differ_so_colour_is_not_needed():
    # Over one 1.2 s window each pattern has its own on/off sequence at 25 ms steps.
    seqs = []
    for p in (L.STEADY, L.SLOW, L.FAST, L.DOUBLE, L.TRIPLE):
        seqs.append(tuple(L.pattern_on(p, t) for t in range(0, 2400, 25)))
    for i in range(len(seqs)):
        for j in range(i + 1, len(seqs)):
            assert seqs[i] != seqs[j], (i, j)


def test_a_suggestion_flashes_at_once_when_it_appears():
    # The computer's (or a remote player's) move appears at t=1000, where the tick
    # counter's phase of the double flash is dark (1000 % 1200): it flashes at once, then
    # keeps its rhythm through repaints that still show it.
    r = L.Renderer(2)
    r.begin()
    r.mark(0, L.YELLOW, L.STEADY)
    r.end()
    r.frame(990)
    r.begin()
    r.mark(1, L.BLUE, L.DOUBLE)
    r.end()
    eq(r.dirty(1000), True)
    lit = [r.frame(t)[3:6] != b"\x00\x00\x00" for t in (1000, 1149, 1150, 1300, 1449, 1450, 2199, 2200)]
    eq(lit, [True, True, False, True, True, False, False, True])
    r.begin()
    r.mark(1, L.BLUE, L.DOUBLE)  # repainted (a sensor changed): the same rhythm
    r.end()
    eq(r.frame(2350)[3:6] != b"\x00\x00\x00", False)
    r.begin()
    r.end()  # gone ...
    r.frame(2400)
    r.begin()
    r.mark(1, L.BLUE, L.DOUBLE)  # ... and a new one: at once again
    r.end()
    eq(r.frame(2500)[3:6] != b"\x00\x00\x00", True)


def test_frame_and_dirty():
    r = L.Renderer(3)
    r.begin()
    r.mark(0, L.RED, L.STEADY)
    r.mark(2, L.GREEN, L.FAST)
    r.end()
    eq(r.dirty(0), True)
    f = r.frame(0)
    eq(bytes(f), b"\xff\x00\x00" + b"\x00\x00\x00" + b"\x00\xff\x80")
    eq(r.dirty(100), False, "fast blink still on")
    eq(r.dirty(130), True, "fast blink turned off")
    f2 = r.frame(130)
    eq(f2 is f, True, "one buffer, no allocation per frame")
    eq(bytes(f2), b"\xff\x00\x00" + b"\x00" * 6)
    # A steady-only picture never gets dirty by time alone.
    r.begin()
    r.mark(1, L.BLUE)
    r.end()
    r.frame(0)
    eq([r.dirty(t) for t in (10, 300, 555, 1234)], [False, False, False, False])


def test_mark_outside_the_board_is_ignored():
    r = L.Renderer(2)
    r.begin()
    r.mark(-1, L.RED)
    r.mark(2, L.RED)
    r.end()
    eq(r.describe(), "")


def test_sync_picture():
    r = L.Renderer(4)
    target = bytearray([1, 1, 0, 0])
    stable = bytearray([1, 0, 1, 0])
    L.paint_sync(r, target, stable)
    eq(r.describe(), "0:dim-white/steady 1:white/slow 2:red/fast")


def _mosona_after(texts):
    g = zuni.new_game("mosona")
    for t in texts:
        g.push_text(t)
    return g


def test_idle_picture_whose_turn_and_hint():
    g = _mosona_after(["s3xm4-m5"])
    pos = Position(g)
    r = L.Renderer(25)
    L.paint_idle(r, pos, 1)
    eq(r.describe(g.geometry.names), "n5:dim-cyan/steady m2:dim-cyan/steady")
    L.paint_idle(r, pos, 1, pos.find(g.parse_move("n5xm5-m4")))
    eq(r.describe(g.geometry.names), "n5:blue/double m2:dim-cyan/steady m4:green/double m5:orange/double")


def test_progress_picture_lifted_piece():
    g = _mosona_after([])
    pos = Position(g)
    occ = bytearray(pos.occ)
    occ[g.geometry.index["s3"]] = 0
    r = L.Renderer(25)
    L.paint_progress(r, pos, infer(pos, occ), 0)
    eq(r.describe(g.geometry.names), "m4:orange/steady m5:green/steady s3:blue/steady")
    occ[g.geometry.index["m5"]] = 1
    L.paint_progress(r, pos, infer(pos, occ), 0)
    eq(r.describe(g.geometry.names), "m4:orange/fast m5:green/steady s3:blue/steady")


def test_error_and_stuck_pictures():
    g = _mosona_after([])
    pos = Position(g)
    occ = bytearray(pos.occ)
    ix = g.geometry.index
    occ[ix["s1"]] = 0
    res = infer(pos, occ)
    r = L.Renderer(25)
    L.paint_stuck(r, pos, res.stuck)
    eq(r.describe(g.geometry.names), "s1:red/triple s3:blue/slow")
    occ[ix["m5"]] = 1
    L.paint_error(r, pos, infer(pos, occ))
    # s3 must capture (s3xm4-m5 is the only move): it blinks blue beside the mistake.
    eq(r.describe(g.geometry.names), "m5:red/triple s1:red/triple s3:blue/slow")
    # Where no capture is compulsory, only the mistake is lit.
    g2 = _mosona_after(
        "s3xm4-m5 n5xm5-m4 m7xn6-n5 n4xn5-n6xm6-m5xs4-s3 s2xs3-s4xm4-n4 m1xs1-s2 "
        "m8xn7-n6 n3xn4-m5 s5xm5-m4 m3xm4-n4 m9xn8-n7".split()
    )
    pos2 = Position(g2)
    eq([m for m in pos2.moves if m.captures], [])
    occ2 = bytearray(pos2.occ)
    empty = [p for p in range(len(occ2)) if not occ2[p]][0]
    occ2[empty] = 1
    L.paint_error(r, pos2, infer(pos2, occ2))
    eq("blue" in r.describe(g2.geometry.names), False)


def test_game_over_picture():
    g = _mosona_after([])
    r = L.Renderer(25)
    L.paint_over(r, g.board, lambda code: g.team_of(zuni.piece_side(code)), 1)
    d = r.describe(g.geometry.names)
    eq(d.count("cyan/slow"), 12)
    eq("s1:" in d, False)
    L.paint_over(r, g.board, lambda code: 0, None)
    eq(r.describe().count("white/slow"), 24)


def test_ledtest_steps():
    r = L.Renderer(3)
    names = []
    for step in range(4):
        L.paint_ledtest(r, step)
        names.append(r.describe().split()[0])
    eq(names, ["0:red/steady", "0:green/steady", "0:blue/steady", "0:white/steady"])
