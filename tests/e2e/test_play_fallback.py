"""Where the MicroPython unix port is missing (no wheel for the platform), the virtual
board runs the same firmware under CPython (``zuniboard.virtual.fw_cpython``), `zuni play` says
so in one line, and the suite's MicroPython half is reported as skipped. The unix port
is hidden here with ``ZUNI_HIDE_MICROPYTHON``, as if it were not installed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from play_helpers import REPO, ZuniPlay

from zuniboard.records.db import Database
from zuniboard.virtual.mpy import HIDE_ENV, MicroPythonMissing, board_command, micropython_executable


def test_zuni_play_runs_the_firmware_under_cpython_without_the_unix_port(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    env = {"ZUNI_SIM_DIR": str(tmp_path / "sim"), HIDE_ENV: "1"}
    play = ZuniPlay("--north", "ai:1", "--show", "0.2", db=db, env=env)
    try:
        play.expect(
            r"^no MicroPython unix port on this computer: the virtual board runs the same firmware under CPython"
        )
        play.expect(r"south to move \(type it")
        play.send("s3xm4-m5")
        play.expect(r"^1\. south s3xm4-m5$")
        reply = play.expect(r"^2\. north (\S+) \(carried out on the board\)$").group(1)
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    # The board's journal lives in the flash directory: the game goes on after a restart.
    again = ZuniPlay("--resume", "--north", "ai:1", db=db, env=env)
    try:
        again.expect(r"^resumed game #1: mosona after 2 moves")
        again.send("quit")
        assert again.wait() == 0
    finally:
        again.close()
    with Database(db) as d:
        assert d.get(1).move_texts() == ["s3xm4-m5", reply]
    assert any(p.name.endswith(".img.d") for p in (tmp_path / "sim").iterdir())


def test_the_micropython_half_of_the_suite_is_reported_skipped_without_the_unix_port() -> None:
    os.environ[HIDE_ENV] = "1"
    try:
        try:
            micropython_executable()
            raise AssertionError("hidden, yet found")
        except MicroPythonMissing as exc:
            assert HIDE_ENV in str(exc)
        command, runtime = board_command("firmware/main.py", "--layout", "x.json")
        assert runtime == "cpython" and command[:3] == [sys.executable, "-m", "zuniboard.virtual.fw_cpython"]
    finally:
        del os.environ[HIDE_ENV]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            "tests/checks/test_micropython.py",
        ],
        cwd=REPO,
        env=dict(os.environ, **{HIDE_ENV: "1"}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    skipped = re.search(r"(\d+) skipped", out.stdout)
    assert skipped is not None and int(skipped.group(1)) >= 10, out.stdout  # every shared module under MicroPython
    assert "MicroPython half of the suite not run" in out.stdout, out.stdout


def test_the_page_of_zuni_play_is_on_zuni_sims_port_and_falls_back_when_taken(tmp_path: Path) -> None:
    """A tab left open from the last game finds the next one: `zuni play` serves its page
    on zuni sim's port (8765); when another program holds it, on any free port. (Tried on
    another port than 8765, which the tests of `zuni sim` hold at times.)"""
    import socket

    from zuniboard.commands.sim import DEFAULT_HTTP_PORT
    from zuniboard.play.connect import PAGE_PORT, browser_page
    from zuniboard.virtual.board import VirtualBoard
    from zuniboard.web import page

    assert PAGE_PORT == DEFAULT_HTTP_PORT
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with VirtualBoard("board25", ruleset="mosona", pieces="start", flash=tmp_path / "f.img") as vb:
        try:
            first = browser_page(vb, port)
            second = browser_page(vb, port)  # the first page holds it now
            assert first == "http://127.0.0.1:%d/" % port
            assert second and second != first
        finally:
            page.stop_all()
