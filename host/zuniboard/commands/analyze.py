"""`zuni analyze GAME`: the computer's verdict on every move of a logged game.

For each move: the score of the move played (for the side that played it), and the
better moves it had, best first. GAME is a game id from `zuni log list`, or `last`:
the newest game that has moves (a game opened and left at once has none to judge; when
newer games are skipped so, a line on stderr says which game is analysed instead).

    $ zuni analyze 12 --time 0.5
    1. south s3xm4-m5 (+0.00): best move
    2. north n5xm5-m4 (-1.00): better n4xm5-s4 (+0.00)
    ...
    south: 0 mistakes; north: 1 mistake (1.00 lost in all)
"""

from __future__ import annotations

import argparse
import json

import zuni
from zuniboard.ai import Analysis, analyze
from zuniboard.errors import UsageError
from zuniboard.records.db import Database, DatabaseError, UnknownGameError
from zuniboard.records.record import RecordError, replay
from zuniboard.records.select import game_id
from zuniboard.replay.mistakes import mistakes_text


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="the computer's verdict on each move of a logged game",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "game", metavar="GAME", help="game id from `zuni log list`, or `last` (the newest game with moves)"
    )
    parser.add_argument(
        "--db", metavar="PATH", default=None, help="game log database (default $ZUNI_DB or the user data file)"
    )
    parser.add_argument("--time", type=float, default=0.5, help="thinking time per move in seconds (default 0.5)")
    parser.add_argument("--nodes", type=int, default=None, help="node budget per move instead of time (repeatable)")
    parser.add_argument("--moves", metavar="FROM-TO", default=None, help="only these moves (1-based, e.g. 10-20)")
    parser.add_argument("--alternatives", type=int, default=3, help="better moves listed per move (default 3)")
    parser.add_argument("--json", action="store_true", help="one JSON object per move instead of text")
    parser.set_defaults(func=run_analyze)


def _range(text: str | None, count: int) -> range:
    if text is None:
        return range(count)
    first, sep, last = text.partition("-")
    try:
        start = int(first)
        end = int(last) if sep and last else (count if sep else start)
    except ValueError:
        raise UsageError("--moves %r: give FROM-TO, e.g. 10-20 (1-based)" % text)
    if not 1 <= start <= end or start > count:
        raise UsageError("--moves %r: the game has moves 1-%d" % (text, count))
    return range(start - 1, min(end, count))


def analysis_json(a: Analysis) -> dict[str, object]:
    return {
        "move": a.move_index + 1,
        "side": zuni.SIDE_NAMES[a.side],
        "played": str(a.move),
        "score": a.score,
        "best": str(a.best_move),
        "best_score": a.best_score,
        "loss": a.loss,
        "better": [{"move": str(m), "score": s} for m, s in a.alternatives],
        "depth": a.depth,
        "tablebase": a.verdict,
    }


def run_analyze(args: argparse.Namespace) -> int:
    if args.time <= 0:
        raise UsageError("--time %s: give a positive number of seconds" % args.time)
    if args.nodes is not None and args.nodes <= 0:
        raise UsageError("--nodes %s: give a positive node count" % args.nodes)
    try:
        db = Database(args.db)
    except DatabaseError as exc:
        raise UsageError(str(exc))
    with db:
        gid = game_id(db, args.game, with_moves=True)
        try:
            record = db.get(gid)
        except UnknownGameError as exc:
            raise UsageError(str(exc))
    try:
        game = replay(record, complete=False)
    except RecordError as exc:
        raise UsageError("game %d: %s" % (gid, exc))
    count = len(game.move_stack)
    if count == 0:
        raise UsageError("game %d has no moves to analyze" % gid)
    which = _range(args.moves, count)
    if not args.json:
        print("game %d: %s, %d moves, %s" % (gid, record.ruleset, count, record.result))
    losses: dict[int, list[Analysis]] = {}
    for index in which:
        if args.nodes is not None:
            a = analyze(game, index, time_limit=None, node_limit=args.nodes, max_alternatives=args.alternatives)
        else:
            a = analyze(game, index, time_limit=args.time, max_alternatives=args.alternatives)
        if args.json:
            print(json.dumps(analysis_json(a)))
        else:
            print(a.summary())
        losses.setdefault(a.side, []).append(a)
    if not args.json:
        parts = []
        for side in sorted(losses):
            parts.append("%s: %s" % (zuni.SIDE_NAMES[side], mistakes_text(losses[side])))
        print("; ".join(parts))
    return 0
