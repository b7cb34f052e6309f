"""`zuni review GAME`: a logged game's moves graded, stopping at the mistakes.

Each move gets a grade (best, good, inaccuracy, mistake, blunder; thresholds in
docs/strength.md, "Move grades") from the computer's verdict: the endgame tables where
they cover the position, the search elsewhere. The review prints every move with its
grade and stops at each mistake and blunder with the better move (press Enter to go on;
--no-stop runs through), then counts each player's grades. A move graded while the game
was played (a seat with the help level "grades", docs/learn.md) keeps the grade it was
given then, marked "(in play)": the review says what the player was told, and only the
mistakes among those moves are searched again, for the better move. --regrade grades
every move afresh.

With --board the mistakes are replayed on the board as lessons: the board sets up the
position before each mistake (one side at a time), says what was played and why it was a
mistake, and asks for the better move (any move the computer rates within the grade
"good" of the best is accepted); the move played is explained and taken back.
GAME is a game id from `zuni log list`, or `last`.
"""

from __future__ import annotations

import argparse
import sys

import zuni
from zuni.position import position_text
from zuniboard.ai import analyze
from zuniboard.errors import UsageError
from zuniboard.learn.lessons import Course, Labels, Step
from zuniboard.play.connect import PAGE_PORT
from zuniboard.play.grades import GOOD_MAX, GRADES, MoveGrade, grade
from zuniboard.records.db import Database, DatabaseError, UnknownGameError
from zuniboard.records.record import GameRecord, MoveEntry, RecordError, replay
from zuniboard.records.select import game_id


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    review = subparsers.add_parser(
        "review",
        help="a game's moves graded, stopping at the mistakes",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    review.add_argument("game", metavar="GAME", help="game id from `zuni log list`, or `last`")
    review.add_argument("--time", type=float, default=0.3, help="thinking time per move in seconds (default 0.3)")
    review.add_argument("--nodes", type=int, default=None, help="node budget per move instead of time")
    review.add_argument("--side", choices=("south", "north", "west", "east"), default=None, help="only this side")
    review.add_argument("--no-stop", action="store_true", help="do not wait at the mistakes")
    review.add_argument(
        "--regrade", action="store_true", help="grade every move afresh, not keeping the grades given in play"
    )
    review.add_argument("--board", action="store_true", help="replay the mistakes on the board as lessons")
    where = review.add_mutually_exclusive_group()
    where.add_argument("--port", metavar="URL", help="--board: the board's serial port")
    where.add_argument("--sim", action="store_true", help="--board: on the virtual board")
    review.add_argument("--http", type=int, default=PAGE_PORT, metavar="PORT", help="virtual board: the page's port")
    review.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the board")
    review.add_argument("--db", default=None, help="the game log database (default: the user's)")
    review.set_defaults(func=run)


def mistake_step(game: zuni.Game, index: int, graded: MoveGrade, best: list[str], played: str) -> Step:
    """The position before move ``index`` as a lesson step: find a better move."""
    before = game.copy()
    while len(before.move_stack) > index:
        before.pop()
    side = str(zuni.SIDE_NAMES[before.turn])
    return Step(
        id="move-%d" % (index + 1),
        title="Move %d: %s's %s" % (index + 1, side, graded.name),
        rules=("review",),
        position=position_text(before),
        say="%s played %s: %s, %s." % (side.capitalize(), played, graded.name, graded.words),
        task="find a better move for %s" % side.capitalize(),
        line=(tuple(best),),
        wrong={played: "%s was played in the game: %s (%s)" % (played, graded.name, graded.words)},
        why="not among the best moves here",
        done="the better move.",
    )


def kept_grade(entry: MoveEntry) -> MoveGrade | None:
    """The grade a move was given while the game was played, if it was graded then."""
    if entry.grade is None or entry.grade not in GRADES:
        return None
    return MoveGrade(entry.grade, entry.grade_words or "")


def side_of(game: zuni.Game, index: int) -> int:
    """The side that played move ``index`` of ``game`` (the position before it)."""
    before = game.copy()
    while len(before.move_stack) > index:
        before.pop()
    return int(before.turn)


def grade_moves(
    args: argparse.Namespace, record: GameRecord, game: zuni.Game
) -> tuple[dict[str, dict[str, int]], list[Step]]:
    """Print each move's grade (the one kept from play, or the search's) and the better
    moves at each mistake; return each side's count of grades and a lesson step per mistake."""
    tally: dict[str, dict[str, int]] = {}
    steps: list[Step] = []
    stop = not args.no_stop and not args.board and sys.stdin.isatty()
    for index in range(len(game.move_stack)):
        side = str(zuni.SIDE_NAMES[side_of(game, index)])
        if args.side and side != args.side:
            continue
        kept = None if args.regrade else kept_grade(record.moves[index])
        if kept is not None and not kept.is_mistake:
            a, g = None, kept
        else:  # no grade kept, or a mistake: the search grades it, or finds the better moves
            a = analyze(
                game, index, time_limit=None if args.nodes else args.time, node_limit=args.nodes, max_alternatives=3
            )
            g = kept or grade(a)
        tally.setdefault(side, {name: 0 for name in GRADES})[g.name] += 1
        played = str(game.move_stack[index])
        print("%d. %s %s: %s (%s)%s" % (index + 1, side, played, g.name, g.words, " (in play)" if kept else ""))
        if g.is_mistake and a is not None:
            better = [str(a.best_move)] + [str(m) for m, s in a.alternatives if a.best_score - s <= GOOD_MAX]
            better = [m for m in dict.fromkeys(better) if m != played]
            if not better:  # the search now rates the move played best: say so, no lesson
                print("   the search finds nothing better now")
                continue
            print("   better: %s" % ", ".join(better))
            steps.append(mistake_step(game, index, g, better, played))
            if stop:
                input("   (Enter: go on) ")
    return tally, steps


def run(args: argparse.Namespace) -> int:
    if args.time <= 0:
        raise UsageError("--time %s: give a positive number of seconds" % args.time)
    try:
        db = Database(args.db)
    except DatabaseError as exc:
        raise UsageError(str(exc))
    gid = game_id(db, args.game, with_moves=True)
    try:
        record = db.get(gid)
        game = replay(record, complete=False)
    except (UnknownGameError, RecordError) as exc:
        db.close()
        raise UsageError("game %s: %s" % (args.game, exc))
    count = len(game.move_stack)
    if count == 0:
        db.close()
        raise UsageError("game %d has no moves to review" % gid)
    print("game %d: %s, %d moves, %s" % (gid, record.ruleset, count, record.result))
    tally, steps = grade_moves(args, record, game)
    for side, counts in tally.items():
        print("%s: %s" % (side, ", ".join("%d %s" % (n, name) for name, n in counts.items() if n)))
    if not args.board:
        db.close()
        return 0
    if not steps:
        print("no mistakes to replay on the board")
        db.close()
        return 0
    from zuniboard.learn.session import run_course

    course = Course(
        str(game.ruleset.game_id),
        "Review of game %d" % gid,
        ("The board sets up the position before each mistake; find the better move.",),
        tuple(steps),
        "That was the last mistake of the game.",
    )
    return run_course(
        course, Labels(), db, "review", port=args.port, sim=args.sim, timeout=args.timeout, http=args.http
    )
