"""HallLink in-process: status, retained state, refused and accepted ``next``."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from arena import wire
from arena.timesource import FakeClock
from firmware_py.journal import Journal
from firmware_py.mqtt import HallLink
from firmware_py.outbox import JournalTail, Outbox, stored_path
from tests.fixtures import Broker, wait_for
from tests.mqtt.conftest import Collector
from tests.mqtt.test_outbox import GOOD, events

NEXT = "arena/v1/T1/H1/next"


def pumped(link: HallLink, condition: Callable[[], bool]) -> Callable[[], bool]:
    """A condition that first lets the link handle what the network thread reported."""
    def check() -> bool:
        link.pump()
        return condition()
    return check


def office_publish(port: int, items: list[tuple[str, bytes]]) -> None:
    """Publish as the office would (retained, QoS 1) and wait for every PUBACK."""
    c = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id="office-pub",
                    protocol=paho.MQTTv311)
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        for topic, payload in items:
            c.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
    finally:
        c.disconnect()
        c.loop_stop()


@pytest.mark.slow
def test_garbage_on_next_is_refused_and_the_link_keeps_working(
        broker: Broker, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="firmware_py.mqtt")
    accepted: list[dict[str, Any]] = []
    journal, _ = Journal.open(tmp_path / "M1.journal")
    outbox = Outbox(stored_path(journal.path))
    tail = JournalTail(journal.path)
    link = HallLink("127.0.0.1", broker.port, "T1", "H1", outbox=outbox,
                    on_next=accepted.append)
    collector = Collector(broker.port, "arena/v1/T1/H1/+", persistent=False)
    link.start()
    try:
        wait_for(collector.subscribed.is_set, 5, "the collector")
        garbage = [b"{not json", b"[]", json.dumps({**GOOD, "teams": "Lions v Bears"}).encode(),
                   json.dumps({**GOOD, "preset": "quidditch"}).encode(), b"x" * (1 << 20)]

        wait_for(pumped(link, lambda: link.subscribed), 5, "the link to subscribe")
        office_publish(broker.port, [(NEXT, g) for g in garbage] + [(NEXT, json.dumps(GOOD)
                                                                      .encode())])
        wait_for(pumped(link, lambda: bool(accepted)), 10, "the good next")
        assert accepted == [{**GOOD}]
        assert len(link.refused_next) == len(garbage)
        refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
        assert len(refusals) == len(garbage) and all(NEXT in m for m in refusals)
        for reason in ("not JSON", "must be a JSON object", "'teams' must be an object",
                       "not a known preset", "over the"):
            assert any(reason in m for m in refusals), reason
        # Still working: an event goes out and is acknowledged, the state is retained.
        journal.append(*events(1))
        outbox.add(tail.read())
        link.publish_state({"phase": "pregame"})
        wait_for(pumped(link, lambda: bool(collector.on("/events")) and outbox.in_flight == 0),
                 5, "the event's PUBACK")
        # The broker's PUBACK is not delivery: only the office's word is.
        assert link.unacked == 1 and not outbox.is_acked(1)
        office_publish(broker.port, [(wire.hall_topics("T1", "H1").acks,
                                      wire.build_acks({"M1": 1}))])
        wait_for(pumped(link, lambda: outbox.is_acked(1)), 5, "the office's acks")
        assert link.unacked == 0
        wait_for(lambda: collector.on("/state") == [b'{"phase":"pregame"}'], 5, "the state")
        wait_for(lambda: bool(collector.on("/events")), 5, "the event")
        assert json.loads(collector.on("/events")[0])["event_id"] == "H1:M1:1"
        assert collector.on("/status") == [b"online"]
    finally:
        link.close()
        journal.close()
    wait_for(lambda: collector.on("/status") == [b"online", b"offline"], 5, "offline")
    collector.close()


@pytest.mark.slow
def test_state_is_republished_at_least_every_10_s(broker: Broker) -> None:
    clock = FakeClock(0)
    link = HallLink("127.0.0.1", broker.port, "T1", "H1", clock=clock.monotonic)
    collector = Collector(broker.port, "arena/v1/T1/H1/state", persistent=False)
    link.start()
    try:
        wait_for(collector.subscribed.is_set, 5, "the collector")
        wait_for(pumped(link, lambda: link.connected), 5, "the link to connect")
        link.publish_state({"clock_ms": 1})
        link.publish_state({"clock_ms": 1})  # unchanged: not sent again
        wait_for(lambda: len(collector.on("/state")) == 1, 5, "the first state")
        clock.advance(9.9)
        link.pump()
        clock.advance(0.1)
        link.pump()
        wait_for(lambda: len(collector.on("/state")) == 2, 5, "the refresh")
    finally:
        link.close()
        collector.close()


@pytest.mark.slow
def test_the_offices_group_tables_reach_the_hall_for_between_games(
        broker: Broker, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The retained standings/<group> (the office's tables) are what the hall display shows
    between games; garbage there is refused like garbage on next, and a cleared table goes."""
    caplog.set_level(logging.WARNING, logger="firmware_py.mqtt")
    tables: dict[str, Any] = {}

    def on_standings(group: str, doc: dict[str, Any] | None) -> None:
        tables[group] = doc

    link = HallLink("127.0.0.1", broker.port, "T1", "H1", on_standings=on_standings)
    table = {"group": "A", "tournament": "T1", "provisional": False, "complete": False,
             "rows": [{"rank": 1, "team": "Lions", "played": 1, "won": 1, "drawn": 0,
                       "lost": 0, "goals_for": 3, "goals_against": 1, "points": 2,
                       "penalty_minutes": 0, "decided_by": "points", "lots_needed": False}]}
    link.start()
    try:
        wait_for(pumped(link, lambda: link.subscribed), 5, "the link to subscribe")
        office_publish(broker.port, [("arena/v1/T1/standings/B", b"{oops"),
                                     ("arena/v1/T1/standings/A", json.dumps(table).encode())])
        wait_for(pumped(link, lambda: "A" in tables), 10, "group A's table")
        assert tables["A"] == {"group": "A", "rows": [
            {"team": "Lions", "played": 1, "won": 1, "drawn": 0, "lost": 0, "goals_for": 3,
             "goals_against": 1, "points": 2}]}
        assert "B" not in tables
        assert any("standings/B: refused" in r.getMessage() for r in caplog.records)
        office_publish(broker.port, [("arena/v1/T1/standings/A", b"")])
        wait_for(pumped(link, lambda: tables.get("A", {}) is None), 10, "the table cleared")
    finally:
        link.close()


@pytest.mark.slow
def test_an_events_tables_reach_the_hall_by_category(broker: Broker) -> None:
    """In an event of several categories the office's tables are
    ``standings/<category>/<group>`` (group names repeat across categories): the hall
    subscribes to all of them and keeps each under ``<category>/<group>``, so the
    between-games screen can show its match's category (firmware_py.between)."""
    tables: dict[str, Any] = {}

    def on_standings(key: str, doc: dict[str, Any] | None) -> None:
        tables[key] = doc

    link = HallLink("127.0.0.1", broker.port, "T1", "H1", on_standings=on_standings)
    rows = [{"rank": 1, "team": "Lions", "played": 0, "won": 0, "drawn": 0, "lost": 0,
             "goals_for": 0, "goals_against": 0, "points": 0, "penalty_minutes": 0,
             "decided_by": None, "lots_needed": False}]
    link.start()
    try:
        wait_for(pumped(link, lambda: link.subscribed), 5, "the link to subscribe")
        office_publish(broker.port, [
            (wire.standings_topic("T1", "A", category), json.dumps(
                {"group": "A", "category": category, "tournament": "T1", "rows": rows,
                 "provisional": False, "complete": False}).encode())
            for category in ("U9", "U11")])
        wait_for(pumped(link, lambda: {"U9/A", "U11/A"} <= tables.keys()), 10,
                 "both categories' group A")
        assert tables["U9/A"]["group"] == tables["U11/A"]["group"] == "A"
        assert "A" not in tables
    finally:
        link.close()


def test_a_repeated_acks_word_is_not_lost_in_a_batch(tmp_path: Path) -> None:
    """The office's word and its repeat (events stored above a gap) reach one ``pump``: the
    batch is applied as its latest word, and the repeat still re-sends from the mark."""
    outbox = Outbox(tmp_path / "M1.journal.stored")
    outbox.add(events(1, 2, 3, 4))
    outbox.published([int(r["seq"]) for r in outbox.take()])
    link = HallLink("127.0.0.1", 1, "T1", "H1", outbox=outbox)  # never started: no network
    acks = wire.hall_topic("T1", "H1", wire.ACKS)
    for payload in (wire.build_acks({"M1": 2}), wire.build_acks({"M1": 2})):
        # What the network thread's on_message puts on the queue for the owner's thread.
        link._inbox.put(("message", (acks, payload, False)))
    link.pump()
    assert outbox.stored == 2
    assert [r["seq"] for r in outbox.take()] == [3, 4]


def test_the_offices_word_that_it_cannot_store_is_shown_and_is_no_repeat(
        tmp_path: Path) -> None:
    """The office's acks say since when it cannot store (a full disk): the hall keeps that
    for the operator view, and a word whose marks did not move but whose store news did is
    not the office repeating itself (no re-send), neither when it begins nor when it ends."""
    outbox = Outbox(tmp_path / "M1.journal.stored")
    outbox.add(events(1, 2, 3, 4))
    outbox.published([int(r["seq"]) for r in outbox.take()])
    link = HallLink("127.0.0.1", 1, "T1", "H1", outbox=outbox)  # never started: no network
    acks = wire.hall_topic("T1", "H1", wire.ACKS)

    def office_says(payload: bytes) -> None:
        link._inbox.put(("message", (acks, payload, False)))
        link.pump()

    office_says(wire.build_acks({"M1": 2}))
    assert outbox.stored == 2 and link.cannot_store_since is None
    assert outbox.take() == []  # 3 and 4 in flight: nothing to send
    office_says(wire.build_acks({"M1": 2}, cannot_store_since="2026-12-05T12:00:00"))
    assert link.cannot_store_since == "2026-12-05T12:00:00"
    assert outbox.take() == []  # not read as a repeat: nothing re-sent
    office_says(wire.build_acks({"M1": 4}, cannot_store_since="2026-12-05T12:00:00"))
    assert outbox.stored == 4
    office_says(wire.build_acks({"M1": 4}))
    assert link.cannot_store_since is None and outbox.take() == []
    office_says(wire.build_acks({"M1": 4}))  # a real repeat still counts as one
    assert outbox.stored == 4
    # A bad optional key does not cost the marks.
    office_says(b'{"matches": {"M1": 4}, "cannot_store_since": 12}')
    assert link.cannot_store_since is None and outbox.stored == 4


def test_a_match_the_office_refuses_is_held_and_sent_once_the_office_takes_it(
        tmp_path: Path) -> None:
    """Two halls claimed one match and the office keeps it for the other (its acks name
    that hall): this hall holds the match's events (nothing handed out, no timed re-send,
    a repeated word re-sends nothing, the next match is not held up), the view can name
    it, and once the office takes the match everything it lacks is offered at once."""
    held = Outbox(tmp_path / "A1.journal.stored")
    held.add(events(1, 2, 3))
    held.published([int(r["seq"]) for r in held.take()])
    later = Outbox(tmp_path / "B1.journal.stored")
    later.add([{**r, "match": "B1"} for r in events(1, 2)])
    link = HallLink("127.0.0.1", 1, "T1", "H1", outbox=held)  # never started: no network
    link.add_outbox(later)
    acks = wire.hall_topic("T1", "H1", wire.ACKS)

    def office_says(payload: bytes) -> None:
        link._inbox.put(("message", (acks, payload, False)))
        link.pump()

    office_says(wire.build_acks({}))
    assert held.match == "M1"
    office_says(wire.build_acks({}, refused={"M1": "H2"}))
    assert link.refused == {"M1": "H2"} and held.refused_by == "H2"
    assert held.take() == [] and held.unacked == 3  # kept, not sent, not counted stored
    assert not held.unsent  # the next match's events go
    assert [r["seq"] for r in later.take()] == [1, 2]
    office_says(wire.build_acks({"B1": 2}, refused={"M1": "H2"}))  # no progress on M1
    assert held.take() == [] and later.stored == 2
    assert not held.overdue(0) and not held.overdue(10**12)  # no timed re-send either
    reads = iter([0.0])  # drain reads the clock once for its deadline: no wait after it
    link._clock = lambda: next(reads)
    assert not link.drain(60)  # what is left, the office refuses: said at once
    office_says(wire.build_acks({}))  # the office gives this hall the match
    assert link.refused == {} and held.refused_by is None
    assert [r["seq"] for r in held.take()] == [1, 2, 3]
    # A bad refusal is left out, the marks are kept.
    office_says(b'{"matches": {"M1": 2}, "refused": {"M1": "H2", "x/y": {"played_in": 3}}}')
    assert link.refused == {} and held.stored == 2
