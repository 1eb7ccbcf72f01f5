"""The office's own faults: poison events in the store (quarantine), conflicting duplicates,
refusals counted by reason, and a damaged store (check, backup, repair)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena import wire
from arena.timesource import FakeClock
from arena.tournament.model import Tournament
from office.cli.main import main
from office.service import OfficeService
from office.storage.intake import HallEvent
from office.storage.store import DISCARDED, QUARANTINED, RELEASED, Store, StoreError, check_file
from office.views import ledger
from office.views.board import SnapshotBoard

from .test_service import T0, FakeMessage, FakePeer, cup, messages_of, retained, service

__all__ = ["cup"]  # the fixture, imported for its use here


def stored(t: Tournament, store: Store, match_id: str, hg: int, ag: int, *,
           final: bool = True) -> list[HallEvent]:
    """A match's events (all of them), straight into the store (as an older office stored
    them); without its final unless ``final``."""
    events = [wire.check_event(msg.topic, msg.payload, t.id)
              for msg in messages_of(t, match_id, hg, ag)]
    for ev in events if final else events[:-1]:
        store.add_event(ev, T0)
    return events


def poisoned_final(events: list[HallEvent], **record: Any) -> HallEvent:
    final = events[-1]
    assert final.type == "match_ended"
    data = json.loads(json.dumps(final.data))
    data["record"].update(record)
    return replace(final, data=data)


def test_a_poison_event_in_the_store_is_quarantined_and_the_service_stays_up(
        tmp_path: Path, cup: Tournament) -> None:
    store = Store(tmp_path / "office.sqlite")
    first, second = cup.group_matches("A")[:2]
    stored(cup, store, first.id, 2, 1)
    events = stored(cup, store, second.id, 1, 0, final=False)
    final = poisoned_final(events, teams=["Lions", "Bears"])  # crashed `office serve`
    store.add_event(final, T0)
    huge = replace(events[0], seq=2**62, event_id=wire.event_id(events[0].hall, second.id,
                                                                2**62))  # hung it
    store.add_event(huge, T0)
    store.close()

    svc, peer, _, store = service(tmp_path, cup)
    svc.refresh()  # does not raise, does not hang
    status = store.quarantine_status()
    assert {final.event_id, huge.event_id} <= set(status)
    assert status[final.event_id].action == QUARANTINED
    assert "'data.record.teams' must be an object" in status[final.event_id].reason
    assert svc.ledger is not None
    assert svc.ledger.matches[first.id].outcome.result is not None  # the rest is counted
    assert svc.ledger.matches[second.id].outcome.result is None  # its final set aside
    page = svc.board.current() if svc.board else {}
    assert page["office"]["store_error"] is None
    shown = {q["event"]: q for q in page["office"]["quarantine"]}
    assert shown[final.event_id]["status"] == "quarantined"
    assert retained(peer, wire.standings_topic(cup.id, "A")) is not None

    # Restarted: still up, and the quarantine is not recorded twice.
    again, _, _, store2 = service(tmp_path, cup)
    again.refresh()
    assert [q.action for q in store2.quarantine_log(final.event_id)] == [QUARANTINED]


def test_an_event_the_ledger_fails_on_is_found_and_quarantined(
        tmp_path: Path, cup: Tournament, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the checks miss: the fold raising on one stored event quarantines it."""
    first = cup.group_matches("A")[0]
    svc, peer, _, store = service(tmp_path, cup)
    msgs = messages_of(cup, first.id, 3, 0)
    peer.inbox = msgs[:-1]
    svc.pump()
    bad = json.loads(msgs[1].payload)
    bad_seq = bad["seq"]
    real = ledger._read_match

    def fragile(m: Any, digest: Any, window: Any) -> Any:
        if bad_seq in digest.seqs:
            raise KeyError("a bug in the ledger")
        return real(m, digest, window)

    monkeypatch.setattr(ledger, "_read_match", fragile)
    svc._cache.forget(first.id)  # as after a restart: read again
    peer.inbox = msgs[-1:]
    svc.pump()
    assert svc.ledger is not None
    eid = bad["event_id"]
    status = store.quarantine_status()
    assert status[eid].action == QUARANTINED and "KeyError" in status[eid].reason
    assert svc.ledger.matches[first.id].outcome.result is not None  # folded without it


def test_the_quarantine_command_lists_shows_releases_and_discards(
        tmp_path: Path, cup: Tournament, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "office.sqlite"
    store = Store(db)
    first = cup.group_matches("A")[0]
    final = poisoned_final(stored(cup, store, first.id, 2, 1, final=False),
                           penalty_minutes="2")
    store.add_event(final, T0)
    store.close()
    svc2 = service_on(db, cup)
    eid = final.event_id
    assert main(["quarantine", "list", "--db", str(db)]) == 0
    assert eid in capsys.readouterr().out
    assert main(["quarantine", "show", eid, "--db", str(db), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["event"]["data"]["record"]["penalty_minutes"] == "2"
    assert shown["history"][0]["action"] == QUARANTINED
    assert main(["quarantine", "release", eid, "--db", str(db)]) == 2  # no reason
    assert "--reason must say why" in capsys.readouterr().err
    assert main(["quarantine", "release", eid, "--db", str(db), "--reason", "fixed"]) == 0
    # The running service notices and folds it again, as the operator said; it still
    # fails (the ledger cannot read a string as minutes), so it is set aside again.
    svc2.pump()
    assert [q.action for q in svc2.store.quarantine_log(eid)] == [QUARANTINED, RELEASED,
                                                                   QUARANTINED]
    assert svc2.ledger.matches[first.id].outcome.result is None
    assert main(["quarantine", "discard", eid, "--db", str(db), "--reason", "forged"]) == 0
    svc2.pump()
    assert svc2.store.quarantine_status()[eid].action == DISCARDED
    assert main(["quarantine", "list", "--db", str(db), "--json"]) == 0
    capsys.readouterr()
    assert main(["quarantine", "show", "nope:A1:1", "--db", str(db)]) == 2
    with pytest.raises(sqlite3.IntegrityError):  # append-only
        svc2.store._db.execute("DELETE FROM quarantine")


def service_on(db: Path, t: Tournament) -> OfficeService:
    wall = FakeClock(wall=T0)
    return OfficeService(t, Store(db), FakePeer(), SnapshotBoard(), wall=wall.wall_datetime,
                         monotonic=wall.monotonic)


def test_a_conflicting_duplicate_is_flagged_an_identical_one_ignored(
        tmp_path: Path, cup: Tournament) -> None:
    first = cup.group_matches("A")[0]
    svc, peer, _, store = service(tmp_path, cup)
    msgs = messages_of(cup, first.id, 1, 0)
    peer.inbox = [*msgs, msgs[2]]  # identical again: silently ignored
    svc.pump()
    assert store.conflicts() == [] and store.alerts() == []
    doc = json.loads(msgs[2].payload)
    doc["at_ns"] += 1
    forged = FakeMessage(msgs[2].topic, json.dumps(doc).encode())
    peer.inbox = [forged, forged]
    svc.pump()
    conflicts = store.conflicts()
    assert [c.event_id for c in conflicts] == [doc["event_id"]]  # once
    assert conflicts[0].content["at_ns"] == doc["at_ns"]
    assert store.event(doc["event_id"]) is not None
    assert store.event(doc["event_id"]).at_ns == doc["at_ns"] - 1  # type: ignore[union-attr]
    assert any(doc["event_id"] in a.text for a in store.alerts())
    svc.refresh()
    page = svc.board.current() if svc.board else {}
    assert page["office"]["conflicts"][0]["event"] == doc["event_id"]
    assert len(peer.acked) == len(msgs) + 3


def test_refusals_are_counted_by_reason_on_the_page(tmp_path: Path, cup: Tournament) -> None:
    first = cup.group_matches("A")[0]
    svc, peer, _, _ = service(tmp_path, cup)
    topic = f"arena/v1/{cup.id}/{first.hall}/events"
    good = json.loads(messages_of(cup, first.id, 1, 0)[0].payload)
    peer.inbox = [FakeMessage(topic, b"{nope"), FakeMessage(topic, b"[1"),
                  FakeMessage(topic, json.dumps({**good, "seq": "1"}).encode()),
                  FakeMessage(f"arena/v1/{cup.id}/hall-9/status", b"online")]
    svc.pump()
    svc.refresh()
    office = svc.board.current()["office"] if svc.board else {}
    assert office["refused_total"] == 4
    counts = {r["reason"]: r["count"] for r in office["refused"]}
    assert counts["events: not JSON (Expecting property name enclosed in double quotes at "
                  "column N)"] == 1
    assert counts["events: 'seq' must be an integer"] == 1
    assert counts["status: unknown hall ... (not in the schedule)"] == 1


def test_the_store_commands_check_back_up_and_repair(
        tmp_path: Path, cup: Tournament, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "office.sqlite"
    store = Store(db)
    stored(cup, store, cup.group_matches("A")[0].id, 2, 1)
    n = len(store.events())
    assert main(["check", "--db", str(db)]) == 0
    assert main(["backup", str(tmp_path / "b.sqlite"), "--db", str(db)]) == 0  # while open
    store.close()
    assert len(Store(tmp_path / "b.sqlite").events()) == n
    assert main(["backup", str(tmp_path / "b.sqlite"), "--db", str(db)]) == 2  # exists
    assert main(["repair", str(tmp_path / "r.sqlite"), "--db", str(db)]) == 0
    assert f"({n} events)" in capsys.readouterr().out
    assert len(Store(tmp_path / "r.sqlite").events()) == n


def test_a_corrupt_store_gets_a_clear_message(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "office.sqlite"
    db.write_bytes(b"this is not a database, it is a shopping list\n" * 200)
    with pytest.raises(StoreError, match=r"the file is corrupt.*office check"):
        Store(db)
    assert check_file(db)
    assert main(["check", "--db", str(db)]) == 1
    assert "damaged" in capsys.readouterr().err
    assert main(["repair", str(tmp_path / "r.sqlite"), "--db", str(db)]) == 0  # empty copy


def test_a_store_failing_mid_run_leaves_the_service_up_and_says_so(
        tmp_path: Path, cup: Tournament) -> None:
    """Disk full or read-only while serving: the event is not acknowledged (the broker hands
    it over again), the page says why and keeps the last tables."""
    first = cup.group_matches("A")[0]
    svc, peer, _, _ = service(tmp_path, cup)
    msgs = messages_of(cup, first.id, 1, 0)
    peer.inbox = msgs[:2]
    svc.pump()

    def full(*_: Any) -> bool:
        raise sqlite3.OperationalError("database or disk is full")

    svc.store.add_event = full  # type: ignore[method-assign]
    peer.inbox = msgs[2:4]
    svc.pump()
    assert len(peer.acked) == 2
    svc.refresh()
    office = svc.board.current()["office"] if svc.board else {}
    assert "disk is full" in office["store_error"]


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs (root only): a disk that really fills up, or is remounted read-only."""
    where = tmp_path / "disk"
    where.mkdir()
    if os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(where)],
            capture_output=True, check=False).returncode != 0:
        pytest.skip("needs root and mount for a tiny tmpfs")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


@pytest.mark.slow
def test_a_full_disk_leaves_the_service_up_read_only(tiny_disk: Path, cup: Tournament) -> None:
    store = Store(tiny_disk / "office.sqlite")
    peer, wall = FakePeer(), FakeClock(wall=T0)
    svc = OfficeService(cup, store, peer, SnapshotBoard(), wall=wall.wall_datetime,
                        monotonic=wall.monotonic)
    first = cup.group_matches("A")[0]
    msgs = messages_of(cup, first.id, 1, 0)
    topic, doc = msgs[0].topic, json.loads(msgs[0].payload)
    filler = [FakeMessage(topic, json.dumps(
        {**doc, wire.Ev.SEQ: n, wire.Ev.EVENT_ID: wire.event_id(first.hall, first.id, n),
         wire.Ev.DATA: {"note": "x" * 190}}).encode()) for n in range(1, 1001)]
    n = 0
    while svc.store_error is None and n < len(filler):
        svc.handle(filler[n])
        n += 1
    assert svc.store_error is not None and "disk is full" in svc.store_error
    assert len(peer.acked) == n - 1  # the one not stored is not acknowledged
    svc.refresh()  # still folds and shows what is stored
    page = svc.board.current() if svc.board else {}
    assert "disk is full" in page["office"]["store_error"]
    assert len(store.events()) == n - 1
    store.close()


@pytest.mark.slow
def test_a_read_only_disk_gets_a_clear_message_and_the_page_stays_up(
        tiny_disk: Path, cup: Tournament) -> None:
    Store(tiny_disk / "office.sqlite").close()
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
    with pytest.raises(StoreError, match="read-only"):
        Store(tiny_disk / "office.sqlite")
    assert main(["check", "--db", str(tiny_disk / "office.sqlite")]) == 0
    # What `office serve` does then: the page shows what is stored, nothing is acked.
    store = Store(tiny_disk / "office.sqlite", read_only=True)
    peer, wall = FakePeer(), FakeClock(wall=T0)
    svc = OfficeService(cup, store, peer, SnapshotBoard(), wall=wall.wall_datetime,
                        monotonic=wall.monotonic)
    svc.refresh()
    first = cup.group_matches("A")[0]
    svc.handle(messages_of(cup, first.id, 1, 0)[0])
    assert peer.acked == [] and svc.store_error is not None
    svc.refresh()
    assert "readonly" in (svc.board.current() if svc.board else {})["office"]["store_error"]
