"""Which game of the log a user means: its id from `zuni log list`, or ``last``; and the
log database a command opens (``--db``, else ``$ZUNI_DB``, else the user's default)."""

from __future__ import annotations

import sys
from pathlib import Path

from zuniboard.errors import UsageError
from zuniboard.records.db import Database, DatabaseError, UnknownGameError
from zuniboard.records.record import GameRecord


def open_database(path: str | None) -> Database:
    """The database at ``path`` (a command's ``--db``), else ``$ZUNI_DB``, else the user's
    default; UsageError if it cannot be opened."""
    try:
        return Database(Path(path) if path else None)
    except (DatabaseError, OSError) as exc:
        raise UsageError(str(exc))


def game_id(db: Database, text: str, *, with_moves: bool = False) -> int:
    """The log's id of game ``text``: a number from `zuni log list`, or ``last`` (the
    newest game; with ``with_moves``, the newest game that has moves, saying on stderr
    which newer games it passed over)."""
    if text != "last":
        try:
            return int(text)
        except ValueError:
            raise UsageError("game %r: give a game id (a number from `zuni log list`) or `last`" % text)
    games = db.list_games()  # newest first
    if not games:
        raise UsageError("no games in %s" % db.path)
    if not with_moves:
        return games[0].id
    played = next((g for g in games if g.moves > 0), None)
    if played is None:
        raise UsageError("no game in the log %s has moves" % db.path)
    skipped = [str(g.id) for g in reversed(games) if g.id > played.id]
    if skipped:
        print(
            "%s %s no moves: taking game %d, the last game with moves"
            % (
                "game " + skipped[0] if len(skipped) == 1 else "games " + ", ".join(skipped),
                "has" if len(skipped) == 1 else "have",
                played.id,
            ),
            file=sys.stderr,
        )
    return played.id


def get_game(db: Database, text: str, *, with_moves: bool = False) -> GameRecord:
    """Game ``text`` of the log (see ``game_id``)."""
    try:
        return db.get(game_id(db, text, with_moves=with_moves))
    except UnknownGameError as exc:
        raise UsageError(str(exc))
