"""The embedded broker: amqtt (the Python MQTT broker) in a thread of its own, so that
two terminals on one machine, or two players on one LAN, play with no set-up.

>>> broker = EmbeddedBroker("127.0.0.1", 1883)
>>> broker.start()        # raises BrokerError when the port is taken
>>> broker.stop()
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from typing import Any

DEFAULT_PORT = 1883


class BrokerError(RuntimeError):
    """The embedded broker could not start: the address and why."""


def port_taken(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        return probe.connect_ex((host if host != "0.0.0.0" else "127.0.0.1", port)) == 0


class EmbeddedBroker:
    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> None:
        self.host = host
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.thread: threading.Thread | None = None
        self.broker: Any = None
        self.failed: BaseException | None = None
        self.ready = threading.Event()

    @property
    def url(self) -> str:
        return "mqtt://%s:%d" % ("127.0.0.1" if self.host == "0.0.0.0" else self.host, self.port)

    def start(self, timeout: float = 20.0) -> None:
        if port_taken(self.host, self.port):
            raise BrokerError("%s:%d is taken (a broker runs there already?)" % (self.host, self.port))
        # amqtt logs every packet at INFO: only its warnings are worth a player's eyes.
        # (and a connection closed without a word, as a port probe's, is not worth one).
        logging.getLogger("amqtt").setLevel(logging.CRITICAL)
        logging.getLogger("transitions").setLevel(logging.WARNING)
        self.thread = threading.Thread(target=self._run, name="zuni-broker", daemon=True)
        self.thread.start()
        if not self.ready.wait(timeout) or self.failed is not None:
            raise BrokerError("the embedded broker on %s:%d did not start: %s" % (self.host, self.port, self.failed))

    def _run(self) -> None:
        from amqtt.broker import Broker

        asyncio.set_event_loop(self.loop)
        config = {
            "listeners": {"default": {"type": "tcp", "bind": "%s:%d" % (self.host, self.port)}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }
        try:
            self.broker = Broker(config, loop=self.loop)
            self.loop.run_until_complete(self.broker.start())
        except BaseException as exc:  # any failure is told to start()'s caller
            self.failed = exc
            self.ready.set()
            return
        self.ready.set()
        self.loop.run_forever()

    def stop(self) -> None:
        if self.thread is None or self.broker is None:
            return
        future = asyncio.run_coroutine_threadsafe(self.broker.shutdown(), self.loop)
        try:
            future.result(10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.thread = None
