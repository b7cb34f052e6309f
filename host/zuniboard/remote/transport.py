"""The network edge: one MQTT connection through paho-mqtt (``Connection``).

A broker URL is ``mqtt://HOST[:PORT]``, ``mqtts://`` (TLS), ``ws://`` or ``wss://``
(MQTT over WebSockets, the URL's path the WebSocket path), with an optional
``USER:PASSWORD@`` and ``?ca=FILE`` (the CA that signed the broker's certificate, when it
is not one the system trusts). Messages arrive on ``events`` (a thread-safe queue) as
``("message", topic, payload)``, ``("connected", "")`` and ``("disconnected", why)``: the
pure logic takes them from there. Sessions are persistent (clean_session false, the
same client id again) and every publish and subscription is QoS 1; paho reconnects on
its own.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import parse_qs, unquote, urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883, "ws": 80, "wss": 443}
KEEPALIVE_S = 10  # the broker sends a seat's last will this long (x1.5) after it is cut off


class BrokerUrlError(ValueError):
    """A broker URL that cannot be used: the URL and why."""


@dataclass(frozen=True)
class BrokerUrl:
    scheme: str
    host: str
    port: int
    path: str = "/mqtt"
    username: str | None = None
    password: str | None = None
    ca: str | None = None

    @property
    def tls(self) -> bool:
        return self.scheme in ("mqtts", "wss")

    @property
    def websockets(self) -> bool:
        return self.scheme in ("ws", "wss")

    def __str__(self) -> str:
        return "%s://%s:%d%s" % (self.scheme, self.host, self.port, self.path if self.websockets else "")


def with_account(url: BrokerUrl, user: str, password: str) -> BrokerUrl:
    return replace(url, username=user, password=password)


def parse_url(text: str) -> BrokerUrl:
    parts = urlsplit(text.strip())
    if parts.scheme not in DEFAULT_PORTS:
        raise BrokerUrlError("broker %r: the scheme must be mqtt, mqtts, ws or wss (e.g. mqtt://localhost)" % text)
    if not parts.hostname:
        raise BrokerUrlError("broker %r: no host (e.g. mqtt://localhost:1883)" % text)
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError as exc:
        raise BrokerUrlError("broker %r: %s" % (text, exc))
    query = parse_qs(parts.query)
    ca = query.get("ca", [None])[0]
    return BrokerUrl(
        parts.scheme,
        parts.hostname,
        port,
        parts.path or "/mqtt",
        unquote(parts.username) if parts.username else None,
        unquote(parts.password) if parts.password else None,
        ca,
    )


@dataclass(frozen=True, slots=True)
class BrokerConnected:
    """The connection to the broker at ``url`` is up (subscribed again)."""

    url: str


@dataclass(frozen=True, slots=True)
class BrokerDisconnected:
    """The connection dropped or could not be made (``why``); paho tries again."""

    why: str


@dataclass(frozen=True, slots=True)
class BrokerMessage:
    """A message on ``topic``."""

    topic: str
    payload: bytes


# What a ``Connection`` reports on its queue ``events``.
Event = BrokerConnected | BrokerDisconnected | BrokerMessage


def no_delay(client: mqtt.Client) -> None:
    """Small messages go at once (no Nagle: a move waited up to 40 ms for the peer's
    delayed acknowledgement)."""
    sock = client.socket()
    if isinstance(sock, socket.socket):  # (a websocket's wrapper has no options to set)
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Connection:
    """One client connection; ``subscribe`` filters are subscribed again on every connect."""

    def __init__(
        self,
        url: BrokerUrl,
        client_id: str,
        *,
        will: tuple[str, bytes] | None = None,
        clean: bool = False,
    ) -> None:
        self.url = url
        self.events: queue.Queue[Event] = queue.Queue()
        # Called (from paho's thread) after each event is queued: a loop that waits on its
        # own inbox is woken at once, not at its next poll of ``events``.
        self.wake: Callable[[], None] | None = None
        self.filters: list[str] = []
        self.connected = False
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=clean,
            transport="websockets" if url.websockets else "tcp",
        )
        if url.websockets:
            client.ws_set_options(path=url.path)
        if url.tls:
            context = ssl.create_default_context(cafile=url.ca)
            client.tls_set_context(context)
        if url.username is not None:
            client.username_pw_set(url.username, url.password)
        if will is not None:
            client.will_set(will[0], will[1], qos=1, retain=True)
        client.reconnect_delay_set(min_delay=1, max_delay=4)
        client.max_inflight_messages_set(100)
        client.max_queued_messages_set(0)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_connect_fail = self._on_connect_fail
        client.on_message = self._on_message
        self.client = client

    def start(self) -> None:
        """Connects in the background (and again whenever the connection drops)."""
        self.client.connect_async(self.url.host, self.url.port, keepalive=KEEPALIVE_S)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def subscribe(self, *filters: str) -> None:
        self.filters += filters
        if self.connected:
            for topic in filters:
                self.client.subscribe(topic, qos=1)

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        """Queued by paho while disconnected, sent on the next connection (QoS 1)."""
        self.client.publish(topic, payload, qos=1, retain=retain)

    def _put(self, event: Event) -> None:
        self.events.put(event)
        if self.wake is not None:
            self.wake()

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: object,
        flags: mqtt.ConnectFlags,
        reason: ReasonCode,
        properties: Properties | None = None,
    ) -> None:
        if reason.is_failure:
            self._put(BrokerDisconnected("the broker refused: %s" % reason))
            return
        self.connected = True
        no_delay(client)
        for topic in self.filters:
            client.subscribe(topic, qos=1)
        self._put(BrokerConnected(str(self.url)))

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: object,
        flags: mqtt.DisconnectFlags,
        reason: ReasonCode,
        properties: Properties | None = None,
    ) -> None:
        self.connected = False
        self._put(BrokerDisconnected(str(reason)))

    def _on_connect_fail(self, client: mqtt.Client, userdata: object) -> None:
        # No connection at all (refused, no route, a certificate not trusted): paho tries again.
        self._put(BrokerDisconnected("cannot connect to %s" % self.url))

    def _on_message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        self._put(BrokerMessage(str(message.topic), bytes(message.payload)))
