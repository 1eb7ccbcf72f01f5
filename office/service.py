"""``office serve``: the standings service's loop.

One thread owns everything: it takes the broker's messages from the peer's queue, refuses
garbage with a log line naming the topic and the reason, stores every hall event in SQLite
before acknowledging it (so an event the broker handed over is never lost to a crash of the
office), folds the ledger, and publishes what changed: the retained ``standings/<group>``,
each hall's retained ``next`` and ``acks`` (what the office has durably stored of its
events: the hall's proof of delivery, docs/developer.md, "MQTT to the office"), and the page's
snapshot. Corrections and lots drawn from the shell (``office correct``, ``office draw-lots``) reach
it through the same database.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Protocol

from arena import wire
from arena.tournament.event import Event
from arena.tournament.files import event_from_files
from arena.tournament.model import DecidedBy, Draw, GroupTable, ScheduledMatch, Tournament
from office import schedule
from office.rules import alerts, bracket, rulings
from office.storage import faults, intake
from office.storage.store import (
    DISCARDED,
    QUARANTINED,
    RELEASED,
    QuarantineEntry,
    Store,
    StoredEvent,
    event_content,
)
from office.views import merge
from office.views.board import SnapshotBoard
from office.views.fold import LedgerFold
from office.views.ledger import (
    Correction,
    Gapless,
    Ledger,
    MatchCache,
    MatchDigest,
    Received,
    build,
    build_from,
)
from office.views.pagecache import PageCache
from office.views.snapshot import AlertView, HallLive

log = logging.getLogger("office")

# kv: the file the service started with, {"source", "files"} (its text and its included
# files'): what `office reload` compares an edited file with (edited in place, the file on
# disk no longer says what runs).
SCHEDULE_KEY = "schedule"

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


# What of a ledger a hall's ``next`` reads besides its own matches' views and the bans of
# its teams: every field but the tables, the warnings, the next window, the lots and the
# rulings' own lists (a forfeit's match is a changed view; a match voided or no longer
# tells its own hall: ``_halls_to_tell``). A field added later counts too.
_NEXT_READS = tuple(f.name for f in dataclasses.fields(Ledger)
                    if f.name not in ("matches", "tables", "warnings", "next_change", "draws",
                                      "suspensions", "voided", "forfeits", "eliminations",
                                      "green_cards"))


def corrections_and_draws(store: Store) -> tuple[list[Correction], list[Draw]]:
    """The office's own audited actions, in the order they were taken."""
    corrections: list[Correction] = []
    draws: list[Draw] = []
    for action in store.admin_actions():
        data = action.data
        if action.kind == "correct":
            decided = data.get("decided_by")
            corrections.append(Correction(
                match=str(data["match"]), home_goals=int(data["home"]),
                away_goals=int(data["away"]), reason=str(data["reason"]), at=action.at,
                decided_by=DecidedBy(decided) if decided else None))
        elif action.kind == rulings.FORFEIT:
            # Awarded under a rule (office forfeit / office unauthorised): a correction to
            # 0:5 that also counts towards eliminations and expulsions (office.rules.rulings).
            forfeit = rulings.forfeit_of(data, action.at)
            corrections.append(Correction(
                match=forfeit.match, home_goals=int(data["home"]),
                away_goals=int(data["away"]),
                reason=f"{forfeit.cause.rule}: {forfeit.reason}", at=action.at,
                decided_by=DecidedBy.FORFEIT, forfeit=forfeit))
        elif action.kind == "draw":
            seed = data.get("seed")
            category = data.get("category")
            draws.append(Draw(str(data["group"]), tuple(str(t) for t in data["order"]),
                              int(seed) if seed is not None else None,
                              str(category) if category is not None else None))
    return corrections, draws


def schedule_steps(store: Store) -> list[schedule.Step]:
    """The office's schedule changes (reloads, reschedules), in the order they were made."""
    return [schedule.Step(a.id, a.kind, a.data, a.at) for a in store.admin_actions()
            if a.kind in schedule.KINDS]


def effective_event(base: Event, store: Store) -> Event:
    """The schedule in force: ``base`` (the file the service started with) with the office's
    reloads and reschedules (``office.schedule.replay``)."""
    return schedule.replay(base, schedule_steps(store), event_from_files)


def green_cards(store: Store) -> list[rulings.GreenCard]:
    """The green cards the office recorded (rules 003), in the order recorded."""
    return rulings.green_cards_of((a.kind, a.data, a.at) for a in store.admin_actions())


def ledger_from_store(tournament: Tournament, store: Store, now: datetime | None,
                      category: str | None = None) -> Ledger:
    """The ledger as the service would fold it now (for the shell commands): without the
    events in quarantine. ``now`` None: every final counts as confirmed (``ledger.build``).
    ``category``: in an event of several, the one ``tournament`` is (only its lots count:
    group names repeat across categories). A plain tournament file is read with the
    office's schedule changes (``effective_event``)."""
    if category is None:
        (only,) = effective_event(Event.single(tournament), store).categories
        tournament = only.tournament
    corrections, draws = corrections_and_draws(store)
    excluded = excluded_events(store)
    events = [Received(e, e.received) for e in store.events() if e.event_id not in excluded]
    if category is not None:
        draws = [d for d in draws if d.category == category]
    return build(tournament, events, corrections, draws, now,
                 reviews=alerts.reviews_of(store.admin_actions()),
                 green_cards=green_cards(store))


def category_draws(event: Event, category: str, draws: list[Draw]) -> list[Draw]:
    """The lots drawn for one category's groups: group names repeat across categories, so a
    draw names its category; in a one-category event every draw is its own."""
    if len(event.categories) == 1:
        return draws
    return [d for d in draws if d.category == category]


def excluded_events(store: Store) -> set[str]:
    """The event ids set aside from folding: quarantined or discarded, not released."""
    return {eid for eid, q in store.quarantine_status().items() if q.action != RELEASED}


class ScheduleIndex:
    """The event's schedule as the intake checks read it (``intake.Schedule``), by match id:
    ``Event.match`` and ``Event.halls`` walk the whole schedule, once per message."""

    def __init__(self, event: Event) -> None:
        self.id = event.id
        self._matches = {m.id: m for _, m in event.schedule()}
        self._halls = event.halls()

    def match(self, match_id: str) -> ScheduledMatch | None:
        return self._matches.get(match_id)

    def halls(self) -> tuple[str, ...]:
        return self._halls


def _event_id(item: Received) -> str:
    ev = item.event
    return str(getattr(ev, "event_id", f"{ev.match}:{ev.seq}"))


class OfficeService:
    # What ``_index_schedule`` keeps of the schedule in force.
    _schedule: ScheduleIndex
    _folds: dict[str, LedgerFold]
    _touched: set[str] | None
    _hall_of: dict[str, str]
    _next_teams: dict[str, frozenset[str]]
    _incremental: bool
    _page: PageCache
    _page_changed: dict[str, set[str]] | None

    def __init__(
        self,
        tournament: Tournament | Event,
        store: Store,
        peer: Peer | None,
        board: SnapshotBoard | None = None,
        *,
        wall: Callable[[], datetime] = datetime.now,
        monotonic: Callable[[], float] = time.monotonic,
        public_url: str | None = None,
    ) -> None:
        # One ledger per category, each folded as a tournament of its own; a plain tournament
        # file is a one-category event (arena.tournament.event). That is the file it started with;
        # what it serves has the office's schedule changes (a restart keeps them: they are
        # rows of the store, office.schedule).
        self.base = tournament if isinstance(tournament, Event) else Event.single(tournament)
        steps = schedule_steps(store)
        self._schedule_rows = tuple(step.id for step in steps)
        self.event = schedule.replay(self.base, steps, event_from_files)
        event = self.event
        self.store = store
        self.peer = peer
        # The public site's address phones reach (``office serve --public-url``), told to
        # every hall in its `next` (wire.Nx.PUBLIC_URL). Refused here, where it enters, so a
        # hall never has to ignore the office's own mistake.
        self.public_url = None if public_url is None else wire.check_public_url(public_url)
        self.board = board
        self.wall = wall
        self.monotonic = monotonic
        self.halls: dict[str, HallLive] = {h: HallLive() for h in event.halls()}
        # The stored events of the schedule's matches, folded by match as they arrive: what
        # the ledger reads of them and no more (ledger.MatchDigest: the memory grows with
        # the matches, not with their events).
        self._events = {m.id: MatchDigest() for _, m in event.schedule()}
        self._index_schedule(event)
        self.refusals = faults.RefusalCounts()
        self.store_error: str | None = None  # the store's last failure, shown on the page
        # Quarantine: stored events the office will not fold (docs/office.md, "The office's
        # faults").
        self._quarantine = store.quarantine_status()
        # The checks run on every event before it is stored; at start only on the rows
        # stored since the last start (or by another version of the checks).
        self._checked_upto = store.checked_upto(faults.checks_version())
        self._load_all()
        # What the store holds of each match's events, and the matches each hall sent: its
        # `acks` are published for every hall of the schedule from the start, an empty word
        # included (a hall whose events this store lacks, restored from an older copy, must
        # hear so and send them again). A match's mark counts its seqs whichever hall sent
        # them: a replay played in another hall numbers on above the first hall's events
        # (wire.Nx.REPLAY), and its hall must hear them stored too.
        self._stored: dict[str, Gapless] = {}
        self._sent: dict[str, set[str]] = {h: set() for h in event.halls()}
        for hall, match, seq in store.iter_stored_seqs():
            self._stored.setdefault(match, Gapless()).add(seq)
            self._sent.setdefault(hall, set()).add(match)
        self._cache = MatchCache()
        self._published: dict[str, bytes] = {}  # topic -> retained payload last sent
        self._sent_tables: dict[tuple[str, str], GroupTable] = {}  # (category, group)
        self._data_version = -1
        # Only this process adds alerts; the office's actions are re-read when another
        # process has written to the store (refresh_if_needed), not on every refresh.
        self._alerts = [AlertView(a.at, a.text, a.id, a.match) for a in store.alerts()]
        self._admin = corrections_and_draws(store)
        self._read_reviews()
        self._green = green_cards(store)
        self._dirty = True
        self._view_dirty = False
        self._view_at = float("-inf")  # monotonic time the snapshot was last rebuilt
        self.ledgers: dict[str, Ledger] | None = None  # by category name
        self._conflicts = store.conflicts()
        self._fold_error = ""
        for hall in self._sent:
            self._publish_acks(hall)

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

    # -- input -------------------------------------------------------------------------

    def handle(self, message: Any) -> None:
        """One message from the broker. Garbage is logged and dropped (and acknowledged, or
        the broker would hand it over again for ever); nothing stored is touched."""
        topic: str = message.topic
        kind = intake.classify(topic, self._schedule)
        try:
            if kind is None:
                raise intake.Refusal(topic, "not a topic the office reads")
            hall, what = kind
            if what == "events":
                ev = intake.check_event(topic, message.payload, self._schedule, self._top)
                received = self.wall()
                try:
                    if self.store.add_event(ev, received):  # committed when it returns
                        self._keep(Received(ev, received))
                        self._dirty = True
                        gapless = self._stored.setdefault(ev.match, Gapless())
                        self._sent.setdefault(ev.hall, set()).add(ev.match)
                        if gapless.add(ev.seq):
                            # Every hall that sent the match hears it (two only when a
                            # replay was played in another hall).
                            for sender, matches in self._sent.items():
                                if ev.match in matches:
                                    self._publish_acks(sender)
                        elif ev.seq > gapless.upto + 1:
                            # Stored above a gap: the hall's word would not change, and
                            # without a word the hall does not know one event is missing.
                            self._publish_acks(ev.hall, nudge=(ev.match, gapless.upto))
                    else:
                        self._duplicate(ev, received)
                except sqlite3.Error as err:
                    # Not stored, so not acknowledged: the broker hands it over again.
                    self._store_failed(f"cannot store {ev.event_id}", err)
                    return
            elif what == "state":
                hall, doc = intake.check_state(topic, message.payload, self._schedule)
                old = self.halls.get(hall, HallLive())
                self.halls[hall] = HallLive(old.online, doc)
                self._view_dirty = True
            elif what == "status":
                hall, online = intake.check_status(topic, message.payload, self._schedule)
                old = self.halls.get(hall, HallLive())
                self.halls[hall] = HallLive(online, old.state)
                self._view_dirty = True
        except intake.Refusal as err:
            counted = self.refusals.count(kind[1] if kind else "topic", err.reason)
            log.warning("refused %s [%s]", err, counted)
            self._view_dirty = True
        if self.peer is not None:
            self.peer.ack(message)

    def _keep(self, item: Received) -> None:
        digest = self._events.get(item.event.match)
        if digest is None or item.event.seq in digest.seqs:
            return
        try:
            digest.add(item)  # changes nothing when it raises
            if self._touched is not None:
                self._touched.add(item.event.match)
        except Exception as err:  # a bug the checks let through: the event, not the office
            log.exception("folding %s failed", _event_id(item))
            self._set_aside(_event_id(item), f"the ledger fails on it: "
                                             f"{type(err).__name__}: {err}"[:500])

    def _top(self, match: str) -> int:
        """The highest seq stored of a match (0: none yet)."""
        digest = self._events.get(match)
        return digest.top if digest is not None else 0

    # -- quarantine, conflicts and store faults ---------------------------------------

    def _load_all(self) -> None:
        """Every stored event into the fold; then remember how far they were checked."""
        last = 0
        for e in self.store.iter_events():
            self._load(e)
            last = max(last, e.row)
        if last > self._checked_upto:
            try:
                self.store.set_checked_upto(faults.checks_version(), last)
                self._checked_upto = last
            except sqlite3.Error as err:  # a read-only store: checked again next time
                log.warning("store: cannot note how far the events were checked: %s", err)

    def _load(self, e: StoredEvent) -> None:
        """A stored event into the fold, unless it is in quarantine or fails the checks."""
        item = self._admit(e)
        if item is not None:
            self._keep(item)

    def _admit(self, e: StoredEvent) -> Received | None:
        """The stored event as the fold reads it; None if it is in quarantine, or fails the
        checks (it is put there then)."""
        status = self._quarantine.get(e.event_id)
        if status is not None and status.action in (QUARANTINED, DISCARDED):
            return None
        if e.seq > intake.MAX_SEQ:  # cheap, and never released into the fold
            reason: str | None = f"'seq' must be at most {intake.MAX_SEQ}, got {e.seq}"
        elif 0 < e.row <= self._checked_upto:
            reason = None  # passed these very checks at an earlier start
        else:
            reason = faults.poison_reason(self.event, e)
        if reason is not None and (status is None or e.seq > intake.MAX_SEQ):
            self._set_aside(e.event_id, f"fails the checks: {reason}")
            return None
        return Received(e, e.received)

    def _set_aside(self, event_id: str, reason: str) -> None:
        now = self.wall()
        log.error("quarantined %s: %s", event_id, reason)
        try:
            entry_id = self.store.quarantine(event_id, QUARANTINED, reason, now)
        except sqlite3.Error as err:
            self._store_failed(f"cannot record the quarantine of {event_id}", err)
            entry_id = -1
        self._quarantine[event_id] = QuarantineEntry(entry_id, event_id, QUARANTINED, reason, now)
        self._view_dirty = True

    def _duplicate(self, ev: intake.HallEvent, received: datetime) -> None:
        """An event_id already stored: the same event again is ignored; different content is
        a conflict, kept and flagged (the first stored stays the truth)."""
        stored = self.store.event(ev.event_id)
        if stored is None or event_content(stored) == event_content(ev):
            return
        if self.store.add_conflict(ev, received):
            text = (f"{ev.event_id}: {ev.hall} sent other content for an event already "
                    f"stored; the first is kept, the other is in the conflicts")
            log.warning("%s", text)
            alert_id = self.store.add_alert(text, received)
            self._alerts.append(AlertView(received, text, alert_id))
            self._conflicts = self.store.conflicts()
            self._view_dirty = True

    def _store_failed(self, what: str, err: sqlite3.Error) -> None:
        self.store_error = f"{what}: {err} (the store at {self.store.path.name})"
        log.error("store: %s", self.store_error)
        self._view_dirty = True

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
            # The address the halls' QR codes show (``--public-url``): the office hands it out.
            "public_url": self.public_url,
        }

    def pump(self, timeout: float = 0.2) -> int:
        """Take what the broker sent (waiting up to ``timeout``), then refresh if needed."""
        n = 0
        if self.peer is not None:
            for message in self.peer.poll(timeout):
                self.handle(message)
                n += 1
        self.refresh_if_needed()
        return n

    # -- output ------------------------------------------------------------------------

    def refresh_if_needed(self) -> None:
        version = self.store.data_version()
        if version != self._data_version:
            # Another process wrote (`office correct`, `office draw-lots`): read its actions.
            self._data_version = version
            self._admin = corrections_and_draws(self.store)
            self._read_reviews()
            self._reschedule_if_changed()
            self._green = green_cards(self.store)
            self._reload_quarantine()
            self._conflicts = self.store.conflicts()
            self._dirty = True
        ledgers = self.ledgers
        now = self.wall()
        if ledgers is not None and any(
                lg.next_change is not None and now >= lg.next_change for lg in ledgers.values()):
            self._dirty = True
        if self._dirty:
            self.refresh_all(now)
        elif self._view_dirty and self.monotonic() - self._view_at >= VIEW_S \
                and self.ledgers is not None:
            self._show(self.ledgers, now)

    def refresh(self, now: datetime | None = None) -> Ledger:
        """``refresh_all`` for a one-category event: its ledger."""
        self.refresh_all(now)
        ledger = self.ledger
        assert ledger is not None
        return ledger

    def refresh_all(self, now: datetime | None = None) -> dict[str, Ledger]:
        """Fold every category again and publish what changed; the ledgers by category."""
        now = now or self.wall()
        self._dirty = False
        ledgers = self._fold(now)
        several = len(ledgers) > 1
        previous = self.ledgers
        for name, ledger in ledgers.items():
            before = previous.get(name) if previous is not None else None
            if before is None or before.pairings is ledger.pairings:
                continue
            prefix = f"{name}: " if several else ""
            played = alerts.played_changes(before, ledger)
            for match, change in bracket.changed(before.pairings, ledger.pairings):
                if all(match != m for m, _ in played):
                    self._alert(f"bracket re-filled: {prefix}{change}", now)
            for match, change in played:
                # Stays open until the office resolves the match (docs/office.md, "Held matches,
                # needs review and alerts").
                self._alert(prefix + change, now, match=match)
        self.ledgers = ledgers
        self._publish(ledgers, previous)
        self._show(ledgers, now)
        return ledgers

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

    def _build(self, by_match: dict[str, MatchDigest], now: datetime) -> dict[str, Ledger]:
        """Each category's ledger from the events folded by match (ids are unique across
        the event, so every category reads its own matches off the one map)."""
        corrections, draws = self._admin
        return {c.name: build_from(c.tournament, by_match, corrections,
                                   category_draws(self.event, c.name, draws), now,
                                   cache=self._cache, reviews=self._reviews,
                                   green_cards=self._green)
                for c in self.event.categories}

    def _fold(self, now: datetime) -> dict[str, Ledger]:
        """The ledger; should folding ever fail on a stored event, that event is found (one
        match, then one event at a time) and quarantined, and the rest is folded."""
        corrections, draws = self._admin
        touched, self._touched = self._touched, set()
        try:
            ledgers = {c.name: self._folds[c.name].build(
                           self._events, corrections, category_draws(self.event, c.name, draws),
                           now, touched=touched, reviews=self._reviews,
                           green_cards=self._green)
                       for c in self.event.categories}
            self._incremental = True
            if self._page_changed is not None:
                for name, fold in self._folds.items():
                    self._page_changed.setdefault(name, set()).update(fold.changed)
            return ledgers
        except Exception:
            log.exception("folding the ledger failed: looking for the event it failed on")
        # What the folds kept is half updated: they read everything again next time.
        for fold in self._folds.values():
            fold.reset()
        self._incremental = False
        self._page_changed = None
        trial = {mid: MatchDigest() for mid in self._events}

        def folds() -> bool:
            try:
                self._build(trial, now)
            except Exception as err:
                self._fold_error = f"{type(err).__name__}: {err}"
                return False
            return True

        for mid, digest in self._events.items():
            trial[mid] = digest
            self._cache.forget(mid)
            if folds():
                continue
            # The digest keeps too little to find the one event: read the match's events
            # again from the store and fold them in one at a time.
            kept = MatchDigest()
            for stored in self.store.events(mid):
                item = self._admit(stored)
                if item is None:
                    continue
                candidate = kept.copy()
                candidate.add(item)
                trial[mid] = candidate
                self._cache.forget(mid)
                if folds():
                    kept = candidate
                else:
                    self._set_aside(stored.event_id,
                                    f"the ledger fails on it: {self._fold_error}"[:500])
            trial[mid] = kept
            self._cache.forget(mid)
        self._events = trial
        return self._build(self._events, now)

    def _reschedule_if_changed(self) -> None:
        """Another process changed the schedule (``office reschedule``, ``office reload``):
        the schedule in force again, swapped in one step; what is stored is untouched."""
        steps = schedule_steps(self.store)
        rows = tuple(step.id for step in steps)
        if rows == self._schedule_rows:
            return
        seen = set(self._schedule_rows)
        self._schedule_rows = rows
        self._swap(schedule.replay(self.base, steps, event_from_files),
                   [step for step in steps if step.id not in seen])

    def _swap(self, new: Event, steps: list[schedule.Step]) -> None:
        old, now = self.event, self.wall()
        self.event = new
        for hall in old.halls():
            if hall not in new.halls():  # nothing left to play there
                self._retain(wire.hall_topic(new.id, hall, wire.NEXT), b"")
        for hall in new.halls():
            self.halls.setdefault(hall, HallLive())
            if hall not in self._sent:
                self._sent[hall] = set()
                self._publish_acks(hall)
        events = {m.id: self._events.get(m.id) or MatchDigest() for _, m in new.schedule()}
        added = [mid for mid in events if mid not in self._events]
        self._events = events
        for mid in added:  # a match back in the schedule: what is stored of it counts again
            for stored in self.store.events(mid):
                self._load(stored)
        self._cache = MatchCache()  # the views hold each match's schedule entry
        self._index_schedule(new)
        for step in steps:
            text = schedule.describe(step)
            log.warning("%s", text)
            try:
                self.store.add_alert(text, now)
            except sqlite3.Error as err:
                self._store_failed("cannot store an alert", err)
            self._alerts.append(AlertView(now, text))
        self._dirty = True

    def _index_schedule(self, event: Event) -> None:
        """What is kept of the schedule in force, made again when it is swapped: the
        intake's index, the folds and the page's parts (each folds from scratch next)."""
        self._schedule = ScheduleIndex(event)
        # Each category's ledger is folded again touching only what changed (office.views.fold);
        # ``_touched`` are the matches with events since the last fold (None: look at all).
        self._folds = {c.name: LedgerFold(c.tournament) for c in event.categories}
        self._touched = None
        self._hall_of = {m.id: m.hall for _, m in event.schedule()}
        self._next_teams = {}  # hall -> the teams of its next
        self._incremental = False  # the last fold was the folds' (else from scratch)
        # The page's snapshot, made again from what changed; by category the matches whose
        # view changed since it was last made (None: not known, look at every match).
        self._page = PageCache(event)
        self._page_changed = None

    def _reload_quarantine(self) -> None:
        """Another process released or discarded an event: fold the stored events again."""
        status = self.store.quarantine_status()
        if status == self._quarantine:
            return
        self._quarantine = status
        self._events = {m.id: MatchDigest() for _, m in self.event.schedule()}
        self._cache = MatchCache()
        self._touched = None  # every digest is a new one
        self._load_all()

    def _show(self, ledgers: dict[str, Ledger], now: datetime) -> None:
        self._view_dirty = False
        self._view_at = self.monotonic()
        if self.board is not None:
            self.board.publish(self._page.build(ledgers, self.halls, self._alerts, now,
                                                office=self.office_document(),
                                                handled=self._handled,
                                                changed=self._page_changed))
            self._page_changed = {}

    def _publish(self, ledgers: dict[str, Ledger], previous: dict[str, Ledger] | None) -> None:
        """The retained documents that may have changed since ``previous``: a table the
        fold kept is the very object it published, and a hall's next changes only with
        its own matches, the bracket or the bans."""
        for category in self.event.categories:
            ledger = ledgers[category.name]
            groups: Iterable[str] = self._folds[category.name].changed_tables \
                if self._incremental and previous is not None \
                else [g.name for g in category.tournament.groups]
            for group in groups:
                table = ledger.tables[group]
                key = (category.name, group)
                if self._sent_tables.get(key) is table:
                    continue
                topic, standings = merge.group_standings(self.event, category, ledger, group)
                self._retain(topic, wire.build_standings(standings))
                self._sent_tables[key] = table
        for hall in self._halls_to_tell(ledgers, previous):
            # A shared hall's next is its earliest match across the categories.
            upcoming = merge.next_match(self.event, ledgers, hall)
            self._next_teams[hall] = frozenset() if upcoming is None \
                else frozenset((upcoming.home.name, upcoming.away.name))
            if upcoming is not None and self.public_url is not None:
                upcoming = dataclasses.replace(upcoming, public_url=self.public_url)
            self._retain(wire.hall_topic(self.event.id, hall, wire.NEXT),
                         b"" if upcoming is None else wire.build_next(upcoming))

    def _halls_to_tell(self, ledgers: dict[str, Ledger], previous: dict[str, Ledger] | None
                       ) -> tuple[str, ...]:
        """The halls whose ``next`` may have changed: those of the matches whose view the
        folds changed and those whose next teams' bans changed; every hall when anything
        else of a ledger but its tables, warnings and window moved (the bracket) or it was
        folded from scratch."""
        every = self._schedule.halls()  # Event.halls sorts the whole schedule
        if previous is None or not self._incremental:
            return every
        halls: set[str] = set()
        banned: set[str] = set()  # the teams whose bans changed
        for name, ledger in ledgers.items():
            before = previous.get(name)
            if before is None or any(getattr(before, f) is not getattr(ledger, f)
                                     for f in _NEXT_READS):
                return every
            if before.suspensions is not ledger.suspensions:
                banned.update(s.team for s in set(before.suspensions) ^ set(ledger.suspensions))
            if before.matches is not ledger.matches:
                halls.update(self._hall_of[mid] for mid in self._folds[name].changed)
            if before.voided is not ledger.voided:  # a voided match is no hall's next
                halls.update(self._hall_of[mid] for mid in before.voided ^ ledger.voided)
        if banned:  # a next lists the bans of its own two teams only
            halls.update(h for h, teams in self._next_teams.items() if not teams.isdisjoint(banned))
        return tuple(h for h in every if h in halls)

    def _publish_acks(self, hall: str, *, nudge: tuple[str, int] | None = None) -> None:
        """The hall's retained ``acks``: only after the SQLite commit of what it says.

        ``nudge`` (match, gapless mark): an event of that match was stored above a gap, so
        the word is sent again even though unchanged (at most every ``NUDGE_S`` per hall):
        a repeated word is what makes the hall re-send from the mark (docs/developer.md, "MQTT to
        the office"), and the broker forwards a retained PUBLISH to its subscribers even when
        its payload is the one it holds.
        """
        topic = wire.hall_topic(self.event.id, hall, wire.ACKS)
        if nudge is not None:
            now = self.monotonic()
            if now - self._nudged.get(hall, float("-inf")) < NUDGE_S:
                return
            self._nudged[hall] = now
            log.info("%s: events of %s stored above a gap (seq %d missing): repeating its "
                     "acks so that it re-sends", hall, nudge[0], nudge[1] + 1)
            self._published.pop(topic, None)  # past _retain's de-duplication
        marks = {m: self._stored[m].upto for m in sorted(self._sent.get(hall, ()))}
        self._retain(topic, wire.build_acks({m: n for m, n in marks.items() if n > 0}))

    @functools.cached_property
    def _nudged(self) -> dict[str, float]:
        """Hall -> monotonic instant of its last repeated ``acks`` (made on first use)."""
        return {}

    def _retain(self, topic: str, payload: bytes) -> None:
        """Publish a retained document unless it is what was sent last (b"": clear it)."""
        if self._published.get(topic) == payload:
            return
        if self.peer is not None:
            self.peer.publish_retained(topic, payload)
        self._published[topic] = payload
