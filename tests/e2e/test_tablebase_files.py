"""The endgame tables' files and their builders (zuniboard.ai.tablebase_store, `zuni
tablebase`, the first `zuni play` of a ruleset): a file cut short, damaged, of another
format or other rules is refused and built again; one builder at a time across
processes; tables another process writes are seen; `zuni play` builds the small
tables by itself in the background and says so.

Tables here are Kolowis short up to 3 pieces (under a second to build)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from play_helpers import REPO, ZuniPlay
from play_helpers import zuni as run_zuni

from zuniboard.ai import tablebase, tablebase_store
from zuniboard.play.endgame_tables import start_first_use_build

RULESET = "kolowis size=short"


@pytest.fixture
def where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty tablebase directory of this test (the zuni subprocesses inherit it)."""
    root = tmp_path / "tablebases"
    monkeypatch.setenv("ZUNI_TABLEBASE_DIR", str(root))
    monkeypatch.setattr(tablebase, "_LOADED", {})
    monkeypatch.setattr(tablebase, "_LOADING", set())
    return root


def _values(tb: tablebase.Tablebase) -> dict[tuple[int, int], bytes]:
    return {b: t.values.tobytes() for b, t in tb.tables.items()}


def test_damaged_files_are_refused_and_only_they_built_again(where: Path) -> None:
    built = tablebase.ensure(RULESET, 3)
    want = _values(built)
    directory = tablebase.ruleset_dir(RULESET)
    assert sorted(p.name for p in directory.glob("*.ztb")) == ["1v1.ztb", "1v2.ztb", "2v1.ztb"]
    assert tablebase.missing(RULESET, 3) == []
    path = directory / "2v1.ztb"
    good = path.read_bytes()
    header_end = good.index(b"\n", good.index(b"\n") + 1) + 1

    def damaged(data: bytes, why: str) -> None:
        path.write_bytes(data)
        loaded, problems, _ = tablebase._read_all(RULESET)
        assert loaded is not None and loaded.max_pieces == 2, "a 3-piece set without 2v1 is not usable"
        assert len(problems) == 1 and why in problems[0] and "2v1.ztb" in problems[0], problems
        rebuilt: list[str] = []
        tb = tablebase.ensure(RULESET, 3, rebuilt.append)
        assert [t for t in rebuilt if " 1v2:" in t or " 1v1:" in t] == [], "only the refused table is built"
        assert any(" 2v1:" in t for t in rebuilt), rebuilt
        assert _values(tb) == want
        assert path.read_bytes()[header_end:] == good[header_end:]  # the same values, the same bytes

    damaged(good[: len(good) - 100], "cut short")
    flipped = bytearray(good)
    flipped[header_end + 50] ^= 0x10
    damaged(bytes(flipped), "checksum")
    damaged(good.replace(b"ZUNITB %d" % tablebase_store.FORMAT, b"ZUNITB 1", 1), "table format 1")
    damaged(good.replace(b'"quiet": 40', b'"quiet": 39', 1), "quiet is 39")
    damaged(b"", "not a table file")
    # The first format (.npz, no checksum) is replaced.
    (directory / "2v2.npz").write_bytes(b"PK old")
    assert any("format 1" in p for p in tablebase._read_all(RULESET)[1])
    tablebase.ensure(RULESET, 3)  # complete: nothing built, nothing removed
    tablebase.save(tablebase.build(RULESET, 2), only={(1, 1)})
    assert not (directory / "2v2.npz").exists()


def test_one_builder_at_a_time_across_processes(where: Path) -> None:
    command = [str(Path(sys.executable).parent / "zuni"), "tablebase", "build", RULESET, "--pieces", "3", "--first-use"]
    directory = tablebase.ruleset_dir(RULESET)
    with tablebase_store.BuildLock(directory, wait=False):
        with pytest.raises(tablebase_store.BuildBusy):
            with tablebase_store.BuildLock(directory, wait=False):
                pass
        busy = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=REPO)
        assert busy.returncode == 3, busy.stdout + busy.stderr
        assert "another process is building" in busy.stdout
        assert list(directory.glob("*.ztb")) == []
        # `zuni tablebase build` (a person's) says so and waits, then builds.
        waiting = subprocess.Popen(command[:-1], stdout=subprocess.PIPE, text=True, cwd=REPO)
        assert waiting.stdout is not None
        lines = [waiting.stdout.readline() for _ in range(2)]
        assert "waiting for it" in lines[1], lines
        assert waiting.poll() is None
    out = waiting.communicate(timeout=60)[0]
    assert waiting.returncode == 0 and "built in" in out, out
    for path in directory.glob("*.ztb"):
        path.unlink()
    # Two at once: one builds, the other gives way (or finds them built); never two
    # writers of a file, and the tables are whole.
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=REPO) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes in ([0, 0], [0, 3]), (codes, outs)
    assert sum("built in" in out for out in outs) == 1, outs
    loaded = tablebase.load(RULESET)
    assert loaded is not None and loaded.max_pieces == 3
    assert _values(loaded) == _values(tablebase.build(RULESET, 3))
    assert list(directory.glob("*.tmp")) == []


def test_tables_another_process_writes_are_seen(where: Path) -> None:
    assert tablebase.for_ruleset(RULESET) is None
    out = run_zuni("tablebase", "build", RULESET, "--pieces", "2")
    assert out.returncode == 0, out.stderr
    assert "kolowis size=short up to 2 pieces: 1,200 positions, about 1 s" in out.stdout, out.stdout
    tb = tablebase.for_ruleset(RULESET)
    assert tb is not None and tb.max_pieces == 2
    out = run_zuni("tablebase", "build", RULESET, "--pieces", "3")
    assert out.returncode == 0, out.stderr
    assert " 1v1:" not in out.stdout, "the 2-piece table is kept"
    tb = tablebase.for_ruleset(RULESET)
    assert tb is not None and tb.max_pieces == 3
    status = run_zuni("tablebase", "status")
    assert status.returncode == 0, status.stderr
    assert re.search(r"^  kolowis size=short +up to 3 pieces, 28,800 positions, \d+ kB$", status.stdout, re.M), (
        status.stdout
    )


def test_estimates_and_what_is_built_on_first_use(where: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Positions are counted exactly (both sides to move, no two pieces on a point).
    built = tablebase.build(RULESET, 3)
    assert tablebase.estimate(RULESET, 3).positions == sum(t.positions for t in built.tables.values()) == 28_800
    monkeypatch.delenv(tablebase.AUTO_ENV, raising=False)
    assert tablebase.auto_pieces("mosona") == 4
    assert tablebase.auto_pieces("mosona board=open quiet=20") == 4
    assert tablebase.auto_pieces("kolowis") == 3
    monkeypatch.setenv(tablebase.AUTO_ENV, "3")
    assert tablebase.auto_pieces("mosona") == 3
    monkeypatch.setenv(tablebase.AUTO_ENV, "0")
    assert tablebase.auto_pieces("mosona") == 0
    said: list[str] = []
    assert start_first_use_build("mosona", lambda kind, text: said.append(text)) is None
    assert start_first_use_build("awithlaknakwe", lambda kind, text: said.append(text)) is None
    assert said == []


def test_the_first_zuni_play_of_a_ruleset_builds_its_small_tables(where: Path, tmp_path: Path) -> None:
    play = ZuniPlay(
        "--sim",
        "--ruleset",
        RULESET,
        "--north",
        "human",
        db=tmp_path / "games.sqlite3",
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim"), tablebase.AUTO_ENV: "3"},
    )
    try:
        play.expect(r"^endgame tables for kolowis size=short: building them up to 3 pieces in the background", 40)
        play.expect(r'^endgame tables for kolowis size=short ready up to 3 pieces: hints there say "win in N"', 60)
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    loaded = tablebase.load(RULESET)
    assert loaded is not None and loaded.max_pieces == 3
    # Built: the next first use has nothing to do.
    said: list[str] = []
    import os

    os.environ[tablebase.AUTO_ENV] = "3"
    try:
        assert start_first_use_build(RULESET, lambda kind, text: said.append(text)) is None
    finally:
        os.environ[tablebase.AUTO_ENV] = "0"
    assert said == []


def test_a_build_that_does_not_fit_in_memory_is_refused_before_it_starts(where: Path) -> None:
    # 8 pieces on Kolowis long: terabytes (5 needs some 6.6 GB while building, 11 GB of disk).
    out = run_zuni("tablebase", "build", "kolowis", "--pieces", "8")
    assert out.returncode == 1, out.stdout + out.stderr
    assert re.search(r"^kolowis up to 8 pieces: [\d,]+ positions, about [\d.]+ h, ", out.stdout, re.M), out.stdout
    assert "kolowis: not built: it needs about" in out.stdout and re.search(r"--pieces [2-6] fits", out.stdout)
    assert not tablebase.ruleset_dir("kolowis").exists() or not list(tablebase.ruleset_dir("kolowis").glob("*.ztb"))


def test_loaded_tables_have_their_position_index_made(where: Path) -> None:
    # Made at a search's first probe instead, the index of a piece count overran that
    # move's time (Kolowis short at 0.2 s: 2.43 times its budget, docs/strength.md).
    tablebase.ensure(RULESET, 3)
    tb = tablebase.load(RULESET)
    assert tb is not None and tb.max_pieces == 3
    assert sorted(tb._combos) == [1, 2]
    assert len(tb.combos(2)) == 25 * 24 // 2
