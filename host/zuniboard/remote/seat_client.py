"""A player's side of a remote game: ``SeatClient``. Pure logic.

It holds the seat's credentials (game, seat, secret, the game's key), numbers and signs
what the player sends, keeps every message until a state from the referee shows it
taken (``done``), sends it again until then (QoS 1 may lose nothing, but a broker
restarted without persistence, or a relay cut, can), says hello every
``HELLO_S`` (the referee counts a silent seat as gone), and takes the newest state that
the game's key signs. Its ``record()`` is saved by the runner after every change, so a
player's PC killed mid-game loses nothing: the next start goes on from it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zuniboard.remote import protocol
from zuniboard.remote.protocol import ProtocolError, Topics

RESEND_S = 2.0  # a message the referee has not taken is sent again after this
HELLO_S = 5.0  # the seat says it is here this often


@dataclass
class Credentials:
    shard: str
    game: str
    code: str
    seat: str
    secret: str
    key: str


@dataclass
class Pending:
    n: int
    body: dict[str, Any]
    sent_s: float


@dataclass
class SeatClient:
    creds: Credentials
    n: int = 0  # the last counter used
    h: int = 0  # the last hello's counter
    pending: list[Pending] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)  # the newest state taken
    hello_s: float = -1e9

    @property
    def topics(self) -> Topics:
        return Topics(self.creds.shard)

    @property
    def seq(self) -> int:
        return int(self.state.get("seq", -1))

    def send(self, action: str, now_s: float, **fields: Any) -> tuple[str, bytes]:
        """A new message (``do`` = ``action``) for the referee: topic and payload. A
        hello counts apart (``h``): it is never sent again, and one sent while an action
        waits to be resent must not make that action look older than it."""
        body: dict[str, Any] = {"v": protocol.VERSION, "do": action, "seat": self.creds.seat, **fields}
        if action == "hello":
            self.h += 1
            body["h"] = self.h
        else:
            self.n += 1
            body["n"] = self.n
        body = protocol.sign(body, self.creds.secret)
        if action != "hello":
            self.pending.append(Pending(self.n, body, now_s))
        self.hello_s = now_s
        return self._out(body)

    def move(self, ply: int, text: str, now_s: float) -> tuple[str, bytes]:
        return self.send("move", now_s, ply=ply, move=text)

    def _out(self, body: dict[str, Any]) -> tuple[str, bytes]:
        return self.topics.inbox(self.creds.game, self.creds.seat), protocol.encode(body)

    def take_state(self, payload: bytes) -> dict[str, Any] | None:
        """The referee's state if it is newer than the one held and signed with the
        game's key; None for an older, the same, or a forged one."""
        try:
            body = protocol.decode_state(payload)
        except ProtocolError:
            return None
        if not protocol.verify(body, self.creds.key) or body.get("game") != self.creds.game:
            return None
        seq = body.get("seq")
        if not isinstance(seq, int) or seq < self.seq:
            return None
        if seq == self.seq and body.get("left") == self.state.get("left"):
            return None
        self.state = body
        done = int(dict(body.get("done") or {}).get(self.creds.seat, 0))
        self.pending = [p for p in self.pending if p.n > done]
        return body

    def in_flight(self, what: str) -> list[dict[str, Any]]:
        """The messages of kind ``what`` not taken yet."""
        return [p.body for p in self.pending if p.body.get("do") == what]

    def tick(self, now_s: float) -> list[tuple[str, bytes]]:
        """What is due: messages to send again, a hello."""
        out = []
        for p in self.pending:
            if now_s - p.sent_s >= RESEND_S:
                p.sent_s = now_s
                out.append(self._out(p.body))
        if now_s - self.hello_s >= HELLO_S:
            out.append(self.send("hello", now_s, seq=self.seq))
        return out

    def resync(self, now_s: float) -> list[tuple[str, bytes]]:
        """Connected (again): everything not taken, and a hello asking for the state."""
        for p in self.pending:
            p.sent_s = now_s
        return [self._out(p.body) for p in self.pending] + [self.send("hello", now_s, seq=-1)]

    # -- kept on disk --------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        c = self.creds
        return {
            "creds": [c.shard, c.game, c.code, c.seat, c.secret, c.key],
            "n": self.n,
            "h": self.h,
            "pending": [p.body for p in self.pending],
            "state": self.state,
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> SeatClient:
        client = cls(Credentials(*data["creds"]), int(data["n"]), int(data.get("h", 0)))
        client.pending = [Pending(int(b["n"]), b, -1e9) for b in data["pending"]]
        client.state = dict(data["state"])
        return client


def save_seat(path: Path, client: SeatClient, client_id: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    temp.write_text(json.dumps({"client_id": client_id, "seat": client.record()}))
    os.replace(temp, path)
