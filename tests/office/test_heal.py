"""The store's faults heal: what the office cannot store is kept, retried with back-off on
the injected clock, stored in the order it came and acknowledged only then; the page and
every hall's acks say so while it lasts (docs/office.md, "The office's faults")."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from arena import wire
from arena.tournament.model import Tournament
from office.service import OfficeService
from office.storage import backlog
from office.storage.intake import HallEvent

from .test_service import FakeMessage, cup, messages_of, retained, service

__all__ = ["cup"]  # the fixture, imported for its use here


class FailingAdd:
    """The store's ``add_event`` failing its first ``n`` calls as a full disk does."""

    def __init__(self, real: Callable[[HallEvent, datetime], bool], n: int) -> None:
        self.real, self.left, self.calls = real, n, 0

    def __call__(self, ev: HallEvent, received: datetime) -> bool:
        self.calls += 1
        if self.left > 0:
            self.left -= 1
            raise sqlite3.OperationalError("database or disk is full")
        return self.real(ev, received)


def two_halls(cup: Tournament) -> tuple[list[FakeMessage], list[FakeMessage]]:
    """More than the broker's in-flight window (20) of events from each of two halls."""
    first, second = cup.group_matches("A")[:2]
    assert first.hall != second.hall
    one, two = messages_of(cup, first.id, 9, 8), messages_of(cup, second.id, 8, 9)
    assert len(one) > 20 and len(two) > 20
    return one, two


def interleaved(a: list[FakeMessage], b: list[FakeMessage]) -> list[FakeMessage]:
    out: list[FakeMessage] = []
    for x, y in zip(a, b, strict=True):
        out += [x, y]
    return out


def ids(messages: list[Any]) -> list[str]:
    return [str(json.loads(m.payload)[wire.Ev.EVENT_ID]) for m in messages]


def acks_of(svc: OfficeService, peer: Any, hall: str) -> dict[str, Any]:
    doc = retained(peer, wire.hall_topic(svc.event.id, hall, wire.ACKS))
    assert isinstance(doc, dict)
    return doc


def test_what_cannot_be_stored_is_kept_retried_with_back_off_then_acked_in_order(
        tmp_path: Path, cup: Tournament) -> None:
    svc, peer, clock, store = service(tmp_path, cup)
    one, two = two_halls(cup)
    halls = (cup.group_matches("A")[0].hall, cup.group_matches("A")[1].hall)
    failing = FailingAdd(store.add_event, 4)  # the first try and three retries fail
    store.add_event = failing  # type: ignore[method-assign]
    peer.inbox = interleaved(one, two)
    svc.pump()
    # One try only: the events after the first failure wait behind it, none is acked.
    assert failing.calls == 1 and peer.acked == [] and store.events() == []
    assert len(svc.backlog) == len(one) + len(two)
    assert svc.store_error is not None and "disk is full" in svc.store_error
    page = svc.board.current()["office"] if svc.board else {}
    assert page["store_since"] == "2026-12-05T12:00:00"
    assert page["store_waiting"] == {halls[0]: len(one), halls[1]: len(two)}
    for hall in halls:  # every hall hears it, its marks unchanged
        assert acks_of(svc, peer, hall)[wire.Ak.CANNOT_STORE_SINCE] == "2026-12-05T12:00:00"
        assert acks_of(svc, peer, hall)[wire.Ak.MATCHES] == {}

    # The retries: 0.5 s after the failure, then 1 s, then 2 s (doubling up to 10 s).
    for wait in (0.5, 1.0, 2.0):
        clock.advance(wait - 0.01)
        before = failing.calls
        svc.pump()
        assert failing.calls == before, f"retried before its {wait} s"
        clock.advance(0.01)
        svc.pump()
        assert failing.calls == before + 1
    assert failing.left == 0 and peer.acked == [] and len(svc.backlog) == len(one) + len(two)
    # A copy of a waiting event (the broker's after a reconnect) joins it, is not kept twice.
    copy = FakeMessage(one[0].topic, one[0].payload)
    peer.inbox = [copy]
    svc.pump()
    assert len(svc.backlog) == len(one) + len(two)

    clock.advance(3.99)
    svc.pump()
    assert failing.calls == 4  # 4 s after the last failure, not before
    clock.advance(0.01)
    svc.pump()
    # Healed: every event stored once, each acked once it was, in each hall's order.
    assert len(store.events()) == len(one) + len(two)
    assert sorted(ids(peer.acked)) == sorted(ids(one + two + [copy]))
    for sent in (one, two):
        mine = [m for m in peer.acked if m.topic == sent[0].topic and m is not copy]
        assert ids(mine) == ids(sent)
    assert peer.acked[peer.acked.index(one[0]) + 1] is copy  # acked with its first copy
    assert len(svc.backlog) == 0 and svc.office_document()["store_error"] is None
    page = svc.board.current()["office"] if svc.board else {}
    assert page["store_since"] is None and page["store_waiting"] == {}
    for hall, sent in zip(halls, (one, two), strict=True):
        doc = acks_of(svc, peer, hall)
        assert wire.Ak.CANNOT_STORE_SINCE not in doc
        assert list(doc[wire.Ak.MATCHES].values()) == [len(sent)]

    # Stored as they come again, acked at once.
    peer.inbox, peer.acked = [FakeMessage(one[0].topic, one[0].payload)], []
    svc.pump()
    assert len(peer.acked) == 1


def test_a_store_that_fails_on_is_retried_every_10_s_at_most(
        tmp_path: Path, cup: Tournament) -> None:
    svc, peer, clock, store = service(tmp_path, cup)
    one, _ = two_halls(cup)
    failing = FailingAdd(store.add_event, 10**6)
    store.add_event = failing  # type: ignore[method-assign]
    peer.inbox = one[:3]
    svc.pump()
    waits = []
    for _ in range(10):
        before = svc.monotonic()
        at = svc.backlog.retry_at
        assert at is not None
        clock.advance(at - before)
        svc.pump()
        waits.append(round(at - before, 3))
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 10.0, 10.0, 10.0]
    assert peer.acked == [] and len(svc.backlog) == 3
    assert backlog.MAX_RETRY_S == 10.0


def test_events_above_what_waits_stay_within_reach(tmp_path: Path, cup: Tournament) -> None:
    """The intake's reach above the highest stored seq (wire.LIMITS.seq_ahead) counts the
    events waiting too: a long outage must not turn a hall's events into refusals."""
    svc, peer, _, store = service(tmp_path, cup)
    one, _ = two_halls(cup)
    store.add_event = FailingAdd(store.add_event, 10**6)  # type: ignore[method-assign]
    peer.inbox = one[:5]
    svc.pump()
    assert svc._top(json.loads(one[0].payload)[wire.Ev.MATCH]) == 5
    assert svc.refused == 0
