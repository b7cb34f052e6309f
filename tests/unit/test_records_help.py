"""Help levels, hint limits and move grades in the game log (schema version 4, JSON
version 3): stored with the game, written and read back by both export formats, checked
on import; a log of schema version 3 (before them) is still read, read-only without
migrating it and migrated when opened to write; JSON version 2 documents still import."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from zuniboard.records import formats
from zuniboard.records.db import MIGRATIONS, SCHEMA_VERSION, Database
from zuniboard.records.record import GameRecord, MoveEntry, RecordError, replay

START = "mosona | south to move | south m6 m7 s2 s4 | north n3 m3 m2 | quiet 0"


def graded_game(db: Database) -> int:
    gid = db.new_game(
        "mosona",
        players={"south": "human", "north": "ai:1"},
        position=START,
        help={"south": "warn"},
        hint_limit=2,
    )
    db.add_move(gid, 0, "s2xm2-n1")
    db.add_move(gid, 1, "m3-s3")
    assert db.set_grade(gid, 0, "s2xm2-n1", "blunder", "missed a win in 1 (s2xm2-n2xn3-m4xm3-n2)")
    return gid


def test_help_and_grades_are_stored_with_the_game(tmp_path: Path) -> None:
    with Database(tmp_path / "g.sqlite3") as db:
        assert SCHEMA_VERSION == 4 and db.schema_version() == 4
        gid = graded_game(db)
        # A grade for a move that is not there (taken back, another in its place) is not written.
        assert not db.set_grade(gid, 1, "m3-m4", "best", "x") and not db.set_grade(gid, 5, "m3-s3", "best", "x")
        with pytest.raises(RecordError, match="unknown grade 'great'"):
            db.set_grade(gid, 1, "m3-s3", "great", "")
        with pytest.raises(RecordError, match="help east=full"):
            db.set_help(gid, {"east": "full"}, None)
        with pytest.raises(RecordError, match="help south=lots"):
            db.set_help(gid, {"south": "lots"}, None)
        record = db.get(gid)
        assert record.help == {"south": "warn"} and record.hint_limit == 2
        assert [(m.grade, m.grade_words) for m in record.moves] == [
            ("blunder", "missed a win in 1 (s2xm2-n2xn3-m4xm3-n2)"),
            (None, None),
        ]
        db.set_help(gid, {"south": "full", "north": "none"}, None)
        assert db.get(gid).help == {"south": "full", "north": "none"} and db.get(gid).hint_limit is None
        db.take_back(gid, 0)
        db.add_move(gid, 0, "s2xm2-n1")
        assert db.get(gid).moves[0].grade is None, "a grade goes with its move"


@pytest.mark.parametrize("fmt", formats.FORMATS)
def test_export_shows_them_and_reads_them_back(tmp_path: Path, fmt: str) -> None:
    with Database(tmp_path / "g.sqlite3") as db:
        record = db.get(graded_game(db))
    text = formats.export([record], fmt)
    if fmt == "pgn":
        assert '[Help "south=warn"]' in text and '[HintLimit "2"]' in text
        assert "s2xm2-n1 {[%time " in text and "[%grade blunder missed a win in 1 (s2xm2-n2xn3-m4xm3-n2)]}" in text
    else:
        data = json.loads(text)
        assert data["version"] == 3
        game = data["games"][0]
        assert game["help"] == {"south": "warn"} and game["hint_limit"] == 2
        assert game["moves"][0]["grade"] == "blunder" and "grade" not in game["moves"][1]
        assert '"grade": "blunder", "grade_words": "missed a win in 1' in text, "one move a line"
    back, errors = formats.parse(text, fmt)
    assert not errors
    replay(back[0], complete=False)
    assert back[0].help == record.help and back[0].hint_limit == 2
    assert [(m.grade, m.grade_words) for m in back[0].moves] == [(m.grade, m.grade_words) for m in record.moves]
    with Database(tmp_path / "other.sqlite3") as db:
        gid, new = db.import_record(back[0])
        assert new and db.get(gid).moves[0].grade == "blunder" and db.get(gid).help == {"south": "warn"}


def test_words_that_would_end_the_comment_are_kept_out() -> None:
    record = GameRecord("mosona", moves=[MoveEntry("s3xm4-m5", grade="good", grade_words="x ]} {[ y")])
    text = formats.write_pgn(record)
    assert "[%grade good x )) (( y]" in text
    back, errors = formats.read_pgn(text)
    assert not errors and back[0].moves[0].grade == "good"


@pytest.mark.parametrize(
    ("record", "words"),
    [
        ('[Ruleset "mosona"]\n[Help "south=lots"]\n\n*\n', "line 2: help 'south=lots'"),
        ('[Ruleset "mosona"]\n[Help "east=full"]\n\n*\n', "line 2: help east=full: a seat of mosona"),
        ('[Ruleset "mosona"]\n[HintLimit "-1"]\n\n*\n', "line 2: HintLimit '-1'"),
        ('[Ruleset "mosona"]\n\n1. s3xm4-m5 {[%grade great]} *\n', "line 3: move 1: unknown grade 'great'"),
        ('[Ruleset "mosona"]\n\n1. s3xm4-m5 {[%grade]} *\n', "line 3: bad grade comment"),
    ],
)
def test_bad_help_and_grades_are_named(record: str, words: str) -> None:
    records, errors = formats.read_pgn(record)
    if not errors:
        with pytest.raises(RecordError) as info:
            replay(records[0])
        errors = [info.value]
    assert words in str(errors[0])


def test_json_version_2_still_imports(tmp_path: Path) -> None:
    text = json.dumps(
        {"format": "zuniboard-games", "version": 2, "games": [{"ruleset": "mosona", "moves": ["s3xm4-m5"]}]}
    )
    records, errors = formats.read_json(text)
    assert not errors and records[0].help == {} and records[0].moves[0].grade is None
    bad = json.dumps({"format": "zuniboard-games", "version": 3, "games": [{"ruleset": "mosona", "hint_limit": "2"}]})
    assert "hint_limit" in str(formats.read_json(bad)[1][0])


def old_log(path: Path, version: int = 3) -> None:
    """A log as a zuni of schema ``version`` left it, with one game of two moves."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied TEXT NOT NULL)"
    )
    for v, description, statements in MIGRATIONS[:version]:
        for statement in statements:
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'then')", (v, description))
    conn.execute("INSERT INTO games (ruleset, south, north, started) VALUES ('mosona', 'human', 'ai:3', '2026-01-01')")
    conn.execute("INSERT INTO moves (game_id, idx, text, side) VALUES (1, 0, 's3xm4-m5', 'south')")
    conn.execute("INSERT INTO moves (game_id, idx, text, side) VALUES (1, 1, 'n5xm5-m4', 'north')")
    conn.close()


def test_a_log_of_schema_version_1_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    old_log(path, 1)
    with Database(path, readonly=True) as db:
        record = db.get(1)
        assert record.move_texts() == ["s3xm4-m5", "n5xm5-m4"] and record.position is None
        assert record.moves[0].clock_ms is None and record.help == {}
        assert [g.id for g in db.list_games()] == [1]


def test_an_old_log_is_still_read_and_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old_log(path)
    with Database(path, readonly=True) as db:  # not migrated: the columns read as none
        assert db.schema_version() == 3
        record = db.get(1)
        assert record.move_texts() == ["s3xm4-m5", "n5xm5-m4"] and record.help == {} and record.hint_limit is None
        assert all(m.grade is None for m in record.moves)
        assert [g.id for g in db.list_games()] == [1]
        assert "[Help" not in formats.export([record], "pgn")
    with Database(path) as db:
        assert db.schema_version() == 4
        assert [v for v, _, _ in db.migrations()] == [1, 2, 3, 4]
        assert db.set_grade(1, 0, "s3xm4-m5", "best", "the best move")
        assert db.get(1).moves[0].grade == "best" and db.get(1).move_texts() == ["s3xm4-m5", "n5xm5-m4"]
