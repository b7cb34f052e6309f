"""Where a layout's points fall on paper and on the board (mm): the drawings of
``generate`` and the mechanical files of ``mechanics`` place the points the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zuniboard.games.layouts import BoardGeometry, board_geometry


@dataclass(frozen=True)
class Placement:
    """Where a layout puts its points on paper (mm, origin top-left, y down)."""

    pitch: float
    margin: float
    xmin: float
    ymax: float
    width: float
    height: float

    def at(self, x: float, y: float) -> tuple[float, float]:
        return ((x - self.xmin) * self.pitch + self.margin, (self.ymax - y) * self.pitch + self.margin)


def placement(geometry: BoardGeometry, pitch: float) -> Placement:
    xs = [c[0] for c in geometry.coords]
    ys = [c[1] for c in geometry.coords]
    margin = pitch
    width = (max(xs) - min(xs)) * pitch + 2 * margin
    height = (max(ys) - min(ys)) * pitch + 2 * margin
    return Placement(pitch, margin, min(xs), max(ys), width, height)


def layout_geometry(layout: Any) -> BoardGeometry:
    """The geometry of the layout's first ruleset, with the homes of all its rulesets
    (so that the 168-square drawing marks the West and East homes of the 4-player game)."""
    geometry = board_geometry(layout.rulesets[0])
    homes = dict(geometry.homes)
    for text in layout.rulesets[1:]:
        for side, points in board_geometry(text).homes.items():
            homes.setdefault(side, points)
    return BoardGeometry(geometry.shape, geometry.names, geometry.coords, geometry.lines, homes)
