"""The KiCad symbols and footprints the board's KiCad project uses.

Stock KiCad 9 symbols and footprints are copied (unchanged, derived symbols flattened)
into ``hardware/kicad-lib/`` by ``zuni board kicad-lib``, so that ``zuni board generate``
writes the same files whether or not KiCad is installed; a test compares the copies with
the installed KiCad's. Two parts have no stock symbol with the model's pin numbers (the
TPS2553 load switch and the 5 mm WS2812D-F5, whose leads are numbered DIN, VDD, VSS, DOUT
unlike the 5050 WS2812B's): their symbols are drawn here from the circuit model's pins.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from zuniboard.hardware.circuit import Part
from zuniboard.hardware.kicad_sexpr import Node, Sym, dump, find, find_all, num, parse
from zuniboard.paths import HARDWARE_DIR

LIB_DIR = HARDWARE_DIR / "kicad-lib"
OWN_LIB = "zuniboard"

# The circuit model's part kinds (Part.bom) -> the symbol drawn for them.
SYMBOL_OF = {
    "pico": "MCU_Module:RaspberryPi_Pico",
    "hc165": "74xx:74HC165",
    "ahct125": "74xx:74AHCT125",
    "tps2553": OWN_LIB + ":TPS2553",
    "tps22918": "Power_Management:TPS22917DBV",
    "led": OWN_LIB + ":WS2812D-F5",
    "rn_47k": OWN_LIB + ":R_Network15_Bussed",
    "reed": "Switch:SW_Reed",
    "button": "Switch:SW_Push",
    "c_220u": "Device:C_Polarized",
    "1n4148": "Diode:1N4148",
    "esd": "Device:D_TVS",
}


def symbol_of(part: Part) -> str:
    if part.bom in SYMBOL_OF:
        return SYMBOL_OF[part.bom]
    if part.bom.startswith("r_"):
        return "Device:R"
    if part.bom.startswith("c_"):
        return "Device:C"
    if part.bom.startswith("header_1x"):
        return "Connector_Generic:Conn_01x%02d" % len(part.pins)
    if part.bom.startswith("header_2x"):
        return "Connector_Generic:Conn_02x%02d_Odd_Even" % (len(part.pins) // 2)
    raise KeyError("no symbol for %s (%s)" % (part.ref, part.bom))


STOCK_SYMBOLS = (
    (
        "MCU_Module:RaspberryPi_Pico",
        "74xx:74HC165",
        "74xx:74AHCT125",
        "Device:R",
        "Device:C",
        "Device:C_Polarized",
        "Device:R_Network08",
        "Device:D_TVS",
        "Switch:SW_Reed",
        "Switch:SW_Push",
        "Diode:1N4148",
        "Power_Management:TPS22917DBV",
        "power:PWR_FLAG",
    )
    + tuple("Connector_Generic:Conn_01x%02d" % n for n in range(2, 21))
    + tuple("Connector_Generic:Conn_02x%02d_Odd_Even" % n for n in range(2, 11))
)


class LibraryError(LookupError):
    """A symbol or footprint the project needs is missing from the copies or from KiCad."""


def _extract(lib: list[Node], name: str) -> list[Node]:
    """A symbol of a stock library file, flattened: a derived symbol (``extends``) gets
    its parent's units and pins under its own name and properties."""
    symbols = {str(s[1]): s for s in find_all(lib, "symbol")}
    if name not in symbols:
        raise LibraryError("symbol %s is not in the library" % name)
    sym = copy.deepcopy(symbols[name])
    parent = find(sym, "extends")
    if parent is None:
        return sym
    base = copy.deepcopy(_extract(lib, str(parent[1])))
    own_props = {str(p[1]): p for p in find_all(sym, "property")}
    out: list[Node] = [Sym("symbol"), name]
    for child in base[2:]:
        if isinstance(child, list) and child and child[0] == "property" and str(child[1]) in own_props:
            out.append(own_props.pop(str(child[1])))
        elif isinstance(child, list) and child and child[0] == "symbol":
            unit = str(child[1])
            child[1] = name + unit[len(str(base[1])) :]
            out.append(child)
        else:
            out.append(child)
    # Properties only the derived symbol has go before the units.
    at = next(i for i, c in enumerate(out) if isinstance(c, list) and c and c[0] == "symbol")
    for prop in own_props.values():
        out.insert(at, prop)
        at += 1
    return out


# Footprints of our own, derived from a stock one: name -> (stock footprint, new drill).
# The stock 5 mm RGB LED's 0.9 mm holes in 1.07 mm pads leave a 0.085 mm ring, under any
# fab's minimum; the WS2812D-F5's 0.5 mm leads go through 0.8 mm.
OWN_FOOTPRINTS = {OWN_LIB + ":LED_D5.0mm-4_RGB_D0.8": ("LED_THT:LED_D5.0mm-4_RGB", 0.8)}


def _derived_footprint(text: str, name: str, drill: float) -> bytes:
    tree = parse(text)
    tree[1] = name
    for pad in find_all(tree, "pad"):
        d = find(pad, "drill")
        if d is not None:
            d[1] = num(drill)
    value = next((p for p in find_all(tree, "property") if p[1] == "Value"), None)
    if value is not None:
        value[2] = name
    return (dump(tree) + "\n").encode()


def vendor(kicad_share: Path, footprints: list[str]) -> dict[str, bytes]:
    """The copies under ``hardware/kicad-lib/`` taken from an installed KiCad: one
    ``<Lib>.kicad_sym`` per stock library holding only the symbols used, and the
    footprints' ``.kicad_mod`` files."""
    out: dict[str, bytes] = {}
    by_lib: dict[str, list[str]] = {}
    for lib_id in STOCK_SYMBOLS:
        lib, name = lib_id.split(":")
        by_lib.setdefault(lib, []).append(name)
    for lib, names in sorted(by_lib.items()):
        path = kicad_share / "symbols" / (lib + ".kicad_sym")
        if not path.exists():
            raise LibraryError("%s is missing: install KiCad's symbols (kicad-symbols)" % path)
        tree = parse(path.read_text(encoding="utf-8"))
        head: list[Node] = [c for c in tree if not (isinstance(c, list) and c and c[0] == "symbol")]
        body: list[Node] = [_extract(tree, n) for n in sorted(names)]
        out["%s.kicad_sym" % lib] = (dump(head + body) + "\n").encode()
    for fp in sorted(set(footprints)):
        if fp in OWN_FOOTPRINTS:
            stock, drill = OWN_FOOTPRINTS[fp]
            lib, name = stock.split(":")
            path = kicad_share / "footprints" / (lib + ".pretty") / (name + ".kicad_mod")
            own = fp.split(":")[1]
            out["%s.pretty/%s.kicad_mod" % (OWN_LIB, own)] = _derived_footprint(
                path.read_text(encoding="utf-8"), own, drill
            )
            continue
        lib, name = fp.split(":")
        path = kicad_share / "footprints" / (lib + ".pretty") / (name + ".kicad_mod")
        if not path.exists():
            raise LibraryError("%s is missing: install KiCad's footprints (kicad-footprints)" % path)
        out["%s.pretty/%s.kicad_mod" % (lib, name)] = path.read_bytes()
    return out


@dataclass
class Library:
    """Symbols (lib_id -> flattened symbol, named ``Lib:Name`` as a schematic embeds it)
    and footprints (``Lib:Name`` -> parsed ``.kicad_mod``)."""

    symbols: dict[str, list[Node]]
    footprints: dict[str, list[Node]]

    def symbol(self, lib_id: str) -> list[Node]:
        if lib_id not in self.symbols:
            raise LibraryError("symbol %s is not in %s (run `zuni board kicad-lib`)" % (lib_id, LIB_DIR))
        return self.symbols[lib_id]

    def footprint(self, fp_id: str) -> list[Node]:
        if fp_id not in self.footprints:
            raise LibraryError("footprint %s is not in %s (run `zuni board kicad-lib`)" % (fp_id, LIB_DIR))
        return self.footprints[fp_id]


def load(folder: Path = LIB_DIR) -> Library:
    symbols: dict[str, list[Node]] = {}
    footprints: dict[str, list[Node]] = {}
    if folder.exists():
        for path in sorted(folder.glob("*.kicad_sym")):
            tree = parse(path.read_text(encoding="utf-8"))
            for sym in find_all(tree, "symbol"):
                symbols["%s:%s" % (path.stem, sym[1])] = sym
        for path in sorted(folder.glob("*.pretty/*.kicad_mod")):
            footprints["%s:%s" % (path.parent.stem, path.stem)] = parse(path.read_text(encoding="utf-8"))
    return Library(symbols, footprints)


# -- the project's own symbols, drawn from the model's pins -------------------------------

GRID = 2.54


def _prop(key: str, value: str, x: float, y: float, hide: bool = False) -> list[Node]:
    effects: list[Node] = [Sym("effects"), [Sym("font"), [Sym("size"), Sym("1.27"), Sym("1.27")]]]
    if hide:
        effects.append([Sym("hide"), Sym("yes")])
    return [Sym("property"), key, value, [Sym("at"), num(x), num(y), Sym("0")], effects]


def _pin(kind: str, number: str, name: str, x: float, y: float, angle: int) -> list[Node]:
    font: list[Node] = [Sym("effects"), [Sym("font"), [Sym("size"), Sym("1.27"), Sym("1.27")]]]
    return [
        Sym("pin"),
        Sym(kind),
        Sym("line"),
        [Sym("at"), num(x), num(y), Sym(str(angle))],
        [Sym("length"), Sym("2.54")],
        [Sym("name"), name, copy.deepcopy(font)],
        [Sym("number"), number, copy.deepcopy(font)],
    ]


OWN_DESCRIPTIONS = {
    "TPS2553": "Current-limited load switch with soft start, adjustable limit, active-high enable, SOT-23-6",
    "R_Network15_Bussed": "15 bussed resistors, common on pin 16, SOIC-16 (Bourns 4816P-1)",
    "WS2812D-F5": "RGB LED with WS2812 driver, 5 mm through-hole, leads DIN VDD VSS DOUT",
}


def own_symbol(name: str, part: Part, description: str = "") -> list[Node]:
    """A box symbol for ``part``'s pins: inputs on the left, outputs on the right,
    supply pins on top, ground at the bottom."""
    description = OWN_DESCRIPTIONS.get(name, description or part.value)
    left = [p for p in part.pins if p.kind in ("input",) or p.name in ("IN", "ILIM")]
    top = [p for p in part.pins if p.name in ("VDD", "VCC")]
    bottom = [p for p in part.pins if p.name in ("GND", "VSS")]
    right = [p for p in part.pins if p not in left and p not in top and p not in bottom]
    rows = max(len(left), len(right), 1)
    half_h = (rows + 1) * GRID / 2
    half_h = round(half_h / GRID + 0.49) * GRID
    half_w = 3 * GRID
    body: list[Node] = [
        Sym("symbol"),
        name + "_0_1",
        [
            Sym("rectangle"),
            [Sym("start"), num(-half_w), num(half_h)],
            [Sym("end"), num(half_w), num(-half_h)],
            [Sym("stroke"), [Sym("width"), Sym("0.254")], [Sym("type"), Sym("default")]],
            [Sym("fill"), [Sym("type"), Sym("background")]],
        ],
    ]
    pins: list[Node] = [Sym("symbol"), name + "_1_1"]
    for i, p in enumerate(left):
        pins.append(_pin(p.kind, p.number, p.name, -half_w - GRID, half_h - GRID * (i + 1), 0))
    for i, p in enumerate(right):
        pins.append(_pin(p.kind, p.number, p.name, half_w + GRID, half_h - GRID * (i + 1), 180))
    for i, p in enumerate(top):
        pins.append(_pin(p.kind, p.number, p.name, GRID * i, half_h + GRID, 270))
    for i, p in enumerate(bottom):
        pins.append(_pin(p.kind, p.number, p.name, GRID * i, -half_h - GRID, 90))
    return [
        Sym("symbol"),
        name,
        [Sym("exclude_from_sim"), Sym("no")],
        [Sym("in_bom"), Sym("yes")],
        [Sym("on_board"), Sym("yes")],
        _prop("Reference", "U", -half_w, half_h + 1.27),
        _prop("Value", name, 0, -half_h - 3.81),
        _prop("Footprint", part.footprint.split(" ")[0], 0, 0, True),
        _prop("Datasheet", "", 0, 0, True),
        _prop("Description", description, 0, 0, True),
        body,
        pins,
    ]
