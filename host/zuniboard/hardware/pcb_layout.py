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

Only the line boards (board25, board49) have a main-board plan so far; the 168-square
board's cells (switches at 45 degrees) raise ``PlanError``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from zuniboard.hardware import placement, plates
from zuniboard.hardware.circuit import FIRST_HC165, Circuit
from zuniboard.hardware.kicad_lib import Library
from zuniboard.hardware.kicad_pcb import FAB, Hole, Placement, Track, Via
from zuniboard.hardware.pcb_route import Channel, Corridor, Pad, RoutingError, Stub, fanout, pads, route

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


def _smd_style(footprint: str) -> tuple[float, str]:
    """Rotation and fan-out style of a surface-mount part in a row above a channel."""
    if footprint.startswith("Package_SO:"):
        return 90.0, "rows"
    if "SOT-23-6" in footprint:
        return 0.0, "sides"
    return 0.0, ""


def _width(footprint: str) -> float:
    if footprint.startswith("Package_SO:SOIC-16"):
        return 13.0
    if footprint.startswith("Package_SO:SOIC-14"):
        return 12.0
    if "SOT-23-6" in footprint:
        return 11.0
    if "CP_Elec_6.3" in footprint:
        return 9.0
    if "R_Array_SIP9" in footprint:
        return 23.5
    return 4.6


def main_plan(
    layout: Any, c: Circuit, lib: Library, refs: dict[str, SymbolRef], pin_nets: dict[str, dict[str, str]]
) -> BoardPlan:
    b = placement.build(layout)
    if b.geometry.shape != "lines" or layout.mechanics.get("switch_angle_deg") != -90.0:
        raise PlanError("%s: only line boards with switches pointing South have a main-board plan" % layout.name)
    w, h = b.place.width, b.place.height
    plan = BoardPlan("%s-main" % layout.name, "%s: main board (switches, LEDs, shift registers)" % layout.name, w, h)
    bld = _Builder(lib, c, refs, pin_nets)
    by_led = {layout.points[n][1]: n for n in layout.points}
    by_sensor = {layout.points[n][0]: n for n in layout.points}
    rows: dict[float, list[str]] = {}
    for name in layout.points:
        rows.setdefault(round(b.xy(name)[1], 3), []).append(name)
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
    # -- cells: switch, LED, its capacitor -------------------------------------------------
    xs_all: list[float] = []
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
    # -- below the South row: J1 and the buttons, their stubs going up ---------------------
    south = row_ys[-1]
    south_ch = channel_of[south]
    below: list[tuple[float, float]] = []
    j1_x = min(b.xy(n)[0] for n in rows[south]) + 8.0
    j1_y = h - 6.0
    if "J1" in c.parts:
        ps = bld.place("J1", j1_x, j1_y, 90.0)
        bld.stub(ps, south_ch, False)
        below.append((j1_x - 2, j1_x + 2.54 * len(ps) + 2))
    for label, bx, by in plates.button_positions(b):
        ref = "SW_%s" % label
        if ref in c.parts:
            ps = bld.place(ref, bx - 2.25, by + 3.25, 90.0)
            bld.stub(ps, south_ch, False)
            # its series resistor, pull-up and TVS in a row to its right (stubs up)
            protection = [c.net_of(ref, "1")]
            parts = [
                r for r, p in c.parts.items() if r != ref and any(c.net_of(r, q.number) in protection for q in p.pins)
            ]
            for k, part in enumerate(sorted(parts)):
                bld.stub(bld.place(part, bx + 8.0 + 4.6 * k, by, 0.0), south_ch, False)
            below.append((bx - 5, bx + 10.0 + 4.6 * len(parts)))
    # -- shift registers, their pull-ups and capacitors in the gaps of their rows -----------
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
    try:
        routed = route(channels, corridors, bld.stubs, ["GND", "+5V", "+3V3"])
    except RoutingError as exc:
        raise PlanError("%s: %s" % (plan.name, exc)) from exc
    plan.placements = bld.placements
    plan.tracks, plan.vias, plan.lanes = routed.tracks, routed.vias, routed.lanes
    plan.pad_nets = {p.ref: pin_nets[p.ref] for p in bld.placements}
    plan.holes = [Hole(x, y, PLAIN_HOLE_MM) for x, y in plates.screw_positions(b)]
    plan.texts = [
        (j1_x, h - 12.0, "F.SilkS", "%s main board  J1: cable to the controller (pin 1 left)" % layout.name),
        (j1_x, h - 2.5, "F.SilkS", "zuniboard, CERN-OHL-S-2.0, source: hardware/ of the zuniboard repository"),
    ]
    return plan


def controller_plan(
    layout: Any, c: Circuit, lib: Library, refs: dict[str, SymbolRef], pin_nets: dict[str, dict[str, str]]
) -> BoardPlan:
    width, height = 78.0, 66.0
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
    order = ["U3", "C1", "R2", "R3", "R6", "C3", "U2", "C2", "R4", "R5"]
    order = [r for r in order if r in c.parts] + sorted(
        r for r, p in c.parts.items() if p.pcb == "controller" and r not in order and r not in ("U1", "J2")
    )
    x = 2.0
    for ref in order:
        fp = c.parts[ref].footprint
        wdt = _width(fp)
        rot, style = _smd_style(fp)
        bld.stub(bld.place(ref, x + wdt / 2, row_a, rot), "top", True, style)
        x += wdt
    corridor_x0 = max(x, pico_x + 48.26 + 2.0)
    j2_y = height - 5.0
    if "J2" in c.parts:
        ps = bld.place("J2", pico_x + 1.27 + 2.54 * 2, j2_y, 90.0)
        bld.stub(ps, "bottom", False)
    channels = [
        Channel("top", row_a + 4.535 + 0.3 + FAB.clearance + 0.05, top_pins_y - 0.8 - FAB.clearance - 0.05),
        Channel("bottom", pico_y + 0.8 + FAB.clearance + 0.05, j2_y - 0.85 - FAB.clearance - 0.05),
    ]
    corridors = [Corridor("east", corridor_x0 + 0.5, width - 2.0)]
    try:
        routed = route(channels, corridors, bld.stubs, ["GND", "+5V", "+3V3", "VBUS"])
    except RoutingError as exc:
        raise PlanError("%s: %s" % (plan.name, exc)) from exc
    plan.placements = bld.placements
    plan.tracks, plan.vias, plan.lanes = routed.tracks, routed.vias, routed.lanes
    plan.pad_nets = {p.ref: pin_nets[p.ref] for p in bld.placements}
    plan.holes = [Hole(width - 3.5, 3.5, 3.2), Hole(width - 3.5, height - 3.5, 3.2)]
    plan.texts = [
        (39.0, height - 5.6, "F.SilkS", "%s controller" % layout.name),
        (39.0, height - 3.0, "F.SilkS", "J2 pin 1 left  CERN-OHL-S-2.0"),
    ]
    return plan
