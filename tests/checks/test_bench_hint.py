"""tools/bench_hint.py: the board's hint plays whole games against a random and a
greedy mover, and the same seeded games give the same result under CPython and the
MicroPython unix port (the hint search is deterministic on both)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import bench_hint  # noqa: E402

from zuni_board.hint import MAX_WORK  # noqa: E402


def test_the_hint_beats_a_random_and_a_greedy_mover_in_mosona() -> None:
    for opponent in ("random", "greedy"):
        row = bench_hint.run("mosona", opponent, 4, 1, "cpython")
        assert row["games"] == 4 and row["hints"] > 10, row
        assert row["wins"] >= 3, row
        assert row["mean_work"] <= MAX_WORK, row
        assert row["forced"] + sum(row["depths"]) == row["hints"], row
        assert row["depths"][0] == 0, "every hint completes depth 1: %r" % row


def test_micropython_plays_the_same_games() -> None:
    try:
        micropython_executable()
    except MicroPythonMissing as exc:  # pragma: no cover
        pytest.skip(str(exc))
    on_pc = bench_hint.run("kolowis size=short", "greedy", 2, 3, "cpython")
    on_mp = bench_hint.run("kolowis size=short", "greedy", 2, 3, "micropython")
    for key in ("wins", "draws", "losses", "mean_plies", "hints", "mean_nodes", "mean_work", "mean_slices"):
        assert on_pc[key] == on_mp[key], (key, on_pc, on_mp)
