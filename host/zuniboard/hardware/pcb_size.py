"""The sizes of the generated PCBs that the BOM prices, without placing anything: the
controller module's row of small parts sets its length (``pcb_layout.controller_plan``
places them)."""

from __future__ import annotations

from zuniboard.hardware.circuit import Circuit


def part_width(footprint: str) -> float:
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
    if "SW_PUSH_6mm" in footprint:
        return 10.0
    return 4.6


CONTROLLER_ORDER = ["U3", "C1", "R2", "R3", "R6", "C3", "U2", "C2", "R4", "R5"]


def controller_row(c: Circuit) -> list[str]:
    """The small parts in one row above the top channel, in signal order (the buttons and
    their protection last, where a board's strips leave them on the controller)."""
    order = [r for r in CONTROLLER_ORDER if r in c.parts]
    return order + sorted(
        r for r, p in c.parts.items() if p.pcb == "controller" and r not in order and r not in ("U1", "J2", "J3")
    )


def controller_size(c: Circuit) -> tuple[float, float]:
    """78 x 66 mm, longer when the buttons are on it: the row of small parts and the
    bridge corridor East of it."""
    row = 2.0 + sum(part_width(c.parts[r].footprint) for r in controller_row(c))
    return (max(78.0, round(max(row, 3.0 + 48.26 + 2.0) + 11.2)), 66.0)
