"""Nothing lost when anything drops: a remote game through a fault-injecting TCP relay
(tools/tcprelay.py) between the players, the referee and Mosquitto. Mid-game the relay
cuts every connection, delays everything by seconds and swallows everything for a
while; the referee (`zuni referee`, a process) and Mosquitto are killed (SIGKILL) and
started again; a player's PC is killed and goes on from its saved seat. Every state a
player receives is checked: no move lost, duplicated or reordered, ever."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from remote_net import WAIT_S, Bot, Mosquitto, wait_for

import zuni
from zuniboard.remote.protocol import Topics

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from tcprelay import TcpRelay

ZUNI = Path(sys.executable).parent / "zuni"
TOPICS = Topics("a")


class WatchedBot(Bot):
    """A bot that keeps every state it takes, to check the game never went back."""

    def __init__(self, url: str, client_id: str) -> None:
        super().__init__(url, client_id)
        self.states: list[dict[str, Any]] = []

    def pump(self) -> None:
        before = self.client.seq if self.client is not None else -2
        super().pump()
        if self.client is not None and self.client.seq != before:
            self.states.append(self.client.state)


def check_history(bot: WatchedBot, played: list[str]) -> None:
    """Every state the bot took extends the one before, and all are prefixes of ``played``."""
    last: list[str] = []
    seq = -1
    for state in bot.states:
        moves = list(state["moves"])
        assert state["seq"] >= seq, "a state older than one already taken"
        assert moves[: len(last)] == last, "moves went back or changed: %s then %s" % (last, moves)
        assert moves == played[: len(moves)], "a move lost, duplicated or reordered"
        last, seq = moves, state["seq"]


class RefereeProcess:
    def __init__(self, url: str, data: Path) -> None:
        self.url, self.data = url, data
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = data.parent / "referee.log"

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([str(ZUNI), "referee", self.url, "--data", str(self.data)], stderr=log)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(WAIT_S)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(WAIT_S)


@pytest.mark.slow
def test_game_survives_cuts_delays_and_kills(tmp_path: Path) -> None:
    home = tmp_path / "broker"
    home.mkdir()
    broker = Mosquitto(home).start()
    relay = TcpRelay("127.0.0.1", broker.port)
    url = "mqtt://127.0.0.1:%d" % relay.port
    referee = RefereeProcess(url, tmp_path / "referee")
    referee.start()
    bots: dict[str, WatchedBot] = {}
    try:
        bots["south"] = WatchedBot(url, "f-s")
        reply = bots["south"].ask(TOPICS.new(), {"do": "new", "ruleset": "kolowis", "seat": "south", "name": "Ann"})
        bots["north"] = WatchedBot(url, "f-n")
        bots["north"].ask(TOPICS.join(), {"do": "join", "code": reply["code"], "name": "Bea"})

        def pump() -> None:
            for bot in bots.values():
                bot.pump()

        wait_for("the game to start", lambda: all(b.state.get("turn") for b in bots.values()), pump=pump)
        rng = random.Random(4)
        game = zuni.new_game("kolowis")
        played: list[str] = []
        faults: list[str] = []
        while not game.is_game_over():
            n = len(played)
            if n == 4:
                relay.cut()
                faults.append("cut")
            elif n == 8:
                relay.delay_s, relay.jitter_s = 1.5, 1.0
                faults.append("delay 1.5-2.5 s")
            elif n == 12:
                relay.delay_s = relay.jitter_s = 0.0
                referee.kill()  # the next move waits in the broker for the referee's session
                faults.append("referee killed")
            elif n == 18:
                broker.stop(signal.SIGKILL)
                faults.append("broker killed")
                time.sleep(1.0)
                broker.start()
            elif n == 24:
                # North's PC dies: a new process goes on from the seat it saved.
                saved = json.loads(json.dumps(bots["north"].client.record()))  # type: ignore[union-attr]
                bots["north"].conn.stop()
                relay.cut()
                reborn = WatchedBot(url, "f-n")
                reborn.states = bots["north"].states
                from zuniboard.remote.seat_client import SeatClient

                reborn.client = SeatClient.from_record(saved)
                reborn.conn.subscribe(TOPICS.state(reborn.client.creds.game))
                bots["north"] = reborn
                faults.append("player killed")
            elif n == 30:
                relay.hold(4.0)
                faults.append("network held 4 s")
            move = rng.choice(game.legal_captures() or game.legal_moves())
            side = str(zuni.SIDE_NAMES[game.turn])
            bots[side].move(move.text())
            game.push(move)
            played.append(move.text())
            if referee.proc is not None and referee.proc.poll() is not None:
                time.sleep(2.0)
                referee.start()
            wait_for(
                "move %d (%s) on both seats after %s" % (len(played), move.text(), faults),
                lambda: all(b.state.get("moves") == played for b in bots.values()),
                timeout=90,
                pump=pump,
            )
        outcome = game.outcome()
        assert outcome is not None
        wait_for("the result", lambda: all(b.state.get("result") for b in bots.values()), pump=pump)
        for bot in bots.values():
            assert bot.state["result"] == outcome.result and bot.state["termination"] == outcome.termination
            check_history(bot, played)
        assert len(faults) == 6
        # Nothing the players sent was refused (a resend is a duplicate, not a refusal).
        assert "refused" not in referee.log.read_text()
    finally:
        for bot in bots.values():
            bot.stop()
        referee.stop()
        relay.close()
        broker.stop()


def test_opponent_gone_lets_the_other_claim(tmp_path: Path) -> None:
    home = tmp_path / "broker"
    home.mkdir()
    broker = Mosquitto(home).start()
    referee = RefereeProcess(broker.url, tmp_path / "referee")
    referee.start()
    south = WatchedBot(broker.url, "g-s")
    north = WatchedBot(broker.url, "g-n")
    try:
        reply = south.ask(
            TOPICS.new(), {"do": "new", "ruleset": "mosona", "seat": "south", "name": "Ann", "gone_s": 10}
        )
        north.ask(TOPICS.join(), {"do": "join", "code": reply["code"], "name": "Bea"})
        wait_for("started", lambda: south.state.get("turn") == "south", pump=south.pump)
        north.stop()  # North's network goes: no more hellos
        wait_for("north gone", lambda: south.state.get("gone") == ["north"], timeout=60, pump=south.pump)
        south.send("claim", what="win")
        wait_for("the claim", lambda: south.state.get("termination") == "abandoned", pump=south.pump)
        assert south.state["result"] == "south"
    finally:
        south.stop()
        referee.stop()
        broker.stop()
