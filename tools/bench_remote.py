"""Benchmark of remote games (docs/remote.md) over a loopback Mosquitto.

    .venv/bin/python tools/bench_remote.py [--json] [--moves 200] [--games 10,50,100,200,400,700,1000]
        [--seconds 20] [--memory-games 2000] [--board-moves 40] [--referees 1]

Mosquitto (Debian's, started here on a free loopback port with a generated config) and
the referee (`zuni referee`, its own process) run as in production; the players are
paho-mqtt connections in this process signing their moves as ``SeatClient`` does.

Figures (wall-clock on this PC, both cores shared by the broker, the referee and the
players):

- ``move_to_other_seat_ms`` p50/p99: one game, a seat publishes its move until the other
  seat holds the referee's state with it (player -> broker -> referee -> broker ->
  player, two links and the referee's rules check), ``--moves`` moves one at a time.
  The board's own parts come on top: the board's commit to its host (the link,
  tools/bench_link.py ``move_to_host_ms`` less the commit delay, a few ms on the
  virtual board) and the host's ``hostmove`` to the other board's LEDs (one request
  round trip: ``rtt_median_ms`` there).
- ``board_to_board``: two virtual boards under MicroPython, each with its own `zuni play
  --remote`, a move's commit on board A to board B taking it and to its first flash
  (tools/bench_remote_boards.py; ``--board-moves 0`` leaves it out).
- ``load``: N concurrent games, each making one move a second (its two seats taking
  turns, moves spread over the second), for ``--seconds``: per N the moves made, the
  latency p50/p99 (publish to the other seat's state), the referees' CPU share (cores)
  and the machine's load average. The curve bends where p99 passes 500 ms. With
  ``--referees N`` the games are shared by N referee processes (`zuni referee --shard
  K/N`; the players give no shard: docs/remote.md, Several referees).
- ``referee_bytes_per_game``: the referee's memory per game (tracemalloc, in process:
  ``--memory-games`` games of 40 moves each, every seat taken).
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

import zuni
from zuniboard.remote.protocol import Topics
from zuniboard.remote.referee import Publish, Referee
from zuniboard.remote.seat_client import Credentials, SeatClient
from zuniboard.remote.transport import no_delay

TOPICS = Topics("a")
ZUNI = Path(sys.executable).parent / "zuni"
MOSQUITTO = os.environ.get("ZUNI_MOSQUITTO", "/usr/sbin/mosquitto")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class Players:
    """One paho connection playing every seat of many games (the load generator)."""

    def __init__(self, port: int, referees: int = 1) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-%d" % os.getpid(), clean_session=True)
        self.client.max_inflight_messages_set(0)
        self.client.max_queued_messages_set(0)
        self.client.on_message = self._message
        self.client.on_connect = lambda client, *rest: no_delay(client)
        self.lock = threading.Lock()
        self.replies: dict[str, dict[str, Any]] = {}
        self.sent: dict[tuple[str, int], float] = {}  # (game, number of moves) -> when its move was sent
        self.samples: list[float] = []  # ms from a move's publish to the other seat's state with it
        self.arrived: dict[tuple[str, int], float] = {}  # (game, number of moves) -> when first seen
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.referees_up: set[str] = set()
        self.client.subscribe([("zuni/v1/a/reply/+", 1), ("zuni/v1/+/g/+/state", 1), ("zuni/v1/+/referee", 1)])
        self.client.loop_start()
        deadline = time.monotonic() + 60
        while len(self.referees_up) < referees and time.monotonic() < deadline:
            time.sleep(0.05)

    def _message(self, client: Any, userdata: Any, message: Any) -> None:
        now = time.monotonic()
        body = json.loads(message.payload)
        if message.topic.endswith("/referee"):
            if body.get("up") is True:
                self.referees_up.add(message.topic)
        elif message.topic.endswith("/state"):
            game = body["game"]
            key = (game, len(body["moves"]))
            with self.lock:
                self.arrived.setdefault(key, now)
                sent = self.sent.pop(key, None)
                if sent is not None:
                    self.samples.append((now - sent) * 1000)
        else:
            with self.lock:
                self.replies[message.topic.rsplit("/", 1)[1]] = body

    def ask(self, topic: str, body: dict[str, Any], nonce: str) -> dict[str, Any]:
        self.client.publish(topic, json.dumps(dict(body, v=1, client=nonce)), qos=1)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with self.lock:
                if nonce in self.replies:
                    return self.replies.pop(nonce)
            time.sleep(0.001)
        raise RuntimeError("no reply to %s" % nonce)

    def publish(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=1)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class Game:
    def __init__(self, players: Players, n: int, seed: int) -> None:
        self.players = players
        self.seats: dict[str, SeatClient] = {}
        new = players.ask(TOPICS.new(), {"do": "new", "ruleset": "kolowis", "seat": "south"}, "n%d" % n)
        join = players.ask(TOPICS.join(), {"do": "join", "code": new["code"]}, "j%d" % n)
        for reply in (new, join):
            shard = reply.get("shard", "a")  # the referee's that took the game (--referees)
            creds = Credentials(shard, reply["game"], reply["code"], reply["seat"], reply["secret"], reply["key"])
            self.seats[reply["seat"]] = SeatClient(creds)
        self.id = new["game"]
        self.game = zuni.new_game("kolowis")
        self.rng = random.Random(seed)
        self.sent_at = 0.0

    def move(self) -> int | None:
        """Publishes the next move (the number of moves it makes), None once over."""
        if self.game.is_game_over():
            return None
        move = self.rng.choice(self.game.legal_captures() or self.game.legal_moves())
        side = str(zuni.SIDE_NAMES[self.game.turn])
        ply = len(self.game.move_stack)
        topic, payload = self.seats[side].move(ply, move.text(), time.monotonic())
        self.game.push(move)
        self.sent_at = time.monotonic()
        self.players.publish(topic, payload)
        return ply + 1


def wait_arrival(players: Players, game: str, count: int, timeout: float = 30.0) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with players.lock:
            when = players.arrived.get((game, count))
        if when is not None:
            return when
        time.sleep(0.0005)
    raise RuntimeError("move %d of %s never arrived" % (count, game))


def start_mosquitto(home: Path) -> tuple[subprocess.Popen[bytes], int]:
    import getpass

    port = free_port()
    conf = home / "mosquitto.conf"
    lines = [
        "user %s" % getpass.getuser(),
        "listener %d 127.0.0.1" % port,
        "allow_anonymous true",
        "set_tcp_nodelay true",
        "max_inflight_messages 0",
        "max_queued_messages 100000",
    ]
    conf.write_text("\n".join(lines) + "\n")
    proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    return proc, port


def cpu_seconds(pid: int) -> float:
    fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def latency(players: Players, moves: int) -> dict[str, float]:
    samples: list[float] = []
    game = Game(players, 0, 1)
    while len(samples) < moves:
        if game.game.is_game_over():
            game = Game(players, len(samples) + 1, len(samples))
        count = game.move()
        assert count is not None
        samples.append((wait_arrival(players, game.id, count) - game.sent_at) * 1000)
    return {"p50": round(percentile(samples, 50), 2), "p99": round(percentile(samples, 99), 2), "n": len(samples)}


def load(players: Players, referee_pids: list[int], count: int, seconds: float, base: int) -> dict[str, Any]:
    games = [Game(players, base + i, base + i) for i in range(count)]
    with players.lock:
        players.samples.clear()
        players.sent.clear()
    start = time.monotonic() + 0.2
    due = [(start + i / count, i) for i in range(count)]  # moves spread over each second
    heapq.heapify(due)
    cpu0 = sum(cpu_seconds(pid) for pid in referee_pids)
    end = start + seconds
    made = 0
    while due and due[0][0] < end:
        when, i = heapq.heappop(due)
        wait = when - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        game = games[i]
        if game.game.is_game_over():
            continue
        ply = len(game.game.move_stack)
        with players.lock:
            players.sent[(game.id, ply + 1)] = time.monotonic()
        game.move()
        made += 1
        heapq.heappush(due, (when + 1.0, i))
    cpu = (sum(cpu_seconds(pid) for pid in referee_pids) - cpu0) / (time.monotonic() - start)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with players.lock:
            if not players.sent:
                break
        time.sleep(0.05)
    with players.lock:
        samples = list(players.samples)
        lost = len(players.sent)
    return {
        "games": count,
        "moves": made,
        "lost": lost,
        "p50_ms": round(percentile(samples, 50), 1),
        "p99_ms": round(percentile(samples, 99), 1),
        "referee_cpu": round(cpu, 2),
        "load_average": round(os.getloadavg()[0], 1),  # the machine's, over the last minute
    }


NEW = {"v": 1, "do": "new", "ruleset": "kolowis", "client": "c"}


def reply_of(outs: list[Any], client: str) -> dict[str, Any]:
    for out in outs:
        if isinstance(out, Publish) and out.topic == TOPICS.reply(client):
            return dict(json.loads(out.payload))
    raise RuntimeError("no reply to %s" % client)


def memory_per_game(count: int) -> int:
    referee = Referee(TOPICS)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    rng = random.Random(1)
    for _ in range(count):
        reply = reply_of(referee.step(0, TOPICS.new(), json.dumps(NEW).encode()), "c")
        join = {"v": 1, "do": "join", "code": reply["code"], "client": "d"}
        joined = reply_of(referee.step(0, TOPICS.join(), json.dumps(join).encode()), "d")
        seats = {}
        for r in (reply, joined):
            seats[r["seat"]] = SeatClient(Credentials("a", r["game"], r["code"], r["seat"], r["secret"], r["key"]))
        game = zuni.new_game("kolowis")
        for ply in range(40):
            if game.is_game_over():
                break
            move = rng.choice(game.legal_moves())
            topic, payload = seats[str(zuni.SIDE_NAMES[game.turn])].move(ply, move.text(), 0.0)
            referee.step(ply, topic, payload)
            game.push(move)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    assert len(referee.games) == count
    return int(grown / count)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--games", default="10,50,100,200,400,700,1000")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--memory-games", type=int, default=2000)
    parser.add_argument("--board-moves", type=int, default=40)
    parser.add_argument("--referees", type=int, default=1, help="referee processes sharing the games (--shard K/N)")
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-remote-") as tmp:
        home = Path(tmp)
        broker, port = start_mosquitto(home)
        referees = []
        for k in range(args.referees):
            command = [str(ZUNI), "referee", "mqtt://127.0.0.1:%d" % port, "--data", str(home / ("games%d" % k))]
            if args.referees > 1:
                command += ["--shard", "%d/%d" % (k, args.referees)]
            referees.append(subprocess.Popen(command, stderr=subprocess.DEVNULL))
        try:
            players = Players(port, args.referees)
            figures["move_to_other_seat_ms"] = latency(players, args.moves)
            print("move to the other seat: %s" % figures["move_to_other_seat_ms"], file=sys.stderr, flush=True)
            if args.board_moves > 0:
                from bench_remote_boards import board_to_board

                url = "mqtt://127.0.0.1:%d" % port
                figures["board_to_board"] = board_to_board(url, home / "boards", args.board_moves)
                print("board to board: %s" % figures["board_to_board"], file=sys.stderr, flush=True)
            curve = []
            base = 10000
            for count in [int(c) for c in args.games.split(",") if c]:
                point = load(players, [r.pid for r in referees], count, args.seconds, base)
                base += count
                curve.append(point)
                print("load: %s" % point, file=sys.stderr, flush=True)
            figures["load"] = curve
            bends = [p["games"] for p in curve if p["p99_ms"] > 500 or p["lost"]]
            figures["p99_under_500ms_up_to_games"] = max(
                [p["games"] for p in curve if p["games"] < min(bends, default=10**9)], default=0
            )
            players.close()
        finally:
            for referee in referees:
                referee.send_signal(signal.SIGTERM)
                referee.wait(30)
            broker.terminate()
            broker.wait(30)
    if args.memory_games > 0:  # (0 leaves it out, as --board-moves 0 does)
        figures["referee_bytes_per_game"] = memory_per_game(args.memory_games)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print("%s: %s" % (key, value))
    return 0


if __name__ == "__main__":
    sys.exit(main())
