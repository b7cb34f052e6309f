"""The mechanical stack of the PCB build: where a board's main PCB carries the reed
switches, the LEDs and the fab-assembled parts, P2 is a spacer of plain through-cuts
(a laser cuts it): a hole per LED body, a slot per reed switch, an opening over every
part on the PCB's top side. Under the main PCB the controller module stands on P3.

A board is built on PCBs when the PCB generator has a main-board plan for it
(``kicad_project.plan_for``; today board25: board49 and board168 keep the hand-wired stack
until their PCB modules exist) and the template is at the layout's own pitch (a PCB is made
for one pitch).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from zuniboard.hardware import kicad_lib, kicad_project
from zuniboard.hardware.kicad_pcb import Placement, rotate
from zuniboard.hardware.pcb_layout import BoardPlan, PlanError
from zuniboard.hardware.placement import Build
from zuniboard.hardware.plates import BoardSpot, Feature
from zuniboard.hardware.stack import FRAME_WIDTH_MM, P2_MM, P3_MM

if TYPE_CHECKING:
    from zuni_board.layout import Layout

# Openings in the spacer over the top-side parts that are neither an LED nor a reed switch
# nor a button (those have their own holes): (width, length) of the round-ended cut-out
# around the part's body and pads, 0.5-1 mm clear, and the angle of its long side to the
# footprint's x axis.
OPENINGS = {
    "Package_SO:SOIC-16_3.9x9.9mm_P1.27mm": (8.0, 12.0, 90.0),
    "Capacitor_SMD:C_0805_2012Metric": (3.0, 5.0, 0.0),
    "Resistor_SMD:R_0805_2012Metric": (3.0, 5.0, 0.0),
    "Diode_SMD:D_SOD-323": (3.0, 5.0, 0.0),
}
HEADER_PREFIX = "Connector_PinHeader_2.54mm:PinHeader_1x"
OWN_HOLES = ("zuniboard:LED_", "Resistor_THT:R_Axial", "Button_Switch_THT:")

# The controller module stands on P3 on M3 nylon spacers, component side up, its West
# edge (the Pico's USB end) turned to face the South frame.
CONTROLLER_SPACER_MM = 8.0
MODULE_GAP_MM = 2.0


_PLANS: dict[tuple[str, ...], tuple[BoardPlan | None, BoardPlan]] = {}


def plans(layout: Layout) -> tuple[BoardPlan | None, BoardPlan] | None:
    """(main, controller) plans of a layout with a KiCad project (main None where the
    generator has no main board for it), else None. Kept per layout: each plan costs a
    schematic and a placement (about 0.4 s), and every plate file asks for them."""
    if layout.sensors["type"] != "hc165":
        return None
    key = (layout.name, repr(sorted(layout.points.items())), repr(sorted(layout.mechanics.items())))
    if key not in _PLANS:
        lib = kicad_lib.load()
        try:
            main: BoardPlan | None = kicad_project.plan_for(layout, "main", lib)[0]
        except PlanError:
            main = None
        _PLANS[key] = (main, kicad_project.plan_for(layout, "controller", lib)[0])
    return _PLANS[key]


def is_pcb_build(b: Build) -> bool:
    """The board's main PCB exists and the template is at the pitch it was made for."""
    if b.pitch != float(b.layout.mechanics["pitch_mm"]):
        return False
    found = plans(b.layout)
    return found is not None and found[0] is not None


def _opening(p: Placement) -> Feature | None:
    if p.footprint.startswith(OWN_HOLES):
        return None
    if p.footprint.startswith(HEADER_PREFIX):
        pins = int(p.footprint[len(HEADER_PREFIX) :].split("_")[0])
        dx, dy = rotate(0.0, (pins - 1) * 2.54 / 2, p.rot)
        x, y, width, length, along = p.x + dx, p.y + dy, 4.0, (pins - 1) * 2.54 + 4.0, 90.0
        what = "%d-pin header: fitted from under the PCB, its pins soldered on top in this opening" % pins
    elif p.footprint in OPENINGS:
        width, length, along = OPENINGS[p.footprint]
        x, y = p.x, p.y
        what = "%s (%s), fab-assembled on the PCB's top side" % (p.ref, p.footprint.split(":")[1])
    else:
        raise ValueError("spacer: no opening size for footprint %s (%s)" % (p.footprint, p.ref))
    angle = (p.rot + along) % 180.0
    return Feature("OP-" + p.ref, "", "P2", "top", x, y, angle, width, length, P2_MM, "laser / jigsaw", what)


def spacer_openings(b: Build) -> list[Feature]:
    """Through openings in P2 over the main PCB's top-side parts (none off the PCB build)."""
    found = plans(b.layout)
    if not is_pcb_build(b) or found is None or found[0] is None:
        return []
    out = [_opening(p) for p in found[0].placements]
    return [f for f in out if f is not None]


def controller_spot(b: Build) -> BoardSpot:
    """The controller module on P3 in the South-West corner, turned so that the Pico's USB
    end (the module's West edge) faces the South frame; its mounts are the module's own
    holes, drilled through P3."""
    found = plans(b.layout)
    assert found is not None
    module = found[1]
    w, h = module.height, module.width  # turned a quarter: its West edge is now South
    x0 = FRAME_WIDTH_MM + MODULE_GAP_MM
    y1 = b.place.height - FRAME_WIDTH_MM - MODULE_GAP_MM
    y0 = y1 - h
    # Module (mx, my) -> template (x0 + my, y0 + (module width - mx)).
    mounts = tuple((x0 + hole.y, y0 + module.width - hole.x) for hole in module.holes)
    return BoardSpot("controller module", x0 + w / 2, y0 + h / 2, w, h, mounts)


def usb_x(b: Build) -> float:
    """Where the Pico's USB socket meets the South frame (template x)."""
    found = plans(b.layout)
    assert found is not None
    pico = next(p for p in found[1].placements if p.ref == "U1")
    return FRAME_WIDTH_MM + MODULE_GAP_MM + pico.y


def header_pins(b: Build) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Template positions of J1 pin k (the main PCB) and J2 pin k (the controller module
    on P3), pin 1 first: the ends of the cable's conductors."""
    found = plans(b.layout)
    assert found is not None and found[0] is not None
    j1 = next(p for p in found[0].placements if p.ref == "J1")
    j2 = next(p for p in found[1].placements if p.ref == "J2")
    pins = int(j1.footprint[len(HEADER_PREFIX) :].split("_")[0])
    spot = controller_spot(b)
    x0, y0 = spot.x - spot.width / 2, spot.y - spot.height / 2
    module_w = found[1].width
    out = []
    for k in range(pins):
        ax, ay = rotate(0.0, k * 2.54, j1.rot)
        bx, by = rotate(0.0, k * 2.54, j2.rot)
        mx, my = j2.x + bx, j2.y + by
        out.append(((j1.x + ax, j1.y + ay), (x0 + my, y0 + module_w - mx)))
    return out


def controller_mounts(b: Build) -> list[Feature]:
    spot = controller_spot(b)
    return [
        Feature(
            "MT-controller-%d" % (k + 1),
            "",
            "P3",
            "top",
            x,
            y,
            0.0,
            3.2,
            0.0,
            P3_MM,
            "drill 3.2",
            "M3 x 16 mm screw from under P3 through an %s mm nylon spacer into the controller module's hole"
            % ("%g" % CONTROLLER_SPACER_MM),
        )
        for k, (x, y) in enumerate(spot.mounts)
    ]


def opening_area_mm2(feats: list[Feature]) -> float:
    """Area of the spacer's part openings (for mechanics.md)."""
    return sum(f.diameter * (f.length - f.diameter) + math.pi * f.diameter**2 / 4 for f in feats)
