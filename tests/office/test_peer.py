"""The office's MQTT connection against a real mosquitto: a persistent session keeps what
halls sent while the office was away, an event is acknowledged only when the office says
so (and comes again if it never did), retained documents reach later subscribers, and a
missing broker at start-up is no problem."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from office.peer import Message, OfficePeer
from tests.fixtures import Broker, free_port, wait_for
from tests.mqtt.conftest import Collector

pytestmark = pytest.mark.slow  # every test here starts a process

T = "T1"
EVENTS = f"arena/v1/{T}/hall-1/events"
MARKER = f"arena/v1/{T}/hall-1/status"  # a QoS 1 message that says "the backlog is over"
OFFICE_ID = "office-test"


class Hall:
    """A plain publisher standing in for a hall: QoS 1, waits for the broker's PUBACKs."""

    def __init__(self, port: int) -> None:
        self.acked: set[int] = set()
        self.lock = threading.Lock()
        c = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                        client_id="test-hall", protocol=paho.MQTTv311, clean_session=True)
        c.on_publish = self._on_publish
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.client = c

    def _on_publish(self, client: paho.Client, userdata: Any, mid: int, *rest: Any) -> None:
        with self.lock:
            self.acked.add(mid)

    def _all_acked(self, mids: set[int]) -> bool:
        with self.lock:
            return mids <= self.acked

    def send(self, topic: str, *payloads: bytes) -> None:
        mids = {self.client.publish(topic, p, qos=1).mid for p in payloads}
        wait_for(lambda: self._all_acked(mids), 10, "the broker's PUBACKs")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def peer(port: int, **kwargs: Any) -> OfficePeer:
    p = OfficePeer("127.0.0.1", port, T, client_id=OFFICE_ID, reconnect_s=(1, 1), **kwargs)
    p.start()
    return p


def started(port: int) -> OfficePeer:
    p = peer(port)
    wait_for(lambda: p.subscribed, 10, "the office to connect and subscribe")
    return p


def closed(office: OfficePeer, broker: Broker) -> None:
    """Close, then wait until the broker has read the whole old connection.

    A PUBACK written to the socket is not confirmed by anything in MQTT 3.1.1. mosquitto
    reads one packet per client per turn of its loop, so if the same client id connects
    again at once (session takeover) the old socket is closed with acks still unread and
    those messages come again: harmless for the office (duplicates are ignored), but here
    the test wants to see exactly what was acked.
    """
    line = f"Client {OFFICE_ID} disconnected."
    before = broker.log.read_text().count(line)
    office.close()
    wait_for(lambda: broker.log.read_text().count(line) > before, 10, "the broker to see it")


def collect_until(p: OfficePeer, marker: bytes, timeout: float = 10) -> list[Message]:
    """Poll until the marker arrives (acking it); everything before it, in order.

    The broker sends a session's backlog before anything published later, so once the
    marker is here, anything still missing is not coming: no waiting for time.
    """
    got: list[Message] = []

    def arrived() -> bool:
        got.extend(p.poll(0.05))
        return any(m.payload == marker for m in got)

    wait_for(arrived, timeout, f"marker {marker!r}")
    for m in got:
        if m.payload == marker:
            p.ack(m)
    return [m for m in got if m.topic == EVENTS]


def test_events_sent_while_the_office_is_away_arrive_when_it_is_back(broker: Broker) -> None:
    office = started(broker.port)
    office.close()  # the broker keeps the session and queues the QoS 1 events for it
    hall = Hall(broker.port)
    hall.send(EVENTS, b"e1", b"e2", b"e3")

    office = started(broker.port)
    hall.send(MARKER, b"online-1")
    backlog = collect_until(office, b"online-1")
    assert [m.payload for m in backlog] == [b"e1", b"e2", b"e3"]
    assert all(m.qos == 1 and not m.retain for m in backlog)
    assert all(office.ack(m) for m in backlog)
    closed(office, broker)

    # Acked: a reconnect brings nothing of it again.
    office = started(broker.port)
    hall.send(MARKER, b"online-2")
    assert collect_until(office, b"online-2") == []
    office.close()
    hall.close()


def test_an_event_polled_but_not_acked_comes_again(broker: Broker) -> None:
    office = started(broker.port)
    hall = Hall(broker.port)
    hall.send(EVENTS, b"e1", b"e2", b"e3")
    hall.send(MARKER, b"m1")
    first = collect_until(office, b"m1")
    assert [m.payload for m in first] == [b"e1", b"e2", b"e3"]
    assert office.ack(first[0])  # stored; e2 and e3 were not (the office "crashed")
    closed(office, broker)

    office = started(broker.port)
    assert not office.ack(first[1])  # from the old connection: dropped, not sent
    hall.send(MARKER, b"m2")
    again = collect_until(office, b"m2")
    assert [m.payload for m in again] == [b"e2", b"e3"]
    assert all(m.dup for m in again)  # the broker's redelivery of its in-flight messages
    for m in again:
        assert office.ack(m)
    office.close()
    hall.close()


def test_an_unacked_event_comes_again_after_a_broker_restart(broker: Broker) -> None:
    office = started(broker.port)
    hall = Hall(broker.port)
    hall.send(EVENTS, b"e1")
    hall.close()
    got: list[Message] = []
    wait_for(lambda: bool(got.extend(office.poll(0.05)) or got), 10, "e1")
    assert [m.payload for m in got] == [b"e1"]
    broker.stop()  # SIGTERM: mosquitto saves the session, e1 unacked in it
    wait_for(lambda: not office.connected, 10, "the office to notice")
    broker.start()

    again: list[Message] = []

    def redelivered() -> bool:
        again.extend(m for m in office.poll(0.05) if m.topic == EVENTS)
        return bool(again)

    wait_for(redelivered, 15, "e1 again after the same peer reconnected by itself")
    assert [m.payload for m in again] == [b"e1"]
    assert not office.ack(got[0])  # the old connection's copy: not acked on the new one
    assert office.ack(again[0])
    office.close()


def test_retained_documents_reach_new_subscribers(broker: Broker) -> None:
    probe = Collector(broker.port, f"arena/v1/{T}/#", client_id="probe", persistent=False)
    wait_for(probe.subscribed.is_set, 10, "the probe's subscription")
    office = started(broker.port)
    office.publish_retained("standings/A", b'{"rows": []}')
    office.publish_retained(f"arena/v1/{T}/hall-1/next", b'{"match": "A1"}')
    office.publish_retained("standings/B", b'{"rows": [1]}')
    office.clear_retained("standings/B")
    # The broker forwarded the clear, so it has processed all four.
    wait_for(lambda: probe.on("/standings/B") == [b'{"rows": [1]}', b""], 10, "the clear")
    probe.close()

    display = Collector(broker.port, f"arena/v1/{T}/#", client_id="display", persistent=False)
    wait_for(display.subscribed.is_set, 10, "the display's subscription")
    hall = Hall(broker.port)
    hall.send(MARKER, b"done")  # after the subscription: the retained ones came before it
    wait_for(lambda: bool(display.on("/status")), 10, "the marker")
    assert display.on("/standings/A") == [b'{"rows": []}']
    assert display.on("/hall-1/next") == [b'{"match": "A1"}']
    assert display.on("/standings/B") == []  # cleared
    display.close()
    hall.close()
    office.close()


def test_the_office_starts_without_a_broker_and_connects_when_it_appears(
        tmp_path: Path) -> None:
    broker = Broker(tmp_path / "late-broker", port=free_port())
    office = peer(broker.port)  # returns at once: nothing listens on the port yet
    assert not office.connected
    # Set during the outage: sent as soon as the broker is there.
    office.publish_retained("hall-2/next", b'{"match": "A2"}')
    broker.start()
    try:
        wait_for(lambda: office.subscribed, 15, "the office to connect to the late broker")
        display = Collector(broker.port, f"arena/v1/{T}/hall-2/next", client_id="display",
                            persistent=False)
        wait_for(lambda: display.on("/next") == [b'{"match": "A2"}'], 10, "the retained next")
        display.close()
    finally:
        office.close()
        broker.stop()
