"""`zuni play` end to end: the real board firmware under MicroPython (the virtual board,
``zuniboard.virtual.board.VirtualBoard``), a test hand lifting and placing pieces through its
control channel like a person, and `zuni play` as a subprocess driven through its stdin
and stdout, or the play session object in process.

The virtual board runs a copy of the board25 layout with shorter times (debounce,
commit, error), which every layout may set, so that the games stay quick.
"""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from play_helpers import RecordingUI, TtyPlay, ZuniPlay
from play_helpers import zuni as run_zuni
from waiting import wait_until

import zuni
from zuniboard.ai import GreedyPlayer
from zuniboard.cli import main as cli_main
from zuniboard.games.words import outcome_words
from zuniboard.link.client import BoardLink
from zuniboard.paths import HARDWARE_DIR
from zuniboard.play.session import PlaySession
from zuniboard.records.db import Database
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
    from zuniboard.virtual.board import Hand, VirtualBoard
except (MicroPythonMissing, ImportError) as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)

FAST = {"scan_ms": 5, "debounce_scans": 2, "stable_ms": 50, "commit_ms": 150, "error_ms": 400, "chain_settle_ms": 600}
RULESET = "mosona"


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    data = json.loads((HARDWARE_DIR / "layouts" / "board25.json").read_text())
    data["timing"] = FAST
    path = tmp_path / "board25-fast.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def board(layout: Path, tmp_path: Path) -> Iterator[VirtualBoard]:
    with VirtualBoard(layout, ruleset=RULESET, pieces="start", flash=tmp_path / "flash.img") as vb:
        yield vb


def occupied(game: zuni.Game) -> set[str]:
    occ = game.occupancy()
    names = game.geometry.names
    return {str(names[i]) for i in range(len(names)) if occ[i]}


class Table:
    """The test's view of the game and its hand on the virtual board."""

    def __init__(self, board: VirtualBoard, ruleset: str = RULESET, seed: int = 5) -> None:
        self.board = board
        self.hand = Hand(board, seed=seed, speed=2.0)
        self.game = zuni.new_game(ruleset)
        self.player = GreedyPlayer(seed)

    def play(self, text: str) -> None:
        """Carry out ``text`` on the board (the game follows when the board commits it)."""
        self.hand.play(self.game, text)

    def choose(self) -> str:
        return str(self.player.choose(self.game).text())

    def committed(self, text: str) -> None:
        self.game.push_text(text)

    def set_up(self) -> None:
        self.board.set_occupied(occupied(self.game))


def pump_until(session: PlaySession, what: str, predicate: Callable[[], object], timeout: float = 15.0) -> None:
    wait_until(predicate, what, timeout, step=lambda: session.pump(0.02))


def in_process(board: VirtualBoard, db: Database, **kwargs: object) -> tuple[PlaySession, RecordingUI, BoardLink]:
    link = BoardLink.open(board.port_path, timeout=10.0)
    ui = RecordingUI()
    options: dict[str, object] = {"ruleset": RULESET, "players": {"north": "ai:1"}, "seed": 1, "deterministic": True}
    options.update(kwargs)
    session = PlaySession(link, db, ui, **options)  # type: ignore[arg-type]
    session.start()
    pump_until(session, "the board set up", lambda: session.phase == "play")
    return session, ui, link


def human_move(session: PlaySession, table: Table, text: str | None = None) -> str:
    text = text or table.choose()
    n = len(session.moves)
    table.play(text)
    pump_until(session, "the board to commit %s" % text, lambda: len(session.moves) > n)
    assert session.moves[n] == text
    table.committed(text)
    return text


def computer_move(session: PlaySession, table: Table) -> str:
    pump_until(session, "the computer's move on the board", lambda: session.ai_sent, timeout=20.0)
    text = session.ai_move
    assert text is not None
    n = len(session.moves)
    table.play(text)
    pump_until(session, "the board to commit the computer's move", lambda: len(session.moves) > n)
    assert session.moves[n] == text
    table.committed(text)
    return text


def test_computer_move_shown_carried_out_and_a_wrong_execution_reported(board: VirtualBoard, tmp_path: Path) -> None:
    table = Table(board)
    with Database(tmp_path / "games.sqlite3") as db:
        session, ui, link = in_process(board, db)
        try:
            human_move(session, table)
            pump_until(session, "the computer's move on the board", lambda: session.ai_sent, timeout=20.0)
            ai = table.game.parse_move(session.ai_move)
            names = table.game.geometry.names
            origin, dest = str(names[ai.origin]), str(names[ai.dest])
            assert link.state()["hostmove"] == session.ai_move, "the board shows the computer's move"
            # Origin and destination light up (one of them may blink: wait for each).
            board.wait_until(lambda vb: vb.frame.get(origin, (0, 0, 0)) != (0, 0, 0), 3.0)
            board.wait_until(lambda vb: vb.frame.get(dest, (0, 0, 0)) != (0, 0, 0), 3.0)
            # Wrong: the piece goes to an empty point that is not the destination.
            wrong = next(p for p in sorted(set(names) - occupied(table.game)) if p != dest)
            board.lift(origin)
            board.place(wrong)
            pump_until(session, "the board to report the wrong execution", lambda: ui.find("the board shows", "wrong"))
            assert ui.find(r"not North's move %s \(lift " % re.escape(session.ai_move or ""), "wrong"), ui.texts(
                "wrong"
            )
            assert len(session.moves) == 1, "nothing committed"
            board.lift(wrong)
            board.place(origin)
            table.play(session.ai_move or "")
            pump_until(session, "the computer's move committed", lambda: len(session.moves) == 2)
            assert ui.find(r"^2\. north \S+ \(carried out on the board\)$", "move")
            assert db.get(session.db_game or 0).move_texts() == session.moves
        finally:
            session.close()
            link.close()


def test_hint_from_the_key_and_from_the_board_button(board: VirtualBoard, tmp_path: Path) -> None:
    with Database(tmp_path / "games.sqlite3") as db:
        session, ui, link = in_process(board, db)
        try:
            before = board.leds()
            session.key("hint")
            pump_until(session, "a hint", lambda: session.hint_shown)
            match = ui.find(r"^hint for south: (\S+)", "hint")
            assert match is not None
            move = zuni.new_game(RULESET).parse_move(match.group(1))  # a legal move of the start position
            board.wait_until(lambda vb: vb.frame != before, 5.0)  # the LEDs show it
            assert move is not None
            hints = len(ui.texts("hint"))
            board.press("hint")
            pump_until(session, "a hint for the button", lambda: len(ui.texts("hint")) >= hints + 2)
            assert ui.find(r"hint for south: \S+ .*shown on the board", "hint")
        finally:
            session.close()
            link.close()


def test_take_back_of_the_computer_reply_and_the_players_move(board: VirtualBoard, tmp_path: Path) -> None:
    table = Table(board)
    with Database(tmp_path / "games.sqlite3") as db:
        session, ui, link = in_process(board, db)
        try:
            human_move(session, table)
            computer_move(session, table)
            assert len(db.get(session.db_game or 0).move_texts()) == 2
            session.key("undo")
            pump_until(session, "two moves taken back", lambda: len(session.moves) == 0)
            assert db.get(session.db_game or 0).move_texts() == []
            assert session.phase == "setup"
            table.game.pop()
            table.game.pop()
            table.set_up()  # the player restores the start position
            pump_until(session, "the board set up again", lambda: session.phase == "play")
            human_move(session, table)
            assert db.get(session.db_game or 0).move_texts() == session.moves
        finally:
            session.close()
            link.close()


def test_resign_ends_the_game_on_the_board_and_in_the_log_and_back_takes_it_back(
    board: VirtualBoard, tmp_path: Path
) -> None:
    table = Table(board)
    with Database(tmp_path / "games.sqlite3") as db:
        session, ui, link = in_process(board, db)
        try:
            human_move(session, table)
            session.key("resign")
            session.key("yes")
            pump_until(session, "the resignation", session.is_over)
            record = db.get(session.db_game or 0)
            assert (record.result, record.termination) == ("north", "resign")
            assert link.state()["phase"] == "over"
            # BACK on the board takes the resignation back: the game goes on, in the log too.
            board.press("back")
            pump_until(session, "the end taken back", lambda: not session.is_over())
            assert db.get(session.db_game or 0).result == "*"
            pump_until(session, "the computer's move", lambda: session.ai_sent, timeout=20.0)
            computer_move(session, table)
            assert db.get(session.db_game or 0).move_texts() == [m.text() for m in table.game.move_stack]
        finally:
            session.close()
            link.close()


def _play_cli_moves(play: ZuniPlay, table: Table, plies: int) -> None:
    """Plays ``plies`` moves through the CLI: the test's moves for South, the computer's
    (read from the output) carried out for North."""
    for _ in range(plies):
        side = zuni.SIDE_NAMES[table.game.turn]
        if side == "south":
            text = table.choose()
            table.play(text)
        else:
            text = play.expect(r"^carry out (\S+) on the board").group(1)
            table.play(text)
        play.expect(r"^%d\. %s %s" % (len(table.game.move_stack) + 1, side, re.escape(text)))
        table.committed(text)


def test_full_game_against_the_computer_to_the_end_and_in_the_log(board: VirtualBoard, tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    ruleset = "mosona"
    table = Table(board, ruleset, seed=11)
    play = ZuniPlay(
        "--port", board.port_path, "--ruleset", ruleset, "--north", "ai:1", "--deterministic", "--seed", "3", db=db
    )
    try:
        play.expect(r"^new game #(\d+): %s" % ruleset)
        play.expect(r"the board is set up|south to move")
        while not table.game.is_game_over():
            _play_cli_moves(play, table, 1)
            assert len(table.game.move_stack) < 200
        outcome = table.game.outcome()
        play.expect(r"^%s\. Game #\d+ is logged; press OK" % re.escape(outcome_words(table.game, outcome)))
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    moves = [m.text() for m in table.game.move_stack]
    with Database(db) as d:
        record = d.get(d.game_ids()[-1])
        assert record.move_texts() == moves
        assert (record.result, record.termination) == (outcome.result, outcome.termination)
        assert record.players == {"south": "human", "north": "ai:1"}
    listing = run_zuni("log", "list", "--db", str(db))
    assert listing.returncode == 0 and re.search(
        r"human vs ai:1 +%d +%s" % (len(moves), outcome.result), listing.stdout
    )
    shown = run_zuni("log", "show", "last", "--db", str(db))
    assert shown.returncode == 0 and moves[-1] in shown.stdout


def test_ctrl_c_then_resume_goes_on_with_the_game(board: VirtualBoard, tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    table = Table(board, seed=2)
    args = ("--port", board.port_path, "--north", "ai:1", "--deterministic", "--seed", "3")
    play = ZuniPlay(*args, db=db)
    try:
        gid = int(play.expect(r"^new game #(\d+)").group(1))
        play.expect(r"south to move")
        _play_cli_moves(play, table, 2)
        play.interrupt()
        assert play.wait() == 130
        assert any("left unfinished" in line for line in play.seen), play.tail()
    finally:
        play.close()
    with Database(db) as d:
        assert d.get(gid).move_texts() == [m.text() for m in table.game.move_stack]
        assert d.get(gid).result == "*"
    play = ZuniPlay(*args, "--resume", db=db)
    try:
        play.expect(r"^resumed game #%d: mosona after 2 moves" % gid)
        _play_cli_moves(play, table, 2)
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    with Database(db) as d:
        assert d.get(gid).move_texts() == [m.text() for m in table.game.move_stack]
        assert len(d.game_ids()) == 1


def test_killing_the_host_mid_game_loses_no_committed_move(board: VirtualBoard, tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    table = Table(board, seed=4)
    args = ("--port", board.port_path, "--north", "ai:1", "--deterministic", "--seed", "3")
    play = ZuniPlay(*args, db=db)
    try:
        gid = int(play.expect(r"^new game #(\d+)").group(1))
        play.expect(r"south to move")
        _play_cli_moves(play, table, 2)
        text = table.choose()
        table.play(text)  # south's third move: committed by the board ...
        play.expect(r"^carry out (\S+) on the board")  # ... and logged, the computer answered
        table.committed(text)
        play.proc.send_signal(signal.SIGKILL)
        play.wait()
    finally:
        play.close()
    with Database(db) as d:
        assert d.get(gid).move_texts() == [m.text() for m in table.game.move_stack]
    # While the host is dead the player carries out the computer's move it showed, and
    # plays on: the board commits both on its own.
    # (A watcher link tells the test when the board has committed.)
    watcher = BoardLink.open(board.port_path, timeout=10.0)
    try:
        assert watcher.wait_synced(5.0)
        hostmove = watcher.state()["hostmove"]
        table.play(hostmove)
        table.committed(hostmove)
        assert watcher.wait_moves(4, 10.0), (hostmove, watcher.moves)
        text = table.choose()
        table.play(text)
        table.committed(text)
        assert watcher.wait_moves(5, 10.0), watcher.moves
    finally:
        watcher.close()
    play = ZuniPlay(*args, "--resume", db=db)
    try:
        play.expect(r"^logged 2 moves the board made while the host was away \(game #%d\)" % gid)
        play.expect(r"^resumed game #%d: mosona after 5 moves" % gid)
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    with Database(db) as d:
        assert d.get(gid).move_texts() == [m.text() for m in table.game.move_stack]


def test_a_wrong_position_is_reported_and_nothing_is_committed(board: VirtualBoard, tmp_path: Path) -> None:
    table = Table(board)
    with Database(tmp_path / "games.sqlite3") as db:
        session, ui, link = in_process(board, db, players={"north": "human"})
        try:
            # South to move, but a piece appears on an empty point and one leaves its own:
            # no legal move makes that position.
            names = table.game.geometry.names
            empty = sorted(set(map(str, names)) - occupied(table.game))
            board.lift("n1")
            board.place(empty[0])
            pump_until(session, "the board's error", lambda: ui.find(r"^the board: ", "board"), timeout=10.0)
            # Said as the rule that refuses it, and what to do about it.
            said = r"n1-{0}: the piece on n1 is North's; South is to move "
            said += r"\(put a piece back on n1; take the piece off {0}\)"
            assert ui.find(said.format(empty[0]) + "|may not move", "board"), ui.texts("board")
            assert session.moves == [] and db.get(session.db_game or 0).move_texts() == []
            board.lift(empty[0])
            board.place("n1")
            human_move(session, table)  # play goes on from the restored position
        finally:
            session.close()
            link.close()


def test_a_board_reset_mid_game_shows_the_computer_move_again(board: VirtualBoard, tmp_path: Path) -> None:
    table = Table(board)
    with Database(tmp_path / "games.sqlite3") as db:
        session, ui, link = in_process(board, db)
        try:
            human_move(session, table)
            pump_until(session, "the computer's move on the board", lambda: session.ai_sent, timeout=20.0)
            wanted = session.ai_move
            board.restart()  # a power cut: the journal resumes the game, the host move is gone
            pump_until(session, "the reset noticed", lambda: ui.find("the board restarted", "link"))
            pump_until(session, "the computer's move shown again", lambda: session.ai_sent, timeout=20.0)
            assert session.ai_move == wanted
            assert link.state()["hostmove"] == wanted
            computer_move(session, table)
            assert db.get(session.db_game or 0).move_texts() == [m.text() for m in table.game.move_stack]
        finally:
            session.close()
            link.close()


def test_on_a_terminal_the_line_editor_completes_moves_and_confirms_before_resigning(
    board: VirtualBoard, tmp_path: Path
) -> None:
    play = TtyPlay("--port", board.port_path, "--north", "ai:1", db=tmp_path / "games.sqlite3")
    try:
        play.expect(r"make your moves on the board; type a command: hint")  # --port: no hand here
        play.type("d")  # a letter alone is no command: a draw is never offered by accident
        play.expect(r"d: not a move; for a command write a word or / and its first letters \(/d: draw\)")
        play.type("/h")
        play.expect(r"hint for south: \S+")
        play.type("resign")
        play.expect(r"resign the game for south\? \(yes/no\)")
        play.type("no")
        play.expect(r"resign: not done")
        play.keys("s3\t")  # Tab: the only legal move starting so
        play.expect(r"s3xm4-m5")
        play.keys("\r")
        play.expect(r"s3xm4-m5: make it on the board \(the terminal does not move pieces on a real board\)")
        play.type("/q")
        assert play.wait() == 0
    finally:
        play.close()
    assert "left unfinished" not in play.all, "a game with no move is nothing to go on with"


def test_no_board_plugged_in_falls_back_to_the_virtual_board(tmp_path: Path) -> None:
    play = ZuniPlay("--north", "ai:1", db=tmp_path / "games.sqlite3", env={"ZUNI_SIM_DIR": str(tmp_path / "sim")})
    try:
        play.expect(r"^no board plugged in .*playing on the virtual board")
        play.expect(
            r"^virtual board: layout board25, serial port /dev/\S+, flash %s" % re.escape(str(tmp_path / "sim"))
        )
        play.expect(r"^browser page")
        play.expect(r"^new game #1: mosona")
        # A person types once the board is set up (typed sooner, the move is refused as
        # "not ready (setup)"): "south to move" comes when it is, before or after the keys.
        first = play.expect(r"^type a move |^south to move ").group(0)
        play.expect(r"^south to move " if first == "type a move " else r"^type a move ")
        play.send("s3xm4-m5")  # typed: the terminal's hand makes it on the virtual board
        play.expect(r"^1\. south s3xm4-m5$")
        play.expect(r"^2\. north \S+ \(carried out on the board\)$")  # the hand carries out the computer's move
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    assert (tmp_path / "sim" / "virtual-board25.img").exists(), "the flash image is kept for --resume"


def test_back_button_takes_back_and_the_computer_plays_again_once_set_up(board: VirtualBoard, tmp_path: Path) -> None:
    table = Table(board)
    with Database(tmp_path / "games.sqlite3") as db:
        session, ui, link = in_process(board, db)
        try:
            human_move(session, table)
            computer_move(session, table)
            board.press("back")  # the board's own take-back of the last move (the computer's)
            pump_until(session, "the take-back", lambda: len(session.moves) == 1)
            assert db.get(session.db_game or 0).move_texts() == session.moves
            table.game.pop()
            # The computer's move is asked for again; the board takes it only once the
            # player has restored the position.
            pump_until(session, "the computer's answer", lambda: session.ai_move is not None, timeout=20.0)
            assert not session.ai_sent and session.phase == "setup"
            table.set_up()
            computer_move(session, table)
            assert db.get(session.db_game or 0).move_texts() == [m.text() for m in table.game.move_stack]
        finally:
            session.close()
            link.close()


def test_bad_input_is_refused_before_any_board_is_touched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "games.sqlite3")
    for args, message in (
        (["--west", "ai:1"], "--west ai:1: mosona has no west seat (seats: south, north)"),
        (["--ruleset", "mosona size=9"], "--ruleset 'mosona size=9': unknown option 'size'"),
        (["--north", "ai:9"], "--north: player 'ai:9': the computer's level must be one of 1, 2, 3, 4, 5"),
        (["--south", "robot"], "--south: player 'robot': say human, ai or ai:LEVEL"),
        (["--resume", "--ruleset", "kolowis"], "--resume goes on with the logged game's ruleset"),
    ):
        assert cli_main(["play", "--db", db, *args]) == 2, args
        out = capsys.readouterr()
        assert message in out.err, (args, out.err)
        assert "virtual board" not in out.out


def test_the_board_says_when_it_is_set_up(layout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No polling while the pieces are set up: the board's own state (sent when setup
    turns into play) tells the session, and the board's id names it in the log."""
    from zuniboard.play import session as session_module

    monkeypatch.setattr(session_module, "SETUP_POLL_S", 1000.0)  # the fallback poll never comes
    with (
        VirtualBoard(layout, ruleset=RULESET, pieces="empty", flash=tmp_path / "flash.img") as vb,
        Database(tmp_path / "games.sqlite3") as db,
    ):
        link = BoardLink.open(vb.port_path, timeout=10.0)
        try:
            ui = RecordingUI()
            session = PlaySession(link, db, ui, ruleset=RULESET, players={}, seed=1, deterministic=True)
            session.start()
            pump_until(session, "the board in setup", lambda: session.phase == "setup")
            requests = link.stats.frames_out
            Table(vb).set_up()
            pump_until(session, "the board set up", lambda: session.phase == "play")
            assert ui.find("the board is set up: play on", "board")
            # Acks (keep-alive) may go out meanwhile, but no state request every 0.5 s.
            assert link.stats.frames_out - requests <= 3, link.stats
            assert session.board_id == link.board_id and session.board_id.startswith("virtual-")
            record = db.get(session.db_game or 0)
            assert record.board == link.board_id, "the log names the physical board"
        finally:
            session.close()
            link.close()
