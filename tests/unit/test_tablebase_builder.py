"""The endgame tables' builder for 6 pieces (zuniboard.ai.tablebase.ensure: a layer at a
time, to disk; big tables mapped, not held in memory): the same bytes as the first
builder (tests/tablebase_reference.py), and the mapped values the same as the file's.

tools/build_tablebase.py --check-identical compares the two builders at 5 pieces (a
minute or more); here 3 and 4 pieces, a few seconds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tablebase_reference

from zuniboard.ai import tablebase, tablebase_store


@pytest.fixture
def where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tablebases"
    monkeypatch.setenv("ZUNI_TABLEBASE_DIR", str(root))
    monkeypatch.setattr(tablebase, "_LOADED", {})
    monkeypatch.setattr(tablebase, "_LOADING", set())
    return root


def _same_files(ruleset: str, pieces: int, tmp_path: Path) -> None:
    built = tablebase.ensure(ruleset, pieces)
    old = tablebase_reference.build(ruleset, pieces)
    reference = tmp_path / "reference"
    tablebase.save(old, reference)
    directory = tablebase.ruleset_dir(ruleset)
    names = sorted(p.name for p in reference.glob("*.ztb"))
    assert names == sorted(p.name for p in directory.glob("*.ztb"))
    assert len(names) == len(tablebase.balances(pieces))
    for name in names:
        assert (directory / name).read_bytes() == (reference / name).read_bytes(), (ruleset, name)
    for balance, table in old.tables.items():
        assert np.array_equal(np.asarray(built.tables[balance].values), table.values), balance
        assert built.tables[balance].positions == table.positions
        assert not tablebase_store.is_mapped(built.tables[balance].values)  # small: in memory


@pytest.mark.parametrize(
    "ruleset", ["kolowis size=short quiet=3", "mosona quiet=3", "mosona board=open quiet=3 stall=draw"]
)
def test_files_are_the_first_builders_byte_for_byte(ruleset: str, where: Path, tmp_path: Path) -> None:
    _same_files(ruleset, 3, tmp_path)


def test_files_are_the_first_builders_at_4_pieces(where: Path, tmp_path: Path) -> None:
    _same_files("mosona quiet=6", 4, tmp_path)


def test_big_tables_are_mapped_from_an_uncompressed_file(
    where: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ruleset = "kolowis size=short quiet=5"
    want = tablebase_reference.build(ruleset, 3)
    # Every table counts as big here (the 5- and 6-piece ones do by their size).
    monkeypatch.setattr(tablebase_store, "MAP_BYTES", 1)
    built = tablebase.ensure(ruleset, 3)
    directory = tablebase.ruleset_dir(ruleset)
    raws = sorted(directory.glob("*" + tablebase_store.RAW_SUFFIX))
    assert [p.name.split(".")[0] for p in raws] == ["1v1", "1v2", "2v1"]
    # `zuni tablebase status` counts them beside the table files.
    info = tablebase.describe(ruleset)
    assert (
        info["mapped_bytes"]
        == sum(p.stat().st_size for p in raws)
        == sum(2 * t.values.size for t in want.tables.values())
    )
    for balance, table in want.tables.items():
        assert tablebase_store.is_mapped(built.tables[balance].values)
        assert np.array_equal(built.tables[balance].values, table.values)
    loaded = tablebase.load(ruleset)
    assert loaded is not None
    for balance, table in want.tables.items():
        assert tablebase_store.is_mapped(loaded.tables[balance].values)
        assert np.array_equal(loaded.tables[balance].values, table.values)
    # An uncompressed file cut short (a crash, a full disk) is made again from the table file.
    raw = next(p for p in raws if p.name.startswith("2v1."))
    raw.write_bytes(raw.read_bytes()[:100])
    again = tablebase.load(ruleset)
    assert again is not None and np.array_equal(again.tables[(2, 1)].values, want.tables[(2, 1)].values)
    assert raw.stat().st_size == 2 * want.tables[(2, 1)].values.size
    # A table built again (here: its file damaged) leaves no stale uncompressed file.
    table_file = directory / "2v1.ztb"
    data = bytearray(table_file.read_bytes())
    data[-10] ^= 0x55
    table_file.write_bytes(bytes(data))
    tablebase.ensure(ruleset, 3)
    assert len(list(directory.glob("2v1.*" + tablebase_store.RAW_SUFFIX))) == 1
    assert [p.name for p in directory.glob("*.tmp")] == []
    final = tablebase.load(ruleset)
    assert final is not None and np.array_equal(final.tables[(2, 1)].values, want.tables[(2, 1)].values)


def test_the_6_piece_build_states_its_cost_first() -> None:
    # Measured (docs/tablebases.md): 293 CPU s for the four biggest 6-piece tables of
    # Kolowis short, ~450 s for all; 536 MB at the peak; 39 MB + 2.85 GB on disk.
    est = tablebase.estimate("kolowis size=short", 6)
    assert est.positions == 25_531_200
    assert 450 <= est.seconds <= 1800
    assert 536e6 <= est.memory_bytes <= 2e9
    assert 2.8e9 <= est.mapped_bytes <= 3.0e9
    assert 39e6 <= est.disk_bytes <= 100e6
    assert "(and 2.9 GB uncompressed beside, read from disk in play)" in est.text
    assert "1.3 GB of memory while building" in est.text
