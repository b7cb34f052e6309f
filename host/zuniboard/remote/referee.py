"""The referee: the authority on every remote game of its shard. Pure logic.

``Referee.step(now_ms, topic, payload)`` takes one MQTT message and returns what to do:
``Publish`` (a topic, a payload, retained or not), ``Save`` (a game's record to keep on
disk) and ``Refusal`` (a message refused: logged, nothing changed). ``tick(now_ms)``
does what the time does (flags, absences). Only ``service.RefereeService`` touches the
network, the disk and the clock, so the tests run the referee on a virtual clock.

>>> ref = Referee(Topics("a"))
>>> outs = ref.step(0, "zuni/v1/a/new", b'{"v":1,"do":"new","ruleset":"mosona","client":"c1","name":"Ann"}')
>>> [type(o).__name__ for o in outs]
['Account', 'Publish', 'Publish', 'Save']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zuniboard.remote import protocol
from zuniboard.remote.protocol import ProtocolError, Topics
from zuniboard.remote.record import DEFAULT_GONE_S, RefereeGame, Refused, game_record, remember, restore_game

MAX_GAMES = 100000  # games one referee keeps in memory (finished ones are dropped first)
SAY_STATE_EVERY_MS = 30000  # a game's state is published again this often while it runs
# A running clock is saved this often: a referee killed gives the side to move back at
# most this much (as the board's journal does, docs/clocks.md).
SAVE_CLOCK_MS = 10000
OWN_STATES_KEPT = 16  # the referee knows its states on their way back to it by their macs


@dataclass(frozen=True)
class Publish:
    topic: str
    payload: bytes
    retain: bool = False


@dataclass(frozen=True)
class Save:
    game: str
    record: dict[str, Any] | None  # None: forget the game


@dataclass(frozen=True)
class Account:
    """A new game's broker account (user: the game's id, password: its key), for a
    broker whose ACL keeps each game's players to its topics (docs/remote.md)."""

    user: str
    password: str


@dataclass(frozen=True)
class Refusal:
    topic: str
    why: str


Out = Publish | Save | Refusal | Account


class Referee:
    """``part``: (K, N), the K-th of N referees sharing a lobby (docs/remote.md, Several
    referees): it takes the new games of the client ids and the joins of the invite codes
    ``protocol.part_of`` gives it, and leaves the others to the others, unanswered."""

    def __init__(self, topics: Topics, part: tuple[int, int] = (0, 1)) -> None:
        self.topics = topics
        self.part = part
        self.games: dict[str, RefereeGame] = {}
        self.codes: dict[str, str] = {}  # invite code -> game id
        self.refused = 0

    def restore(self, record: dict[str, Any], now_ms: int) -> None:
        game = restore_game(record, now_ms)
        self.games[game.id] = game
        self.codes[game.code] = game.id

    def resume(self, now_ms: int) -> list[Out]:
        """After a restart: every game's state again (and its seats heard from now)."""
        return [self._state(game, now_ms) for game in self.games.values()]

    # -- one message -----------------------------------------------------------------
    def step(self, now_ms: int, topic: str, payload: bytes) -> list[Out]:
        try:
            where = self.topics.parse(topic)
            if where.kind == "state":
                return self._state_seen(where.game, payload, now_ms)
            body = protocol.decode(payload)
            if where.kind == "new":
                return self._new(body, now_ms)
            if where.kind == "join":
                return self._join(body, now_ms)
            if where.kind == "in":
                return self._player(where.game, where.seat, body, now_ms)
            raise ProtocolError("topic %r is not one the referee reads" % topic)
        except (ProtocolError, Refused) as exc:
            self.refused += 1
            return [Refusal(topic[:120], str(exc))]

    def _reply(self, client: str, body: Mapping[str, object]) -> Publish:
        return Publish(self.topics.reply(client), protocol.encode(dict(body, v=protocol.VERSION)))

    def _mine(self, key: str) -> bool:
        k, n = self.part
        return n == 1 or protocol.part_of(key, n) == k

    def _state(self, game: RefereeGame, now_ms: int) -> Publish:
        # A long game's state may pass MAX_PAYLOAD: the limit is on what players send.
        mac, data = game.state(now_ms)
        game.state_macs = [*game.state_macs[-(OWN_STATES_KEPT - 1) :], mac]
        game.known_macs = [*game.known_macs[-(OWN_STATES_KEPT * 4 - 1) :], mac]
        return Publish(self.topics.state(game.id), data, retain=True)

    def _changed(self, game: RefereeGame, now_ms: int) -> list[Out]:
        game.seq += 1
        game.said_ms = game.saved_ms = now_ms
        return [self._state(game, now_ms), Save(game.id, game_record(game, now_ms))]

    def _client(self, body: dict[str, object]) -> str:
        client: str = protocol.field(body, "client", str)
        if not protocol.is_token(client):
            raise ProtocolError("client %r: 1-40 letters, digits, - or _" % client)
        return client

    def _new(self, body: dict[str, object], now_ms: int) -> list[Out]:
        client = self._client(body)
        if not self._mine(client):
            return []  # another referee's
        if len(self.games) >= MAX_GAMES and not self._forget_finished():
            return [self._reply(client, {"error": "the referee is full: try later"})]
        code = protocol.new_code()
        while code in self.codes or not self._mine(code):  # (N tries on average)
            code = protocol.new_code()
        try:
            game = RefereeGame(
                protocol.new_game_id(),
                code,
                protocol.field(body, "ruleset", str),
                protocol.field(body, "clock", str, optional=True) or "",
                protocol.field(body, "gone_s", int, optional=True) or DEFAULT_GONE_S,
                protocol.new_secret(),
                now_ms,
            )
            secret = protocol.new_secret()
            seat = game.take_seat(
                protocol.field(body, "seat", str, optional=True) or "",
                protocol.field(body, "name", str, optional=True) or "",
                secret,
                now_ms,
            )
        except Refused as exc:
            return [Refusal(self.topics.new(), str(exc)), self._reply(client, {"error": str(exc)})]
        self.games[game.id] = game
        self.codes[code] = game.id
        reply = {"do": "seated", "game": game.id, "code": code, "seat": seat, "secret": secret, "key": game.key}
        reply["shard"] = self.topics.shard  # where the game's topics are
        # The account first: the reply sends the player to it.
        return [Account(game.id, game.key), self._reply(client, reply), *self._changed(game, now_ms)]

    def _join(self, body: dict[str, object], now_ms: int) -> list[Out]:
        client = self._client(body)
        try:
            code = protocol.normal_code(protocol.field(body, "code", str))
        except ProtocolError as exc:
            if not self._mine(client):
                return []  # (one referee answers a code that is none)
            return [Refusal(self.topics.join(), str(exc)), self._reply(client, {"error": str(exc)})]
        if not self._mine(code):
            return []  # another referee's game
        gid = self.codes.get(code)
        if gid is None:
            why = "no game has the invite code %s" % code
            return [Refusal(self.topics.join(), why), self._reply(client, {"error": why})]
        game = self.games[gid]
        secret = protocol.new_secret()
        try:
            seat = game.take_seat(
                protocol.field(body, "seat", str, optional=True) or "",
                protocol.field(body, "name", str, optional=True) or "",
                secret,
                now_ms,
            )
        except Refused as exc:
            return [Refusal(self.topics.join(), "game %s: %s" % (gid, exc)), self._reply(client, {"error": str(exc)})]
        reply = {"do": "seated", "game": gid, "code": code, "seat": seat, "secret": secret, "key": game.key}
        reply["shard"] = self.topics.shard
        return [self._reply(client, reply), *self._changed(game, now_ms)]

    def _player(self, gid: str, seat: str, body: dict[str, object], now_ms: int) -> list[Out]:
        game = self.games.get(gid)
        if game is None:
            raise Refused("no game %s" % gid)
        said = protocol.field(body, "seat", str)
        if said != seat:
            raise Refused("a message for %s on %s's topic" % (said, seat))
        record = game.seats.get(seat)
        if record is None or not record.joined:
            raise Refused("game %s has no %s player" % (gid, seat))
        if not protocol.verify(body, record.secret):
            raise Refused("%s: the message is not signed with the seat's secret (forged?)" % seat)
        mac = str(body["mac"])
        if body.get("do") == "hello":
            return self._hello(game, seat, body, now_ms)
        n = protocol.field(body, "n", int)
        if n <= record.done:
            if record.taken.get(n) == mac:
                return []  # a message taken already, delivered again (QoS 1, a resend): done
            raise Refused("%s: message %d is older than %d (replayed or reordered)" % (seat, n, record.done))
        game.heard(seat, n, mac, now_ms)
        try:
            changed = game.act(seat, body, now_ms)
        except (Refused, ProtocolError) as exc:
            # Taken (its counter is used: the player's resends stop) but refused; the
            # state tells the player why.
            record.refused = {"n": n, "why": str(exc)}
            return [Refusal("%s %s" % (gid, seat), str(exc)), *self._changed(game, now_ms)]
        ticked = game.tick(now_ms)  # the seat is back: no longer gone
        if changed or ticked:
            return self._changed(game, now_ms)
        if body.get("seq") != game.seq:
            return [self._state(game, now_ms)]  # a player behind (or resyncing): the state again
        return []

    def _hello(self, game: RefereeGame, seat: str, body: dict[str, object], now_ms: int) -> list[Out]:
        """A seat says it is here (its own counter ``h``); the state again if it is behind."""
        record = game.seats[seat]
        h = protocol.field(body, "h", int)
        mac = str(body["mac"])
        if h <= record.hello_h:
            if record.hellos.get(h) == mac:
                return []  # one taken already, delivered again
            raise Refused("%s: hello %d is older than %d (replayed or reordered)" % (seat, h, record.hello_h))
        record.hello_h, record.heard_ms = h, now_ms
        remember(record.hellos, h, mac)
        if game.tick(now_ms):  # the seat is back: no longer gone
            return self._changed(game, now_ms)
        if body.get("seq") != game.seq:
            return [self._state(game, now_ms)]  # a player behind (or resyncing): the state again
        return []

    def _state_seen(self, gid: str, payload: bytes, now_ms: int) -> list[Out]:
        """A state on one of the referee's topics: its own, or forged (then put right)."""
        game = self.games.get(gid)
        if game is None:
            return []  # another referee's, or a game forgotten: not ours to judge
        # Its own states are known by their bytes (the mac checked over all of them), not
        # decoded: one comes back a move. Anything else is read in full below.
        mac = protocol.signed_mac(payload, game.key)
        if mac is not None and mac in game.state_macs:
            # One it published coming back to it (a state's mac covers all of it). The
            # broker keeps their order: the ones before it are not coming any more.
            del game.state_macs[: game.state_macs.index(mac) + 1]
            return []
        if mac is not None and mac in game.known_macs:
            # Its own, but not on its way back: the retained one sent again (a new
            # subscription), or an old one replayed. Only the latest may stay retained.
            return [] if mac == game.known_macs[-1] else [self._state(game, now_ms)]
        try:
            body = protocol.decode_state(payload)
        except ProtocolError:
            body = {}
        seq = body.get("seq")
        moves = body.get("moves")
        if (
            protocol.verify(body, game.key)
            and isinstance(seq, int)
            and seq < game.seq
            and isinstance(moves, list)
            and moves == game.moves[: len(moves)]
        ):
            # An older state of this game, true to its history: a broker restarted from
            # its persistence keeps what it saved last. Put right, not a forgery.
            return [self._state(game, now_ms)]
        self.refused += 1
        return [
            Refusal(self.topics.state(gid), "a state the referee did not publish: put right"),
            self._state(game, now_ms),
        ]

    # -- the time ------------------------------------------------------------------------
    def tick(self, now_ms: int) -> list[Out]:
        out: list[Out] = []
        for game in self.games.values():
            if game.tick(now_ms):
                out += self._changed(game, now_ms)
                continue
            if not game.over() and now_ms - game.said_ms >= SAY_STATE_EVERY_MS:
                game.said_ms = now_ms  # the clocks as of now, for a player who missed one
                out.append(self._state(game, now_ms))
            if game.clock is not None and game.clock.running >= 0 and now_ms - game.saved_ms >= SAVE_CLOCK_MS:
                game.saved_ms = now_ms
                out.append(Save(game.id, game_record(game, now_ms)))
        return out

    def _forget_finished(self) -> bool:
        for gid, game in list(self.games.items()):
            if game.over():
                del self.games[gid]
                self.codes.pop(game.code, None)
                return True
        return False
