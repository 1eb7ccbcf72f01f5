"""The office broker (systemd/mosquitto/arena.conf and arena.acl) against a real mosquitto."""

from __future__ import annotations

import subprocess
from pathlib import Path

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from tests.mqtt.conftest import MOSQUITTO_PASSWD, ROOT, Broker, Collector, wait_for

ACL = ROOT / "systemd" / "mosquitto" / "arena.acl"
CONF = ROOT / "systemd" / "mosquitto" / "arena.conf"


def office_config(broker: Broker, passwd: Path) -> str:
    """The shipped office configuration, moved to the test's port, files and directory."""
    text = CONF.read_text()
    for old, new in [("listener 1883", f"listener {broker.port} 127.0.0.1"),
                     ("/etc/mosquitto/arena.passwd", str(passwd)),
                     ("/etc/mosquitto/arena.acl", str(ACL)),
                     ("log_dest syslog", f"log_dest file {broker.log}\nuser root")]:
        assert old in text, old
        text = text.replace(old, new)
    # Debian's mosquitto.conf gives the location the shipped file relies on.
    return text + f"persistence_location {broker.dir}/\n"


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

    def publish(self, topic: str) -> ReasonCode:
        mid = self.client.publish(topic, b"x", qos=1).mid
        wait_for(lambda: mid in self.acks, 5, f"PUBACK for {topic}")
        return self.acks[mid]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_a_hall_writes_only_its_own_subtree(tmp_path: Path) -> None:
    passwd = tmp_path / "passwd"
    users = {"office": "o-secret", "hall-a": "a-secret", "hall-b": "b-secret"}
    for number, (user, password) in enumerate(users.items()):
        flags = ["-b", "-c"] if number == 0 else ["-b"]
        subprocess.run([MOSQUITTO_PASSWD, *flags, str(passwd), user, password], check=True)
    broker = Broker(tmp_path / "broker")
    broker.config_text = office_config(broker, passwd)
    broker.start()
    office = Collector(broker.port, "arena/#", client_id="acl-office-sub", persistent=False,
                       username="office", password=users["office"])
    hall_a = V5Client(broker.port, "hall-a", users["hall-a"])
    office_pub = V5Client(broker.port, "office", users["office"])
    try:
        wait_for(office.subscribed.is_set, 5, "the office to subscribe")
        denied = ["arena/v1/T1/hall-b/events", "arena/v1/T1/hall-b/state",
                  "arena/v1/T1/hall-b/status", "arena/v1/T1/hall-a/next",
                  "arena/v1/T1/standings/A", "arena/v1/T1/hall-a/other"]
        for topic in denied:
            assert hall_a.publish(topic).value == 135, topic  # not authorised
        allowed = ["arena/v1/T1/hall-a/events", "arena/v1/T1/hall-a/state",
                   "arena/v1/T1/hall-a/status"]
        for topic in allowed:
            assert not hall_a.publish(topic).is_failure, topic
        for topic in ("arena/v1/T1/hall-a/next", "arena/v1/T1/standings/A"):
            assert not office_pub.publish(topic).is_failure, topic
        # The office saw exactly the allowed ones (and its own), none of the denied.
        wait_for(lambda: len(office.messages) >= 5, 5, "the office to receive")
        seen = [t for t, _ in office.messages]
        assert seen == [*allowed, "arena/v1/T1/hall-a/next", "arena/v1/T1/standings/A"]
        # A hall reads its own `next` only.
        reader = Collector(broker.port, "arena/v1/T1/+/next", client_id="acl-a-sub",
                           persistent=False, username="hall-a", password=users["hall-a"])
        wait_for(reader.subscribed.is_set, 5, "hall A to subscribe")
        assert not office_pub.publish("arena/v1/T1/hall-b/next").is_failure
        assert not office_pub.publish("arena/v1/T1/hall-a/next").is_failure
        # Same publisher, same subscriber: were hall B's allowed, it would arrive first.
        wait_for(lambda: bool(reader.messages), 5, "hall A's next")
        assert [t for t, _ in reader.messages] == ["arena/v1/T1/hall-a/next"] * len(
            reader.messages)
        reader.close()
        # Wrong password: refused.
        bad = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                          client_id="acl-bad", protocol=paho.MQTTv311)
        bad.username_pw_set("hall-a", "wrong")
        codes: list[object] = []
        bad.on_connect = lambda c, u, f, reason, p: codes.append(reason)
        bad.connect("127.0.0.1", broker.port)
        bad.loop_start()
        wait_for(lambda: bool(codes), 5, "the refusal")
        bad.loop_stop()
        assert getattr(codes[0], "is_failure", False)
    finally:
        hall_a.close()
        office_pub.close()
        office.close()
        broker.stop()
