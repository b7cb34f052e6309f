"""The game controller of `zuni play` on its own: events in, actions out, made-up times.
The terminal, the page and the end-to-end tests drive this same controller through
``PlaySession``; here nothing runs but the controller."""

from __future__ import annotations

import zuni
from zuniboard.play.actions import Cut, Ended, Judge, MakeMove, Played, Request, Say, Think, kind_of
from zuniboard.play.controller import MOVES_AT_PAGE, GameController
from zuniboard.play.prompt import COMMANDS
from zuniboard.play.seats import seats_for
from zuniboard.play.thinking import Found

SOUTH_NORTH_HUMAN = {"south": "human", "north": "human"}


def opened(ruleset: str = "mosona", players: dict[str, str | None] | None = None, hand: bool = True) -> GameController:
    c = GameController(hand=hand, deterministic=True, show_move_s=2.0)
    canonical = str(zuni.parse_ruleset(ruleset))
    c.open("g1", canonical, "", seats_for(canonical, players or SOUTH_NORTH_HUMAN), [], number=7, now=0.0)
    c.board_state({"phase": "play"}, 0.0)
    return c


def kinds(actions: list) -> list[str]:  # type: ignore[type-arg]
    return [kind_of(a) for a in actions]


def said(actions: list) -> list[str]:  # type: ignore[type-arg]
    return [a.text for a in actions if isinstance(a, Say)]


def test_every_command_has_its_handler_in_the_one_table() -> None:
    c = opened()
    assert set(c.lines.commands) == set(COMMANDS)
    assert "draw" in said(c.line("/he", 0.0))[0]  # help lists the commands
    assert kinds(c.line("board", 0.0)) == ["redraw", "say"]
    assert said(c.line("new", 0.0)) == ["the game is not over: finish it, or resign, draw or count first"]
    assert kinds(c.line("/q", 0.0)) == ["quit"] and c.quit


def test_a_move_typed_before_the_board_is_set_up_is_made_once_it_is() -> None:
    c = GameController(hand=True)
    c.open("g1", "mosona", "", seats_for("mosona", SOUTH_NORTH_HUMAN), [], number=1, now=0.0)
    acts = c.line("s3xm4-m5", 0.0)
    assert acts == [Request("state")]  # is it set up now?
    acts = c.replied("state", (), 0.1, reply={"phase": "setup"})
    assert kinds(acts)[0] == "setup"
    assert "s3xm4-m5: the board is being set up; the move is made as soon as it is" in said(acts)
    acts = c.board_state({"phase": "play"}, 0.5)
    assert said(acts)[0] == "the board is set up: play on"
    assert [a.move.text() for a in acts if isinstance(a, MakeMove)] == ["s3xm4-m5"]


def test_the_computers_move_is_thought_shown_lit_and_carried_out() -> None:
    c = opened(players={"north": "ai:1"})
    acts = c.line("s3xm4-m5", 0.0)
    assert kinds(acts) == ["makemove"]
    acts = c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    assert "1. south s3xm4-m5" in said(acts) and "played" in kinds(acts)
    acts = c.tick(1.0)
    think = [a for a in acts if isinstance(a, Think)]
    assert [(a.what, a.side, a.level) for a in think] == [("ai", "north", 1)]
    assert kinds(c.tick(1.1)) == [], "one search at a time"
    reply = think[0].game.legal_moves()[0].text()
    assert c.answer(Found("ai", think[0].gen - 1, "north", reply), 1.2) == [], "an answer for an old position"
    acts = c.answer(Found("ai", think[0].gen, "north", reply), 1.2)
    assert [a.name for a in acts if isinstance(a, Request)] == ["host_move"]
    assert said(acts)[0].startswith("North plays %s: lift " % reply)
    acts = c.replied("host_move", (reply,), 1.3)
    assert "the terminal's hand carries it out in a moment" in said(acts)[0]
    assert c.view()["showing"].startswith("North plays %s" % reply)
    assert kinds(c.tick(2.0)) == [], "lit for show_move_s first"
    assert [a.move.text() for a in c.tick(3.4) if isinstance(a, MakeMove)] == [reply]
    acts = c.board_moves("g1", ["s3xm4-m5", reply], True, 4.0)
    assert "2. north %s (carried out on the board)" % reply in said(acts)


def test_a_refused_computer_move_is_said_and_asked_again_later() -> None:
    c = opened(players={"south": "ai:1"})
    c.computer.ai_move = "s3xm4-m5"
    acts = c.replied("host_move", ("s3xm4-m5",), 5.0, error="not your move", by_board=True)
    assert said(acts) == ["the board refused the computer's move s3xm4-m5: not your move"]
    assert [kind_of(a) for a in c.tick(6.0)] == [] and [(kind_of(a), getattr(a, "name", "")) for a in c.tick(7.1)] == [
        ("request", "host_move")
    ]


def test_resign_asks_first_then_the_board_then_it_is_over() -> None:
    c = opened()
    acts = c.line("resign", 0.0)
    assert [(a.tone, a.text) for a in acts] == [("ask", "resign the game for south? (yes/no)")]
    assert said(c.line("no", 0.0)) == ["resign: not done"]
    c.line("resign", 0.0)
    acts = c.line("yes", 0.0)
    assert acts == [Request("resign", ("south",))]
    acts = c.replied("resign", ("south",), 0.1)
    ended = [a for a in acts if isinstance(a, Ended)]
    assert ended == [Ended("north", "resign")]
    assert said(acts)[0].startswith("North wins: South resigned. Game #7 is logged")
    assert c.is_over() and c.view()["result"] == "North wins: South resigned"


def test_a_draw_between_people_is_offered_then_agreed() -> None:
    c = opened()
    c.line("draw", 0.0)
    assert said(c.line("y", 0.0)) == ["south offers a draw: north, type draw to agree"]
    c.line("draw", 0.0)
    assert [(kind_of(a), getattr(a, "args", ())) for a in c.line("yes", 0.0)] == [("request", ("draw",))]


def test_a_loop_chain_the_board_takes_the_other_way_round_is_said() -> None:
    c = opened("kolowis size=short")
    moves = ["s4-m5", "n5xm5-s4", "m6-n5", "n6-m6", "s5xm6-n6", "n4-m5"]
    c.board_moves("g1", moves, True, 0.0)
    assert kinds(c.line("s3xs4-s5xm5-n4xm4-s3", 1.0)) == ["makemove"]
    acts = c.board_moves("g1", moves + ["s3xm4-n4xm5-s5xs4-s3"], True, 2.0)
    assert (
        "7. south s3xm4-n4xm5-s5xs4-s3 (the board cannot tell it from s3xs4-s5xm5-n4xm4-s3, "
        "which it equals: the same pieces taken)" in said(acts)
    )


def test_a_take_back_goes_back_to_the_persons_last_move() -> None:
    c = opened(players={"north": "ai:1"})
    c.board_moves("g1", ["s3xm4-m5", "n5xm5-m4"], True, 0.0)
    acts = c.line("undo", 1.0)
    assert [a.args for a in acts if isinstance(a, Request)] == [("2",)]
    acts = c.board_moves("g1", [], True, 2.0)
    cut = [a for a in acts if isinstance(a, Cut)]
    assert [a.index for a in cut] == [0] and c.moves == [] and c.phase == "setup"
    assert any(t.startswith("took back 2 moves; on the board: put a piece back on") for t in said(acts))


def test_the_view_is_the_game_itself() -> None:
    c = opened()
    c.board_moves("g1", ["s3xm4-m5"], True, 0.0)
    view = c.view()
    assert view["moves"] == ["s3xm4-m5"] and view["numbered"] == "1. s3xm4-m5"
    assert view["last"]["words"] == "South played s3xm4-m5: lift s3, jump m4 to m5, take m4 off"
    assert view["last"]["took"] == ["m4"] and view["turn"] == "North"
    assert "n5xm5-m4" in view["legal"]
    assert ["move", "1. south s3xm4-m5"] in view["said"]


def test_without_the_hand_a_typed_move_is_to_be_made_with_pieces() -> None:
    c = GameController(hand=False, moves_at=MOVES_AT_PAGE)
    c.open("g1", "mosona", "", seats_for("mosona", {"north": "ai:3"}), [], number=1, now=0.0)
    acts = c.board_state({"phase": "play"}, 0.0)
    assert said(acts) == ["south to move (make it on the page; help lists the commands)"]
    assert said(c.line("s3xm4-m5", 0.0)) == [
        "s3xm4-m5: make it on the page (the terminal does not move pieces with --manual)"
    ]


def test_the_page_cannot_quit_zuni_play() -> None:
    c = opened()
    acts = c.line("quit", 0.0, where="page")
    assert said(acts) == ["quit: type it at the terminal (the page stays with the game until then)"]
    assert not c.quit
    assert kinds(c.line("hint", 0.0, where="page")) == ["say", "think"], "other commands are the page's too"


def test_on_a_clock_the_computer_thinks_on_its_time_and_a_fallen_flag_ends_the_game() -> None:
    c = GameController(hand=True)
    state = {"phase": "play", "tc": "5+3", "clock": "300000,-,6000,-", "running": "south"}
    c.open("g1", "mosona", "", seats_for("mosona", {"north": "ai:5"}), [], number=3, now=0.0, state=state)
    c.board_state(state, 0.0)
    assert c.clocks.on and c.clocks.text(0.0) == "South 5:00 *  North 0:06.0"
    times = {("g1", 0, "s3xm4-m5"): (4000, 299000)}
    acts = c.board_moves("g1", ["s3xm4-m5"], True, 4.0, times)
    assert [a.times for a in acts if isinstance(a, Played)] == [(4000, 299000)], "the move's times for the log"
    assert c.clocks.running == "north" and c.clocks.remaining_ms("south", 4.0) == 299000
    think = [a for a in c.tick(4.0) if isinstance(a, Think)]
    limit = dict(think[0].limits)["time_limit"]
    assert 0 < limit <= 3.0, "a share of its 6 s left, not its level's time"
    acts = c.board_event("over", "south time", 10.0)
    ended = [a for a in acts if isinstance(a, Ended)]
    assert ended == [Ended("south", "time")]
    assert said(acts)[0].startswith("South wins on time: North ran out of time. Game #3 is logged")


def test_an_offer_to_the_computer_is_weighed_by_the_runner_then_agreed_or_declined() -> None:
    c = opened(players={"north": "ai:1"})
    c.line("draw", 0.0)
    acts = c.line("yes", 0.0)
    judge = [a for a in acts if isinstance(a, Judge)]
    assert [(a.what, a.side, a.offered_by) for a in judge] == [("draw", "north", "south")]
    assert judge[0].game is not c.state.game, "a copy of the game, for the runner's search"
    declined = c.judged("draw", "south", "north declines a draw: the game is still open", 0.1)
    assert said(declined) == ["south offers a draw: north declines a draw: the game is still open"]
    assert c.judged("draw", "south", "", 0.2) == [Request("agree", ("draw",))]


def test_the_pages_main_panel_says_a_refusal_as_the_rule_not_as_missing_and_extra() -> None:
    """Issue 26 point 5: lifting s4 and placing it on m5 at the start is refused by the
    board as ``missing: s4; extra: m5``; the page's main panel says why in the rule's words,
    as the terminal does."""
    c = opened()
    c.board_state({"phase": "play"}, 0.0)
    acts = c.board_event("wrong", "missing: s4; extra: m5", 1.0)
    words = "s4-m5: a capture is compulsory: s3xm4-m5 (put a piece back on s4; take the piece off m5)"
    assert said(acts) == ["the board: " + words]
    assert c.view()["refusal"] == words
    c.board_moves("g1", ["s3xm4-m5"], True, 2.0)
    assert "refusal" not in c.view(), "the next position has no refusal"
    c.board_state({"phase": "play", "error": "missing:_m6;_extra:_m5"}, 3.0)  # from the board's state
    assert c.view()["refusal"].startswith("m6-m5: the piece on m6 is South's; North is to move")


def test_no_computer_move_is_said_before_the_board_is_set_up() -> None:
    """Issue 26 point 6: `--from "mosona | north to move | ..."` printed `North plays
    m4xs3-s2` while the person was still setting up the pieces. The move found during the
    setup is said, and shown on the board, once the board is set up."""
    c = GameController(hand=False, deterministic=True, show_move_s=2.0, moves_at=MOVES_AT_PAGE)
    position = "mosona | north to move | south s3 s5 | north m4"
    c.open("g1", "mosona", position, seats_for("mosona", {"south": "human", "north": "ai:1"}), [], number=1, now=0.0)
    c.board_state({"phase": "setup"}, 0.0)
    acts = c.tick(0.1)
    think = [a for a in acts if isinstance(a, Think)]
    assert think, kinds(acts)
    acts = c.answer(Found("ai", think[0].gen, "north", "m4xs3-s2", ""), 0.2)
    assert not any("plays" in t for t in said(acts)), said(acts)
    assert not any(isinstance(a, Request) and a.name == "host_move" for a in acts)
    assert not any(isinstance(a, Request) and a.name == "host_move" for a in c.tick(5.0)), "not shown during setup"
    acts = c.board_state({"phase": "play"}, 6.0) + c.tick(6.0)
    assert any(t.startswith("North plays m4xs3-s2") for t in said(acts)), said(acts)
    assert [a.args for a in acts if isinstance(a, Request) and a.name == "host_move"] == [("m4xs3-s2",)]


def test_the_led_supply_fault_is_said_once_from_the_event_or_the_state() -> None:
    words = "the LED supply switched off: too much current (short on the LED line?)"
    c = opened()
    c.board_state({"phase": "play"}, 0.0)
    assert said(c.board_event("fault", "led-supply", 1.0)) == [words]
    assert said(c.board_state({"phase": "play", "fault": "led-supply"}, 2.0)) == [], "said once"
    # The event lost (a reconnect): the next state says it.
    c2 = opened()
    assert said(c2.board_state({"phase": "play", "fault": "led-supply"}, 0.0)) == [words]
    assert said(c2.board_event("fault", "led-supply", 1.0)) == []
    # The board restarted (no fault= any more), then tripped again: said again.
    assert said(c2.board_state({"phase": "play"}, 2.0)) == []
    assert said(c2.board_event("fault", "led-supply", 3.0)) == [words]
