"""Where a layout's points fall on paper and on the board (mm): the drawings of
``generate`` and the mechanical files of ``mechanics`` place the points the same way."""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zuniboard.games.layouts import BoardGeometry, board_geometry
from zuniboard.hardware.stack import (
    BUTTON_BAND_MM,
    LED_ANGLE_DEG,
    LED_EDGE_GAP_MM,
    LED_WINDOW_MM,
    MAIN_MAX_MM,
    PIECE_FRACTION_MAX,
    PIECE_SIZES_MM,
    PLACEMENT_SLOP_MM,
    unit_vector,
)

if TYPE_CHECKING:
    from zuni_board.layout import Layout


@dataclass(frozen=True)
class Placement:
    """Where a layout puts its points on paper (mm, origin top-left, y down)."""

    pitch: float
    margin: float
    xmin: float
    ymax: float
    width: float
    height: float
    band: float = 0.0  # added below the South margin for the buttons (stack.BUTTON_BAND_MM)

    def at(self, x: float, y: float) -> tuple[float, float]:
        return ((x - self.xmin) * self.pitch + self.margin, (self.ymax - y) * self.pitch + self.margin)


def placement(geometry: BoardGeometry, pitch: float) -> Placement:
    xs = [c[0] for c in geometry.coords]
    ys = [c[1] for c in geometry.coords]
    margin = pitch
    width = (max(xs) - min(xs)) * pitch + 2 * margin
    height = (max(ys) - min(ys)) * pitch + 2 * margin
    return Placement(pitch, margin, min(xs), max(ys), width, height)


def layout_geometry(layout: Layout) -> BoardGeometry:
    """The geometry of the layout's first ruleset, with the homes of all its rulesets
    (so that the 168-square drawing marks the West and East homes of the 4-player game)."""
    geometry = board_geometry(layout.rulesets[0])
    homes = dict(geometry.homes)
    for text in layout.rulesets[1:]:
        for side, points in board_geometry(text).homes.items():
            homes.setdefault(side, points)
    return BoardGeometry(geometry.shape, geometry.names, geometry.coords, geometry.lines, homes)


# -- the build: geometry, pitch, pieces --------------------------------------------------


@dataclass(frozen=True)
class Build:
    layout: Layout
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


def build(layout: Layout, pitch: float | None = None) -> Build:
    geometry = layout_geometry(layout)
    p = float(pitch or layout.mechanics["pitch_mm"])
    place = placement(geometry, p)
    if needs_button_band(layout, geometry):
        place = dataclasses.replace(place, height=place.height + BUTTON_BAND_MM, band=BUTTON_BAND_MM)
    return Build(layout, geometry, place, p)


def needs_button_band(layout: Layout, geometry: BoardGeometry) -> bool:
    """A line board with buttons that is cut into strips (at its own pitch, as the PCBs
    are, as ``strips.needs_strips``): its South row's strips fill the margin where the
    buttons would go."""
    own = placement(geometry, float(layout.mechanics["pitch_mm"]))
    big = own.width > MAIN_MAX_MM or own.height > MAIN_MAX_MM
    return geometry.shape == "lines" and bool(layout.buttons) and big


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
    ux, uy = unit_vector(LED_ANGLE_DEG[b.geometry.shape])
    d = led_offset_mm(b)
    return (x + d * ux, y + d * uy)


def switch_xy(b: Build, point: str) -> tuple[float, float]:
    x, y = b.xy(point)
    ux, uy = unit_vector(b.layout.mechanics["switch_angle_deg"])
    d = b.layout.mechanics["switch_offset_mm"]
    return (x + d * ux, y + d * uy)
