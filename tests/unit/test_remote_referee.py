"""The referee of remote games, pure: whole games, offers, clocks, absences, restarts and
every refused message, on a virtual clock (docs/remote.md)."""

from __future__ import annotations

import json

import pytest
from remote_table import Table, play_out, sign_as

from zuniboard.remote import protocol
from zuniboard.remote.record import game_record
from zuniboard.remote.referee import Account, Publish, Referee, Refusal, Save
from zuniboard.remote.seat_client import SeatClient

RULESETS = ("mosona", "kolowis", "awithlaknakwe", "awithlaknakwe players=4")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_whole_game_each_ruleset(ruleset: str) -> None:
    table = Table()
    table.game(ruleset)
    game = play_out(table, ruleset, seed=3)
    state = table.state()
    outcome = game.outcome()
    assert outcome is not None
    assert state["result"] == outcome.result and state["termination"] == outcome.termination
    assert state["moves"] == [m.text() for m in game.move_stack]
    assert len(protocol.json_bytes(state)) < protocol.MAX_STATE
    # Every player holds the same last state, and no message of theirs is left unsent.
    assert {c.seq for c in table.players.values()} == {state["seq"]}
    assert all(not c.pending for c in table.players.values())
    assert table.refusals == []


def test_names_and_seats_in_state() -> None:
    table = Table()
    table.game("awithlaknakwe players=4")
    seats = table.state()["seats"]
    assert {s: v["name"] for s, v in seats.items()} == {"south": "Ann", "west": "Cy", "north": "Bea", "east": "Dee"}
    assert table.state()["turn"] == "south"


def test_sequence_grows_and_state_is_retained_and_signed() -> None:
    table = Table()
    reply = table.game("mosona")
    before = table.state()["seq"]
    table.play("south", "s3xm4-m5")
    retained = json.loads(table.retained[table.topics.state(reply["game"])])
    assert retained["seq"] == before + 1 and retained["moves"] == ["s3xm4-m5"]
    assert protocol.verify(retained, reply["key"])


def test_resync_from_one_message() -> None:
    """A player who missed every state takes the retained one and is up to date."""
    table = Table()
    reply = table.game("mosona")
    table.play("south", "s3xm4-m5")
    late = SeatClient(table.players["north"].creds)
    assert late.take_state(table.retained[table.topics.state(reply["game"])]) is not None
    assert late.state["moves"] == ["s3xm4-m5"] and late.state["turn"] == "north"


def test_duplicate_delivery_is_idempotent() -> None:
    table = Table()
    table.game("mosona")
    topic, payload = table.players["south"].move(0, "s3xm4-m5", 0.0)
    table.deliver(topic, payload)
    seq = table.state()["seq"]
    table.deliver(topic, payload)  # QoS 1 delivers it again
    assert table.state()["seq"] == seq and table.state()["moves"] == ["s3xm4-m5"]
    assert table.refusals == []


def test_unanswered_messages_are_sent_again_until_taken() -> None:
    table = Table()
    table.game("mosona")
    client = table.players["south"]
    client.move(0, "s3xm4-m5", table.now_ms / 1000)  # lost on the way
    assert table.state()["moves"] == []
    table.advance(3)  # the client's resend reaches the referee
    assert table.state()["moves"] == ["s3xm4-m5"] and not client.pending


# -- offers ----------------------------------------------------------------------------
def test_takeback_accepted_and_declined() -> None:
    table = Table()
    table.game("mosona")
    table.play("south", "s3xm4-m5")
    moves = table.state()["moves"]
    table.send("south", "offer", what="takeback")
    assert table.state()["offer"] == {"what": "takeback", "by": "south", "yes": []}
    table.send("north", "answer", what="takeback", yes=False)
    assert table.state()["offer"] is None and table.state()["moves"] == moves
    assert "declined" in table.state()["note"]
    table.send("south", "offer", what="takeback")
    table.send("north", "answer", what="takeback", yes=True)
    assert table.state()["moves"] == [] and table.state()["turn"] == "south"


def test_four_players_takeback_needs_everyone() -> None:
    table = Table()
    table.game("awithlaknakwe players=4")
    table.play("south", "e1-d2")
    table.send("south", "offer", what="takeback")
    table.send("west", "answer", what="takeback", yes=True)
    table.send("north", "answer", what="takeback", yes=True)
    assert table.state()["moves"] == ["e1-d2"]  # east has not agreed yet
    table.send("east", "answer", what="takeback", yes=True)
    assert table.state()["moves"] == []


@pytest.mark.parametrize(("what", "termination"), [("draw", "agreed-draw"), ("count", "agreed-count")])
def test_draw_and_count_by_agreement(what: str, termination: str) -> None:
    table = Table()
    table.game("mosona")
    table.send("north", "offer", what=what)
    table.send("south", "answer", what=what, yes=True)
    assert table.state()["termination"] == termination and table.state()["result"] == "draw"


def test_resign() -> None:
    table = Table()
    table.game("kolowis")
    table.send("north", "resign")
    assert (table.state()["result"], table.state()["termination"]) == ("south", "resign")
    table.play("south", "anything")  # the game is over: refused, nothing changes
    assert table.state()["moves"] == []


# -- the clocks --------------------------------------------------------------------------
def test_clock_runs_from_the_referee_and_flag_falls() -> None:
    table = Table()
    table.game("mosona", clock="1")
    table.advance(10)
    table.play("south", "s3xm4-m5")
    left = table.state()["left"]
    assert 49000 <= left["south"] <= 50000 and left["north"] == 60000
    assert table.state()["running"] == "north"
    for _ in range(31):
        table.advance(2)
    assert (table.state()["result"], table.state()["termination"]) == ("south", "time")


def test_clock_waits_for_every_seat() -> None:
    table = Table()
    reply = table.new("mosona", clock="1", seat="south")
    table.advance(30)
    table.join(reply["code"], "c1", "Bea")
    assert table.state()["left"]["south"] == 60000 and table.state()["running"] == "south"


# -- an opponent gone -------------------------------------------------------------------
def test_gone_opponent_can_be_claimed_or_waited_for() -> None:
    table = Table()
    table.game("mosona", gone_s=30)
    north = table.players.pop("north")  # North's PC goes away: no more hellos
    table.send("south", "claim", what="win")
    assert table.state()["result"] == "" and "no opponent" in table.refusals[-1].why
    for _ in range(8):
        table.advance(5)
    assert table.state()["gone"] == ["north"]
    table.players["north"] = north  # back: no longer gone
    table.advance(5)
    assert table.state()["gone"] == []
    table.players.pop("north")
    for _ in range(8):
        table.advance(5)
    table.send("south", "claim", what="win")
    assert (table.state()["result"], table.state()["termination"]) == ("south", "abandoned")


# -- a referee restarted -----------------------------------------------------------------
def test_referee_restarts_from_its_records() -> None:
    table = Table()
    reply = table.game("mosona", clock="5")
    table.play("south", "s3xm4-m5")
    table.advance(20)
    table.referee = Referee(table.topics)
    table.referee.restore(table.saved[reply["game"]], table.now_ms)
    table.handle(table.referee.resume(table.now_ms))
    state = table.state()
    assert state["moves"] == ["s3xm4-m5"] and state["turn"] == "north"
    assert 279000 <= state["left"]["north"] <= 280001
    before = table.players["south"].n
    table.play("south", "m5-m4")  # not South's turn: refused by the restored referee
    assert "north's turn" in table.state()["refused"]["south"]["why"]
    assert table.players["south"].n == before + 1
    table.play("north", table_first_move(table))
    assert len(table.state()["moves"]) == 2


def table_first_move(table: Table) -> str:
    import zuni

    game = zuni.new_game("mosona")
    for text in table.state()["moves"]:
        game.push_text(text)
    return str(game.legal_moves()[0].text())


# -- refused messages: logged, the game unchanged --------------------------------------
def refused(table: Table, topic: str, payload: bytes) -> str:
    game_id = next(iter(table.referee.games))
    before = game_record(table.referee.games[game_id], table.now_ms)
    count = len(table.refusals)
    table.deliver(topic, payload)
    assert len(table.refusals) == count + 1, "not refused"
    after = game_record(table.referee.games[game_id], table.now_ms)
    for key in ("moves", "result", "offer", "seq"):
        assert after[key] == before[key], key
    return table.refusals[-1].why


def test_refuses_a_move_for_another_seat() -> None:
    table = Table()
    reply = table.game("mosona")
    south = table.players["south"]
    body = {"v": 1, "do": "move", "seat": "north", "n": 1, "ply": 0, "move": "s3xm4-m5"}
    # South signs a message for North and sends it on North's topic...
    why = refused(table, table.topics.inbox(reply["game"], "north"), sign_as(south, body))
    assert "not signed" in why
    # ... or on its own topic.
    why = refused(table, table.topics.inbox(reply["game"], "south"), sign_as(south, body))
    assert "for north on south's topic" in why


def test_refuses_a_move_out_of_turn_without_changing_the_game() -> None:
    table = Table()
    table.game("mosona")
    table.play("north", "s3xm4-m5")
    assert table.state()["moves"] == [] and "south's turn" in table.state()["refused"]["north"]["why"]


def test_refuses_replayed_and_reordered_messages() -> None:
    table = Table()
    reply = table.game("mosona")
    south = table.players["south"]
    first_topic, first = south.send("offer", 0.0, what="draw")
    later_topic, later = south.move(0, "s3xm4-m5", 0.0)
    table.deliver(later_topic, later)
    why = refused(table, first_topic, first)  # arrives after a later one: reordered
    assert "older" in why
    # A message replayed with an old counter (captured from the wire) is refused.
    replayed = {"v": 1, "do": "resign", "seat": "south", "n": 1}
    why = refused(table, table.topics.inbox(reply["game"], "south"), sign_as(south, replayed))
    assert "replayed" in why
    # Hellos count apart: one replayed is refused; the same one twice is a duplicate.
    hello_topic, hello = south.send("hello", 0.0, seq=0)
    table.deliver(hello_topic, hello)
    count = len(table.refusals)
    table.deliver(hello_topic, hello)
    assert len(table.refusals) == count
    old_hello = {"v": 1, "do": "hello", "seat": "south", "h": 0}
    why = refused(table, hello_topic, sign_as(south, old_hello))
    assert "hello 0 is older" in why


def test_refuses_a_forged_state_and_puts_it_right() -> None:
    table = Table()
    reply = table.game("mosona")
    topic = table.topics.state(reply["game"])
    true_state = table.retained[topic]
    forged = json.loads(true_state)
    forged["moves"] = ["s3xm4-m5"]
    forged = protocol.sign(forged, reply["key"])  # even signed with the game's key
    why = refused(table, topic, json.dumps(forged).encode())
    assert "did not publish" in why
    assert json.loads(table.retained[topic])["moves"] == []  # put right, retained again
    # A player refuses a state not signed with the game's key.
    client = table.players["north"]
    outsider = protocol.sign(dict(json.loads(true_state), seq=999), "not the key")
    assert client.take_state(json.dumps(outsider).encode()) is None


def test_refuses_a_wrong_invite_code() -> None:
    table = Table()
    reply = table.new("mosona")
    wrong = "".join("2" if c != "2" else "3" for c in reply["code"])
    answer = table.join(wrong, "c9", "Eve")
    assert "no game has the invite code" in answer["error"]
    assert "no game has the invite code" in table.refusals[-1].why
    answer = table.join("not a code!", "c9", "Eve")
    assert "invite code" in answer["error"]
    assert table.state()["seats"]["north"]["joined"] is False


def test_refuses_a_taken_seat() -> None:
    table = Table()
    reply = table.game("mosona")
    answer = table.join(reply["code"], "c9", "Eve", "north")
    assert answer["error"] == "seat north is taken"
    answer = table.join(reply["code"], "c9", "Eve")
    assert answer["error"] == "every seat is taken"


def test_refuses_oversized_payloads() -> None:
    table = Table()
    reply = table.game("mosona")
    south = table.players["south"]
    body = {"v": 1, "do": "hello", "seat": "south", "n": 1, "pad": "x" * 5000}
    payload = json.dumps(protocol.sign(body, south.creds.secret)).encode()
    why = refused(table, table.topics.inbox(reply["game"], "south"), payload)
    assert "at most 4096" in why


@pytest.mark.parametrize(
    "topic",
    ["zuni/v1/a/g/x/in/nobody", "zuni/v1/a/g/+/in/south", "zuni/v1/a/what", "other/topic", "zuni/v1/a/g//in/south"],
)
def test_refuses_garbage_topics(topic: str) -> None:
    table = Table()
    table.game("mosona")
    refused(table, topic, b'{"v":1}')


@pytest.mark.parametrize("payload", [b"\xff\xfe", b"[1,2]", b"not json", b'{"v":2}', b'{"v":1,"do":"move"}'])
def test_refuses_garbage_payloads(payload: bytes) -> None:
    table = Table()
    reply = table.game("mosona")
    refused(table, table.topics.inbox(reply["game"], "south"), payload)


def test_referee_outputs_are_typed() -> None:
    ref = Referee(protocol.Topics("a"))
    outs = ref.step(0, "zuni/v1/a/new", b'{"v":1,"do":"new","ruleset":"no such game","client":"c1"}')
    assert [type(o) for o in outs] == [Refusal, Publish]
    assert "ruleset" in outs[0].why
    outs = ref.step(0, "zuni/v1/a/new", b'{"v":1,"do":"new","ruleset":"mosona","client":"c1"}')
    assert [type(o) for o in outs] == [Account, Publish, Publish, Save]


def test_its_own_states_coming_back_are_not_refused() -> None:
    """The referee reads its state topic: its states come back to it, some after newer
    ones were published, and the retained one again on a new subscription."""
    table = Table()
    reply = table.game("mosona")
    topic = table.topics.state(reply["game"])
    first = table.retained[topic]
    table.play("south", "s3xm4-m5")
    latest = table.retained[topic]
    count = len(table.refusals)
    table.deliver(topic, first)  # the echo of an older state, after the newer one went
    table.deliver(topic, latest)
    table.deliver(topic, latest)  # the retained one again (the referee subscribed anew)
    assert len(table.refusals) == count
    # An old state of its own replayed later is not left retained.
    table.deliver(topic, first)
    assert json.loads(table.retained[topic])["moves"] == ["s3xm4-m5"]
    assert table.retained[topic] != first


def test_a_state_carrying_its_own_mac_on_other_bytes_is_refused() -> None:
    """The referee knows its states by their bytes (the mac checked over them), so the
    mac of one of its states copied onto another body is no pass (before, the mac field
    alone was)."""
    table = Table()
    reply = table.game("mosona")
    topic = table.topics.state(reply["game"])
    true_state = table.retained[topic]
    forged = dict(json.loads(true_state), note="the referee says north won")  # its mac kept
    why = refused(table, topic, json.dumps(forged).encode())
    assert "did not publish" in why
    assert table.retained[topic] == true_state or json.loads(table.retained[topic])["note"] == ""


def test_signed_mac_only_for_the_bytes_signed_with_the_key() -> None:
    body = {"v": 1, "do": "state", "moves": ["s3xm4-m5"], "note": ""}
    mac, data = protocol.signed_bytes(body, "k1")
    assert protocol.signed_mac(data, "k1") == mac
    assert protocol.signed_mac(data, "k2") is None  # another game's key
    assert protocol.signed_mac(data.replace(b"s3xm4", b"s3xm5"), "k1") is None  # one byte changed
    assert protocol.signed_mac(json.dumps(protocol.sign(body, "k1")).encode(), "k1") is None  # not canonical
    assert protocol.signed_mac(b'{"mac":"x"}', "k1") is None
    assert protocol.signed_mac(b"", "k1") is None
