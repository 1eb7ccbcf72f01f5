"""The service's input: the broker's messages (garbage refused with a log line naming the
topic and the reason), every hall event stored in SQLite before it is acknowledged (an
event the broker handed over is never lost to a crash of the office), what the store could
not take kept and retried until it does (``office.storage.backlog``), the stored events
read into the fold, and what is set aside (quarantine, conflicts, docs/office.md, "The office's
faults")."""

from __future__ import annotations

import logging
import sqlite3
from datetime import datetime
from typing import Any

from office.serving.publishing import Publishing
from office.storage import backlog, faults, intake
from office.storage.store import DISCARDED, QUARANTINED, QuarantineEntry, StoredEvent, event_content
from office.views.gapless import Gapless
from office.views.ledger import Received
from office.views.snapshot import AlertView, HallLive

log = logging.getLogger("office")


def _event_id(item: Received) -> str:
    ev = item.event
    return str(getattr(ev, "event_id", f"{ev.match}:{ev.seq}"))


class Intake(Publishing):
    """The broker's messages and the store's events, into the fold."""

    _touched: set[str] | None

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
                ev = intake.check_event(topic, message.payload, self._schedule, self._top,
                                        self._playing)
                received = self.wall()
                if self.backlog.failing:
                    # Behind what waits: a hall's events are stored in the order they came.
                    self._hold(ev, received, message)
                    return
                try:
                    self._store_event(ev, received)  # committed when it returns
                except sqlite3.Error as err:
                    # Not stored, so not acknowledged: kept, and retried with back-off.
                    self._store_failed(f"cannot store {ev.event_id}", err)
                    self._hold(ev, received, message)
                    self._cannot_store()
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
            if isinstance(err, intake.Claimed):
                self._claimed(err)
            self._view_dirty = True
        if self.peer is not None:
            self.peer.ack(message)

    def _store_event(self, ev: intake.HallEvent, received: datetime) -> None:
        """Store a checked event and fold it (a duplicate is ignored, or kept as a conflict);
        raises ``sqlite3.Error`` when the store cannot, and then nothing changed."""
        if self.store.add_event(ev, received):  # committed when it returns
            self._playing.add(ev.hall, ev.match, ev.seq)
            self._keep(Received(ev, received))
            self._dirty = True
            gapless = self._stored.setdefault(ev.match, Gapless())
            self._sent.setdefault(ev.hall, set()).add(ev.match)
            moved = gapless.add(ev.seq)
            self._own_seqs(ev.hall, ev.match, ev.seq).add(ev.seq)
            mark = self._mark(ev.hall, ev.match)
            if moved:
                # Every hall that sent the match hears it (two only when a
                # replay was played in another hall).
                for sender, matches in self._sent.items():
                    if ev.match in matches:
                        self._publish_acks(sender)
            if ev.seq > mark + 1:
                # Stored above a gap: the hall's word would not change, and
                # without a word the hall does not know one event is missing.
                self._publish_acks(ev.hall, nudge=(ev.match, mark))
            elif not moved:  # its own mark may have moved (``_mark``); unchanged: not sent
                self._publish_acks(ev.hall)
            if self._claims.lift(ev.hall, ev.match):  # taken now: no longer refused
                self._publish_acks(ev.hall)
        else:
            self._duplicate(ev, received)

    def _claimed(self, err: intake.Claimed) -> None:
        """Two halls claim one match: the one playing it keeps it, the other is told in its
        ``acks`` (and holds those events back), and the page says so once, not per event."""
        if not self._claims.claim(err.hall, err.match, err.played_in):
            return
        self._publish_acks(err.hall)
        text = (f"{err.match}: {err.hall} sends events of it, but {err.played_in} plays "
                f"it: the office takes {err.played_in}'s and tells {err.hall} (to give it the "
                f"match: office reschedule {err.match} --hall {err.hall} --force; its "
                f"events are then stored)")
        if any(a.text == text for a in self._alerts):
            log.info("%s (alerted before)", text)  # the same claim after a restart
            return
        self._alert(text, self.wall())

    def _hold(self, ev: intake.HallEvent, received: datetime, message: Any) -> None:
        """Keep an event the store could not take (not acknowledged: that waits until it
        is stored)."""
        if not self.backlog.keep(ev, received, message):
            log.error("store: %s not kept, %d events wait already: the broker hands it "
                      "over again on the next connect", ev.event_id, len(self.backlog))
        self._view_dirty = True

    def _cannot_store(self) -> None:
        """The store failed: retry after the back-off; the halls hear it with the first."""
        first = not self.backlog.failing
        self.backlog.failed(self.monotonic(), self.wall())
        if first:
            log.error("store: cannot store: the events are kept in memory and retried after "
                      "%.1f s, the wait doubling up to %.0f s; the halls are told",
                      backlog.FIRST_RETRY_S, backlog.MAX_RETRY_S)
            for hall in self._sent:
                self._publish_acks(hall)

    def retry_backlog(self) -> int:
        """Store what waits, when its retry is due; returns how many were stored.

        Each hall's oldest first, each acknowledged once stored (in the order it came);
        on a failure the rest waits for the next retry, the wait doubled."""
        if not self.backlog.due(self.monotonic()):
            return 0
        n = 0
        for hall in self.backlog.halls():
            while (w := self.backlog.head(hall)) is not None:
                try:
                    self._store_event(w.event, w.received)
                except sqlite3.Error as err:
                    self._store_failed(f"cannot store {w.event.event_id} ({len(self.backlog)} "
                                       f"waiting, try {self.backlog.failures + 1})", err)
                    self.backlog.failed(self.monotonic(), self.wall())
                    return n
                self.backlog.stored(hall)
                n += 1
                if self.peer is not None:
                    for message in w.messages:
                        self.peer.ack(message)
        since = self.backlog.since
        self.backlog.healed()
        log.warning("store: stores again (could not since %s): the %d events kept are stored",
                    since.isoformat(timespec="seconds") if since else "?", n)
        self.store_error = None
        self._view_dirty = True
        for hall in self._sent:
            self._publish_acks(hall)
        return n

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
        top = digest.top if digest is not None else 0
        return max(top, self.backlog.top(match)) if self.backlog.failing else top

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
