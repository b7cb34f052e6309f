"""Every wire of a board: from, to, gauge and length from the layout geometry
(``wiring.csv``), the LED feeds the power design is given, and metres per gauge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zuniboard.hardware import circuit, pcb_stack, perfboard
from zuniboard.hardware.board_spots import board_spots
from zuniboard.hardware.fmt import csv_cell, num
from zuniboard.hardware.placement import Build, build, led_xy, switch_xy
from zuniboard.hardware.plates import BoardSpot, button_positions
from zuniboard.hardware.stack import FRAME_WIDTH_MM, LEAD_HOLE_MM, SLOT_LEN_MM, unit_vector

if TYPE_CHECKING:
    from zuni_board.layout import Layout

# -- wiring (electrical choices, stated once here; the electrical design owns them) --------
WIRE_AWG = {
    "led_trunk": 22,  # +5V and GND spine and row buses of the LED chain
    "led_data": 26,
    "led_tap": 26,  # LED supply leads to their row bus: a few cm
    "sensor": 28,  # reed switch to its 74HC165 board (or matrix bus)
    "chain": 26,  # board-to-board: 3V3, GND, CLK, LOAD, QH->SER
    "button": 26,
}
WIRE_SLACK_MM = 30.0  # per wire: 2 x 10 mm stripped and soldered, 10 mm strain relief
WIRE_ROUND_MM = 5.0


# -- wiring table -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Wire:
    ident: str
    group: str
    start: str
    end: str
    awg: int
    length_mm: float
    a: tuple[float, float]  # template mm of both ends (length = Manhattan distance + slack)
    b: tuple[float, float]
    notes: str


def wire_length(a: tuple[float, float], b: tuple[float, float], path_mm: float | None = None) -> float:
    """Wires run along the rows and columns under P2 (Manhattan distance, or a given path
    length for a bus), plus WIRE_SLACK_MM, rounded up to WIRE_ROUND_MM."""
    run = abs(a[0] - b[0]) + abs(a[1] - b[1]) if path_mm is None else path_mm
    return math.ceil((run + WIRE_SLACK_MM) / WIRE_ROUND_MM - 1e-9) * WIRE_ROUND_MM


def _lead_end(b: Build, point: str, end: int) -> tuple[float, float]:
    sx, sy = switch_xy(b, point)
    ux, uy = unit_vector(b.layout.mechanics["switch_angle_deg"])
    reach = SLOT_LEN_MM / 2 - LEAD_HOLE_MM / 2
    return (sx + end * reach * ux, sy + end * reach * uy)


# The chain connector of every link (controller -> SB0, SB k -> SB k+1), pin 1 first: the
# clock between the latch and its ground wire (the note of wiring.csv: CLK next to GND).
CHAIN_PINS = (("3V3", "+3V3"), ("LOAD", "SH/LD"), ("CLK", "CLK"), ("GND", "GND"), ("DATA", "QH -> SER"))


def chain_pin_text() -> str:
    return ", ".join("%d %s" % (k + 1, name) for k, (_, name) in enumerate(CHAIN_PINS))


HC165_INPUTS = (("H", 6), ("G", 5), ("F", 4), ("E", 3), ("D", 14), ("C", 13), ("B", 12), ("A", 11))


_PLANS: dict[tuple[Any, ...], tuple[Any, Any]] = {}


def _plans(layout: Layout) -> tuple[Any, Any]:
    """The controller's and the strip's perfboard plans (the strip's None on the matrix)."""
    key = (layout.name, tuple(sorted((k, tuple(v)) for k, v in layout.points.items())), repr(layout.sensors))
    if key not in _PLANS:
        c = circuit.build(layout)
        strip = perfboard.strip_plan(c, layout) if layout.sensors["type"] == "hc165" else None
        _PLANS[key] = (perfboard.controller_plan(c), strip)
    return _PLANS[key]


def hole_xy(spot: BoardSpot, hole: tuple[float, float]) -> tuple[float, float]:
    """A hole of a board's plan (column, row) under P2 in template mm: ``perfboard.plan_hole`` undone."""
    x0, _, _, y1 = spot.rect()
    return (x0 + hole[0] * 2.54, y1 - hole[1] * 2.54)


def edge_pad_xy(b: Build, board: int, net: str) -> tuple[float, float]:
    """Where the edge pad of ``net`` lies on board ``board`` (0 = controller, 1 + k = strip k)."""
    plan = _plans(b.layout)[0 if board == 0 else 1]
    return hole_xy(board_spots(b)[board], plan.edge[net])


def switch_pad_xy(b: Build, chip: int, bit: int, pin: int) -> tuple[float, float]:
    """The pad (pin 1 or 2) of the switch on input ``bit`` of strip ``chip``: every strip is
    the plan of the first, whose switch of the same bit names the pad."""
    plan = _plans(b.layout)[1]
    first = next(n for n, (s, _) in b.layout.points.items() if s == bit)
    return hole_xy(board_spots(b)[1 + chip], plan.pads[("SW_%s" % first, str(pin))])


class _Wires:
    """The wire list being built: each wire's length and gauge from its kind."""

    def __init__(self, b: Build) -> None:
        self.b = b
        self.out: list[Wire] = []

    def pad(self, net: str) -> tuple[float, float]:
        """The controller's edge pad of ``net``."""
        return edge_pad_xy(self.b, 0, net)

    def add(
        self,
        ident: str,
        group: str,
        start: str,
        end: str,
        kind: str,
        a: tuple[float, float],
        c: tuple[float, float],
        notes: str = "",
        path: float | None = None,
    ) -> None:
        self.out.append(Wire(ident, group, start, end, WIRE_AWG[kind], wire_length(a, c, path), a, c, notes))


def wires(layout: Layout) -> list[Wire]:
    b = build(layout)
    if pcb_stack.is_pcb_build(b):
        return _pcb_wires(b)
    w = _Wires(b)
    led_order = sorted(layout.points, key=lambda n: layout.points[n][1])
    _led_data_wires(w, led_order)
    _led_power_wires(w, led_order)
    if layout.sensors["type"] == "hc165":
        _sensor_wires(w, layout)
        _chain_wires(w, layout)
    else:
        _matrix_wires(w, layout)
    _button_wires(w, layout)
    return w.out


def _led_data_wires(w: _Wires, led_order: list[str]) -> None:
    """LD0 and its return LDG0 from the controller to LED 0, then the hops DOUT -> DIN."""
    b = w.b
    w.add(
        "LD0",
        "LED data",
        "controller edge pad LED_5V (U2 1Y)",
        "R1 330 Ohm at LED0 DIN (%s)" % led_order[0],
        "led_data",
        w.pad("LED_5V"),
        led_xy(b, led_order[0]),
        "the only 5 V data wire from the controller; R1 sits at LED0, its other lead on DIN (netlist LED_DIN0)",
    )
    w.add(
        "LDG0",
        "LED data",
        "controller edge pad GND",
        "LED0 GND leg (%s)" % led_order[0],
        "led_data",
        w.pad("GND"),
        led_xy(b, led_order[0]),
        "the data's own return: twisted with LD0, kept 10 mm from the sensor chain's SCK (power.md)",
    )
    for i in range(1, len(led_order)):
        w.add(
            "LD%d" % i,
            "LED data",
            "LED%d DOUT (%s)" % (i - 1, led_order[i - 1]),
            "LED%d DIN (%s)" % (i, led_order[i]),
            "led_data",
            led_xy(b, led_order[i - 1]),
            led_xy(b, led_order[i]),
        )


def _led_power_wires(w: _Wires, led_order: list[str]) -> None:
    b = w.b
    # LED power: one +5V/GND pair per row of LEDs, fed from the controller at the row's
    # West end (a star: no LED carries another row's current); the LEDs' legs are
    # soldered to the pair where it passes under them.
    rows: dict[float, list[tuple[float, float]]] = {}
    row_names: dict[float, list[str]] = {}
    for n in sorted(led_order, key=lambda p: led_xy(b, p)[0]):
        x, y = led_xy(b, n)
        rows.setdefault(round(y, 2), []).append((x, y))
        row_names.setdefault(round(y, 2), []).append(n)
    spine_x = FRAME_WIDTH_MM + 5
    for r, y in enumerate(sorted(rows)):
        xs = [p[0] for p in rows[y]]
        west, east = (min(xs), y), (max(xs), y)
        for net, colour in (("+5V", "red"), ("GND", "black")):
            start = w.pad(net)
            path = abs(start[0] - spine_x) + abs(start[1] - y) + (east[0] - spine_x)
            w.add(
                "LP%s%d" % ("P" if net == "+5V" else "G", r),
                "LED power",
                "controller edge pad %s" % net,
                "row bus %s..%s, %d LEDs (x %s mm to %s mm)"
                % (row_names[y][0], row_names[y][-1], len(xs), num(west[0]), num(east[0])),
                "led_trunk",
                start,
                east,
                "%s; strip 5 mm of insulation under each LED of the row, solder its %s leg" % (colour, net),
                path,
            )


def _sensor_wires(w: _Wires, layout: Layout) -> None:
    """Each reed switch's pair of wires to its pads on its 74HC165 strip."""
    b = w.b
    for n in sorted(layout.points, key=lambda p: layout.points[p][0]):
        s = layout.points[n][0]
        chip, bit = divmod(s, 8)
        letter, pin = HC165_INPUTS[bit]
        w.add(
            "S_%s" % n,
            "sensors",
            "SW_%s lead A" % n,
            "SB%d pad SW_%s.1 = U%d.%d(%s)" % (chip, n, 10 + chip, pin, letter),
            "sensor",
            _lead_end(b, n, -1),
            switch_pad_xy(b, chip, bit, 1),
            "twist with G_%s" % n,
        )
        w.add(
            "G_%s" % n,
            "sensors",
            "SW_%s lead B" % n,
            "SB%d pad SW_%s.2 (GND)" % (chip, n),
            "sensor",
            _lead_end(b, n, 1),
            switch_pad_xy(b, chip, bit, 2),
        )


def _chain_wires(w: _Wires, layout: Layout) -> None:
    """The chain links: controller -> SB0, SB k -> SB k+1, pin for pin."""
    b = w.b
    sensors = layout.sensors
    chips = layout.sensor_count // 8
    names = ["controller"] + ["SB%d" % k for k in range(chips)]
    for k in range(chips):
        na, nb = names[k], names[k + 1]
        for pin, (sig, _) in enumerate(CHAIN_PINS):
            # The edge pads of perfboard.svg: the same names on the controller and the strips.
            net = {"3V3": "+3V3", "GND": "GND", "CLK": "SR_CLK", "LOAD": "SR_LOAD", "DATA": "SR_DATA"}[sig]
            a_net = "SR_CHAIN1" if (k and sig == "DATA") else net
            a_pad = a_net
            if sig == "DATA":
                a_pad = "SR_CHAIN1 (SER)" if k else "SR_DATA (GP%d, SPI RX)" % sensors["pins"]["data"]
            b_pad = "SR_DATA (QH)" if sig == "DATA" else net
            w.add(
                "C%d_%s" % (k, sig),
                "sensor chain",
                "%s edge pad %s (%s pin %d)" % (na, a_pad, "chain" if k == 0 else "OUT", pin + 1),
                "%s edge pad %s (IN pin %d)" % (nb, b_pad, pin + 1),
                "chain",
                edge_pad_xy(b, k, a_net),
                edge_pad_xy(b, k + 1, net),
                "5-way ribbon or 5 wires twisted together, pin 1 to pin 1; CLK between LOAD and GND"
                if sig == "CLK"
                else "",
            )


def _matrix_wires(w: _Wires, layout: Layout) -> None:
    """The diode matrix's row buses (cathode to cathode) and column buses (lead B to lead B)."""
    b = w.b
    sensors = layout.sensors
    cols = len(sensors["cols"])
    by_sensor = {layout.points[n][0]: n for n in layout.points}
    for kind, count, pins in (("ROW", len(sensors["rows"]), sensors["rows"]), ("COL", cols, sensors["cols"])):
        for k in range(count):
            if kind == "ROW":
                members = [by_sensor[i] for i in sorted(by_sensor) if i // cols == k]
            else:
                members = [by_sensor[i] for i in sorted(by_sensor) if i % cols == k]
            prev_name, prev = "controller edge pad %s%d (GP%d)" % (kind, k, pins[k]), w.pad("%s%d" % (kind, k))
            for j, n in enumerate(members):
                end = _lead_end(b, n, -1 if kind == "ROW" else 1)
                what = (
                    ("D_%s cathode (diode at the switch, anode to SW_%s lead A)" % (n, n))
                    if kind == "ROW"
                    else ("SW_%s lead B" % n)
                )
                w.add("%s%d_%d" % (kind, k, j), "matrix", prev_name, what, "sensor", prev, end)
                prev_name, prev = what, end


def _button_wires(w: _Wires, layout: Layout) -> None:
    """Each button's two tags to the controller's edge pads."""
    for label, x, y in button_positions(w.b):
        w.add(
            "B_%s" % label,
            "buttons",
            "controller edge pad BTN_%s (GP%d)" % (label, layout.buttons[label.lower()]),
            "%s button tag 1" % label,
            "button",
            w.pad("BTN_%s" % label),
            (x, y),
        )
        w.add(
            "BG_%s" % label,
            "buttons",
            "controller edge pad GND",
            "%s button tag 2" % label,
            "button",
            w.pad("GND"),
            (x, y),
        )


def _pcb_wires(b: Build) -> list[Wire]:
    """The PCB build: the cable from J1 on the main PCB to J2 on the controller module,
    pin for pin (a 12-way ribbon or Dupont jumpers); every other joint is copper."""
    out = []
    for k, (a, c) in enumerate(pcb_stack.header_pins(b)):
        out.append(
            Wire(
                "J%d" % (k + 1),
                "cable",
                "J1.%d" % (k + 1),
                "J2.%d" % (k + 1),
                WIRE_AWG["chain"],
                wire_length(a, c),
                a,
                c,
                "main PCB to controller module, pin for pin",
            )
        )
    return out


def perfboard_count(layout: Layout) -> int:
    return len(perfboard.stock_layout(layout, circuit.build(layout)))


def led_feeds(layout: Layout) -> list[tuple[list[str], float, float]]:
    """Per row of LEDs (North first): its LEDs West to East, the feed (one conductor,
    metres, from the controller up the West edge to the row's West end) and the bus along
    the row, metres: the LPP*/LPG* wires of ``wires`` without their slack. On the PCB
    build the supply enters at J1 and the same runs are copper; the figures keep the
    wire model until the PCB's own trace widths are in the power design."""
    b = build(layout)
    start = pcb_stack.header_pins(b)[0][0] if pcb_stack.is_pcb_build(b) else edge_pad_xy(b, 0, "+5V")
    spine_x = FRAME_WIDTH_MM + 5
    rows: dict[float, list[str]] = {}
    for n in sorted(layout.points, key=lambda p: led_xy(b, p)[0]):
        rows.setdefault(round(led_xy(b, n)[1], 2), []).append(n)
    out = []
    for y in sorted(rows):
        xs = [led_xy(b, n)[0] for n in rows[y]]
        feed = abs(start[0] - spine_x) + abs(start[1] - y) + (min(xs) - spine_x)
        out.append((rows[y], feed / 1000, (max(xs) - min(xs)) / 1000))
    return out


WIRING_COLUMNS = "wire,group,from,to,awg,length_mm,from_x_mm,from_y_mm,to_x_mm,to_y_mm,notes"


def wiring_csv(layout: Layout) -> str:
    out = [WIRING_COLUMNS]
    for w in wires(layout):
        out.append(
            ",".join(
                csv_cell(v)
                for v in (
                    w.ident,
                    w.group,
                    w.start,
                    w.end,
                    str(w.awg),
                    num(w.length_mm),
                    num(w.a[0]),
                    num(w.a[1]),
                    num(w.b[0]),
                    num(w.b[1]),
                    w.notes,
                )
            )
        )
    return "\n".join(out) + "\n"


def wire_totals_m(layout: Layout) -> dict[int, float]:
    """Metres of wire per gauge, with 20 % for mistakes, rounded up to whole metres."""
    totals: dict[int, float] = {}
    for w in wires(layout):
        totals[w.awg] = totals.get(w.awg, 0.0) + w.length_mm
    return {awg: float(math.ceil(mm * 1.2 / 1000)) for awg, mm in sorted(totals.items())}
