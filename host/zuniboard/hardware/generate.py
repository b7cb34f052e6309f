"""Derived hardware files, generated from the layouts and the rules geometry.

For each layout ``hardware/layouts/<board>.json`` this writes ``hardware/<board>/``:

- ``netlist.txt`` and ``netlist.net`` (KiCad): every component and every net of the
  reference circuit (``zuniboard.hardware.circuit``: Pico, load switch, level shifter, 74HC165
  chain or diode matrix, reed switches, WS2812 chain with its capacitors, buttons);
- ``schematic.svg`` and ``schematic.pdf``: the same circuit drawn on three sheets;
- ``perfboard.svg``: the controller board and one sensor strip, 1:1;
- ``bom.csv``: bill of materials with part numbers, sources and prices; ``cost.md``: the
  cost estimate computed from its rows (and the mechanical BOM's, where it exists);
- ``power.md``: the power design (``zuniboard.hardware.power``);
- ``wiring.svg``: the LED chain and the sensor chain drawn over the board;
- ``template.svg`` and ``template.pdf``: the 1:1 drilling template on one page, and
  ``drill.csv``: every hole, slot and pocket with sizes and depths; with the tiled
  templates, ``wiring.csv``, ``assembly.md``, ``mechanics.md`` and ``bom-mechanical.csv``
  they come from the mechanical modules (``stack``, ``plates``, ``board_spots``, ``drill``,
  ``template``, ``template_print``, ``wiring``, ``bom_mechanical``, ``mechanics_doc``,
  ``assembly_doc``);
- ``plate-P1.dxf`` ...: every plate for a laser or CNC service (``plates_dxf``).

Output is deterministic (no dates), so a test can regenerate and compare bytes:
``zuni board generate`` rewrites them; ``zuni board generate --check`` only compares.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import TYPE_CHECKING

from zuniboard.games.layouts import BoardGeometry, layout_paths, load_layout
from zuniboard.hardware import (
    assembly_doc,
    assembly_pcb,
    board_spots,
    bom,
    bom_mechanical,
    circuit,
    drill,
    mechanics_doc,
    netlist,
    pcb_stack,
    perfboard,
    power,
    schematic,
    template,
    template_print,
    wiring,
)
from zuniboard.hardware.fmt import num as _f
from zuniboard.hardware.fmt import xml_text as _esc
from zuniboard.hardware.placement import Placement, build, layout_geometry, placement
from zuniboard.paths import HARDWARE_DIR

if TYPE_CHECKING:
    from zuni_board.layout import Layout

# The power design lives in zuniboard.hardware.power (figures with their sources), the circuit in
# zuniboard.hardware.circuit; these names stay here for the commands and the tests.
USB_LIMIT_MA = 500.0  # USB 2.0: the most a port gives a configured device
PowerLine = power.PowerLine
power_lines = power.power_lines
total_ma = power.total_ma
max_budget_ma = power.max_budget_ma
white_led_ma = power.white_led_ma
full_points = power.full_points
power_md = power.power_md
PICO_PIN = circuit.PICO_PIN
HC165_INPUT_PINS = circuit.HC165_INPUT_PINS


def _chain_order(layout: Layout, which: int) -> list[str]:
    """Point names sorted by sensor index (which=0) or LED index (which=1)."""
    return sorted(layout.points, key=lambda name: layout.points[name][which])


# -- netlist, BOM -----------------------------------------------------------------------


def netlist_txt(layout: Layout) -> str:
    return netlist.netlist_txt(layout, circuit.build(layout))


def kicad_net(layout: Layout) -> str:
    return netlist.kicad_net(layout, circuit.build(layout))


def bom_rows(layout: Layout) -> list[dict[str, str]]:
    """The BOM's rows: the electrical parts (zuniboard.hardware.bom). Another module may append
    its own rows here (dicts with ``bom.COLUMNS`` keys, or tuples via ``bom.as_dicts``)."""
    rows = bom.rows(layout, circuit.build(layout))
    return rows


def bom_csv(layout: Layout) -> str:
    return bom.render(bom_rows(layout))


def other_bom_rows(layout: Layout) -> list[dict[str, str]]:
    """Rows of the mechanical BOM (``bom_mechanical.bom_rows``, written to its own file), for
    the cost estimate."""
    return bom.as_dicts([row.cells() for row in bom_mechanical.bom_rows(layout)])


def cost_md(layout: Layout) -> str:
    return bom.cost_md(layout, bom_rows(layout), other_bom_rows(layout))


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


def template_svg(layout: Layout, pitch: float | None = None) -> str:
    """A 1:1 drilling template (units: mm), drawn from ``drill.features``."""
    return template.template_svg(layout, pitch)


def wiring_svg(layout: Layout) -> str:
    """The LED chain (red arrows) and the sensor chain (one colour per 74HC165 or matrix
    row) drawn over the board, with the Pico and its pins."""
    geometry = layout_geometry(layout)
    place = placement(geometry, 30.0)
    w, h = place.width, place.height + 60
    pos = {name: place.at(*geometry.coords[geometry.index[name]]) for name in geometry.names}
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
    out += _wiring_sensors(layout, pos)
    led_order = _chain_order(layout, 1)
    first = pos[led_order[0]]
    pico = (first[0] - place.pitch * 0.6, place.height + 15)
    out += _wiring_leds(layout, pos, led_order, pico)
    out += _wiring_pico(layout, pico)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _wiring_sensors(layout: Layout, pos: dict[str, tuple[float, float]]) -> list[str]:
    """Sensor groups: one colour per chip (or matrix row), drawn as filled discs."""
    colours = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d")
    sensors = layout.sensors
    group_size = 8 if sensors["type"] == "hc165" else len(sensors["cols"])
    out = []
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
    return out


def _wiring_leds(
    layout: Layout, pos: dict[str, tuple[float, float]], led_order: list[str], pico: tuple[float, float]
) -> list[str]:
    """The LED chain: arrows from the Pico to LED 0 and from each LED to the next."""
    first = pos[led_order[0]]
    out = []
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
    return out


def _wiring_pico(layout: Layout, pico: tuple[float, float]) -> list[str]:
    """The Pico with its pins' uses, and the legend."""
    sensors = layout.sensors
    out = []
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
    out.append(
        '<text x="%s" y="%s" font-size="3.5">%s</text>'
        % (
            _f(pico[0] + 12),
            _f(pico[1] + 41),
            "A diagram, not to scale: the Pico's place and every board's are in mechanics.md and on the template.",
        )
    )
    out.append("</g>")
    return out


def drill_csv(layout: Layout, pitch: float | None = None) -> str:
    """Every hole, pocket and channel with its plate, diameter or size, and depth."""
    return drill.drill_csv(layout, pitch)


def template_pdf(layout: Layout, pitch: float | None = None) -> bytes:
    """The drilling template as a one-page PDF of the plates' size; ``template-a4.pdf``
    and ``template-letter.pdf`` tile it onto printer pages."""
    return template_print.template_pdf(layout, pitch)


# -- all files -------------------------------------------------------------------------


def derived_files(layout: Layout) -> dict[str, bytes]:
    """File name (relative to hardware/<board>/) -> contents."""
    # The mechanics place the LED wires and the boards; the power design and the drawings
    # of the circuit are given them (they sit below the mechanics, which uses them).
    feeds = wiring.led_feeds(layout)
    rail = power.rail(layout, feeds)
    spots = board_spots.board_spots(build(layout))
    pcb = pcb_stack.is_pcb_build(build(layout))  # the PCBs replace the perfboard plans
    c = circuit.build(layout)  # once: every electrical file below is drawn from this model
    rows = bom.rows(layout, c)
    return {
        "netlist.txt": netlist.netlist_txt(layout, c).encode(),
        "netlist.net": netlist.kicad_net(layout, c).encode(),
        "bom.csv": bom.render(rows).encode(),
        "cost.md": bom.cost_md(layout, rows, other_bom_rows(layout)).encode(),
        "power.md": power_md(layout, feeds).encode(),
        "schematic.svg": schematic.svg(layout, c, rail).encode(),
        "schematic.pdf": schematic.pdf(layout, c, rail),
        **({} if pcb else {"perfboard.svg": perfboard.svg(layout, c, spots).encode()}),
        "wiring.svg": wiring_svg(layout).encode(),
        "template.svg": template_svg(layout).encode(),
        "template.pdf": template_pdf(layout),
        "drill.csv": drill_csv(layout).encode(),
        **_mechanical_files(layout),
        **_kicad_files(layout),
        **_modules_drawing(layout),
        **_plate_files(layout),
    }


def _modules_drawing(layout: Layout) -> dict[str, bytes]:
    """Where a board's strip PCBs and buttons' PCB hang under P2 (``pcb_fit``)."""
    if layout.sensors["type"] != "hc165":
        return {}
    from zuniboard.hardware import pcb_fit

    svg = pcb_fit.modules_svg(layout)
    return {} if svg is None else {"pcb-modules.svg": svg.encode()}


def _plate_files(layout: Layout) -> dict[str, bytes]:
    """Every plate as a DXF for a laser or CNC service (``zuniboard.hardware.plates_dxf``)."""
    from zuniboard.hardware import plates_dxf

    return plates_dxf.derived_files(layout)


def _kicad_files(layout: Layout) -> dict[str, bytes]:
    """The KiCad projects (``zuniboard.kicad_project``): the hc165 boards only; the diode
    matrix variant stays a perfboard build."""
    if layout.sensors["type"] != "hc165":
        return {}
    from zuniboard.hardware import kicad_lib, kicad_project

    return kicad_project.project_files(layout, kicad_lib.load())


def shared_files() -> dict[str, bytes]:
    """Files of ``hardware/`` itself: the KiCad symbols drawn from the model."""
    from zuniboard.hardware import kicad_project
    from zuniboard.hardware.kicad_lib import LIB_DIR, OWN_LIB

    first = load_layout(layout_paths()[0])
    name = "%s/%s.kicad_sym" % (LIB_DIR.name, OWN_LIB)
    return {name: kicad_project.own_library(circuit.build(first)).encode()}


def _mechanical_files(layout: Layout) -> dict[str, bytes]:
    return {
        "template-a4.pdf": template_print.tiled_pdf(layout, "a4"),
        "template-letter.pdf": template_print.tiled_pdf(layout, "letter"),
        "wiring.csv": wiring.wiring_csv(layout).encode(),
        "assembly.md": (assembly_pcb if pcb_stack.is_pcb_build(build(layout)) else assembly_doc)
        .assembly_md(layout)
        .encode(),
        "mechanics.md": mechanics_doc.mechanics_md(layout).encode(),
        "bom-mechanical.csv": bom_mechanical.bom_mechanical_csv(layout).encode(),
    }


def generate(out_dir: Path = HARDWARE_DIR, check: bool = False) -> list[Path]:
    """Write (or with ``check`` only compare) every derived file; returns the paths that
    changed (with ``check``: that are stale or missing)."""
    changed: list[Path] = []
    for name, data in shared_files().items():
        target = out_dir / name
        if not (target.exists() and target.read_bytes() == data):
            changed.append(target)
            if not check:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    for path in layout_paths():
        layout = load_layout(path)
        folder = out_dir / layout.name
        for name, data in derived_files(layout).items():
            target = folder / name
            if target.exists() and target.read_bytes() == data:
                continue
            changed.append(target)
            if not check:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    return changed
