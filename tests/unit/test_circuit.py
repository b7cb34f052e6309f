"""The reference circuit (zuniboard.hardware.circuit) against the electrical rules, against
deliberate wiring faults, and against everything derived from it or meant to agree
with it: netlist.txt, the KiCad netlist, the BOM, the schematic, the perfboard plans,
the layout, and the pins the firmware's drivers actually open."""

from __future__ import annotations

import copy
import csv
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from zuniboard.games import layouts
from zuniboard.hardware import bom, circuit, erc, netlist, pcb_stack, placement, power, wiring
from zuniboard.paths import FIRMWARE_LIB

REPO = Path(__file__).resolve().parents[2]
NAMES = [p.stem for p in layouts.layout_paths()]
SVG = "{http://www.w3.org/2000/svg}"
KICAD_PIN_TYPES = {
    "input",
    "output",
    "bidirectional",
    "tri_state",
    "passive",
    "power_in",
    "power_out",
    "open_collector",
    "open_emitter",
    "no_connect",
    "unspecified",
    "free",
}


@pytest.fixture(scope="module", params=NAMES)
def board(request: pytest.FixtureRequest) -> tuple[Any, circuit.Circuit]:
    layout = layouts.load_layout(request.param)
    return layout, circuit.build(layout)


# The boards built on perfboard (the PCB build replaces the plans: test_pcb_stack.py).
WIRED = [n for n in NAMES if not pcb_stack.is_pcb_build(placement.build(layouts.load_layout(n)))]


@pytest.fixture(scope="module", params=WIRED)
def wired_board(request: pytest.FixtureRequest) -> tuple[Any, circuit.Circuit]:
    layout = layouts.load_layout(request.param)
    return layout, circuit.build(layout)


def test_every_shipped_circuit_passes_the_erc(board: tuple[Any, circuit.Circuit]) -> None:
    _, c = board
    assert erc.check(c) == []


# -- deliberate faults: each must be caught, with a message naming it -------------------


def _broken(name: str) -> circuit.Circuit:
    return copy.deepcopy(circuit.build(layouts.load_layout(name)))


def _move(c: circuit.Circuit, node: tuple[str, str], to: str) -> None:
    for nodes in c.nets.values():
        if node in nodes:
            nodes.remove(node)
    c.nets.setdefault(to, []).append(node)


def test_erc_catches_a_missing_pull_up() -> None:
    c = _broken("board25")
    # RN10's element for input H (element 1, pin 1) cut from its net: U10.6 floats while
    # the switch is open.
    net = c.net_of("RN10", "1")
    assert net is not None
    c.nets[net].remove(("RN10", "1"))
    errors = erc.check(c)
    assert "input U10.6(H) on net %s is neither driven nor pulled" % net in errors
    assert "RN10.1(R1) is not connected" in errors


def test_erc_catches_two_outputs_on_one_net() -> None:
    c = _broken("board49")
    c.nets["SR_DATA"].append(("U11", "9"))  # U11's QH wired to the Pico's data line too
    assert any(e.startswith("net SR_DATA has 2 outputs") for e in erc.check(c))
    assert "U11.9(QH) is on two nets: SR_CHAIN1 and SR_DATA" in erc.check(c)


def test_erc_catches_a_single_pin_net_and_an_unconnected_pin() -> None:
    c = _broken("board25-matrix")
    _move(c, ("LED3", "1"), "LED_DIN3_BROKEN")  # DIN of LED3 cut off from LED2's DOUT
    errors = erc.check(c)
    assert "net LED_DIN3 has a single pin: LED2.4(DOUT)" in errors
    assert "net LED_DIN3_BROKEN has a single pin: LED3.1(DIN)" in errors
    assert "input LED3.1(DIN) on net LED_DIN3_BROKEN is neither driven nor pulled" in errors
    c = _broken("board25")
    c.nets["GND"].remove(("U12", "8"))
    assert "U12.8(GND) is not connected" in erc.check(c)


def test_erc_catches_an_unsupplied_power_pin() -> None:
    c = _broken("board168")
    _move(c, ("U20", "16"), "SR_CHAIN11")  # VCC of U20 wired to a signal
    errors = erc.check(c)
    assert "power pin U20.16(VCC) on net SR_CHAIN11 has no supply" in errors


def test_erc_catches_a_no_connect_pin_wired_and_a_missing_pull_up_on_open_collector() -> None:
    c = _broken("board25")
    c.nets["SR_CHAIN1"].append(("U10", "7"))  # ~QH (marked NC) wired into the chain
    assert "U10.7(~QH) is marked no-connect but is on net SR_CHAIN1" in erc.check(c)
    c = _broken("board25")
    c.nets["FAULT"].remove(("R3", "2"))
    errors = erc.check(c)
    assert "open-collector U3.4(~FAULT) on net FAULT has no pull-up" in errors


def test_erc_wants_a_defined_default_on_every_enable() -> None:
    c = _broken("board25")
    c.nets["LED_EN"].remove(("R6", "1"))  # the pull-down left out: EN floats until main.py runs
    c.nets["GND"].remove(("R6", "2"))
    errors = erc.check(c)
    assert (
        "enable U3.3(EN) on net LED_EN has no defined default: no pull resistor (a GPIO floats through reset)" in errors
    )
    c = _broken("board49")
    _move(c, ("R6", "2"), "+3V3")  # a pull-up: the LED rail would come on at plug-in
    assert (
        "enable U3.3(EN) (active high) on net LED_EN is pulled ON by default (to +3V3): its pull must hold it off"
        in (erc.check(c))
    )
    c = _broken("board25-matrix")
    _move(c, ("U2", "1"), "LED_EN")  # the level shifter's 1OE (active low) on the GPIO net pulled to GND
    assert any(e.startswith("enable U2.1(1OE) (active low) on net LED_EN is pulled ON") for e in erc.check(c))


def test_enable_tied_to_a_rail_passes_and_the_old_design_is_still_drawable() -> None:
    layout = layouts.load_layout("board25")
    layout.power = {k: v for k, v in layout.power.items() if k not in ("led_enable", "no_host_ms", "settle_ms")}
    c = circuit.build(layout)
    assert erc.check(c) == []
    assert ("U3", "3") in c.nets["VBUS"] and "R6" not in c.parts and "LED_EN" not in c.nets
    assert power.dark_ma(layout) == power.dark_ma(layout, False) > 77


def test_dark_board_stays_under_usb_unconfigured_limit(board: tuple[Any, circuit.Circuit]) -> None:
    layout, _ = board
    before, after = power.dark_ma(layout, False), power.dark_ma(layout)
    assert before > power.UNCONFIGURED_MA or layout.led_count < 50, "the defect this design removes"
    assert after < power.UNCONFIGURED_MA * 0.7, "dark board before configuration: %.1f mA" % after
    text = (REPO / "hardware" / layout.name / "power.md").read_text()
    assert "| **total** | | **%.1f** | | **%.1f** |" % (before, after) in text


# -- one source: every derived file is this circuit ------------------------------------


def _txt_nets(text: str) -> dict[str, list[str]]:
    nets = {}
    for line in text.split("[nets]")[1].split("[no-connect]")[0].strip().splitlines():
        name, *nodes = line.split()
        nets[name] = [re.sub(r"\(.*\)$", "", n) for n in nodes]
    return nets


def test_netlist_files_are_the_circuit(board: tuple[Any, circuit.Circuit]) -> None:
    layout, c = board
    folder = REPO / "hardware" / layout.name
    want = {net: ["%s.%s" % n for n in nodes] for net, nodes in c.nets.items()}
    assert _txt_nets((folder / "netlist.txt").read_text()) == want
    kicad = (folder / "netlist.net").read_text()
    assert netlist.parse_kicad_net(kicad) == c.nets
    assert set(re.findall(r'\(pintype "([a-z_]+)"\)', kicad)) <= KICAD_PIN_TYPES
    assert set(re.findall(r'\(comp \(ref "([^"]+)"\)', kicad)) == set(c.parts)


def test_netlist_quirks_are_gone(board: tuple[Any, circuit.Circuit]) -> None:
    """Issue 11: no net lists another net as a node; +3V3 never has only the Pico's pin."""
    layout, c = board
    text = (REPO / "hardware" / layout.name / "netlist.txt").read_text()
    for nodes in _txt_nets(text).values():
        assert all(re.fullmatch(r"[A-Za-z0-9_]+\.[A-Z0-9+-]+", n) for n in nodes), nodes
    assert len(c.nets["+3V3"]) >= 2
    assert ("U2", "4") in c.nets["+5V"]  # the unused gates' OE pins sit on +5V itself


def test_bom_is_the_netlists_components(board: tuple[Any, circuit.Circuit]) -> None:
    layout, c = board
    rows = list(csv.DictReader(io.StringIO((REPO / "hardware" / layout.name / "bom.csv").read_text())))
    listed: list[str] = []
    for row in rows:
        refs = bom.expand(row["refs"])
        listed += refs
        if refs:
            assert int(row["qty"]) == len(refs), row["refs"]
            assert {c.parts[r].bom for r in refs} == {
                next(k for k, v in bom.PARTS.items() if v[2] == row["value"] and v[5] == row["mpn"])
            }
        assert row["package"] and row["part"], row
        assert float(row["unit_price_usd"]) >= 0
    assert sorted(listed) == sorted(c.parts), "every netlist component exactly once"
    smd = [r for r in rows if "0805" in r["package"] or "SOIC" in r["package"] or "SOT-23" in r["package"]]
    if layout.sensors["type"] == "hc165":
        # the PCB build: every surface-mount part is the assembly service's, by its stock number
        assert smd and all(re.match(r"LCSC C\d+\*? \(fab assembly", r["supplier_1"]) for r in smd), smd
        # one PCB row per PCB of the board: a main board, or the strips and the buttons' PCB
        pcbs = {r["part"] for r in rows if r["part"].startswith("PCB, 2 layers")}
        assert "PCB, 2 layers, controller module" in pcbs
        if any(p.pcb == "main" for p in c.parts.values()):
            assert "PCB, 2 layers, main board" in pcbs
        else:
            strips = {p.pcb for p in c.parts.values() if p.pcb.startswith("strip")}
            assert pcbs == {"PCB, 2 layers, controller module", "PCB, 2 layers, buttons"} | {
                "PCB, 2 layers, %s" % s for s in strips
            }
    else:
        assert [r for r in smd if "SOT-23-6" not in r["package"]] == [], "the matrix variant is a through-hole build"
    assert bom.cost_usd(rows) == pytest.approx(sum(int(r["order_qty"]) * float(r["unit_price_usd"]) for r in rows))
    # Spares: the order is the netlist's count plus the rule's spares, row by row.
    for row in rows:
        refs = bom.expand(row["refs"])
        key = c.parts[refs[0]].bom if refs else ""
        assert int(row["order_qty"]) == int(row["qty"]) + (bom.spares(key, len(refs)) if refs else 0), row


def test_spares_rule() -> None:
    # +10 % rounded up, at least 2, for the small parts a builder solders by hand
    assert bom.spares("reed", 25) == 3 and bom.spares("reed", 168) == 17 and bom.spares("reed", 5) == 2
    assert bom.spares("led", 49) == 5
    assert bom.spares("r_10k_tht", 4) == 2 and bom.spares("c_100n_tht", 27) == 3 and bom.spares("1n4148", 25) == 3
    # none for modules and ICs, buttons, and what the assembly service places
    assert bom.fab_assembled("c_100n") and bom.spares("c_100n", 30) == 0
    assert bom.spares("pico", 1) == bom.spares("hc165", 21) == bom.spares("button", 3) == 0


def test_bom_refs_round_trip() -> None:
    refs = ["C1", "C2", "C10", "C11", "C12", "CL0", "CL1", "SW_m1", "SW_m2", "U1"]
    assert bom.compress(refs) == "C1-C2 C10-C12 CL0-CL1 SW_m1-SW_m2 U1"
    assert sorted(bom.expand(bom.compress(refs))) == sorted(refs)


def test_circuit_follows_the_layout(board: tuple[Any, circuit.Circuit]) -> None:
    layout, c = board
    sensors = layout.sensors
    for name, (sensor, led) in layout.points.items():
        assert c.net_of("SW_%s" % name, "1") is not None
        if sensors["type"] == "hc165":
            chip, bit = divmod(sensor, 8)
            # the firmware's bit order (HC165Chain): index 0 = input H of the chip at the Pico
            assert ("U%d" % (circuit.FIRST_HC165 + chip), str(circuit.HC165_INPUT_PINS[bit][1])) in c.nets[
                c.net_of("SW_%s" % name, "1") or ""
            ]
        assert c.parts["LED%d" % led].description.endswith("point %s" % name)
    for i in range(1, layout.led_count):
        # (a net between two strips also reaches the cable's two headers)
        chain = [n for n in c.nets["LED_DIN%d" % i] if not n[0].startswith("J")]
        assert chain == [("LED%d" % (i - 1), "4"), ("LED%d" % i, "1")]


class _Machine:
    """Records every pin the firmware's factories open (as machine.Pin / machine.SPI)."""

    def __init__(self) -> None:
        self.pins: dict[int, tuple[int, int]] = {}
        self.spi: dict[str, Any] = {}
        rec = self

        class Pin:
            OUT, IN, PULL_UP = 1, 0, 2

            def __init__(self, pin_id: int, mode: int = -1, pull: int = -1, value: int | None = None) -> None:
                self.id = pin_id
                rec.pins[pin_id] = (mode, pull)

            def __call__(self, *v: int) -> int | None:
                return None if v else 1

        class SPI:
            MSB = 0

            def __init__(self, spi_id: int, **kw: Any) -> None:
                rec.spi = kw

            def readinto(self, buf: bytearray, write: int = 0) -> None:
                pass

        self.Pin = Pin
        self.SPI = SPI
        self.mem32: dict[int, int] = {}  # the USB controller is read only from the scan loop
        self.mem16: dict[int, int] = {}


class _Neo:
    def __init__(self, pin: Any, n: int) -> None:
        self.pin = pin
        self.buf = bytearray(3 * n)

    def write(self) -> None:
        pass


def test_circuit_wires_the_pins_the_firmware_drivers_open(board: tuple[Any, circuit.Circuit]) -> None:
    import sys

    if str(FIRMWARE_LIB) not in sys.path:
        sys.path.append(str(FIRMWARE_LIB))
    from zuni_board.layout import SPI_MOSI
    from zuni_hw import pico

    layout, c = board
    m = _Machine()
    pico.make_sensors(layout.sensors, m)
    pico.make_buttons(layout.buttons, pico.RELEASE_MS, m)

    class NeoModule:
        NeoPixel = _Neo

    led_of = list(range(layout.led_count))
    rail = pico.make_led_power(layout.power, layout.leds, 0, m)
    assert rail is not None, "every shipped board switches its LED rail"
    assert c.net_of("U1", str(circuit.PICO_PIN[layout.power["led_enable"]])) == "LED_EN"
    assert ("U3", "3") in c.nets["LED_EN"], "the pin the firmware drives is the load switch's EN"
    pico.make_leds(layout.leds, led_of, m, NeoModule, rail)
    fault = pico.make_supply_fault(layout.power, m)
    assert fault is not None, "every shipped board reads its LED supply's ~FAULT"
    assert c.net_of("U1", str(circuit.PICO_PIN[layout.power["fault"]])) == "FAULT"
    assert ("U3", "4") in c.nets["FAULT"], "the pin the firmware reads is the load switch's ~FAULT"
    opened = set(m.pins)
    if layout.sensors["type"] == "hc165":
        for key in ("sck", "miso"):
            opened.add(m.spi[key].id)
        mosi = m.spi["mosi"].id
        assert mosi == SPI_MOSI[layout.sensors["spi"]]
        assert c.net_of("U1", str(circuit.PICO_PIN[mosi])) is None, "MOSI is claimed by the SPI but wired to nothing"
        opened.discard(mosi)
        assert m.spi["baudrate"] == layout.sensors["baudrate"] == power.clock_line(layout).spi_hz  # type: ignore[union-attr]
        assert c.net_of("U1", str(circuit.PICO_PIN[m.spi["sck"].id])) == "SR_CLK_PICO"
        assert c.net_of("U1", str(circuit.PICO_PIN[m.spi["miso"].id])) == "SR_DATA"
    wired = {int(p.name[2:]) for p in c.parts["U1"].pins if p.name.startswith("GP")}
    assert opened == wired
    for gpio, (mode, pull) in m.pins.items():
        if gpio not in wired:
            continue  # the SPI's MOSI, checked above
        pin = next(p for p in c.parts["U1"].pins if p.name == "GP%d" % gpio)
        if mode == 0:  # an input: the circuit says whether the chip pulls it up
            assert pin.kind == "input" and pin.pulled == (pull == 2), gpio
        elif mode == 1:
            assert pin.kind == "output", gpio


def _labels(path: Path) -> list[tuple[str, str]]:
    root = ET.parse(path).getroot()
    return [(el.get("data-pin", ""), el.get("data-net", "")) for el in root.iter(SVG + "text") if el.get("data-pin")]


def test_schematic_labels_are_the_netlist(board: tuple[Any, circuit.Circuit]) -> None:
    layout, c = board
    labels = _labels(REPO / "hardware" / layout.name / "schematic.svg")
    drawn = {pin for pin, _ in labels}
    for pin, net in labels:
        ref, number = pin.split(".")
        want = "NC" if number in c.parts[ref].no_connect else c.net_of(ref, number)
        assert net == want, pin
    # Every pin of every drawn part is drawn, and the controller sheet has every part of its own.
    for ref in {p.split(".")[0] for p in drawn}:
        assert {"%s.%s" % (ref, p.number) for p in c.parts[ref].pins} <= drawn, ref
    controller = {r for r, p in c.parts.items() if p.sheet == "controller"}
    assert controller <= {p.split(".")[0] for p in drawn}
    if layout.sensors["type"] == "hc165":
        assert {"U10", "RN10", "C10"} <= {p.split(".")[0] for p in drawn}
    pdf = (REPO / "hardware" / layout.name / "schematic.pdf").read_bytes()
    # three sheets, and a fourth for the PCB build's buttons and cable
    pages = 4 if "J2" in c.parts else 3
    assert pdf.startswith(b"%PDF-1.4") and b"/Count %d" % pages in pdf


def test_perfboard_plans_wire_the_netlist(wired_board: tuple[Any, circuit.Circuit]) -> None:
    board = wired_board
    from zuniboard.hardware import perfboard

    layout, c = board
    root = ET.parse(REPO / "hardware" / layout.name / "perfboard.svg").getroot()
    pads = {el.get("data-pad", ""): el.get("data-net", "") for el in root.iter(SVG + "text") if el.get("data-pad")}
    for pad, net in pads.items():
        assert net == (c.net_of(*pad.split(".")) or "NC"), pad  # type: ignore[arg-type]
    plans = [perfboard.controller_plan(c)] + (
        [perfboard.strip_plan(c, layout)] if layout.sensors["type"] == "hc165" else []
    )
    for plan in plans:
        wires = perfboard.net_wires(c, plan)
        holes = list(plan.pads.values()) + list(plan.edge.values())
        assert len(holes) == len(set(holes)), "two pads in one hole"
        for net, nodes in c.nets.items():
            placed = {plan.pads[n] for n in nodes if n in plan.pads}
            if net in plan.edge:
                placed.add(plan.edge[net])
            if len(placed) > 1:
                assert set(wires[net]) == placed, net


def test_power_file_states_the_layout_budget(board: tuple[Any, circuit.Circuit]) -> None:
    layout, _ = board
    text = (REPO / "hardware" / layout.name / "power.md").read_text()
    assert "**%.1f**" % power.total_ma(layout) in text
    assert "asks the host for **%d mA**" % layout.power["usb_ma"] in text
    # The budget uses the room there is (within 20 mA of the most the design limit allows).
    assert power.max_budget_ma(layout) - 20 < layout.leds["budget_ma"] <= power.max_budget_ma(layout)
    # The real LED figures, not the old 12 mA.
    assert layout.leds["ma_per_channel"] >= 20.0 and layout.leds["idle_ma"] >= 1.0
    # Every source named in the file is listed at its end.
    for key in set(re.findall(r"\[([a-z][a-z0-9]*)\]", text)):
        assert "- [%s] " % key in text, key
    for key in re.findall(r"^- \[([a-z0-9]+)\] ", text, re.M):
        assert text.count("[%s]" % key) >= 2, "source %s listed but never cited" % key
    r = power.rail(layout, wiring.led_feeds(layout))
    assert r.rail_drop_v <= power.LED_RAIL_MAX_DROP_V
    assert r.far_led_v > 4.0


def test_sensor_clock_edges_fit_the_74hc165(board: tuple[Any, circuit.Circuit]) -> None:
    layout, _ = board
    clock = power.clock_line(layout)
    if clock is None:
        return
    assert clock.rise_ns < power.HC_MAX_TRANSITION_NS
    assert clock.rise_ns > 3 * clock.round_trip_ns, "lumped: no reflection crosses the threshold twice"
    assert 1e9 / clock.spi_hz / 2 > 4 * clock.rise_ns, "half a clock period is several edges long"
    assert clock.read_us * 1000 < layout.timing["scan_ms"] * 1e6 / 10, "a read takes under a tenth of a scan"


def test_readme_states_the_generated_worst_cases() -> None:
    text = (REPO / "hardware" / "README.md").read_text()
    shipped = [layouts.load_layout(name) for name in NAMES]
    after = sorted(power.dark_ma(layout) for layout in shipped)
    before = sorted(power.dark_ma(layout, False) for layout in shipped)
    dark = "%.1f-%.1f mA before USB configuration (it took %.0f-%.0f mA with EN tied on)" % (
        after[0],
        after[-1],
        before[0],
        before[-1],
    )
    assert dark in text.replace("\n", " "), dark
    for name, label in (
        ("board25", "25-point"),
        ("board25-matrix", "25-point matrix"),
        ("board49", "49-point"),
        ("board168", "168-square"),
    ):
        total = power.total_ma(layouts.load_layout(name))
        assert re.search(r"%s %.1f mA" % (re.escape(label), total), text.replace("\n", " ")), (name, total)


def test_cost_estimate_is_computed_from_the_bom_rows(board: tuple[Any, circuit.Circuit]) -> None:
    from zuniboard.hardware import generate as hardware

    layout, _ = board
    folder = REPO / "hardware" / layout.name
    rows = list(csv.DictReader(io.StringIO((folder / "bom.csv").read_text())))
    other = hardware.other_bom_rows(layout)
    text = (folder / "cost.md").read_text()
    assert "| **electrical** | %d | **%.2f** |" % (len(rows), bom.cost_usd(rows)) in text
    assert "| **total** | %d | **%.2f** |" % (len(rows) + len(other), bom.cost_usd(rows + other)) in text
    by_hand = sum(float(r["order_qty"]) * float(r["unit_price_usd"]) for r in rows)
    assert bom.cost_usd(rows) == pytest.approx(by_hand) and by_hand > 20


def test_tuple_rows_of_another_module_join_the_bom() -> None:
    row = ("mechanical", "MAG", "24", "24", "Magnet", "6 x 3 mm", "disc", "", "", "", "", "0.10", "one per piece")
    joined = bom.as_dicts([row])
    assert joined[0]["qty"] == "24" and bom.cost_usd(joined) == pytest.approx(2.4)
    assert bom.render(joined).splitlines()[1].startswith("mechanical,MAG,24,24,Magnet")


def test_kicad_netlist_reads_back_with_kinparse() -> None:
    """An independent KiCad netlist reader (kinparse, used by SKiDL) sees the same parts,
    footprints and nets. One board only: kinparse takes seconds per 100 parts, and every
    board's file comes from the same writer (our own reader checks all four above)."""
    import warnings

    import kinparse

    layout = layouts.load_layout("board25")
    c = circuit.build(layout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kinparse calls pyparsing's deprecated camelCase names
        parsed = kinparse.parse_netlist((REPO / "hardware" / layout.name / "netlist.net").read_text())
    assert {p.ref: p.footprint for p in parsed.parts} == {r: p.footprint.split(" ")[0] for r, p in c.parts.items()}
    nets = {n.name: sorted((pin.ref, pin.num) for pin in n.pins) for n in parsed.nets}
    assert nets == {name: sorted(nodes) for name, nodes in c.nets.items()}


def test_schematic_refuses_a_part_that_would_fall_off_the_sheet() -> None:
    """board25-matrix's SW_OK once flowed into a fourth column past the sheet's right edge:
    in the netlist, not on the drawing. The placer now says so instead."""
    from zuniboard.hardware import schematic
    from zuniboard.hardware.drawing import Page

    c = circuit.build(layouts.load_layout("board25-matrix"))
    refs = [r for r in c.parts if r.startswith("R") or r.startswith("C")][:80]
    with pytest.raises(ValueError, match="no room for"):
        schematic._place(Page("crowded"), c, refs)
    for name in NAMES:
        root = ET.parse(REPO / "hardware" / name / "schematic.svg").getroot()
        width = float(root.get("viewBox", "0 0 0 0").split()[2])
        for el in root.iter(SVG + "text"):
            if el.get("data-pin"):
                # a pin's net label, with room for its text (end-anchored labels end at x)
                assert 4 < float(el.get("x", "0")) < width - 4, (name, el.get("data-pin"), el.get("x"))


def test_the_test_points_assembly_md_names_are_on_their_nets(wired_board: tuple[Any, circuit.Circuit]) -> None:
    board = wired_board
    layout, c = board
    text = (REPO / "hardware" / layout.name / "assembly.md").read_text()
    where = {
        "TP_VBUS": ("VBUS", [("U1", "40"), ("U3", "1")]),
        "TP_5V": ("+5V", [("C3", "1")]),
        "TP_3V3": ("+3V3", [("U1", "36")]),
        "TP_GND": ("GND", [("U1", "38")]),
        "TP_DIN0": ("LED_DIN0", [("R1", "2")]),
        "TP_EN": ("LED_EN", [("U3", "3"), ("R6", "1")]),
        "TP_FAULT": ("FAULT", [("U3", "4")]),
    }
    for tp, (net, nodes) in where.items():
        assert "- %s:" % tp in text, tp
        for node in nodes:
            assert node in c.nets[net], (tp, node)
    if layout.sensors["type"] == "hc165":
        assert ("U10", "9") in c.nets["SR_DATA"] and "- TP_SBk_QH:" in text


def test_perfboard_wiring_lists_stay_inside_their_columns(wired_board: tuple[Any, circuit.Circuit]) -> None:
    board = wired_board
    from zuniboard.hardware import perfboard

    layout, _ = board
    root = ET.parse(REPO / "hardware" / layout.name / "perfboard.svg").getroot()
    listed = [
        el.text or "" for el in root.iter(SVG + "text") if re.match(r"^[A-Z0-9_+]+( \(cont\.\))?: ", el.text or "")
    ]
    assert any(t.startswith("GND: ") for t in listed)
    assert all(len(t) <= perfboard.WIRING_LINE_CHARS for t in listed), max(listed, key=len)
