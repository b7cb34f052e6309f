"""The referee on the network: ``RefereeService`` feeds a ``Referee`` the broker's
messages and the time, publishes what it answers, keeps each game's record on disk (a
journal of every change, one fsync a batch of messages, compacted into one JSON file a
game) and logs every refusal. `zuni referee BROKER_URL` runs it; `zuni play --remote` runs one in
its own process with the embedded broker."""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
from pathlib import Path
from typing import Any, assert_never

import zuni
from zuniboard.remote.broker_accounts import BrokerAccounts
from zuniboard.remote.protocol import LOBBY, Topics
from zuniboard.remote.record import game_record
from zuniboard.remote.referee import Account, Out, Publish, Referee, Refusal, Save
from zuniboard.remote.transport import BrokerConnected, BrokerDisconnected, BrokerMessage, BrokerUrl, Connection, Event

log = logging.getLogger("zuni.referee")
TICK_S = 0.25
BATCH = 256  # messages taken before their changes are written (one fsync) and their states sent
JOURNAL = "journal.jsonl"  # every change, a game's whole record a line, since the last compaction
JOURNAL_MAX = 64 * 1024 * 1024  # then each game's file is written anew and the journal emptied


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
        part: tuple[int, int] = (0, 1),
    ) -> None:
        """``part``: (K, N), this referee the K-th of N sharing the default lobby (then
        ``shard`` is its own, ``protocol.shard_part``)."""
        self.accounts = accounts
        self.topics = Topics(shard, LOBBY if part[1] > 1 else "")
        self.referee = Referee(self.topics, part)
        self.data_dir = data_dir
        self.stopping = threading.Event()
        self.connection = Connection(
            url, client_id or "zuni-referee-%s" % shard, will=(self.topics.referee(), b'{"v":1,"up":false}')
        )
        self.connection.subscribe(*self.topics.referee_filters())
        self.journal_bytes = 0

    def load(self) -> int:
        """The games on disk (each game's file, then the journal's newer records); how many."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        records: dict[str, dict[str, Any]] = {}
        for path in sorted(self.data_dir.glob("*.json")):
            try:
                record = json.loads(path.read_text())
                records[record["id"]] = record
            except (ValueError, KeyError, TypeError) as exc:
                log.error("game file %s cannot be read (%s): left as it is", path, exc)
        journal = self.data_dir / JOURNAL
        if journal.exists():
            for number, line in enumerate(journal.read_text().splitlines(), 1):
                try:
                    record = json.loads(line)
                    records[record["id"]] = record
                except (ValueError, KeyError, TypeError):
                    # Only the last line can be cut short (killed while writing it): its
                    # state was never published, so nothing of it was promised to anyone.
                    log.warning("%s line %d cannot be read: ignored", journal, number)
        for gid, record in records.items():
            try:
                self.referee.restore(record, now_ms())
            except (ValueError, KeyError, TypeError, zuni.ZuniError) as exc:
                log.error("game %s cannot be restored (%s): left on disk", gid, exc)
        self._compact(records)
        return len(self.referee.games)

    def _compact(self, records: dict[str, dict[str, Any]]) -> None:
        """Each game's file from its newest record, then an empty journal."""
        for record in records.values():
            self._write_file(record)
        journal = self.data_dir / JOURNAL
        with open(journal, "w") as out:
            out.flush()
            os.fsync(out.fileno())
        self.journal_bytes = 0

    def run(self) -> None:
        """Until ``stop``: messages in, the referee's answers out. What a batch of
        messages changed is written to the journal with one fsync before any of its
        states is published: a state a player may rely on is always on disk."""
        games = self.load()
        log.info("referee %s: %d games on disk (%s)", self.topics.base, games, self.data_dir)
        self.connection.start()
        next_tick = time.monotonic()
        while not self.stopping.is_set():
            try:
                event = self.connection.events.get(timeout=TICK_S)
            except queue.Empty:
                event = None
            batch: list[Out] = []
            while event is not None and len(batch) < BATCH:
                batch += self._on(event)
                try:
                    event = self.connection.events.get_nowait()
                except queue.Empty:
                    event = None
            if event is not None:
                batch += self._on(event)
            if time.monotonic() >= next_tick:
                next_tick = time.monotonic() + TICK_S
                batch += self.referee.tick(now_ms())
            if batch:
                self._do(batch)
        self.connection.stop()

    def _on(self, event: Event) -> list[Out]:
        match event:
            case BrokerMessage(topic, payload):
                return self.referee.step(now_ms(), topic, payload)
            case BrokerConnected(url):
                log.info("connected to %s", url)
                # Subscribed already (paho sends the subscriptions before this publish).
                self.connection.publish(self.topics.referee(), b'{"v":1,"up":true}', retain=True)
                return self.referee.resume(now_ms())
            case BrokerDisconnected(why):
                log.warning("broker connection lost: %s", why)
                return []
            case _:
                assert_never(event)

    def _do(self, outs: list[Out]) -> None:
        saves = {out.game: out.record for out in outs if isinstance(out, Save)}
        if saves:
            self._journal([record for record in saves.values() if record is not None])
        for out in outs:
            if isinstance(out, Publish):
                self.connection.publish(out.topic, out.payload, out.retain)
            elif isinstance(out, Refusal):
                log.warning("refused %s: %s", out.topic, out.why)
            elif isinstance(out, Account) and self.accounts is not None:
                self.accounts.add(out.user, out.password)

    def _journal(self, records: list[dict[str, Any]]) -> None:
        data = "".join(json.dumps(record, separators=(",", ":")) + "\n" for record in records).encode()
        with open(self.data_dir / JOURNAL, "ab") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        self.journal_bytes += len(data)
        if self.journal_bytes > JOURNAL_MAX:
            self._compact({gid: game_record(game, now_ms()) for gid, game in self.referee.games.items()})

    def _write_file(self, record: dict[str, Any]) -> None:
        path = self.data_dir / ("%s.json" % record["id"])
        temp = path.with_suffix(".tmp")
        with open(temp, "w") as out:
            json.dump(record, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)

    def stop(self) -> None:
        self.stopping.set()
