"""Whether a board's PCB modules fit together under P2: every strip and the buttons' PCB
(all drawn in the play surface's coordinates, ``pcb_layout``) inside the frame and no
two of them overlapping. KiCad's DRC checks each PCB on its own; only this sees that two
of them would want the same place (board49's buttons' PCB once lay over strip 2).

The controller module is not among them: it stands on P3, below the strips
(``pcb_stack.controller_spot``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

from zuniboard.hardware import kicad_lib, kicad_project, placement
from zuniboard.hardware.pcb_layout import STRIP_GAP, PlanError, strip_cells_drawn
from zuniboard.hardware.stack import BOARD_GAP_MM, FRAME_WIDTH_MM

Point = tuple[float, float]

# Two strips interlock as combs with STRIP_GAP between their edges (a fab's routed
# panel); a module and the frame keep BOARD_GAP_MM, as the hand-wired boards do.
MODULE_GAP_MM = STRIP_GAP - 1e-6
FRAME_GAP_MM = BOARD_GAP_MM - 1e-6


@dataclass(frozen=True)
class Module:
    pcb: str  # "strip2", "buttons"
    outline: list[Point]  # closed polygon, template mm (origin top-left, y down)


def modules(layout: Any) -> list[Module]:
    """The outlines of the board's strips and buttons' PCB that the generator can place
    (board168's strips raise PlanError: no PCB yet, nothing to fit)."""
    lib = kicad_lib.load()
    out = []
    for pcb in kicad_project.pcbs(layout):
        if pcb in ("main", "controller") or (pcb.startswith("strip") and not strip_cells_drawn(layout)):
            continue
        try:
            plan = kicad_project.plan_for(layout, pcb, lib)[0]
        except PlanError:
            continue
        out.append(Module(pcb, list(plan.outline)))
    return out


def _edges(poly: list[Point]) -> list[tuple[Point, Point]]:
    return list(itertools.pairwise(poly + poly[:1]))


def _seg_point(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
    return math.dist(p, (a[0] + t * dx, a[1] + t * dy))


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    d1, d2, d3, d4 = _cross(c, d, a), _cross(c, d, b), _cross(a, b, c), _cross(a, b, d)
    return d1 * d2 < 0 and d3 * d4 < 0


def _inside(p: Point, poly: list[Point]) -> bool:
    """Even-odd rule."""
    inside = False
    for (x1, y1), (x2, y2) in _edges(poly):
        if (y1 > p[1]) != (y2 > p[1]) and p[0] < x1 + (p[1] - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def gap(a: list[Point], b: list[Point]) -> float:
    """The distance between two polygons' areas: 0 when they touch or overlap."""
    if _inside(a[0], b) or _inside(b[0], a):
        return 0.0
    best = math.inf
    for p, q in _edges(a):
        for r, s in _edges(b):
            if _segments_cross(p, q, r, s):
                return 0.0
            best = min(best, _seg_point(p, r, s), _seg_point(q, r, s), _seg_point(r, p, q), _seg_point(s, p, q))
    return best


def clashes(layout: Any) -> list[str]:
    """Every pair of the board's modules closer than MODULE_GAP_MM and every module closer
    to the frame's inner edge than FRAME_GAP_MM (or past it), in words; empty when they fit."""
    b = placement.build(layout)
    return check(layout.name, modules(layout), b.place.width, b.place.height)


def check(name: str, found: list[Module], width: float, height: float) -> list[str]:
    """``clashes`` for the given outlines in a frame around a play surface of that size."""
    x0, y0 = FRAME_WIDTH_MM, FRAME_WIDTH_MM
    x1, y1 = width - FRAME_WIDTH_MM, height - FRAME_WIDTH_MM
    out = []
    for m in found:
        xs = [p[0] for p in m.outline]
        ys = [p[1] for p in m.outline]
        room = min(min(xs) - x0, x1 - max(xs), min(ys) - y0, y1 - max(ys))
        if room < FRAME_GAP_MM:
            out.append(
                "%s: %s (x %.2f-%.2f, y %.2f-%.2f mm) is %.2f mm from the frame's inner edge "
                "(x %.0f-%.0f, y %.0f-%.0f mm), under %.1f mm"
                % (name, m.pcb, min(xs), max(xs), min(ys), max(ys), room, x0, x1, y0, y1, BOARD_GAP_MM)
            )
    for m, n in itertools.combinations(found, 2):
        d = gap(m.outline, n.outline)
        if d < MODULE_GAP_MM:
            out.append(
                "%s: %s and %s %s"
                % (name, m.pcb, n.pcb, "overlap" if d == 0 else "are %.2f mm apart, under %.1f" % (d, STRIP_GAP))
            )
    return out
