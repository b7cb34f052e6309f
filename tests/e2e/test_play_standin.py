"""`zuni play` against LINK's stand-in board (tools/link_testboard.py: the real
BoardSession under MicroPython with a small rules app, on a pty): the session's own
logic, fast. The end-to-end tests with the real board firmware are in test_play.py."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import serial
from play_helpers import RecordingUI, ZuniPlay, zuni
from waiting import wait_until

from zuniboard.link.client import BoardLink, SerialPort
from zuniboard.play.session import PlaySession
from zuniboard.records.db import Database
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from linkrig import Relay, TestBoard  # noqa: E402

try:
    micropython_executable()
except MicroPythonMissing as exc:  # pragma: no cover
    pytest.skip("no MicroPython unix port: %s" % exc, allow_module_level=True)


@pytest.fixture
def relay() -> Iterator[Relay]:
    with Relay(seed=3) as r:
        yield r


@pytest.fixture
def board(relay: Relay, tmp_path: Path) -> Iterator[TestBoard]:
    with TestBoard(relay.board_path, tmp_path / "journal") as b:
        yield b


def _link(relay: Relay) -> BoardLink:
    def opener(url: str) -> SerialPort:
        port: SerialPort = serial.serial_for_url(relay.host_path, baudrate=115200, timeout=0.05)
        return port

    link = BoardLink(relay.host_path, opener=opener)
    link.start()
    assert link.wait_connected(5.0)
    return link


def _pump_until(session: PlaySession, what: str, predicate: Callable[[], object], timeout: float = 15.0) -> None:
    wait_until(predicate, what, timeout, step=lambda: session.pump(0.02))


def test_session_logs_moves_plays_the_computer_and_follows_take_backs(
    board: TestBoard, relay: Relay, tmp_path: Path
) -> None:
    board.play(3)  # a game the board played on its own before the host came
    board.wait_idle()
    link = _link(relay)
    ui = RecordingUI()
    with Database(tmp_path / "games.sqlite3") as db:
        session = PlaySession(link, db, ui, ruleset="mosona", players={"north": "ai:1"}, seed=1, deterministic=True)
        try:
            session.start()
            standalone = db.list_games()[-1]
            assert standalone.moves == 3 and standalone.source == "board", "the standalone moves are logged"
            assert session.db_game is not None and session.db_game != standalone.id
            gid = session.db_game
            board.play(1)  # south's move, made on the board
            _pump_until(session, "the computer's move on the board", lambda: session.ai_sent)
            ai_move = session.ai_move
            assert ui.find(r"^carry out %s on the board" % ai_move, "ai")
            assert board.dump()[3] == ["s3xm4-m5"], "the computer's move waits for the player"
            board.play(1)  # the stand-in carries out the pending host move
            _pump_until(session, "the computer's move logged", lambda: len(session.moves) == 2)
            assert session.moves[1] == ai_move
            assert db.get(gid).move_texts() == board.dump()[3]
            assert ui.find(r"2\. north %s \(carried out on the board\)" % ai_move, "move")
            assert ui.progress, "the thinking display got depth/nodes/best"
            # Take-back with the person to move takes back the computer's reply too.
            session.key("undo")
            _pump_until(session, "two moves taken back", lambda: len(session.moves) == 0)
            assert db.get(gid).move_texts() == [] and board.dump()[3] == []
            # Resign: the board and the log agree.
            session.key("resign")
            session.key("yes")
            _pump_until(session, "resignation", session.is_over)
            record = db.get(gid)
            assert (record.result, record.termination) == ("north", "resign")
        finally:
            session.close()
            link.close()


def test_cli_plays_a_game_against_the_computer_and_logs_it(board: TestBoard, relay: Relay, tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    play = ZuniPlay("--port", relay.host_path, "--north", "ai:1", "--deterministic", "--seed", "2", db=db)
    try:
        play.expect(r"new game #(\d+): mosona")
        for _ in range(200):
            board.play(1)  # south's move, or the computer's move carried out
            # The end, in a player's words: "North wins: ... Game #1 is logged".
            match = play.expect(r"^\d+\. (south|north) \S+|Game #\d+ is logged")
            if "is logged" in match.group(0):
                break
            if match.group(1) == "south" and "is logged" in play.expect(
                r"^carry out \S+ on the board|Game #\d+ is logged"
            ).group(0):
                break
        else:
            pytest.fail("no end after 200 moves")
        board_moves = board.dump()[3]
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    listing = zuni("log", "list", "--db", str(db))
    assert listing.returncode == 0, listing.stderr
    shown = zuni("log", "show", "last", "--db", str(db))
    assert " ".join(board_moves[-2:]) in " ".join(shown.stdout.split()) or board_moves[-1] in shown.stdout
    with Database(db) as d:
        record = d.get(d.game_ids()[-1])
        assert record.move_texts() == board_moves
        assert record.result != "*"
        assert record.players == {"south": "human", "north": "ai:1"}


def test_agreements_with_the_computer_and_between_people(board: TestBoard, relay: Relay, tmp_path: Path) -> None:
    link = _link(relay)
    with Database(tmp_path / "games.sqlite3") as db:
        ui = RecordingUI()
        session = PlaySession(link, db, ui, ruleset="mosona", players={"north": "ai:1"}, deterministic=True)
        try:
            session.start()
            first = session.db_game or 0
            # At the start the game is open: the computer plays on rather than count or draw.
            session.key("count")
            session.key("yes")
            _pump_until(session, "the refusal", lambda: ui.find("north declines counting: the game is still open"))
            session.key("draw")
            session.key("y")
            _pump_until(session, "the refusal", lambda: ui.find("north declines a draw: the game is still open"))
            assert not session.is_over()
            # Resigned (asked first): the end cannot be taken back with undo.
            session.key("resign")
            _pump_until(session, "the question", lambda: ui.find(r"resign the game for south\? \(yes/no\)", "ask"))
            session.key("yes")
            _pump_until(session, "the resignation", session.is_over)
            assert ui.find("^North wins: South resigned. Game #%d is logged" % first, "over")
            session.key("undo")
            _pump_until(session, "a refusal", lambda: ui.find("ended by resign", "takeback"))
            # A new game between two people: a draw needs both.
            session.players = {"north": "human"}
            session.key("new")
            _pump_until(session, "a new game", lambda: session.db_game != first and not session.is_over())
            second = session.db_game or 0
            assert db.get(second).players == {"south": "human", "north": "human"}
            session.key("draw")
            session.key("yes")
            _pump_until(session, "the offer", lambda: ui.find("south offers a draw: north, type draw to agree"))
            assert not session.is_over()
            session.key("/d")
            session.key("yes")
            _pump_until(session, "the agreed draw", session.is_over)
            assert (db.get(second).result, db.get(second).termination) == ("draw", "agreed-draw")
            assert ui.find("^A draw: both sides agreed", "over")
        finally:
            session.close()
            link.close()


def test_a_new_game_abandons_the_boards_unfinished_one(board: TestBoard, relay: Relay, tmp_path: Path) -> None:
    link = _link(relay)
    with Database(tmp_path / "games.sqlite3") as db:
        ui = RecordingUI()
        session = PlaySession(link, db, ui, ruleset="mosona", players={"north": "human"})
        try:
            session.start()
            first = session.db_game or 0
            board.play(2)
            _pump_until(session, "two moves", lambda: len(session.moves) == 2)
        finally:
            session.close()
        again = PlaySession(link, db, ui, ruleset="mosona", players={"north": "human"})
        again.start()
        assert again.db_game != first
        assert (db.get(first).result, db.get(first).termination) == ("*", "abandoned")
        assert len(db.get(first).moves) == 2
        later = PlaySession(link, db, ui, players={"north": "human"})
        later.start(resume=True)
        assert later.db_game == again.db_game, "--resume takes the board's game, not the abandoned one"
        link.close()


def test_resume_takes_over_a_game_the_board_began_on_its_own(board: TestBoard, relay: Relay, tmp_path: Path) -> None:
    board.play(3)
    board.wait_idle()
    link = _link(relay)
    with Database(tmp_path / "games.sqlite3") as db:
        ui = RecordingUI()
        session = PlaySession(link, db, ui, players={"north": "ai:1"}, deterministic=True)
        try:
            session.start(resume=True)
            assert session.moves == board.dump()[3] and len(session.moves) == 3
            record = db.get(session.db_game or 0)
            assert record.move_texts() == session.moves
            assert record.players == {"south": "human", "north": "ai:1"}
            _pump_until(session, "the computer's move for north", lambda: session.ai_sent)
            ai_move = session.ai_move
            board.play(1)  # the stand-in carries out the host move
            _pump_until(session, "the move logged", lambda: len(db.get(session.db_game or 0).moves) == 4)
            assert db.get(session.db_game or 0).move_texts()[3] == ai_move
        finally:
            session.close()
            link.close()
