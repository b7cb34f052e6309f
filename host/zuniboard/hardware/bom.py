"""Bill of materials: the electrical parts come from the circuit (``circuit.build``), so
the BOM holds exactly the netlist's components; two rows (the load switch's adapter, the
perfboard) are parts no netlist names. Sockets, headers and connectors are in the
mechanical BOM (``bom-mechanical.csv``), once. Other modules append their own rows (dicts with
the ``COLUMNS`` keys) before ``render``; the cost estimate is computed from the rows.

Prices are single-unit catalogue prices in USD, rounded (2025-26), for the estimate
only. Supplier part numbers are written as the distributor shows them; those of the Pico,
74HC165, 74AHCT125, TPS2553, 100 nF, 220 uF and WS2812B were compared with other public
BOMs, the rest follow the distributor's pattern: check them and the stock before ordering.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from zuniboard.hardware import perfboard
from zuniboard.hardware.circuit import Circuit
from zuniboard.hardware.fmt import csv_cell

if TYPE_CHECKING:
    from zuni_board.layout import Layout

COLUMNS = (
    "group",
    "refs",
    "qty",
    "order_qty",
    "part",
    "value",
    "package",
    "manufacturer",
    "mpn",
    "supplier_1",
    "supplier_2",
    "unit_price_usd",
    "notes",
)

# bom key -> (group, part, value, package, manufacturer, mpn, supplier_1, supplier_2, unit price, notes)
PARTS: dict[str, tuple[str, str, str, str, str, str, str, str, float, str]] = {
    "pico": (
        "controller",
        "Microcontroller module",
        "Raspberry Pi Pico (RP2040)",
        "module, 2 x 20 pins, 2.54 mm",
        "Raspberry Pi",
        "SC0915",
        "Mouser 358-SC0915",
        "Digi-Key 2648-SC0915CT-ND",
        4.00,
        "MicroPython firmware; USB to the PC",
    ),
    "tps2553": (
        "controller",
        "Load switch, current-limited, soft start",
        "TPS2553",
        "SOT-23-6 (DBV)",
        "Texas Instruments",
        "TPS2553DBVR",
        "LCSC C133622* (fab assembly)",
        "Mouser 595-TPS2553DBVR",
        1.10,
        "fab-assembled on the controller module (perfboard build: on a SOT-23-6 adapter); TPS2553 (EN active "
        "high), not TPS2552 (EN active low) nor a -1 part (latches off after an overload)",
    ),
    "ahct125": (
        "controller",
        "Quad buffer (level shifter)",
        "74AHCT125",
        "SOIC-14",
        "Nexperia",
        "74AHCT125D,118",
        "LCSC C5617* (fab assembly)",
        "Mouser 771-74AHCT125D-T",
        0.25,
        "5 V supply, TTL inputs: 3.3 V data reads high; fab-assembled",
    ),
    "hc165": (
        "sensors",
        "Shift register, parallel in / serial out",
        "74HC165",
        "SOIC-16",
        "Nexperia",
        "74HC165D,653",
        "LCSC C5613* (fab assembly)",
        "Mouser 771-74HC165D-T",
        0.20,
        "3.3 V supply; fab-assembled",
    ),
    "rn_47k": (
        "sensors",
        "Resistor network, 15 bussed (8 used)",
        "47 kOhm x 15",
        "SOIC-16",
        "Bourns",
        "4816P-T01-473LF",
        "LCSC C110498* (fab assembly)",
        "Mouser 652-4816P-T01-473LF",
        0.60,
        "pin 16 is the common: to +3V3; elements 1-8 pull up inputs H..A, 9-15 unused; fab-assembled",
    ),
    # The through-hole parts of the perfboard build (the diode matrix variant).
    "ahct125_tht": (
        "controller",
        "Quad buffer (level shifter)",
        "74AHCT125",
        "DIP-14",
        "Texas Instruments",
        "SN74AHCT125N",
        "Mouser 595-SN74AHCT125N",
        "Digi-Key 296-4655-5-ND",
        0.70,
        "5 V supply, TTL inputs: 3.3 V data reads high",
    ),
    "r_330_tht": (
        "passives",
        "Resistor 1/4 W 1 %",
        "330 Ohm",
        "axial, 0207",
        "Yageo",
        "MFR-25FBF52-330R",
        "Mouser 603-MFR-25FBF52-330R",
        "Digi-Key (same MPN)",
        0.10,
        "LED data series resistor, at LED 0's DIN",
    ),
    "r_100_tht": (
        "passives",
        "Resistor 1/4 W 1 %",
        "100 Ohm",
        "axial, 0207",
        "Yageo",
        "MFR-25FBF52-100R",
        "Mouser 603-MFR-25FBF52-100R",
        "Digi-Key (same MPN)",
        0.10,
        "SCK and latch source termination, at the Pico's pins",
    ),
    "r_10k_tht": (
        "passives",
        "Resistor 1/4 W 1 %",
        "10 kOhm",
        "axial, 0207",
        "Yageo",
        "MFR-25FBF52-10K",
        "Mouser 603-MFR-25FBF52-10K",
        "Digi-Key (same MPN)",
        0.10,
        "~FAULT pull-up",
    ),
    "r_100k_tht": (
        "passives",
        "Resistor 1/4 W 1 %",
        "100 kOhm",
        "axial, 0207",
        "Yageo",
        "MFR-25FBF52-100K",
        "Mouser 603-MFR-25FBF52-100K",
        "Digi-Key (same MPN)",
        0.10,
        "TPS2553 EN pull-down: LED rail off until the firmware turns it on",
    ),
    "r_43k2_tht": (
        "passives",
        "Resistor 1/4 W 1 %",
        "43.2 kOhm",
        "axial, 0207",
        "Yageo",
        "MFR-25FBF52-43K2",
        "Mouser 603-MFR-25FBF52-43K2",
        "Digi-Key (same MPN)",
        0.10,
        "TPS2553 ILIM: 544-673 mA",
    ),
    "c_100n_tht": (
        "passives",
        "Capacitor, ceramic X7R 50 V",
        "100 nF",
        "radial, 2.54 mm lead spacing",
        "KEMET",
        "C320C104K5R5TA",
        "Mouser 80-C320C104K5R",
        "Digi-Key 399-4264-ND",
        0.25,
        "decoupling: one per chip, one at the switch input, one at every LED (across VDD-VSS, leads short)",
    ),
    "c_220u_tht": (
        "passives",
        "Capacitor, aluminium electrolytic",
        "220 uF 10 V",
        "radial 6.3 x 11 mm, 2.5 mm spacing",
        "Panasonic",
        "EEU-FR1A221",
        "Mouser 667-EEU-FR1A221",
        "Digi-Key (same MPN); any 220 uF >= 10 V radial 6.3 mm, 2.5 mm spacing",
        0.48,
        "LED rail bulk after the load switch, on the controller board where the LED power wires start; "
        "mind the polarity (stripe = -)",
    ),
    "reed": (
        "sensors",
        "Reed switch, normally open",
        "15-20 AT, glass 1.8 x 12.7 mm",
        "axial glass, leads straight, 40.4 mm over the leads",
        "Littelfuse (Hamlin)",
        "MDSR-7-15-20",
        "Mouser: MPN MDSR-7-15-20",
        "Digi-Key: MPN MDSR-7-15-20",
        0.90,
        "Littelfuse MDSR-7 datasheet: 12.7 x 1.8 mm glass (fits the 15 x 2.5 mm channel), 40.38 mm over the leads, "
        "ordered by its pull-in band; 15-20 AT lies inside the 10-20 AT the drive figures assume "
        "(hardware/magnets.md). Pull-in band rule: 15-20 AT on every board; MDSR-7-10-15 (10-15 AT) only on "
        "board25, never on board49 or board168, where a piece 8.5-9 mm off its point reaches a 10 AT "
        "neighbour (<board>/mechanics.md); never a band above 20 AT. Buy the board's set in "
        "one order (one batch); never cut the leads, never bend one within 3 mm of the glass",
    ),
    "1n4148": (
        "sensors",
        "Signal diode",
        "1N4148",
        "DO-35",
        "onsemi",
        "1N4148",
        "Mouser 512-1N4148",
        "Digi-Key 1N4148FS-ND",
        0.05,
        "cathode (band) to the row",
    ),
    "led": (
        "leds",
        "RGB LED with driver, 5 mm through-hole, diffused",
        "WS2812D-F5",
        "5 mm round, 4 leads 2.54 mm",
        "Worldsemi",
        "WS2812D-F5",
        "LCSC C190565* (WS2812D-F5)",
        "Adafruit 1938 (5-pack: order qty / 5; PL9823-class: RGB order, set leds.order to RGB)",
        0.20,
        "through-hole so that it stands beside the piece, dome flush with the play surface "
        "(hardware/mechanical.md); a PL9823-F5 fits the same hole but takes RGB, not GRB: then set "
        "leds.order to RGB in the layout",
    ),
    "r_330": (
        "passives",
        "Resistor 0.125 W 1 %",
        "330 Ohm",
        "0805",
        "UNI-ROYAL",
        "0805W8F3300T5E",
        "LCSC C17630 (fab assembly, basic part)",
        "any 0805 1 % thick-film resistor of the value",
        0.01,
        "LED data series resistor, at LED 0's DIN; fab-assembled",
    ),
    "r_100": (
        "passives",
        "Resistor 0.125 W 1 %",
        "100 Ohm",
        "0805",
        "UNI-ROYAL",
        "0805W8F1000T5E",
        "LCSC C17408 (fab assembly, basic part)",
        "any 0805 1 % thick-film resistor of the value",
        0.01,
        "SCK and latch source termination, at the Pico's pins; fab-assembled",
    ),
    "r_10k": (
        "passives",
        "Resistor 0.125 W 1 %",
        "10 kOhm",
        "0805",
        "UNI-ROYAL",
        "0805W8F1002T5E",
        "LCSC C17414 (fab assembly, basic part)",
        "any 0805 1 % thick-film resistor of the value",
        0.01,
        "~FAULT pull-up and the buttons' pull-ups; fab-assembled",
    ),
    "r_100k": (
        "passives",
        "Resistor 0.125 W 1 %",
        "100 kOhm",
        "0805",
        "UNI-ROYAL",
        "0805W8F1003T5E",
        "LCSC C149504 (fab assembly, basic part)",
        "any 0805 1 % thick-film resistor of the value",
        0.01,
        "TPS2553 EN pull-down: LED rail off until the firmware turns it on; fab-assembled",
    ),
    "r_1k": (
        "passives",
        "Resistor 0.125 W 1 %",
        "1 kOhm",
        "0805",
        "UNI-ROYAL",
        "0805W8F1001T5E",
        "LCSC C17513 (fab assembly, basic part)",
        "any 0805 1 % thick-film resistor of the value",
        0.01,
        "buttons' series resistors (GPIO side); fab-assembled",
    ),
    "esd": (
        "passives",
        "TVS diode, bidirectional, 3.3 V",
        "PESD3V3L1BA",
        "SOD-323",
        "Nexperia",
        "PESD3V3L1BA,115",
        "LCSC C85369* (fab assembly)",
        "Mouser 771-PESD3V3L1BA115",
        0.08,
        "ESD protection at each button, to GND; fab-assembled",
    ),
    "r_43k2": (
        "passives",
        "Resistor 0.125 W 1 %",
        "43.2 kOhm",
        "0805",
        "UNI-ROYAL",
        "0805W8F4322T5E",
        "LCSC C17667* (fab assembly, basic part)",
        "any 0805 1 % thick-film resistor of the value",
        0.01,
        "TPS2553 ILIM: 544-673 mA; fab-assembled",
    ),
    "c_100n": (
        "passives",
        "Capacitor, ceramic X7R 50 V",
        "100 nF",
        "0805",
        "Samsung",
        "CL21B104KBCNNNC",
        "LCSC C49678 (fab assembly, basic part)",
        "Mouser 187-CL21B104KBCNNNC",
        0.01,
        "decoupling: one per chip, one at the switch input, one at every LED; fab-assembled",
    ),
    "c_220u": (
        "passives",
        "Capacitor, aluminium electrolytic, SMD",
        "220 uF 10 V",
        "6.3 x 7.7 mm can (SMD)",
        "Panasonic",
        "EEE-FK1A221P",
        "LCSC C178546* (fab assembly)",
        "Mouser 667-EEE-FK1A221P",
        0.30,
        "LED rail bulk after the soft-start switch, on the controller module; fab-assembled",
    ),
    "header_1x12": (
        "controller",
        "Pin header, 1 x 12, 2.54 mm, straight",
        "1 x 12",
        "THT, 2.54 mm",
        "Amphenol",
        "77311-118-12LF",
        "Mouser 649-77311-118-12LF",
        "LCSC C2337 (1x40 header, cut to 12)",
        0.40,
        "J1 on the main board, J2 on the controller module; joined pin for pin by a 12-wire cable "
        "(2 x 12-pin female Dupont housings or a 1.27 mm ribbon with IDC sockets), at most 30 cm",
    ),
    "button": (
        "controller",
        "Tactile switch, momentary, 6 x 6 mm, through-hole",
        "6 x 6 mm, 13 mm tall",
        "THT, 4 pins 6.5 x 4.5 mm",
        "C&K",
        "PTS645SM13 (any 6 x 6 mm THT tactile switch 13 mm tall)",
        "Mouser 611-PTS645SM13",
        "LCSC: 6x6x13 THT tactile switch",
        0.20,
        "OK, BACK, HINT (optional): on the main board's South margin, the plunger through P1's 7 mm hole "
        "with a cap; hand-soldered",
    ),
}

# The strip modules' chain headers (board49, board168): 2 x N, 2.54 mm, one per cable end;
# a 1.27 mm flat ribbon with an IDC socket pressed on at each end (a vise does it) joins
# two of them pin for pin.
for _rows in range(2, 11):
    PARTS["header_2x%d" % _rows] = (
        "controller",
        "Box header, 2 x %d, 2.54 mm, straight (shrouded, keyed)" % _rows,
        "2 x %d" % _rows,
        "THT, 2.54 mm",
        "Amphenol",
        "75869-131LF (2 x 5; 2 x %d: the same series)" % _rows,
        "LCSC C3405 (2 x 5 box header; other sizes unchecked)",
        "IDC socket 2 x %d + 1.27 mm ribbon (e.g. LCSC C2931, unchecked)" % _rows,
        0.35,
        "the chain headers of the strip modules: J2 on the controller, Jk0 (in) and Jk1 (out) on strip k; "
        "each cable a 2 x %d IDC ribbon, at most 30 cm, pin 1 to pin 1" % _rows,
    )

# Parts that no netlist names (counts depend on the circuit).
SOT_ADAPTER = (
    "build",
    "Adapter board",
    "SOT-23-6 to 2.54 mm",
    "PCB, 6 pins",
    "generic",
    "",
    "any SOT-23-6 to DIP breakout",
    "",
    0.60,
    "carries U3 on the controller board",
)
PERFBOARD = (
    "build",
    "Perfboard",
    "2.54 mm, one pad per hole",
    "board",
    "generic",
    "",
    "100 x 160 mm perfboard (39 x 62 holes or more)",
    "",
    3.00,
    "the controller board and the sensor strips, cut per perfboard.svg; quantity: the pieces packed onto "
    "100 x 160 mm boards (perfboard.stock_layout)",
)


# A part the assembly service places: its first supplier is the service's stock.
FAB_SUPPLIER = re.compile(r"LCSC (C\d+\*?) \(fab assembly")

# Spares. ``qty`` is what the netlist counts (the tests hold it equal to the references);
# ``order_qty`` is what to order. A builder who solders small parts by hand orders more of
# them: a reed switch's glass cracks when a lead is bent too near the seal or the switch is
# dropped, a resistor, capacitor or diode rolls off the bench, an LED is overheated or set
# in crooked. Rule: +10 %, rounded up, at least 2, for those kinds (SPARE_KINDS, by their
# ``Part.bom`` key) when the builder orders them; none for modules and ICs (the Pico, the
# 74HC165s: one each, handled one at a time), buttons and headers (robust), the PCBs and the
# service rows, and none for parts the assembly service places (it keeps and charges its
# own attrition stock).
SPARE_FRACTION = 0.10
SPARE_MIN = 2
SPARE_KINDS = ("reed", "led", "1n4148", "esd", "r_", "c_")


def fab_assembled(bom_key: str) -> bool:
    return bool(FAB_SUPPLIER.match(PARTS[bom_key][6]))


def spares(bom_key: str, qty: int) -> int:
    """How many to order beyond ``qty`` (the rule above)."""
    if not bom_key.startswith(SPARE_KINDS) or fab_assembled(bom_key):
        return 0
    return max(SPARE_MIN, math.ceil(qty * SPARE_FRACTION))


def rows(layout: Layout, circuit: Circuit) -> list[dict[str, str]]:
    """The electrical rows: one per orderable part, with its references."""
    refs: dict[str, list[str]] = {}
    for ref, part in circuit.parts.items():
        refs.setdefault(part.bom, []).append(ref)
    out = []
    for key, entry in PARTS.items():
        if key in refs:
            out.append(_row(entry, refs[key], len(refs[key]), spares(key, len(refs[key]))))
    if any(p.pcb for p in circuit.parts.values()):
        for pcb, (w, h) in pcb_sizes(layout, circuit).items():
            out.append(_row(_pcb_entry(layout.name, pcb, w, h), [], 1))
        # the service charges its set-up and stencil per PCB design
        out.append(_row(ASSEMBLY_SERVICE, [], len(pcb_sizes(layout, circuit))))
        return out
    # IC sockets, the Pico's header strips and the strip-to-strip connectors are rows of
    # the mechanical BOM (zuniboard.hardware.bom_mechanical.bom_rows, bom-mechanical.csv): listed once.
    out.append(_row(SOT_ADAPTER, [], 1))
    out.append(_row(PERFBOARD, [], len(perfboard.stock_layout(layout, circuit))))
    return out


def pcb_sizes(layout: Layout, circuit: Circuit) -> dict[str, tuple[float, float]]:
    """Outline of each PCB (mm): the main board is the play surface's size, the
    controller module 78 x 66 mm or longer (``pcb_size.controller_size``), a strip its
    cells' bounding box (``strips``)."""
    from zuniboard.hardware import pcb_size, strips
    from zuniboard.hardware.placement import layout_geometry, placement

    place = placement(layout_geometry(layout), float(layout.mechanics["pitch_mm"]))
    sub = Circuit("controller", "")
    sub.parts = {r: p for r, p in circuit.parts.items() if p.pcb == "controller"}
    out = {"controller": pcb_size.controller_size(sub)}
    if any(p.pcb == "main" for p in circuit.parts.values()):
        out = {"main": (place.width, place.height), **out}
    if any(p.pcb == "buttons" for p in circuit.parts.values()):
        out["buttons"] = (3 * place.pitch + 12.0, 29.5)
    for k, run in enumerate(strips.strips(layout) if strips.needs_strips(layout) else []):
        out["strip%d" % (k + 1)] = (len(run) * place.pitch, 36.0)
    return out


# 2-layer FR-4 1.6 mm, HASL, 5 boards (the usual minimum order): a price that grows with
# the area, from the low-cost fabs' published calculators (2025-26), shipping apart.
PCB_USD_BASE = 5.0
PCB_USD_PER_DM2 = 2.4


def _pcb_entry(board: str, pcb: str, w: float, h: float) -> tuple[str, str, str, str, str, str, str, str, float, str]:
    price = round(PCB_USD_BASE + PCB_USD_PER_DM2 * (w * h / 10000.0) * 5, 2)
    return (
        "build",
        "PCB, 2 layers, %s" % {"main": "main board", "controller": "controller module"}.get(pcb, pcb),
        "%s x %s mm" % (_mm(w), _mm(h)),
        "FR-4 1.6 mm, 1 oz, HASL",
        "any 2-layer PCB fab",
        "%s-%s (Gerbers from zuni board fab)" % (board, pcb),
        "PCB fab (5 boards: the usual minimum order)",
        "",
        price,
        "price of the 5-board order (you use 1); the fab's rules this board is drawn to: hardware/README.md",
    )


def _mm(v: float) -> str:
    return ("%.1f" % v).rstrip("0").rstrip(".")


ASSEMBLY_SERVICE = (
    "build",
    "PCB assembly, top side (the fab-assembled SMD parts)",
    "economic assembly, per PCB design",
    "service",
    "PCB fab's assembly service",
    "BOM and placement files from zuni board fab",
    "PCB fab",
    "",
    12.5,
    "set-up and stencil fees plus the extended-part fees, per PCB design ordered; the parts themselves are "
    "in the rows above",
)


def _row(
    entry: tuple[str, str, str, str, str, str, str, str, float, str], refs: list[str], qty: int, spare: int = 0
) -> dict[str, str]:
    group, part, value, package, manufacturer, mpn, s1, s2, price, notes = entry
    return {
        "group": group,
        "refs": compress(refs),
        "qty": str(qty),
        "order_qty": str(qty + spare),
        "part": part,
        "value": value,
        "package": package,
        "manufacturer": manufacturer,
        "mpn": mpn,
        "supplier_1": s1,
        "supplier_2": s2,
        "unit_price_usd": "%.2f" % price,
        "notes": notes,
    }


def compress(refs: list[str]) -> str:
    """``C1 C2 C10 C11 C12`` -> ``C1-C2 C10-C12``: runs of one prefix in number order."""

    def split(ref: str) -> tuple[str, int]:
        head = ref.rstrip("0123456789")
        tail = ref[len(head) :]
        return head, int(tail) if tail else -1

    parsed = sorted((split(r), r) for r in refs)
    out: list[str] = []
    i = 0
    while i < len(parsed):
        (head, num), ref = parsed[i]
        j = i
        while (
            j + 1 < len(parsed)
            and parsed[j + 1][0][0] == head
            and num >= 0
            and parsed[j + 1][0][1] == parsed[j][0][1] + 1
        ):
            j += 1
        out.append(ref if j == i else "%s-%s" % (ref, parsed[j][1]))
        i = j + 1
    return " ".join(out)


def expand(text: str) -> list[str]:
    """The inverse of ``compress``."""
    out: list[str] = []
    for item in text.split():
        if "-" in item:
            first, last = item.split("-")
            head = first.rstrip("0123456789")
            out += ["%s%d" % (head, k) for k in range(int(first[len(head) :]), int(last[len(head) :]) + 1)]
        else:
            out.append(item)
    return out


def cost_usd(table: list[dict[str, str]]) -> float:
    """Sum of the quantity ordered (spares included) x unit price (quantities may be
    fractional: metres of wire)."""
    return sum(float(r["order_qty"]) * float(r["unit_price_usd"]) for r in table)


def as_dicts(rows: list[tuple[str, ...]]) -> list[dict[str, str]]:
    """Rows given as tuples in ``COLUMNS`` order (another module's) as dicts."""
    out = []
    for row in rows:
        assert len(row) == len(COLUMNS), row
        out.append(dict(zip(COLUMNS, row, strict=True)))
    return out


def cost_md(layout: Layout, electrical: list[dict[str, str]], other: list[dict[str, str]]) -> str:
    """The cost estimate per group, computed from the BOM rows."""
    out = [
        "# Cost estimate: %s" % layout.name,
        "",
        "Generated by `zuni board generate` from the BOM rows (`bom.csv`%s); do not edit."
        % (" and `bom-mechanical.csv`" if other else ""),
        "Single-unit catalogue prices in USD, rounded; shipping and tax not included. Quantities as "
        "ordered: `order_qty`, spares included (+10 %, at least 2, of the small hand-soldered parts: "
        "`bom.py`, SPARE_FRACTION).",
        "",
        "| group | rows | USD |",
        "| --- | ---: | ---: |",
    ]
    groups: dict[str, list[dict[str, str]]] = {}
    for row in electrical + other:
        groups.setdefault(row["group"], []).append(row)
    for group, rows in groups.items():
        out.append("| %s | %d | %.2f |" % (group, len(rows), cost_usd(rows)))
    out.append("| **electrical** | %d | **%.2f** |" % (len(electrical), cost_usd(electrical)))
    if other:
        out.append("| **mechanical** | %d | **%.2f** |" % (len(other), cost_usd(other)))
    out.append("| **total** | %d | **%.2f** |" % (len(electrical) + len(other), cost_usd(electrical + other)))
    out.append("")
    return "\n".join(out)


def render(table: list[dict[str, str]]) -> str:
    out = [",".join(COLUMNS)]
    for r in table:
        out.append(",".join(csv_cell(r[c]) for c in COLUMNS))
    return "\n".join(out) + "\n"
