"""A new user's first game can be won (issue 26, point 4): Mosona is a proven win for
North (docs/rules.md, "Who wins Mosona?"), so `make play` seats the person as North, and
the hints keep to the proof: following every hint as North beats the computer's South,
whatever South plays. `zuni analyze` says why the loser of such a game made no mistake."""

from __future__ import annotations

import queue
import re
import subprocess
from pathlib import Path

import pytest
from play_helpers import ZUNI

import zuni
from zuniboard.ai import GreedyPlayer, RandomPlayer, SearchPlayer
from zuniboard.play.controller import HINT_LEVEL
from zuniboard.play.seats import seats_for
from zuniboard.play.thinking import PROVEN_WORDS, Found, SearchFailed, SearchPost, Thinking
from zuniboard.records.db import Database


def test_make_play_seats_the_person_on_the_winning_side() -> None:
    seats = seats_for("mosona", {})
    assert (seats["north"].text, seats["south"].text) == ("human", "ai:3")
    # A seat given keeps the old default for the other: --north ai:2 leaves South to the person.
    assert seats_for("mosona", {"north": "ai:2"})["south"].text == "human"
    assert seats_for("kolowis", {})["south"].text == "human", "only Mosona is a proven win"


def _hint(game: zuni.Game) -> tuple[str, str]:
    """The hint `zuni play` gives (the real worker: book, tables, search), waited for."""
    answers: queue.Queue[SearchPost] = queue.Queue()
    Thinking(answers.put, seed=1, deterministic=True).start("hint", 1, "north", game, HINT_LEVEL)
    while True:
        item = answers.get(timeout=120)
        if isinstance(item, Found) and item.what == "hint":
            return item.move, item.verdict
        assert not isinstance(item, SearchFailed), item


@pytest.mark.parametrize("south", ["ai:3", "greedy", "random"])
def test_following_every_hint_as_north_wins(south: str) -> None:
    opponent = {
        "ai:3": SearchPlayer(3, seed=2, deterministic=True),
        "greedy": GreedyPlayer(4),
        "random": RandomPlayer(5),
    }[south]
    game = zuni.new_game("mosona")
    proven = 0
    while not game.is_game_over():
        if zuni.SIDE_NAMES[game.turn] == "north":
            move, words = _hint(game)
            proven += words == PROVEN_WORDS
            game.push_text(move)
        else:
            game.push(opponent.choose(game))
    outcome = game.outcome()
    assert outcome is not None and outcome.result == "north", (south, outcome, game.ply())
    assert proven >= 4, "the hints kept to the proof while it lasted"


def test_analyze_says_why_the_loser_of_a_lost_by_force_game_made_no_mistake(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    game = zuni.new_game("mosona")
    south = SearchPlayer(3, seed=2, deterministic=True)
    while not game.is_game_over():
        if zuni.SIDE_NAMES[game.turn] == "north":
            game.push_text(_hint(game)[0])
        else:
            game.push(south.choose(game))
    with Database(db) as d:
        gid = d.new_game("mosona", players={"south": "ai:3", "north": "human"})
        for i, move in enumerate(game.move_stack):
            d.add_move(gid, i, move.text())
        outcome = game.outcome()
        assert outcome is not None
        d.finish_game(gid, outcome.result)
    done = subprocess.run(
        [str(ZUNI), "analyze", str(gid), "--db", str(db), "--nodes", "300"], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    summary = done.stdout.splitlines()
    # Every position South met was lost: whatever its "mistakes", none lost the game.
    assert re.search(r"^south: \d+ mistakes?", done.stdout, re.M), done.stdout[-2000:]
    assert any(
        re.match(r"south lost( with no mistake| \(its mistakes only lost points\)): Mosona is a win for North", line)
        for line in summary
    ), done.stdout[-2000:]
