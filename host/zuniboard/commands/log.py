"""`zuni log`: the game records (list, show, export, import, diagram).

Games are stored in one SQLite file: --db PATH, else $ZUNI_DB, else games.sqlite3 in the
user's data directory. GAME is a game id from `zuni log list`, or `last`."""

from __future__ import annotations

import argparse
import copy
import os
import sys
from pathlib import Path

import zuni
from zuniboard.errors import UsageError
from zuniboard.records import formats
from zuniboard.records.db import user_db_path
from zuniboard.records.record import GameRecord, RecordError, replay
from zuniboard.records.select import get_game, open_database
from zuniboard.records.svg import render_svg
from zuniboard.records.text import render


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # --db is accepted before or after the subcommand (`zuni log --db F list`, `zuni log
    # list --db F`); SUPPRESS keeps the subcommand's absent option from hiding the other.
    db_option = argparse.ArgumentParser(add_help=False)
    db_option.add_argument(
        "--db",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="game database file (default: $ZUNI_DB, else %s)" % user_db_path(),
    )
    log = subparsers.add_parser(
        "log", help="list, show, export and import game records", description=__doc__, parents=[db_option]
    )
    log.set_defaults(func=lambda args: _help(log))
    sub = log.add_subparsers(dest="log_command", metavar="ACTION")

    p = sub.add_parser("list", help="table of the stored games, newest first", parents=[db_option])
    p.add_argument("--limit", type=int, default=None, metavar="N", help="show only the N newest games")
    p.set_defaults(func=run_list)

    p = sub.add_parser("show", help="tags, moves and a drawing of a game's position", parents=[db_option])
    p.add_argument("game", metavar="GAME", help="game id, or `last`")
    p.add_argument("--ply", type=int, default=None, help="draw the position after PLY moves (default: the end)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="colour the drawing")
    p.set_defaults(func=run_show)

    p = sub.add_parser("export", help="write games as text (PGN-like) or JSON", parents=[db_option])
    p.add_argument("games", nargs="*", metavar="GAME", help="game ids, or `last`")
    p.add_argument("--all", action="store_true", help="export every game")
    p.add_argument("--format", choices=formats.FORMATS, default=None, help="default: from -o's suffix, else pgn")
    p.add_argument("-o", "--output", metavar="FILE", default=None, help="write to FILE (default: standard output)")
    p.set_defaults(func=run_export)

    p = sub.add_parser(
        "import",
        help="read games from a text (PGN-like) or JSON file",
        description=(
            "Check every record with the rules engine and store the good ones. A bad record is reported "
            "with its line and stored not at all; the other records of the file are still imported "
            "(exit status 1 if any record was rejected)."
        ),
        parents=[db_option],
    )
    p.add_argument("file", metavar="FILE", help="file to read (- for standard input)")
    p.add_argument("--format", choices=formats.FORMATS, default=None, help="default: .json is JSON, else pgn")
    p.set_defaults(func=run_import)

    from zuniboard.commands import replay as replay_command

    replay_command.register(sub, db_option)

    p = sub.add_parser("diagram", help="SVG drawing of a game's position", parents=[db_option])
    p.add_argument("game", metavar="GAME", help="game id, or `last`")
    p.add_argument("ply", metavar="PLY", type=int, help="number of moves played (0 = start position)")
    p.add_argument("-o", "--output", metavar="FILE", default=None, help="write to FILE.svg (default: standard output)")
    p.add_argument("--names", action="store_true", help="write the point names")
    p.set_defaults(func=run_diagram)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _write(text: str, output: str | None) -> None:
    if output is None or output == "-":
        sys.stdout.write(text)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError("cannot write %s: %s" % (output, exc.strerror or exc))


def players_text(players: dict[str, str], ruleset: str) -> str:
    """``human vs ai:3``; with four players ``human+ai:2 vs ai:3+ai:1`` (South+East vs North+West)."""

    def who(side: str) -> str:
        return players.get(side, "?")

    if "awithlaknakwe" in ruleset and "players=4" in ruleset:
        return "%s+%s vs %s+%s" % (who("south"), who("east"), who("north"), who("west"))
    return "%s vs %s" % (who("south"), who("north"))


def run_list(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be 1 or more, not %d" % args.limit)
    with open_database(getattr(args, "db", None)) as db:
        games = db.list_games(args.limit)
        if not games:
            print("no games in %s" % db.path)
            return 0
    header = ("ID", "STARTED", "RULESET", "PLAYERS", "MOVES", "RESULT", "END")
    rows = [header]
    for game in games:
        started = (game.started or "")[:16].replace("T", " ")
        rows.append(
            (
                str(game.id),
                started,
                game.ruleset,
                players_text(game.players, game.ruleset),
                str(game.moves),
                game.result,
                (game.termination or "") + (" " + game.score if game.score else ""),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        cells = [cell.rjust(widths[i]) if i in (0, 4) else cell.ljust(widths[i]) for i, cell in enumerate(row)]
        print("  ".join(cells).rstrip())
    return 0


def _use_color(mode: str) -> bool:
    if mode == "always":
        return True
    if mode == "never":
        return False
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _position(record: GameRecord, ply: int | None) -> zuni.Game:
    """The game after ``ply`` moves of a stored record (all of them if None); at the end,
    with a resignation or agreement applied so that the drawing says how it ended."""
    if ply is not None and not 0 <= ply <= len(record.moves):
        raise UsageError(
            "ply %d out of range: game %s has %d moves (0..%d)" % (ply, record.id, len(record.moves), len(record.moves))
        )
    try:
        game = replay(copy.deepcopy(record), complete=ply is None or ply == len(record.moves))
    except RecordError as exc:
        raise UsageError("game %s cannot be replayed: %s" % (record.id, exc))
    while ply is not None and game.ply() > ply:
        game.pop()
    return game


def run_show(args: argparse.Namespace) -> int:
    with open_database(getattr(args, "db", None)) as db:
        record = get_game(db, args.game)
    game = _position(record, args.ply)
    print("Game %d" % record.id if record.id is not None else "Game")
    print(formats.write_pgn(record, times=False), end="")
    print(render(game, color=_use_color(args.color)), end="")
    return 0


def run_export(args: argparse.Namespace) -> int:
    if args.all and args.games:
        raise UsageError("give game ids or --all, not both")
    fmt = args.format or (formats.format_for_path(args.output) if args.output else "pgn")
    with open_database(getattr(args, "db", None)) as db:
        if args.all:
            records = [db.get(game_id) for game_id in db.game_ids()]
        elif args.games:
            records = [get_game(db, text) for text in args.games]
        else:
            raise UsageError("which games? give game ids (see `zuni log list`), `last`, or --all")
    _write(formats.export(records, fmt), args.output)
    if args.output:
        print("wrote %d game%s to %s" % (len(records), "" if len(records) == 1 else "s", args.output), file=sys.stderr)
    return 0


def run_import(args: argparse.Namespace) -> int:
    name = "<stdin>" if args.file == "-" else args.file
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError("cannot read %s: %s" % (args.file, exc.strerror or exc))
    except UnicodeDecodeError as exc:
        raise UsageError("cannot read %s: not UTF-8 text (%s)" % (args.file, exc.reason))
    fmt = args.format or formats.format_for_path(args.file)
    records, errors = formats.parse(text, fmt)
    imported = same = 0
    with open_database(getattr(args, "db", None)) as db:
        for record in records:
            try:
                game_id, new = db.import_record(record)
            except RecordError as exc:
                errors.append(exc)
                continue
            if new:
                imported += 1
                print(
                    "imported game %d: %s, %d moves, %s" % (game_id, record.ruleset, len(record.moves), record.result)
                )
            else:
                same += 1
                print("already stored as game %d: %s, %d moves" % (game_id, record.ruleset, len(record.moves)))
    errors.sort(key=lambda e: e.line or 0)
    for error in errors:
        where = "%s:%d" % (name, error.line) if error.line is not None else name
        print("%s: %s (record not imported)" % (where, error.message), file=sys.stderr)
    if not records and not errors:
        print("%s: no game records found (format %s)" % (name, fmt), file=sys.stderr)
        return 1
    print(
        "%d imported, %d already stored, %d rejected" % (imported, same, len(errors)),
        file=sys.stderr,
    )
    return 1 if errors else 0


def run_diagram(args: argparse.Namespace) -> int:
    if args.ply < 0:
        raise UsageError("ply must be 0 or more, not %d" % args.ply)
    with open_database(getattr(args, "db", None)) as db:
        record = get_game(db, args.game)
    game = _position(record, args.ply)
    title = "Game %s, %s: %s" % (record.id, record.ruleset, players_text(record.players, record.ruleset))
    _write(render_svg(game, names=args.names, title=title), args.output)
    return 0
