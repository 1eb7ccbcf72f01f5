"""The ledgers folded again after a change, and what the fold finds: the alerts of a
bracket re-filled or a played match changed, the stored event a fold fails on (found and
quarantined, the rest folded)."""

from __future__ import annotations

import logging
from datetime import datetime

from office.inforce import category_draws, corrections_and_draws, green_cards
from office.rules import bracket
from office.serving.base import VIEW_S
from office.serving.reporting import Reporting
from office.views import alerts
from office.views.ledger import Ledger, MatchCache, MatchDigest, build_from

log = logging.getLogger("office")


class Folding(Reporting):
    """The refresh: the office's actions read again when the store changed, the ledgers
    folded, what changed published."""

    def refresh_if_needed(self) -> None:
        version = self.store.data_version()
        if version != self._data_version:
            # Another process wrote (`office correct`, `office draw-lots`): read its actions.
            self._data_version = version
            self._admin = corrections_and_draws(self.store)
            self._read_reviews()
            self._reschedule_if_changed()
            self._ensure_links()  # a reload's new matches
            self._read_reports()  # a phone's or the office's form (office.storage.reports)
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
        self._apply_reports(now)
        ledgers = self._fold(now)
        several = len(ledgers) > 1
        previous = self.ledgers
        for name, ledger in ledgers.items():
            before = previous.get(name) if previous is not None else None
            if before is None \
                    or before.revisions.part("pairings") == ledger.revisions.part("pairings"):
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
