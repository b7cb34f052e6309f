"""The KiCad projects under hardware/<board>/pcb-*/ checked by KiCad 9's own kicad-cli:
ERC with 0 errors, DRC with schematic parity with 0 errors and 0 unconnected items, the
netlists KiCad exports from the schematics equal to the circuit model, and `zuni board
fab` writing Gerbers, drill, the assembly BOM and the placement file.

Without kicad-cli these tests skip and say why (tools/ensure_kicad.sh installs KiCad 9 as
root; `make test` runs it). The projects are copied to a temporary folder first, with the
library copies beside them, and kicad-cli runs with its own HOME, so nothing in the
repository or the user's KiCad settings is touched.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from zuniboard.commands import board as board_command
from zuniboard.games import layouts
from zuniboard.hardware import circuit, fab, kicad_lib, kicad_project, netlist

REPO = Path(__file__).resolve().parents[2]
HARDWARE = REPO / "hardware"
KICAD_CLI = shutil.which("kicad-cli")
BOARDS = [name for name in ("board25", "board49", "board168")]
PCBS_OF = {board: kicad_project.pcbs(layouts.load_layout(board)) for board in BOARDS}
PROJECTS = [
    (board, pcb)
    for board in BOARDS
    for pcb in PCBS_OF[board]
    if (HARDWARE / board / kicad_project.folder(pcb) / ("%s-%s.kicad_sch" % (board, pcb))).exists()
]
PCB_FILES = [
    (b, p) for b, p in PROJECTS if (HARDWARE / b / kicad_project.folder(p) / ("%s-%s.kicad_pcb" % (b, p))).exists()
]

needs_kicad = pytest.mark.skipif(
    KICAD_CLI is None,
    reason="KiCad 9's kicad-cli is not installed: run tools/ensure_kicad.sh as root (make test does)",
)


def _cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    assert KICAD_CLI is not None
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    return subprocess.run([KICAD_CLI, *args], capture_output=True, text=True, env=env, timeout=600, check=False)


def _project(tmp_path: Path, board: str, pcb: str) -> Path:
    """A copy of one project with hardware/kicad-lib/ at the relative place its library
    tables name; returns the project folder."""
    dest = tmp_path / "hw" / board / kicad_project.folder(pcb)
    shutil.copytree(HARDWARE / board / kicad_project.folder(pcb), dest)
    if not (tmp_path / "hw" / "kicad-lib").exists():
        shutil.copytree(kicad_lib.LIB_DIR, tmp_path / "hw" / "kicad-lib")
    return dest


def test_every_shipped_board_has_its_kicad_schematics() -> None:
    """Both PCBs of every shipped hc165 board have a schematic; the PCB files that are
    not there yet say why (NO-PCB.md), so that a missing PCB is never silent."""
    for board in BOARDS:
        for pcb in PCBS_OF[board]:
            folder = HARDWARE / board / kicad_project.folder(pcb)
            assert (folder / ("%s-%s.kicad_sch" % (board, pcb))).exists()
            has_pcb = (folder / ("%s-%s.kicad_pcb" % (board, pcb))).exists()
            assert has_pcb != (folder / "NO-PCB.md").exists(), folder
    assert ("board25", "main") in PCB_FILES and ("board25", "controller") in PCB_FILES
    # board49 is cut into strips, every one placed and routed, and no main board is left
    assert [p for b, p in PCB_FILES if b == "board49"] == PCBS_OF["board49"]
    assert PCBS_OF["board49"] == ["controller", "buttons"] + ["strip%d" % k for k in range(1, 7)]
    assert not (HARDWARE / "board49" / "pcb-main").exists() and not (HARDWARE / "board168" / "pcb-main").exists()


def test_strips_chain_their_cables_pin_for_pin() -> None:
    """Every cable of a strip board joins two 2 x N headers of the same size whose pins
    carry the same nets, and every net of the model that spans PCBs crosses on them."""
    for board in ("board49", "board168"):
        model = circuit.build(layouts.load_layout(board))
        strips = [p for p in PCBS_OF[board] if p.startswith("strip")]
        heads = {r: p for r, p in model.parts.items() if r.startswith("J")}
        pairs = [("J2", "J10"), ("J3", "J4")] + [("J%d1" % k, "J%d0" % (k + 1)) for k in range(1, len(strips))]
        assert set(heads) == {r for pair in pairs for r in pair}
        for a, b in pairs:
            assert heads[a].footprint == heads[b].footprint and "2x" in heads[a].footprint
            assert [p.name for p in heads[a].pins] == [p.name for p in heads[b].pins]
            assert heads[a].pcb != heads[b].pcb
        assert model.parts["J4"].pcb == "buttons" and {p.bom for p in model.parts.values() if p.pcb == "buttons"} >= {
            "button"
        }
        for net, nodes in model.nets.items():
            boards = {model.parts[ref].pcb for ref, _ in nodes}
            if len(boards) > 1:
                assert any(ref.startswith("J") for ref, _ in nodes), net


@needs_kicad
@pytest.mark.parametrize(("board", "pcb"), PROJECTS)
def test_erc_has_no_errors(tmp_path: Path, board: str, pcb: str) -> None:
    folder = _project(tmp_path, board, pcb)
    report = tmp_path / "erc.json"
    sch = folder / ("%s-%s.kicad_sch" % (board, pcb))
    out = _cli(["sch", "erc", "--format", "json", "--severity-all", "-o", str(report), str(sch)], tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(report.read_text())
    violations = [v for sheet in data["sheets"] for v in sheet["violations"]]
    errors = [v for v in violations if v["severity"] == "error"]
    assert errors == [], errors[:5]
    # the symbols are the library's: no "symbol differs from its library" warnings
    assert [v for v in violations if v["type"] in ("lib_symbol_mismatch", "lib_symbol_issues")] == []


@needs_kicad
@pytest.mark.parametrize(("board", "pcb"), PCB_FILES)
def test_drc_with_schematic_parity_is_clean(tmp_path: Path, board: str, pcb: str) -> None:
    folder = _project(tmp_path, board, pcb)
    report = tmp_path / "drc.json"
    path = folder / ("%s-%s.kicad_pcb" % (board, pcb))
    out = _cli(
        ["pcb", "drc", "--schematic-parity", "--format", "json", "--severity-all", "-o", str(report), str(path)],
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(report.read_text())
    errors = [v for v in data["violations"] if v["severity"] == "error"]
    assert errors == [], errors[:5]
    assert data["unconnected_items"] == []
    assert data["schematic_parity"] == []


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_kicad_netlists_are_the_model(tmp_path: Path, board: str) -> None:
    """The netlists KiCad exports from the two schematics, joined by the cable, are the
    circuit model's nets pin for pin (the open pins' one-pin nets aside)."""
    got: dict[str, set[tuple[str, str]]] = {}
    for pcb in PCBS_OF[board]:
        folder = _project(tmp_path, board, pcb)
        net = tmp_path / ("%s.net" % pcb)
        sch = folder / ("%s-%s.kicad_sch" % (board, pcb))
        out = _cli(["sch", "export", "netlist", "--format", "kicadsexpr", "-o", str(net), str(sch)], tmp_path)
        assert out.returncode == 0, out.stderr
        for name, nodes in netlist.parse_kicad_net(net.read_text()).items():
            if name.startswith("unconnected-("):
                assert len(nodes) == 1, name
                continue
            got.setdefault(name, set()).update(nodes)
    model = circuit.build(layouts.load_layout(board))
    assert got == {name: set(nodes) for name, nodes in model.nets.items()}


@needs_kicad
@pytest.mark.parametrize("board", ["board25", "board49"])
def test_fab_writes_gerbers_drill_bom_and_placement(tmp_path: Path, board: str) -> None:
    layout = layouts.load_layout(board)
    parser = __import__("argparse").ArgumentParser()
    sub = parser.add_subparsers()
    board_command.register(sub)
    args = parser.parse_args(["board", "fab", board, str(tmp_path / "out")])
    assert args.func(args) == 0
    model = circuit.build(layout)
    for pcb in PCBS_OF[board]:
        dest = tmp_path / "out" / ("%s-%s" % (board, pcb))
        names = {p.name for p in (dest / "gerbers").iterdir()}
        assert {"%s-%s-F_Cu.gtl" % (board, pcb), "%s-%s-B_Cu.gbl" % (board, pcb),
                "%s-%s-Edge_Cuts.gm1" % (board, pcb)} <= names  # fmt: skip
        assert any(n.endswith(".drl") for n in names)
        with zipfile.ZipFile(dest / ("%s-%s-gerbers.zip" % (board, pcb))) as z:
            assert set(z.namelist()) == names
        drill = next(p for p in (dest / "gerbers").iterdir() if p.suffix == ".drl").read_text()
        assert "M48" in drill and "METRIC" in drill
        bom = list(csv.DictReader(io.StringIO((dest / ("%s-%s-bom.csv" % (board, pcb))).read_text())))
        assert bom and set(bom[0]) == {"Comment", "Designator", "Footprint", "LCSC Part #"}
        placed = {r for row in bom for r in row["Designator"].split(",")}
        fab_parts = {r for r, p in model.parts.items() if p.pcb == pcb and fab.sourcing(p.bom).mount == "fab"}
        assert placed == fab_parts and all(row["LCSC Part #"] for row in bom)
        cpl = list(csv.DictReader(io.StringIO((dest / ("%s-%s-placement.csv" % (board, pcb))).read_text())))
        assert {row["Designator"] for row in cpl} == fab_parts
        assert all(row["Mid X"].endswith("mm") and row["Layer"] == "Top" for row in cpl)
    if board != "board25":
        return
    # U10 sits where the PCB file puts it
    placed_at = {
        r["Designator"]: r
        for r in csv.DictReader(
            io.StringIO((tmp_path / "out" / "board25-main" / "board25-main-placement.csv").read_text())
        )
    }
    pcb_text = (HARDWARE / "board25" / "pcb-main" / "board25-main.kicad_pcb").read_text()
    assert float(placed_at["U10"]["Mid X"][:-2]) > 0 and '"U10"' in pcb_text


@pytest.mark.skipif(not (Path("/usr/share/kicad/symbols").exists()), reason="KiCad's stock libraries are not installed")
def test_library_copies_are_the_installed_kicads() -> None:
    """hardware/kicad-lib/ holds the stock symbols and footprints unchanged (`zuni board
    kicad-lib` refreshes them)."""
    footprints: set[str] = set()
    for layout in layouts.load_all():
        footprints |= {p.footprint.split(" ")[0] for p in circuit.build(layout).parts.values()}
    for name, data in kicad_lib.vendor(Path("/usr/share/kicad"), sorted(footprints)).items():
        assert (kicad_lib.LIB_DIR / name).read_bytes() == data, name
