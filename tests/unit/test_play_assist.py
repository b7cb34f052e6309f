"""Help per seat, the hint limit, handicaps, and grades during `zuni play`: the data of
``play.assist``, the controller's side of them (events in, actions out), and the real
grading thread on a real position."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import pytest

import zuni
from zuni.position import parse_position
from zuniboard.play.actions import Request, Say, Think
from zuniboard.play.assist import (
    ASSISTS,
    HANDICAP_PIECE,
    AssistError,
    check_hint_limit,
    handicap_clock,
    handicap_position,
    parse_assist,
)
from zuniboard.play.controller import GameController
from zuniboard.play.grades import MoveGrade
from zuniboard.play.seats import seats_for
from zuniboard.play.thinking import Found, Graded, SearchPost, Thinking

RULESETS = ("mosona", "mosona board=open", "kolowis", "kolowis size=short", "awithlaknakwe")


def opened(players: dict[str, str | None], assist: str = "", limit: int | None = None) -> GameController:
    c = GameController(hand=True, deterministic=True, show_move_s=2.0)
    seats = seats_for("mosona", players)
    c.open("g1", "mosona", "", seats, [], number=3, now=0.0)
    c.helping.assist = parse_assist(assist, list(seats))
    c.helping.hint_limit = limit
    c.board_state({"phase": "play"}, 0.0)
    return c


def said(actions: list[Any]) -> list[tuple[str, str]]:
    return [(a.tone, a.text) for a in actions if isinstance(a, Say)]


def requests(actions: list[Any]) -> list[tuple[str, tuple[str, ...]]]:
    return [(a.name, a.args) for a in actions if isinstance(a, Request)]


# -- the data -----------------------------------------------------------------------------


def test_help_levels_parse_per_seat_and_refuse_what_is_not_one() -> None:
    both = parse_assist("warn", ["south", "north"])
    assert {s: a.name for s, a in both.items()} == {"south": "warn", "north": "warn"}
    one = parse_assist("south=full,north=none", ["south", "north"])
    assert (one["south"].hints, one["south"].grades) == (True, "all")
    assert (one["north"].hints, one["north"].grades) == (False, "")
    assert parse_assist("", ["south"])["south"].name == "hints"  # as zuni play always was
    with pytest.raises(AssistError, match="no help level 'lots'"):
        parse_assist("south=lots", ["south", "north"])
    with pytest.raises(AssistError, match="no seat 'west'"):
        parse_assist("west=full", ["south", "north"])
    with pytest.raises(AssistError, match="--hint-limit -1"):
        check_hint_limit(-1)
    assert [a.name for a in ASSISTS.values()] == ["none", "hints", "warn", "full"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_piece_handicap_takes_one_piece_of_the_stronger_side_only(ruleset: str) -> None:
    start = zuni.new_game(ruleset)
    for stronger, weaker in (("south", "north"), ("north", "south")):
        game = parse_position(handicap_position(ruleset, "piece", stronger))
        count = {s: sum(1 for p in range(len(game.board)) if (game.piece_at(p) or (-1,))[0] == s) for s in (0, 1, 2)}
        before = {s: sum(1 for p in range(len(start.board)) if (start.piece_at(p) or (-1,))[0] == s) for s in (0, 1, 2)}
        strong = [str(n) for n in zuni.SIDE_NAMES].index(stronger)
        weak = [str(n) for n in zuni.SIDE_NAMES].index(weaker)
        assert count[strong] == before[strong] - 1 and count[weak] == before[weak]
        assert game.turn == start.turn


def test_a_move_handicap_lets_the_weaker_side_begin_and_time_halves_the_stronger_clock() -> None:
    game = parse_position(handicap_position("mosona", "move", "south"))
    assert zuni.SIDE_NAMES[game.turn] == "north" and len(game.legal_moves()) > 0
    assert handicap_clock("mosona", "10", "north") == "south=10 north=5"
    assert handicap_clock("mosona", "south=5+3 north=4", "south") == "south=150s+3 north=4"
    with pytest.raises(AssistError, match="give the clocks with --clock"):
        handicap_clock("mosona", "", "north")
    with pytest.raises(AssistError, match="four players"):
        handicap_position("awithlaknakwe players=4", "piece", "south")
    with pytest.raises(AssistError, match="none such"):
        handicap_position("mosona", "queen", "south")
    assert set(HANDICAP_PIECE) == {"mosona", "kolowis", "kolowis size=short", "awithlaknakwe"}


# -- hints ------------------------------------------------------------------------------


def test_no_hint_for_a_seat_without_hints_and_the_boards_own_is_cleared() -> None:
    c = opened({"south": "human", "north": "ai:1"}, assist="south=none")
    acts = c.line("hint", 0.0)
    assert said(acts) == [("hint", "no hint: south plays without hints (help level none)")]
    assert not [a for a in acts if isinstance(a, Think)]
    # HINT on the board: refused, and the board told to show none of its own.
    acts = c.board_event("button", "hint", 0.5)
    assert requests(acts) == [("hint", ("",))]
    assert c.view()["help"] == {"south": {"level": "none", "hints_left": None}}


def test_the_hint_limit_counts_per_side_and_says_what_is_left() -> None:
    c = opened({"south": "human", "north": "human"}, limit=2)
    first = c.line("hint", 0.0)
    assert said(first)[0] == ("hint", "looking for a good move for south (1 hint left after this one)")
    think = [a for a in first if isinstance(a, Think)]
    assert [(a.what, a.side) for a in think] == [("hint", "south")]
    c.answer(Found("hint", think[0].gen, "south", "s3xm4-m5", ""), 0.1)
    second = c.line("hint", 0.2)
    assert said(second)[0] == ("hint", "looking for a good move for south (0 hints left after this one)")
    c.answer(Found("hint", c.gen, "south", "s3xm4-m5", ""), 0.3)
    third = c.line("hint", 0.4)
    assert said(third) == [("hint", "no hint: south has had the 2 hints of this game")]
    assert c.view()["help"]["south"]["hints_left"] == 0 and c.view()["help"]["north"]["hints_left"] == 2
    # A new game (the controller opened again) gives the hints back.
    c.open("g2", "mosona", "", c.seats, [], number=4, now=1.0)
    c.board_state({"phase": "play"}, 1.0)
    assert "looking for a good move" in said(c.line("hint", 1.1))[0][1]


# -- grades -----------------------------------------------------------------------------


def test_a_graded_blunder_is_said_kept_for_the_review_and_lit_on_the_moved_piece() -> None:
    c = opened({"south": "human", "north": "ai:1"}, assist="south=warn")
    acts = c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    grade_think = [a for a in acts if isinstance(a, Think) and a.what == "grade"]
    assert [(a.side, dict(a.limits)) for a in grade_think] == [("south", {"node_limit": 3000})]
    assert [m.text() for m in grade_think[0].game.move_stack] == ["s3xm4-m5"]
    blunder = MoveGrade("blunder", "walks into a forced loss (lost in 9)")
    acts = c.answer(Graded(grade_think[0].gen, "south", 0, blunder), 1.5)
    assert said(acts) == [("grade", "1. south s3xm4-m5: blunder, walks into a forced loss (lost in 9)")]
    assert requests(acts) == [("grade", ("blunder", "m5"))]
    review = c.view()["review"]
    assert review["counts"]["south"]["blunder"] == 1
    assert review["moves"] == [
        {
            "index": 0,
            "side": "south",
            "move": "s3xm4-m5",
            "grade": "blunder",
            "words": "walks into a forced loss (lost in 9)",
            "colour": "red",
        }
    ]
    # The computer's moves are not graded; an answer for an old position is dropped.
    game = zuni.new_game("mosona")
    game.push_text("s3xm4-m5")
    reply = game.legal_moves()[0].text()
    acts = c.board_moves("g1", ["s3xm4-m5", reply], True, 5.0)
    assert said(acts)[0][1].startswith("2. north %s" % reply)
    assert not [a for a in acts if isinstance(a, Think) and a.what == "grade"]
    assert c.answer(Graded(grade_think[0].gen, "south", 0, blunder), 5.1) == []
    # A take-back drops the grade of the move taken back.
    c.board_moves("g1", [], True, 6.0)
    assert c.view()["review"]["moves"] == []


def test_warn_keeps_a_good_move_quiet_full_says_it_and_none_grades_nothing() -> None:
    good = MoveGrade("good", "0.20 pieces worse than s3xm4-m5")
    for level, spoken in (
        ("warn", []),
        ("full", [("grade", "1. south s3xm4-m5: good, 0.20 pieces worse than s3xm4-m5")]),
    ):
        c = opened({"south": "human", "north": "ai:1"}, assist="south=" + level)
        acts = c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
        (think,) = [a for a in acts if isinstance(a, Think) and a.what == "grade"]
        acts = c.answer(Graded(think.gen, "south", 0, good), 1.2)
        assert said(acts) == spoken and requests(acts) == [], level  # no light for a good move
        assert c.view()["review"]["counts"] == {
            "south": {"best": 0, "good": 1, "inaccuracy": 0, "mistake": 0, "blunder": 0}
        }
    c = opened({"south": "human", "north": "ai:1"}, assist="south=hints")
    acts = c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    assert not [a for a in acts if isinstance(a, Think) and a.what == "grade"]


def test_the_grading_thread_finds_a_real_blunder_from_the_tables_or_the_search() -> None:
    # South to move: the chain s2xm2-n2xn3-m4xm3-n2 takes all three North pieces and
    # wins at once; stopping after the first capture (s2xm2-n1) lets North play on.
    game = parse_position("mosona | south to move | south m6 m7 s2 s4 | north n3 m3 m2 | quiet 0")
    graded = {}
    for text in ("s2xm2-n2xn3-m4xm3-n2", "s2xm2-n1"):
        after = game.copy()
        after.push_text(text)
        posts: queue.Queue[SearchPost] = queue.Queue()
        Thinking(posts.put, seed=1, deterministic=True).start("grade", 4, "south", after, 0, node_limit=3000)
        post = posts.get(timeout=120)
        assert isinstance(post, Graded) and (post.gen, post.side, post.index) == (4, "south", 4 - 4), post
        graded[text] = post.grade
    assert graded["s2xm2-n2xn3-m4xm3-n2"].name == "best"
    assert graded["s2xm2-n1"].name == "blunder" and graded["s2xm2-n1"].is_mistake
    assert graded["s2xm2-n1"].words.startswith("missed a win in 1")


# -- the command line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--assist", "south=lots"], "no help level 'lots'"),
        (["--assist", "west=full"], "no seat 'west'"),
        (["--hint-limit", "-1"], "--hint-limit -1"),
        (["--handicap", "piece", "--south", "human", "--north", "human"], "name the stronger side"),
        (["--handicap", "time"], "give the clocks with --clock"),
        (["--handicap", "queen"], "none such"),
        (["--handicap", "piece", "--from", "mosona | south to move | south s1 | north n1"], "leave out --from"),
    ],
)
def test_zuni_play_refuses_bad_help_and_handicaps_before_touching_a_board(
    args: list[str], message: str, tmp_path: Path
) -> None:
    import subprocess
    import sys

    zuni_cmd = Path(sys.executable).parent / "zuni"
    done = subprocess.run(
        [str(zuni_cmd), "play", "--db", str(tmp_path / "g.sqlite3"), "--port", "/dev/null-no-board", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert message in done.stderr, done.stderr
