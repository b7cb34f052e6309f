"""A KiCad 9 schematic of a board's circuit (``circuit.build``), written from the model.

The root sheet ``<board>.kicad_sch`` holds one sheet symbol per sub-sheet: the controller
and power, one sheet per 74HC165 with its pull-ups and its eight reed switches (or the
diode matrix), and the LED chain in sheets of 24. Every symbol is a stock KiCad symbol
(copied into ``hardware/kicad-lib/``, embedded in each sheet as KiCad does) except the two
the library lacks (``kicad_lib.own_symbol``). Every pin ends in a global label naming its
net, or a no-connect flag: so the netlist KiCad exports from this schematic is the model's,
net for net, which a test checks (``kicad-cli sch export netlist``), and ``kicad-cli sch
erc`` runs over it.
"""

from __future__ import annotations

import math
import re
import uuid
from dataclasses import dataclass, field

from zuniboard.hardware.circuit import FIRST_HC165, Circuit, Part
from zuniboard.hardware.kicad_lib import OWN_LIB, Library, own_symbol, symbol_of
from zuniboard.hardware.kicad_sexpr import Node, Sym, dump, find, find_all, num, to_float

SCH_VERSION = "20250114"
GRID = 2.54
LEDS_PER_SHEET = 24
PAPERS = (("A4", 297.0, 210.0), ("A3", 420.0, 297.0), ("A2", 594.0, 420.0), ("A1", 841.0, 594.0))


def stable_uuid(*names: str) -> str:
    """The same UUID for the same thing in every run: KiCad links the PCB's footprints to
    the schematic's symbols by these."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "zuniboard/" + "/".join(names)))


@dataclass(frozen=True)
class SymbolPin:
    number: str
    name: str
    kind: str
    x: float  # connection point, symbol coordinates (y up)
    y: float
    angle: int  # the pin's direction from its connection point towards the body


@dataclass
class SheetPlan:
    """One sub-sheet: its name, file and the parts on it."""

    name: str
    file: str
    refs: list[str] = field(default_factory=list)


def symbol_units(sym: list[Node]) -> dict[int, list[SymbolPin]]:
    """Unit number -> its pins (unit 0's pins belong to every unit); body style 2
    (De Morgan) is skipped."""
    units: dict[int, list[SymbolPin]] = {}
    common: list[SymbolPin] = []
    for sub in find_all(sym, "symbol"):
        unit, style = (int(x) for x in str(sub[1]).rsplit("_", 2)[1:])
        if style not in (0, 1):
            continue
        pins = []
        for p in find_all(sub, "pin"):
            at = find(p, "at")
            name = find(p, "name")
            number = find(p, "number")
            assert at is not None and name is not None and number is not None
            pins.append(
                SymbolPin(
                    str(number[1]), str(name[1]), str(p[1]), to_float(at[1]), to_float(at[2]), int(to_float(at[3]))
                )
            )
        if unit == 0:
            common += pins
        else:
            units.setdefault(unit, []).extend(pins)
    if not units:
        units[1] = []
    for unit in units:
        units[unit] = common + units[unit]
    return units


def sheets(c: Circuit) -> list[SheetPlan]:
    plans = [SheetPlan("controller", "controller.kicad_sch")]
    chips: dict[str, SheetPlan] = {}
    leds: list[SheetPlan] = []
    for ref, part in c.parts.items():
        if part.sheet == "controller":
            plans[0].refs.append(ref)
        elif part.sheet == "sensors":
            key = _sensor_group(c, part)
            if key not in chips:
                chips[key] = SheetPlan("sensors %s" % key, "sensors-%s.kicad_sch" % key.lower())
            chips[key].refs.append(ref)
        else:
            index = _led_index(ref)
            sheet = index // LEDS_PER_SHEET
            while len(leds) <= sheet:
                first = len(leds) * LEDS_PER_SHEET
                leds.append(
                    SheetPlan("LEDs %d-%d" % (first, first + LEDS_PER_SHEET - 1), "leds-%d.kicad_sch" % len(leds))
                )
            leds[sheet].refs.append(ref)
    return plans + list(chips.values()) + leds


def _led_index(ref: str) -> int:
    digits = "".join(ch for ch in ref if ch.isdigit())
    return int(digits) if digits else 0


def _sensor_group(c: Circuit, part: Part) -> str:
    """The chip a sensor part belongs to (U10, U11, ...), or the matrix row."""
    if part.ref.startswith(("U", "RN", "C")):
        return "U" + "".join(ch for ch in part.ref if ch.isdigit())
    for pin in part.pins:
        net = c.net_of(part.ref, pin.number)
        for ref, _ in c.nets.get(net or "", []):
            if re.fullmatch(r"U\d+", ref) and int(ref[1:]) >= FIRST_HC165:
                return ref
            if ref == "U1" and net and net.startswith("ROW"):
                return net
    # matrix: the diode's row, found through its cathode
    for pin in part.pins:
        net = c.net_of(part.ref, pin.number) or ""
        for ref, _ in c.nets.get(net, []):
            if ref.startswith("D_"):
                row = c.net_of(ref, "1")
                if row:
                    return row
    return "misc"


def _font(size: float = 1.27) -> list[Node]:
    return [Sym("effects"), [Sym("font"), [Sym("size"), num(size), num(size)]]]


def _hidden_font() -> list[Node]:
    f = _font()
    f.append([Sym("hide"), Sym("yes")])
    return f


def _prop(key: str, value: str, x: float, y: float, hide: bool = False) -> list[Node]:
    return [Sym("property"), key, value, [Sym("at"), num(x), num(y), Sym("0")], _hidden_font() if hide else _font()]


def _label_angle(pin_angle: int) -> int:
    """A label at a pin's end points away from the symbol."""
    return {0: 180, 180: 0, 90: 270, 270: 90}[pin_angle % 360]


@dataclass
class _Placed:
    ref: str
    unit: int
    x: float
    y: float


class SchematicWriter:
    """Writes every sheet of one board."""

    def __init__(self, project: str, c: Circuit, lib: Library) -> None:
        self.project = project
        self.c = c
        self.lib = lib
        self.root_uuid = stable_uuid(project, "root")
        self._symbols: dict[str, list[Node]] = {}

    def lib_symbol(self, part: Part) -> tuple[str, list[Node]]:
        lib_id = symbol_of(part)
        if lib_id not in self._symbols:
            if lib_id.startswith(OWN_LIB + ":"):
                sym = own_symbol(lib_id.split(":")[1], part, part.description)
            else:
                sym = self.lib.symbol(lib_id)
            named = [Sym("symbol"), lib_id] + list(sym[2:])
            self._symbols[lib_id] = named
        return lib_id, self._symbols[lib_id]

    def power_flags(self) -> list[str]:
        """Nets with a power input but no power output among this schematic's symbols:
        their supply comes through the cable, which ERC must be told (a PWR_FLAG)."""
        kinds: dict[str, set[str]] = {}
        for ref, part in self.c.parts.items():
            _, sym = self.lib_symbol(part)
            for pins in symbol_units(sym).values():
                for p in pins:
                    net = self.c.net_of(ref, p.number)
                    if net is not None:
                        kinds.setdefault(net, set()).add(p.kind)
        return sorted(n for n, k in kinds.items() if "power_in" in k and "power_out" not in k)

    def files(self) -> dict[str, str]:
        plans = sheets(self.c)
        out = {"%s.kicad_sch" % self.project: self._root(plans)}
        for page, plan in enumerate(plans, 2):
            out[plan.file] = self._sheet(plan, page)
        return out

    # -- root -----------------------------------------------------------------------------

    def _root(self, plans: list[SheetPlan]) -> str:
        items: list[Node] = []
        per_row = 4
        for i, plan in enumerate(plans):
            col, row = i % per_row, i // per_row
            x, y = 25.4 + col * 66.04, 38.1 + row * 30.48
            sheet_uuid = stable_uuid(self.project, "sheet", plan.file)
            items.append(
                [
                    Sym("sheet"),
                    [Sym("at"), num(x), num(y)],
                    [Sym("size"), num(50.8), num(15.24)],
                    [Sym("exclude_from_sim"), Sym("no")],
                    [Sym("in_bom"), Sym("yes")],
                    [Sym("on_board"), Sym("yes")],
                    [Sym("dnp"), Sym("no")],
                    [Sym("fields_autoplaced"), Sym("yes")],
                    [Sym("stroke"), [Sym("width"), Sym("0.1524")], [Sym("type"), Sym("solid")]],
                    [Sym("fill"), [Sym("color"), Sym("0"), Sym("0"), Sym("0"), Sym("0.0000")]],
                    [Sym("uuid"), sheet_uuid],
                    [Sym("property"), "Sheetname", plan.name, [Sym("at"), num(x), num(y - 0.7112), Sym("0")],
                     [Sym("effects"), [Sym("font"), [Sym("size"), Sym("1.27"), Sym("1.27")]],
                      [Sym("justify"), Sym("left"), Sym("bottom")]]],
                    [Sym("property"), "Sheetfile", plan.file, [Sym("at"), num(x), num(y + 15.8242), Sym("0")],
                     [Sym("effects"), [Sym("font"), [Sym("size"), Sym("1.27"), Sym("1.27")]],
                      [Sym("justify"), Sym("left"), Sym("top")]]],
                    [Sym("instances"), [Sym("project"), self.project,
                                        [Sym("path"), "/" + self.root_uuid, [Sym("page"), str(i + 2)]]]],
                ]
            )  # fmt: skip
        text: list[Node] = [
            Sym("text"),
            "%s: %s. Generated by `zuni board generate` from the circuit model; do not edit." % (
                self.project, self.c.title),
            [Sym("exclude_from_sim"), Sym("no")],
            [Sym("at"), num(25.4), num(25.4), Sym("0")],
            [Sym("effects"), [Sym("font"), [Sym("size"), Sym("2"), Sym("2")]], [Sym("justify"), Sym("left")]],
            [Sym("uuid"), stable_uuid(self.project, "root-text")],
        ]  # fmt: skip
        rows = math.ceil(len(plans) / per_row)
        paper = "A4" if rows <= 5 else "A3"
        tree: list[Node] = [
            Sym("kicad_sch"),
            [Sym("version"), Sym(SCH_VERSION)],
            [Sym("generator"), "zuniboard"],
            [Sym("generator_version"), "9.0"],
            [Sym("uuid"), self.root_uuid],
            [Sym("paper"), paper],
            self._title_block("overview"),
            [Sym("lib_symbols")],
            text,
            *items,
            [Sym("sheet_instances"), [Sym("path"), "/", [Sym("page"), "1"]]],
            [Sym("embedded_fonts"), Sym("no")],
        ]
        return dump(tree) + "\n"

    def _title_block(self, what: str) -> list[Node]:
        return [
            Sym("title_block"),
            [Sym("title"), "%s: %s" % (self.project, what)],
            [Sym("company"), "zuniboard"],
            [Sym("comment"), Sym("1"), "Generated from hardware/layouts/%s.json by zuni board generate" % self.project],
            [Sym("comment"), Sym("2"), "Licence: CERN-OHL-S-2.0 (hardware/LICENSE)"],
        ]

    # -- sub-sheets -----------------------------------------------------------------------

    def _sheet(self, plan: SheetPlan, page: int) -> str:
        sheet_uuid = stable_uuid(self.project, "sheet", plan.file)
        path = "/%s/%s" % (self.root_uuid, sheet_uuid)
        placed, width, height = self._place(plan)
        paper = next((p for p in PAPERS if p[1] >= width and p[2] >= height), PAPERS[-1])
        used: dict[str, list[Node]] = {}
        items: list[Node] = []
        for pl in placed:
            part = self.c.parts[pl.ref]
            lib_id, sym = self.lib_symbol(part)
            used[lib_id] = sym
            items += self._instance(part, lib_id, sym, pl, path)
        if page == 2:
            flags = self.power_flags()
            if flags:
                flag_sym: list[Node] = [Sym("symbol"), "power:PWR_FLAG"]
                flag_sym += self.lib.symbol("power:PWR_FLAG")[2:]
                used["power:PWR_FLAG"] = flag_sym
                for k, net in enumerate(flags):
                    items += self._flag(net, k, 20.32 + 25.4 * k, height - 20.32, path)
        tree: list[Node] = [
            Sym("kicad_sch"),
            [Sym("version"), Sym(SCH_VERSION)],
            [Sym("generator"), "zuniboard"],
            [Sym("generator_version"), "9.0"],
            [Sym("uuid"), stable_uuid(self.project, "file", plan.file)],
            [Sym("paper"), paper[0]],
            self._title_block(plan.name),
            [Sym("lib_symbols"), *[used[k] for k in sorted(used)]],
            *items,
        ]
        return dump(tree) + "\n"

    def _flag(self, net: str, k: int, x: float, y: float, path: str) -> list[Node]:
        ref = "#FLG%02d" % (k + 1)
        x, y = _snap(x), _snap(y)
        flag: list[Node] = [
            Sym("symbol"),
            [Sym("lib_id"), "power:PWR_FLAG"],
            [Sym("at"), num(x), num(y), Sym("0")],
            [Sym("unit"), Sym("1")],
            [Sym("exclude_from_sim"), Sym("no")],
            [Sym("in_bom"), Sym("yes")],
            [Sym("on_board"), Sym("yes")],
            [Sym("dnp"), Sym("no")],
            [Sym("uuid"), stable_uuid(self.project, "flag", net)],
            _prop("Reference", ref, x, y - 5.08, True),
            _prop("Value", "PWR_FLAG", x, y - 3.81),
            _prop("Footprint", "", x, y, True),
            _prop("Datasheet", "~", x, y, True),
            _prop("Description", "power comes through the cable", x, y, True),
            [Sym("pin"), "1", [Sym("uuid"), stable_uuid(self.project, "flag-pin", net)]],
            [Sym("instances"), [Sym("project"), self.project,
                                [Sym("path"), path, [Sym("reference"), ref], [Sym("unit"), Sym("1")]]]],
        ]  # fmt: skip
        label: list[Node] = [
            Sym("global_label"),
            net,
            [Sym("shape"), Sym("passive")],
            [Sym("at"), num(x), num(y), Sym("270")],
            [Sym("fields_autoplaced"), Sym("yes")],
            [Sym("effects"), [Sym("font"), [Sym("size"), Sym("1.27"), Sym("1.27")]], [Sym("justify"), Sym("right")]],
            [Sym("uuid"), stable_uuid(self.project, "flag-label", net)],
            [Sym("property"), "Intersheetrefs", "${INTERSHEET_REFS}", [Sym("at"), num(x), num(y), Sym("0")],
             _hidden_font()],
        ]  # fmt: skip
        return [flag, label]

    def _extent(self, part: Part) -> tuple[float, float, float, float, int]:
        """Left, right, top, bottom reach of all of a part's units side by side (labels
        included), and the number of units."""
        _, sym = self.lib_symbol(part)
        units = symbol_units(sym)
        xs: list[float] = []
        ys: list[float] = []
        for pins in units.values():
            for p in pins:
                net = self.c.net_of(part.ref, p.number) or ""
                reach = 2.54 + 1.0 * len(net) if net else 2.54
                dx, dy = {0: (-reach, 0), 180: (reach, 0), 90: (0, -reach), 270: (0, reach)}[p.angle % 360]
                xs += [p.x, p.x + dx]
                ys += [p.y, p.y + dy]
        if not xs:
            xs, ys = [-5.08, 5.08], [-5.08, 5.08]
        return min(xs) - 2.54, max(xs) + 2.54, max(ys) + 5.08, min(ys) - 5.08, len(units)

    def _place(self, plan: SheetPlan) -> tuple[list[_Placed], float, float]:
        """Symbols in rows, left to right; returns the placements and the sheet's size."""
        boxes = []
        for ref in plan.refs:
            part = self.c.parts[ref]
            left, right, top, bottom, n_units = self._extent(part)
            for unit in range(1, n_units + 1):
                boxes.append((ref, unit, left, right, top, bottom))
        total = sum((b[3] - b[2]) * (b[4] - b[5]) for b in boxes)
        row_width = max(250.0, math.sqrt(total * 1.6) * 1.3)
        placed: list[_Placed] = []
        x, y, row_h, max_x = 20.32, 30.48, 0.0, 0.0
        for ref, unit, left, right, top, bottom in boxes:
            w, h = right - left, top - bottom
            if x + w > row_width and x > 20.32:
                x, y, row_h = 20.32, y + row_h + 5.08, 0.0
            sx = _snap(x - left)
            sy = _snap(y + top)
            placed.append(_Placed(ref, unit, sx, sy))
            x += w + 5.08
            row_h = max(row_h, h)
            max_x = max(max_x, x)
        return placed, max_x + 20.0, y + row_h + 40.0

    def _instance(self, part: Part, lib_id: str, sym: list[Node], pl: _Placed, path: str) -> list[Node]:
        units = symbol_units(sym)
        sym_uuid = stable_uuid(self.project, "symbol", part.ref, str(pl.unit))
        props = {str(p[1]): p for p in find_all(sym, "property")}
        desc = part.description
        value = part.value
        fp = part.footprint.split(" ")[0]
        out_props = [
            _prop("Reference", part.ref, pl.x + 2.54, pl.y - _top_of(units[pl.unit]) - 1.27),
            _prop("Value", value, pl.x + 2.54, pl.y + 1.27 - _bottom_of(units[pl.unit])),
            _prop("Footprint", fp, pl.x, pl.y, True),
            _prop("Datasheet", _text(props.get("Datasheet")), pl.x, pl.y, True),
            _prop("Description", desc, pl.x, pl.y, True),
        ]
        inst: list[Node] = [
            Sym("symbol"),
            [Sym("lib_id"), lib_id],
            [Sym("at"), num(pl.x), num(pl.y), Sym("0")],
            [Sym("unit"), Sym(str(pl.unit))],
            [Sym("exclude_from_sim"), Sym("no")],
            [Sym("in_bom"), Sym("yes")],
            [Sym("on_board"), Sym("yes")],
            [Sym("dnp"), Sym("no")],
            [Sym("uuid"), sym_uuid],
            *out_props,
        ]
        for p in units[pl.unit]:
            inst.append([Sym("pin"), p.number, [Sym("uuid"), stable_uuid(self.project, "pin", part.ref, p.number)]])
        inst.append(
            [
                Sym("instances"),
                [
                    Sym("project"),
                    self.project,
                    [Sym("path"), path, [Sym("reference"), part.ref], [Sym("unit"), Sym(str(pl.unit))]],
                ],
            ]
        )
        return [inst, *self._pin_labels(part, units[pl.unit], pl)]

    def _pin_labels(self, part: Part, pins: list[SymbolPin], pl: _Placed) -> list[Node]:
        """A global label with its net at every connected pin, a no-connect flag at the others."""
        items: list[Node] = []
        for p in pins:
            x, y = pl.x + p.x, pl.y - p.y
            net = self.c.net_of(part.ref, p.number)
            if net is None:
                items.append(
                    [
                        Sym("no_connect"),
                        [Sym("at"), num(x), num(y)],
                        [Sym("uuid"), stable_uuid(self.project, "nc", part.ref, p.number)],
                    ]
                )
                continue
            angle = _label_angle(p.angle)
            justify = "right" if angle in (180, 270) else "left"
            items.append(
                [
                    Sym("global_label"),
                    net,
                    [Sym("shape"), Sym("passive")],
                    [Sym("at"), num(x), num(y), Sym(str(angle))],
                    [Sym("fields_autoplaced"), Sym("yes")],
                    [Sym("effects"), [Sym("font"), [Sym("size"), Sym("1.27"), Sym("1.27")]],
                     [Sym("justify"), Sym(justify)]],
                    [Sym("uuid"), stable_uuid(self.project, "label", part.ref, p.number)],
                    [Sym("property"), "Intersheetrefs", "${INTERSHEET_REFS}", [Sym("at"), num(x), num(y), Sym("0")],
                     _hidden_font()],
                ]
            )  # fmt: skip
        return items


def _text(prop: list[Node] | None) -> str:
    return str(prop[2]) if prop is not None else ""


def _top_of(pins: list[SymbolPin]) -> float:
    return max((p.y for p in pins), default=5.08)


def _bottom_of(pins: list[SymbolPin]) -> float:
    return min((p.y for p in pins), default=-5.08)


def _snap(v: float) -> float:
    return round(v / GRID) * GRID


def files(project: str, c: Circuit, lib: Library) -> dict[str, str]:
    """File name -> text of every sheet (the root first)."""
    return SchematicWriter(project, c, lib).files()
