"""The power design of a board, computed from its layout: the current of every consumer
(each figure with its source), the USB current the firmware asks for, the LED rail's
voltage drop, and the sensor chain's clock timing. ``power_md`` writes it all out as
``hardware/<board>/power.md``; the tests hold the layouts to these figures.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zuniboard.games.layouts import board_geometry
from zuniboard.hardware import circuit
from zuniboard.hardware.fmt import num

if TYPE_CHECKING:
    from zuni_board.layout import Layout

# -- sources, named once ---------------------------------------------------------------

SRC = {
    "uberguide": "Adafruit NeoPixel Uberguide, 'Powering NeoPixels': up to 60 mA per WS2812B at full white",
    "pjrc": "PJRC, 'How much current do WS2812 / NeoPixel LEDs really use?': 33.5 and 52.5 mA per LED at full white; "
    "just under 1 mA per dark LED",
    "ws2812b": "Worldsemi WS2812B datasheet: VIH >= 0.7 VDD; electrical characteristics at VDD 4.5-5.5 V; blue and "
    "green die forward voltage 3.0-3.4 V; absolute maximum input voltage VDD + 0.5 V (a clamp to VDD)",
    "pico": "Raspberry Pi Pico datasheet, 'Power consumption' section: typical active currents of about 20-25 mA; "
    "'Powering Pico': VSYS, the RT6150 buck-boost regulator's input, 1.8-5.5 V, fed from VBUS through a Schottky "
    "diode",
    "hc165": "TI SN74HC165 datasheet: ICC 80 uA max (static, 85 C); input capacitance 10 pF max; "
    "input transition time 500 ns max at VCC 4.5 V (1000 ns at 2 V)",
    "ahct125": "TI SN74AHCT125 datasheet: ICC 40 uA max plus delta-ICC 1.35 mA max for one input at VCC - 2.1 V; "
    "absolute maximum input voltage -0.5 to 7 V whatever VCC, input clamp current only for VI < 0; II 1 uA max",
    "hct125": "NXP 74HC125/74HCT125 datasheet, limiting values: input clamping current for VI > VCC + 0.5 V "
    "(a diode from each input to VCC)",
    "tps2553": "TI TPS2552/TPS2553 datasheet (SLVS841): 85 mOhm switch (DBV); table 1, RILIM 43.2 kOhm -> "
    "current limit 544 / 605 / 673 mA (min / nom / max); built-in soft start, its output rise time specified "
    "with CL = 1 uF and RL = 100 Ohm; Device Comparison Table "
    "(TPS2553 EN active high, TPS2552 ~EN active low, -1 versions latch off on overcurrent); 7.5 Electrical "
    "Characteristics, 'Enable input EN or ~EN': turn-on/off threshold 0.66-1.1 V, input current -0.5..0.5 uA; "
    "Description: an internal reverse-voltage comparator turns the switch off when OUT is driven above IN",
    "rp2040": "RP2040 datasheet, GPIO electrical characteristics: VOH >= 2.62 V at 4 mA drive (IOVDD 3.3 V), "
    "pull-up 50-80 kOhm; PADS_BANK0 GPIOx reset value 0x56: pull-down enabled, output disabled",
    "usb2": "USB 2.0 specification: 7.2.1 (a high-power port gives 500 mA, VBUS >= 4.75 V at the port; an "
    "unconfigured device takes at most 100 mA), 7.2.3 (a suspended device at most 2.5 mA), "
    "7.2.4.1 (at most 10 uF across VBUS at attach), 9.6.3 "
    "(bMaxPower in 2 mA units)",
    "mpy": "MicroPython rp2 machine.USBDevice.BUILTIN_CDC.desc_cfg: bMaxPower 0x7D = 125 -> 250 mA",
    "awg": "ASTM B258 / standard AWG table, annealed copper at 20 C",
    "tps2553tab": "TI SLVS841E, table 1 'Common RILIM Resistor Selections' (1 % resistor tolerance included): "
    "66.5 kOhm -> 351.2 / 396.7 / 448.7 mA, 52.3 kOhm -> 448.3 / 501.6 / 562.4 mA, 43.2 kOhm -> "
    "544.3 / 604.6 / 673.1 mA (IOS min / nom / max)",
    "tps22965": "TI TPS22965 datasheet (SLVSBJ0F, August 2016), 9.3.1 'Adjustable Rise Time', table 1, typical "
    "values at 25 C with a 25 V X7R capacitor on CT: CT 10000 pF, VIN 5 V -> 17700 us (10-90 %), no minimum "
    "given; the CT pin may reach 12 V (a 25 V capacitor); 10.1.3: CIN larger than CL is recommended (its body "
    "diode lets a larger CL drive VOUT above VIN when the supply goes), a smaller ratio costs some VIN dip, "
    "eased by a larger CT",
    "usbinrush": "USB 2.0 specification 7.2.4.1 (as quoted in electronics.stackexchange.com/questions/36375): "
    "the most a device may put at the end of a cable is 10 uF in parallel with 44 Ohm (CRPB); a device needing "
    "more capacitance must limit its VBUS surge current to match; the USB-IF inrush test measures 100 ms "
    "after attach",
    "tps2553fault": "TI TPS2552/TPS2553 datasheet (SLVS841), 'FAULT Response': ~FAULT is an open-drain output that "
    "goes low on an overcurrent after a deglitch delay (7.5 ms typical), which 'delays entering and leaving fault "
    "conditions' so that 'starting into a heavy capacitive load' does not assert it, and on an overtemperature at "
    "once; Electrical Characteristics, 'FAULT deglitch, assertion or de-assertion due to overcurrent condition': "
    "6 / 7.5 / 9 ms (min / typ / max); the typical is the one the 'FAULT Response' text quotes, the minimum and "
    "maximum are still to be checked against the PDF (the copy read for this file quoted only the typical)",
    "tps2556": "TI TPS2556/TPS2557 datasheet, 'FAULT deglitch': 6 / 9 / 13 ms (min / typ / max), an example of "
    "a USB port power switch: it limits the current at once and reports the overcurrent only after the deglitch",
}

# -- figures ----------------------------------------------------------------------------

PICO_MA = 50.0  # twice the Pico datasheet's busy figure: flash writes of the journal, USB traffic
PICO_SRC = (
    "50 mA: about twice the datasheet's typical active current, for flash writes and USB [pico];"
    " step 1 below measures it"
)
HC165_MA = 0.2  # ICC 80 uA + clocking (Cpd x VCC x f and the SCK wire, averaged)
AHCT125_MA = 1.5  # ICC 0.04 + delta-ICC 1.35 mA (one input held at 3.3 V)
TPS2553_MA = 0.2  # allowance for the switch's own supply current
V33 = 3.3
RP2040_PULLUP_MIN_OHMS = 50000.0
FAULT_PULLUP_OHMS = 10000.0
EN_ON_MA = V33 / circuit.EN_PULL_OHMS * 1000
UNCONFIGURED_MA = 100.0  # USB 2.0 7.2.1: the most a device may take before it is configured
DESIGN_MARGIN = 0.9  # the board stays within 90 % of what it asks the host for

# USB path (worst case): the port's minimum voltage and a 1 m cable with 28 AWG power pair.
USB_PORT_MIN_V = 4.75
CABLE_M = 1.0  # the cable the docs ask for (mechanics.md, assembly.md): at most 1 m
CABLE_OHMS = 2 * 0.213 * CABLE_M  # 28 AWG: 212.9 mOhm/m per conductor, VBUS and GND
SWITCH_OHMS = 0.085
LED_RAIL_MAX_DROP_V = 0.25  # design rule: the rail loses at most 5 % of 5 V

# Copper resistance per metre of one conductor (ASTM B258 / AWG table).
AWG_OHMS_PER_M = {26: 0.1339, 24: 0.0842, 22: 0.0530, 20: 0.0333, 18: 0.0210}
ROW_BUS_AWG = 22  # the row bus: +5V and GND along each row (wiring.WIRE_AWG "led_trunk")
TAP_AWG = 26  # each LED's own leads to its row bus (wiring.WIRE_AWG "led_tap")
TAP_M = 0.05  # at most 5 cm

# Sensor chain timing.
SPI_HZ_DEFAULT = 1000000
WIRE_PF_PER_M = 60.0  # a signal wire beside its ground wire (estimate; measure with a meter)
WIRE_NS_PER_M = 5.0  # propagation in PVC-insulated wire, about 0.67 c
RP2040_OUT_OHMS = (V33 - 2.62) / 0.004  # from VOH >= 2.62 V at 4 mA
HC_MAX_TRANSITION_NS = 500.0


@dataclass(frozen=True)
class PowerLine:
    what: str
    detail: str
    ma: float


def usb_ma(layout: Layout) -> int:
    """What the firmware asks the host for (``power.usb_ma``)."""
    ma: int = layout.power["usb_ma"]
    return ma


def design_limit_ma(layout: Layout) -> float:
    return DESIGN_MARGIN * usb_ma(layout)


def _sensor_lines(layout: Layout) -> list[PowerLine]:
    """The sensors at their worst (every switch closed): on +3V3, powered from plug-in."""
    if layout.sensors["type"] == "hc165":
        chips = layout.sensor_count // 8
        n = len(layout.points)
        pull = n * V33 / circuit.PULLUP_OHMS * 1000
        return [
            PowerLine("74HC165 x %d" % chips, "%.1f mA each: ICC + clocking [hc165]" % HC165_MA, chips * HC165_MA),
            PowerLine("Reed switch pull-ups", "%d switches closed, 3.3 V / 47 kOhm each" % n, pull),
        ]
    cols = len(layout.sensors["cols"])
    pull = cols * V33 / RP2040_PULLUP_MIN_OHMS * 1000
    return [
        PowerLine("Matrix pull-ups", "%d columns low at once, 3.3 V / 50 kOhm (RP2040 minimum) [rp2040]" % cols, pull)
    ]


def gated(layout: Layout) -> bool:
    """The LED rail is switched by a GPIO (``power.led_enable``): off until the firmware turns it on."""
    return "led_enable" in layout.power


def fixed_lines(layout: Layout) -> list[PowerLine]:
    """Everything that is not an LED, at its worst."""
    lines = [PowerLine("Raspberry Pi Pico", PICO_SRC, PICO_MA)]
    lines.append(PowerLine("TPS2553 load switch", "allowance for its supply current [tps2553]", TPS2553_MA))
    fault = V33 / FAULT_PULLUP_OHMS * 1000
    lines.append(PowerLine("~FAULT pull-up R3", "3.3 V / 10 kOhm, only while the switch reports a fault", fault))
    if gated(layout):
        lines.append(PowerLine("EN pull-down R6", "3.3 V / 100 kOhm while the GPIO holds EN high", EN_ON_MA))
    lines += _sensor_lines(layout)
    lines.append(PowerLine("74AHCT125 level shifter", "one input at 3.3 V [ahct125]", AHCT125_MA))
    return lines


def dark_lines(layout: Layout, switched: bool | None = None) -> list[PowerLine]:
    """The board before USB configuration: plugged in, LEDs dark, the firmware waiting for
    the host (every switch closed: pieces may stand on the board). ``switched``: with the
    LED rail behind the GPIO-driven load switch (the default where the layout has
    ``power.led_enable``), else EN tied on as in the earlier design."""
    if switched is None:
        switched = gated(layout)
    n = layout.led_count
    idle = layout.leds["idle_ma"]
    lines = [PowerLine("Raspberry Pi Pico", PICO_SRC, PICO_MA)]
    lines.append(PowerLine("TPS2553 load switch", "allowance for its supply current [tps2553]", TPS2553_MA))
    lines += _sensor_lines(layout)
    if switched:
        lines.append(PowerLine("EN pull-down R6", "EN held low: no current", 0.0))
        lines.append(PowerLine("74AHCT125 level shifter", "on the switched +5V: unpowered", 0.0))
        lines.append(PowerLine("LEDs idle", "%d LEDs on the switched +5V: unpowered" % n, 0.0))
    else:
        lines.append(PowerLine("74AHCT125 level shifter", "one input at 3.3 V [ahct125]", AHCT125_MA))
        lines.append(PowerLine("LEDs idle", "%d x %s mA, control logic of each LED [pjrc]" % (n, num(idle)), n * idle))
    return lines


def dark_ma(layout: Layout, switched: bool | None = None) -> float:
    return sum(line.ma for line in dark_lines(layout, switched))


def power_lines(layout: Layout) -> list[PowerLine]:
    """Worst-case current of each consumer: the LED chain at its dynamic limit (the
    firmware scales down any frame that would draw more than ``leds.budget_ma``), every
    reed switch closed, the Pico busy, the fault pull-up on."""
    leds = layout.leds
    n = layout.led_count
    lines = fixed_lines(layout)
    idle = n * leds["idle_ma"]
    lines.append(
        PowerLine("LEDs idle", "%d x %s mA, control logic of each LED [pjrc]" % (n, num(leds["idle_ma"])), idle)
    )
    all_on = n * white_led_ma(layout)
    room = leds["budget_ma"] - idle
    if all_on > room:
        detail = (
            "dynamic limit: `leds.budget_ma` %s mA less the idle LEDs (all %d white at %d/255 would be %.0f mA)"
            % (
                num(leds["budget_ma"]),
                n,
                leds["max_level"],
                all_on,
            )
        )
        lines.append(PowerLine("LEDs lit", detail, room))
    else:
        detail = "%d LEDs x 3 channels x %s mA x %d/255" % (n, num(leds["ma_per_channel"]), leds["max_level"])
        lines.append(PowerLine("LEDs lit", detail, all_on))
    return lines


def total_ma(layout: Layout) -> float:
    return sum(line.ma for line in power_lines(layout))


def fixed_ma(layout: Layout) -> float:
    return sum(line.ma for line in fixed_lines(layout))


def max_budget_ma(layout: Layout) -> float:
    """The largest ``leds.budget_ma`` that keeps the whole board inside the design limit."""
    return design_limit_ma(layout) - fixed_ma(layout)


def white_led_ma(layout: Layout) -> float:
    """One LED white at ``max_level`` (without its idle current)."""
    ma: float = 3 * layout.leds["ma_per_channel"] * layout.leds["max_level"] / 255
    return ma


def full_points(layout: Layout) -> int:
    """How many LEDs can be white at ``max_level`` before the limit dims the frame."""
    room = layout.leds["budget_ma"] - layout.led_count * layout.leds["idle_ma"]
    count: int = layout.led_count
    return min(count, int(room / white_led_ma(layout)))


# -- the LED rail: trunk, rows, voltage drop ---------------------------------------------


@dataclass(frozen=True)
class Rail:
    rows: list[list[str]]  # LED chain order, split where the chain leaves a row
    trunk_m: float  # controller to the farthest row's feed point, one conductor
    longest_row_m: float
    trunk_awg: int
    row_ma: float  # the most one row can draw
    trunk_ma: float
    trunk_drop_v: float  # supply + return
    row_drop_v: float
    cable_drop_v: float
    switch_drop_v: float

    @property
    def rail_drop_v(self) -> float:
        return self.trunk_drop_v + self.row_drop_v

    @property
    def far_led_v(self) -> float:
        return USB_PORT_MIN_V - self.cable_drop_v - self.switch_drop_v - self.rail_drop_v


def _positions_mm(layout: Layout) -> dict[str, tuple[float, float]]:
    geometry = board_geometry(layout.rulesets[0])
    pitch = layout.mechanics["pitch_mm"]
    return {
        name: (geometry.coords[geometry.index[name]][0] * pitch, geometry.coords[geometry.index[name]][1] * pitch)
        for name in layout.points
    }


def led_rows(layout: Layout) -> list[list[str]]:
    """The LED chain cut into rows: a new row wherever the chain changes y."""
    pos = _positions_mm(layout)
    order = sorted(layout.points, key=lambda name: layout.points[name][1])
    rows: list[list[str]] = [[order[0]]]
    for name in order[1:]:
        if abs(pos[name][1] - pos[rows[-1][-1]][1]) > 1e-6:
            rows.append([])
        rows[-1].append(name)
    return rows


def rail(layout: Layout, feeds: list[tuple[list[str], float, float]]) -> Rail:
    """The LED power wiring of ``wiring.led_feeds`` (the same wires as wiring.csv): one
    +5V/GND pair per row of LEDs from the controller's star point, up the West edge to the
    row's West end (the feed) and on along the row (the bus), each LED's own leads (26 AWG,
    at most 5 cm) soldered to it. A row's pair carries only that row's LEDs, so the worst
    drop is the most one row can draw, all of it at the far end of the longest pair.
    ``feeds``: ``wiring.led_feeds(layout)`` (the wires are where the mechanics put them)."""
    rows = led_rows(layout)
    leds = layout.leds
    per_led = white_led_ma(layout) + leds["idle_ma"]
    budget = float(leds["budget_ma"])
    trunk_m = max(feed for _, feed, _ in feeds)
    longest = max(bus for _, _, bus in feeds)
    row_ma = max(min(len(names) * per_led, budget) for names, _, _ in feeds)
    tap = 2 * AWG_OHMS_PER_M[TAP_AWG] * TAP_M * per_led / 1000
    row_drop = 2 * AWG_OHMS_PER_M[ROW_BUS_AWG] * longest * row_ma / 1000 + tap
    total = total_ma(layout)
    cable = CABLE_OHMS * total / 1000
    switch = SWITCH_OHMS * budget / 1000
    for awg in (22, 20, 18):
        trunk_drop = 2 * AWG_OHMS_PER_M[awg] * trunk_m * row_ma / 1000
        if trunk_drop + row_drop <= LED_RAIL_MAX_DROP_V:
            break
    return Rail(rows, trunk_m, longest, awg, row_ma, row_ma, trunk_drop, row_drop, cable, switch)


# -- the sensor chain's clock -------------------------------------------------------------


@dataclass(frozen=True)
class ClockLine:
    chips: int
    length_m: float  # SCK (and latch) wire from the Pico past every chip
    load_pf: float
    rise_ns: float  # 10-90 %
    round_trip_ns: float
    spi_hz: int
    read_us: float


def clock_line(layout: Layout) -> ClockLine | None:
    """SCK and latch run from the Pico along the sensor chain (one strip per 74HC165, in
    the middle of its group of points), through a source-series resistor at the Pico."""
    if layout.sensors["type"] != "hc165":
        return None
    pos = _positions_mm(layout)
    order = sorted(layout.points, key=lambda name: layout.points[name][0])
    chips = layout.sensor_count // 8
    stops = []
    for k in range(chips):
        group = [pos[p] for p in order[8 * k : 8 * k + 8]]
        if group:
            stops.append((sum(x for x, _ in group) / len(group), sum(y for _, y in group) / len(group)))
    length = sum(math.dist(a, b) for a, b in itertools.pairwise(stops)) / 1000
    length += layout.mechanics["pitch_mm"] / 1000  # Pico to the first strip
    load = length * WIRE_PF_PER_M + chips * 10.0
    tau_ns = (RP2040_OUT_OHMS + circuit.SERIES_OHMS) * load * 1e-3
    hz = layout.sensors.get("baudrate", SPI_HZ_DEFAULT)
    return ClockLine(chips, length, load, 2.2 * tau_ns, 2 * length * WIRE_NS_PER_M, hz, 8 * chips * 1e6 / hz)


ILIM_MIN_MA = 544.0  # TPS2553 with RILIM 43.2 kOhm [tps2553]
ILIM_MAX_MA = 673.0
RAIL_V = 5.0


def inrush_ms(current_ma: float) -> float:
    """Time to charge C3 to the rail at a constant current (t = C V / I)."""
    return circuit.BULK_UF * RAIL_V / current_ma


# -- switch-on (the LED rail's inrush after configuration) ----------------------------

LED_CAP_UF = 0.1  # CL0, CL1, ...: 100 nF at every LED, on the same rail as C3
# The proposed fix: a P-channel MOSFET after U3 whose gate-drain capacitor (Miller ramp)
# sets the rail's slope; the figures are bounds, not a part's typical curve.
RAMP_R_OHMS = 100e3  # gate to GND, 1 %
RAMP_C_NF = 82.0  # gate to drain (the rail), X7R 25 V, 10 %
RAMP_R_TOL, RAMP_C_TOL = 0.01, 0.10
BULK_TOL = 0.20  # an aluminium electrolytic's common tolerance
RAMP_PLATEAU_MAX_V = 2.5  # asked of the MOSFET: 0.5 A at |VGS| <= 2.5 V (a logic-level part)
# TPS2553 Table 1 rows [tps2553tab]: RILIM kOhm -> (IOS min, max) mA, 1 % resistor included.
ILIM_TABLE = {66.5: (351.2, 448.7), 52.3: (448.3, 562.4), 43.2: (544.3, 673.1)}


def rail_uf(layout: Layout) -> float:
    """All the capacitance on the switched rail: C3 and the 100 nF at every LED."""
    n: int = layout.led_count
    return circuit.BULK_UF + n * LED_CAP_UF


def rail_load_ma(layout: Layout) -> float:
    """The most the switched rail draws in play: the LED budget and the level shifter."""
    budget: float = layout.leds["budget_ma"]
    return budget + AHCT125_MA


def switch_on_now(layout: Layout) -> tuple[float, float]:
    """The built design: (peak USB mA, duration ms) when the firmware turns the rail on.
    U3 charges the rail at its current limit: at most 673 mA, plus the dark board."""
    idle = layout.led_count * layout.leds["idle_ma"]
    return ILIM_MAX_MA + dark_ma(layout), rail_uf(layout) * RAIL_V / (ILIM_MIN_MA - idle)


@dataclass(frozen=True)
class Ramp:
    """The proposed Miller ramp's switch-on: the host's worst peak (mA) and the rail's
    fastest and slowest rise from 0 to 5 V (ms)."""

    peak_ma: float
    fastest_ms: float
    slowest_ms: float


def switch_on_ramp(layout: Layout) -> Ramp:
    """While the MOSFET sits on its plateau the gate holds at 5 V - |VGS|, R takes (5 V -
    |VGS|) / R and that current flows through C from the rail: dV/dt = (5 V - |VGS|) / (R C).
    The fastest slope takes |VGS| -> 0 with R and C at their low tolerance, against the rail's
    capacitance at its high tolerance; the slowest takes the plateau's most, R and C high.
    The peak counts every idle LED and the level shifter from the first millivolt."""
    rc_min = RAMP_R_OHMS * (1 - RAMP_R_TOL) * RAMP_C_NF * (1 - RAMP_C_TOL) * 1e-6  # ms
    rc_max = RAMP_R_OHMS * (1 + RAMP_R_TOL) * RAMP_C_NF * (1 + RAMP_C_TOL) * 1e-6
    c_max = circuit.BULK_UF * (1 + BULK_TOL) + layout.led_count * LED_CAP_UF * (1 + RAMP_C_TOL)
    charge = c_max * RAIL_V / rc_min  # uF x V/ms = mA
    idle = layout.led_count * layout.leds["idle_ma"]
    slowest = RAIL_V / ((RAIL_V - RAMP_PLATEAU_MAX_V) / rc_max)
    return Ramp(dark_ma(layout) + idle + AHCT125_MA + charge, rc_min, slowest)


# The TPS2553's FAULT deglitch for an overcurrent, min / typ / max [tps2553fault]; the
# firmware's FAULT_BLANK_MS must lie beyond the maximum (tests/unit/test_switch_on.py).
FAULT_DEGLITCH_MS = (6.0, 7.5, 9.0)
ILIM_TYP_MA = 604.6  # R2 43.2 kOhm, nominal [tps2553tab]


@dataclass(frozen=True)
class SwitchOn:
    """The built design's switch-on, from the model: U3 charging the rail's capacitance at
    its current limit (min, typ, max) while the idle LEDs draw their share (as in
    ``switch_on_now``), the dark board on top. Times in ms, currents in mA, volts at the Pico's VBUS."""

    rail_uf: float
    idle_ma: float
    dark_ma: float
    grant_ma: float
    limit_ma: tuple[float, float, float]

    def charge_ms(self, limit: float) -> float:
        return self.rail_uf * RAIL_V / (limit - self.idle_ma)

    @property
    def longest_ms(self) -> float:
        return self.charge_ms(self.limit_ma[0])

    @property
    def peak_ma(self) -> float:
        return self.limit_ma[2] + self.dark_ma

    @property
    def rise_to_stay_under_ms(self) -> float:
        """The 10-90 % rise the rail would need for C dV/dt (plus idle) to stay under U3's minimum limit."""
        return self.rail_uf * 0.8 * RAIL_V / (self.limit_ma[0] - self.idle_ma)

    @property
    def pico_vbus_v(self) -> float:
        """VBUS at the Pico during the surge: the port's minimum less the cable's drop."""
        return USB_PORT_MIN_V - self.peak_ma / 1000 * CABLE_OHMS

    @property
    def asserts_fault(self) -> bool:
        """~FAULT goes low only if the limit is held past the shortest deglitch."""
        return self.longest_ms >= FAULT_DEGLITCH_MS[0]

    @property
    def over_grant(self) -> bool:
        return self.peak_ma > self.grant_ma


def switch_on(layout: Layout) -> SwitchOn:
    """The built design's switch-on, computed from the layout and the circuit model."""
    idle = layout.led_count * layout.leds["idle_ma"]
    limit = (ILIM_MIN_MA, ILIM_TYP_MA, ILIM_MAX_MA)
    return SwitchOn(rail_uf(layout), idle, dark_ma(layout), float(usb_ma(layout)), limit)


def _switch_on_verdict_section(layout: Layout) -> list[str]:
    """Switch-on against U3's limit, its ~FAULT deglitch and the USB port, every figure computed."""
    if not gated(layout):
        return []
    on = switch_on(layout)
    lo, typ, hi = on.limit_ma
    dmin, dtyp, dmax = FAULT_DEGLITCH_MS
    return [
        "## Switch-on against the limit, ~FAULT and the USB port",
        "",
        "| figure | value | from |",
        "| --- | ---: | --- |",
        "| rail capacitance (C3 and the %d LED capacitors) | %.1f uF | the circuit model |"
        % (layout.led_count, on.rail_uf),
        "| idle LEDs while it charges | %.1f mA | `leds.idle_ma` [pjrc] |" % on.idle_ma,
        "| U3's current limit, R2 43.2 kOhm (min / typ / max) | %.1f / %.1f / %.1f mA | [tps2553tab] |" % (lo, typ, hi),
        "| charge time at the limit (max / typ / min limit) | %.2f / %.2f / %.2f ms | C x 5 V / (limit - idle) |"
        % (on.charge_ms(lo), on.charge_ms(typ), on.charge_ms(hi)),
        "| ~FAULT deglitch for an overcurrent (min / typ / max) | %.1f / %.1f / %.1f ms | [tps2553fault] |"
        % (dmin, dtyp, dmax),
        "| host current at the peak (max limit + %.1f mA dark board) | **%.1f mA** | against %d mA granted |"
        % (on.dark_ma, on.peak_ma, on.grant_ma),
        "| VBUS at the Pico at the peak (4.75 V port, 1 m cable %.3f Ohm) | %.2f V | [usb2], [awg] |"
        % (CABLE_OHMS, on.pico_vbus_v),
        "",
        "- **The limit: yes, by design.** To keep C dV/dt under U3's minimum limit the rail would have to rise",
        "  (10-90 %%) in no less than %.2f ms; the TPS2553's soft start is specified for a 1 uF load [tps2553],"
        % on.rise_to_stay_under_ms,
        "  %.0f times less than this rail, so U3 reaches its limit and charges the rail at a constant current."
        % (on.rail_uf / 1.0),
        "- **~FAULT: %s.** The longest charge (%.2f ms, at the minimum limit) is %s the shortest deglitch"
        % ("asserted" if on.asserts_fault else "not asserted", on.longest_ms, "past" if on.asserts_fault else "under"),
        "  (%.1f ms): the chip's deglitch is there so that 'starting into a heavy capacitive load' does not" % dmin,
        "  report a fault [tps2553fault]. The firmware's %d ms blanking lies past the %.1f ms maximum as well."
        % (FAULT_BLANK_MS, dmax),
        "- **The USB grant: %s.** The host sees up to %.0f mA for up to %.1f ms against %d mA; at that"
        % ("over" if on.over_grant else "inside", on.peak_ma, on.longest_ms, on.grant_ma),
        "  current VBUS at the Pico is still %.2f V, far above what its 3.3 V regulator needs (it takes 1.8-5.5 V"
        % on.pico_vbus_v,
        "  on VSYS [pico]), so the board itself does not brown out; whether the host's port switch trips or",
        "  only sags is the open question of the next section, which is why the surge is an open defect.",
        "  No single R2 fixes it, nor a two-level limit (a lower limit switched in for the charge only): the",
        "  lowest limit of table 1 [tps2553tab] still peaks at %.1f mA, over the %.0f mA this design allows itself"
        % (min(hi for _, hi in ILIM_TABLE.values()) + on.dark_ma, design_limit_ma(layout)),
        "  (90 % of the grant). The fix is a rail that rises more slowly (next section).",
        "",
    ]


def _switch_on_section(layout: Layout) -> list[str]:
    if not gated(layout):
        return []
    peak, ms = switch_on_now(layout)
    dark = dark_ma(layout)
    need = rail_load_ma(layout)
    return (
        [
            "## Switch-on: the LED rail's inrush after configuration (open defect)",
            "",
            "**Built design, over budget.** When the firmware turns the rail on, U3 charges C3 and the",
            "%d LED capacitors (%.1f uF in all) at its current limit: the host sees up to %.0f mA (U3's"
            % (layout.led_count, rail_uf(layout), peak),
            "maximum %.0f mA [tps2553] plus the %.1f mA dark board) for up to %.1f ms, once, against the"
            % (ILIM_MAX_MA, dark, ms),
            "%d mA the host granted. USB 2.0 bounds the surge only at attach (10 uF in parallel with 44 Ohm, and"
            % usb_ma(layout),
            "a device with more capacitance must limit its surge to match [usbinrush]); for a load switched in",
            "after configuration it gives no separate figure that this project could find, so the design keeps",
            "the whole board inside the %d mA granted at every instant. A port's power switch limits at its"
            % usb_ma(layout),
            "own threshold at once and reports an overcurrent only after a deglitch of several ms (6-13 ms on",
            "the TPS2556 [tps2556]); the thresholds and deglitch times of the hub and laptop port switches",
            "in the field were not found, so whether a given port trips or only sags is not known.",
            "",
            "**A lower current limit cannot fix it**: U3 must pass the rail's %.1f mA in play (`leds.budget_ma`" % need,
            "plus the level shifter) at its minimum, and keep its maximum plus the dark board inside %d mA:"
            % usb_ma(layout),
            "",
            "| R2 | U3 limit [tps2553tab] | switch-on peak | verdict |",
            "| --- | --- | ---: | --- |",
        ]
        + _limit_rows(layout, dark, need)
        + _slew_fix_lines(layout, dark)
    )


def _limit_rows(layout: Layout, dark: float, need: float) -> list[str]:
    """The switch-on table's rows: U3's current limit for each R2, and why each fails or passes."""
    rows = []
    for r_k, (lo, hi) in sorted(ILIM_TABLE.items(), reverse=True):
        verdict = []
        if hi + dark > usb_ma(layout):
            verdict.append("switch-on %.0f mA > %d" % (hi + dark, usb_ma(layout)))
        if lo < need:
            verdict.append("in play it may limit at %.0f < %.1f mA" % (lo, need))
        rows.append(
            "| %.1f kOhm | %.1f-%.1f mA | %.1f mA | %s |" % (r_k, lo, hi, hi + dark, "; ".join(verdict) or "passes")
        )
    return rows


def _slew_fix_lines(layout: Layout, dark: float) -> list[str]:
    """The proposed fix of the switch-on surge: a MOSFET whose Miller ramp sets the rail's slope."""
    ramp = switch_on_ramp(layout)
    idle = layout.led_count * layout.leds["idle_ma"]
    settle = layout.power["settle_ms"]
    return [
        "",
        "**Proposed fix (not built yet)**: a P-channel MOSFET between U3's output (source) and +5V",
        "(drain), gate to GND through %.0f kOhm (1 %%) and to the drain through %.0f nF (X7R 25 V, 10 %%), all"
        % (RAMP_R_OHMS / 1000, RAMP_C_NF),
        "hand-solderable (SOT-23, 0805). U3 keeps its EN on GP%d, its limit and ~FAULT. When U3 turns on, the"
        % layout.power["led_enable"],
        "MOSFET sits on its gate plateau and the rail rises at (5 V - |VGS|) / (R C): C takes the current R",
        "draws from the gate. Its bounds, from the parts' tolerances and no typical curve:",
        "",
        "| | value |",
        "| --- | ---: |",
        "| fastest rise, 0-5 V (\\|VGS\\| -> 0, R and C %.0f %% and %.0f %% low) | %.2f ms |"
        % (RAMP_R_TOL * 100, RAMP_C_TOL * 100, ramp.fastest_ms),
        "| charge current then (rail %.0f %% high: C3 an electrolytic) | %.1f mA |"
        % (BULK_TOL * 100, ramp.peak_ma - dark - idle - AHCT125_MA),
        "| **switch-on peak** (the %.1f mA dark board, %.0f mA of idle LEDs and the level shifter on top)"
        " | **%.1f mA** |" % (dark, idle, ramp.peak_ma),
        "| slowest rise (\\|VGS\\| at its %.1f V most, R and C high) | %.1f ms |"
        % (RAMP_PLATEAU_MAX_V, ramp.slowest_ms),
        "",
        "The peak stays inside the %.0f mA this design allows itself, so U3 never reaches its limit and"
        % design_limit_ma(layout),
        "~FAULT stays high. What the MOSFET must meet: rated for 12 V (VDS and VGS), 0.5 A at |VGS| <= %.1f V"
        % RAMP_PLATEAU_MAX_V,
        "(a logic-level part, so that the slowest figure holds), and under 0.1 Ohm at VGS = -4.5 V (the rail's",
        "drop in play); the part number is not chosen here. R takes 0.05 mA while the rail is on. With it",
        "built, `power.settle_ms` must grow from %d ms to at least twice the slowest rise (%.0f ms)."
        % (settle, 2 * ramp.slowest_ms),
        "A slew-rate load switch IC would do the same, but the one first proposed, the TPS22965 [tps22965], is",
        "WSON-8 and cannot be soldered by hand.",
        "",
    ]


def _dark_section(layout: Layout) -> list[str]:
    before = dark_lines(layout, False)
    after = dark_lines(layout, True)
    n = layout.led_count
    out = [
        "## Before USB configuration: the LED rail is switched",
        "",
        "USB 2.0 lets a device take at most %d mA until the host has configured it [usb2]; a" % UNCONFIGURED_MA,
        "bus-powered hub and a strict host enforce that. With U3's EN tied to its input (the earlier",
        "design) the %d idle LEDs and the level shifter draw from plug-in: **%.1f mA** dark."
        % (n, dark_ma(layout, False)),
    ]
    if not gated(layout):
        return out + ["", "This layout has no `power.led_enable`: the LED rail is on from plug-in.", ""]
    pin = layout.power["led_enable"]
    out += [
        "Now GP%d (`power.led_enable`) drives U3's EN and R6 (100 kOhm) pulls it to GND, so the" % pin,
        "LED rail, the LEDs and the 74AHCT125 stay unpowered until the firmware turns them on:",
        "**%.1f mA** dark." % dark_ma(layout),
        "",
        "| consumer | EN tied on (before) | mA | EN from GP%d (now) | mA |" % pin,
        "| --- | --- | ---: | --- | ---: |",
    ]
    after_by = {line.what: line for line in after}
    for line in before:
        now = after_by.get(line.what, line)
        detail = "the same" if now == line else now.detail
        out.append("| %s | %s | %.1f | %s | %.1f |" % (line.what, line.detail, line.ma, detail, now.ma))
    out += [
        "| **total** | | **%.1f** | | **%.1f** |" % (dark_ma(layout, False), dark_ma(layout)),
        "",
        *_switched_rail_notes(layout, pin),
    ]
    return out


def _switched_rail_notes(layout: Layout, pin: int) -> list[str]:
    """Why the switched rail's EN has its polarity and pull-down, when it turns on, and the data line."""
    return [
        "- **EN polarity**: the TPS2553's EN is active high; the TPS2552 (same pins) has an",
        "  active-low ~EN, and the -1 parts latch off after an overload instead of limiting: order",
        "  exactly TPS2553DBVR [tps2553]. EN switches at 0.66-1.1 V and takes at most 0.5 uA [tps2553].",
        "- **Why a pull-down, and why 100 kOhm**: from plug-in until `main.py` sets the pin up, GP%d" % pin,
        "  is not driven (the Pico's 3.3 V is still rising, then the boot ROM and MicroPython start;",
        "  the RP2040's own pad pull-down [rp2040] only works once 3.3 V is up). R6 holds EN at",
        "  0.5 uA x 100 kOhm = 0.05 V at most, far under 0.66 V; 1 MOhm could leave 0.5 V, too near;",
        "  10 kOhm would waste 0.33 mA while on for nothing. Driven high, GP%d gives at least 2.62 V" % pin,
        "  [rp2040] against the 1.1 V threshold and R6 takes %.3f mA." % EN_ON_MA,
        "- **When the firmware turns it on** (`zuni_hw.pico.LedPower`, polled every 50 ms from the",
        "  scan loop): once the host has **configured** the board (it read the %d mA request and" % usb_ma(layout),
        "  accepted it; the firmware sees the USB controller's endpoints enabled, which TinyUSB does",
        "  only on SET_CONFIGURATION); off again on a bus reset or when the host deconfigures it.",
        "  With **no host** (a USB charger or power bank: no start-of-frame packets, no address)",
        "  for `power.no_host_ms` = %d ms after the firmware starts, it turns the rail on too:"
        % layout.power["no_host_ms"],
        "  a charger configures nothing, gives 500 mA or more, and polices nothing. A host that",
        "  talks to the board but does not configure it (a bus-powered hub refusing %d mA) keeps" % usb_ma(layout),
        "  the rail **off**: the board stays dark and inside 100 mA, and the PC says why.",
        "  A host that suspends a configured board (a sleeping PC) leaves the rail on, so that",
        "  standalone play goes on: the board then takes more than USB's 2.5 mA suspend current [usb2]",
        "  (the Pico alone does; a PC that powers its ports while asleep feeds it anyway).",
        "- **The data line while the rail is off**: the LED driver sends nothing (the frames wait",
        "  in its buffer) and GP%d stays low. The 74AHCT125 is on the switched rail; its" % layout.leds["pin"],
        "  inputs take up to 7 V whatever its supply and have no clamp diode to VCC [ahct125], so even",
        "  a high on GP%d would feed it at most its 1 uA input leakage. (A 74HCT125 has that diode"
        % layout.leds["pin"],
        "  [hct125]: it would back-power its VCC from the GPIO; and a buffer on the unswitched VBUS",
        "  would drive (5.0 - 0.6) V / 330 Ohm = 13 mA into LED 0's DIN clamp diode [ws2812b]",
        "  and half-power the chain. Neither is built.)",
        "",
    ]


def _power_path_section(layout: Layout) -> list[str]:
    dark = dark_ma(layout)
    en = "EN <- GP%d with R6 100 kOhm to GND" % layout.power["led_enable"] if gated(layout) else "EN tied to IN"
    out = [
        "## Power path and inrush",
        "",
        "VBUS (Pico pin 40) -> U3 TPS2553 (IN; %s) -> OUT = **+5V**, the LED rail and the" % en,
        "74AHCT125. C1 100 nF ceramic at U3's input is the only capacitor on VBUS besides the Pico's",
        "own, far under the 10 uF USB allows at attach [usb2]. C3 %d uF sits after the switch, on the"
        " controller board where the LED power pairs start." % circuit.BULK_UF,
    ]
    if gated(layout):
        idle = layout.led_count * layout.leds["idle_ma"]
        # C3 and every LED's 100 nF: the same charge as the "Switch-on" section's
        slow = rail_uf(layout) * RAIL_V / (ILIM_MIN_MA - idle)
        fast = rail_uf(layout) * RAIL_V / (ILIM_MAX_MA - idle)
        out += [
            "The switch is off at attach and through enumeration, so the attach sees only C1 and the Pico.",
            "When the firmware turns it on, the TPS2553's soft start and current limit (R2 43.2 kOhm:",
            "%.0f-%.0f mA [tps2553]) charge C3 and the LED capacitors (%.1f uF) to 5 V while the %d idle LEDs"
            % (ILIM_MIN_MA, ILIM_MAX_MA, rail_uf(layout), layout.led_count),
            "(%.0f mA) wake up: %.1f-%.1f ms (C x V / (limit - idle))." % (idle, fast, slow),
            "The host sees at most the limit plus the %.1f mA dark board, %.0f mA," % (dark, ILIM_MAX_MA + dark),
            "for those %.1f ms, once, after it granted %d mA: **over that grant** (next section). The sequence"
            % (slow, usb_ma(layout)),
            "keeps lit LEDs out of it:",
            "EN goes high with the data line low (every LED comes up dark), and the first frame is sent",
            "`power.settle_ms` = %d ms later, %.0f times the charge time."
            % (layout.power["settle_ms"], layout.power["settle_ms"] / slow),
        ]
    else:
        out += [
            "The TPS2553's soft start and current limit (R2 43.2 kOhm: 544-673 mA [tps2553]) charge it in about",
            "%.1f ms at the limit, so the host never sees more than the limit." % inrush_ms(ILIM_MIN_MA),
        ]
    out += [
        "(An older design put 1000 uF straight on VBUS: 100 times the allowance; a PTC fuse cannot",
        "limit a millisecond inrush.) A short on the LED rail is held at the limit (constant current)",
        "and ~FAULT goes low (TP_FAULT%s)."
        % (", read on GP%d: next section" % layout.power["fault"] if "fault" in layout.power else ""),
        "",
    ]
    return out


# firmware/lib/zuni_hw/fault.py's FAULT_BLANK_MS (tests/unit/test_power_fault.py holds
# them equal): how long ~FAULT must read low before the firmware takes it for a fault.
FAULT_BLANK_MS = 50


def _fault_section(layout: Layout) -> list[str]:
    """What ~FAULT is, how the firmware reads it and what the board then does and shows;
    and what `power.settle_ms` rests on."""
    if "fault" not in layout.power or not gated(layout):
        return []  # (the shipped boards have both: the line and a rail the firmware can turn off)
    gp = layout.power["fault"]
    pull = circuit.FAULT_PULL_OHMS
    idle = layout.led_count * layout.leds["idle_ma"]
    slow = rail_uf(layout) * RAIL_V / (ILIM_MIN_MA - idle)
    scan = layout.timing["scan_ms"]
    return [
        "## The LED supply's ~FAULT on GP%d" % gp,
        "",
        "U3's ~FAULT (pin 4) is an open-drain output [tps2553fault]. R3 (%.0f kOhm) pulls it up to **3.3 V**, not"
        % (pull / 1000),
        "to +5V: the Pico reads it on GP%d (`power.fault` in the layout), and the RP2040's pins are not 5 V" % gp,
        "tolerant. It draws %.2f mA only while the switch holds it low. The TPS2553 limits an overload's"
        % (3.3 / pull * 1000),
        "current at once and pulls ~FAULT low after its deglitch delay, %.1f-%.1f ms (%.1f typical) [tps2553fault]; an"
        % (FAULT_DEGLITCH_MS[0], FAULT_DEGLITCH_MS[2], FAULT_DEGLITCH_MS[1]),
        "overtemperature (a short held at the limit heats the chip) pulls it low at once.",
        "",
        "The firmware (`firmware/lib/zuni_hw/fault.py`) reads the line once per scan (every `timing.scan_ms` =",
        "%d ms) and takes a fault once it has read low for **%d ms** with no high read in between: a debounce by"
        % (scan, FAULT_BLANK_MS),
        "time, not by a count of reads, because scans around a commit may be 30-100 ms apart. Why %d ms: the"
        % FAULT_BLANK_MS,
        "switch-on charge of C3 and the LED capacitors at the switch's minimum limit takes at most %.1f ms" % slow,
        '("Power path and inrush"), under the chip\'s shortest deglitch, %.1f ms, so it does not normally'
        % FAULT_DEGLITCH_MS[0],
        "reach the line at all; the %d ms also cover a chip slower than typical, a larger capacitor, and"
        % FAULT_BLANK_MS,
        "spikes coupled into the %.0f kOhm line (ESD on a button wire, the LED chain switching). A hard short"
        % (pull / 1000),
        "is still reported within %.0f ms (the deglitch's %.1f ms maximum, the blanking and one scan)."
        % (FAULT_DEGLITCH_MS[2] + FAULT_BLANK_MS + scan, FAULT_DEGLITCH_MS[2]),
        "",
        "On a fault the board:",
        "",
        "- turns the LED rail off (EN low on GP%d) and keeps it off until it restarts: a short on the LED"
        % layout.power["led_enable"],
        "  line does not mend itself, and switching into it again and again only heats the switch;",
        "- shows nothing on its LEDs (every frame dark); the game goes on, the sensors need no LEDs;",
        "- sends `event fault led-supply` once and `fault=led-supply` in every `state` from then on, and",
        "  `faultline=` (the line's last read, 1 high = fine, 0 low) in every `state` (docs/protocol.md);",
        "- `zuni board check` prints the line's level, `zuni play` and the web page say \"the LED supply",
        '  switched off: too much current (short on the LED line?)". Unplug the board, find the short',
        "  (+5V to GND at the LED power pairs, a solder bridge at an LED's legs), plug it in again.",
        "",
        *_settle_basis(layout, slow),
    ]


def power_md(layout: Layout, feeds: list[tuple[list[str], float, float]]) -> str:
    """power.md; ``feeds``: ``wiring.led_feeds(layout)``, for the LED rail (``rail``)."""
    lines = power_lines(layout)
    total = sum(line.ma for line in lines)
    out = [
        *_worst_case_section(layout, lines, total),
        *_usb_request_section(layout, total),
        *_dark_section(layout),
        *_power_path_section(layout),
        *_fault_section(layout),
        *_switch_on_verdict_section(layout),
        *_switch_on_section(layout),
        *_trunk_section(layout, feeds, total),
        *_sensor_chain_section(layout),
        *_measuring_section(layout, total),
        "## Sources",
        "",
    ]
    body = "\n".join(out)
    for key, text in SRC.items():
        if "[%s]" % key in body:
            out.append("- [%s] %s." % (key, text))
    out.append("")
    return "\n".join(out)


def _worst_case_section(layout: Layout, lines: list[PowerLine], total: float) -> list[str]:
    """The title and the worst-case current table, with what the LED figures mean."""
    leds = layout.leds
    n = layout.led_count
    one = white_led_ma(layout)
    room = leds["budget_ma"] - n * leds["idle_ma"]
    out = [
        "# Power design: %s" % layout.name,
        "",
        "Generated by `zuni board generate` from `hardware/layouts/%s.json` and" % layout.name,
        "`host/zuniboard/hardware/power.py`; do not edit. Sources in square brackets, listed at the end.",
        "",
        "## Worst-case current",
        "",
        "The LED chain at the firmware's dynamic limit (`leds.budget_ma` = %s mA), every reed" % num(leds["budget_ma"]),
        "switch closed, the Pico busy, the load switch reporting a fault. USB power only.",
        "",
        "| consumer | figure and source | mA |",
        "| --- | --- | ---: |",
    ]
    for line in lines:
        out.append("| %s | %s | %.1f |" % (line.what, line.detail, line.ma))
    return out + [
        "| **total** | | **%.1f** |" % total,
        "",
        "- LED current per channel: `leds.ma_per_channel` = %s mA, a third of the 60 mA per LED at"
        % num(leds["ma_per_channel"]),
        "  full white [uberguide]; PJRC measured 33.5-52.5 mA per LED, so 20 mA is the safe upper",
        "  figure until you measure your own LEDs. Idle: `leds.idle_ma` = %s mA per dark LED [pjrc]."
        % num(leds["idle_ma"]),
        "- One lit point, white at `leds.max_level` = %d/255: %.1f mA. Up to %d of the %d LEDs can be"
        % (leds["max_level"], one, full_points(layout), n),
        "  white at once (more in single colours) before the limiter dims the frame; every LED white",
        "  (%.0f mA) is shown at %.0f%% of that brightness." % (n * one, 100 * min(1.0, room / (n * one))),
        "",
    ]


def _usb_request_section(layout: Layout, total: float) -> list[str]:
    """What the board asks of USB (bMaxPower), and why that figure."""
    n = layout.led_count
    one = white_led_ma(layout)
    ask = usb_ma(layout)
    limit = design_limit_ma(layout)
    fixed = fixed_ma(layout)
    default_room = DESIGN_MARGIN * 250 - fixed - n * layout.leds["idle_ma"]
    return [
        "## What the board asks of USB, and why",
        "",
        "- The firmware asks the host for **%d mA** (`power.usb_ma`): `firmware/boot.py` sets bMaxPower = %d"
        % (ask, ask // 2),
        "  (2 mA units [usb2]) in a copy of MicroPython's built-in CDC configuration descriptor, before",
        "  USB enumerates (`zuni_hw.pico.request_usb_power`). MicroPython alone asks for 250 mA [mpy].",
        "- The board stays within %.0f%% of that: design limit %.0f mA; this board %.1f mA (%.0f%% of %d mA)."
        % (100 * DESIGN_MARGIN, limit, total, 100 * total / ask, ask),
        "- The highest `leds.budget_ma` inside the design limit: %d mA (the limit less %.1f mA that is not LEDs)."
        % (int(max_budget_ma(layout)), fixed),
        "- Why not stay at MicroPython's 250 mA: 90%% of it less the fixed %.1f mA and %d idle LEDs leaves %.0f mA"
        % (fixed, n, default_room),
        "  for lit LEDs, against %.1f mA for one white point: %s."
        % (one, "enough for %d points" % int(default_room / one) if default_room >= one else "not even one"),
        "- Where it works: a computer's own USB port or a powered hub (500 mA per port [usb2]), or a",
        "  USB charger or power bank for standalone play (they give 500 mA or more without asking).",
        "  **Not** on a bus-powered hub: it has 100 mA per port, and the host refuses to configure a",
        "  %d mA device there (it says so, e.g. 'power surge on the USB port'). The board then stays" % ask,
        "  dark (below), at %.1f mA, inside the 100 mA an unconfigured device may take [usb2]." % dark_ma(layout),
        "- It asks whenever the board boots with USB down: at power-up and after `machine.reset()`",
        "  (what `tools/deploy.py` ends with). Not after a soft reset, which mpremote makes when it",
        "  connects: MicroPython clears a runtime descriptor then, so the board drops off USB once and",
        "  comes back asking for 250 mA until the next power-up or reset; run that first mpremote",
        "  command again. The host does not police the figure; only hubs budget with it.",
        "",
    ]


def _trunk_section(layout: Layout, feeds: list[tuple[list[str], float, float]], total: float) -> list[str]:
    """The LED rail's wiring: one +5V/GND pair per row, and its drop to the farthest LED."""
    r = rail(layout, feeds)
    return [
        "## LED power trunk",
        "",
        "The LED rail is not daisy-chained through every LED across the board. Each row of LEDs has",
        "its own +5V/GND pair of 22 AWG (wires LPP*/LPG* of `wiring.csv`): from the controller's star",
        "point (C3 + and -, on the controller board) up the West edge to the row's West end (the feed),",
        "then on along the row under its LEDs (the bus); each LED's legs and its 100 nF are soldered",
        "to the pair where it passes (at most 5 cm of 26 AWG). The LED ground returns only to the star",
        "point, never through the sensor strips' ground wire.",
        "",
        "| | |",
        "| --- | --- |",
        "| rows (feed points) | %d: %s |" % (len(r.rows), ", ".join("%s..%s" % (row[0], row[-1]) for row in r.rows)),
        "| longest feed, controller to a row's West end | %.2f m per conductor (`wiring.csv`) |" % r.trunk_m,
        "| feed wire | **%d AWG** (%.1f mOhm/m [awg]), the thinnest of 22/20/18 AWG within the rule below |"
        % (r.trunk_awg, 1000 * AWG_OHMS_PER_M[r.trunk_awg]),
        "| feed current (worst) | %.0f mA: the most one row draws (each row has its own pair) |" % r.trunk_ma,
        "| feed drop (+5V and GND) | %.3f V |" % r.trunk_drop_v,
        "| longest row | %.2f m of %d AWG bus (%.1f mOhm/m [awg]), at most %.0f mA |"
        % (r.longest_row_m, ROW_BUS_AWG, 1000 * AWG_OHMS_PER_M[ROW_BUS_AWG], r.row_ma),
        "| row drop (+5V and GND, current all at the far end, plus 5 cm of %d AWG leads) | %.3f V |"
        % (TAP_AWG, r.row_drop_v),
        "| **rail drop, controller to the farthest LED** | **%.3f V** (rule: at most %.2f V, 5%% of 5 V) |"
        % (r.rail_drop_v, LED_RAIL_MAX_DROP_V),
        "| USB cable, %s m, 28 AWG pair, at %.0f mA | %.3f V |" % (num(CABLE_M), total, r.cable_drop_v),
        "| TPS2553 switch, 85 mOhm [tps2553] | %.3f V |" % r.switch_drop_v,
        "| farthest LED, from a port at its 4.75 V minimum [usb2] | **%.2f V** |" % r.far_led_v,
        "",
        "At %.2f V the blue and green dies (3.0-3.4 V [ws2812b]) keep %.2f V for the LED's constant-current"
        % (r.far_led_v, r.far_led_v - 3.4),
        "driver. Data: the 74AHCT125 runs on the same +5V, so LED 0 sees a high of its own supply (VIH",
        "0.7 VDD [ws2812b]); every LED regenerates the data for the next at its own supply, and",
        "neighbours differ by millivolts.",
        "",
    ]


def _sensor_chain_section(layout: Layout) -> list[str]:
    """The sensor chain's clock (or the matrix's settling), its termination and its ground."""
    clock = clock_line(layout)
    out = ["## Sensor chain: clock, termination, ground", ""]
    if clock is None:
        out += [
            "Diode matrix: rows and columns are Pico pins, at most one row's wires long; the firmware",
            "waits 30 us after driving a row low (`DiodeMatrix.settle_us`, six RC constants of the",
            "RP2040 pull-up against the wiring) before reading the columns. No clock, no termination.",
            "",
        ]
    else:
        out += [
            "SCK and the latch are bussed to all %d 74HC165s along the snake: about %.2f m of wire from the"
            % (clock.chips, clock.length_m),
            "Pico past the last chip. Each leaves the Pico through a %d Ohm series resistor at the Pico"
            % circuit.SERIES_OHMS,
            "(R4 SCK, R5 latch: source termination).",
            "",
            "| | |",
            "| --- | --- |",
            "| load on SCK | %.2f m x %d pF/m (estimate: a wire beside its ground) + %d x 10 pF [hc165] = %.0f pF |"
            % (clock.length_m, WIRE_PF_PER_M, clock.chips, clock.load_pf),
            "| source resistance | %d Ohm + the RP2040's %.0f Ohm at 4 mA [rp2040] |"
            % (circuit.SERIES_OHMS, RP2040_OUT_OHMS),
            "| edge (10-90 %%) | %.0f ns, within the 74HC165's %d ns input transition limit [hc165] |"
            % (clock.rise_ns, HC_MAX_TRANSITION_NS),
            "| line round trip | %.0f ns at %.0f ns/m |" % (clock.round_trip_ns, WIRE_NS_PER_M),
            "| SPI clock (`sensors.baudrate`) | **%d Hz**: half period %.0f ns |" % (clock.spi_hz, 5e8 / clock.spi_hz),
            "| one scan reads | %d bits in %.0f us (every `timing.scan_ms`) |" % (8 * clock.chips, clock.read_us),
            "",
            "Why no double clocking: the source resistance is above the wire's impedance (roughly",
            "100-150 Ohm for a wire beside its ground), so the edge travels without overshoot; and the edge",
            "is %.0f times longer than the line's round trip, so the whole bus charges as one RC and no"
            % (clock.rise_ns / max(clock.round_trip_ns, 1)),
            "reflection crosses the threshold twice. SPI mode 2 samples QH half a period after each shift;",
            "the half period is %.0f times the edge. Lower `sensors.baudrate` further if a board misreads."
            % (5e8 / clock.spi_hz / clock.rise_ns),
            "",
        ]
    return out + [
        "Ground: the sensor strips have their own ground wire, run beside SCK and the latch from Pico",
        "pin 23 (GND) along the chain; it carries microamps. The LED data wire LD0 runs twisted with its",
        "own ground wire LDG0 (`wiring.csv`), away from SCK (at least 10 mm, or crossing at right angles):",
        "the LED data is a 5 V, 800 kHz signal that would otherwise couple into the 3.3 V clock.",
        "",
    ]


def _measuring_section(layout: Layout, total: float) -> list[str]:
    """How to measure idle_ma and ma_per_channel with a USB meter, and the limiter at work."""
    leds = layout.leds
    n = layout.led_count
    return [
        "## Measuring (a USB meter between the computer and the board)",
        "",
        "The meter reads the whole board. Write the LEDs from the REPL (`mpremote exec` stops the",
        "firmware; `mpremote reset` starts it again). Let `N = neopixel.NeoPixel(machine.Pin(%d), %d)`:"
        % (leds["pin"], n),
        "",
        "1. **No LEDs** (the board before configuration): plug in, then",
        '   `mpremote exec "import machine; machine.Pin(%s, machine.Pin.OUT, value=0)"` (the firmware'
        % (layout.power.get("led_enable", "EN"),),
        "   stops, the LED rail goes off, the LED data pin stays low). Reading A: the Pico and the logic,",
        "   the dark board (%.1f mA budgeted above; expect about half: the Pico's figure is doubled)."
        % dark_ma(layout, True),
        "2. **All dark**: the same with `value=1`, then",
        '   `mpremote exec "import neopixel, machine; N = neopixel.NeoPixel(machine.Pin(%d), %d);' % (leds["pin"], n),
        '   N.fill((0, 0, 0)); N.write()"`. Reading B. Your `idle_ma` = (B - A) / %d (the layout has %s).'
        % (n, num(leds["idle_ma"])),
        "3. **One LED at full**: the same with `N[0] = (255, 0, 0)`, then `(0, 255, 0)`, then `(0, 0, 255)`",
        "   (after `N.fill((0, 0, 0))`). Readings R, G, B'. Your `ma_per_channel` = the largest of",
        "   R - B, G - B, B' - B (the layout has %s). Repeat on two more LEDs; keep the largest."
        % num(leds["ma_per_channel"]),
        "4. Put your figures in the layout, run `zuni board generate`: the budget check tells you the",
        "   new highest `leds.budget_ma`.",
        "5. **The limit at work**: `zuni board check` runs the LED test (every LED red, green, blue, then",
        "   white); during white the meter must stay at or under %.0f mA (this file's total), and the" % total,
        "   LEDs look dimmer than one LED alone: the limiter scaling the frame down.",
        "",
    ]


def _settle_basis(layout: Layout, slow: float) -> list[str]:
    """What `power.settle_ms` rests on, what is assumed, and how to measure it; ``slow``: the
    rail's charge time at the switch's minimum limit."""
    settle = layout.power["settle_ms"]
    idle = layout.led_count * layout.leds["idle_ma"]
    return [
        "**What `power.settle_ms` (%d ms) rests on.** The first frame waits until C3 and the LED capacitors" % settle,
        "are charged: %.1f uF x %.0f V / (%.0f mA, the TPS2553's minimum limit with R2 [tps2553tab], - %.0f mA"
        % (rail_uf(layout), RAIL_V, ILIM_MIN_MA, idle),
        "of idle LEDs) = %.1f ms, so %d ms is %.0f times that. Assumed, not measured: the capacitors' nominal"
        % (slow, settle, settle / slow),
        "values (an electrolytic's tolerance is commonly +-20 %%: %.1f ms at +20 %%), and no time for the"
        % (slow * 1.2),
        "TPS2553's soft start beyond the charge at its limit (its datasheet's figure was not taken here). No",
        "board was built for this design, so neither the charge time nor the switch-on peak has been",
        "measured. To measure them: a 0.1 Ohm shunt in the USB cable's VBUS and an oscilloscope",
        "triggered by GP%d rising: the peak current (mV x 10 = mA) and its width, and the time until +5V at C3"
        % layout.power["led_enable"],
        'reaches 4.75 V, which `settle_ms` must exceed. With the MOSFET ramp of "Switch-on" built,',
        "`settle_ms` must grow (that section); a TPS22918 (SOT-23-6, hand-solderable, named in issue #23)",
        "would do the same job, but no rise-time figure of it was taken from its datasheet here, and it has",
        "no ~FAULT pin: the overload report stays U3's.",
        "",
    ]
