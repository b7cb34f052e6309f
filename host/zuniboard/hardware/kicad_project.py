"""The KiCad 9 projects of a board, all written from the one circuit model.

``hardware/<board>/pcb-main/`` and ``hardware/<board>/pcb-controller/`` each hold a
KiCad project: ``<board>-<pcb>.kicad_pro`` (the fab's design rules), the schematic
(``.kicad_sch``, one root sheet and its sub-sheets, ``kicad_sch``), the PCB
(``.kicad_pcb``, placed and routed by ``pcb_layout``) and library tables pointing at the
copies of the stock libraries in ``hardware/kicad-lib/``. The two PCBs are joined by a
1:1 cable (J1 - J2); together their schematics are the model's circuit, which a test
checks against the netlists KiCad exports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zuniboard.hardware import circuit
from zuniboard.hardware.kicad_lib import OWN_LIB, Library, own_symbol, symbol_of
from zuniboard.hardware.kicad_pcb import board_text, project_json
from zuniboard.hardware.kicad_sch import SchematicWriter, sheets, stable_uuid, symbol_units
from zuniboard.hardware.kicad_sexpr import Sym, dump
from zuniboard.hardware.pcb_layout import (
    BoardPlan,
    PlanError,
    SymbolRef,
    buttons_plan,
    controller_plan,
    main_plan,
    strip_plan,
)

if TYPE_CHECKING:
    from zuni_board.layout import Layout

PCBS = ("main", "controller")


def pcbs(layout: Layout) -> list[str]:
    """The PCBs of a board: the main board and the controller module, or (a board cut into
    strips, ``strips``) the controller module and every strip in chain order."""
    names = {p.pcb for p in circuit.build(layout).parts.values()}
    if "main" in names:
        return list(PCBS)
    extra = ["buttons"] if "buttons" in names else []
    return ["controller"] + extra + sorted((n for n in names if n.startswith("strip")), key=lambda n: int(n[5:]))


def _make(pcb: str) -> Any:
    if pcb == "main":
        return main_plan
    if pcb == "controller":
        return controller_plan
    if pcb == "buttons":
        return buttons_plan
    return strip_plan


def folder(pcb: str) -> str:
    return "pcb-%s" % pcb


def unconnected_net(ref: str, pin_name: str, number: str) -> str:
    """KiCad's name for the net of a pin left open (a single-pin net)."""
    if pin_name in ("", "~"):
        return "unconnected-(%s-Pad%s)" % (ref, number)
    return "unconnected-(%s-%s-Pad%s)" % (ref, pin_name, number)


def pin_nets(writer: SchematicWriter, c: circuit.Circuit) -> dict[str, dict[str, str]]:
    """ref -> pad number -> net, for every pin of every symbol (open pins by KiCad's
    name for them, as the schematic's netlist has them)."""
    out: dict[str, dict[str, str]] = {}
    for ref, part in c.parts.items():
        _, sym = writer.lib_symbol(part)
        nets: dict[str, str] = {}
        for pins in symbol_units(sym).values():
            for p in pins:
                net = c.net_of(ref, p.number)
                nets[p.number] = net if net is not None else unconnected_net(ref, p.name, p.number)
        out[ref] = nets
    return out


def symbol_refs(writer: SchematicWriter, c: circuit.Circuit) -> dict[str, SymbolRef]:
    out = {}
    for plan in sheets(c):
        sheet_uuid = stable_uuid(writer.project, "sheet", plan.file)
        for ref in plan.refs:
            path = "/%s/%s" % (sheet_uuid, stable_uuid(writer.project, "symbol", ref, "1"))
            out[ref] = SymbolRef(path, plan.name, plan.file)
    return out


def lib_tables() -> dict[str, str]:
    libs_sym = [
        "74xx",
        "Connector_Generic",
        "Device",
        "Diode",
        "MCU_Module",
        "Power_Management",
        "Switch",
        "power",
        OWN_LIB,
    ]
    sym = ["(sym_lib_table", "\t(version 7)"]
    for name in libs_sym:
        sym.append(
            '\t(lib (name "%s") (type "KiCad") (uri "${KIPRJMOD}/../../kicad-lib/%s.kicad_sym")'
            ' (options "") (descr ""))' % (name, name)
        )
    sym.append(")")
    fps = [
        "Button_Switch_THT",
        "Capacitor_SMD",
        "Connector_PinHeader_2.54mm",
        "Diode_SMD",
        "Diode_THT",
        "LED_THT",
        "Module",
        "Package_SO",
        "Package_TO_SOT_SMD",
        "Resistor_SMD",
        "Resistor_THT",
        OWN_LIB,
    ]
    fp = ["(fp_lib_table", "\t(version 7)"]
    for name in fps:
        fp.append(
            '\t(lib (name "%s") (type "KiCad") (uri "${KIPRJMOD}/../../kicad-lib/%s.pretty") (options "") (descr ""))'
            % (name, name)
        )
    fp.append(")")
    return {"sym-lib-table": "\n".join(sym) + "\n", "fp-lib-table": "\n".join(fp) + "\n"}


def own_library(c: circuit.Circuit) -> str:
    """``hardware/kicad-lib/zuniboard.kicad_sym``: the symbols drawn from the model."""
    done: dict[str, Any] = {}
    for part in c.parts.values():
        lib_id = symbol_of(part)
        if lib_id.startswith(OWN_LIB + ":") and lib_id not in done:
            done[lib_id] = own_symbol(lib_id.split(":")[1], part, part.description)
    out: list[Any] = [Sym("kicad_symbol_lib"), [Sym("version"), Sym("20241209")], [Sym("generator"), "zuniboard"]]
    out += [done[k] for k in sorted(done)]
    return dump(out) + "\n"


def plan_for(layout: Layout, pcb: str, lib: Library) -> tuple[BoardPlan, dict[str, str]]:
    """The PCB plan and the schematic files of one of the board's PCBs."""
    if pcb not in pcbs(layout):
        raise PlanError("%s has no %s PCB (its PCBs: %s)" % (layout.name, pcb, ", ".join(pcbs(layout))))
    whole = circuit.build(layout)
    sub = circuit.subcircuit(whole, pcb)
    project = "%s-%s" % (layout.name, pcb)
    writer = SchematicWriter(project, sub, lib)
    files = writer.files()
    refs = symbol_refs(writer, sub)
    nets = pin_nets(writer, sub)
    return _make(pcb)(layout, sub, lib, refs, nets), files


def project_files(layout: Layout, lib: Library) -> dict[str, bytes]:
    """Path (relative to ``hardware/<board>/``) -> contents, for both PCBs. A board the
    PCB generator cannot place yet gets its schematics only (and a note why)."""
    out: dict[str, bytes] = {}
    for pcb in pcbs(layout):
        whole = circuit.build(layout)
        sub = circuit.subcircuit(whole, pcb)
        project = "%s-%s" % (layout.name, pcb)
        writer = SchematicWriter(project, sub, lib)
        base = folder(pcb) + "/"
        for name, text in writer.files().items():
            out[base + name] = text.encode()
        out[base + project + ".kicad_pro"] = project_json(project).encode()
        for name, text in lib_tables().items():
            out[base + name] = text.encode()
        try:
            plan = _make(pcb)(layout, sub, lib, symbol_refs(writer, sub), pin_nets(writer, sub))
        except PlanError as exc:
            out[base + "NO-PCB.md"] = ("# No PCB for %s yet\n\n%s\n" % (project, exc)).encode()
            continue
        text = board_text(
            project,
            lib,
            plan.width,
            plan.height,
            plan.placements,
            plan.pad_nets,
            plan.tracks,
            plan.vias,
            plan.holes,
            plan.texts,
            plan.title,
            plan.outline,
        )
        out[base + project + ".kicad_pcb"] = text.encode()
    return out
