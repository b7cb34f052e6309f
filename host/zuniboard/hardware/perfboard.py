"""Perfboard plans, drawn 1:1 from the circuit (``circuit.build``): the controller board
and one sensor strip (a 74HC165 group), on 2.54 mm perfboard with one pad per hole.

Parts sit on the grid (seen from the component side); every net is drawn as the wire
links to solder on the copper side, pad to pad in the order drawn; a net that leaves the
board ends at an edge pad labelled with its name (the wiring table names the wire).
Perfboard rather than stripboard: no strip cuts to forget, and every connection on the
plan is one wire that a continuity tester can check against ``netlist.txt``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zuniboard.hardware.circuit import FIRST_HC165, Circuit
from zuniboard.hardware.drawing import Page
from zuniboard.hardware.drawing import svg as svg_pages

if TYPE_CHECKING:
    from zuni_board.layout import Layout

GRID = 2.54
WIRING_LINE_CHARS = 100  # one column of the wiring list: 95 mm at 1.7 mm type
COLOURS = {"+5V": "#d00", "VBUS": "#f80", "+3V3": "#c6c", "GND": "#000"}


@dataclass
class Plan:
    title: str
    columns: int
    rows: int
    pads: dict[tuple[str, str], tuple[int, int]]  # (ref, pin) -> hole
    outlines: list[tuple[str, int, int, int, int]]  # ref, x, y, w, h (holes)
    edge: dict[str, tuple[int, int]]  # off-board net -> edge pad


def _dip(pads: dict[tuple[str, str], tuple[int, int]], ref: str, pins: int, x: int, y: int, span: int) -> None:
    half = pins // 2
    for i in range(half):
        pads[(ref, str(i + 1))] = (x, y + i)
        pads[(ref, str(pins - i))] = (x + span, y + i)


# Controller board: where each two-pin part sits (pin 1 hole, pin 2 hole), chosen so that
# most links are short and straight: U3 beside the Pico's VBUS pin, U2 beside GP22, the
# terminations beside GP18/GP17, the EN pull-down R6 below U3.
CONTROLLER_TWO_PIN = {
    "C1": ((12, 6), (13, 6)),
    "R2": ((17, 3), (21, 3)),
    "R3": ((21, 5), (17, 5)),
    "C3": ((18, 1), (19, 1)),
    "C2": ((17, 9), (18, 9)),
    "R6": ((16, 7), (20, 7)),  # EN pull-down, between U3 and U2
    "R4": ((11, 18), (15, 18)),
    "R5": ((11, 20), (15, 20)),
}


def controller_plan(c: Circuit) -> Plan:
    pads: dict[tuple[str, str], tuple[int, int]] = {}
    outlines: list[tuple[str, int, int, int, int]] = []
    # Pico: 2 x 20 pins, 17.78 mm (7 holes) apart; pin 1 top left, pin 40 top right.
    for number in range(1, 21):
        if ("U1", str(number)) in _pins(c, "U1"):
            pads[("U1", str(number))] = (2, 1 + number)
        if ("U1", str(41 - number)) in _pins(c, "U1"):
            pads[("U1", str(41 - number))] = (9, 1 + number)
    outlines.append(("U1 Pico (USB up)", 1, 1, 9, 21))
    _dip(pads, "U3", 6, 12, 2, 3)
    outlines.append(("U3 TPS2553 adapter", 11, 1, 5, 4))
    _dip(pads, "U2", 14, 12, 10, 3)
    outlines.append(("U2 74AHCT125", 11, 9, 5, 8))
    for ref, (one, two) in CONTROLLER_TWO_PIN.items():
        if ref not in c.parts:
            continue
        pads[(ref, "1")] = one
        pads[(ref, "2")] = two
        x, y = min(one[0], two[0]), one[1]
        outlines.append((ref, x - 1, y - 1, abs(two[0] - one[0]) + 2, 2))
    edge = _edge_nets(c, pads, 25)
    return Plan("controller board", 27, max(24, max(r for _, r in edge.values()) + 1), pads, outlines, edge)


def strip_plan(c: Circuit, layout: Layout) -> Plan:
    """The first sensor strip: its 74HC165, pull-up network and capacitor, then a pad pair
    for each of its eight switches (the switch's two wires end there; the strip sits in
    the middle of its group, so no switch wire is longer than four point spacings)."""
    u = "U%d" % FIRST_HC165
    rn = "RN%d" % FIRST_HC165
    cap = "C%d" % FIRST_HC165
    pads: dict[tuple[str, str], tuple[int, int]] = {}
    _dip(pads, u, 16, 2, 2, 3)
    outlines = [(u + " 74HC165", 1, 1, 5, 9)]
    # the network's common, then the eight elements in use
    rn_pins = [p for p in c.parts[rn].pins if p.name == "COM"]
    rn_pins += [p for p in c.parts[rn].pins if p.name != "COM" and p.number not in c.parts[rn].no_connect]
    for k, pin in enumerate(rn_pins, 1):
        pads[(rn, pin.number)] = (8, 1 + k)
    outlines.append((rn, 7, 1, 2, 10))
    pads[(cap, "1")] = (11, 2)
    pads[(cap, "2")] = (11, 3)
    outlines.append((cap, 10, 1, 2, 3))
    step = 2  # switch pad pairs 5.08 mm apart: the strip is 81 x 38 mm, four to a 100 x 160 mm board
    by_sensor = {layout.points[name][0]: name for name in layout.points}
    for bit in range(8):
        if bit not in by_sensor:
            continue
        ref = "SW_%s" % by_sensor[bit]
        x = 14 + bit * step
        pads[(ref, "1")] = (x, 12)
        pads[(ref, "2")] = (x, 13)
        outlines.append((ref[3:], x - 1, 11, 2, 3))
    columns = 14 + 8 * step + 2
    edge = _edge_nets(c, pads, columns - 2)
    rows = max(14, max(r for _, r in edge.values()) + 1)
    title = (
        "sensor strip (U%d; every group alike): it sits among its 8 points; each switch's two wires end at its pads"
        % (FIRST_HC165)
    )
    return Plan(title, columns, rows, pads, outlines, edge)


def _pins(c: Circuit, ref: str) -> set[tuple[str, str]]:
    return {(ref, p.number) for p in c.parts[ref].pins}


def _edge_nets(c: Circuit, pads: dict[tuple[str, str], tuple[int, int]], x: int) -> dict[str, tuple[int, int]]:
    """Nets with a pin on this board and another pin elsewhere get an edge pad, on the
    right edge, as near the row of the net's rightmost pad as a free row allows."""
    edge: dict[str, tuple[int, int]] = {}
    taken: set[int] = set()
    for net, nodes in c.nets.items():
        here = [pads[n] for n in nodes if n in pads]
        if here and len(here) < len(set(nodes)):
            want = max(here)[1]
            row = min((r for r in range(1, 60) if r not in taken), key=lambda r: (abs(r - want), r))
            taken.add(row)
            edge[net] = (x, row)
    return edge


def net_wires(c: Circuit, plan: Plan) -> dict[str, list[tuple[int, int]]]:
    """Per net, the holes its wire visits in order (nearest neighbour from the first pad)."""
    out: dict[str, list[tuple[int, int]]] = {}
    for net, nodes in c.nets.items():
        holes = [plan.pads[n] for n in nodes if n in plan.pads]
        if net in plan.edge:
            holes.append(plan.edge[net])
        holes = list(dict.fromkeys(holes))
        if len(holes) < 2:
            continue
        path = [holes.pop(0)]
        while holes:
            nxt = min(holes, key=lambda h: math.dist(h, path[-1]))
            holes.remove(nxt)
            path.append(nxt)
        out[net] = path
    return out


def _draw(page: Page, c: Circuit, plan: Plan, x0: float, y0: float) -> float:
    def at(hole: tuple[int, int]) -> tuple[float, float]:
        return x0 + hole[0] * GRID, y0 + hole[1] * GRID

    page.text(x0, y0 - 3, 3.0, plan.title)
    page.rect(x0, y0, plan.columns * GRID, (plan.rows + 1) * GRID, "#a87", 0.3, "#f3ead8")
    for i in range(1, plan.columns):
        for j in range(1, plan.rows + 1):
            page.circle(x0 + i * GRID, y0 + j * GRID, 0.35, "#c9b89a", 0.1)
    for label, hx, hy, w, h in plan.outlines:
        page.rect(x0 + hx * GRID + 1, y0 + hy * GRID + 1, (w - 1) * GRID, (h - 1) * GRID, "#555", 0.25)
        page.text(x0 + hx * GRID + 1.3, y0 + hy * GRID + 0.6, 1.6, label, "#333")
    for net, path in net_wires(c, plan).items():
        colour = COLOURS.get(net, "#0645ad")
        for a, b in itertools.pairwise(path):
            (xa, ya), (xb, yb) = at(a), at(b)
            page.line(xa, ya, xb, yb, colour, 0.4)
    for (ref, number), hole in sorted(plan.pads.items()):
        x, y = at(hole)
        page.circle(x, y, 0.8, "#000", 0.2, "#fc6")
        page.text(
            x + 0.9,
            y - 0.5,
            1.2,
            # A switch's pads sit 5.08 mm apart under its outline, which names the switch.
            number if ref.startswith("SW_") else "%s.%s" % (ref, number),
            "#333",
            data_pad="%s.%s" % (ref, number),
            data_net=c.net_of(ref, number) or "NC",
        )
    for net, hole in sorted(plan.edge.items()):
        x, y = at(hole)
        page.rect(x - 1, y - 1, 2, 2, "#000", 0.2, "#9cf")
        page.text(x + 1.6, y + 0.6, 1.8, net, COLOURS.get(net, "#0645ad"), data_edge=net)
    # The wiring list: every link in the order drawn, to tick off while soldering.
    name = {hole: "%s.%s" % pad for pad, hole in plan.pads.items()}
    name.update({hole: "edge %s" % net for net, hole in plan.edge.items()})
    y = y0 + (plan.rows + 1) * GRID + 5
    page.text(x0, y, 2.2, "Wiring list (copper side), net: pad - pad - ...")
    lines: list[str] = []
    for net, path in net_wires(c, plan).items():
        # A long net (GND) is wrapped so that it stays inside its column (about 95 mm).
        text = "%s: %s" % (net, " - ".join(name[h] for h in path))
        while len(text) > WIRING_LINE_CHARS:
            cut = text.rindex(" - ", 0, WIRING_LINE_CHARS) + 3
            lines.append(text[:cut].rstrip())
            text = "%s (cont.): %s" % (net, text[cut:])
        lines.append(text)
    per_column = (len(lines) + 2) // 3
    for i, line in enumerate(lines):
        column, row = divmod(i, per_column)
        net = line.split(":")[0].replace(" (cont.)", "")
        page.text(x0 + column * 95, y + 3.5 + row * 2.6, 1.7, line, COLOURS.get(net, "#0645ad"))
    return y + 3.5 + per_column * 2.6


MOUNT_COLOUR = "#a0522d"


def plan_hole(rect: tuple[float, float, float, float], p: tuple[float, float]) -> tuple[float, float]:
    """A point under P2 (template mm) as a hole of the board's perfboard plan (column, row):
    the board hangs component side down with the plan's top edge to the South."""
    return ((p[0] - rect[0]) / 2.54, (rect[3] - p[1]) / 2.54)


def _mount_holes(page: Page, spots: list[Any], x0: float, y0: float) -> None:
    """The mounting holes of these boards (``board_spots.board_spots``), drilled out to 3 mm,
    each marked with the boards that use it (strips of one plan may differ)."""
    users: dict[tuple[int, int], list[str]] = {}
    for spot in spots:
        for m in spot.mounts:
            col, row = plan_hole(spot.rect(), m)
            users.setdefault((round(col), round(row)), []).append(spot.name.split()[0])
    for (col, row), names in sorted(users.items()):
        x, y = x0 + col * GRID, y0 + row * GRID
        page.circle(x, y, 1.5, MOUNT_COLOUR, 0.35)
        label = "M" if len(names) == len(spots) else "M (%d of %d)" % (len(names), len(spots))
        page.text(x + 1.8, y + 0.6, 1.4, label, MOUNT_COLOUR)


def pages(layout: Layout, c: Circuit, spots: list[Any]) -> list[Page]:
    """The plans of the controller board and the strips; ``spots``: where each board hangs
    under P2 (``board_spots.board_spots``: the controller first), for its mounting holes."""
    page = Page("perfboard plans, 1:1")
    page.text(8, 10, 4.0, "%s: perfboard plans, 1:1 (2.54 mm grid, component side)" % layout.name)
    page.text(
        8,
        15,
        2.2,
        "Coloured lines: wire links on the copper side, one colour per net (red +5V, "
        "orange VBUS, violet +3V3, black GND,",
        "#333",
    )
    page.text(
        8,
        18.5,
        2.2,
        "blue signals). Blue squares: pads for wires that leave the board, named by "
        "net. Check every link against netlist.txt.",
        "#333",
    )
    page.text(
        8,
        22,
        2.2,
        "Brown circles M: mounting holes, drilled out to 3.0 mm (which strip uses which: assembly.md, "
        "stage 8). The board hangs under P2 component side down, this plan's top edge to the South.",
        MOUNT_COLOUR,
    )
    y = _draw(page, c, controller_plan(c), 8, 30)
    _mount_holes(page, [spots[0]], 8, 30)
    if layout.sensors["type"] == "hc165":
        plan = strip_plan(c, layout)
        y0 = y + 12
        y = _draw(page, c, plan, 8, y0)
        _mount_holes(page, spots[1:], 8, y0)
        page.width = max(page.width, 16 + plan.columns * GRID)
    page.height = max(page.height, y + 10)
    return [page]


# The stock the BOM orders: 100 x 160 mm perfboard ("Eurocard"), 2.54 mm grid: 62 x 39 whole
# pitches (160 / 2.54 = 63.0 and 100 / 2.54 = 39.4, one fewer along 160 mm for the edge).
STOCK_MM = (160.0, 100.0)
STOCK_HOLES = (62, 39)


def pieces(layout: Layout, c: Circuit) -> list[tuple[str, int, int]]:
    """Every perfboard piece a board needs, (name, width, height) in 2.54 mm pitches, cut
    as drawn in perfboard.svg: the controller board and one strip per 74HC165."""
    ctl = controller_plan(c)
    out = [("controller board", ctl.columns, ctl.rows + 1)]
    if layout.sensors["type"] == "hc165":
        strip = strip_plan(c, layout)
        out += [("SB%d" % k, strip.columns, strip.rows + 1) for k in range(layout.sensor_count // 8)]
    return out


def stock_layout(layout: Layout, c: Circuit) -> list[list[tuple[str, int, int, int, int]]]:
    """The pieces packed onto stock boards by shelves (largest first, either way round; new
    shelves low or tall, whichever needs fewer boards): one list per stock board of (name,
    x, y, columns, rows) in holes. The BOM orders as many boards as this needs, and the
    tests check that the pieces fit without overlapping."""
    packs = [_shelf_pack(pieces(layout, c), tall) for tall in (False, True)]
    return min(packs, key=len)


def _shelf_pack(items: list[tuple[str, int, int]], tall: bool) -> list[list[tuple[str, int, int, int, int]]]:
    width, height = STOCK_HOLES
    boards: list[list[tuple[str, int, int, int, int]]] = []
    shelves: list[list[list[int]]] = []  # per board: [y, shelf height, used width]

    def ways(w0: int, h0: int) -> list[tuple[int, int]]:
        return sorted({(w0, h0), (h0, w0)}, key=lambda wh: -wh[1] if tall else wh[1])

    for name, w0, h0 in sorted(items, key=lambda p: -p[1] * p[2]):
        placed = False
        for b, board_shelves in enumerate(shelves):
            for shelf in board_shelves:
                for w, h in ((w0, h0), (h0, w0)):
                    if h <= shelf[1] and shelf[2] + w <= width:
                        boards[b].append((name, shelf[2], shelf[0], w, h))
                        shelf[2] += w
                        placed = True
                        break
                if placed:
                    break
            if not placed:
                top = sum(s[1] for s in board_shelves)
                for w, h in ways(w0, h0):
                    if w <= width and top + h <= height:
                        board_shelves.append([top, h, w])
                        boards[b].append((name, 0, top, w, h))
                        placed = True
                        break
            if placed:
                break
        if not placed:
            fitting = [(w, h) for w, h in ways(w0, h0) if w <= width and h <= height]
            if not fitting:
                raise ValueError("perfboard piece %s (%d x %d holes) is larger than the stock" % (name, w0, h0))
            w, h = fitting[0]
            shelves.append([[0, h, w]])
            boards.append([(name, 0, 0, w, h)])
    return boards


def svg(layout: Layout, c: Circuit, spots: list[Any]) -> str:
    return svg_pages(pages(layout, c, spots), "%s perfboard plans" % layout.name)
