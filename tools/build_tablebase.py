"""Build the line games' endgame tablebases into the user data dir, and measure them.

Usage (from the repository root):

    .venv/bin/python tools/build_tablebase.py                       # the default set (below)
    .venv/bin/python tools/build_tablebase.py --ruleset mosona --pieces 5
    .venv/bin/python tools/build_tablebase.py --json                # figures as one JSON object

The default set: Mosona (both boards) and Kolowis short up to 5 pieces in all, Kolowis
(long) up to 3. Prints per table the positions, build seconds and bytes on disk, and
the total per ruleset: how many pieces fit in what time and space. Tables go to
``zuniboard.ai.tablebase.data_dir()`` ($ZUNI_TABLEBASE_DIR, else the user data dir),
where the search, the hints and ``zuni analyze`` find them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
for extra in (REPO / "host", REPO / "firmware" / "lib"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from zuniboard.ai import tablebase  # noqa: E402

DEFAULT = (("mosona", 5), ("mosona board=open", 5), ("kolowis size=short", 5), ("kolowis", 3))


def build_one(ruleset: str, pieces: int, quiet: bool) -> dict[str, Any]:
    start = time.monotonic()
    tb = tablebase.build(ruleset, pieces, None if quiet else (lambda text: print(text, file=sys.stderr, flush=True)))
    built = time.monotonic() - start
    files = tablebase.save(tb)
    rows = []
    for path in files:
        s, n = (int(x) for x in path.name[: -len(".npz")].split("v"))
        table = tb.tables[(s, n)]
        rows.append(
            {
                "table": "%dv%d" % (s, n),
                "positions": table.positions,
                "seconds": round(table.seconds, 2),
                "bytes": path.stat().st_size,
                "memory_bytes": int(table.values.nbytes),
            }
        )
    return {
        "ruleset": tb.ruleset,
        "max_pieces": pieces,
        "positions": sum(r["positions"] for r in rows),
        "seconds": round(built, 1),
        "bytes": sum(r["bytes"] for r in rows),
        "memory_bytes": sum(r["memory_bytes"] for r in rows),
        "tables": rows,
        "directory": str(tablebase.ruleset_dir(tb.ruleset)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default=None, help="one line-game ruleset (default: the default set)")
    parser.add_argument("--pieces", type=int, default=None, help="pieces in all, at most (default per ruleset)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.pieces is not None and not 2 <= args.pieces <= 8:
        parser.error("--pieces must be 2..8, not %d" % args.pieces)
    jobs = [(args.ruleset, args.pieces or 4)] if args.ruleset else [(r, args.pieces or p) for r, p in DEFAULT]
    report = []
    for ruleset, pieces in jobs:
        try:
            report.append(build_one(ruleset, pieces, args.json))
        except (ValueError, tablebase.zuni.RulesetError) as exc:
            parser.error(str(exc))
    if args.json:
        print(json.dumps({"tablebases": report}))
        return 0
    for item in report:
        print(
            "%-26s <=%d pieces: %9d positions, %7.1f s, %6.2f MB on disk, %7.1f MB in memory"
            % (
                item["ruleset"],
                item["max_pieces"],
                item["positions"],
                item["seconds"],
                item["bytes"] / 1e6,
                item["memory_bytes"] / 1e6,
            )
        )
        for row in item["tables"]:
            print(
                "    %-5s %9d positions %7.1f s %9d bytes"
                % (row["table"], row["positions"], row["seconds"], row["bytes"])
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
