"""docs/remote.md's Mosquitto recipe, run: TLS with a certificate the test makes, a
password file, and per-game ACLs kept by the referee (`zuni referee --passwords`, one
account a game). Players play in their own game; a player of one game can neither
publish into another game's topics nor read its state; a wrong password is refused."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from remote_net import Bot, Mosquitto, free_port, make_certificates, need_mosquitto, wait_for

from zuniboard.remote.protocol import Topics
from zuniboard.remote.transport import BrokerDisconnected, BrokerMessage

ZUNI = Path(sys.executable).parent / "zuni"
TOPICS = Topics("a")
ACL = """user referee
topic readwrite zuni/v1/#

pattern write zuni/v1/+/new
pattern write zuni/v1/+/join
pattern read zuni/v1/+/reply/%c
pattern read zuni/v1/+/referee
pattern read zuni/v1/+/g/%u/state
pattern write zuni/v1/+/g/%u/in/#
pattern readwrite zuni/v1/+/g/%u/seen/#
"""


def test_tls_passwords_and_per_game_acls(tmp_path: Path) -> None:
    need_mosquitto()
    home = tmp_path / "broker"
    home.mkdir()
    ca, cert, key = make_certificates(home)
    passwords = home / "passwd"
    for user, password in (("referee", "ref-pw"), ("lobby", "lobby-pw")):
        create = ["-c"] if user == "referee" else []
        command = ["mosquitto_passwd", *create, "-b", str(passwords), user, password]
        subprocess.run(command, check=True, capture_output=True)
    (home / "acl").write_text(ACL)
    port = free_port()
    broker = Mosquitto(home, port=port)
    broker.extra = (
        "allow_anonymous false\npassword_file %s\nacl_file %s\npid_file %s\ncafile %s\ncertfile %s\nkeyfile %s\n"
        % (passwords, home / "acl", home / "mosquitto.pid", ca, cert, key)
    )
    broker.start()
    base = "mqtts://%%s@localhost:%d?ca=%s" % (port, ca)
    referee_log = tmp_path / "referee.log"
    with open(referee_log, "wb") as log:
        referee = subprocess.Popen(
            [
                str(ZUNI),
                "referee",
                base % "referee:ref-pw",
                "--data",
                str(tmp_path / "games"),
                "--passwords",
                str(passwords),
                "--mosquitto-pid",
                str(home / "mosquitto.pid"),
            ],
            stderr=log,
        )
    bots: list[Bot] = []
    try:
        games = []
        for tag in ("x", "y"):
            first, second = Bot(base % "lobby:lobby-pw", "%s-1" % tag), Bot(base % "lobby:lobby-pw", "%s-2" % tag)
            bots += [first, second]
            reply = first.ask(TOPICS.new(), {"do": "new", "ruleset": "mosona", "seat": "south", "name": "Ann"})
            assert "error" not in reply, reply
            second.ask(TOPICS.join(), {"do": "join", "code": reply["code"], "name": "Bea"})
            for bot in (first, second):
                bot.use_game_account()
            games.append((first, second))
        (x_south, x_north), (y_south, y_north) = games
        # Each game plays in its own topics with its own account.
        for south in (x_south, y_south):
            wait_for("the game's state", lambda s=south: s.state.get("turn") == "south", pump=south.pump)
            south.move("s3xm4-m5")
            wait_for("the move taken", lambda s=south: s.state.get("moves") == ["s3xm4-m5"], pump=south.pump)
        game_y = y_south.client.creds.game  # type: ignore[union-attr]
        seq_y = y_south.state["seq"]
        # A player of game x publishes into game y's topics: the broker drops it, so the
        # referee never sees it (a message it saw would be refused and logged).
        x_north.conn.publish(TOPICS.inbox(game_y, "north"), b'{"v":1,"do":"resign","seat":"north","n":99}')
        x_north.conn.publish(TOPICS.state(game_y), json.dumps({"v": 1, "moves": []}).encode(), retain=True)
        # ... and cannot read game y's state.
        x_north.conn.subscribe(TOPICS.state(game_y))
        deadline = time.monotonic() + 3.0
        seen_y = []
        while time.monotonic() < deadline:
            event = x_north.conn.events.get(timeout=3.0) if not x_north.conn.events.empty() else None
            if isinstance(event, BrokerMessage) and event.topic == TOPICS.state(game_y):
                seen_y.append(event)
            time.sleep(0.05)
        assert seen_y == []
        # The same garbage from game y's own player does reach the referee (the probe works).
        y_north.conn.publish(TOPICS.inbox(game_y, "north"), b"garbage")
        wait_for("the referee's refusal", lambda: "refused" in referee_log.read_text())
        assert referee_log.read_text().count("refused") == 1
        y_south.pump()
        assert y_south.state["seq"] == seq_y and y_south.state["result"] == ""
        # A wrong password for a game's account is refused by the broker.
        intruder = Bot(base % ("%s:wrong" % game_y), "intruder")
        bots.append(intruder)
        event = intruder.conn.events.get(timeout=30)
        assert isinstance(event, BrokerDisconnected) and not intruder.conn.connected
    finally:
        for bot in bots:
            bot.stop()
        referee.terminate()
        referee.wait(30)
        broker.stop()
