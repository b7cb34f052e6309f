"""The mechanical stack of the PCB build (``pcb_stack``): P2 a spacer of plain through
cuts over the main PCB, the magnet-to-glass distance recomputed for it and held to the
pull-in band, the controller module on P3, the cable the only wiring."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import pytest

from zuniboard.games import layouts
from zuniboard.hardware import drill, magnets, pcb_stack, placement, plates, stack, wiring
from zuniboard.hardware.kicad_pcb import rotate

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def board25() -> Any:
    return layouts.load_layout("board25")


def test_the_glass_height_is_recomputed_from_the_pcb_stack() -> None:
    axis = stack.FELT_MM + stack.P1_MM + stack.GLASS_TOP_BELOW_P2_MM + stack.REED_PART_DIA_MM / 2
    assert magnets.PCB_REED.axis_mm == pytest.approx(axis) == pytest.approx(5.6)
    # The glass stands on its leads inside the spacer, clear of the PCB and of P1.
    assert 0 < stack.GLASS_AXIS_ABOVE_PCB_MM - stack.REED_PART_DIA_MM / 2
    assert stack.GLASS_TOP_BELOW_P2_MM > 0.5
    # The leads bend at least 3 mm from the seals (reed makers' rule).
    assert (stack.PCB_SWITCH_PITCH_MM - stack.REED_PART_GLASS_MM) / 2 >= 3.0
    assert magnets.PCB_REED.half_mm == pytest.approx(stack.PCB_SWITCH_PITCH_MM / 2)


@pytest.mark.parametrize("name", ["board25", "board49", "board168"])
def test_pcb_stack_keeps_the_pull_in_band(name: str) -> None:
    """With the PCB stack every board closes its own switch at twice the least sensitive
    pull-in (20 AT) with a piece 2 mm off, drives no other switch above a third of the most
    sensitive (10 AT), and keeps the ratio at least 10: on board168 too, where the nearest
    other switch is 20.9 mm away."""
    ff = magnets.field_figures(layouts.load_layout(name), reed=magnets.PCB_REED)
    assert ff.own_min >= 2 * magnets.PULL_IN_MAX_AT, ff
    assert ff.neighbour_max <= magnets.PULL_IN_MIN_AT / 3, ff
    assert ff.own_min / ff.neighbour_max >= 10, ff
    text = (REPO / "hardware" / "magnets.md").read_text()
    assert "%.1f A (%s)" % (ff.neighbour_max, {"board25": "25-point", "board49": "49-point"}.get(name, "")) in text or (
        name == "board168" and "%.1f A (168-square)" % ff.neighbour_max in text
    )


def test_board25_is_the_pcb_build_and_the_others_wait_for_theirs(board25: Any) -> None:
    assert pcb_stack.is_pcb_build(placement.build(board25))
    assert not pcb_stack.is_pcb_build(placement.build(layouts.load_layout("board168")))
    assert not pcb_stack.is_pcb_build(placement.build(layouts.load_layout("board25-matrix")))
    # A template at another pitch is no longer the PCB's: the hand-wired stack.
    assert not pcb_stack.is_pcb_build(placement.build(board25, 35.0))


def test_the_spacer_is_all_through_cuts_over_every_part(board25: Any) -> None:
    b = placement.build(board25)
    feats = drill.features(board25)
    p2 = [f for f in feats if f.plate == "P2"]
    assert p2 and all(f.through for f in p2), [f.ident for f in p2 if not f.through]
    assert not [f for f in p2 if f.ident[:2] in ("RC", "RS", "RH", "MT")]
    found = pcb_stack.plans(board25)
    assert found is not None and found[0] is not None
    main = found[0]
    # Every part on the PCB's top side stands in a cut-out of the spacer: the spacer lies
    # flat on bare board. A part's centre inside a feature's capsule.
    for part in main.placements:
        inside = [f for f in p2 if _in_capsule((part.x, part.y), f)]
        assert inside, (part.ref, part.footprint, part.x, part.y)
    # The reed slots are centred on the PCB's reed footprints, along the switch.
    slots = {f.point: f for f in p2 if f.ident.startswith("RT-")}
    assert len(slots) == len(b.geometry.names)
    for part in main.placements:
        if part.footprint.startswith("Resistor_THT:R_Axial"):  # the reed switch footprint
            f = slots[part.ref[3:]]
            # The footprint's origin is pad 1; its middle is half the pad pitch along it.
            dx, dy = rotate(stack.PCB_SWITCH_PITCH_MM / 2, 0.0, part.rot)
            assert math.dist((f.x, f.y), (part.x + dx, part.y + dy)) < 0.05, part.ref
            assert f.length >= stack.PCB_SWITCH_PITCH_MM + 2.0
    assert plates.collisions(feats) == []


def _in_capsule(p: tuple[float, float], f: Any) -> bool:
    a, c, r = f.segment()
    return plates.point_seg(p, a, c) <= r + 1e-6


def test_controller_module_on_p3_inside_the_frame(board25: Any) -> None:
    b = placement.build(board25)
    spot = pcb_stack.controller_spot(b)
    x0, y0, x1, y1 = spot.rect()
    inner = stack.FRAME_WIDTH_MM
    assert inner < x0 and x1 < b.place.width - inner and inner < y0 and y1 < b.place.height - inner
    mounts = [f for f in drill.features(board25) if f.ident.startswith("MT-controller")]
    assert len(mounts) == 2 and all(f.plate == "P3" and f.through for f in mounts)
    for f in mounts:
        assert x0 < f.x < x1 and y0 < f.y < y1
    # The USB socket's slot lies on the module's South edge, inside the frame's side.
    assert x0 < pcb_stack.usb_x(b) < x1


def test_the_cable_is_the_only_wiring(board25: Any) -> None:
    rows = list(csv.DictReader(io.StringIO((REPO / "hardware" / "board25" / "wiring.csv").read_text())))
    assert [r["wire"] for r in rows] == ["J%d" % k for k in range(1, 13)]
    assert all(r["from"] == "J1.%s" % r["wire"][1:] and r["to"] == "J2.%s" % r["wire"][1:] for r in rows)
    assert max(float(r["length_mm"]) for r in rows) <= 300.0
    assert [w.ident for w in wiring.wires(board25)] == [r["wire"] for r in rows]


def test_the_pcb_build_drops_the_perfboard_plans() -> None:
    assert not (REPO / "hardware" / "board25" / "perfboard.svg").exists()
    assert (REPO / "hardware" / "board25-matrix" / "perfboard.svg").exists()
    text = (REPO / "hardware" / "board25" / "assembly.md").read_text()
    assert "(PCB build)" in text and "perfboard" not in text
