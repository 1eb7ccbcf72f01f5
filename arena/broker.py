"""The one home of paho: how every broker connection of ours is made and driven.

``BrokerLink`` owns one paho client (API version 2, MQTT 3.1.1, credentials and TLS when
given, Nagle off) and turns paho's callbacks, which run on paho's network thread, into a few
plain hooks of our own with no paho type in them. The hall's link (``firmware_py.mqtt``
``HallLink``) and the office's (``office.peer`` ``OfficePeer``) are subclasses: each keeps its
own threading discipline (the hooks only enqueue or flip flags) and its own delivery rules;
neither imports paho.
"""

from __future__ import annotations

import logging
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

log = logging.getLogger(__name__)

STATE_EVERY_S = 10.0  # the retained state is refreshed at least this often (the topic contract)
LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class Tls:
    ca_file: str
    cert_file: str | None = None  # client certificate: optional
    key_file: str | None = None


@dataclass(frozen=True)
class BrokerUrl:
    host: str
    port: int
    tls: bool


def parse_broker_url(url: str) -> BrokerUrl:
    """``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]``."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise ValueError(f"broker {url!r}: expected mqtt://HOST:PORT or mqtts://HOST:PORT")
    tls = parts.scheme == "mqtts"
    return BrokerUrl(parts.hostname, parts.port or (8883 if tls else 1883), tls)


def new_client(client_id: str, *, clean_session: bool, username: str | None,
               password: str | None, tls: Tls | None) -> paho.Client:
    """A paho client as every connection of ours is made: API version 2, MQTT 3.1.1,
    credentials and TLS (with the certificate checked) when given."""
    client = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=paho.MQTTv311, clean_session=clean_session)
    if username is not None:
        client.username_pw_set(username, password)
    if tls is not None:
        client.tls_set(ca_certs=tls.ca_file, certfile=tls.cert_file, keyfile=tls.key_file,
                       cert_reqs=ssl.CERT_REQUIRED)
    return client


def no_delay(client: paho.Client) -> None:
    """Send small packets at once. Neither paho nor mosquitto turns Nagle's algorithm off,
    so an ack followed by a publish waits for the other side's delayed ACK: ~40 ms on every
    event (bench/office.py). The broker needs ``set_tcp_nodelay true`` as well."""
    sock = client.socket()
    if isinstance(sock, socket.socket):  # an ssl.SSLSocket is one too
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError as err:
            log.debug("MQTT: cannot set TCP_NODELAY: %s", err)


@dataclass(frozen=True)
class Message:
    """One message from the broker, as the office's owner thread sees it.

    ``connection`` numbers the connection it arrived on: an ack is only meaningful on that
    connection (see ``OfficePeer.ack``).
    """

    topic: str
    payload: bytes
    retain: bool
    qos: int
    mid: int
    dup: bool = False
    connection: int = 0


@dataclass(frozen=True)
class Will:
    """What the broker publishes for us if the connection dies without a goodbye."""

    topic: str
    payload: bytes
    qos: int = 1
    retain: bool = True


class BrokerLink:
    """One connection to the broker. Subclasses override the ``on_*`` hooks, which run on
    paho's network thread (only enqueue there), and call the rest from their owner's."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        client_id: str,
        clean_session: bool,
        username: str | None = None,
        password: str | None = None,
        tls: Tls | None = None,
        keepalive: int = 30,
        reconnect_s: tuple[int, int] = (1, 30),
        will: Will | None = None,
        manual_ack: bool = False,
        max_in_flight: int | None = None,
    ) -> None:
        if username is not None and tls is None and host not in LOOPBACK:
            log.warning("MQTT to %s without TLS: credentials travel in clear", host)
        self._host, self._port, self._keepalive = host, port, keepalive
        client = new_client(client_id, clean_session=clean_session, username=username,
                            password=password, tls=tls)
        if will is not None:
            client.will_set(will.topic, will.payload, qos=will.qos, retain=will.retain)
        if manual_ack:
            client.manual_ack_set(True)
        if max_in_flight is not None:
            client.max_inflight_messages_set(max_in_flight)
        client.reconnect_delay_set(min_delay=reconnect_s[0], max_delay=reconnect_s[1])
        client.on_connect = self._cb_connect
        client.on_disconnect = self._cb_disconnect
        client.on_publish = self._cb_publish
        client.on_message = self._cb_message
        client.on_subscribe = self._cb_subscribe
        self._client = client

    # hooks (paho's network thread) -------------------------------------------------------

    def on_connected(self, ok: bool, reason: str, session_present: bool | None) -> None:
        """The broker answered a connect: ``ok`` or refused for ``reason``."""

    def on_disconnected(self, reason: str) -> None:
        """The connection is gone (paho reconnects by itself, with back-off)."""

    def on_published(self, mid: int) -> None:
        """The broker acknowledged the QoS 1 publish ``mid`` (a PUBACK: transport only)."""

    def on_subscribed(self, ok: bool) -> None:
        """The broker answered a subscribe: every filter granted, or not."""

    def on_message(self, message: Message) -> None:
        """A message arrived."""

    # owner's thread ----------------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background: never blocks, not even on a missing broker."""
        self._client.connect_async(self._host, self._port, keepalive=self._keepalive)
        self._client.loop_start()

    def publish(self, topic: str, payload: bytes, *, qos: int, retain: bool = False) -> int:
        """Hand a message to paho; returns its mid (tracked by ``on_published``)."""
        return int(self._client.publish(topic, payload, qos=qos, retain=retain).mid)

    def subscribe(self, filters: list[tuple[str, int]]) -> None:
        self._client.subscribe(filters)

    def acknowledge(self, mid: int, qos: int) -> bool:
        """The manual ack of a handled message; True if paho took it."""
        return bool(self._client.ack(mid, qos) == paho.MQTT_ERR_SUCCESS)

    def disconnect(self) -> None:
        """A clean disconnect (the will is not sent): paho's thread keeps running."""
        self._client.disconnect()

    def stop(self) -> None:
        """Stop paho's network thread."""
        self._client.loop_stop()

    # paho's callbacks, translated ----------------------------------------------------------

    def _cb_connect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if not reason.is_failure:
            no_delay(client)
        self.on_connected(not reason.is_failure, str(reason),
                          getattr(flags, "session_present", None))

    def _cb_disconnect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self.on_disconnected(str(reason))

    def _cb_publish(self, client: paho.Client, userdata: Any, mid: int, reason: Any,
                    properties: Any) -> None:
        self.on_published(mid)

    def _cb_subscribe(self, client: paho.Client, userdata: Any, mid: int, reasons: Any,
                      properties: Any) -> None:
        self.on_subscribed(all(not r.is_failure for r in reasons))

    def _cb_message(self, client: paho.Client, userdata: Any, msg: paho.MQTTMessage) -> None:
        self.on_message(Message(msg.topic, bytes(msg.payload), bool(msg.retain), int(msg.qos),
                                int(msg.mid), bool(msg.dup)))
