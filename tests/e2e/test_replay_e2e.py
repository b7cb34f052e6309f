"""`zuni log replay` end to end: the board firmware under MicroPython (the virtual board),
the replay controller and its driver on the real link, a scripted hand lifting and
placing pieces through the board's control channel, the buttons pressed on the board;
then the player leaves the replay and plays on, and the log has the new game."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from play_helpers import RecordingUI, TtyPlay, ZuniPlay, ZuniReplay
from waiting import wait_until

import zuni
from zuniboard.commands.replay import play_on, seats_words
from zuniboard.link.client import BoardLink
from zuniboard.paths import HARDWARE_DIR
from zuniboard.play.connect import SimHand
from zuniboard.records.db import Database
from zuniboard.records.record import GameRecord, MoveEntry, replay
from zuniboard.replay.control import PlayOn, ReplayController
from zuniboard.replay.cursor import FROM_GAME_TAG, FROM_PLY_TAG, ReplayCursor
from zuniboard.replay.driver import ReplayDriver
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
    from zuniboard.virtual.board import Hand, VirtualBoard
except (MicroPythonMissing, ImportError) as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)

FAST = {"scan_ms": 5, "debounce_scans": 2, "stable_ms": 50, "commit_ms": 150, "error_ms": 400, "chain_settle_ms": 600}
RULESET = "mosona"


@pytest.fixture
def board(tmp_path: Path) -> Iterator[VirtualBoard]:
    data = json.loads((HARDWARE_DIR / "layouts" / "board25.json").read_text())
    data["timing"] = FAST
    layout = tmp_path / "board25-fast.json"
    layout.write_text(json.dumps(data))
    with VirtualBoard(layout, ruleset=RULESET, pieces="start", flash=tmp_path / "flash.img") as vb:
        yield vb


def occupied(game: zuni.Game) -> set[str]:
    occ = game.occupancy()
    names = game.geometry.names
    return {str(names[i]) for i in range(len(names)) if occ[i]}


def logged_game(db: Database, plies: int) -> int:
    record = GameRecord(RULESET, players={"south": "human", "north": "ai:2"})
    game = replay(record, complete=False)
    for _ in range(plies):
        move = game.legal_moves()[-1]
        record.moves.append(MoveEntry(str(move)))
        game.push(move)
    gid, _ = db.import_record(record)
    return gid


def pump(driver: ReplayDriver, what: str, done: Callable[[], bool], timeout: float = 15.0) -> None:
    wait_until(done, what, timeout, step=lambda: driver.pump(0.02))


def test_replay_through_ok_back_and_hint_then_play_on(board: VirtualBoard, tmp_path: Path) -> None:
    with Database(tmp_path / "games.sqlite3") as db:
        gid = logged_game(db, 4)
        texts = db.get(gid).move_texts()
        link = BoardLink.open(board.port_path, timeout=10.0)
        ui = RecordingUI()
        try:
            cursor = ReplayCursor(db.get(gid))
            controller = ReplayController(cursor)
            driver = ReplayDriver(link, controller, ui.message, analyze_time=0.2)
            driver.start()
            pump(driver, "the board in play", lambda: controller.phase == "play")
            hand = Hand(board, seed=3, speed=2.0)
            shown = zuni.new_game(RULESET)  # the test's own copy of the replayed game

            def step_forward(press: Callable[[], None]) -> None:
                ply = cursor.ply
                press()
                pump(driver, "move %d shown" % (ply + 1), lambda: bool(controller.showing))
                assert link.state()["hostmove"] == texts[ply], "the board shows the game's next move"
                hand.play(shown, texts[ply])  # the player carries it out on the pieces
                pump(driver, "move %d carried out" % (ply + 1), lambda: cursor.ply == ply + 1)
                shown.push_text(texts[ply])
                assert link.moves == texts[: ply + 1]
                board.wait_stable(occupied(shown))

            step_forward(lambda: board.press("ok"))
            step_forward(lambda: board.press("ok"))
            assert ui.find(r"^2\. North plays %s: lift " % texts[1], "move")
            # BACK on the board: the board takes the move back, the player restores.
            board.press("back")
            pump(driver, "the step back", lambda: cursor.ply == 1)
            shown.pop()
            assert link.moves == texts[:1] and link.state()["phase"] == "setup"
            board.set_occupied(occupied(shown))
            pump(driver, "the board set up again", lambda: controller.phase == "play")
            # b in the terminal: the link's take-back.
            driver.key("b")
            pump(driver, "the second step back", lambda: cursor.ply == 0)
            shown.pop()
            board.set_occupied(occupied(shown))
            pump(driver, "the board set up again", lambda: controller.phase == "play")
            step_forward(lambda: driver.key("n"))
            step_forward(lambda: driver.key("next"))
            # HINT: the computer's view of move 3, in words and on the board's lights.
            board.press("hint")
            pump(driver, "the analysis", lambda: ui.find(r"^move 3, South ", "hint") is not None)
            words = ui.find(r"^move 3, South (\S+) .*the computer prefers (\S+)", "hint")
            assert words is not None and words.group(1) == texts[2]
            best = shown.parse_move(words.group(2))
            origin = str(shown.geometry.names[best.origin])
            board.wait_until(lambda vb: (lambda c: c[2] > c[0] and c[2] > c[1])(vb.frame.get(origin, (0, 0, 0))), 5.0)
            assert controller.view().analysis.startswith("move 3, South")
            # Leave the replay and play on against the computer.
            driver.key("play north=ai:1")
            pump(driver, "the end of the replay", lambda: driver.end is not None)
            assert isinstance(driver.end, PlayOn)
            players = seats_words(driver.end.line, RULESET)
            session = play_on(link, db, ui, cursor, players, seed=1, deterministic=True)
            try:
                new_id = session.db_game
                assert new_id is not None and new_id != gid
                mine = shown.legal_moves()[0].text()
                hand.play(shown, mine)

                def pump_and_carry_out() -> None:
                    # The computer's reply, carried out by the hand once the board asks for it.
                    nonlocal mine
                    session.pump(0.02)
                    if mine and len(db.get(new_id).moves) == 1 and session.ai_sent and session.ai_move:
                        shown.push_text(mine)
                        hand.play(shown, session.ai_move)
                        shown.push_text(session.ai_move)
                        mine = ""

                # My move, then the computer's.
                wait_until(lambda: len(db.get(new_id).moves) >= 2, "the game played on", 20, step=pump_and_carry_out)
                record = db.get(new_id)
                assert record.tags[FROM_GAME_TAG] == str(gid) and record.tags[FROM_PLY_TAG] == "2"
                assert record.position == cursor.position()
                assert record.players["north"] == "ai:1"
                assert link.moves[:2] == texts[:2] and record.move_texts() == link.moves[2:4]
                assert replay(record, complete=False).key() == shown.key()
                # BACK on the board to before the position the game played on starts
                # from: the log's game keeps no moves, the game from there is another.
                for left in (3, 2, 1):
                    board.press("back")
                    wait_until(
                        lambda left=left: len(session.moves) == left,
                        "the take-back to %d moves" % left,
                        10,
                        step=lambda: session.pump(0.02),
                    )
                assert db.get(new_id).moves == [] and session.db_game not in (None, new_id)
                again = db.get(session.db_game or 0)
                assert again.tags == {FROM_GAME_TAG: str(gid), FROM_PLY_TAG: "1", "BoardPly": "1"}
                assert again.position == ReplayCursor(db.get(gid), 1).position() and again.moves == []
            finally:
                session.close()
        finally:
            link.close()


def test_a_game_from_a_set_up_position_replays_from_it_and_plays_on(board: VirtualBoard, tmp_path: Path) -> None:
    """The board sets the record's position up one side at a time (the terminal's hand
    places each side when asked); OK and BACK step; playing on logs a game from there."""
    position = "mosona | north to move | south s3 s4 m6 | north n5 n6 m4"
    with Database(tmp_path / "games.sqlite3") as db:
        record = GameRecord(RULESET, position=position)
        game = replay(record, complete=False)
        for _ in range(2):
            move = game.legal_moves()[0]
            record.moves.append(MoveEntry(str(move)))
            game.push(move)
        gid, _ = db.import_record(record)
        texts = db.get(gid).move_texts()
        link = BoardLink.open(board.port_path, timeout=10.0)
        ui = RecordingUI()
        try:
            cursor = ReplayCursor(db.get(gid))
            controller = ReplayController(cursor, hand=True, show_s=0.1)
            driver = ReplayDriver(link, controller, ui.message, hand=SimHand(board), analyze_time=0.1)
            driver.start()
            assert link.position.startswith("mosona | north to move")
            pump(driver, "the position set up side by side", lambda: controller.phase == "play", timeout=20.0)
            assert board.sensors() == occupied(cursor.game)
            board.press("ok")  # shown, then carried out by the hand
            pump(driver, "move 1 carried out", lambda: cursor.ply == 1)
            assert link.moves == texts[:1]
            board.press("back")
            pump(driver, "the step back", lambda: cursor.ply == 0)
            pump(driver, "the hand restores the position", lambda: controller.phase == "play", timeout=20.0)
            assert board.sensors() == occupied(cursor.game) and link.moves == []
            board.press("ok")
            pump(driver, "move 1 again", lambda: cursor.ply == 1)
            driver.key("play south=human north=human")
            pump(driver, "the end of the replay", lambda: driver.end is not None)
            assert isinstance(driver.end, PlayOn)
            session = play_on(link, db, ui, cursor, seats_words(driver.end.line, RULESET), hand=SimHand(board))
            try:
                new_id = session.db_game
                assert new_id is not None
                mine = session.game.legal_moves()[0]
                session.key(mine.text())  # typed: the hand makes it
                wait_until(
                    lambda: db.get(new_id).moves, "the move played on to be logged", 15, step=lambda: session.pump(0.02)
                )
                new = db.get(new_id)
                assert new.tags == {FROM_GAME_TAG: str(gid), FROM_PLY_TAG: "1", "BoardPly": "1"}
                assert new.board_game_id == link.game, "the board's game: --resume finds it"
                assert new.position == cursor.position() and new.move_texts() == [mine.text()]
                assert link.moves == [texts[0], mine.text()]
            finally:
                session.close()
        finally:
            link.close()


def test_the_command_replays_on_the_virtual_board_and_plays_on(tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    with Database(db_path) as db:
        gid = logged_game(db, 3)
        texts = db.get(gid).move_texts()
    run = ZuniReplay(
        "last",
        "--sim",
        "--from-move",
        "1",
        "--show",
        "0.2",
        "--time",
        "0.1",
        db=db_path,
        env={"ZUNI_SIM_DIR": str(tmp_path)},
    )
    try:
        page = run.expect(r"^browser page of the virtual board: (http://\S+/)").group(1)
        run.expect(r"^replay of game #%d \(mosona\): move 0 of 3" % gid)
        run.expect(r"^moves: 1\. \[%s\]" % re.escape(texts[0]))
        # --from-move 1: the first move is shown and carried out without OK.
        run.expect(r"^the board shows move 1, %s: the terminal's hand carries it out" % re.escape(texts[0]))
        run.expect(r"^1\. South plays %s: lift " % re.escape(texts[0]))
        run.send("n")
        run.expect(r"^2\. North plays %s" % re.escape(texts[1]))
        run.send("b")
        run.expect(r"^back at move 1: restore")
        run.send("h")
        run.expect(r"^the computer looks at move 2$")
        run.expect(r"^move 2, North %s \(" % re.escape(texts[1]))

        # The page shows the replay: its moves, the current one, the analysis.
        # (published just after the terminal said it)
        def replay_view() -> dict[str, Any]:
            with urllib.request.urlopen(page + "api/state", timeout=10) as reply:
                return json.load(reply)["replay"]  # type: ignore[no-any-return]

        wait_until(lambda: replay_view()["analysis"], "the page to show the analysis", 10, step=0.05)
        view = replay_view()
        assert (view["moves"], view["ply"], view["game_id"]) == (texts, 1, gid)
        assert view["analysis"].startswith("move 2, North %s (" % texts[1])
        run.send("play north=ai:1")
        run.expect(r"^game #%d: mosona from move 1 of game #%d, south human, north ai:1" % (gid + 1, gid))
        run.expect(r"^2\. north \S+ \(carried out on the board\)$")
        run.send("quit")
        assert run.wait() == 0
    finally:
        run.close()
    with Database(db_path) as db:
        record = db.get(gid + 1)
        assert record.tags == {"FromGame": str(gid), "FromPly": "1", "BoardPly": "1"} and len(record.moves) == 1
        assert record.board_game_id, "the board's game id: --resume finds it on the board"
    # `zuni play --resume` goes on with the game played on, on the same (virtual) board:
    # board move i is its move i - 1.
    again = ZuniPlay("--sim", "--resume", "--north", "ai:1", db=db_path, env={"ZUNI_SIM_DIR": str(tmp_path)})
    try:
        again.expect(r"^resumed game #%d: mosona after 2 moves" % (gid + 1))
        again.send("quit")
        assert again.wait() == 0
    finally:
        again.close()
    with Database(db_path) as db:
        assert db.game_ids()[-1] == gid + 1, "no other game logged"
        assert db.get(gid + 1).move_texts() == record.move_texts()


def test_the_page_colours_a_replayed_positioned_game_by_its_position(tmp_path: Path) -> None:
    """`zuni log replay --sim` of a game set up from a position over the start one: m4 is
    North's at the start, South's here; the page draws each disk in the colour of the
    side whose piece it is, at the start, after moves and after going back."""
    position = "kolowis size=short | south to move | south m4 s6 | north n3"
    db_path = tmp_path / "games.sqlite3"
    with Database(db_path) as db:
        record = GameRecord("kolowis size=short", position=position)
        game = replay(record, complete=False)
        for _ in range(2):
            move = game.legal_moves()[0]
            record.moves.append(MoveEntry(str(move)))
            game.push(move)
        gid, _ = db.import_record(record)
        texts = db.get(gid).move_texts()

    def disks_after(plies: int) -> dict[str, str]:
        shown = replay(GameRecord("kolowis size=short", position=position), complete=False)
        for text in texts[:plies]:
            shown.push_text(text)
        names = shown.geometry.names
        return {str(names[p]): str(zuni.SIDE_NAMES[zuni.piece_side(c)]) for p, c in enumerate(shown.board) if c}

    run = ZuniReplay("last", "--sim", "--show", "0.2", "--time", "0.1", db=db_path, env={"ZUNI_SIM_DIR": str(tmp_path)})
    try:
        page = run.expect(r"^browser page of the virtual board: (http://\S+/)").group(1)

        def page_shows(plies: int, what: str) -> None:
            want = disks_after(plies)
            drawn: dict[str, str] = {}

            def drawn_so() -> bool:
                nonlocal drawn
                with urllib.request.urlopen(page + "api/state", timeout=10) as reply:
                    state = json.load(reply)
                drawn = {name: piece["side"] for name, piece in state["pieces"].items()}
                return drawn == want and state["board"].get("moves") == plies and state["board"].get("phase") == "play"

            wait_until(drawn_so, lambda: "%s: the page draws %s, the game has %s" % (what, drawn, want), 20, step=0.05)

        page_shows(0, "the position set up")
        run.send("n")
        run.expect(r"^1\. South plays %s" % re.escape(texts[0]))
        page_shows(1, "after move 1")
        run.send("n")
        run.expect(r"^2\. North plays %s" % re.escape(texts[1]))
        page_shows(2, "after move 2")
        run.send("b")
        run.expect(r"^back at move 1: restore")
        page_shows(1, "back at move 1")
        run.send("q")
        assert run.wait() == 0
    finally:
        run.close()


def test_after_play_on_the_prompt_is_whose_turn_it_is(tmp_path: Path) -> None:
    """Issue 26 point 10: after replay's `play` the terminal's prompt was still `replay>`;
    it is the game's now, as in zuni play: the side to move."""
    db_path = tmp_path / "games.sqlite3"
    with Database(db_path) as db:
        logged_game(db, 3)
    env = {"ZUNI_SIM_DIR": str(tmp_path)}
    args = ("last", "--sim", "--from-move", "1", "--show", "0.2", "--time", "0.1")
    run = TtyPlay(*args, db=db_path, env=env, command=("log", "replay"))
    try:
        run.expect(r"^replay>")
        # --from-move 1: play on once the first move is carried out (North to move then).
        run.expect(r"1\. South plays s3xm4-m5: lift ")
        run.expect(r"north to move")
        run.type("play north=ai:1")
        run.expect(r"2\. north \S+ \(carried out on the board\)")
        since = len(run.all)
        run.expect(r"south to move \(")
        run.expect(r"south>")
        assert "replay>" not in run.all[since:], run.all[since:]
        run.type("quit")
        assert run.wait() == 0
    finally:
        run.close()
