"""The host's view of the board's clocks (zuniboard.games.clock_view) with made-up times:
the board's reports, counting down between them, the computer's thinking time, the
loss on time in the mirror game and in words; and `zuni play --clock`'s refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from play_helpers import zuni as run_zuni

import zuni
from zuniboard.games.clock_view import (
    MIN_THINK_S,
    ClockView,
    apply_time_loss,
    check_clock,
    clock_text,
    side_after,
)
from zuniboard.games.words import outcome_words


def test_clock_text() -> None:
    assert clock_text(300_000) == "5:00"
    assert clock_text(65_432) == "1:05"
    assert clock_text(19_950) == "0:19.9"
    assert clock_text(3_723_000) == "1:02:03"
    assert clock_text(0) == clock_text(-5) == "0:00"


def test_reports_moves_and_the_computers_early_switch() -> None:
    view = ClockView()
    assert not view.on and view.text(0.0) == ""
    view.report({"tc": "south=1 north=2", "clock": "60000,-,120000,-", "running": "south"}, now=100.0)
    assert view.on and set(view.left) == {"south", "north"}
    assert view.remaining_ms("south", 103.5) == 56_500
    assert view.remaining_ms("north", 103.5) == 120_000
    # South's move frame: 56.2 s left; North's clock runs from now.
    view.moved("south", 56_200, "north", now=104.0)
    assert view.running == "north"
    assert view.remaining_ms("south", 110.0) == 56_200
    assert view.remaining_ms("north", 110.0) == 114_000
    # The computer's move shown on the board: its clock stops there.
    view.switched("north", "south", now=110.0)
    assert view.running == "south" and view.remaining_ms("north", 200.0) == 114_000
    assert view.text(111.0) == "South 0:55 *  North 1:54"
    # A game without clocks clears the view.
    view.report({"phase": "play"}, now=120.0)
    assert not view.on


def test_the_computers_thinking_time_comes_from_its_clock() -> None:
    view = ClockView()
    view.report({"tc": "5+3", "clock": "300000,-,300000,-", "running": "north"}, now=0.0)
    # 300 s / 30 + 0.8 x 3 s = 12.4 s, but never more than the level's own time
    assert view.think_s("north", 20.0, 0.0) == pytest.approx(12.4)
    assert view.think_s("north", 0.5, 0.0) == 0.5
    # in time trouble never more than half of what is left (the increment comes after)
    view.report({"tc": "5+3", "clock": "300000,-,600,-", "running": "north"}, now=0.0)
    assert view.think_s("north", 2.0, 0.0) == pytest.approx(0.3)
    view.report({"tc": "10", "clock": "300000,-,-200,-", "running": "north"}, now=0.0)
    assert view.think_s("north", 2.0, 0.0) == MIN_THINK_S
    # no clock: the level's time
    assert ClockView().think_s("north", 0.2, 0.0) == 0.2


def test_check_clock_gives_the_canonical_text_or_names_the_bad_input() -> None:
    assert check_clock("south=5+3 north=5+3", "mosona") == "5+3"
    assert check_clock("south=5+3 north=10", "mosona") == "south=5+3 north=10"
    with pytest.raises(ValueError, match="--clock '5x'"):
        check_clock("5x", "mosona")
    with pytest.raises(ValueError, match="east"):
        check_clock("south=5 east=5", "mosona")
    assert check_clock("3", "awithlaknakwe players=4") == "3"


def test_a_loss_on_time_in_the_mirror_game_and_in_words() -> None:
    game = zuni.new_game("mosona")
    game.push_text("s3xm4-m5")
    assert side_after(game, "n5xm5-m4") == "south" and len(game.move_stack) == 1
    assert apply_time_loss(game, "south")
    outcome = game.outcome()
    assert (outcome.result, outcome.termination) == ("south", "time")
    assert outcome_words(game, outcome) == "South wins on time: North ran out of time"
    assert not apply_time_loss(game, "south"), "already over"
    game.pop()
    assert not game.is_game_over(), "a take-back of the move clears it, as a resignation"


def test_zuni_play_refuses_a_bad_clock_before_touching_a_board(tmp_path: Path) -> None:
    db = str(tmp_path / "games.sqlite3")
    bad = run_zuni("play", "--clock", "5x", "--db", db, "--port", "socket://127.0.0.1:1")
    assert bad.returncode == 2 and "--clock '5x': bad base time" in bad.stderr, bad.stderr
    resume = run_zuni("play", "--clock", "5", "--resume", "--db", db, "--port", "socket://127.0.0.1:1")
    assert resume.returncode == 2 and "leave out --clock" in resume.stderr, resume.stderr
