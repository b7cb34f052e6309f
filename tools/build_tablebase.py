"""Build the line games' endgame tables, and measure them: pieces against build time,
size on disk, memory and load time, per ruleset (the table in docs/tablebases.md).

Usage (from the repository root):

    .venv/bin/python tools/build_tablebase.py                    # build the default set into the user data dir
    .venv/bin/python tools/build_tablebase.py --ruleset mosona --pieces 5
    .venv/bin/python tools/build_tablebase.py --measure --pieces 2-4 [--json]

Building is what `zuni tablebase build` does (the default set: Mosona both boards and
Kolowis short up to 5 pieces, Kolowis long up to 4), into
``zuniboard.ai.tablebase.data_dir()``. ``--measure`` builds each ruleset and piece count
in a child process of its own, into a temporary directory (the user's tables are not
touched), and prints per row: positions, build seconds (wall and CPU: the CPU time
is what a busy machine does not inflate), bytes on disk, the child's
peak memory (ru_maxrss), the seconds to load the tables back (checksums included), the
longest win (moves of both sides) and the estimate `zuni tablebase build` states first.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
for extra in (REPO / "host", REPO / "firmware" / "lib"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from zuniboard.ai import tablebase  # noqa: E402

RULESETS = [r for r, _ in tablebase.DEFAULT_SET]


def measure_one(ruleset: str, pieces: int) -> dict[str, Any]:
    """Build and load ``ruleset`` up to ``pieces`` here (run in a child of its own)."""
    import numpy as np

    start = time.monotonic()
    cpu = time.process_time()
    tb = tablebase.build(ruleset, pieces)
    built = time.monotonic() - start
    built_cpu = time.process_time() - cpu
    cpu = time.process_time()
    files = tablebase.save(tb)
    save_cpu = time.process_time() - cpu
    disk = sum(p.stat().st_size for p in files)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    longest = 0
    for table in tb.tables.values():
        v = np.abs(table.values.astype(np.int32))
        won = v[v > 0]
        if won.size:
            longest = max(longest, int(tablebase.WIN_T - won.min()))
    del tb
    start = time.monotonic()
    cpu = time.process_time()
    loaded = tablebase.load(ruleset)
    load_s = time.monotonic() - start
    load_cpu_s = time.process_time() - cpu
    assert loaded is not None and loaded.max_pieces == pieces
    est = tablebase.estimate(ruleset, pieces)
    return {
        "ruleset": str(tablebase.zuni.parse_ruleset(ruleset)),
        "pieces": pieces,
        "positions": est.positions,
        "build_s": round(built, 1),
        "build_cpu_s": round(built_cpu, 1),
        "save_cpu_s": round(save_cpu, 1),
        "disk_bytes": disk,
        "peak_memory_bytes": rss,
        "load_s": round(load_s, 2),
        "load_cpu_s": round(load_cpu_s, 2),
        "longest_win": longest,
        "estimate_s": round(est.seconds, 1),
        "estimate_disk_bytes": est.disk_bytes,
        "estimate_memory_bytes": est.memory_bytes,
    }


def _pieces(text: str) -> list[int]:
    first, _, last = text.partition("-")
    low, high = int(first), int(last or first)
    if not 2 <= low <= high <= 8:
        raise argparse.ArgumentTypeError("pieces %r: N or FROM-TO within 2..8" % text)
    return list(range(low, high + 1))


def measure(rulesets: list[str], pieces: list[int], timeout: float, as_json: bool) -> int:
    rows = []
    for ruleset in rulesets:
        for p in pieces:
            with tempfile.TemporaryDirectory(prefix="zuni-tb-measure-") as where:
                env = dict(os.environ, ZUNI_TABLEBASE_DIR=where)
                try:
                    out = subprocess.run(
                        [sys.executable, __file__, "--child", ruleset, str(p)],
                        capture_output=True,
                        text=True,
                        timeout=timeout,
                        env=env,
                    )
                except subprocess.TimeoutExpired:
                    rows.append({"ruleset": ruleset, "pieces": p, "error": "over %d s" % timeout})
                    break  # more pieces take longer still
                if out.returncode != 0:
                    rows.append({"ruleset": ruleset, "pieces": p, "error": out.stderr.strip().splitlines()[-1:]})
                    break
                rows.append(json.loads(out.stdout))
            if not as_json:
                _print_row(rows[-1])
    if as_json:
        print(json.dumps({"tablebases": rows}))
    return 0


def _print_row(row: dict[str, Any]) -> None:
    if "error" in row:
        print("%-22s %d  %s" % (row["ruleset"], row["pieces"], row["error"]), flush=True)
        return
    print(
        "%-22s %d  %11s positions %8.1f s (%.1f s CPU, %.1f s CPU to write) %9.1f kB %7.0f MB %6.2f s load"
        "  longest win %3d"
        "  (estimate %.0f s, %.0f kB, %.0f MB)"
        % (
            row["ruleset"],
            row["pieces"],
            "{:,}".format(row["positions"]),
            row["build_s"],
            row["build_cpu_s"],
            row["save_cpu_s"],
            row["disk_bytes"] / 1e3,
            row["peak_memory_bytes"] / 1e6,
            row["load_s"],
            row["longest_win"],
            row["estimate_s"],
            row["estimate_disk_bytes"] / 1e3,
            row["estimate_memory_bytes"] / 1e6,
        ),
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default=None, help="one line-game ruleset (default: the default set)")
    parser.add_argument("--pieces", default=None, help="pieces in all, at most (N), or FROM-TO with --measure")
    parser.add_argument("--measure", action="store_true", help="measure into a temporary directory instead")
    parser.add_argument("--timeout", type=float, default=1800, help="--measure: seconds per row at most")
    parser.add_argument("--json", action="store_true", help="--measure: print one JSON object")
    parser.add_argument("--child", nargs=2, metavar=("RULESET", "PIECES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure_one(args.child[0], int(args.child[1]))))
        return 0
    rulesets = [args.ruleset] if args.ruleset else RULESETS
    if args.measure:
        return measure(rulesets, _pieces(args.pieces or "2-4"), args.timeout, args.json)
    from zuniboard.cli import main as zuni_main

    status = 0
    for ruleset in rulesets:
        pieces = args.pieces or str(dict(tablebase.DEFAULT_SET).get(ruleset) or tablebase.default_pieces(ruleset))
        status = status or zuni_main(["tablebase", "build", ruleset, "--pieces", pieces])
    return status


if __name__ == "__main__":
    sys.exit(main())
