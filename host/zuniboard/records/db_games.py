"""Reading the game log: a game's whole record, the list of games, and the look-ups
that writing and importing need (a board's game, a game already stored)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from zuniboard.records.db_file import LogFile
from zuniboard.records.record import SIDES, GameRecord, MoveEntry, parse_help


class UnknownGameError(LookupError):
    """No game with that id."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


@dataclass
class GameSummary:
    """One row of ``zuni log list``."""

    id: int
    ruleset: str
    players: dict[str, str]
    started: str | None
    ended: str | None
    result: str
    termination: str | None
    score: str | None
    board: str | None
    board_game_id: str | None
    source: str
    moves: int


_GAME_COLUMNS = (
    "id, ruleset, south, west, north, east, board, layout, board_game_id, "
    "started, ended, result, termination, score, source, tags"
)


class GameReader:
    """The SQL that reads games from a log file."""

    def __init__(self, file: LogFile) -> None:
        self._file = file

    def row(self, conn: sqlite3.Connection, game_id: int) -> sqlite3.Row:
        cursor = conn.execute(
            "SELECT %s, %s FROM games WHERE id = ?" % (_GAME_COLUMNS, self._file.columns["games"]), (game_id,)
        )
        cursor.row_factory = sqlite3.Row
        row: sqlite3.Row | None = cursor.fetchone()
        if row is None:
            raise UnknownGameError("no game %d in %s" % (game_id, self._file.path))
        return row

    def get_ruleset(self, game_id: int) -> str:
        return str(self.row(self._file.conn, game_id)["ruleset"])

    def move_count(self, game_id: int) -> int:
        row = self._file.conn.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,)).fetchone()
        return int(row[0])

    def get(self, game_id: int) -> GameRecord:
        """The whole record of a game; UnknownGameError if there is none."""
        row = self.row(self._file.conn, game_id)
        record = GameRecord(
            ruleset=row["ruleset"],
            players={side: row[side] for side in SIDES if row[side] is not None},
            started=row["started"],
            ended=row["ended"],
            result=row["result"],
            termination=row["termination"],
            score=row["score"],
            board=row["board"],
            layout=row["layout"],
            board_game_id=row["board_game_id"],
            tags=json.loads(row["tags"]),
            id=int(row["id"]),
            position=row["position"],
            time_control=row["time_control"],
            help=parse_help(row["help"] or ""),
            hint_limit=row["hint_limit"],
        )
        for text, side, time, elapsed_ms, clock_ms, grade, grade_words in self._file.conn.execute(
            "SELECT text, side, time, %s FROM moves WHERE game_id = ? ORDER BY idx" % self._file.columns["moves"],
            (game_id,),
        ):
            record.moves.append(
                MoveEntry(
                    text, side, time, elapsed_ms=elapsed_ms, clock_ms=clock_ms, grade=grade, grade_words=grade_words
                )
            )
        return record

    def list_games(self, limit: int | None = None) -> list[GameSummary]:
        """Games, newest first, with their move counts."""
        sql = (
            "SELECT %s, %s, (SELECT COUNT(*) FROM moves WHERE moves.game_id = games.id) AS n "
            "FROM games ORDER BY id DESC" % (_GAME_COLUMNS, self._file.columns["games"])
        )
        params: tuple[int, ...] = ()
        if limit is not None:
            sql += " LIMIT ?"
            params = (limit,)
        cursor = self._file.conn.execute(sql, params)
        cursor.row_factory = sqlite3.Row
        return [
            GameSummary(
                id=int(row["id"]),
                ruleset=row["ruleset"],
                players={side: row[side] for side in SIDES if row[side] is not None},
                started=row["started"],
                ended=row["ended"],
                result=row["result"],
                termination=row["termination"],
                score=row["score"],
                board=row["board"],
                board_game_id=row["board_game_id"],
                source=row["source"],
                moves=int(row["n"]),
            )
            for row in cursor
        ]

    def board_game(self, board: str, board_game_id: str) -> int | None:
        """The id of the game a board knows as ``board_game_id``, or None."""
        row = self._file.conn.execute(
            "SELECT id FROM games WHERE board = ? AND board_game_id = ?", (board, board_game_id)
        ).fetchone()
        return None if row is None else int(row[0])

    def game_ids(self) -> list[int]:
        return [int(row[0]) for row in self._file.conn.execute("SELECT id FROM games ORDER BY id")]

    def find_same(self, record: GameRecord) -> int | None:
        """The id of a stored game with the same ruleset, start time and moves as
        ``record`` (so that importing a file twice does not store its games twice)."""
        if record.started is None:
            return None
        for (game_id,) in self._file.conn.execute(
            "SELECT id FROM games WHERE ruleset = ? AND started = ?", (record.ruleset, record.started)
        ).fetchall():
            stored = self.get(int(game_id))
            if stored.move_texts() == record.move_texts() and stored.position == record.position:
                return int(game_id)
        return None
