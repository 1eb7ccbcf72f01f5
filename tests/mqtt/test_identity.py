"""Client ids cannot be taken over on the shipped broker (arena.conf's
``use_username_as_clientid``): another user connecting with the office's client id and a
clean session neither erases the office's persistent session (the events queued for it)
nor kicks it, and the same trick does not kick a hall.

The same scenario on the shipped configuration without that one line is run too, and must
lose the office's queue and kick the hall: the test shows the line is what protects them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from arena import wire
from office.peer import Message, OfficePeer
from tests.fixtures import SHIPPED_USERS, ShippedBroker, wait_for

pytestmark = pytest.mark.slow  # every test here starts a process

T = "T1"
USERS = SHIPPED_USERS
BINDING = "use_username_as_clientid true\n"
# The ids our clients send (firmware_py/mqtt.py): the office's persistent session, a hall's.
OFFICE_ID = f"office-{T}"
HALL_ID = f"hall-{T}-hall-a"


class Client:
    """A plain MQTT 3.1.1 client that counts its connections and its PUBACKs."""

    def __init__(self, port: int, user: str, client_id: str, *, clean: bool = True) -> None:
        self.lock = threading.Lock()
        self.connects = 0
        self.disconnects = 0
        self.acked: set[int] = set()
        c = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id=client_id,
                        protocol=paho.MQTTv311, clean_session=clean)
        c.username_pw_set(user, USERS[user])
        c.reconnect_delay_set(min_delay=1, max_delay=1)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_publish = self._on_publish
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.client = c
        wait_for(lambda: self.connects > 0, 5, f"{user} ({client_id}) to connect")

    def _on_connect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        assert not reason.is_failure, reason
        with self.lock:
            self.connects += 1

    def _on_disconnect(self, *args: Any) -> None:
        with self.lock:
            self.disconnects += 1

    def _on_publish(self, client: paho.Client, userdata: Any, mid: int, *rest: Any) -> None:
        with self.lock:
            self.acked.add(mid)

    def send(self, topic: str, payload: bytes) -> None:
        mid = self.client.publish(topic, payload, qos=1).mid
        wait_for(lambda: mid in self.acked, 10, f"the PUBACK for {topic}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def intrude(port: int, user: str, client_id: str) -> None:
    """Connect with someone else's client id and a clean session, then leave cleanly."""
    intruder = Client(port, user, client_id, clean=True)
    intruder.close()


def office(port: int) -> OfficePeer:
    """The real office connection, as `office serve` makes it (user office, default id)."""
    peer = OfficePeer("127.0.0.1", port, T, username="office", password=USERS["office"],
                      reconnect_s=(1, 1))
    peer.start()
    wait_for(lambda: peer.subscribed, 10, "the office to connect and subscribe")
    return peer


def event(seq: int) -> bytes:
    return f'{{"seq": {seq}}}'.encode()  # the broker carries it; no office reads it here


@pytest.mark.parametrize("shipped", [True, False], ids=["shipped", "without-binding"])
def test_another_user_cannot_take_over_the_offices_session_or_kick_a_hall(
        tmp_path: Path, shipped: bool) -> None:
    broker = ShippedBroker(tmp_path / "broker", USERS)
    assert broker.config_text is not None and BINDING in broker.config_text
    if not shipped:  # the control: the shipped file with the one line removed
        broker.config_text = broker.config_text.replace(BINDING, "")
    broker.start()
    events = wire.hall_topic(T, "hall-a", wire.EVENTS)
    received: list[Message] = []
    hall = peer = None
    try:
        # The office subscribes once (persistent session), then is away.
        office(broker.port).close()
        hall = Client(broker.port, "hall-a", HALL_ID)
        hall.send(events, event(1))
        hall.send(events, event(2))
        # Other users, with valid credentials of their own, under the office's id (what it
        # sends, and what the broker makes of it) and under the hall's.
        for user in ("hall-b", "display"):
            for client_id in (OFFICE_ID, "office", HALL_ID, "hall-a"):
                intrude(broker.port, user, client_id)
        # The broker has handled every intruder's CONNECT (each got its CONNACK) before
        # this publish, so a hall kicked by one of them has seen its connection drop.
        hall.send(events, event(3))
        kicked = hall.disconnects
        peer = office(broker.port)

        def took() -> int:
            for message in peer.poll():
                received.append(message)
                peer.ack(message)
            return len(received)

        if shipped:
            wait_for(lambda: took() >= 3, 10, "the events queued for the office")
            assert [m.payload for m in received] == [event(1), event(2), event(3)]
            assert kicked == 0 and hall.connects == 1
        else:
            # The session was erased: events 1 to 3 are gone for the office, and the hall
            # was thrown off. A later event arrives, so the office is subscribed again.
            hall.send(events, event(4))
            wait_for(lambda: took() >= 1, 10, "the event after the take-over")
            assert [m.payload for m in received] == [event(4)]
            assert kicked > 0
    finally:
        if peer is not None:
            peer.close()
        if hall is not None:
            hall.close()
        broker.stop()
