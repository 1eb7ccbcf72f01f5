"""The office's connection to the broker (``OfficePeer``): every hall's events, states and
statuses in; retained ``standings/<group>``, ``<hall>/next`` and acks out. Built on the
shared ``arena.broker.BrokerLink``, the one home of paho."""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from dataclasses import replace

from arena import wire
from arena.broker import BrokerLink, Message, Tls

__all__ = ["Message", "OfficePeer"]

log = logging.getLogger(__name__)


# Connection numbers, unique in the process (not per peer), so a message can never be acked
# on a connection it did not come by, even by another OfficePeer with the same client id.
_CONNECTIONS = itertools.count(1)


class OfficePeer(BrokerLink):
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
        # persistent session: the broker keeps our subscriptions and queued events
        super().__init__(host, port, client_id=client_id or f"office-{tournament}",
                         clean_session=False, username=username, password=password, tls=tls,
                         keepalive=keepalive, reconnect_s=reconnect_s, manual_ack=True)
        self.tournament = tournament
        self.base = wire.tournament_root(tournament)
        self.subscriptions = wire.office_subscriptions(tournament)
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

    # paho callbacks (network thread) ---------------------------------------------------------

    def on_connected(self, ok: bool, reason: str, session_present: bool | None) -> None:
        if not ok:
            log.error("MQTT: broker refused the connection: %s", reason)
            return
        self._connection = next(_CONNECTIONS)
        self._down.clear()
        self._connected = True
        log.info("MQTT connected to %s:%d (session present: %s)", self._host, self._port,
                 session_present)
        # Every connect, not only the first: after a broker restart without persistence
        # the session (and its subscriptions) may be gone.
        self.subscribe(self.subscriptions)
        with self._lock:
            for topic, payload in self._retained.items():
                self.publish(topic, payload, qos=1, retain=True)

    def on_disconnected(self, reason: str) -> None:
        if self._connected and not self._closing:
            log.warning("MQTT connection lost (%s); reconnecting with back-off", reason)
        self._connected = self._subscribed = False
        self._down.set()

    def on_subscribed(self, ok: bool) -> None:
        if not ok:
            log.error("MQTT: the broker refused a subscription of %s", self.subscriptions)
        self._subscribed = ok and self._connected

    def on_message(self, message: Message) -> None:
        self._inbox.put(replace(message, connection=self._connection))

    # owner's thread --------------------------------------------------------------------------

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
        return self.acknowledge(message.mid, message.qos)

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
                self.publish(full, payload, qos=qos, retain=True)

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
        self.disconnect()
        if was_connected and not self._down.wait(timeout):
            log.warning("MQTT: no clean disconnect within %.1f s; unsent acks are lost and "
                        "the broker will deliver those messages again", timeout)
        self.stop()
        self._connected = self._subscribed = False
