"""Real brokers and real connections for the remote-game tests: a Mosquitto each test
starts on a free loopback port with a generated config (plain, TLS with a certificate
the test makes, a password file and ACLs), the embedded amqtt broker, a referee service
in a thread, and ``Bot`` players (``SeatClient`` over a paho ``Connection``)."""

from __future__ import annotations

import getpass
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from zuniboard.remote.protocol import Topics
from zuniboard.remote.seat_client import Credentials, SeatClient
from zuniboard.remote.service import RefereeService
from zuniboard.remote.transport import BrokerConnected, BrokerMessage, Connection, parse_url

MOSQUITTO = os.environ.get("ZUNI_MOSQUITTO", "/usr/sbin/mosquitto")
WAIT_S = 30.0  # generous: the suite runs three workers on two cores


def need_mosquitto() -> None:
    if not os.access(MOSQUITTO, os.X_OK):
        pytest.skip("Mosquitto is not installed at %s (tools/ensure_mosquitto.sh installs it as root)" % MOSQUITTO)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError("nothing listens on port %d after %.0f s" % (port, timeout))


def wait_for(what: str, check: Any, timeout: float = WAIT_S, pump: Any = None) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pump is not None:
            pump()
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("waited %.0f s for %s" % (timeout, what))


class Mosquitto:
    """One Mosquitto on a free loopback port, with its config and persistence in ``home``."""

    def __init__(self, home: Path, *, extra: str = "", port: int = 0, websockets: bool = False) -> None:
        need_mosquitto()
        self.home = home
        self.port = port or free_port()
        self.ws_port = free_port() if websockets else 0
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None
        self.conf = home / "mosquitto.conf"

    def write_config(self) -> None:
        lines = [
            # Started as root, Mosquitto would become user mosquitto, who cannot read the
            # test's files: it stays the user who runs the tests.
            "user %s" % getpass.getuser(),
            "per_listener_settings false",
            "set_tcp_nodelay true",
            "persistence true",
            "persistence_location %s/" % self.home,
            "autosave_interval 1",
            "log_dest file %s" % (self.home / "mosquitto.log"),
            "log_type error",
            "log_type warning",
            "log_type notice",
            "listener %d 127.0.0.1" % self.port,
        ]
        if self.ws_port:
            lines += ["listener %d 127.0.0.1" % self.ws_port, "protocol websockets"]
        self.conf.write_text("\n".join(lines) + "\n" + (self.extra or "allow_anonymous true\n"))

    def start(self) -> Mosquitto:
        self.write_config()
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        proc = self.proc
        deadline = time.monotonic() + WAIT_S
        while proc.poll() is None and time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        raise AssertionError(
            "Mosquitto did not start on %d: %s %s"
            % (self.port, self.log(), proc.stderr and proc.stderr.read(2000) if proc.poll() is not None else "")
        )

    @property
    def url(self) -> str:
        return "mqtt://127.0.0.1:%d" % self.port

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(WAIT_S)
        self.proc = None

    def log(self) -> str:
        path = self.home / "mosquitto.log"
        return path.read_text() if path.exists() else ""


class RefereeThread:
    """A ``RefereeService`` in a thread (``stop`` ends it as SIGTERM does `zuni referee`)."""

    def __init__(
        self, url: str, data: Path, shard: str = "a", client_id: str = "", part: tuple[int, int] = (0, 1)
    ) -> None:
        self.service = RefereeService(parse_url(url), data, shard=shard, client_id=client_id, part=part)
        self.thread = threading.Thread(target=self.service.run, daemon=True)

    def start(self) -> RefereeThread:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.service.stop()
        self.thread.join(WAIT_S)
        assert not self.thread.is_alive()


class Bot:
    """A player without a board: asks for a seat, sends what a test tells it, keeps the
    states it is sent (a real ``SeatClient`` on a real connection)."""

    def __init__(self, url: str, client_id: str, shard: str = "a") -> None:
        self.url = url
        self.client_id = client_id
        self.topics = Topics(shard)
        self.client: SeatClient | None = None
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.referee_up = False
        self.conn = self._connect()

    def _connect(self) -> Connection:
        conn = Connection(parse_url(self.url), self.client_id)
        conn.subscribe(self.topics.reply(self.client_id))
        if self.client is not None:
            conn.subscribe(self.topics.state(self.client.creds.game))
        conn.start()
        return conn

    def use_game_account(self) -> None:
        """Connect again with the game's broker account (user: the game, password: its key)."""
        assert self.client is not None
        self.conn.stop()
        creds = self.client.creds
        self.url = str(self.url).replace(
            self.url.split("//", 1)[1].split("@", 1)[0], "%s:%s" % (creds.game, creds.key), 1
        )
        self.conn = self._connect()

    def reconnect(self) -> None:
        """The player's PC killed and started again: a new connection, the saved seat."""
        self.conn.stop()
        if self.client is not None:
            self.client = SeatClient.from_record(json.loads(json.dumps(self.client.record())))
        self.conn = self._connect()

    def pump(self) -> None:
        while True:
            try:
                event = self.conn.events.get_nowait()
            except queue.Empty:
                break
            if isinstance(event, BrokerMessage) and event.topic == self.topics.referee():
                self.referee_up = json.loads(event.payload).get("up") is True
            elif isinstance(event, BrokerMessage) and event.topic == self.topics.reply(self.client_id):
                self.replies.put(json.loads(event.payload))
            elif isinstance(event, BrokerMessage) and self.client is not None:
                self.client.take_state(event.payload)
            elif isinstance(event, BrokerConnected) and self.client is not None:
                for topic, payload in self.client.resync(time.monotonic()):
                    self.conn.publish(topic, payload)
        if self.client is not None:
            for topic, payload in self.client.tick(time.monotonic()):
                self.conn.publish(topic, payload)

    def ask(self, topic: str, body: dict[str, Any]) -> dict[str, Any]:
        wait_for("connected", lambda: self.conn.connected, pump=self.pump)
        # A request before the referee's first subscription would be lost: wait for its
        # retained "up" (it publishes it once subscribed).
        self.conn.subscribe(self.topics.referee())
        wait_for("the referee up", lambda: self.referee_up, pump=self.pump)
        self.conn.publish(topic, json.dumps(dict(body, v=1, client=self.client_id)).encode())
        reply: dict[str, Any] = wait_for("the referee's reply", lambda: not self.replies.empty(), pump=self.pump)
        reply = self.replies.get()
        if "error" not in reply:
            creds = Credentials(
                self.topics.shard, reply["game"], reply["code"], reply["seat"], reply["secret"], reply["key"]
            )
            self.client = SeatClient(creds)
            self.conn.subscribe(self.topics.state(reply["game"]))
        return reply

    @property
    def state(self) -> dict[str, Any]:
        return self.client.state if self.client is not None else {}

    def send(self, action: str, **fields: Any) -> None:
        assert self.client is not None
        topic, payload = self.client.send(action, time.monotonic(), **fields)
        self.conn.publish(topic, payload)

    def move(self, text: str) -> None:
        assert self.client is not None
        topic, payload = self.client.move(len(self.state.get("moves", [])), text, time.monotonic())
        self.conn.publish(topic, payload)

    def stop(self) -> None:
        self.conn.stop()


def make_certificates(home: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1/localhost signed by it (openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no certificate for the TLS test")
    ca_key, ca, key, csr, cert = (home / n for n in ("ca.key", "ca.crt", "server.key", "server.csr", "server.crt"))
    ext = home / "ext.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=zuni test CA",
        "-keyout",
        str(ca_key),
        "-out",
        str(ca),
    )
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(csr))
    run(
        "x509",
        "-req",
        "-in",
        str(csr),
        "-CA",
        str(ca),
        "-CAkey",
        str(ca_key),
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        str(ext),
        "-out",
        str(cert),
    )
    return ca, cert, key
