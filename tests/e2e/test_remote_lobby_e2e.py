"""Taking a seat (``lobby.take_seat``, the real player side of `zuni play --remote`)
through a real Mosquitto.

A request made while no referee listens yet waits for one (the embedded referee starts
with the first player's command and may take seconds on a busy PC: the request was
lost). Two referees sharing the games on one Mosquitto (`zuni referee URL --shard 0/2` and
`--shard 1/2`), and players that give no shard: each `zuni play --remote` request
(``lobby.take_seat``, the real player side) is answered by one referee, the game is
played under that referee's shard, and games land on both."""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from remote_net import WAIT_S, Mosquitto, RefereeThread

import zuni
from zuniboard.remote.lobby import LobbyError, Seated, take_seat
from zuniboard.remote.protocol import part_of
from zuniboard.remote.transport import BrokerMessage, Connection, parse_url


@pytest.fixture
def two_referees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("ZUNI_REMOTE_DIR", str(tmp_path / "players"))
    home = tmp_path / "broker"
    home.mkdir()
    broker = Mosquitto(home).start()
    refs = [
        RefereeThread(broker.url, tmp_path / ("ref%d" % k), shard="%dof2" % k, part=(k, 2)).start() for k in range(2)
    ]
    watch = Connection(parse_url(broker.url), "watch-referees")
    watch.subscribe("zuni/v1/+/referee")
    watch.start()
    up: set[str] = set()
    deadline = time.monotonic() + WAIT_S
    while len(up) < 2 and time.monotonic() < deadline:  # both subscribed: requests are not lost
        try:
            event = watch.events.get(timeout=0.2)
        except queue.Empty:
            continue
        if isinstance(event, BrokerMessage) and json.loads(event.payload).get("up") is True:
            up.add(event.topic)
    watch.stop()
    assert up == {"zuni/v1/0of2/referee", "zuni/v1/1of2/referee"}
    yield broker.url
    for ref in refs:
        ref.stop()
    broker.stop()


def wait_moves(seated: Seated, count: int) -> list[str]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            event = seated.connection.events.get(timeout=0.2)
        except queue.Empty:
            event = None
        if isinstance(event, BrokerMessage) and event.topic.endswith("/state"):
            seated.client.take_state(event.payload)
        for topic, payload in seated.client.tick(time.monotonic()):
            seated.connection.publish(topic, payload)
        moves = list(seated.client.state.get("moves", []))
        if len(moves) >= count:
            return moves
    raise AssertionError("no state with %d moves within %.0f s" % (count, WAIT_S))


def test_players_with_no_shard_option_play_on_both_referees(two_referees: str) -> None:
    shards: set[str] = set()
    games = 0
    while shards != {"0of2", "1of2"}:
        games += 1
        assert games <= 30, "every game went to one referee: %s" % shards
        said: list[str] = []
        south = take_seat("new", broker=two_referees, say=said.append, name="Ann", ruleset="mosona", seat="south")
        try:
            code = south.client.creds.code
            north = take_seat(code, broker=two_referees, say=said.append, name="Bea")
            try:
                shard = south.client.creds.shard
                assert north.client.creds.shard == shard
                assert north.client.creds.game == south.client.creds.game
                assert shard == "%dof2" % part_of(south.client_id, 2) == "%dof2" % part_of(code, 2)
                # Two moves through the game's own topics, each seen by the other seat.
                game = zuni.new_game("mosona")
                for seated, other in ((south, north), (north, south)):
                    text = str(game.legal_moves()[0].text())
                    topic, payload = seated.client.move(len(game.move_stack), text, time.monotonic())
                    assert topic.startswith("zuni/v1/%s/g/" % shard)
                    seated.connection.publish(topic, payload)
                    game.push_text(text)
                    assert wait_moves(other, len(game.move_stack)) == [m.text() for m in game.move_stack]
                shards.add(shard)
            finally:
                north.close()
        finally:
            south.close()
    with pytest.raises(LobbyError, match="no game has the invite code"):
        take_seat("ZZZ-ZZZ", broker=two_referees, say=lambda text: None, name="Cy")


def test_a_seat_asked_for_before_the_referee_listens_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    monkeypatch.setenv("ZUNI_REMOTE_DIR", str(tmp_path / "players"))
    home = tmp_path / "broker"
    home.mkdir()
    broker = Mosquitto(home).start()
    result: list[Seated | BaseException] = []

    def ask() -> None:
        try:
            result.append(take_seat("new", broker=broker.url, say=lambda text: None, name="Ann", seat="south"))
        except BaseException as exc:  # (reported below)
            result.append(exc)

    asker = threading.Thread(target=ask)
    asker.start()
    referee = None
    try:
        time.sleep(3)  # the player is connected and waiting; nobody has subscribed to `new`
        assert not result, result
        referee = RefereeThread(broker.url, tmp_path / "referee").start()
        asker.join(WAIT_S)
        assert len(result) == 1 and isinstance(result[0], Seated), result
        assert result[0].client.creds.seat == "south"
        result[0].close()
    finally:
        asker.join(WAIT_S)
        if referee is not None:
            referee.stop()
        broker.stop()
