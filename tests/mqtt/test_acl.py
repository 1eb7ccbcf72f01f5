"""The office broker (systemd/mosquitto/arena.conf and arena.acl) against a real mosquitto
started with exactly the shipped configuration (``ShippedBroker``).

arena.conf binds the client id to the user name, so each user has one connection: every
client here logs in as a different user (the ``display`` user watches what the office
would read)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from arena import wire
from tests.fixtures import SHIPPED_USERS, ShippedBroker, mirror_acl, wait_for
from tests.mqtt.conftest import Collector

pytestmark = pytest.mark.slow  # every test here starts a process

T = "T1"
USERS = SHIPPED_USERS


class V5Client:
    """An MQTT 5 client: mosquitto answers a refused QoS 1 publish with reason code 135."""

    def __init__(self, port: int, user: str, password: str) -> None:
        self.acks: dict[int, ReasonCode] = {}
        self.connected: ReasonCode | None = None
        c = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                        client_id=f"acl-{user}", protocol=paho.MQTTv5)
        c.username_pw_set(user, password)
        c.on_connect = self._on_connect
        c.on_publish = self._on_publish
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.client = c
        wait_for(lambda: self.connected is not None, 5, f"{user} to connect")

    def _on_connect(self, client: paho.Client, userdata: object, flags: object,
                    reason: ReasonCode, properties: Properties | None) -> None:
        self.connected = reason

    def _on_publish(self, client: paho.Client, userdata: object, mid: int, reason: ReasonCode,
                    properties: Properties | None) -> None:
        self.acks[mid] = reason

    def publish(self, topic: str, *, retain: bool = False) -> ReasonCode:
        mid = self.client.publish(topic, b"x", qos=1, retain=retain).mid
        wait_for(lambda: mid in self.acks, 5, f"PUBACK for {topic}")
        return self.acks[mid]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Reader(Collector):
    """A hall's subscriber with several subscriptions (as HallLink makes them)."""

    def __init__(self, port: int, user: str, subscriptions: list[tuple[str, int]],
                 password: str | None = None) -> None:
        self.subscriptions = subscriptions  # before the connection can call back
        super().__init__(port, subscriptions[0][0], client_id=f"acl-{user}-reader",
                         persistent=False, username=user, password=password or USERS[user])

    def _on_connect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if not reason.is_failure:
            client.subscribe(self.subscriptions)


def topic(hall: str, kind: str) -> str:
    return wire.hall_topic(T, hall, kind)


def test_a_hall_writes_only_its_own_subtree(shipped_broker: ShippedBroker) -> None:
    port = shipped_broker.port
    watcher = Collector(port, "arena/#", client_id="acl-watcher", persistent=False,
                        username="display", password=USERS["display"])
    hall_a = V5Client(port, "hall-a", USERS["hall-a"])
    office = V5Client(port, "office", USERS["office"])
    try:
        wait_for(watcher.subscribed.is_set, 5, "the watcher to subscribe")
        denied = [topic("hall-b", wire.EVENTS), topic("hall-b", wire.STATE),
                  topic("hall-b", wire.STATUS), topic("hall-a", wire.NEXT),
                  topic("hall-a", wire.ACKS), topic("hall-b", wire.ACKS),
                  wire.standings_topic(T, "A"), "arena/v1/T1/hall-a/other"]
        for t in denied:
            assert hall_a.publish(t).value == 135, t  # not authorised
        allowed = [topic("hall-a", wire.EVENTS), topic("hall-a", wire.STATE),
                   topic("hall-a", wire.STATUS)]
        for t in allowed:
            assert not hall_a.publish(t).is_failure, t
        from_office = [topic("hall-a", wire.NEXT), topic("hall-a", wire.ACKS),
                       wire.standings_topic(T, "A")]
        for t in from_office:
            assert not office.publish(t).is_failure, t
        # The watcher saw exactly the allowed ones and the office's, none of the denied.
        wait_for(lambda: len(watcher.messages) >= 6, 5, "the watcher to receive")
        assert [t for t, _ in watcher.messages] == [*allowed, *from_office]
        # The display only reads.
        display = V5Client(port, "display", USERS["display"])
        try:
            assert display.publish(wire.standings_topic(T, "A")).value == 135
        finally:
            display.close()
    finally:
        hall_a.close()
        office.close()
        watcher.close()


def test_a_hall_reads_its_own_next_and_acks_and_the_tables_only(
        shipped_broker: ShippedBroker) -> None:
    """Retained (``next``, standings) and live (acks) alike. The hall subscribes to what
    HallLink subscribes to, plus wildcards that would take another hall's."""
    port = shipped_broker.port
    office = V5Client(port, "office", USERS["office"])
    readers: list[Collector] = []
    try:
        # Retained before anyone subscribes: delivered on subscribe, if allowed.
        for hall in ("hall-b", "hall-a"):
            assert not office.publish(topic(hall, wire.NEXT), retain=True).is_failure
        assert not office.publish(wire.standings_topic(T, "A"), retain=True).is_failure
        subscriptions = [*wire.hall_subscriptions(wire.hall_topics(T, "hall-a")),
                         (topic("hall-a", wire.ACKS), 1),
                         ("arena/v1/T1/+/next", 1), ("arena/v1/T1/+/acks", 1),
                         ("arena/v1/T1/+/events", 1)]
        for user in ("hall-a", "hall-b"):
            readers.append(Reader(port, user, [(s.replace("hall-a", user), q)
                                               for s, q in subscriptions]))
        for reader in readers:
            wait_for(reader.subscribed.is_set, 5, "a hall to subscribe")
        a, b = readers
        wait_for(lambda: len(a.messages) >= 2 and len(b.messages) >= 2, 5, "the retained")
        # Live: the other hall's acks first, then this hall's, then a table update. Same
        # publisher, same subscriber, QoS 1: what was allowed would arrive in this order.
        sent = [topic("hall-b", wire.ACKS), topic("hall-a", wire.ACKS),
                wire.standings_topic(T, "B")]
        for t in sent:
            assert not office.publish(t).is_failure, t
        wait_for(lambda: len(a.on("/standings/B")) == 1 and len(b.on("/standings/B")) == 1,
                 5, "the table update")
        # (Overlapping subscriptions may bring a message once per subscription.)
        for reader, hall in ((a, "hall-a"), (b, "hall-b")):
            assert {t for t, _ in reader.messages} == {
                topic(hall, wire.NEXT), wire.standings_topic(T, "A"),
                topic(hall, wire.ACKS), wire.standings_topic(T, "B")}, hall
    finally:
        for reader in readers:
            reader.close()
        office.close()


def connack(port: int, user: str | None, password: str | None) -> ReasonCode:
    """The broker's answer to a connection attempt."""
    codes: list[ReasonCode] = []

    def on_connect(client: paho.Client, userdata: object, flags: object, reason: ReasonCode,
                   properties: Properties | None) -> None:
        codes.append(reason)

    c = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id="acl-bad",
                    protocol=paho.MQTTv311)
    if user is not None:
        c.username_pw_set(user, password)
    c.on_connect = on_connect
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        wait_for(lambda: bool(codes), 5, "the broker's answer")
    finally:
        c.disconnect()
        c.loop_stop()
    return codes[0]


def test_a_wrong_password_or_no_user_name_is_refused(shipped_broker: ShippedBroker) -> None:
    port = shipped_broker.port
    assert connack(port, "hall-a", "wrong").is_failure
    assert connack(port, None, None).is_failure  # and no user name, no client id
    assert not connack(port, "hall-a", USERS["hall-a"]).is_failure


MIRROR = "mirror-hall-a"  # the second board of hall-a (systemd/mosquitto/README.md)


@pytest.fixture
def mirror_broker(tmp_path: Path) -> Iterator[ShippedBroker]:
    """The shipped broker with the ACL's ``#mirror`` block filled in for hall-a, and its
    user in the password file, as the README says."""
    b = ShippedBroker(tmp_path / "broker", {**USERS, MIRROR: "mirror-secret"},
                      acl=mirror_acl(tmp_path, "hall-a"))
    b.start()
    yield b
    b.stop()


def test_a_second_board_reads_its_halls_state_and_status_only(
        mirror_broker: ShippedBroker) -> None:
    """Retained and live: what MirrorLink subscribes to comes; its hall's ``next`` and
    ``acks``, its events, another hall's topics and the tables do not, even through
    wildcards."""
    port = mirror_broker.port
    office = V5Client(port, "office", USERS["office"])
    halls = {h: V5Client(port, h, USERS[h]) for h in ("hall-a", "hall-b")}
    reader: Reader | None = None
    try:
        for hall, client in halls.items():
            for kind in (wire.STATE, wire.STATUS):
                assert not client.publish(topic(hall, kind), retain=True).is_failure
            assert not office.publish(topic(hall, wire.NEXT), retain=True).is_failure
        assert not office.publish(wire.standings_topic(T, "A"), retain=True).is_failure
        own = wire.hall_topics(T, "hall-a")
        reader = Reader(port, MIRROR, [
            (own.state, 1), (own.status, 1), (own.next, 1), (topic("hall-a", wire.ACKS), 1),
            (topic("hall-a", wire.EVENTS), 1), (topic("hall-b", wire.STATE), 1),
            (topic("hall-b", wire.STATUS), 1), (wire.standings_filter(T), 1),
            ("arena/v1/T1/+/state", 1), ("arena/#", 1)], password="mirror-secret")
        wait_for(reader.subscribed.is_set, 5, "the second board to subscribe")
        retained = {own.state, own.status}
        wait_for(lambda: {t for t, _ in reader.messages} >= retained, 5, "the retained")
        # Live, then its own hall's state last: same publisher per topic, QoS 1, so what
        # was allowed of the rest would have come by the time the marker does.
        assert not halls["hall-a"].publish(topic("hall-a", wire.EVENTS)).is_failure
        assert not halls["hall-b"].publish(topic("hall-b", wire.STATE)).is_failure
        for t in (topic("hall-a", wire.NEXT), topic("hall-a", wire.ACKS),
                  wire.standings_topic(T, "B")):
            assert not office.publish(t).is_failure, t
        for t in (topic("hall-b", wire.EVENTS), own.state):
            assert not halls["hall-b" if "hall-b" in t else "hall-a"].publish(t).is_failure
        wait_for(lambda: sum(t == own.state for t, _ in reader.messages) >= 2, 5,
                 "the live state")
        assert {t for t, _ in reader.messages} == retained
    finally:
        if reader is not None:
            reader.close()
        for client in (office, *halls.values()):
            client.close()


def test_a_second_board_writes_nothing(mirror_broker: ShippedBroker) -> None:
    port = mirror_broker.port
    watcher = Collector(port, "arena/#", client_id="acl-watcher", persistent=False,
                        username="display", password=USERS["display"])
    mirror = V5Client(port, MIRROR, "mirror-secret")
    try:
        wait_for(watcher.subscribed.is_set, 5, "the watcher to subscribe")
        denied = [topic(hall, kind) for hall in ("hall-a", "hall-b") for kind in wire.HALL_KINDS]
        denied += [wire.standings_topic(T, "A"), "arena/v1/T1/hall-a/other", "other"]
        # Its own name as a hall's level: no hall has it (check_hall refuses mirror- ids).
        denied += [f"{wire.tournament_root(T)}/{MIRROR}/{kind}" for kind in wire.HALL_KINDS]
        for t in denied:
            assert mirror.publish(t).value == 135, t  # not authorised
        assert mirror.publish(topic("hall-a", wire.STATE), retain=True).value == 135
        # The display sees one message only: the hall's own, sent after all the refused.
        hall = V5Client(port, "hall-a", USERS["hall-a"])
        try:
            assert not hall.publish(topic("hall-a", wire.STATUS)).is_failure
        finally:
            hall.close()
        wait_for(lambda: bool(watcher.messages), 5, "the hall's message")
        assert [t for t, _ in watcher.messages] == [topic("hall-a", wire.STATUS)]
    finally:
        mirror.close()
        watcher.close()
