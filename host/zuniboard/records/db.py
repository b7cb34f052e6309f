"""The game database: one SQLite file (stdlib ``sqlite3``) holding every game and move.

Where: ``--db PATH``, else the environment variable ``ZUNI_DB``, else
``games.sqlite3`` in ``platformdirs.user_data_dir("zuniboard")``.

``Database`` is the one object callers hold; the SQL is owned by the parts it is made
of: ``db_file`` (opening, durability, schema migrations, write transactions),
``db_games`` (reading games), ``db_write`` (writing games as they are played, importing,
a board's own games) and ``db_learning`` (lessons and puzzles done, settings).

Moves are keyed by (game, index), index 0 being the first move. Writing a move that is
already stored is a no-op (the board resends unacknowledged moves after a reconnect);
writing a different move at a stored index is a MoveConflictError. Every move is checked
with the rules engine before it is written.

>>> db = Database(":memory:")
>>> game_id = db.new_game("mosona", players={"south": "human", "north": "ai:3"})
>>> db.add_move(game_id, 0, "s3xm4-m5"), db.add_move(game_id, 0, "s3xm4-m5")
(True, False)
"""

from __future__ import annotations

from pathlib import Path

from zuniboard.records.db_file import (
    DB_ENV,
    DB_FILENAME,
    MIGRATIONS,
    SCHEMA_VERSION,
    DatabaseError,
    LogFile,
    LogUnwritable,
    default_db_path,
    unwritable,
    user_db_path,
)
from zuniboard.records.db_games import GameReader, GameSummary, UnknownGameError
from zuniboard.records.db_learning import LearningStore
from zuniboard.records.db_write import BoardGames, GameWriter, MoveConflictError

__all__ = [
    "DB_ENV",
    "DB_FILENAME",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Database",
    "DatabaseError",
    "GameSummary",
    "LogUnwritable",
    "MoveConflictError",
    "UnknownGameError",
    "default_db_path",
    "unwritable",
    "user_db_path",
]


class Database:
    """An open game database. Use as a context manager, or call ``close()``.

    Its methods are those of its parts (see the module's docstring), bound here so that
    callers hold one object."""

    def __init__(self, path: Path | str | None = None, *, readonly: bool = False) -> None:
        """``readonly``: for reading only (`zuni log list`, `zuni analyze`), which works
        in a folder that cannot be written; a missing file is then an error."""
        self._file = LogFile(path, readonly=readonly)
        self.path = self._file.path
        self.readonly = readonly
        self.schema_version = self._file.schema_version
        self.migrations = self._file.migrations

        read = GameReader(self._file)
        self.get = read.get
        self.get_ruleset = read.get_ruleset
        self.move_count = read.move_count
        self.list_games = read.list_games
        self.game_ids = read.game_ids
        self.board_game = read.board_game
        self.find_same = read.find_same

        games = GameWriter(self._file, read)
        self.new_game = games.new_game
        self.add_move = games.add_move
        self.finish_game = games.finish_game
        self.reopen_game = games.reopen_game
        self.take_back = games.take_back
        self.set_players = games.set_players
        self.set_help = games.set_help
        self.set_grade = games.set_grade
        self.drop_empty_game = games.drop_empty_game
        self.import_record = games.import_record

        board_games = BoardGames(self._file, read, games)
        self.attach_board_moves = board_games.attach_board_moves
        self.hand_over_board_game = board_games.hand_over_board_game
        self.move_to_board_game = board_games.move_to_board_game

        learning = LearningStore(self._file)
        self.record_try = learning.record_try
        self.tries = learning.tries
        self.setting = learning.setting
        self.set_setting = learning.set_setting

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
