"""A remote seat at the game controller, pure: the referee's state in (through the
``Bridge``), the controller's actions out. The opponent's move is shown and carried out
as the computer's; offers are answered yes or no; the referee's ends and take-backs
reach the board."""

from __future__ import annotations

import random
from typing import Any

import zuni
from zuniboard.play.actions import Ended, MakeMove, Played, Referee, Request, Say, kind_of
from zuniboard.play.controller import GameController
from zuniboard.play.seats import seats_for
from zuniboard.remote.bridge import Bridge

PLAYERS: dict[str, str | None] = {"south": "human", "north": "remote:Bea"}


def opened() -> tuple[GameController, Bridge]:
    c = GameController(hand=True, deterministic=True, show_move_s=2.0)
    c.open("g1", "mosona", "", seats_for("mosona", PLAYERS), [], number=3, now=0.0)
    c.board_state({"phase": "play"}, 0.0)
    c.offers.remote = True
    return c, Bridge("south")


def state(moves: list[str], **more: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"moves": moves, "seq": len(moves), "offer": None, "result": "", "gone": [], "note": ""}
    body.update(more)
    return body


def kinds(actions: list[Any]) -> list[str]:
    return [kind_of(a) for a in actions]


def said(actions: list[Any]) -> list[str]:
    return [a.text for a in actions if isinstance(a, Say)]


def test_opponents_move_is_shown_and_carried_out_as_the_computers() -> None:
    c, bridge = opened()
    acts = c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    assert "north (Bea) is to move: waiting for their move" in said(acts)
    acts = bridge.follow(state(["s3xm4-m5", "n5xm5-m4"]), c, 2.0)
    assert "host_move" in [a.name for a in acts if isinstance(a, Request)]
    assert [a.args for a in acts if isinstance(a, Request)] == [("n5xm5-m4",)]
    assert any("(Bea)" in text for text in said(acts))
    acts = c.replied("host_move", ("n5xm5-m4",), 2.1)
    assert "the board shows n5xm5-m4; the terminal's hand carries it out in a moment" in said(acts)
    hand = [a for a in c.tick(4.2) if isinstance(a, MakeMove)]
    assert [a.move.text() for a in hand] == ["n5xm5-m4"]
    acts = c.board_moves("g1", ["s3xm4-m5", "n5xm5-m4"], True, 4.5)
    assert "2. north n5xm5-m4 (carried out on the board)" in said(acts)
    played = [a for a in acts if isinstance(a, Played)]
    assert played[0].side == "north"
    assert not bridge.to_send(1, "north", c.moves, state(["s3xm4-m5", "n5xm5-m4"]))
    assert bridge.to_send(0, "south", ["s3xm4-m5"], state([]))


def test_no_thinking_and_no_typing_for_the_remote_seat() -> None:
    c, bridge = opened()
    c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    assert "think" not in kinds(c.tick(1.5))
    assert said(c.line("n5xm5-m4", 1.6)) == ["'n5xm5-m4': it is north's turn (Bea)"]
    assert said(c.line("hint", 1.7)) == ["no hint: it is north's turn (Bea)"]


def test_offers_go_to_the_referee_and_are_answered_yes_or_no() -> None:
    c, bridge = opened()
    acts = c.line("undo", 0.5)
    assert [(a.what, a.args) for a in acts if isinstance(a, Referee)] == [("offer", ("takeback",))]
    c.line("draw", 0.6)
    acts = c.line("yes", 0.7)
    assert [(a.what, a.args, a.side) for a in acts if isinstance(a, Referee)] == [("offer", ("draw",), "south")]
    acts = bridge.follow(state([], offer={"what": "count", "by": "north", "yes": []}), c, 1.0)
    assert "north (Bea) offers to end by counting: agree? (yes/no)" in said(acts)
    acts = c.line("no", 1.1)
    assert [(a.what, a.args) for a in acts if isinstance(a, Referee)] == [("answer", ("count", "no"))]
    bridge.follow(state([], offer={"what": "draw", "by": "north", "yes": []}), c, 1.2)
    acts = c.line("y", 1.3)
    assert [(a.what, a.args) for a in acts if isinstance(a, Referee)] == [("answer", ("draw", "yes"))]


def test_referees_end_is_the_games_end_and_the_boards() -> None:
    c, bridge = opened()
    acts = bridge.follow(state([], result="south", termination="resign", note="north resigned"), c, 1.0)
    ended = [a for a in acts if isinstance(a, Ended)]
    assert ended == [Ended("south", "resign")]
    assert Request("resign", ("north",)) in acts
    assert c.is_over()
    # The board's own answer to that request does not end the game twice.
    assert kinds(c.replied("resign", ("north",), 1.1)) == []


def test_a_flag_and_a_claim_end_it_with_the_referees_reason() -> None:
    for termination, result in (("time", "north"), ("abandoned", "south"), ("abandoned-draw", "draw")):
        c, bridge = opened()
        acts = bridge.follow(state([], result=result, termination=termination), c, 1.0)
        assert [a for a in acts if isinstance(a, Ended)] == [Ended(result, termination)]


def test_agreed_takeback_is_taken_back_on_the_board() -> None:
    c, bridge = opened()
    c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    assert kinds(bridge.follow(state([]), c, 1.2)) == []  # our move on its way: wait
    bridge.follow(state(["s3xm4-m5"]), c, 1.5)  # taken
    acts = bridge.follow(state([], note="south's take-back agreed"), c, 2.0)
    assert [a for a in acts if isinstance(a, Request)] == [Request("take_back", ("1",))]
    assert "the referee took back 1 move; take them back on the board" in said(acts)
    assert bridge.follow(state([]), c, 2.5) == []  # asked once
    acts = c.board_moves("g1", [], True, 3.0)
    assert "cut" in kinds(acts)


def test_ahead_of_the_referee_waits_unless_our_move_was_refused() -> None:
    c, bridge = opened()
    c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    assert kinds(bridge.follow(state([]), c, 1.5, refused_ply=-1)) == []  # on its way
    refused = state([], refused={"south": {"n": 4, "why": "the game is over"}})
    acts = bridge.follow(refused, c, 2.0, refused_ply=0)
    assert "the referee refused s3xm4-m5: the game is over; take them back on the board" in said(acts)


def test_gone_opponent_is_said_and_claim_asks_the_referee() -> None:
    c, bridge = opened()
    acts = bridge.follow(state([], gone=["north"], gone_s=60), c, 1.0)
    assert "north gone for 60 s: type claim for the win, draw for a draw, or wait" in said(acts)
    c.line("claim", 1.1)
    acts = c.line("yes", 1.2)
    assert [(a.what, a.args) for a in acts if isinstance(a, Referee)] == [("claim", ("win",))]
    c.line("draw", 1.3)
    acts = c.line("yes", 1.4)
    assert [(a.what, a.args) for a in acts if isinstance(a, Referee)] == [("claim", ("draw",))]
    acts = bridge.follow(state([]), c, 2.0)
    assert "everybody is back" in said(acts)


def test_referee_clocks_are_shown() -> None:
    c, bridge = opened()
    bridge.follow(state([], clock="5", left={"south": 290000, "north": 300000}, running="south"), c, 10.0)
    assert c.clocks.remaining_ms("south", 12.0) == 288000
    assert zuni.SIDE_NAMES[0] == "south"


def test_claim_outside_a_remote_game_says_so() -> None:
    c = GameController(hand=True)
    c.open("g1", "mosona", "", seats_for("mosona", {"north": "human"}), [], number=1, now=0.0)
    assert said(c.line("claim", 0.0)) == ["claim: only in a remote game, when the opponent has been gone too long"]


def test_an_offer_and_the_referees_note_are_each_kept_once_among_the_things_said() -> None:
    """The page lists the controller's last things said: the offer's question once (it
    was listed twice), the referee's note once."""
    c, b = opened()
    b.follow(state([], offer={"what": "draw", "by": "north", "yes": []}, note="north offers draw"), c, 1.0)
    texts = [text for _, text in c.said.said]
    assert texts.count("north (Bea) offers a draw: agree? (yes/no)") == 1, texts
    assert texts.count("referee: north offers draw") == 1, texts


def two_forced_passes(ruleset: str = "awithlaknakwe players=4", seed: int = 2) -> list[str]:
    """The moves of a game (random, captures first) up to a position where the side to
    move has only a pass, and so has the side after it."""
    rng = random.Random(seed)
    game = zuni.new_game(ruleset)
    while not game.is_game_over():
        moves = game.legal_moves()
        if len(moves) == 1 and moves[0].kind == zuni.PASS:
            after = game.copy()
            after.push(moves[0])
            following = after.legal_moves()
            if len(following) == 1 and following[0].kind == zuni.PASS:
                return [m.text() for m in game.move_stack]
        game.push(rng.choice(game.legal_captures() or moves))
    raise AssertionError("no two forced passes in a row in this game")


def test_our_forced_pass_waits_for_the_pass_before_it_to_reach_the_referee() -> None:
    """Four players: West and then North have only a pass. North's board commits both
    at once (each board commits forced passes itself); West's own pass may reach the
    referee after North's (the seats' messages travel apart). Sent then, North's pass
    was refused as out of order, and the refusal took it back on North's board (issue
    27: the pass shown twice, "took back 1 move"). It is sent once the referee has
    West's pass, and the wait is no take-back."""
    ruleset = "awithlaknakwe players=4"
    before = two_forced_passes(ruleset)
    game = zuni.new_game(ruleset)
    for text in before:
        game.push_text(text)
    first = str(zuni.SIDE_NAMES[game.turn])
    game.push_text("pass")
    mine = str(zuni.SIDE_NAMES[game.turn])
    players: dict[str, str | None] = {s: "remote:%s" % s for s in ("south", "west", "north", "east")}
    players[mine] = "human"
    c = GameController(hand=True, deterministic=True, show_move_s=2.0)
    c.open("g1", ruleset, "", seats_for(ruleset, players), [], number=1, now=0.0)
    c.board_state({"phase": "play"}, 0.0)
    c.offers.remote = True
    bridge = Bridge(mine)
    c.board_moves("g1", before, True, 1.0)
    bridge.follow(state(before), c, 1.0)
    k = len(before)
    acts = c.board_moves("g1", [*before, "pass", "pass"], True, 2.0)
    assert [(a.index, a.side) for a in acts if isinstance(a, Played)] == [(k, first), (k + 1, mine)]
    # The referee has not had the first pass yet: ours is not sent, and nothing is taken back.
    assert not bridge.to_send(k + 1, mine, c.moves, state(before))
    assert "request" not in kinds(bridge.follow(state(before), c, 2.5))
    # The first pass reached it: ours is the one it waits for now.
    assert bridge.to_send(k + 1, mine, c.moves, state([*before, "pass"]))
    assert "request" not in kinds(bridge.follow(state([*before, "pass"]), c, 3.0))
    # Taken: in step, not to be sent again.
    assert not bridge.to_send(k + 1, mine, c.moves, state([*before, "pass", "pass"]))
    assert bridge.follow(state([*before, "pass", "pass"]), c, 3.5) == []
