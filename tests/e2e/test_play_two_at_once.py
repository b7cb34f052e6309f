"""Two `zuni play` at once, and unfinished games (issue 26, points 1 and 3): a second
process is refused the virtual board's flash image, a board's port and a logged game the
first one holds (an OS lock, as the tables' builder has); the log never drops a move it
stored; `--resume N` goes on with any unfinished game; a game left before its first move
leaves the log. The second process is a real `zuni play`, the board the real firmware
under MicroPython (the virtual board)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from play_helpers import TtyPlay, ZuniPlay

import zuni
from zuniboard.oslock import LockBusy, ProcessLock
from zuniboard.play.gamelog import BoardGameLog, LoggedGame, game_holder
from zuniboard.records.db import Database
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
    from zuniboard.virtual.board import VirtualBoard
except (MicroPythonMissing, ImportError) as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)

SLOW = 90.0  # generous: these start real boards and run beside the whole suite


def _first_move(play: ZuniPlay, text: str = "s3xm4-m5") -> str:
    """Types South's move once the board is set up; returns North's reply once carried out."""
    first = play.expect(r"^type a move |^south to move ").group(0)
    play.expect(r"^south to move " if first == "type a move " else r"^type a move ")
    play.send(text)
    play.expect(r"^1\. south %s$" % re.escape(text))
    return play.expect(r"^2\. north (\S+) \(carried out on the board\)$").group(1)


def _a_legal_move(moves: list[str]) -> str:
    game = zuni.new_game("mosona")
    for text in moves:
        game.push_text(text)
    return str(min(m.text() for m in game.legal_moves()))


def test_the_lock_names_its_holder_and_goes_with_it(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    with ProcessLock(path, "the thing x"):
        with pytest.raises(LockBusy) as caught:
            ProcessLock(path, "the thing x").acquire()
        import os

        assert caught.value.pid == os.getpid()
        assert "the thing x is in use by another zuni (process %d)" % os.getpid() in str(caught.value)
    with ProcessLock(path, "the thing x"):
        pass  # released: taken again


def test_a_conflicting_move_keeps_every_stored_move(tmp_path: Path) -> None:
    """The board's game parts from the log's (another process played on, a board that lost
    its journal): the stored game keeps all its moves, the board's line is a new game."""
    said: list[str] = []
    with Database(tmp_path / "games.sqlite3") as db:
        log = BoardGameLog(db, lambda tone, text: said.append(text))
        gid = log.open("mosona", {"south": "human", "north": "ai:1"}, "b1", "board25", "g1")
        logged = LoggedGame(log, gid)
        stored = ["s3xm4-m5", "n5xm5-m4"]
        for i, text in enumerate(stored):
            assert not logged.played(i, text)
        assert logged.played(1, "m2xs2-s3"), "a different second move goes to a new game"
        assert db.get(gid).move_texts() == stored, "nothing stored is dropped"
        new = logged.gid
        assert new != gid and db.get(new).move_texts() == ["m2xs2-s3"]
        assert db.get(new).tags["FromGame"] == str(gid) and db.get(new).tags["FromPly"] == "1"
        assert db.board_game("b1", "g1") == new, "the board's game goes on as the new game"
        assert any("game #%d keeps its 2 moves" % gid in s for s in said), said
        # The same through sync (the board's moves after a reconnect, from the game's start).
        gid2, added = log.sync(new, ["m2xs2-s3", "s4xs3-s2xm3-m4"])
        assert (gid2, added) == (new, 1)
        gid3, added = log.sync(new, ["m2xs2-s3", "s4xs3-s2xm3-m4", "n3xm4-s3"])
        assert (gid3, added) == (new, 1)
        gid4, added = log.sync(new, ["m2xs2-s3", "s4xs3-s2xm3-m4", "n4xm4-m3"])
        assert gid4 != new and added == 1
        assert db.get(new).move_texts() == ["m2xs2-s3", "s4xs3-s2xm3-m4", "n3xm4-s3"], "kept"
        assert db.get(gid4).move_texts() == ["n4xm4-m3"]
        assert db.get(gid).move_texts() == stored
        logged.release()


def test_a_second_zuni_play_is_refused_the_virtual_board_and_the_first_loses_nothing(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    env = {"ZUNI_SIM_DIR": str(tmp_path / "sim")}
    first = ZuniPlay("--north", "ai:1", "--sim", "--show", "0.2", db=db, env=env, timeout=SLOW)
    try:
        gid = int(first.expect(r"^new game #(\d+)").group(1))
        reply = _first_move(first)
        second = ZuniPlay("--north", "ai:1", "--sim", db=db, env=env, timeout=SLOW)
        try:
            assert second.wait(SLOW) == 2
            out = "\n".join(second.seen)
            assert re.search(r"flash image .* is in use by another zuni \(process %d\)" % first.proc.pid, out), out
            assert "unfinished games" not in out, "a game another process plays is not offered"
            assert "Traceback" not in out
        finally:
            second.close()
        assert game_holder(str(db), gid) == first.proc.pid
        # A second process cannot take the game on another virtual board either.
        third = ZuniPlay("--resume", str(gid), db=db, env={"ZUNI_SIM_DIR": str(tmp_path / "sim2")}, timeout=SLOW)
        try:
            assert third.wait(SLOW) == 2
            out = "\n".join(third.seen)
            assert "game #%d is being played by another zuni (process %d)" % (gid, first.proc.pid) in out, out
        finally:
            third.close()
        first.send(_a_legal_move(["s3xm4-m5", reply]))
        first.expect(r"^3\. south ")
        first.expect(r"^4\. north \S+ \(carried out on the board\)$")
        first.send("quit")
        assert first.wait(SLOW) == 0
        assert any("`zuni play --resume %d` goes on with it" % gid in line for line in first.seen), first.tail()
    finally:
        first.close()
    with Database(db) as d:
        record = d.get(gid)
        assert len(record.moves) == 4 and (record.result, record.termination) == ("*", None)
        assert d.game_ids() == [gid]
    assert game_holder(str(db), gid) is None, "the lock goes with its process"


def test_a_board_port_is_held_by_one_zuni(tmp_path: Path) -> None:
    with VirtualBoard("board25", ruleset="mosona", pieces="start", flash=tmp_path / "flash.img") as board:
        first = ZuniPlay("--port", board.port_path, "--north", "ai:1", db=tmp_path / "a.sqlite3", timeout=SLOW)
        try:
            first.expect(r"^new game #1")
            second = ZuniPlay("--port", board.port_path, db=tmp_path / "b.sqlite3", timeout=SLOW)
            try:
                assert second.wait(SLOW) == 2
                out = "\n".join(second.seen)
                assert (
                    "the board at %s is in use by another zuni (process %d)" % (board.port_path, first.proc.pid) in out
                )
            finally:
                second.close()
            first.send("quit")
            assert first.wait(SLOW) == 0
        finally:
            first.close()


def test_resume_n_sets_up_any_unfinished_game_and_empty_games_leave_the_log(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    env = {"ZUNI_SIM_DIR": str(tmp_path / "sim")}
    play = ZuniPlay("--north", "ai:1", "--sim", "--show", "0.2", "--seed", "1", db=db, env=env, timeout=SLOW)
    try:
        one = int(play.expect(r"^new game #(\d+)").group(1))
        _first_move(play)
        play.send("quit")
        assert play.wait(SLOW) == 0
    finally:
        play.close()
    # A new game (no terminal: the unfinished one is listed, not taken), quit at once.
    play = ZuniPlay("--north", "ai:1", "--sim", db=db, env=env, timeout=SLOW)
    try:
        play.expect(r"^unfinished games in the log \(`zuni play --resume N` goes on with game N\):")
        play.expect(r"^  #%d\s+mosona, 2 moves, started " % one)
        play.expect(r"^this is a new game")
        two = int(play.expect(r"^new game #(\d+)").group(1))
        play.expect(r"^type a move |^south to move ")
        play.send("quit")
        assert play.wait(SLOW) == 0
        assert not any("left unfinished" in line for line in play.seen), "an empty game is no game to go on with"
    finally:
        play.close()
    with Database(db) as d:
        assert two not in d.game_ids(), "a game left before its first move leaves the log"
        moves = d.get(one).move_texts()
    # The board's game is now another: --resume N sets game N up again and logs on into it.
    play = ZuniPlay("--resume", str(one), "--show", "0.2", db=db, env=env, timeout=SLOW)
    try:
        play.expect(r"^resumed game #%d: mosona after 2 moves.*sets up its position" % one)
        play.expect(r"^south to move")
        third = _a_legal_move(moves)
        play.send(third)
        # The board's game starts at the position: its moves are numbered from there.
        play.expect(r"^1\. south %s$" % re.escape(third))
        play.expect(r"^2\. north \S+ \(carried out on the board\)$")
        play.send("quit")
        assert play.wait(SLOW) == 0
    finally:
        play.close()
    with Database(db) as d:
        record = d.get(one)
        assert record.move_texts()[:3] == [*moves, third] and len(record.moves) == 4
        assert record.result == "*" and d.game_ids() == [one]


def test_a_start_on_a_terminal_offers_a_list_and_takes_a_number(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with Database(db) as d:
        for opening in ("s3xm4-m5", "s3xm4-m5"):
            gid = d.new_game("mosona", players={"south": "human", "north": "ai:1"})
            d.add_move(gid, 0, opening)
        empty = d.new_game("mosona", players={"south": "human", "north": "ai:1"})
    play = TtyPlay("--north", "ai:1", "--show", "0.2", db=db, env={"ZUNI_SIM_DIR": str(tmp_path / "sim")}, timeout=SLOW)
    try:
        play.expect(r"#2\s+mosona, 1 move")  # newest first
        play.expect(r"#1\s+mosona, 1 move")
        play.expect(r"go on with game #2\? \[Y/n, or a game's number\]")
        play.type("1")
        play.expect(r"resumed game #1: mosona after 1 move")
        play.type("quit")
        assert play.wait(SLOW) == 0
    finally:
        play.close()
    with Database(db) as d:
        assert d.get(1).move_texts() == ["s3xm4-m5"] and d.get(2).move_texts() == ["s3xm4-m5"]
        assert empty in d.game_ids(), "only games this process left are dropped"


def test_zuni_sim_after_a_game_follows_it_at_once(tmp_path: Path) -> None:
    """Issue 26 point 7: `zuni sim` on the flash of a game quit mid-game came up stuck
    (setup, s3 and n5 red, "the page lost track of the moves: the board has 2"). The pieces
    now stand where the game left them and the page follows its moves."""
    import json
    import subprocess
    import time
    import urllib.request

    from play_helpers import ZUNI

    db = tmp_path / "games.sqlite3"
    env = {"ZUNI_SIM_DIR": str(tmp_path / "sim")}
    play = ZuniPlay("--south", "human", "--north", "ai:1", "--sim", "--show", "0.2", db=db, env=env, timeout=SLOW)
    try:
        play.expect(r"^new game #(\d+)")
        reply = _first_move(play)
        play.send("quit")
        assert play.wait(SLOW) == 0
    finally:
        play.close()
    import os

    sim = subprocess.Popen(
        [str(ZUNI), "sim", "--http", "0", "--seconds", "120"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ, **env),
    )
    try:
        assert sim.stdout is not None
        url = ""
        said = []
        for line in sim.stdout:
            said.append(line)
            if line.startswith("browser page:"):
                url = line.split()[-1]
                break
        assert url, "".join(said)
        assert any("has 2 moves: its pieces stand where it left them" in line for line in said), "".join(said)
        deadline = time.monotonic() + SLOW
        while True:
            with urllib.request.urlopen(url.rstrip("/") + "/api/state", timeout=10) as answer:
                state = json.loads(answer.read())
            if state["board"].get("phase") == "play" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert state["board"]["phase"] == "play", state["board"]
        assert state["play"]["moves"] == ["s3xm4-m5", reply] and not state["play"]["lost"], state["play"]
    finally:
        sim.terminate()
        sim.wait(timeout=30)


def _post(url: str, path: str) -> dict[str, object]:
    import json
    import urllib.request

    req = urllib.request.Request(url.rstrip("/") + "/api/" + path, data=b"{}", method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Origin", url.rstrip("/"))  # as the page's browser sends it
    with urllib.request.urlopen(req, timeout=30) as answer:
        reply: dict[str, object] = json.loads(answer.read())
        return reply


def _state(url: str) -> dict[str, object]:
    import json
    import urllib.request

    with urllib.request.urlopen(url.rstrip("/") + "/api/state", timeout=30) as answer:
        state: dict[str, object] = json.loads(answer.read())
        return state


def test_the_page_sets_up_a_position_one_side_at_a_time_and_the_computer_waits(tmp_path: Path) -> None:
    """Issue 26 point 6: `zuni play --manual --from "..."` on the page: "Set up the
    position" puts the disks of the side the board asks for where the position wants them
    and presses OK, side after side, and the computer's move is said only once the board is
    set up."""
    import time

    position = "mosona | north to move | south s3 s5 | north m4"
    play = ZuniPlay(
        "--sim", "--manual", "--from", position, "--south", "human", "--north", "ai:1", "--show", "0.2",
        db=tmp_path / "g.sqlite3", env={"ZUNI_SIM_DIR": str(tmp_path / "sim")}, timeout=SLOW,
    )  # fmt: skip
    try:
        url = play.expect(r"^browser page of the virtual board: (http://\S+)").group(1)
        play.expect(r"^new game #\d+: mosona from ")
        deadline = time.monotonic() + SLOW
        clicks = 0
        while True:
            board = dict(_state(url)["board"])  # type: ignore[call-overload]
            if board.get("phase") == "play":
                break
            assert time.monotonic() < deadline, board
            if board.get("phase") == "setup":
                reply = _post(url, "setup")
                clicks += 1
                assert reply["ok"], reply
            time.sleep(1.0)
        assert 1 <= clicks <= 6, clicks
        seen = play.expect(r"^the board is set up: play on|^North plays m4xs3-s2").group(0)
        assert seen.startswith("the board is set up"), "the computer's move was said before the setup ended"
        play.expect(r"^North plays m4xs3-s2")
    finally:
        play.close()


def test_resume_n_carries_the_clocks_on(tmp_path: Path) -> None:
    """Issue 26 point 3: a logged game on a clock that the board no longer has goes on
    with each side's time left after its last move (not with fresh clocks, not without)."""
    db = tmp_path / "games.sqlite3"
    game = zuni.new_game("mosona")
    game.push_text("s3xm4-m5")
    reply = str(min(m.text() for m in game.legal_moves()))
    with Database(db) as d:
        gid = d.new_game("mosona", players={"south": "human", "north": "ai:1"}, time_control="5+3")
        d.add_move(gid, 0, "s3xm4-m5", elapsed_ms=4000, clock_ms=299000)
        d.add_move(gid, 1, reply, elapsed_ms=12500, clock_ms=290500)
    env = {"ZUNI_SIM_DIR": str(tmp_path / "sim")}
    play = ZuniPlay("--resume", str(gid), "--show", "0.2", db=db, env=env, timeout=SLOW)
    try:
        carried = r"its clocks go on from south=299s\+3 north=290\.5s\+3"
        play.expect(r"^resumed game #%d: mosona after 2 moves.*%s" % (gid, carried))
        play.expect(r"^south to move")
        play.send("where")
        # South's clock runs from 299 s (4:59), North's stands at 290.5 s (4:50).
        said = play.expect(r"Clocks: South (\d):(\d\d)(?: \(running\))?\s+North (\d):(\d\d)")
        south = int(said.group(1)) * 60 + int(said.group(2))
        north = int(said.group(3)) * 60 + int(said.group(4))
        assert 240 < south <= 299 and north == 290, said.group(0)
        play.send("quit")
        assert play.wait(SLOW) == 0
    finally:
        play.close()
