"""Remote games end to end, as people play them: `zuni play --remote` at each of two (or
four) virtual boards, the real firmware under MicroPython, the referee, and a real
broker (Mosquitto that the test starts, or the embedded one). The person at a board
makes their moves with a hand on it; the move appears on the other boards as the
computer's move does ("carry out ... on the board") and that board's person carries it
out. Each side's log keeps the whole game with the opponent's name."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from play_helpers import ZuniPlay
from remote_net import Mosquitto, RefereeThread, free_port
from test_play import occupied
from test_play_games import Person, fast_layout, only_pass

import zuni
from zuniboard.ai import GreedyPlayer
from zuniboard.games.words import outcome_words
from zuniboard.play.seats import sides_in_play
from zuniboard.records.db import Database
from zuniboard.remote.broker import EmbeddedBroker
from zuniboard.virtual.board import VirtualBoard

NAMES = {"south": "Ann", "north": "Bea", "west": "Cy", "east": "Dee"}
MAX_PLIES = 600


class Seat:
    """One board, its person and its `zuni play --remote`."""

    def __init__(self, side: str, ruleset: str, tmp_path: Path, seed: int) -> None:
        self.side = side
        self.home = tmp_path / side
        self.home.mkdir()
        layout = fast_layout(ruleset, self.home)
        self.board = VirtualBoard(layout, ruleset=ruleset, pieces="start", flash=self.home / "flash.img")
        self.board.start()
        self.person = Person(self.board, seed)
        self.person.greedy = GreedyPlayer(seed)
        self.db = self.home / "games.sqlite3"
        self.play: ZuniPlay | None = None
        self.code = ""  # the game's invite code

    def start(self, code: str, url: str, ruleset: str) -> ZuniPlay:
        args = ["--port", self.board.port_path, "--broker", url, "--name", NAMES[self.side], "--seat", self.side]
        if code == "new":
            args += ["--remote", "new", "--ruleset", ruleset]
        else:
            args += ["--remote", code]
        self.play = ZuniPlay(*args, db=self.db, env={"ZUNI_REMOTE_DIR": str(self.home / "remote")}, timeout=60)
        return self.play

    def close(self) -> None:
        if self.play is not None:
            self.play.close()
        self.board.close()


def seat_everybody(ruleset: str, url: str, tmp_path: Path, seed: int) -> dict[str, Seat]:
    """Every seat's board and `zuni play --remote`, the game started on every board."""
    sides = sides_in_play(zuni.parse_ruleset(ruleset))
    seats = {side: Seat(side, ruleset, tmp_path, seed + i) for i, side in enumerate(sides)}
    try:
        first = seats["south"].start("new", url, ruleset)
        code = first.expect(r"invite code: (\S+)").group(1)
        for seat in seats.values():
            seat.code = code
        for side in sides[1:]:
            seats[side].start(code, url, ruleset)
        for seat in seats.values():
            assert seat.play is not None
            seat.play.expect(r"^new game #\d+: %s" % re.escape(ruleset))
    except BaseException:
        for seat in seats.values():
            seat.close()
        raise
    return seats


def play_ply(seats: dict[str, Seat], game: zuni.Game) -> str:
    """The side to move makes a move on its board; every other board shows it, and its
    person carries it out. Returns the move."""
    side = str(zuni.SIDE_NAMES[game.turn])
    n = len(game.move_stack) + 1
    mover = seats[side]
    assert mover.play is not None
    if only_pass(game):
        text = "pass"  # every board commits a forced pass by itself
        for seat in seats.values():
            assert seat.play is not None
            seat.play.expect(r"^%d\. %s pass" % (n, side))
    else:
        text = mover.person.move(game)
        mover.play.expect(r"^%d\. %s %s( |$)" % (n, side, re.escape(text)))
        for other in seats.values():
            if other is mover:
                continue
            assert other.play is not None
            shown = other.play.expect(r"^(?:carry out|the board shows) (\S+)").group(1)
            assert shown == text
            other.person.hand.play(game, text)
            other.play.expect(r"^%d\. %s %s \(carried out on the board\)$" % (n, side, re.escape(text)))
    game.push_text(text)
    return text


def play_remote_game(ruleset: str, url: str, tmp_path: Path, seed: int) -> tuple[zuni.Game, dict[str, Seat]]:
    seats = seat_everybody(ruleset, url, tmp_path, seed)
    try:
        game = zuni.new_game(ruleset)
        while not game.is_game_over():
            play_ply(seats, game)
            assert len(game.move_stack) < MAX_PLIES, "the game does not end"
        outcome = game.outcome()
        assert outcome is not None
        for seat in seats.values():
            assert seat.play is not None
            seat.play.expect(r"^%s\. Game #\d+ is logged" % re.escape(outcome_words(game, outcome)))
            seat.play.send("quit")
            assert seat.play.wait() == 0
        return game, seats
    finally:
        for seat in seats.values():
            seat.close()


def check_logs(game: zuni.Game, seats: dict[str, Seat]) -> None:
    outcome = game.outcome()
    moves = [m.text() for m in game.move_stack]
    for side, seat in seats.items():
        with Database(seat.db) as db:
            record = db.get(db.game_ids()[-1])
        assert record.move_texts() == moves
        assert (record.result, record.termination) == (outcome.result, outcome.termination)
        expected = {s: "human" if s == side else "remote:%s" % NAMES[s] for s in seats}
        assert record.players == expected


@pytest.fixture
def mosquitto_referee(tmp_path: Path) -> Iterator[str]:
    home = tmp_path / "broker"
    home.mkdir()
    broker = Mosquitto(home).start()
    referee = RefereeThread(broker.url, tmp_path / "referee").start()
    yield broker.url
    referee.stop()
    broker.stop()


def test_mosona_through_mosquitto(mosquitto_referee: str, tmp_path: Path) -> None:
    game, seats = play_remote_game("mosona", mosquitto_referee, tmp_path, seed=11)
    check_logs(game, seats)


@pytest.mark.slow
# A four-player game is 150-odd moves each carried out by a hand on four virtual boards
# under MicroPython: 1-2 minutes on a quiet machine, 5-7 at a load of 25-35 on 2 cores,
# over the suite's 300 s limit (which is there to catch hangs).
@pytest.mark.timeout(900)
@pytest.mark.parametrize("ruleset", ["kolowis size=short", "awithlaknakwe", "awithlaknakwe players=4"])
def test_whole_games_through_mosquitto(ruleset: str, mosquitto_referee: str, tmp_path: Path) -> None:
    game, seats = play_remote_game(ruleset, mosquitto_referee, tmp_path, seed=21)
    check_logs(game, seats)


def test_mosona_through_the_embedded_broker(tmp_path: Path) -> None:
    broker = EmbeddedBroker("127.0.0.1", free_port())
    broker.start()
    referee = RefereeThread(broker.url, tmp_path / "referee").start()
    try:
        game, seats = play_remote_game("mosona", broker.url, tmp_path, seed=12)
        check_logs(game, seats)
    finally:
        referee.stop()
        broker.stop()


def offer(seat: Seat, command: str, confirm: str) -> None:
    """A command that sends an offer, and the yes that confirms it (zuni play asks)."""
    assert seat.play is not None
    seat.play.send(command)
    seat.play.expect(confirm)
    seat.play.send("yes")


def test_offers_declined_agreed_and_a_take_back_between_virtual_boards(mosquitto_referee: str, tmp_path: Path) -> None:
    """The offers as people make them at the boards: a draw declined, a take-back agreed
    (both boards take the move back, both people restore the position, the same side
    moves again), then a draw agreed that ends the game on both boards and in both logs."""
    ruleset = "mosona"
    seats = seat_everybody(ruleset, mosquitto_referee, tmp_path, seed=31)
    south, north = seats["south"], seats["north"]
    assert south.play is not None and north.play is not None
    try:
        game = zuni.new_game(ruleset)
        for _ in range(2):
            play_ply(seats, game)

        offer(south, "draw", r"offer a draw for south\? \(yes/no\)")
        north.play.expect(r"south \(Ann\) offers a draw: agree\? \(yes/no\)")
        north.play.send("no")
        for seat in (south, north):
            assert seat.play is not None
            seat.play.expect(r"referee: north declined south's draw offer")

        taken = play_ply(seats, game)  # south's third move, then taken back
        south.play.send("undo")  # (asked at once: a take-back is undone by the others' no)
        south.play.expect(r"asked the others to agree: takeback")
        north.play.expect(r"south \(Ann\) offers to take back their last move: agree\? \(yes/no\)")
        north.play.send("yes")
        game.pop()
        for seat in (south, north):
            assert seat.play is not None
            seat.play.expect(r"referee: south's take-back agreed: 1 move taken back")
            seat.play.expect(r"the referee took back 1 move; take them back on the board")
            seat.board.set_occupied(occupied(game))  # the person restores the position
            seat.play.expect(r"the board is set up: play on")
        assert str(zuni.SIDE_NAMES[game.turn]) == "south"
        again = play_ply(seats, game)  # the same side moves again, the ply counted again
        assert len(game.move_stack) == 3, (taken, again)

        offer(north, "draw", r"offer a draw for north\? \(yes/no\)")
        south.play.expect(r"north \(Bea\) offers a draw: agree\? \(yes/no\)")
        south.play.send("yes")
        outcome = game.agree("draw")
        for seat in (south, north):
            assert seat.play is not None
            seat.play.expect(r"^%s\. Game #\d+ is logged" % re.escape(outcome_words(game, outcome)))
            seat.play.send("quit")
            assert seat.play.wait() == 0
        for side, seat in seats.items():
            with Database(seat.db) as db:
                record = db.get(db.game_ids()[-1])
            assert record.move_texts() == [m.text() for m in game.move_stack]
            assert (record.result, record.termination) == ("draw", "agreed-draw")
            assert record.players[side] == "human"
    finally:
        for seat in seats.values():
            seat.close()


def test_a_move_made_on_the_board_while_its_pc_was_down_reaches_the_opponent(
    mosquitto_referee: str, tmp_path: Path
) -> None:
    """South's PC dies (SIGKILL); South makes a move on the board anyway, which the board
    commits and keeps in its journal; when `zuni play --remote CODE` runs again it takes
    the board's game, sends the move the referee never had, and North is shown it to
    carry out. Nothing is lost or doubled: both logs keep the same whole game."""
    ruleset = "mosona"
    seats = seat_everybody(ruleset, mosquitto_referee, tmp_path, seed=41)
    south, north = seats["south"], seats["north"]
    assert south.play is not None and north.play is not None
    try:
        game = zuni.new_game(ruleset)
        for _ in range(2):
            play_ply(seats, game)
        south.play.kill()
        north.play.expect(r"south \(Ann\): connection lost; the game waits for them")

        mark = south.board.mark()
        text = south.person.move(game)  # with nobody at the other end of the board's cable
        south.board.wait_for(lambda e: e.get("event") == "state" and e.get("moves") == 3, 30, mark)
        with pytest.raises(AssertionError):
            north.play.expect(r"^(?:carry out|the board shows) ", timeout=3)  # the move is on South's board only

        south.start(south.code, mosquitto_referee, ruleset)
        assert south.play is not None
        south.play.expect(r"going on with your seat \(south\)")
        shown = north.play.expect(r"^(?:carry out|the board shows) (\S+)").group(1)
        assert shown == text
        north.person.hand.play(game, text)
        north.play.expect(r"^3\. south %s \(carried out on the board\)$" % re.escape(text))
        game.push_text(text)
        for _ in range(2):
            play_ply(seats, game)  # and the game goes on from there

        for seat in (south, north):
            assert seat.play is not None
            seat.play.send("quit")
            assert seat.play.wait() == 0
        moves = [m.text() for m in game.move_stack]
        for seat in (south, north):
            with Database(seat.db) as db:
                record = db.get(db.game_ids()[-1])
            assert record.move_texts() == moves
    finally:
        for seat in seats.values():
            seat.close()
