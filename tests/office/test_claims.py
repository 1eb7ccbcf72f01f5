"""Two halls claiming one match (docs/office.md, "The office's faults"): the hall whose
events the office stored first keeps it, the other is told in its ``acks`` and the page
says so once; ``office reschedule --force`` gives the other hall the match, and then every
event it held back is stored (rules 001 'Match schedule': the organiser may change the
schedule at any time)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import wire
from arena.timesource import FakeClock
from arena.tournament.model import Tournament
from office.cli.main import main
from office.service import VIEW_S, OfficeService

from .test_service import CUP, FakeMessage, cup, messages_of, retained, service

__all__ = ["cup"]  # the fixture


def as_hall(messages: list[FakeMessage], hall: str, was: str) -> list[FakeMessage]:
    """The same match's events as another hall sends them (its own topic and event ids)."""
    return [FakeMessage(m.topic.replace(f"/{was}/", f"/{hall}/"),
                        m.payload.replace(f'"{was}:'.encode(), f'"{hall}:'.encode()))
            for m in messages]


def acks(peer: object, cup: Tournament, hall: str) -> dict[str, object]:
    doc = retained(peer, wire.hall_topic(cup.id, hall, wire.ACKS))  # type: ignore[arg-type]
    assert isinstance(doc, dict)
    return doc


def claim_alerts(svc: OfficeService, clock: FakeClock) -> list[str]:
    clock.advance(VIEW_S)  # the page is made again at most every VIEW_S
    svc.pump()
    doc = svc.board.current() if svc.board else {}
    return [a["text"] for a in doc["alerts"] if "sends events of it" in a["text"]]


def test_the_first_hall_keeps_a_claimed_match_the_other_is_told_once_then_given_it(
        tmp_path: Path, cup: Tournament, capsys: pytest.CaptureFixture[str]) -> None:
    svc, peer, clock, store = service(tmp_path, cup)
    a2 = messages_of(cup, "A2", 2, 1)  # hall-2, A2's hall in the file
    peer.inbox = a2
    svc.pump()
    assert len(store.events("A2")) == len(a2)
    # hall-1 plays A2 too (its timekeeper loaded the wrong match): refused, and told.
    other = as_hall(a2, "hall-1", "hall-2")
    peer.inbox = other
    svc.pump()
    assert len(store.events("A2")) == len(a2)  # hall-2's only
    assert svc.refused == len(other)
    word = acks(peer, cup, "hall-1")
    assert word.get(wire.Ak.REFUSED) == {"A2": {wire.Ak.PLAYED_IN: "hall-2"}}
    assert wire.Ak.REFUSED not in acks(peer, cup, "hall-2")
    # The page: once, not once per event; and a re-send says nothing new.
    (text,) = claim_alerts(svc, clock)
    assert text.startswith("A2: hall-1 sends events of it, but hall-2 plays it")
    assert "office reschedule A2 --hall hall-1 --force" in text
    told = [p for t, p in peer.sent if t.endswith("/hall-1/acks")]
    peer.inbox = other[:5]
    svc.pump()
    assert len(claim_alerts(svc, clock)) == 1
    assert [p for t, p in peer.sent if t.endswith("/hall-1/acks")] == told  # no repeats
    # The office gives hall-1 the match: told at once, and its events are all stored
    # (none counted stored because hall-2's of the same seq is).
    assert main(["reschedule", "A2", "--hall", "hall-1", "--start", "12:05", "--force", "--reason",
                 "hall-1 played it", "--tournament", str(CUP),
                 "--db", str(tmp_path / "office.sqlite")]) == 0
    capsys.readouterr()
    svc.pump()
    assert wire.Ak.REFUSED not in acks(peer, cup, "hall-1")
    seqs = [int(m.payload.split(b'"seq":')[1].split(b",")[0]) for m in other]
    for n, message in enumerate(other, start=1):
        peer.inbox = [message]
        svc.pump()
        # Its own word: what it sent itself, one by one (it re-sends from there).
        assert acks(peer, cup, "hall-1")[wire.Ak.MATCHES] == {"A2": seqs[n - 1]}, n
    assert len(store.events("A2")) == 2 * len(a2)  # nothing lost
    assert acks(peer, cup, "hall-2")[wire.Ak.MATCHES] == {"A2": seqs[-1]}
    # A restart counts the same marks from the store.
    again = OfficeService(cup, store, peer)
    assert again._mark("hall-1", "A2") == again._mark("hall-2", "A2") == seqs[-1]


def test_a_claim_is_not_alerted_again_after_a_restart(tmp_path: Path,
                                                      cup: Tournament) -> None:
    svc, peer, clock, store = service(tmp_path, cup)
    a2 = messages_of(cup, "A2", 1, 0)
    peer.inbox = [*a2, *as_hall(a2, "hall-1", "hall-2")]
    svc.pump()
    assert len(claim_alerts(svc, clock)) == 1
    again = OfficeService(cup, store, peer, svc.board)
    peer.inbox = as_hall(a2, "hall-1", "hall-2")  # the hall re-sends after the restart
    again.pump()
    assert acks(peer, cup, "hall-1").get(wire.Ak.REFUSED) == {
        "A2": {wire.Ak.PLAYED_IN: "hall-2"}}
    assert len(claim_alerts(again, clock)) == 1
