#!/usr/bin/env python3
"""Check the C solver's endgame tables against the host's own (Python/numpy) tables.

The proof that North wins Mosona (docs/rules.md) rests on the C tables up to 7 pieces;
the tests compare them with the Python tables value for value up to 3 pieces. This
tool compares them where both exist at any size (the host's tables reach 6 pieces once
``zuni tablebase build mosona --pieces 6`` has run): random positions of every material
balance, at random quiet counts, the C table's win/draw/loss against the sign of the
Python table's value. Positions where the side to move has already lost or won by the
rules are included as the tables hold them.

    .venv/bin/python tools/check_c_tables.py mosona --pieces 6 --per-table 20000
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))

import linesolve  # noqa: E402

from zuniboard.ai import tablebase  # noqa: E402


def sample(points: int, south: int, north: int, rng: random.Random) -> tuple[int, int]:
    chosen = rng.sample(range(points), south + north)
    s = 0
    for p in chosen[:south]:
        s |= 1 << p
    n = 0
    for p in chosen[south:]:
        n |= 1 << p
    return s, n


def _sample(
    tb: tablebase.Tablebase, pieces: int, per_table: int, seed: int
) -> tuple[list[tuple[int, int, int, int]], list[int]]:
    """``per_table`` random positions of each material balance up to ``pieces`` (both sides
    on the board): (south, north, turn, quiet) each, and the host's tables' verdict for the
    side to move (1 win, 0 draw, -1 loss)."""
    rng = random.Random(seed)
    queries: list[tuple[int, int, int, int]] = []
    expected: list[int] = []
    for s, n in sorted(tb.tables):
        if s + n > pieces or s == 0 or n == 0:
            continue
        for _ in range(per_table):
            south, north = sample(tb.points, s, n, rng)
            turn = rng.randrange(2)
            quiet = rng.randrange(tb.quiet + 1)
            found = tb.index(south, north, turn == 1)
            assert found is not None
            t, i = found
            value = int(t.values[tb.quiet - quiet, i])
            queries.append((south, north, turn, quiet))
            expected.append((value > 0) - (value < 0))
    return queries, expected


def _probe(ruleset: str, c_tables: Path, queries: list[tuple[int, int, int, int]]) -> list[int]:
    """The C tables' verdicts of the positions, from linesolve's probe."""
    text = "".join("%d %d %d %d\n" % q for q in queries)
    result = subprocess.run(
        [str(linesolve.binary()), str(linesolve.rules_file(ruleset)), "probe", str(c_tables)],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    return [int(line) for line in result.stdout.split()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ruleset", nargs="?", default="mosona")
    ap.add_argument("--pieces", type=int, default=6, help="largest material balance compared")
    ap.add_argument("--c-pieces", type=int, default=None, help="the C tables' size to read (default: --pieces)")
    ap.add_argument("--c-tables", type=Path, default=None, help="a C tables file (default: build it or find it)")
    ap.add_argument("--per-table", type=int, default=20000, help="positions sampled per material balance")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    tb = tablebase.load(args.ruleset)
    if tb is None or tb.max_pieces < args.pieces:
        print(
            "the host's tables for %s do not reach %d pieces: run zuni tablebase build %s --pieces %d"
            % (args.ruleset, args.pieces, args.ruleset, args.pieces),
            file=sys.stderr,
        )
        return 2
    c_tables = args.c_tables
    if c_tables is None:
        c_tables, _ = linesolve.build_tables(args.ruleset, args.c_pieces or args.pieces)
    queries, expected = _sample(tb, args.pieces, args.per_table, args.seed)
    started = time.monotonic()
    got = _probe(args.ruleset, c_tables, queries)
    if len(got) != len(queries):
        print("the C probe answered %d of %d positions" % (len(got), len(queries)), file=sys.stderr)
        return 1
    wrong = [(q, e, g) for q, e, g in zip(queries, expected, got, strict=True) if e != g]
    kinds = {v: expected.count(v) for v in (1, 0, -1)}
    print(
        "%s: %d positions up to %d pieces (%d wins, %d draws, %d losses for the side to move), C tables %s; "
        "%d disagree (%.1f s)"
        % (
            args.ruleset,
            len(queries),
            args.pieces,
            kinds[1],
            kinds[0],
            kinds[-1],
            c_tables.name,
            len(wrong),
            time.monotonic() - started,
        )
    )
    for (s, n, turn, quiet), e, g in wrong[:10]:
        print(
            "  south %#x north %#x %s to move, quiet %d: python %+d, C %+d"
            % (s, n, "north" if turn else "south", quiet, e, g)
        )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
