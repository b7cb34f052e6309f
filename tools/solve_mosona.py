"""Who wins Mosona? Proof-number search of the start position (zuniboard.ai.solver).

Usage (from the repository root):

    .venv/bin/python tools/solve_mosona.py --time 600          # both questions, 10 min each at most
    .venv/bin/python tools/solve_mosona.py --ruleset "mosona board=open" --nodes 2000000
    .venv/bin/python tools/solve_mosona.py --method pns        # plain proof-number search (a tree)

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
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
for extra in (REPO / "host", REPO / "firmware" / "lib"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import zuni  # noqa: E402
from zuniboard.ai import solver, tablebase  # noqa: E402


def main(argv: list[str] | None = None) -> int:
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
    args = parser.parse_args(argv)
    try:
        game = zuni.new_game(args.ruleset)
        for text in args.moves.split():
            game.push_text(text)
    except zuni.ZuniError as exc:
        parser.error(str(exc))
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
        report["questions"].append(item)  # type: ignore[attr-defined]
        if not args.json:
            print(
                "  %s: %s (proof number %d, disproof number %d, %d nodes, %.0f s)"
                % (name, verdict, proof.proof_number, proof.disproof_number, proof.nodes, proof.seconds),
                flush=True,
            )
    if args.json:
        print(json.dumps(report))
    return 0


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


if __name__ == "__main__":
    sys.exit(main())
