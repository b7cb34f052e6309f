"""Whole games typed at `zuni play`'s terminal, as a person plays them.

`zuni play --sim` runs as a user runs it: on a pseudo-terminal (the line editor on),
the real firmware under MicroPython as the virtual board, every seat a person. The test
types every move of a whole game of each ruleset; the terminal's hand makes each on
the virtual board, the board commits it and `zuni play` says it was played. At every
position each legal move's text is also checked against the terminal's input: the game
controller the terminal hands its lines to reads it as that move (never as a command),
and the line editor's Tab offers it. The games are chosen so that Awithlaknakwe moves
from the b, c, d and h files (once commands: b board, c count, d draw, h hint) and
line-game moves from the north row (n, once new) are typed. The game's end is read in
the terminal and in the log.

The one speed path: the virtual board runs a copy of the ruleset's own layout with
shorter times (layouts are data: `zuni play --layout`), as tests/e2e/test_play_games.py does.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import pytest
from play_helpers import TtyPlay
from prompt_toolkit.document import Document

import zuni
from zuniboard.games import layouts
from zuniboard.games.words import outcome_words
from zuniboard.play.controller import GameController, same_effect
from zuniboard.play.seats import seats_for, sides_in_play
from zuniboard.play.terminal import completer
from zuniboard.records.db import Database
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
except MicroPythonMissing as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)

# The board's times, shortened (scan, debounce, stable and commit as tests/e2e/test_play_games.py).
FAST = {"scan_ms": 5, "debounce_scans": 2, "stable_ms": 50, "commit_ms": 60, "error_ms": 400, "chain_settle_ms": 1200}
MAX_PLIES = 600
COMMAND_FILES = "bcdh"  # Awithlaknakwe's files whose letters were commands


def fast_layout(ruleset: str, tmp_path: Path) -> Path:
    source = Path(layouts.layout_for_ruleset(ruleset).path)
    data = json.loads(source.read_text())
    data["timing"] = FAST
    path = tmp_path / ("%s-fast.json" % source.stem)
    path.write_text(json.dumps(data))
    return path


def extendable(game: zuni.Game, move: zuni.Move) -> bool:
    """A chain the player may stop here or go on with (the board would wait to know)."""
    path = list(move.path)
    return move.kind == zuni.JUMP and any(
        m.kind == zuni.JUMP and len(m.path) > len(path) and list(m.path)[: len(path)] == path
        for m in game.legal_moves()
    )


class Chooser:
    """A short whole game: South's team takes what it can, the other team walks into
    captures; a move from a file or row still to be typed goes first."""

    def __init__(self, game: zuni.Game, wanted: set[str], seed: int) -> None:
        self.game = game
        self.wanted = wanted  # first letters of the move texts still to be typed
        self.rng = random.Random(seed)

    def _exposure(self, move: zuni.Move) -> int:
        game = self.game
        game.push(move)
        worst = max((len(m.captures) for m in game.legal_moves()), default=0)
        game.pop()
        return worst

    def choose(self, legal: list[zuni.Move]) -> zuni.Move:
        whole = [m for m in legal if not extendable(self.game, m)] or legal
        wanted = [m for m in whole if m.text()[0] in self.wanted]
        if wanted:
            return self.rng.choice(wanted)
        if self.game.team_of(self.game.turn) == 0:
            best = max(len(m.captures) for m in whole)
            return self.rng.choice([m for m in whole if len(m.captures) == best])
        scores = {m.text(): self._exposure(m) for m in whole}
        top = max(scores.values())
        return self.rng.choice([m for m in whole if scores[m.text()] == top])


def check_every_legal_move_is_input(control: GameController, legal: list[zuni.Move]) -> None:
    """Each legal move's text, typed now, is that move for the terminal's controller, and
    Tab offers it from its first letters."""
    tab = completer(control.completions)
    for move in legal:
        text = move.text()
        read = control.read(text)
        assert read.move == move and not read.command and not read.error, (text, read)
        typed = text[:2]
        offered = [c.text for c in tab.get_completions(Document(typed), None)]
        assert text in offered, (typed, offered)


def play_whole_game(ruleset: str, wanted: str, seed: int, tmp_path: Path) -> tuple[zuni.Game, set[str], float]:
    started = time.monotonic()
    sides = sides_in_play(zuni.parse_ruleset(ruleset))
    seats: list[str] = []
    for side in sides:
        seats += ["--" + side, "human"]
    db = tmp_path / "games.sqlite3"
    play = TtyPlay(
        "--sim",
        "--layout",
        str(fast_layout(ruleset, tmp_path)),
        "--ruleset",
        ruleset,
        *seats,
        db=db,
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    game = zuni.new_game(ruleset)
    canonical = str(game.ruleset)
    # The terminal's own controller, kept at the game's position, for the input checks.
    control = GameController(hand=True)
    control.open("test", canonical, "", seats_for(canonical, {s: "human" for s in sides}), [], number=1, now=0.0)
    chooser = Chooser(game, set(wanted), seed)
    typed: set[str] = set()
    loops: list[str] = []
    try:
        play.expect(r"new game #1: %s" % re.escape(canonical), 40)
        while not game.is_game_over():
            n = len(game.move_stack) + 1
            side = str(zuni.SIDE_NAMES[game.turn])
            legal = list(game.legal_moves())
            check_every_legal_move_is_input(control, legal)
            if len(legal) == 1 and legal[0].kind == zuni.PASS:
                # A forced pass: the board commits it by itself.
                move = legal[0]
            else:
                if n == 1:
                    play.expect(r"%s to move \(type it" % side, 40)
                move = chooser.choose(legal)
                text = move.text()
                play.type(text)
                typed.add(text[0])
                chooser.wanted.discard(text[0])
            said = play.expect(r"(?<!\d)%d\. %s (\S+)(.*)$" % (n, side), 30)
            if said.group(1) != move.text():
                # A chain round a loop: the board, sensing occupancy, takes it either
                # way; the terminal says so, and the game is the same.
                assert same_effect(game, move.text(), game.parse_move(said.group(1))), said.group(0)
                assert "the board cannot tell it from %s" % move.text() in said.group(2), said.group(0)
                loops.append(said.group(0))
                move = game.parse_move(said.group(1))
            game.push(move)
            control.board_moves("test", [m.text() for m in game.move_stack], True, 0.0)
            assert len(game.move_stack) < MAX_PLIES, "the game does not end"
        outcome = game.outcome()
        assert outcome is not None
        play.expect(r"%s\. Game #1 is logged" % re.escape(outcome_words(game, outcome)), 30)
        play.type("quit")
        assert play.wait() == 0
    finally:
        play.close()
    with Database(db) as d:
        record = d.get(1)
        assert record.move_texts() == [m.text() for m in game.move_stack]
        assert (record.result, record.termination) == (outcome.result, outcome.termination)
    return game, typed, time.monotonic() - started


@pytest.mark.parametrize(
    ("ruleset", "seed"),
    # Seeds of short games that type the moves wanted: Mosona and Kolowis short end with
    # no pieces left, Kolowis with no moves, Awithlaknakwe blocked (then counted).
    [
        ("mosona", 13),
        ("kolowis", 0),
        ("kolowis size=short", 14),
        ("awithlaknakwe", 44),
        ("awithlaknakwe players=4", 55),
    ],
)
def test_whole_games_typed_at_the_terminal(ruleset: str, seed: int, tmp_path: Path) -> None:
    awith = ruleset.startswith("awithlaknakwe")
    wanted = COMMAND_FILES if awith else "n"
    game, typed, took = play_whole_game(ruleset, wanted, seed, tmp_path)
    assert set(wanted) <= typed, "moves typed from %s: %s" % (wanted, sorted(typed))
    print("%s: %d moves typed in %.1f s" % (ruleset, len(game.move_stack), took))
