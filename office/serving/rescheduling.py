"""The office's schedule changes (``office reschedule``, ``office reload``) made by another
process: the schedule in force again, swapped in one step, and everything kept of the old
one made again."""

from __future__ import annotations

import logging
import sqlite3
from datetime import datetime

from arena import wire
from arena.tournament.event import Event
from office import schedule
from office.inforce import ScheduleIndex, replayed, schedule_steps
from office.serving.intake import Intake
from office.views.fold import LedgerFold
from office.views.ledger import MatchCache, MatchDigest
from office.views.pagecache import PageCache
from office.views.snapshot import AlertView, HallLive

log = logging.getLogger("office")


class Rescheduling(Intake):
    """The schedule in force, and what is kept of it."""

    def _reschedule_if_changed(self) -> None:
        """Another process changed the schedule (``office reschedule``, ``office reload``):
        the schedule in force again, swapped in one step; what is stored is untouched."""
        steps = schedule_steps(self.store)
        rows = tuple(step.id for step in steps)
        if rows == self._schedule_rows:
            return
        seen = set(self._schedule_rows)
        self._schedule_rows = rows
        self._swap(replayed(self.base, steps),
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
        self._keep_slugs(new)  # a newcomer's own address; the others' never change
        for step in steps:
            text = schedule.describe(step)
            log.warning("%s", text)
            try:
                self.store.add_alert(text, now)
            except sqlite3.Error as err:
                self._store_failed("cannot store an alert", err)
            self._alerts.append(AlertView(now, text))
        self._say_who_plays(old, new, now)
        # A hall refused a match another hall played may have it now: told at once, it
        # sends the events it held back (nothing is lost: they wait in its journal).
        for hall in self._claims.review(self._played_in):
            self._publish_acks(hall)
        self._dirty = True

    def _played_in(self, hall: str, match: str) -> str | None:
        """The hall whose events of ``match`` the office takes instead of ``hall``'s, in the
        schedule in force: None when it takes ``hall``'s (the match is its, or it plays
        it) or the match is no longer in the schedule."""
        scheduled = self._schedule.match(match)
        if scheduled is None:
            return None
        playing = self._playing.hall(match)
        if hall in (scheduled.hall, playing):
            return None
        return playing or scheduled.hall

    def _say_who_plays(self, old: Event, new: Event, now: datetime) -> None:
        """A match moved away from the hall that plays it (forced): its events are still
        taken from that hall (``intake.Playing``), and the office is told so."""
        before = {m.id: m.hall for _, m in old.schedule()}
        for _, m in new.schedule():
            playing = self._playing.hall(m.id)
            if before.get(m.id, m.hall) == m.hall or playing is None or playing == m.hall:
                continue
            digest = self._events.get(m.id)
            if digest is not None and digest.final is None:
                text = (f"{m.id} moved to {m.hall} while {playing} plays it: taking "
                        f"{playing}'s events")
            else:
                text = (f"{m.id} moved to {m.hall} after {playing} played it: {playing}'s "
                        f"events of it are still taken until {m.hall} plays it (a replay)")
            self._alert(text, now)

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
