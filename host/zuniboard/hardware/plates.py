"""The plates' own features (every hole, slot and pocket cut into P1, P2 and P3 at a
board's points, screws and buttons) and the clearance check between them.

Coordinates are template millimetres: origin at the top-left corner of the plates, x to
the East, y down (South). Directions are degrees, 0 = East, 90 = North.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from zuniboard.hardware.placement import Build, led_xy, switch_xy
from zuniboard.hardware.stack import (
    BOARD_GAP_MM,
    BUTTON_HOLE_MM,
    BUTTON_NUT_MM,
    BUTTONS_PCB_BELOW_MM,
    CHANNEL_DEPTH_MM,
    CHANNEL_LEN_MM,
    CHANNEL_WIDTH_MM,
    FRAME_WIDTH_MM,
    LEAD_HOLE_MM,
    LEAD_SLOT_WIDTH_MM,
    LED_ANGLE_DEG,
    LED_BODY_HOLE_MM,
    LED_WINDOW_MM,
    P1_MM,
    P2_MM,
    P3_MM,
    PCB_SWITCH_SLOT_MM,
    SCREW_HOLE_MM,
    SCREW_INSET_MM,
    SCREW_SPACING_MM,
    SLOT_LEN_MM,
    unit_vector,
)

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
        ux, uy = unit_vector(self.angle)
        h = self.length / 2 - r
        return ((self.x - h * ux, self.y - h * uy), (self.x + h * ux, self.y + h * uy), r)


PLATE_MM = {"P1": P1_MM, "P2": P2_MM, "P3": P3_MM}


def screw_positions(b: Build) -> list[tuple[float, float]]:
    """Where the screws through P1 into the frame go (the main PCB has plain holes there):
    along the frame's centre line, corners included, at most SCREW_SPACING_MM apart."""
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
        # The empty corner right of the South arm, below the level of rank 1, as low as
        # the buttons' PCB under them lets them be inside the frame.
        lowest = b.place.height - FRAME_WIDTH_MM - BOARD_GAP_MM - BUTTONS_PCB_BELOW_MM
        spots = [(x, min(y, lowest)) for x, y in (b.place.at(c, -1.0) for c in (10.0, 11.0, 12.0))]
    else:
        # Half-way between the last South points, in the South margin.
        south = sorted((b.xy(n) for n in b.geometry.names if n.startswith("s")), key=lambda p: p[0])
        # In the South margin; on a board with a buttons' band (placement.needs_button_band)
        # one pitch South of the South row, in the band below the strips.
        y = south[0][1] + b.pitch if b.place.band else b.place.height - b.place.margin / 2
        spots = [((p[0] + q[0]) / 2, y) for p, q in zip(south[-4:-1], south[-3:], strict=True)]
    return [(n.upper(), x, y) for n, (x, y) in zip(names, spots, strict=False)]


def plate_features(b: Build, pcb: bool = False) -> list[Feature]:
    """The plates' own features. ``pcb``: the PCB build, where P2 is a spacer of plain
    through-cuts over the main PCB (``pcb_stack``), else the hand-wired build's P2 with its
    reed channels, lead slots and lead holes."""
    return _point_features(b, pcb) + _screw_features(b) + _button_features(b)


def _point_features(b: Build, pcb: bool) -> list[Feature]:
    """Per point: the LED window in P1, the LED body's hole and the reed switch's cuts in P2."""
    ang = float(b.layout.mechanics["switch_angle_deg"])
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
                "LED body: it stands on the main PCB" if pcb else "LED body; hot glue on the underside",
            )
        )
        out += _pcb_switch(name, sx, sy, ang) if pcb else _channel_switch(name, sx, sy, ang)
    return out


def _screw_features(b: Build) -> list[Feature]:
    """The screws along the frame: through P1 and P2 (and the main PCB) from above, P3 from below."""
    out: list[Feature] = []
    for i, (x, y) in enumerate(screw_positions(b)):
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
    return out


def _button_features(b: Build) -> list[Feature]:
    """OK, BACK, HINT: a hole for the button in P1, room for its body under it in P2."""
    out: list[Feature] = []
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


def collisions(feats: list[Feature], web_mm: float = 1.0) -> list[tuple[str, str, float]]:
    """Pairs of features on one plate closer than ``web_mm`` of wood (a reed switch's own
    channel, slot and lead holes overlap by design and are left out, and so does a spacer
    opening that merges with another through-cut)."""
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
            if gap < 0.01 and "OP-" in (f.ident[:3], g.ident[:3]) and f.through and g.through:
                continue  # a part's opening that runs into another cut-out: one hole in the spacer
            if gap < web_mm:
                out.append((f.ident, g.ident, round(gap, 2)))
    return out


def point_seg(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
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
    return min(point_seg(a1, b1, b2), point_seg(a2, b1, b2), point_seg(b1, a1, a2), point_seg(b2, a1, a2))


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


def _channel_switch(name: str, sx: float, sy: float, ang: float) -> list[Feature]:
    """The hand-wired build: a channel in P2's top face for the glass, lead slots straight
    on, and a hole at each end that takes the lead down to the wiring under P2."""
    ux, uy = unit_vector(ang)
    out: list[Feature] = []
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
    return out


def _pcb_switch(name: str, sx: float, sy: float, ang: float) -> list[Feature]:
    """The PCB build: one slot through the spacer, over the glass and both lead bends down
    to the footprint's pads (``PCB_SWITCH_PITCH_MM`` apart)."""
    return [
        Feature(
            "RT-" + name,
            name,
            "P2",
            "top",
            sx,
            sy,
            ang,
            CHANNEL_WIDTH_MM,
            PCB_SWITCH_SLOT_MM,
            P2_MM,
            "laser / end mill 2.5",
            "reed switch: glass and both lead bends, through the spacer",
        )
    ]
