"""Every feature of the plates (the plates' own and the boards' mounting pilots) and
``drill.csv``, the list a builder or a CNC service works from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zuniboard.hardware import pcb_stack
from zuniboard.hardware.board_spots import NoRoomError, board_spots
from zuniboard.hardware.fmt import csv_cell, num
from zuniboard.hardware.placement import build
from zuniboard.hardware.plates import Feature, plate_features
from zuniboard.hardware.stack import MOUNT_PILOT_MM, MOUNT_SCREW, P2_MM, SPACER_MM

if TYPE_CHECKING:
    from zuni_board.layout import Layout


def features(layout: Layout, pitch: float | None = None) -> list[Feature]:
    """Every hole, slot and pocket: the plates' own, then on the PCB build the spacer's
    openings over the PCB's parts and the controller module's holes in P3
    (``pcb_stack``), else the pilot holes of the electronics boards' mounting screws in P2's
    underside (``board_spots``; a template at a pitch too small for the boards has none)."""
    b = build(layout, pitch)
    if pcb_stack.is_pcb_build(b):
        # P2 a spacer over the main PCB; the controller module stands on P3.
        return plate_features(b, pcb=True) + pcb_stack.spacer_openings(b) + pcb_stack.controller_mounts(b)
    out = list(plate_features(b))
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
                    % (num(MOUNT_SCREW[0]), num(MOUNT_SCREW[1]), spot.name, num(SPACER_MM)),
                )
            )
    return out


# -- drill.csv ----------------------------------------------------------------------------

DRILL_COLUMNS = (
    "feature,point,plate,face,shape,x_mm,y_mm,angle_deg,diameter_mm,length_mm,width_mm,depth_mm,through,tool,purpose"
)


def drill_csv(layout: Layout, pitch: float | None = None) -> str:
    out = [DRILL_COLUMNS]
    for f in features(layout, pitch):
        hole = not f.length
        out.append(
            ",".join(
                csv_cell(v)
                for v in (
                    f.ident,
                    f.point,
                    f.plate,
                    f.face,
                    "hole" if hole else "slot",
                    num(f.x),
                    num(f.y),
                    num(f.angle),
                    num(f.diameter) if hole else "",
                    "" if hole else num(f.length),
                    "" if hole else num(f.diameter),
                    num(f.depth),
                    "yes" if f.through else "no",
                    f.tool,
                    f.purpose,
                )
            )
        )
    return "\n".join(out) + "\n"
