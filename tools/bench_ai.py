"""Benchmark of the computer player: matches between players, win rates, search speed.

Usage (from the repository root):

    .venv/bin/python tools/bench_ai.py            # full run (about 30-40 minutes on 2 idle cores)
    .venv/bin/python tools/bench_ai.py --quick    # a short run (about a minute)
    .venv/bin/python tools/bench_ai.py --json     # one JSON object on stdout instead of tables

What it plays, per game (mosona, kolowis, awithlaknakwe with 2 players; and 4 players
with ``--four`` or in the full run):

- the **table**: each level in ``--levels`` (1-3; ``--four-levels`` 1-2 for 4 players,
  whose games are long) against a random player, a greedy player and the level below,
  ``--games`` games per pairing (10). Levels think by node budget
  (``SearchPlayer(deterministic=True)``), so the table does not depend on the machine's
  load or speed;
- the **requirement**: the top level against greedy at ``--movetime`` seconds per move
  (0.2), ``--top-games`` games (50). It must win at least 95% of games in Mosona and
  Kolowis and 90% in Awithlaknakwe; the exit status is 1 when it does not.

Sides alternate from game to game; every game has its own seed. Games run in
``--workers`` processes (2). Nodes per second is the searching players' total nodes over
their total thinking time, per game.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
for extra in (REPO / "host", REPO / "firmware" / "lib"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import zuni  # noqa: E402
from zuniboard.ai import LEVEL_NODES, GreedyPlayer, Player, RandomPlayer, SearchPlayer  # noqa: E402

GAMES = {
    "mosona": "mosona",
    "kolowis": "kolowis",
    "awithlaknakwe": "awithlaknakwe",
    "awithlaknakwe-4": "awithlaknakwe players=4",
}
# The top level's required win rate against greedy, per game.
THRESHOLDS = {"mosona": 0.95, "kolowis": 0.95, "awithlaknakwe": 0.90}
MAX_PLIES = 2000


@dataclass(frozen=True)
class Spec:
    """A player to build in a worker: ``kind`` random/greedy/search; a search player
    thinks ``node_limit`` nodes or ``time_limit`` seconds."""

    kind: str
    level: int = 0
    node_limit: int | None = None
    time_limit: float | None = None

    @property
    def label(self) -> str:
        if self.kind != "search":
            return self.kind
        if self.time_limit is not None:
            return "level%d@%gs" % (self.level, self.time_limit)
        return "level%d" % self.level

    def build(self, seed: int) -> Player:
        if self.kind == "random":
            return RandomPlayer(seed)
        if self.kind == "greedy":
            return GreedyPlayer(seed)
        if self.time_limit is not None:
            return SearchPlayer(self.level, seed, time_limit=self.time_limit)
        return SearchPlayer(self.level, seed, deterministic=True, node_limit=self.node_limit)


@dataclass
class Task:
    game: str
    a: Spec
    b: Spec
    a_team: int
    seed: int


@dataclass
class GameResult:
    winner: int | None  # 0: player a won, 1: player b won, None: draw
    plies: int
    termination: str
    nodes: int
    think: float


def play(task: Task) -> GameResult:
    """One game: player a plays team ``a_team``, b the other (both partners with 4 players)."""
    game = zuni.new_game(GAMES[task.game])
    players = {task.a_team: task.a.build(task.seed), 1 - task.a_team: task.b.build(task.seed + 7919)}
    nodes = 0
    think = 0.0
    while not game.is_game_over() and game.ply() < MAX_PLIES:
        player = players[game.team_of(game.turn)]
        move = player.choose(game)
        if isinstance(player, SearchPlayer) and player.last is not None:
            nodes += player.last.nodes
            think += player.last.elapsed
        game.push(move)
    outcome = game.outcome()
    if outcome is None:
        return GameResult(None, game.ply(), "ply-limit", nodes, think)
    winner = None if outcome.winner is None else (0 if outcome.winner == task.a_team else 1)
    return GameResult(winner, game.ply(), outcome.termination, nodes, think)


@dataclass
class Pairing:
    game: str
    a: Spec
    b: Spec
    games: int
    results: list[GameResult] = field(default_factory=list)

    def tasks(self, base_seed: int) -> list[Task]:
        return [Task(self.game, self.a, self.b, i % 2, base_seed + 1000 * i) for i in range(self.games)]

    def summary(self) -> dict[str, Any]:
        wins = sum(1 for r in self.results if r.winner == 0)
        losses = sum(1 for r in self.results if r.winner == 1)
        draws = len(self.results) - wins - losses
        nodes = sum(r.nodes for r in self.results)
        think = sum(r.think for r in self.results)
        return {
            "game": self.game,
            "player": self.a.label,
            "opponent": self.b.label,
            "games": len(self.results),
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "win_rate": round(wins / len(self.results), 3) if self.results else 0.0,
            "mean_plies": round(sum(r.plies for r in self.results) / max(1, len(self.results)), 1),
            "nodes_per_second": round(nodes / think) if think else None,
        }


def build_pairings(args: argparse.Namespace) -> tuple[list[Pairing], list[Pairing]]:
    table: list[Pairing] = []
    top: list[Pairing] = []
    for game in args.games_list:
        levels = args.levels if game in THRESHOLDS else args.four_levels
        for level in [] if args.top_only else levels:
            me = Spec("search", level, node_limit=LEVEL_NODES[level])
            table.append(Pairing(game, me, Spec("random"), args.games))
            table.append(Pairing(game, me, Spec("greedy"), args.games))
            if level - 1 in LEVEL_NODES:
                below = Spec("search", level - 1, node_limit=LEVEL_NODES[level - 1])
                table.append(Pairing(game, me, below, args.games))
        if game in THRESHOLDS and args.top_games:
            top_spec = Spec("search", max(LEVEL_NODES), time_limit=args.movetime)
            top.append(Pairing(game, top_spec, Spec("greedy"), args.top_games))
    return table, top


def run(pairings: list[Pairing], workers: int, seed: int, quiet: bool) -> None:
    tasks: list[tuple[int, Task]] = []
    for index, pairing in enumerate(pairings):
        tasks.extend((index, task) for task in pairing.tasks(seed + 100_000 * index))
    done = 0
    with multiprocessing.Pool(workers) as pool:
        for number, result in pool.imap_unordered(_play_numbered, list(enumerate(task for _, task in tasks))):
            pairings[tasks[number][0]].results.append(result)
            done += 1
            if not quiet:
                task = tasks[number][1]
                verdict = {0: "won", 1: "lost", None: "drew"}[result.winner]
                print(
                    "[%d/%d] %s %s vs %s: %s in %d plies"
                    % (done, len(tasks), task.game, task.a.label, task.b.label, verdict, result.plies),
                    file=sys.stderr,
                    flush=True,
                )


def _play_numbered(item: tuple[int, Task]) -> tuple[int, GameResult]:
    return item[0], play(item[1])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a short run: 2 games a pairing, level 1, 0.05 s per move")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--games", type=int, default=None, help="games per table pairing (default 10, quick 2)")
    parser.add_argument("--top-games", type=int, default=None, help="games of top level vs greedy (default 50)")
    parser.add_argument("--movetime", type=float, default=None, help="top level's seconds per move (default 0.2)")
    parser.add_argument("--levels", default=None, help="levels in the table, e.g. 1,2,3 (default 1-3, quick 1)")
    parser.add_argument("--four-levels", default="1,2", help="levels in the 4-player table (default 1,2)")
    parser.add_argument("--only", default=None, help="comma-separated games (mosona,kolowis,awithlaknakwe,...)")
    parser.add_argument("--top-only", action="store_true", help="only the requirement (top level vs greedy)")
    parser.add_argument("--four", action="store_true", help="add 4-player Awithlaknakwe to the table")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--save", default=None, help="also write the JSON report to this file")
    args = parser.parse_args(argv)
    quick = args.quick
    if args.games is None:
        args.games = 2 if quick else 10
    if args.top_games is None:
        args.top_games = 2 if quick else 50
    if args.movetime is None:
        args.movetime = 0.05 if quick else 0.2
    if args.levels is None:
        args.levels = "1" if quick else "1,2,3"
    args.levels = _levels(parser, "--levels", args.levels)
    args.four_levels = _levels(parser, "--four-levels", args.four_levels)
    names = ["mosona", "kolowis", "awithlaknakwe"]
    if args.four or not quick:
        names.append("awithlaknakwe-4")
    if args.only:
        names = args.only.split(",")
        for name in names:
            if name not in GAMES:
                parser.error("unknown game %r in --only (allowed: %s)" % (name, ", ".join(GAMES)))
    args.games_list = names
    if args.games < 1 or args.top_games < 0 or args.movetime <= 0 or args.workers < 1:
        parser.error("--games, --workers must be >= 1, --top-games >= 0, --movetime > 0")
    return args


def _levels(parser: argparse.ArgumentParser, option: str, text: str) -> list[int]:
    try:
        levels = [int(x) for x in text.split(",")]
    except ValueError:
        parser.error("%s takes comma-separated numbers, not %r" % (option, text))
    for level in levels:
        if level not in LEVEL_NODES:
            parser.error("unknown level %d in %s (allowed: %s)" % (level, option, ", ".join(map(str, LEVEL_NODES))))
    return levels


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    start = time.monotonic()
    table, top = build_pairings(args)
    load_before = os.getloadavg()[0]
    # The requirement first: it is the part that must finish.
    run(top + table, args.workers, args.seed, args.quiet)
    requirements = []
    ok = True
    for pairing in top:
        summary = pairing.summary()
        need = THRESHOLDS[pairing.game]
        passed = summary["win_rate"] >= need
        ok = ok and passed
        requirements.append({**summary, "required": need, "ok": passed})
    report = {
        "config": {
            "quick": args.quick,
            "games_per_pairing": args.games,
            "top_games": args.top_games,
            "movetime": args.movetime,
            "levels": args.levels,
            "four_player_levels": args.four_levels,
            "level_nodes": {str(k): LEVEL_NODES[k] for k in args.levels},
            "workers": args.workers,
            "seed": args.seed,
        },
        "table": [p.summary() for p in table],
        "requirements": requirements,
        "ok": ok,
        "seconds": round(time.monotonic() - start, 1),
        # Other work on the machine slows the timed games (fewer nodes per move).
        "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
    }
    if args.save:
        Path(args.save).write_text(json.dumps(report, indent=1) + "\n")
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0 if ok or args.quick else 1


def print_report(report: dict[str, Any]) -> None:
    header = "%-16s %-14s %-14s %5s %4s %4s %4s %6s %7s %9s" % (
        "game",
        "player",
        "opponent",
        "games",
        "won",
        "drew",
        "lost",
        "win%",
        "plies",
        "nodes/s",
    )
    for title, rows in (("Levels (node budgets)", report["table"]), ("Requirement", report["requirements"])):
        print(title)
        print(header)
        for row in rows:
            line = "%-16s %-14s %-14s %5d %4d %4d %4d %5.1f%% %7.1f %9s" % (
                row["game"],
                row["player"],
                row["opponent"],
                row["games"],
                row["wins"],
                row["draws"],
                row["losses"],
                100 * row["win_rate"],
                row["mean_plies"],
                row["nodes_per_second"] or "-",
            )
            if "required" in row:
                line += "  need %d%%: %s" % (round(100 * row["required"]), "ok" if row["ok"] else "FAILED")
            print(line)
        print()
    print(
        "%s in %.0f s (load average %s at start, %s at end)"
        % (
            "all requirements met" if report["ok"] else "REQUIREMENT FAILED",
            report["seconds"],
            report["load_average"][0],
            report["load_average"][1],
        )
    )


if __name__ == "__main__":
    sys.exit(main())
