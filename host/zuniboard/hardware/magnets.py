"""The magnet's field at the reed switches: the drive model, the figures per board (own
switch, worst neighbour) and the placement tolerance a builder checks by hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from zuniboard.hardware import pcb_stack
from zuniboard.hardware.placement import Build, build, switch_xy
from zuniboard.hardware.stack import (
    MAGNET_BR_T,
    MAGNET_DIA_MM,
    MAGNET_THICK_MM,
    MAGNET_TO_REED_AXIS_MM,
    MAGNET_TO_REED_AXIS_PCB_MM,
    PCB_SWITCH_PITCH_MM,
    PLACEMENT_SLOP_MM,
    REED_GLASS_MM,
    SLOT_LEN_MM,
    unit_vector,
)

if TYPE_CHECKING:
    from zuni_board.layout import Layout

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


class Reed(NamedTuple):
    """How a reed switch lies under the magnet: the magnet face to glass axis distance,
    and the length of each half (blade plus the lead while it runs straight on, in line)."""

    axis_mm: float
    half_mm: float


# The hand-wired build: the glass on P2's channel floor, its leads straight in their slots
# to the lead holes. The PCB build: the glass at the same height, its leads bent down to
# the footprint's pads 3.8 mm beyond the seals, so each half is shorter.
CHANNEL_REED = Reed(MAGNET_TO_REED_AXIS_MM, SLOT_LEN_MM / 2)
PCB_REED = Reed(MAGNET_TO_REED_AXIS_PCB_MM, PCB_SWITCH_PITCH_MM / 2)


def reed_of(b: Build) -> Reed:
    return PCB_REED if pcb_stack.is_pcb_build(b) else CHANNEL_REED


def reed_drive(
    mx: float, my: float, sx: float, sy: float, angle: float, exact: bool = True, reed: Reed = CHANNEL_REED
) -> float:
    """Drive (A, compare with AT) of a magnet at (mx, my) on the switch centred at (sx,
    sy) along ``angle``: the difference of the mean potentials of the two halves."""
    ux, uy = unit_vector(angle)
    h, half = reed
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


def field_figures(layout: Layout, pitch: float | None = None, reed: Reed | None = None) -> FieldFigures:
    """The figures of the board's own build, or of ``reed`` (for instance ``PCB_REED`` on a
    board whose PCB is still to come)."""
    b = build(layout, pitch)
    reed = reed or reed_of(b)
    ang = float(layout.mechanics["switch_angle_deg"])
    ux, uy = unit_vector(ang)
    names = list(b.geometry.names)
    # Own switch: the same for every point; the worst of 8 directions of the slop.
    p0 = names[0]
    x0, y0 = b.xy(p0)
    s0 = switch_xy(b, p0)
    own = min(
        reed_drive(x0 + PLACEMENT_SLOP_MM * math.cos(a), y0 + PLACEMENT_SLOP_MM * math.sin(a), *s0, ang, reed=reed)
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
            drive = reed_drive(mx + (px - mx) * k, my + (py - my) * k, sx, sy, ang, exact=False, reed=reed)
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


def placement_tolerance(layout: Layout, pitch: float | None = None, reed: Reed | None = None) -> Tolerance:
    """The figures a builder checks by hand (assembly.md stage 4): how sloppily a piece may
    stand and still close its own switch, and how far it must be pushed towards a
    neighbour to close that one's switch, by the drive model, in 0.5 mm steps."""
    b = build(layout, pitch)
    reed = reed or reed_of(b)
    ang = float(layout.mechanics["switch_angle_deg"])
    ux, uy = unit_vector(ang)
    ff = field_figures(layout, pitch)
    m, n = ff.neighbour_pair
    p0 = b.geometry.names[0]
    x0, y0 = b.xy(p0)
    s0 = switch_xy(b, p0)
    own = 0.0
    r = 0.5
    while r < b.pitch / 2:
        drive = min(
            reed_drive(x0 + r * math.cos(a), y0 + r * math.sin(a), *s0, ang, reed=reed)
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
        if reed_drive(mx + (px - mx) * k, my + (py - my) * k, sx, sy, ang, reed=reed) >= PULL_IN_MIN_AT:
            break
    return Tolerance(own, toggle, (m, n))
