"""The remote games' topics and messages (docs/remote.md is the contract).

Every message is a JSON object of at most ``MAX_PAYLOAD`` bytes. A player's message
carries its seat, a per-seat counter ``n`` (strictly increasing: a replay or a reordered
copy is refused) and ``mac``, an HMAC-SHA256 of the message without ``mac`` under the
seat's secret; the secret itself travels once, in the join reply. The referee's state
messages carry ``mac`` under the game's key (every player of the game has it), so that
a state published by someone outside the game is told apart.

>>> body = {"v": 1, "do": "move", "seat": "south", "n": 1, "ply": 0, "move": "m6-m5"}
>>> signed = sign(body, "secret")
>>> verify(signed, "secret")
True
>>> verify(dict(signed, move="m6-m4"), "secret")
False
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

import platformdirs

T = TypeVar("T")

VERSION = 1
ROOT = "zuni/v1"
MAX_PAYLOAD = 4096  # bytes: anything longer a player sends is refused unread
MAX_STATE = 65536  # bytes: a referee's state (a long game's move list) may pass MAX_PAYLOAD
# The invite code's letters: no 0/o, 1/l/i, so that it can be read out and typed.
CODE_LETTERS = "23456789abcdefghjkmnpqrstuvwxyz"
CODE_LENGTH = 6
SEATS = ("south", "west", "north", "east")
ACTIONS = ("move", "offer", "answer", "resign", "claim", "hello")
OFFERS = ("takeback", "draw", "count")
CLAIMS = ("win", "draw")
MAX_NAME = 40
# A seat's presence on its ``seen`` topic: said on connecting; its last will says GONE.
HERE = b'{"v":1,"here":true}'
GONE = b'{"v":1,"here":false}'


def remote_dir() -> Path:
    """Where the referee keeps its games and a player its seats: ``$ZUNI_REMOTE_DIR``,
    else ``remote`` in the user's data directory."""
    env = os.environ.get("ZUNI_REMOTE_DIR", "")
    return Path(env) if env else Path(platformdirs.user_data_dir("zuniboard")) / "remote"


class ProtocolError(ValueError):
    """A message that is not one of docs/remote.md's: what is wrong, and where."""


@dataclass(frozen=True)
class Topic:
    """A topic of a referee's tree: ``kind`` new, join, reply, state, in, seen, referee;
    ``game`` and ``seat`` where the kind has them, ``client`` for a reply."""

    kind: str
    game: str = ""
    seat: str = ""
    client: str = ""


LOBBY = "a"  # the shard whose new, join and reply topics the players use by default


def shard_part(text: str) -> tuple[str, int, int]:
    """``--shard``: a name (``b``: a referee of its own, its own players) or ``K/N`` (the
    K-th of N referees sharing the default lobby). Returns (name, K, N)."""
    k, slash, n = text.partition("/")
    if not slash:
        Topics(text)  # checks the name
        return text, 0, 1
    if not (k.isdigit() and n.isdigit() and 0 <= int(k) < int(n) <= 99):
        raise ProtocolError("shard %r: a name, or K/N with 0 <= K < N <= 99 (the K-th of N referees)" % text)
    if int(n) == 1:
        return LOBBY, 0, 1
    return "%sof%s" % (int(k), int(n)), int(k), int(n)


def part_of(key: str, parts: int) -> int:
    """Which of ``parts`` referees owns ``key`` (a new game's client id, an invite code):
    the same in every process and on every machine (Python's hash() is not)."""
    return zlib.crc32(key.encode()) % parts


class Topics:
    """The topic layout under ``ROOT/<shard>`` (one referee, or one shard of several).

    ``lobby``: the shard whose ``new``, ``join`` and ``reply`` topics this one's referee
    reads and answers on (default: its own); the K-th of N referees use ``LOBBY``'s, so
    that a player needs no shard: the referee's reply names the game's."""

    def __init__(self, shard: str = "a", lobby: str = "") -> None:
        for name in (shard, lobby or shard):
            if not name.isalnum() or len(name) > 8:
                raise ProtocolError("shard %r: letters and digits, at most 8" % name)
        self.shard = shard
        self.base = "%s/%s" % (ROOT, shard)
        self.lobby = "%s/%s" % (ROOT, lobby or shard)

    def new(self) -> str:
        return self.lobby + "/new"

    def join(self) -> str:
        return self.lobby + "/join"

    def reply(self, client: str) -> str:
        return "%s/reply/%s" % (self.lobby, client)

    def state(self, game: str) -> str:
        return "%s/g/%s/state" % (self.base, game)

    def inbox(self, game: str, seat: str) -> str:
        return "%s/g/%s/in/%s" % (self.base, game, seat)

    def seen(self, game: str, seat: str) -> str:
        return "%s/g/%s/seen/%s" % (self.base, game, seat)

    def referee(self) -> str:
        return self.base + "/referee"

    def referee_filters(self) -> list[str]:
        """What the referee subscribes to."""
        return [self.new(), self.join(), self.base + "/g/+/in/+", self.base + "/g/+/state"]

    def parse(self, topic: str) -> Topic:
        """The parts of ``topic``; ProtocolError for one outside the layout."""
        if topic in (self.new(), self.join()):
            return Topic(topic.rsplit("/", 1)[1])
        if not topic.startswith(self.base + "/"):
            raise ProtocolError("topic %r is not under %s/" % (topic[:120], self.base))
        parts = topic[len(self.base) + 1 :].split("/")
        if parts == ["new"] or parts == ["join"] or parts == ["referee"]:
            return Topic(parts[0])
        if len(parts) == 2 and parts[0] == "reply" and is_token(parts[1]):
            return Topic("reply", client=parts[1])
        if len(parts) == 3 and parts[0] == "g" and parts[2] == "state" and is_token(parts[1]):
            return Topic("state", game=parts[1])
        if len(parts) == 4 and parts[0] == "g" and parts[2] in ("in", "seen") and is_token(parts[1]):
            if parts[3] not in SEATS:
                raise ProtocolError("topic %r: no seat %r (seats: %s)" % (topic[:120], parts[3], ", ".join(SEATS)))
            return Topic(parts[2], game=parts[1], seat=parts[3])
        raise ProtocolError("topic %r is not one of docs/remote.md's" % topic[:120])


def is_token(text: str) -> bool:
    """An id in a topic: 1-40 letters, digits, - or _ (no wildcards, no separators)."""
    return TOKEN.fullmatch(text) is not None


# (A regular expression: twice a message on the referee's path, a topic's game and seat.)
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,40}")


def new_code() -> str:
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def new_secret() -> str:
    return secrets.token_hex(16)


def new_game_id() -> str:
    return secrets.token_hex(6)


def normal_code(text: str) -> str:
    """The code as typed (any case, spaces or dashes) -> its letters; ProtocolError if not one."""
    code = "".join(c for c in text.strip().lower() if c not in " -")
    if len(code) != CODE_LENGTH or any(c not in CODE_LETTERS for c in code):
        raise ProtocolError(
            "invite code %r: %d of the letters %s (e.g. k7m-q2p)" % (text, CODE_LENGTH, CODE_LETTERS.upper())
        )
    return code


def canonical(body: Mapping[str, object]) -> bytes:
    return json.dumps({k: v for k, v in body.items() if k != "mac"}, sort_keys=True, separators=(",", ":")).encode()


def sign(body: Mapping[str, object], key: str) -> dict[str, object]:
    out = dict(body)
    out["mac"] = hmac.new(key.encode(), canonical(body), hashlib.sha256).hexdigest()
    return out


def signed_bytes(body: Mapping[str, object], key: str) -> tuple[str, bytes]:
    """``body`` signed, as the bytes to publish, and its mac: the canonical form with the
    mac appended (one encoding instead of two: the referee's hot path, a state a move)."""
    data = canonical(body)
    mac = hmac.new(key.encode(), data, hashlib.sha256).hexdigest()
    return mac, data[:-1] + b',"mac":"' + mac.encode() + b'"}'


MAC_HEAD = b',"mac":"'
MAC_TAIL = len(MAC_HEAD) + 64 + 2  # what ``signed_bytes`` appends: the mac field and the '"}'


def signed_mac(payload: bytes, key: str) -> str | None:
    """The mac of ``payload`` when it is byte for byte what ``signed_bytes`` makes with
    ``key``, else None. Checked without decoding the JSON: the referee's own states come
    back to it (a move each), and one HMAC costs less than reading the state again."""
    if len(payload) <= MAC_TAIL or payload[-MAC_TAIL : -MAC_TAIL + len(MAC_HEAD)] != MAC_HEAD:
        return None
    if not payload.endswith(b'"}'):
        return None
    mac = payload[-66:-2]
    signed = hmac.new(key.encode(), payload[:-MAC_TAIL] + b"}", hashlib.sha256).hexdigest().encode()
    return signed.decode() if hmac.compare_digest(mac, signed) else None


def verify(body: Mapping[str, object], key: str) -> bool:
    mac = body.get("mac")
    if not isinstance(mac, str):
        return False
    return hmac.compare_digest(mac, hmac.new(key.encode(), canonical(body), hashlib.sha256).hexdigest())


def encode(body: Mapping[str, object]) -> bytes:
    data = json.dumps(body, separators=(",", ":")).encode()
    if len(data) > MAX_PAYLOAD:
        raise ProtocolError("message of %d bytes: at most %d" % (len(data), MAX_PAYLOAD))
    return data


def json_bytes(body: Mapping[str, object]) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def decode_state(payload: bytes) -> dict[str, Any]:
    """A referee's state message (up to ``MAX_STATE`` bytes). Any: the referee signs
    it (``verify``) and a player's side reads it field by field with defaults."""
    return decode(payload, MAX_STATE)


def decode(payload: bytes, limit: int = MAX_PAYLOAD) -> dict[str, object]:
    """A message's JSON object; ProtocolError for an oversized, non-JSON or non-object one."""
    if len(payload) > limit:
        raise ProtocolError("payload of %d bytes: at most %d" % (len(payload), limit))
    try:
        body = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError("payload is not JSON: %s" % exc)
    if not isinstance(body, dict):
        raise ProtocolError("payload is JSON but not an object")
    if body.get("v") != VERSION:
        raise ProtocolError("message version %r: this referee speaks %d" % (body.get("v"), VERSION))
    return body


@overload
def field(body: Mapping[str, object], name: str, kind: type[T], *, optional: Literal[False] = False) -> T: ...


@overload
def field(body: Mapping[str, object], name: str, kind: type[T], *, optional: Literal[True]) -> T | None: ...


def field(body: Mapping[str, object], name: str, kind: type[T], *, optional: bool = False) -> T | None:
    """``body[name]`` of type ``kind``; ProtocolError naming the field otherwise."""
    if name not in body:
        if optional:
            return None
        raise ProtocolError("field %r is missing" % name)
    value = body[name]
    if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
        raise ProtocolError("field %r is %r: a %s is expected" % (name, value, kind.__name__))
    if isinstance(value, str) and len(value) > 200:
        raise ProtocolError("field %r is %d characters long: at most 200" % (name, len(value)))
    return value


def clean_name(text: str) -> str:
    """A player's name as others see it: printable, at most ``MAX_NAME`` characters."""
    name = "".join(c for c in text if c.isprintable()).strip()[:MAX_NAME]
    return name or "someone"
