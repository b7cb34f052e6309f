"""Benchmark of the rules engines: speed under CPython and MicroPython, and heap size.

For each ruleset:

- CPython perft nodes/s (``zuni.perft``, which bulk-counts at depth 1; CPU time), at
  the first depth that takes at least --seconds;
- the same under the MicroPython unix port (``.venv/bin/micropython``);
- legal-move generation in microseconds per position under MicroPython, averaged over
  the positions of seeded random games;
- the smallest ``-X heapsize`` (bisected to 1 KiB) with which MicroPython imports the
  engine from ``.mpy`` files (firmware/lib/zuni/*.py through mpy-cross) and plays a full
  random game of the ruleset, keeping its history as the board does.

Usage: .venv/bin/python tools/bench_rules.py [--json] [--seconds S] [RULESET ...]

Rulesets whose engine module is missing (``zuni.awith`` while it is being written) are
skipped with a note. Figures from the unix port are for this PC; an RP2040 is tens of
times slower and, being 32-bit, needs less heap for the same objects.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ZUNI_SRC = REPO / "firmware" / "lib" / "zuni"
sys.path.insert(0, str(REPO / "firmware" / "lib"))
sys.path.insert(0, str(REPO / "host"))

import zuni  # noqa: E402

RULESETS = (
    "mosona",
    "mosona board=open",
    "kolowis",
    "kolowis size=short",
    "awithlaknakwe",
    "awithlaknakwe players=4",
    "awithlaknakwe players=4 teams=combined",
)

# Runs under MicroPython: `micropython SCRIPT SECONDS RULESET`: perft and generation timing.
MP_SPEED = r"""
import sys, time
import zuni

seconds = float(sys.argv[1])
ruleset = sys.argv[2]
seed = [12345]

def rand(n):
    # A small LCG: the unix port's random module may lack choice().
    seed[0] = (seed[0] * 1103515245 + 12345) & 0x3FFFFFFF
    return (seed[0] >> 8) % n

game = zuni.new_game(ruleset)
depth = 1
while True:
    t0 = time.ticks_us()
    nodes = zuni.perft(game, depth)
    dt = time.ticks_diff(time.ticks_us(), t0)
    if dt >= seconds * 1e6 or depth >= 30:
        break
    depth += 1
gen_us = 0
calls = 0
games = 0
t_start = time.ticks_ms()
while games < 3 or time.ticks_diff(time.ticks_ms(), t_start) < seconds * 1000:
    game = zuni.new_game(ruleset)
    while True:
        t0 = time.ticks_us()
        for _ in range(5):
            moves = game.legal_moves()
        gen_us += time.ticks_diff(time.ticks_us(), t0)
        calls += 5
        if not moves:
            break
        game.push(moves[rand(len(moves))])
    games += 1
    if games >= 50:
        break
print("RESULT", depth, nodes, dt, gen_us, calls, games)
"""

# The heap probe: as small as a board's main loop would be, compiled to .mpy like the
# engine (source compiled on the device would cost heap of its own). RULESET is
# substituted; one module per ruleset.
MP_PROBE = r"""
import gc
import zuni
seed = 12345
game = zuni.new_game(RULESET)
while True:
    moves = game.legal_moves()
    if not moves:
        break
    seed = (seed * 1103515245 + 12345) & 0x3FFFFFFF
    game.push(moves[(seed >> 8) % len(moves)])
gc.collect()
print("OK", game.ply(), gc.mem_alloc())
"""


def engine_available(ruleset: str) -> str | None:
    """None if the ruleset's engine module exists, else a note saying why it is skipped."""
    game_id = ruleset.split()[0]
    module = "zuni.awith" if game_id == "awithlaknakwe" else "zuni.line"
    if importlib.util.find_spec(module) is None:
        return "%s: skipped, %s does not exist yet" % (ruleset, module)
    return None


def cpython_perft(ruleset: str, seconds: float) -> dict[str, Any]:
    game = zuni.new_game(ruleset)
    depth = 1
    while True:
        # CPU time: the machine running the suite is shared, wall time is noisy.
        started = time.process_time()
        nodes = zuni.perft(game, depth)
        elapsed = time.process_time() - started
        if elapsed >= seconds or depth >= 30:
            break
        depth += 1
    return {"depth": depth, "nodes": nodes, "seconds": round(elapsed, 3), "nodes_per_s": round(nodes / elapsed)}


def _micropython(args: list[str], path: Path, heap: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [str(BIN / "micropython")]
    if heap:
        command += ["-X", "heapsize=" + heap]
    env = {"MICROPYPATH": str(path), "PATH": "/usr/bin:/bin"}
    return subprocess.run(command + args, capture_output=True, text=True, timeout=600, env=env)


def compile_mpy(out: Path) -> Path:
    """firmware/lib/zuni/*.py compiled to out/zuni/*.mpy; returns out."""
    target = out / "zuni"
    target.mkdir(parents=True, exist_ok=True)
    for source in sorted(ZUNI_SRC.glob("*.py")):
        subprocess.run(
            [
                str(BIN / "mpy-cross"),
                "-o",
                str(target / (source.stem + ".mpy")),
                "-s",
                "zuni/" + source.name,
                str(source),
            ],
            check=True,
            capture_output=True,
        )
    return out


def micropython_speed(ruleset: str, seconds: float, script: Path, lib: Path) -> dict[str, Any]:
    result = _micropython([str(script), str(seconds), ruleset], lib, heap="8M")
    line = [x for x in result.stdout.splitlines() if x.startswith("RESULT")]
    if result.returncode != 0 or not line:
        raise RuntimeError("MicroPython speed run failed for %r:\n%s%s" % (ruleset, result.stdout, result.stderr))
    _, depth, nodes, dt_us, gen_us, gen_calls, games = line[0].split()
    return {
        "depth": int(depth),
        "nodes": int(nodes),
        "seconds": round(int(dt_us) / 1e6, 3),
        "nodes_per_s": round(int(nodes) / (int(dt_us) / 1e6)),
        "movegen_us_per_position": round(int(gen_us) / int(gen_calls), 1),
        "movegen_positions": int(gen_calls) // 5,
        "movegen_games": int(games),
    }


def min_heap(ruleset: str, lib: Path) -> dict[str, Any]:
    """Smallest heap (KiB) that imports the engine from .mpy and plays a random game."""
    source = lib / "bench_probe.py"
    source.write_text(MP_PROBE.replace("RULESET", repr(ruleset)))
    subprocess.run(
        [str(BIN / "mpy-cross"), "-o", str(lib / "bench_probe.mpy"), "-s", source.name, str(source)],
        check=True,
        capture_output=True,
    )
    source.unlink()

    def fits(kib: int) -> tuple[bool, str]:
        result = _micropython(["-m", "bench_probe"], lib, heap="%dK" % kib)
        return result.returncode == 0 and result.stdout.startswith("OK"), result.stdout.strip()

    low, high = 2, 64
    ok, detail = fits(high)
    while not ok:
        low, high = high, high * 2
        if high > 8192:
            raise RuntimeError("%r does not run even in 8 MiB: %s" % (ruleset, detail))
        ok, detail = fits(high)
    good = detail
    while high - low > 1:
        mid = (low + high) // 2
        ok, detail = fits(mid)
        if ok:
            high, good = mid, detail
        else:
            low = mid
    _, plies, alloc = good.split()
    return {"min_heap_kib": high, "game_plies": int(plies), "alloc_after_game_bytes": int(alloc)}


def bench(rulesets: list[str], seconds: float) -> dict[str, Any]:
    report: dict[str, Any] = {"rulesets": {}, "notes": []}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bench_speed.py"
        script.write_text(MP_SPEED)
        lib = compile_mpy(Path(tmp) / "lib")
        for ruleset in rulesets:
            note = engine_available(ruleset)
            if note:
                report["notes"].append(note)
                continue
            canonical = str(zuni.parse_ruleset(ruleset))
            report["rulesets"][canonical] = {
                "cpython_perft": cpython_perft(ruleset, seconds),
                "micropython": micropython_speed(ruleset, seconds, script, lib),
                "heap": min_heap(ruleset, lib),
            }
    return report


def print_table(report: dict[str, Any]) -> None:
    print(
        "%-28s %12s %12s %10s %10s %8s" % ("ruleset", "CPy nodes/s", "MPy nodes/s", "gen us/pos", "heap KiB", "plies")
    )
    for ruleset, entry in report["rulesets"].items():
        print(
            "%-28s %12d %12d %10.1f %10d %8d"
            % (
                ruleset,
                entry["cpython_perft"]["nodes_per_s"],
                entry["micropython"]["nodes_per_s"],
                entry["micropython"]["movegen_us_per_position"],
                entry["heap"]["min_heap_kib"],
                entry["heap"]["game_plies"],
            )
        )
    for note in report["notes"]:
        print("note:", note)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rulesets", nargs="*", help="rulesets to measure (default: %s)" % ", ".join(RULESETS))
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seconds", type=float, default=0.5, help="minimum time of each speed measurement")
    args = parser.parse_args(argv)
    report = bench(args.rulesets or list(RULESETS), args.seconds)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
