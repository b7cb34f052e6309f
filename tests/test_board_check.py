"""`zuni board check`'s bookkeeping (BringUp): events in, live map and report out."""

from __future__ import annotations

from zuniboard.commands.board_check import FLICKER_CHANGES, BringUp
from zuniboard.layouts import board_geometry


def _all_tried(b: BringUp) -> None:
    for i, name in enumerate(b.geometry.names):
        b.raw("+" + name, now=i * 10.0)
        b.raw("-" + name, now=i * 10.0 + 1)


def test_a_good_board_reports_nothing() -> None:
    b = BringUp(board_geometry("mosona"))
    _all_tried(b)
    assert b.report(board_empty=True) == []
    assert "25 of 25 points tried" in b.render()


def test_untried_and_stuck_points_are_named() -> None:
    b = BringUp(board_geometry("mosona"))
    b.raw("+m5", now=0.0)
    report = b.report(board_empty=True)
    assert report[0].startswith("never changed") and "m1" in report[0] and " m5" not in report[0]
    assert report[1] == "occupied on the empty board (switch stuck closed, or a magnet nearby): m5"


def test_a_first_lift_means_the_point_was_occupied() -> None:
    b = BringUp(board_geometry("mosona"))
    b.raw("-s3", now=0.0)
    assert b.points["s3"].changes == 1 and not b.points["s3"].occupied


def test_flicker_and_coupled_points() -> None:
    b = BringUp(board_geometry("kolowis"))
    _all_tried(b)
    for k in range(FLICKER_CHANGES):
        b.raw(("+" if k % 2 == 0 else "-") + "m7", now=1000 + k * 0.1)
    b.raw("+n3 +n4", now=2000.0)
    b.raw("-n3 -n4", now=2001.0)
    report = b.report(board_empty=False)
    assert any(line.startswith("flickering") and line.endswith(": m7") for line in report), report
    assert any(line.endswith(": n3+n4") for line in report), report


def test_unknown_tokens_are_reported() -> None:
    b = BringUp(board_geometry("mosona"))
    _all_tried(b)
    b.raw("+z9 m3", now=5.0)
    assert b.report(board_empty=False) == ["events naming no point of this board: +z9 m3"]


def test_live_map_draws_the_square_board() -> None:
    b = BringUp(board_geometry("awithlaknakwe"))
    b.raw("+e1", now=0.0)
    b.raw("+b2 -e1", now=1.0)
    lines = b.render().splitlines()
    assert len(lines) == 14 + 1
    # South is the bottom row: e1 (tried, now empty) is the first of six squares.
    assert lines[13].split() == ["o", ".", ".", ".", ".", "."]
    assert lines[12].split()[0] == "#"
    assert lines[-1] == "2 of 168 points tried"
