"""The mechanical files of every board against the layout and the rules geometry: the
drill file against the template, the LED windows outside every piece, the reed switches
clear of their neighbours' magnets, the printer tiles, the wiring lengths and the BOM."""

from __future__ import annotations

import csv
import io
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from zuniboard.games import layouts
from zuniboard.hardware import (
    board_spots,
    bom_mechanical,
    drill,
    fmt,
    magnets,
    mechanics_doc,
    pcb_stack,
    placement,
    plates,
    stack,
    template,
    template_print,
    wiring,
)
from zuniboard.hardware import generate as hardware

REPO = Path(__file__).resolve().parents[2]
NAMES = [p.stem for p in layouts.layout_paths()]
SVG = "{http://www.w3.org/2000/svg}"
# docs/rules.md: pieces of a whole game set (Mosona 12 each; Kolowis 24 each; Awithlaknakwe six
# warriors for each of four players plus four bow priests with priests=each).
PIECES = {"board25": 24, "board25-matrix": 24, "board49": 48, "board168": 28}


# The boards built by hand under P2 (perfboard strips, wires, P2's channels); the PCB build
# has its own tests (test_pcb_stack.py).
WIRED = [n for n in NAMES if not pcb_stack.is_pcb_build(placement.build(layouts.load_layout(n)))]


@pytest.fixture(scope="module", params=NAMES)
def layout(request: pytest.FixtureRequest) -> Any:
    return layouts.load_layout(request.param)


@pytest.fixture(scope="module", params=WIRED)
def wired(request: pytest.FixtureRequest) -> Any:
    return layouts.load_layout(request.param)


def _read(layout: Any, name: str) -> str:
    return (REPO / "hardware" / str(layout.name) / name).read_text()


def _drill(layout: Any) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(_read(layout, "drill.csv"))))


def _svg(layout: Any) -> ET.Element:
    return ET.parse(REPO / "hardware" / layout.name / "template.svg").getroot()


def _circles(root: ET.Element) -> list[tuple[str, float, float, float]]:
    return [
        (el.get("id", ""), float(el.get("cx", "nan")), float(el.get("cy", "nan")), float(el.get("r", "nan")))
        for el in root.iter(SVG + "circle")
    ]


def _polygons(root: ET.Element) -> list[list[tuple[float, float]]]:
    out = []
    for el in root.iter(SVG + "polygon"):
        pts = [tuple(float(v) for v in p.split(",")) for p in el.get("points", "").split()]
        out.append([(p[0], p[1]) for p in pts])
    return out


def test_every_drill_row_is_drawn_on_the_template(layout: Any) -> None:
    """Holes: a circle of the same centre and radius; slots: an outline with that centre and
    that overall length. P3's holes are under P1's screw holes. And every hole circle of the
    template has its row."""
    root = _svg(layout)
    circles = _circles(root)
    polys = _polygons(root)
    rows = _drill(layout)
    outlines = [
        (
            sum(p[0] for p in poly) / len(poly),
            sum(p[1] for p in poly) / len(poly),
            max(math.dist(p, q) for p in poly for q in poly),
        )
        for poly in polys
    ]
    assert rows and set(rows[0]) == set(drill.DRILL_COLUMNS.split(","))
    for row in rows:
        x, y, depth = float(row["x_mm"]), float(row["y_mm"]), float(row["depth_mm"])
        assert depth > 0, row
        assert (row["through"] == "yes") == (depth >= {"P1": 3.0, "P2": 6.0, "P3": 3.0}[row["plate"]]), row
        if row["shape"] == "hole":
            r = float(row["diameter_mm"]) / 2
            assert any(abs(cx - x) < 0.01 and abs(cy - y) < 0.01 and abs(cr - r) < 0.01 for _, cx, cy, cr in circles), (
                row
            )
        else:
            length = float(row["length_mm"])
            found = any(
                abs(cx - x) < 0.05 and abs(cy - y) < 0.05 and abs(extent - length) < 0.05 for cx, cy, extent in outlines
            )
            assert found, row
    holes = {
        (round(float(r["x_mm"]), 2), round(float(r["y_mm"]), 2), float(r["diameter_mm"]))
        for r in rows
        if r["shape"] == "hole"
    }
    for ident, cx, cy, cr in circles:
        if ident.startswith(("led-", "screw-", "button-")):
            assert (round(cx, 2), round(cy, 2), round(2 * cr, 2)) in holes, ident


def test_template_pitch_is_the_rules_geometry(layout: Any) -> None:
    """Neighbouring points are one pitch apart on the template and in drill.csv (LED windows
    all sit at the same offset from their points, so their spacing is the points')."""
    geometry = layouts.board_geometry(layout.rulesets[0])
    pitch = layout.mechanics["pitch_mm"]
    points = {i[len("point-") :]: (x, y) for i, x, y, _ in _circles(_svg(layout)) if i.startswith("point-")}
    leds = {r["point"]: (float(r["x_mm"]), float(r["y_mm"])) for r in _drill(layout) if r["feature"].startswith("LW-")}
    assert set(points) == set(leds) == set(geometry.names)
    for a, b in zip(geometry.names, geometry.names[1:], strict=False):
        (xa, ya), (xb, yb) = geometry.coords[geometry.index[a]], geometry.coords[geometry.index[b]]
        rules = math.hypot(xa - xb, ya - yb) * pitch
        assert math.dist(points[a], points[b]) == pytest.approx(rules, abs=0.02)
        assert math.dist(leds[a], leds[b]) == pytest.approx(rules, abs=0.02)


def test_light_is_outside_every_piece(layout: Any) -> None:
    """Every LED window, measured on the template, lies outside every piece footprint (the
    piece off its point by the placement slop), and its own point is the nearest one."""
    circles = _circles(_svg(layout))
    points = {i[len("point-") :]: (x, y) for i, x, y, _ in circles if i.startswith("point-")}
    piece_r = {i[len("piece-") :]: r for i, _, _, r in circles if i.startswith("piece-")}
    for row in _drill(layout):
        if not row["feature"].startswith("LW-"):
            continue
        x, y, r = float(row["x_mm"]), float(row["y_mm"]), float(row["diameter_mm"]) / 2
        for name, (px, py) in points.items():
            gap = math.dist((x, y), (px, py)) - piece_r[name] - stack.PLACEMENT_SLOP_MM - r
            assert gap > 0, (row["point"], name, gap)
        assert min(points, key=lambda n: math.dist((x, y), points[n])) == row["point"]
    assert mechanics_doc.light_clearance_mm(layout)[0] > 0


def test_no_two_features_of_a_plate_meet(layout: Any) -> None:
    assert plates.collisions(drill.features(layout)) == []


def test_a_collision_is_caught() -> None:
    feats = drill.features(layouts.load_layout("board49"))
    led = next(f for f in feats if f.ident == "LB-m5")
    moved = [f for f in feats if f is not led]
    # The same LED hole 3 mm from the end of m5's lead slot: not enough wood between them.
    lead = next(f for f in feats if f.ident == "RHa-m5")
    moved.append(plates.Feature("LB-m5", "m5", "P2", "top", lead.x, lead.y - 3.5, 0.0, 6.0, 0.0, 6.0, "", ""))
    assert {c[:2] for c in plates.collisions(moved)} == {("RHa-m5", "LB-m5"), ("RS-m5", "LB-m5")}


def test_reed_channel_keeps_the_leads_straight() -> None:
    # magnets.md: a 14 x 2 mm glass; makers ask 3 mm between a bend and the glass seal.
    assert stack.CHANNEL_LEN_MM >= 14.0 + 2 * 0.5
    assert stack.CHANNEL_WIDTH_MM >= 2.0 + 2 * 0.2
    assert stack.CHANNEL_DEPTH_MM - 2.0 >= 0.3  # P1 never presses on the glass
    lead_floor_above_channel_floor = 1.0 - 0.3  # glass axis 1 mm up, lead radius 0.3 mm
    assert stack.CHANNEL_DEPTH_MM >= stack.CHANNEL_DEPTH_MM - lead_floor_above_channel_floor
    bend_from_seal = (stack.SLOT_LEN_MM - 14.0) / 2 - stack.LEAD_HOLE_MM
    assert bend_from_seal >= 3.0


def test_lead_holes_end_the_slots(wired: Any) -> None:
    layout = wired
    rows = {r["feature"]: r for r in _drill(layout)}
    for name in layout.points:
        slot = rows["RS-" + name]
        assert float(slot["depth_mm"]) == float(rows["RC-" + name]["depth_mm"])
        for end in "ab":
            hole = rows["RH%s-%s" % (end, name)]
            d = math.dist((float(hole["x_mm"]), float(hole["y_mm"])), (float(slot["x_mm"]), float(slot["y_mm"])))
            assert d + float(hole["diameter_mm"]) / 2 == pytest.approx(float(slot["length_mm"]) / 2, abs=0.02)


def test_magnets_close_their_own_switch_and_no_other(layout: Any) -> None:
    """magnets.md's rule, with the field model: the own switch at least 10 times the drive
    of any other magnet, pieces 2 mm off; the own drive above the switch's highest pull-in
    (20 AT) with margin, the worst neighbour's below a quarter of its lowest (10 AT)."""
    ff = magnets.field_figures(layout)
    assert ff.own_min >= 2 * stack.PULL_IN_AT[1]
    assert ff.neighbour_max <= stack.PULL_IN_AT[0] / 3
    assert ff.own_min / ff.neighbour_max >= 10
    assert ff.nearest_glass_mm >= 20.0


def test_the_old_east_switches_of_board49_fail_the_rule() -> None:
    """The check catches the fault the issue found: switches along the row put a magnet
    17 mm from its neighbour's glass, in line with it."""
    layout = layouts.load_layout("board49")
    layout.mechanics["switch_angle_deg"] = 0.0
    ff = magnets.field_figures(layout)
    assert ff.nearest_glass_mm == pytest.approx(17.0) and ff.along_axis_deg == pytest.approx(0.0)
    assert ff.neighbour_max > stack.PULL_IN_AT[0] / 3


def test_drive_model_dead_zone_and_dipole() -> None:
    # A magnet over the middle of a switch drives both halves alike: no drive.
    assert magnets.reed_drive(0, 0, 0, 0, 0.0) == pytest.approx(0.0, abs=1e-9)
    # Far away, the dipole approximation agrees with the integrated faces within 3 %.
    exact = magnets.reed_drive(15, -30, 0, -6, -90.0)
    assert magnets.reed_drive(15, -30, 0, -6, -90.0, exact=False) == pytest.approx(exact, rel=0.03)


def _pdf_pages(data: bytes) -> list[tuple[float, float, bytes]]:
    out = []
    for m in re.finditer(rb"/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\] /Contents (\d+) 0 R", data):
        obj = re.search(rb"\n%s 0 obj\n<< /Length (\d+) >>\nstream\n" % m.group(3), data)
        assert obj is not None
        start = obj.end()
        out.append(
            (float(m.group(1)) * 25.4 / 72, float(m.group(2)) * 25.4 / 72, data[start : start + int(obj.group(1))])
        )
    return out


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_tiles_cover_the_plates_on_printer_pages(layout: Any, paper: str) -> None:
    data = (REPO / "hardware" / layout.name / ("template-%s.pdf" % paper)).read_bytes()
    pages = _pdf_pages(data)
    t = template_print.tiling(layout, paper)
    assert len(pages) == t.pages + 1 == int(re.search(rb"/Count (\d+)", data).group(1))  # type: ignore[union-attr]
    size = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}[paper]
    b = placement.build(layout)
    assert t.cols * t.step_x == pytest.approx(b.place.width) and t.rows * t.step_y == pytest.approx(b.place.height)
    for i, (w, h, content) in enumerate(pages):
        assert sorted((w, h)) == pytest.approx(sorted(size), abs=0.05)
        if i:
            # the tile and its label fit inside the 10 mm margins
            assert t.tile_w + 20 <= w + 1e-6 and t.tile_h + 20 + template_print.LABEL_BAND_MM <= h + 1e-6
            assert b"page %d of %d" % (i + 1, len(pages)) in content
            assert b"100 mm" in content
    assert b"bank card" in pages[0][2]
    # every cross inside the plates is on every tile that covers it: at least two pages
    # share each interior cross, so the pages can be laid cross on cross
    for cx, cy in t.crosses():
        on = [
            (c, r)
            for c in range(t.cols)
            for r in range(t.rows)
            if t.origin(c, r)[0] <= cx <= t.origin(c, r)[0] + t.tile_w
            and t.origin(c, r)[1] <= cy <= t.origin(c, r)[1] + t.tile_h
        ]
        interior = 0 < cx < b.place.width - 1 or 0 < cy < b.place.height - 1
        assert on and (len(on) >= 2 or not interior or t.pages == 1)


def test_pdf_xref_offsets_point_at_objects(layout: Any) -> None:
    for pdf in (template_print.tiled_pdf(layout, "a4"), template_print.template_pdf(layout)):
        start = int(pdf.rsplit(b"startxref\n", 1)[1].split()[0])
        table = pdf[start:].split(b"\n")
        count = int(table[1].split()[1])
        for i, entry in enumerate(table[3 : 2 + count], 1):
            assert pdf[int(entry.split()[0]) :].startswith(b"%d 0 obj" % i)


def _wiring(layout: Any) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(_read(layout, "wiring.csv"))))


def test_wiring_lengths_derive_from_the_layout(wired: Any) -> None:
    layout = wired
    """LED data hops follow the layout's LED order between the drilled LED windows, each as
    long as its Manhattan distance plus the slack; every point has its sensor wires, wired
    to the input the netlist names."""
    rows = _wiring(layout)
    leds = {r["point"]: (float(r["x_mm"]), float(r["y_mm"])) for r in _drill(layout) if r["feature"].startswith("LW-")}
    order = sorted(layout.points, key=lambda n: layout.points[n][1])
    hops = {r["wire"]: r for r in rows if r["group"] == "LED data" and r["wire"][2:].isdigit()}
    assert any(r["wire"] == "LDG0" for r in rows)  # LD0's own return
    assert len(hops) == len(order)
    for i in range(1, len(order)):
        row = hops["LD%d" % i]
        assert row["to"] == "LED%d DIN (%s)" % (i, order[i])
        a, b = leds[order[i - 1]], leds[order[i]]
        run = abs(a[0] - b[0]) + abs(a[1] - b[1]) + wiring.WIRE_SLACK_MM
        assert float(row["length_mm"]) == math.ceil(run / 5 - 1e-9) * 5
    for row in rows:
        assert int(row["awg"]) in (22, 26, 28) and float(row["length_mm"]) > 0
        ends = math.dist(
            (float(row["from_x_mm"]), float(row["from_y_mm"])), (float(row["to_x_mm"]), float(row["to_y_mm"]))
        )
        assert float(row["length_mm"]) >= ends  # no wire shorter than the straight line between its ends
    netlist = _read(layout, "netlist.txt")
    if layout.sensors["type"] == "hc165":
        for name, (sensor, _) in layout.points.items():
            wire = next(r for r in rows if r["wire"] == "S_" + name)
            pin = wire["to"].split("= ")[1]  # SB2 pad SW_n1.1 = U12.5(G)
            assert wire["to"].startswith("SB%d pad SW_%s.1 " % (sensor // 8, name)), wire
            assert re.search(r"\nS%d_%s +%s " % (sensor, name, re.escape(pin)), netlist), (name, pin)
            assert any(r["wire"] == "G_" + name for r in rows)
    else:
        switches = [r for r in rows if r["group"] == "matrix"]
        assert len(switches) == 2 * len(layout.points)


def test_wiring_scales_with_the_pitch() -> None:
    small = layouts.load_layout("board168")
    large = layouts.load_layout("board168")
    large.mechanics["pitch_mm"] = 38.0
    hop = {w.ident: w.length_mm for w in wiring.wires(small)}["LD5"]
    assert {w.ident: w.length_mm for w in wiring.wires(large)}["LD5"] == hop + 10.0


def test_mechanical_bom(layout: Any) -> None:
    rows = list(csv.DictReader(io.StringIO(_read(layout, "bom-mechanical.csv"))))
    assert list(rows[0]) == list(bom_mechanical.BOM_COLUMNS)
    by_ref = {r["refs"]: r for r in rows}
    assert int(by_ref["MAG"]["qty"]) == int(by_ref["PC"]["qty"]) == PIECES[layout.name]
    b = placement.build(layout)
    assert "wooden disc %s x" % fmt.num(placement.piece_diameter(b)) in by_ref["PC"]["value"]
    for plate in ("P1", "P2", "P3"):
        assert "%s x %s mm" % (fmt.num(b.place.width), fmt.num(b.place.height)) in by_ref[plate]["value"]
    screws = [r for r in _drill(layout) if r["feature"].startswith("SC") and r["plate"] == "P1"]
    assert int(by_ref["SCT"]["qty"]) == len(screws)
    wire_m: dict[int, float] = {}
    for r in _wiring(layout):
        wire_m[int(r["awg"])] = wire_m.get(int(r["awg"]), 0.0) + float(r["length_mm"]) / 1000
    for awg, metres in wire_m.items():
        assert float(by_ref["W%d" % awg]["qty"]) >= metres * 1.2
    for r in rows:
        assert float(r["unit_price_usd"]) > 0 and float(r["qty"]) > 0
        assert r["supplier_1"], r
    if layout.name in WIRED and layout.sensors["type"] == "hc165":
        assert int(by_ref["IC-S"]["qty"]) == layout.sensor_count // 8
    elif layout.name not in WIRED:  # the PCB build: the chips are on the PCBs, no sockets or chain plugs
        assert not {"IC-S", "IC-L", "JC", "JCH"} & set(by_ref)


def test_template_svg_is_what_hardware_writes(layout: Any) -> None:
    assert hardware.template_svg(layout) == template.template_svg(layout)
    assert hardware.drill_csv(layout) == _read(layout, "drill.csv")


def test_placement_tolerance_figures_are_printed_and_hold() -> None:
    """The millimetre figures of magnets.md: a piece well off its point still closes its own
    switch, and only a push far beyond the placement slop closes a neighbour's."""

    text = (REPO / "hardware" / "magnets.md").read_text()
    for name, label in (("board25", "25-point board"), ("board49", "49-point"), ("board168", "168-square")):
        layout = layouts.load_layout(name)
        tol = magnets.placement_tolerance(layout)
        assert tol.own_closed_mm >= 2 * stack.PLACEMENT_SLOP_MM, (name, tol)
        assert tol.toggle_mm >= 4 * stack.PLACEMENT_SLOP_MM, (name, tol)
        # magnets.md gives the hand-wired stack's figures (the channel in P2).
        hand = magnets.placement_tolerance(layout, reed=magnets.CHANNEL_REED)
        assert "%s: %s mm" % (label, fmt.num(hand.toggle_mm)) in text, (name, hand)
        assert (
            "%s mm** off its point" % fmt.num(tol.own_closed_mm)
            in (REPO / "hardware" / name / "mechanics.md").read_text()
        )


def test_electronics_boards_fit_under_p2(wired: Any) -> None:
    layout = wired
    """Every perfboard piece has a place under P2: inside the frame, no two boards meeting,
    none under a button pocket, its mounting pilots inside its outline and drilled (MT-*
    rows, clear of every other hole by test_no_two_features_of_a_plate_meet); the wires
    start and end at these places; the controller's USB edge is at the South frame."""
    b = placement.build(layout)
    spots = board_spots.board_spots(b)
    from zuniboard.hardware import circuit, perfboard

    c = circuit.build(layout)
    pieces = perfboard.pieces(layout, c)
    assert [s.name for s in spots] == [p[0] for p in pieces]
    inner = stack.FRAME_WIDTH_MM
    for i, s in enumerate(spots):
        x0, y0, x1, y1 = s.rect()
        assert (s.width, s.height) == (pieces[i][1] * perfboard.GRID, pieces[i][2] * perfboard.GRID)
        assert inner < x0 and x1 < b.place.width - inner and inner < y0 and y1 < b.place.height - inner, s
        for t in spots[i + 1 :]:
            a0, b0, a1, b1 = t.rect()
            assert (
                x1 + stack.BOARD_GAP_MM <= a0 + 1e-9
                or a1 + stack.BOARD_GAP_MM <= x0 + 1e-9
                or (y1 + stack.BOARD_GAP_MM <= b0 + 1e-9 or b1 + stack.BOARD_GAP_MM <= y0 + 1e-9)
            ), (s.name, t.name)
        for _, bx, by in plates.button_positions(b):
            nx, ny = min(max(bx, x0), x1), min(max(by, y0), y1)
            assert math.hypot(nx - bx, ny - by) > stack.BUTTON_NUT_MM / 2, (s.name, bx, by)
        assert len(s.mounts) in ((3, 4) if i == 0 else (2,))
        plan = perfboard.controller_plan(c) if i == 0 else perfboard.strip_plan(c, layout)
        wires = perfboard.net_wires(c, plan)
        for mx, my in s.mounts:
            assert x0 < mx < x1 and y0 < my < y1
            hole = perfboard.plan_hole(s.rect(), (mx, my))
            assert hole == pytest.approx((round(hole[0]), round(hole[1])))  # on a hole of the grid
            assert board_spots.plan_clear(plan, wires, hole), (s.name, hole)
    pilots = {
        (round(float(r["x_mm"]), 2), round(float(r["y_mm"]), 2))
        for r in _drill(layout)
        if r["feature"].startswith("MT-")
    }
    assert pilots == {(round(x, 2), round(y, 2)) for s in spots for x, y in s.mounts}
    bom_rows = {r["refs"]: r for r in csv.DictReader(io.StringIO(_read(layout, "bom-mechanical.csv")))}
    assert int(bom_rows["SP"]["qty"]) == int(bom_rows["SCS"]["qty"]) == len(pilots)
    ctl = spots[0]
    assert ctl.rect()[3] == pytest.approx(b.place.height - stack.FRAME_WIDTH_MM - stack.BOARD_GAP_MM / 2)
    usb_x = board_spots.usb_slot(b)[0]
    assert ctl.rect()[0] < usb_x < ctl.rect()[2]
    by_name = {s.name.split()[0]: s for s in spots}
    for r in _wiring(layout):
        for end, x, y in ((r["from"], r["from_x_mm"], r["from_y_mm"]), (r["to"], r["to_x_mm"], r["to_y_mm"])):
            board = end.split()[0]
            if board in by_name:  # a wire end on a board lies on that board, at its pad
                x0, y0, x1, y1 = by_name[board].rect()
                assert x0 < float(x) < x1 and y0 < float(y) < y1, (r["wire"], end)


def test_the_stack_under_p2_has_room() -> None:
    """The USB slot lies inside the frame's height at the Pico's socket; the LED legs and
    the reed leads end above the boards; the board screws bite the wood and stop short of
    P2's top face; the BOM's reed switch fits the channel and leaves its leads long enough
    to solder under P2."""
    m = stack
    slot = (m.USB_CENTRE_BELOW_P2_MM - m.USB_SLOT_MM[1] / 2, m.USB_CENTRE_BELOW_P2_MM + m.USB_SLOT_MM[1] / 2)
    assert 0 < slot[0] and slot[1] < m.FRAME_HEIGHT_MM, slot
    assert m.LED_LEG_BELOW_P2_MM < m.SPACER_MM and m.reed_lead_below_p2_mm() + 2 < m.SPACER_MM
    assert 3.0 <= m.MOUNT_BITE_MM < m.P2_MM - m.CHANNEL_DEPTH_MM
    assert m.REED_PART_GLASS_MM <= m.CHANNEL_LEN_MM - 1 and m.REED_PART_DIA_MM < m.CHANNEL_WIDTH_MM
    assert 2.0 <= m.reed_lead_below_p2_mm() <= 4.0, m.reed_lead_below_p2_mm()
    layout = layouts.load_layout("board25-matrix")  # a hand-wired build: its boards hang under P2
    bom_rows = {r["refs"]: r for r in csv.DictReader(io.StringIO(_read(layout, "bom-mechanical.csv")))}
    assert "%s x %s mm" % (fmt.num(m.MOUNT_SCREW[0]), fmt.num(m.MOUNT_SCREW[1])) in bom_rows["SCS"]["value"]
    assert "x %s mm" % fmt.num(m.FRAME_HEIGHT_MM) in bom_rows["FR"]["value"]


def test_perfboard_pieces_pack_onto_the_boards_the_bom_orders(layout: Any) -> None:
    """Each piece of perfboard.svg once, inside a 100 x 160 mm board, no two overlapping;
    the BOM orders exactly that many boards (board25: the controller and a strip on one,
    the other three 81 mm strips on a second)."""
    from zuniboard.hardware import bom, circuit, perfboard

    c = circuit.build(layout)
    packed = perfboard.stock_layout(layout, c)
    names = sorted(n for board in packed for n, *_ in board)
    assert names == sorted(p[0] for p in perfboard.pieces(layout, c))
    width, height = perfboard.STOCK_HOLES
    assert width * perfboard.GRID <= perfboard.STOCK_MM[0] and height * perfboard.GRID <= perfboard.STOCK_MM[1]
    for board in packed:
        for i, (_, x, y, w, h) in enumerate(board):
            assert 0 <= x and x + w <= width and 0 <= y and y + h <= height
            for _, x2, y2, w2, h2 in board[i + 1 :]:
                assert x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y
    rows = list(csv.DictReader(io.StringIO(_read(layout, "bom.csv"))))
    if layout.sensors["type"] == "hc165":  # built on the PCBs: no perfboard to order
        assert not [r for r in rows if r["part"] == "Perfboard"]
        return
    assert int(next(r for r in rows if r["part"] == "Perfboard")["qty"]) == len(packed)
    assert bom.PERFBOARD[6].startswith("100 x 160 mm")


def test_assembly_builds_in_an_order_that_works(wired: Any) -> None:
    layout = wired
    """The pieces exist before the reed switches are tested with one; both template copies
    are printed; every wire group and the parts fitted off the boards (R1, every CLk) are
    named; the LED leads have their pin order; the chain header's pin order is the one of
    wiring.csv; the USB cable length is the one power.md counts."""
    from zuniboard.hardware import power

    text = _read(layout, "assembly.md")
    stages = re.findall(r"^## (\d+)\. (.*)$", text, re.M)
    assert [int(n) for n, _ in stages] == list(range(len(stages)))
    order = [title for _, title in stages]
    leds = next(t for t in order if t.startswith("LEDs"))
    assert order.index("Pieces") < order.index("Reed switches") < order.index(leds)
    if layout.buttons:
        assert leds == "LEDs and buttons" and "nut tightened from below" in text
    assert "**twice**" in text and "copy B" in text
    assert "CL<k>" in text and "R1" in text and "1 DIN, 2 VDD, 3 GND, 4 DOUT" in text
    groups = {r["group"] for r in _wiring(layout)}
    prefixes = {"LED data": "LD", "LED power": "LPP*/LPG*", "sensors": "S_<point>", "sensor chain": "C<k>_*"}
    prefixes |= {"buttons": "B_*", "matrix": "ROW*"}
    for g in groups:
        assert prefixes[g] in text, g
    if layout.sensors["type"] == "hc165":
        assert wiring.chain_pin_text() in text
        for r in _wiring(layout):
            if r["group"] == "sensor chain":
                sig = r["wire"].split("_", 1)[1]
                pin = 1 + [s for s, _ in wiring.CHAIN_PINS].index(sig)
                assert r["to"].endswith("(IN pin %d)" % pin), r
    assert "at most %s m" % fmt.num(power.CABLE_M) in _read(layout, "mechanics.md")
    assert "USB cable, %s m" % fmt.num(power.CABLE_M) in _read(layout, "power.md")


def test_power_md_rail_is_the_wiring_of_wiring_csv(wired: Any) -> None:
    layout = wired
    """The LED rail drop of power.md is computed over the very wires of wiring.csv: each
    row's pair is its feed plus its bus plus the slack, and power.md prints the longest."""
    from zuniboard.hardware import power

    feeds = wiring.led_feeds(layout)
    pairs = [r for r in _wiring(layout) if r["wire"].startswith("LPP")]
    assert len(pairs) == len(feeds)
    for (names, feed, bus), row in zip(feeds, pairs, strict=True):
        assert "%s..%s" % (names[0], names[-1]) in row["to"]
        run = (feed + bus) * 1000 + wiring.WIRE_SLACK_MM
        assert run <= float(row["length_mm"]) < run + wiring.WIRE_ROUND_MM
    r = power.rail(layout, wiring.led_feeds(layout))
    assert r.trunk_m == max(f for _, f, _ in feeds) and r.longest_row_m == max(b for _, _, b in feeds)
    text = _read(layout, "power.md")
    assert "| longest feed, controller to a row's West end | %.2f m per conductor" % r.trunk_m in text
    assert "**%.3f V**" % r.rail_drop_v in text and "**%.2f V**" % r.far_led_v in text


def test_a_mounting_hole_on_a_pad_or_a_wire_is_refused() -> None:
    layout = layouts.load_layout("board25")
    from zuniboard.hardware import circuit, perfboard

    c = circuit.build(layout)
    plan = perfboard.controller_plan(c)
    wires = perfboard.net_wires(c, plan)
    pad = next(iter(plan.pads.values()))
    assert not board_spots.plan_clear(plan, wires, (float(pad[0]), float(pad[1])))
    assert not board_spots.plan_clear(plan, wires, (2.0, 21.0))  # the Pico's header, pin 20: not wired
    edge = next(iter(plan.edge.values()))
    assert not board_spots.plan_clear(plan, wires, (float(edge[0]), float(edge[1])))
    path = next(p for p in wires.values() if len(p) > 1)
    mid = ((path[0][0] + path[1][0]) / 2, (path[0][1] + path[1][1]) / 2)
    assert not board_spots.plan_clear(plan, wires, mid)


def test_every_wire_end_on_a_board_is_one_of_its_edge_pads(wired: Any) -> None:
    layout = wired
    """A wire that ends on the controller or a strip names an edge pad its perfboard plan
    has (or a switch pad of the strip): no end a builder cannot find."""
    from zuniboard.hardware import circuit, perfboard

    c = circuit.build(layout)
    edges = {"controller": set(perfboard.controller_plan(c).edge)}
    if layout.sensors["type"] == "hc165":
        strip = perfboard.strip_plan(c, layout)
        edges.update({"SB%d" % k: set(strip.edge) for k in range(layout.sensor_count // 8)})
    ends = 0
    for row in _wiring(layout):
        for end in (row["from"], row["to"]):
            m = re.match(r"(controller|SB\d+) (edge pad|pad) (\S+)", end)
            if end.startswith(("controller", "SB")):
                assert m, end
                ends += 1
                if m.group(2) == "edge pad":
                    assert m.group(3) in edges[m.group(1)], end
                else:
                    assert re.fullmatch(r"SW_\w+\.[12]", m.group(3)), end
    assert ends >= 10  # LED power, LD0, buttons, chain or matrix buses


def test_boards_that_do_not_fit_are_named() -> None:
    """A layout too small for its electronics gets an error that names it and the boards,
    and its template (at that pitch) is still drawn, without mounting holes."""
    layout = layouts.load_layout("board25")
    layout.mechanics["pitch_mm"] = 12.0
    with pytest.raises(board_spots.NoRoomError, match=r"board25: no .*controller board"):
        wiring.wires(layout)
    assert not [f for f in drill.features(layout) if f.ident.startswith("MT-")]
    assert "<svg" in template.template_svg(layout)
