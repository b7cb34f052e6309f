"""A referee and its players wired in memory, on a virtual clock (for the pure tests of
host/zuniboard/remote): ``Table`` stands for the broker (retained states, delivery in
order), each player is a real ``SeatClient``, the referee a real ``Referee``."""

from __future__ import annotations

import json
import random
from typing import Any

import zuni
from zuniboard.remote import protocol
from zuniboard.remote.protocol import Topics
from zuniboard.remote.referee import Publish, Referee, Refusal, Save
from zuniboard.remote.seat_client import Credentials, SeatClient


class Table:
    def __init__(self) -> None:
        self.topics = Topics("a")
        self.referee = Referee(self.topics)
        self.now_ms = 0
        self.retained: dict[str, bytes] = {}
        self.replies: dict[str, list[dict[str, Any]]] = {}
        self.refusals: list[Refusal] = []
        self.saved: dict[str, dict[str, Any]] = {}
        self.players: dict[str, SeatClient] = {}

    def deliver(self, topic: str, payload: bytes) -> None:
        """One message reaches the referee; what it publishes reaches the players."""
        self.handle(self.referee.step(self.now_ms, topic, payload))

    def handle(self, outs: list[Any]) -> None:
        for out in outs:
            if isinstance(out, Publish):
                if out.retain:
                    self.retained[out.topic] = out.payload
                    for client in self.players.values():
                        if out.topic == client.topics.state(client.creds.game):
                            client.take_state(out.payload)
                else:
                    client_id = out.topic.rsplit("/", 1)[1]
                    self.replies.setdefault(client_id, []).append(json.loads(out.payload))
            elif isinstance(out, Refusal):
                self.refusals.append(out)
            elif isinstance(out, Save):
                assert out.record is not None
                self.saved[out.game] = out.record

    def advance(self, seconds: float) -> None:
        self.now_ms += int(seconds * 1000)
        self.handle(self.referee.tick(self.now_ms))
        for client in self.players.values():
            for topic, payload in client.tick(self.now_ms / 1000):
                self.deliver(topic, payload)

    def seat(self, client_id: str, reply: dict[str, Any]) -> SeatClient:
        assert "error" not in reply, reply
        creds = Credentials("a", reply["game"], reply["code"], reply["seat"], reply["secret"], reply["key"])
        client = SeatClient(creds)
        self.players[reply["seat"]] = client
        state = self.retained.get(self.topics.state(reply["game"]))
        if state is not None:
            client.take_state(state)
        return client

    def new(self, ruleset: str, clock: str = "", seat: str = "", gone_s: int = 0) -> dict[str, Any]:
        body: dict[str, Any] = {"v": 1, "do": "new", "ruleset": ruleset, "client": "c0", "name": "Ann"}
        if clock:
            body["clock"] = clock
        if seat:
            body["seat"] = seat
        if gone_s:
            body["gone_s"] = gone_s
        self.deliver(self.topics.new(), json.dumps(body).encode())
        reply = self.replies["c0"][-1]
        self.seat("c0", reply)
        return reply

    def join(self, code: str, client_id: str, name: str, seat: str = "") -> dict[str, Any]:
        body = {"v": 1, "do": "join", "code": code, "client": client_id, "name": name, "seat": seat}
        self.deliver(self.topics.join(), json.dumps(body).encode())
        reply = self.replies[client_id][-1]
        if "error" not in reply:
            self.seat(client_id, reply)
        return reply

    def game(self, ruleset: str, clock: str = "", gone_s: int = 0) -> dict[str, Any]:
        """A game with every seat taken: South by Ann, the others by other names."""
        reply = self.new(ruleset, clock, "south", gone_s)
        game = zuni.new_game(ruleset)
        names = {"north": "Bea", "west": "Cy", "east": "Dee"}
        sides = ["north"] if game.team_names() == ("south", "north") else ["west", "north", "east"]
        for i, side in enumerate(sides):
            self.join(reply["code"], "c%d" % (i + 1), names[side], side)
        return reply

    def state(self) -> dict[str, Any]:
        client = next(iter(self.players.values()))
        return client.state

    def play(self, side: str, text: str) -> None:
        client = self.players[side]
        topic, payload = client.move(len(self.state()["moves"]), text, self.now_ms / 1000)
        self.deliver(topic, payload)

    def send(self, side: str, action: str, **fields: Any) -> None:
        topic, payload = self.players[side].send(action, self.now_ms / 1000, **fields)
        self.deliver(topic, payload)


def play_out(table: Table, ruleset: str, seed: int, max_moves: int = 600) -> zuni.Game:
    """Plays random legal moves through the referee until the game ends; the engine's
    own game of the same moves."""
    rng = random.Random(seed)
    game = zuni.new_game(ruleset)
    while not game.is_game_over() and len(game.move_stack) < max_moves:
        move = rng.choice(game.legal_moves())
        side = str(zuni.SIDE_NAMES[game.turn])
        table.play(side, move.text())
        game.push(move)
        table.advance(0.5)
        assert table.state()["moves"][-1] == move.text()
    return game


def sign_as(client: SeatClient, body: dict[str, Any]) -> bytes:
    return protocol.encode(protocol.sign(body, client.creds.secret))
