"""Where the electronics boards hang under P2: the controller along the South frame, one
strip per 74HC165 near its switches, each with mounting screws on bare wood and clear of
its own pads and links.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from zuniboard.hardware import circuit, pcb_stack, perfboard
from zuniboard.hardware.fmt import num
from zuniboard.hardware.placement import Build, switch_xy
from zuniboard.hardware.plates import BoardSpot, button_positions, plate_features, point_seg
from zuniboard.hardware.stack import (
    BOARD_GAP_MM,
    BUTTON_NUT_MM,
    FRAME_WIDTH_MM,
    MOUNT_INSET_MM,
    MOUNT_PILOT_MM,
    PICO_USB_X_PITCHES,
)


def controller_xy(b: Build) -> tuple[float, float]:
    """Centre of the controller board (Pico, level shifter) under P2: its USB edge against
    the South frame, as far West as its mounting screws find bare wood."""
    spot = board_spots(b)[0]
    return (spot.x, spot.y)


class NoRoomError(ValueError):
    """The electronics boards do not fit under P2 (a layout too small for them)."""


_SPOTS: dict[tuple[Any, ...], list[BoardSpot]] = {}


def _p2_obstacles(b: Build) -> list[tuple[tuple[float, float], tuple[float, float], float]]:
    """Every hole, slot and pocket of P2 (either face) as segments with a radius."""
    return [f.segment() for f in plate_features(b) if f.plate == "P2"]


def _mount_clear(
    p: tuple[float, float], obstacles: list[tuple[tuple[float, float], tuple[float, float], float]]
) -> bool:
    r = MOUNT_PILOT_MM / 2
    for a, c, rr in obstacles:
        if abs(a[0] - p[0]) > 30 and abs(c[0] - p[0]) > 30:
            continue
        if point_seg(p, a, c) - rr - r < 1.0:  # 1 mm of wood between, as collisions()
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
            if point_seg(hole, (float(a[0]), float(a[1])), (float(c[0]), float(c[1]))) < MOUNT_WIRE_CLEAR_PITCHES:
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
    a strip as near the middle of its eight switches as that allows. On the PCB build
    (``pcb_stack``): the controller module alone, on P3."""
    if pcb_stack.is_pcb_build(b):
        return [pcb_stack.controller_spot(b)]
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
    packer = _Packer(b, c, plans)
    packer.place_controller(*sizes[0])
    strips = sizes[1:]
    if strips:
        controller = packer.placed[0]
        if not packer.place_strips_nearest(strips):
            packer.place_strips_in_lanes(strips)
        assert packer.placed[0] is controller
    _SPOTS[key] = packer.placed
    return packer.placed


class _Packer:
    """Places boards under P2 one by one: inside the frame, no two closer than
    BOARD_GAP_MM, clear of the button pockets, mounting holes on bare wood."""

    def __init__(self, b: Build, c: circuit.Circuit, plans: list[perfboard.Plan]) -> None:
        self.b = b
        self.plans = plans
        self.plan_wires = [perfboard.net_wires(c, p) for p in plans]
        self.keepouts = [plan_keepout(p) for p in plans]
        self.obstacles = _p2_obstacles(b)
        self.lo, self.hi = FRAME_WIDTH_MM + BOARD_GAP_MM / 2, (b.place.width - FRAME_WIDTH_MM - BOARD_GAP_MM / 2)
        self.bottom = b.place.height - FRAME_WIDTH_MM - BOARD_GAP_MM / 2
        self.pockets = [(x, y) for _, x, y in button_positions(b)]
        self.placed: list[BoardSpot] = []

    def board_ok(self, which: int, rect: tuple[float, float, float, float]) -> Any:
        plans, plan_wires, keepouts = self.plans, self.plan_wires, self.keepouts
        return lambda p: plan_clear(plans[which], plan_wires[which], perfboard.plan_hole(rect, p), keepouts[which])

    def fits(self, rect: tuple[float, float, float, float]) -> bool:
        x0, y0, x1, y1 = rect
        if x0 < self.lo or x1 > self.hi or y0 < FRAME_WIDTH_MM + BOARD_GAP_MM / 2 or y1 > self.bottom:
            return False
        for o in self.placed:
            a0, b0, a1, b1 = o.rect()
            if x0 < a1 + BOARD_GAP_MM and a0 < x1 + BOARD_GAP_MM and y0 < b1 + BOARD_GAP_MM and b0 < y1 + BOARD_GAP_MM:
                return False
        for px, py in self.pockets:  # the button's body and tags hang below P2 in its pocket
            nx, ny = min(max(px, x0), x1), min(max(py, y0), y1)
            if math.hypot(nx - px, ny - py) < BUTTON_NUT_MM / 2 + BOARD_GAP_MM:
                return False
        return True

    def mounts(
        self, rect: tuple[float, float, float, float], corners: int, which: int
    ) -> tuple[tuple[float, float], ...] | None:
        """The mounting holes of a board at ``rect`` if it fits there, else None."""
        return _mounts(rect, corners, self.obstacles, self.board_ok(which, rect)) if self.fits(rect) else None

    def place_controller(self, name: str, w: float, h: float) -> None:
        """The controller along the South frame, its USB edge against it, from the West."""
        lo, hi, bottom = self.lo, self.hi, self.bottom
        for k in range(int((hi - lo - w) / 2.54) + 1):
            x0 = lo + k * 2.54
            rect = (x0, bottom - h, x0 + w, bottom)
            mounts = self.mounts(rect, 4, 0)
            if mounts:
                self.placed.append(BoardSpot(name, x0 + w / 2, bottom - h / 2, w, h, mounts))
                return
        raise NoRoomError(
            "%s: no place for the controller board (%s x %s mm) along the South frame, inside the frame and "
            "clear of the buttons, with its mounting screws on bare wood" % (self.b.layout.name, num(w), num(h))
        )

    def _lanes(self, h: float) -> list[float]:
        top = FRAME_WIDTH_MM + BOARD_GAP_MM / 2
        lanes = max(1, int((self.bottom - top + BOARD_GAP_MM) // (h + BOARD_GAP_MM)))
        return [top + k * (self.bottom - top - h) / max(1, lanes - 1) for k in range(lanes)]

    def _xs(self, w: float) -> list[float]:
        return [self.lo + k * 2.54 for k in range(int((self.hi - self.lo - w) / 2.54) + 1)]

    def place_strips_nearest(self, strips: list[tuple[str, float, float]]) -> bool:
        """First choice: each strip in the lane position nearest the middle of its switches
        (short switch wires), the strips taken in one of a few orders (chain order, by x,
        by y, each both ways): the order that places all of them with the least total
        distance wins. False (nothing placed) where no order leaves room for every strip."""
        w, h = strips[0][1], strips[0][2]
        centres = [switch_centroid(self.b, chip) for chip in range(len(strips))]
        grid = [(x0, y0) for x0 in self._xs(w) for y0 in self._lanes(h)]
        chain = list(range(len(strips)))
        orders = [chain, chain[::-1]]
        for axis in (0, 1):
            by = sorted(chain, key=lambda k: (centres[k][axis], k))
            orders += [by, by[::-1]]
        best: tuple[float, list[BoardSpot]] | None = None
        placed = self.placed
        for sequence in orders:
            got: dict[int, BoardSpot] = {}
            del placed[1:]
            for chip in sequence:
                cx, cy = centres[chip]
                for x0, y0 in sorted(grid, key=lambda p: math.hypot(p[0] + w / 2 - cx, p[1] + h / 2 - cy)):
                    rect = (x0, y0, x0 + w, y0 + h)
                    mounts = self.mounts(rect, 2, 1)
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
        if best is None:
            return False
        placed += best[1]
        return True

    def place_strips_in_lanes(self, strips: list[tuple[str, float, float]]) -> None:
        """The fallback: the strips fill the lanes in chain order, snaking from the controller."""
        w, h = strips[0][1], strips[0][2]
        xs = self._xs(w)
        snake = [(x0, y0) for i, y0 in enumerate(reversed(self._lanes(h))) for x0 in (xs if i % 2 == 0 else xs[::-1])]
        for name, _, _ in strips:
            for x0, y0 in snake:
                rect = (x0, y0, x0 + w, y0 + h)
                mounts = self.mounts(rect, 2, 1)
                if mounts:
                    self.placed.append(BoardSpot(name, x0 + w / 2, y0 + h / 2, w, h, mounts))
                    break
            else:
                raise NoRoomError(
                    "%s: no room under P2 for %d sensor strips of %s x %s mm (pitch %s mm)"
                    % (self.b.layout.name, len(strips), num(w), num(h), num(self.b.pitch))
                )


def usb_slot(b: Build) -> tuple[float, float]:
    """The USB slot's centre on the South side of the frame (x along the frame)."""
    if pcb_stack.is_pcb_build(b):
        return (pcb_stack.usb_x(b), b.place.height)
    spot = board_spots(b)[0]
    return (spot.x - spot.width / 2 + PICO_USB_X_PITCHES * 2.54, b.place.height)


def sensor_board_xy(b: Build, chip: int) -> tuple[float, float]:
    """Where the strip of a 74HC165 hangs (``board_spots``): as near the middle of its
    eight switches as the other boards and its mounting screws allow."""
    spot = board_spots(b)[1 + chip]
    return (spot.x, spot.y)


def switch_centroid(b: Build, chip: int) -> tuple[float, float]:
    pts = [switch_xy(b, n) for n, (s, _) in b.layout.points.items() if s // 8 == chip]
    return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))
