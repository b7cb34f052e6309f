"""The learning part of the game log: lessons and puzzles tried and solved, and the
learner's settings (read and written by ``zuniboard.learn.progress``)."""

from __future__ import annotations

from zuniboard.records.db_file import LogFile
from zuniboard.records.record import now_iso


class LearningStore:
    """The SQL of the ``learning`` and ``settings`` tables."""

    def __init__(self, file: LogFile) -> None:
        self._file = file

    def record_try(self, kind: str, item: str, solved: bool) -> None:
        """One try at lesson step or puzzle ``item`` (``kind``: lesson, puzzle)."""
        now = now_iso()
        with self._file.write() as conn:
            conn.execute(
                "INSERT INTO learning (kind, item, tries, solved, first, last) VALUES (?, ?, 1, ?, ?, ?) "
                "ON CONFLICT (kind, item) DO UPDATE SET tries = tries + 1, "
                "solved = MAX(solved, excluded.solved), last = excluded.last",
                (kind, item, int(solved), now, now),
            )

    def tries(self, kind: str) -> dict[str, tuple[int, bool]]:
        """item -> (tries, solved) of every ``kind`` item tried."""
        rows = self._file.conn.execute("SELECT item, tries, solved FROM learning WHERE kind = ?", (kind,))
        return {str(item): (int(tries), bool(solved)) for item, tries, solved in rows}

    def setting(self, key: str, default: str = "") -> str:
        row = self._file.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        with self._file.write() as conn:
            conn.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
