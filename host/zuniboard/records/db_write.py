"""Writing the game log: a game as it is played (each move checked by the rules engine
and committed as it comes), its end, take-backs and settings, a whole imported record,
and the games a board played on its own.

Moves are keyed by (game, index), index 0 being the first move. Writing a move that is
already stored is a no-op (the board resends unacknowledged moves after a reconnect);
writing a different move at a stored index is a MoveConflictError. Every move is checked
with the rules engine before it is written.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

import zuni
from zuniboard.records.db_file import LogFile
from zuniboard.records.db_games import GameReader
from zuniboard.records.record import (
    GRADE_NAMES,
    SIDES,
    UNFINISHED,
    GameRecord,
    RecordError,
    check_help,
    check_players,
    help_text,
    now_iso,
    parse_ruleset,
    replay,
)


class MoveConflictError(RecordError):
    """A move resent at a stored index differs from the stored move."""


class GameWriter:
    """The SQL that writes games into a log file."""

    def __init__(self, file: LogFile, read: GameReader) -> None:
        self._file = file
        self._read = read
        # Games being written by this process, at their current position, so that each
        # add_move checks one move instead of replaying the game.
        self._live: dict[int, zuni.Game] = {}

    def new_game(
        self,
        ruleset: str,
        *,
        players: dict[str, str] | None = None,
        board: str | None = None,
        layout: str | None = None,
        board_game_id: str | None = None,
        started: str | None = None,
        source: str = "host",
        tags: dict[str, str] | None = None,
        position: str | None = None,
        time_control: str | None = None,
        help: dict[str, str] | None = None,
        hint_limit: int | None = None,
    ) -> int:
        """Start a game record and return its id. ``players`` maps a side name to who
        plays it (``human``, ``ai:3``, ``board``...). ``board``/``board_game_id`` are the
        board's identity and its own id for the game (see ``board_game``). ``position``:
        a start position other than the ruleset's (docs/rules.md, "Positions as text");
        ``time_control``: the clocks' control (zuni.clock text, e.g. "5+3"); ``help``: the
        help level of each person's seat, ``hint_limit`` the hints per side (``set_help``)."""
        record = GameRecord(
            ruleset=ruleset,
            players=dict(players or {}),
            board=board,
            layout=layout,
            board_game_id=board_game_id,
            started=started or now_iso(),
            tags=dict(tags or {}),
            position=position,
            time_control=time_control,
            help=dict(help or {}),
            hint_limit=hint_limit,
        )
        game = replay(record, complete=False)
        with self._file.write() as conn:
            game_id = self.insert_game(conn, record, source)
        self._live[game_id] = game
        return game_id

    def insert_game(self, conn: sqlite3.Connection, record: GameRecord, source: str) -> int:
        if record.board_game_id is not None and not record.board:
            raise RecordError("board game id %r needs the board's identity" % (record.board_game_id,))
        if (
            record.board_game_id is not None
            and self._read.board_game(record.board or "", record.board_game_id) is not None
        ):
            raise RecordError(
                "board %r already has a game with id %r in %s" % (record.board, record.board_game_id, self._file.path)
            )
        cursor = conn.execute(
            "INSERT INTO games (ruleset, south, west, north, east, board, layout, board_game_id, started, ended, "
            "result, termination, score, source, tags, position, time_control, help, hint_limit) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.ruleset,
                *[record.players.get(side) for side in SIDES],
                record.board,
                record.layout,
                record.board_game_id,
                record.started,
                record.ended,
                record.result,
                record.termination,
                record.score,
                source,
                json.dumps(record.tags, sort_keys=True),
                record.position,
                record.time_control,
                help_text(record.help) or None,
                record.hint_limit,
            ),
        )
        game_id = cursor.lastrowid
        assert game_id is not None
        return int(game_id)

    def add_move(
        self,
        game_id: int,
        index: int,
        text: str,
        *,
        time: str | None = None,
        elapsed_ms: int | None = None,
        clock_ms: int | None = None,
    ) -> bool:
        """Store move ``index`` (0 = first move) of a game, committed before returning.
        On a clock, ``elapsed_ms`` is the time the move took and ``clock_ms`` the
        mover's time left after it.

        Returns True if written, False if that very move was already stored (a resend).
        Raises MoveConflictError if a different move is stored at ``index``, and
        RecordError for a move out of order, an illegal move or a finished game; nothing
        is written then."""
        text = text.strip()
        with self._file.write() as conn:
            row = conn.execute("SELECT text FROM moves WHERE game_id = ? AND idx = ?", (game_id, index)).fetchone()
            if row is not None:
                if row[0] == text:
                    return False
                raise MoveConflictError(
                    "game %d move %d: received %r but %r is stored at that index" % (game_id, index + 1, text, row[0])
                )
            head = self._read.row(conn, game_id)
            count = self._read.move_count(game_id)
            if index != count:
                raise RecordError(
                    "game %d: move index %d out of order (%d moves stored, the next index is %d)"
                    % (game_id, index, count, count)
                )
            if head["result"] != UNFINISHED:
                raise RecordError("game %d is over (%s): cannot add move %r" % (game_id, head["result"], text))
            game = self._live_game(game_id, count)
            try:
                move = game.parse_move(text)
            except zuni.MoveError as exc:
                raise RecordError("game %d move %d %r: %s" % (game_id, index + 1, text, exc))
            conn.execute(
                "INSERT INTO moves (game_id, idx, text, side, time, elapsed_ms, clock_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, index, text, SIDES[game.turn], time or now_iso(), elapsed_ms, clock_ms),
            )
        game.push(move)
        return True

    def _live_game(self, game_id: int, count: int) -> zuni.Game:
        game = self._live.get(game_id)
        if game is None or game.ply() != count:
            game = replay(self._read.get(game_id), complete=False)
            self._live[game_id] = game
        return game

    def finish_game(
        self,
        game_id: int,
        result: str,
        termination: str | None = None,
        *,
        score: str | None = None,
        ended: str | None = None,
    ) -> GameRecord:
        """Record how a game ended. The rules engine checks it: a game the rules have
        ended takes their result; otherwise the termination must say why (resign,
        agreed-draw, agreed-count), or result "*" with "abandoned" for a game left
        unfinished. Returns the stored record."""
        record = self._read.get(game_id)
        if record.result != UNFINISHED:
            # A board resends its game end after a reconnect: the same end is a no-op.
            if record.result == result and termination in (None, record.termination):
                return record
            raise RecordError(
                "game %d already ended %s (%s); cannot end it %s (%s)"
                % (game_id, record.result, record.termination, result, termination)
            )
        record.result = result
        record.termination = termination
        record.score = score
        record.ended = ended or now_iso()
        replay(record)
        with self._file.write() as conn:
            conn.execute(
                "UPDATE games SET result = ?, termination = ?, score = ?, ended = ? WHERE id = ?",
                (record.result, record.termination, record.score, record.ended, game_id),
            )
        self._live.pop(game_id, None)
        return record

    def reopen_game(self, game_id: int) -> None:
        """Clear a declared end (the board took back a resignation or an agreement):
        the game is unfinished again, its moves unchanged."""
        with self._file.write() as conn:
            self._read.row(conn, game_id)
            conn.execute(
                "UPDATE games SET result = '*', termination = NULL, score = NULL, ended = NULL WHERE id = ?",
                (game_id,),
            )

    def take_back(self, game_id: int, moves_left: int) -> int:
        """Delete the moves from index ``moves_left`` on (a take-back on the board or the
        host: the link's "undo" event), in one transaction; returns how many went. A
        finished game becomes unfinished again, since play goes on from there."""
        count = self._read.move_count(game_id)
        if not 0 <= moves_left <= count:
            raise RecordError("game %d: cannot take back to %d moves (it has %d)" % (game_id, moves_left, count))
        if moves_left == count:
            return 0
        with self._file.write() as conn:
            self._read.row(conn, game_id)
            conn.execute("DELETE FROM moves WHERE game_id = ? AND idx >= ?", (game_id, moves_left))
            conn.execute(
                "UPDATE games SET result = '*', termination = NULL, score = NULL, ended = NULL WHERE id = ?",
                (game_id,),
            )
        game = self._live.get(game_id)
        if game is not None:
            while game.ply() > moves_left:
                game.pop()
        return count - moves_left

    def set_players(self, game_id: int, players: dict[str, str]) -> None:
        record = self._read.get(game_id)
        record.players.update(players)
        check_players(record, parse_ruleset(record.ruleset))
        with self._file.write() as conn:
            conn.execute(
                "UPDATE games SET south = ?, west = ?, north = ?, east = ? WHERE id = ?",
                (*[record.players.get(side) for side in SIDES], game_id),
            )

    def set_help(self, game_id: int, help: dict[str, str], hint_limit: int | None) -> None:
        """The help each person's seat has in game ``game_id`` (side -> level of
        ``record.HELP_LEVELS``) and the hints per side (None: no limit). Set when the game
        opens; a game resumed with other help keeps the help it is played on with."""
        record = self._read.get(game_id)
        record.help = dict(help)
        record.hint_limit = hint_limit
        check_help(record, parse_ruleset(record.ruleset))
        with self._file.write() as conn:
            conn.execute(
                "UPDATE games SET help = ?, hint_limit = ? WHERE id = ?",
                (help_text(record.help) or None, hint_limit, game_id),
            )

    def set_grade(self, game_id: int, index: int, text: str, grade: str, words: str) -> bool:
        """The grade of move ``index`` (``text``: the move graded) and why, from the
        mover's help while the game is played. False, and nothing written, when the log
        has no such move there (taken back meanwhile, or another move in its place)."""
        if grade not in GRADE_NAMES:
            raise RecordError(
                "game %d move %d: unknown grade %r (grades: %s)" % (game_id, index + 1, grade, ", ".join(GRADE_NAMES))
            )
        with self._file.write() as conn:
            cursor = conn.execute(
                "UPDATE moves SET grade = ?, grade_words = ? WHERE game_id = ? AND idx = ? AND text = ?",
                (grade, words, game_id, index, text.strip()),
            )
            return cursor.rowcount == 1

    def drop_empty_game(self, game_id: int) -> bool:
        """Removes game ``game_id`` if it is unfinished and has no move (a game opened and
        left before its first move is no game); True if it went."""
        with self._file.write() as conn:
            row = self._read.row(conn, game_id)
            if row["result"] != UNFINISHED:
                return False
            if conn.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,)).fetchone()[0]:
                return False
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
        self._live.pop(game_id, None)
        return True

    def import_record(self, record: GameRecord) -> tuple[int, bool]:
        """Validate ``record`` with the rules engine and store it in one transaction.

        Returns (game id, True), or (id of the stored copy, False) when the same game is
        already there. Raises RecordError (naming the line) and stores nothing for a bad
        record."""
        replay(record)
        same = self._read.find_same(record)
        if same is not None:
            return same, False
        with self._file.write() as conn:
            game_id = self.insert_game(conn, record, "import")
            conn.executemany(
                "INSERT INTO moves (game_id, idx, text, side, time, elapsed_ms, clock_ms, grade, grade_words) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (game_id, i, m.text, m.side, m.time, m.elapsed_ms, m.clock_ms, m.grade, m.grade_words)
                    for i, m in enumerate(record.moves)
                ],
            )
        return game_id, True


class BoardGames:
    """The games a board knows by its own id: attaching the moves it sends, and handing
    its game over to another log game."""

    def __init__(self, file: LogFile, read: GameReader, games: GameWriter) -> None:
        self._file = file
        self._read = read
        self._games = games

    def hand_over_board_game(self, game_id: int) -> None:
        """Game ``game_id`` stops being the board's game (its moves stay as they are): the
        board's game goes on as another log game, which takes the board's game id."""
        with self._file.write() as conn:
            self._read.row(conn, game_id)
            conn.execute("UPDATE games SET board_game_id = NULL WHERE id = ?", (game_id,))

    def move_to_board_game(self, game_id: int, board: str, board_game_id: str, tags: dict[str, str]) -> None:
        """Game ``game_id`` goes on as the board's game ``board_game_id`` (its moves stay;
        ``tags``: its tags now). Another log game that had that board game id loses it."""
        with self._file.write() as conn:
            self._read.row(conn, game_id)
            conn.execute(
                "UPDATE games SET board_game_id = NULL WHERE board = ? AND board_game_id = ? AND id != ?",
                (board, board_game_id, game_id),
            )
            conn.execute(
                "UPDATE games SET board = ?, board_game_id = ?, tags = ? WHERE id = ?",
                (board, board_game_id, json.dumps(tags, sort_keys=True), game_id),
            )

    def attach_board_moves(
        self,
        board: str,
        board_game_id: str,
        ruleset: str,
        moves: Sequence[tuple[int, str]],
        *,
        layout: str | None = None,
        players: dict[str, str] | None = None,
        started: str | None = None,
        position: str | None = None,
    ) -> tuple[int, int]:
        """Attach moves that a board sent for its game ``board_game_id``: creates the game
        on first sight (from ``position`` when the board set it up from one), then adds
        each (index, text) idempotently, in index order. Returns (game id, number of moves
        newly written). Used when a board that played standalone reconnects, and for
        every resend after a reconnect."""
        game_id = self._read.board_game(board, board_game_id)
        if game_id is None:
            game_id = self._games.new_game(
                ruleset,
                players=players,
                board=board,
                layout=layout,
                board_game_id=board_game_id,
                started=started,
                source="board",
                position=position,
            )
        else:
            stored = parse_ruleset(self._read.get_ruleset(game_id))
            if stored != parse_ruleset(ruleset):
                raise RecordError(
                    "board %r game %r is stored as %r, not %r" % (board, board_game_id, str(stored), ruleset)
                )
        added = 0
        for index, text in sorted(moves):
            if self._games.add_move(game_id, index, text):
                added += 1
        return game_id, added
