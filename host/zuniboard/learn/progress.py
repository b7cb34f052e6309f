"""What the player has learnt, kept in the game log database (``records.db``, schema
version 3): lesson steps and puzzles tried and solved, and the learning settings (the
names used for the bow priest and the kolowisi)."""

from __future__ import annotations

from zuniboard.records.db import Database


class Progress:
    def __init__(self, db: Database) -> None:
        self.db = db

    def record(self, kind: str, item: str, solved: bool) -> None:
        self.db.record_try(kind, item, solved)

    def solved(self, kind: str) -> set[str]:
        return {item for item, (_, ok) in self.db.tries(kind).items() if ok}

    def tries(self, kind: str) -> dict[str, tuple[int, bool]]:
        return self.db.tries(kind)

    def setting(self, key: str, default: str = "") -> str:
        return self.db.setting(key, default)

    def set_setting(self, key: str, value: str) -> None:
        self.db.set_setting(key, value)
