"""Remote games through real brokers: Mosquitto (started by each test on a free loopback
port: plain, over WebSockets, with TLS) and the embedded amqtt broker; the referee
service and the players on real paho connections."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from remote_net import Bot, Mosquitto, RefereeThread, free_port, make_certificates, wait_for

import zuni
from zuniboard.remote import protocol
from zuniboard.remote.broker import BrokerError, EmbeddedBroker
from zuniboard.remote.protocol import Topics
from zuniboard.remote.transport import BrokerDisconnected

TOPICS = Topics("a")


def seat_bots(url: str, ruleset: str, tag: str) -> dict[str, Bot]:
    """A game of ``ruleset`` with a bot in every seat."""
    first = Bot(url, "%s-0" % tag)
    reply = first.ask(TOPICS.new(), {"do": "new", "ruleset": ruleset, "seat": "south", "name": "Ann"})
    assert "error" not in reply, reply
    bots = {"south": first}
    sides = [s for s in ("west", "north", "east") if s in first_sides(ruleset)]
    for i, side in enumerate(sides):
        bot = Bot(url, "%s-%d" % (tag, i + 1))
        answer = bot.ask(TOPICS.join(), {"do": "join", "code": reply["code"], "seat": side, "name": side.title()})
        assert answer.get("seat") == side, answer
        bots[side] = bot
    return bots


def first_sides(ruleset: str) -> tuple[str, ...]:
    from zuniboard.records.record import sides_in_play

    return sides_in_play(zuni.parse_ruleset(ruleset))


def pump_all(bots: dict[str, Bot]) -> None:
    for bot in bots.values():
        bot.pump()


# Seeds whose games (captures first) are short: 16, 65, 151 and 340 moves.
SEEDS = {"mosona": 3, "kolowis": 4, "awithlaknakwe": 4, "awithlaknakwe players=4": 4}


def play_whole_game(bots: dict[str, Bot], ruleset: str, seed: int, max_moves: int = 2000) -> zuni.Game:
    """Random legal moves (captures first), each sent by the seat to move and seen by
    every seat, to the end of the game."""
    rng = random.Random(seed)
    game = zuni.new_game(ruleset)
    wait_for("every seat joined", lambda: all(b.state.get("turn") for b in bots.values()), pump=lambda: pump_all(bots))
    while not game.is_game_over() and len(game.move_stack) < max_moves:
        move = rng.choice(game.legal_captures() or game.legal_moves())
        bots[str(zuni.SIDE_NAMES[game.turn])].move(move.text())
        game.push(move)
        n = len(game.move_stack)
        wait_for(
            "move %d on every seat" % n,
            lambda n=n: all(len(b.state.get("moves", [])) >= n for b in bots.values()),
            pump=lambda: pump_all(bots),
        )
    return game


def check_finished(bots: dict[str, Bot], game: zuni.Game) -> None:
    outcome = game.outcome()
    assert outcome is not None
    for bot in bots.values():
        state = bot.state
        assert state["moves"] == [m.text() for m in game.move_stack]
        assert (state["result"], state["termination"]) == (outcome.result, outcome.termination)


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    broker = Mosquitto(tmp_path / "broker", websockets=True)
    broker.home.mkdir()
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def referee_on_mosquitto(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[RefereeThread]:
    referee = RefereeThread(mosquitto.url, tmp_path / "referee").start()
    yield referee
    referee.stop()


@pytest.mark.parametrize("ruleset", ["mosona", "kolowis", "awithlaknakwe", "awithlaknakwe players=4"])
def test_whole_games_through_mosquitto(ruleset: str, mosquitto: Mosquitto, referee_on_mosquitto: RefereeThread) -> None:
    bots = seat_bots(mosquitto.url, ruleset, "m")
    try:
        game = play_whole_game(bots, ruleset, SEEDS[ruleset])
        check_finished(bots, game)
    finally:
        for bot in bots.values():
            bot.stop()
    assert referee_on_mosquitto.service.referee.refused == 0


def two_forced_passes(ruleset: str, seed: int) -> list[str]:
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


def test_reordered_duplicated_and_forged_moves_leave_the_game_as_it_was(
    mosquitto: Mosquitto, referee_on_mosquitto: RefereeThread
) -> None:
    """Four seats; West, then North, have only a pass (each board commits both by
    itself, issue 27). North's pass reaching the referee before West's is refused as out
    of order, the game unchanged (why a seat sends its move only once the referee has
    the moves before it: bridge.to_send); West's pass delivered twice (QoS 1) is taken
    once, not refused; a message for North signed without North's secret is refused;
    North's pass sent in its turn is taken."""
    ruleset = "awithlaknakwe players=4"
    before = two_forced_passes(ruleset, seed=2)
    referee = referee_on_mosquitto.service.referee
    bots = seat_bots(mosquitto.url, ruleset, "q")
    try:
        game = zuni.new_game(ruleset)
        wait_for(
            "every seat joined", lambda: all(b.state.get("turn") for b in bots.values()), pump=lambda: pump_all(bots)
        )
        for text in before:
            bots[str(zuni.SIDE_NAMES[game.turn])].move(text)
            game.push_text(text)
            n = len(game.move_stack)
            wait_for(
                "move %d on every seat" % n,
                lambda n=n: all(len(b.state["moves"]) == n for b in bots.values()),
                pump=lambda: pump_all(bots),
            )
        k = len(before)
        first = bots[str(zuni.SIDE_NAMES[game.turn])]
        game.push_text("pass")
        second_side = str(zuni.SIDE_NAMES[game.turn])
        second = bots[second_side]
        assert first.client is not None and second.client is not None
        refused = referee.refused  # messages refused unread (a refused move is in the state)

        # North's pass ahead of West's: refused, the game as it was.
        topic, payload = second.client.move(k + 1, "pass", time.monotonic())
        second.conn.publish(topic, payload)
        early = second.client.n
        wait_for(
            "the early pass refused",
            lambda: (second.state.get("refused", {}).get(second_side) or {}).get("n") == early,
            pump=lambda: pump_all(bots),
        )
        assert "the game is at ply %d" % k in second.state["refused"][second_side]["why"]
        assert second.state["moves"] == before

        # West's pass, delivered twice; then, on the same connection (so after both), a
        # message for North signed with West's secret.
        topic, payload = first.client.move(k, "pass", time.monotonic())
        first.conn.publish(topic, payload)
        first.conn.publish(topic, payload)
        forged = protocol.sign(
            {
                "v": protocol.VERSION,
                "do": "move",
                "seat": second_side,
                "n": second.client.n + 1,
                "ply": k + 1,
                "move": "pass",
            },
            first.client.creds.secret,
        )
        first.conn.publish(first.topics.inbox(first.client.creds.game, second_side), protocol.encode(forged))
        wait_for("the forged message refused", lambda: referee.refused == refused + 1, pump=lambda: pump_all(bots))
        wait_for(
            "West's pass on every seat",
            lambda: all(len(b.state["moves"]) == k + 1 for b in bots.values()),
            pump=lambda: pump_all(bots),
        )
        assert all(b.state["moves"] == [*before, "pass"] for b in bots.values())

        # North's pass in its turn: taken.
        second.move("pass")
        wait_for(
            "North's pass on every seat",
            lambda: all(len(b.state["moves"]) == k + 2 for b in bots.values()),
            pump=lambda: pump_all(bots),
        )
        assert all(b.state["moves"] == [*before, "pass", "pass"] for b in bots.values())
        assert referee.refused == refused + 1  # the forged one: the duplicate was no refusal
    finally:
        for bot in bots.values():
            bot.stop()


def test_game_over_websockets(mosquitto: Mosquitto, referee_on_mosquitto: RefereeThread) -> None:
    url = "ws://127.0.0.1:%d/mqtt" % mosquitto.ws_port
    bots = seat_bots(url, "mosona", "w")
    try:
        check_finished(bots, play_whole_game(bots, "mosona", seed=3))
    finally:
        for bot in bots.values():
            bot.stop()


def test_offers_over_mosquitto(mosquitto: Mosquitto, referee_on_mosquitto: RefereeThread) -> None:
    bots = seat_bots(mosquitto.url, "mosona", "o")
    try:
        south, north = bots["south"], bots["north"]
        wait_for("started", lambda: south.state.get("turn") == "south", pump=south.pump)
        south.move("s3xm4-m5")
        south.send("offer", what="takeback")
        wait_for("the offer", lambda: (north.state.get("offer") or {}).get("what") == "takeback", pump=north.pump)
        north.send("answer", what="takeback", yes=True)
        wait_for(
            "taken back", lambda: south.state.get("moves") == [] and south.state.get("seq", 0) > 3, pump=south.pump
        )
        north.send("offer", what="draw")
        wait_for("the draw offer", lambda: south.state.get("offer") is not None, pump=south.pump)
        south.send("answer", what="draw", yes=True)
        wait_for("agreed", lambda: north.state.get("termination") == "agreed-draw", pump=north.pump)
    finally:
        for bot in bots.values():
            bot.stop()


@pytest.mark.parametrize("ruleset", ["mosona", "awithlaknakwe players=4"])
def test_whole_games_through_the_embedded_broker(ruleset: str, tmp_path: Path) -> None:
    broker = EmbeddedBroker("127.0.0.1", free_port())
    broker.start()
    referee = RefereeThread(broker.url, tmp_path / "referee").start()
    bots = seat_bots(broker.url, ruleset, "e")
    try:
        check_finished(bots, play_whole_game(bots, ruleset, SEEDS[ruleset]))
    finally:
        for bot in bots.values():
            bot.stop()
        referee.stop()
        broker.stop()


def test_embedded_broker_says_when_its_port_is_taken(mosquitto: Mosquitto) -> None:
    with pytest.raises(BrokerError, match="is taken"):
        EmbeddedBroker("127.0.0.1", mosquitto.port).start()


def test_tls_with_a_certificate_the_test_makes(tmp_path: Path) -> None:
    home = tmp_path / "tls"
    home.mkdir()
    ca, cert, key = make_certificates(home)
    tls_port = free_port()
    broker = Mosquitto(home, extra="allow_anonymous true\n")
    broker.write_config()
    broker.extra = "allow_anonymous true\nlistener %d 127.0.0.1\ncafile %s\ncertfile %s\nkeyfile %s\n" % (
        tls_port,
        ca,
        cert,
        key,
    )
    broker.start()
    url = "mqtts://localhost:%d?ca=%s" % (tls_port, ca)
    referee = RefereeThread(url, tmp_path / "referee").start()
    bots = seat_bots(url, "mosona", "t")
    try:
        check_finished(bots, play_whole_game(bots, "mosona", seed=3))
        # A client that does not trust the certificate is not let in.
        stranger = Bot("mqtts://localhost:%d" % tls_port, "t-x")
        try:
            event = stranger.conn.events.get(timeout=30)
            assert isinstance(event, BrokerDisconnected) and not stranger.conn.connected
        finally:
            stranger.stop()
    finally:
        for bot in bots.values():
            bot.stop()
        referee.stop()
        broker.stop()
