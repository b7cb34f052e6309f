"""The LED language read without telling red from green (docs/leds.md, *Without telling
colours apart*): every picture the firmware paints, rendered by its own renderer on real
positions, then seen through simulations of deuteranopia and protanopia (Machado,
Oliveira and Fernandes 2009, severity 1). Two states that must be told apart still differ
by their blink pattern, or by colour (CIELAB distance at least ``MIN_DELTA_E``).

Must differ: any two states lit in the same picture, and across pictures the three the
issue names (a mistake, a capture, the computer's move). The page's high-contrast
palette (``web.server.CONTRAST_PALETTE``) keeps every pair of its colours apart by colour
alone, as a screen shows it with no blinking needed."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import zuni
import zuniboard  # noqa: F401  (puts firmware/lib on the path)
from zuni_board import leds as L
from zuni_board.infer import Position, infer
from zuni_board.ledtext import COLOUR_NAMES, PATTERN_NAMES
from zuniboard.web.server import CONTRAST_PALETTE

# Machado et al. 2009, severity 1.0, on linear RGB.
SIMULATIONS: dict[str, tuple[tuple[float, float, float], ...] | None] = {
    "normal": None,
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
}
MIN_DELTA_E = 20.0  # CIE76: two lights side by side this far apart read as two colours
MIN_CONTRAST_E = 25.0  # the page's high-contrast palette, every pair


def _linear(v: float) -> float:
    v /= 255.0
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def _lab(linear: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = linear
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def seen(rgb: tuple[int, int, int], how: str) -> tuple[float, float, float]:
    """The CIELAB colour of ``rgb`` as a person with ``how`` vision sees it."""
    lin = tuple(_linear(v) for v in rgb)
    m = SIMULATIONS[how]
    if m is not None:
        lin = tuple(max(0.0, min(1.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3))
    return _lab(lin)  # type: ignore[arg-type]


def delta_e(a: tuple[int, int, int], b: tuple[int, int, int], how: str) -> float:
    return math.dist(seen(a, how), seen(b, how))


def rgb_of(colour: int) -> tuple[int, int, int]:
    return (L.PALETTE[3 * colour], L.PALETTE[3 * colour + 1], L.PALETTE[3 * colour + 2])


def blink(pattern: int) -> tuple[bool, ...]:
    """The pattern's on/off over 2.4 s at 10 ms: what an eye sees of it in time."""
    return tuple(L.pattern_on(pattern, t) for t in range(0, 2400, 10))


State = tuple[int, int]  # (colour, pattern)


def state_name(s: State) -> str:
    return "%s/%s" % (COLOUR_NAMES[s[0]], PATTERN_NAMES[s[1]])


def lit(r: L.Renderer) -> set[State]:
    return {r.get(p) for p in range(r.n) if r.get(p)[0]}


def mosona(texts: list[str]) -> zuni.Game:
    g = zuni.new_game("mosona")
    for t in texts:
        g.push_text(t)
    return g


def pictures() -> dict[str, set[State]]:
    """Every picture of docs/leds.md's table, painted by the firmware on real positions."""
    out: dict[str, set[State]] = {}

    def paint(name: str, how: Callable[[L.Renderer], None], n: int = 25) -> None:
        r = L.Renderer(n)
        how(r)
        out[name] = lit(r)

    paint("setting up", lambda r: L.paint_sync(r, bytearray([1, 1, 0, 0]), bytearray([1, 0, 1, 0])), 4)
    start = mosona([])
    pos = Position(start)
    paint("whose turn, South", lambda r: L.paint_idle(r, pos, 0))
    after = mosona(["s3xm4-m5"])
    pos1 = Position(after)
    host = pos1.find(after.parse_move("n5xm5-m4"))
    paint("whose turn, North", lambda r: L.paint_idle(r, pos1, 1))
    paint("the computer's move shown", lambda r: L.paint_idle(r, pos1, 1, host=host))
    paint("a hint shown", lambda r: L.paint_idle(r, pos, 0, hint=pos.find(start.parse_move("s3xm4-m5"))))
    m5 = start.geometry.index["m5"]
    # The move just made graded by the host (1 a mistake, 2 a blunder): its point, the
    # other side to move. (A computer's reply shown wins on a point both light.)
    paint("a mistake graded", lambda r: L.paint_idle(r, pos1, 1, graded=(m5, 1)))
    paint("a blunder graded", lambda r: L.paint_idle(r, pos1, 1, graded=(m5, 2)))
    ix = start.geometry.index
    lifted = bytearray(pos.occ)
    lifted[ix["s3"]] = 0
    paint("a piece lifted", lambda r: L.paint_progress(r, pos, infer(pos, lifted), 0))
    landed = bytearray(lifted)
    landed[ix["m5"]] = 1
    paint("landed, captures to take off", lambda r: L.paint_progress(r, pos, infer(pos, landed), 0))
    first = bytearray(pos.occ)
    first[ix["m4"]] = 0
    paint("a captured piece lifted first", lambda r: L.paint_progress(r, pos, infer(pos, first), 0))
    carrying = bytearray(pos1.occ)
    carrying[ix["n5"]] = 0
    carrying[ix["m4"]] = 1
    paint("the computer's move carried out", lambda r: L.paint_progress(r, pos1, infer(pos1, carrying), 1, host=host))
    stuck = bytearray(pos.occ)
    stuck[ix["s1"]] = 0
    paint("a piece that may not move", lambda r: L.paint_stuck(r, pos, infer(pos, stuck).stuck))
    wrong = bytearray(stuck)
    wrong[ix["m5"]] = 1
    paint("a mistake", lambda r: L.paint_error(r, pos, infer(pos, wrong)))
    paint(
        "a mistake while the computer's move is shown",
        lambda r: L.paint_error(r, pos1, infer(pos1, carrying_wrong(pos1, ix)), host=host),
    )
    paint(
        "game over, North wins", lambda r: L.paint_over(r, after.board, lambda c: after.team_of(zuni.piece_side(c)), 1)
    )
    paint(
        "game over, South wins", lambda r: L.paint_over(r, after.board, lambda c: after.team_of(zuni.piece_side(c)), 0)
    )
    paint("game over, a draw", lambda r: L.paint_over(r, after.board, lambda c: 0, None))
    paint("a forced pass", lambda r: L.paint_pass(r, after.board, lambda c: after.team_of(zuni.piece_side(c)), 0))
    return out


def carrying_wrong(pos: Position, ix: dict[str, int]) -> bytearray:
    occ = bytearray(pos.occ)
    occ[ix["n5"]] = 0
    occ[ix["n4"]] = 0  # not the computer's piece: a mistake
    occ[ix["n3"]] = 0
    return occ


PICTURES = pictures()
TICK = "tick"  # the low time's tick (zuni_board.clocks): one 120 ms flash a second, over any picture


def differ(a: State, b: State, how: str) -> tuple[bool, str]:
    """Whether two states read apart for ``how`` vision, and by what."""
    if blink(a[1]) != blink(b[1]):
        return True, "pattern"
    e = delta_e(rgb_of(a[0]), rgb_of(b[0]), how)
    return e >= MIN_DELTA_E, "colour %.1f" % e


def test_every_picture_is_painted_and_its_states_are_known() -> None:
    assert len(PICTURES) == 18
    for name, states in PICTURES.items():
        assert states, "%s: nothing lit" % name
    every = set().union(*PICTURES.values())
    # The states of docs/leds.md's table, each painted by some picture.
    names = {state_name(s) for s in every}
    for want in (
        "white/slow",
        "dim-white/steady",
        "red/fast",
        "dim-yellow/steady",
        "dim-cyan/steady",
        "blue/double",
        "green/double",
        "orange/double",
        "blue/steady",
        "green/steady",
        "orange/steady",
        "orange/fast",
        "blue/slow",
        "red/triple",
        "orange/triple",
        "yellow/slow",
        "cyan/slow",
        "white/slow",
    ):
        assert want in names, (want, sorted(names))


def test_states_lit_together_differ_by_pattern_or_colour_in_every_vision() -> None:
    failures = []
    for name, states in PICTURES.items():
        for a, b in itertools.combinations(sorted(states), 2):
            for how in SIMULATIONS:
                ok, by = differ(a, b, how)
                if not ok:
                    failures.append("%s: %s and %s (%s, %s)" % (name, state_name(a), state_name(b), how, by))
    assert failures == []


def test_a_mistake_a_capture_and_the_computers_move_are_never_confused() -> None:
    """Across pictures, by pattern or colour, in every vision: the red of a mistake is
    close to a capture's orange for a deuteranope, so the mistake has its own pattern."""
    mistakes = {s for n in ("a mistake", "a piece that may not move") for s in PICTURES[n] if s[0] == L.RED}
    captures = {s for n in PICTURES for s in PICTURES[n] if s[0] == L.ORANGE and "graded" not in n}
    computer = set(PICTURES["the computer's move shown"]) - {s for s in PICTURES["whose turn, North"]}
    assert mistakes == {(L.RED, L.TRIPLE)}
    assert (L.ORANGE, L.FAST) in captures and (L.ORANGE, L.DOUBLE) in captures
    assert {state_name(s) for s in computer} == {"blue/double", "green/double", "orange/double"}
    failures = []
    for group_a, group_b in ((mistakes, captures), (mistakes, computer), (captures - computer, computer - captures)):
        for a in group_a:
            for b in group_b:
                for how in SIMULATIONS:
                    ok, by = differ(a, b, how)
                    if not ok:
                        failures.append("%s and %s (%s, %s)" % (state_name(a), state_name(b), how, by))
    assert failures == []
    # Without the triple flash a mistake would read as a capture: the colours alone fail.
    assert delta_e(rgb_of(L.RED), rgb_of(L.ORANGE), "deuteranopia") < MIN_DELTA_E


def test_a_graded_move_reads_as_a_mistake_never_as_a_capture_or_the_computers_move() -> None:
    """The host's grade of the move just made (orange: a mistake, red: a blunder) flashes
    the mistake's own triple: apart from a capture and the computer's move by pattern in
    every vision. Mistake and blunder differ by colour only (not for a deuteranope: 8.5
    apart), so the terminal and the page say which in words."""
    graded = {s for n in ("a mistake graded", "a blunder graded") for s in PICTURES[n] if s[1] == L.TRIPLE}
    assert graded == {(L.ORANGE, L.TRIPLE), (L.RED, L.TRIPLE)}
    others = {s for n in PICTURES for s in PICTURES[n] if s[0] == L.ORANGE and "graded" not in n}
    others |= set(PICTURES["the computer's move shown"])
    for a in graded:
        for b in others:
            assert blink(a[1]) != blink(b[1]), (state_name(a), state_name(b))


def test_every_pattern_and_the_clock_tick_have_their_own_rhythm() -> None:
    rhythms = {PATTERN_NAMES[p]: blink(p) for p in range(1, L.N_PATTERNS)}
    rhythms[TICK] = tuple(t % 1000 < 120 for t in range(0, 2400, 10))
    for (a, ra), (b, rb) in itertools.combinations(rhythms.items(), 2):
        # Not only another phase: another count of flashes a second, or another length.
        flashes_a = sum(1 for i in range(1, len(ra)) if ra[i] and not ra[i - 1])
        flashes_b = sum(1 for i in range(1, len(rb)) if rb[i] and not rb[i - 1])
        assert (flashes_a, sum(ra)) != (flashes_b, sum(rb)), (a, b)


def test_the_pages_high_contrast_palette_keeps_every_colour_apart() -> None:
    assert set(CONTRAST_PALETTE) == set(COLOUR_NAMES) - {"black"}
    rgb = {name: tuple(int(h[i : i + 2], 16) for i in (1, 3, 5)) for name, h in CONTRAST_PALETTE.items()}
    # Pairs that are lit together somewhere, by colour alone (a screen reader of the page
    # sees colours; the page blinks as the board does, but this palette needs no blink).
    together = set()
    for states in PICTURES.values():
        for a, b in itertools.combinations(sorted({COLOUR_NAMES[s[0]] for s in states}), 2):
            together.add((a, b))
    together.add(("orange", "red"))  # a capture and a mistake
    failures = []
    for a, b in sorted(together):
        for how in SIMULATIONS:
            e = delta_e(rgb[a], rgb[b], how)  # type: ignore[arg-type]
            if e < MIN_CONTRAST_E:
                failures.append("%s and %s: %.1f (%s)" % (a, b, e, how))
    assert failures == []
