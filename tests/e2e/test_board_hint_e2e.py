"""End to end: HINT on the virtual board with no host (the real firmware under the
MicroPython unix port, zuniboard.virtual.board), in a position with a winning capture for each
game: the board thinks by itself (zuni_board.hint), tells the link ``event hint <move>``
and shows the move in the hint LED language (docs/leds.md): the piece blue, where it
lands green, what it captures orange, double flash.

The positions are reached from the start with lifts and places (test_board_e2e's
hand); the move the board must show is what the same hint module finds on the PC
(it is deterministic, so both interpreters agree), and the test checks that it is the
winning capture: more pieces than the engine's first legal move, which is what HINT
showed before the board could think.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_board_e2e import Board, _layout, _play
from waiting import wait_until

import zuni

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "firmware" / "lib"))
from zuni_board.hintrun import search_for  # noqa: E402

# LED colours at full scale (zuni_board.leds.PALETTE), as the virtual board reports them.
BLUE = (0, 40, 255)
GREEN = (0, 255, 128)
ORANGE = (255, 96, 0)

# (ruleset, board, faster clock, moves to the position): North (Mosona, Kolowis) or
# South (Awithlaknakwe) to move, with a capture that wins material.
POSITIONS = [
    ("mosona", "board25", False, "s3xm4-m5 m2xs2-s3 s4xs3-s2xm3-m4"),
    ("kolowis", "board49", True, "s9-m9 n10xm10-s9 m11-m10 s9xm10-n10 s11-m11"),
    (
        "awithlaknakwe",
        "board168",
        True,
        "j1-i2 g14-f13 i2-j3 j14-i13 i1-j2 f13-e12 h1-i2 e12-f11 e1-f2 i14-j13 g1-h2 e14-f13 j3-i4 f14-g13"
        " h2-i3 f11-g10 i3-j4 g10-f9 j4-i5 f9-g8 j2-k3 g8-h7 i5-h6 h7-i6 f2-e3 g13-f12 h6-g7 f13-g12 g7-f8"
        " j13-i12 e3-f4 i6-j5 f8-e9 h14-g13 i4-h5 j5-i4",
    ),
]


def _best(game: zuni.Game) -> zuni.Move:
    search = search_for(game)
    while not search.step(1000):
        pass
    assert search.best is not None
    return search.best


@pytest.mark.parametrize("ruleset,board_name,fast,texts", POSITIONS, ids=[p[0] for p in POSITIONS])
def test_hint_with_no_host_shows_the_winning_capture(
    ruleset: str, board_name: str, fast: bool, texts: str, tmp_path: Path
) -> None:
    moves = texts.split()
    game = zuni.new_game(ruleset)
    for t in moves:
        game.push_text(t)
    best = _best(game)
    first = game.legal_moves()[0]
    assert len(best.captures) > len(first.captures), "%s is no better than %s" % (best, first)
    board = Board(_layout(board_name, tmp_path, fast), ruleset)
    try:
        _play(board, ruleset, moves)
        board.press("hint")
        body = board.wait_link("event", "hint ", timeout=5)
        assert body.split()[1] == best.text(), body
        names = game.geometry.names
        want = {names[best.origin]: BLUE, names[best.dest]: GREEN}
        for c in best.captures:
            want[names[c]] = ORANGE
        # The double flash is off most of the time: look until a frame shows it lit.
        seen: dict[str, tuple[int, int, int]] = {}

        def shown_lit() -> bool:
            nonlocal seen
            leds = board.vb.leds()
            seen = {p: leds[p] for p in want}
            return seen == want

        wait_until(shown_lit, lambda: "the hint %s shown lit: want %s, last seen %s" % (best, want, seen), 5, step=0.05)
    finally:
        board.close()
