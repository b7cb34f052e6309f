"""Game records: the SQLite database, the text and JSON formats, SVG and text drawings,
and `zuni log` end to end. Games are real games of the rules engine, played at random."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

import zuni
from zuniboard.records import formats
from zuniboard.records.db import (
    SCHEMA_VERSION,
    Database,
    DatabaseError,
    MoveConflictError,
    UnknownGameError,
    default_db_path,
)
from zuniboard.records.record import GameRecord, MoveEntry, RecordError, replay
from zuniboard.records.svg import render_svg
from zuniboard.records.text import render

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ZUNI = BIN / "zuni"

RULESETS = (
    "mosona",
    "mosona board=open jumps=pattern",
    "kolowis",
    "kolowis size=short chain=forced",
    "awithlaknakwe",
    "awithlaknakwe players=4",
    "awithlaknakwe players=4 teams=combined",
    "awithlaknakwe players=4 priests=each order=snew",
)


def random_moves(ruleset: str, seed: int, limit: int | None = None) -> list[str]:
    """Texts of a game played at random (captures preferred, so that games end)."""
    game = zuni.new_game(ruleset)
    rng = random.Random(seed)
    out: list[str] = []
    while not game.is_game_over() and (limit is None or len(out) < limit):
        moves = game.legal_moves()
        best = max(len(m.captures) for m in moves)
        move = rng.choice([m for m in moves if len(m.captures) == best] if rng.random() < 0.7 else moves)
        out.append(str(move))
        game.push(move)
    return out


def players_for(ruleset: str) -> dict[str, str]:
    players = {"south": "human", "north": "ai:3"}
    if "players=4" in ruleset:
        players.update(west="ai:1", east="human")
    return players


def store_game(db: Database, ruleset: str, seed: int, *, resign_at: int | None = None) -> int:
    """A random game written move by move as the host does, then finished."""
    game_id = db.new_game(ruleset, players=players_for(ruleset), tags={"Event": "test %d" % seed})
    moves = random_moves(ruleset, seed, resign_at)
    for index, text in enumerate(moves):
        assert db.add_move(game_id, index, text) is True
    game = zuni.new_game(ruleset)
    for text in moves:
        game.push_text(text)
    outcome = game.outcome()
    if outcome is None:
        # Not over: South resigns.
        loser_team_name = "north"
        db.finish_game(game_id, "north+west" if "players=4" in ruleset else loser_team_name, "resign")
    else:
        db.finish_game(game_id, outcome.result, outcome.termination)
    return game_id


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    with Database(tmp_path / "games.sqlite3") as database:
        yield database


# -- database ---------------------------------------------------------------------
def test_new_database_has_schema_and_wal(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    with Database(path) as db:
        assert db.schema_version() == SCHEMA_VERSION
        assert [m[0] for m in db.migrations()] == list(range(1, SCHEMA_VERSION + 1))
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    # Reopening applies nothing twice.
    with Database(path) as db:
        assert len(db.migrations()) == SCHEMA_VERSION


def test_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    Database(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_migrations VALUES (?, 'future', 'now')", (SCHEMA_VERSION + 1,))
    conn.commit()
    conn.close()
    with pytest.raises(DatabaseError, match="newer than this zuni"):
        Database(path)


def test_a_file_that_is_not_a_database_is_named(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database at all, just some words " * 100)
    with pytest.raises(DatabaseError, match=r"notes\.txt"):
        Database(path)


def test_default_path_follows_zuni_db(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ZUNI_DB", str(tmp_path / "x.sqlite3"))
    assert default_db_path() == tmp_path / "x.sqlite3"
    monkeypatch.delenv("ZUNI_DB")
    assert default_db_path().name == "games.sqlite3"
    assert "zuniboard" in str(default_db_path())


def test_moves_are_stored_with_side_and_time(db: Database) -> None:
    game_id = db.new_game("mosona", players={"south": "human", "north": "ai:3"})
    assert db.add_move(game_id, 0, "s3xm4-m5", time="2024-05-01T12:00:03.250Z")
    record = db.get(game_id)
    assert record.moves == [MoveEntry("s3xm4-m5", "south", "2024-05-01T12:00:03.250Z")]
    assert record.players == {"south": "human", "north": "ai:3"}
    assert record.result == "*"


def test_resent_move_is_not_duplicated(db: Database) -> None:
    game_id = db.new_game("kolowis")
    moves = random_moves("kolowis", 1, 6)
    for index, text in enumerate(moves):
        db.add_move(game_id, index, text)
    # The board resends everything after a reconnect.
    assert [db.add_move(game_id, index, text) for index, text in enumerate(moves)] == [False] * 6
    assert db.move_count(game_id) == 6
    assert db.get(game_id).move_texts() == moves


def test_conflicting_resend_is_rejected_and_changes_nothing(db: Database) -> None:
    game_id = db.new_game("mosona")
    moves = random_moves("mosona", 2, 4)
    for index, text in enumerate(moves):
        db.add_move(game_id, index, text)
    with pytest.raises(MoveConflictError) as info:
        db.add_move(game_id, 1, "n5-m5")
    message = str(info.value)
    assert "move 2" in message and "'n5-m5'" in message and repr(moves[1]) in message
    assert db.get(game_id).move_texts() == moves


def test_take_back_then_another_move(db: Database) -> None:
    game_id = db.new_game("kolowis")
    moves = random_moves("kolowis", 8, 6)
    for index, text in enumerate(moves):
        db.add_move(game_id, index, text)
    assert db.take_back(game_id, 4) == 2
    assert db.get(game_id).move_texts() == moves[:4]
    other = next(str(m) for m in _game_after("kolowis", moves[:4]).legal_moves() if str(m) != moves[4])
    assert db.add_move(game_id, 4, other)
    assert db.get(game_id).move_texts() == [*moves[:4], other]
    with pytest.raises(RecordError, match="cannot take back to 9 moves"):
        db.take_back(game_id, 9)
    # A fresh connection (no cached position) agrees.
    with Database(db.path) as again:
        assert again.add_move(game_id, 5, str(_game_after("kolowis", [*moves[:4], other]).legal_moves()[0]))


def test_take_back_reopens_a_finished_game(db: Database) -> None:
    game_id = store_game(db, "mosona", 3)
    count = db.move_count(game_id)
    db.take_back(game_id, count - 1)
    record = db.get(game_id)
    assert (record.result, record.termination, record.ended) == ("*", None, None)
    assert len(record.moves) == count - 1


def _game_after(ruleset: str, moves: list[str]) -> zuni.Game:
    game = zuni.new_game(ruleset)
    for text in moves:
        game.push_text(text)
    return game


def test_illegal_or_out_of_order_moves_write_nothing(db: Database) -> None:
    game_id = db.new_game("mosona")
    with pytest.raises(RecordError, match=r"'m6-m5'.*not legal in mosona after 0 moves, south to move"):
        db.add_move(game_id, 0, "m6-m5")
    with pytest.raises(RecordError, match="out of order"):
        db.add_move(game_id, 3, "s3xm4-m5")
    with pytest.raises(RecordError, match="unknown point 'q9'"):
        db.add_move(game_id, 0, "q9-m5")
    assert db.move_count(game_id) == 0
    with pytest.raises(UnknownGameError):
        db.add_move(999, 0, "s3xm4-m5")


def test_moves_after_the_end_are_refused(db: Database) -> None:
    game_id = store_game(db, "mosona", 3)
    count = db.move_count(game_id)
    with pytest.raises(RecordError, match="is over"):
        db.add_move(game_id, count, "m6-m5")


def test_finish_game_checks_the_result_with_the_rules(db: Database) -> None:
    game_id = db.new_game("mosona")
    db.add_move(game_id, 0, "s3xm4-m5")
    with pytest.raises(RecordError, match="not over"):
        db.finish_game(game_id, "south", "no-pieces")
    assert db.get(game_id).result == "*"
    record = db.finish_game(game_id, "south", "resign")
    assert (record.result, record.termination) == ("south", "resign")
    assert db.get(game_id).result == "south"
    # The same end again (a resend) changes nothing; another end is refused.
    assert db.finish_game(game_id, "south", "resign", ended="2030-01-01T00:00:00Z").ended == record.ended
    with pytest.raises(RecordError, match="already ended south"):
        db.finish_game(game_id, "draw", "agreed-draw")


def test_unfinished_game_can_be_abandoned(db: Database) -> None:
    game_id = db.new_game("kolowis")
    db.add_move(game_id, 0, "m10-m9")
    with pytest.raises(RecordError, match="termination 'quiet' for an unfinished game"):
        db.finish_game(game_id, "*", "quiet")
    record = db.finish_game(game_id, "*", "abandoned")
    assert (record.result, record.termination) == ("*", "abandoned")


def test_new_game_rejects_bad_ruleset_and_players(db: Database) -> None:
    with pytest.raises(RecordError, match="unknown option 'sizes'"):
        db.new_game("kolowis sizes=long")
    with pytest.raises(RecordError, match="side 'east'"):
        db.new_game("mosona", players={"east": "human"})
    assert db.game_ids() == []


def test_board_moves_attach_once_after_reconnects(db: Database) -> None:
    moves = random_moves("kolowis size=short", 4, 10)
    first = [(i, moves[i]) for i in range(5)]
    game_id, added = db.attach_board_moves("board-7", "g12", "kolowis size=short", first, layout="b25")
    assert added == 5
    # After a reconnect the board resends from move 3 on, and more.
    again = [(i, moves[i]) for i in range(3, 10)]
    same_id, added = db.attach_board_moves("board-7", "g12", "kolowis size=short", again)
    assert (same_id, added) == (game_id, 5)
    record = db.get(game_id)
    assert record.move_texts() == moves
    assert (record.board, record.board_game_id, record.layout) == ("board-7", "g12", "b25")
    assert db.list_games()[0].source == "board"
    assert db.board_game("board-7", "g12") == game_id
    assert db.board_game("board-8", "g12") is None
    # Another board's game with the same board game id is another game.
    other, _ = db.attach_board_moves("board-8", "g12", "mosona", [(0, "s3xm4-m5")])
    assert other != game_id


def test_board_moves_of_another_ruleset_are_refused(db: Database) -> None:
    db.attach_board_moves("b", "1", "mosona", [(0, "s3xm4-m5")])
    with pytest.raises(RecordError, match="stored as 'mosona'"):
        db.attach_board_moves("b", "1", "kolowis", [(0, "m10-m9")])


WRITER = textwrap.dedent(
    """
    import random, sys
    import zuni
    from zuniboard.records.db import Database
    db = Database(sys.argv[1])
    seed = int(sys.argv[2])
    for round in range(1000):
        game = zuni.new_game("kolowis")
        rng = random.Random(seed + round)
        game_id = db.new_game("kolowis", players={"south": "human", "north": "ai:1"})
        while not game.is_game_over():
            move = rng.choice(game.legal_moves())
            db.add_move(game_id, game.ply(), str(move))
            game.push(move)
            print(game_id, game.ply(), flush=True)
    """
)


@pytest.mark.parametrize("kill_after", [7, 60, 150])
def test_committed_moves_survive_sigkill_of_the_writer(tmp_path: Path, kill_after: int) -> None:
    path = tmp_path / "games.sqlite3"
    seed = 100 + kill_after
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(seed)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert writer.stdout is not None
    reported: dict[int, int] = {}
    try:
        for count, line in enumerate(writer.stdout, 1):
            game_id, ply = map(int, line.split())
            reported[game_id] = ply
            if count >= kill_after:
                break
        # Killed while it goes on writing, at no particular point of a transaction.
        writer.send_signal(signal.SIGKILL)
    finally:
        writer.kill()
        writer.wait(timeout=10)
    assert writer.returncode == -signal.SIGKILL
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    with Database(path) as db:
        for game_id, ply in reported.items():
            stored = db.get(game_id).move_texts()
            # Everything reported as committed is there, at most one more move.
            assert ply <= len(stored) <= ply + 1
            game = zuni.new_game("kolowis")
            rng = random.Random(seed + game_id - 1)
            for text in stored:
                move = rng.choice(game.legal_moves())
                assert str(move) == text
                game.push(move)


# -- formats ------------------------------------------------------------------------
def _all_games(db: Database) -> list[int]:
    ids = []
    for seed, ruleset in enumerate(RULESETS):
        ids.append(store_game(db, ruleset, seed))
    ids.append(store_game(db, "kolowis", 50, resign_at=12))
    ids.append(store_game(db, "awithlaknakwe players=4", 51, resign_at=9))
    unfinished = db.new_game("mosona", started="2024-05-01")
    db.add_move(unfinished, 0, "s3xm4-m5")
    ids.append(unfinished)
    return ids


@pytest.mark.parametrize("fmt", formats.FORMATS)
def test_round_trip_of_every_game(tmp_path: Path, fmt: str) -> None:
    # In memory: 2000 moves at an fsync each would take seconds and test nothing more.
    with Database(":memory:") as source, Database(":memory:") as target:
        ids = _all_games(source)
        originals = [source.get(i) for i in ids]
        assert {r.ruleset for r in originals} >= {str(zuni.parse_ruleset(r)) for r in RULESETS}
        assert any(r.termination == "resign" for r in originals)
        assert any(r.score for r in originals)
        text = formats.export(originals, fmt)
        records, errors = formats.parse(text, fmt)
        assert errors == []
        for record in records:
            target.import_record(record)
        copies = [target.get(i) for i in target.game_ids()]
        assert copies == originals
        # Exporting the copies gives the same text (JSON also carries the database ids).
        for record in copies + originals:
            record.id = None
        assert formats.export(copies, "pgn") == formats.export(originals, "pgn")
        assert formats.export(copies, "json") == formats.export(originals, "json")
        # Importing the same file again stores nothing twice.
        assert all(target.import_record(r)[1] is False for r in formats.parse(text, fmt)[0])
        assert len(target.game_ids()) == len(ids)


def test_text_format_looks_like_pgn() -> None:
    record = GameRecord(
        "kolowis chain=forced",
        players={"south": "human", "north": "ai:3"},
        moves=[MoveEntry(t) for t in random_moves("kolowis chain=forced", 9, 5)],
        started="2024-05-01T12:00:00Z",
        result="south",
        termination="resign",
    )
    replay(record)
    text = formats.write_pgn(record, times=False)
    lines = text.splitlines()
    assert lines[:5] == [
        '[Date "2024.05.01"]',
        '[Ruleset "kolowis chain=forced"]',
        '[South "human"]',
        '[North "ai:3"]',
        '[Result "south"]',
    ]
    assert '[Termination "resign"]' in lines
    movetext = " ".join(lines[lines.index("") + 1 :])
    assert movetext.startswith("1. %s %s 2. " % (record.moves[0].text, record.moves[1].text))
    assert movetext.split()[-1] == "south"


def test_text_format_reads_comments_numbers_and_escapes() -> None:
    text = textwrap.dedent(
        r"""
        % an escaped line
        [Event "The \"big\" one"]
        [Ruleset "mosona"]
        [Date "2024.05.01"]
        [South "human"]
        [North "ai:3"]
        [Result "*"]

        1.s3xm4-m5 {a comment
        over two lines} ; rest of line ignored
        *
        """
    )
    records, errors = formats.read_pgn(text)
    assert errors == []
    (record,) = records
    assert record.tags == {"Event": 'The "big" one'}
    assert record.move_texts() == ["s3xm4-m5"]
    assert record.started == "2024-05-01"
    replay(record)
    (again,) = formats.read_pgn(formats.write_pgn(record))[0]
    replay(again)
    assert again == record


def test_partly_known_date_is_kept_as_a_tag() -> None:
    (record,), errors = formats.read_pgn('[Date "1931.??.??"]\n[Ruleset "mosona"]\n\n*\n')
    assert errors == [] and record.started is None and record.tags == {"Date": "1931.??.??"}
    assert formats.write_pgn(record).splitlines()[0] == '[Date "1931.??.??"]'
    (again,), _ = formats.read_pgn(formats.write_pgn(record))
    assert again == record


GOOD = '[Ruleset "mosona"]\n[Result "*"]\n\n1. s3xm4-m5 *\n'


def good_record(seed: int) -> str:
    """A valid unfinished Mosona record of three moves, four lines long."""
    moves = random_moves("mosona", seed, 3)
    return '[Ruleset "mosona"]\n[Result "*"]\n\n1. %s %s 2. %s *\n' % tuple(moves)


def test_bad_text_record_names_the_line_and_the_others_import(db: Database) -> None:
    bad = '[Ruleset "mosona"]\n[Result "*"]\n\n1. s3xm4-m5\nm6-m5 *\n'
    text = good_record(1) + "\n" + bad + "\n" + good_record(2)
    records, errors = formats.read_pgn(text)
    assert errors == []
    assert len(records) == 3
    stored, rejected = [], []
    for record in records:
        try:
            stored.append(db.import_record(record)[0])
        except RecordError as exc:
            rejected.append(exc)
    assert len(stored) == 2
    assert [e.line for e in rejected] == [10]  # the line of the illegal m6-m5
    message = str(rejected[0])
    assert message.startswith("line 10: move 2 'm6-m5'")
    assert "after 1 move, north to move" in message
    assert [db.get(i).move_texts() for i in stored] == [random_moves("mosona", s, 3) for s in (1, 2)]
    assert len(db.game_ids()) == 2


@pytest.mark.parametrize(
    ("record", "line", "words"),
    [
        ('[Ruleset "mosona"]\n[Result "*"]\n[Bad tag\n\n*\n', 3, "malformed tag"),
        ('[Result "*"]\n\n1. s3xm4-m5 *\n', 1, "no [Ruleset"),
        ('[Ruleset "mosona size=long"]\n\n*\n', 1, "unknown option 'size'"),
        ('[Ruleset "mosona"]\n[Result "north"]\n\n1. s3xm4-m5 north\n', 2, "not over"),
        (
            '[Ruleset "mosona"]\n[Result "south"]\n\n1. s3xm4-m5 draw\n',
            4,
            "the moves end with result 'draw' but [Result 'south']",
        ),
        ('[Ruleset "mosona"]\n[South ""]\n[Result "*"]\n\n*\n', 2, "player '' for south"),
        ('[Ruleset "mosona"]\n\n1. s3xm4-m5 {[%time yesterday]} *\n', 3, "'yesterday' is not an ISO 8601"),
        ('[Ruleset "mosona"]\n\n1. s3xm4-m5 * m5-m6\n', 3, "after the result"),
        ('[Ruleset "mosona"]\n\n1. s3xm4 *\n', 3, "a jump needs a landing point"),
    ],
)
def test_bad_text_records_are_named(db: Database, record: str, line: int, words: str) -> None:
    text = GOOD + "\n" + record
    offset = GOOD.count("\n") + 1
    records, errors = formats.read_pgn(text)
    for item in records:
        try:
            db.import_record(item)
        except RecordError as exc:
            errors.append(exc)
    assert len(errors) == 1, errors
    assert errors[0].line == offset + line, str(errors[0])
    assert words in str(errors[0])
    assert len(db.game_ids()) == 1


def test_bad_json_record_names_the_line_and_the_others_import(db: Database) -> None:
    good = GameRecord("kolowis", moves=[MoveEntry(t) for t in random_moves("kolowis", 5, 4)])
    bad = GameRecord("kolowis", moves=[MoveEntry(t) for t in random_moves("kolowis", 6, 6)])
    bad.moves[4].text = "s1-s2"
    text = formats.write_json([good, bad, good])
    line = text.splitlines().index(next(x for x in text.splitlines() if '"s1-s2"' in x)) + 1
    records, errors = formats.read_json(text)
    assert errors == []
    rejected = []
    for record in records:
        try:
            db.import_record(record)
        except RecordError as exc:
            rejected.append(exc)
    assert [e.line for e in rejected] == [line]
    assert "move 5 's1-s2'" in str(rejected[0])
    # Both copies of the good game are stored: without a start time they cannot be
    # told apart from two games that went the same way.
    assert len(db.game_ids()) == 2


def test_json_structure_errors_are_named() -> None:
    text = '{"games": [\n  {"ruleset": "mosona", "moves": ["s3xm4-m5"]},\n  {"ruleset": "mosona", "colour": 1}\n]}'
    records, errors = formats.read_json(text)
    assert len(records) == 1
    assert [(e.line, "unknown field 'colour'" in str(e)) for e in errors] == [(3, True)]
    records, errors = formats.read_json('{"games": [\n  {"ruleset": "mosona",}\n]}')
    assert records == [] and errors[0].line == 2 and "not valid JSON" in str(errors[0])
    records, errors = formats.read_json('[{"ruleset": "mosona", "moves": [\n  {"text": "s3xm4-m5", "side": "north"}]}]')
    replay_errors = []
    for record in records:
        try:
            replay(record)
        except RecordError as exc:
            replay_errors.append(exc)
    assert [e.line for e in replay_errors] == [2]
    assert "south is to move" in str(replay_errors[0])


# -- drawings -------------------------------------------------------------------------
def _positions() -> list[zuni.Game]:
    games = []
    for seed, ruleset in enumerate(RULESETS):
        game = zuni.new_game(ruleset)
        games.append(game.copy())
        for text in random_moves(ruleset, seed, 100):
            game.push_text(text)
        games.append(game)
    return games


def _pieces(game: zuni.Game) -> list[tuple[int, int, int]]:
    return [(p, *game.piece_at(p)) for p in range(len(game.geometry)) if game.piece_at(p) is not None]


SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("names", [False, True])
def test_svg_has_one_point_per_point_and_one_piece_per_piece(names: bool) -> None:
    priests = 0
    for game in _positions():
        root = ET.fromstring(render_svg(game, names=names))
        assert root.tag == SVG + "svg"
        elements = list(root.iter())
        points = [e for e in elements if "point" in e.get("class", "").split()]
        pieces = [e for e in elements if "piece" in e.get("class", "").split()]
        assert len(points) == len(game.geometry)
        assert sorted(e.get("data-name") for e in points) == sorted(game.geometry.names)
        expected = _pieces(game)
        assert len(pieces) == len(expected)
        for element, (point, side, kind) in zip(
            sorted(pieces, key=lambda e: game.geometry.index[e.get("data-point")]), expected, strict=True
        ):
            classes = element.get("class", "").split()
            assert element.get("data-point") == game.geometry.names[point]
            assert zuni.SIDE_NAMES[side] in classes
            assert ("priest" in classes) == (kind == zuni.PRIEST)
            priests += kind == zuni.PRIEST
        texts = [e for e in elements if e.tag == SVG + "text"]
        assert len(texts) == (len(game.geometry) if names else 0)
        last = [e for e in elements if e.get("class") == "last"]
        assert len(last) == (1 if game.move_stack else 0)
    assert priests > 0  # some position shows a bow priest


def test_svg_marks_the_captures_of_the_last_move() -> None:
    game = zuni.new_game("mosona")
    game.push_text("s3xm4-m5")
    root = ET.fromstring(render_svg(game))
    assert len([e for e in root.iter() if e.get("class") == "captured"]) == 1
    assert len([e for e in root.iter() if e.get("class") == "ring"]) == 2


def test_text_drawing_shows_every_piece() -> None:
    for game in _positions():
        drawing = render(game, footer=False)
        board = [line for line in drawing.splitlines()]
        counts: dict[str, int] = {}
        for _point, side, kind in _pieces(game):
            char = "SWNE"[side]
            char = char.lower() if kind == zuni.PRIEST else char
            counts[char] = counts.get(char, 0) + 1
        for char in "SWNE":
            assert sum(line.count(char) for line in board) == counts.get(char, 0), (game, char)
        if game.move_stack:
            assert "[" in drawing
        status = render(game).splitlines()[-1]
        assert status.endswith("to move") or "game over" in status


def test_text_drawing_of_the_mosona_start() -> None:
    drawing = render(zuni.new_game("mosona"))
    assert drawing.splitlines()[1] == "n     N---N---N---N---N---N---N---N"
    assert drawing.splitlines()[3] == "m   N---N---N---N---.---S---S---S---S"
    assert drawing.splitlines()[-1] == "start position: south to move"


# -- command line -----------------------------------------------------------------------
def zuni_log(*args: str, db: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [str(ZUNI), "log", *args]
    if db is not None:
        command += ["--db", str(db)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, cwd=REPO)


def test_cli_end_to_end(tmp_path: Path) -> None:
    source = tmp_path / "source.sqlite3"
    with Database(source) as db:
        ids = [store_game(db, "mosona", 1), store_game(db, "awithlaknakwe players=4", 2, resign_at=40)]
    target = tmp_path / "target.sqlite3"

    result = zuni_log("list", db=target)
    assert result.returncode == 0 and "no games" in result.stdout

    result = zuni_log("list", db=source)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["ID", "STARTED", "RULESET"]
    assert "awithlaknakwe players=4" in lines[1] and "human+human vs ai:3+ai:1" in lines[1]
    assert "mosona" in lines[2]

    exported = tmp_path / "games.pgn"
    result = zuni_log("export", "--all", "-o", str(exported), db=source)
    assert result.returncode == 0, result.stderr
    assert exported.read_text().count('[Ruleset "') == 2

    as_json = tmp_path / "games.json"
    assert zuni_log("export", *map(str, ids), "-o", str(as_json), db=source).returncode == 0
    assert len(json.loads(as_json.read_text())["games"]) == 2

    result = zuni_log("import", str(exported), db=target)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("imported game") == 2
    result = zuni_log("import", str(as_json), db=target)
    assert result.returncode == 0 and result.stdout.count("already stored") == 2

    result = zuni_log("show", "last", "--color", "never", db=target)
    assert result.returncode == 0, result.stderr
    assert '[Ruleset "awithlaknakwe players=4"]' in result.stdout
    assert "game over: north+west (resign)" in result.stdout

    result = zuni_log("show", "1", "--ply", "0", db=target)
    assert result.returncode == 0 and "start position: south to move" in result.stdout

    svg = tmp_path / "d.svg"
    result = zuni_log("diagram", "2", "5", "-o", str(svg), "--names", db=target)
    assert result.returncode == 0, result.stderr
    root = ET.fromstring(svg.read_text())
    assert len([e for e in root.iter() if e.get("class", "").startswith("piece ")]) == 24

    result = zuni_log("export", "1", db=target)
    with Database(source) as db:
        assert result.stdout == formats.write_pgn(db.get(ids[0]))


def test_cli_partly_bad_file_imports_the_good_records(tmp_path: Path) -> None:
    path = tmp_path / "mixed.pgn"
    path.write_text(good_record(1) + "\n" + '[Ruleset "mosona"]\n\n1. s3xm4-m5 m6-m5 *\n' + "\n" + good_record(2))
    result = zuni_log("import", str(path), db=tmp_path / "g.sqlite3")
    assert result.returncode == 1
    assert result.stdout.count("imported game") == 2
    assert "mixed.pgn:8: move 2 'm6-m5'" in result.stderr
    assert "not imported" in result.stderr
    assert "2 imported, 0 already stored, 1 rejected" in result.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("show", "99"), "no game 99"),
        (("show", "abc"), "game 'abc'"),
        (("show", "last"), "no games"),
        (("diagram", "1", "99"), "ply 99 out of range"),
        (("diagram", "1", "-1"), "ply must be 0 or more"),
        (("import", "/nonexistent/file.pgn"), "cannot read /nonexistent/file.pgn"),
        (("export",), "which games?"),
        (("export", "1", "--all"), "not both"),
        (("list", "--limit", "0"), "--limit must be 1 or more"),
    ],
)
def test_cli_bad_input_is_a_usage_error(tmp_path: Path, args: tuple[str, ...], words: str) -> None:
    db = tmp_path / "g.sqlite3"
    if args[0] != "show" or args[1] != "last":
        with Database(db) as database:
            game_id = database.new_game("mosona")
            database.add_move(game_id, 0, "s3xm4-m5")
    result = zuni_log(*args, db=db)
    assert result.returncode == 2, result
    assert result.stderr.startswith("zuni: error: ")
    assert words in result.stderr


def test_cli_database_location(tmp_path: Path) -> None:
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path))
    env.pop("ZUNI_DB", None)
    assert zuni_log("list", env=env).returncode == 0
    assert (tmp_path / "data" / "zuniboard" / "games.sqlite3").exists()
    env["ZUNI_DB"] = str(tmp_path / "env.sqlite3")
    assert zuni_log("list", env=env).returncode == 0
    assert (tmp_path / "env.sqlite3").exists()
    bad = zuni_log("list", db=tmp_path / "missing-dir" / "g.sqlite3")
    assert bad.returncode == 2 and "cannot open game database" in bad.stderr


def test_carried_clock_gives_each_side_its_time_left(tmp_path: Path) -> None:
    """A logged game set up again on the board goes on with each side's time left after
    its last logged move, with its own increment or delay (issue 26 point 3)."""
    from zuniboard.play.openings import carried_clock

    with Database(tmp_path / "g.sqlite3") as d:
        plain = d.new_game("mosona", players={"south": "human", "north": "human"})
        assert carried_clock(d.get(plain)) == ""
        four = d.new_game(
            "awithlaknakwe players=4",
            players={side: "human" for side in ("south", "west", "north", "east")},
            time_control="south=5+3 west=5+3 north=10d2 east=5+3",
        )
        game = zuni.new_game("awithlaknakwe players=4")
        for index, left in enumerate((298_000, 295_500)):  # south, then west
            move = game.legal_moves()[0]
            d.add_move(four, index, move.text(), elapsed_ms=5000, clock_ms=left)
            game.push(move)
        # North has not moved: its whole base; a side's flag never starts below 1 ms.
        assert carried_clock(d.get(four)) == "south=298s+3 west=295.5s+3 north=10d2 east=5+3"


def test_a_remote_game_goes_on_only_as_a_remote_game(tmp_path: Path) -> None:
    """An unfinished remote game (a seat "remote:NAME") is never offered to, or taken
    by, a plain `zuni play` (it would be played on this board alone, apart from the
    referee's game); a remote seat's session goes on with it."""
    from zuniboard.play.openings import OpeningError, check_resumable, resumable

    with Database(tmp_path / "g.sqlite3") as d:
        local = d.new_game("mosona", players={"south": "human", "north": "ai:1"})
        d.add_move(local, 0, "s3xm4-m5")
        remote = d.new_game("mosona", players={"south": "human", "north": "remote:Bea"})
        d.add_move(remote, 0, "s3xm4-m5")
        assert [g.id for g in resumable(d)] == [local]
        assert [g.id for g in resumable(d, remote=True)] == [remote]
        check_resumable(d, local)
        check_resumable(d, remote, remote=True)
        with pytest.raises(OpeningError, match=r"game #%d is a remote game: `zuni play --remote CODE`" % remote):
            check_resumable(d, remote)
