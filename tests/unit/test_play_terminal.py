"""The terminal of `zuni play` without a board: drawing, move list, thinking display,
seats, and how a move is described for a person."""

from __future__ import annotations

import io

import pytest

import zuni
from zuniboard.ai import SearchInfo
from zuniboard.play.seats import parse_player, seats_for
from zuniboard.play.session import describe_move
from zuniboard.play.terminal import TerminalUI, move_list


def test_thinking_is_one_line_rewritten_on_a_terminal_and_cleared_before_messages() -> None:
    out = io.StringIO()
    ui = TerminalUI(out, color=False, live=True)
    game = zuni.new_game("mosona")
    move = game.legal_moves()[0]
    ui.thinking("north", SearchInfo(3, 1234, move, 150, 0.25))
    ui.thinking("north", SearchInfo(4, 5678, move, -20, 0.5))
    assert out.getvalue().count("\n") == 0, "the progress line is rewritten in place"
    assert out.getvalue().endswith("\r\x1b[Knorth thinks: depth 4, 5678 nodes, best %s (-0.20), 0.5 s" % move)
    ui.message("ai", "north plays %s" % move)
    assert out.getvalue().endswith("\r\x1b[Knorth plays %s\n" % move), "the progress line is cleared first"


def test_thinking_is_one_line_per_depth_in_a_pipe() -> None:
    out = io.StringIO()
    ui = TerminalUI(out, color=False, live=False)
    move = zuni.new_game("mosona").legal_moves()[0]
    ui.thinking("north", SearchInfo(1, 10, move, 0, 0.0))
    ui.thinking("north", SearchInfo(2, 20, None, 0, 0.0))
    ui.thinking("north", None)
    assert out.getvalue().splitlines() == [
        "north thinks: depth 1, 10 nodes, best %s (+0.00), 0.0 s" % move,
        "north thinks: depth 2, 20 nodes, best - (+0.00), 0.0 s",
    ]
    assert "\x1b" not in out.getvalue()


def test_move_list_numbers_rounds_of_two_or_four() -> None:
    game = zuni.new_game("mosona")
    assert move_list(game, ["a", "b", "c"]) == "1. a b 2. c"
    four = zuni.new_game("awithlaknakwe players=4")
    assert move_list(four, list("abcde")) == "1. a b c d 2. e"
    long = [str(i) for i in range(30)]
    assert move_list(game, long, last=5) == "... 13. 24 25 14. 26 27 15. 28 29"  # whole rounds


def test_seats_defaults_and_errors() -> None:
    seats = seats_for("mosona", {})
    assert {s: str(seat) for s, seat in seats.items()} == {"south": "human", "north": "ai:3"}
    seats = seats_for("awithlaknakwe players=4", {"west": "human", "north": "ai:1"})
    assert {s: str(seat) for s, seat in seats.items()} == {
        "south": "human",
        "west": "human",
        "north": "ai:1",
        "east": "ai:3",
    }
    assert str(parse_player("AI")) == "ai:3"
    with pytest.raises(ValueError, match="'ai:0'"):
        parse_player("ai:0")
    with pytest.raises(ValueError, match="no east seat"):
        seats_for("kolowis", {"east": "human"})


def test_a_move_is_described_for_the_hand() -> None:
    game = zuni.new_game("mosona")
    move = game.parse_move("s3xm4-m5")
    assert describe_move(game, move) == "lift s3, jump m4 to m5, take m4 off"
    game.push(move)
    step = next(m for m in zuni.new_game("kolowis").legal_moves() if not m.captures)
    text = describe_move(zuni.new_game("kolowis"), step)
    assert text.startswith("lift ") and ", put it on " in text and "take" not in text


def test_the_drawings_marks_are_explained_once() -> None:
    out = io.StringIO()
    ui = TerminalUI(out, color=False, live=False)

    class Shown:
        game = zuni.new_game("mosona")
        moves: list[str] = []
        seats: dict[str, object] = {}
        db_game = 1

    ui.position(Shown())  # type: ignore[arg-type]
    ui.position(Shown())  # type: ignore[arg-type]
    text = out.getvalue()
    assert text.count("[ ]: the last move's start and end, x: a piece it took") == 1
    assert "start position: south to move" in text


def test_the_drawing_says_a_games_end_in_a_players_words() -> None:
    out = io.StringIO()
    ui = TerminalUI(out, color=False, live=False)

    class Shown:
        game = zuni.new_game("mosona")
        moves: list[str] = ["s3xm4-m5"]
        seats: dict[str, object] = {}
        db_game = 1

    Shown.game.push_text("s3xm4-m5")
    Shown.game.resign(zuni.SOUTH)
    ui.position(Shown())  # type: ignore[arg-type]
    text = out.getvalue()
    assert "after 1 move (last s3xm4-m5): North wins: South resigned" in text, text
    assert "game over" not in text
