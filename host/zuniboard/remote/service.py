"""The referee on the network: ``RefereeService`` feeds a ``Referee`` the broker's
messages and the time, publishes what it answers, keeps each game's record on disk
(one JSON file a game, written whole and renamed: a kill loses nothing written) and
logs every refusal. `zuni referee BROKER_URL` runs it; `zuni play --remote` runs one in
its own process with the embedded broker."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import threading
import time
from pathlib import Path

from zuniboard.remote.broker_accounts import BrokerAccounts
from zuniboard.remote.protocol import Topics
from zuniboard.remote.referee import Account, Out, Publish, Referee, Refusal, Save
from zuniboard.remote.transport import BrokerUrl, Connection, Event

log = logging.getLogger("zuni.referee")
TICK_S = 0.25


def now_ms() -> int:
    return int(time.monotonic() * 1000)


class RefereeService:
    def __init__(
        self,
        url: BrokerUrl,
        data_dir: Path,
        shard: str = "a",
        client_id: str = "",
        accounts: BrokerAccounts | None = None,
    ) -> None:
        self.accounts = accounts
        self.topics = Topics(shard)
        self.referee = Referee(self.topics)
        self.data_dir = data_dir
        self.stopping = threading.Event()
        self.connection = Connection(
            url, client_id or "zuni-referee-%s" % shard, will=(self.topics.referee(), b'{"v":1,"up":false}')
        )
        self.connection.subscribe(*self.topics.referee_filters())

    def load(self) -> int:
        """The games on disk; how many."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        count = 0
        for path in sorted(self.data_dir.glob("*.json")):
            try:
                self.referee.restore(json.loads(path.read_text()), now_ms())
                count += 1
            except (ValueError, KeyError, TypeError) as exc:
                log.error("game file %s cannot be read (%s): left as it is", path, exc)
        return count

    def run(self) -> None:
        """Until ``stop``: messages in, the referee's answers out."""
        games = self.load()
        log.info("referee %s: %d games on disk (%s)", self.topics.base, games, self.data_dir)
        self.connection.start()
        next_tick = time.monotonic()
        while not self.stopping.is_set():
            try:
                event = self.connection.events.get(timeout=TICK_S)
            except queue.Empty:
                event = None
            if event is not None:
                self._on(event)
            if time.monotonic() >= next_tick:
                next_tick = time.monotonic() + TICK_S
                self._do(self.referee.tick(now_ms()))
        self.connection.stop()

    def _on(self, event: Event) -> None:
        if event[0] == "message":
            self._do(self.referee.step(now_ms(), event[1], event[2]))
        elif event[0] == "connected":
            log.info("connected to %s", event[1])
            # Subscribed already (paho sends the subscriptions before this publish).
            self.connection.publish(self.topics.referee(), b'{"v":1,"up":true}', retain=True)
            self._do(self.referee.resume(now_ms()))
        elif event[0] == "disconnected":
            log.warning("broker connection lost: %s", event[1])

    def _do(self, outs: list[Out]) -> None:
        for out in outs:
            if isinstance(out, Publish):
                self.connection.publish(out.topic, out.payload, out.retain)
            elif isinstance(out, Save):
                self._save(out)
            elif isinstance(out, Refusal):
                log.warning("refused %s: %s", out.topic, out.why)
            elif isinstance(out, Account) and self.accounts is not None:
                self.accounts.add(out.user, out.password)

    def _save(self, save: Save) -> None:
        path = self.data_dir / ("%s.json" % save.game)
        if save.record is None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            return
        temp = path.with_suffix(".tmp")
        with open(temp, "w") as out:
            json.dump(save.record, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)

    def stop(self) -> None:
        self.stopping.set()
