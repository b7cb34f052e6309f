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


def _rss() -> dict[str, int]:
    """This process's resident memory now (Linux: /proc/self/status), in bytes: all of
    it, its own (anonymous) pages, and the mapped files' pages (the system's file cache)."""
    out = {"rss": 0, "anon": 0, "file": 0}
    names = {"VmRSS:": "rss", "RssAnon:": "anon", "RssFile:": "file"}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                parts = line.split()
                if parts and parts[0] in names:
                    out[names[parts[0]]] = int(parts[1]) * 1024
    except OSError:
        pass
    return out


def measure_one(ruleset: str, pieces: int) -> dict[str, Any]:
    """Build ``ruleset`` up to ``pieces`` here as `zuni tablebase build` does
    (``tablebase.ensure``: a layer at a time, to disk), in a child of its own."""
    import numpy as np

    start = time.monotonic()
    cpu = time.process_time()
    tb = tablebase.ensure(ruleset, pieces)
    built = time.monotonic() - start
    built_cpu = time.process_time() - cpu
    where = tablebase.ruleset_dir(ruleset)
    disk = sum(p.stat().st_size for p in where.glob("*v*" + tablebase.store.SUFFIX))
    raw = sum(p.stat().st_size for p in where.glob("*" + tablebase.store.RAW_SUFFIX))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    longest = 0
    for table in tb.tables.values():
        for layer in table.values:  # a layer at a time: a mapped table stays on disk
            v = np.abs(np.asarray(layer).astype(np.int32))
            won = v[v > 0]
            if won.size:
                longest = max(longest, int(tablebase.WIN_T - won.min()))
    est = tablebase.estimate(ruleset, pieces)
    return {
        "ruleset": str(tablebase.zuni.parse_ruleset(ruleset)),
        "pieces": pieces,
        "positions": est.positions,
        "build_s": round(built, 1),
        "build_cpu_s": round(built_cpu, 1),
        "disk_bytes": disk,
        "mapped_bytes": raw,
        "peak_memory_bytes": rss,
        "longest_win": longest,
        "estimate_s": round(est.seconds, 1),
        "estimate_disk_bytes": est.disk_bytes,
        "estimate_memory_bytes": est.memory_bytes,
    }


def load_one(ruleset: str, probes: int) -> dict[str, Any]:
    """Load the tables built (a fresh process, as `zuni play` does) and measure its
    memory: after loading, and after ``probes`` probes of random positions."""
    import random

    before = _rss()
    start = time.monotonic()
    cpu = time.process_time()
    tb = tablebase.load(ruleset)
    load_s = time.monotonic() - start
    load_cpu_s = time.process_time() - cpu
    assert tb is not None
    loaded = _rss()
    rng = random.Random(1)
    tables = list(tb.tables.values())
    for _ in range(probes):
        table = rng.choice(tables)
        int(table.values[rng.randrange(table.values.shape[0]), rng.randrange(table.values.shape[1])])
    probed = _rss()
    return {
        "load_s": round(load_s, 2),
        "load_cpu_s": round(load_cpu_s, 2),
        "loaded_rss_bytes": loaded["rss"] - before["rss"],
        "loaded_own_bytes": loaded["anon"] - before["anon"],
        "probes": probes,
        "probed_rss_bytes": probed["rss"] - before["rss"],
        "probed_own_bytes": probed["anon"] - before["anon"],
    }


def check_identical(ruleset: str, pieces: int) -> int:
    """Build ``ruleset`` up to ``pieces`` with the first builder (tests/
    tablebase_reference.py, all in memory) and with ``zuni tablebase build``'s, and
    compare the files byte for byte."""
    sys.path.insert(0, str(REPO / "tests"))
    import tablebase_reference

    with tempfile.TemporaryDirectory(prefix="zuni-tb-check-") as where:
        os.environ["ZUNI_TABLEBASE_DIR"] = where
        cpu = time.process_time()
        tablebase.ensure(ruleset, pieces)
        new_cpu = time.process_time() - cpu
        cpu = time.process_time()
        old = tablebase_reference.build(ruleset, pieces)
        old_cpu = time.process_time() - cpu
        reference = Path(where) / "reference"
        tablebase.save(old, reference)
        built = tablebase.ruleset_dir(ruleset)
        bad = []
        for path in sorted(reference.glob("*v*" + tablebase.store.SUFFIX)):
            if (built / path.name).read_bytes() != path.read_bytes():
                bad.append(path.name)
        print(
            "%s up to %d pieces: %d tables, %s (new builder %.1f s CPU, first builder %.1f s CPU)"
            % (
                ruleset,
                pieces,
                len(old.tables),
                "byte-identical" if not bad else "DIFFERENT: %s" % ", ".join(bad),
                new_cpu,
                old_cpu,
            ),
            flush=True,
        )
        return 1 if bad else 0


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
                row = json.loads(out.stdout)
                loaded = subprocess.run(
                    [sys.executable, __file__, "--load-child", ruleset],
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                    env=env,
                )
                if loaded.returncode == 0:
                    row.update(json.loads(loaded.stdout))
                else:
                    row["load_error"] = loaded.stderr.strip().splitlines()[-1:]
                rows.append(row)
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
        "%-22s %d  %11s positions %8.1f s (%.1f s CPU) %9.1f kB (+ %.0f MB mapped) peak %5.0f MB"
        "  load %.2f s, %.0f MB own + %.0f MB mapped (%.0f MB own, %.0f MB in all after %d probes)"
        "  longest win %3d  (estimate %.0f s, %.0f kB, %.0f MB)"
        % (
            row["ruleset"],
            row["pieces"],
            "{:,}".format(row["positions"]),
            row["build_s"],
            row["build_cpu_s"],
            row["disk_bytes"] / 1e3,
            row["mapped_bytes"] / 1e6,
            row["peak_memory_bytes"] / 1e6,
            row.get("load_s", -1),
            row.get("loaded_own_bytes", 0) / 1e6,
            (row.get("loaded_rss_bytes", 0) - row.get("loaded_own_bytes", 0)) / 1e6,
            row.get("probed_own_bytes", 0) / 1e6,
            row.get("probed_rss_bytes", 0) / 1e6,
            row.get("probes", 0),
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
    parser.add_argument(
        "--check-identical",
        action="store_true",
        help="build with the first builder too and compare the files byte for byte",
    )
    parser.add_argument("--probes", type=int, default=100_000, help="--measure: random probes after loading")
    parser.add_argument("--child", nargs=2, metavar=("RULESET", "PIECES"), help=argparse.SUPPRESS)
    parser.add_argument("--load-child", metavar="RULESET", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure_one(args.child[0], int(args.child[1]))))
        return 0
    if args.load_child:
        print(json.dumps(load_one(args.load_child, args.probes)))
        return 0
    rulesets = [args.ruleset] if args.ruleset else RULESETS
    if args.check_identical:
        status = 0
        for ruleset in rulesets:
            for p in _pieces(args.pieces or "4"):
                status = status or check_identical(ruleset, p)
        return status
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
