"""The plates as DXF (hardware/<board>/plate-P*.dxf), read back with ezdxf: every hole,
slot and pocket of drill.csv on its plate, at its place, through features on the CUT layer
and blind ones on a POCKET layer, inside the plate's outline."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import ezdxf
import pytest
from ezdxf import bbox

from zuniboard.games import layouts
from zuniboard.hardware import drill, placement, plates_dxf

REPO = Path(__file__).resolve().parents[2]
NAMES = [p.stem for p in layouts.layout_paths()]


@pytest.fixture(scope="module", params=NAMES)
def layout(request: pytest.FixtureRequest) -> Any:
    return layouts.load_layout(request.param)


@pytest.mark.parametrize("plate", plates_dxf.PLATES)
def test_dxf_has_every_feature_of_its_plate(layout: Any, plate: str) -> None:
    doc = ezdxf.readfile(REPO / "hardware" / layout.name / ("plate-%s.dxf" % plate))
    assert doc.dxfversion == "AC1009"  # R12: read by every laser and CNC program
    msp = doc.modelspace()
    b = placement.build(layout)
    width, height = b.place.width, b.place.height
    outline = [e for e in msp if e.dxf.layer == "OUTLINE"]
    assert len(outline) == 1
    assert sorted({(round(v.x, 3), round(v.y, 3)) for v in outline[0].points()}) == sorted(
        {(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)}
    )
    rows = [r for r in csv.DictReader(io.StringIO((REPO / "hardware" / layout.name / "drill.csv").read_text()))]
    feats = [f for f in drill.features(layout) if f.plate == plate]
    assert len([r for r in rows if r["plate"] == plate]) == len(feats)
    circles = [e for e in msp if e.dxftype() == "CIRCLE"]
    slots = [e for e in msp if e.dxftype() == "POLYLINE" and e.dxf.layer != "OUTLINE"]
    assert len(circles) == sum(1 for f in feats if not f.length)
    assert len(slots) == sum(1 for f in feats if f.length)
    # each hole at its place (y turned over) and on the right layer
    at = {(round(c.dxf.center.x, 2), round(c.dxf.center.y, 2), round(c.dxf.radius, 3), c.dxf.layer) for c in circles}
    for f in feats:
        if not f.length:
            layer = (
                "CUT" if f.through else "POCKET_%s_%smm" % (f.face.upper().replace(" ", "_"), plates_dxf._mm(f.depth))
            )
            assert (round(f.x, 2), round(height - f.y, 2), round(f.diameter / 2, 3), layer) in at, f.ident
    for e in circles + slots:
        box = bbox.extents([e])
        assert -0.01 <= box.extmin.x and box.extmax.x <= width + 0.01
        assert -0.01 <= box.extmin.y and box.extmax.y <= height + 0.01
