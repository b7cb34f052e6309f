"""The drilling template as one list of drawing primitives (``Shape``), and its one-page
SVG; ``template_print`` writes the same shapes as PDF pages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zuniboard.hardware import pcb_stack
from zuniboard.hardware.board_spots import NoRoomError, board_spots, usb_slot
from zuniboard.hardware.drill import features
from zuniboard.hardware.fmt import LICENCE_NOTICE, num
from zuniboard.hardware.placement import Build, build, piece_diameter
from zuniboard.hardware.plates import Feature
from zuniboard.hardware.stack import BUTTON_NUT_MM, FRAME_WIDTH_MM, SCREW_HEAD_MM, USB_SLOT_MM, unit_vector

if TYPE_CHECKING:
    from zuni_board.layout import Layout

# -- drawing (one list of primitives for SVG and PDF) ---------------------------------------

Colour = tuple[float, float, float]
BLACK: Colour = (0, 0, 0)
GREY: Colour = (0.55, 0.55, 0.55)
RED: Colour = (0.8, 0, 0)
BLUE: Colour = (0, 0.4, 0.8)
GREEN: Colour = (0, 0.55, 0.2)
ORANGE: Colour = (0.8, 0.4, 0)
BROWN: Colour = (0.55, 0.35, 0.1)


@dataclass(frozen=True)
class Shape:
    kind: str  # "poly", "circle", "text"
    points: tuple[tuple[float, float], ...] = ()
    radius: float = 0.0
    closed: bool = False
    colour: Colour = BLACK
    width: float = 0.3
    dash: float = 0.0
    text: str = ""
    size: float = 3.0
    ident: str = ""


def _capsule(f: Feature, steps: int = 6) -> tuple[tuple[float, float], ...]:
    (ax, ay), (bx, by), r = f.segment()
    ux, uy = unit_vector(f.angle)
    base = math.atan2(uy, ux)
    pts = []
    for cx, cy, start in ((bx, by, base - math.pi / 2), (ax, ay, base + math.pi / 2)):
        for i in range(steps + 1):
            a = start + math.pi * i / steps
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return tuple(pts)


def drawing(layout: Layout, pitch: float | None = None) -> list[Shape]:
    """The template's shapes, in template millimetres."""
    b = build(layout, pitch)
    w, h = b.place.width, b.place.height
    out = [Shape("poly", ((0, 0), (w, 0), (w, h), (0, h)), closed=True, width=0.4, ident="plate")]
    fw = FRAME_WIDTH_MM
    out.append(
        Shape(
            "poly",
            ((fw, fw), (w - fw, fw), (w - fw, h - fw), (fw, h - fw)),
            closed=True,
            colour=BROWN,
            width=0.2,
            dash=3.0,
            ident="frame",
        )
    )
    out += _grid(b)
    out += _points(b)
    for f in features(layout, pitch):
        out += _feature(f)
    return out + _boards(b)


def _grid(b: Build) -> list[Shape]:
    """The board's drawing: its squares, or its lines."""
    out: list[Shape] = []
    g = b.geometry
    if g.shape == "squares":
        for x, y in g.coords:
            cx, cy = b.place.at(x, y)
            s = b.pitch / 2
            out.append(
                Shape(
                    "poly",
                    ((cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)),
                    closed=True,
                    colour=GREY,
                    width=0.4,
                )
            )
    else:
        for line in g.lines:
            out.append(Shape("poly", tuple(b.place.at(*g.coords[p]) for p in line), colour=GREY, width=0.4))
    return out


def _points(b: Build) -> list[Shape]:
    """Each point, its piece's footprint (orange on a home point) and its name."""
    g = b.geometry
    out: list[Shape] = []
    homes = {g.names[p] for pts in g.homes.values() for p in pts}
    r_piece = piece_diameter(b) / 2
    label = min(3.0, b.pitch / 9)
    for name in g.names:
        x, y = b.xy(name)
        out.append(
            Shape(
                "circle",
                ((x, y),),
                radius=r_piece,
                colour=ORANGE if name in homes else GREY,
                width=0.2,
                dash=1.0,
                ident="piece-" + name,
            )
        )
        out.append(Shape("circle", ((x, y),), radius=0.6, colour=BLACK, width=0.2, ident="point-" + name))
        out.append(Shape("text", ((x - r_piece * 0.7, y + r_piece * 0.7),), text=name, size=label))
    return out


def _feature(f: Feature) -> list[Shape]:
    """The shapes of one feature of ``drill.csv`` (none for those the template leaves out)."""
    out: list[Shape] = []
    if f.ident.startswith("LW-"):
        out.append(Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, colour=RED, width=0.3, ident="led-" + f.point))
        out.append(Shape("poly", ((f.x - 1, f.y), (f.x + 1, f.y)), colour=RED, width=0.15))
        out.append(Shape("poly", ((f.x, f.y - 1), (f.x, f.y + 1)), colour=RED, width=0.15))
    elif f.ident.startswith("LB-"):
        out.append(Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, colour=RED, width=0.15, dash=0.6))
    elif f.ident.startswith("RC-"):
        out.append(Shape("poly", _capsule(f), closed=True, colour=BLUE, width=0.3, ident="switch-" + f.point))
    elif f.ident.startswith("RT-"):
        out.append(Shape("poly", _capsule(f), closed=True, colour=BLUE, width=0.3, ident="switch-" + f.point))
    elif f.ident.startswith("OP-"):
        out.append(Shape("poly", _capsule(f), closed=True, colour=GREEN, width=0.2, ident="opening-" + f.ident))
    elif f.ident.startswith("RS-"):
        out.append(Shape("poly", _capsule(f), closed=True, colour=BLUE, width=0.12))
    elif f.ident.startswith("RH"):
        out.append(Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, colour=GREEN, width=0.2))
    elif f.ident.startswith("SC") and f.plate == "P1":
        out.append(Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, width=0.3, ident="screw-" + f.ident))
        out.append(Shape("circle", ((f.x, f.y),), radius=SCREW_HEAD_MM / 2, width=0.15, dash=0.8))
    elif f.ident.startswith("BT-") and f.plate == "P1":
        out.append(Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, width=0.3, ident="button-" + f.ident))
        out.append(Shape("circle", ((f.x, f.y),), radius=BUTTON_NUT_MM / 2, width=0.15, dash=0.8))
        out.append(Shape("text", ((f.x - 3, f.y + BUTTON_NUT_MM / 2 + 3),), text=f.ident.split("-")[1], size=2.5))
    elif f.ident.startswith("MT-"):
        out.append(
            Shape("circle", ((f.x, f.y),), radius=f.diameter / 2, colour=BROWN, width=0.25, ident="mount-" + f.ident)
        )
    return out


def _boards(b: Build) -> list[Shape]:
    """The boards under P2 and the USB slot (none where the boards do not fit)."""
    h = b.place.height
    out: list[Shape] = []
    try:
        spots = board_spots(b)
    except NoRoomError:
        spots = []
    for spot in spots:
        x0, y0, x1, y1 = spot.rect()
        out.append(
            Shape("poly", ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), closed=True, colour=BROWN, width=0.15, dash=1.5)
        )
        out.append(Shape("text", ((x0 + 2, y0 + 4),), text=spot.name + " (under P2)", size=2.2, colour=BROWN))
    if not spots:  # the boards do not fit at this pitch: no controller, no slot to draw
        return out
    ux = usb_slot(b)[0]
    out.append(
        Shape(
            "poly",
            ((ux - USB_SLOT_MM[0] / 2, h - 1), (ux + USB_SLOT_MM[0] / 2, h - 1)),
            colour=BROWN,
            width=0.8,
            ident="usb",
        )
    )
    out.append(Shape("text", ((ux - 6, h - 2.5),), text="USB slot", size=2.2, colour=BROWN))
    return out


LEGEND = (
    "Red: LED window 5.0 mm through P1 (dashed: 6.0 mm through P2). Blue: reed channel 15 x 2.5 mm, 2.5 deep, "
    "and lead slots 27 x 1.5 mm, 2.5 deep, in P2's top face. Green: lead holes 1.5 mm through P2.",
    "Black: screw holes 3.5 mm through P1 and P2 (dashed: countersink); buttons 7 mm through P1, 14 mm through P2. "
    "Dashed circles: piece footprint (orange: home points). Brown dashes: frame, under P2.",
    "Brown dashed boxes: the electronics boards under P2 (component side down); brown circles: 2.0 mm pilot "
    "holes through P2 for their mounting screws.",
)
PCB_LEGEND = (
    "PCB build: P2 is a 6 mm spacer over the main PCB, every cut through. Red: LED window 5.0 mm through P1 "
    "(dashed: 6.0 mm through P2). Blue: reed switch slot 22.82 x 2.5 mm through P2.",
    "Green: openings through P2 over the PCB's parts (chips, capacitors, resistors, diodes, J1). Black: screw "
    "holes 3.5 mm through P1, P2 and the PCB (dashed: countersink); buttons 7 mm through P1, 14 mm through P2.",
    "Dashed circles: piece footprint (orange: home points). Brown dashes: frame. Brown dashed box: the "
    "controller module on P3; brown circles: its 3.2 mm holes through P3.",
)


def legend(b: Build) -> tuple[str, ...]:
    return PCB_LEGEND if pcb_stack.is_pcb_build(b) else LEGEND


def _svg_shape(s: Shape, dx: float = 0.0, dy: float = 0.0) -> str:
    col = "#%02x%02x%02x" % tuple(round(c * 255) for c in s.colour)
    ident = ' id="%s"' % s.ident if s.ident else ""
    dash = ' stroke-dasharray="%s,%s"' % (num(s.dash), num(s.dash)) if s.dash else ""
    if s.kind == "circle":
        (x, y) = s.points[0]
        return '<circle%s cx="%s" cy="%s" r="%s" fill="none" stroke="%s" stroke-width="%s"%s/>' % (
            ident,
            num(x + dx),
            num(y + dy),
            num(s.radius),
            col,
            num(s.width),
            dash,
        )
    if s.kind == "text":
        (x, y) = s.points[0]
        text = s.text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return '<text x="%s" y="%s" font-size="%s" fill="%s">%s</text>' % (
            num(x + dx),
            num(y + dy),
            num(s.size),
            col,
            text,
        )
    tag = "polygon" if s.closed else "polyline"
    pts = " ".join("%s,%s" % (num(x + dx), num(y + dy)) for x, y in s.points)
    return '<%s%s points="%s" fill="none" stroke="%s" stroke-width="%s"%s/>' % (
        tag,
        ident,
        pts,
        col,
        num(s.width),
        dash,
    )


def template_svg(layout: Layout, pitch: float | None = None) -> str:
    b = build(layout, pitch)
    w, h = b.place.width, b.place.height + 24
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="%smm" height="%smm" viewBox="0 0 %s %s" '
        'font-family="sans-serif">' % (num(w), num(h), num(w), num(h)),
        "<title>%s drilling template, 1:1, pitch %s mm</title>" % (b.name, num(b.pitch)),
        "<!-- %s -->" % LICENCE_NOTICE,
    ]
    out += [_svg_shape(s) for s in drawing(layout, pitch)]
    y0 = b.place.height + 6
    out.append(
        '<path d="M10 %sh100M10 %sv4M110 %sv4" stroke="#000" stroke-width="0.4" fill="none"/>'
        % (num(y0), num(y0 - 2), num(y0 - 2))
    )
    out.append(
        '<text x="115" y="%s" font-size="3">100 mm: check the print scale. %s, pitch %s mm, plates %s x %s mm.'
        "</text>" % (num(y0 + 1), b.name, num(b.pitch), num(b.place.width), num(b.place.height))
    )
    for i, line in enumerate(legend(b)):
        out.append('<text x="10" y="%s" font-size="2.6">%s</text>' % (num(y0 + 7 + 4 * i), line))
    out.append("</svg>")
    return "\n".join(out) + "\n"
