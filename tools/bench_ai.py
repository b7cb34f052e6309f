"""Benchmark of the computer player: matches between players, win rates, search speed.

Usage (from the repository root):

    .venv/bin/python tools/bench_ai.py            # full run (about 30-40 minutes on 2 idle cores)
    .venv/bin/python tools/bench_ai.py --quick    # a short run (about a minute)
    .venv/bin/python tools/bench_ai.py --json     # one JSON object on stdout instead of tables
    .venv/bin/python tools/bench_ai.py --vs-uct --results vs_uct.jsonl     # against plain UCT
    .venv/bin/python tools/bench_ai.py --vs-uct --only mosona --sides south --uct-times 1 \
        --uct-games 10 --results vs_uct.jsonl                      # one cell, resumed when run again
    .venv/bin/python tools/bench_ai.py --vs-uct --results vs_uct.jsonl --table   # its table
    .venv/bin/python tools/bench_ai.py --speed    # search speed: nodes and CPU time to a fixed depth
    .venv/bin/python tools/bench_ai.py --endgames # the endgame tables on disk, and who wins Mosona
    .venv/bin/python tools/bench_ai.py --ladder --ladder-games 10   # the levels' Elo-like ratings

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

**Against plain UCT** (``--vs-uct``): the searching player at ``--uct-times`` seconds
per move (0.2,1) against ``zuniboard.ai.uct.UCTPlayer`` at the same time per move
(UCB1, C = sqrt 2, random playouts: the field's standard agent), ``--uct-games`` games
per ruleset, time and side, one game at a time (timed games must not share a core).
It reports per ruleset and side the score (wins + draws/2) with its 95% Wilson
interval, the games it rests on, nodes per second and the slowest move of each player
as a share of its time (the searching player's by the wall clock and in CPU time).
``--sides`` picks the searching player's sides (south,north), ``--only`` the rulesets
and ``--uct-times`` the times, so one cell (ruleset, side, time) can be run alone.

Results accumulate: ``--results FILE`` appends every game as a JSON line as it ends
(moves included) and, before playing, counts the games the file already holds for each
cell with the same engine: ``--uct-games N`` then plays only what each cell lacks, so an
interrupted run resumes where it stopped. ``--table`` plays nothing and prints the
table of the file's games. The engine is a digest of the computer player's sources
(``engine_tag()``): games of an older engine are kept in the file but not counted
(``--engine all`` counts every game, ``--engine TAG`` an older engine's).

**The level ladder** (``--ladder``): per game (``--only``; default Mosona, Kolowis,
Kolowis short, Awithlaknakwe), matches between neighbours only: random v level 1, level
n v level n+1 up to ``--ladder-levels`` (5), plain UCT at fixed playouts v the level
nearest it (``ladder.UCT_RUNGS``), ``--ladder-games`` games a pair (10), levels by node
budget as in the table (so the ladder does not depend on the machine's load). Each game
starts after ``--ladder-openings`` random plies (6) that leave the material even, the
same for two games in a row, one with each side: Mosona is won by force by North, and
from level 3 the computer plays the proof, so from the rules' start every game would be
won by the side. One rating per player is fitted to all the games of a game (``ladder.fit``: Elo's model, a
draw half a win, random = 0), printed with about a 95% interval and the games behind it.

**Search speed** (``--speed``): fixed positions of each ruleset searched to a fixed
depth without tables: nodes (fewer: better pruning) and nodes per CPU second (the
fastest of three runs, since other work on the machine only ever slows a run).
docs/strength.md has the figures of all three.

**Endgames** (``--endgames``): the line games' endgame tables on this computer (pieces,
positions, disk; ``zuni tablebase build`` makes them), then the Mosona solver's figures:
the compiled df-pn of ``tools/linesolve`` asked whether North and whether South wins the
default Mosona start by force, with the C tables up to ``--solver-pieces`` (7; built on
first use into ``build/linesolve``, about 2 CPU minutes and 1.5 GB; 0 skips the solver).
docs/rules.md ("Who wins Mosona?") and docs/tablebases.md have the figures.

Sides alternate from game to game; every game has its own seed. Games run in
``--workers`` processes (2). Nodes per second is the searching players' total nodes over
their total thinking time, per game.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import multiprocessing
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
for extra in (REPO / "host", REPO / "firmware" / "lib"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import math  # noqa: E402

import ladder  # noqa: E402  (tools/ladder.py, beside this file)

import zuni  # noqa: E402
from zuniboard.ai import (  # noqa: E402
    LEVEL_NODES,
    GreedyPlayer,
    Player,
    RandomPlayer,
    SearchPlayer,
    tablebase,
)
from zuniboard.ai.uct import UCTPlayer  # noqa: E402

GAMES = {
    "mosona": "mosona",
    "kolowis": "kolowis",
    "awithlaknakwe": "awithlaknakwe",
    "awithlaknakwe-4": "awithlaknakwe players=4",
    "kolowis-short": "kolowis size=short",
    "mosona-open": "mosona board=open",
}
# The rulesets played against UCT (--vs-uct), in the order of the table.
UCT_GAMES = ("mosona", "kolowis", "kolowis-short", "awithlaknakwe", "awithlaknakwe-4")
# The top level's required win rate against greedy, per game.
THRESHOLDS = {"mosona": 0.95, "kolowis": 0.95, "awithlaknakwe": 0.90}
MAX_PLIES = 2000


@dataclass(frozen=True)
class Spec:
    """A player to build in a worker: ``kind`` random/greedy/search/uct; a search player
    thinks ``node_limit`` nodes or ``time_limit`` seconds, UCT ``node_limit`` playouts."""

    kind: str
    level: int = 0
    node_limit: int | None = None
    time_limit: float | None = None

    @property
    def label(self) -> str:
        if self.kind == "uct":
            return "uct@%dp" % (self.node_limit or 0)
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
        if self.kind == "uct":
            return UCTPlayer(seed, iterations=self.node_limit)
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
    # Random plies played first (the ladder's openings): the same for the two games of a
    # pair of seeds, one with each side, so that who moves first in a won or lost game
    # (Mosona: North wins by force, and levels 3-5 play the proof) weighs nothing.
    opening: int = 0
    opening_seed: int = 0


@dataclass
class GameResult:
    winner: int | None  # 0: player a won, 1: player b won, None: draw
    plies: int
    termination: str
    nodes: int
    think: float


def material(game: zuni.Game) -> list[int]:
    """Each team's pieces on the board."""
    count = [0, 0]
    for p in range(len(game.board)):
        piece = game.piece_at(p)
        if piece is not None:
            count[game.team_of(piece[0])] += 1
    return count


def opening_game(name: str, plies: int, seed: int) -> zuni.Game:
    """A game of ``name`` after ``plies`` random plies that leave the material even (the
    first such of up to 200 draws; captures are compulsory in the line games, and a
    random ply often gives a piece away, which would weigh more than the levels)."""
    rng = random.Random(seed)
    game = zuni.new_game(GAMES[name])
    for _ in range(200):
        game = zuni.new_game(GAMES[name])
        for _ in range(plies):
            if game.is_game_over():
                break
            game.push(rng.choice(game.legal_moves()))
        count = material(game)
        if not game.is_game_over() and count[0] == count[1]:
            return game
    return game


def play(task: Task) -> GameResult:
    """One game: player a plays team ``a_team``, b the other (both partners with 4 players)."""
    game = opening_game(task.game, task.opening, task.opening_seed)
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
    opening: int = 0  # random plies before each game (pairs of games share them)

    def tasks(self, base_seed: int) -> list[Task]:
        return [
            Task(self.game, self.a, self.b, i % 2, base_seed + 1000 * i, self.opening, base_seed + 1000 * (i // 2))
            for i in range(self.games)
        ]

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


LADDER_GAMES = ("mosona", "kolowis", "kolowis-short", "awithlaknakwe")


def ladder_pairings(games: list[str], levels: list[int], count: int, opening: int = 0) -> list[Pairing]:
    """Neighbours' matches of the ladder (module doc), per game, each game after
    ``opening`` random plies (the same for each pair of games, one with each side)."""
    out: list[Pairing] = []
    for game in games:
        specs = [Spec("random")] + [Spec("search", lv, node_limit=LEVEL_NODES[lv]) for lv in levels]
        for lower, upper in itertools.pairwise(specs):
            out.append(Pairing(game, upper, lower, count, opening=opening))
        for playouts, level in ladder.UCT_RUNGS:
            if level in levels:
                out.append(
                    Pairing(game, Spec("search", level, node_limit=LEVEL_NODES[level]), Spec("uct", 0, playouts), count)
                )
    return out


def ladder_report(pairings: list[Pairing]) -> list[dict[str, Any]]:
    """Per game: each player's rating (random = 0), its interval, and the matches."""
    out = []
    for game in dict.fromkeys(p.game for p in pairings):
        rows = [p.summary() for p in pairings if p.game == game and p.results]
        for r in rows:
            # The player's score (a draw half a win) and its 95% Wilson interval: whether
            # two neighbours separate is whether the interval leaves out 50%.
            points = r["wins"] + r["draws"] / 2
            r["score"] = round(points / r["games"], 3)
            r["score_interval"] = [round(x, 3) for x in wilson(points, r["games"])]
        results = [(r["player"], r["opponent"], r["wins"] + r["draws"] / 2, r["games"]) for r in rows]
        rating = ladder.fit(results, anchor="random")
        players = sorted(rating, key=lambda name: rating[name])
        out.append(
            {
                "game": game,
                "ratings": [
                    {
                        "player": name,
                        "rating": round(rating[name]),
                        "interval": round(ladder.interval(results, rating, name)) if name != "random" else 0,
                        "games": sum(g for a, b, _, g in results if name in (a, b)),
                    }
                    for name in players
                ],
                "matches": rows,
            }
        )
    return out


def run_ladder(args: argparse.Namespace) -> int:
    start = time.monotonic()
    pairings = ladder_pairings(args.ladder_list, args.ladder_levels, args.ladder_games, args.ladder_openings)
    run(pairings, args.workers, args.seed, args.quiet)
    report = {
        "ladder": ladder_report(pairings),
        "games_per_pair": args.ladder_games,
        "opening_plies": args.ladder_openings,
        "level_nodes": {str(k): LEVEL_NODES[k] for k in args.ladder_levels},
        "seconds": round(time.monotonic() - start, 1),
    }
    if args.save:
        Path(args.save).write_text(json.dumps(report, indent=1) + "\n")
    if args.json:
        print(json.dumps(report))
        return 0
    for block in report["ladder"]:
        print("%s: rating (random = 0; 400 more: about 91%% of the points), about 95%% interval, games" % block["game"])
        for r in block["ratings"]:
            print("  %-12s %6d  +-%-5s %4d games" % (r["player"], r["rating"], r["interval"] or "-", r["games"]))
        print("  matches (player v opponent: won-drawn-lost, the player's score and its 95% interval)")
        for m in block["matches"]:
            low, high = m["score_interval"]
            print(
                "    %-10s v %-10s %2d-%d-%d  %3.0f%% (%2.0f-%3.0f%%)%s  %5.1f plies"
                % (
                    m["player"],
                    m["opponent"],
                    m["wins"],
                    m["draws"],
                    m["losses"],
                    100 * m["score"],
                    100 * low,
                    100 * high,
                    "" if low > 0.5 or high < 0.5 else " not separated",
                    m["mean_plies"],
                )
            )
    print(
        "%d games a pair, each after %d random plies (a pair of games shares them, one with each side), %.0f s"
        % (args.ladder_games, args.ladder_openings, report["seconds"])
    )
    return 0


def _play_numbered(item: tuple[int, Task]) -> tuple[int, GameResult]:
    return item[0], play(item[1])


# -- against plain UCT -----------------------------------------------------------------


@dataclass
class UctGame:
    game: str
    movetime: float
    side: str  # the searching player's team: "south" (team 0) or "north" (team 1)
    seed: int
    result: str = ""  # "win", "draw", "loss" for the searching player
    plies: int = 0
    termination: str = ""
    nodes: int = 0
    think: float = 0.0
    worst_search: float = 0.0  # slowest move / movetime
    worst_uct: float = 0.0
    worst_search_cpu: float = 0.0  # slowest move in CPU time / movetime (wall minus waiting for a core)
    uct_playouts: int = 0
    uct_think: float = 0.0
    engine: str = ""  # engine_tag() of the searching player
    moves: list[str] = field(default_factory=list)


def play_uct(task: UctGame) -> UctGame:
    """One game of the searching player (``task.side``) against UCT at equal time per move."""
    game = zuni.new_game(GAMES[task.game])
    mine = 0 if task.side == "south" else 1
    if game.ruleset.game_id != "awithlaknakwe":
        # The endgame tables are loaded before the clocks start, as a program loads its
        # tables before a match (a search never waits for them; see tablebase.for_ruleset).
        tablebase.for_ruleset(str(game.ruleset))
    task.engine = task.engine or engine_tag()
    searcher = SearchPlayer(5, task.seed, time_limit=task.movetime)
    uct = UCTPlayer(task.seed + 7919, time_limit=task.movetime)
    while not game.is_game_over() and game.ply() < MAX_PLIES:
        if game.team_of(game.turn) == mine:
            start = time.monotonic()
            cpu = time.process_time()
            move = searcher.choose(game)
            took = time.monotonic() - start
            task.worst_search = max(task.worst_search, took / task.movetime)
            task.worst_search_cpu = max(task.worst_search_cpu, (time.process_time() - cpu) / task.movetime)
            if searcher.last is not None:
                task.nodes += searcher.last.nodes
                task.think += searcher.last.elapsed
        else:
            start = time.monotonic()
            move = uct.choose(game)
            took = time.monotonic() - start
            task.worst_uct = max(task.worst_uct, took / task.movetime)
            task.uct_playouts += uct.last_iterations
            task.uct_think += uct.last_elapsed
        task.moves.append(str(move))
        game.push(move)
    outcome = game.outcome()
    task.plies = game.ply()
    if outcome is None or outcome.winner is None:
        task.result = "draw"
        task.termination = "ply-limit" if outcome is None else outcome.termination
    else:
        task.result = "win" if outcome.winner == mine else "loss"
        task.termination = outcome.termination
    return task


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate ``score / n`` (draws count half)."""
    if n == 0:
        return (0.0, 1.0)
    p = score / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = (centre - spread) / (1 + z * z / n)
    high = (centre + spread) / (1 + z * z / n)
    return (max(0.0, low), min(1.0, high))


def uct_summary(games: list[UctGame]) -> list[dict[str, Any]]:
    rows: dict[tuple[str, float, str], list[UctGame]] = {}
    for g in games:
        rows.setdefault((g.game, g.movetime, g.side), []).append(g)
    out = []
    order = {name: i for i, name in enumerate(UCT_GAMES)}
    cells = sorted(rows, key=lambda cell: (order.get(cell[0], len(order)), cell[0], cell[1], cell[2] != "south"))
    for name, movetime, side in cells:
        group = rows[(name, movetime, side)]
        wins = sum(1 for g in group if g.result == "win")
        draws = sum(1 for g in group if g.result == "draw")
        losses = len(group) - wins - draws
        score = wins + draws / 2
        low, high = wilson(score, len(group))
        think = sum(g.think for g in group)
        out.append(
            {
                "game": name,
                "movetime": movetime,
                "side": side,
                "games": len(group),
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "score": round(score / len(group), 3),
                "ci95": [round(low, 3), round(high, 3)],
                "nodes_per_second": round(sum(g.nodes for g in group) / think) if think else None,
                "uct_playouts_per_second": round(sum(g.uct_playouts for g in group) / sum(g.uct_think for g in group))
                if sum(g.uct_think for g in group)
                else None,
                "worst_move_share": round(max(g.worst_search for g in group), 3),
                "worst_uct_move_share": round(max(g.worst_uct for g in group), 3),
                "worst_move_cpu_share": round(max(g.worst_search_cpu for g in group), 3),
                "mean_plies": round(sum(g.plies for g in group) / len(group), 1),
            }
        )
    return out


def engine_tag() -> str:
    """A digest of the computer player's sources (host ai package, shared evaluation
    with Awithlaknakwe's terms): results of different engines are told apart without
    asking git."""
    digest = hashlib.sha1()
    sources = sorted((REPO / "host" / "zuniboard" / "ai").glob("*.py"))
    # The shared evaluation: the line games' and Awithlaknakwe's terms and tables.
    for name in ("evaluate.py", "evaluate_awith.py", "awith_reach.py"):
        sources.append(REPO / "firmware" / "lib" / "zuni" / name)
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:10]


_UCT_FIELDS = set(UctGame.__dataclass_fields__)


def read_results(path: Path) -> list[UctGame]:
    """The games of a results file (JSON lines); a line that is not a game is an error
    naming the file and the line."""
    games: list[UctGame] = []
    if not path.exists():
        return games
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or not {"game", "movetime", "side", "seed", "result"} <= set(data):
                raise ValueError("not a game against UCT")
            games.append(UctGame(**{k: v for k, v in data.items() if k in _UCT_FIELDS}))
        except (ValueError, TypeError) as error:
            raise SystemExit("%s line %d: %s" % (path, number, error)) from None
    return games


def run_vs_uct(args: argparse.Namespace) -> int:
    results = Path(args.results) if args.results else None
    engine = engine_tag()
    wanted = engine if args.engine is None else (None if args.engine == "all" else args.engine)
    held = [g for g in read_results(results) if wanted is None or g.engine == wanted] if results else []
    cells = [(name, movetime, side) for movetime in args.uct_times for name in args.uct_list for side in args.sides]
    if args.table:
        chosen = set(cells) if args.only or args.sides != ["south", "north"] else None
        rows = uct_summary([g for g in held if chosen is None or (g.game, g.movetime, g.side) in chosen])
        print("engine %s: %d games in %s" % (args.engine or engine, len(held), results))
        print_uct(rows)
        return 0
    have = {cell: sum(1 for g in held if (g.game, g.movetime, g.side) == cell) for cell in cells}
    tasks = _uct_tasks(args, cells, have, engine)
    done: list[UctGame] = [g for g in held if (g.game, g.movetime, g.side) in have]
    if held:
        print(
            "%d games of engine %s already in %s; %d to play" % (len(done), engine, results, len(tasks)),
            file=sys.stderr,
        )
    start = time.monotonic()
    _play_uct_tasks(args, tasks, done, results, start)
    rows = uct_summary(done)
    tables = [tablebase.describe(GAMES[name]) for name in args.uct_list if not name.startswith("awith")]
    report = {
        "engine": engine,
        "vs_uct": rows,
        "tablebases": tables,
        "seconds": round(time.monotonic() - start, 1),
        "load_average": round(os.getloadavg()[0], 1),
    }
    if args.json:
        print(json.dumps(report))
    else:
        _print_uct_report(engine, rows, tables, report["load_average"])
    return 0


def _uct_tasks(
    args: argparse.Namespace, cells: list[tuple[str, float, str]], have: dict[tuple[str, float, str], int], engine: str
) -> list[UctGame]:
    """The games still to play, round by round over the cells, so that a run cut short
    leaves every cell some games."""
    tasks = []
    for i in range(args.uct_games):
        for name, movetime, side in cells:
            if i >= have[(name, movetime, side)]:
                seed = args.seed + 1000 * i + (1 if side == "north" else 0) + int(100 * movetime)
                tasks.append(UctGame(name, movetime, side, seed, engine=engine))
    return tasks


def _play_uct_tasks(
    args: argparse.Namespace, tasks: list[UctGame], done: list[UctGame], results: Path | None, start: float
) -> None:
    """Play the games into ``done`` (each also appended to ``results``), within the time budget."""
    for number, task in enumerate(tasks):
        if args.budget and time.monotonic() - start > args.budget:
            print(
                "time budget of %g s spent: %d of %d games played" % (args.budget, number, len(tasks)), file=sys.stderr
            )
            break
        result = play_uct(task)
        done.append(result)
        if results is not None:
            with open(results, "a") as log:
                log.write(json.dumps(result.__dict__) + "\n")
        if not args.quiet:
            print(
                "[%d/%d] %s %gs as %s: %s in %d plies (%s)"
                % (
                    number + 1,
                    len(tasks),
                    task.game,
                    task.movetime,
                    task.side,
                    result.result,
                    result.plies,
                    result.termination,
                ),
                file=sys.stderr,
                flush=True,
            )


def _print_uct_report(engine: str, rows: list[dict[str, Any]], tables: list[dict[str, Any]], load: float) -> None:
    print("engine %s" % engine)
    print_uct(rows)
    print()
    print("Endgame tables on disk (tools/build_tablebase.py builds them; the search uses them):")
    for t in tables:
        print(
            "  %-26s up to %d pieces: %9d positions, %6.2f MB"
            % (t["ruleset"], t["max_pieces"], t["positions"], t["bytes"] / 1e6)
        )
    print("load average at the end: %s (timed games share the cores with it)" % load)


# -- search speed ------------------------------------------------------------------------

# Positions for --speed: this many random plies from the start, per ruleset.
SPEED_PLIES = (6, 14, 24)
SPEED_REPEAT = 3
SPEED_DEPTH = {"mosona": 10, "kolowis": 7, "kolowis-short": 10, "awithlaknakwe": 8, "awithlaknakwe-4": 8}


def speed_positions(name: str) -> list[zuni.Game]:
    """Fixed middlegame positions (random plies from fixed seeds), no tablebase position."""
    import random

    out = []
    for seed, plies in enumerate(SPEED_PLIES):
        rng = random.Random(seed)
        game = zuni.new_game(GAMES[name])
        while game.ply() < plies and not game.is_game_over():
            game.push(rng.choice(list(game.legal_moves())))
        if not game.is_game_over():
            out.append(game)
    return out


def run_speed(args: argparse.Namespace) -> int:
    """Each ruleset's fixed positions searched to a fixed depth without tables: nodes,
    CPU seconds (the fastest of SPEED_REPEAT runs of each position), nodes per CPU
    second (CPU time, so that other work on the machine counts less). Fewer nodes to
    the same depth is better pruning; more nodes per second a cheaper node."""
    from zuniboard.ai import Searcher

    rows = []
    for name in args.speed_list:
        nodes = 0
        cpu = 0.0
        depth = SPEED_DEPTH[name]
        for game in speed_positions(name):
            # The fastest of a few runs: other work on the machine only ever slows one.
            fastest = math.inf
            for _ in range(SPEED_REPEAT):
                searcher = Searcher(use_tablebase=False, contempt=25)
                before = time.process_time()
                searcher.search(game, max_depth=depth, seed=1)
                fastest = min(fastest, time.process_time() - before)
            cpu += fastest
            nodes += searcher.nodes
        rows.append(
            {
                "game": name,
                "depth": depth,
                "nodes": nodes,
                "cpu": round(cpu, 2),
                "nodes_per_cpu_second": round(nodes / cpu),
            }
        )
    if args.json:
        print(json.dumps({"engine": engine_tag(), "speed": rows}))
    else:
        print(
            "engine %s: search to a fixed depth, %d positions a ruleset, no tables" % (engine_tag(), len(SPEED_PLIES))
        )
        print("%-16s %5s %9s %7s %9s" % ("game", "depth", "nodes", "cpu s", "nodes/s"))
        for r in rows:
            print("%-16s %5d %9d %7.2f %9d" % (r["game"], r["depth"], r["nodes"], r["cpu"], r["nodes_per_cpu_second"]))
    return 0


# -- time control ----------------------------------------------------------------------

# Seconds per move checked by --timing, and the overshoot allowed (issue 13: a move never
# takes more than 10% over its budget).
TIMING_TIMES = (0.05, 0.2, 1.0)
TIMING_OVER = 1.10
# Positions per ruleset from the middle of a game (besides the start and the endings).
TIMING_MIDDLE = 8
# Moves of a game played first in a new process (its tables loading meanwhile).
COLD_MOVES = 6


def timing_positions(name: str, seed: int) -> list[tuple[str, list[str]]]:
    """Positions to time a move in, as (kind, moves from the start): the start ("first":
    the first move of a game), positions spread over a game ("middle"), and in the line
    games positions where the search probes the endgame tables ("probe": pieces one
    or two more than the tables hold) or plays from them ("table"). The game: a quick
    searching player (1000 nodes a move) against UCT (50 playouts), from ``seed``."""
    chosen: list[tuple[str, list[str]]] = [("first", [])]
    endings: dict[str, list[tuple[str, list[str]]]] = {"probe": [], "table": []}
    # More games (up to 6) while the line games have not yet shown 3 endings of each kind.
    for number in range(6):
        game = zuni.new_game(GAMES[name])
        tb = tablebase.for_ruleset(str(game.ruleset)) if game.ruleset.game_id != "awithlaknakwe" else None
        tb_pieces = tb.max_pieces if tb is not None else 0
        me = SearchPlayer(1, seed + number, deterministic=True)
        uct = UCTPlayer(seed + number + 7919, iterations=50)
        history: list[str] = []
        middle: list[tuple[str, list[str]]] = []
        while not game.is_game_over() and game.ply() < MAX_PLIES:
            if tb is not None and tb.covers(game):
                endings["table"].append(("table", list(history)))
            elif tb_pieces and game.counts[0] + game.counts[1] <= tb_pieces + 2:
                endings["probe"].append(("probe", list(history)))
            elif game.ply():
                middle.append(("middle", list(history)))
            move = (me if game.ply() % 2 == 0 else uct).choose(game)
            history.append(str(move))
            game.push(move)
        if number == 0:
            step = max(1, len(middle) // TIMING_MIDDLE)
            chosen += middle[::step][:TIMING_MIDDLE]
        if not tb_pieces or all(len(found) >= 3 for found in endings.values()):
            break
    for found in endings.values():
        chosen += found[:: max(1, len(found) // 3)][:3]
    return chosen


def run_timing(args: argparse.Namespace) -> int:
    """The searching player's time per move, by the wall clock and in CPU time, as a
    share of its budget, at each of ``--uct-times`` seconds (default 0.05, 0.2, 1), in
    positions of every ruleset (timing_positions). "cold": the ruleset's first
    ``COLD_MOVES`` moves in this process (the player playing both sides), at the first
    time given, its tables loading in a thread meanwhile (as in ``zuni play``);
    "first": a new player's first move of a game; every other
    position is searched by one player kept from move to move, as in a game. Run on an
    idle core: the wall clock counts waiting for a core."""
    rows = []
    load_before = os.getloadavg()[0]
    for name in args.uct_list:
        ruleset = GAMES[name]
        # The ruleset's first moves in this process ("cold"): its tables start loading
        # in a thread at the first search and load meanwhile, as in ``zuni play``.
        cold_shares = _cold_shares(ruleset, args)
        positions = timing_positions(name, args.seed)
        for movetime in args.uct_times:
            player = SearchPlayer(5, args.seed, time_limit=movetime)
            shares: list[tuple[float, float, str]] = []
            if movetime == args.uct_times[0]:
                shares += [(wall, cpu_share, "cold") for wall, cpu_share in cold_shares]
            for kind, moves in positions:
                game = zuni.new_game(ruleset)
                for text in moves:
                    game.push_text(text)
                mover = SearchPlayer(5, args.seed, time_limit=movetime) if kind == "first" else player
                start = time.monotonic()
                cpu = time.process_time()
                mover.choose(game)
                wall = (time.monotonic() - start) / movetime
                shares.append((wall, (time.process_time() - cpu) / movetime, kind))
            rows.append(_timing_row(name, movetime, shares))
            if not args.quiet:
                r = rows[-1]
                print("%s %gs: worst %.3fx (%s)" % (name, movetime, r["worst"], r["worst_kind"]), file=sys.stderr)
    report = {
        "engine": engine_tag(),
        "timing": rows,
        "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
    }
    if args.json:
        print(json.dumps(report))
    else:
        _print_timing(report["engine"], rows, report["load_average"])
    return 0 if all(r["ok"] for r in rows) else 1


def _cold_shares(ruleset: str, args: argparse.Namespace) -> list[tuple[float, float]]:
    """The share of the budget, wall and CPU, of each of the ruleset's first COLD_MOVES moves
    in this process (one player playing both sides, at the first time given)."""
    cold = zuni.new_game(ruleset)
    cold_player = SearchPlayer(5, args.seed, time_limit=args.uct_times[0])
    cold_shares: list[tuple[float, float]] = []
    while len(cold_shares) < COLD_MOVES and not cold.is_game_over():
        start = time.monotonic()
        cpu = time.process_time()
        move = cold_player.choose(cold)
        cold_shares.append(
            ((time.monotonic() - start) / args.uct_times[0], (time.process_time() - cpu) / args.uct_times[0])
        )
        cold.push(move)
    return cold_shares


def _timing_row(name: str, movetime: float, shares: list[tuple[float, float, str]]) -> dict[str, Any]:
    """A ruleset's figures at one time per move: the median and worst share, by kind."""
    worst = max(shares)
    walls = sorted(s[0] for s in shares)
    return {
        "game": name,
        "movetime": movetime,
        "moves": len(shares),
        "median": round(walls[len(walls) // 2], 3),
        "worst": round(worst[0], 3),
        "worst_kind": worst[2],
        "worst_cpu": round(max(s[1] for s in shares), 3),
        "worst_by_kind": {
            kind: round(max(s[0] for s in shares if s[2] == kind), 3)
            for kind in ("cold", "first", "middle", "probe", "table")
            if any(s[2] == kind for s in shares)
        },
        "ok": worst[0] <= TIMING_OVER,
    }


def _print_timing(engine: str, rows: list[dict[str, Any]], load_average: list[float]) -> None:
    print("engine %s: time per move as a share of the budget (allowed: %.2fx)" % (engine, TIMING_OVER))
    print("%-16s %5s %5s %6s %6s %-7s %6s  %s" % ("game", "s/mv", "moves", "median", "worst", "kind", "cpu", "by kind"))
    for r in rows:
        kinds = " ".join("%s %.3f" % item for item in r["worst_by_kind"].items())
        print(
            "%-16s %5g %5d %6.3f %6.3f %-7s %6.3f  %s%s"
            % (
                r["game"],
                r["movetime"],
                r["moves"],
                r["median"],
                r["worst"],
                r["worst_kind"],
                r["worst_cpu"],
                kinds,
                "" if r["ok"] else "  OVER",
            )
        )
    print("load average %s at start, %s at end" % tuple(load_average))


def print_uct(rows: list[dict[str, Any]]) -> None:
    print(
        "%-16s %5s %-6s %5s %3s %3s %3s %6s %-13s %8s %9s %6s %6s %6s"
        % (
            "game",
            "s/mv",
            "side",
            "games",
            "W",
            "D",
            "L",
            "score",
            "95% CI",
            "nodes/s",
            "uct po/s",
            "worst",
            "cpu",
            "uct",
        )
    )
    for r in rows:
        print(
            "%-16s %5g %-6s %5d %3d %3d %3d %5.0f%% %5.0f%%-%4.0f%% %8s %9s %5.2fx %5.2fx %5.2fx"
            % (
                r["game"],
                r["movetime"],
                r["side"],
                r["games"],
                r["wins"],
                r["draws"],
                r["losses"],
                100 * r["score"],
                100 * r["ci95"][0],
                100 * r["ci95"][1],
                r["nodes_per_second"] or "-",
                r["uct_playouts_per_second"] or "-",
                r["worst_move_share"],
                r["worst_move_cpu_share"],
                r["worst_uct_move_share"],
            )
        )
    print(
        "worst: the searching player's slowest move as a share of its time, by the wall clock and in CPU"
        " time (the difference is waiting for a core); uct: UCT's slowest, by the wall clock"
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.endgames:
        if args.solver_pieces not in (0, 2, 3, 4, 5, 6, 7):
            parser.error("--solver-pieces takes 0 (no solver) or 2-7, not %d" % args.solver_pieces)
        return args
    if args.ladder:
        _check_ladder(parser, args)
        return args
    if args.timing:
        args.vs_uct = True
        if args.uct_times == "0.2,1":
            args.uct_times = ",".join("%g" % t for t in TIMING_TIMES)
    if args.speed:
        args.speed_list = args.only.split(",") if args.only else list(UCT_GAMES)
        for name in args.speed_list:
            if name not in SPEED_DEPTH:
                parser.error("unknown game %r in --only (allowed: %s)" % (name, ", ".join(SPEED_DEPTH)))
        return args
    if args.vs_uct:
        _check_vs_uct(parser, args)
        return args
    _check_tables(parser, args)
    return args


def _parser() -> argparse.ArgumentParser:
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
    parser.add_argument("--speed", action="store_true", help="search speed at a fixed depth (see run_speed)")
    parser.add_argument("--vs-uct", action="store_true", help="play against plain UCT instead (see above)")
    parser.add_argument("--uct-times", default="0.2,1", help="seconds per move against UCT (default 0.2,1)")
    parser.add_argument("--uct-games", type=int, default=4, help="games per ruleset, time and side (default 4)")
    parser.add_argument("--budget", type=float, default=0.0, help="stop starting games after this many seconds")
    parser.add_argument(
        "--results", "--log", default=None, help="JSON-lines file of games against UCT: resumed and appended to"
    )
    parser.add_argument("--sides", default="south,north", help="the searching player's sides against UCT")
    parser.add_argument("--table", action="store_true", help="print the table of --results's games, play none")
    parser.add_argument("--engine", default=None, help="count games of this engine tag (default: this one; all)")
    parser.add_argument(
        "--timing", action="store_true", help="time per move against its budget (see run_timing; --uct-times)"
    )
    parser.add_argument("--endgames", action="store_true", help="endgame tables on disk and the Mosona solver")
    parser.add_argument("--ladder", action="store_true", help="the levels' Elo-like ratings (see above)")
    parser.add_argument("--ladder-games", type=int, default=10, help="games a pair in the ladder (default 10)")
    parser.add_argument(
        "--ladder-openings", type=int, default=6, help="random plies before each ladder game (default 6)"
    )
    parser.add_argument("--ladder-levels", default="1,2,3,4,5", help="the ladder's levels, from 1 (default 1-5)")
    parser.add_argument(
        "--solver-pieces", type=int, default=7, help="the solver's C tables, pieces (default 7; 0: no solver)"
    )
    parser.add_argument(
        "--solver-nodes", type=int, default=50_000_000, help="the solver's node limit a question (default 50 M)"
    )
    return parser


def _check_ladder(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """--ladder's options: its levels, games and openings."""
    args.ladder_levels = _levels(parser, "--ladder-levels", args.ladder_levels)
    if args.ladder_levels != list(range(1, len(args.ladder_levels) + 1)):
        parser.error("--ladder-levels must run 1, 2, ... without gaps (each level is matched with the next)")
    args.ladder_list = args.only.split(",") if args.only else list(LADDER_GAMES)
    for name in args.ladder_list:
        if name not in GAMES:
            parser.error("unknown game %r in --only (allowed: %s)" % (name, ", ".join(GAMES)))
    if args.ladder_games < 1 or args.workers < 1 or args.ladder_openings < 0:
        parser.error("--ladder-games and --workers must be >= 1, --ladder-openings >= 0")


def _check_vs_uct(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """--vs-uct's (and --timing's) options: times, games, sides, results file."""
    try:
        args.uct_times = [float(x) for x in args.uct_times.split(",")]
    except ValueError:
        parser.error("--uct-times takes comma-separated seconds, not %r" % (args.uct_times,))
    args.uct_list = args.only.split(",") if args.only else list(UCT_GAMES)
    args.sides = args.sides.split(",")
    if not args.sides or any(side not in ("south", "north") for side in args.sides):
        parser.error("--sides takes south, north or both, not %r" % (",".join(args.sides),))
    if args.table and not args.results:
        parser.error("--table prints the games of --results FILE: give the file")
    for name in args.uct_list:
        if name not in GAMES:
            parser.error("unknown game %r in --only (allowed: %s)" % (name, ", ".join(GAMES)))
    if args.uct_games < 1 or any(t <= 0 for t in args.uct_times):
        parser.error("--uct-games must be >= 1 and --uct-times > 0")


def _check_tables(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The level tables' options, with --quick's defaults."""
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


def _levels(parser: argparse.ArgumentParser, option: str, text: str) -> list[int]:
    try:
        levels = [int(x) for x in text.split(",")]
    except ValueError:
        parser.error("%s takes comma-separated numbers, not %r" % (option, text))
    for level in levels:
        if level not in LEVEL_NODES:
            parser.error("unknown level %d in %s (allowed: %s)" % (level, option, ", ".join(map(str, LEVEL_NODES))))
    return levels


LINE_RULESETS = ["mosona", "mosona board=open", "kolowis size=short", "kolowis"]


def run_endgames(args: argparse.Namespace) -> int:
    """The tables on disk per line ruleset, then the C solver on the Mosona start."""
    report: dict[str, Any] = {"tables": [], "solver": []}
    print("endgame tables in %s" % tablebase.data_dir())
    print("| ruleset | pieces | tables | positions | on disk | mapped beside |")
    print("|---|---|---|---|---|---|")
    for ruleset in LINE_RULESETS:
        d = tablebase.describe(ruleset)
        report["tables"].append(d)
        print(
            "| %s | %d | %d | %s | %s | %s |"
            % (
                d["ruleset"],
                d["max_pieces"],
                len(d["tables"]),
                "{:,}".format(d["positions"]),
                tablebase.bytes_text(d["bytes"]) if d["tables"] else "none",
                tablebase.bytes_text(d["mapped_bytes"]) if d["mapped_bytes"] else "-",
            )
        )
    if args.solver_pieces:
        sys.path.insert(0, str(REPO / "tools"))
        import linesolve

        print("\nwho wins mosona (the start, C df-pn, tables up to %d pieces):" % args.solver_pieces)
        started = time.monotonic()
        path, _ = linesolve.build_tables("mosona", args.solver_pieces, progress=not args.quiet)
        print(
            "  tables: %s (%s, ready in %.0f s)"
            % (path.name, tablebase.bytes_text(path.stat().st_size), time.monotonic() - started)
        )
        print("| question | answer | nodes | seconds | proof number | disproof number |")
        print("|---|---|---|---|---|---|")
        for team, name in ((1, "north"), (0, "south")):
            sol = linesolve.solve(zuni.new_game("mosona"), team, pieces=args.solver_pieces, nodes=args.solver_nodes)
            answer = {True: "proved", False: "disproved", None: "unsettled"}[sol.result]
            report["solver"].append(
                {
                    "team": name,
                    "result": sol.result,
                    "nodes": sol.nodes,
                    "seconds": sol.seconds,
                    "proof_number": sol.proof_number,
                    "disproof_number": sol.disproof_number,
                }
            )
            numbers = ["inf" if x >= 2**31 - 1 else "{:,}".format(x) for x in (sol.proof_number, sol.disproof_number)]
            print(
                "| does %s win? | %s | %s | %.1f | %s | %s |"
                % (name, answer, "{:,}".format(sol.nodes), sol.seconds, numbers[0], numbers[1])
            )
    if args.json:
        print(json.dumps(report))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.endgames:
        return run_endgames(args)
    if args.ladder:
        return run_ladder(args)
    if args.timing:
        return run_timing(args)
    if args.vs_uct:
        return run_vs_uct(args)
    if args.speed:
        return run_speed(args)
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
