"""The replay cursor (zuniboard.replay.cursor): steps, ends, and games branched from a position."""

from __future__ import annotations

from pathlib import Path

import pytest

import zuni
from zuniboard.records.db import Database
from zuniboard.records.record import GameRecord, MoveEntry, replay
from zuniboard.replay.cursor import FROM_GAME_TAG, FROM_PLY_TAG, ReplayCursor, ReplayError


def _record(ruleset: str, plies: int, position: str | None = None) -> GameRecord:
    record = GameRecord(ruleset, position=position)
    game = replay(record, complete=False)
    for _ in range(plies):
        move = game.legal_moves()[-1]
        record.moves.append(MoveEntry(str(move)))
        game.push(move)
    return record


@pytest.mark.parametrize("ruleset", ["mosona", "kolowis size=short", "awithlaknakwe players=4"])
def test_forward_and_back_walk_the_record(ruleset: str) -> None:
    record = _record(ruleset, 8)
    cursor = ReplayCursor(record)
    seen = []
    while not cursor.at_end():
        seen.append(str(cursor.forward()))
    assert seen == record.move_texts()
    end_key = cursor.game.key()
    with pytest.raises(ReplayError, match="no more moves"):
        cursor.forward()
    back = [str(cursor.back()) for _ in range(8)]
    assert back == list(reversed(seen))
    assert cursor.game.key() == zuni.new_game(ruleset).key()
    with pytest.raises(ReplayError, match="already at the start"):
        cursor.back()
    cursor.go_to(8)
    assert cursor.game.key() == end_key
    with pytest.raises(ReplayError, match="out of range"):
        cursor.go_to(9)


def test_a_branch_starts_from_the_position_reached_and_plays(tmp_path: Path) -> None:
    with Database(tmp_path / "g.sqlite3") as db:
        record = _record("kolowis size=short", 6)
        game_id, _ = db.import_record(record)
        cursor = ReplayCursor(db.get(game_id), ply=4)
        branch = cursor.branch({"south": "human", "north": "ai:2"})
        assert branch.tags == {FROM_GAME_TAG: str(game_id), FROM_PLY_TAG: "4"}
        new_id = db.new_game(branch.ruleset, players=branch.players, position=branch.position, tags=branch.tags)
        # The branch goes on differently from the record's fifth move where it can.
        game = replay(db.get(new_id), complete=False)
        assert game.key() == cursor.game.key()
        move = game.legal_moves()[0]
        assert db.add_move(new_id, 0, str(move))
        stored = db.get(new_id)
        assert stored.position == cursor.position() and stored.tags[FROM_PLY_TAG] == "4"


def test_a_replay_of_a_positioned_game_starts_at_its_position() -> None:
    position = "mosona | north to move | south s3 s4 | north n5 n6 m4"  # position_text's order
    record = _record("mosona", 2, position=position)
    cursor = ReplayCursor(record)
    assert cursor.position() == position + " | quiet 0"
    assert cursor.branch({}).position == cursor.position()


def test_a_record_that_does_not_replay_is_refused() -> None:
    with pytest.raises(ReplayError, match="cannot be replayed"):
        ReplayCursor(GameRecord("mosona", moves=[MoveEntry("m6-m5")]))
