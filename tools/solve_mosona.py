"""Who wins Mosona? Proof-number search of the start position (zuniboard.ai.solver).

Usage (from the repository root):

    .venv/bin/python tools/solve_mosona.py --time 600          # both questions, 10 min each at most
    .venv/bin/python tools/solve_mosona.py --ruleset "mosona board=open" --nodes 2000000
    .venv/bin/python tools/solve_mosona.py --method pns        # plain proof-number search (a tree)
    .venv/bin/python tools/solve_mosona.py --engine c --team north --verify   # compiled, 7-piece tables

Depth-first proof-number search (df-pn) by default. Asks two questions of the start
position: does North (the second player) win by force, and does South? Leaves with few
pieces are settled by the endgame tables in the user data dir (build them first with
tools/build_tablebase.py; without them the search goes to the end of every game).
Prints for each question: proved, disproved or unsettled, the root's proof and disproof
numbers, nodes and seconds; ``--json`` for one object.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

REPO = Path(__file__).resolve().parent.parent
for extra in (REPO / "host", REPO / "firmware" / "lib", REPO / "tools"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import zuni  # noqa: E402
from zuniboard.ai import solver, tablebase  # noqa: E402

if TYPE_CHECKING:
    import linesolve


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        game = zuni.new_game(args.ruleset)
        for text in args.moves.split():
            game.push_text(text)
    except zuni.ZuniError as exc:
        parser.error(str(exc))
    if args.engine == "c":
        return run_c(game, args)
    tb = tablebase.for_ruleset(str(game.ruleset))
    if args.mainline:
        return run_mainline(game, args, tb)
    teams = {"north": [1], "south": [0], "both": [1, 0]}[args.team]
    report = {
        "ruleset": str(game.ruleset),
        "moves": args.moves,
        "tablebase_pieces": tb.max_pieces if tb else 0,
        "questions": [],
    }
    for team in teams:
        report["questions"].append(_question(game, team, args, tb))  # type: ignore[attr-defined]
    if args.json:
        print(json.dumps(report))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="mosona", help="a line-game ruleset (default mosona)")
    parser.add_argument("--time", type=float, default=300.0, help="seconds per question at most (default 300)")
    parser.add_argument("--nodes", type=int, default=50_000_000, help="nodes per question at most")
    parser.add_argument("--moves", default="", help="moves played first, space-separated (default: none)")
    parser.add_argument("--team", choices=("north", "south", "both"), default="both", help="whose win to prove")
    parser.add_argument("--method", choices=("dfpn", "pns"), default="dfpn", help="df-pn (default) or plain PNS")
    parser.add_argument(
        "--mainline",
        type=int,
        default=0,
        metavar="NODES",
        help="instead: self-play with NODES nodes a move, then find the earliest position of that line that"
        " the proof search settles for the winner within --time seconds (bisection)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--engine",
        choices=("python", "c"),
        default="python",
        help="python: zuniboard.ai.solver; c: the compiled df-pn of tools/linesolve (its own tables)",
    )
    parser.add_argument("--pieces", type=int, default=7, help="--engine c: endgame tables up to this many pieces")
    parser.add_argument("--tt-mb", type=int, default=2048, help="--engine c: transposition table, MB")
    parser.add_argument("--init", type=int, default=1, help="--engine c: new nodes' numbers (0 1/1, 1 mobility)")
    parser.add_argument(
        "--verify",
        action="store_true",
        help="--engine c: check a proof with the Python rules engine (every reply, the winner's moves, the leaves)",
    )
    parser.add_argument(
        "--recheck-leaves",
        type=int,
        default=0,
        metavar="PIECES",
        help="with --verify: solve the proof's table leaves of more than PIECES pieces again by df-pn with"
        " tables up to PIECES only (a search instead of the bigger tables); --recheck-nodes, --recheck-time",
    )
    parser.add_argument("--recheck-nodes", type=int, default=1_000_000, help="nodes per leaf rechecked")
    parser.add_argument("--recheck-time", type=float, default=900.0, help="seconds for all the rechecks")
    parser.add_argument("--book-out", type=Path, help="--engine c: write the proven winner's moves (the book) here")
    parser.add_argument("--nice", type=int, default=19, help="--engine c: run the solver at this nice level")
    return parser


def _question(game: zuni.Game, team: int, args: argparse.Namespace, tb: tablebase.Tablebase | None) -> dict[str, Any]:
    """Does ``team`` win by force: the proof search's answer, printed unless --json."""
    name = game.team_names()[team]
    if not args.json:
        print("does %s win by force? (tables up to %d pieces)" % (name, tb.max_pieces if tb else 0), flush=True)
    if args.method == "pns":
        proof = solver.prove(
            game, team, node_limit=args.nodes, time_limit=args.time, tb=tb, progress_every=0 if args.json else 30
        )
    else:
        proof = solver.prove_dfpn(game, team, node_limit=args.nodes, time_limit=args.time, tb=tb)
    verdict = {True: "proved", False: "disproved", None: "unsettled"}[proof.result]
    item = {
        "team": name,
        "result": verdict,
        "proof_number": proof.proof_number,
        "disproof_number": proof.disproof_number,
        "nodes": proof.nodes,
        "seconds": round(proof.seconds, 1),
        "line": proof.line,
    }
    if not args.json:
        print(
            "  %s: %s (proof number %d, disproof number %d, %d nodes, %.0f s)"
            % (name, verdict, proof.proof_number, proof.disproof_number, proof.nodes, proof.seconds),
            flush=True,
        )
    return item


def run_mainline(game: zuni.Game, args: argparse.Namespace, tb: tablebase.Tablebase | None) -> int:
    """The deepest proven result along the computer's own main line."""
    from zuniboard.ai import SearchPlayer

    start = game.copy()
    player = SearchPlayer(5, seed=1, deterministic=True, node_limit=args.mainline)
    line = []
    while not game.is_game_over():
        move = player.choose(game)
        line.append(str(move))
        game.push(move)
    outcome = game.outcome()
    assert outcome is not None
    if outcome.winner is None:
        print("the main line is a draw (%s): nothing to prove for a winner" % (outcome.termination,))
        return 0
    winner = outcome.winner
    name = game.team_names()[winner]
    print("main line (%d moves, %s wins by %s): %s" % (len(line), name, outcome.termination, " ".join(line)))
    # Bisection on the earliest position (moves played) the search proves for the winner.
    low, high = 0, len(line)  # high: proved (the end is won); low: not proved, or the start
    results = {}
    while high - low > 1:
        mid = (low + high) // 2
        position = start.copy()
        for text in line[:mid]:
            position.push_text(text)
        proof = solver.prove(position, winner, node_limit=args.nodes, time_limit=args.time, tb=tb)
        verdict = {True: "proved", False: "disproved", None: "unsettled"}[proof.result]
        results[mid] = verdict
        print(
            "  after %d moves: %s wins by force? %s (%d nodes, %.0f s)"
            % (mid, name, verdict, proof.nodes, proof.seconds),
            flush=True,
        )
        if proof.result:
            high = mid
        else:
            low = mid
    print(
        "earliest position of the main line proved a %s win: after %d moves (%s)" % (name, high, " ".join(line[:high]))
    )
    return 0


def run_c(game: zuni.Game, args: argparse.Namespace) -> int:
    """The compiled solver: tables built (once, into build/linesolve), then df-pn."""
    import linesolve

    teams = {"north": [1], "south": [0], "both": [1, 0]}[args.team]
    if args.pieces >= 2:
        path, text = linesolve.build_tables(str(game.ruleset), args.pieces)
        if text and not args.json:
            print(text.strip())
        if not args.json:
            print("tables: %s (%.0f MB)" % (path, path.stat().st_size / 1e6), flush=True)
    report: dict[str, Any] = {"ruleset": str(game.ruleset), "moves": args.moves, "pieces": args.pieces, "questions": []}
    status = 0
    for team in teams:
        item, solution = _c_question(game, team, args)
        report["questions"].append(item)
        if not args.json:
            _print_c_answer(item, solution, args)
    if args.json:
        print(json.dumps(report))
    return status


def _c_question(game: zuni.Game, team: int, args: argparse.Namespace) -> tuple[dict[str, Any], linesolve.Solution]:
    """Does ``team`` win by force: the compiled solver's answer, its book read, verified and
    written as the options ask; the report's item and the solution."""
    import linesolve

    name = game.team_names()[team]
    book = None
    with tempfile.TemporaryDirectory() as tmp:
        if args.verify or args.book_out:
            book = Path(tmp) / "book.txt"
        solution = linesolve.solve(
            game,
            team,
            pieces=args.pieces,
            nodes=args.nodes,
            seconds=args.time,
            tt_mb=args.tt_mb,
            progress=0 if args.json else 30,
            book=book,
            book_plies=100_000 if book else 0,
            init=args.init,
            nice=args.nice,
        )
        verdict = {True: "proved", False: "disproved", None: "unsettled"}[solution.result]
        f = solution.figures
        item: dict[str, Any] = {
            "team": name,
            "result": verdict,
            "proof_number": solution.proof_number,
            "disproof_number": solution.disproof_number,
            "nodes": solution.nodes,
            "seconds": solution.seconds,
            "cpu_seconds": float(f.get("cpu", 0)),
            "nodes_per_cpu_second": round(solution.nodes / max(float(f.get("search_cpu", 0)), 1e-3)),
            "line": solution.line,
            "pieces": args.pieces,
        }
        if solution.book is not None:
            entries = book_entries(game, solution.book)
            item["book_positions"] = len(entries)
            if args.verify:
                item["verified"] = verify(game, team, entries, args.pieces)
                if args.recheck_leaves:
                    item["rechecked"] = recheck_leaves(game, team, entries, args)
            if args.book_out:
                write_book(args.book_out, game, team, entries, item)
    return item, solution


def _print_c_answer(item: dict[str, Any], solution: linesolve.Solution, args: argparse.Namespace) -> None:
    print(
        "  %s wins by force? %s (proof number %d, disproof number %d, %d nodes, %.1f s, %.1f s CPU,"
        " %d nodes per CPU second)"
        % (
            item["team"],
            item["result"],
            solution.proof_number,
            solution.disproof_number,
            solution.nodes,
            solution.seconds,
            item["cpu_seconds"],
            item["nodes_per_cpu_second"],
        ),
        flush=True,
    )
    if solution.line:
        print("  principal line: %s" % " ".join(solution.line))
    if "verified" in item:
        print("  verified with the Python engine: %s" % item["verified"])
    if "rechecked" in item:
        print("  table leaves solved again by search: %s" % item["rechecked"])
    if args.book_out and solution.book is not None:
        print("  book: %d positions written to %s" % (item["book_positions"], args.book_out))


def book_entries(game: zuni.Game, path: Path) -> dict[str, str]:
    """The C solver's book (position -> position after the winner's move) as the
    book's keys -> move texts, the moves found by the Python engine."""
    import linesolve

    from zuni.line import LineGame

    out: dict[str, str] = {}
    ruleset = game.ruleset
    names = game.geometry.names
    for text in path.read_text().splitlines():
        s, n, turn, quiet, cs, cn = (int(x) for x in text.split())
        key = book_key(s, n, turn, quiet)
        if key in out:
            continue
        pieces = "south %s north %s" % (
            " ".join(names[p] for p in range(len(names)) if s >> p & 1),
            " ".join(names[p] for p in range(len(names)) if n >> p & 1),
        )
        position = LineGame.from_position(ruleset, pieces, "north" if turn else "south", quiet=quiet)
        out[key] = str(linesolve.move_to(position, cs, cn))
    return out


def book_key(south: int, north: int, turn: int, quiet: int) -> str:
    # The same text as zuniboard.ai.book.position_key.
    return "%x:%x:%d:%d" % (south, north, turn, quiet)


def verify(game: zuni.Game, team: int, book: dict[str, str], pieces: int) -> str:
    """Walk the proof with the Python rules engine: at the winner's turns the book's move
    (it must be legal), at the other side's every legal move; each line must end in a
    game the winner has won, or in a position of at most ``pieces`` pieces that the C
    tables (checked against the Python tables in tests/unit/test_linesolve.py) call won."""
    import linesolve

    stack = [game.copy()]
    seen: set[str] = set()
    leaves: list[tuple[int, int, int, int]] = []
    ended = 0
    inner = 0
    while stack:
        position = stack.pop()
        s, n, turn, quiet = linesolve.position(position)
        key = book_key(s, n, turn, quiet)
        if key in seen:
            continue
        seen.add(key)
        outcome = position.outcome()
        if outcome is not None:
            if outcome.winner != team:
                raise SystemExit("verification failed: %s ends %s" % (position.describe(), outcome))
            ended += 1
            continue
        if sum(position.counts) <= pieces:
            leaves.append((s, n, turn, quiet))
            continue
        inner += 1
        if position.team_of(position.turn) == team:
            text = book.get(key)
            if text is None:
                raise SystemExit("verification failed: no book move at %s" % (position.describe(),))
            moves = [m for m in position.legal_moves() if str(m) == text]
            if len(moves) != 1:
                raise SystemExit("verification failed: book move %s is not legal at %s" % (text, position.describe()))
            chosen = moves
        else:
            chosen = list(position.legal_moves())
        for move in chosen:
            child = position.copy()
            child.push(move)
            stack.append(child)
    rules = linesolve.rules_file(str(game.ruleset))
    tables = linesolve.tables_path(str(game.ruleset), pieces)
    lines = "".join("%d %d %d %d\n" % leaf for leaf in leaves)
    result = subprocess.run(
        [str(linesolve.binary()), str(rules), "probe", str(tables)], input=lines, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise SystemExit("verification failed: probe: %s" % result.stderr)
    values = [int(v) for v in result.stdout.split()]
    assert len(values) == len(leaves)
    for (s, n, turn, quiet), value in zip(leaves, values, strict=True):
        want = 1 if turn == team else -1
        if value != want:
            raise SystemExit("verification failed: table leaf %x %x %d %d is %d" % (s, n, turn, quiet, value))
    return "ok: %d positions searched, %d games won by the rules, %d table positions won" % (inner, ended, len(leaves))


def proof_leaves(game: zuni.Game, team: int, book: dict[str, str], pieces: int) -> list[zuni.Game]:
    """The positions of at most ``pieces`` pieces where the proof's lines end (not over)."""
    import linesolve

    stack = [game.copy()]
    seen: set[tuple[int, int, int, int]] = set()
    out = []
    while stack:
        position = stack.pop()
        key = linesolve.position(position)
        if key in seen or position.outcome() is not None:
            continue
        seen.add(key)
        if sum(position.counts) <= pieces:
            out.append(position)
            continue
        if position.team_of(position.turn) == team:
            moves = [m for m in position.legal_moves() if str(m) == book[book_key(*key)]]
        else:
            moves = list(position.legal_moves())
        for move in moves:
            child = position.copy()
            child.push(move)
            stack.append(child)
    return out


def recheck_leaves(game: zuni.Game, team: int, book: dict[str, str], args: argparse.Namespace) -> str:
    """The table leaves of more than ``--recheck-leaves`` pieces, solved again by df-pn
    with the smaller tables only, in a fixed random order, within --recheck-time."""
    import random
    import time

    import linesolve

    small = args.recheck_leaves
    leaves = [p for p in proof_leaves(game, team, book, args.pieces) if sum(p.counts) > small]
    random.Random(1).shuffle(leaves)
    agree = disagree = unsettled = nodes = 0
    start = time.monotonic()
    for position in leaves:
        if time.monotonic() - start > args.recheck_time:
            break
        solution = linesolve.solve(position, team, pieces=small, nodes=args.recheck_nodes, tt_mb=256, nice=args.nice)
        nodes += solution.nodes
        if solution.result is None:
            unsettled += 1
        elif solution.result:
            agree += 1
        else:
            disagree += 1
            print("  DISAGREES with the tables: %s" % position.describe(), flush=True)
    return "%d of the %d leaves of %d-%d pieces: %d won again, %d disagree, %d unsettled (%d nodes, %.0f s)" % (
        agree + disagree + unsettled,
        len(leaves),
        small + 1,
        args.pieces,
        agree,
        disagree,
        unsettled,
        nodes,
        time.monotonic() - start,
    )


def write_book(path: Path, game: zuni.Game, team: int, book: dict[str, str], item: dict[str, Any]) -> None:
    head = [
        "# The proven strategy of %s in %s: %s's winning move at each of its positions in the proof tree."
        % (game.team_names()[team], game.ruleset, game.team_names()[team]),
        "# Made by: tools/solve_mosona.py --engine c --team %s --pieces %d --book-out %s"
        % (game.team_names()[team], item["pieces"], path),
        "# Proof: %d df-pn nodes; lines end in games won or in positions of the C endgame tables." % (item["nodes"],),
        "# Principal line: %s" % " ".join(item["line"]),
        "# A line: SOUTH:NORTH:TURN:QUIET MOVE (point bit sets in hex, point p = bit p in the"
        " engine's order n1.., m1.., s1..; turn 0 South, 1 North; the quiet count).",
    ]
    body = ["%s %s" % (key, book[key]) for key in sorted(book)]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(head + body) + "\n")
    tmp.replace(path)


if __name__ == "__main__":
    sys.exit(main())
