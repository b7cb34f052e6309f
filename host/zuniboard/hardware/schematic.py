"""The schematic of a board, drawn from its circuit (``circuit.build``): three A4 sheets,
as SVG (sheets stacked) and PDF (one page each).

1. controller and power: Pico, TPS2553 load switch, 74AHCT125, terminations, buttons;
2. one sensor group: the first 74HC165 with its pull-up network, decoupling and switches
   (the other groups are the same; a table names their points), or the diode matrix;
3. the LED chain: series resistor, the first two LEDs and the last, each with its 100 nF.

Every pin ends in a net label: pins with the same label are connected (as in KiCad).
Each label carries ``data-pin="REF.PIN"`` so that the tests compare the drawing with
the netlist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from zuniboard.hardware import power
from zuniboard.hardware.circuit import FIRST_HC165, HC165_INPUT_PINS, Circuit, Part
from zuniboard.hardware.drawing import Page
from zuniboard.hardware.drawing import pdf as pdf_pages
from zuniboard.hardware.drawing import svg as svg_pages

if TYPE_CHECKING:
    from zuni_board.layout import Layout

PIN_STEP = 5.0
STUB = 6.0
LABEL_W = 24.0  # room for a net label
BOX_W = 30.0
NET_COLOUR = "#0645ad"
LEFT_KINDS = ("input", "power_in")


def _pin_label(page: Page, c: Circuit, ref: str, number: str, x: float, y: float, anchor: str) -> None:
    part = c.parts[ref]
    if number in part.no_connect:
        d = 1.2
        xs = x
        page.line(xs - d, y - d, xs + d, y + d, "#c00", 0.3)
        page.line(xs - d, y + d, xs + d, y - d, "#c00", 0.3)
        page.text(
            x + (2.5 if anchor == "start" else -2.5),
            y + 0.8,
            2.0,
            "NC",
            "#c00",
            anchor,
            data_pin="%s.%s" % (ref, number),
            data_net="NC",
        )
        return
    net = c.net_of(ref, number) or "?"
    page.text(
        x + (1 if anchor == "start" else -1),
        y + 0.8,
        2.2,
        net,
        NET_COLOUR,
        anchor,
        data_pin="%s.%s" % (ref, number),
        data_net=net,
    )


def _box(page: Page, c: Circuit, part: Part, x: float, y: float) -> None:
    """An IC or module: a box, pins left and right, a net label on every pin."""
    if part.ref == "U1":
        left = [p for p in part.pins if not p.name.startswith("GP")]
        right = [p for p in part.pins if p.name.startswith("GP")]
    elif part.ref.startswith("RN"):
        left = [p for p in part.pins if p.number == "1"]
        right = [p for p in part.pins if p.number != "1"]
    else:
        left = [p for p in part.pins if p.kind in LEFT_KINDS]
        right = [p for p in part.pins if p.kind not in LEFT_KINDS]
    rows = max(len(left), len(right))
    h = (rows + 1) * PIN_STEP
    bx = x + LABEL_W + STUB
    page.rect(bx, y, BOX_W, h, "#000", 0.35, "#ffffe8")
    page.text(bx + BOX_W / 2, y - 3.2, 2.8, part.ref, anchor="middle")
    page.text(bx + BOX_W / 2, y - 0.8, 2.0, part.value, "#444", "middle")
    for i, pin in enumerate(left):
        py = y + (i + 1) * PIN_STEP
        page.line(bx - STUB, py, bx, py)
        page.text(bx + 1, py + 0.7, 2.0, pin.name)
        page.text(bx - 1, py - 0.6, 1.6, pin.number, "#666", "end")
        _pin_label(page, c, part.ref, pin.number, bx - STUB, py, "end")
    for i, pin in enumerate(right):
        py = y + (i + 1) * PIN_STEP
        page.line(bx + BOX_W, py, bx + BOX_W + STUB, py)
        page.text(bx + BOX_W - 1, py + 0.7, 2.0, pin.name, anchor="end")
        page.text(bx + BOX_W + 1, py - 0.6, 1.6, pin.number, "#666")
        _pin_label(page, c, part.ref, pin.number, bx + BOX_W + STUB, py, "start")


def _box_size(part: Part) -> tuple[float, float]:
    if part.ref == "U1":
        n = max(
            sum(1 for p in part.pins if p.name.startswith("GP")),
            sum(1 for p in part.pins if not p.name.startswith("GP")),
        )
    elif part.ref.startswith("RN"):
        n = len(part.pins) - 1
    else:
        n = max(
            sum(1 for p in part.pins if p.kind in LEFT_KINDS), sum(1 for p in part.pins if p.kind not in LEFT_KINDS)
        )
    return 2 * (LABEL_W + STUB) + BOX_W, (n + 1) * PIN_STEP + 12


def _two_pin(page: Page, c: Circuit, part: Part, x: float, y: float) -> None:
    """A resistor, capacitor, diode, reed switch or button, drawn left to right."""
    x1 = x + LABEL_W
    body = x1 + STUB
    x2 = body + 12
    cy = y + 5
    page.line(x1, cy, body, cy)
    page.line(x2, cy, x2 + STUB, cy)
    page.text((body + x2) / 2, y, 2.4, part.ref, anchor="middle")
    page.text((body + x2) / 2, y + 10.5, 2.0, part.value, "#444", "middle")
    key = part.bom
    if key.startswith("r_"):
        page.rect(body, cy - 1.3, 12, 2.6, "#000", 0.35)
    elif key.startswith("c_"):
        m = (body + x2) / 2
        page.line(body, cy, m - 0.8, cy)
        page.line(m + 0.8, cy, x2, cy)
        page.line(m - 0.8, cy - 2.5, m - 0.8, cy + 2.5, "#000", 0.4)
        page.line(m + 0.8, cy - 2.5, m + 0.8, cy + 2.5, "#000", 0.4 if key != "c_220u" else 0.9)
        if key == "c_220u":
            page.text(m - 2.5, cy - 1.5, 2.0, "+", anchor="middle")
    elif key == "1n4148":
        m = (body + x2) / 2
        page.line(body, cy, m - 2, cy)
        page.line(m + 2, cy, x2, cy)
        # cathode (pin 1) on the left: the bar at the left, the triangle pointing at it
        page.line(m - 2, cy - 2, m - 2, cy + 2, "#000", 0.4)
        page.line(m + 2, cy - 2, m + 2, cy + 2)
        page.line(m + 2, cy - 2, m - 2, cy)
        page.line(m + 2, cy + 2, m - 2, cy)
    else:  # reed switch or button: an open contact
        page.line(body, cy, body + 3, cy)
        page.line(x2 - 3, cy, x2, cy)
        page.line(body + 3, cy, x2 - 3, cy - 2.5, "#000", 0.35)
        page.circle(body + 3, cy, 0.5)
        page.circle(x2 - 3, cy, 0.5)
        if part.bom == "reed":
            page.rect(body + 1, cy - 3.5, 10, 6, "#888", 0.2)
    first, second = part.pins[0].number, part.pins[1].number
    page.text(x1 + 0.5, cy - 0.6, 1.6, first, "#666")
    page.text(x2 + STUB - 0.5, cy - 0.6, 1.6, second, "#666", "end")
    _pin_label(page, c, part.ref, first, x1, cy, "end")
    _pin_label(page, c, part.ref, second, x2 + STUB, cy, "start")


def _place(page: Page, c: Circuit, refs: list[str], top: float = 24.0, bottom: float = 152.0) -> float:
    """Flow the parts into columns; returns the x where the next free column starts.
    ``bottom``: the line above the sheet's notes. A part that would fall off the sheet's
    right edge is an error (it would be in the netlist but not on the drawing)."""
    x, y, col_w = 8.0, top, 0.0
    for ref in refs:
        part = c.parts[ref]
        boxed = len(part.pins) > 2
        w, h = _box_size(part) if boxed else (2 * (LABEL_W + STUB) + 12, 15.0)
        if y + h > bottom and y > top:
            x += col_w + 4
            y, col_w = top, 0.0
        if x + w > page.width - 4:
            raise ValueError("schematic sheet %r: no room for %s (the parts need another column)" % (page.title, ref))
        draw: Callable[[Page, Circuit, Part, float, float], None] = _box if boxed else _two_pin
        draw(page, c, part, x, y + (6 if boxed else 0))
        y += h
        col_w = max(col_w, w)
    return x + col_w


def _frame(page: Page, layout: Layout, number: int, total: int, notes: list[str]) -> None:
    page.rect(4, 4, page.width - 8, page.height - 8, "#000", 0.5)
    page.text(8, 12, 4.2, "%s: %s" % (layout.name, page.title))
    page.text(8, 17.5, 2.4, layout.title, "#444")
    page.text(page.width - 8, 12, 2.4, "sheet %d of %d" % (number, total), anchor="end")
    page.text(
        page.width - 8,
        17.5,
        2.0,
        "generated by `zuni board generate` from hardware/layouts/%s.json" % layout.name,
        "#444",
        "end",
    )
    page.line(4, 20, page.width - 4, 20, "#000", 0.3)
    y = 156.0
    page.line(4, y - 4, page.width - 4, y - 4, "#000", 0.2)
    for line in notes:
        page.text(8, y, 2.3, line)
        y += 3.6
    page.text(
        page.width - 8,
        page.height - 7,
        2.0,
        "Pins with the same blue net label are connected. NC: left open.",
        "#0645ad",
        "end",
    )


def _pages(layout: Layout, c: Circuit, rail: power.Rail) -> list[Page]:
    cables = any(r.startswith("J") for r in c.parts)
    total = 4 if cables else 3
    pages = [_controller_page(layout, c, rail, total), _sensor_page(layout, c, total), _led_page(layout, c, total)]
    if cables:
        pages.append(_cables_page(layout, c, total))
    return pages


def _controller_page(layout: Layout, c: Circuit, rail: power.Rail, total: int) -> Page:
    """Sheet 1: the Pico, the LED rail's switch, the level shifter and the buttons."""
    hc165 = layout.sensors["type"] == "hc165"
    p1 = Page("controller and power")
    refs = ["U1", "U3", "R2", "R3"] + (["R6"] if "R6" in c.parts else []) + ["C1", "C3", "U2", "C2"]
    refs += ["R4", "R5"] if hc165 else []
    refs += sorted(r for r in c.parts if r.startswith("SW_") and c.parts[r].bom == "button")
    _place(p1, c, refs)
    r = rail
    _frame(
        p1,
        layout,
        1,
        total,
        [
            "Power: USB VBUS (Pico pin 40) -> U3 TPS2553 (soft start, limit 544-673 mA "
            "set by R2) -> +5V: LED rail and U2.",
            (
                "LED_EN: GP%d drives U3's EN (active high); R6 100k holds it low from plug-in, so the "
                "LED rail stays off until the firmware sees USB configured (power.md)." % layout.power["led_enable"]
            )
            if "led_enable" in layout.power
            else "U3's EN is tied to VBUS: the LED rail is on from plug-in.",
            "Only C1 (100 nF) is on VBUS; the 220 uF bulk C3 is after the switch, on the "
            "controller board. Worst case %.0f mA of the %d mA" % (power.total_ma(layout), power.usb_ma(layout)),
            "the firmware asks the host for (power.md). LED power: one %d AWG pair per row "
            "from C3 (star point) to the row's West end and along it." % r.trunk_awg,
            "U2 74AHCT125: gate 1 shifts the LED data to 5 V; gates 2-4 disabled (OE "
            "high), inputs to GND, outputs open.",
            (
                "R4/R5: source termination of SCK and the latch at the Pico; SPI at %d Hz."
                % layout.sensors.get("baudrate", 1000000)
            )
            if hc165
            else "Diode matrix: rows are Pico outputs (idle high), columns inputs with the RP2040's pull-ups.",
            "Buttons (optional) to GND, RP2040 internal pull-ups. TP_FAULT: test point on "
            "the ~FAULT net (low = rail overloaded).",
        ],
    )
    return p1


def _sensor_page(layout: Layout, c: Circuit, total: int) -> Page:
    """Sheet 2: one group of sensors (a 74HC165 and its switches, or one matrix row) and
    where every other group differs."""
    hc165 = layout.sensors["type"] == "hc165"
    p2 = Page("one sensor group" if hc165 else "one row of the diode matrix")
    by_sensor = {layout.points[name][0]: name for name in layout.points}
    if hc165:
        u = "U%d" % FIRST_HC165
        switches = ["SW_%s" % by_sensor[i] for i in range(8) if i in by_sensor]
        _place(p2, c, [u, "RN%d" % FIRST_HC165, "C%d" % FIRST_HC165] + switches)
        chips = layout.sensor_count // 8
        groups = []
        for k in range(chips):
            names = [by_sensor[8 * k + b] for b in range(8) if 8 * k + b in by_sensor]
            groups.append(
                "U%d: %s"
                % (FIRST_HC165 + k, " ".join("%s=%s" % (HC165_INPUT_PINS[b][0], n) for b, n in enumerate(names)))
            )
        notes = [
            "Drawn: U%d, the group nearest the Pico. Every other group U%d..U%d is the "
            "same: its own RN (47k x 8 to +3V3), 100 nF," % (FIRST_HC165, FIRST_HC165 + 1, FIRST_HC165 + chips - 1),
            "8 switches to GND; SER of U(k) <- QH of U(k+1); SER of the last chip to +3V3 "
            "(reads empty); spare inputs keep their pull-up.",
        ]
        per_line = 2 if chips > 4 else 1
        for i in range(0, len(groups), per_line):
            notes.append("   ".join(groups[i : i + per_line]))
        notes = notes[:12]
        if len(groups) > 2 * 10:
            notes[-1] += "  (the rest: netlist.txt)"
    else:
        cols = len(layout.sensors["cols"])
        refs = []
        for i in range(cols):
            refs += ["SW_%s" % by_sensor[i], "D_%s" % by_sensor[i]]
        _place(p2, c, refs)
        notes = [
            "Drawn: row 0 of the %d x %d matrix. Every switch is in series with a "
            "1N4148, cathode to the row: closed switches" % (len(layout.sensors["rows"]), cols),
            "never show a ghost. Sensor i sits at row i // %d, column i %% %d; netlist.txt names every node."
            % (cols, cols),
        ]
        for r_ in range(len(layout.sensors["rows"])):
            notes.append(
                "ROW%d: %s"
                % (r_, " ".join(by_sensor[r_ * cols + k] for k in range(cols) if r_ * cols + k in by_sensor))
            )
    _frame(p2, layout, 2, total, notes)
    return p2


def _led_page(layout: Layout, c: Circuit, total: int) -> Page:
    """Sheet 3: the first two and the last LED of the chain."""
    p3 = Page("LED chain")
    n = layout.led_count
    shown = [0, 1, n - 1] if n > 2 else list(range(n))
    refs = ["R1"]
    for i in shown:
        refs += ["LED%d" % i, "CL%d" % i]
    _place(p3, c, refs)
    _frame(
        p3,
        layout,
        3,
        total,
        [
            "Drawn: LED0, LED1 and LED%d. LED2..LED%d are the same: DIN <- DOUT of the "
            "one before, VDD on +5V, VSS on GND, and a" % (n - 1, n - 2),
            "100 nF (CLk) across VDD-VSS at every LED. R1 (330 Ohm) sits at LED0's DIN. "
            "Chain order = LED index (layout `points`).",
            "Power: +5V and GND reach each row at its West end from the trunk (power.md); "
            "along the row a 22 AWG bus pair, each LED on 5 cm leads.",
            "Current: the firmware limits every frame to leds.budget_ma = %s mA (%d LEDs white at max_level %d/255)."
            % (layout.leds["budget_ma"], power.full_points(layout), layout.leds["max_level"]),
        ],
    )
    return p3


def _cables_page(layout: Layout, c: Circuit, total: int) -> Page:
    """Sheet 4 (the PCB build): the buttons' protection and the cables between the PCBs."""
    strips = "J10" in c.parts
    p4 = Page("buttons and the cables between the PCBs")
    refs = sorted((r for r in c.parts if r.startswith("J") and c.parts[r].sheet == "controller"), key=len)
    refs += sorted(r for r, p in c.parts.items() if p.bom in ("r_1k", "esd") or "pull-up to +3V3" in p.description)
    _place(p4, c, refs)
    _frame(
        p4,
        layout,
        4,
        total,
        [
            "J2 (controller) - J10 (strip 1), Jk1 (strip k out) - J(k+1)0 (strip k+1 in), J3 (controller) - J4 "
            "(buttons): 2 x N ribbon cables, pin for pin."
            if strips
            else "J2 (controller module) - J1 (main board): a 1:1 cable; +5V and GND on two pins each.",
            "At each button: 10k pull-up to +3V3, a TVS to GND, 1k in series towards the Pico.",
        ],
    )
    return p4


def svg(layout: Layout, c: Circuit, rail: power.Rail) -> str:
    """The schematic's sheets; ``rail``: the LED power wiring (``power.rail``), noted on sheet 1."""
    return svg_pages(_pages(layout, c, rail), "%s schematic" % layout.name)


def pdf(layout: Layout, c: Circuit, rail: power.Rail) -> bytes:
    return pdf_pages(_pages(layout, c, rail))
