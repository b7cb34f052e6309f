"""`zuni analyze GAME`: the computer's verdict on each move of a logged game (CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from play_helpers import zuni as run_zuni

import zuni
from zuniboard.ai import RandomPlayer
from zuniboard.cli import main as cli_main
from zuniboard.records.db import Database


def _logged_game(db_path: Path, plies: int = 8) -> tuple[int, list[str]]:
    game = zuni.new_game("kolowis size=short")
    player = RandomPlayer(7)
    with Database(db_path) as db:
        gid = db.new_game(str(game.ruleset), players={"south": "human", "north": "ai:1"})
        for i in range(plies):
            text = player.choose(game).text()
            game.push_text(text)
            db.add_move(gid, i, text)
    return gid, [m.text() for m in game.move_stack]


def test_analyze_judges_every_move_in_text_and_json(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    gid, moves = _logged_game(db)
    out = run_zuni("analyze", str(gid), "--db", str(db), "--nodes", "400")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "game %d: kolowis size=short, %d moves, *" % (gid, len(moves))
    verdicts = lines[1:-1]
    assert len(verdicts) == len(moves)
    for i, (line, text) in enumerate(zip(verdicts, moves, strict=True)):
        side = "south" if i % 2 == 0 else "north"
        assert line.startswith("%d. %s %s (" % (i + 1, side, text)), line
        assert line.endswith(": best move") or ": better " in line
    assert lines[-1].startswith("south: ") and "; north: " in lines[-1]
    # Random moves: some of them have better alternatives, each scoring above the move played.
    rows = [
        json.loads(line)
        for line in run_zuni("analyze", "last", "--db", str(db), "--nodes", "400", "--json").stdout.splitlines()
    ]
    assert [r["played"] for r in rows] == moves
    assert any(r["better"] for r in rows)
    for r in rows:
        assert all(b["score"] > r["score"] for b in r["better"])
        assert r["loss"] == (0 if not r["better"] else r["best_score"] - r["score"])


def test_analyze_a_range_and_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "games.sqlite3"
    gid, moves = _logged_game(db, 4)
    assert cli_main(["analyze", str(gid), "--db", str(db), "--nodes", "200", "--moves", "2-3"]) == 0
    out = capsys.readouterr().out
    assert [line.split(" ")[0] for line in out.splitlines()[1:-1]] == ["2.", "3."]
    for args, message in (
        (["99"], "no game 99"),
        (["x"], "game 'x'"),
        ([str(gid), "--moves", "7-9"], "the game has moves 1-4"),
        ([str(gid), "--time", "0"], "--time 0"),
    ):
        assert cli_main(["analyze", *args, "--db", str(db)]) == 2, args
        err = capsys.readouterr().err
        assert message in err, (args, err)


def test_analyze_last_skips_games_with_no_moves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A game opened and quit at once is the newest in the log but has nothing to judge:
    `last` is the newest game with moves, and stderr says which games were passed over."""
    db = tmp_path / "games.sqlite3"
    gid, moves = _logged_game(db, 4)
    with Database(db) as log:
        empty = [log.new_game("mosona", players={"south": "human", "north": "ai:3"}) for _ in range(2)]
    assert cli_main(["analyze", "last", "--db", str(db), "--nodes", "200"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[0] == "game %d: kolowis size=short, %d moves, *" % (gid, len(moves))
    assert "games %d, %d have no moves: taking game %d, the last game with moves" % (*empty, gid) in out.err
    # Nothing but empty games: said plainly, nothing analysed.
    only_empty = tmp_path / "empty.sqlite3"
    with Database(only_empty) as log:
        log.new_game("mosona", players={"south": "human", "north": "ai:3"})
    assert cli_main(["analyze", "last", "--db", str(only_empty)]) == 2
    assert "no game in the log %s has moves" % only_empty in capsys.readouterr().err
    # One empty game passed over: said in the singular.
    with Database(db) as log:
        log.add_move(empty[0], 0, "s3xm4-m5")
    assert cli_main(["analyze", "last", "--db", str(db), "--nodes", "200", "--json"]) == 0
    out = capsys.readouterr()
    assert "game %d has no moves: taking game %d" % (empty[1], empty[0]) in out.err
    assert [json.loads(line)["played"] for line in out.out.splitlines()] == ["s3xm4-m5"]


def test_last_for_replay_is_the_newest_game_with_moves_and_for_show_the_newest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`zuni log replay last` has nothing to go over in a game with no moves, so it takes
    the newest game with moves (as `analyze`); `zuni log show last` shows the newest."""
    from zuniboard.records.select import get_game

    db = tmp_path / "games.sqlite3"
    gid, moves = _logged_game(db, 3)
    with Database(db) as log:
        empty = log.new_game("mosona", players={"south": "human", "north": "ai:3"})
        assert get_game(log, "last").moves == []
        assert capsys.readouterr().err == ""
        record = get_game(log, "last", with_moves=True)
        assert [m.text for m in record.moves] == moves
        assert "game %d has no moves: taking game %d" % (empty, gid) in capsys.readouterr().err
