"""`zuni play` plays every game family to the end against the computer on the virtual
board, and `zuni log` finds each game with its result.

The real firmware runs under MicroPython (``zuniboard.virtual.board.VirtualBoard``) on a copy of
the ruleset's own layout with shorter times (every layout may set them); `zuni play`
runs as a subprocess on its serial port, driven through its stdin and stdout. The
person's side is a test hand lifting and placing pieces through the control channel
(``zuniboard.virtual.board.Hand``): a greedy player that, where the rules let a chain go on, now
and then stops it early and ends the turn with OK or by waiting the settle time. The
computer's moves, read from `zuni play`'s output, are carried out by the same hand, as
a person at the board does.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import pytest
from play_helpers import ZuniPlay
from play_helpers import zuni as run_zuni

import zuni
from zuniboard.ai import GreedyPlayer
from zuniboard.games import layouts
from zuniboard.games.words import outcome_words
from zuniboard.play.seats import sides_in_play
from zuniboard.records.db import Database
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
    from zuniboard.virtual.board import Hand, VirtualBoard
except (MicroPythonMissing, ImportError) as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)

FAST = {"scan_ms": 5, "debounce_scans": 2, "stable_ms": 50, "commit_ms": 60, "error_ms": 400, "chain_settle_ms": 1200}
MAX_PLIES = 400


def fast_layout(ruleset: str, tmp_path: Path) -> Path:
    """A copy of the ruleset's default layout with the FAST times."""
    source = Path(layouts.layout_for_ruleset(ruleset).path)
    data = json.loads(source.read_text())
    data["timing"] = FAST
    path = tmp_path / ("%s-fast.json" % source.stem)
    path.write_text(json.dumps(data))
    return path


def extendable(game: zuni.Game, move: zuni.Move) -> bool:
    """``move`` is a chain the player may stop here or go on with."""
    if move.kind != zuni.JUMP:
        return False
    path = list(move.path)
    return any(
        m.kind == zuni.JUMP and len(m.path) > len(path) and list(m.path)[: len(path)] == path
        for m in game.legal_moves()
    )


class Person:
    """The human seat: chooses a move (greedy, or a chain stopped early now and then)
    and makes it with a hand on the virtual board."""

    def __init__(self, board: VirtualBoard, seed: int) -> None:
        self.board = board
        self.hand = Hand(board, seed=seed, speed=4.0)
        self.greedy = GreedyPlayer(seed)
        self.rng = random.Random(seed)
        self.stopped_with_ok = 0
        self.stopped_by_waiting = 0

    def choose(self, game: zuni.Game) -> zuni.Move:
        moves = [m for m in game.legal_moves() if extendable(game, m)]
        if moves and self.rng.random() < 0.7:
            return self.rng.choice(moves)
        return self.greedy.choose(game)

    def move(self, game: zuni.Game) -> str:
        move = self.choose(game)
        text = str(move.text())
        self.hand.play(game, text)
        if extendable(game, move):
            # The board cannot know the chain ends here: OK says so, or the settle time.
            if (self.stopped_with_ok + self.stopped_by_waiting) % 2 == 0:
                self.board.wait_until(lambda vb: vb.stable is not None and vb.stable == vb.occupied, 5.0)
                self.board.press("ok")
                self.stopped_with_ok += 1
            else:
                self.stopped_by_waiting += 1
        return text


def only_pass(game: zuni.Game) -> bool:
    moves = game.legal_moves()
    return len(moves) == 1 and moves[0].kind == zuni.PASS


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


def play_to_the_end(
    ruleset: str, humans: tuple[str, ...], tmp_path: Path, db: Path, seed: int
) -> tuple[zuni.Game, Person, float]:
    """Plays ``ruleset`` with ``humans`` at the board and the computer (ai:1) on every
    other seat, from the start to game over; returns the test's copy of the game."""
    started = time.monotonic()
    game = zuni.new_game(ruleset)
    sides = sides_in_play(zuni.parse_ruleset(ruleset))
    seats: list[str] = []
    for side in sides:
        seats += ["--" + side, "human" if side in humans else "ai:1"]
    layout = fast_layout(ruleset, tmp_path)
    with VirtualBoard(layout, ruleset=ruleset, pieces="start", flash=tmp_path / "flash.img") as board:
        person = Person(board, seed)
        play = ZuniPlay(
            "--port", board.port_path, "--ruleset", ruleset, *seats, "--deterministic", "--seed", "3", db=db
        )
        try:
            play.expect(r"^new game #(\d+): %s" % re.escape(ruleset))
            while not game.is_game_over():
                side = str(zuni.SIDE_NAMES[game.turn])
                n = len(game.move_stack) + 1
                if only_pass(game):
                    text = "pass"  # a forced pass: the board commits it by itself
                    match = play.expect(r"^%d\. %s (\S+)" % (n, side))
                    text = match.group(1)
                    assert game.parse_move(text).kind == zuni.PASS, text
                elif side in humans:
                    text = person.move(game)
                    play.expect(r"^%d\. %s %s( |$)" % (n, side, re.escape(text)))
                else:
                    text = play.expect(r"^carry out (\S+) on the board").group(1)
                    person.hand.play(game, text)
                    play.expect(r"^%d\. %s %s \(carried out on the board\)$" % (n, side, re.escape(text)))
                game.push_text(text)
                assert len(game.move_stack) < MAX_PLIES, "the game does not end"
            outcome = game.outcome()
            play.expect(r"^%s\. Game #\d+ is logged" % re.escape(outcome_words(game, outcome)))
            play.send("quit")
            assert play.wait() == 0
        finally:
            play.close()
    return game, person, time.monotonic() - started


def check_logged(game: zuni.Game, db: Path, players: dict[str, str]) -> None:
    outcome = game.outcome()
    moves = [m.text() for m in game.move_stack]
    with Database(db) as d:
        gid = d.game_ids()[-1]
        record = d.get(gid)
        assert record.move_texts() == moves
        assert (record.result, record.termination) == (outcome.result, outcome.termination)
        assert record.players == players
    shown = run_zuni("log", "show", str(gid), "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    assert re.search(r"\b%s\b" % re.escape(outcome.result), shown.stdout), shown.stdout
    assert outcome.termination in shown.stdout, shown.stdout
    assert moves[-1] in shown.stdout
    listing = run_zuni("log", "list", "--db", str(db))
    assert listing.returncode == 0 and re.search(
        r"\b%d +%s\b" % (len(moves), re.escape(outcome.result)), listing.stdout
    )


@pytest.mark.slow
def test_kolowis_to_the_end_with_optional_chains(tmp_path: Path, db: Path) -> None:
    game, person, took = play_to_the_end("kolowis", ("south",), tmp_path, db, seed=12)
    check_logged(game, db, {"south": "human", "north": "ai:1"})
    # The person stopped chains early and ended the turn both ways.
    assert person.stopped_with_ok > 0 and person.stopped_by_waiting > 0, (
        person.stopped_with_ok,
        person.stopped_by_waiting,
    )
    print(
        "kolowis: %d plies, chains stopped with OK %d, by waiting %d, in %.1f s"
        % (len(game.move_stack), person.stopped_with_ok, person.stopped_by_waiting, took)
    )


@pytest.mark.slow
def test_kolowis_short_to_the_end(tmp_path: Path, db: Path) -> None:
    game, person, took = play_to_the_end("kolowis size=short", ("south",), tmp_path, db, seed=3)
    check_logged(game, db, {"south": "human", "north": "ai:1"})
    print("kolowis size=short: %d plies in %.1f s" % (len(game.move_stack), took))


@pytest.mark.slow
def test_awithlaknakwe_to_the_end(tmp_path: Path, db: Path) -> None:
    # A seed whose game has drops, passes and captures (with seed 5 the computer, now
    # seeking contact, played a game without a lost warrior, hence without a drop).
    game, person, took = play_to_the_end("awithlaknakwe quiet=10", ("south",), tmp_path, db, seed=6)
    check_logged(game, db, {"south": "human", "north": "ai:1"})
    kinds = [m.kind for m in game.move_stack]
    assert zuni.DROP in kinds, "the priests came in"
    assert zuni.PASS in kinds, "forced passes, committed by the board"
    assert any(m.captures for m in game.move_stack), "custody captures removed by hand"
    print("awithlaknakwe: %d plies (%d passes) in %.1f s" % (len(kinds), kinds.count(zuni.PASS), took))


@pytest.mark.slow
def test_awithlaknakwe_four_players_to_the_end(tmp_path: Path, db: Path) -> None:
    game, person, took = play_to_the_end("awithlaknakwe players=4 quiet=1", ("south",), tmp_path, db, seed=9)
    check_logged(game, db, {"south": "human", "west": "ai:1", "north": "ai:1", "east": "ai:1"})
    assert zuni.DROP in [m.kind for m in game.move_stack]
    print("awithlaknakwe players=4: %d plies in %.1f s" % (len(game.move_stack), took))
