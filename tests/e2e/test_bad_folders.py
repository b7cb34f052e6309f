"""Folders that cannot be written (issue 26, point 2): a read-only data folder, a game log
in a read-only folder, a disk that fills up mid-game. Each gives one clear line naming
the folder and what to do, never a traceback; `zuni log list` reads a read-only log; a
game goes on while its log cannot be written and the log catches up once it can. Real
file systems (fs_helpers: a read-only or a full tmpfs), real `zuni` processes, the real
firmware on the virtual board."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from fs_helpers import fill, read_only_folder, small_disk
from play_helpers import ZUNI
from test_play import RULESET, Table, computer_move, human_move, in_process, layout  # noqa: F401

from zuniboard.records.db import Database

try:
    from zuniboard.virtual.board import VirtualBoard
except ImportError as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)


def _zuni(*args: str, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    full = dict(os.environ, NO_COLOR="1", **env)
    for name in ("ZUNI_DB", "ZUNI_TABLEBASE_DIR", "ZUNI_SIM_DIR"):
        full.pop(name, None)
    return subprocess.run([str(ZUNI), *args], capture_output=True, text=True, env=full, input=stdin, timeout=120)


def _one_clear_line(done: subprocess.CompletedProcess[str], folder: Path, what: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(errors) == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    line = errors[0]
    assert line.startswith("zuni: error: cannot write %s in %s" % (what, folder)), line
    assert "Read-only file system" in line or "Permission denied" in line, line
    assert ("make that folder writable" in line and "or set $" in line) or "--db" in line, line


def test_a_read_only_data_folder_gives_one_clear_line(tmp_path: Path) -> None:
    with read_only_folder(tmp_path / "data") as data:
        env = {"XDG_DATA_HOME": str(data)}
        _one_clear_line(_zuni("play", "--sim", env=env), data / "zuniboard", "the game log")
        done = _zuni("tablebase", "build", "mosona", "--pieces", "3", env=env)
        _one_clear_line(done, data / "zuniboard" / "tablebases" / "mosona", "the endgame tables")


def test_a_log_in_a_read_only_folder_is_read_and_play_says_what_to_do(tmp_path: Path) -> None:
    def a_game(folder: Path) -> None:
        (folder / "zuniboard").mkdir()
        with Database(folder / "zuniboard" / "games.sqlite3") as db:
            gid = db.new_game("mosona", players={"south": "human", "north": "ai:1"})
            db.add_move(gid, 0, "s3xm4-m5")

    with read_only_folder(tmp_path / "data", a_game) as data:
        env = {"XDG_DATA_HOME": str(data)}
        listed = _zuni("log", "list", env=env)
        assert listed.returncode == 0, listed.stderr
        assert "mosona" in listed.stdout and "Traceback" not in listed.stderr
        shown = _zuni("log", "show", "1", env=env)
        assert shown.returncode == 0 and "s3xm4-m5" in shown.stdout, shown.stderr
        _one_clear_line(_zuni("play", "--sim", env=env), data / "zuniboard", "the game log")


def test_a_full_disk_mid_game_loses_no_move_and_the_log_catches_up(layout: Path, tmp_path: Path) -> None:  # noqa: F811
    with (
        small_disk(tmp_path / "disk", 4096) as disk,
        VirtualBoard(layout, ruleset=RULESET, pieces="start", flash=tmp_path / "flash.img") as board,
        Database(disk / "games.sqlite3") as db,
    ):
        session, ui, link = in_process(board, db)
        try:
            table = Table(board)
            gid = session.db_game
            assert gid is not None
            human_move(session, table, "s3xm4-m5")
            computer_move(session, table)
            filler = fill(disk)
            human_move(session, table)  # the game goes on: the board keeps the moves
            computer_move(session, table)
            assert len(db.get(gid).moves) == 2, "the log could not take them"
            said = [t for t in ui.texts("error") if "cannot write the game log in %s" % disk in t]
            assert len(said) == 1, ui.texts("error")
            assert "database or disk is full" in said[0] and "the game goes on" in said[0]
            filler.unlink()
            human_move(session, table)  # the next move writes all that was waiting
            assert db.get(gid).move_texts() == [m.text() for m in table.game.move_stack]
            assert ui.find(r"^log: written again: game #%d has all its moves" % gid, "info")
            # With nothing more to write, the log catches up on its own (the session's pump).
            fill(disk)
            computer_move(session, table)
            (disk / "filler").unlink()
            deadline = 30.0
            import time

            end = time.monotonic() + deadline
            while session.record.logged is not None and session.record.logged.behind and time.monotonic() < end:
                session.pump(0.05)
            assert db.get(gid).move_texts() == [m.text() for m in table.game.move_stack]
        finally:
            session.close()
            link.close()
