"""Where every part of a board's PCBs goes, generated cell by cell from the layout, and
the routing that follows from it (``pcb_route``).

Two PCBs per board, joined by a 1:1 cable (``circuit.split_boards``):

- the **main board**, the size of the play surface, under it: for every point its reed
  switch at the point's switch position and its 5 mm LED under the LED window (both from
  ``placement``), the LED's 100 nF beside it; per eight points a 74HC165 with its pull-up
  network and 100 nF in a gap between two points of its row; the buttons in the South
  margin; J1 for the cable. Each row of points has a channel between the switches' two
  pads (under the reed's glass), corridors at the West and East ends join the rows.
- the **controller module**: the Pico lying along the module, its two pin rows each
  facing a channel; above the top channel the load switch, the level shifter and their
  resistors and capacitors; below the bottom channel J2.

Boards too large for one main board (``strips``) get instead, for each strip, a
**strip** PCB (``strip_plan``): one row of the same cells with one channel, the
74HC165s and the chain headers between the LEDs and the channel; and a small PCB for
the buttons (``buttons_plan``). The line boards' strips are placed and routed; the
168-square board's cells (switches at 45 degrees) raise ``PlanError`` (the reason is in
its ``NO-PCB.md`` files).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zuniboard.hardware import placement, plates
from zuniboard.hardware.circuit import FIRST_HC165, Circuit
from zuniboard.hardware.kicad_lib import Library
from zuniboard.hardware.kicad_pcb import FAB, Hole, Placement, Track, Via
from zuniboard.hardware.pcb_route import Channel, Corridor, Pad, RoutingError, Stub, fanout, pads, route
from zuniboard.hardware.pcb_size import controller_row as _controller_row
from zuniboard.hardware.pcb_size import controller_size
from zuniboard.hardware.pcb_size import part_width as _width
from zuniboard.hardware.stack import BUTTONS_PCB_BELOW_MM

if TYPE_CHECKING:
    from zuni_board.layout import Layout

SWITCH_PITCH = 20.32  # the reed footprint's pad distance
SW_PAD = 2.4
LED_PAD_H = 1.8
PLAIN_HOLE_MM = 3.5


class PlanError(ValueError):
    """A board this generator cannot place yet (names the reason)."""


@dataclass
class BoardPlan:
    name: str  # project: "board25-main"
    title: str
    width: float
    height: float
    placements: list[Placement] = field(default_factory=list)
    pad_nets: dict[str, dict[str, str]] = field(default_factory=dict)
    tracks: list[Track] = field(default_factory=list)
    vias: list[Via] = field(default_factory=list)
    holes: list[Hole] = field(default_factory=list)
    texts: list[tuple[float, float, str, str]] = field(default_factory=list)
    lanes: dict[str, int] = field(default_factory=dict)
    outline: list[tuple[float, float]] = field(default_factory=list)  # empty: the rectangle


@dataclass(frozen=True)
class SymbolRef:
    path: str
    sheet_name: str
    sheet_file: str


class _Builder:
    def __init__(self, lib: Library, c: Circuit, refs: dict[str, SymbolRef], pin_nets: dict[str, dict[str, str]]):
        self.lib = lib
        self.c = c
        self.refs = refs
        self.pin_nets = pin_nets
        self.placements: list[Placement] = []
        self.stubs: list[Stub] = []

    def place(self, ref: str, x: float, y: float, rot: float) -> list[Pad]:
        part = self.c.parts[ref]
        s = self.refs[ref]
        p = Placement(
            ref, part.footprint, part.value, round(x, 4), round(y, 4), rot, s.path, s.sheet_name, s.sheet_file,
            part.description,
        )  # fmt: skip
        self.placements.append(p)
        return [q for q in pads(self.lib, p, self.pin_nets[ref]) if not q.net.startswith("unconnected-")]

    def stub(self, ps: list[Pad], channel: str, down: bool, style: str = "", centre: float | None = None) -> None:
        self.stubs += fanout(ps, channel, down, style, centre)

    def route_into(self, plan: BoardPlan, channels: list[Channel], corridors: list[Corridor], power: list[str]) -> None:
        """Route the stubs placed so far and give ``plan`` the parts, tracks and pads' nets."""
        try:
            routed = route(channels, corridors, self.stubs, power)
        except RoutingError as exc:
            raise PlanError("%s: %s" % (plan.name, exc)) from exc
        plan.placements = self.placements
        plan.tracks, plan.vias, plan.lanes = routed.tracks, routed.vias, routed.lanes
        plan.pad_nets = {p.ref: self.pin_nets[p.ref] for p in self.placements}

    def buttons(self, b: placement.Build, channel: str) -> list[tuple[float, float]]:
        """The buttons below the South row, each with its series resistor, pull-up and TVS
        in a row to its right (their stubs up); the x spans they take."""
        c = self.c
        below: list[tuple[float, float]] = []
        for label, bx, by in plates.button_positions(b):
            ref = "SW_%s" % label
            if ref in c.parts:
                self.stub(self.place(ref, bx - 2.25, by + 3.25, 90.0), channel, False)
                protection = [c.net_of(ref, "1")]
                parts = [
                    r
                    for r, p in c.parts.items()
                    if r != ref and any(c.net_of(r, q.number) in protection for q in p.pins)
                ]
                for k, part in enumerate(sorted(parts)):
                    self.stub(self.place(part, bx + 8.0 + 4.6 * k, by, 0.0), channel, False)
                below.append((bx - 5, bx + 10.0 + 4.6 * len(parts)))
        return below


def _smd_style(footprint: str) -> tuple[float, str]:
    """Rotation and fan-out style of a surface-mount part in a row above a channel."""
    if footprint.startswith("Package_SO:"):
        return 90.0, "rows"
    if "SOT-23-6" in footprint:
        return 0.0, "sides"
    return 0.0, ""


def main_plan(
    layout: Layout, c: Circuit, lib: Library, refs: dict[str, SymbolRef], pin_nets: dict[str, dict[str, str]]
) -> BoardPlan:
    b = placement.build(layout)
    if not strip_cells_drawn(layout):
        raise PlanError("%s: only line boards with switches pointing South have a main-board plan" % layout.name)
    w, h = b.place.width, b.place.height
    plan = BoardPlan("%s-main" % layout.name, "%s: main board (switches, LEDs, shift registers)" % layout.name, w, h)
    bld = _Builder(lib, c, refs, pin_nets)
    rows: dict[float, list[str]] = {}
    for name in layout.points:
        rows.setdefault(round(b.xy(name)[1], 3), []).append(name)
    channel_of, channels, band_y = _row_bands(layout, b, rows)
    xs_all = _main_cells(layout, b, bld, channel_of)
    # -- below the South row: J1 and the buttons, their stubs going up ---------------------
    south = max(rows)
    south_ch = channel_of[south]
    below: list[tuple[float, float]] = []
    j1_x = min(b.xy(n)[0] for n in rows[south]) + 8.0
    j1_y = h - 6.0
    if "J1" in c.parts:
        ps = bld.place("J1", j1_x, j1_y, 90.0)
        bld.stub(ps, south_ch, False)
        below.append((j1_x - 2, j1_x + 2.54 * len(ps) + 2))
    below += bld.buttons(b, south_ch)
    _main_chips(layout, b, bld, rows, below, channel_of, band_y)
    # R1 (LED data, at the first LED) in the South margin, between two points' columns
    if "R1" in c.parts:
        south_xs = sorted(b.xy(n)[0] for n in rows[south])
        r1x = (south_xs[1] + south_xs[2]) / 2
        bld.stub(bld.place("R1", r1x, j1_y, 0.0), south_ch, False)
    first_x = min(xs_all)
    last_x = max(xs_all)
    corridors = [
        Corridor("west", 8.0, first_x - 1.905 - 1.3 - 0.125 - FAB.clearance - 0.1),
        Corridor("east", last_x + 6.45 + 0.5 + FAB.clearance + 0.3, w - 8.0),
    ]
    bld.route_into(plan, channels, corridors, ["GND", "+5V", "+3V3"])
    plan.holes = [Hole(x, y, PLAIN_HOLE_MM) for x, y in plates.screw_positions(b)]
    plan.texts = [
        (j1_x, h - 12.0, "F.SilkS", "%s main board  J1: cable to the controller (pin 1 left)" % layout.name),
        (j1_x, h - 2.5, "F.SilkS", "zuniboard, CERN-OHL-S-2.0, source: hardware/ of the zuniboard repository"),
    ]
    return plan


def _row_bands(
    layout: Layout, b: placement.Build, rows: dict[float, list[str]]
) -> tuple[dict[float, str], list[Channel], dict[float, float]]:
    """The main board's routing channel of each row (between its switches' pads) and the y
    of its chip band; fails when the rows are too close for a band."""
    row_ys = sorted(rows)
    channel_of: dict[float, str] = {}
    channels: list[Channel] = []
    band_y: dict[float, float] = {}
    for ry in row_ys:
        names = sorted(rows[ry], key=lambda n: b.xy(n)[0])
        sx, sy = placement.switch_xy(b, names[0])
        lx, ly = placement.led_xy(b, names[0])
        top = sy - SWITCH_PITCH / 2 + SW_PAD / 2 + FAB.clearance + 0.05
        bottom = sy + SWITCH_PITCH / 2 - SW_PAD / 2 - FAB.clearance - 0.05
        name = "row%d" % len(channels)
        channel_of[ry] = name
        channels.append(Channel(name, top, bottom))
        band_y[ry] = ((ly + LED_PAD_H / 2) + (sy - SWITCH_PITCH / 2 - SW_PAD / 2)) / 2
    # A row's chip band lies between its LEDs and its switches' near pads; the row above
    # must end (its switches' far pads) before it, and the buttons below the last channel.
    for upper, lower in itertools.pairwise(row_ys):
        far = placement.switch_xy(b, rows[upper][0])[1] + SWITCH_PITCH / 2 + SW_PAD / 2
        if far + 1.0 > band_y[lower] - 4.8:
            raise PlanError(
                "%s: rows %.0f mm apart: the reed switches' far pads (to y = %.1f mm) reach the next row's "
                "shift-register band (from y = %.1f mm); this board needs strip modules, not one main board"
                % (layout.name, lower - upper, far, band_y[lower] - 4.8)
            )
    return channel_of, channels, band_y


def _main_cells(layout: Layout, b: placement.Build, bld: _Builder, channel_of: dict[float, str]) -> list[float]:
    """Every point's cell on the main board: switch, LED, its capacitor; the LEDs' x."""
    xs_all: list[float] = []
    by_led = {layout.points[n][1]: n for n in layout.points}
    for i in sorted(by_led):
        name = by_led[i]
        ry = round(b.xy(name)[1], 3)
        ch = channel_of[ry]
        sx, sy = placement.switch_xy(b, name)
        sw = "SW_%s" % name
        ps = bld.place(sw, sx, sy - SWITCH_PITCH / 2, 270.0)
        bld.stub([p for p in ps if p.number == "1"], ch, True)
        bld.stub([p for p in ps if p.number == "2"], ch, False)
        lx, ly = placement.led_xy(b, name)
        ps = bld.place("LED%d" % i, lx - 1.905, ly, 0.0)
        bld.stub(ps, ch, True, "jog", lx)
        ps = bld.place("CL%d" % i, lx + 5.5, ly, 0.0)
        bld.stub(ps, ch, True)
        xs_all.append(lx)
    return xs_all


def _main_chips(
    layout: Layout,
    b: placement.Build,
    bld: _Builder,
    rows: dict[float, list[str]],
    below: list[tuple[float, float]],
    channel_of: dict[float, str],
    band_y: dict[float, float],
) -> None:
    """The shift registers, their pull-ups and capacitors in the gaps of their rows (the
    South row's gaps above J1 and the buttons, ``below``, left free)."""
    c = bld.c
    row_ys = sorted(rows)
    south = row_ys[-1]
    by_sensor = {layout.points[n][0]: n for n in layout.points}
    gaps: dict[float, list[tuple[float, float]]] = {}
    for ry in row_ys:
        xs = sorted(b.xy(n)[0] for n in rows[ry])
        free = []
        for a, z in itertools.pairwise(xs):
            lo_x, hi_x = a + 8.0, z - 4.5
            if ry == south and any(lo < hi_x and hi > lo_x for lo, hi in below):
                continue
            free.append((lo_x, hi_x))
        gaps[ry] = free
    chips = sorted(int(r[1:]) for r in c.parts if r.startswith("U") and r[1:].isdigit() and int(r[1:]) >= FIRST_HC165)
    for k, number in enumerate(chips):
        members = [by_sensor[i] for i in range(8 * k, 8 * k + 8) if i in by_sensor]
        if not members:
            members = [by_sensor[max(by_sensor)]]
        count: dict[float, int] = {}
        for n in members:
            ry = round(b.xy(n)[1], 3)
            count[ry] = count.get(ry, 0) + 1
        home = sorted(count, key=lambda ry: (-count[ry], ry))
        centre = sum(b.xy(n)[0] for n in members) / len(members)
        spots: list[tuple[bool, float, float, tuple[float, float]]] = []
        for ry in home + [r for r in row_ys if r not in home]:
            for g in gaps[ry]:
                spots.append((ry not in home, abs((g[0] + g[1]) / 2 - centre), ry, g))
        spots.sort()
        if len(spots) < 2:
            raise PlanError("%s: no room for U%d and its pull-ups" % (layout.name, number))
        _, _, ry1, g1 = spots[0]
        _, _, ry2, g2 = spots[1]
        gaps[ry1].remove(g1)
        gaps[ry2].remove(g2)
        # the chip and its capacitor in one gap, the resistor network in the other
        y1 = band_y[ry1]
        cx = g1[0] + 6.0
        u = "U%d" % number
        rot, style = _smd_style(c.parts[u].footprint)
        bld.stub(bld.place(u, cx, y1, rot), channel_of[ry1], True, style)
        bld.stub(bld.place("C%d" % number, cx + 10.0, y1, 0.0), channel_of[ry1], True)
        rn = "RN%d" % number
        rot, style = _smd_style(c.parts[rn].footprint)
        bld.stub(bld.place(rn, g2[0] + 6.0, band_y[ry2], rot), channel_of[ry2], True, style)


def controller_plan(
    layout: Layout, c: Circuit, lib: Library, refs: dict[str, SymbolRef], pin_nets: dict[str, dict[str, str]]
) -> BoardPlan:
    width, height = controller_size(c)
    plan = BoardPlan(
        "%s-controller" % layout.name, "%s: controller module (Pico, power, level shifter)" % layout.name, width, height
    )
    bld = _Builder(lib, c, refs, pin_nets)
    row_a = 6.5
    pico_x, pico_y = 3.0, 46.0  # pin 1; the USB socket at the West edge
    top_pins_y = pico_y - 17.78
    ps = bld.place("U1", pico_x, pico_y, 90.0)
    bld.stub([p for p in ps if p.y < pico_y - 1], "top", False)
    bld.stub([p for p in ps if p.y > pico_y - 1], "bottom", True)
    # the small parts in one row above the top channel, in signal order
    order = _controller_row(c)
    x = 2.0
    for ref in order:
        fp = c.parts[ref].footprint
        wdt = _width(fp)
        rot, style = _smd_style(fp)
        if "SW_PUSH" in fp:  # turned so that each pin's two pads share a column; origin: pad 1
            bld.stub(bld.place(ref, x + wdt / 2 - 2.25, row_a + 3.25, 90.0), "top", True)
        else:
            bld.stub(bld.place(ref, x + wdt / 2, row_a, rot), "top", True, style)
        x += wdt
    corridor_x0 = max(x, pico_x + 48.26 + 2.0)
    j2_y = height - 5.0
    if "J2" in c.parts:
        if "2x" in c.parts["J2"].footprint:  # the strips' ribbon: two rows, pin 1 at the bottom left
            ps = bld.place("J2", pico_x + 1.27 + 2.54 * 2, j2_y + 1.27, 90.0)
            bld.stub(ps, "bottom", False, "pairs")
        if "J3" in c.parts:  # the buttons' PCB
            bld.stub(bld.place("J3", pico_x + 24.0, j2_y + 1.27, 90.0), "bottom", False, "pairs")
        else:
            ps = bld.place("J2", pico_x + 1.27 + 2.54 * 2, j2_y, 90.0)
            bld.stub(ps, "bottom", False)
    channels = [
        Channel("top", row_a + 4.535 + 0.3 + FAB.clearance + 0.05, top_pins_y - 0.8 - FAB.clearance - 0.05),
        Channel("bottom", pico_y + 0.8 + FAB.clearance + 0.05, j2_y - 0.85 - FAB.clearance - 0.05),
    ]
    corridors = [Corridor("east", corridor_x0 + 0.5, width - 2.0)]
    bld.route_into(plan, channels, corridors, ["GND", "+5V", "+3V3", "VBUS"])
    plan.holes = [Hole(width - 3.5, 3.5, 3.2), Hole(width - 3.5, height - 3.5, 3.2)]
    plan.texts = [
        (39.0, height - 5.6, "F.SilkS", "%s controller" % layout.name),
        (39.0, height - 3.0, "F.SilkS", "J2 pin 1 left  CERN-OHL-S-2.0"),
    ]
    return plan


# The strips (``strips``): one row of cells each. From the row's y: the 74HC165s and the
# chain headers between the LEDs and the channel, the channel under the reed glass down
# to the body's bottom edge; the far (South) pads of the reed switches stand out of the
# body in tabs that reach into notches of the strip below (rows 30 mm apart leave
# no room for a straight edge between a reed's far pad and the next row's LEDs).
LED_BODY_R = 2.5
STRIP_GAP = 0.3  # between two strips' edges
# The chips' and headers' centre line, relative to the row's y: as high as the notches
# above allow (a SOIC-16's pads reach 3.5 mm from it), so that the channel below is wide.
CHIP_MID = -7.2
CHIP_REACH = 5.1  # from the centre line to the bottom of the chips' lower fan-out vias
HEADER_PITCH = 2.54


def _strip_edges(b: Any, row_ys: list[float], y: float, h: float) -> tuple[float, float]:
    """Top and bottom edge of the body of a strip in the row at ``y``: from above its
    LEDs to the next row's LEDs, or (the last row) to below its reed switches' far pads."""
    d = placement.led_offset_mm(b)
    top = y - d - LED_BODY_R - 0.35
    below = [r for r in row_ys if r > y + 1]
    far = y + b.layout.mechanics["switch_offset_mm"] + SWITCH_PITCH / 2 + SW_PAD / 2 + 1.5
    bottom = min(below) - d - LED_BODY_R - 0.35 - STRIP_GAP if below else min(far, h - 1.0)
    return top, bottom


def _far_pad_bottom(b: Any, name: str) -> float:
    return placement.switch_xy(b, name)[1] + SWITCH_PITCH / 2 + SW_PAD / 2 + FAB.edge_clearance + 0.1


def _outline(
    xl: float,
    xr: float,
    top: float,
    bottom: float,
    notches: list[tuple[float, float, float]],
    tabs: list[tuple[float, float, float]],
) -> list[tuple[float, float]]:
    """The body rectangle with notches cut down from the top edge and tabs standing out of
    the bottom edge: (x0, x1, depth to y) each, inside (xl, xr). A notch that reaches an
    end of the strip (a neighbour row's switch at the cut between two strips) takes the
    corner off: a sliver of board left beside it would lie over that switch's tab."""
    pts = [(xl, top)]
    end = [(xr, top)]
    for x0, x1, y in sorted(notches):
        if x0 <= xl + 0.5:
            pts = [(xl, y), (x1, y), (x1, top)]
        elif x1 >= xr - 0.5:
            end = [(x0, top), (x0, y), (xr, y)]
        elif x1 > x0:
            pts += [(x0, top), (x0, y), (x1, y), (x1, top)]
    pts += end + [(xr, bottom)]
    for x0, x1, y in sorted(tabs, reverse=True):
        pts += [(x1, bottom), (x1, y), (x0, y), (x0, bottom)]
    pts.append((xl, bottom))
    return [(round(x, 4), round(y, 4)) for x, y in pts]


def strip_cells_drawn(layout: Layout) -> bool:
    """The strip cells are drawn for line boards, whose reed switches point South."""
    shape = placement.layout_geometry(layout).shape
    return bool(shape == "lines" and layout.mechanics.get("switch_angle_deg") == -90.0)


def strip_plan(
    layout: Layout, c: Circuit, lib: Library, refs: dict[str, SymbolRef], pin_nets: dict[str, dict[str, str]]
) -> BoardPlan:
    from zuniboard.hardware import strips

    b = placement.build(layout)
    pcb = c.name.rsplit("-", 1)[1]
    k = int(pcb[5:]) - 1
    runs = strips.strips(layout)
    points = runs[k]
    if not strip_cells_drawn(layout):
        raise PlanError(
            "%s: the strip cells are drawn for switches pointing South (line boards). This board's reed "
            "switches lie at %s degrees across %.0f mm squares: between the row of LEDs and North-East pads "
            "and the row of South-West pads the channel has about 10 mm (some 11 lanes), and a strip of %d "
            "points needs 14-16 lanes (board49's strips use 15-16), the 74HC165s below the South-West pads. "
            "It needs a second channel per strip or a 4-layer board."
            % (c.name, layout.mechanics.get("switch_angle_deg"), b.pitch, len(points))
        )
    w, h = b.place.width, b.place.height
    y = b.xy(points[0])[1]
    row_ys = sorted({round(b.xy(n)[1], 3) for n in layout.points})
    xs = sorted(b.xy(n)[0] for n in points)
    xl = xs[0] - b.pitch / 2 + STRIP_GAP / 2
    xr = xs[-1] + b.pitch / 2 - STRIP_GAP / 2
    top, bottom = _strip_edges(b, row_ys, y, h)
    plan = BoardPlan(c.name, "%s: strip %d (%s..%s)" % (layout.name, k + 1, points[0], points[-1]), w, h)
    bld = _Builder(lib, c, refs, pin_nets)
    ch = "row"
    sx0, sy0 = placement.switch_xy(b, points[0])
    far_top = sy0 + SWITCH_PITCH / 2 - SW_PAD / 2 - FAB.clearance - 0.05
    near_top = sy0 - SWITCH_PITCH / 2 + SW_PAD / 2 + FAB.clearance + 0.05
    channel = Channel(ch, max(near_top, y + CHIP_MID + CHIP_REACH), min(far_top, bottom - FAB.edge_clearance - 0.1))
    tabs = _strip_cells(layout, b, bld, points, ch, bottom)
    notches = _notches(layout, b, row_ys, y, (xl, xr), h)
    # buttons below the row (the South strip): as on the main board
    below = bld.buttons(b, ch)
    gaps = [
        (a + 8.0, z - 4.5)
        for a, z in itertools.pairwise(xs)
        if not any(lo < z - 4.5 and hi > a + 8.0 for lo, hi in below)
    ]
    y_mid = y + CHIP_MID
    _strip_parts(layout, b, bld, points, gaps, y_mid, ch)
    bld.route_into(plan, [channel], [], [])
    plan.holes = [Hole((g[0] + g[1]) / 2, y_mid, 3.2) for g in gaps]
    if not plan.holes:
        raise PlanError("%s: no gap left for a mounting hole" % plan.name)
    plan.outline = _outline(xl, xr, top, bottom, notches, tabs)
    # on the back, mirrored: the text runs from its anchor towards -x
    plan.texts = [(xr - 1.0, y + 9.0, "B.SilkS",
                   "%s strip %d  CERN-OHL-S-2.0" % (layout.name, k + 1))]  # fmt: skip
    return plan


def _strip_cells(
    layout: Layout, b: placement.Build, bld: _Builder, points: list[str], ch: str, bottom: float
) -> list[tuple[float, float, float]]:
    """Every point's cell on a strip: switch, LED, its capacitor; the tabs the switches'
    far pads need below the body's ``bottom``."""
    tabs: list[tuple[float, float, float]] = []
    by_led = {layout.points[n][1]: n for n in points}
    for i in sorted(by_led):
        name = by_led[i]
        sx, sy = placement.switch_xy(b, name)
        ps = bld.place("SW_%s" % name, sx, sy - SWITCH_PITCH / 2, 270.0)
        bld.stub([p for p in ps if p.number == "1"], ch, True)
        bld.stub([p for p in ps if p.number == "2"], ch, False)
        if _far_pad_bottom(b, name) > bottom:
            tabs.append((sx - 2.4, sx + 2.4, _far_pad_bottom(b, name)))
        lx, ly = placement.led_xy(b, name)
        bld.stub(bld.place("LED%d" % i, lx - 1.905, ly, 0.0), ch, True, "jog", lx)
        bld.stub(bld.place("CL%d" % i, lx + 5.5, ly, 0.0), ch, True)
    return tabs


def _notches(
    layout: Layout, b: placement.Build, row_ys: list[float], y: float, ends: tuple[float, float], h: float
) -> list[tuple[float, float, float]]:
    """The notches cut into a strip's top edge (the row at ``y``) for the far pads of the
    row above's switches that stand out of its strips' bodies; ``ends``: the strip's x ends."""
    xl, xr = ends
    notches = []
    above = [r for r in row_ys if r < y - 1]
    if above:
        upper = max(above)
        for n in layout.points:
            if abs(b.xy(n)[1] - upper) < 1e-3:
                ux = placement.switch_xy(b, n)[0]
                if xl - 3 < ux < xr + 3 and _far_pad_bottom(b, n) > _strip_edges(b, row_ys, upper, h)[1]:
                    notches.append((ux - 2.7, ux + 2.7, _far_pad_bottom(b, n) + STRIP_GAP))
    return notches


def _strip_parts(
    layout: Layout,
    b: placement.Build,
    bld: _Builder,
    points: list[str],
    gaps: list[tuple[float, float]],
    y_mid: float,
    ch: str,
) -> None:
    """The chain headers, shift registers, their pull-ups and capacitors and R1 in the gaps
    between a strip's points (each takes the gap nearest where it is wanted; the gaps it
    takes are removed from ``gaps``)."""
    c = bld.c
    chain_x = [b.xy(n)[0] for n in points]

    def take(near_x: float) -> tuple[float, float]:
        if not gaps:
            raise PlanError("%s: no gap left between the points for its parts" % c.name)
        g = min(gaps, key=lambda g: abs((g[0] + g[1]) / 2 - near_x))
        gaps.remove(g)
        return g

    headers = sorted(r for r in c.parts if r.startswith("J"))
    for ref in headers:
        end = chain_x[0] if ref.endswith("0") and ref != "J2" else chain_x[-1]
        g = take(end)
        ps = bld.place(ref, g[0] + 1.0, y_mid + HEADER_PITCH / 2, 90.0)
        bld.stub(ps, ch, True, "pairs")
    chips = sorted(int(r[1:]) for r in c.parts if r.startswith("U") and r[1:].isdigit() and int(r[1:]) >= FIRST_HC165)
    by_sensor = {layout.points[n][0]: n for n in layout.points}
    for number in chips:
        j = number - FIRST_HC165
        mine = [b.xy(by_sensor[i])[0] for i in range(8 * j, 8 * j + 8) if i in by_sensor and by_sensor[i] in points]
        centre = sum(mine) / len(mine) if mine else chain_x[-1]
        g1 = take(centre)
        u = "U%d" % number
        rot, style = _smd_style(c.parts[u].footprint)
        bld.stub(bld.place(u, g1[0] + 6.0, y_mid, rot), ch, True, style)
        bld.stub(bld.place("C%d" % number, g1[0] + 14.5, y_mid, 0.0), ch, True)
        g2 = take(centre)
        rn = "RN%d" % number
        rot, style = _smd_style(c.parts[rn].footprint)
        bld.stub(bld.place(rn, g2[0] + 6.0, y_mid, rot), ch, True, style)
    if "R1" in c.parts:
        g = take(chain_x[0])
        bld.stub(bld.place("R1", g[0] + 4.0, y_mid, 0.0), ch, True)


def buttons_plan(
    layout: Layout, c: Circuit, lib: Library, refs: dict[str, SymbolRef], pin_nets: dict[str, dict[str, str]]
) -> BoardPlan:
    """The buttons' own PCB (a board whose strips leave no room for them): OK, BACK and
    HINT at their places under P1's holes, each with its series resistor, pull-up and TVS
    in the row below the channel, and J4 for the cable to the controller's J3."""
    b = placement.build(layout)
    spots = [(label, bx, by) for label, bx, by in plates.button_positions(b) if "SW_%s" % label in c.parts]
    xs = [bx for _, bx, _ in spots]
    by = spots[0][2]
    bld = _Builder(lib, c, refs, pin_nets)
    ch = "buttons"
    for label, bx, _ in spots:
        ref = "SW_%s" % label
        bld.stub(bld.place(ref, bx - 2.25, by + 3.25, 90.0), ch, True)
        protection = [c.net_of(ref, "1")]
        parts = [r for r, p in c.parts.items() if r != ref and any(c.net_of(r, q.number) in protection for q in p.pins)]
        for j, part in enumerate(sorted(parts)):
            bld.stub(bld.place(part, bx - 4.8 + 4.8 * j, by + 17.5, 0.0), ch, False)
    x0 = min(xs) - b.pitch / 2 - 12.0
    bld.stub(bld.place("J4", x0 + 3.0, by + 20.0, 90.0), ch, False, "pairs")
    plan = BoardPlan(c.name, "%s: buttons (OK, BACK, HINT)" % layout.name, b.place.width, b.place.height)
    channel = Channel(ch, by + 4.8, by + 14.2)
    try:
        routed = route([channel], [], bld.stubs, [])
    except RoutingError as exc:
        raise PlanError("%s: %s" % (plan.name, exc)) from exc
    x1 = max(xs) + b.pitch / 2
    top, bottom = by - 6.0, by + BUTTONS_PCB_BELOW_MM
    plan.placements = bld.placements
    plan.tracks, plan.vias, plan.lanes = routed.tracks, routed.vias, routed.lanes
    plan.pad_nets = {p.ref: pin_nets[p.ref] for p in bld.placements}
    plan.holes = [Hole(x0 + 3.0, top + 3.5, 3.2), Hole(x1 - 3.5, bottom - 3.5, 3.2)]
    plan.outline = [(round(x0, 4), round(top, 4)), (round(x1, 4), round(top, 4)), (round(x1, 4), round(bottom, 4)),
                    (round(x0, 4), round(bottom, 4))]  # fmt: skip
    plan.texts = [(x1 - 1.0, bottom - 1.5, "B.SilkS", "%s buttons  J4: cable to J3  CERN-OHL-S-2.0" % layout.name)]
    return plan
