"""One event lost while hall and office both stay connected still reaches the store, once.

One event is lost once on its way to the office's store after the broker's PUBACK (as a
broker restarted empty would lose it; a store that fails no longer loses one: it keeps and
retries it, tests/office/test_heal.py). Followed by later events, the office repeats its
unchanged ``acks`` and the hall re-sends from the gap; as the match's last event, nothing
follows it and the hall's own re-send timer (injected clock, moved by the test) sends it
again. Through the broker as
shipped (arena.conf, arena.acl, users), with the real ``HallLink``, ``OfficeService`` and
SQLite; waits on the real broker are bounded polls.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena import wire
from arena.timesource import FakeClock
from firmware_py.journal import Journal
from firmware_py.mqtt import HallLink
from firmware_py.outbox import JournalTail, Outbox, stored_path
from tests.fixtures import (
    SHIPPED_USERS,
    Office,
    ShippedBroker,
    stored_ids,
    tournament_file,
    wait_for,
)
from tests.mqtt.conftest import Collector

pytestmark = pytest.mark.slow  # every test here starts a process

T, HALL, MATCH = "T1", "hall-a", "M1"


def event(seq: int) -> dict[str, object]:
    return {"type": "event", "match": MATCH, "seq": seq, "at": seq * 1_000_000,
            "event": "goal", "data": {"team": "home", "player": 7}}


def lose_once(monkeypatch: pytest.MonkeyPatch, office: Office, seq: int) -> list[str]:
    """The event ``seq`` is lost the first time it comes: acknowledged to the broker but
    never handled, as if the broker had dropped it after the hall's PUBACK; the ids lost."""
    service = office.service
    real = service.handle
    lost: list[str] = []

    def handle(message: Any) -> None:
        if message.topic.endswith("/events") and not lost:
            doc = json.loads(message.payload)
            if doc.get(wire.Ev.SEQ) == seq:
                lost.append(str(doc[wire.Ev.EVENT_ID]))
                assert service.peer is not None
                service.peer.ack(message)
                return
        real(message)

    monkeypatch.setattr(service, "handle", handle)
    return lost


class Hall:
    """A hall's journal, outbox and real ``HallLink`` on a clock the test moves."""

    def __init__(self, port: int, tmp_path: Path) -> None:
        self.clock = FakeClock()
        self.journal, _ = Journal.open(tmp_path / f"{MATCH}.journal")
        self.outbox = Outbox(stored_path(self.journal.path))
        self.tail = JournalTail(self.journal.path)
        self.link = HallLink("127.0.0.1", port, T, HALL, outbox=self.outbox,
                             username=HALL, password=SHIPPED_USERS[HALL],
                             clock=self.clock.monotonic)
        self.link.start()

    def play(self, *seqs: int) -> None:
        self.journal.append(*(event(s) for s in seqs))
        self.outbox.add(self.tail.read())

    def until(self, condition: Callable[[], bool]) -> Callable[[], bool]:
        def check() -> bool:
            self.link.pump()
            return condition()
        return check

    def close(self) -> None:
        self.link.close()
        self.journal.close()


def ids(*seqs: int) -> list[str]:
    return [f"{HALL}:{MATCH}:{s}" for s in seqs]


@pytest.fixture
def office(shipped_broker: ShippedBroker, tmp_path: Path) -> Any:
    the_office = Office(shipped_broker.port, tmp_path / "office.sqlite",
                        tournament_file(tmp_path / "cup.toml", T, [(MATCH, HALL)]),
                        username="office", password=SHIPPED_USERS["office"])
    yield the_office
    the_office.stop()


def test_a_retained_message_sent_again_unchanged_reaches_the_subscribers(
        shipped_broker: ShippedBroker) -> None:
    """What the office's repeat relies on: mosquitto forwards every PUBLISH of a retained
    topic to the current subscribers, also one whose payload it already holds."""
    topic = wire.hall_topic(T, HALL, wire.ACKS)
    watch = Collector(shipped_broker.port, topic, client_id="display", persistent=False,
                      username="display", password=SHIPPED_USERS["display"])
    office = Collector(shipped_broker.port, "arena/v1/none", client_id="office",
                       persistent=False, username="office",
                       password=SHIPPED_USERS["office"])
    try:
        wait_for(lambda: watch.subscribed.is_set() and office.subscribed.is_set(), 5,
                 "both clients")
        word = wire.build_acks({MATCH: 2})
        for _ in range(3):
            office.client.publish(topic, word, qos=1, retain=True).wait_for_publish(5)
        wait_for(lambda: len(watch.on("/acks")) == 3, 5, "three copies at the subscriber")
        assert watch.on("/acks") == [word] * 3
    finally:
        watch.close()
        office.close()


def test_a_lost_event_followed_by_later_ones_is_re_sent_on_the_offices_repeat(
        shipped_broker: ShippedBroker, office: Office, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    failed = lose_once(monkeypatch, office, 3)
    hall = Hall(shipped_broker.port, tmp_path)
    try:
        wait_for(hall.until(lambda: hall.link.office_heard), 10, "the office's first word")
        hall.play(1, 2, 3, 4, 5)
        # The hall's clock does not move: no timed re-send can help, only the office.
        wait_for(hall.until(lambda: hall.outbox.stored == 5), 10, "every event stored")
        assert failed == ids(3)  # it was lost once
        assert stored_ids(office.db) == ids(1, 2, 3, 4, 5)  # and is there now, once
        assert "stored above a gap (seq 3 missing)" in caplog.text
        assert "re-sending M1 from seq 3" in caplog.text
        assert "has not stored" not in caplog.text  # not the timer
    finally:
        hall.close()


def test_a_lost_last_event_is_re_sent_when_the_hall_times_out(
        shipped_broker: ShippedBroker, office: Office, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    failed = lose_once(monkeypatch, office, 3)
    hall = Hall(shipped_broker.port, tmp_path)
    try:
        wait_for(hall.until(lambda: hall.link.office_heard), 10, "the office's first word")
        hall.play(1, 2, 3)
        wait_for(hall.until(lambda: bool(failed) and hall.outbox.stored == 2
                            and hall.outbox.in_flight == 0), 10,
                 "1 and 2 stored, 3 lost after its PUBACK")
        hall.link.pump()  # the wait for the office's word on 3 starts on this clock
        hall.clock.advance(4.9)
        hall.link.pump()
        assert "has not stored" not in caplog.text  # 4.9 s: still waiting
        assert stored_ids(office.db) == ids(1, 2)  # nothing else re-sends it
        hall.clock.advance(0.1)
        wait_for(hall.until(lambda: hall.outbox.stored == 3), 10, "the last event stored")
        assert stored_ids(office.db) == ids(1, 2, 3)
        resends = [r.getMessage() for r in caplog.records if "has not stored" in r.getMessage()]
        assert resends == ["MQTT: the office has not stored M1 from seq 3 for 5 s: "
                           "re-sending 1 events (next wait 10 s)"]
    finally:
        hall.close()
