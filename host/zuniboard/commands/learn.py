"""`zuni learn [GAME]`: learn a game on the board, step by step.

Each step sets a small position up on the board (it lights where each side's pieces go,
one side at a time, as `zuni play --from` does), says one rule and shows it on the LEDs,
and gives you a task to do with the pieces; the board checks it, says why a wrong
attempt is wrong (and lights it), and goes on. GAME is mosona (default), kolowis or
awithlaknakwe (a ruleset's game). Without a board plugged in it runs on the virtual
board: type the moves (the terminal's hand makes them) or make them on its page.

While learning, type: hint (the board shows the move), again (the step from its start),
skip (the next step), back (the step before), steps (list them), help, quit.

--names neutral says "leader" for the bow priest and "serpent" for the kolowisi: names
from Zuni religious life (the choice is kept in the game log database for next time;
--names zuni goes back).
"""

from __future__ import annotations

import argparse

from zuniboard.errors import UsageError
from zuniboard.learn.lessons import LABELS, Labels, LessonError, game_of, load_course
from zuniboard.learn.progress import Progress
from zuniboard.learn.session import run_course
from zuniboard.play.connect import PAGE_PORT
from zuniboard.records.db import Database, DatabaseError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    learn = subparsers.add_parser(
        "learn",
        help="learn a game on the board, step by step",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    learn.add_argument("game", nargs="?", default=None, help="mosona (default), kolowis or awithlaknakwe")
    learn.add_argument("--step", default=None, help="start at this step (its number or id)")
    learn.add_argument("--list", action="store_true", help="list the steps and what each teaches, and stop")
    learn.add_argument("--names", choices=sorted(LABELS), default=None, help="zuni or neutral names (kept)")
    where = learn.add_mutually_exclusive_group()
    where.add_argument("--port", metavar="URL", help="the board's serial port")
    where.add_argument("--sim", action="store_true", help="learn on the virtual board")
    learn.add_argument("--http", type=int, default=PAGE_PORT, metavar="PORT", help="virtual board: the page's port")
    learn.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the board")
    learn.add_argument("--db", default=None, help="the game log database (default: the user's)")
    learn.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        game = game_of(args.game)
        course = load_course(game)
    except LessonError as exc:
        raise UsageError(str(exc))
    try:
        db = Database(args.db)
    except DatabaseError as exc:
        raise UsageError(str(exc))
    progress = Progress(db)
    names = args.names or progress.setting("names", "zuni")
    if args.names:
        progress.set_setting("names", args.names)
    labels = Labels(names if names in LABELS else "zuni")
    if args.list:
        for i, step in enumerate(course.steps):
            print("%2d %-14s %s  [%s]" % (i + 1, step.id, labels.fill(step.title), ", ".join(step.rules)))
        db.close()
        return 0
    start_at = 0
    if args.step:
        try:
            start_at = course.step_index(args.step)
        except LessonError as exc:
            db.close()
            raise UsageError(str(exc))
    return run_course(
        course, labels, db, "lesson", start_at, port=args.port, sim=args.sim, timeout=args.timeout, http=args.http
    )
