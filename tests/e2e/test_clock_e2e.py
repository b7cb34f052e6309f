"""Game clocks end to end: the real firmware under MicroPython on the virtual board.

- `zuni play --clock` plays until a flag falls; the log has the loss on time with its
  reason, the time control, each move's time and clock, and `zuni log show`/`export`
  print them.
- A board reset mid-game (power cut) and a host that goes away and comes back lose no
  time beyond what docs/clocks.md says (a reset gives the running side back at most
  ``clocks.SAVE_MS``; a host away costs nothing: the board's clocks run on).
- An old host (protocol 2) gets a clear error from this board, and this host from an
  old board (the same firmware with its codec at protocol 2).
"""

from __future__ import annotations

import json
import os
import re
import select
import time
from pathlib import Path

import pytest
from play_helpers import ZuniPlay
from play_helpers import zuni as run_zuni
from waiting import wait_until

import zuni
from zuniboard.games import layouts
from zuniboard.link.client import BoardLink
from zuniboard.records.db import Database
from zuniboard.records.formats import write_pgn
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
    from zuniboard.virtual.board import Hand, VirtualBoard
except (MicroPythonMissing, ImportError) as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)

# (zuniboard.link.client puts firmware/lib on the path)
from zuni_board.clocks import SAVE_MS
from zuni_link import codec

FAST = {"scan_ms": 5, "debounce_scans": 2, "stable_ms": 50, "commit_ms": 60, "error_ms": 400, "chain_settle_ms": 1200}


def fast_layout(tmp_path: Path) -> Path:
    source = Path(layouts.layout_for_ruleset("mosona").path)
    data = json.loads(source.read_text())
    data["timing"] = FAST
    path = tmp_path / "board25-fast.json"
    path.write_text(json.dumps(data))
    return path


def left(state: dict[str, str], side: int) -> int:
    return int(state["clock"].split(",")[side])


def test_zuni_play_on_a_clock_until_a_flag_falls(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    game = zuni.new_game("mosona")
    with VirtualBoard(fast_layout(tmp_path), ruleset="mosona", pieces="start", flash=tmp_path / "f.img") as board:
        hand = Hand(board, seed=1, speed=4.0)
        play = ZuniPlay(
            "--port", board.port_path, "--ruleset", "mosona", "--north", "ai:1", "--deterministic",
            "--clock", "south=8s north=1", db=db,
        )  # fmt: skip
        try:
            play.expect(r"^new game #(\d+): mosona")
            play.expect(r"^clocks \(south=8s north=1\): South 0:0[5-8]\.\d \*  North 1:00$")
            play.expect(r"^south to move")
            hand.play(game, "s3xm4-m5")
            play.expect(r"^1\. south s3xm4-m5")
            game.push_text("s3xm4-m5")
            text = play.expect(r"^carry out (\S+) on the board").group(1)
            hand.play(game, text)
            play.expect(r"^2\. north %s \(carried out on the board\)" % re.escape(text))
            # South thinks too long: its 8 s run out on the board.
            play.expect(r"^North wins on time: South ran out of time\. Game #\d+ is logged", timeout=15)
            play.send("quit")
            assert play.wait() == 0
        finally:
            play.close()
    with Database(db) as d:
        gid = d.game_ids()[-1]
        record = d.get(gid)
    assert (record.result, record.termination, record.time_control) == ("north", "time", "south=8s north=1")
    assert record.move_texts() == ["s3xm4-m5", text]
    south, north = record.moves
    assert south.elapsed_ms is not None and north.elapsed_ms is not None
    assert south.clock_ms == 8000 - south.elapsed_ms
    assert north.clock_ms == 60000 - north.elapsed_ms
    # The computer's time is its thinking (and the link), not the person carrying it out.
    assert 0 <= north.elapsed_ms < 2000, north.elapsed_ms
    shown = run_zuni("log", "show", str(gid), "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    assert '[TimeControl "south=8s north=1"]' in shown.stdout
    assert '[Termination "time"]' in shown.stdout
    assert "[%clk 0:00:0" in shown.stdout and "[%emt 0:00:0" in shown.stdout, shown.stdout
    assert "[%emt" in write_pgn(record)


def _open_clocked(board: VirtualBoard, clock: str) -> BoardLink:
    link = BoardLink.open(board.port_path, timeout=10)
    assert link.wait_synced(10)
    link.new_game("mosona", clock=clock)
    return link


def _wait_phase(link: BoardLink, phase: str, timeout: float = 10.0) -> dict[str, str]:
    seen: list[dict[str, str]] = [{}]

    def in_phase() -> dict[str, str] | None:
        seen[0] = link.state()
        return seen[0] if seen[0].get("phase") == phase else None

    state = wait_until(in_phase, lambda: "phase %s; last state %s" % (phase, seen[0]), timeout, step=0.1)
    assert state is not None
    return state


def test_a_reset_and_a_host_away_lose_no_time_beyond_the_last_save(tmp_path: Path) -> None:
    game = zuni.new_game("mosona")
    with VirtualBoard(fast_layout(tmp_path), ruleset="mosona", pieces="start", flash=tmp_path / "f.img") as board:
        hand = Hand(board, seed=2, speed=4.0)
        link = _open_clocked(board, "1")
        try:
            state = _wait_phase(link, "play")
            assert state["tc"] == "1" and state["running"] == "south"
            hand.play(game, "s3xm4-m5")
            game.push_text("s3xm4-m5")
            assert link.wait_moves(1, 10)
            times = link.move_times[(link.game, 0, "s3xm4-m5")]
            assert times[1] == 60000 - times[0]
            # The host goes away for 2 s: the board's clock runs on without it.
            before = left(link.state(), 2)
            link.close()
            time.sleep(2.0)
            link = BoardLink.open(board.port_path, timeout=10)
            assert link.wait_synced(10)
            away = before - left(link.state(), 2)
            assert 2000 <= away < 4000, away
            # A power cut: the board comes back with the clocks of its journal, paused
            # until the pieces match it (they do: at once), then north's clock runs on.
            at_cut = left(link.state(), 2)
            board.restart()
            state = _wait_phase(link, "play", 15)
            assert left(state, 0) == times[1], "south's clock is the one its move left"
            back = left(state, 2) - at_cut  # time north got back: since its last save
            assert -1500 <= back <= SAVE_MS, back
        finally:
            link.close()


def test_an_old_host_gets_a_clear_error(tmp_path: Path) -> None:
    with VirtualBoard(fast_layout(tmp_path), ruleset="mosona", pieces="start") as board:
        fd = os.open(board.port_path, os.O_RDWR | os.O_NOCTTY)
        try:
            os.write(fd, codec.encode(7, "hello", "proto=2 host=zuni/0.0.1"))
            deadline = time.monotonic() + 10
            data = b""
            while b"7 version" not in data:
                assert time.monotonic() < deadline, data
                ready, _, _ = select.select([fd], [], [], 0.2)
                if ready:
                    data += os.read(fd, 4096)
            line = next(x for x in data.split(b"\n") if b"7 version" in x)
            assert b"board speaks link protocol 3, host offered proto=2: update the host (zuni)" in line, line
        finally:
            os.close(fd)


def test_a_new_host_gets_a_clear_error_from_an_old_board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real firmware with its link codec at protocol 2 (a copy of zuni_link ahead of
    firmware/lib on the MicroPython path): this host's hello is refused, and it says so."""
    import shutil

    from zuniboard.link.client import LinkError
    from zuniboard.virtual import mpy, process

    old = tmp_path / "oldlib"
    shutil.copytree(Path(mpy.FIRMWARE_LIB) / "zuni_link", old / "zuni_link")
    codec_py = old / "zuni_link" / "codec.py"
    text = codec_py.read_text()
    assert "PROTO = const(3)" in text
    codec_py.write_text(text.replace("PROTO = const(3)", "PROTO = const(2)"))
    real_env = mpy.micropython_env
    monkeypatch.setattr(process, "micropython_env", lambda: real_env([old]))
    with VirtualBoard("board25", ruleset="mosona", pieces="start", flash=tmp_path / "f.img") as board:
        with pytest.raises(
            LinkError, match=r"speaks another link protocol: board speaks link protocol 2, host offered proto=3"
        ):
            BoardLink.open(board.port_path, timeout=4.0)
