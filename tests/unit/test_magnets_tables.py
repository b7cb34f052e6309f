"""The hand-written tables of hardware/magnets.md against the model in
``zuniboard.hardware.magnets``: the on-axis field table (exact cylinder formula), the
neighbour-field table (dipole), and the drive table per board (``field_figures``).
Every printed figure must be the model's, to the digits printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zuniboard.games import layouts
from zuniboard.hardware import magnets, stack

REPO = Path(__file__).resolve().parents[2]
TEXT = (REPO / "hardware" / "magnets.md").read_text()


def _table(header_start: str) -> list[list[str]]:
    """The rows (cells stripped) of the Markdown table whose header line starts so."""
    lines = TEXT.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return [rows[0]] + rows[2:]  # drop the --- line


def _close(printed: str, model: float, unit: str) -> None:
    """``printed`` ("57 mT", "0.24 mT") is ``model`` rounded to the digits shown."""
    m = re.fullmatch(r"\**([\d.]+)\** %s" % unit, printed)
    assert m, printed
    digits = len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
    assert abs(float(m.group(1)) - model) <= 0.5 * 10**-digits + 1e-9, (printed, model)


def _magnet(cell: str) -> tuple[float, float]:
    dia, thick = re.fullmatch(r"(\d+) x (\d+) mm", cell).groups()  # type: ignore[union-attr]
    return float(dia), float(thick)


def test_on_axis_field_table_is_the_cylinder_formula() -> None:
    head, *rows = _table("| magnet (diameter x thickness) |")
    distances = [float(c.split()[0]) for c in head[1:]]
    assert len(rows) == 4 and distances == [4, 6, 8, 10, 12]
    for row in rows:
        dia, thick = _magnet(row[0])
        for z, cell in zip(distances, row[1:], strict=True):
            _close(cell, magnets.axial_field_mt(dia, thick, z), "mT")
    # The shipped 6 x 3 mm magnet at the reference build's glass axis.
    at_axis = magnets.axial_field_mt(stack.MAGNET_DIA_MM, stack.MAGNET_THICK_MM, 5.6)
    assert stack.MAGNET_TO_REED_AXIS_MM == pytest.approx(5.6)
    assert "about %.0f mT at 5.6 mm" % at_axis in TEXT


def test_neighbour_field_table_is_the_dipole_8_mm_down_and_5_6_mm_within_6_percent() -> None:
    head, *rows = _table("| magnet | 20 mm |")
    across = [float(c.split()[0]) for c in head[1:]]
    assert len(rows) == 4
    for row in rows:
        dia, thick = _magnet(row[0])
        for x, cell in zip(across, row[1:], strict=True):
            _close(cell, magnets.dipole_field_mt(dia, thick, x, 8.0), "mT")
            near = magnets.dipole_field_mt(dia, thick, x, 5.6)
            assert near / magnets.dipole_field_mt(dia, thick, x, 8.0) - 1 <= 0.06
    assert "within 6 %" in TEXT


BOARDS = {
    "25-point": ("board25", None),
    "49-point": ("board49", None),
    "49-point, old": ("board49", 0.0),
    "168-square": ("board168", None),
}
DIRECTIONS = {-90.0: "South", 0.0: "East", 45.0: "North-East"}


def test_drive_table_is_the_models_field_figures() -> None:
    head, *rows = _table("| board | spacing | switches |")
    assert [r[0] for r in rows] == list(BOARDS)
    for row in rows:
        name, angle = BOARDS[row[0]]
        layout = layouts.load_layout(name)
        if angle is not None:
            layout.mechanics["switch_angle_deg"] = angle
        ff = magnets.field_figures(layout, reed=magnets.CHANNEL_REED)  # the table's stack
        assert row[1] == "%.0f mm" % layout.mechanics["pitch_mm"]
        assert row[2] == DIRECTIONS[float(layout.mechanics["switch_angle_deg"])]
        _close(row[3], ff.own_min, "A")
        _close(row[4], ff.neighbour_max, "A")
        assert row[5] == "%.0f" % (ff.own_min / ff.neighbour_max)
        m = re.fullmatch(r"([\d.]+) mm, (?:(\d+) degrees off axis|\*\*in line\*\* with the axis)", row[6])
        assert m, row[6]
        _close(m.group(1) + " mm", ff.nearest_glass_mm, "mm")
        if m.group(2) is None:
            assert ff.along_axis_deg == pytest.approx(0.0, abs=0.5)
        else:
            _close(m.group(2) + " deg", ff.along_axis_deg, "deg")
