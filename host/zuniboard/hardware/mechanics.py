"""The mechanical half of a board, generated from its layout and the rules geometry.

One list of features (every hole, pocket and channel, with its plate, face, diameter or
length and width, and depth) is the single source of the drilling template (SVG, a
one-page PDF, A4 and Letter tiles), of ``drill.csv`` and of the collision and clearance
checks. From the same geometry come the wiring table (every wire with its gauge and its
length), the assembly-and-test sequence, the mechanical rows of the BOM and the plan
``mechanics.md`` with its figures.

Coordinates are template millimetres: origin at the top-left corner of the plates, x to
the East, y down (South), the same as ``hardware.placement``. Directions are degrees,
0 = East, 90 = North (up on paper).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import Any

from zuniboard.games.layouts import BoardGeometry
from zuniboard.hardware import circuit, perfboard, power
from zuniboard.hardware.bom import COLUMNS
from zuniboard.hardware.drawing import pdf_file
from zuniboard.hardware.placement import Placement, layout_geometry, placement

# -- the plate stack (top to bottom) --------------------------------------------------
# P1 play surface: 3 mm birch plywood. It carries the board drawing, the LED windows and
# the buttons. Thin, because every millimetre between the magnet and the reed switch
# costs field (magnets.md); stiff enough because it is screwed to P2 over its whole area.
P1_MM = 3.0
# P2 sensor plate: 6 mm birch plywood. Reed channels are routed into its top face so the
# switch lies right under P1 (the magnet is then 5.6 mm above the glass axis); the LED
# body passes through it; the wiring runs on its underside. 6 mm leaves 3.5 mm of wood
# under a 2.5 mm channel, and is the height a 5 mm through-hole LED needs below P1.
P2_MM = 6.0
# P3 back plate: 3 mm plywood or hardboard, closes the case; it carries no parts.
P3_MM = 3.0
# The frame between P2 and P3: softwood strip, 10 mm wide (under the plates' margin), 30 mm
# high: the cavity holds the LED leads under P2 (cut to 5 mm) and the electronics boards on
# 8 mm spacers, component side down, and the Pico's USB socket with the plug's overmould in
# the frame's slot: USB_CENTRE_BELOW_P2_MM (22.9 mm) + half the slot (4 mm) = 26.9 mm < 30.
FRAME_WIDTH_MM = 10.0
FRAME_HEIGHT_MM = 30.0

# -- electronics boards under P2 (perfboard.svg: the controller board and the sensor strips) --
# Each hangs from P2 on nylon spacers, its component side down (towards P3), its copper
# side with the wire links towards P2: the LED legs (cut to LED_LEG_BELOW_P2_MM) and the reed
# leads' solder joints stay clear of it.
SPACER_MM = 8.0
PERFBOARD_MM = 1.6
LED_LEG_BELOW_P2_MM = 5.0
BOARD_GAP_MM = 2.0  # between two boards, and between a board and the frame
# Mounting screws: DIN 7981 pan head self-tapping screws 2.9 x 13 mm through the board's
# corner hole (drilled out to 3.0 mm) and its spacer into a 2.0 mm pilot hole drilled
# through P2 from the template (P1 covers it): 13 - 8 - 1.6 = 3.4 mm of thread in the wood,
# the tip 2.6 mm under P2's top face.
MOUNT_SCREW = (2.9, 13.0)
MOUNT_PILOT_MM = 2.0
MOUNT_BITE_MM = MOUNT_SCREW[1] - SPACER_MM - PERFBOARD_MM
MOUNT_INSET_MM = 2.54  # the mounting hole: one hole in from the board's corner
# The Pico's USB socket below P2 (component side down): spacer, board, the usual 8.5 mm
# female header, the 2.5 mm plastic of the Pico's own male header, the Pico's 1 mm PCB
# (Raspberry Pi Pico datasheet: 1 mm board), and half the micro-B socket's height (about
# 2.6 mm for a micro-B receptacle; the slot's 8 mm leave 2.7 mm either way for other headers).
SOCKET_MM = 8.5
PICO_HEADER_MM = 2.5
PICO_PCB_MM = 1.0
USB_SOCKET_H_MM = 2.6
USB_CENTRE_BELOW_P2_MM = SPACER_MM + PERFBOARD_MM + SOCKET_MM + PICO_HEADER_MM + PICO_PCB_MM + USB_SOCKET_H_MM / 2
# The Pico's columns on the controller plan (perfboard.controller_plan: outline at holes 1-9
# of 27): its USB end is the plan's top edge, the centre of the socket 5.5 pitches in.
PICO_USB_X_PITCHES = 5.5

# -- reed switch ----------------------------------------------------------------------
# Glass body up to 14 mm x 2 mm (a typical 10-20 AT switch; magnets.md): the channel is
# drawn for this envelope (and the nearest-glass figures use its length: the conservative
# side); the switch the BOM orders (REED_PART_*) is a little smaller.
REED_GLASS_MM = 14.0
REED_GLASS_DIA_MM = 2.0
# The glass channel: 0.5 mm longer than the glass at each end (length tolerance), 2.5 mm
# wide (a 2.5 mm end mill; 0.25 mm clearance each side), 2.5 mm deep: the glass lies on the
# bottom, its top 0.5 mm below P2's face, so P1 never presses on it.
CHANNEL_LEN_MM = REED_GLASS_MM + 1.0
CHANNEL_WIDTH_MM = 2.5
CHANNEL_DEPTH_MM = 2.5
# Lead slots continue the channel straight on both ends, as deep as the channel: the leads
# leave the glass on its axis, 1.0 mm above the channel floor, so any floor at or below
# 0.7 mm under the lead keeps it straight. A lead is bent down into its through hole only
# LEAD_RUN_MM from the end of the channel (6.5 mm from the glass seal: more than the 3 mm
# that reed switch makers ask between a bend and the seal, and the lead is held flat in
# its slot while it is bent).
LEAD_RUN_MM = 6.0
LEAD_SLOT_WIDTH_MM = 1.5
LEAD_HOLE_MM = 1.5
SLOT_LEN_MM = CHANNEL_LEN_MM + 2 * LEAD_RUN_MM
# The reed switch the BOM orders (Littelfuse MDSR-7 datasheet): glass 12.7 x 1.8 mm max,
# 40.38 mm nominal over the leads, 0.47 mm leads. It lies on the floor of the channel drawn
# for the 14 x 2 mm envelope above.
REED_PART_GLASS_MM = 12.7
REED_PART_DIA_MM = 1.8
REED_PART_OVERALL_MM = 40.38
# Vertical distance from a magnet's bottom face to the glass axis of that switch: felt pad
# under the piece, P1, the channel above the glass, the glass radius (1 + 3 + 0.7 + 0.9).
FELT_MM = 1.0
MAGNET_TO_REED_AXIS_MM = FELT_MM + P1_MM + (CHANNEL_DEPTH_MM - REED_PART_DIA_MM) + REED_PART_DIA_MM / 2

# -- LED --------------------------------------------------------------------------------
# A 5 mm through-hole addressable LED (WS2812D-F5 or PL9823-F5 class, diffused): dome 5 mm,
# flange 5.8 mm, body 8.6 mm from the flange to the dome's top. Mounted from below: the dome
# fills a 5.0 mm window in P1 and ends flush with the play surface (a piece slides over it),
# the body sits in a 6.0 mm hole through P2, held by a drop of hot glue on P2's underside.
LED_WINDOW_MM = 5.0
LED_BODY_HOLE_MM = 6.0
LED_BODY_MM = 8.6
# The light is beside the piece, never under it: the window lies outside the piece's
# footprint plus a placement slop (a piece set down up to 2 mm off its point), towards
# the direction with no neighbour (North on line boards: between the two diagonal
# neighbours; the North-West corner of the square on the square board, the reed switch
# takes the North-East corner).
PLACEMENT_SLOP_MM = 2.0
LED_EDGE_GAP_MM = 0.5
LED_ANGLE_DEG = {"lines": 90.0, "squares": 135.0}

# -- pieces and magnets ------------------------------------------------------------------
# Wooden discs (beech or birch), opaque: the light is beside them. Craft discs come in 5 mm
# steps; a piece is the largest one at most 0.72 x the nearest-neighbour distance, so two
# pieces on neighbouring points leave a finger's gap.
PIECE_SIZES_MM = (15.0, 20.0, 25.0, 30.0)
PIECE_FRACTION_MAX = 0.72
PIECE_HEIGHT_MM = 8.0
MAGNET_DIA_MM = 6.0
MAGNET_THICK_MM = 3.0
MAGNET_BR_T = 1.2  # N35 remanence (N42, Br 1.3 T, scales every field by 1.08: ratios stay)
MAGNET_POCKET_DIA_MM = 6.2
# Reed switch sensitivity (magnets.md): 10-20 AT pull-in; drop-out about half of pull-in.
PULL_IN_AT = (10.0, 20.0)

# -- screws, buttons, USB --------------------------------------------------------------------
SCREW_HOLE_MM = 3.5  # 3.0 mm wood screws: clearance through P1 and P2
SCREW_HEAD_MM = 6.5  # countersink on P1's top face
SCREW_INSET_MM = FRAME_WIDTH_MM / 2
SCREW_SPACING_MM = 150.0
BUTTON_HOLE_MM = 7.0  # panel-mount momentary push button, 7 mm bushing (PBS-110 class)
BUTTON_NUT_MM = 14.0  # pocket through P2 for the nut and the solder tags
USB_SLOT_MM = (12.0, 8.0)  # through the frame: a micro-B plug's overmould reaches the Pico

# -- wiring (electrical choices, stated once here; the electrical design owns them) --------
WIRE_AWG = {
    "led_trunk": 22,  # +5V and GND spine and row buses of the LED chain
    "led_data": 26,
    "led_tap": 26,  # LED supply leads to their row bus: a few cm
    "sensor": 28,  # reed switch to its 74HC165 board (or matrix bus)
    "chain": 26,  # board-to-board: 3V3, GND, CLK, LOAD, QH->SER
    "button": 26,
}
WIRE_SLACK_MM = 30.0  # per wire: 2 x 10 mm stripped and soldered, 10 mm strain relief
WIRE_ROUND_MM = 5.0


def _f(value: float) -> str:
    text = "%.2f" % value
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text == "-0" else text


def _unit(angle_deg: float) -> tuple[float, float]:
    a = math.radians(angle_deg)
    return (round(math.cos(a), 9), round(-math.sin(a), 9))


def _csv(value: str) -> str:
    if any(c in value for c in ',"\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


# -- the build: geometry, pitch, pieces --------------------------------------------------


@dataclass(frozen=True)
class Build:
    layout: Any
    geometry: BoardGeometry
    place: Placement
    pitch: float

    @property
    def name(self) -> str:
        return str(self.layout.name)

    @functools.cached_property
    def nearest_neighbour_mm(self) -> float:
        """The shortest distance between two points (asked for every LED: computed once)."""
        pts = [self.place.at(*c) for c in self.geometry.coords]
        return min(math.dist(p, q) for i, p in enumerate(pts) for q in pts[i + 1 :])

    def xy(self, point: str) -> tuple[float, float]:
        return self.place.at(*self.geometry.coords[self.geometry.index[point]])


def build(layout: Any, pitch: float | None = None) -> Build:
    geometry = layout_geometry(layout)
    p = float(pitch or layout.mechanics["pitch_mm"])
    return Build(layout, geometry, placement(geometry, p), p)


def nearest_neighbour_mm(b: Build) -> float:
    return b.nearest_neighbour_mm


def piece_diameter(b: Build) -> float:
    limit = PIECE_FRACTION_MAX * nearest_neighbour_mm(b)
    fitting = [d for d in PIECE_SIZES_MM if d <= limit]
    return fitting[-1] if fitting else round(limit, 1)


def led_offset_mm(b: Build) -> float:
    """From the point's centre to the LED window's centre: the window's edge clears the
    piece footprint by the placement slop."""
    return piece_diameter(b) / 2 + PLACEMENT_SLOP_MM + LED_WINDOW_MM / 2 + LED_EDGE_GAP_MM


def led_xy(b: Build, point: str) -> tuple[float, float]:
    x, y = b.xy(point)
    ux, uy = _unit(LED_ANGLE_DEG[b.geometry.shape])
    d = led_offset_mm(b)
    return (x + d * ux, y + d * uy)


def switch_xy(b: Build, point: str) -> tuple[float, float]:
    x, y = b.xy(point)
    ux, uy = _unit(b.layout.mechanics["switch_angle_deg"])
    d = b.layout.mechanics["switch_offset_mm"]
    return (x + d * ux, y + d * uy)


# -- features ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Feature:
    """A hole (``length`` 0) or a slot (round-ended, ``length`` between the end centres
    plus ``width``), on one plate, cut from one face."""

    ident: str
    point: str
    plate: str
    face: str
    x: float
    y: float
    angle: float
    diameter: float  # holes; slots: their width
    length: float  # slots: overall length; holes: 0
    depth: float
    tool: str
    purpose: str

    @property
    def through(self) -> bool:
        return self.depth >= PLATE_MM.get(self.plate, 1e9)

    def segment(self) -> tuple[tuple[float, float], tuple[float, float], float]:
        """The feature as a capsule: two end centres and a radius."""
        r = self.diameter / 2
        if not self.length:
            return ((self.x, self.y), (self.x, self.y), r)
        ux, uy = _unit(self.angle)
        h = self.length / 2 - r
        return ((self.x - h * ux, self.y - h * uy), (self.x + h * ux, self.y + h * uy), r)


PLATE_MM = {"P1": P1_MM, "P2": P2_MM, "P3": P3_MM}


def _screw_positions(b: Build) -> list[tuple[float, float]]:
    """Along the frame's centre line, corners included, at most SCREW_SPACING_MM apart."""
    w, h, s = b.place.width, b.place.height, SCREW_INSET_MM
    out: list[tuple[float, float]] = []
    corners = [(s, s), (w - s, s), (w - s, h - s), (s, h - s)]
    for (x1, y1), (x2, y2) in zip(corners, corners[1:] + corners[:1], strict=True):
        n = max(1, math.ceil(math.dist((x1, y1), (x2, y2)) / SCREW_SPACING_MM))
        for k in range(n):
            out.append((x1 + (x2 - x1) * k / n, y1 + (y2 - y1) * k / n))
    return out


def button_positions(b: Build) -> list[tuple[str, float, float]]:
    """OK, BACK, HINT in the South-East of the play surface, clear of every point."""
    names = [n for n in ("ok", "back", "hint") if n in b.layout.buttons]
    if not names:
        return []
    if b.geometry.shape == "squares":
        # The empty corner right of the South arm, on the level of rank 1.
        spots = [b.place.at(c, -1.0) for c in (10.0, 11.0, 12.0)]
    else:
        # Half-way between the last South points, in the South margin.
        south = sorted((b.xy(n) for n in b.geometry.names if n.startswith("s")), key=lambda p: p[0])
        y = b.place.height - b.place.margin / 2
        spots = [((p[0] + q[0]) / 2, y) for p, q in zip(south[-4:-1], south[-3:], strict=True)]
    return [(n.upper(), x, y) for n, (x, y) in zip(names, spots, strict=False)]


def controller_xy(b: Build) -> tuple[float, float]:
    """Centre of the controller board (Pico, level shifter) under P2: its USB edge against
    the South frame, as far West as its mounting screws find bare wood."""
    spot = board_spots(b)[0]
    return (spot.x, spot.y)


class NoRoomError(ValueError):
    """The electronics boards do not fit under P2 (a layout too small for them)."""


@dataclass(frozen=True)
class BoardSpot:
    """Where an electronics board hangs under P2 (template mm, seen from above; its
    component side down): centre, size, and the pilot holes of its mounting screws."""

    name: str
    x: float
    y: float
    width: float
    height: float
    mounts: tuple[tuple[float, float], ...]

    def rect(self) -> tuple[float, float, float, float]:
        return (self.x - self.width / 2, self.y - self.height / 2, self.x + self.width / 2, self.y + self.height / 2)


_SPOTS: dict[tuple[Any, ...], list[BoardSpot]] = {}


def _p2_obstacles(b: Build) -> list[tuple[tuple[float, float], tuple[float, float], float]]:
    """Every hole, slot and pocket of P2 (either face) as segments with a radius."""
    return [f.segment() for f in _plate_features(b) if f.plate == "P2"]


def _mount_clear(
    p: tuple[float, float], obstacles: list[tuple[tuple[float, float], tuple[float, float], float]]
) -> bool:
    r = MOUNT_PILOT_MM / 2
    for a, c, rr in obstacles:
        if abs(a[0] - p[0]) > 30 and abs(c[0] - p[0]) > 30:
            continue
        if _point_seg(p, a, c) - rr - r < 1.0:  # 1 mm of wood between, as collisions()
            return False
    return True


# A mounting hole on the perfboard: its spacer (about 6 mm across) sits on the copper side
# among the wire links, the screw head (5.6 mm) on the component side among the parts.
MOUNT_PAD_CLEAR_PITCHES = 1.6  # from any pad: clear of DIP sockets and header strips
MOUNT_WIRE_CLEAR_PITCHES = 1.5  # from any wire link of the plan


def plan_keepout(plan: Any) -> list[tuple[float, float]]:
    """Every hole a part's pin, a socket or an off-board wire takes: the plan's pads, its
    edge pads, and the whole of the Pico's two 20-pin header strips (the plan has pads only
    for the pins it wires)."""
    out = [(float(x), float(y)) for x, y in list(plan.pads.values()) + list(plan.edge.values())]
    for label, hx, hy, _w, h in plan.outlines:
        if label.startswith("U1 "):  # perfboard.controller_plan: pins at columns hx+1 and hx+8
            out += [(float(hx + 1), float(hy + n)) for n in range(1, h)]
            out += [(float(hx + 8), float(hy + n)) for n in range(1, h)]
    return out


def plan_clear(
    plan: Any, wires: dict[str, list[tuple[int, int]]], hole: tuple[float, float], keepout: Any = None
) -> bool:
    """A mounting hole there misses every pad and socket pin and every wire link of the plan."""
    for pad in plan_keepout(plan) if keepout is None else keepout:
        if math.dist(hole, pad) < MOUNT_PAD_CLEAR_PITCHES:
            return False
    for path in wires.values():
        for a, c in itertools.pairwise(path):
            if _point_seg(hole, (float(a[0]), float(a[1])), (float(c[0]), float(c[1]))) < MOUNT_WIRE_CLEAR_PITCHES:
                return False
    return True


def _mounts(
    rect: tuple[float, float, float, float],
    corners: int,
    obstacles: list[tuple[tuple[float, float], tuple[float, float], float]],
    board_ok: Any = None,
) -> tuple[tuple[float, float], ...] | None:
    """Mounting holes near the board's corners (4, at least 3; or 2 on a diagonal): each on
    a hole of the grid, as near its corner as lets it find bare wood in P2 and miss the
    board's pads and wire links (``board_ok``), no two closer than half the short side."""
    x0, y0, x1, y1 = rect
    i = MOUNT_INSET_MM
    starts = [((x0 + i, y0 + i), 1, 1), ((x1 - i, y1 - i), -1, -1)]
    if corners == 4:
        starts += [((x1 - i, y0 + i), -1, 1), ((x0 + i, y1 - i), 1, -1)]
    cols = round((x1 - x0 - 2 * i) / 2.54) + 1
    rows = round((y1 - y0 - 2 * i) / 2.54) + 1
    steps = sorted(((k, j) for k in range(cols) for j in range(rows)), key=lambda kj: (kj[0] + kj[1], kj))
    spread = min(x1 - x0, y1 - y0) / 2  # no two mounts of a board closer than half its short side
    out: list[tuple[float, float]] = []
    for (x, y), sx, sy in starts:
        for k, j in steps:
            p = (x + sx * k * 2.54, y + sy * j * 2.54)
            if any(math.dist(p, q) < spread for q in out):
                continue
            if _mount_clear(p, obstacles) and (board_ok is None or board_ok(p)):
                out.append(p)
                break
    # Four corners where they can be had; a board that wires its edges full makes do with
    # three (the controller of the matrix board: every row and column pin has an edge pad).
    return tuple(out) if len(out) >= min(corners, 3) else None


def board_spots(b: Build) -> list[BoardSpot]:
    """The controller board, then one strip per 74HC165 in chain order, each placed under
    P2 inside the frame, no two closer than BOARD_GAP_MM, clear of the button pockets, with
    mounting holes on bare wood. The controller's USB edge lies against the South frame;
    a strip as near the middle of its eight switches as that allows."""
    layout = b.layout
    key = (
        layout.name,
        b.pitch,
        tuple(sorted(layout.mechanics.items())),
        tuple(sorted((k, tuple(v)) for k, v in layout.points.items())),
    )
    if key in _SPOTS:
        return _SPOTS[key]
    c = circuit.build(layout)
    sizes = [(n, w * perfboard.GRID, h * perfboard.GRID) for n, w, h in perfboard.pieces(layout, c)]
    plans = [perfboard.controller_plan(c)]
    if len(sizes) > 1:
        plans.append(perfboard.strip_plan(c, layout))
    plan_wires = [perfboard.net_wires(c, p) for p in plans]
    keepouts = [plan_keepout(p) for p in plans]

    def board_ok(which: int, rect: tuple[float, float, float, float]) -> Any:
        return lambda p: plan_clear(plans[which], plan_wires[which], perfboard.plan_hole(rect, p), keepouts[which])

    obstacles = _p2_obstacles(b)
    lo, hi = FRAME_WIDTH_MM + BOARD_GAP_MM / 2, (b.place.width - FRAME_WIDTH_MM - BOARD_GAP_MM / 2)
    bottom = b.place.height - FRAME_WIDTH_MM - BOARD_GAP_MM / 2
    pockets = [(x, y) for _, x, y in button_positions(b)]
    placed: list[BoardSpot] = []

    def fits(rect: tuple[float, float, float, float]) -> bool:
        x0, y0, x1, y1 = rect
        if x0 < lo or x1 > hi or y0 < FRAME_WIDTH_MM + BOARD_GAP_MM / 2 or y1 > bottom:
            return False
        for o in placed:
            a0, b0, a1, b1 = o.rect()
            if x0 < a1 + BOARD_GAP_MM and a0 < x1 + BOARD_GAP_MM and y0 < b1 + BOARD_GAP_MM and b0 < y1 + BOARD_GAP_MM:
                return False
        for px, py in pockets:  # the button's body and tags hang below P2 in its pocket
            nx, ny = min(max(px, x0), x1), min(max(py, y0), y1)
            if math.hypot(nx - px, ny - py) < BUTTON_NUT_MM / 2 + BOARD_GAP_MM:
                return False
        return True

    name, w, h = sizes[0]
    for k in range(int((hi - lo - w) / 2.54) + 1):
        x0 = lo + k * 2.54
        rect = (x0, bottom - h, x0 + w, bottom)
        mounts = _mounts(rect, 4, obstacles, board_ok(0, rect)) if fits(rect) else None
        if mounts:
            placed.append(BoardSpot(name, x0 + w / 2, bottom - h / 2, w, h, mounts))
            break
    else:
        raise NoRoomError(
            "%s: no place for the controller board (%s x %s mm) along the South frame, inside the frame and "
            "clear of the buttons, with its mounting screws on bare wood" % (layout.name, _f(w), _f(h))
        )
    top = FRAME_WIDTH_MM + BOARD_GAP_MM / 2
    strips = sizes[1:]
    if strips:
        w, h = strips[0][1], strips[0][2]
        lanes = max(1, int((bottom - top + BOARD_GAP_MM) // (h + BOARD_GAP_MM)))
        lane_y = [top + k * (bottom - top - h) / max(1, lanes - 1) for k in range(lanes)]
        xs = [lo + k * 2.54 for k in range(int((hi - lo - w) / 2.54) + 1)]
        controller = placed[0]
        # First choice: each strip in the lane position nearest the middle of its switches
        # (short switch wires), the strips taken in one of a few orders (chain order, by x,
        # by y, each both ways): the order that places all of them with the least total
        # distance wins. Where no order leaves room for every strip, they fill the lanes in
        # chain order instead, snaking from the controller.
        centres = [_switch_centroid(b, chip) for chip in range(len(strips))]
        grid = [(x0, y0) for x0 in xs for y0 in lane_y]
        chain = list(range(len(strips)))
        orders = [chain, chain[::-1]]
        for axis in (0, 1):
            by = sorted(chain, key=lambda k: (centres[k][axis], k))
            orders += [by, by[::-1]]
        best: tuple[float, list[BoardSpot]] | None = None
        for sequence in orders:
            got: dict[int, BoardSpot] = {}
            del placed[1:]
            for chip in sequence:
                cx, cy = centres[chip]
                for x0, y0 in sorted(grid, key=lambda p: math.hypot(p[0] + w / 2 - cx, p[1] + h / 2 - cy)):
                    rect = (x0, y0, x0 + w, y0 + h)
                    mounts = _mounts(rect, 2, obstacles, board_ok(1, rect)) if fits(rect) else None
                    if mounts:
                        got[chip] = BoardSpot(strips[chip][0], x0 + w / 2, y0 + h / 2, w, h, mounts)
                        placed.append(got[chip])
                        break
                else:
                    break
            if len(got) == len(strips):
                cost = sum(math.hypot(got[k].x - centres[k][0], got[k].y - centres[k][1]) for k in chain)
                if best is None or cost < best[0] - 1e-6:
                    best = (cost, [got[k] for k in chain])
        del placed[1:]
        if best is not None:
            placed += best[1]
        else:
            snake = [(x0, y0) for i, y0 in enumerate(reversed(lane_y)) for x0 in (xs if i % 2 == 0 else xs[::-1])]
            for name, _, _ in strips:
                for x0, y0 in snake:
                    rect = (x0, y0, x0 + w, y0 + h)
                    mounts = _mounts(rect, 2, obstacles, board_ok(1, rect)) if fits(rect) else None
                    if mounts:
                        placed.append(BoardSpot(name, x0 + w / 2, y0 + h / 2, w, h, mounts))
                        break
                else:
                    raise NoRoomError(
                        "%s: no room under P2 for %d sensor strips of %s x %s mm (pitch %s mm)"
                        % (layout.name, len(strips), _f(w), _f(h), _f(b.pitch))
                    )
        assert placed[0] is controller
    _SPOTS[key] = placed
    return placed


def features(layout: Any, pitch: float | None = None) -> list[Feature]:
    """Every hole, slot and pocket: the plates' own, then the pilot holes of the
    electronics boards' mounting screws in P2's underside (``board_spots``; a template at a
    pitch too small for the boards has none)."""
    b = build(layout, pitch)
    out = list(_plate_features(b))
    try:
        spots = board_spots(b)
    except NoRoomError:
        spots = []
    for spot in spots:
        for k, (x, y) in enumerate(spot.mounts):
            out.append(
                Feature(
                    "MT-%s-%d" % (spot.name.split()[0], k + 1),
                    "",
                    "P2",
                    "top",
                    x,
                    y,
                    0.0,
                    MOUNT_PILOT_MM,
                    0.0,
                    P2_MM,
                    "drill %.1f" % MOUNT_PILOT_MM,
                    "pilot, through P2 (P1 covers it), for a %s x %s mm screw: %s on an %s mm spacer"
                    % (_f(MOUNT_SCREW[0]), _f(MOUNT_SCREW[1]), spot.name, _f(SPACER_MM)),
                )
            )
    return out


def _plate_features(b: Build) -> list[Feature]:
    layout = b.layout
    ang = float(layout.mechanics["switch_angle_deg"])
    ux, uy = _unit(ang)
    led_ang = LED_ANGLE_DEG[b.geometry.shape]
    out: list[Feature] = []
    for name in b.geometry.names:
        lx, ly = led_xy(b, name)
        sx, sy = switch_xy(b, name)
        out.append(
            Feature(
                "LW-" + name,
                name,
                "P1",
                "top",
                lx,
                ly,
                led_ang,
                LED_WINDOW_MM,
                0.0,
                P1_MM,
                "drill 5.0",
                "LED window: the dome ends flush with the play surface",
            )
        )
        out.append(
            Feature(
                "LB-" + name,
                name,
                "P2",
                "top",
                lx,
                ly,
                led_ang,
                LED_BODY_HOLE_MM,
                0.0,
                P2_MM,
                "drill 6.0",
                "LED body; hot glue on the underside",
            )
        )
        out.append(
            Feature(
                "RC-" + name,
                name,
                "P2",
                "top",
                sx,
                sy,
                ang,
                CHANNEL_WIDTH_MM,
                CHANNEL_LEN_MM,
                CHANNEL_DEPTH_MM,
                "end mill 2.5",
                "reed switch glass channel",
            )
        )
        out.append(
            Feature(
                "RS-" + name,
                name,
                "P2",
                "top",
                sx,
                sy,
                ang,
                LEAD_SLOT_WIDTH_MM,
                SLOT_LEN_MM,
                CHANNEL_DEPTH_MM,
                "end mill 1.5",
                "lead slots, straight on from both ends of the channel",
            )
        )
        reach = SLOT_LEN_MM / 2 - LEAD_HOLE_MM / 2
        for end, k in (("a", -1), ("b", 1)):
            out.append(
                Feature(
                    "RH%s-%s" % (end, name),
                    name,
                    "P2",
                    "top",
                    sx + k * reach * ux,
                    sy + k * reach * uy,
                    ang,
                    LEAD_HOLE_MM,
                    0.0,
                    P2_MM,
                    "drill 1.5",
                    "reed lead %s down to the wiring" % end.upper(),
                )
            )
    for i, (x, y) in enumerate(_screw_positions(b)):
        for plate, depth in (("P1", P1_MM), ("P2", P2_MM)):
            out.append(
                Feature(
                    "SC%d-%s" % (i, plate),
                    "",
                    plate,
                    "top",
                    x,
                    y,
                    0.0,
                    SCREW_HOLE_MM,
                    0.0,
                    depth,
                    "drill 3.5",
                    "3.0 x 20 mm countersunk screw into the frame" + ("; countersink 6.5 mm" if plate == "P1" else ""),
                )
            )
        out.append(
            Feature(
                "SB%d-P3" % i,
                "",
                "P3",
                "bottom",
                x,
                y,
                0.0,
                SCREW_HOLE_MM,
                0.0,
                P3_MM,
                "drill 3.5",
                "3.0 x 12 mm pan head screw into the frame",
            )
        )
    for label, x, y in button_positions(b):
        out.append(
            Feature(
                "BT-%s-P1" % label,
                "",
                "P1",
                "top",
                x,
                y,
                0.0,
                BUTTON_HOLE_MM,
                0.0,
                P1_MM,
                "drill 7.0",
                "push button %s (7 mm bushing)" % label,
            )
        )
        out.append(
            Feature(
                "BT-%s-P2" % label,
                "",
                "P2",
                "top",
                x,
                y,
                0.0,
                BUTTON_NUT_MM,
                0.0,
                P2_MM,
                "Forstner 14",
                "room for the nut and the tags of button %s" % label,
            )
        )
    return out


def usb_slot(b: Build) -> tuple[float, float]:
    """The USB slot's centre on the South side of the frame (x along the frame)."""
    spot = board_spots(b)[0]
    return (spot.x - spot.width / 2 + PICO_USB_X_PITCHES * 2.54, b.place.height)


def collisions(feats: list[Feature], web_mm: float = 1.0) -> list[tuple[str, str, float]]:
    """Pairs of features on one plate closer than ``web_mm`` of wood (a reed switch's own
    channel, slot and lead holes overlap by design and are left out)."""
    out = []
    segs = [(f, f.segment()) for f in feats]
    for i, (f, (a1, a2, r1)) in enumerate(segs):
        for g, (b1, b2, r2) in segs[i + 1 :]:
            if f.plate != g.plate:
                continue
            if f.point and f.point == g.point and f.ident[:1] == "R" and g.ident[:1] == "R":
                continue
            if abs(f.x - g.x) > 40 or abs(f.y - g.y) > 40:
                continue
            gap = _seg_dist(a1, a2, b1, b2) - r1 - r2
            if gap < web_mm:
                out.append((f.ident, g.ident, round(gap, 2)))
    return out


def _point_seg(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _seg_dist(
    a1: tuple[float, float], a2: tuple[float, float], b1: tuple[float, float], b2: tuple[float, float]
) -> float:
    def cross(o: tuple[float, float], p: tuple[float, float], q: tuple[float, float]) -> float:
        return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])

    d1, d2 = cross(b1, b2, a1), cross(b1, b2, a2)
    d3, d4 = cross(a1, a2, b1), cross(a1, a2, b2)
    if d1 * d2 < 0 and d3 * d4 < 0:
        return 0.0
    return min(_point_seg(a1, b1, b2), _point_seg(a2, b1, b2), _point_seg(b1, a1, a2), _point_seg(b2, a1, a2))


# -- magnet field at the reed switches ------------------------------------------------------
# A reed switch is two soft-iron blades (continued by their leads) with a gap. Each blade
# with its lead is nearly an equipotential of the magnetic scalar potential; the gap is
# driven by the difference of the two halves' potentials, each about the mean of the
# outside potential along that half. The potential of the magnet (in amperes) is that of
# its two pole faces (surface density M = Br / mu0). A coil of N turns around the switch
# drives the same difference with N x I: the figure compares, to an order of magnitude,
# with the switch's ampere-turn rating. It explains the dead zone (a magnet over the gap
# drives both halves alike) and why a magnet in line with a switch's end is the worst
# neighbour.

_MU0 = 4e-7 * math.pi


def _potential_exact(px: float, py: float, h: float, rings: int = 8) -> float:
    """Potential (A) at (px, py, 0) of a disc magnet centred above the origin, its bottom
    face h mm up, magnetised upwards: the two charged faces, integrated on rings."""
    m = MAGNET_BR_T / _MU0  # A/m
    r_mag = MAGNET_DIA_MM / 2
    total = 0.0
    for sign, z in ((1.0, h + MAGNET_THICK_MM), (-1.0, h)):
        for i in range(rings):
            r = (i + 0.5) / rings * r_mag
            ring = 4 * (i + 1)
            area = 2 * math.pi * r * (r_mag / rings) / ring
            for k in range(ring):
                a = 2 * math.pi * (k + 0.5) / ring
                d = math.sqrt((px - r * math.cos(a)) ** 2 + (py - r * math.sin(a)) ** 2 + z * z)
                total += sign * area / d
    return m * total / (4 * math.pi) * 1e-3  # mm^2 / mm -> m


def _potential_dipole(px: float, py: float, h: float) -> float:
    """The same magnet as a point dipole at its centre (within 3 % from 15 mm on)."""
    moment = MAGNET_BR_T / _MU0 * math.pi * (MAGNET_DIA_MM / 2) ** 2 * MAGNET_THICK_MM  # (A/m) x mm^3
    z = h + MAGNET_THICK_MM / 2
    r2 = px * px + py * py + z * z
    return moment * z / (4 * math.pi * r2 * math.sqrt(r2)) * 1e-3


def axial_field_mt(dia_mm: float, thick_mm: float, z_mm: float, br_t: float = MAGNET_BR_T) -> float:
    """Field (mT) on the axis of a disc magnet, z mm from its face: the exact formula for a
    uniformly magnetised cylinder, B = Br / 2 x ((z + L) / sqrt(R^2 + (z + L)^2) - z / sqrt(R^2 + z^2))."""
    r = dia_mm / 2
    far = z_mm + thick_mm
    return br_t / 2 * (far / math.hypot(r, far) - z_mm / math.hypot(r, z_mm)) * 1000


def dipole_field_mt(
    dia_mm: float, thick_mm: float, across_mm: float, below_mm: float, br_t: float = MAGNET_BR_T
) -> float:
    """Field (mT) of a disc magnet as a point dipole at its centre, at a point ``across_mm``
    to the side and ``below_mm`` under its face: |B| = mu0 m / (4 pi r^3) sqrt(3 cos^2 + 1)."""
    z = below_mm + thick_mm / 2
    r = math.hypot(across_mm, z)
    volume = math.pi * (dia_mm / 2) ** 2 * thick_mm  # mm^3; mu0 m = Br x volume
    return br_t * volume / (4 * math.pi * r**3) * math.sqrt(3 * (z / r) ** 2 + 1) * 1000


def reed_drive(mx: float, my: float, sx: float, sy: float, angle: float, exact: bool = True) -> float:
    """Drive (A, compare with AT) of a magnet at (mx, my) on the switch centred at (sx,
    sy) along ``angle``: the difference of the mean potentials of the two halves (blade
    plus straight lead, SLOT_LEN_MM / 2 each)."""
    ux, uy = _unit(angle)
    h = MAGNET_TO_REED_AXIS_MM
    half = SLOT_LEN_MM / 2
    samples = 10
    pot = _potential_exact if exact else _potential_dipole
    means = []
    for sign in (-1, 1):
        acc = 0.0
        for i in range(samples):
            s = sign * (i + 0.5) / samples * half
            acc += pot(sx + s * ux - mx, sy + s * uy - my, h)
        means.append(acc / samples)
    return abs(means[1] - means[0])


@dataclass(frozen=True)
class FieldFigures:
    own_min: float  # drive at the own switch, piece off its point by the slop, worst direction
    neighbour_max: float  # worst drive of any magnet (off by the slop towards it) on another switch
    neighbour_pair: tuple[str, str]  # (magnet's point, switch's point)
    nearest_glass_mm: float  # horizontal distance magnet -> nearest part of another switch's glass
    nearest_pair: tuple[str, str]
    along_axis_deg: float  # angle between that switch's axis and the line to the magnet


def field_figures(layout: Any, pitch: float | None = None) -> FieldFigures:
    b = build(layout, pitch)
    ang = float(layout.mechanics["switch_angle_deg"])
    ux, uy = _unit(ang)
    names = list(b.geometry.names)
    # Own switch: the same for every point; the worst of 8 directions of the slop.
    p0 = names[0]
    x0, y0 = b.xy(p0)
    s0 = switch_xy(b, p0)
    own = min(
        reed_drive(x0 + PLACEMENT_SLOP_MM * math.cos(a), y0 + PLACEMENT_SLOP_MM * math.sin(a), *s0, ang)
        for a in (k * math.pi / 4 for k in range(8))
    )
    worst = (0.0, ("", ""))
    nearest = (1e9, ("", ""), 0.0)
    for m in names:
        mx, my = b.xy(m)
        for s in names:
            if s == m:
                continue
            sx, sy = switch_xy(b, s)
            if math.dist((mx, my), (sx, sy)) > 3 * b.pitch:
                continue
            # nearest point of the glass
            t = max(-REED_GLASS_MM / 2, min(REED_GLASS_MM / 2, (mx - sx) * ux + (my - sy) * uy))
            px, py = sx + t * ux, sy + t * uy
            d = math.dist((mx, my), (px, py))
            if d < nearest[0]:
                along = math.degrees(math.acos(min(1.0, abs((mx - px) * ux + (my - py) * uy) / d)))
                nearest = (d, (m, s), along)
            # the magnet pushed PLACEMENT_SLOP_MM towards that nearest point
            k = PLACEMENT_SLOP_MM / d
            drive = reed_drive(mx + (px - mx) * k, my + (py - my) * k, sx, sy, ang, exact=False)
            if drive > worst[0]:
                worst = (drive, (m, s))
    return FieldFigures(own, worst[0], worst[1], nearest[0], nearest[1], nearest[2])


PULL_IN_MIN_AT = 10.0  # the most sensitive switch the BOM allows (10-20 AT band)
PULL_IN_MAX_AT = 20.0  # the least sensitive


@dataclass(frozen=True)
class Tolerance:
    own_closed_mm: float  # a piece this far off its point (worst direction) still closes a 20 AT switch
    toggle_mm: float  # pushed this far from its point towards the worst other switch, it closes a 10 AT one
    toggle_pair: tuple[str, str]


def placement_tolerance(layout: Any, pitch: float | None = None) -> Tolerance:
    """The figures a builder checks by hand (assembly.md stage 4): how sloppily a piece may
    stand and still close its own switch, and how far it must be pushed towards a
    neighbour to close that one's switch, by the drive model, in 0.5 mm steps."""
    b = build(layout, pitch)
    ang = float(layout.mechanics["switch_angle_deg"])
    ux, uy = _unit(ang)
    ff = field_figures(layout, pitch)
    m, n = ff.neighbour_pair
    p0 = b.geometry.names[0]
    x0, y0 = b.xy(p0)
    s0 = switch_xy(b, p0)
    own = 0.0
    r = 0.5
    while r < b.pitch / 2:
        drive = min(
            reed_drive(x0 + r * math.cos(a), y0 + r * math.sin(a), *s0, ang)
            for a in (k * math.pi / 4 for k in range(8))
        )
        if drive < PULL_IN_MAX_AT:
            break
        own = r
        r += 0.5
    mx, my = b.xy(m)
    sx, sy = switch_xy(b, n)
    t = max(-REED_GLASS_MM / 2, min(REED_GLASS_MM / 2, (mx - sx) * ux + (my - sy) * uy))
    px, py = sx + t * ux, sy + t * uy
    d = math.dist((mx, my), (px, py))
    toggle = 0.0
    while toggle < d:
        toggle += 0.5
        k = toggle / d
        if reed_drive(mx + (px - mx) * k, my + (py - my) * k, sx, sy, ang) >= PULL_IN_MIN_AT:
            break
    return Tolerance(own, toggle, (m, n))


# -- drawing (one list of primitives for SVG and PDF) ---------------------------------------

Colour = tuple[float, float, float]
BLACK: Colour = (0, 0, 0)
GREY: Colour = (0.55, 0.55, 0.55)
RED: Colour = (0.8, 0, 0)
BLUE: Colour = (0, 0.4, 0.8)
GREEN: Colour = (0, 0.55, 0.2)
ORANGE: Colour = (0.8, 0.4, 0)
BROWN: Colour = (0.55, 0.35, 0.1)


@dataclass(frozen=True)
class Shape:
    kind: str  # "poly", "circle", "text"
    points: tuple[tuple[float, float], ...] = ()
    radius: float = 0.0
    closed: bool = False
    colour: Colour = BLACK
    width: float = 0.3
    dash: float = 0.0
    text: str = ""
    size: float = 3.0
    ident: str = ""


def _capsule(f: Feature, steps: int = 6) -> tuple[tuple[float, float], ...]:
    (ax, ay), (bx, by), r = f.segment()
    ux, uy = _unit(f.angle)
    base = math.atan2(uy, ux)
    pts = []
    for cx, cy, start in ((bx, by, base - math.pi / 2), (ax, ay, base + math.pi / 2)):
        for i in range(steps + 1):
            a = start + math.pi * i / steps
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return tuple(pts)


def drawing(layout: Any, pitch: float | None = None) -> list[Shape]:
    """The template's shapes, in template millimetres."""
    b = build(layout, pitch)
    w, h = b.place.width, b.place.height
    out = [Shape("poly", ((0, 0), (w, 0), (w, h), (0, h)), closed=True, width=0.4, ident="plate")]
    fw = FRAME_WIDTH_MM
    out.append(
        Shape(
            "poly",
            ((fw, fw), (w - fw, fw), (w - fw, h - fw), (fw, h - fw)),
            closed=True,
            colour=BROWN,
            width=0.2,
            dash=3.0,
            ident="frame",
        )
    )
    g = b.geometry
    if g.shape == "squares":
        for x, y in g.coords:
            cx, cy = b.place.at(x, y)
            s = b.pitch / 2
            out.append(
                Shape(
                    "poly",
                    ((cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)),
                    closed=True,
                    colour=GREY,
                    width=0.4,
                )
            )
    else:
        for line in g.lines:
            out.append(Shape("poly", tuple(b.place.at(*g.coords[p]) for p in line), colour=GREY, width=0.4))
    homes = {g.names[p] for pts in g.homes.values() for p in pts}
    r_piece = piece_diameter(b) / 2
    label = min(3.0, b.pitch / 9)
    for name in g.names:
        x, y = b.xy(name)
        out.append(
            Shape(
                "circle",
                ((x, y),),
                radius=r_piece,
                colour=ORANGE if name in homes else GREY,
                width=0.2,
                dash=1.0,
                ident="piece-" + name,
            )
        )
        out.append(Shape("circle", ((x, y),), radius=0.6, colour=BLACK, width=0.2, ident="point-" + name))
        out.append(Shape("text", ((x - r_piece * 0.7, y + r_piece * 0.7),), text=name, size=label))
    for f in features(layout, pitch):
        if f.ident.startswith("LW-"):
            out.append(
                Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, colour=RED, width=0.3, ident="led-" + f.point)
            )
            out.append(Shape("poly", ((f.x - 1, f.y), (f.x + 1, f.y)), colour=RED, width=0.15))
            out.append(Shape("poly", ((f.x, f.y - 1), (f.x, f.y + 1)), colour=RED, width=0.15))
        elif f.ident.startswith("LB-"):
            out.append(Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, colour=RED, width=0.15, dash=0.6))
        elif f.ident.startswith("RC-"):
            out.append(Shape("poly", _capsule(f), closed=True, colour=BLUE, width=0.3, ident="switch-" + f.point))
        elif f.ident.startswith("RS-"):
            out.append(Shape("poly", _capsule(f), closed=True, colour=BLUE, width=0.12))
        elif f.ident.startswith("RH"):
            out.append(Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, colour=GREEN, width=0.2))
        elif f.ident.startswith("SC") and f.plate == "P1":
            out.append(Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, width=0.3, ident="screw-" + f.ident))
            out.append(Shape("circle", ((f.x, f.y),), radius=SCREW_HEAD_MM / 2, width=0.15, dash=0.8))
        elif f.ident.startswith("BT-") and f.plate == "P1":
            out.append(Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, width=0.3, ident="button-" + f.ident))
            out.append(Shape("circle", ((f.x, f.y),), radius=BUTTON_NUT_MM / 2, width=0.15, dash=0.8))
            out.append(Shape("text", ((f.x - 3, f.y + BUTTON_NUT_MM / 2 + 3),), text=f.ident.split("-")[1], size=2.5))
        elif f.ident.startswith("MT-"):
            out.append(
                Shape(
                    "circle", ((f.x, f.y),), radius=f.diameter / 2, colour=BROWN, width=0.25, ident="mount-" + f.ident
                )
            )
    try:
        spots = board_spots(b)
    except NoRoomError:
        spots = []
    for spot in spots:
        x0, y0, x1, y1 = spot.rect()
        out.append(
            Shape("poly", ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), closed=True, colour=BROWN, width=0.15, dash=1.5)
        )
        out.append(Shape("text", ((x0 + 2, y0 + 4),), text=spot.name + " (under P2)", size=2.2, colour=BROWN))
    if not spots:  # the boards do not fit at this pitch: no controller, no slot to draw
        return out
    ux = usb_slot(b)[0]
    out.append(
        Shape(
            "poly",
            ((ux - USB_SLOT_MM[0] / 2, h - 1), (ux + USB_SLOT_MM[0] / 2, h - 1)),
            colour=BROWN,
            width=0.8,
            ident="usb",
        )
    )
    out.append(Shape("text", ((ux - 6, h - 2.5),), text="USB slot", size=2.2, colour=BROWN))
    return out


LEGEND = (
    "Red: LED window 5.0 mm through P1 (dashed: 6.0 mm through P2). Blue: reed channel 15 x 2.5 mm, 2.5 deep, "
    "and lead slots 27 x 1.5 mm, 2.5 deep, in P2's top face. Green: lead holes 1.5 mm through P2.",
    "Black: screw holes 3.5 mm through P1 and P2 (dashed: countersink); buttons 7 mm through P1, 14 mm through P2. "
    "Dashed circles: piece footprint (orange: home points). Brown dashes: frame, under P2.",
    "Brown dashed boxes: the electronics boards under P2 (component side down); brown circles: 2.0 mm pilot "
    "holes through P2 for their mounting screws.",
)


def _svg_shape(s: Shape, dx: float = 0.0, dy: float = 0.0) -> str:
    col = "#%02x%02x%02x" % tuple(round(c * 255) for c in s.colour)
    ident = ' id="%s"' % s.ident if s.ident else ""
    dash = ' stroke-dasharray="%s,%s"' % (_f(s.dash), _f(s.dash)) if s.dash else ""
    if s.kind == "circle":
        (x, y) = s.points[0]
        return '<circle%s cx="%s" cy="%s" r="%s" fill="none" stroke="%s" stroke-width="%s"%s/>' % (
            ident,
            _f(x + dx),
            _f(y + dy),
            _f(s.radius),
            col,
            _f(s.width),
            dash,
        )
    if s.kind == "text":
        (x, y) = s.points[0]
        text = s.text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return '<text x="%s" y="%s" font-size="%s" fill="%s">%s</text>' % (
            _f(x + dx),
            _f(y + dy),
            _f(s.size),
            col,
            text,
        )
    tag = "polygon" if s.closed else "polyline"
    pts = " ".join("%s,%s" % (_f(x + dx), _f(y + dy)) for x, y in s.points)
    return '<%s%s points="%s" fill="none" stroke="%s" stroke-width="%s"%s/>' % (tag, ident, pts, col, _f(s.width), dash)


def template_svg(layout: Any, pitch: float | None = None) -> str:
    b = build(layout, pitch)
    w, h = b.place.width, b.place.height + 24
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="%smm" height="%smm" viewBox="0 0 %s %s" '
        'font-family="sans-serif">' % (_f(w), _f(h), _f(w), _f(h)),
        "<title>%s drilling template, 1:1, pitch %s mm</title>" % (b.name, _f(b.pitch)),
    ]
    out += [_svg_shape(s) for s in drawing(layout, pitch)]
    y0 = b.place.height + 6
    out.append(
        '<path d="M10 %sh100M10 %sv4M110 %sv4" stroke="#000" stroke-width="0.4" fill="none"/>'
        % (_f(y0), _f(y0 - 2), _f(y0 - 2))
    )
    out.append(
        '<text x="115" y="%s" font-size="3">100 mm: check the print scale. %s, pitch %s mm, plates %s x %s mm.'
        "</text>" % (_f(y0 + 1), b.name, _f(b.pitch), _f(b.place.width), _f(b.place.height))
    )
    for i, line in enumerate(LEGEND):
        out.append('<text x="10" y="%s" font-size="2.6">%s</text>' % (_f(y0 + 7 + 4 * i), line))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- PDF -------------------------------------------------------------------------------------

MM = 72 / 25.4
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PAGE_MARGIN_MM = 10.0  # most printers cannot print the outer 4-6 mm
LABEL_BAND_MM = 22.0  # page label, scale bar and check at the foot of every page
OVERLAP_MM = 12.0  # neighbouring tiles share this band; the crosses in it coincide


class _Pdf:
    """A minimal PDF writer: pages of lines, Bezier circles and Helvetica text."""

    def __init__(self) -> None:
        self.pages: list[tuple[float, float, list[str]]] = []

    def page(self, w_mm: float, h_mm: float) -> list[str]:
        ops: list[str] = []
        self.pages.append((w_mm, h_mm, ops))
        return ops

    def bytes(self) -> bytes:
        n = len(self.pages)
        objects: list[bytes] = [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            (
                "<< /Type /Pages /Kids [%s] /Count %d >>" % (" ".join("%d 0 R" % (4 + 2 * i) for i in range(n)), n)
            ).encode(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        for w, h, ops in self.pages:
            content = "\n".join(ops).encode("ascii")
            objects.append(
                (
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] /Contents %d 0 R "
                    "/Resources << /Font << /F1 3 0 R >> >> >>" % (_f(w * MM), _f(h * MM), len(objects) + 2)
                ).encode()
            )
            objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        return pdf_file(objects)


class _Pen:
    """Draws template millimetres onto one PDF page: page (x, y) = (X - ox, Y - oy) + (px, py)."""

    def __init__(
        self, ops: list[str], page_h: float, ox: float = 0.0, oy: float = 0.0, px: float = 0.0, py: float = 0.0
    ) -> None:
        self.ops, self.page_h, self.ox, self.oy, self.px, self.py = ops, page_h, ox, oy, px, py

    def pt(self, x: float, y: float) -> str:
        return "%s %s" % (_f((x - self.ox + self.px) * MM), _f((self.page_h - (y - self.oy + self.py)) * MM))

    def style(self, colour: Colour, width: float, dash: float) -> None:
        self.ops.append(
            "%s %s %s RG %s w %s"
            % (
                _f(colour[0]),
                _f(colour[1]),
                _f(colour[2]),
                _f(width * MM),
                "[%s %s] 0 d" % (_f(dash * MM), _f(dash * MM)) if dash else "[] 0 d",
            )
        )

    def poly(self, pts: tuple[tuple[float, float], ...] | list[tuple[float, float]], closed: bool = False) -> None:
        self.ops.append(
            " ".join("%s %s" % (self.pt(*p), "m" if i == 0 else "l") for i, p in enumerate(pts))
            + (" s" if closed else " S")
        )

    def circle(self, x: float, y: float, r: float) -> None:
        k = 0.5523 * r
        p = self.pt
        self.ops.append(
            "%s m %s %s %s c %s %s %s c %s %s %s c %s %s %s c S"
            % (
                p(x + r, y),
                p(x + r, y - k),
                p(x + k, y - r),
                p(x, y - r),
                p(x - k, y - r),
                p(x - r, y - k),
                p(x - r, y),
                p(x - r, y + k),
                p(x - k, y + r),
                p(x, y + r),
                p(x + k, y + r),
                p(x + r, y + k),
                p(x + r, y),
            )
        )

    def text(self, x: float, y: float, size: float, s: str, colour: Colour = BLACK) -> None:
        s = s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        self.ops.append(
            "BT %s %s %s rg /F1 %s Tf %s Td (%s) Tj ET"
            % (_f(colour[0]), _f(colour[1]), _f(colour[2]), _f(size * MM), self.pt(x, y), s)
        )

    def shape(self, s: Shape) -> None:
        if s.kind == "text":
            self.text(s.points[0][0], s.points[0][1], s.size, s.text, s.colour)
            return
        self.style(s.colour, s.width, s.dash)
        if s.kind == "circle":
            self.circle(s.points[0][0], s.points[0][1], s.radius)
        else:
            self.poly(s.points, s.closed)

    def clip(self, x: float, y: float, w: float, h: float) -> None:
        self.ops.append("q %s %s %s re W n" % (self.pt(x, y + h), _f(w * MM), _f(h * MM)))


def template_pdf(layout: Any, pitch: float | None = None) -> bytes:
    """The whole template on one page of the plates' size (for a plotter or a print shop)."""
    b = build(layout, pitch)
    w, h = b.place.width, b.place.height + 24
    pdf = _Pdf()
    pen = _Pen(pdf.page(w, h), h)
    for s in drawing(layout, pitch):
        pen.shape(s)
    y0 = b.place.height + 6
    pen.style(BLACK, 0.4, 0)
    pen.poly([(10, y0), (110, y0)])
    pen.poly([(10, y0 - 2), (10, y0 + 2)])
    pen.poly([(110, y0 - 2), (110, y0 + 2)])
    pen.text(
        115,
        y0 + 1,
        3,
        "100 mm: check the print scale. %s, pitch %s mm, plates %s x %s mm."
        % (b.name, _f(b.pitch), _f(b.place.width), _f(b.place.height)),
    )
    for i, line in enumerate(LEGEND):
        pen.text(10, y0 + 7 + 4 * i, 2.6, line)
    return pdf.bytes()


@dataclass(frozen=True)
class Tiling:
    paper: str
    landscape: bool
    page_w: float
    page_h: float
    cols: int
    rows: int
    step_x: float  # template mm from one tile's origin to the next
    step_y: float
    tile_w: float  # template mm on one page (step + overlap)
    tile_h: float

    @property
    def pages(self) -> int:
        return self.cols * self.rows

    def origin(self, col: int, row: int) -> tuple[float, float]:
        return (col * self.step_x - OVERLAP_MM / 2, row * self.step_y - OVERLAP_MM / 2)

    def crosses(self) -> list[tuple[float, float]]:
        """Alignment crosses, in template mm: the middle of every overlap band's crossing
        and of the plate's outer margin, so every page shows the ones it shares."""
        xs = [c * self.step_x for c in range(self.cols + 1)]
        ys = [r * self.step_y for r in range(self.rows + 1)]
        return [(x, y) for y in ys for x in xs]


def tiling(layout: Any, paper: str, pitch: float | None = None) -> Tiling:
    """The orientation (portrait or landscape) that needs fewer pages, portrait on a tie."""
    b = build(layout, pitch)
    w, h = b.place.width, b.place.height
    best: Tiling | None = None
    pw0, ph0 = PAPERS[paper]
    for landscape in (False, True):
        pw, ph = (ph0, pw0) if landscape else (pw0, ph0)
        tw, th = pw - 2 * PAGE_MARGIN_MM, ph - 2 * PAGE_MARGIN_MM - LABEL_BAND_MM
        sx, sy = tw - OVERLAP_MM, th - OVERLAP_MM
        cols, rows = math.ceil(w / sx), math.ceil(h / sy)
        # Spread the plates evenly over the tiles (crosses at round positions are not needed).
        t = Tiling(
            paper, landscape, pw, ph, cols, rows, w / cols, h / rows, w / cols + OVERLAP_MM, h / rows + OVERLAP_MM
        )
        if best is None or t.pages < best.pages:
            best = t
    assert best is not None
    return best


def _tile_name(col: int, row: int) -> str:
    return "%s%d" % (chr(ord("A") + col), row + 1)


def tiled_pdf(layout: Any, paper: str, pitch: float | None = None) -> bytes:
    """The template on A4 or Letter pages: a cover page (page map, legend, scale checks),
    then one page per tile with its content, the shared alignment crosses, cut lines,
    a label and a 100 mm bar."""
    b = build(layout, pitch)
    t = tiling(layout, paper, pitch)
    shapes = drawing(layout, pitch)
    pdf = _Pdf()
    total = t.pages + 1
    # cover
    ops = pdf.page(t.page_w, t.page_h)
    pen = _Pen(ops, t.page_h)
    m = PAGE_MARGIN_MM
    pen.text(m, m + 6, 6, "zuniboard %s: drilling template, %s pages" % (b.name, paper.upper()))
    lines = [
        "Page 1 of %d. Print every page at 100 %% / 'actual size' (no 'fit to page'), then check the scale below."
        % total,
        "Plates %s x %s mm, pitch %s mm: %d columns (A-%s) x %d rows (1-%d) of tiles; overlap %s mm."
        % (
            _f(b.place.width),
            _f(b.place.height),
            _f(b.pitch),
            t.cols,
            chr(ord("A") + t.cols - 1),
            t.rows,
            t.rows,
            _f(OVERLAP_MM),
        ),
        "Join: trim each page along its dotted cut lines (left and top), lay it on its neighbours so that",
        "the + crosses coincide, tape. Every cross is drawn on all the pages that share it.",
        "Print it twice: copy A goes onto P1 (top plate), copy B onto P2; assembly.md, stage 3.",
    ]
    for i, line in enumerate(lines):
        pen.text(m, m + 14 + 5 * i, 3.2, line)
    # page map
    y_map = m + 44
    scale = min((t.page_w - 2 * m) / b.place.width, 90 / b.place.height)
    mp = _Pen(ops, t.page_h)
    mp.style(BLACK, 0.3, 0)
    mp.poly(
        [
            (m, y_map),
            (m + b.place.width * scale, y_map),
            (m + b.place.width * scale, y_map + b.place.height * scale),
            (m, y_map + b.place.height * scale),
        ],
        closed=True,
    )
    for s in shapes:
        if s.ident.startswith("point-"):
            x, y = s.points[0]
            mp.style(GREY, 0.2, 0)
            mp.circle(m + x * scale, y_map + y * scale, 0.6)
    for col in range(t.cols):
        for row in range(t.rows):
            x0, y0 = col * t.step_x * scale + m, row * t.step_y * scale + y_map
            mp.style(BLUE, 0.3, 0)
            mp.poly(
                [
                    (x0, y0),
                    (x0 + t.step_x * scale, y0),
                    (x0 + t.step_x * scale, y0 + t.step_y * scale),
                    (x0, y0 + t.step_y * scale),
                ],
                closed=True,
            )
            mp.text(x0 + 1.5, y0 + 4.5, 3.5, "%s p%d" % (_tile_name(col, row), 2 + row * t.cols + col), BLUE)
    y_leg = y_map + b.place.height * scale + 8
    for i, line in enumerate(LEGEND):
        for j, part in enumerate(_wrap(line, 110)):
            pen.text(m, y_leg + 9 * i + 4 * j, 2.8, part)
    y_chk = y_leg + 9 * len(LEGEND) + 4
    _scale_checks(pen, m, y_chk, card=True)
    for row in range(t.rows):
        for col in range(t.cols):
            _tile_page(pdf, b, t, shapes, col, row, total)
    return pdf.bytes()


def _wrap(text: str, width: int) -> list[str]:
    out, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    return out + ([line] if line else [])


def _scale_checks(pen: _Pen, x: float, y: float, card: bool) -> None:
    """A 100 mm bar with 10 mm ticks; on the cover also a box a bank card (ISO/IEC 7810 ID-1,
    85.60 x 53.98 mm) must fit exactly, a check without a ruler."""
    pen.style(BLACK, 0.35, 0)
    pen.poly([(x, y), (x + 100, y)])
    for k in range(11):
        pen.poly([(x + 10 * k, y - (2.5 if k % 5 == 0 else 1.2)), (x + 10 * k, y)])
    pen.text(x + 102, y + 1, 2.8, "100 mm: measure it; 99.5-100.5 mm is fine, else the print was scaled")
    if card:
        pen.style(BLACK, 0.25, 0)
        pen.poly([(x, y + 6), (x + 85.6, y + 6), (x + 85.6, y + 6 + 53.98), (x, y + 6 + 53.98)], closed=True)
        pen.text(x + 3, y + 14, 3, "A bank card (85.60 x 53.98 mm)")
        pen.text(x + 3, y + 19, 3, "covers this box exactly.")


def _tile_page(pdf: _Pdf, b: Build, t: Tiling, shapes: list[Shape], col: int, row: int, total: int) -> None:
    ops = pdf.page(t.page_w, t.page_h)
    ox, oy = t.origin(col, row)
    m = PAGE_MARGIN_MM
    pen = _Pen(ops, t.page_h, ox, oy, m, m)
    pen.clip(ox, oy, t.tile_w, t.tile_h)
    for s in shapes:
        pen.shape(s)
    # alignment crosses (10 mm, with a 2 mm circle): every one inside this tile
    for cx, cy in t.crosses():
        if ox - 1e-6 <= cx <= ox + t.tile_w + 1e-6 and oy - 1e-6 <= cy <= oy + t.tile_h + 1e-6:
            pen.style(BLACK, 0.2, 0)
            pen.poly([(cx - 5, cy), (cx + 5, cy)])
            pen.poly([(cx, cy - 5), (cx, cy + 5)])
            pen.circle(cx, cy, 1.0)
    # cut lines (dotted) in the middle of the left and top overlap bands
    pen.style(GREY, 0.2, 0.8)
    if col > 0:
        pen.poly([(ox + OVERLAP_MM / 2, oy), (ox + OVERLAP_MM / 2, oy + t.tile_h)])
    if row > 0:
        pen.poly([(ox, oy + OVERLAP_MM / 2), (ox + t.tile_w, oy + OVERLAP_MM / 2)])
    ops.append("Q")
    # the tile's border, on the page
    page = _Pen(ops, t.page_h)
    page.style(GREY, 0.15, 0)
    page.poly([(m, m), (m + t.tile_w, m), (m + t.tile_w, m + t.tile_h), (m, m + t.tile_h)], closed=True)
    y = m + t.tile_h + 6
    number = 2 + row * t.cols + col
    near = []
    for dc, dr, word in ((-1, 0, "left"), (1, 0, "right"), (0, -1, "above"), (0, 1, "below")):
        c, r = col + dc, row + dr
        if 0 <= c < t.cols and 0 <= r < t.rows:
            near.append("%s %s" % (word, _tile_name(c, r)))
    page.text(
        m,
        y,
        3.5,
        "%s %s: tile %s, page %d of %d (column %d of %d, row %d of %d). Joins: %s."
        % (
            b.name,
            t.paper.upper(),
            _tile_name(col, row),
            number,
            total,
            col + 1,
            t.cols,
            row + 1,
            t.rows,
            ", ".join(near) or "none",
        ),
    )
    # a distance a builder measures on this page: between two crosses on it
    inside = [(cx, cy) for cx, cy in t.crosses() if ox <= cx <= ox + t.tile_w and oy <= cy <= oy + t.tile_h]
    if len(inside) >= 2:
        (ax, ay), (bx, by) = inside[0], inside[-1]
        page.text(
            m,
            y + 5,
            2.8,
            "Check: the centres of the crosses at the two far corners of this tile are %s mm apart."
            % _f(math.dist((ax, ay), (bx, by))),
        )
    _scale_checks(page, m, y + 12, card=False)


# -- drill.csv ----------------------------------------------------------------------------

DRILL_COLUMNS = (
    "feature,point,plate,face,shape,x_mm,y_mm,angle_deg,diameter_mm,length_mm,width_mm,depth_mm,through,tool,purpose"
)


def drill_csv(layout: Any, pitch: float | None = None) -> str:
    out = [DRILL_COLUMNS]
    for f in features(layout, pitch):
        hole = not f.length
        out.append(
            ",".join(
                _csv(v)
                for v in (
                    f.ident,
                    f.point,
                    f.plate,
                    f.face,
                    "hole" if hole else "slot",
                    _f(f.x),
                    _f(f.y),
                    _f(f.angle),
                    _f(f.diameter) if hole else "",
                    "" if hole else _f(f.length),
                    "" if hole else _f(f.diameter),
                    _f(f.depth),
                    "yes" if f.through else "no",
                    f.tool,
                    f.purpose,
                )
            )
        )
    return "\n".join(out) + "\n"


# -- wiring table -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Wire:
    ident: str
    group: str
    start: str
    end: str
    awg: int
    length_mm: float
    a: tuple[float, float]  # template mm of both ends (length = Manhattan distance + slack)
    b: tuple[float, float]
    notes: str


def wire_length(a: tuple[float, float], b: tuple[float, float], path_mm: float | None = None) -> float:
    """Wires run along the rows and columns under P2 (Manhattan distance, or a given path
    length for a bus), plus WIRE_SLACK_MM, rounded up to WIRE_ROUND_MM."""
    run = abs(a[0] - b[0]) + abs(a[1] - b[1]) if path_mm is None else path_mm
    return math.ceil((run + WIRE_SLACK_MM) / WIRE_ROUND_MM - 1e-9) * WIRE_ROUND_MM


def sensor_board_xy(b: Build, chip: int) -> tuple[float, float]:
    """Where the strip of a 74HC165 hangs (``board_spots``): as near the middle of its
    eight switches as the other boards and its mounting screws allow."""
    spot = board_spots(b)[1 + chip]
    return (spot.x, spot.y)


def _switch_centroid(b: Build, chip: int) -> tuple[float, float]:
    pts = [switch_xy(b, n) for n, (s, _) in b.layout.points.items() if s // 8 == chip]
    return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))


def _lead_end(b: Build, point: str, end: int) -> tuple[float, float]:
    sx, sy = switch_xy(b, point)
    ux, uy = _unit(b.layout.mechanics["switch_angle_deg"])
    reach = SLOT_LEN_MM / 2 - LEAD_HOLE_MM / 2
    return (sx + end * reach * ux, sy + end * reach * uy)


# The chain connector of every link (controller -> SB0, SB k -> SB k+1), pin 1 first: the
# clock between the latch and its ground wire (the note of wiring.csv: CLK next to GND).
CHAIN_PINS = (("3V3", "+3V3"), ("LOAD", "SH/LD"), ("CLK", "CLK"), ("GND", "GND"), ("DATA", "QH -> SER"))


def chain_pin_text() -> str:
    return ", ".join("%d %s" % (k + 1, name) for k, (_, name) in enumerate(CHAIN_PINS))


HC165_INPUTS = (("H", 6), ("G", 5), ("F", 4), ("E", 3), ("D", 14), ("C", 13), ("B", 12), ("A", 11))


_PLANS: dict[tuple[Any, ...], tuple[Any, Any]] = {}


def _plans(layout: Any) -> tuple[Any, Any]:
    """The controller's and the strip's perfboard plans (the strip's None on the matrix)."""
    key = (layout.name, tuple(sorted((k, tuple(v)) for k, v in layout.points.items())), repr(layout.sensors))
    if key not in _PLANS:
        c = circuit.build(layout)
        strip = perfboard.strip_plan(c, layout) if layout.sensors["type"] == "hc165" else None
        _PLANS[key] = (perfboard.controller_plan(c), strip)
    return _PLANS[key]


def hole_xy(spot: BoardSpot, hole: tuple[float, float]) -> tuple[float, float]:
    """A hole of a board's plan (column, row) under P2 in template mm: ``perfboard.plan_hole`` undone."""
    x0, _, _, y1 = spot.rect()
    return (x0 + hole[0] * 2.54, y1 - hole[1] * 2.54)


def edge_pad_xy(b: Build, board: int, net: str) -> tuple[float, float]:
    """Where the edge pad of ``net`` lies on board ``board`` (0 = controller, 1 + k = strip k)."""
    plan = _plans(b.layout)[0 if board == 0 else 1]
    return hole_xy(board_spots(b)[board], plan.edge[net])


def switch_pad_xy(b: Build, chip: int, bit: int, pin: int) -> tuple[float, float]:
    """The pad (pin 1 or 2) of the switch on input ``bit`` of strip ``chip``: every strip is
    the plan of the first, whose switch of the same bit names the pad."""
    plan = _plans(b.layout)[1]
    first = next(n for n, (s, _) in b.layout.points.items() if s == bit)
    return hole_xy(board_spots(b)[1 + chip], plan.pads[("SW_%s" % first, str(pin))])


def wires(layout: Any) -> list[Wire]:
    b = build(layout)
    out: list[Wire] = []

    def pad(net: str) -> tuple[float, float]:
        return edge_pad_xy(b, 0, net)

    def add(
        ident: str,
        group: str,
        start: str,
        end: str,
        kind: str,
        a: tuple[float, float],
        c: tuple[float, float],
        notes: str = "",
        path: float | None = None,
    ) -> None:
        out.append(Wire(ident, group, start, end, WIRE_AWG[kind], wire_length(a, c, path), a, c, notes))

    led_order = sorted(layout.points, key=lambda n: layout.points[n][1])
    add(
        "LD0",
        "LED data",
        "controller edge pad LED_5V (U2 1Y)",
        "R1 330 Ohm at LED0 DIN (%s)" % led_order[0],
        "led_data",
        pad("LED_5V"),
        led_xy(b, led_order[0]),
        "the only 5 V data wire from the controller; R1 sits at LED0, its other lead on DIN (netlist LED_DIN0)",
    )
    add(
        "LDG0",
        "LED data",
        "controller edge pad GND",
        "LED0 GND leg (%s)" % led_order[0],
        "led_data",
        pad("GND"),
        led_xy(b, led_order[0]),
        "the data's own return: twisted with LD0, kept 10 mm from the sensor chain's SCK (power.md)",
    )
    for i in range(1, len(led_order)):
        add(
            "LD%d" % i,
            "LED data",
            "LED%d DOUT (%s)" % (i - 1, led_order[i - 1]),
            "LED%d DIN (%s)" % (i, led_order[i]),
            "led_data",
            led_xy(b, led_order[i - 1]),
            led_xy(b, led_order[i]),
        )
    # LED power: one +5V/GND pair per row of LEDs, fed from the controller at the row's
    # West end (a star: no LED carries another row's current); the LEDs' legs are
    # soldered to the pair where it passes under them.
    rows: dict[float, list[tuple[float, float]]] = {}
    row_names: dict[float, list[str]] = {}
    for n in sorted(led_order, key=lambda p: led_xy(b, p)[0]):
        x, y = led_xy(b, n)
        rows.setdefault(round(y, 2), []).append((x, y))
        row_names.setdefault(round(y, 2), []).append(n)
    spine_x = FRAME_WIDTH_MM + 5
    for r, y in enumerate(sorted(rows)):
        xs = [p[0] for p in rows[y]]
        west, east = (min(xs), y), (max(xs), y)
        for net, colour in (("+5V", "red"), ("GND", "black")):
            start = pad(net)
            path = abs(start[0] - spine_x) + abs(start[1] - y) + (east[0] - spine_x)
            add(
                "LP%s%d" % ("P" if net == "+5V" else "G", r),
                "LED power",
                "controller edge pad %s" % net,
                "row bus %s..%s, %d LEDs (x %s mm to %s mm)"
                % (row_names[y][0], row_names[y][-1], len(xs), _f(west[0]), _f(east[0])),
                "led_trunk",
                start,
                east,
                "%s; strip 5 mm of insulation under each LED of the row, solder its %s leg" % (colour, net),
                path,
            )
    sensors = layout.sensors
    if sensors["type"] == "hc165":
        chips = layout.sensor_count // 8
        for n in sorted(layout.points, key=lambda p: layout.points[p][0]):
            s = layout.points[n][0]
            chip, bit = divmod(s, 8)
            letter, pin = HC165_INPUTS[bit]
            add(
                "S_%s" % n,
                "sensors",
                "SW_%s lead A" % n,
                "SB%d pad SW_%s.1 = U%d.%d(%s)" % (chip, n, 10 + chip, pin, letter),
                "sensor",
                _lead_end(b, n, -1),
                switch_pad_xy(b, chip, bit, 1),
                "twist with G_%s" % n,
            )
            add(
                "G_%s" % n,
                "sensors",
                "SW_%s lead B" % n,
                "SB%d pad SW_%s.2 (GND)" % (chip, n),
                "sensor",
                _lead_end(b, n, 1),
                switch_pad_xy(b, chip, bit, 2),
            )
        names = ["controller"] + ["SB%d" % k for k in range(chips)]
        for k in range(chips):
            na, nb = names[k], names[k + 1]
            for pin, (sig, _) in enumerate(CHAIN_PINS):
                # The edge pads of perfboard.svg: the same names on the controller and the strips.
                net = {"3V3": "+3V3", "GND": "GND", "CLK": "SR_CLK", "LOAD": "SR_LOAD", "DATA": "SR_DATA"}[sig]
                a_net = "SR_CHAIN1" if (k and sig == "DATA") else net
                a_pad = a_net
                if sig == "DATA":
                    a_pad = "SR_CHAIN1 (SER)" if k else "SR_DATA (GP%d, SPI RX)" % sensors["pins"]["data"]
                b_pad = "SR_DATA (QH)" if sig == "DATA" else net
                add(
                    "C%d_%s" % (k, sig),
                    "sensor chain",
                    "%s edge pad %s (%s pin %d)" % (na, a_pad, "chain" if k == 0 else "OUT", pin + 1),
                    "%s edge pad %s (IN pin %d)" % (nb, b_pad, pin + 1),
                    "chain",
                    edge_pad_xy(b, k, a_net),
                    edge_pad_xy(b, k + 1, net),
                    "5-way ribbon or 5 wires twisted together, pin 1 to pin 1; CLK between LOAD and GND"
                    if sig == "CLK"
                    else "",
                )
    else:
        cols = len(sensors["cols"])
        by_sensor = {layout.points[n][0]: n for n in layout.points}
        for kind, count, pins in (("ROW", len(sensors["rows"]), sensors["rows"]), ("COL", cols, sensors["cols"])):
            for k in range(count):
                if kind == "ROW":
                    members = [by_sensor[i] for i in sorted(by_sensor) if i // cols == k]
                else:
                    members = [by_sensor[i] for i in sorted(by_sensor) if i % cols == k]
                prev_name, prev = "controller edge pad %s%d (GP%d)" % (kind, k, pins[k]), pad("%s%d" % (kind, k))
                for j, n in enumerate(members):
                    end = _lead_end(b, n, -1 if kind == "ROW" else 1)
                    what = (
                        ("D_%s cathode (diode at the switch, anode to SW_%s lead A)" % (n, n))
                        if kind == "ROW"
                        else ("SW_%s lead B" % n)
                    )
                    add("%s%d_%d" % (kind, k, j), "matrix", prev_name, what, "sensor", prev, end)
                    prev_name, prev = what, end
    for label, x, y in button_positions(b):
        add(
            "B_%s" % label,
            "buttons",
            "controller edge pad BTN_%s (GP%d)" % (label, layout.buttons[label.lower()]),
            "%s button tag 1" % label,
            "button",
            pad("BTN_%s" % label),
            (x, y),
        )
        add(
            "BG_%s" % label,
            "buttons",
            "controller edge pad GND",
            "%s button tag 2" % label,
            "button",
            pad("GND"),
            (x, y),
        )
    return out


def _perfboard_count(layout: Any) -> int:
    return len(perfboard.stock_layout(layout, circuit.build(layout)))


def led_feeds(layout: Any) -> list[tuple[list[str], float, float]]:
    """Per row of LEDs (North first): its LEDs West to East, the feed (one conductor,
    metres, from the controller up the West edge to the row's West end) and the bus along
    the row, metres: the LPP*/LPG* wires of ``wires`` without their slack."""
    b = build(layout)
    start = edge_pad_xy(b, 0, "+5V")
    spine_x = FRAME_WIDTH_MM + 5
    rows: dict[float, list[str]] = {}
    for n in sorted(layout.points, key=lambda p: led_xy(b, p)[0]):
        rows.setdefault(round(led_xy(b, n)[1], 2), []).append(n)
    out = []
    for y in sorted(rows):
        xs = [led_xy(b, n)[0] for n in rows[y]]
        feed = abs(start[0] - spine_x) + abs(start[1] - y) + (min(xs) - spine_x)
        out.append((rows[y], feed / 1000, (max(xs) - min(xs)) / 1000))
    return out


WIRING_COLUMNS = "wire,group,from,to,awg,length_mm,from_x_mm,from_y_mm,to_x_mm,to_y_mm,notes"


def wiring_csv(layout: Any) -> str:
    out = [WIRING_COLUMNS]
    for w in wires(layout):
        out.append(
            ",".join(
                _csv(v)
                for v in (
                    w.ident,
                    w.group,
                    w.start,
                    w.end,
                    str(w.awg),
                    _f(w.length_mm),
                    _f(w.a[0]),
                    _f(w.a[1]),
                    _f(w.b[0]),
                    _f(w.b[1]),
                    w.notes,
                )
            )
        )
    return "\n".join(out) + "\n"


def wire_totals_m(layout: Any) -> dict[int, float]:
    """Metres of wire per gauge, with 20 % for mistakes, rounded up to whole metres."""
    totals: dict[int, float] = {}
    for w in wires(layout):
        totals[w.awg] = totals.get(w.awg, 0.0) + w.length_mm
    return {awg: float(math.ceil(mm * 1.2 / 1000)) for awg, mm in sorted(totals.items())}


# -- pieces per game set ---------------------------------------------------------------------


def pieces_per_set(layout: Any) -> tuple[int, str]:
    """The most pieces any of the layout's rulesets needs (RULES.md): the start position
    counted by the rules engine, plus the bow priests that start off the board
    (Awithlaknakwe: one per player, four with 4 players and ``priests=each``)."""
    import zuni

    best, why = 0, ""
    for text in layout.rulesets:
        game = zuni.new_game(zuni.parse_ruleset(text))
        on_board = sum(1 for i in range(len(game.geometry.names)) if game.piece_at(i) is not None)
        priests = 4 if game.geometry.shape == "squares" else 0
        if on_board + priests > best:
            best = on_board + priests
            why = "%s: %d on the board at the start%s" % (
                text,
                on_board,
                " + %d bow priests (4 players, priests=each)" % priests if priests else "",
            )
    return best, why


# -- mechanical BOM rows --------------------------------------------------------------------

# The electrical BOM's columns, so that the two lists merge row for row (cost.md).
BOM_COLUMNS = COLUMNS


def _area_m2(b: Build) -> float:
    return b.place.width * b.place.height / 1e6


def bom_rows(layout: Any) -> list[tuple[str, ...]]:
    """Mechanical rows in BOM_COLUMNS order (strings). Prices are estimates (USD, 2026,
    hobby quantities); generic parts name their specification instead of a part number."""
    b = build(layout)
    pieces, why = pieces_per_set(layout)
    d = piece_diameter(b)
    area = _area_m2(b)
    perimeter_m = 2 * (b.place.width + b.place.height) / 1000
    screws = len(_screw_positions(b))
    sensor_boards = layout.sensor_count // 8 if layout.sensors["type"] == "hc165" else 0
    spacers = sum(len(spot.mounts) for spot in board_spots(b))
    feet = 4 if max(b.place.width, b.place.height) <= 300 else 6
    colours = 4 if b.geometry.shape == "squares" else 2
    rows: list[tuple[str, ...]] = [
        (
            "mechanical",
            "MAG",
            str(pieces),
            "Magnet",
            "disc 6 x 3 mm N35 (or N42), axially magnetised",
            "disc",
            "generic",
            "",
            "supermagnete.de disc 6 x 3 mm",
            "K&J Magnetics D42 (6.35 x 3.18 mm, N42)",
            "0.20",
            "one per piece, all the same way up; %s" % why,
        ),
        (
            "mechanical",
            "PC",
            str(pieces),
            "Piece",
            "wooden disc %s x %s mm, opaque, %d colours" % (_f(d), _f(PIECE_HEIGHT_MM), colours),
            "beech or birch",
            "generic",
            "",
            "craft shop: wooden discs %s mm" % _f(d),
            "wood turning supplier",
            "0.15",
            "pocket %s x %s mm deep in the base for the magnet; opaque: the LED shines beside it"
            % (_f(MAGNET_POCKET_DIA_MM), _f(MAGNET_THICK_MM)),
        ),
        (
            "mechanical",
            "FELT",
            str(pieces),
            "Felt pad",
            "self-adhesive, %s mm round, 1 mm" % _f(d - 2),
            "",
            "generic",
            "",
            "hardware store (furniture glides)",
            "",
            "0.03",
            "covers the magnet; part of the %s mm magnet-to-reed distance" % _f(MAGNET_TO_REED_AXIS_MM),
        ),
        (
            "mechanical",
            "P1",
            "1",
            "Plate P1 (play surface)",
            "birch plywood %s mm, %s x %s mm" % (_f(P1_MM), _f(b.place.width), _f(b.place.height)),
            "sheet",
            "generic",
            "",
            "timber merchant / laser-cut plywood",
            "hobby plywood sheets",
            _f(max(2.0, 25.0 * area)),
            "board drawing on top; LED windows, buttons",
        ),
        (
            "mechanical",
            "P2",
            "1",
            "Plate P2 (sensor plate)",
            "birch plywood %s mm, %s x %s mm" % (_f(P2_MM), _f(b.place.width), _f(b.place.height)),
            "sheet",
            "generic",
            "",
            "timber merchant",
            "hobby plywood sheets",
            _f(max(3.0, 35.0 * area)),
            "reed channels in the top face, LED bodies, wiring underneath",
        ),
        (
            "mechanical",
            "P3",
            "1",
            "Plate P3 (back)",
            "plywood or hardboard %s mm, %s x %s mm" % (_f(P3_MM), _f(b.place.width), _f(b.place.height)),
            "sheet",
            "generic",
            "",
            "timber merchant",
            "",
            _f(max(2.0, 15.0 * area)),
            "closes the case",
        ),
        (
            "mechanical",
            "FR",
            _f(math.ceil(perimeter_m * 1.1 * 10) / 10),
            "Frame strip (metres)",
            "softwood %s x %s mm" % (_f(FRAME_WIDTH_MM), _f(FRAME_HEIGHT_MM)),
            "strip",
            "generic",
            "",
            "DIY store",
            "",
            "2.00",
            "qty and price in metres; four sides glued at the corners; USB slot %s x %s mm"
            % (_f(USB_SLOT_MM[0]), _f(USB_SLOT_MM[1])),
        ),
        (
            "mechanical",
            "SCT",
            str(screws),
            "Wood screw",
            "3.0 x 20 mm countersunk",
            "",
            "generic",
            "",
            "DIY store",
            "",
            "0.03",
            "P1 and P2 into the frame",
        ),
        (
            "mechanical",
            "SCB",
            str(screws),
            "Wood screw",
            "3.0 x 12 mm pan head",
            "",
            "generic",
            "",
            "DIY store",
            "",
            "0.03",
            "P3 into the frame",
        ),
        (
            "mechanical",
            "SP",
            str(spacers),
            "Spacer",
            "nylon, %s mm long, 3.2 mm bore (unthreaded)" % _f(SPACER_MM),
            "",
            "generic",
            "",
            "electronics distributor (nylon spacers M3 x %s, round)" % _f(SPACER_MM),
            "",
            "0.05",
            "electronics boards under P2 (2 per sensor strip, 3 or 4 for the controller), at the pilot holes "
            "MT-* of drill.csv",
        ),
        (
            "mechanical",
            "SCS",
            str(spacers),
            "Self-tapping screw",
            "%s x %s mm pan head, DIN 7981 / ISO 7049" % (_f(MOUNT_SCREW[0]), _f(MOUNT_SCREW[1])),
            "",
            "generic",
            "",
            "DIY store / electronics distributor",
            "",
            "0.03",
            "through the board (corner hole drilled out to 3.0 mm) and its spacer into P2: %s mm of thread "
            "in the wood, "
            "its tip %s mm under P2's top face; never longer (it would reach the reed channels)"
            % (_f(MOUNT_BITE_MM), _f(P2_MM - MOUNT_BITE_MM)),
        ),
        (
            "mechanical",
            "FT",
            str(feet),
            "Rubber foot",
            "self-adhesive, 12 mm",
            "",
            "generic",
            "",
            "DIY store",
            "",
            "0.10",
            "under P3",
        ),
        (
            "mechanical",
            "GLUE",
            "1",
            "Glue",
            "PVA wood glue; hot glue sticks",
            "",
            "generic",
            "",
            "DIY store",
            "",
            "6.00",
            "frame corners; LED bodies on P2's underside",
        ),
        (
            "mechanical",
            "EPX",
            "1",
            "Adhesive",
            "2-part epoxy or CA, 5 g",
            "",
            "generic",
            "",
            "DIY store",
            "",
            "5.00",
            "magnets into the pieces",
        ),
    ]
    for awg, metres in wire_totals_m(layout).items():
        use = ", ".join(k.replace("_", " ") for k, v in WIRE_AWG.items() if v == awg)
        rows.append(
            (
                "mechanical",
                "W%d" % awg,
                _f(metres),
                "Hook-up wire (metres)",
                "%d AWG stranded, PVC" % awg,
                "",
                "generic",
                "",
                "electronics distributor",
                "",
                "0.20",
                "qty and price in metres; %s; length from wiring.csv + 20 %%, in two colours (red/black for power)"
                % use,
            )
        )
    rows += [
        (
            "mechanical",
            "HS",
            "2",
            "Socket strip",
            "1 x 20 female header, 2.54 mm",
            "THT",
            "generic",
            "",
            "electronics distributor",
            "",
            "0.60",
            "Pico on sockets (replaceable)",
        ),
        (
            "mechanical",
            "HP",
            "2",
            "Pin header",
            "1 x 20 male, 2.54 mm",
            "THT",
            "generic",
            "",
            "electronics distributor",
            "",
            "0.30",
            "soldered to the Pico",
        ),
    ]
    if sensor_boards:
        rows += [
            (
                "mechanical",
                "IC-S",
                str(sensor_boards),
                "IC socket",
                "DIP-16, 2.54 mm",
                "THT",
                "generic",
                "",
                "electronics distributor",
                "",
                "0.15",
                "one per 74HC165",
            ),
            (
                "mechanical",
                "JC",
                str(2 * sensor_boards),
                "Pin header",
                "1 x %d male, 2.54 mm" % len(CHAIN_PINS),
                "THT",
                "generic",
                "",
                "electronics distributor",
                "",
                "0.10",
                "the chain: one on the controller, IN on every sensor strip, OUT on every strip but the last; "
                "pin order %s (assembly.md)" % chain_pin_text(),
            ),
            (
                "mechanical",
                "JCH",
                str(2 * sensor_boards),
                "Connector housing",
                "1 x %d Dupont housing with crimp pins" % len(CHAIN_PINS),
                "",
                "generic",
                "",
                "electronics distributor",
                "",
                "0.15",
                "both ends of each chain link",
            ),
        ]
    rows.append(
        (
            "mechanical",
            "USB",
            "1",
            "USB cable",
            "USB 2.0 A (or C) to micro-B, data and power, at most %s m" % _f(power.CABLE_M),
            "",
            "generic",
            "",
            "electronics distributor",
            "",
            "3.00",
            "a data cable (not charge-only); micro-B overmould at most %s x %s mm to pass the frame's slot; "
            "longer than %s m only with a thicker power pair (power.md)"
            % (_f(USB_SLOT_MM[0] - 1), _f(USB_SLOT_MM[1] - 0.5), _f(power.CABLE_M)),
        )
    )
    rows.append(
        (
            "mechanical",
            "IC-L",
            "1",
            "IC socket",
            "DIP-14, 2.54 mm",
            "THT",
            "generic",
            "",
            "electronics distributor",
            "",
            "0.15",
            "level shifter",
        )
    )
    return rows


def bom_mechanical_csv(layout: Any) -> str:
    out = [",".join(BOM_COLUMNS)]
    for row in bom_rows(layout):
        out.append(",".join(_csv(v) for v in row))
    return "\n".join(out) + "\n"


def mechanical_cost_usd(layout: Any) -> float:
    total = 0.0
    for row in bom_rows(layout):
        total += float(row[2]) * float(row[10])
    return total


# -- the plan and the assembly sequence ---------------------------------------------------------


def light_clearance_mm(layout: Any) -> tuple[float, str]:
    """The smallest gap between an LED window's edge and any piece footprint (with the
    placement slop), over every LED and every point: > 0 means the light is never under a
    piece, its own or a neighbour's."""
    b = build(layout)
    r_piece = piece_diameter(b) / 2 + PLACEMENT_SLOP_MM
    best = (1e9, "")
    for n in b.geometry.names:
        lx, ly = led_xy(b, n)
        for m in b.geometry.names:
            gap = math.dist((lx, ly), b.xy(m)) - r_piece - LED_WINDOW_MM / 2
            if gap < best[0]:
                best = (gap, "LED of %s, piece on %s" % (n, m))
    return best


def mechanics_md(layout: Any) -> str:
    b = build(layout)
    ff = field_figures(layout)
    tol = placement_tolerance(layout)
    gap, gap_where = light_clearance_mm(layout)
    d = piece_diameter(b)
    pieces, why = pieces_per_set(layout)
    feats = features(layout)
    a4, letter = tiling(layout, "a4"), tiling(layout, "letter")
    totals = wire_totals_m(layout)
    ang = layout.mechanics["switch_angle_deg"]
    out = [
        "# Mechanical plan: %s" % layout.name,
        "",
        "Generated by `zuni board generate` from `hardware/layouts/%s.json` and `host/zuniboard/hardware/mechanics.py`;"
        % layout.name,
        "do not edit. Why each figure: `hardware/mechanical.md`.",
        "",
        "## Plates (top to bottom)",
        "",
        "| layer | material | thickness | size (mm) | what it carries |",
        "| --- | --- | ---: | --- | --- |",
        "| piece | wooden disc, opaque, magnet in a pocket, felt under it | %s + %s felt | %s diameter "
        "| magnet %s x %s mm |" % (_f(PIECE_HEIGHT_MM), _f(FELT_MM), _f(d), _f(MAGNET_DIA_MM), _f(MAGNET_THICK_MM)),
        "| P1 play surface | birch plywood | %s | %s x %s | board drawing, LED windows %s mm, buttons |"
        % (_f(P1_MM), _f(b.place.width), _f(b.place.height), _f(LED_WINDOW_MM)),
        "| P2 sensor plate | birch plywood | %s | %s x %s | reed channels (top face), LED bodies, wiring (underside) |"
        % (_f(P2_MM), _f(b.place.width), _f(b.place.height)),
        "| frame | softwood strip | %s high, %s wide | outside %s x %s | cavity for wiring and electronics, USB slot |"
        % (_f(FRAME_HEIGHT_MM), _f(FRAME_WIDTH_MM), _f(b.place.width), _f(b.place.height)),
        "| P3 back | plywood or hardboard | %s | %s x %s | closes the case; feet |"
        % (_f(P3_MM), _f(b.place.width), _f(b.place.height)),
        "",
        "Overall height without pieces: %s mm. Pitch %s mm; %d points; %d features in `drill.csv`."
        % (_f(P1_MM + P2_MM + FRAME_HEIGHT_MM + P3_MM), _f(b.pitch), len(b.geometry.names), len(feats)),
        "",
        "## Reed switches",
        "",
        "- Glass %s x %s mm. Channel %s x %s mm, %s mm deep in P2's top face; lead slots %s x %s mm (tip to tip),"
        % (
            _f(REED_GLASS_MM),
            _f(REED_GLASS_DIA_MM),
            _f(CHANNEL_LEN_MM),
            _f(CHANNEL_WIDTH_MM),
            _f(CHANNEL_DEPTH_MM),
            _f(SLOT_LEN_MM),
            _f(LEAD_SLOT_WIDTH_MM),
        ),
        "  as deep, straight on; lead holes %s mm through P2 at %s mm from the channel's ends: the leads stay straight"
        % (_f(LEAD_HOLE_MM), _f(LEAD_RUN_MM - LEAD_HOLE_MM / 2)),
        "  for %s mm beyond the glass seal before they bend down." % _f(LEAD_RUN_MM - LEAD_HOLE_MM / 2 + 0.5),
        "- Along %s degrees (0 = East, 90 = North), centre %s mm from the point: the magnet stands over one blade."
        % (_f(ang), _f(layout.mechanics["switch_offset_mm"])),
        "- Magnet face to glass axis: %s mm (felt %s + P1 %s + %s above the glass + glass radius %s)."
        % (
            _f(MAGNET_TO_REED_AXIS_MM),
            _f(FELT_MM),
            _f(P1_MM),
            _f(CHANNEL_DEPTH_MM - REED_PART_DIA_MM),
            _f(REED_PART_DIA_MM / 2),
        ),
        "- Drive (model in `magnets.md`, in amperes, compare with the switch's 10-20 AT): own switch, piece %s mm"
        % _f(PLACEMENT_SLOP_MM),
        "  off its point in the worst direction: **%.0f A**; worst other switch (magnet %s mm off towards it): "
        "**%.1f A**" % (ff.own_min, _f(PLACEMENT_SLOP_MM), ff.neighbour_max),
        "  (magnet on %s, switch of %s); ratio **%.0f** (rule: at least 10)."
        % (ff.neighbour_pair[0], ff.neighbour_pair[1], ff.own_min / ff.neighbour_max),
        "- Nearest part of another point's glass to a magnet: **%s mm** (magnet on %s, switch of %s), %s degrees off"
        % (_f(ff.nearest_glass_mm), ff.nearest_pair[0], ff.nearest_pair[1], _f(ff.along_axis_deg)),
        "  that switch's axis (0 = in line with it, its most sensitive direction).",
        "- By the same model: a piece up to **%s mm** off its point in any direction still closes its own switch"
        % _f(tol.own_closed_mm),
        "  at %s AT (the least sensitive the BOM allows); pushed **%s mm** from %s towards the switch of %s, it"
        % (_f(PULL_IN_MAX_AT), _f(tol.toggle_mm), tol.toggle_pair[0], tol.toggle_pair[1]),
        "  closes that one at %s AT (the most sensitive): the distance at which a piece toggles a neighbour."
        % _f(PULL_IN_MIN_AT),
        "",
        "## LEDs: the light beside the piece",
        "",
        "- Pieces %s mm (the largest of %s mm at most %s x the nearest-neighbour distance, %s mm)."
        % (_f(d), "/".join(_f(x) for x in PIECE_SIZES_MM), _f(PIECE_FRACTION_MAX), _f(nearest_neighbour_mm(b))),
        "- LED window centre %s mm from the point at %s degrees; nearest gap between a window's edge and a piece"
        % (_f(led_offset_mm(b)), _f(LED_ANGLE_DEG[b.geometry.shape])),
        "  footprint (pieces %s mm off their points): **%s mm** (%s)." % (_f(PLACEMENT_SLOP_MM), _f(gap), gap_where),
        "- 5 mm through-hole LED from below: dome in P1's %s mm window, flush with the play surface; body in P2's %s mm"
        % (_f(LED_WINDOW_MM), _f(LED_BODY_HOLE_MM)),
        "  hole, flange %s mm below the P1/P2 joint, fixed with hot glue underneath." % _f(LED_BODY_MM - P1_MM),
        "",
        "## Template and drilling",
        "",
        "- `template.pdf` / `template.svg`: one page of the plates' size (plotter, print shop).",
        "- `template-a4.pdf`: cover + %d pages (%d x %d tiles, %s); "
        "`template-letter.pdf`: cover + %d pages (%d x %d, %s)."
        % (
            a4.pages,
            a4.cols,
            a4.rows,
            "landscape" if a4.landscape else "portrait",
            letter.pages,
            letter.cols,
            letter.rows,
            "landscape" if letter.landscape else "portrait",
        ),
        "- `drill.csv`: every hole, slot and pocket: plate, face, position, diameter or length x width, depth, tool.",
        "",
        "## Cables and wire (`wiring.csv`)",
        "",
        "| gauge | use | metres (+20 %) |",
        "| ---: | --- | ---: |",
    ]
    for awg, metres in totals.items():
        use = ", ".join(k.replace("_", " ") for k, v in WIRE_AWG.items() if v == awg)
        out.append("| %d AWG | %s | %s |" % (awg, use, _f(metres)))
    out += [
        "",
        "## Electronics under P2",
        "",
        "Every board hangs under P2 on %s mm nylon spacers, component side down, with %s x %s mm screws into"
        % (_f(SPACER_MM), _f(MOUNT_SCREW[0]), _f(MOUNT_SCREW[1])),
        "2.0 mm pilot holes through P2 (MT-* in `drill.csv`; brown on the template); %s mm of thread in the"
        % _f(MOUNT_BITE_MM),
        "wood. No two boards closer than %s mm, none under a button pocket." % _f(BOARD_GAP_MM),
        "",
        "| board | size (mm) | x (mm) | y (mm) |",
        "| --- | --- | --- | --- |",
    ]
    for spot in board_spots(b):
        x0, y0, x1, y1 = spot.rect()
        out.append(
            "| %s | %s x %s | %s-%s | %s-%s |"
            % (spot.name, _f(spot.width), _f(spot.height), _f(x0), _f(x1), _f(y0), _f(y1))
        )
    out += [
        "",
        "Perfboard: %d boards of 100 x 160 mm for these pieces (`bom.csv`)." % _perfboard_count(layout),
        "",
        "USB: a %s x %s mm slot through the South frame side at x = %s mm, %s-%s mm below P2, lets a micro-B"
        % (
            _f(USB_SLOT_MM[0]),
            _f(USB_SLOT_MM[1]),
            _f(round(usb_slot(b)[0], 1)),
            _f(USB_CENTRE_BELOW_P2_MM - USB_SLOT_MM[1] / 2),
            _f(USB_CENTRE_BELOW_P2_MM + USB_SLOT_MM[1] / 2),
        ),
        "plug reach the Pico;",
        "the cable to the PC: at most %s m (its resistance is in series with the LED current: `power.md` counts"
        % _f(power.CABLE_M),
        "that length; a longer cable needs a thicker power pair than the usual 28 AWG).",
        "",
        "## Game set",
        "",
        "%d pieces and %d magnets (%s)." % (pieces, pieces, why),
        "",
    ]
    return "\n".join(out)


# -- the assembly sequence ---------------------------------------------------------------------


def reed_lead_below_p2_mm() -> float:
    """How much of each lead of the BOM's switch comes out under P2: its length from the
    glass seal, less the straight run in the slot to the lead hole, less the way down
    from the glass axis (the glass on the channel floor) to P2's underside."""
    lead = (REED_PART_OVERALL_MM - REED_PART_GLASS_MM) / 2
    run = SLOT_LEN_MM / 2 - LEAD_HOLE_MM / 2 - REED_PART_GLASS_MM / 2
    down = P2_MM - (CHANNEL_DEPTH_MM - REED_PART_DIA_MM / 2)
    return lead - run - down


# WS2812D-F5 leads (Worldsemi WS2812D-F5 datasheet, pin configuration; the same order on the
# PL9823-F5): pin 1 next to the flat of the flange, then in a row.
LED_PINS = ((1, "DIN"), (2, "VDD"), (3, "GND"), (4, "DOUT"))


def _spot_text(spot: BoardSpot) -> str:
    x0, y0, x1, y1 = spot.rect()
    holes = ", ".join("(%d, %d)" % tuple(round(v) for v in perfboard.plan_hole(spot.rect(), m)) for m in spot.mounts)
    return "%s (%s x %s mm): x %s-%s, y %s-%s; mounting holes (column, row of its plan) %s" % (
        spot.name,
        _f(spot.width),
        _f(spot.height),
        _f(x0),
        _f(x1),
        _f(y0),
        _f(y1),
        holes,
    )


def assembly_md(layout: Any) -> str:
    b = build(layout)
    names = b.geometry.names
    led_order = sorted(layout.points, key=lambda n: layout.points[n][1])
    first, last = led_order[0], led_order[-1]
    span = math.dist(led_xy(b, names[0]), led_xy(b, names[-1]))
    hc = layout.sensors["type"] == "hc165"
    chips = layout.sensor_count // 8 if hc else 0
    nb_point = names[1]
    spots = board_spots(b)
    ctl = spots[0]
    w, h = b.place.width, b.place.height
    usb_x = usb_slot(b)[0]
    slot_top = USB_CENTRE_BELOW_P2_MM - USB_SLOT_MM[1] / 2
    lead_out = reed_lead_below_p2_mm()
    pieces, _ = pieces_per_set(layout)
    feats = features(layout)
    drills = sorted({f.tool for f in feats if f.tool.startswith("drill")}, key=lambda t: float(t.split()[1]))
    out = [
        "# Assembly and test: %s" % layout.name,
        "",
        "Generated by `zuni board generate`; do not edit. Figures: `mechanics.md`; holes: `drill.csv`;",
        "every wire: `wiring.csv`; parts: `bom.csv` and `bom-mechanical.csv`; boards: `perfboard.svg`.",
        "Work in this order: each stage ends with a check, and a stage is not started before the check",
        "of the one before it passes.",
        "",
        "**Positions** (`drill.csv`, `wiring.csv`, the template) are millimetres from the plates' North-West",
        "corner seen from above, x to the East, y to the South. Under P2 (the plate turned over its West-East",
        "axis: West stays on your left, the South edge is now the far edge) the same x and y hold. The",
        "perfboard plans show the component side; the boards hang under P2 component side down, so seen",
        "from under P2 a plan lies as drawn, its top edge towards the South.",
        "",
        "Test points (named on the controller and sensor boards), and where to touch them:",
        "",
        "- TP_VBUS: USB 5 V before the power switch (Pico pin 40, or U3 pin 1)",
        "- TP_5V: the LED rail (C3 +, on the controller board)",
        "- TP_3V3: the Pico's 3V3_OUT (Pico pin 36)",
        "- TP_GND: ground (Pico pin 38)",
        "- TP_DIN0: the first LED's DIN (R1's lead at LED 0)",
        *(
            ["- TP_EN: the LED rail's switch on (3.3 V) or off (0 V) (U3 pin 3, or R6's lead away from GND)"]
            if power.gated(layout)
            else []
        ),
        "- TP_FAULT: low while the LED rail is overloaded (U3 pin 4)",
        *(["- TP_SBk_QH: the QH of sensor board k (its 74HC165's pin 9)"] if hc else []),
        "",
        "## 0. Tools",
        "",
        "Soldering iron (fine tip) and solder; a multimeter with continuity, 200 Ohm, 2 kOhm and diode",
        "ranges; a USB power meter; a 5 V bench supply with a current limit (or a USB breakout cable",
        "through the USB meter); a drill press or a drill stand; twist drills %s mm (and 5.2 mm: stage 3);"
        % ", ".join(t.split()[1] for t in drills),
        "a 14 mm Forstner bit; a %s mm brad-point bit for the magnet pockets; an %s mm drill and a file for the"
        % (_f(MAGNET_POCKET_DIA_MM), _f(USB_SLOT_MM[1])),
        "USB slot; a router or rotary tool with a",
        "depth stop and 2.5 mm and 1.5 mm end mills; a countersink; a saw; PVA glue, a hot glue gun,",
        "epoxy; wire strippers, flush cutters, pliers; a Dupont crimp tool (or ready-made jumper wires).",
        "",
        "## 1. Template",
        "",
        "Print `template-a4.pdf` or `template-letter.pdf` at 100 %, **twice** (copy A for P1, copy B for",
        "P2). **Check:** the 100 mm bar measures 99.5-100.5 mm and a bank card covers the cover page's box;",
        "on every tile page, the distance its label names between two crosses. Join each copy's tiles",
        "(crosses on crosses). **Check:** point centre %s to %s: %s mm."
        % (names[0], names[-1], _f(math.dist(b.xy(names[0]), b.xy(names[-1])))),
        "",
        "## 2. Pieces",
        "",
        "Drill a %s mm pocket, %s mm deep, in the centre of the base of each of the %d pieces; glue a %s x %s mm"
        % (_f(MAGNET_POCKET_DIA_MM), _f(MAGNET_THICK_MM), pieces, _f(MAGNET_DIA_MM), _f(MAGNET_THICK_MM)),
        "magnet in each, flush, all the same way up: stack the magnets, mark the top face of the stack",
        "with a pen, and glue every magnet marked face up. Felt pad over it once the glue has set.",
        "**Check:** the pieces stand flat; two pieces side by side push each other apart (same way up).",
        "",
        "## 3. Plates",
        "",
        "Cut P1, P2 and P3 to %s x %s mm. Glue copy A onto P1, clamp P1 on P2, and drill through both: the"
        % (_f(w), _f(h)),
        "LED windows 5.0 mm and the screw holes 3.5 mm. Separate them. Glue copy B onto P2's top face, its",
        "LED windows over the holes (a 5 mm drill bit through two far apart holes holds it). In P2: enlarge",
        "the LED holes to 6.0 mm, drill the lead holes 1.5 mm and the board mounting pilots (MT-* of",
        "`drill.csv`) 2.0 mm through, route the reed channels (2.5 mm end mill, 2.5 mm deep) and the lead",
        "slots (1.5 mm end mill, 2.5 mm deep),"
        + (" drill the 14 mm button pockets through." if button_positions(b) else "")
        + (" In P1, drill the 7 mm button holes." if button_positions(b) else ""),
        "Countersink P1's screw holes; remove copy A from P1's face (or keep it as the board drawing under",
        "varnish). P3: drill its screw holes 3.5 mm with P3 under P2, through P2's screw holes.",
        "**Check:** a reed switch lies in a channel with both leads flat in their slots (sight along it: no",
        "lead rises), its glass below the face (a straightedge across does not touch it); the LED windows of",
        "%s and %s are %s mm apart; %d holes, slots and pockets, as many as `drill.csv` has rows; an LED"
        % (names[0], names[-1], _f(span), len(feats)),
        "pushed up through P2 and P1 stops with its flange in P2 and its dome flush with P1's face (a dome",
        "that sticks in the 5.0 mm window: open the windows with a 5.2 mm drill).",
        "",
        "## 4. Frame",
        "",
        "Cut the frame strip (%s x %s mm) into 2 x %s mm and 2 x %s mm; glue them under P2's margin, the"
        % (_f(FRAME_WIDTH_MM), _f(FRAME_HEIGHT_MM), _f(w), _f(h - 2 * FRAME_WIDTH_MM)),
        "short ones between the long ones, flush with P2's edges. In the South side cut the USB slot,",
        "%s mm wide, centred %s mm from the frame's West outer face, from %s to %s mm below P2 (its top edge;"
        % (_f(USB_SLOT_MM[0]), _f(round(usb_x, 1)), _f(slot_top), _f(slot_top + USB_SLOT_MM[1])),
        "drill two %s mm holes side by side and file it square); the Pico's socket, %s mm below P2 with the"
        % (_f(USB_SLOT_MM[1]), _f(USB_CENTRE_BELOW_P2_MM)),
        "controller on its %s mm spacers, is in its middle;" % _f(SPACER_MM),
        "the cable's micro-B plug must have an overmould that passes the slot (at most %s x %s mm)."
        % (_f(USB_SLOT_MM[0] - 1), _f(USB_SLOT_MM[1] - 0.5)),
        "**Check:** the diagonals of the frame are equal within 1 mm; P1 lies flat on P2 without rocking.",
        "",
        "## 5. Reed switches",
        "",
        "Before fitting a switch, test it: meter (continuity or 200 Ohm range) across its leads, a piece held",
        "5 mm above one end of the glass: it must close; over its middle it may not (the dead zone, magnets.md).",
        "Fit each switch in its channel; holding the lead flat in its slot with pliers, bend it down into its",
        "lead hole (never at the glass). About %s mm of each lead comes out under P2 (the BOM's MDSR-7); do not"
        % _f(round(lead_out, 1)),
        "cut it: the wires are soldered there in stage 8. **Check (P1 laid on, screws loose):** across SW_%s"
        % names[0],
        "lead A-B under P2: open (OL) with no piece; below 1 Ohm with a piece on %s, also with the piece 2 mm"
        % names[0],
        "off in any direction; open again with the piece on %s (a neighbour). Repeat for every point." % nb_point,
        "",
        "## 6. LEDs%s" % (" and buttons" if button_positions(b) else ""),
        "",
        *(
            [
                "Buttons first: each through its 7 mm hole in P1 from above, its nut tightened from below; P1 then",
                "goes onto P2 with the button bodies in the 14 mm pockets (their tags are wired in stage 9).",
                "**Check:** each button clicks, and across its tags: open, below 1 Ohm while pressed.",
                "",
            ]
            if button_positions(b)
            else []
        ),
        "Leads of the WS2812D-F5 (the netlist's pin numbers; the datasheet draws pin 1 at the flat of the",
        "flange): %s." % ", ".join("%d %s" % p for p in LED_PINS),
        "Datasheets of 5 mm addressable LEDs have drawn this order differently, so test one LED of your batch",
        "first: pin 1 (DIN) joined to pin 3, the bench supply at 5.0 V, limit 20 mA, + on pin 2 and - on",
        "pin 3: it stays dark and draws 0.3-2 mA; nothing, or up to the limit: those are not VDD and GND",
        "(the datasheet's reverse-connection protection and the 20 mA limit keep it alive).",
        "Push each LED up from below until its dome is flush with P1's face (P1 screwed on with two screws),",
        "the flats all facing North, so that its four legs stand in a North-South line; hot glue on P2's",
        "underside. Cut the legs to %s mm below P2." % _f(LED_LEG_BELOW_P2_MM),
        "Lay the +5V (red) and GND (black) pair of each row (22 AWG, wires LPP*/LPG* of `wiring.csv`) under",
        "its LEDs, the red one across leg 2 (VDD), the black one across leg 3 (GND), 2.5 mm apart; strip",
        "5 mm of each at its leg and solder, and the LED's 100 nF (CL<k>) across the same two legs.",
        "Then the data hops LD1..LD%d from each DOUT to the next DIN, and R1" % (len(led_order) - 1),
        "(330 Ohm) with one lead on LED0's DIN (%s); LD0 and LDG0 come in stage 9. **Check (no power):** between each"
        % first,
        "row's +5V and GND: no short (above 1 kOhm once the meter settles; the capacitors charge); from the",
        "controller end of each pair to its last LED's leg: the meter's own lead resistance plus less than",
        "0.5 Ohm; continuity LD%d ends at %s's DIN." % (len(led_order) - 1, last),
        "",
    ]
    if hc:
        strips = spots[1:]
        out += [
            "## 7. Sensor strips",
            "",
            "Build the %d strips from `perfboard.svg` (each %s x %s mm: IC socket, SIP-9 network with its dot"
            % (chips, _f(strips[0].width), _f(strips[0].height)),
            "(pin 1) on +3V3, 100 nF, the switch pads, the edge pads), every link ticked off its wiring list;",
            "then two %d-pin headers at the edge pads: IN (to the controller side) and OUT (to the next strip;"
            % len(CHAIN_PINS),
            "none on the last), pin order %s. Drill out its two mounting holes (below) to 3.0 mm;" % chain_pin_text(),
            "holes are counted from the plan's top-left corner, the first hole being (1, 1).",
            "**Check (no power, 74HC165 not in its socket):** from the socket's pin 16 to pin 8: above",
            "1 kOhm; from each switch pad .1 to pin 16: 47 kOhm (the network).",
            "",
            "## 8. Sensor strips in place, and the switches",
            "",
            "Screw each strip under P2 (component side down, the plan's top edge to the South) on its %s mm"
            % _f(SPACER_MM),
            "spacers with %s x %s mm screws into its pilot holes (the brown boxes and circles of the template):"
            % (_f(MOUNT_SCREW[0]), _f(MOUNT_SCREW[1])),
            "",
            *["- %s" % _spot_text(s) for s in strips],
            "",
            "Wire S_<point> from lead A of each switch to its pad SW_<point>.1 and G_<point> from lead B to",
            "its pad SW_<point>.2 (`wiring.csv`, group sensors; twist each pair). Then the chain links C<k>_*,",
            "pin 1 to pin 1. **Check (no power, chips in their sockets):** from each pad .1 to GND: above",
            "10 kOhm with no piece, below 1 Ohm with a piece on its point; 3V3 to GND of every strip: above",
            "1 kOhm.",
            "",
        ]
    else:
        out += [
            "## 7. Diodes at the switches",
            "",
            "Solder a 1N4148 to lead A of each switch under P2: its anode (the end without the band) on the",
            "lead, its cathode (band) free for the row bus; sleeve it. **Check (no power):** diode mode, red",
            "probe on lead B, black on the cathode: open without a piece; about 0.6 V with a piece on the",
            "point; probes swapped: open.",
            "",
            "## 8. Matrix buses",
            "",
            "Lay the row buses ROW* (cathode to cathode) and the column buses COL* (lead B to lead B) of",
            "`wiring.csv`, each from its controller pin's edge pad. **Check (no power):** diode mode, red",
            "probe on a column wire, black on a row wire: about 0.6 V with a piece on the switch between",
            "them, open without; probes swapped: open.",
            "",
        ]
    out += [
        *_controller_stage(layout, ctl),
        "## 10. First light and sensors: `zuni board check`",
        "",
        "Run `zuni board check` (`bringup.md`) with the USB meter in the cable: **check** the LED test (red,",
        "green, blue, white on every LED; red and green swapped everywhere: LEDs of the PL9823 kind, set",
        "`leds.order` to RGB); during white the meter reads at most %.0f mA (every LED white at %d/255 would"
        % (power.total_ma(layout), layout.leds["max_level"]),
        "draw %.0f mA: the firmware dims the frame to `leds.budget_ma` %d mA); during the walk, one white LED"
        % (layout.all_on_led_ma(), layout.leds["budget_ma"]),
        "at a time, about %.0f mA more than with every LED dark. Then the LED walk in chain order from %s to %s, every"
        % (power.white_led_ma(layout), first, last),
        "point in the live map (a piece on each, lifted), and the buttons. A point that never changes: back",
        "to stage 5 for that switch.",
        "",
        "## 11. Close",
        "",
        "Screw P1 and P2 to the frame (3.0 x 20 mm countersunk), P3 underneath (3.0 x 12 mm), stick the feet on.",
        "**Check:** `zuni board check` once more with the case closed: the same report as stage 10, and a",
        "full start position shows no point listed as flickering or changing together.",
        "",
    ]
    return "\n".join(out)


def _controller_stage(layout: Any, ctl: BoardSpot) -> list[str]:
    """Stage 9 of assembly.md: the controller, its first power-on (without the Pico, then
    with it), and the dark current before USB configuration."""
    n = layout.led_count
    idle = n * layout.leds["idle_ma"]
    out = [
        "## 9. Controller and power",
        "",
        "Build the controller board from `perfboard.svg` (U3 soldered on its adapter first, its pin 1 dot on",
        "the adapter's pad 1: check with the meter that adapter pin k reaches U3 pin k; sockets for the",
        "Pico and U2; C3's stripe (-) on GND)%s; drill out its mounting holes (below) to 3.0 mm. Screw it"
        % (", and its chain header (pin order as the strips')" if layout.sensors["type"] == "hc165" else ""),
        "under P2, component side down, on %d spacers: %s. Its USB edge lies against the South frame, the"
        % (len(ctl.mounts), _spot_text(ctl)),
        "Pico's socket end at the slot.",
        "**Pico and U2 (74AHCT125) not yet in their sockets.** Wire the LED pairs, LD0 (edge pad LED_5V to",
        "R1's free lead at LED 0) twisted with LDG0 (GND to LED 0's GND leg), the sensor link and the",
        "buttons (B_*, BG_*). Several wires end on the +5V and on the GND edge pad: solder a 3 cm bare",
        "tinned wire (a cut resistor lead) to each of the two pads, along the board's edge, and the wires",
        "to it side by side.",
        "**Check (no power):** Pico socket pin 40 (VBUS) to pin 38 (GND): above 1 kOhm;",
        "TP_5V to TP_GND: above 1 kOhm once the reading has settled (C3 and the LEDs' capacitors charge);",
        "TP_3V3 to TP_GND: above 1 kOhm.",
    ]
    if not power.gated(layout):
        return out + [
            "**Check (power):** Pico in, USB in: TP_VBUS 4.75-5.25 V, TP_3V3 3.20-3.40 V; TP_5V within 0.25 V",
            "of TP_VBUS with all LEDs dark; install the firmware (`bringup.md`).",
            "",
        ]
    pin = layout.power["led_enable"]
    pico_typ = (power.PICO_MA / 2 * 0.8, power.PICO_MA / 2 * 1.2)
    rest = power.dark_ma(layout) - power.PICO_MA
    return out + [
        "TP_EN to TP_GND: 100 kOhm (R6, the pull-down that keeps the LED rail off).",
        "",
        "**First power, without the Pico:** put a resistor of 1-100 kOhm from U2's socket pin 3 (1Y) to",
        "pin 7 (GND), so that the LED data line is low and no LED reads noise. A current-limited 5 V supply",
        "(limit %d mA; or a USB breakout through a USB meter) to the Pico socket's pin 40 (+) and pin 38 (-)."
        % (50 * math.ceil(1.5 * idle / 50 + 1)),
        "**Check:** it draws under 1 mA; TP_5V below 0.1 V (R6 holds EN low: the rail is off). Then touch",
        "TP_EN to TP_VBUS with a wire (the rail on): TP_5V within 0.1 V of TP_VBUS, every LED dark, and the",
        "current %.0f-%.0f mA (%d idle LEDs, about %s mA each [power.md]); nothing is warm. Remove the wire,"
        % (0.7 * idle, 1.3 * idle, n, _f(layout.leds["idle_ma"])),
        "the supply and the resistor.",
        "",
        "**First power, with the Pico:** U2 and the Pico in their sockets; a Pico with MicroPython but",
        "without this firmware yet (it leaves GP%d alone). USB in, through a USB meter. **Check:**" % pin,
        "TP_VBUS 4.75-5.25 V, TP_3V3 3.20-3.40 V, TP_EN and TP_5V below 0.1 V; **the meter reads the dark",
        "board: about %.0f-%.0f mA, at most %.0f mA** (`power.md` budgets %.1f mA with the Pico at twice its"
        % (pico_typ[0] + rest, pico_typ[1] + rest, power.UNCONFIGURED_MA, power.dark_ma(layout)),
        "typical figure; the earlier design took %.1f mA). More: the rail is on by mistake (R6, U3's pin 3)."
        % power.dark_ma(layout, False),
        "",
        "**Firmware:** install it (`bringup.md`). **Check:** once the computer has configured the board",
        "(the serial port appears), TP_EN 3.3 V, TP_5V within 0.25 V of TP_VBUS, the setup picture on",
        "the LEDs; the meter rises by the idle LEDs (%.0f mA) plus the lit points, never above %.0f mA."
        % (idle, power.total_ma(layout)),
        "On a USB charger (no computer) the LEDs come on %.0f s after plug-in (`power.no_host_ms`)."
        % (layout.power["no_host_ms"] / 1000),
        "",
    ]


def derived_files(layout: Any) -> dict[str, bytes]:
    """The mechanical files of hardware/<board>/ (template.svg, template.pdf and drill.csv
    are written by ``hardware.derived_files`` through this module's functions)."""
    return {
        "template-a4.pdf": tiled_pdf(layout, "a4"),
        "template-letter.pdf": tiled_pdf(layout, "letter"),
        "wiring.csv": wiring_csv(layout).encode(),
        "assembly.md": assembly_md(layout).encode(),
        "mechanics.md": mechanics_md(layout).encode(),
        "bom-mechanical.csv": bom_mechanical_csv(layout).encode(),
    }
