"""Files to order a board's PCBs: ``zuni board fab BOARD OUTDIR``.

For each PCB of the board (``kicad_project.PCBS``) KiCad's own ``kicad-cli`` plots the
Gerbers and the Excellon drill file from the committed ``.kicad_pcb`` and lists the
placements; this module turns the placements and the circuit model into the assembly
service's two files (the common "JLC" format: a BOM with ``Comment, Designator,
Footprint, LCSC Part #`` and a placement list with ``Designator, Mid X, Mid Y, Layer,
Rotation``) and zips the Gerbers for upload. Only the parts the fab assembles (the BOM
names the service's stock number: ``sourcing``) go into those two files; the builder
solders the rest.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zuniboard.hardware import bom, circuit, kicad_project
from zuniboard.paths import HARDWARE_DIR

if TYPE_CHECKING:
    from zuni_board.layout import Layout

GERBER_LAYERS = "F.Cu,B.Cu,F.SilkS,B.SilkS,F.Mask,B.Mask,F.Paste,Edge.Cuts"


@dataclass(frozen=True)
class Sourcing:
    """How a kind of part (``Part.bom``) is mounted and bought for the PCBs."""

    mount: str  # "fab": the assembly service places it; "hand": the builder solders it
    mpn: str
    lcsc: str  # the assembly service's stock number; "" for hand-soldered parts


def sourcing(bom_key: str) -> Sourcing:
    """Read from the BOM (``bom.PARTS``): a part whose first supplier is the assembly
    service's stock ("LCSC Cnnnn ... (fab assembly ...)") is fab-assembled."""
    entry = bom.PARTS[bom_key]
    supplier = entry[6]
    match = bom.FAB_SUPPLIER.match(supplier)
    if match:
        return Sourcing("fab", "%s (%s)" % (entry[5], entry[4]), match.group(1).rstrip("*"))
    return Sourcing("hand", "%s (%s)" % (entry[5], entry[4]), "")


class FabError(RuntimeError):
    """kicad-cli is missing or failed; names the command."""


def kicad_cli() -> str:
    path = os.environ.get("ZUNI_KICAD_CLI") or shutil.which("kicad-cli")
    if not path:
        raise FabError("kicad-cli is not installed (tools/ensure_kicad.sh installs KiCad 9 as root)")
    return path


def _run(args: list[str]) -> None:
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise FabError(
            "%s failed (%d): %s" % (" ".join(args[:3]), proc.returncode, (proc.stderr or proc.stdout)[-500:])
        )


def assembly_bom(layout: Layout, pcb: str) -> str:
    """The assembly service's BOM of one PCB: one line per value and footprint."""
    sub = circuit.subcircuit(circuit.build(layout), pcb)
    groups: dict[tuple[str, str, str], list[str]] = {}
    for ref, part in sub.parts.items():
        src = sourcing(part.bom)
        if src.mount != "fab":
            continue
        key = (part.value, part.footprint.split(":")[-1], src.lcsc)
        groups.setdefault(key, []).append(ref)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["Comment", "Designator", "Footprint", "LCSC Part #"])
    for (value, footprint, lcsc), refs in sorted(groups.items()):
        w.writerow([value, ",".join(sorted(refs, key=_ref_key)), footprint, lcsc])
    return out.getvalue()


def _ref_key(ref: str) -> tuple[str, int]:
    head = ref.rstrip("0123456789")
    tail = ref[len(head) :]
    return head, int(tail) if tail else -1


def placement_csv(kicad_pos_csv: str, fab_refs: set[str]) -> str:
    """kicad-cli's position file (mm) as the service's placement list, fab parts only."""
    rows = list(csv.DictReader(io.StringIO(kicad_pos_csv)))
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["Designator", "Mid X", "Mid Y", "Layer", "Rotation"])
    for row in rows:
        ref = row["Ref"]
        if ref not in fab_refs:
            continue
        side = "Top" if row["Side"].lower() == "top" else "Bottom"
        w.writerow([ref, "%smm" % row["PosX"], "%smm" % row["PosY"], side, row["Rot"]])
    return out.getvalue()


def export(layout: Layout, out_dir: Path, source: Path = HARDWARE_DIR) -> list[Path]:
    """Gerbers (zipped), drill, BOM and placement file of every PCB of ``layout`` into
    ``out_dir/<board>-<pcb>/``; returns the files written."""
    cli = kicad_cli()
    written: list[Path] = []
    whole = circuit.build(layout)
    for pcb in kicad_project.pcbs(layout):
        project = "%s-%s" % (layout.name, pcb)
        board = source / layout.name / kicad_project.folder(pcb) / (project + ".kicad_pcb")
        if not board.exists():
            raise FabError("%s is missing: run `zuni board generate`" % board)
        dest = out_dir / project
        gerbers = dest / "gerbers"
        gerbers.mkdir(parents=True, exist_ok=True)
        _run([cli, "pcb", "export", "gerbers", "--layers", GERBER_LAYERS, "-o", str(gerbers) + os.sep, str(board)])
        _run([cli, "pcb", "export", "drill", "--format", "excellon", "--excellon-units", "mm",
              "-o", str(gerbers) + os.sep, str(board)])  # fmt: skip
        pos = dest / (project + "-kicad-pos.csv")
        _run(
            [
                cli,
                "pcb",
                "export",
                "pos",
                "--format",
                "csv",
                "--units",
                "mm",
                "--side",
                "front",
                "-o",
                str(pos),
                str(board),
            ]
        )
        fab_refs = {r for r, p in whole.parts.items() if p.pcb == pcb and sourcing(p.bom).mount == "fab"}
        cpl = dest / (project + "-placement.csv")
        cpl.write_text(placement_csv(pos.read_text(encoding="utf-8"), fab_refs), encoding="utf-8")
        bom = dest / (project + "-bom.csv")
        bom.write_text(assembly_bom(layout, pcb), encoding="utf-8")
        archive = dest / (project + "-gerbers.zip")
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
            for f in sorted(gerbers.iterdir()):
                z.write(f, f.name)
        written += sorted(gerbers.iterdir()) + [archive, bom, cpl, pos]
    return written
