"""The PCB modules of a board cut into strips fit together under P2 (``pcb_fit``): inside
the frame, no two overlapping. KiCad's DRC sees one PCB at a time; this sees them all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zuniboard.games import layouts
from zuniboard.hardware import pcb_fit, placement, plates, stack
from zuniboard.hardware.pcb_fit import Module


def _rect(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def test_gap_between_outlines() -> None:
    a = _rect(0, 0, 10, 10)
    assert pcb_fit.gap(a, _rect(12, 0, 20, 10)) == pytest.approx(2.0)
    assert pcb_fit.gap(a, _rect(5, 5, 20, 20)) == 0.0  # corners overlap
    assert pcb_fit.gap(a, _rect(2, 2, 4, 4)) == 0.0  # one inside the other, no edge crossing
    assert pcb_fit.gap(a, _rect(10, 0, 20, 10)) == 0.0  # a shared edge
    # A comb: a tab standing into a notch 0.3 mm clear of its sides and floor.
    notched = [(0, 0), (4, 0), (4, 5), (6, 5), (6, 0), (10, 0), (10, 10), (0, 10)]
    tab = [(4.3, -5), (5.7, -5), (5.7, 4.7), (4.3, 4.7)]
    assert pcb_fit.gap(notched, tab) == pytest.approx(0.3)
    # A sliver of board left at the notch's side (the old strip ends) lies over the tab.
    assert pcb_fit.gap([(0, 0), (4.5, 0), (4.5, 10), (0, 10)], tab) == 0.0


def test_check_reports_an_overlap_and_a_module_past_the_frame() -> None:
    strip = Module("strip1", _rect(20, 20, 200, 60))
    assert pcb_fit.check("t", [strip], 220, 80) == []
    found = pcb_fit.check("t", [strip, Module("buttons", _rect(150, 50, 210, 75))], 220, 80)
    assert found == [
        "t: buttons (x 150.00-210.00, y 50.00-75.00 mm) is -5.00 mm from the frame's inner edge "
        "(x 10-210, y 10-70 mm), under 2.0 mm",
        "t: strip1 and buttons overlap",
    ]


@pytest.fixture(scope="module")
def board49() -> Any:
    return layouts.load_layout("board49")


def test_board49_modules_fit_under_p2(board49: Any) -> None:
    found = pcb_fit.modules(board49)
    assert sorted(m.pcb for m in found) == ["buttons"] + ["strip%d" % k for k in range(1, 7)]
    b = placement.build(board49)
    assert pcb_fit.check("board49", found, b.place.width, b.place.height) == []
    assert pcb_fit.clashes(board49) == []
    # The buttons' band: the play surface 40 mm deeper, the buttons one pitch South of the
    # South row, their PCB wholly below every strip.
    assert (b.place.width, b.place.height, b.place.band) == (540.0, 160.0, stack.BUTTON_BAND_MM)
    buttons = next(m for m in found if m.pcb == "buttons")
    lowest_strip = max(y for m in found if m.pcb != "buttons" for _, y in m.outline)
    assert min(y for _, y in buttons.outline) > lowest_strip
    for _label, x, y in plates.button_positions(b):
        assert y == 90.0 + b.pitch and pcb_fit._inside((x, y), buttons.outline)


def test_the_buttons_in_the_old_margin_clash_with_strip_2(board49: Any) -> None:
    """Where the buttons were before the band (15 mm South of the South row), their PCB
    lies over strip 2 and runs past the frame: the check says so."""
    b = placement.build(board49)
    found = pcb_fit.modules(board49)
    up = b.pitch - b.place.margin / 2  # from one pitch South of the row to half the margin
    moved = [Module(m.pcb, [(x, y - up) for x, y in m.outline]) if m.pcb == "buttons" else m for m in found]
    old_height = b.place.height - b.place.band
    found = pcb_fit.check("board49", moved, b.place.width, old_height)
    assert "board49: buttons and strip2 overlap" in found
    assert any(t.startswith("board49: buttons (x 393.00-495.00, y 99.00-128.50 mm) is -18.50 mm") for t in found)


def test_board168_buttons_pcb_inside_the_frame() -> None:
    # Its strips have no PCB yet (pcb_layout.strip_cells_drawn): only the buttons' PCB.
    lay = layouts.load_layout("board168")
    assert [m.pcb for m in pcb_fit.modules(lay)] == ["buttons"]
    assert pcb_fit.clashes(lay) == []
    assert placement.build(lay).place.band == 0.0


def test_the_modules_drawing(board49: Any) -> None:
    svg = pcb_fit.modules_svg(board49)
    assert svg is not None
    assert svg == (Path(__file__).resolve().parents[2] / "hardware" / "board49" / "pcb-modules.svg").read_text()
    for pcb in ["buttons"] + ["strip%d" % k for k in range(1, 7)]:
        assert ">%s</text>" % pcb in svg
    # the chain in order, from the controller's J2 to the last strip, then the buttons' cable
    assert "J2 - J10, J11 - J20, J21 - J30, J31 - J40, J41 - J50, J51 - J60, J3 - J4." in svg
    assert svg.count('stroke-dasharray="2,1.2"') == 5  # the five cables between two strips
    assert pcb_fit.modules_svg(layouts.load_layout("board25")) is None  # one main PCB: nothing to fit
