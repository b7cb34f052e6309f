"""Records that start from a hand-made position and keep clock times (schema 2, JSON 2).

Old records (JSON version 1, schema-1 databases) still read; a newer JSON version is a
clear error."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from zuniboard.records import formats
from zuniboard.records.db import MIGRATIONS, Database
from zuniboard.records.record import GameRecord, MoveEntry, RecordError, replay

ZUNI = Path(sys.executable).parent / "zuni"
KOLOWIS = "kolowis size=short | north to move | south s3 m6 | north m4 n5 | quiet 7"
AWITH4 = (
    "awithlaknakwe players=4 | west to move | south e1 f1 priest g5 | west a5 | north e14 priest hand "
    "| east n5 | quiet 3 | taken 2 1"
)


def _positioned(tmp_path: Path) -> tuple[Database, int]:
    db = Database(tmp_path / "games.sqlite3")
    game_id = db.new_game(
        "kolowis size=short", players={"south": "human", "north": "ai:2"}, position=KOLOWIS, time_control="5+3"
    )
    return db, game_id


def test_database_keeps_position_clock_and_move_times(tmp_path: Path) -> None:
    db, game_id = _positioned(tmp_path)
    with db:
        # North moves first in this position, and must capture.
        assert db.add_move(game_id, 0, "n5xm6-s6", elapsed_ms=4200, clock_ms=298800)
        assert db.add_move(game_id, 1, "s3xm4-n4", elapsed_ms=1000, clock_ms=302000)
        record = db.get(game_id)
    assert record.position == KOLOWIS
    assert record.time_control == "5+3"
    assert [(m.side, m.elapsed_ms, m.clock_ms) for m in record.moves] == [
        ("north", 4200, 298800),
        ("south", 1000, 302000),
    ]
    game = replay(record, complete=False)
    assert game.ply() == 2 and game.counts == [1, 1]


def test_illegal_from_the_start_but_legal_from_the_position(tmp_path: Path) -> None:
    with Database(tmp_path / "g.sqlite3") as db:
        plain = db.new_game("kolowis size=short")
        with pytest.raises(RecordError):
            db.add_move(plain, 0, "n5xm6-s6")  # south moves first at the start
        positioned = db.new_game("kolowis size=short", position=KOLOWIS)
        assert db.add_move(positioned, 0, "n5xm6-s6")


@pytest.mark.parametrize("fmt", ["pgn", "json"])
def test_export_import_round_trip(tmp_path: Path, fmt: str) -> None:
    db, game_id = _positioned(tmp_path)
    with db:
        db.add_move(game_id, 0, "n5xm6-s6", elapsed_ms=4250, clock_ms=298750)
        text = formats.export([db.get(game_id)], fmt)
    assert ('[Position "%s"]' % KOLOWIS in text) if fmt == "pgn" else ('"position": "%s"' % KOLOWIS in text)
    if fmt == "pgn":
        assert '[TimeControl "5+3"]' in text and "[%emt 0:00:04.3]" in text and "[%clk 0:04:58.8]" in text
    records, errors = formats.parse(text, fmt)
    assert errors == []
    (back,) = records
    assert back.position == KOLOWIS and back.time_control == "5+3"
    expected = (4300, 298800) if fmt == "pgn" else (4250, 298750)  # PGN keeps tenths
    assert (back.moves[0].elapsed_ms, back.moves[0].clock_ms) == expected
    with Database(tmp_path / "other.sqlite3") as other:
        new_id, stored = other.import_record(back)
        assert stored
        assert other.get(new_id).position == KOLOWIS


def test_four_player_position_record_plays_to_its_end(tmp_path: Path) -> None:
    record = GameRecord("awithlaknakwe players=4", position=AWITH4)
    game = replay(record, complete=False)
    while not game.is_game_over():
        move = game.legal_moves()[0]
        record.moves.append(MoveEntry(str(move)))
        game.push(move)
    final = replay(record)
    assert final.is_game_over() and record.result != "*"
    with Database(tmp_path / "g.sqlite3") as db:
        game_id, _ = db.import_record(record)
        assert db.get(game_id).result == record.result


def test_bad_position_and_time_control_name_the_line() -> None:
    text = '[Ruleset "mosona"]\n[Position "mosona | south to move | south zz9"]\n\n*\n'
    (record,), errors = formats.parse(text, "pgn")
    with pytest.raises(RecordError, match=r"^line 2: .*zz9"):
        replay(record)
    other = GameRecord("mosona", position="kolowis size=short | south to move | south s3 | north m4")
    with pytest.raises(RecordError, match="position is of 'kolowis size=short'"):
        replay(other)
    with pytest.raises(RecordError, match="increment"):
        replay(GameRecord("mosona", time_control="5+x"))
    with pytest.raises(RecordError, match="bad side 'west'"):
        replay(GameRecord("mosona", time_control="south=5 west=3"))


def test_bad_clock_comment_is_an_error() -> None:
    text = '[Ruleset "mosona"]\n\n1. s3xm4-m5 {[%clk four minutes]} *\n'
    records, errors = formats.parse(text, "pgn")
    assert records == [] and "bad clock comment" in str(errors[0])


def test_json_version_1_reads_and_newer_versions_are_refused() -> None:
    v1 = json.dumps(
        {"format": "zuniboard-games", "version": 1, "games": [{"ruleset": "mosona", "moves": ["s3xm4-m5"]}]}
    )
    records, errors = formats.parse(v1, "json")
    assert errors == [] and records[0].move_texts() == ["s3xm4-m5"]
    newer = json.dumps({"format": "zuniboard-games", "version": formats.JSON_VERSION + 1, "games": []})
    records, errors = formats.parse(newer, "json")
    assert records == [] and "version %d" % (formats.JSON_VERSION + 1) in str(errors[0])
    assert "upgrade zuni" in str(errors[0])
    bad_ms = json.dumps({"ruleset": "mosona", "moves": [{"text": "s3xm4-m5", "clock_ms": "soon"}]})
    assert "whole number of ms" in str(formats.parse(bad_ms, "json")[1][0])


def test_a_schema_1_database_is_migrated_and_keeps_its_games(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    version, description, statements = MIGRATIONS[0]
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT, applied TEXT)")
    for statement in statements:
        conn.execute(statement)
    conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01')", (version, description))
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO games (ruleset, started) VALUES ('mosona', '2026-01-01T00:00:00Z')")
    conn.execute("INSERT INTO moves (game_id, idx, text, side, time) VALUES (1, 0, 's3xm4-m5', 'south', NULL)")
    conn.commit()
    conn.close()
    with Database(path) as db:
        assert db.schema_version() == MIGRATIONS[-1][0]
        record = db.get(1)
        assert record.position is None and record.moves[0].clock_ms is None
        assert db.add_move(1, 1, "n5xm5-m4", elapsed_ms=10, clock_ms=20)


def test_zuni_log_show_prints_the_position_and_move_times(tmp_path: Path) -> None:
    db_path = tmp_path / "g.sqlite3"
    with Database(db_path) as db:
        game_id = db.new_game("kolowis size=short", position=KOLOWIS, time_control="5+3")
        db.add_move(game_id, 0, "n5xm6-s6", elapsed_ms=61500, clock_ms=241500)
    out = subprocess.run(
        [str(ZUNI), "log", "show", str(game_id), "--db", str(db_path), "--color", "never"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert KOLOWIS in out and "[%emt 0:01:01.5]" in out and "[%clk 0:04:01.5]" in out
