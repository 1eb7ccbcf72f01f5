"""The office's durable memory: SQLite in WAL mode with ``synchronous=FULL``
(docs/developer.md, "Dependency facts").

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
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from arena import wire
from office.storage.intake import HallEvent

SCHEMA_VERSION = 1
# kv: how far the stored events were checked at start, and by which checks (docs/office.md, "The
# office's faults"); a repaired copy renumbers its rows, so it never carries this over.
CHECKED_KEY = "checked"
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
-- The match an alert is about, for the alerts the office must resolve (a played bracket
-- match whose teams changed): one row per such alert, written with it. Acknowledging and
-- resolving are office actions (the admin table), so no alert row is ever changed.
CREATE TABLE IF NOT EXISTS alert_matches (
    alert INTEGER PRIMARY KEY,
    match TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- A stored event the office cannot fold (or that no longer passes the checks) is set aside
-- here, never deleted: each row is one step of its history, the last one counts
-- ('quarantined', then 'released' back into the fold or 'discarded' for good).
CREATE TABLE IF NOT EXISTS quarantine (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL,
    action TEXT NOT NULL,
    reason TEXT NOT NULL,
    at TEXT NOT NULL
);
-- An event that reuses a stored event_id with different content: kept for the jury, not
-- folded (the first one stored stays the truth). Each different content once.
CREATE TABLE IF NOT EXISTS conflicts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL,
    content TEXT NOT NULL UNIQUE,
    at TEXT NOT NULL
);
-- The public site's addresses (team/<slug>/, hall/<slug>/, category/<slug>/), each kept from
-- the first time it is published: a shared link never changes, a reload that adds a team
-- never renumbers another's (office.views.slugs). category '' is none (a plain tournament).
CREATE TABLE IF NOT EXISTS slugs (
    kind TEXT NOT NULL,
    category TEXT NOT NULL,
    name TEXT NOT NULL,
    slug TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (kind, category, name),
    UNIQUE (kind, slug)
);
-- Each match's result link (office.storage.reports): the unguessable token a referee's phone
-- writes its result with, made once and kept (a reprinted sheet shows the same link).
CREATE TABLE IF NOT EXISTS result_links (
    match TEXT PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    at TEXT NOT NULL
);
-- Every result a phone or the office's form entered for a match without a board, with its
-- source: the latest of a match counts, a board's final wins over it. The form's nonce is
-- UNIQUE: a form sent twice is stored once.
CREATE TABLE IF NOT EXISTS reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match TEXT NOT NULL,
    source TEXT NOT NULL,
    nonce TEXT NOT NULL UNIQUE,
    data TEXT NOT NULL,
    at TEXT NOT NULL
);
"""

_APPEND_ONLY = ("events", "admin", "alerts", "alert_matches", "quarantine", "conflicts",
                "slugs", "result_links", "reports")
QUARANTINED, RELEASED, DISCARDED = "quarantined", "released", "discarded"
QUARANTINE_ACTIONS = (QUARANTINED, RELEASED, DISCARDED)


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
    row: int = 0  # SQLite's rowid: increases with every event stored (no row is deleted)


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
    match: str | None = None  # the match the office must resolve (office alerts resolve)


@dataclass(frozen=True)
class QuarantineEntry:
    """One step of a stored event's quarantine: ``action`` is one of QUARANTINE_ACTIONS."""

    id: int
    event_id: str
    action: str
    reason: str
    at: datetime


@dataclass(frozen=True)
class Conflict:
    """A received event whose ``event_id`` was stored with other content."""

    id: int
    event_id: str
    content: Mapping[str, Any]  # the event as received: the HallEvent's fields
    at: datetime


class Store:
    """One connection to the office database; usable from several threads (one lock)."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        if read_only:  # e.g. the disk went read-only: show what is stored, store nothing
            try:
                self._db = read_only_connection(self.path)
            except sqlite3.Error as err:
                raise StoreError(f"{self.path}: {store_problem(err, self.path)}") from err
            self._lock = threading.Lock()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit (isolation_level=None): each write below is its own transaction,
            # committed (and fsync'd, synchronous=FULL) before the method returns.
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S,
                                       isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as err:
            why = store_problem(err, self.path) if isinstance(err, sqlite3.Error) else err
            raise StoreError(f"{self.path}: cannot open the store: {why}") from err
        self._lock = threading.Lock()
        try:
            self._db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"{self.path}: cannot use WAL mode (got {mode!r})")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.Error as err:
            self._db.close()
            raise StoreError(f"{self.path}: {store_problem(err, self.path)}") from err

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

    def iter_events(self, batch: int = 2000) -> Iterator[StoredEvent]:
        """Every stored event, as ``events()`` orders them, read ``batch`` at a time: the
        whole tournament is never in memory at once."""
        after: tuple[str, int, str] = ("", -(2**63), "")
        while True:
            with self._lock:
                rows = self._db.execute(
                    f"SELECT {_EVENT_COLUMNS} FROM events WHERE (match, seq, event_id) > "
                    "(?, ?, ?) ORDER BY match, seq, event_id LIMIT ?", (*after, batch)
                ).fetchall()
            for r in rows:
                yield _event(r)
            if len(rows) < batch:
                return
            after = (rows[-1][2], int(rows[-1][3]), rows[-1][0])

    def stored_seqs(self) -> dict[str, dict[str, list[int]]]:
        """Every stored seq, by hall and match, ascending (what the ``acks`` are made of)."""
        out: dict[str, dict[str, list[int]]] = {}
        for hall, match, seq in self.iter_stored_seqs():
            out.setdefault(hall, {}).setdefault(match, []).append(seq)
        return out

    def iter_stored_seqs(self, batch: int = 5000) -> Iterator[tuple[str, str, int]]:
        """``(hall, match, seq)`` of every stored event, in that order, ``batch`` at a time
        (the service folds them as they come: the whole list is never in memory)."""
        after: tuple[str, str, int] = ("", "", -(2**63))
        while True:
            with self._lock:
                rows = self._db.execute(
                    "SELECT DISTINCT hall, match, seq FROM events WHERE (hall, match, seq) > "
                    "(?, ?, ?) ORDER BY hall, match, seq LIMIT ?", (*after, batch)).fetchall()
            for hall, match, seq in rows:
                yield str(hall), str(match), int(seq)
            if len(rows) < batch:
                return
            after = (str(rows[-1][0]), str(rows[-1][1]), int(rows[-1][2]))

    def checked_upto(self, checks: str) -> int:
        """The last row checked at start by the checks named ``checks`` (0: none; other
        checks than the ones that ran start again from the first row)."""
        mark = self.kv_get(CHECKED_KEY)
        if isinstance(mark, dict) and mark.get("checks") == checks \
                and isinstance(mark.get("upto"), int):
            return int(mark["upto"])
        return 0

    def set_checked_upto(self, checks: str, upto: int) -> None:
        self.kv_set(CHECKED_KEY, {"checks": checks, "upto": upto})

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

    def add_alert(self, text: str, at: datetime, *, match: str | None = None) -> int:
        """Append an alert; ``match``: the match it asks the office to resolve (kept with
        it in one transaction)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute("INSERT INTO alerts (text, at) VALUES (?, ?)",
                                       (text, at.isoformat()))
                assert cur.lastrowid is not None
                if match is not None:
                    self._db.execute("INSERT INTO alert_matches VALUES (?, ?)",
                                     (cur.lastrowid, match))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return cur.lastrowid

    def alerts(self) -> list[Alert]:
        with self._lock:
            rows = self._db.execute("SELECT id, text, at FROM alerts ORDER BY id").fetchall()
            matches = dict(self._optional("SELECT alert, match FROM alert_matches"))
        return [Alert(int(r[0]), str(r[1]), datetime.fromisoformat(r[2]),
                      matches.get(int(r[0]))) for r in rows]

    # Quarantine and conflicts -------------------------------------------------------------

    def quarantine(self, event_id: str, action: str, reason: str, at: datetime) -> int:
        """Append one step of ``event_id``'s quarantine (see QUARANTINE_ACTIONS)."""
        if action not in QUARANTINE_ACTIONS:
            raise ValueError(f"quarantine action {action!r}: one of "
                             f"{', '.join(QUARANTINE_ACTIONS)}")
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO quarantine (event_id, action, reason, at) VALUES (?, ?, ?, ?)",
                (event_id, action, reason, at.isoformat()))
            assert cur.lastrowid is not None
            return cur.lastrowid

    def quarantine_log(self, event_id: str | None = None) -> list[QuarantineEntry]:
        """Every step, oldest first (of one event, or all)."""
        query = "SELECT id, event_id, action, reason, at FROM quarantine"
        args: tuple[str, ...] = ()
        if event_id is not None:
            query += " WHERE event_id = ?"
            args = (event_id,)
        with self._lock:
            rows = self._optional(query + " ORDER BY id", args)
        return [QuarantineEntry(int(r[0]), str(r[1]), str(r[2]), str(r[3]),
                                datetime.fromisoformat(r[4])) for r in rows]

    def quarantine_status(self) -> dict[str, QuarantineEntry]:
        """Each event ever quarantined, by id: its latest step."""
        return {q.event_id: q for q in self.quarantine_log()}

    def _optional(self, query: str, args: tuple[Any, ...] = ()) -> list[Any]:
        """Rows of a table this version added: a store opened read-only that an older
        version wrote does not have it yet (nothing in it, then)."""
        try:
            return self._db.execute(query, args).fetchall()
        except sqlite3.OperationalError:
            if self.read_only:
                return []
            raise

    def add_conflict(self, ev: HallEvent, received: datetime) -> bool:
        """Keep an event that reuses a stored ``event_id`` with other content; True if this
        content was not kept already."""
        with self._lock:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO conflicts (event_id, content, at) VALUES (?, ?, ?)",
                (ev.event_id, _dump(event_content(ev)), received.isoformat()))
            return cur.rowcount == 1

    def conflicts(self) -> list[Conflict]:
        with self._lock:
            rows = self._optional("SELECT id, event_id, content, at FROM conflicts ORDER BY id")
        return [Conflict(int(r[0]), str(r[1]), json.loads(r[2]), datetime.fromisoformat(r[3]))
                for r in rows]

    # The public site's addresses ---------------------------------------------------------

    def slugs(self) -> list[tuple[str, str | None, str, str]]:
        """``(kind, category, name, slug)`` of every slug published, oldest first."""
        with self._lock:
            rows = self._optional("SELECT kind, category, name, slug FROM slugs ORDER BY rowid")
        return [(str(r[0]), str(r[1]) or None, str(r[2]), str(r[3])) for r in rows]

    def add_slugs(self, rows: list[tuple[str, str | None, str, str]], at: datetime) -> None:
        """Keep newly published slugs, all in one transaction (one already kept for its
        name is left as it is)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT OR IGNORE INTO slugs VALUES (?, ?, ?, ?, ?)",
                    [(kind, category or "", name, s, at.isoformat())
                     for kind, category, name, s in rows])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    # For the modules that own a table of their own (office.storage.reports) -------------

    def rows(self, query: str, args: tuple[Any, ...] = ()) -> list[Any]:
        """The rows of a read (none from a table an older version's file lacks, read-only)."""
        with self._lock:
            return self._optional(query, args)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``, under the lock): what it checks and
        what it writes are one step, whoever else writes the file."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

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


_EVENT_COLUMNS = "event_id, hall, match, seq, type, data, at_ns, wall, received, rowid"


def read_only_connection(path: Path) -> sqlite3.Connection:
    """The store opened for reading only; where even that fails (a WAL file in a read-only
    directory cannot get its shared-memory file), as an immutable file: nobody can be
    writing it then."""
    if not path.exists():
        raise sqlite3.OperationalError("unable to open database file")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError:
        db.close()
    except sqlite3.DatabaseError:
        return db  # readable, but damaged: the caller meets (and says) that
    return sqlite3.connect(f"file:{path}?immutable=1", uri=True, check_same_thread=False)


def is_read_only(path: Path) -> bool:
    """The store's file or its directory cannot be written (by this process)."""
    directory = path.parent if str(path.parent) else Path(".")
    if not os.access(directory, os.W_OK):
        return True
    return path.exists() and not os.access(path, os.W_OK)


def store_problem(err: sqlite3.Error, path: Path | None = None) -> str:
    """SQLite's failure in words an operator can act on."""
    text = str(err)
    if path is not None and ("unable to open" in text or "readonly" in text) \
            and is_read_only(path):
        text = f"{text}; read-only"
    if isinstance(err, sqlite3.DatabaseError) and ("not a database" in text
                                                   or "malformed" in text):
        return (f"the file is corrupt ({text}): run `office check`, then `office repair` "
                "(it writes a repaired copy; the original is kept)")
    if "readonly" in text or "read-only" in text:
        return (f"cannot write ({text}): the file or its directory is read-only; the page "
                "can still show the tables")
    if "disk is full" in text or "full" in text:
        return f"the disk is full ({text}): free space; nothing stored was lost"
    if "unable to open" in text:
        return f"cannot open the file ({text}): check the path and its permissions"
    return text


def check_file(path: str | Path) -> list[str]:
    """``PRAGMA integrity_check`` of a store, read-only: [] when it is sound, else the
    problems SQLite found (or why the file could not be read at all)."""
    try:
        db = read_only_connection(Path(path))
    except sqlite3.Error as err:
        return [store_problem(err, Path(path))]
    try:
        rows = db.execute("PRAGMA integrity_check").fetchall()
        problems = [str(r[0]) for r in rows if str(r[0]) != "ok"]
        if not problems:
            tables = {r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            problems = [f"table {t!r} is missing" for t in ("events", "admin", "alerts")
                        if t not in tables]
        return problems
    except sqlite3.Error as err:
        return [store_problem(err), *damaged_parts(db)]
    finally:
        db.close()


def damaged_parts(db: sqlite3.Connection) -> list[str]:
    """Which tables and indexes cannot be read, each checked on its own: when the whole
    check fails on a damaged page, the operator still learns what it holds (the events, an
    index that ``office repair`` rebuilds, the office's own actions)."""
    try:
        parts = db.execute("SELECT type, name, tbl_name, rootpage FROM sqlite_master "
                           "WHERE type IN ('table', 'index') ORDER BY rootpage").fetchall()
    except sqlite3.Error as err:
        return [f"the schema itself (page 1) cannot be read: {err}"]
    found = []
    for kind, name, table, root in parts:
        try:
            # Every row (a table) or every entry (an index), through its own b-tree.
            query = (f'SELECT count(*) FROM "{name}" NOT INDEXED' if kind == "table" else
                     f'SELECT count(*) FROM "{table}" INDEXED BY "{name}"')
            db.execute(query).fetchone()
        except sqlite3.Error as err:
            found.append(f"{kind} {name!r} (page {root}) is damaged: {err}")
    return found


def backup_file(source: str | Path, target: str | Path) -> None:
    """A consistent copy of a store while the service may be writing it (SQLite's online
    backup); ``target`` must not exist."""
    target = Path(target)
    if target.exists():
        raise StoreError(f"{target}: already exists; name a new file")
    src = read_only_connection(Path(source))
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    except sqlite3.Error as err:
        target.unlink(missing_ok=True)
        raise StoreError(f"{source}: cannot back up: {store_problem(err)}") from err
    finally:
        src.close()


def repair_file(source: str | Path, target: str | Path) -> int:
    """A repaired copy of a store in ``target`` (which must not exist); the source is never
    changed. First ``VACUUM INTO`` (rebuilds every page and index); if SQLite cannot read
    the whole file, every row it can still read is copied table by table instead. Returns
    the number of events in the copy."""
    target = Path(target)
    if target.exists():
        raise StoreError(f"{target}: already exists; name a new file")
    src = read_only_connection(Path(source))
    try:
        try:
            src.execute("VACUUM INTO ?", (str(target),))
        except sqlite3.Error:
            target.unlink(missing_ok=True)
            _salvage(src, target)
    finally:
        src.close()
    if check_file(target):
        raise StoreError(f"{target}: the repaired copy does not pass the check either")
    copy = sqlite3.connect(target)
    try:
        with copy:  # rows may be renumbered: the copy's first start checks them all
            copy.execute("DELETE FROM kv WHERE key = ?", (CHECKED_KEY,))
        return int(copy.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        copy.close()


def _salvage(src: sqlite3.Connection, target: Path) -> None:
    """Every row that can still be read, into a fresh store (its schema and triggers)."""
    Store(target).close()
    dst = sqlite3.connect(target, isolation_level=None)
    try:
        for table in ("events", "admin", "alerts", "alert_matches", "kv", "quarantine",
                      "conflicts", "slugs", "result_links", "reports"):
            try:
                rows = src.execute(f"SELECT * FROM {table}").fetchall()
            except sqlite3.Error:
                rows = []
                try:  # row by row up to where the damage is
                    for row in src.execute(f"SELECT * FROM {table}"):
                        rows.append(row)
                except sqlite3.Error:
                    pass
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                dst.executemany(f"INSERT OR IGNORE INTO {table} VALUES ({marks})", rows)
    finally:
        dst.close()


def event_content(ev: HallEvent | StoredEvent) -> dict[str, Any]:
    """What a hall said in an event (not when the office received it): two events with the
    same ``event_id`` are the same event when this is equal."""
    return {wire.Ev.EVENT_ID: ev.event_id, "hall": ev.hall, wire.Ev.MATCH: ev.match,
            wire.Ev.SEQ: ev.seq, wire.Ev.TYPE: ev.type,
            wire.Ev.DATA: json.loads(_dump(ev.data)), wire.Ev.AT_NS: ev.at_ns,
            wire.Ev.WALL: ev.wall}


def _dump(value: Any) -> str:
    # ASCII escapes: whatever reads the file (sqlite3 shell, a backup tool) gets plain text.
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _event(row: tuple[Any, ...]) -> StoredEvent:
    return StoredEvent(event_id=row[0], hall=row[1], match=row[2], seq=int(row[3]),
                       type=row[4], data=json.loads(row[5]), at_ns=int(row[6]), wall=row[7],
                       received=datetime.fromisoformat(row[8]), row=int(row[9]))
