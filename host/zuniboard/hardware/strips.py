"""How a board too large for one PCB is cut into strip modules.

A board whose play surface is larger than ``MAIN_MAX_MM`` in either direction (board49:
540 x 120 mm before its buttons' band, board168: 420 x 420 mm) gets no main board: its points are cut, in the
snake order of the LED and sensor chains, into **strips**: runs of neighbouring points of
one row (rank), a row longer than ``STRIP_MAX_POINTS`` points cut into near-equal parts
(the first in chain order the shorter). Each strip is one PCB (``pcb_layout.strip_plan``)
carrying its points' reed switches and LEDs and the 74HC165s that read most of them; the
controller module and the strips form one chain of 2 x N ribbon cables (``circuit``).

Why these sizes: a strip of at most 9 points at 30 mm is at most 270 mm long, under the
low-cost fabs' 100 x 300 mm and 250 mm price steps for long thin boards, and one row
high, so that every strip's outline is the same comb of cells (``pcb_layout``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zuni_board.layout import Layout

from zuniboard.hardware.stack import MAIN_MAX_MM

STRIP_MAX_POINTS = 9


def needs_strips(layout: Layout) -> bool:
    from zuniboard.hardware.placement import layout_geometry, placement

    place = placement(layout_geometry(layout), float(layout.mechanics["pitch_mm"]))
    return place.width > MAIN_MAX_MM or place.height > MAIN_MAX_MM


def row_of(layout: Layout) -> dict[str, float]:
    """Point name -> the y of its row in board units (geometry coordinates)."""
    from zuniboard.hardware.placement import layout_geometry

    g = layout_geometry(layout)
    return {name: float(g.coords[g.index[name]][1]) for name in g.names}


def strips(layout: Layout) -> list[list[str]]:
    """The strips of the board in chain order, each its points in chain order."""
    order = sorted(layout.points, key=lambda name: layout.points[name][1])
    rows = row_of(layout)
    runs: list[list[str]] = []
    for name in order:
        if runs and rows[runs[-1][-1]] == rows[name]:
            runs[-1].append(name)
        else:
            runs.append([name])
    out: list[list[str]] = []
    for run in runs:
        parts = math.ceil(len(run) / STRIP_MAX_POINTS)
        start = 0
        for k in range(parts):
            # near-equal parts, the shorter ones first
            size = (len(run) + k) // parts
            out.append(run[start : start + size])
            start += size
    return out
