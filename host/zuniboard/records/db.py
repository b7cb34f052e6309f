"""The game database: one SQLite file (stdlib ``sqlite3``) holding every game and move.

Where: ``--db PATH``, else the environment variable ``ZUNI_DB``, else
``games.sqlite3`` in ``platformdirs.user_data_dir("zuniboard")``.

Durability: every move is its own committed transaction, written as it happens. The
journal is in WAL mode, so readers (``zuni log list`` while a game is played) never
block the writer, and a killed process loses nothing that was committed.
``synchronous=FULL`` also fsyncs the WAL at every commit, so that a committed move
survives a power cut of the PC too: a move comes at most every second or so and an fsync
costs a few milliseconds, so there is nothing to save by running with NORMAL.

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

import contextlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import platformdirs

import zuni
from zuniboard.records.record import (
    GRADE_NAMES,
    SIDES,
    UNFINISHED,
    GameRecord,
    MoveEntry,
    RecordError,
    check_help,
    check_players,
    help_text,
    now_iso,
    parse_help,
    parse_ruleset,
    replay,
)

DB_ENV = "ZUNI_DB"
DB_FILENAME = "games.sqlite3"

# (version, description, statements). Append only: a database records which versions it
# has applied in schema_migrations and gets the missing ones, each in one transaction.
MIGRATIONS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    (
        1,
        "games and moves",
        (
            """CREATE TABLE games (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                ruleset TEXT NOT NULL,
                south TEXT, west TEXT, north TEXT, east TEXT,
                board TEXT,
                layout TEXT,
                board_game_id TEXT,
                started TEXT,
                ended TEXT,
                result TEXT NOT NULL DEFAULT '*',
                termination TEXT,
                score TEXT,
                source TEXT NOT NULL DEFAULT 'host',
                tags TEXT NOT NULL DEFAULT '{}',
                CHECK (board_game_id IS NULL OR board IS NOT NULL)
            )""",
            "CREATE UNIQUE INDEX games_board_game ON games (board, board_game_id) WHERE board_game_id IS NOT NULL",
            "CREATE INDEX games_started ON games (started)",
            """CREATE TABLE moves (
                game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
                idx INTEGER NOT NULL CHECK (idx >= 0),
                text TEXT NOT NULL,
                side TEXT NOT NULL,
                time TEXT,
                PRIMARY KEY (game_id, idx)
            ) WITHOUT ROWID""",
        ),
    ),
    (
        2,
        "start positions, time controls, move times",
        (
            "ALTER TABLE games ADD COLUMN position TEXT",
            "ALTER TABLE games ADD COLUMN time_control TEXT",
            "ALTER TABLE moves ADD COLUMN elapsed_ms INTEGER",
            "ALTER TABLE moves ADD COLUMN clock_ms INTEGER",
        ),
    ),
    (
        3,
        "learning: lessons and puzzles done, settings",
        (
            """CREATE TABLE learning (
                kind TEXT NOT NULL,
                item TEXT NOT NULL,
                tries INTEGER NOT NULL DEFAULT 0,
                solved INTEGER NOT NULL DEFAULT 0,
                first TEXT,
                last TEXT,
                PRIMARY KEY (kind, item)
            ) WITHOUT ROWID""",
            "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
        ),
    ),
    (
        4,
        "help levels and hint limit per game, move grades",
        (
            "ALTER TABLE games ADD COLUMN help TEXT",
            "ALTER TABLE games ADD COLUMN hint_limit INTEGER",
            "ALTER TABLE moves ADD COLUMN grade TEXT",
            "ALTER TABLE moves ADD COLUMN grade_words TEXT",
        ),
    ),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]


class DatabaseError(Exception):
    """The database file cannot be opened or is of an unknown schema; names the file."""


class LogUnwritable(DatabaseError):
    """The log cannot be written now (a full disk, a read-only folder or file): names the
    folder and what to do. Nothing of the write was stored; the same write may be tried
    again later."""


def unwritable(path: str, reason: object) -> LogUnwritable:
    folder = Path(path).resolve().parent if path != ":memory:" else Path(".")
    if not folder.is_dir() and not isinstance(reason, OSError):  # (an OSError: it could not be made)
        return LogUnwritable(
            "cannot open game database %s: there is no folder %s (make it, or choose another log with --db "
            "or $ZUNI_DB)" % (path, folder)
        )
    if isinstance(reason, sqlite3.Error) and "full" not in str(reason):
        # sqlite says "unable to open database file" or "readonly database": the folder's
        # own reason is clearer (a read-only file system, no permission).
        try:
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as exc:
            reason = exc
    return LogUnwritable(
        "cannot write the game log in %s (%s): make that folder writable or free some space there, "
        "or choose another log with --db or $ZUNI_DB" % (folder, _reason(reason))
    )


def _reason(exc: object) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return str(exc.strerror)
    return str(exc)


# sqlite's words for a write it could not do (as opposed to a damaged or foreign file).
_CANNOT_WRITE = ("disk is full", "readonly", "read-only", "unable to open", "disk i/o error", "unable to write")


def _cannot_write(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return any(words in text for words in _CANNOT_WRITE)


class UnknownGameError(LookupError):
    """No game with that id."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


class MoveConflictError(RecordError):
    """A move resent at a stored index differs from the stored move."""


def user_db_path() -> Path:
    """games.sqlite3 in the user's data directory (``~/.local/share/zuniboard`` on Linux)."""
    return Path(platformdirs.user_data_dir("zuniboard")) / DB_FILENAME


def default_db_path() -> Path:
    """``$ZUNI_DB``, else ``user_db_path()``."""
    env = os.environ.get(DB_ENV, "")
    if env:
        return Path(env)
    return user_db_path()


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
# Columns of later schema versions (2 and 4): a log opened read-only is not migrated (its
# folder may not be writable), so an older file lacks them and they read as NULL.
_LATER_COLUMNS = {
    "games": ("position", "time_control", "help", "hint_limit"),
    "moves": ("elapsed_ms", "clock_ms", "grade", "grade_words"),
}


class Database:
    """An open game database. Use as a context manager, or call ``close()``."""

    def __init__(self, path: Path | str | None = None, *, readonly: bool = False) -> None:
        """``readonly``: for reading only (`zuni log list`, `zuni analyze`), which works
        in a folder that cannot be written; a missing file is then an error."""
        self.readonly = readonly
        if path is None:
            path = default_db_path()
            if not readonly:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise unwritable(str(path), exc) from None
        self.path = str(path)
        if readonly:
            self._conn = self._open_readonly()
        else:
            self._open()
        self._columns = self._later_columns()
        # Games being written by this process, at their current position, so that each
        # add_move checks one move instead of replaying the game.
        self._live: dict[int, zuni.Game] = {}

    def _open(self) -> None:
        try:
            # isolation_level=None: no implicit transactions; every write below opens its
            # own BEGIN IMMEDIATE ... COMMIT, so what is committed is exactly one step.
            self._conn = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
            self._conn.execute("PRAGMA busy_timeout = 10000")
            if self.path != ":memory:":
                mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise DatabaseError("%s: cannot use write-ahead logging (journal mode %s)" % (self.path, mode))
            self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            if _cannot_write(exc):
                raise unwritable(self.path, exc) from None
            raise DatabaseError("cannot open game database %s: %s" % (self.path, exc)) from None

    def _open_readonly(self) -> sqlite3.Connection:
        """The file opened for reading: as it is when its folder can be written (sqlite
        shares the write-ahead log's index there), else as an immutable file."""
        if not os.path.exists(self.path):
            raise DatabaseError("no game log %s yet (`zuni play` starts one)" % self.path)
        uri = Path(self.path).resolve().as_uri()
        last: sqlite3.Error | None = None
        for query in ("?mode=ro", "?immutable=1"):
            try:
                conn = sqlite3.connect(uri + query, uri=True, isolation_level=None, timeout=10.0)
                conn.execute("SELECT COUNT(*) FROM games").fetchone()
                return conn
            except sqlite3.Error as exc:
                last = exc
        raise DatabaseError("cannot read game database %s: %s" % (self.path, last))

    # -- life cycle -----------------------------------------------------------
    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back on any error."""
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if _cannot_write(exc):
                raise unwritable(self.path, exc) from None
            raise
        try:
            yield conn
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            if _cannot_write(exc):
                raise unwritable(self.path, exc) from None
            raise
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise

    def _migrate(self) -> None:
        conn = self._conn
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied TEXT NOT NULL)"
        )
        applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        newer = [v for v in applied if v > SCHEMA_VERSION]
        if newer:
            raise DatabaseError(
                "%s has schema version %d, newer than this zuni knows (%d): update zuniboard"
                % (self.path, max(newer), SCHEMA_VERSION)
            )
        for version, description, statements in MIGRATIONS:
            if version in applied:
                continue
            with self._write():
                for statement in statements:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations (version, description, applied) VALUES (?, ?, ?)",
                    (version, description, now_iso()),
                )
                conn.execute("PRAGMA user_version = %d" % version)

    def _later_columns(self) -> dict[str, str]:
        """Per table, the later columns to select: each as itself, or NULL where the file
        (an older log read without migrating it) lacks it."""
        out: dict[str, str] = {}
        for table, names in _LATER_COLUMNS.items():
            have = {str(row[1]) for row in self._conn.execute("PRAGMA table_info(%s)" % table)}
            out[table] = ", ".join(name if name in have else "NULL AS %s" % name for name in names)
        return out

    def schema_version(self) -> int:
        row = self._conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    def migrations(self) -> list[tuple[int, str, str]]:
        """(version, description, time applied) of every applied migration."""
        return [
            (int(v), str(d), str(t))
            for v, d, t in self._conn.execute(
                "SELECT version, description, applied FROM schema_migrations ORDER BY version"
            )
        ]

    # -- writing a game as it is played -----------------------------------------
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
        with self._write() as conn:
            game_id = self._insert_game(conn, record, source)
        self._live[game_id] = game
        return game_id

    def _insert_game(self, conn: sqlite3.Connection, record: GameRecord, source: str) -> int:
        if record.board_game_id is not None and not record.board:
            raise RecordError("board game id %r needs the board's identity" % (record.board_game_id,))
        if record.board_game_id is not None and self.board_game(record.board or "", record.board_game_id) is not None:
            raise RecordError(
                "board %r already has a game with id %r in %s" % (record.board, record.board_game_id, self.path)
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
        with self._write() as conn:
            row = conn.execute("SELECT text FROM moves WHERE game_id = ? AND idx = ?", (game_id, index)).fetchone()
            if row is not None:
                if row[0] == text:
                    return False
                raise MoveConflictError(
                    "game %d move %d: received %r but %r is stored at that index" % (game_id, index + 1, text, row[0])
                )
            head = self._game_row(conn, game_id)
            count = self.move_count(game_id)
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
            game = replay(self.get(game_id), complete=False)
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
        record = self.get(game_id)
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
        with self._write() as conn:
            conn.execute(
                "UPDATE games SET result = ?, termination = ?, score = ?, ended = ? WHERE id = ?",
                (record.result, record.termination, record.score, record.ended, game_id),
            )
        self._live.pop(game_id, None)
        return record

    def reopen_game(self, game_id: int) -> None:
        """Clear a declared end (the board took back a resignation or an agreement):
        the game is unfinished again, its moves unchanged."""
        with self._write() as conn:
            self._game_row(conn, game_id)
            conn.execute(
                "UPDATE games SET result = '*', termination = NULL, score = NULL, ended = NULL WHERE id = ?",
                (game_id,),
            )

    def take_back(self, game_id: int, moves_left: int) -> int:
        """Delete the moves from index ``moves_left`` on (a take-back on the board or the
        host: the link's "undo" event), in one transaction; returns how many went. A
        finished game becomes unfinished again, since play goes on from there."""
        count = self.move_count(game_id)
        if not 0 <= moves_left <= count:
            raise RecordError("game %d: cannot take back to %d moves (it has %d)" % (game_id, moves_left, count))
        if moves_left == count:
            return 0
        with self._write() as conn:
            self._game_row(conn, game_id)
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
        record = self.get(game_id)
        record.players.update(players)
        check_players(record, parse_ruleset(record.ruleset))
        with self._write() as conn:
            conn.execute(
                "UPDATE games SET south = ?, west = ?, north = ?, east = ? WHERE id = ?",
                (*[record.players.get(side) for side in SIDES], game_id),
            )

    def set_help(self, game_id: int, help: dict[str, str], hint_limit: int | None) -> None:
        """The help each person's seat has in game ``game_id`` (side -> level of
        ``record.HELP_LEVELS``) and the hints per side (None: no limit). Set when the game
        opens; a game resumed with other help keeps the help it is played on with."""
        record = self.get(game_id)
        record.help = dict(help)
        record.hint_limit = hint_limit
        check_help(record, parse_ruleset(record.ruleset))
        with self._write() as conn:
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
        with self._write() as conn:
            cursor = conn.execute(
                "UPDATE moves SET grade = ?, grade_words = ? WHERE game_id = ? AND idx = ? AND text = ?",
                (grade, words, game_id, index, text.strip()),
            )
            return cursor.rowcount == 1

    def hand_over_board_game(self, game_id: int) -> None:
        """Game ``game_id`` stops being the board's game (its moves stay as they are): the
        board's game goes on as another log game, which takes the board's game id."""
        with self._write() as conn:
            self._game_row(conn, game_id)
            conn.execute("UPDATE games SET board_game_id = NULL WHERE id = ?", (game_id,))

    def drop_empty_game(self, game_id: int) -> bool:
        """Removes game ``game_id`` if it is unfinished and has no move (a game opened and
        left before its first move is no game); True if it went."""
        with self._write() as conn:
            row = self._game_row(conn, game_id)
            if row["result"] != UNFINISHED:
                return False
            if conn.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,)).fetchone()[0]:
                return False
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
        self._live.pop(game_id, None)
        return True

    def move_to_board_game(self, game_id: int, board: str, board_game_id: str, tags: dict[str, str]) -> None:
        """Game ``game_id`` goes on as the board's game ``board_game_id`` (its moves stay;
        ``tags``: its tags now). Another log game that had that board game id loses it."""
        with self._write() as conn:
            self._game_row(conn, game_id)
            conn.execute(
                "UPDATE games SET board_game_id = NULL WHERE board = ? AND board_game_id = ? AND id != ?",
                (board, board_game_id, game_id),
            )
            conn.execute(
                "UPDATE games SET board = ?, board_game_id = ?, tags = ? WHERE id = ?",
                (board, board_game_id, json.dumps(tags, sort_keys=True), game_id),
            )

    # -- games the board played on its own ------------------------------------------
    def board_game(self, board: str, board_game_id: str) -> int | None:
        """The id of the game a board knows as ``board_game_id``, or None."""
        row = self._conn.execute(
            "SELECT id FROM games WHERE board = ? AND board_game_id = ?", (board, board_game_id)
        ).fetchone()
        return None if row is None else int(row[0])

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
        game_id = self.board_game(board, board_game_id)
        if game_id is None:
            game_id = self.new_game(
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
            stored = parse_ruleset(self.get_ruleset(game_id))
            if stored != parse_ruleset(ruleset):
                raise RecordError(
                    "board %r game %r is stored as %r, not %r" % (board, board_game_id, str(stored), ruleset)
                )
        added = 0
        for index, text in sorted(moves):
            if self.add_move(game_id, index, text):
                added += 1
        return game_id, added

    # -- reading ----------------------------------------------------------------
    def _game_row(self, conn: sqlite3.Connection, game_id: int) -> sqlite3.Row:
        cursor = conn.execute(
            "SELECT %s, %s FROM games WHERE id = ?" % (_GAME_COLUMNS, self._columns["games"]), (game_id,)
        )
        cursor.row_factory = sqlite3.Row
        row: sqlite3.Row | None = cursor.fetchone()
        if row is None:
            raise UnknownGameError("no game %d in %s" % (game_id, self.path))
        return row

    def get_ruleset(self, game_id: int) -> str:
        return str(self._game_row(self._conn, game_id)["ruleset"])

    def move_count(self, game_id: int) -> int:
        row = self._conn.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,)).fetchone()
        return int(row[0])

    def get(self, game_id: int) -> GameRecord:
        """The whole record of a game; UnknownGameError if there is none."""
        row = self._game_row(self._conn, game_id)
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
        for text, side, time, elapsed_ms, clock_ms, grade, grade_words in self._conn.execute(
            "SELECT text, side, time, %s FROM moves WHERE game_id = ? ORDER BY idx" % self._columns["moves"],
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
            "FROM games ORDER BY id DESC" % (_GAME_COLUMNS, self._columns["games"])
        )
        params: tuple[int, ...] = ()
        if limit is not None:
            sql += " LIMIT ?"
            params = (limit,)
        cursor = self._conn.execute(sql, params)
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

    # -- learning: lessons and puzzles done, settings (zuniboard.learn.progress) -----
    def record_try(self, kind: str, item: str, solved: bool) -> None:
        """One try at lesson step or puzzle ``item`` (``kind``: lesson, puzzle)."""
        now = now_iso()
        with self._write() as conn:
            conn.execute(
                "INSERT INTO learning (kind, item, tries, solved, first, last) VALUES (?, ?, 1, ?, ?, ?) "
                "ON CONFLICT (kind, item) DO UPDATE SET tries = tries + 1, "
                "solved = MAX(solved, excluded.solved), last = excluded.last",
                (kind, item, int(solved), now, now),
            )

    def tries(self, kind: str) -> dict[str, tuple[int, bool]]:
        """item -> (tries, solved) of every ``kind`` item tried."""
        rows = self._conn.execute("SELECT item, tries, solved FROM learning WHERE kind = ?", (kind,))
        return {str(item): (int(tries), bool(solved)) for item, tries, solved in rows}

    def setting(self, key: str, default: str = "") -> str:
        row = self._conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def game_ids(self) -> list[int]:
        return [int(row[0]) for row in self._conn.execute("SELECT id FROM games ORDER BY id")]

    # -- import -----------------------------------------------------------------
    def find_same(self, record: GameRecord) -> int | None:
        """The id of a stored game with the same ruleset, start time and moves as
        ``record`` (so that importing a file twice does not store its games twice)."""
        if record.started is None:
            return None
        for (game_id,) in self._conn.execute(
            "SELECT id FROM games WHERE ruleset = ? AND started = ?", (record.ruleset, record.started)
        ).fetchall():
            stored = self.get(int(game_id))
            if stored.move_texts() == record.move_texts() and stored.position == record.position:
                return int(game_id)
        return None

    def import_record(self, record: GameRecord) -> tuple[int, bool]:
        """Validate ``record`` with the rules engine and store it in one transaction.

        Returns (game id, True), or (id of the stored copy, False) when the same game is
        already there. Raises RecordError (naming the line) and stores nothing for a bad
        record."""
        replay(record)
        same = self.find_same(record)
        if same is not None:
            return same, False
        with self._write() as conn:
            game_id = self._insert_game(conn, record, "import")
            conn.executemany(
                "INSERT INTO moves (game_id, idx, text, side, time, elapsed_ms, clock_ms, grade, grade_words) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (game_id, i, m.text, m.side, m.time, m.elapsed_ms, m.clock_ms, m.grade, m.grade_words)
                    for i, m in enumerate(record.moves)
                ],
            )
        return game_id, True
