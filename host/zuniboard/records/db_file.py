"""The game log's file: opening it (for writing, or for reading only), its schema and
migrations, and its write transactions, which every owner of the log's SQL
(``db_games``, ``db_write``, ``db_learning``) writes through.

Durability: every move is its own committed transaction, written as it happens. The
journal is in WAL mode, so readers (``zuni log list`` while a game is played) never
block the writer, and a killed process loses nothing that was committed.
``synchronous=FULL`` also fsyncs the WAL at every commit, so that a committed move
survives a power cut of the PC too: a move comes at most every second or so and an fsync
costs a few milliseconds, so there is nothing to save by running with NORMAL.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import platformdirs

from zuniboard.records.record import now_iso

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


def user_db_path() -> Path:
    """games.sqlite3 in the user's data directory (``~/.local/share/zuniboard`` on Linux)."""
    return Path(platformdirs.user_data_dir("zuniboard")) / DB_FILENAME


def default_db_path() -> Path:
    """``$ZUNI_DB``, else ``user_db_path()``."""
    env = os.environ.get(DB_ENV, "")
    if env:
        return Path(env)
    return user_db_path()


# Columns of later schema versions (2 and 4): a log opened read-only is not migrated (its
# folder may not be writable), so an older file lacks them and they read as NULL.
_LATER_COLUMNS = {
    "games": ("position", "time_control", "help", "hint_limit"),
    "moves": ("elapsed_ms", "clock_ms", "grade", "grade_words"),
}


class LogFile:
    """The open connection to a game log file, migrated to ``SCHEMA_VERSION`` unless
    opened read-only."""

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
            self.conn = self._open_readonly()
        else:
            self._open()
        # Per table, the columns of later schema versions to select (see _LATER_COLUMNS).
        self.columns = self._later_columns()

    def close(self) -> None:
        self.conn.close()

    def _open(self) -> None:
        try:
            # isolation_level=None: no implicit transactions; every write below opens its
            # own BEGIN IMMEDIATE ... COMMIT, so what is committed is exactly one step.
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
            self.conn.execute("PRAGMA busy_timeout = 10000")
            if self.path != ":memory:":
                mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise DatabaseError("%s: cannot use write-ahead logging (journal mode %s)" % (self.path, mode))
            self.conn.execute("PRAGMA synchronous = FULL")
            self.conn.execute("PRAGMA foreign_keys = ON")
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

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back on any error."""
        conn = self.conn
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
        conn = self.conn
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
            with self.write():
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
            have = {str(row[1]) for row in self.conn.execute("PRAGMA table_info(%s)" % table)}
            out[table] = ", ".join(name if name in have else "NULL AS %s" % name for name in names)
        return out

    def schema_version(self) -> int:
        row = self.conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    def migrations(self) -> list[tuple[int, str, str]]:
        """(version, description, time applied) of every applied migration."""
        return [
            (int(v), str(d), str(t))
            for v, d, t in self.conn.execute(
                "SELECT version, description, applied FROM schema_migrations ORDER BY version"
            )
        ]
