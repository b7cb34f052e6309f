"""The reference circuit of a board, built from its layout: every part, every pin (with
its electrical type) and every net. One source of truth: the netlist (text and KiCad),
the schematic, the BOM and the electrical rules check all read this object.

>>> circuit = build(load_layout("board25"))
>>> circuit.nets["SR_DATA"]
[('U1', '21'), ('U10', '9')]

Pin types are KiCad's: ``input``, ``output``, ``bidirectional``, ``tri_state``,
``passive``, ``power_in``, ``power_out``, ``open_collector``, ``no_connect``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zuni_board.layout import Layout

# Raspberry Pi Pico header pin of each GPIO (Pico datasheet, pinout).
PICO_PIN = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29,
    26: 31, 27: 32, 28: 34,
}  # fmt: skip

PICO_GND_PINS = ("3", "8", "13", "18", "23", "28", "38")

# 74HC165 (DIP-16): the input that the k-th bit shifted out comes from. After SH/LD goes
# high, QH shows input H; each rising CLK edge moves one input on.
HC165_INPUT_PINS = (("H", 6), ("G", 5), ("F", 4), ("E", 3), ("D", 14), ("C", 13), ("B", 12), ("A", 11))

# Reference designators of the repeated parts.
FIRST_HC165 = 10  # U10 is the chip nearest the Pico (its QH drives the Pico's data pin)

# Values chosen in power.md / README (each argued there).
PULLUP_OHMS = 47000.0  # reed switch pull-ups (bussed network, SOIC-16: Bourns 4816P-1)
RN_COMMON = "16"  # the 4816P-1's common pin; elements 1-15 on pins 1-15
ILIM_OHMS = 43200.0  # TPS2553 current limit: 544-673 mA (TI SLVS841E, table 1)
SERIES_OHMS = 100.0  # SCK and latch source termination at the Pico
LED_DATA_OHMS = 330.0  # LED data series resistor at the first LED
BULK_UF = 220.0  # LED rail bulk capacitor, after the soft-start switch
# Pull-down of the load switch's EN (power.md, "Power path"): holds the LED rail off from
# plug-in until the firmware drives EN high. The TPS2553's EN input current is at most
# 0.5 uA (TI SLVS841, 7.5 Electrical Characteristics), which shifts the pin by 50 mV at
# most through 100 kOhm, far below its 0.66 V minimum threshold; a driven high costs
# 33 uA.
EN_PULL_OHMS = 100000.0
# Pull-up of the TPS2553's ~FAULT, an open-drain output (TI SLVS841, "FAULT Response"), to
# the Pico's 3.3 V, not to 5 V: the RP2040's pins are not 5 V tolerant. 10 kOhm: 0.33 mA
# while the switch pulls it low (its output is rated at 1 mA), and the Pico input's
# leakage (1 uA at most) costs 10 mV of the high level, far above the RP2040's 2.0 V V_IH.
FAULT_PULL_OHMS = 10000.0
GROUND = "GND"
# PCB footprints: the fab assembles the SMD parts (74HC165, 74AHCT125, TPS2553,
# resistors, capacitors); the builder solders the through-hole ones (Pico, reed
# switches, 5 mm LEDs, resistor networks, buttons).
R_SMD = "Resistor_SMD:R_0805_2012Metric"
C_SMD = "Capacitor_SMD:C_0805_2012Metric"


@dataclass(frozen=True)
class Pin:
    number: str
    name: str
    kind: str
    pulled: bool = False  # the chip pulls this input up itself (RP2040 internal pull-up)
    # An enable input: the level that turns its function on ("high" or "low"). The ERC
    # wants such a pin tied to a rail, or pulled to its OFF level when a GPIO drives it
    # (a GPIO floats until the firmware sets it up).
    enable: str = ""


@dataclass
class Part:
    """One component: its pins, what it is, and where the schematic draws it."""

    ref: str
    value: str
    footprint: str
    description: str
    pins: list[Pin]
    sheet: str  # "controller", "sensors", "leds"
    bom: str  # key into bom.PARTS
    no_connect: set[str] = field(default_factory=set)
    # The printed circuit board the part sits on: "controller" (the Pico's module) or
    # "main" (the board under the play surface); set by ``split_boards``.
    pcb: str = ""

    def pin(self, number: str) -> Pin:
        for p in self.pins:
            if p.number == number:
                return p
        raise KeyError("%s has no pin %s" % (self.ref, number))


@dataclass
class Circuit:
    name: str
    title: str
    parts: dict[str, Part] = field(default_factory=dict)
    nets: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def add(self, part: Part) -> Part:
        assert part.ref not in self.parts, part.ref
        self.parts[part.ref] = part
        return part

    def connect(self, net: str, *nodes: tuple[str, str]) -> None:
        for ref, number in nodes:
            self.parts[ref].pin(number)  # the pin exists
        self.nets.setdefault(net, []).extend(nodes)

    def net_of(self, ref: str, number: str) -> str | None:
        for name, nodes in self.nets.items():
            if (ref, number) in nodes:
                return name
        return None

    def node(self, ref: str, number: str) -> str:
        """``U10.9(QH)``: a pin as the netlist writes it."""
        part = self.parts[ref]
        pin = part.pin(number)
        # Resistors, capacitors and switches go by pin number alone; a diode's K/A and an
        # electrolytic's +/- are named.
        plain = pin.name == number or (len(part.pins) == 2 and pin.name in ("1", "2"))
        return "%s.%s" % (ref, number) if plain else "%s.%s(%s)" % (ref, number, pin.name)


def _two(
    ref: str, value: str, footprint: str, description: str, sheet: str, bom: str, names: tuple[str, str] = ("1", "2")
) -> Part:
    return Part(
        ref, value, footprint, description, [Pin("1", names[0], "passive"), Pin("2", names[1], "passive")], sheet, bom
    )


def _pico(gpios: dict[int, tuple[str, str, bool]]) -> Part:
    """The Pico module with the pins this board uses: gpio -> (function, type, pulled)."""
    pins = [
        Pin("40", "VBUS", "power_out"),  # 5 V from the USB cable
        Pin("36", "3V3_OUT", "power_out"),  # the Pico's own 3.3 V regulator (RT6150B)
    ]
    # Every GND pin of the module: they are one net on the Pico, and KiCad's symbol joins
    # them (stacked pins), so the model names them all.
    pins += [Pin(n, "GND", "power_out") for n in PICO_GND_PINS]
    for gpio in sorted(gpios):
        function, kind, pulled = gpios[gpio]
        pins.append(Pin(str(PICO_PIN[gpio]), "GP%d" % gpio, kind, pulled))
    return Part(
        "U1",
        "Raspberry Pi Pico",
        "Module:RaspberryPi_Pico_Common_THT",
        "Raspberry Pi Pico (RP2040), MicroPython firmware",
        pins,
        "controller",
        "pico",
    )


def _hc165(ref: str, k: int) -> Part:
    pins = [
        Pin("1", "SH/LD", "input"),
        Pin("2", "CLK", "input"),
        Pin("7", "~QH", "output"),
        Pin("8", "GND", "power_in"),
        Pin("9", "QH", "output"),
        Pin("10", "SER", "input"),
        Pin("15", "CLK_INH", "input"),
        Pin("16", "VCC", "power_in"),
    ]
    pins += [Pin(str(number), letter, "input") for letter, number in HC165_INPUT_PINS]
    pins.sort(key=lambda p: int(p.number))
    part = Part(
        ref,
        "74HC165",
        "Package_SO:SOIC-16_3.9x9.9mm_P1.27mm",
        "74HC165 #%d of the chain (3.3 V)" % k,
        pins,
        "sensors",
        "hc165",
    )
    part.no_connect = {"7"}
    return part


@dataclass
class _Rails:
    """The supply nets' nodes, gathered by every sub-circuit and connected last, so that
    each rail is one net listing its nodes in the order the sub-circuits are built."""

    vbus: list[tuple[str, str]] = field(default_factory=list)
    five: list[tuple[str, str]] = field(default_factory=list)
    three: list[tuple[str, str]] = field(default_factory=list)
    gnd: list[tuple[str, str]] = field(default_factory=list)


def build(layout: Layout) -> Circuit:
    """The whole board's circuit from its layout."""
    c = Circuit(layout.name, layout.title)
    order = sorted(layout.points, key=lambda name: layout.points[name][1])
    by_sensor = {layout.points[name][0]: name for name in layout.points}
    led_enable: int | None = layout.power.get("led_enable")
    fault: int | None = layout.power.get("fault")
    c.add(_pico(_gpio_functions(layout)))
    _power_switch(c, led_enable)
    _level_shifter(c)
    rails = _controller_nets(c, led_enable, fault)
    _led_chain(c, layout, order, rails)
    if layout.sensors["type"] == "hc165":
        _shift_register_chain(c, layout, rails)
        _reed_inputs(c, layout, by_sensor, rails)
    else:
        _diode_matrix(c, layout, by_sensor)
    _buttons(c, layout, rails)
    c.connect("VBUS", *rails.vbus)
    c.connect("+5V", *rails.five)
    c.connect("+3V3", *rails.three)  # on the matrix board: only the FAULT pull-up
    c.connect(GROUND, *rails.gnd)
    _place_on_boards(c, layout)
    return c


def _gpio_functions(layout: Layout) -> dict[int, tuple[str, str, bool]]:
    """The Pico's GPIOs this layout uses: gpio -> (function, type, pulled)."""
    sensors = layout.sensors
    gpios: dict[int, tuple[str, str, bool]] = {layout.leds["pin"]: ("LED data", "output", False)}
    if sensors["type"] == "hc165":
        pins = sensors["pins"]
        gpios[pins["sck"]] = ("SPI SCK", "output", False)
        gpios[pins["latch"]] = ("latch", "output", False)
        gpios[pins["data"]] = ("SPI RX", "input", False)
    else:
        for gpio in sensors["rows"]:
            gpios[gpio] = ("matrix row", "output", False)
        for gpio in sensors["cols"]:
            gpios[gpio] = ("matrix column", "input", True)
    for gpio in layout.buttons.values():
        gpios[gpio] = ("button", "input", True)
    led_enable = layout.power.get("led_enable")
    if led_enable is not None:
        gpios[led_enable] = ("LED rail enable", "output", False)
    fault = layout.power.get("fault")
    if fault is not None:
        # pulled: False, the firmware sets no internal pull-up: R3 is the line's pull-up
        gpios[fault] = ("LED supply fault", "input", False)
    return gpios


def _power_switch(c: Circuit, led_enable: int | None) -> None:
    """The LED rail's load switch (U3) with its current limit, ~FAULT pull-up, EN
    pull-down (when a GPIO drives EN) and capacitors."""
    c.add(
        Part(
            "U3",
            "TPS2553",
            "Package_TO_SOT_SMD:SOT-23-6",
            "TPS2553 current-limited load switch with soft start: VBUS -> +5V (LED rail)",
            [
                Pin("1", "IN", "power_in"),
                Pin("2", "GND", "power_in"),
                Pin("3", "EN", "input", enable="high"),  # TPS2553: active high (TPS2552: ~EN)
                Pin("4", "~FAULT", "open_collector"),
                Pin("5", "ILIM", "passive"),
                Pin("6", "OUT", "power_out"),
            ],
            "controller",
            "tps2553",
        )
    )
    c.add(_two("R2", "43.2k 1%", R_SMD, "TPS2553 ILIM: current limit 544-673 mA", "controller", "r_43k2"))
    c.add(
        _two(
            "R3",
            "%dk" % (FAULT_PULL_OHMS / 1000),
            R_SMD,
            "pull-up of the TPS2553 ~FAULT output (open drain) to 3.3 V, read by the Pico (test point TP_FAULT)",
            "controller",
            "r_10k",
        )
    )
    if led_enable is not None:
        c.add(
            _two(
                "R6",
                "100k",
                R_SMD,
                "pull-down of the TPS2553 EN: the LED rail stays off until the firmware turns it on",
                "controller",
                "r_100k",
            )
        )
    c.add(_two("C1", "100n", C_SMD, "TPS2553 input decoupling, on VBUS", "controller", "c_100n"))
    c.add(
        _two(
            "C3",
            "%du 10V" % BULK_UF,
            "Capacitor_SMD:CP_Elec_6.3x7.7",
            "LED rail bulk, after the soft-start switch",
            "controller",
            "c_220u",
            ("+", "-"),
        )
    )


def _level_shifter(c: Circuit) -> None:
    """The 74AHCT125 that lifts the LED data to 5 V (U2), its decoupling, and the series
    resistor at the first LED."""
    ahct = Part(
        "U2",
        "74AHCT125",
        "Package_SO:SOIC-14_3.9x8.7mm_P1.27mm",
        "74AHCT125 quad buffer at 5 V: LED data 3.3 V -> 5 V",
        [
            Pin("1", "1OE", "input", enable="low"),
            Pin("2", "1A", "input"),
            Pin("3", "1Y", "tri_state"),
            Pin("4", "2OE", "input", enable="low"),
            Pin("5", "2A", "input"),
            Pin("6", "2Y", "tri_state"),
            Pin("7", "GND", "power_in"),
            Pin("8", "3Y", "tri_state"),
            Pin("9", "3A", "input"),
            Pin("10", "3OE", "input", enable="low"),
            Pin("11", "4Y", "tri_state"),
            Pin("12", "4A", "input"),
            Pin("13", "4OE", "input", enable="low"),
            Pin("14", "VCC", "power_in"),
        ],
        "controller",
        "ahct125",
    )
    ahct.no_connect = {"6", "8", "11"}  # unused gates: disabled (OE high), inputs grounded
    c.add(ahct)
    c.add(_two("C2", "100n", C_SMD, "74AHCT125 decoupling", "controller", "c_100n"))
    c.add(_two("R1", "330", R_SMD, "LED data series resistor, at the first LED", "leds", "r_330"))


def _controller_nets(c: Circuit, led_enable: int | None, fault: int | None) -> _Rails:
    """The controller's own nets (LED_EN, FAULT, ILIM), and its nodes on the rails."""
    rails = _Rails()
    rails.gnd = [("U1", n) for n in PICO_GND_PINS]
    rails.gnd += [("U3", "2"), ("R2", "2"), ("C1", "2"), ("C3", "2"), ("U2", "7"), ("C2", "2")]
    rails.gnd += [("U2", "1"), ("U2", "5"), ("U2", "9"), ("U2", "12")]
    rails.vbus = [("U1", "40"), ("U3", "1"), ("C1", "1")]
    if led_enable is None:
        rails.vbus.append(("U3", "3"))  # EN tied to IN: the LED rail is on from plug-in
    else:
        c.connect("LED_EN", ("U1", str(PICO_PIN[led_enable])), ("U3", "3"), ("R6", "1"))
        rails.gnd.append(("R6", "2"))
    rails.five = [("U3", "6"), ("C3", "1"), ("U2", "14"), ("C2", "1"), ("U2", "4"), ("U2", "10"), ("U2", "13")]
    rails.three = [("U1", "36"), ("R3", "1")]
    c.connect("FAULT", ("U3", "4"), ("R3", "2"))
    if fault is not None:
        c.connect("FAULT", ("U1", str(PICO_PIN[fault])))
    c.connect("ILIM", ("U3", "5"), ("R2", "1"))
    return rails


def _led_chain(c: Circuit, layout: Layout, order: list[str], rails: _Rails) -> None:
    """The LEDs, each with its decoupling capacitor, in a chain from the level shifter;
    ``order`` names the point of each LED, by LED index."""
    leds = layout.leds
    n_leds = leds["count"]
    c.connect("LED_3V3", ("U1", str(PICO_PIN[leds["pin"]])), ("U2", "2"))
    c.connect("LED_5V", ("U2", "3"), ("R1", "1"))
    for i in range(n_leds):
        ref = "LED%d" % i
        point = order[i] if i < len(order) else "-"
        c.add(
            Part(
                ref,
                leds["type"].upper(),
                "zuniboard:LED_D5.0mm-4_RGB_D0.8",
                "%s (%s), point %s" % (leds["type"].upper(), leds["order"], point),
                # The 5 mm part's leads from its flat side: DIN, VDD (the longest), VSS, DOUT
                # (WS2812D-F5 / PL9823-F5; the 5050 WS2812B numbers them VDD, DOUT, VSS, DIN).
                [
                    Pin("1", "DIN", "input"),
                    Pin("2", "VDD", "power_in"),
                    Pin("3", "VSS", "power_in"),
                    Pin("4", "DOUT", "output"),
                ],
                "leds",
                "led",
            )
        )
        c.add(_two("CL%d" % i, "100n", C_SMD, "decoupling at LED%d" % i, "leds", "c_100n"))
        rails.five += [(ref, "2"), ("CL%d" % i, "1")]
        rails.gnd += [(ref, "3"), ("CL%d" % i, "2")]
        if i == 0:
            c.connect("LED_DIN0", ("R1", "2"), (ref, "1"))
        else:
            c.connect("LED_DIN%d" % i, ("LED%d" % (i - 1), "4"), (ref, "1"))
    c.parts["LED%d" % (n_leds - 1)].no_connect = {"4"}  # DOUT of the last LED


def _shift_register_chain(c: Circuit, layout: Layout, rails: _Rails) -> None:
    """The 74HC165 chain (U10 on) with each chip's pull-up network and decoupling, and the
    clock and latch lines from the Pico through their source terminations (R4, R5)."""
    chips = layout.sensors["count"] // 8
    pins = layout.sensors["pins"]
    c.add(_two("R4", "100", R_SMD, "SCK source termination, at the Pico", "controller", "r_100"))
    c.add(_two("R5", "100", R_SMD, "latch source termination, at the Pico", "controller", "r_100"))
    c.connect("SR_CLK_PICO", ("U1", str(PICO_PIN[pins["sck"]])), ("R4", "1"))
    c.connect("SR_LOAD_PICO", ("U1", str(PICO_PIN[pins["latch"]])), ("R5", "1"))
    clk = [("R4", "2")]
    load = [("R5", "2")]
    for k in range(chips):
        u = "U%d" % (FIRST_HC165 + k)
        c.add(_hc165(u, k))
        rn = Part(
            "RN%d" % (FIRST_HC165 + k),
            "47k x15 bussed",
            "Package_SO:SOIC-16_3.9x9.9mm_P1.27mm",
            "bussed 47 kOhm network (15 elements, 8 used), pull-ups of %s" % u,
            [Pin(str(j), "R%d" % j, "passive") for j in range(1, 16)] + [Pin(RN_COMMON, "COM", "passive")],
            "sensors",
            "rn_47k",
        )
        rn.no_connect = {str(j) for j in range(9, 16)}  # elements 9-15 unused
        c.add(rn)
        cap = "C%d" % (FIRST_HC165 + k)
        c.add(_two(cap, "100n", C_SMD, "%s decoupling" % u, "sensors", "c_100n"))
        rails.three += [(u, "16"), (rn.ref, RN_COMMON), (cap, "1")]
        rails.gnd += [(u, "8"), (u, "15"), (cap, "2")]
        clk.append((u, "2"))
        load.append((u, "1"))
        if k:
            c.connect("SR_CHAIN%d" % k, ("U%d" % (FIRST_HC165 + k - 1), "10"), (u, "9"))
    rails.three.append(("U%d" % (FIRST_HC165 + chips - 1), "10"))  # SER of the last chip: reads empty
    c.connect("SR_CLK", *clk)
    c.connect("SR_LOAD", *load)
    c.connect("SR_DATA", ("U1", str(PICO_PIN[pins["data"]])), ("U%d" % FIRST_HC165, "9"))


def _reed_switch(point: str) -> Part:
    return _two(
        "SW_%s" % point,
        "reed NO",
        "Resistor_THT:R_Axial_DIN0617_L17.0mm_D6.0mm_P20.32mm_Horizontal",
        "reed switch under point %s" % point,
        "sensors",
        "reed",
    )


def _reed_inputs(c: Circuit, layout: Layout, by_sensor: dict[int, str], rails: _Rails) -> None:
    """Every input of the 74HC165 chain with its pull-up: a reed switch to GND under the
    point that sensor index reads, or a spare input."""
    for index in range(layout.sensors["count"]):
        chip, bit = divmod(index, 8)
        letter, number = HC165_INPUT_PINS[bit]
        u = "U%d" % (FIRST_HC165 + chip)
        nodes = [(u, str(number)), ("RN%d" % (FIRST_HC165 + chip), str(1 + bit))]
        sensed = by_sensor.get(index)
        if sensed is None:
            c.connect("S%d_SPARE" % index, *nodes)
        else:
            c.add(_reed_switch(sensed))
            nodes.append(("SW_%s" % sensed, "1"))
            rails.gnd.append(("SW_%s" % sensed, "2"))
            c.connect("S%d_%s" % (index, sensed), *nodes)


def _diode_matrix(c: Circuit, layout: Layout, by_sensor: dict[int, str]) -> None:
    """The matrix variant's sensors: a reed switch and a series diode per point, rows
    driven by the Pico at the cathodes, columns read at the switches."""
    rows = layout.sensors["rows"]
    cols = layout.sensors["cols"]
    for index in sorted(by_sensor):
        point = by_sensor[index]
        c.add(_reed_switch(point))
        c.add(
            _two(
                "D_%s" % point,
                "1N4148",
                "Diode_THT:D_DO-35_SOD27_P7.62mm_Horizontal",
                "diode in series with SW_%s" % point,
                "sensors",
                "1n4148",
                ("K", "A"),
            )
        )
        c.connect("SWD_%s" % point, ("SW_%s" % point, "2"), ("D_%s" % point, "2"))
    for r, gpio in enumerate(rows):
        cathodes = [
            ("D_%s" % by_sensor[r * len(cols) + k], "1") for k in range(len(cols)) if r * len(cols) + k in by_sensor
        ]
        c.connect("ROW%d" % r, ("U1", str(PICO_PIN[gpio])), *cathodes)
    for k, gpio in enumerate(cols):
        switches = [
            ("SW_%s" % by_sensor[r * len(cols) + k], "1") for r in range(len(rows)) if r * len(cols) + k in by_sensor
        ]
        c.connect("COL%d" % k, ("U1", str(PICO_PIN[gpio])), *switches)


def _buttons(c: Circuit, layout: Layout, rails: _Rails) -> None:
    """The push buttons to GND: straight to their GPIO (internal pull-up) on the perfboard,
    through ``_button_protection`` on the PCBs."""
    pcb_build = layout.sensors["type"] == "hc165"
    for k, (button, gpio) in enumerate(sorted(layout.buttons.items())):
        name = button.upper()
        ref = "SW_%s" % name
        c.add(
            _two(
                ref,
                name,
                "Button_Switch_THT:SW_PUSH_6mm",
                "push button %s (to GND%s)" % (name, "" if pcb_build else ", internal pull-up"),
                "controller",
                "button",
            )
        )
        rails.gnd.append((ref, "2"))
        if pcb_build:
            _button_protection(c, k, name, gpio, rails)
        else:
            c.connect("BTN_%s" % name, ("U1", str(PICO_PIN[gpio])), (ref, "1"))


def _button_protection(c: Circuit, k: int, name: str, gpio: int, rails: _Rails) -> None:
    """The k-th button's parts on the PCBs. Each button sits on 0.3 m of cable from the
    Pico: at the button a 10 kOhm pull-up (the RP2040's own 50-80 kOhm is weak against
    pick-up) and a bidirectional TVS to GND take the ESD; 1 kOhm in series limits what
    reaches the GPIO's clamp diodes (and the cable's ringing)."""
    ref = "SW_%s" % name
    series, pull, tvs = "R%d" % (BUTTON_R_FIRST + k), "R%d" % (BUTTON_R_FIRST + 3 + k), "D%d" % (k + 1)
    c.add(_two(series, "1k", R_SMD, "button %s series resistor (GPIO side)" % name, "controller", "r_1k"))
    c.add(_two(pull, "10k", R_SMD, "button %s pull-up to +3V3" % name, "controller", "r_10k"))
    c.add(
        _two(
            tvs, "PESD3V3L1BA", "Diode_SMD:D_SOD-323", "button %s ESD protection (TVS to GND)" % name,
            "controller", "esd", ("A1", "A2"),
        )
    )  # fmt: skip
    for part in (series, pull, tvs):
        c.parts[part].pcb = "main"  # beside the button
    c.connect("BTN_%s" % name, ("U1", str(PICO_PIN[gpio])), (series, "1"))
    c.connect("BTN_%s_SW" % name, (series, "2"), (pull, "1"), (tvs, "1"), (ref, "1"))
    rails.three.append((pull, "2"))
    rails.gnd.append((tvs, "2"))


def _place_on_boards(c: Circuit, layout: Layout) -> None:
    """Puts the parts on their boards: the PCB build's controller module and main board
    (or sensor strips), or the perfboard build's through-hole parts."""
    if layout.sensors["type"] == "hc165":
        from zuniboard.hardware import strips

        if strips.needs_strips(layout):
            split_strips(c, layout, strips.strips(layout))
        else:
            split_boards(c)
    else:  # the diode matrix variant stays a perfboard build
        _through_hole(c)


# The perfboard build's through-hole parts for the PCB build's surface-mount ones.
THROUGH_HOLE = {
    R_SMD: "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal",
    C_SMD: "Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P2.50mm",
    "Capacitor_SMD:CP_Elec_6.3x7.7": "Capacitor_THT:CP_Radial_D6.3mm_P2.50mm",
    "Package_SO:SOIC-14_3.9x8.7mm_P1.27mm": "Package_DIP:DIP-14_W7.62mm_Socket",
    "Package_TO_SOT_SMD:SOT-23-6": "Package_TO_SOT_SMD:SOT-23-6 (on a SOT-23-6 to DIP adapter)",
}


def _through_hole(c: Circuit) -> None:
    for part in c.parts.values():
        if part.footprint in THROUGH_HOLE:
            changed = THROUGH_HOLE[part.footprint]
            if not changed.startswith("Package_TO_SOT_SMD"):
                part.bom += "_tht"
            part.footprint = changed


BUTTON_R_FIRST = 7  # R7-R9 the buttons' series resistors, R10-R12 their pull-ups

# Nets that carry the LED rail's current get two pins of the board-to-board cable.
DOUBLED_NETS = ("+5V", GROUND)
CABLE_FOOTPRINT = "Connector_PinHeader_2.54mm:PinHeader_1x%02d_P2.54mm_Vertical"


def split_boards(c: Circuit) -> None:
    """Puts every part on a PCB and joins the two PCBs by a cable: the controller module
    (Pico, load switch, level shifter and their resistors and capacitors: everything of
    the "controller" sheet but the buttons) and the main board under the play surface
    (reed switches, LEDs, shift registers, buttons). Every net with pins on both gets a
    pin of J1 (main board) and the same pin of J2 (controller), joined by a straight
    1:1 cable; the LED rail and ground get two pins each."""
    for part in c.parts.values():
        if not part.pcb:  # the button protection is placed already: beside its button
            part.pcb = "controller" if part.sheet == "controller" and part.bom != "button" else "main"
    crossing = []
    for net, nodes in c.nets.items():
        boards = {c.parts[ref].pcb for ref, _ in nodes}
        if len(boards) > 1:
            crossing.append(net)
    pins: list[str] = []
    for net in DOUBLED_NETS:
        if net in crossing:
            pins += [net, net]
    pins += sorted(n for n in crossing if n not in DOUBLED_NETS)
    if not pins:
        return
    for ref, board, other in (("J1", "main", "J2"), ("J2", "controller", "J1")):
        part = Part(
            ref,
            "cable to %s" % other,
            CABLE_FOOTPRINT % len(pins),
            "1x%d pin header: the cable between the controller module and the main board" % len(pins),
            [Pin(str(k), net, "passive") for k, net in enumerate(pins, 1)],
            "controller",
            "header_1x%d" % len(pins),
        )
        part.pcb = board
        c.add(part)
    for k, net in enumerate(pins, 1):
        c.connect(net, ("J1", str(k)), ("J2", str(k)))


STRIP_HEADER_FOOTPRINT = "Connector_PinHeader_2.54mm:PinHeader_2x%02d_P2.54mm_Vertical"


def strip_pcb(k: int) -> str:
    """The PCB name of the k-th strip (0-based, chain order): "strip1", "strip2", ..."""
    return "strip%d" % (k + 1)


def chain_headers(k: int) -> tuple[str, str]:
    """References of strip k's chain headers (in from the Pico's side, out)."""
    return "J%d0" % (k + 1), "J%d1" % (k + 1)


def split_strips(c: Circuit, layout: Layout, runs: list[list[str]]) -> None:
    """Puts every part on the controller module or on one of the strips (``strips``) and
    joins them in chain order (controller, strip1, strip2, ...) by 2 x N ribbon cables:
    J2 (controller) - J10 (strip1 in), J11 (strip1 out) - J20 (strip2 in), ... Each cable
    carries every net with parts on both sides of it; a net that skips a strip passes
    through it, from its in header to its out header. A 74HC165 with its pull-ups and
    capacitor sits on the strip that holds most of its points; the buttons on the strip
    under them, or on a small PCB of their own ("buttons") cabled to the controller
    (J3 - J4)."""
    _assign_pcbs(c, layout, runs)
    position = {"controller": 0, BUTTONS_PCB: -1}
    position.update({strip_pcb(k): k + 1 for k in range(len(runs))})
    for ref, part in c.parts.items():
        if part.pcb not in position:
            raise ValueError("%s: part %s is on no PCB" % (layout.name, ref))
    cables: list[list[str]] = []
    for boundary in range(len(runs)):
        crossing = []
        for net, nodes in c.nets.items():
            where = {position[c.parts[ref].pcb] for ref, _ in nodes} - {-1}
            if where and min(where) <= boundary < max(where):
                crossing.append(net)
        first = [n for n in (GROUND, "+5V", "+3V3") if n in crossing]
        cables.append(first + sorted(n for n in crossing if n not in first))
    for boundary, pins in enumerate(cables):
        a = "J2" if boundary == 0 else chain_headers(boundary - 1)[1]
        a_pcb = "controller" if boundary == 0 else strip_pcb(boundary - 1)
        _cable(c, a, a_pcb, chain_headers(boundary)[0], strip_pcb(boundary), pins)
    buttons_cable = sorted(
        (net for net, nodes in c.nets.items()
         if len({c.parts[ref].pcb == BUTTONS_PCB for ref, _ in nodes}) > 1),
        key=lambda n: (n not in (GROUND, "+3V3"), n),
    )  # fmt: skip
    if buttons_cable:
        _cable(c, "J3", "controller", "J4", BUTTONS_PCB, buttons_cable)


BUTTONS_PCB = "buttons"


def _assign_pcbs(c: Circuit, layout: Layout, runs: list[list[str]]) -> None:
    """Each part's PCB: the controller's parts on the controller module, each point's on its
    strip, a 74HC165 and its own parts on the strip with most of its points, the buttons'
    protection with the buttons."""
    strip_of = {name: k for k, run in enumerate(runs) for name in run}
    order = sorted(layout.points, key=lambda name: layout.points[name][1])
    by_sensor = {layout.points[name][0]: name for name in layout.points}
    for part in c.parts.values():
        if part.sheet == "controller" and part.bom != "button" and part.pcb != "main":
            part.pcb = "controller"
    for i, name in enumerate(order):
        c.parts["LED%d" % i].pcb = strip_pcb(strip_of[name])
        c.parts["CL%d" % i].pcb = strip_pcb(strip_of[name])
    for name in layout.points:
        c.parts["SW_%s" % name].pcb = strip_pcb(strip_of[name])
    if "R1" in c.parts:
        c.parts["R1"].pcb = strip_pcb(strip_of[order[0]])
    chips = layout.sensors["count"] // 8
    for k in range(chips):
        members = [strip_of[by_sensor[i]] for i in range(8 * k, 8 * k + 8) if i in by_sensor]
        home = max(sorted(set(members)), key=members.count) if members else len(runs) - 1
        for ref in ("U%d", "RN%d", "C%d"):
            c.parts[ref % (FIRST_HC165 + k)].pcb = strip_pcb(home)
    buttons = [r for r, p in c.parts.items() if p.bom == "button"]
    home_of_buttons = _button_strip(layout, runs)
    for ref in buttons:
        protection = {c.net_of(ref, "1")}
        near = [r for r, p in c.parts.items() if any(c.net_of(r, q.number) in protection for q in p.pins)]
        for r in near:
            if r != "U1":
                c.parts[r].pcb = BUTTONS_PCB if home_of_buttons is None else strip_pcb(home_of_buttons)


def _cable(c: Circuit, a: str, a_pcb: str, b: str, b_pcb: str, pins: list[str]) -> None:
    rows = max(2, (len(pins) + 1) // 2)
    for ref, board, other in ((a, a_pcb, b), (b, b_pcb, a)):
        part = Part(
            ref,
            "cable to %s" % other,
            STRIP_HEADER_FOOTPRINT % rows,
            "2x%d pin header: the ribbon cable between %s and %s" % (rows, a_pcb, b_pcb),
            [Pin(str(k), net, "passive") for k, net in enumerate(pins, 1)]
            + [Pin(str(k), "NC", "passive") for k in range(len(pins) + 1, 2 * rows + 1)],
            # the cables at the controller on its sheet; the strip-to-strip ones with the
            # sensors they carry
            "controller" if "controller" in (a_pcb, b_pcb) else "sensors",
            "header_2x%d" % rows,
        )
        part.no_connect = {str(k) for k in range(len(pins) + 1, 2 * rows + 1)}
        part.pcb = board
        c.add(part)
    for k, net in enumerate(pins, 1):
        c.connect(net, (a, str(k)), (b, str(k)))


def _button_strip(layout: Layout, runs: list[list[str]]) -> int | None:
    """The strip that carries the buttons: none on the shipped boards (board49's South
    margin leaves strip 2's channel too few lanes for them, no board168 strip lies under
    them), so they get a PCB of their own."""
    del layout, runs
    return None


def subcircuit(c: Circuit, pcb: str) -> Circuit:
    """The parts of one PCB and the nets between them (a net that leaves the PCB does so
    through the cable's header, which is on it)."""
    sub = Circuit("%s-%s" % (c.name, pcb), c.title)
    for ref, part in c.parts.items():
        if part.pcb == pcb:
            sub.parts[ref] = part
    for net, nodes in c.nets.items():
        mine = [n for n in nodes if n[0] in sub.parts]
        if mine:
            sub.nets[net] = mine
    return sub
