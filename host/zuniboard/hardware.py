"""Derived hardware files, generated from the layouts and the rules geometry.

For each layout ``hardware/layouts/<board>.json`` this writes ``hardware/<board>/``:

- ``netlist.txt``: every component and every net of the reference design (Pico,
  74HC165 chain or diode matrix, reed switches, WS2812 chain, level shifter, buttons);
- ``bom.csv``: bill of materials (part, value, package, quantity, notes);
- ``power.md``: worst-case current (the LED chain at the firmware's dynamic limit,
  ``leds.budget_ma``) against the 500 mA USB limit;
- ``wiring.svg``: the LED chain and the sensor chain drawn over the board;
- ``template.svg`` and ``template.pdf``: the 1:1 drilling template on one page, and
  ``drill.csv``: every hole, slot and pocket with sizes and depths; with the tiled
  templates, ``wiring.csv``, ``assembly.md``, ``mechanics.md`` and ``bom-mechanical.csv``
  they come from ``zuniboard.mechanics``.

Output is deterministic (no dates), so a test can regenerate and compare bytes:
``zuni board generate`` rewrites them; ``zuni board generate --check`` only compares.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zuniboard.layouts import BoardGeometry, board_geometry, layout_paths, load_layout
from zuniboard.paths import HARDWARE_DIR

USB_LIMIT_MA = 500.0
# The design target leaves a tenth of the USB limit for the cable, the Pico's diode
# drop and part-to-part spread of LED current.
DESIGN_LIMIT_MA = 450.0

# Assumed currents (datasheet maxima where they exist, measured typicals otherwise).
PICO_MA = 30.0  # RP2040 at 125 MHz running MicroPython, flash and regulator included
HC165_MA = 0.2  # 74HC165: ICC max 80 uA at 85 C plus dynamic current while clocking
AHCT125_MA = 1.5  # 74AHCT125 at 5 V: ICC plus delta-ICC of one input held at 3.3 V
PULLUP_OHMS = 47000.0  # per reed switch; current flows only while the switch is closed
PICO_PULLUP_OHMS = 50000.0  # RP2040 internal pull-up (typ.), for the matrix columns
V33 = 3.3

# Mechanics (plates, holes, channels, LED positions): zuniboard.mechanics.

# Raspberry Pi Pico header pin of each GPIO (Pico datasheet, pinout).
PICO_PIN = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29,
    26: 31, 27: 32, 28: 34,
}  # fmt: skip

# 74HC165 (DIP/SOIC-16): the input that the k-th bit shifted out comes from.
# After SH/LD goes high, QH shows input H; each rising CLK edge moves one input on.
HC165_INPUT_PINS = (("H", 6), ("G", 5), ("F", 4), ("E", 3), ("D", 14), ("C", 13), ("B", 12), ("A", 11))


@dataclass(frozen=True)
class Placement:
    """Where a layout puts its points on paper (mm, origin top-left, y down)."""

    pitch: float
    margin: float
    xmin: float
    ymax: float
    width: float
    height: float

    def at(self, x: float, y: float) -> tuple[float, float]:
        return ((x - self.xmin) * self.pitch + self.margin, (self.ymax - y) * self.pitch + self.margin)


def placement(geometry: BoardGeometry, pitch: float) -> Placement:
    xs = [c[0] for c in geometry.coords]
    ys = [c[1] for c in geometry.coords]
    margin = pitch
    width = (max(xs) - min(xs)) * pitch + 2 * margin
    height = (max(ys) - min(ys)) * pitch + 2 * margin
    return Placement(pitch, margin, min(xs), max(ys), width, height)


def layout_geometry(layout: Any) -> BoardGeometry:
    """The geometry of the layout's first ruleset, with the homes of all its rulesets
    (so that the 168-square drawing marks the West and East homes of the 4-player game)."""
    geometry = board_geometry(layout.rulesets[0])
    homes = dict(geometry.homes)
    for text in layout.rulesets[1:]:
        for side, points in board_geometry(text).homes.items():
            homes.setdefault(side, points)
    return BoardGeometry(geometry.shape, geometry.names, geometry.coords, geometry.lines, homes)


def _f(value: float) -> str:
    """Numbers in generated files: fixed decimals so regeneration gives the same bytes."""
    text = "%.2f" % value
    return text.rstrip("0").rstrip(".") if "." in text else text


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _chain_order(layout: Any, which: int) -> list[str]:
    """Point names sorted by sensor index (which=0) or LED index (which=1)."""
    return sorted(layout.points, key=lambda name: layout.points[name][which])


# -- power ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PowerLine:
    what: str
    detail: str
    ma: float


def power_lines(layout: Any) -> list[PowerLine]:
    """Worst-case current of each consumer: the LED chain at its dynamic limit (the
    firmware scales down any frame that would draw more than ``leds.budget_ma``), every
    reed switch closed, the Pico busy."""
    leds = layout.leds
    n = layout.led_count
    level = leds["max_level"]
    lines = [PowerLine("Raspberry Pi Pico", "RP2040 busy at 125 MHz, flash, regulator", PICO_MA)]
    if layout.sensors["type"] == "hc165":
        chips = layout.sensor_count // 8
        lines.append(
            PowerLine("74HC165 x %d" % chips, "%.1f mA each (ICC max + clocking)" % HC165_MA, chips * HC165_MA)
        )
        pull = len(layout.points) * V33 / PULLUP_OHMS * 1000
        detail = "%d switches closed at once, %s / %.0f kOhm each" % (len(layout.points), V33, PULLUP_OHMS / 1000)
        lines.append(PowerLine("Reed switch pull-ups", detail, pull))
    else:
        cols = len(layout.sensors["cols"])
        pull = cols * V33 / PICO_PULLUP_OHMS * 1000
        detail = "%d columns pulled low through one row at once, internal pull-ups" % cols
        lines.append(PowerLine("Matrix pull-ups", detail, pull))
    lines.append(PowerLine("74AHCT125 level shifter", "one gate driven at 3.3 V", AHCT125_MA))
    idle = n * leds["idle_ma"]
    lines.append(PowerLine("LEDs idle", "%d x %s mA (control logic of each LED)" % (n, _f(leds["idle_ma"])), idle))
    all_on = n * 3 * leds["ma_per_channel"] * level / 255
    room = leds["budget_ma"] - idle
    if all_on > room:
        detail = (
            "dynamic limit: `leds.budget_ma` %s mA less the idle LEDs (all %d white at %d/255 would be %.0f mA)"
            % (
                _f(leds["budget_ma"]),
                n,
                level,
                all_on,
            )
        )
        lines.append(PowerLine("LEDs lit", detail, room))
    else:
        detail = "%d LEDs x 3 channels x %s mA x %d/255 (max_level)" % (n, _f(leds["ma_per_channel"]), level)
        lines.append(PowerLine("LEDs lit", detail, all_on))
    return lines


def total_ma(layout: Any) -> float:
    return sum(line.ma for line in power_lines(layout))


def max_budget_ma(layout: Any, limit: float = DESIGN_LIMIT_MA) -> float:
    """The largest ``leds.budget_ma`` that keeps the whole board inside ``limit``: the
    limit less everything that is not an LED."""
    fixed = sum(line.ma for line in power_lines(layout) if not line.what.startswith("LEDs"))
    return limit - fixed


def white_led_ma(layout: Any) -> float:
    """One LED white at ``max_level``."""
    ma: float = 3 * layout.leds["ma_per_channel"] * layout.leds["max_level"] / 255
    return ma


def full_points(layout: Any) -> int:
    """How many LEDs can be white at ``max_level`` before the limit dims the frame."""
    room = layout.leds["budget_ma"] - layout.led_count * layout.leds["idle_ma"]
    count: int = layout.led_count
    return min(count, int(room / white_led_ma(layout)))


def power_md(layout: Any) -> str:
    lines = power_lines(layout)
    total = sum(line.ma for line in lines)
    leds = layout.leds
    level = leds["max_level"]
    n = layout.led_count
    one = white_led_ma(layout)
    room = leds["budget_ma"] - n * leds["idle_ma"]
    all_on = n * one
    out = [
        "# Power budget: %s" % layout.name,
        "",
        "Generated by `zuni board generate` from `hardware/layouts/%s.json`; do not edit." % layout.name,
        "",
        "Worst case: the LED chain at the firmware's dynamic limit (`leds.budget_ma` = %s mA)," % _f(leds["budget_ma"]),
        "every reed switch closed, the Pico busy. The board is powered from USB alone.",
        "",
        "| consumer | assumption | mA |",
        "| --- | --- | ---: |",
    ]
    for line in lines:
        out.append("| %s | %s | %.1f |" % (line.what, line.detail, line.ma))
    out += [
        "| **total** | | **%.1f** |" % total,
        "",
        "- USB limit: %.0f mA; design limit (10%% margin): %.0f mA; this board: %.1f mA (%.0f%% of the USB limit)."
        % (USB_LIMIT_MA, DESIGN_LIMIT_MA, total, 100 * total / USB_LIMIT_MA),
        "- One lit point: white at `leds.max_level` = %d of 255 (%.0f%% of full) draws %.1f mA."
        % (level, 100 * level / 255, one),
        "- Up to %d of the %d LEDs can be white at `max_level` (more in dimmer colours) before the limit"
        % (full_points(layout), n),
        "  dims the frame; every LED white at `max_level` (%.0f mA) is shown at %.0f%% of that brightness."
        % (all_on, 100 * min(1.0, room / all_on)),
        "- Highest `leds.budget_ma` inside the design limit: %d mA." % int(max_budget_ma(layout)),
        "- Status: %s." % ("within the USB limit" if total <= USB_LIMIT_MA else "OVER THE USB LIMIT"),
        "",
        "The firmware computes each frame's current (sum of channel levels x `ma_per_channel` / 255,",
        "plus `idle_ma` per LED) and scales the whole frame down, keeping its hues, when it would",
        "exceed `budget_ma`; so no frame, not even every LED white, draws more than this figure.",
        "For a brighter board, power the LED rail from a separate 5 V supply (2 A or more), join",
        "its ground to the Pico's, and raise `budget_ma`.",
        "",
    ]
    return "\n".join(out)


# -- netlist -------------------------------------------------------------------------


def _pico(gpio: int) -> str:
    return "U1.%d(GP%d)" % (PICO_PIN[gpio], gpio)


def netlist_txt(layout: Any) -> str:
    geometry = layout_geometry(layout)
    order = _chain_order(layout, 1)
    sensors = layout.sensors
    leds = layout.leds
    out: list[str] = [
        "# Netlist of %s: %s" % (layout.name, layout.title),
        "# Generated by `zuni board generate` from hardware/layouts/%s.json; do not edit." % layout.name,
        "# Pin notation: REF.PIN(NAME). U1 = Raspberry Pi Pico (header pins 1-40).",
        "",
        "[components]",
        "U1     Raspberry Pi Pico (RP2040), MicroPython firmware",
        "U2     74AHCT125 quad buffer, 5 V: LED data level shifter 3.3 V -> 5 V",
        "F1     PTC fuse 500 mA hold on VBUS -> +5V",
        "C1     1000 uF 10 V electrolytic, +5V to GND at LED%d" % 0,
        "C2     100 nF, U2 VCC",
        "R1     330 Ohm, U2 output -> LED0 DIN (at LED0)",
    ]
    chips = 0
    if sensors["type"] == "hc165":
        chips = sensors["count"] // 8
        for k in range(chips):
            out.append("U%d    74HC165 #%d in the chain (3.3 V; #0 drives the Pico's data pin)" % (10 + k, k))
            out.append("RN%d   47 kOhm x 8 bussed resistor network (SIP-9), pull-ups of U%d" % (10 + k, 10 + k))
            out.append("C%d    100 nF, U%d VCC" % (10 + k, 10 + k))
    for name in order:
        out.append("SW_%s  reed switch under point %s" % (name, name))
        if sensors["type"] == "matrix":
            out.append("D_%s   1N4148 diode in series with SW_%s" % (name, name))
    for i in range(leds["count"]):
        out.append("LED%d  %s (%s), point %s" % (i, leds["type"].upper(), leds["order"], order[i]))
    for button, pin in sorted(layout.buttons.items()):
        out.append("SW_%s  push button %s (GP%d to GND, internal pull-up)" % (button.upper(), button.upper(), pin))
    out += ["", "[nets]"]

    def net(name: str, *nodes: str) -> None:
        out.append("%-12s %s" % (name, " ".join(nodes)))

    net("VBUS", "U1.40(VBUS)", "F1.1")
    five = ["F1.2", "C1.+", "U2.14(VCC)", "C2.1"] + ["LED%d.1(VDD)" % i for i in range(leds["count"])]
    net("+5V", *five)
    three = ["U1.36(3V3_OUT)"]
    for k in range(chips):
        u = 10 + k
        three += ["U%d.16(VCC)" % u, "RN%d.1(COM)" % u, "C%d.1" % u]
    if chips:
        three.append("U%d.10(SER)" % (10 + chips - 1))
    net("+3V3", *three)
    ground = ["U1.3(GND)", "U1.38(GND)", "C1.-", "C2.2", "U2.7(GND)", "U2.1(1OE)", "U2.5(2A)", "U2.9(3A)", "U2.12(4A)"]
    for k in range(chips):
        u = 10 + k
        ground += ["U%d.8(GND)" % u, "U%d.15(CLK_INH)" % u, "C%d.2" % u]
    ground += ["LED%d.3(VSS)" % i for i in range(leds["count"])]
    if sensors["type"] == "hc165":
        ground += ["SW_%s.2" % name for name in order]
    ground += ["SW_%s.2" % b.upper() for b in sorted(layout.buttons)]
    net("GND", *ground)
    net("OE_OFF", "U2.4(2OE)", "U2.10(3OE)", "U2.13(4OE)", "+5V")
    net("LED_3V3", _pico(leds["pin"]), "U2.2(1A)")
    net("LED_5V", "U2.3(1Y)", "R1.1")
    net("LED_DIN0", "R1.2", "LED0.4(DIN)")
    for i in range(1, leds["count"]):
        net("LED_DIN%d" % i, "LED%d.2(DOUT)" % (i - 1), "LED%d.4(DIN)" % i)
    if sensors["type"] == "hc165":
        pins = sensors["pins"]
        net("SR_CLK", _pico(pins["sck"]), *["U%d.2(CLK)" % (10 + k) for k in range(chips)])
        net("SR_LOAD", _pico(pins["latch"]), *["U%d.1(SH/LD)" % (10 + k) for k in range(chips)])
        net("SR_DATA", _pico(pins["data"]), "U10.9(QH)")
        for k in range(1, chips):
            net("SR_CHAIN%d" % k, "U%d.10(SER)" % (10 + k - 1), "U%d.9(QH)" % (10 + k))
        by_sensor = {layout.points[name][0]: name for name in layout.points}
        for index in range(sensors["count"]):
            chip, bit = divmod(index, 8)
            letter, pin = HC165_INPUT_PINS[bit]
            nodes = ["U%d.%d(%s)" % (10 + chip, pin, letter), "RN%d.%d" % (10 + chip, 2 + bit)]
            point = by_sensor.get(index)
            if point is None:
                net("S%d_SPARE" % index, *nodes, "# no switch: the pull-up reads empty")
            else:
                net("S%d_%s" % (index, point), *nodes, "SW_%s.1" % point)
    else:
        rows = sensors["rows"]
        cols = sensors["cols"]
        by_sensor = {layout.points[name][0]: name for name in layout.points}
        for r, gpio in enumerate(rows):
            cathodes = [
                "D_%s.K" % by_sensor[r * len(cols) + c] for c in range(len(cols)) if r * len(cols) + c in by_sensor
            ]
            net("ROW%d" % r, _pico(gpio), *cathodes)
        for c, gpio in enumerate(cols):
            switches = [
                "SW_%s.1" % by_sensor[r * len(cols) + c] for r in range(len(rows)) if r * len(cols) + c in by_sensor
            ]
            net("COL%d" % c, _pico(gpio), *switches)
        for name in order:
            net("SWD_%s" % name, "SW_%s.2" % name, "D_%s.A" % name)
    for button, pin in sorted(layout.buttons.items()):
        net("BTN_%s" % button.upper(), _pico(pin), "SW_%s.1" % button.upper())
    out += ["", "[points] name x y sensor led (x, y in RULES.md board units)"]
    for name in order:
        x, y = geometry.coords[geometry.index[name]]
        sensor, led = layout.points[name]
        out.append("%-4s %6s %6s %4d %4d" % (name, _f(x), _f(y), sensor, led))
    return "\n".join(out) + "\n"


# -- bill of materials -----------------------------------------------------------------


def bom_csv(layout: Any) -> str:
    n = len(layout.points)
    leds = layout.leds
    rows: list[tuple[str, str, str, int, str]] = [
        ("Raspberry Pi Pico", "RP2040", "module", 1, "MicroPython firmware; USB to the PC and power"),
        ("Reed switch", "normally open, 10-20 AT", "glass 2 x 14 mm", n, "one per point; see hardware/magnets.md"),
        (
            "LED",
            "%s RGB (%s)" % (leds["type"].upper(), leds["order"]),
            "5050 SMD or strip",
            leds["count"],
            "one per point; SK6812 fits too (set leds.idle_ma to 1.0)",
        ),
        ("Capacitor", "100 nF", "0805 or 5050 strip", leds["count"], "one per LED unless the strip has them"),
        ("Level shifter", "74AHCT125", "SOIC-14", 1, "5 V supply, TTL inputs: 3.3 V data reads as high"),
        ("Capacitor", "100 nF", "0805", 1, "74AHCT125 decoupling"),
        ("Resistor", "330 Ohm", "0805", 1, "LED data series resistor, next to the first LED"),
        ("Capacitor", "1000 uF 10 V", "radial electrolytic", 1, "across the LED supply at the first LED"),
        ("PTC fuse", "500 mA hold", "1206", 1, "VBUS to the +5V rail"),
        ("Magnet", "6 x 3 mm N35 disc, axially magnetised", "disc", 0, "one per piece; see hardware/magnets.md"),
    ]
    if layout.sensors["type"] == "hc165":
        chips = layout.sensor_count // 8
        rows += [
            (
                "Shift register",
                "74HC165",
                "SOIC-16 or DIP-16",
                chips,
                "at 3.3 V; CLK INH to GND; spare inputs pulled up",
            ),
            ("Resistor network", "47 kOhm x 8 bussed", "SIP-9", chips, "reed switch pull-ups (closed = 0)"),
            ("Capacitor", "100 nF", "0805", chips, "74HC165 decoupling"),
        ]
    else:
        rows.append(("Diode", "1N4148", "SOD-123 or DO-35", n, "one in series with each switch: no ghosting"))
    if layout.buttons:
        rows.append(("Push button", "6 x 6 mm tactile", "THT", len(layout.buttons), "OK, BACK, HINT (optional)"))
    rows.append(("Cable", "USB micro-B to the PC", "", 1, "data + power; 500 mA port"))
    out = ["part,value,package,quantity,notes"]
    for part, value, package, quantity, notes in rows:
        out.append(",".join(_csv(v) for v in (part, value, package, str(quantity), notes)))
    return "\n".join(out) + "\n"


def _csv(value: str) -> str:
    if any(c in value for c in ',"\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


# -- drawings -----------------------------------------------------------------------


def _board_lines(geometry: BoardGeometry, place: Placement) -> list[list[tuple[float, float]]]:
    if geometry.shape == "squares":
        return []
    return [[place.at(*geometry.coords[p]) for p in line] for line in geometry.lines]


def _squares(geometry: BoardGeometry, place: Placement) -> list[tuple[float, float, float]]:
    """Top-left corner and side of each square (square boards)."""
    if geometry.shape != "squares":
        return []
    side = place.pitch
    out = []
    for x, y in geometry.coords:
        cx, cy = place.at(x, y)
        out.append((cx - side / 2, cy - side / 2, side))
    return out


def template_svg(layout: Any, pitch: float | None = None) -> str:
    """A 1:1 drilling template (units: mm), drawn from ``mechanics.features``."""
    from zuniboard import mechanics  # mechanics imports this module

    return mechanics.template_svg(layout, pitch)


def wiring_svg(layout: Any) -> str:
    """The LED chain (red arrows) and the sensor chain (one colour per 74HC165 or matrix
    row) drawn over the board, with the Pico and its pins."""
    geometry = layout_geometry(layout)
    place = placement(geometry, 30.0)
    w, h = place.width, place.height + 60
    pos = {name: place.at(*geometry.coords[geometry.index[name]]) for name in geometry.names}
    colours = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d")
    sensors = layout.sensors
    group_size = 8 if sensors["type"] == "hc165" else len(sensors["cols"])
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="%smm" height="%smm" viewBox="0 0 %s %s" '
        'font-family="sans-serif">' % (_f(w), _f(h), _f(w), _f(h)),
        "<title>%s wiring: LED chain and sensor chain</title>" % _esc(layout.name),
        '<defs><marker id="arrow" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="4" markerHeight="4" '
        'orient="auto"><path d="M0 0L6 3L0 6z" fill="#c00"/></marker></defs>',
        '<g id="board-lines" fill="none" stroke="#ccc" stroke-width="0.5">',
    ]
    for line in _board_lines(geometry, place):
        out.append('<polyline points="%s"/>' % " ".join("%s,%s" % (_f(x), _f(y)) for x, y in line))
    for x, y, side in _squares(geometry, place):
        out.append('<rect x="%s" y="%s" width="%s" height="%s"/>' % (_f(x), _f(y), _f(side), _f(side)))
    out.append("</g>")
    # Sensor groups: one colour per chip (or matrix row), drawn as filled discs.
    out.append('<g id="sensors" font-size="3">')
    for name in _chain_order(layout, 0):
        index = layout.points[name][0]
        group = index // group_size
        x, y = pos[name]
        out.append(
            '<circle id="sensor-%s" cx="%s" cy="%s" r="6" fill="%s" fill-opacity="0.35" stroke="none"/>'
            % (name, _f(x), _f(y), colours[group % len(colours)])
        )
        if sensors["type"] == "hc165":
            label = "U%d.%s" % (10 + group, HC165_INPUT_PINS[index % 8][0])
        else:
            label = "R%dC%d" % divmod(index, group_size)
        out.append('<text x="%s" y="%s" text-anchor="middle">%s</text>' % (_f(x), _f(y + 9), label))
    out.append("</g>")
    led_order = _chain_order(layout, 1)
    first = pos[led_order[0]]
    pico = (first[0] - place.pitch * 0.6, place.height + 15)
    out.append('<g id="led-chain" fill="none" stroke="#c00" stroke-width="0.6" marker-end="url(#arrow)">')
    out.append(
        '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke-dasharray="2,1"/>'
        % (_f(pico[0] + 8), _f(pico[1]), _f(first[0]), _f(first[1] + 3))
    )
    for a, b in itertools.pairwise(led_order):
        (x1, y1), (x2, y2) = pos[a], pos[b]
        dx, dy = x2 - x1, y2 - y1
        d = math.hypot(dx, dy) or 1.0
        shrink = 3.5 / d
        out.append(
            '<line x1="%s" y1="%s" x2="%s" y2="%s"/>'
            % (_f(x1 + dx * shrink), _f(y1 + dy * shrink), _f(x2 - dx * shrink), _f(y2 - dy * shrink))
        )
    out.append("</g>")
    out.append('<g id="leds" font-size="3.2" text-anchor="middle">')
    for name in led_order:
        x, y = pos[name]
        out.append(
            '<circle id="led-%s" cx="%s" cy="%s" r="2.2" fill="#fff" stroke="#c00" stroke-width="0.4"/>'
            % (name, _f(x), _f(y))
        )
        out.append('<text x="%s" y="%s">%s %d</text>' % (_f(x), _f(y - 4), name, layout.points[name][1]))
    out.append("</g>")
    pins = ["LED data GP%d -> 74AHCT125 -> 330 Ohm -> LED 0" % layout.leds["pin"]]
    if sensors["type"] == "hc165":
        p = sensors["pins"]
        pins.append(
            "SPI%d: SCK GP%d -> CLK, data GP%d <- QH of U10, latch GP%d -> SH/LD (all chips)"
            % (sensors["spi"], p["sck"], p["data"], p["latch"])
        )
    else:
        pins.append(
            "matrix rows %s, columns %s"
            % (" ".join("GP%d" % r for r in sensors["rows"]), " ".join("GP%d" % c for c in sensors["cols"]))
        )
    if layout.buttons:
        pins.append("buttons: " + ", ".join("%s GP%d" % (b.upper(), pin) for b, pin in sorted(layout.buttons.items())))
    out.append(
        '<g id="pico"><rect x="%s" y="%s" width="21" height="40" fill="#2a7" stroke="#000" stroke-width="0.3"/>'
        % (_f(pico[0] - 13), _f(pico[1] - 5))
    )
    out.append('<text x="%s" y="%s" font-size="4">Pico</text>' % (_f(pico[0] - 10), _f(pico[1] + 2)))
    for i, text in enumerate(pins):
        out.append(
            '<text x="%s" y="%s" font-size="3.5">%s</text>' % (_f(pico[0] + 12), _f(pico[1] + 6 + 5 * i), _esc(text))
        )
    legend = (
        "Red arrows: LED chain order (data flows from the Pico). Coloured discs: sensor inputs, one colour per "
        + ("74HC165 (U10 is nearest the Pico)" if sensors["type"] == "hc165" else "matrix row")
    )
    out.append('<text x="%s" y="%s" font-size="3.5">%s</text>' % (_f(pico[0] + 12), _f(pico[1] + 36), _esc(legend)))
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def drill_csv(layout: Any, pitch: float | None = None) -> str:
    """Every hole, pocket and channel with its plate, diameter or size, and depth."""
    from zuniboard import mechanics

    return mechanics.drill_csv(layout, pitch)


def template_pdf(layout: Any, pitch: float | None = None) -> bytes:
    """The drilling template as a one-page PDF of the plates' size; ``template-a4.pdf``
    and ``template-letter.pdf`` tile it onto printer pages."""
    from zuniboard import mechanics

    return mechanics.template_pdf(layout, pitch)


# -- all files -------------------------------------------------------------------------


def derived_files(layout: Any) -> dict[str, bytes]:
    """File name (relative to hardware/<board>/) -> contents."""
    return {
        "netlist.txt": netlist_txt(layout).encode(),
        "bom.csv": bom_csv(layout).encode(),
        "power.md": power_md(layout).encode(),
        "wiring.svg": wiring_svg(layout).encode(),
        "template.svg": template_svg(layout).encode(),
        "template.pdf": template_pdf(layout),
        "drill.csv": drill_csv(layout).encode(),
        **_mechanical_files(layout),
    }


def _mechanical_files(layout: Any) -> dict[str, bytes]:
    from zuniboard import mechanics

    return mechanics.derived_files(layout)


def generate(out_dir: Path = HARDWARE_DIR, check: bool = False) -> list[Path]:
    """Write (or with ``check`` only compare) every derived file; returns the paths that
    changed (with ``check``: that are stale or missing)."""
    changed: list[Path] = []
    for path in layout_paths():
        layout = load_layout(path)
        folder = out_dir / layout.name
        for name, data in derived_files(layout).items():
            target = folder / name
            if target.exists() and target.read_bytes() == data:
                continue
            changed.append(target)
            if not check:
                folder.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    return changed
