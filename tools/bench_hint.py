"""Strength of the board's own hint: games where one team plays every move HINT would
show (zuni_board.hint, as the board runs it: sliced, default budget) against a random
mover and a greedy one (most captures now), under CPython or the MicroPython unix port
(the same module: tools/bench_hint_runner.py). Prints win/draw/loss counts and rates,
and the search's mean nodes, slices and depth per hint.

    .venv/bin/python tools/bench_hint.py                       # CPython, 20 games a pairing
    .venv/bin/python tools/bench_hint.py --interp micropython  # the unix port
    .venv/bin/python tools/bench_hint.py --games 6 --rulesets mosona --json

The hint takes the first team in even games and the second in odd ones; a game that
has not ended by the rules after bench_hint_runner.MAX_PLIES plies is a draw. Seeded:
the same games every run, on either interpreter.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "firmware" / "lib"))
sys.path.insert(0, str(REPO / "host"))
sys.path.insert(0, str(REPO / "tools"))

BIN = Path(sys.executable).parent
RULESETS = ("mosona", "kolowis", "awithlaknakwe", "awithlaknakwe players=4")
OPPONENTS = ("random", "greedy")


def run(ruleset: str, opponent: str, games: int, seed: int, interp: str) -> dict[str, Any]:
    spec = {"ruleset": ruleset, "opponent": opponent, "games": games, "seed": seed}
    if interp == "cpython":
        import bench_hint_runner

        result: dict[str, Any] = bench_hint_runner.play(ruleset, opponent, games, seed)
        return result
    env = {"MICROPYPATH": "%s:%s" % (REPO / "firmware" / "lib", REPO / "tools"), "PATH": "/usr/bin:/bin"}
    code = "import bench_hint_runner as r; r.main(%r)" % json.dumps(spec)
    proc = subprocess.run(
        # A heap of a few boards' size: a collection of a 4 MB heap costs far more than the board's.
        [str(BIN / "micropython"), "-X", "heapsize=512K", "-c", code],
        env=env,
        capture_output=True,
        text=True,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH "):
            data: dict[str, Any] = json.loads(line[6:])
            return data
    raise RuntimeError("%s vs %s under MicroPython failed:\n%s%s" % (ruleset, opponent, proc.stdout, proc.stderr))


def _trimmed(counts: list[int]) -> list[int]:
    """``counts`` without its trailing zeros (depth 0 to the deepest reached)."""
    end = len(counts)
    while end > 4 and not counts[end - 1]:
        end -= 1
    return counts[:end]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--interp", choices=("cpython", "micropython"), default="cpython")
    parser.add_argument("--games", type=int, default=20, help="games per ruleset and opponent")
    parser.add_argument("--rulesets", nargs="*", default=list(RULESETS))
    parser.add_argument("--opponents", nargs="*", default=list(OPPONENTS), choices=OPPONENTS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = [run(r, o, args.games, args.seed, args.interp) for r in args.rulesets for o in args.opponents]
    for row in rows:
        row["score_rate"] = round((row["wins"] + 0.5 * row["draws"]) / row["games"], 3)
    if args.json:
        print(json.dumps({"interp": args.interp, "rows": rows}, indent=2))
        return 0
    _print_scores(rows, args.interp, args.games)
    print()
    _print_depths(rows, args.interp == "micropython")
    return 0


def _print_scores(rows: list[dict[str, Any]], interp: str, games: int) -> None:
    """The hint's score against each opponent, with its nodes, slices and depth."""
    print("the board's hint against other movers (%s, %d games each)" % (interp, games))
    print(
        "%-24s %-7s %4s %4s %4s %6s %6s %6s %6s %6s %6s"
        % ("ruleset", "vs", "won", "draw", "lost", "score", "plies", "nodes", "slices", "depth", "ms")
    )
    for row in rows:
        print(
            "%-24s %-7s %4d %4d %4d %5.0f%% %6d %6d %6d %6.1f %6.1f"
            % (
                row["ruleset"],
                row["opponent"],
                row["wins"],
                row["draws"],
                row["losses"],
                100 * row["score_rate"],
                row["mean_plies"],
                row["mean_nodes"],
                row["mean_slices"],
                row["mean_depth_x10"] / 10,
                row["mean_hint_us"] / 1000,
            )
        )
    print("score: (won + draw/2) / games. nodes, slices, depth, ms: per hint, mean (ms: this machine, unsliced")
    print("overhead included; the RP2040 figures are tools/bench_firmware.py's).")


def _print_depths(rows: list[dict[str, Any]], chip: bool) -> None:
    """The depths each hint completed (and on the RP2040 estimate, under MicroPython)."""
    print("depths completed per hint (positions with one legal move apart, as forced):")
    print(
        "%-24s %-7s %6s %-20s %s"
        % (
            "ruleset",
            "vs",
            "forced",
            "depth 0/1/2/...",
            "on the RP2040 estimate (cut at 1.3 s), worst ms" if chip else "",
        )
    )
    for row in rows:
        line = "%-24s %-7s %6d %-20s" % (
            row["ruleset"],
            row["opponent"],
            row["forced"],
            "/".join(map(str, _trimmed(row["depths"]))),
        )
        if chip:
            line += " %s  %d" % ("/".join(map(str, _trimmed(row["chip_depths"]))), row["chip_max_ms"])
        print(line)
    if chip:
        print("RP2040 estimate: each slice max(10 ms, unix time x 190 + 3.1 ms), each slice's best of three runs of")
        print("the same search; the depth reached is the deepest done in a slice that starts before the 1.3 s cut.")


if __name__ == "__main__":
    sys.exit(main())
