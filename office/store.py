"""The office's durable memory: SQLite in WAL mode with ``synchronous=FULL``
(README "Dependency facts").

Every hall event (keyed by ``event_id``: a duplicate is ignored), every office action
(corrections, lots drawn) and every alert is appended and never changed: triggers refuse
updates and deletes, so the audit trail cannot be rewritten by a bug either. Tables,
results and the bracket are derived from these rows, never stored as truth; ``kv`` holds
small service state (e.g. the bracket last filled, to notice when a correction changes it).

The service and the ``office`` command may have the same file open at once: WAL lets one
write while the other reads, ``busy_timeout`` makes a second writer wait instead of fail,
and ``data_version()`` tells the service that the other process wrote something.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from office.intake import HallEvent

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 10.0  # a CLI write waits this long for the service's (short) transaction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    event_id TEXT PRIMARY KEY,
    hall TEXT NOT NULL,
    match TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    at_ns INTEGER NOT NULL,
    wall TEXT,
    received TEXT NOT NULL
);
-- Not UNIQUE: were a match moved to another hall mid-game, the new hall's events have the
-- same (match, seq) under another event_id, and dropping them silently would lose goals.
CREATE INDEX IF NOT EXISTS events_by_match ON events (match, seq);
CREATE TABLE IF NOT EXISTS admin (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS alerts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    text TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

_APPEND_ONLY = ("events", "admin", "alerts")


class StoreError(RuntimeError):
    """The file cannot be used (e.g. written by a newer version)."""


@dataclass(frozen=True)
class StoredEvent:
    event_id: str
    hall: str
    match: str
    seq: int
    type: str
    data: Mapping[str, Any]
    at_ns: int
    wall: str | None
    received: datetime  # the office's wall time when it was stored


@dataclass(frozen=True)
class AdminAction:
    id: int  # increasing: the order the actions were taken in
    kind: str  # "correct", "draw_lots", ...
    data: Mapping[str, Any]
    at: datetime


@dataclass(frozen=True)
class Alert:
    id: int
    text: str
    at: datetime


class Store:
    """One connection to the office database; usable from several threads (one lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit (isolation_level=None): each write below is its own transaction,
        # committed (and fsync'd, synchronous=FULL) before the method returns.
        self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                   check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"{self.path}: cannot use WAL mode (got {mode!r})")
        self._db.execute("PRAGMA synchronous = FULL")
        self._db.execute("PRAGMA foreign_keys = ON")
        self._migrate()

    def _migrate(self) -> None:
        # IMMEDIATE: the service and the CLI opening a new file at once must not both
        # create it; the second waits, then finds the version row.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            # Statement by statement: executescript() would COMMIT the transaction first.
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            row = self._db.execute("SELECT max(version) FROM schema_version").fetchone()
            version = row[0]
            if version is None:
                self._db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            elif version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: schema version {version} is newer than this "
                                 f"program's {SCHEMA_VERSION}; upgrade the office")
            for table in _APPEND_ONLY:
                for op in ("UPDATE", "DELETE"):
                    self._db.execute(
                        f"CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} "
                        f"BEFORE {op} ON {table} "
                        f"BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    # Events ------------------------------------------------------------------------------

    def add_event(self, ev: HallEvent, received: datetime) -> bool:
        """Store a hall event; True if new, False if its ``event_id`` was already stored."""
        with self._lock:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (ev.event_id, ev.hall, ev.match, ev.seq, ev.type, _dump(ev.data), ev.at_ns,
                 ev.wall, received.isoformat()))
            return cur.rowcount == 1

    def event(self, event_id: str) -> StoredEvent | None:
        """One stored event (e.g. to tell a duplicate from a different event that reuses
        an ``event_id``, as a hall whose journal was lost would)."""
        with self._lock:
            row = self._db.execute(f"SELECT {_EVENT_COLUMNS} FROM events WHERE event_id = ?",
                                   (event_id,)).fetchone()
        return _event(row) if row is not None else None

    def events(self, match: str | None = None) -> list[StoredEvent]:
        """Stored events, of one match or all, ordered by match and seq."""
        query = f"SELECT {_EVENT_COLUMNS} FROM events"
        args: tuple[str, ...] = ()
        if match is not None:
            query += " WHERE match = ?"
            args = (match,)
        with self._lock:
            rows = self._db.execute(query + " ORDER BY match, seq, event_id", args).fetchall()
        return [_event(r) for r in rows]

    def stored_seqs(self) -> dict[str, dict[str, list[int]]]:
        """Every stored seq, by hall and match, ascending (what the ``acks`` are made of)."""
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT hall, match, seq FROM events "
                                    "ORDER BY hall, match, seq").fetchall()
        out: dict[str, dict[str, list[int]]] = {}
        for hall, match, seq in rows:
            out.setdefault(str(hall), {}).setdefault(str(match), []).append(int(seq))
        return out

    # Office actions and alerts -------------------------------------------------------------

    def admin(self, kind: str, data: Mapping[str, Any], at: datetime) -> int:
        """Append an office action (a correction, a lots draw); returns its id."""
        with self._lock:
            cur = self._db.execute("INSERT INTO admin (kind, data, at) VALUES (?, ?, ?)",
                                   (kind, _dump(data), at.isoformat()))
            assert cur.lastrowid is not None
            return cur.lastrowid

    def admin_actions(self) -> list[AdminAction]:
        with self._lock:
            rows = self._db.execute("SELECT id, kind, data, at FROM admin ORDER BY id").fetchall()
        return [AdminAction(int(r[0]), str(r[1]), json.loads(r[2]), datetime.fromisoformat(r[3]))
                for r in rows]

    def add_alert(self, text: str, at: datetime) -> int:
        with self._lock:
            cur = self._db.execute("INSERT INTO alerts (text, at) VALUES (?, ?)",
                                   (text, at.isoformat()))
            assert cur.lastrowid is not None
            return cur.lastrowid

    def alerts(self) -> list[Alert]:
        with self._lock:
            rows = self._db.execute("SELECT id, text, at FROM alerts ORDER BY id").fetchall()
        return [Alert(int(r[0]), str(r[1]), datetime.fromisoformat(r[2])) for r in rows]

    # Small service state ------------------------------------------------------------------

    def kv_get(self, key: str) -> Any:
        """The JSON value stored under ``key``, or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row is not None else None

    def kv_set(self, key: str, value: Any) -> None:
        with self._lock:
            self._db.execute("INSERT INTO kv VALUES (?, ?) "
                             "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                             (key, _dump(value)))

    # Other processes ----------------------------------------------------------------------

    def data_version(self) -> int:
        """Changes whenever another connection (another process: ``office correct``) commits.

        A connection's own commits do not change it, so the service compares the value it
        last saw to notice rows it did not write.
        """
        with self._lock:
            return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


_EVENT_COLUMNS = "event_id, hall, match, seq, type, data, at_ns, wall, received"


def _dump(value: Any) -> str:
    # ASCII escapes: whatever reads the file (sqlite3 shell, a backup tool) gets plain text.
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _event(row: tuple[Any, ...]) -> StoredEvent:
    return StoredEvent(event_id=row[0], hall=row[1], match=row[2], seq=int(row[3]),
                       type=row[4], data=json.loads(row[5]), at_ns=int(row[6]), wall=row[7],
                       received=datetime.fromisoformat(row[8]))
