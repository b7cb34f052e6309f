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
from typing import TYPE_CHECKING

from zuniboard.hardware import kicad_lib, kicad_project, placement, plates
from zuniboard.hardware.pcb_layout import STRIP_GAP, SWITCH_PITCH, PlanError, strip_cells_drawn
from zuniboard.hardware.stack import BOARD_GAP_MM, FRAME_WIDTH_MM, unit_vector

if TYPE_CHECKING:
    from zuni_board.layout import Layout

Point = tuple[float, float]

# Two strips interlock as combs with STRIP_GAP between their edges (a fab's routed
# panel); a module and the frame keep BOARD_GAP_MM, as the hand-wired boards do.
MODULE_GAP_MM = STRIP_GAP - 1e-6
FRAME_GAP_MM = BOARD_GAP_MM - 1e-6


@dataclass(frozen=True)
class Module:
    pcb: str  # "strip2", "buttons"
    outline: list[Point]  # closed polygon, template mm (origin top-left, y down)
    holes: tuple[Point, ...] = ()  # mounting holes (3.2 mm)
    headers: tuple[tuple[str, float, float, str], ...] = ()  # ref, pin 1 x, y, value ("cable to J20")


def modules(layout: Layout) -> list[Module]:
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
        headers = tuple((p.ref, p.x, p.y, p.value) for p in plan.placements if p.ref.startswith("J"))
        out.append(Module(pcb, list(plan.outline), tuple((h.x, h.y) for h in plan.holes), headers))
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


def clashes(layout: Layout) -> list[str]:
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


_FILLS = ("#8dd3c7", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5", "#d9d9d9")


def modules_svg(layout: Layout) -> str | None:
    """The assembly drawing of a board cut into strips (``pcb-modules.svg``): every strip
    and the buttons' PCB where it hangs under P2, seen from above, with its mounting holes,
    its chain headers and the cables between them in chain order, over the points' reed
    switches and LEDs and the frame. None for a board without placed strips."""
    found = modules(layout)
    if not any(m.pcb.startswith("strip") for m in found):
        return None
    b = placement.build(layout)
    w, h = b.place.width, b.place.height
    legend = 42.0
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="%smm" height="%smm" viewBox="-5 -5 %s %s" '
        'font-family="sans-serif">' % (_n(w + 10), _n(h + legend + 10), _n(w + 10), _n(h + legend + 10)),
        '<rect x="0" y="0" width="%s" height="%s" fill="#e8cfa8" stroke="black" stroke-width="0.3"/>' % (_n(w), _n(h)),
        '<rect x="%s" y="%s" width="%s" height="%s" fill="white"/>'
        % (_n(FRAME_WIDTH_MM), _n(FRAME_WIDTH_MM), _n(w - 2 * FRAME_WIDTH_MM), _n(h - 2 * FRAME_WIDTH_MM)),
    ]
    out += _module_shapes(found)
    out += _point_shapes(b)
    cables, cable_lines = _cables(found)
    out += cable_lines
    for label, x, y in plates.button_positions(b):
        out.append('<circle cx="%s" cy="%s" r="3.5" fill="none" stroke="black" stroke-width="0.5"/>' % (_n(x), _n(y)))
        out.append('<text x="%s" y="%s" font-size="3.5" text-anchor="middle">%s</text>' % (_n(x), _n(y + 7.5), label))
    out += _modules_legend(layout, w, h, cables)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _module_shapes(found: list[Module]) -> list[str]:
    """Each module's outline, name and mounting holes."""
    out = []
    for k, m in enumerate(found):
        pts = " ".join("%s,%s" % (_n(x), _n(y)) for x, y in m.outline)
        out.append(
            '<polygon points="%s" fill="%s" fill-opacity="0.75" stroke="black" stroke-width="0.25"/>'
            % (pts, _FILLS[k % len(_FILLS)])
        )
        xs = [p[0] for p in m.outline]
        ys = [p[1] for p in m.outline]
        out.append(
            '<text x="%s" y="%s" font-size="5" font-weight="bold" text-anchor="middle">%s</text>'
            % (_n((min(xs) + max(xs)) / 2 + 15.0), _n(_label_y(m.pcb, min(ys), max(ys))), m.pcb)
        )
        for x, y in m.holes:
            out.append(
                '<circle cx="%s" cy="%s" r="1.6" fill="white" stroke="black" stroke-width="0.3"/>' % (_n(x), _n(y))
            )
    return out


def _point_shapes(b: placement.Build) -> list[str]:
    """Each point's reed switch and LED."""
    layout = b.layout
    out = []
    for name in b.geometry.names:
        sx, sy = placement.switch_xy(b, name)
        ux, uy = unit_vector(layout.mechanics["switch_angle_deg"])
        half = SWITCH_PITCH / 2
        out.append(
            '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#1f5fbf" stroke-width="1.2"/>'
            % (_n(sx - half * ux), _n(sy - half * uy), _n(sx + half * ux), _n(sy + half * uy))
        )
        lx, ly = placement.led_xy(b, name)
        out.append(
            '<circle cx="%s" cy="%s" r="2.5" fill="none" stroke="#d62728" stroke-width="0.5"/>' % (_n(lx), _n(ly))
        )
    return out


def _cables(found: list[Module]) -> tuple[list[tuple[str, str]], list[str]]:
    """The chain headers and the cables between them: (from, to) of every cable, and the
    drawing (a cable from the controller module, on P3, has only its far end drawn)."""
    out = []
    ends: dict[str, tuple[float, float]] = {}
    for m in found:
        for ref, x, y, _value in m.headers:
            ends[ref] = (x, y)
            out.append('<rect x="%s" y="%s" width="3" height="3" fill="black"/>' % (_n(x - 1.5), _n(y - 1.5)))
            out.append('<text x="%s" y="%s" font-size="3.5">%s</text>' % (_n(x + 2.2), _n(y - 2.0), ref))
    cables: list[tuple[str, str]] = []
    for m in found:
        for ref, _x, _y, value in m.headers:
            other = value.split()[-1]
            if other in ends and ref < other and not (ref.endswith("0") and other.endswith("1")):
                cables.append((ref, other))
            elif other not in ends:
                cables.append((other, ref))  # from the controller module, on P3
    for a, z in sorted(cables):
        if a in ends and z in ends:
            (x1, y1), (x2, y2) = ends[a], ends[z]
            out.append(
                '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="black" stroke-width="0.5" stroke-dasharray="2,1.2"/>'
                % (_n(x1), _n(y1), _n(x2), _n(y2))
            )
    return cables, out


def _modules_legend(layout: Layout, w: float, h: float, cables: list[tuple[str, str]]) -> list[str]:
    """The lines of text under the drawing."""
    out = []
    chain = ", ".join("%s - %s" % c for c in sorted(cables, key=_cable_order))
    lines = [
        "%s: the PCB modules under P2, seen from above (origin top-left, mm; the plates are %s x %s mm)."
        % (layout.name, _n(w), _n(h)),
        "Tan: the frame. Blue: reed switches, red: LEDs (through the modules' top side); white circles: 3.2 mm "
        "mounting holes; black squares: pin 1 of the chain headers.",
        "Ribbon cables (dashed where both ends are drawn; J2 and J3 are on the controller module, on P3): %s." % chain,
        "Every module is %s mm or more inside the frame and %s mm or more from the next one "
        "(host/zuniboard/hardware/pcb_fit.py)." % (_n(BOARD_GAP_MM), _n(STRIP_GAP)),
    ]
    for k, text in enumerate(lines):
        out.append('<text x="0" y="%s" font-size="4">%s</text>' % (_n(h + 9 + 8 * k), _escape(text)))
    return out


def _label_y(pcb: str, top: float, bottom: float) -> float:
    """A strip's name in its middle (over its channel), the buttons' PCB's at its foot
    (its buttons take the middle)."""
    return bottom - 3.0 if pcb == "buttons" else (top + bottom) / 2 + 1.5


def _cable_order(pair: tuple[str, str]) -> tuple[int, str]:
    """J2 - J10 first, then J11 - J20, ..., the buttons' J3 - J4 last."""
    a = pair[0]
    return (99 if a == "J3" else int(a[1:]), a)


def _n(v: float) -> str:
    return ("%.2f" % v).rstrip("0").rstrip(".")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
