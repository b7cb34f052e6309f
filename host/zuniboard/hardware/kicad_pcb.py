"""Writes a ``.kicad_pcb`` from a placed and routed board (``pcb_layout.Board``): the
stock footprints at their places with their nets, the tracks and vias, the outline and
mounting holes, and the design rules of the fab (``FAB``) in the ``.kicad_pro``.

Pure text generation: nothing here needs KiCad installed.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass

from zuniboard.hardware.kicad_lib import Library
from zuniboard.hardware.kicad_sch import stable_uuid
from zuniboard.hardware.kicad_sexpr import Node, Sym, dump, find, find_all, num, to_float

PCB_VERSION = "20241229"


@dataclass(frozen=True)
class FabRules:
    """The design rules every board is drawn to: inside the published minimums of the
    common low-cost 2-layer fabs (0.127 mm track and space, 0.3 mm via drill, 0.15 mm via
    ring, 0.25 mm PTH ring), with margin."""

    clearance: float = 0.2
    track: float = 0.25
    power_track: float = 0.6
    via_diameter: float = 0.6
    via_drill: float = 0.3
    # 0.13 mm: the fabs' minimum ring; the 5 mm LED's 1.27 mm lead pitch leaves no more
    # (its pads are 1.07 mm wide over a 0.8 mm hole).
    min_annular: float = 0.13
    min_hole: float = 0.3
    edge_clearance: float = 0.5
    hole_to_hole: float = 0.25
    silk_min: float = 0.15
    thickness: float = 1.6


FAB = FabRules()


@dataclass(frozen=True)
class Placement:
    """One footprint on the board: top side, rotation in degrees (counter-clockwise as
    KiCad shows it)."""

    ref: str
    footprint: str
    value: str
    x: float
    y: float
    rot: float
    path: str  # "/<sheet uuid>/<symbol uuid>": the schematic symbol this footprint is
    sheet_name: str
    sheet_file: str
    description: str
    exclude_from_bom: bool = False


@dataclass(frozen=True)
class Track:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float
    layer: str  # "F.Cu" or "B.Cu"
    net: str


@dataclass(frozen=True)
class Via:
    x: float
    y: float
    net: str


@dataclass(frozen=True)
class Hole:
    x: float
    y: float
    diameter: float


def rotate(x: float, y: float, rot: float) -> tuple[float, float]:
    """A footprint-local offset turned by the footprint's rotation (KiCad: y down,
    angles counter-clockwise on screen)."""
    a = math.radians(rot)
    return (x * math.cos(a) + y * math.sin(a), -x * math.sin(a) + y * math.cos(a))


def _at(node: list[Node]) -> list[Node] | None:
    return find(node, "at")


def footprint_node(
    lib: Library, p: Placement, nets: dict[str, str], net_codes: dict[str, int], project: str
) -> list[Node]:
    """The library footprint placed: position, rotation, the symbol's path, the pads'
    nets (``nets``: pad number -> net name)."""
    src = copy.deepcopy(lib.footprint(p.footprint))
    out: list[Node] = [Sym("footprint"), p.footprint]
    rot_node: list[Node] = [Sym("at"), num(p.x), num(p.y)]
    if p.rot:
        rot_node.append(num(p.rot))
    out += [[Sym("layer"), "F.Cu"], [Sym("uuid"), stable_uuid(project, "fp", p.ref)], rot_node]
    for child in src[2:]:
        placed = _placed_child(child, p, nets, net_codes, project, len(out))
        if placed is not None:
            out.append(placed)
    _add_schematic_path(out, p)
    return out


def _placed_child(
    child: Node, p: Placement, nets: dict[str, str], net_codes: dict[str, int], project: str, index: int
) -> list[Node] | None:
    """A node of the library footprint as placed (turned with it; a pad with its net and a
    uuid from ``index``, its place in the output), or None for those left out."""
    if not isinstance(child, list) or not child:
        return None
    head = child[0]
    if head in ("version", "generator", "generator_version", "layer"):
        return None
    if head == "zone" and p.footprint.startswith("Module:RaspberryPi_Pico"):
        # The Pico W's antenna keep-out: this board uses the plain Pico (no radio).
        return None
    if head == "property":
        key = str(child[1])
        if key == "Reference":
            child[2] = p.ref
        elif key == "Value":
            child[2] = p.value
        elif key == "Description":
            child[2] = p.description
        at = _at(child)
        if at is not None:
            # property positions are stored turned with the footprint
            ang = to_float(at[3]) if len(at) > 3 else 0.0
            at[3:] = [num(ang + p.rot)] if (ang + p.rot) % 360 else []
        return child
    if head == "pad":
        number = str(child[1])
        at = _at(child)
        assert at is not None
        ang = to_float(at[3]) if len(at) > 3 else 0.0
        total = (ang + p.rot) % 360
        at[3:] = [num(total)] if total else []
        net = nets.get(number)
        if net is not None and number:
            pos = next(i for i, c in enumerate(child) if isinstance(c, list) and c[0] == "layers")
            child.insert(pos + 1, [Sym("net"), Sym(str(net_codes[net])), net])
        child.append([Sym("uuid"), stable_uuid(project, "pad", p.ref, number, str(index))])
        return child
    if head in ("fp_text",):
        at = _at(child)
        if at is not None:
            ang = to_float(at[3]) if len(at) > 3 else 0.0
            at[3:] = [num(ang + p.rot)] if (ang + p.rot) % 360 else []
    return child


def _add_schematic_path(out: list[Node], p: Placement) -> None:
    """Where the footprint comes from in the schematic (parity check), after the
    properties as KiCad keeps it; and its BOM flag."""
    extra: list[Node] = [
        [Sym("path"), p.path],
        [Sym("sheetname"), p.sheet_name],
        [Sym("sheetfile"), p.sheet_file],
    ]
    last_prop = max(i for i, c in enumerate(out) if isinstance(c, list) and c and c[0] == "property")
    for k, node in enumerate(extra):
        out.insert(last_prop + 1 + k, node)
    attr = find(out, "attr")
    if p.exclude_from_bom and attr is not None and Sym("exclude_from_bom") not in attr:
        attr.append(Sym("exclude_from_bom"))


def _layers() -> list[Node]:
    names = [
        (0, "F.Cu", "signal", None),
        (2, "B.Cu", "signal", None),
        (9, "F.Adhes", "user", "F.Adhesive"),
        (11, "B.Adhes", "user", "B.Adhesive"),
        (13, "F.Paste", "user", None),
        (15, "B.Paste", "user", None),
        (5, "F.SilkS", "user", "F.Silkscreen"),
        (7, "B.SilkS", "user", "B.Silkscreen"),
        (1, "F.Mask", "user", None),
        (3, "B.Mask", "user", None),
        (17, "Dwgs.User", "user", "User.Drawings"),
        (19, "Cmts.User", "user", "User.Comments"),
        (21, "Eco1.User", "user", "User.Eco1"),
        (23, "Eco2.User", "user", "User.Eco2"),
        (25, "Edge.Cuts", "user", None),
        (27, "Margin", "user", None),
        (31, "F.CrtYd", "user", "F.Courtyard"),
        (29, "B.CrtYd", "user", "B.Courtyard"),
        (35, "F.Fab", "user", None),
        (33, "B.Fab", "user", None),
    ]
    out: list[Node] = [Sym("layers")]
    for number, name, kind, user in names:
        entry: list[Node] = [Sym(str(number)), name, Sym(kind)]
        if user:
            entry.append(user)
        out.append(entry)
    return out


def _stroke(width: float) -> list[Node]:
    return [Sym("stroke"), [Sym("width"), num(width)], [Sym("type"), Sym("default")]]


def board_text(
    project: str,
    lib: Library,
    width: float,
    height: float,
    placements: list[Placement],
    pad_nets: dict[str, dict[str, str]],
    tracks: list[Track],
    vias: list[Via],
    holes: list[Hole],
    texts: list[tuple[float, float, str, str]],
    title: str,
    outline: list[tuple[float, float]] | None = None,
) -> str:
    """The whole ``.kicad_pcb``. ``pad_nets``: ref -> pad number -> net;
    ``texts``: (x, y, layer, text)."""
    codes = _net_codes(pad_nets, tracks)
    names = sorted(codes)
    tree: list[Node] = [
        Sym("kicad_pcb"),
        [Sym("version"), Sym(PCB_VERSION)],
        [Sym("generator"), "zuniboard"],
        [Sym("generator_version"), "9.0"],
        [Sym("general"), [Sym("thickness"), num(FAB.thickness)], [Sym("legacy_teardrops"), Sym("no")]],
        [Sym("paper"), "User", num(max(width + 40, 297)), num(max(height + 40, 210))],
        [Sym("title_block"), [Sym("title"), title], [Sym("company"), "zuniboard"],
         [Sym("comment"), Sym("1"), "Generated by zuni board generate; do not edit"],
         [Sym("comment"), Sym("2"), "Licence: CERN-OHL-S-2.0 (hardware/LICENSE)"]],
        _layers(),
        [Sym("setup"), [Sym("pad_to_mask_clearance"), Sym("0")],
         [Sym("allow_soldermask_bridges_in_footprints"), Sym("no")],
         [Sym("tenting"), Sym("front"), Sym("back")],
         [Sym("aux_axis_origin"), num(0), num(0)]],
        [Sym("net"), Sym("0"), ""],
    ]  # fmt: skip
    for name in names:
        tree.append([Sym("net"), Sym(str(codes[name])), name])
    for p in placements:
        tree.append(footprint_node(lib, p, pad_nets.get(p.ref, {}), codes, project))
    if outline:  # a polygon (the strips' combs of cells)
        edge: list[Node] = [Sym("gr_poly"), [Sym("pts")] + [[Sym("xy"), num(x), num(y)] for x, y in outline]]
    else:
        edge = [Sym("gr_rect"), [Sym("start"), num(0), num(0)], [Sym("end"), num(width), num(height)]]
    tree.append(edge + [_stroke(0.1), [Sym("fill"), Sym("no")], [Sym("layer"), "Edge.Cuts"],
                        [Sym("uuid"), stable_uuid(project, "edge")]])  # fmt: skip
    for i, (x, y, layer, text) in enumerate(texts):
        tree.append(_text_node(project, i, x, y, layer, text))
    for i, h in enumerate(holes):
        tree.append(_hole(project, i, h))
    for i, t in enumerate(tracks):
        tree.append(_track_node(project, i, t, codes))
    for i, v in enumerate(vias):
        tree.append(_via_node(project, i, v, codes))
    tree.append([Sym("embedded_fonts"), Sym("no")])
    return dump(tree) + "\n"


def _net_codes(pad_nets: dict[str, dict[str, str]], tracks: list[Track]) -> dict[str, int]:
    """Net name -> its number in the board file: every net of a pad or a track, sorted."""
    names: list[str] = []
    for ref in sorted(pad_nets):
        for net in pad_nets[ref].values():
            if net not in names:
                names.append(net)
    for t in tracks:
        if t.net not in names:
            names.append(t.net)
    names.sort()
    return {name: i for i, name in enumerate(names, 1)}


def _text_node(project: str, i: int, x: float, y: float, layer: str, text: str) -> list[Node]:
    return [
        Sym("gr_text"),
        text,
        [Sym("at"), num(x), num(y), Sym("0")],
        [Sym("layer"), layer],
        [Sym("uuid"), stable_uuid(project, "text", str(i))],
        [
            Sym("effects"),
            [Sym("font"), [Sym("size"), num(1.5), num(1.5)], [Sym("thickness"), num(0.25)]],
            _justify(layer),
        ],
    ]


def _track_node(project: str, i: int, t: Track, codes: dict[str, int]) -> list[Node]:
    return [
        Sym("segment"),
        [Sym("start"), num(t.x1), num(t.y1)],
        [Sym("end"), num(t.x2), num(t.y2)],
        [Sym("width"), num(t.width)],
        [Sym("layer"), t.layer],
        [Sym("net"), Sym(str(codes[t.net]))],
        [Sym("uuid"), stable_uuid(project, "track", str(i))],
    ]


def _via_node(project: str, i: int, v: Via, codes: dict[str, int]) -> list[Node]:
    return [
        Sym("via"),
        [Sym("at"), num(v.x), num(v.y)],
        [Sym("size"), num(FAB.via_diameter)],
        [Sym("drill"), num(FAB.via_drill)],
        [Sym("layers"), "F.Cu", "B.Cu"],
        [Sym("net"), Sym(str(codes[v.net]))],
        [Sym("uuid"), stable_uuid(project, "via", str(i))],
    ]


def _justify(layer: str) -> list[Node]:
    out: list[Node] = [Sym("justify"), Sym("left")]
    if layer.startswith("B."):
        out.append(Sym("mirror"))
    return out


def _hole(project: str, i: int, h: Hole) -> list[Node]:
    """A plain (unplated) mounting hole as a footprint of its own, outside the BOM."""
    return [
        Sym("footprint"),
        "MountingHole:MountingHole_%.1fmm" % h.diameter,
        [Sym("layer"), "F.Cu"],
        [Sym("uuid"), stable_uuid(project, "hole", str(i))],
        [Sym("at"), num(h.x), num(h.y)],
        [Sym("property"), "Reference", "H%d" % (i + 1), [Sym("at"), num(0), num(-h.diameter), Sym("0")],
         [Sym("layer"), "F.Fab"], [Sym("hide"), Sym("yes")],
         [Sym("effects"), [Sym("font"), [Sym("size"), num(1), num(1)], [Sym("thickness"), num(0.15)]]]],
        [Sym("property"), "Value", "hole", [Sym("at"), num(0), num(h.diameter), Sym("0")],
         [Sym("layer"), "F.Fab"], [Sym("hide"), Sym("yes")],
         [Sym("effects"), [Sym("font"), [Sym("size"), num(1), num(1)], [Sym("thickness"), num(0.15)]]]],
        [Sym("attr"), Sym("exclude_from_pos_files"), Sym("exclude_from_bom"), Sym("board_only")],
        [Sym("fp_circle"), [Sym("center"), num(0), num(0)], [Sym("end"), num(h.diameter / 2 + 0.5), num(0)],
         _stroke(0.05), [Sym("fill"), Sym("no")], [Sym("layer"), "F.CrtYd"],
         [Sym("uuid"), stable_uuid(project, "hole-crtyd", str(i))]],
        [Sym("pad"), "", Sym("np_thru_hole"), Sym("circle"), [Sym("at"), num(0), num(0)],
         [Sym("size"), num(h.diameter), num(h.diameter)], [Sym("drill"), num(h.diameter)],
         [Sym("layers"), "*.Cu", "*.Mask"], [Sym("uuid"), stable_uuid(project, "hole-pad", str(i))]],
    ]  # fmt: skip


def project_json(project: str) -> str:
    """The ``.kicad_pro``: the fab's rules as the board's design rules and net classes
    (KiCad's DRC reads them from here)."""
    data = {
        "board": {
            "design_settings": {
                "defaults": {"board_outline_line_width": 0.1, "copper_line_width": 0.2},
                "rule_severities": {
                    # The stock footprints' own silkscreen and the parts' courtyards are
                    # KiCad's business; these are warnings, reported but not errors.
                    "silk_overlap": "warning",
                    "silk_over_copper": "warning",
                    "silk_edge_clearance": "warning",
                    "lib_footprint_issues": "ignore",
                    "lib_footprint_mismatch": "ignore",
                },
                "rules": _design_rules(),
                "track_widths": [0.0, FAB.track, FAB.power_track],
                "via_dimensions": [
                    {"diameter": 0.0, "drill": 0.0},
                    {"diameter": FAB.via_diameter, "drill": FAB.via_drill},
                ],
            }
        },
        "meta": {"filename": "%s.kicad_pro" % project, "version": 3},
        "net_settings": {
            "classes": [
                _default_net_class(),
            ],
            "meta": {"version": 4},
        },
        "schematic": {"legacy_lib_dir": "", "legacy_lib_list": []},
        "sheets": [],
    }
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def _design_rules() -> dict[str, float | bool]:
    """The fab's rules as KiCad's board design rules."""
    return {
        "min_clearance": FAB.clearance,
        "min_connection": 0.0,
        "min_copper_edge_clearance": FAB.edge_clearance,
        "min_hole_clearance": 0.25,
        "min_hole_to_hole": FAB.hole_to_hole,
        "min_microvia_diameter": 0.2,
        "min_microvia_drill": 0.1,
        "min_resolved_spokes": 2,
        "min_silk_clearance": 0.0,
        "min_text_height": 0.8,
        "min_text_thickness": 0.08,
        "min_through_hole_diameter": FAB.min_hole,
        "min_track_width": FAB.track,
        "min_via_annular_width": FAB.min_annular,
        "min_via_diameter": FAB.via_diameter,
        "solder_mask_to_copper_clearance": 0.0,
        "use_height_for_length_calcs": True,
    }


def _default_net_class() -> dict[str, float | int | str]:
    """The one net class: the fab's track, clearance and via."""
    return {
        "name": "Default",
        "clearance": FAB.clearance,
        "track_width": FAB.track,
        "via_diameter": FAB.via_diameter,
        "via_drill": FAB.via_drill,
        "microvia_diameter": 0.3,
        "microvia_drill": 0.1,
        "diff_pair_gap": 0.25,
        "diff_pair_via_gap": 0.25,
        "diff_pair_width": 0.2,
        "line_style": 0,
        "pcb_color": "rgba(0, 0, 0, 0.000)",
        "schematic_color": "rgba(0, 0, 0, 0.000)",
        "wire_width": 6,
        "bus_width": 12,
        "priority": 2147483647,
    }


def find_pads(fp: list[Node]) -> list[tuple[str, str, float, float, float, float, float]]:
    """(number, kind, x, y, angle, w, h) of a library footprint's pads, footprint-local."""
    out = []
    for pad in find_all(fp, "pad"):
        at = find(pad, "at")
        size = find(pad, "size")
        assert at is not None and size is not None
        angle = to_float(at[3]) if len(at) > 3 else 0.0
        out.append(
            (str(pad[1]), str(pad[2]), to_float(at[1]), to_float(at[2]), angle, to_float(size[1]), to_float(size[2]))
        )
    return out
