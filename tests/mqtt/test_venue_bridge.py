"""A venue's broker bridged to the event's broker (docs/technician.md, "Several venues"), on two
real mosquittos on loopback: the event broker with the shipped configuration and ACL plus the
venue's user and ACL lines ``install.sh --venue`` prints, the venue broker with exactly what
``install.sh --venue`` writes (the shipped arena.conf and arena.acl, the generated bridge and
the generated hall passwords).

Between the two runs a ``Cable`` (tests/mqtt/cable.py), a TCP relay the test can cut: a cut
drops the bridge's connection and refuses new ones while both brokers, the office and the
halls stay up, as a pulled network cable between a venue and the event would.

Hall 1 is ``python -m firmware_py.replaypublisher`` (the real HallLink on a journal) playing a
218-event floorball game; it exits 0 only once the office's ``acks`` (which come back over
the bridge) say every event is stored. Its script runs at 40 script seconds a real second:
the cut of a few real seconds while it plays 100 events is more than three minutes of the
game. Hall 2 is a real ``HallLink`` in this process that reads its ``next`` and the tables.
The office is the real one (``Office``) on the event broker.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena import wire
from firmware_py.loopback import free_port
from firmware_py.mqtt import HallLink
from tests.fixtures import (
    ROOT,
    SHIPPED_ACL,
    Office,
    ShippedBroker,
    stored_ids,
    tournament_file,
    wait_for,
)
from tests.mqtt.cable import Cable
from tests.mqtt.conftest import Collector, game_script, publisher
from tests.mqtt.test_acl import V5Client
from tests.mqtt.test_delivery import finish, journalled, mark

pytestmark = pytest.mark.slow  # every test here starts a process

T = "T1"
VENUE = "north"
HALLS = ("hall-1", "hall-2")
TOTAL = 218
EVERY_ID = [f"hall-1:M1:{seq}" for seq in range(1, TOTAL + 1)]
EVENT_USERS = {"office": "office-secret", "display": "display-secret"}


@dataclass(frozen=True)
class Installed:
    """What ``install.sh --venue`` wrote under a test root."""

    root: Path
    output: str

    def file(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    def password(self, path: str) -> str:
        return self.file(path).read_text().splitlines()[0]


def install_venue(tmp: Path, event_port: int) -> Installed:
    root = tmp / "venue-root"
    done = subprocess.run(
        ["bash", str(ROOT / "install.sh"), "--venue", VENUE, "--event-broker",
         f"127.0.0.1:{event_port}", "--halls", ",".join(HALLS), "--root", str(root)],
        capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return Installed(root, done.stdout)


@dataclass(frozen=True)
class Event:
    broker: ShippedBroker
    venue_password: str


def event_broker(tmp: Path, installed: Installed) -> Event:
    """The event broker: the shipped ACL with the venue's block appended, as the printed
    instructions say, and the venue's user with the generated password."""
    acl = tmp / "event.acl"
    acl.write_text(SHIPPED_ACL.read_text()
                   + installed.file(f"/etc/arena/event-side/{VENUE}.acl").read_text())
    venue_password = installed.password("/etc/arena/venue-password")
    users = {**EVENT_USERS, VENUE: venue_password}
    return Event(ShippedBroker(tmp / "event-broker", users, acl=acl), venue_password)


def venue_broker(tmp: Path, installed: Installed, queue: int | None = None) -> ShippedBroker:
    """The venue broker: shipped arena.conf and arena.acl, the generated bridge as written
    (only its log and data paths are the test's), one user per hall with its password.
    ``queue``: arena.conf's max_queued_messages made that small."""
    for name in ("conf.d/arena.conf", "arena.acl"):
        assert (installed.file(f"/etc/mosquitto/{name}").read_bytes()
                == (ROOT / "systemd/mosquitto" / Path(name).name).read_bytes())
    users = {h: installed.password(f"/etc/arena/hall-passwords/{h}") for h in HALLS}
    bridge = installed.file("/etc/mosquitto/conf.d/arena-venue.conf").read_text()
    venue = ShippedBroker(tmp / "venue-broker", users, extra=bridge)
    if queue is not None:
        shipped = "max_queued_messages 100000\n"
        assert shipped in (venue.config_text or "")
        venue.config_text = (venue.config_text or "").replace(
            shipped, f"max_queued_messages {queue}\n")
    return venue


@pytest.fixture(params=[None, 20], ids=["shipped-queue", "queue-of-20"])
def two_brokers(request: pytest.FixtureRequest,
                tmp_path: Path) -> Iterator[tuple[Installed, Event, ShippedBroker, Cable]]:
    """Both brokers and the cable; also with a venue queue of 20 messages, which the cut
    overflows many times over: the venue broker drops what does not fit, the hall's journal
    sends it again, and still nothing is lost."""
    cable_port = free_port()  # the bridge's address: the cable's end
    installed = install_venue(tmp_path, cable_port)
    event = event_broker(tmp_path, installed)
    venue = venue_broker(tmp_path, installed, request.param)
    event.broker.start()
    cable = Cable(event.broker.port, cable_port)
    venue.start()
    try:
        yield installed, event, venue, cable
    finally:
        venue.stop()
        cable.close()
        event.broker.stop()


def test_generated_bridge_config_and_event_side_lines(tmp_path: Path) -> None:
    installed = install_venue(tmp_path, 1884)
    bridge = installed.file("/etc/mosquitto/conf.d/arena-venue.conf")
    text = bridge.read_text()
    assert bridge.stat().st_mode & 0o777 == 0o640  # it holds the venue's password
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    password = installed.password("/etc/arena/venue-password")
    assert len(password) >= 16
    for wanted in (f"connection {VENUE}", "address 127.0.0.1:1884",
                   "bridge_protocol_version mqttv311", "cleansession false",
                   f"remote_username {VENUE}", f"remote_password {password}",
                   "topic arena/v1/+/standings/# in 1"):
        assert wanted in lines, wanted
    for hall in HALLS:
        for kind in ("events", "state", "status"):
            assert f"topic arena/v1/+/{hall}/{kind} out 1" in lines
        for kind in ("next", "acks"):
            assert f"topic arena/v1/+/{hall}/{kind} in 1" in lines
    assert not [line for line in lines if "@" in line]  # every field filled in
    topics = [line for line in lines if line.startswith("topic ")]
    assert len(topics) == 5 * len(HALLS) + 1  # nothing else crosses
    acl = installed.file(f"/etc/arena/event-side/{VENUE}.acl").read_text()
    assert f"user {VENUE}\n" in acl
    for line in acl.splitlines():
        if line and not line.startswith("#"):
            assert line in installed.output, line  # printed for the technician too
    hall_passwords = {installed.password(f"/etc/arena/hall-passwords/{h}") for h in HALLS}
    assert len(hall_passwords) == len(HALLS) and password not in hall_passwords


def test_the_venue_user_writes_and_reads_only_its_halls(tmp_path: Path) -> None:
    installed = install_venue(tmp_path, 1884)
    event = event_broker(tmp_path, installed)
    event.broker.start()
    venue = V5Client(event.broker.port, VENUE, event.venue_password)
    office = V5Client(event.broker.port, "office", EVENT_USERS["office"])
    reader: Collector | None = None
    try:
        for hall in HALLS:
            for kind in (wire.EVENTS, wire.STATE, wire.STATUS):
                assert not venue.publish(wire.hall_topic(T, hall, kind)).is_failure
        for t in (wire.hall_topic(T, "hall-3", wire.EVENTS), wire.hall_topic(T, "hall-1", "next"),
                  wire.hall_topic(T, "hall-1", wire.ACKS), wire.standings_topic(T, "A"),
                  "arena/bridge/south/state"):
            assert venue.publish(t).value == 135, t  # not authorised
        assert not venue.publish(f"arena/bridge/{VENUE}/state").is_failure
        for hall in ("hall-1", "hall-3"):
            assert not office.publish(wire.hall_topic(T, hall, wire.NEXT), retain=True).is_failure
        assert not office.publish(wire.standings_topic(T, "A"), retain=True).is_failure
        venue.close()
        reader = Collector(event.broker.port, f"arena/v1/{T}/#", client_id="venue-reader",
                           persistent=False, username=VENUE, password=event.venue_password)
        wait_for(lambda: len(reader.messages) >= 2, 5, "the venue's retained documents")
        assert sorted(t for t, _ in reader.messages) == [
            wire.hall_topic(T, "hall-1", wire.NEXT), wire.standings_topic(T, "A")]
    finally:
        if reader is not None:
            reader.close()
        office.close()
        event.broker.stop()


def doc(payload: bytes) -> dict[str, Any]:
    return dict(json.loads(payload))


def test_the_bridge_cut_mid_game_loses_nothing(
        two_brokers: tuple[Installed, Event, ShippedBroker, Cable], tmp_path: Path) -> None:
    installed, event, venue, cable = two_brokers
    port = event.broker.port
    # What crosses to the event broker, read as the office would (one display connection).
    watch = Collector(port, "arena/#", client_id="display", persistent=False,
                      username="display", password=EVENT_USERS["display"])

    def on(topic: str) -> list[bytes]:
        with watch.lock:
            return [p for t, p in watch.messages if t == topic]

    def link() -> bytes | None:
        states = on(f"arena/bridge/{VENUE}/state")
        return states[-1] if states else None

    wait_for(lambda: link() == b"1", 20, "the bridge up")
    cup = tournament_file(tmp_path / "cup.toml", T, [("M1", "hall-1"), ("M2", "hall-2")])
    office = Office(port, tmp_path / "office.sqlite", cup, username="office",
                    password=EVENT_USERS["office"])
    wait_for(lambda: office.peer.subscribed, 10, "the office to subscribe")
    # The office's retained documents reach the venue broker over the bridge and stay
    # there retained: the office's next for hall 2 and group A's (empty) table.
    watch_venue = Collector(venue.port, f"arena/v1/{T}/hall-2/next", client_id="hall-2",
                            persistent=False, username="hall-2",
                            password=installed.password("/etc/arena/hall-passwords/hall-2"))
    wait_for(lambda: bool(watch_venue.on("/next")), 20, "hall 2's next at the venue")
    watch_venue.close()
    assert doc(watch_venue.on("/next")[-1])["match"] == "M2"

    script = game_script(tmp_path / "game.jsonl")
    journal, log = tmp_path / "journal", tmp_path / "hall-1.log"
    env = {**os.environ, "ARENA_MQTT_PASSWORD":
           installed.password("/etc/arena/hall-passwords/hall-1")}
    proc = publisher(script, journal, venue.port, speed=40, hall="hall-1", log=log,
                     extra=("--username", "hall-1"), env=env)
    hall2: HallLink | None = None
    nexts: list[dict[str, Any]] = []
    tables: list[tuple[str, dict[str, Any] | None]] = []
    try:
        wait_for(lambda: len(stored_ids(office.db)) >= 40 or proc.poll() is not None, 30,
                 "40 events stored by the office")
        assert proc.poll() is None, log.read_text()
        cable.cut()
        cut_at = time.monotonic()
        wait_for(lambda: link() == b"0", 20,
                 "the event broker to see the bridge gone (its will)")
        stored_at_cut = len(stored_ids(office.db))
        played_at_cut = journalled(journal)
        # While the link is down: hall 1 plays on (100 more events, over three minutes of
        # its game) and journals them; hall 2 starts and finds its next and the table at the
        # venue broker; the office sets a new next for hall 2.
        hall2 = HallLink("127.0.0.1", venue.port, T, "hall-2", username="hall-2",
                         password=installed.password("/etc/arena/hall-passwords/hall-2"),
                         on_next=nexts.append,
                         on_standings=lambda group, table: tables.append((group, table)),
                         reconnect_s=(1, 1))
        hall2.start()
        link2 = hall2

        def pumped(condition: Callable[[], bool]) -> Callable[[], bool]:
            def check() -> bool:
                link2.pump()
                return condition()
            return check

        wait_for(pumped(lambda: bool(nexts) and bool(tables)), 20,
                 "hall 2's retained next and table from the venue broker, link down")
        assert nexts[-1]["match"] == "M2"
        later = {**nexts[-1], "match": "M2", "stage": "playoff"}
        office.peer.publish_retained(wire.hall_topic(T, "hall-2", wire.NEXT),
                                     wire.encode(later))
        wait_for(lambda: journalled(journal) >= played_at_cut + 100 or proc.poll() is not None,
                 60, "hall 1 to play 100 events with the link down")
        assert proc.poll() is None, "hall 1 finished without the office's word"
        assert len(stored_ids(office.db)) == stored_at_cut  # nothing crossed the cut
        assert link() == b"0"
        cut_s = time.monotonic() - cut_at
        cable.mend()
        wait_for(lambda: link() == b"1", 60, "the bridge back")
        finish(proc, log)  # exit 0: the office's acks came back over the bridge for all
        assert stored_ids(office.db) == EVERY_ID  # each exactly once: the store's key
        assert mark(journal) == TOTAL
        # What the office published while the link was down reached hall 2 afterwards, and
        # so did the table the final result changed.
        wait_for(pumped(lambda: nexts[-1].get("stage") == "playoff"), 20,
                 "the next set during the cut")
        wait_for(pumped(lambda: any(t is not None and t != tables[0][1] for _, t in tables)),
                 20,
                 "the table with M1's result")
        # Hall 1's status and state crossed too: online, then offline as it ended cleanly
        # (it never lost the venue broker, so never went offline in between).
        wait_for(lambda: on(wire.hall_topic(T, "hall-1", wire.STATUS))[-1:] == [b"offline"],
                 20, "hall 1's offline")
        assert set(on(wire.hall_topic(T, "hall-1", wire.STATUS))[:-1]) == {b"online"}
        wait_for(lambda: any(doc(p)["phase"] == "final"
                             for p in on(wire.hall_topic(T, "hall-1", wire.STATE))), 30,
                 "hall 1's final state")
        crossed = on(wire.hall_topic(T, "hall-1", wire.EVENTS))
        if "max_queued_messages 20\n" in (venue.config_text or ""):
            # The small queue did overflow: the venue broker dropped what the journal resent.
            assert "Outgoing messages are being dropped" in venue.log.read_text()
        assert "Denied" not in event.broker.log.read_text()  # the ACL let the bridge through
        print(f"mean event {sum(map(len, crossed)) / len(crossed):.0f} B; "
              f"cut {cut_s:.1f} s real, {journalled(journal) - played_at_cut} events "
              f"journalled meanwhile; {len(crossed)} event messages crossed for {TOTAL} "
              f"events; {cable.connections} bridge connections")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if hall2 is not None:
            hall2.close()
        watch.close()
        office.stop()
