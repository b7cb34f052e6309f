"""Taking a seat in a remote game: ``take_seat`` (docs/remote.md, "Starting").

``zuni play --remote new`` asks the referee for a new game (with no broker given, it runs
the embedded broker and a referee itself, on 127.0.0.1:1883, unless one answers there
already) and prints the invite code; ``zuni play --remote CODE`` joins with it, or goes
on with the seat this computer saved for that code (a PC restarted mid-game). Then it
waits for every seat to be taken: the game starts on the boards when all are there.
"""

from __future__ import annotations

import json
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, assert_never

from zuniboard.remote import protocol
from zuniboard.remote.broker import DEFAULT_PORT, EmbeddedBroker, port_taken
from zuniboard.remote.protocol import GONE, HERE, ProtocolError, Topics
from zuniboard.remote.seat_client import Credentials, SeatClient, save_seat
from zuniboard.remote.service import RefereeService
from zuniboard.remote.transport import (
    BrokerConnected,
    BrokerDisconnected,
    BrokerMessage,
    BrokerUrl,
    Connection,
    parse_url,
    with_account,
)

LOCAL_URL = "mqtt://127.0.0.1:%d" % DEFAULT_PORT
REFEREES_UP = protocol.ROOT + "/+/referee"  # each referee's retained {"up": true}, once it listens
ANSWER_S = 15.0  # the broker connects and the referee answers within this


class LobbyError(RuntimeError):
    """No seat: the broker or the referee cannot be reached, or the referee refused."""


@dataclass
class Seated:
    connection: Connection
    client: SeatClient
    seat_file: Path
    client_id: str
    resumed: bool
    helpers: list[Any] = field(default_factory=list)  # the embedded broker and referee, stopped at the end
    broker: str | None = None  # the broker's URL as the player gave it (None: the local one)

    @property
    def invite(self) -> str:
        """What the others type to join."""
        code = self.client.creds.code.upper()
        where = "" if self.broker is None else " --broker %s" % self.broker
        return "zuni play --remote %s-%s%s" % (code[:3], code[3:], where)

    def players(self) -> dict[str, str | None]:
        """The seats for the log: this board's a person's, the others' their players' names."""
        mine = self.client.creds.seat
        seats = dict(self.client.state.get("seats") or {})
        return {s: "human" if s == mine else "remote:%s" % v.get("name", "?") for s, v in seats.items()}

    def close(self) -> None:
        self.connection.stop()
        for helper in reversed(self.helpers):
            helper.stop()


class SeatLock:
    """A seat saved on this computer is in use while a `zuni play` holds its lock: a
    second terminal with the same code is another player, who joins; a PC restarted
    finds the lock free and goes on with the saved seat."""

    def __init__(self, path: Path) -> None:
        self.path = path.with_suffix(".lock")
        self.file: Any = None

    def acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(self.path, "a+")
        try:
            import fcntl
        except ImportError:  # Windows: no advisory locks here; a seat is resumed as saved
            return True
        try:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.file.close()
            self.file = None
            return False
        return True

    def release(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None

    stop = release  # stopped with the other helpers of a seat


class _RefereeThread:
    def __init__(self, service: RefereeService) -> None:
        self.service = service
        self.thread = threading.Thread(target=service.run, name="zuni-referee", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.service.stop()
        self.thread.join(10)


def quiet_referee(path: Path) -> None:
    """The embedded referee's refusals go to a file, not into the player's terminal."""
    import logging

    path.parent.mkdir(parents=True, exist_ok=True)
    logger = logging.getLogger("zuni.referee")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logger.addHandler(handler)


def seat_path(code: str, seat: str) -> Path:
    return protocol.remote_dir() / "seats" / ("%s-%s.json" % (code, seat))


def saved_seat(code: str) -> tuple[dict[str, Any], SeatLock] | None:
    """A seat of game ``code`` saved here and not in use by another `zuni play`."""
    for path in sorted((protocol.remote_dir() / "seats").glob("%s-*.json" % code)):
        lock = SeatLock(path)
        if lock.acquire():
            try:
                return json.loads(path.read_text()), lock
            except (OSError, ValueError):
                lock.release()
    return None


def take_seat(
    code: str,
    *,
    broker: str | None,
    say: Callable[[str], None],
    name: str,
    ruleset: str = "mosona",
    clock: str = "",
    seat: str = "",
    gone_s: int = 0,
    shard: str = "a",
) -> Seated:
    helpers: list[Any] = []
    url_text = broker or LOCAL_URL
    try:
        url = parse_url(url_text)
    except ValueError as exc:
        raise LobbyError(str(exc))
    topics = Topics(shard)
    code, saved, lock = _code_and_saved_seat(code)
    if lock is not None:
        helpers.append(lock)
    if broker is None and not port_taken("127.0.0.1", DEFAULT_PORT):
        helpers += _local_broker(url, shard, code, say)
    client_id = str(saved["client_id"]) if saved else "zuni-%s" % secrets.token_hex(6)
    client = SeatClient.from_record(saved["seat"]) if saved else None
    connection: Connection | None = None
    try:
        if client is None:
            lobby = Connection(url, client_id)
            lobby.subscribe(topics.reply(client_id), REFEREES_UP)
            lobby.start()
            try:
                wait_connected(lobby, url_text)
                client = ask_seat(lobby, topics, client_id, code, name, ruleset, clock, seat, gone_s)
            finally:
                lobby.stop()
            if code == "new":
                say(_invite_words(client.creds.code, broker))
        connection = game_connection(url, url_text, client_id, client)
        path = seat_path(client.creds.code, client.creds.seat)
        if lock is None:
            lock = SeatLock(path)
            lock.acquire()
            helpers.append(lock)
        seated = Seated(connection, client, path, client_id, saved is not None, helpers, broker)
        save_seat(seated.seat_file, client, client_id)
        if saved is not None:
            say("going on with your seat (%s) of game %s, saved on this computer" % (client.creds.seat, code))
        return seated
    except BaseException:
        if connection is not None:
            connection.stop()
        for helper in reversed(helpers):
            helper.stop()
        raise


def _code_and_saved_seat(code: str) -> tuple[str, dict[str, Any] | None, SeatLock | None]:
    """The invite code as written in the records ("new" as it is) and, when this
    computer has a seat of that game saved, the seat and its lock (held)."""
    if code == "new":
        return code, None, None
    try:
        code = protocol.normal_code(code)
    except ProtocolError as exc:
        raise LobbyError(str(exc))
    found = saved_seat(code)
    return (code, None, None) if found is None else (code, found[0], found[1])


def _local_broker(
    url: BrokerUrl, shard: str, code: str, say: Callable[[str], None]
) -> list[EmbeddedBroker | _RefereeThread]:
    """No broker given and none on this computer: a new game starts a broker and a
    referee here (returned, to stop when the player quits); joining needs the game's."""
    if code != "new":
        raise LobbyError(
            "no broker on 127.0.0.1:%d: the player who made the game runs it (zuni play --remote new); "
            "or give --broker URL" % DEFAULT_PORT
        )
    embedded = EmbeddedBroker("127.0.0.1", DEFAULT_PORT)
    embedded.start()
    quiet_referee(protocol.remote_dir() / "referee.log")
    service = RefereeService(url, protocol.remote_dir() / "referee" / shard, shard=shard)
    say("started a broker and a referee on %s (they stop when you quit)" % url)
    return [embedded, _RefereeThread(service)]


def _invite_words(code: str, broker: str | None) -> str:
    pretty = (code[:3] + "-" + code[3:]).upper()
    return "invite code: %s (the others type: zuni play --remote %s%s)" % (
        pretty,
        pretty,
        "" if broker is None else " --broker %s" % broker,
    )


def game_connection(url: BrokerUrl, url_text: str, client_id: str, client: SeatClient) -> Connection:
    """The seat's connection: its presence (a last will on its ``seen`` topic), the
    game's state and the others' presence; with the game's broker account where the
    broker has per-game accounts (a user name in the URL: docs/remote.md)."""
    creds = client.creds
    topics = Topics(creds.shard)
    if url.username is not None:
        url = with_account(url, creds.game, creds.key)
    connection = Connection(url, client_id, will=(topics.seen(creds.game, creds.seat), GONE))
    connection.subscribe(topics.state(creds.game), topics.base + "/g/%s/seen/+" % creds.game)
    connection.start()
    try:
        wait_connected(connection, url_text)
    except LobbyError:
        connection.stop()
        raise
    connection.publish(topics.seen(creds.game, creds.seat), HERE, retain=True)
    return connection


def wait_connected(connection: Connection, url: str) -> None:
    deadline = time.monotonic() + ANSWER_S
    why = ""
    while time.monotonic() < deadline:
        try:
            event = connection.events.get(timeout=0.2)
        except queue.Empty:
            continue
        match event:
            case BrokerConnected():
                return
            case BrokerDisconnected(why):
                pass
            case BrokerMessage():
                pass  # (nothing is subscribed yet)
            case _:
                assert_never(event)
    raise LobbyError("cannot reach the broker %s within %.0f s%s" % (url, ANSWER_S, ": " + why if why else ""))


def ask_seat(
    connection: Connection,
    topics: Topics,
    client_id: str,
    code: str,
    name: str,
    ruleset: str,
    clock: str,
    seat: str,
    gone_s: int,
) -> SeatClient:
    body: dict[str, Any] = {"v": protocol.VERSION, "client": client_id, "name": name, "seat": seat}
    if code == "new":
        body.update({"do": "new", "ruleset": ruleset, "clock": clock})
        if gone_s:
            body["gone_s"] = gone_s
        topic = topics.new()
    else:
        body.update({"do": "join", "code": code})
        topic = topics.join()
    # A request the broker gets before any referee subscribed is dropped (MQTT keeps
    # no message for a topic nobody reads): sent once a referee says it is up. (The
    # embedded referee starts with this command and may take seconds on a busy PC.)
    deadline = time.monotonic() + ANSWER_S
    sent = False
    while time.monotonic() < deadline:
        try:
            event = connection.events.get(timeout=0.2)
        except queue.Empty:
            continue
        if not isinstance(event, BrokerMessage):
            continue
        if not sent and event.topic.endswith("/referee"):
            try:
                up = json.loads(event.payload).get("up") is True
            except (ValueError, AttributeError):
                up = False
            if up:
                connection.publish(topic, protocol.encode(body))
                sent = True
        elif event.topic == topics.reply(client_id):
            reply = json.loads(event.payload)
            if "error" in reply:
                raise LobbyError("the referee: %s" % reply["error"])
            # The game's shard is the referee's that answered (one of several: docs/remote.md).
            shard = str(reply.get("shard", topics.shard))
            try:
                Topics(shard)
            except ProtocolError as exc:
                raise LobbyError("the referee's reply: %s" % exc)
            creds = Credentials(shard, reply["game"], reply["code"], reply["seat"], reply["secret"], reply["key"])
            return SeatClient(creds)
    if not sent:
        raise LobbyError(
            "no referee is up on %s: none said so within %.0f s (is `zuni referee` running?)"
            % (connection.url, ANSWER_S)
        )
    raise LobbyError(
        "no referee answered on %s within %.0f s (is `zuni referee` running?)" % (connection.url, ANSWER_S)
    )


def wait_for_seats(seated: Seated, say: Callable[[str], None], stop: Callable[[], bool] = lambda: False) -> None:
    """Until every seat is taken (saying who joined), or the game is already over."""
    client = seated.client
    joined: set[str] = set()
    asked = False
    while not stop():
        try:
            event = seated.connection.events.get(timeout=0.2)
        except queue.Empty:
            event = None
        now = time.monotonic()
        if isinstance(event, BrokerMessage):
            client.take_state(event.payload)  # (a presence message is not a state: not taken)
        elif isinstance(event, BrokerConnected) or not asked:
            if asked:
                creds = client.creds
                seated.connection.publish(Topics(creds.shard).seen(creds.game, creds.seat), HERE, retain=True)
            asked = True
            for topic, payload in client.resync(now):
                seated.connection.publish(topic, payload)
        for topic, payload in client.tick(now):
            seated.connection.publish(topic, payload)
        seats = dict(client.state.get("seats") or {})
        for side, info in seats.items():
            if info.get("joined") and side not in joined:
                joined.add(side)
                mine = " (you)" if side == client.creds.seat else ""
                say("%s: %s%s" % (side, info.get("name", "?"), mine))
        if seats and len(joined) == len(seats):
            return
    raise KeyboardInterrupt
