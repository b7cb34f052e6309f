"""Every plate as a DXF for a laser or CNC service (``<board>/plate-P1.dxf`` ...), drawn
from the same features as the paper templates and ``drill.csv`` (``drill.features``).

Millimetres, origin at the plate's bottom-left corner (DXF's y points up, so the
template's y is turned over). Layers: ``OUTLINE`` (the plate's edge), ``CUT`` (through
holes and slots: a laser cuts these), ``POCKET_<depth>`` (blind pockets and channels from
the named face, for a CNC router; a laser job leaves these layers off) and ``TEXT``. A
slot is one closed polyline with round ends. The files carry no date, so regeneration
gives the same bytes. DXF R12: every laser and CNC program reads it, and it has no objects
section (whose order ezdxf does not keep from one run to the next).
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING

from ezdxf._options import options as ezdxf_options
from ezdxf.document import Drawing

from zuniboard.hardware import drill, placement, plates

if TYPE_CHECKING:
    from zuni_board.layout import Layout

PLATES = ("P1", "P2", "P3")


def _capsule(f: plates.Feature, height: float) -> list[tuple[float, float, float]]:
    """The slot's outline as (x, y, bulge) points: two straight sides, two half circles."""
    (ax, ay), (bx, by), r = f.segment()
    ay, by = height - ay, height - by
    dx, dy = bx - ax, by - ay
    d = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / d * r, dx / d * r
    return [
        (ax + nx, ay + ny, 0.0),
        (bx + nx, by + ny, -1.0),
        (bx - nx, by - ny, 0.0),
        (ax - nx, ay - ny, -1.0),
    ]


def plate_dxf(layout: Layout, plate: str) -> bytes:
    previous = ezdxf_options.write_fixed_meta_data_for_testing
    ezdxf_options.write_fixed_meta_data_for_testing = True  # no dates, no random GUIDs
    try:
        return _plate_dxf(layout, plate)
    finally:
        ezdxf_options.write_fixed_meta_data_for_testing = previous


def _plate_dxf(layout: Layout, plate: str) -> bytes:
    b = placement.build(layout)
    width, height = b.place.width, b.place.height
    doc = Drawing.new("R12")  # not ezdxf.new: it sets $INSUNITS, which R12 lacks
    # R12 has no unit header: the drawing is in millimetres, as its TEXT says.
    for name, colour in (("OUTLINE", 7), ("CUT", 1), ("TEXT", 3)):
        doc.layers.add(name, color=colour)
    msp = doc.modelspace()
    msp.add_polyline2d([(0, 0), (width, 0), (width, height), (0, height)], close=True, dxfattribs={"layer": "OUTLINE"})
    for f in drill.features(layout):
        if f.plate != plate:
            continue
        layer = "CUT" if f.through else "POCKET_%s_%smm" % (f.face.upper().replace(" ", "_"), _mm(f.depth))
        if layer not in doc.layers:
            doc.layers.add(layer, color=5)
        if f.length:
            msp.add_polyline2d(_capsule(f, height), format="xyb", close=True, dxfattribs={"layer": layer})
        else:
            msp.add_circle((f.x, height - f.y), f.diameter / 2, dxfattribs={"layer": layer})
    msp.add_text(
        "%s %s %s x %s mm, %s mm thick: CUT through, POCKET_* to depth (CNC)"
        % (layout.name, plate, _mm(width), _mm(height), _mm(plates.PLATE_MM[plate])),
        height=4.0,
        dxfattribs={"layer": "TEXT", "insert": (5.0, -8.0)},
    )
    out = io.StringIO()
    doc.write(out)
    return out.getvalue().encode()


def _mm(v: float) -> str:
    return ("%.2f" % v).rstrip("0").rstrip(".")


def derived_files(layout: Layout) -> dict[str, bytes]:
    return {"plate-%s.dxf" % plate: plate_dxf(layout, plate) for plate in PLATES}
