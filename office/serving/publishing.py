"""The service's output: the retained ``standings/<group>``, each hall's retained ``next``
and ``acks`` (what the office has durably stored of its events: the hall's proof of
delivery, docs/developer.md, "MQTT to the office"), and the page's snapshot."""

from __future__ import annotations

import dataclasses
import functools
import logging
import sqlite3
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from arena import wire
from arena.tournament.event import Event
from office.serving.base import NUDGE_S, ServiceBase
from office.views import merge, slugs
from office.views.gapless import Gapless
from office.views.ledger import Ledger

log = logging.getLogger("office")


# What of a ledger a hall's ``next`` reads besides its own matches' views and the bans of
# its teams: every field but the tables, the warnings, the next window, the lots and the
# rulings' own lists (a forfeit's match is a changed view; a match voided or no longer
# tells its own hall: ``_halls_to_tell``). A field added later counts too.
_NEXT_READS = tuple(f.name for f in dataclasses.fields(Ledger)
                    if f.name not in ("matches", "tables", "warnings", "next_change", "draws",
                                      "suspensions", "voided", "forfeits", "eliminations",
                                      "green_cards", "revisions"))



class Publishing(ServiceBase):
    """What changed, told: to the broker (retained) and to the page's board."""

    _slug_doc: list[dict[str, Any]]  # the public pages' addresses (``_keep_slugs``)

    def _show(self, ledgers: dict[str, Ledger], now: datetime) -> None:
        self._view_dirty = False
        self._view_at = self.monotonic()
        if self.board is not None:
            doc = self._page.build(ledgers, self.halls, self._alerts, now,
                                   office=self.office_document(), handled=self._handled,
                                   changed=self._page_changed)
            doc["slugs"] = self._slug_doc  # the public pages' addresses, kept for good
            self.board.publish(doc)
            self._page_changed = {}

    def _keep_slugs(self, event: Event) -> None:
        """The public pages' addresses of the schedule in force: those published before as
        they were, a new team, hall or category its own, kept in the store before it is
        shown (``office.views.slugs``; a read-only store keeps nothing, and a later start
        makes the same ones again from the same rows)."""
        kept = {slugs.Named(kind, category, name): s
                for kind, category, name, s in self.store.slugs()}
        now = slugs.assign(slugs.of_event(event), kept)
        new = [(n.kind, n.category, n.name, s) for n, s in now.items() if n not in kept]
        if new and not self.store.read_only:
            try:
                self.store.add_slugs(new, self.wall())
            except sqlite3.Error as err:
                self._store_failed("cannot keep the public site's addresses", err)
        self._slug_doc = slugs.to_json(now)
        self._view_dirty = True

    def _publish(self, ledgers: dict[str, Ledger], previous: dict[str, Ledger] | None) -> None:
        """The retained documents that may have changed since ``previous``: a table the
        fold kept has the revision it was published at, and a hall's next changes only
        with its own matches, the bracket or the bans."""
        for category in self.event.categories:
            ledger = ledgers[category.name]
            groups: Iterable[str] = self._folds[category.name].changed_tables \
                if self._incremental and previous is not None \
                else [g.name for g in category.tournament.groups]
            for group in groups:
                revision = ledger.revisions.table(group)
                key = (category.name, group)
                if self._sent_tables.get(key) == revision:
                    continue
                topic, standings = merge.group_standings(self.event, category, ledger, group)
                self._retain(topic, wire.build_standings(standings))
                self._sent_tables[key] = revision
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
            if before is None:
                return every
            was, now = before.revisions, ledger.revisions
            if any(was.part(f) != now.part(f) for f in _NEXT_READS):
                return every
            if was.part("suspensions") != now.part("suspensions"):
                banned.update(s.team for s in set(before.suspensions) ^ set(ledger.suspensions))
            if was.part("matches") != now.part("matches"):
                halls.update(self._hall_of[mid] for mid in self._folds[name].changed)
            if was.part("voided") != now.part("voided"):  # a voided match is no hall's next
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
        marks = {m: self._mark(hall, m) for m in sorted(self._sent.get(hall, ()))}
        since = self.backlog.since
        # While the store fails, every hall hears since when (its timekeeper is told that
        # its results are kept and retried); once at the start and once at the end. The
        # matches it claims that another hall plays are named, with that hall.
        self._retain(topic, wire.build_acks(
            {m: n for m, n in marks.items() if n > 0},
            cannot_store_since=None if since is None else since.strftime("%Y-%m-%dT%H:%M:%S"),
            refused=self._claims.of(hall)))

    def _own_seqs(self, hall: str, match: str, first: int) -> Gapless:
        """The seqs of ``match`` stored from ``hall``, counted from ``first - 1`` when
        ``first`` is the first of them (made on first use)."""
        held = self._own.get((hall, match))
        if held is None:
            own = Gapless()
            own.upto = first - 1  # what lies below is another hall's (``_mark``)
            held = self._own[(hall, match)] = (first - 1, own)
        return held[1]

    def _mark(self, hall: str, match: str) -> int:
        """What ``hall`` hears stored of ``match``: the seqs with none missing below, its
        own from its first on. A replay played in another hall numbers above the first
        game (wire.Nx.REPLAY), and the seqs below are the first hall's: they count. A
        second hall that played the match from seq 1 too (two halls claimed it, and the
        office then gave it the match) hears only what it sent itself stored, so it sends
        every event: none is counted stored because the other hall's of the same seq is.
        (A hall's first event stored out of order, above a lost one, makes the mark count
        the other hall's seqs below it: a double fault left as it is.)"""
        every = self._stored[match].upto if match in self._stored else 0
        held = self._own.get((hall, match))
        if held is None or every < held[0]:
            return every
        return held[1].upto

    @functools.cached_property
    def _nudged(self) -> dict[str, float]:
        """Hall -> monotonic instant of its last repeated ``acks`` (made on first use)."""
        return {}
