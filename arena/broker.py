"""The one home of paho: how every broker connection of ours is made (the hall's and the
office's), and the office's connection itself."""

from __future__ import annotations

import itertools
import logging
import queue
import socket
import ssl
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from arena import wire

log = logging.getLogger(__name__)

STATE_EVERY_S = 10.0  # the retained state is refreshed at least this often (the topic contract)

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


# The office's connection ---------------------------------------------------------------------


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


# Connection numbers, unique in the process (not per peer), so a message can never be acked
# on a connection it did not come by, even by another OfficePeer with the same client id.
_CONNECTIONS = itertools.count(1)


class OfficePeer:
    """The office's connection: every hall's events, states and statuses in; retained
    ``standings/<group>`` and ``<hall>/next`` out.

    Events are stored before they are acknowledged: paho's manual ack is on, the network
    thread only enqueues, and the owner calls ``ack(message)`` after its SQLite commit. A
    crash in between leaves the event unacknowledged, so the broker sends it again (the
    store ignores the duplicate by ``event_id``). The session is persistent (fixed client
    id, ``clean_session=False``): QoS 1 events published while the office is down wait in
    the broker for it.

    Retained documents are remembered here, latest per topic, and all published again on
    every connect: a change made during an outage reaches the broker as soon as it is back,
    and paho's memory queue never holds a stale one.
    """

    def __init__(
        self,
        host: str,
        port: int,
        tournament: str,
        *,
        username: str | None = None,
        password: str | None = None,
        tls: Tls | None = None,
        client_id: str | None = None,
        keepalive: int = 30,
        reconnect_s: tuple[int, int] = (1, 30),
    ) -> None:
        if username is not None and tls is None and host not in ("127.0.0.1", "localhost", "::1"):
            log.warning("MQTT to %s without TLS: credentials travel in clear", host)
        self.tournament = tournament
        self.base = wire.tournament_root(tournament)
        self.subscriptions = wire.office_subscriptions(tournament)
        self._host, self._port, self._keepalive = host, port, keepalive
        self._inbox: queue.SimpleQueue[Message] = queue.SimpleQueue()
        self._connected = False
        self._subscribed = False
        self._connection = 0  # set by the network thread on every successful connect
        self._down = threading.Event()  # set once paho reports the connection closed
        self._closing = False
        self._retained: dict[str, bytes] = {}  # topic -> latest payload (b"": cleared)
        # Held while publishing a retained document, by the owner and by the on_connect
        # republish, so an older payload can never overtake a newer one for the same topic.
        self._lock = threading.Lock()

        # persistent session: the broker keeps our subscriptions and queued events
        client = new_client(client_id or f"office-{tournament}", clean_session=False,
                            username=username, password=password, tls=tls)
        client.manual_ack_set(True)
        client.reconnect_delay_set(min_delay=reconnect_s[0], max_delay=reconnect_s[1])
        client.on_connect = self._cb_connect
        client.on_disconnect = self._cb_disconnect
        client.on_message = self._cb_message
        client.on_subscribe = self._cb_subscribe
        self._client = client

    # paho callbacks (network thread) ---------------------------------------------------------

    def _cb_connect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            log.error("MQTT: broker refused the connection: %s", reason)
            return
        no_delay(client)
        self._connection = next(_CONNECTIONS)
        self._down.clear()
        self._connected = True
        log.info("MQTT connected to %s:%d (session present: %s)", self._host, self._port,
                 getattr(flags, "session_present", None))
        # Every connect, not only the first: after a broker restart without persistence
        # the session (and its subscriptions) may be gone.
        client.subscribe(self.subscriptions)
        with self._lock:
            for topic, payload in self._retained.items():
                client.publish(topic, payload, qos=1, retain=True)

    def _cb_disconnect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        if self._connected and not self._closing:
            log.warning("MQTT connection lost (%s); reconnecting with back-off", reason)
        self._connected = self._subscribed = False
        self._down.set()

    def _cb_subscribe(self, client: paho.Client, userdata: Any, mid: int, reasons: Any,
                      properties: Any) -> None:
        ok = all(not r.is_failure for r in reasons)
        if not ok:
            log.error("MQTT: the broker refused a subscription of %s", self.subscriptions)
        self._subscribed = ok and self._connected

    def _cb_message(self, client: paho.Client, userdata: Any, msg: paho.MQTTMessage) -> None:
        self._inbox.put(Message(msg.topic, bytes(msg.payload), bool(msg.retain), int(msg.qos),
                                int(msg.mid), bool(msg.dup), self._connection))

    # owner's thread --------------------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background: never blocks, not even on a missing broker."""
        self._client.connect_async(self._host, self._port, keepalive=self._keepalive)
        self._client.loop_start()

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def subscribed(self) -> bool:
        """The broker confirmed the subscriptions on the current connection."""
        return self._subscribed

    def poll(self, timeout: float = 0.0) -> list[Message]:
        """The messages received since the last call, in arrival order.

        Waits up to ``timeout`` seconds for the first one, so a loop can sleep here. Every
        QoS 1 message must be passed to ``ack`` once handled, refused ones included:
        unacknowledged messages fill the broker's in-flight window for this client and are
        sent again on every reconnect.
        """
        out: list[Message] = []
        try:
            out.append(self._inbox.get(timeout=timeout) if timeout > 0
                       else self._inbox.get_nowait())
        except queue.Empty:
            return out
        while True:
            try:
                out.append(self._inbox.get_nowait())
            except queue.Empty:
                return out

    def ack(self, message: Message) -> bool:
        """Acknowledge a handled message (a no-op for QoS 0); True if an ack was sent.

        Only on the connection the message came by: after a reconnect the broker sends the
        unacknowledged message again (same content, possibly a reused packet id), so an ack
        from the old connection is dropped and the new copy, a duplicate for the store, is
        acked instead. An ack made while disconnected is lost inside paho anyway (it clears
        its outgoing packets on reconnect), with the same outcome. And nothing confirms a
        PUBACK: one still unread by the broker when the connection is replaced is lost too.
        Acked means "will not come again" only usually; the store's de-duplication is what
        makes it exact.
        """
        if message.qos == 0 or message.connection != self._connection or not self._connected:
            return False
        return self._client.ack(message.mid, message.qos) == paho.MQTT_ERR_SUCCESS

    def topic(self, topic: str) -> str:
        """A full topic from ``standings/A`` or ``hall-1/next``; a full one is kept."""
        return wire.office_topic(self.tournament, topic)

    def publish_retained(self, topic: str, payload: bytes, qos: int = 1) -> None:
        """Set a retained document (``standings/<group>``, ``<hall>/next``, or a full topic).

        Sent now if connected; in any case again on every connect, so the broker always ends
        up with the latest one.
        """
        full = self.topic(topic)
        with self._lock:
            self._retained[full] = payload
            if self._connected:
                self._client.publish(full, payload, qos=qos, retain=True)

    def clear_retained(self, topic: str) -> None:
        """Remove a retained document (an empty retained payload deletes it at the broker)."""
        self.publish_retained(topic, b"")

    def close(self, timeout: float = 2.0) -> None:
        """Disconnect cleanly; what was not acked is redelivered on the next connect.

        Waits (up to ``timeout``) for paho to report the disconnect before stopping its
        thread: packets go out in order, so acks queued before this call reach the broker
        instead of being dropped with the thread, which would cost a redelivery.
        """
        was_connected = self._connected
        self._closing = True
        self._client.disconnect()
        if was_connected and not self._down.wait(timeout):
            log.warning("MQTT: no clean disconnect within %.1f s; unsent acks are lost and "
                        "the broker will deliver those messages again", timeout)
        self._client.loop_stop()
        self._connected = self._subscribed = False
