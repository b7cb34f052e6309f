"""`zuni board ...`: layouts, generated hardware files, and bring-up of a real or virtual board.

zuni board list                      the layouts and the rulesets each one plays
zuni board show board25              one layout: pins, chains, timings, power
zuni board for "kolowis size=short"  which layout a ruleset uses
zuni board generate [--check]        regenerate hardware/<board>/ (netlists, BOM, power, drawings)
zuni board template board49 --pitch 35 -o t.svg   a template at another point spacing
zuni board check [PORT]              bring-up: live sensor map, LED walk, buttons, stuck points
zuni board fab board25 OUT           Gerbers, drill, assembly BOM and placement files of its PCBs
zuni board kicad-lib                 refresh hardware/kicad-lib/ from the installed KiCad
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any

from zuniboard.errors import UsageError
from zuniboard.games import layouts
from zuniboard.hardware import generate as hardware
from zuniboard.hardware import power


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    board = subparsers.add_parser(
        "board",
        help="board layouts, hardware files and bring-up",
        description="Board layouts (hardware/layouts/*.json), the files generated from them, and bring-up checks.",
    )
    sub = board.add_subparsers(dest="board_command", metavar="ACTION")

    p = sub.add_parser("list", help="list the layouts")
    p.set_defaults(func=run_list)

    p = sub.add_parser("show", help="show one layout")
    p.add_argument("layout", help="layout name (board25) or path to a layout file")
    p.set_defaults(func=run_show)

    p = sub.add_parser("for", help="the layout a ruleset plays on")
    p.add_argument("ruleset", help='ruleset text, e.g. "kolowis size=short"')
    p.set_defaults(func=run_for)

    p = sub.add_parser("generate", help="regenerate netlists, BOMs, power budgets and drawings")
    p.add_argument("--check", action="store_true", help="only report stale files (exit status 1 if any)")
    p.set_defaults(func=run_generate)

    p = sub.add_parser("template", help="write a 1:1 drilling template at a chosen point spacing")
    p.add_argument("layout", help="layout name or path")
    p.add_argument("--pitch", type=float, default=None, help="point spacing in mm (default: the layout's)")
    p.add_argument("-o", "--output", required=True, help="output file: .svg, .pdf or .csv (drill positions)")
    p.set_defaults(func=run_template)

    p = sub.add_parser("fab", help="Gerbers, drill, assembly BOM and placement files of a board's PCBs (kicad-cli)")
    p.add_argument("layout", help="layout name (board25)")
    p.add_argument("outdir", help="folder to write into (created)")
    p.set_defaults(func=run_fab)

    p = sub.add_parser("kicad-lib", help="refresh hardware/kicad-lib/ from an installed KiCad's stock libraries")
    p.add_argument("--kicad", default="/usr/share/kicad", help="KiCad's shared folder (default: /usr/share/kicad)")
    p.set_defaults(func=run_kicad_lib)

    try:
        board_check = importlib.import_module("zuniboard.commands.board_check")
    except ImportError:  # the bring-up needs the link and the virtual board
        return
    board_check.register(sub)


def _load(name: str) -> Any:
    try:
        return layouts.load_layout(name)
    except layouts.layout_error() as exc:
        raise UsageError(str(exc))


def run_list(args: argparse.Namespace) -> int:
    for layout in layouts.load_all():
        print("%-15s %3d points  %s" % (layout.name, len(layout.points), " | ".join(layout.rulesets)))
    return 0


def run_show(args: argparse.Namespace) -> int:
    layout = _load(args.layout)
    print("%s: %s" % (layout.name, layout.title))
    print("rulesets: %s" % ", ".join(layout.rulesets))
    print("points:   %d" % len(layout.points))
    print("sensors:  %s" % _describe(layout.sensors))
    print("leds:     %s" % _describe(layout.leds))
    print("buttons:  %s" % (_describe(layout.buttons) or "none"))
    print("timing:   %s" % _describe(layout.timing))
    print(
        "power:    %.0f mA worst case; asks USB for %d mA (power.md)"
        % (hardware.total_ma(layout), layout.power["usb_ma"])
    )
    if "led_enable" in layout.power:
        print(
            "          LED rail switched by GP%d: %.1f mA dark before USB configuration (EN tied on: %.1f mA)"
            % (layout.power["led_enable"], power.dark_ma(layout), power.dark_ma(layout, False))
        )
    else:
        print("          LED rail on from plug-in: %.1f mA dark before USB configuration" % power.dark_ma(layout))
    print("LED chain:    %s" % " ".join(sorted(layout.points, key=lambda n: layout.points[n][1])))
    print("sensor chain: %s" % " ".join(sorted(layout.points, key=lambda n: layout.points[n][0])))
    return 0


def _describe(d: dict[str, Any]) -> str:
    return ", ".join("%s=%s" % (k, d[k]) for k in sorted(d))


def run_for(args: argparse.Namespace) -> int:
    try:
        found = layouts.layouts_for_ruleset(args.ruleset)
    except ValueError as exc:
        raise UsageError(str(exc))
    if not found:
        raise UsageError("no layout fits the ruleset %r" % args.ruleset)
    for layout in found:
        print(layout.name)
    return 0


def run_generate(args: argparse.Namespace) -> int:
    from zuniboard.hardware import board_spots

    try:
        changed = hardware.generate(check=args.check)
    except board_spots.NoRoomError as exc:
        raise UsageError(str(exc))
    for path in changed:
        print(("stale: %s" if args.check else "wrote: %s") % path)
    if args.check and changed:
        print("run `zuni board generate` to update them")
        return 1
    if not changed:
        print("all generated hardware files are up to date")
    return 0


def run_template(args: argparse.Namespace) -> int:
    layout = _load(args.layout)
    if args.pitch is not None and not 10 <= args.pitch <= 200:
        raise UsageError("--pitch must be 10..200 mm, not %s" % args.pitch)
    out = Path(args.output)
    if out.suffix == ".svg":
        out.write_text(hardware.template_svg(layout, args.pitch))
    elif out.suffix == ".pdf":
        out.write_bytes(hardware.template_pdf(layout, args.pitch))
    elif out.suffix == ".csv":
        out.write_text(hardware.drill_csv(layout, args.pitch))
    else:
        raise UsageError("output %s: the name must end in .svg, .pdf or .csv" % out)
    print("wrote %s" % out)
    return 0


def run_fab(args: argparse.Namespace) -> int:
    from zuniboard.hardware import fab

    layout = _load(args.layout)
    if layout.sensors["type"] != "hc165":
        raise UsageError("%s has no PCBs (the diode matrix variant is a perfboard build)" % layout.name)
    try:
        written = fab.export(layout, Path(args.outdir))
    except fab.FabError as exc:
        raise UsageError(str(exc))
    for path in written:
        print("wrote: %s" % path)
    return 0


def run_kicad_lib(args: argparse.Namespace) -> int:
    from zuniboard.hardware import circuit, kicad_lib

    footprints: set[str] = set()
    for layout in layouts.load_all():
        footprints |= {p.footprint.split(" ")[0] for p in circuit.build(layout).parts.values()}
    try:
        files = kicad_lib.vendor(Path(args.kicad), sorted(footprints))
    except kicad_lib.LibraryError as exc:
        raise UsageError(str(exc))
    for name, data in files.items():
        target = kicad_lib.LIB_DIR / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not (target.exists() and target.read_bytes() == data):
            target.write_bytes(data)
            print("wrote: %s" % target)
    return 0
