"""Every shipped layout against the rules and the Pico, and the generated hardware files
(netlists, BOMs, power budgets, drawings) against the layouts: up to date byte for byte,
inside the USB power limit, and drawn where docs/rules.md puts the points."""

from __future__ import annotations

import csv
import io
import itertools
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zuni
from zuniboard.commands import board as board_command
from zuniboard.games import layouts
from zuniboard.hardware import bom, power
from zuniboard.hardware import generate as hardware

REPO = Path(__file__).resolve().parents[2]
LAYOUT_FILES = layouts.layout_paths()
NAMES = [p.stem for p in LAYOUT_FILES]
SVG = "{http://www.w3.org/2000/svg}"

# docs/rules.md's pins of the Pico, independent of the loader's own table.
HEADER_GPIOS = set(range(23)) | {26, 27, 28}
SPI_PINS = {0: {"sck": {2, 6, 18, 22}, "data": {0, 4, 16, 20}}, 1: {"sck": {10, 14, 26}, "data": {8, 12, 28}}}
EXPECTED = {"board25": 25, "board25-matrix": 25, "board49": 49, "board168": 168}


def _rules_coords(ruleset: str) -> dict[str, tuple[float, float]]:
    """Point coordinates computed straight from docs/rules.md (not from the engine)."""
    rs = zuni.parse_ruleset(ruleset)
    out: dict[str, tuple[float, float]] = {}
    if rs.game_id == "awithlaknakwe":
        for r in range(-1, 13):
            for c in range(-1, 13):
                if (
                    (0 <= c <= 11 and 0 <= r <= 11)
                    or (r in (-1, 12) and 3 <= c <= 8)
                    or (c in (-1, 12) and 3 <= r <= 8)
                ):
                    out["%s%d" % (chr(ord("a") + c + 1), r + 2)] = (float(c), float(r))
        return out
    k = 16 if rs.game_id == "kolowis" and rs["size"] == "long" else 8
    for i in range(1, k + 2):
        out["m%d" % i] = (float(i), 0.0)
    for i in range(1, k + 1):
        out["n%d" % i] = (i + 0.5, 1.0)
        out["s%d" % i] = (i + 0.5, -1.0)
    return out


@pytest.fixture(scope="module", params=NAMES)
def layout(request: pytest.FixtureRequest) -> Any:
    return layouts.load_layout(request.param)


def test_the_three_boards_and_the_matrix_variant_exist() -> None:
    assert sorted(NAMES) == sorted(EXPECTED)


def test_every_point_is_mapped_exactly_once(layout: Any) -> None:
    assert len(layout.points) == EXPECTED[layout.name]
    for ruleset in layout.rulesets:
        coords = _rules_coords(ruleset)
        assert set(layout.points) == set(coords), ruleset
        geometry = zuni.new_game(ruleset).geometry
        sensor_of, led_of = layout.maps(geometry)
        assert sorted(led_of) == list(range(layout.led_count)), "every LED of the chain serves one point"
        assert len(set(sensor_of)) == len(sensor_of)
        assert all(0 <= s < layout.sensor_count for s in sensor_of)


def test_pins_are_valid_and_used_once(layout: Any) -> None:
    used: list[int] = [layout.leds["pin"], *layout.buttons.values()]
    sensors = layout.sensors
    if sensors["type"] == "hc165":
        pins = sensors["pins"]
        # machine.SPI takes the block's MOSI pin too (GP19 on SPI0, GP11 on SPI1), unused but claimed.
        used += [pins["sck"], pins["data"], pins["latch"], {0: 19, 1: 11}[sensors["spi"]]]
        assert pins["sck"] in SPI_PINS[sensors["spi"]]["sck"]
        assert pins["data"] in SPI_PINS[sensors["spi"]]["data"]
        assert sensors["count"] % 8 == 0 and sensors["count"] - len(layout.points) < 8, "no spare 74HC165"
    else:
        used += sensors["rows"] + sensors["cols"]
    assert set(used) <= HEADER_GPIOS
    assert len(used) == len(set(used)), used


def test_led_chain_steps_between_neighbouring_points(layout: Any) -> None:
    """The data line stays short: consecutive LEDs are at most a row's turn apart."""
    coords = _rules_coords(layout.rulesets[0])
    order = sorted(layout.points, key=lambda n: layout.points[n][1])
    longest = max(
        ((coords[a][0] - coords[b][0]) ** 2 + (coords[a][1] - coords[b][1]) ** 2) ** 0.5
        for a, b in itertools.pairwise(order)
    )
    assert longest <= 3.2, longest


def test_power_budget_is_inside_the_usb_limit(layout: Any) -> None:
    total = hardware.total_ma(layout)
    # The board asks the host for power.usb_ma and stays within 90 % of it.
    assert total <= power.design_limit_ma(layout) < power.usb_ma(layout) <= hardware.USB_LIMIT_MA
    assert layout.worst_led_ma() <= layout.leds["budget_ma"] <= hardware.max_budget_ma(layout)
    # The limit is what keeps the board inside USB power: all LEDs white would not fit.
    assert layout.all_on_led_ma() > layout.leds["budget_ma"]
    # The power file states the same total.
    text = (REPO / "hardware" / layout.name / "power.md").read_text()
    assert "**%.1f**" % total in text


class _Neo:
    def __init__(self, n: int) -> None:
        self.buf = bytearray(3 * n)
        self.wire = b""

    def write(self) -> None:
        self.wire = bytes(self.buf)


def _chain(layout: Any) -> tuple[Any, _Neo]:
    from zuni_hw import pico

    leds = layout.leds
    neo = _Neo(layout.led_count)
    led_of = [layout.points[name][1] for name in sorted(layout.points)]
    args = (leds["order"], leds["max_level"], leds["ma_per_channel"], leds["idle_ma"], leds["budget_ma"])
    return pico.LedChain(neo, led_of, *args), neo


def _board_ma(layout: Any, wire: bytes) -> float:
    """The whole board's current with this LED frame on the wire, from the wire's bytes."""
    leds = layout.leds
    fixed = sum(line.ma for line in hardware.power_lines(layout) if not line.what.startswith("LEDs"))
    return fixed + sum(wire) * leds["ma_per_channel"] / 255 + layout.led_count * leds["idle_ma"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_frame_exceeds_the_usb_limit(layout: Any, data: st.DataObject) -> None:
    """The firmware's LED driver, the layout's real figures: any frame (every point white
    at full level, or random colours) keeps the board inside 500 mA, with margin."""
    n = len(layout.points)
    chain, neo = _chain(layout)
    chain.show(bytearray(b"\xff" * (3 * n)))
    # power.md's total is that limit (the driver's rounding down stays a few mA under it).
    assert hardware.total_ma(layout) - 5 < _board_ma(layout, neo.wire) <= hardware.total_ma(layout)
    frame = data.draw(st.binary(min_size=3 * n, max_size=3 * n))
    chain.show(bytearray(frame))
    assert _board_ma(layout, neo.wire) <= power.design_limit_ma(layout) < hardware.USB_LIMIT_MA


def test_a_single_point_is_bright(layout: Any) -> None:
    chain, neo = _chain(layout)
    frame = bytearray(3 * len(layout.points))
    frame[0:3] = b"\xff\xff\xff"
    chain.show(frame)
    assert max(neo.wire) == layout.leds["max_level"] >= 96
    assert chain.limited == 0


def test_power_lines_add_up_by_hand() -> None:
    layout = layouts.load_layout("board168")
    # Pico 50, TPS2553 0.2, ~FAULT pull-up 3.3/10k, EN pull-down 3.3/100k (EN high), 21 x
    # 74HC165, 168 pull-ups, 74AHCT125, then the LEDs at their limit: budget_ma 380 (168
    # idle + 212 lit), 60 mA per white LED.
    by_hand = 50 + 0.2 + 0.33 + 0.033 + 21 * 0.2 + 168 * 3.3 / 47 + 1.5 + 168 * 1.0 + (380 - 168 * 1.0)
    assert hardware.total_ma(layout) == pytest.approx(by_hand)
    assert hardware.full_points(layout) == int(212 / (60 * 128 / 255))


def test_generated_files_are_up_to_date() -> None:
    stale = hardware.generate(check=True)
    assert not stale, "run `zuni board generate`: stale %s" % [str(p) for p in stale]


# board168's files made twice take about a minute of CPU alone; on a loaded 2-core
# machine that came near the suite's 300 s limit, which is there to catch hangs.
@pytest.mark.timeout(900)
def test_regeneration_gives_the_same_bytes(layout: Any) -> None:
    first = hardware.derived_files(layout)
    second = hardware.derived_files(layouts.load_layout(layout.name))
    assert first == second
    folder = REPO / "hardware" / layout.name
    for name, data in first.items():
        assert (folder / name).read_bytes() == data, name


def _svg_circles(path: Path, prefix: str) -> dict[str, tuple[float, float]]:
    root = ET.parse(path).getroot()
    out = {}
    for el in root.iter(SVG + "circle"):
        ident = el.get("id", "")
        if ident.startswith(prefix):
            out[ident[len(prefix) :]] = (float(el.get("cx", "nan")), float(el.get("cy", "nan")))
    return out


def test_template_is_drawn_at_the_rules_coordinates(layout: Any) -> None:
    coords = _rules_coords(layout.rulesets[0])
    pitch = layout.mechanics["pitch_mm"]
    leds = _svg_circles(REPO / "hardware" / layout.name / "template.svg", "point-")
    assert set(leds) == set(coords)
    names = sorted(coords)
    # Every pair of points is as far apart on paper as in docs/rules.md units times the pitch,
    # and North is up (smaller y on paper).
    for a, b in zip(names, names[1:] + names[:1], strict=True):
        rules = ((coords[a][0] - coords[b][0]) ** 2 + (coords[a][1] - coords[b][1]) ** 2) ** 0.5
        paper = ((leds[a][0] - leds[b][0]) ** 2 + (leds[a][1] - leds[b][1]) ** 2) ** 0.5
        assert paper == pytest.approx(rules * pitch, abs=0.02), (a, b)
    north = max(coords, key=lambda n: coords[n][1])
    south = min(coords, key=lambda n: coords[n][1])
    assert leds[north][1] < leds[south][1]


def test_template_is_one_to_one_in_millimetres(layout: Any) -> None:
    root = ET.parse(REPO / "hardware" / layout.name / "template.svg").getroot()
    width, height = root.get("width", ""), root.get("height", "")
    assert width.endswith("mm") and height.endswith("mm")
    assert root.get("viewBox") == "0 0 %s %s" % (width[:-2], height[:-2])
    pdf = (REPO / "hardware" / layout.name / "template.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\]", pdf)
    assert box is not None
    assert float(box.group(1)) == pytest.approx(float(width[:-2]) * 72 / 25.4, abs=0.02)


def test_pdf_xref_offsets_point_at_objects(layout: Any) -> None:
    pdf = hardware.template_pdf(layout)
    start = int(pdf.rsplit(b"startxref\n", 1)[1].split()[0])
    table = pdf[start:].split(b"\n")
    assert table[0] == b"xref"
    for i, entry in enumerate(table[3:8], 1):
        offset = int(entry.split()[0])
        assert pdf[offset:].startswith(b"%d 0 obj" % i)


def test_wiring_drawing_shows_every_led_and_sensor(layout: Any) -> None:
    path = REPO / "hardware" / layout.name / "wiring.svg"
    assert set(_svg_circles(path, "led-")) == set(layout.points)
    assert set(_svg_circles(path, "sensor-")) == set(layout.points)


def test_netlist_wires_every_sensor_and_led(layout: Any) -> None:
    text = (REPO / "hardware" / layout.name / "netlist.txt").read_text()
    nets = {}
    for line in text.split("[nets]")[1].split("[no-connect]")[0].strip().splitlines():
        name, *nodes = line.split()
        assert name not in nets, "net %s twice" % name
        nets[name] = nodes
    for name in layout.points:
        assert any("SW_%s.1" % name in nodes for nodes in nets.values()), name
    # The LED chain: R1 -> LED0, then DOUT(i-1) -> DIN(i) for every LED.
    assert nets["LED_DIN0"] == ["R1.2", "LED0.1(DIN)"]
    for i in range(1, layout.led_count):
        # (a net between two strips also reaches the cable's two headers)
        chain = [n for n in nets["LED_DIN%d" % i] if not n.startswith("J")]
        assert chain == ["LED%d.4(DOUT)" % (i - 1), "LED%d.1(DIN)" % i]
    if layout.sensors["type"] == "hc165":
        # Sensor index 0 is input H of the chip whose QH drives the Pico's data pin.
        first = min(layout.points, key=lambda n: layout.points[n][0])
        assert nets["S0_%s" % first][0] == "U10.6(H)"
        # (and the two ends of the cable from the controller: J2 and J1, or J10 on strip 1)
        assert [n for n in nets["SR_DATA"] if not n.startswith(("J1.", "J2.", "J10."))] == [
            "U1.%d(GP%d)" % (hardware.PICO_PIN[16], 16),
            "U10.9(QH)",
        ]
        chips = layout.sensor_count // 8
        assert len([n for n in nets if n.startswith("SR_CHAIN")]) == chips - 1
    else:
        assert len([n for n in nets if n.startswith("ROW")]) == len(layout.sensors["rows"])


def test_bom_counts_follow_the_layout(layout: Any) -> None:
    rows = list(csv.DictReader(io.StringIO((REPO / "hardware" / layout.name / "bom.csv").read_text())))
    assert list(rows[0]) == list(bom.COLUMNS)
    qty = {r["value"]: int(r["qty"]) for r in rows}
    assert {r["mpn"]: int(r["qty"]) for r in rows}["MDSR-7-15-20"] == len(layout.points)
    assert qty["WS2812D-F5"] == layout.led_count
    if layout.sensors["type"] == "hc165":
        chips = layout.sensor_count // 8
        assert qty["74HC165"] == qty["47 kOhm x 15"] == chips
        # 100 nF: one per LED, one per 74HC165, the 74AHCT125's and the load switch input's.
        assert qty["100 nF"] == layout.led_count + chips + 2
    else:
        assert qty["1N4148"] == len(layout.points)
        assert qty["100 nF"] == layout.led_count + 2


def test_ruleset_picks_its_board() -> None:
    assert layouts.layout_for_ruleset("mosona board=open").name == "board25"
    assert layouts.layout_for_ruleset("kolowis  size=short").name == "board25"
    assert [x.name for x in layouts.layouts_for_ruleset("mosona")] == ["board25", "board25-matrix"]
    assert layouts.layout_for_ruleset("kolowis").name == "board49"
    assert layouts.layout_for_ruleset("awithlaknakwe players=4").name == "board168"


def test_unknown_layout_is_named() -> None:
    with pytest.raises(layouts.layout_error(), match=r"board7.*known: board168"):
        layouts.load_layout("board7")


def test_template_at_another_pitch(tmp_path: Path) -> None:
    out = tmp_path / "t.svg"
    parser_args = ["board", "template", "board49", "--pitch", "35", "-o", str(out)]
    from zuniboard.cli import build_parser

    args = build_parser().parse_args(parser_args)
    assert board_command.run_template(args) == 0
    leds = _svg_circles(out, "led-")
    assert leds["m2"][0] - leds["m1"][0] == pytest.approx(35.0)
    bad = build_parser().parse_args(["board", "template", "board49", "-o", str(tmp_path / "t.png")])
    with pytest.raises(board_command.UsageError, match=r"t\.png"):
        board_command.run_template(bad)


# The drill file, the LED positions and the magnet clearances: tests/unit/test_mechanics.py.


def test_board_show_states_the_dark_current(capsys: pytest.CaptureFixture[str]) -> None:
    from zuniboard.cli import main

    assert main(["board", "show", "board168"]) == 0
    out = capsys.readouterr().out
    layout = layouts.load_layout("board168")
    want = "LED rail switched by GP21: %.1f mA dark before USB configuration (EN tied on: %.1f mA)" % (
        power.dark_ma(layout),
        power.dark_ma(layout, False),
    )
    assert want in out, out
