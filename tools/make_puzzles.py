#!/usr/bin/env python3
"""Makes the puzzles `zuni puzzle` ships (host/zuniboard/learn/puzzles/<game>.json).

"Win in N" puzzles from endgame tables built here (small enough that the tests build the
same tables and prove every puzzle again: 4 pieces on the 25-point boards, 3 on Kolowis
long); Mosona proof-book puzzles ("find North's only winning reply": the book positions
where the proof search proves the book's move wins and refutes every other North move;
a position with a second winning move, or one the search cannot settle, is rejected);
Awithlaknakwe custody tactics from the search. Prints what it made and how long each
part took.

    .venv/bin/python tools/make_puzzles.py            # all games
    .venv/bin/python tools/make_puzzles.py --game mosona --count 12 --seed 1
    .venv/bin/python tools/make_puzzles.py --game mosona --kind book   # the others kept as shipped
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from zuniboard.ai import tablebase as tbm
from zuniboard.learn import puzzles as P

# Ruleset -> the pieces of the tables its puzzles come from (what the tests can build).
TABLE_RULESETS = {
    "mosona": ("mosona", 4),
    "mosona board=open": ("mosona", 4),
    "kolowis size=short": ("kolowis", 4),
    "kolowis": ("kolowis", 3),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", choices=("mosona", "kolowis", "awithlaknakwe"), action="append")
    ap.add_argument("--count", type=int, default=10, help="puzzles per ruleset and kind (at most)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tries", type=int, default=150000, help="random positions tried per ruleset")
    ap.add_argument("--book-nodes", type=int, default=P.BOOK_NODES)
    ap.add_argument("--book-pieces", type=int, default=9, help="book positions with at most this many pieces")
    ap.add_argument(
        "--kind", choices=P.KINDS, action="append", help="make only these kinds; the others are kept as shipped"
    )
    ap.add_argument("--out", type=Path, default=P.PUZZLE_DIR)
    args = ap.parse_args(argv)
    games = args.game or ["mosona", "kolowis", "awithlaknakwe"]
    kinds = set(args.kind or P.KINDS)
    made: dict[str, list[P.Puzzle]] = {g: [] for g in games}
    made_by = {g: "tools/make_puzzles.py %s" % " ".join(argv if argv is not None else sys.argv[1:]) for g in games}
    for game in games:
        shipped = args.out / ("%s.json" % game)
        if kinds != set(P.KINDS) and shipped.exists():
            made[game] += [p for p in P.load_puzzles(game, shipped) if p.kind not in kinds]
            before = json.loads(shipped.read_text(encoding="utf-8")).get("made_by", "")
            made_by[game] = "%s; then %s" % (before, made_by[game]) if before else made_by[game]
    for ruleset, (game, pieces) in TABLE_RULESETS.items():
        if game not in games or not ({"table", "book"} & kinds and (ruleset == "mosona" or "table" in kinds)):
            continue
        made[game] += _table_and_book_puzzles(ruleset, pieces, kinds, args)
    if "awithlaknakwe" in games and "custody" in kinds:
        t = time.process_time()
        found = P.custody_puzzles(args.count, seed=args.seed)
        print("awithlaknakwe custody: %d puzzles in %.1f CPU s" % (len(found), time.process_time() - t), flush=True)
        made["awithlaknakwe"] += found
    _write(made, made_by, args.out)
    return 0


def _table_and_book_puzzles(ruleset: str, pieces: int, kinds: set[str], args: argparse.Namespace) -> list[P.Puzzle]:
    """The ruleset's win-in-N puzzles from its endgame tables of ``pieces`` pieces, and
    (Mosona) the book's, as ``kinds`` asks."""
    t = time.process_time()
    tb = tbm.build(ruleset, pieces)
    built = time.process_time() - t
    t = time.process_time()
    found = []
    if "table" in kinds:
        found = P.table_puzzles(ruleset, tb, args.count, seed=args.seed, max_n=21, tries=args.tries)
    if not found and "table" in kinds:
        # Small tables of a big board (Kolowis long, 3 pieces) hold few long unique
        # wins: take the wins in 1 too (one winning move among tempting others).
        found = P.table_puzzles(ruleset, tb, args.count, seed=args.seed, min_n=1, max_n=21, tries=args.tries)
    print(
        "%-20s %d-piece tables %.1f CPU s; %d win-in-N puzzles in %.1f CPU s (N: %s)"
        % (ruleset, pieces, built, len(found), time.process_time() - t, " ".join(str(p.n) for p in found)),
        flush=True,
    )
    out = found
    if ruleset == "mosona" and "book" in kinds:
        t = time.process_time()
        book = P.book_puzzles(tb, args.count, max_pieces=args.book_pieces, nodes=args.book_nodes)
        print("mosona book: %d puzzles in %.1f CPU s" % (len(book), time.process_time() - t), flush=True)
        out += book
    return out


def _write(made: dict[str, list[P.Puzzle]], made_by: dict[str, str], out: Path) -> None:
    """Each game's puzzles file."""
    out.mkdir(parents=True, exist_ok=True)
    for game, found in made.items():
        path = out / ("%s.json" % game)
        data = {
            "game": game,
            "made_by": made_by[game],
            "puzzles": [p.to_data() for p in found],
        }
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print("%s: %d puzzles" % (path, len(found)))


if __name__ == "__main__":
    sys.exit(main())
