"""Several referees sharing the games (docs/remote.md, "Several referees"), pure: the
K-th of N takes the new games of the client ids and the joins of the invite codes that
``part_of`` gives it, mints only codes that are its own, names its shard in its reply,
and leaves every other request unanswered, so a player needs no option."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zuniboard.remote import protocol
from zuniboard.remote.protocol import LOBBY, ProtocolError, Topics, part_of, shard_part
from zuniboard.remote.referee import Publish, Referee, Refusal
from zuniboard.remote.seat_client import Credentials, SeatClient

LOBBY_TOPICS = Topics(LOBBY)


def referees(n: int) -> list[Referee]:
    out = []
    for k in range(n):
        name, kk, nn = shard_part("%d/%d" % (k, n))
        out.append(Referee(Topics(name, LOBBY), (kk, nn)))
    return out


def ask(refs: list[Referee], topic: str, body: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """Every referee's replies to one request: (which referee, the reply)."""
    payload = json.dumps(dict(body, v=1)).encode()
    replies = []
    for i, ref in enumerate(refs):
        for out in ref.step(0, topic, payload):
            if isinstance(out, Publish) and out.topic == LOBBY_TOPICS.reply(str(body["client"])):
                replies.append((i, json.loads(out.payload)))
    return replies


def test_shard_names() -> None:
    assert shard_part("a") == ("a", 0, 1)
    assert shard_part("b") == ("b", 0, 1)
    assert shard_part("0/1") == ("a", 0, 1)  # one referee of one: the default's topics
    assert shard_part("2/4") == ("2of4", 2, 4)
    for bad in ("4/4", "1/0", "x/2", "-1/2", "1/100", "a/b/c", "a b"):
        with pytest.raises(ProtocolError, match="shard"):
            shard_part(bad)


def test_each_request_is_answered_by_exactly_one_referee_which_names_its_shard() -> None:
    refs = referees(3)
    owners = set()
    for i in range(30):
        client = "player-%d" % i
        replies = ask(refs, LOBBY_TOPICS.new(), {"do": "new", "client": client, "ruleset": "mosona", "seat": "south"})
        assert len(replies) == 1, replies
        owner, reply = replies[0]
        assert owner == part_of(client, 3)  # the client id's referee makes the game ...
        assert part_of(reply["code"], 3) == owner  # ... with a code that leads back to it
        assert reply["shard"] == "%dof3" % owner
        owners.add(owner)
        joiner = "joiner-%d" % i
        joined = ask(refs, LOBBY_TOPICS.join(), {"do": "join", "client": joiner, "code": reply["code"], "name": "Bea"})
        assert [(who, r["game"], r["shard"]) for who, r in joined] == [(owner, reply["game"], reply["shard"])]
    assert owners == {0, 1, 2}


def test_a_wrong_code_is_answered_once_and_a_game_plays_under_its_shard() -> None:
    refs = referees(2)
    replies = ask(refs, LOBBY_TOPICS.join(), {"do": "join", "client": "c9", "code": "k7mq2p"})
    assert len(replies) == 1 and replies[0][1]["error"] == "no game has the invite code k7mq2p"
    replies = ask(refs, LOBBY_TOPICS.join(), {"do": "join", "client": "c9", "code": "!!"})
    assert len(replies) == 1 and "error" in replies[0][1]

    owner, made = ask(refs, LOBBY_TOPICS.new(), {"do": "new", "client": "c1", "ruleset": "mosona", "seat": "south"})[0]
    ask(refs, LOBBY_TOPICS.join(), {"do": "join", "client": "c2", "code": made["code"]})
    creds = Credentials(made["shard"], made["game"], made["code"], "south", made["secret"], made["key"])
    topic, payload = SeatClient(creds).move(0, "s3xm4-m5", 0.0)
    assert topic == "zuni/v1/%s/g/%s/in/south" % (made["shard"], made["game"])
    outs = refs[owner].step(0, topic, payload)
    states = [json.loads(o.payload) for o in outs if isinstance(o, Publish) and o.retain]
    assert states and states[-1]["moves"] == ["s3xm4-m5"]
    assert states[-1]["game"] == made["game"]
    # The other referee knows no such topic: refused, logged, nothing else.
    other = refs[1 - owner].step(0, topic, payload)
    assert [type(o) for o in other] == [Refusal]


def test_one_referee_as_before() -> None:
    """A referee of its own (the default): its lobby is its shard, its reply names it."""
    ref = Referee(Topics("a"))
    outs = ref.step(0, "zuni/v1/a/new", protocol.encode({"v": 1, "do": "new", "ruleset": "mosona", "client": "c"}))
    reply = next(json.loads(o.payload) for o in outs if isinstance(o, Publish) and o.topic == "zuni/v1/a/reply/c")
    assert reply["shard"] == "a"


def test_referees_sharing_one_password_file_lose_none_of_each_others_users(tmp_path: Any) -> None:
    """Per-game accounts (docs/remote.md) with several referees: each adds its games'
    users to Mosquitto's one password file at the same time as the others."""
    import subprocess
    import sys

    passwd = tmp_path / "zuni.passwd"
    passwd.write_text("operator:kept\n")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from zuniboard.remote.broker_accounts import BrokerAccounts\n"
        "accounts = BrokerAccounts(Path(sys.argv[1]), None)\n"
        "for i in range(40):\n"
        "    accounts.add('%s%02d' % (sys.argv[2], i), 'key')\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(passwd), who]) for who in ("ref0x", "ref1x")]
    assert [p.wait(120) for p in procs] == [0, 0]
    users = [line.split(":", 1)[0] for line in passwd.read_text().splitlines()]
    assert sorted(users) == sorted(["operator"] + ["ref%dx%02d" % (k, i) for k in range(2) for i in range(40)])
