"""`zuni puzzle [RULESET]`: puzzles on the board, made from the endgame tables, the proof
that North wins Mosona, and a search.

- "win in N" (Mosona on both boards, Kolowis short and long): the side to move wins in
  N moves (both sides' moves); at every turn of yours exactly one move wins, and the
  board plays the tables' best defence;
- "find North's only winning reply" (Mosona): positions of the proof;
- custody tactics (Awithlaknakwe): a move that wins a warrior by force.

The board sets each position up (one side at a time, as the lights show), checks your
move, plays the defence, and says why a wrong move fails ("after m6-n5 the game is
drawn with best play: the quiet count runs out with equal pieces"); a wrong move is taken
back and you try again. Puzzles you have not solved come first; what you solved is kept in
the game log database. RULESET: mosona (default; both boards), "mosona board=open",
kolowis (the long board), "kolowis size=short", awithlaknakwe.

While solving, type: hint, again, skip, back, steps, help, quit.
"""

from __future__ import annotations

import argparse

import zuni
from zuniboard.errors import UsageError
from zuniboard.learn.lessons import LABELS, Labels, LessonError, game_of
from zuniboard.learn.progress import Progress
from zuniboard.learn.puzzles import KINDS, Puzzle, PuzzleError, as_course, load_puzzles
from zuniboard.learn.session import run_course
from zuniboard.play.connect import PAGE_PORT
from zuniboard.records.db import Database, DatabaseError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    puzzle = subparsers.add_parser(
        "puzzle", help="solve puzzles on the board", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    puzzle.add_argument("ruleset", nargs="?", default=None, help="mosona (default), kolowis, awithlaknakwe, ...")
    puzzle.add_argument("--kind", choices=KINDS, action="append", help="only puzzles of this kind (repeatable)")
    puzzle.add_argument("--grade", type=int, choices=range(1, 6), default=None, help="only this grade (1 easy .. 5)")
    puzzle.add_argument("--list", action="store_true", help="list the puzzles (solved ones marked) and stop")
    where = puzzle.add_mutually_exclusive_group()
    where.add_argument("--port", metavar="URL", help="the board's serial port")
    where.add_argument("--sim", action="store_true", help="on the virtual board")
    puzzle.add_argument("--http", type=int, default=PAGE_PORT, metavar="PORT", help="virtual board: the page's port")
    puzzle.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the board")
    puzzle.add_argument("--db", default=None, help="the game log database (default: the user's)")
    puzzle.set_defaults(func=run)


def select(puzzles: list[Puzzle], ruleset: str | None, kinds: list[str] | None, grade: int | None) -> list[Puzzle]:
    """The puzzles that fit: the ruleset's board (its options, when given), kinds, grade."""
    wanted = zuni.parse_ruleset(ruleset or "mosona")
    points = len(zuni.new_game(wanted).geometry.names)
    exact = ruleset is not None and "=" in ruleset
    out = []
    for p in puzzles:
        rules = zuni.parse_ruleset(p.ruleset)
        if exact and str(rules) != str(wanted):
            continue
        if len(zuni.new_game(rules).geometry.names) != points:
            continue
        if kinds and p.kind not in kinds:
            continue
        if grade is not None and p.grade != grade:
            continue
        out.append(p)
    return out


def run(args: argparse.Namespace) -> int:
    try:
        game = game_of(args.ruleset)
        everything = load_puzzles(game)
        chosen = select(everything, args.ruleset, args.kind, args.grade)
    except (LessonError, PuzzleError, zuni.ZuniError) as exc:
        raise UsageError(str(exc))
    if not chosen:
        raise UsageError(
            "no puzzle of %s fits (%d in all: try without --grade or --kind)" % (args.ruleset or game, len(everything))
        )
    try:
        db = Database(args.db)
    except DatabaseError as exc:
        raise UsageError(str(exc))
    progress = Progress(db)
    solved = progress.solved("puzzle")
    chosen.sort(key=lambda p: (p.id in solved, p.grade, p.n, p.id))
    if args.list:
        for p in chosen:
            print(
                "%-34s grade %d  %-7s %s%s" % (p.id, p.grade, p.kind, p.task(), "  (solved)" if p.id in solved else "")
            )
        db.close()
        return 0
    labels = Labels(progress.setting("names", "zuni") if progress.setting("names", "zuni") in LABELS else "zuni")
    return run_course(
        as_course(chosen, game),
        labels,
        db,
        "puzzle",
        port=args.port,
        sim=args.sim,
        timeout=args.timeout,
        http=args.http,
    )
