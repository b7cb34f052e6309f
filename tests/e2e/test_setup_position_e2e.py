"""Starting from a position, end to end: the real firmware under MicroPython (the virtual
board), the play session in process with people on every side, and a test hand that sets
the position up one side at a time, as the board lights it, with lifts and places only,
then plays it to the end; the game is in the log with its position. A reset of the board
in the middle resumes the game from the position. Also ``--from``'s forms
(``zuniboard.play.start_from``) and an old board's refusal of ``setup``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from play_helpers import RecordingUI
from vboard_helpers import fast_layout, side_points, wait_lit
from waiting import wait_until

import zuni
from zuni.position import parse_position, position_text
from zuniboard.link.client import BoardError, BoardLink
from zuniboard.play.session import PlaySession
from zuniboard.play.start_from import StartFrom, StartFromError, start_from
from zuniboard.records import formats
from zuniboard.records.db import Database
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
    from zuniboard.virtual.board import Hand, VirtualBoard
except (MicroPythonMissing, ImportError) as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)


# (board, position, a line of moves that ends the game, how each side after the first
# goes on: "settle" (no button), "button" (the board's OK), "host" (the host's `button ok`),
# reset after this many moves (-1: none)). The lines were found by a search from each
# position; the 2-player Awithlaknakwe one has a bow priest on the board and a forced pass.
GAMES = [
    ("board25", "mosona | north to move | south s3 s5 | north m4 n5", ["m4xs3-s2", "s5-m5", "n5xm5-s4"], "settle", 1),
    (
        "board25",
        "kolowis size=short | north to move | south s2 s6 | north m4 n5",
        ["m4-m3", "s2xm3-n3", "n5-n4", "n3xn4-n5"],
        "button",
        -1,
    ),
    (
        "board168",
        "awithlaknakwe | south to move | south e11 h14 | north f2 priest g13",
        ["e11-f12", "f2-g1", "f12-e13", "pass", "e13-f14"],
        "host",
        -1,
    ),
    (
        "board168",
        "awithlaknakwe players=4 | south to move | south f13 | west m7 | north f2 | east b7",
        ["f13-e14", "m7-n8", "f2-g1", "b7-a6"],
        "host",
        2,
    ),
]


def _humans(ruleset: str) -> dict[str, str | None]:
    sides = ["south", "north"] + (["west", "east"] if "players=4" in ruleset else [])
    return {side: "human" for side in sides}


def pump_until(session: PlaySession, what: str, predicate: Any, timeout: float = 20.0) -> None:
    wait_until(predicate, what, timeout, step=lambda: session.pump(0.02))


def _setup_side_by_side(session: PlaySession, link: BoardLink, vb: VirtualBoard, game: Any, how: str) -> list[str]:
    """The hand follows the board's staged setup; returns the sides in the order asked."""
    for point in sorted(vb.occupied):
        vb.lift(point)  # the old game's pieces off
    asked: list[str] = []
    sides = side_points(game)
    for k, (side, points) in enumerate(sides.items()):
        pump_until(session, "the board to ask for %s" % side, lambda s=side: link.state().get("setup") == s)
        before = {p for ps in list(sides.values())[:k] for p in ps}
        wait_lit(vb, points, side, before | set(points))
        asked.append(side)
        for point in points:
            vb.place(point)
        placed = {p for ps in list(sides.values())[: k + 1] for p in ps}
        vb.wait_stable(placed, 10)
        if k + 1 < len(sides):
            if how == "button":
                vb.press("ok")
            elif how == "host":
                link.press_ok()
    pump_until(session, "play to start", lambda: session.phase == "play")
    return asked


def _resumed(link: BoardLink, moves: int) -> bool:
    state = link.state()
    return state.get("phase") == "play" and state.get("moves") == str(moves)


def _hand_move(session: PlaySession, hand: Hand, game: Any, text: str) -> None:
    n = len(game.move_stack)
    if text != "pass":  # a forced pass the board commits by itself (with the move before)
        hand.play(game, text)
    pump_until(session, "the board to commit %s" % text, lambda: len(session.moves) > n)
    assert session.moves[n] == text, session.moves
    game.push_text(text)


@pytest.mark.parametrize("board_name,position,line,how,reset_after", GAMES, ids=[g[1].split(" |")[0] for g in GAMES])
def test_a_hand_made_position_set_up_side_by_side_played_to_the_end_and_logged(
    board_name: str, position: str, line: list[str], how: str, reset_after: int, tmp_path: Path
) -> None:
    game = parse_position(position)
    canonical = position_text(game)
    ruleset = str(game.ruleset)
    db = Database(tmp_path / "games.db")
    vb = VirtualBoard(fast_layout(board_name, tmp_path), ruleset=ruleset, pieces="start", flash=tmp_path / "flash.img")
    link: BoardLink | None = None
    try:
        vb.start()
        link = BoardLink.open(vb.port_path, timeout=10.0)
        ui = RecordingUI()
        start = StartFrom(canonical, ruleset)
        session = PlaySession(link, db, ui, players=_humans(ruleset), start=start, seed=1, deterministic=True)
        session.start()
        assert link.position == canonical
        asked = _setup_side_by_side(session, link, vb, game, how)
        assert asked == list(side_points(game))
        hand = Hand(vb, seed=3, speed=2.0)
        for i, text in enumerate(line):
            if i == reset_after:
                vb.restart()  # a power cut: the journal's game resumes from its position
                pump_until(session, "the board to resume the game", lambda n=i, bl=link: _resumed(bl, n))
                state = link.state()
                assert state["position"] == canonical and state["game"] == session.board_game, state
            _hand_move(session, hand, game, text)
        pump_until(session, "the end", session.is_over)
        assert game.is_game_over()
        outcome = game.outcome()
        record = db.get(session.db_game or 0)
        assert record.position == canonical
        assert record.move_texts() == line
        assert (record.result, record.termination) == (outcome.result, outcome.termination)
        session.close()
    finally:
        if link is not None:
            link.close()
        vb.close()
        db.close()


def test_start_from_a_logged_game_a_record_file_and_a_position_text(tmp_path: Path) -> None:
    db = Database(tmp_path / "games.db")
    try:
        gid = db.new_game("mosona", players={"south": "human", "north": "human"})
        for i, text in enumerate(["s3xm4-m5", "n5xm5-m4", "m7xn6-n5"]):
            db.add_move(gid, i, text)
        at = start_from("%d:2" % gid, db)
        game = zuni.new_game("mosona")
        game.push_text("s3xm4-m5")
        game.push_text("n5xm5-m4")
        assert at.position == position_text(game)
        assert at.tags == {"FromGame": str(gid), "FromPly": "2"}
        assert start_from(str(gid), db).tags["FromPly"] == "3"
        # The record file of the game (with its moves): the position after all of them,
        # or after N; a record that starts from a position keeps it.
        pgn = tmp_path / "game.pgn"
        pgn.write_text(formats.export([db.get(gid)], "pgn"))
        assert start_from("%s:2" % pgn, db).position == at.position
        positioned = db.new_game("mosona", players={"south": "human", "north": "human"}, position=at.position)
        db.add_move(positioned, 0, "m7xn6-n5")
        js = tmp_path / "pos.json"
        js.write_text(formats.export([db.get(positioned)], "json"))
        game.push_text("m7xn6-n5")
        assert start_from(str(js), db).position == position_text(game)
        assert start_from("%s:0" % js, db).position == at.position
        text = "mosona | north to move | south s3 s5 | north m4"
        assert start_from(text, db) == StartFrom(text + " | quiet 0", "mosona")
        for bad in (
            "99:1",
            "%d:9" % gid,
            "mosona | nobody to move",
            str(tmp_path / "missing.pgn"),
            "mosona | south to move | north m4",
        ):
            with pytest.raises(StartFromError):
                start_from(bad, db)
    finally:
        db.close()


def test_an_old_board_refuses_setup_with_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A board without `setup` answers `err unknown`: the host says to deploy new firmware.
    The board here is the real firmware with `setup` taken out of its command table (a
    copy of zuni_link ahead of firmware/lib on the MicroPython path)."""
    import shutil

    from zuniboard.virtual import mpy, process

    old = tmp_path / "oldlib"
    shutil.copytree(Path(mpy.FIRMWARE_LIB) / "zuni_link", old / "zuni_link")
    table = old / "zuni_link" / "commands.py"
    text = table.read_text()
    row = '    ("setup", GAME, A_POSITION, None, "cmd_setup"),\n'
    assert row in text
    table.write_text(text.replace(row, ""))
    real_env = mpy.micropython_env
    monkeypatch.setattr(process, "micropython_env", lambda: real_env([old]))
    vb = VirtualBoard("board25", ruleset="mosona", pieces="start", flash=tmp_path / "flash.img")
    link: BoardLink | None = None
    try:
        vb.start()
        link = BoardLink.open(vb.port_path, timeout=10.0)
        assert link.wait_synced(10)
        before = link.state()
        with pytest.raises(BoardError, match=r"too old to set up a position.*deploy the new firmware"):
            link.new_game("mosona", position="mosona | north to move | south s3 s5 | north m4")
        after = link.state()
        assert (after["game"], after["hv"]) == (before["game"], before["hv"])  # nothing changed
        assert "position" not in after
    finally:
        if link is not None:
            link.close()
        vb.close()


def test_the_page_follows_a_game_from_a_position() -> None:
    """The page's narrator replays the board's moves from the position the board reports,
    and the disks that appear take the sides of that position."""
    from zuniboard.web.world import Narrator, World

    position = "mosona | north to move | south s3 s5 | north m4 n5 | quiet 0"
    game = parse_position(position)
    game.push_text("m4xs3-s2")
    occupancy = "".join("1" if v else "0" for v in game.occupancy())
    narrator = Narrator()
    status = {"game": "g1", "ruleset": "mosona", "position": position, "moves": 0, "phase": "play"}
    assert narrator.follow(status)["moves"] == []
    out = narrator.follow(dict(status, moves=1, occupancy=occupancy))
    assert out["moves"] == ["m4xs3-s2"] and not out["lost"]
    world = World.for_ruleset("mosona")
    hint = world.start_hint("mosona", position)
    assert hint == {"s3": ("south", "man"), "s5": ("south", "man"), "m4": ("north", "man"), "n5": ("north", "man")}


def test_bad_from_is_refused_before_any_board_is_touched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from zuniboard.cli import main as cli_main

    db = str(tmp_path / "games.sqlite3")
    for args, message in (
        (["--from", "7:3"], "no game #7 in the log"),
        (["--from", "mosona | south to move | south zz"], "unknown point"),
        (["--from", "nothing-here.pgn"], "not GAME[:N] (a logged game), a record file or a position text"),
        (["--from", "mosona | south to move | south s3 | north m4", "--ruleset", "kolowis"], "leave out --ruleset"),
        (["--from", "mosona | south to move | south s3 | north m4", "--west", "human"], "mosona has no west seat"),
    ):
        assert cli_main(["play", "--db", db, *args]) == 2, args
        out = capsys.readouterr()
        assert message in out.err, (args, out.err)
        assert "virtual board" not in out.out


def test_a_positioned_game_the_board_played_alone_is_logged_with_its_position(tmp_path: Path) -> None:
    from zuniboard.play.gamelog import BoardGameLog

    position = "mosona | north to move | south s3 s5 | north m4 n5 | quiet 0"
    db = Database(tmp_path / "games.db")
    try:
        said: list[str] = []
        gid = BoardGameLog(db, lambda kind, text: said.append(text)).adopt(
            "board-1", "00003-ab12", ["m4xs3-s2"], "mosona", None, position
        )
        assert gid is not None
        record = db.get(gid)
        assert (record.position, record.move_texts()) == (position, ["m4xs3-s2"])
    finally:
        db.close()


def test_zuni_play_from_a_logged_game_at_a_move(tmp_path: Path) -> None:
    """`zuni play --from GAME:N` as a subprocess against the virtual board: the board asks
    for one side, then the other; a move; the log has the game with its position and the
    tags FromGame/FromPly."""
    from play_helpers import ZuniPlay

    db_path = tmp_path / "games.sqlite3"
    with Database(db_path) as db:
        first = db.new_game("mosona", players={"south": "human", "north": "human"})
        for i, text in enumerate(["s3xm4-m5", "n5xm5-m4"]):
            db.add_move(first, i, text)
    game = zuni.new_game("mosona")
    for text in ["s3xm4-m5", "n5xm5-m4"]:
        game.push_text(text)
    position = position_text(game)
    vb = VirtualBoard(fast_layout("board25", tmp_path), ruleset="mosona", pieces="start", flash=tmp_path / "flash.img")
    play: ZuniPlay | None = None
    try:
        vb.start()
        play = ZuniPlay("--port", vb.port_path, "--from", "%d:2" % first, "--north", "human", db=db_path)
        play.expect(r"^new game #(\d+): mosona from %s" % re.escape(position))
        sides = side_points(game)
        for point in sorted(vb.occupied):
            vb.lift(point)
        placed: set[str] = set()
        for side, points in sides.items():
            wait_lit(vb, points, side, placed | set(points))  # the board asks for it (1.5 s after the first)
            for point in points:
                vb.place(point)
            placed |= set(points)
            vb.wait_stable(placed, 10)
        play.expect(r"the board is set up|south to move")
        move = game.legal_moves()[0].text()
        Hand(vb, seed=2, speed=2.0).play(game, move)
        play.expect(r"1\. south %s" % re.escape(move))
        play.send("quit")
        assert play.wait() == 0
    finally:
        if play is not None:
            play.close()
        vb.close()
    with Database(db_path) as db:
        record = db.get(db.game_ids()[-1])
        assert record.position == position
        assert record.move_texts() == [move]
        assert record.tags.get("FromGame") == str(first) and record.tags.get("FromPly") == "2", record.tags


def test_zuni_play_sim_from_a_position_the_terminals_hand_sets_it_up_side_by_side(tmp_path: Path) -> None:
    """`zuni play --sim --from TEXT`: the terminal's hand follows the staged setup (one side,
    OK, the next) and a typed move is played; the log has the game from its position."""
    from play_helpers import ZuniPlay

    position = "kolowis size=short | north to move | south s2 s6 | north m4 n5"
    canonical = position_text(parse_position(position))
    db_path = tmp_path / "games.sqlite3"
    play = ZuniPlay(
        "--sim",
        "--from",
        position,
        "--north",
        "human",
        db=db_path,
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    try:
        play.expect(r"new game #1: kolowis size=short from %s" % re.escape(canonical), 40)
        play.expect(r"the board is set up", 40)
        play.send("m4-m3")
        play.expect(r"1\. north m4-m3", 40)
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    with Database(db_path) as db:
        record = db.get(db.game_ids()[-1])
        assert (record.position, record.move_texts()) == (canonical, ["m4-m3"])
