"""What the standings service holds (``office serve``), and the few things every part of
its loop does with it: alerts, store failures, the retained documents' de-duplication.

The loop is split by job, each a layer on this one: ``publishing`` (standings, next, acks,
the page's snapshot), ``intake`` (the broker's messages, the stored events, quarantine),
``rescheduling`` (the office's schedule changes), ``folding`` (the ledgers again after a
change); ``office.service.OfficeService`` puts them together.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from arena.tournament.event import Event
from arena.tournament.model import Draw
from office.inforce import ScheduleIndex
from office.rules import rulings
from office.storage import faults, intake
from office.storage.backlog import Backlog
from office.storage.store import RELEASED, Conflict, QuarantineEntry, Store, store_problem
from office.views import alerts
from office.views.board import SnapshotBoard
from office.views.fold import LedgerFold
from office.views.gapless import Gapless
from office.views.ledger import Correction, Ledger, MatchCache, MatchDigest, Review
from office.views.pagecache import PageCache
from office.views.snapshot import AlertView, HallLive

log = logging.getLogger("office")

# A hall's state (its clock) changes every second: the page's snapshot is rebuilt from it at
# most this often, and without re-folding the ledger, which only events and the office's
# own actions change.
VIEW_S = 0.25

# An event stored above a gap makes the office repeat the hall's `acks` unchanged, so the
# hall hears "no progress" and re-sends from the gap; at most this often per hall, or a
# burst of events behind one lost event would make as many repeats (and re-sends).
NUDGE_S = 2.0


class Message(Protocol):
    @property
    def topic(self) -> str: ...
    @property
    def payload(self) -> bytes: ...


class Peer(Protocol):
    """The broker connection (``arena.broker.OfficePeer``; a fake in tests)."""

    def poll(self, timeout: float = ...) -> list[Any]: ...
    def ack(self, message: Any) -> object: ...
    def publish_retained(self, topic: str, payload: bytes, qos: int = ...) -> None: ...



class ServiceBase:
    """The service's state; the layers above read and change it."""

    base: Event  # the file the service started with
    event: Event  # the schedule in force
    store: Store
    peer: Peer | None
    public_url: str | None
    board: SnapshotBoard | None
    wall: Callable[[], datetime]
    monotonic: Callable[[], float]
    halls: dict[str, HallLive]
    refusals: faults.RefusalCounts
    store_error: str | None
    backlog: Backlog  # the events the store could not take yet, retried
    ledgers: dict[str, Ledger] | None  # by category name
    _schedule_rows: tuple[int, ...]
    _events: dict[str, MatchDigest]
    _quarantine: dict[str, QuarantineEntry]
    _checked_upto: int
    _stored: dict[str, Gapless]
    # (hall, match) -> the seqs stored from that hall, counted from its first: its own
    # mark once the seqs below its first are stored from any hall (``_mark``).
    _own: dict[tuple[str, str], tuple[int, Gapless]]  # (the seq below its first, seqs)
    _claims: intake.Claims  # matches refused from a hall because another plays them
    _sent: dict[str, set[str]]
    _playing: intake.Playing  # the hall playing each match (a match moved keeps it)
    _cache: MatchCache
    _published: dict[str, bytes]  # topic -> retained payload last sent
    _sent_tables: dict[tuple[str, str], int]  # (category, group) -> the table's revision
    _data_version: int
    _alerts: list[AlertView]
    _admin: tuple[list[Correction], list[Draw]]
    _reviews: list[Review]
    _handled: dict[int, alerts.Handled]
    _green: list[rulings.GreenCard]
    _dirty: bool
    _view_dirty: bool
    _view_at: float
    _conflicts: list[Conflict]
    _fold_error: str
    # What ``_index_schedule`` keeps of the schedule in force.
    _schedule: ScheduleIndex
    _folds: dict[str, LedgerFold]
    _touched: set[str] | None
    _hall_of: dict[str, str]
    _next_teams: dict[str, frozenset[str]]
    _incremental: bool
    _page: PageCache
    _page_changed: dict[str, set[str]] | None

    @property
    def ledger(self) -> Ledger | None:
        """The ledger of a one-category event (None before the first fold); an event of
        several has one per category (``ledgers``)."""
        if self.ledgers is None:
            return None
        if len(self.ledgers) != 1:
            raise ValueError(f"the event has {len(self.ledgers)} categories: use ledgers")
        return next(iter(self.ledgers.values()))

    @property
    def refused(self) -> int:
        return self.refusals.total

    def _store_failed(self, what: str, err: sqlite3.Error) -> None:
        # In the words an operator acts on: a damaged page names `office check` (what
        # cannot be read), a full disk says nothing stored was lost.
        self.store_error = f"{what}: {store_problem(err)} (the store at {self.store.path.name})"
        log.error("store: %s", self.store_error)
        self._view_dirty = True

    def _alert(self, text: str, now: datetime, *, match: str | None = None) -> None:
        """Store and show an alert; ``match``: one the office must resolve."""
        log.warning("%s", text)
        alert_id: int | None = None
        try:
            alert_id = self.store.add_alert(text, now, match=match)
        except sqlite3.Error as err:
            self._store_failed("cannot store an alert", err)
        self._alerts.append(AlertView(now, text, alert_id, match))

    def _read_reviews(self) -> None:
        """The office's reviews and what it did about each alert (``office alerts``)."""
        actions = self.store.admin_actions()
        self._reviews = alerts.reviews_of(actions)
        self._handled = alerts.handled(actions)

    def office_document(self) -> dict[str, object]:
        """The office's own health for the page: refusals, quarantine, conflicts, store."""
        return {
            "refused_total": self.refusals.total,
            "refused": self.refusals.to_json(),
            "quarantine": [{"event": q.event_id, "status": q.action, "reason": q.reason,
                            "at": q.at.isoformat(timespec="seconds")}
                           for q in self._quarantine.values() if q.action != RELEASED],
            "conflicts": [{"event": c.event_id, "at": c.at.isoformat(timespec="seconds")}
                          for c in self._conflicts],
            "store_error": self.store_error,
            # While the store fails: since when, and the events kept in memory and retried.
            "store_since": None if self.backlog.since is None
            else self.backlog.since.isoformat(timespec="seconds"),
            "store_waiting": self.backlog.by_hall(),
            # The address the halls' QR codes show (``--public-url``): the office hands it out.
            "public_url": self.public_url,
        }

    def _retain(self, topic: str, payload: bytes) -> None:
        """Publish a retained document unless it is what was sent last (b"": clear it)."""
        if self._published.get(topic) == payload:
            return
        if self.peer is not None:
            self.peer.publish_retained(topic, payload)
        self._published[topic] = payload
