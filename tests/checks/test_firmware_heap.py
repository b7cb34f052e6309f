"""Heap regression: whole scripted games through the board application (layout, debounce,
inference, LEDs, journal, the board's own hint) under the real MicroPython unix port with a
fixed ``-X heapsize``, the firmware imported from .mpy as on the board
(tools/bench_firmware.py's runner). Measured minimums without the hint (64-bit unix port,
the runner's measuring code no longer loaded in these runs): board25 ~111-113 KiB, board49
~121 KiB, board168 ~123 KiB (the same runner on main d223fc9: 107/119/117-119; the ordered
event stream, the outbox with its degraded mode and the overlays cost ~4 KiB of code;
were 123/133/176 before the layout loader was dropped after use, and board168 131 before
zuni.awith's square names became interned strings); with it, see HEAP_KIB.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import bench_firmware as bench  # noqa: E402

from zuniboard.games import layouts  # noqa: E402
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable  # noqa: E402

try:
    micropython_executable()
except MicroPythonMissing as exc:  # pragma: no cover
    pytest.skip("MicroPython not available: %s" % exc, allow_module_level=True)

# The target was every game in 128 KiB; the board's own hint (issue 17: HINT
# before every 4th move, the board thinking by itself) may add 8 KiB to what the same
# game needs without it (bench.HEAP_BASELINE_KIB). Measured by bisection to 1 KiB
# 2026-12-02 on this 64-bit port (a fragmented heap makes the edge ragged by a KiB or
# two), without / with the hint: board25 120 / 126 (Mosona), 119 / 126 (open board),
# 119 / 123 (short Kolowis), board49 130 / 130 (the hint fits where the commits' peaks
# leave room), board168 129 / 137 (2 players) and 132 / 140 (4 players) KiB. The hint's
# code (zuni_board.hint about 4.5 KB here, 1 KB more than with a generator a ply;
# zuni.evaluate 1.6 KB or, for Awithlaknakwe,
# zuni.evaluate_awith and its tables 2.8 KB) is loaded at HINT and unloaded once the
# hint is shown; its search is one generator made with it, its plies on a stack of
# small lists (no generator frame to find room for mid-search: in a 137 KiB heap two-
# player Awithlaknakwe ran out in the search with 5 KB free in pieces too small for
# a frame; zuni.awith's undo chunks are 192 bytes, not 256, for the same reason).
# Since the commit leaves the next position to the scan after it (its frame within
# 200 ms on the RP2040, docs/firmware-timing.md): 121 / 126, 119 / -, 119 / -, 131 / 130,
# 130 / 138 and 132 / 141 (bench.HEAP_LIMIT_KIB: the 4-player game gets the hint's 8 KiB
# and one more).
# Before that: 2 players 138 (a generator frame a ply), and before the code
# was unloaded (the Awithlaknakwe tables built at every game start, a 32-bit peak
# 6.5-9.7 KiB over the game's): 125 / 133 / 136 / 140 against 117 / 127 / 127 / 131
# without the hint. On the 32-bit port (below) the hint adds 3.2-7.2 KiB at its peak.
# Two-player Awithlaknakwe is on the edge of its budget (its game's heap + 8): what
# fails at 136 is loading the hint's code and tables.
HEAP_KIB = bench.HEAP_LIMIT_KIB


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A directory with a short path, the same length however pytest runs (as the
    benchmark's): the game's paths (its journal's) are strings on the heap, and on the
    ragged edge of a fragmented heap a few bytes more can tip a run (pytest's own paths
    are longer under xdist)."""
    path = Path(tempfile.mkdtemp(prefix="zh-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def lib() -> Iterator[Path]:
    # A short path too: each HINT imports the search again, which builds the module
    # paths (this directory's) as strings on the heap.
    root = Path(tempfile.mkdtemp(prefix="zh-", dir="/tmp"))
    out = root / "lib"
    bench.compile_firmware(out)
    yield out
    shutil.rmtree(root, ignore_errors=True)


def _spec(tmp: Path, ruleset: str, board: str) -> Path:
    moves = bench.scripted_game(ruleset, 1)
    journal = tmp / "journal"
    journal.mkdir()
    moves_path = tmp / "moves.txt"
    moves_path.write_text("\n".join(moves) + "\n")
    # The layout from the short directory too: its path is a string on the heap, and the
    # clone's own path (CI's is not ours) must not move the ragged edge.
    layout = tmp / "layout.json"
    shutil.copyfile(REPO / "hardware" / "layouts" / (board + ".json"), layout)
    # The layout packed as tools/deploy.py packs it: the board's boot reads that.
    bench.pack_layout(layout)
    spec = {
        "layout": str(layout),
        "ruleset": ruleset,
        "moves": str(moves_path),
        "journal": str(journal),
        "packed": layouts.PACKED_MODULE,
        # HINT before every 4th move, the board thinking by itself each time
        # (zuni_board.hint): the search's lists and frames count too.
        "hint_every": 4,
    }
    path = tmp / "spec.json"
    path.write_text(json.dumps(spec))
    return path


@pytest.mark.parametrize(
    ("ruleset", "board"),
    [("kolowis", "board49"), ("awithlaknakwe", "board168"), ("awithlaknakwe players=4", "board168")],
)
def test_a_whole_game_fits_the_heap(lib: Path, short_tmp: Path, ruleset: str, board: str) -> None:
    spec = _spec(short_tmp, ruleset, board)
    result = bench.run_once(lib, spec, HEAP_KIB[ruleset], timeout=60)
    assert result is not None, "%s on %s did not complete in a %d KiB heap" % (ruleset, board, HEAP_KIB[ruleset])
    assert result["ok"] and result["moves"] > 20
    assert result["hints"] > 3, "the board showed its own hint"
    assert result["host_code"] is False, "a board without a host never loads the host's commands"
    # The layout loader is gone once the board is read: only the packed Board stays.
    assert result["mem"]["layout"] < 12 * 1024, result["mem"]


# A game on a clock (docs/clocks.md: zuni_board.clocks and zuni.clock, loaded only for
# one): measured by bisection 2026-12-02, Kolowis on board49 with the hint, 145 KiB
# against 134 without a clock on this 64-bit port; on the 32-bit port (WebAssembly) the
# clocks add ~7.7 KB of live heap (app 78.0 -> 85.6 KB, peak 90.3 -> 98.1 KB; docs/clocks.md).
# With the line games' own hint search (its 3 KB arena, zuni.linefast's code: issue 24)
# the clock game's edge is 155 (bisected 2026-12-07) against Kolowis' 141 without a clock;
# with the hint's code loaded a module a scan (its steps resident in zuni_board.play, the
# arena held from the press) 156; with the LED supply's ~FAULT reader (zuni_hw.fault,
# resident: issue 23) 157.
CLOCK_KIB = 16


def test_a_whole_game_on_a_clock_fits_the_heap(lib: Path, short_tmp: Path) -> None:
    spec = _spec(short_tmp, "kolowis", "board49")
    data = json.loads(spec.read_text())
    data["clock"] = "600"  # the game as a host starts it: new clock=600 kolowis
    spec.write_text(json.dumps(data))
    heap = HEAP_KIB["kolowis"] + CLOCK_KIB
    result = bench.run_once(lib, spec, heap, timeout=60)
    assert result is not None, "kolowis on a clock did not complete in a %d KiB heap" % heap
    assert result["ok"] and result["moves"] > 20
    assert result.get("clock") == "600", "the game ran on the clock"


def test_the_same_game_fails_in_a_heap_far_too_small(lib: Path, tmp_path: Path) -> None:
    # The check can fail: a heap well under the game's need does not complete it.
    spec = _spec(tmp_path, "awithlaknakwe", "board168")
    assert bench.run_once(lib, spec, 64, timeout=60) is None


# The same firmware on a 32-bit MicroPython (the RP2040 is 32-bit): the WebAssembly port
# from npm under Node (tools/ensure_wasm.sh installs it). Measured: a whole 4-player
# Awithlaknakwe game peaks at ~85 KiB in use, runner included (0.73 of the 64-bit port's);
# the limit leaves ~10 % for growth, as the 128 KiB above does.
WASM_PEAK_KIB = 96


def test_a_whole_game_on_a_32_bit_micropython(lib: Path, tmp_path: Path) -> None:
    import shutil
    import subprocess

    if shutil.which("node") is None:
        pytest.skip("node is not installed: the 32-bit (WebAssembly) MicroPython cannot run here")
    subprocess.run(["bash", str(REPO / "tools" / "ensure_wasm.sh")], check=True, timeout=300)
    moves = bench.scripted_game("awithlaknakwe players=4", 1)
    moves_path = tmp_path / "moves.txt"
    moves_path.write_text("\n".join(moves) + "\n")
    layout = REPO / "hardware" / "layouts" / "board168.json"
    result = bench.wasm_heap(lib, layout, "awithlaknakwe players=4", moves_path, timeout=120)
    assert result is not None, "the game did not complete on the WebAssembly port"
    assert result["moves"] == len(moves)
    assert result["port"].startswith("2147483647 "), "a 32-bit port (sys.maxsize 2**31-1): %r" % result["port"]
    assert result["peak"] < WASM_PEAK_KIB * 1024, result


# The same Kolowis game without the hint peaks at 83.5 KiB on the 32-bit port; the hint
# may add 9 (measured 2026-12-02: 86.5 KiB at its peak; 2026-12-07 with the line games'
# own search, zuni_board.linehint: 91.5 KiB, its 3 KB arena and zuni.linefast's code; the
# RP2040 keeps 80 KB and more free through a Kolowis game with hints). Peak 94688 bytes
# on main e6876a03, 32 under the limit; 94736 (2026-12-07, issue 24) with the runner's
# choice of the packed layout (``packed``: the unix port's runs read it as the board
# does at boot; this port's reads the JSON) and the layout's boot-time code in a module
# of its own (zuni_board.packed): 16 over, hence the half KiB.
WASM_KOLOWIS_HINT_KIB = 83.5 + 9.5


def test_the_boards_hint_on_a_32_bit_micropython(lib: Path, tmp_path: Path) -> None:
    # HINT before every 4th move of a Kolowis game, the heap measured at every scan while
    # the board thinks.
    import shutil
    import subprocess

    if shutil.which("node") is None:
        pytest.skip("node is not installed: the 32-bit (WebAssembly) MicroPython cannot run here")
    subprocess.run(["bash", str(REPO / "tools" / "ensure_wasm.sh")], check=True, timeout=300)
    moves = bench.scripted_game("kolowis", 1)
    moves_path = tmp_path / "moves.txt"
    moves_path.write_text("\n".join(moves) + "\n")
    layout = REPO / "hardware" / "layouts" / "board49.json"
    result = bench.wasm_heap(lib, layout, "kolowis", moves_path, timeout=120, hint_every=4)
    assert result is not None, "the game did not complete on the WebAssembly port"
    assert result["moves"] == len(moves)
    assert result["hint_peak"] > result["app"], "the board thought (heap measured while it did)"
    assert result["peak"] < WASM_KOLOWIS_HINT_KIB * 1024, result
