"""The hall's MQTT link (docs/developer.md 4.4), on the shared ``arena.broker.BrokerLink`` (the one
home of paho; the office's connection is the other subclass, ``office.peer.OfficePeer``).

Threads: paho's network thread (``loop_start``) runs the callbacks, and they only put what
happened on a queue. The owner's thread calls ``pump()``, which frees the window on PUBACKs,
applies the office's ``acks`` to the outboxes, hands valid ``next`` documents on, and sends
what the outboxes allow. So the outboxes, the mid -> seq map and the state are touched by
one thread only, and a PUBACK can never be processed before its ``publish()`` returned the
mid.

Delivery (end to end): events go out QoS 1 from the ``Outbox`` (the journal), at most
``max_in_flight`` waiting for a PUBACK; paho itself resends those after a reconnect. During
an outage nothing more is handed to paho, so its memory queue stays bounded whatever the
outage's length. A PUBACK only frees the window: an event is delivered when the office's
retained ``acks`` (subscribed here) say it is stored, and an office word that shows no
progress on a match re-sends what it lacks (outbox.py). So does the office's silence: once
the office has spoken on this connection, events it has not stored within the outbox's
re-send interval (5 s, doubling to 60 s) are offered again, timed on the injected clock.
A match the office's ``acks`` say it refuses from this hall (another hall plays it) is
held instead, neither sent nor re-sent, and sent once the office takes it.

A hall plays match after match: ``add_outbox`` adds the next match's outbox, and the older
ones are sent first (a match's events all go out before the next match's first). Every
outbox stays with the link: an office that later says it lost a finished match's events
gets them again.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable
from typing import Any

from arena import presets, wire
from arena.broker import STATE_EVERY_S, BrokerLink, Message, Tls, Will
from arena.core.units import NS_PER_S
from arena.timesource import monotonic_s
from arena.wire import WireError
from firmware_py.outbox import Outbox

log = logging.getLogger(__name__)

__all__ = ["HallLink", "MirrorLink", "parse_next"]

_QOS_OF = {rule.kind: rule.qos for rule in wire.TOPICS}

def parse_next(payload: bytes) -> dict[str, Any]:
    """A ``next`` document, checked against the presets this scoreboard has, as the
    document ``on_next`` is handed; raises ``wire.WireError``."""
    return wire.next_document(wire.check_next(wire.NEXT, payload, presets.names()))


class HallLink(BrokerLink):
    """One hall's connection to the broker; call ``pump()`` often from the owner's thread."""

    def __init__(
        self,
        host: str,
        port: int,
        tournament: str,
        hall: str,
        *,
        outbox: Outbox | None = None,
        username: str | None = None,
        password: str | None = None,
        tls: Tls | None = None,
        client_id: str | None = None,
        keepalive: int = 30,
        reconnect_s: tuple[int, int] = (1, 30),
        on_next: Callable[[dict[str, Any]], None] | None = None,
        on_standings: Callable[[str, dict[str, Any] | None], None] | None = None,
        clock: Callable[[], float] = monotonic_s,
    ) -> None:
        topics = wire.hall_topics(tournament, hall)
        # clean session: the journal, not the broker, keeps what is unsent
        super().__init__(
            host, port, client_id=client_id or f"hall-{tournament}-{hall}", clean_session=True,
            username=username, password=password, tls=tls, keepalive=keepalive,
            reconnect_s=reconnect_s,
            will=Will(topics.status, wire.build_status(online=False)),
            max_in_flight=None if outbox is None else outbox.max_in_flight)
        self.hall = hall
        self.topics = topics
        self._tournament = tournament
        self.outboxes: list[Outbox] = [] if outbox is None else [outbox]
        self._on_next = on_next
        self._on_standings = on_standings
        self._clock = clock
        self._inbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._mids: dict[int, tuple[Outbox, int]] = {}  # paho mid -> (outbox, seq) in flight
        self._connected = False
        self._subscribed = False  # `next` is subscribed on this connection
        self._state: bytes | None = None  # the last state document, as sent
        self._state_steady: bytes | None = None  # the same without its anchor
        self._state_sent = float("-inf")
        self._offline_mid: int | None = None
        self._office_word: dict[str, int] | None = None  # the latest acks, not yet applied
        # Matches on which a word of the batch did not move past the word before it: the
        # office repeated itself (a nudge: it holds events above a gap), and that must not
        # be lost when the batch is applied as its latest word only.
        self._office_repeated: set[str] = set()
        self._heard_on_connection = False  # timed re-sends wait for the office's first word
        # The office's word arrived since start: a mark kept from an earlier run is only
        # what the office said then (it may since have been restored from an older copy).
        self.office_heard = False
        self.refused_next: list[str] = []  # reasons, newest last (for tests and the display)
        # What a `next` had wrong in an optional key (wire.Next.ignored), logged once each:
        # a retained next comes again on every reconnect and with every change of it.
        self.ignored_next: list[str] = []
        # The latest of those two, for the timekeeper (parts.OfficeLink.problem).
        self.problem: str | None = None
        # Since when the office cannot store (its acks say so, wire.Ak.CANNOT_STORE_SINCE):
        # the timekeeper is told that its results are kept there and retried. None: it stores.
        self.cannot_store_since: str | None = None
        self._word_seen: dict[str, int] | None = None  # the marks last read on this connection
        # Match -> the hall playing it, for our matches the office refuses (wire.Ak.REFUSED):
        # their events are held (Outbox.refuse) and the timekeeper is told.
        self.refused: dict[str, str] = {}

    # hooks (paho's network thread): only enqueue ----------------------------------------

    def on_connected(self, ok: bool, reason: str, session_present: bool | None) -> None:
        self._inbox.put(("connect", ok))
        if not ok:
            self._inbox.put(("log", f"broker refused the connection: {reason}"))

    def on_disconnected(self, reason: str) -> None:
        self._inbox.put(("disconnect", reason))

    def on_published(self, mid: int) -> None:
        self._inbox.put(("puback", mid))

    def on_subscribed(self, ok: bool) -> None:
        self._inbox.put(("suback", ok))

    def on_message(self, message: Message) -> None:
        self._inbox.put(("message", (message.topic, message.payload, message.retain)))

    # owner's thread ----------------------------------------------------------------------

    @property
    def outbox(self) -> Outbox | None:
        """The newest outbox (the current match's)."""
        return self.outboxes[-1] if self.outboxes else None

    def add_outbox(self, outbox: Outbox) -> None:
        """The next match's outbox; it is sent after every older one is acknowledged."""
        self.outboxes.append(outbox)

    @property
    def unacked(self) -> int:
        """Events of every match the office has not yet said it stored."""
        return sum(o.unacked for o in self.outboxes)

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def subscribed(self) -> bool:
        """The broker confirmed the `next` subscription on the current connection."""
        return self._subscribed

    def pump(self, timeout: float = 0.0) -> None:
        """Handle what the network thread reported, then send what may be sent.

        Waits up to ``timeout`` seconds for the first report, so a loop can sleep here.
        """
        acks: list[tuple[Outbox, int]] = []
        try:
            item: tuple[str, Any] | None = self._inbox.get(timeout=timeout) if timeout > 0 \
                else self._inbox.get_nowait()
        except queue.Empty:
            item = None
        while item is not None:
            self._handle(item, acks)
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                item = None
        for outbox in self.outboxes:
            mine = [seq for box, seq in acks if box is outbox]
            if mine:
                outbox.published(mine)
        for outbox in self.outboxes:  # a match learnt since from its first event, too
            if outbox.match is not None:
                outbox.refuse(self.refused.get(outbox.match))
        if self._office_word is not None:
            self._apply_acks(self._office_word, self._office_repeated)
            self._office_word = None
            self._office_repeated = set()
            self.office_heard = self._heard_on_connection = True
        self._resend_overdue()
        self._send()

    def _apply_acks(self, stored: dict[str, int], repeated: set[str]) -> None:
        """The office's latest word on this hall (each is its whole word, so the latest of a
        batch is the office's state; ``repeated``: matches on which the batch also held a
        word without progress). A match it does not name has nothing stored."""
        for outbox in self.outboxes:
            if outbox.match is None:
                continue  # no event yet: nothing to deliver
            upto = stored.get(outbox.match, 0)
            if upto < outbox.stored:
                log.warning("MQTT: the office now has %s only up to seq %d (had %d): "
                            "re-sending", outbox.match, upto, outbox.stored)
            resent = outbox.office_acked(upto)
            if not resent and outbox.match in repeated:
                resent = outbox.office_acked(upto)  # the repeat, after the progress
            if resent:
                log.info("MQTT: re-sending %s from seq %d (%d not stored by the office)",
                         outbox.match, upto + 1, outbox.unacked)

    def _resend_overdue(self) -> None:
        """Offer again what the office has not stored within the re-send interval.

        Only while connected and subscribed, and once the office has spoken on this
        connection: before its word arrives, that word decides (it re-sends on no
        progress), and a wait begun before an outage says nothing about the office now.
        One log line per re-send and match, never one per event.
        """
        if not (self._connected and self._subscribed and self._heard_on_connection):
            return
        now = round(self._clock() * NS_PER_S)
        for outbox in self.outboxes:
            if outbox.match is None or not outbox.overdue(now):
                continue
            waited = outbox.resend_after
            count = outbox.resend(now)
            log.warning("MQTT: the office has not stored %s from seq %d for %.0f s: "
                        "re-sending %d events (next wait %.0f s)", outbox.match,
                        outbox.stored + 1, waited / NS_PER_S, count,
                        outbox.resend_after / NS_PER_S)

    def _handle(self, item: tuple[str, Any], acks: list[tuple[Outbox, int]]) -> None:
        kind, value = item
        if kind == "connect":
            self._connected = bool(value)
            self._subscribed = self._heard_on_connection = False
            self._word_seen = None
            if value:
                log.info("MQTT connected to %s:%d", self._host, self._port)
                self.publish(self.topics.status, wire.build_status(online=True), qos=1,
                                     retain=True)
                self.subscribe(wire.hall_subscriptions(self.topics))
                self._state_sent = float("-inf")  # refresh the retained state at once
        elif kind == "disconnect":
            if self._connected:
                log.warning("MQTT connection lost (%s); reconnecting with back-off", value)
            self._connected = self._subscribed = self._heard_on_connection = False
        elif kind == "suback":
            self._subscribed = bool(value) and self._connected
            if not value:
                log.error("MQTT: the broker refused the subscription to %s", self.topics.next)
        elif kind == "puback":
            sent = self._mids.pop(value, None)
            if sent is not None:
                acks.append(sent)
            elif value == self._offline_mid:
                self._offline_mid = -1
        elif kind == "message":
            self._handle_message(*value)
        elif kind == "log":
            log.error("MQTT: %s", value)

    def _handle_message(self, topic: str, payload: bytes, retained: bool) -> None:
        found = wire.route(topic, self._tournament)
        if found is not None and found.kind == wire.STANDINGS:
            self._handle_standings(topic, payload, found)
            return
        if topic == self.topics.acks:
            try:
                _, word = wire.check_acks(topic, payload, self._tournament)
            except WireError as err:
                log.warning("MQTT %s: refused: %s", topic, err.reason)
                return
            since = wire.cannot_store_since(payload)
            held = self._take_refusals(wire.refused_matches(payload))
            changed = since != self.cannot_store_since
            if changed:
                self.cannot_store_since = since
                if since is None:
                    log.info("MQTT: the office stores again")
                else:
                    log.warning("MQTT: the office cannot store since %s: our events are "
                                "kept there and retried", since)
            seen, self._word_seen = self._word_seen, word
            if (changed or held) and word == seen:
                return  # its store's or a refusal's news, not a word repeated: no re-send
            before = self._office_word
            if before is not None:
                self._office_repeated.update(
                    m for m in word.keys() | before.keys() if word.get(m, 0) <= before.get(m, 0))
            self._office_word = word
            return
        if topic != self.topics.next:
            return
        if not payload:
            return  # the office cleared the retained `next`: nothing planned
        try:
            checked = wire.check_next(topic, payload, presets.names())
        except WireError as err:
            reason = err.reason
            self.refused_next.append(reason)
            self.problem = reason
            log.warning("MQTT %s: refused: %s", topic, reason)
            return
        for reason in checked.ignored:
            if reason not in self.ignored_next:
                self.ignored_next.append(reason)
                self.problem = reason
                log.warning("MQTT %s: %s (the rest of it is taken)", topic, reason)
        doc = wire.next_document(checked)
        if self._on_next is not None:
            self._on_next(doc)

    def _take_refusals(self, refused: dict[str, str]) -> bool:
        """The office's refusals (match -> the hall playing it) on this hall; True if
        they changed. One log line per match refused or taken again, never per event."""
        if refused == self.refused:
            return False
        for match in sorted(refused.keys() - self.refused.keys()):
            log.warning("MQTT: the office refuses our events of %s: %s plays it; they are "
                        "kept here and sent once the office gives this hall the match",
                        match, refused[match])
        for match in sorted(self.refused.keys() - refused.keys()):
            log.info("MQTT: the office takes our events of %s now: sending them", match)
        self.refused = refused
        return True

    def _handle_standings(self, topic: str, payload: bytes, found: wire.Route) -> None:
        # Keyed "<group>", or "<category>/<group>" in an event of several categories: the
        # between-games screen shows the tables of its match's category (firmware_py.between).
        group = f"{found.category}/{found.group}" if found.category else str(found.group)
        if not payload:
            doc = None  # the office removed the table
        else:
            try:
                doc = wire.between_table(wire.check_standings(topic, payload))
            except WireError as err:
                log.warning("MQTT %s: refused: %s", topic, err.reason)
                return
        if self._on_standings is not None:
            self._on_standings(group, doc)

    def _send(self) -> None:
        if not self._connected:
            return  # nothing more for paho's memory queue during an outage
        for outbox in self.outboxes:
            for record in outbox.take():
                body = wire.build_event(self.hall, record)
                mid = self.publish(self.topics.events, body, qos=1)
                self._mids[mid] = (outbox, int(record["seq"]))
            if outbox.unsent:
                break  # an earlier match's events all go before the next match's
        if self._state is not None and self._clock() - self._state_sent >= STATE_EVERY_S:
            self._publish_state()

    def publish_state(self, doc: dict[str, Any]) -> None:
        """The retained state: sent on every change, and by ``pump`` at least every 10 s.

        QoS 0: a lost state is replaced by the next one within seconds, and QoS 1 would make
        paho queue stale states in memory during an outage; after a reconnect the latest is
        sent at once.
        """
        body = wire.build_state(doc)
        # The anchor moves with every frame; a stopped clock's document with a newer anchor
        # says nothing new (the old anchor still gives the same clock), so it is not sent.
        steady = body if "anchor" not in doc else wire.build_state(
            {k: v for k, v in doc.items() if k != "anchor"})
        if steady == self._state_steady:
            return
        self._state_steady = steady
        self._state = body
        if self._connected:
            self._publish_state()

    def _publish_state(self) -> None:
        assert self._state is not None
        self.publish(self.topics.state, self._state, qos=0, retain=True)
        self._state_sent = self._clock()

    def drain(self, timeout: float) -> bool:
        """Pump until the office has stored every event, or ``timeout`` seconds passed, or
        what it lacks it refuses (``refused``); True if it has. The office must have spoken
        since start: the marks of an earlier run are not its word now."""
        deadline = self._clock() + timeout
        while self.unacked or not self.office_heard:
            if self.office_heard and all(o.refused_by is not None
                                         for o in self.outboxes if o.unacked):
                return False  # only the office can end that (the caller says so)
            left = deadline - self._clock()
            if left <= 0:
                return False
            self.pump(min(left, 0.1))
        return True

    def close(self, timeout: float = 2.0) -> None:
        """Say ``offline`` (the will is not sent on a clean disconnect), then disconnect."""
        if self._connected:
            self._offline_mid = self.publish(self.topics.status,
                                             wire.build_status(online=False), qos=1, retain=True)
            deadline = self._clock() + timeout
            while self._offline_mid != -1 and self._clock() < deadline:
                self.pump(0.05)
        self.disconnect()
        self.stop()
        for outbox in self.outboxes:
            outbox.close()




class MirrorLink(BrokerLink):
    """A second board's read-only connection (``scoreboard run --mirror HALL``): the hall's
    retained ``state`` and ``status``, nothing written, no will (a mirror going away is no
    news to anyone). Call ``pump()`` from the owner's thread: it returns what arrived, in
    order, as ``("state", document)``, ``("status", online)``, ``("connected", ok)``."""

    def __init__(self, host: str, port: int, tournament: str, hall: str, *,
                 username: str | None = None, password: str | None = None,
                 tls: Tls | None = None, keepalive: int = 10, client_id: str | None = None,
                 on_arrival: Callable[[], None] | None = None) -> None:
        topics = wire.hall_topics(tournament, hall)
        # On the shipped broker the user name replaces it (one connection per user).
        super().__init__(host, port, client_id=client_id or f"mirror-{tournament}-{hall}",
                         clean_session=True, username=username, password=password, tls=tls,
                         keepalive=keepalive, reconnect_s=(1, 10))
        self.hall = hall
        self.topics = topics
        self._tournament = tournament
        self._inbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._connected = False
        # Called on paho's thread after each report: ends the owner's nap at once.
        self._arrived = on_arrival or (lambda: None)

    @property
    def connected(self) -> bool:
        return self._connected

    def on_connected(self, ok: bool, reason: str, session_present: bool | None) -> None:
        self._inbox.put(("connect", (ok, reason)))
        self._arrived()

    def on_disconnected(self, reason: str) -> None:
        self._inbox.put(("disconnect", reason))
        self._arrived()

    def on_subscribed(self, ok: bool) -> None:
        if not ok:
            self._inbox.put(("refused", None))

    def on_message(self, message: Message) -> None:
        self._inbox.put(("message", (message.topic, message.payload)))
        self._arrived()

    def pump(self, timeout: float = 0.0) -> list[tuple[str, Any]]:
        """What arrived since the last call (waiting up to ``timeout`` s for the first)."""
        out: list[tuple[str, Any]] = []
        try:
            item: tuple[str, Any] | None = self._inbox.get(timeout=timeout) if timeout > 0 \
                else self._inbox.get_nowait()
        except queue.Empty:
            return out
        while item is not None:
            out += self._handle(*item)
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                item = None
        return out

    def _handle(self, kind: str, value: Any) -> list[tuple[str, Any]]:
        if kind == "connect":
            ok, reason = value
            self._connected = ok
            if ok:
                log.info("MQTT connected to %s:%d (mirror of %s)", self._host, self._port,
                         self.hall)
                self.subscribe([(self.topics.state, _QOS_OF[wire.STATE]),
                                (self.topics.status, _QOS_OF[wire.STATUS])])
            else:
                log.error("MQTT: broker refused the connection: %s", reason)
            return [("connected", ok)]
        if kind == "disconnect":
            if self._connected:
                log.warning("MQTT connection lost (%s); reconnecting with back-off", value)
            self._connected = False
            return [("connected", False)]
        if kind == "refused":
            log.error("MQTT: the broker refused the subscription to %s (the mirror's user "
                      "may not read it: systemd/mosquitto/arena.acl)", self.topics.state)
            return []
        topic, payload = value
        try:
            if topic == self.topics.state:
                return [("state", wire.check_state(topic, payload, self._tournament)[1])]
            if topic == self.topics.status:
                return [("status", wire.check_status(topic, payload, self._tournament)[1])]
        except WireError as err:
            log.warning("MQTT %s: refused: %s", topic, err.reason)
        return []

    def close(self) -> None:
        self.disconnect()
        self.stop()
