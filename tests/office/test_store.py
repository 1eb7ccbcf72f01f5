"""The office store: duplicates ignored, order kept, the audit trail append-only, and what
was committed survives a reopen, a second process and a process that dies without closing."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from office.storage.intake import HallEvent
from office.storage.store import SCHEMA_VERSION, Store, StoreError

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 12, 5, 9, 0, tzinfo=timezone(timedelta(hours=1)))


def ev(match: str, seq: int, hall: str = "hall-1", kind: str = "goal",
       data: dict[str, object] | None = None) -> HallEvent:
    return HallEvent(event_id=f"{hall}:{match}:{seq}", hall=hall, match=match, seq=seq,
                     type=kind, data={"team": "home"} if data is None else data,
                     at_ns=seq * 1_000_000, wall=None if seq % 2 else "2026-12-05T09:00:00")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "office.db")
    yield s
    s.close()


def test_duplicates_are_ignored_and_reported(store: Store) -> None:
    assert store.add_event(ev("A1", 1), T0)
    assert not store.add_event(ev("A1", 1), T0 + timedelta(seconds=5))
    assert not store.add_event(ev("A1", 1, data={"team": "away"}), T0)  # same id: the first wins
    [only] = store.events()
    assert only.data == {"team": "home"} and only.received == T0
    assert store.event("hall-1:A1:1") == only
    assert store.event("hall-1:A1:2") is None


def test_events_come_back_ordered_by_match_and_seq(store: Store) -> None:
    for match, seq in [("B2", 2), ("A1", 3), ("A1", 1), ("B2", 1), ("A1", 2), ("A10", 1)]:
        store.add_event(ev(match, seq, "hall-2" if match.startswith("B") else "hall-1"), T0)
    assert [(e.match, e.seq) for e in store.events()] == [
        ("A1", 1), ("A1", 2), ("A1", 3), ("A10", 1), ("B2", 1), ("B2", 2)]
    got = store.events("A1")
    assert [e.seq for e in got] == [1, 2, 3]
    assert got[0].wall is None and got[1].wall == "2026-12-05T09:00:00"
    assert got[2].at_ns == 3_000_000 and got[2].type == "goal" and got[2].hall == "hall-1"
    assert store.events("Z9") == []


def test_a_match_moved_to_another_hall_keeps_both_halls_events(store: Store) -> None:
    assert store.add_event(ev("A1", 1, "hall-1"), T0)
    assert store.add_event(ev("A1", 1, "hall-2"), T0)
    assert [e.event_id for e in store.events("A1")] == ["hall-1:A1:1", "hall-2:A1:1"]


def test_admin_actions_are_append_only_and_in_order(store: Store) -> None:
    first = store.admin("correct", {"match": "A1", "score": [2, 1], "reason": "goal judge"}, T0)
    second = store.admin("draw_lots", {"group": "A", "order": ["C", "B"], "seed": None},
                         T0 + timedelta(minutes=1))
    assert second > first
    actions = store.admin_actions()
    assert [(a.id, a.kind) for a in actions] == [(first, "correct"), (second, "draw_lots")]
    assert actions[0].data == {"match": "A1", "score": [2, 1], "reason": "goal judge"}
    assert actions[1].at == T0 + timedelta(minutes=1)
    # Not even a bug (or a hand with the sqlite3 shell) can rewrite the audit trail.
    store.add_event(ev("A1", 1), T0)
    store.add_alert("an alert", T0)
    raw = sqlite3.connect(store.path)
    for statement in ("UPDATE admin SET kind = 'x'", "DELETE FROM admin",
                      "UPDATE events SET seq = 9", "DELETE FROM events",
                      "UPDATE alerts SET text = ''", "DELETE FROM alerts"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            raw.execute(statement)
    raw.close()
    assert store.admin_actions() == actions


def test_alerts_and_kv(store: Store) -> None:
    store.add_alert("bracket changed: SF1 is now Lions - Wolves", T0)
    store.add_alert("gap in A1: seq 4 missing", T0 + timedelta(seconds=1))
    assert [a.text for a in store.alerts()] == ["bracket changed: SF1 is now Lions - Wolves",
                                                "gap in A1: seq 4 missing"]
    assert store.alerts()[1].at == T0 + timedelta(seconds=1)
    assert store.kv_get("bracket") is None
    store.kv_set("bracket", {"SF1": ["Lions", "Wolves"]})
    store.kv_set("bracket", {"SF1": ["Lions", "Bears"]})
    assert store.kv_get("bracket") == {"SF1": ["Lions", "Bears"]}


def test_reopening_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "office.db"
    s = Store(path)
    s.add_event(ev("A1", 1), T0)
    s.admin("correct", {"match": "A1"}, T0)
    s.add_alert("hello", T0)
    s.kv_set("k", [1, 2])
    before = (s.events(), s.admin_actions(), s.alerts())
    s.close()
    again = Store(path)
    assert (again.events(), again.admin_actions(), again.alerts()) == before
    assert again.kv_get("k") == [1, 2]
    assert not again.add_event(ev("A1", 1), T0)  # still a duplicate after the reopen
    mode = again._db.execute("PRAGMA journal_mode").fetchone()[0]
    sync = again._db.execute("PRAGMA synchronous").fetchone()[0]
    assert (mode, sync) == ("wal", 2)  # 2 = FULL
    again.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "office.db"
    Store(path).close()
    raw = sqlite3.connect(path)
    raw.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION + 1,))
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match="newer than this program"):
        Store(path)


def test_service_and_cli_see_each_others_writes(tmp_path: Path) -> None:
    path = tmp_path / "office.db"
    service, cli = Store(path), Store(path)
    seen = service.data_version()
    service.add_event(ev("A1", 1), T0)
    assert service.data_version() == seen  # its own commits do not count
    assert [e.event_id for e in cli.events()] == ["hall-1:A1:1"]

    cli.admin("correct", {"match": "A1", "score": [2, 1]}, T0)
    assert service.data_version() != seen  # the service notices the CLI's write
    assert [a.kind for a in service.admin_actions()] == ["correct"]

    # A reader in the middle of a transaction does not block the other's write (WAL).
    cli._db.execute("BEGIN")
    assert len(cli.events()) == 1
    service.add_event(ev("A1", 2), T0)
    assert len(cli.events()) == 1  # its snapshot
    cli._db.execute("COMMIT")
    assert len(cli.events()) == 2
    service.close()
    cli.close()


@pytest.mark.slow
def test_a_process_that_dies_without_closing_loses_nothing_committed(tmp_path: Path) -> None:
    path = tmp_path / "office.db"
    script = textwrap.dedent(f"""
        import os, sys
        from datetime import datetime
        from office.storage.intake import HallEvent
        from office.storage.store import Store
        s = Store(sys.argv[1])
        for seq in range(1, 6):
            s.add_event(HallEvent(f"hall-1:A1:{{seq}}", "hall-1", "A1", seq, "goal", {{}},
                                  seq, None), datetime.fromisoformat("{T0.isoformat()}"))
        s.admin("correct", {{"match": "A1"}}, datetime.fromisoformat("{T0.isoformat()}"))
        s._db.execute("BEGIN")  # a transaction still open when the process dies
        s._db.execute("INSERT INTO alerts (text, at) VALUES ('never committed', 'x')")
        os._exit(0)
    """)
    done = subprocess.run([sys.executable, "-c", script, str(path)], cwd=ROOT, check=False,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert Path(str(path) + "-wal").exists()  # not checkpointed: recovery reads the WAL
    s = Store(path)
    assert [e.seq for e in s.events("A1")] == [1, 2, 3, 4, 5]
    assert [a.kind for a in s.admin_actions()] == ["correct"]
    assert s.alerts() == []
    assert s._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    s.close()
