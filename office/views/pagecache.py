"""The page's snapshot kept between refreshes: ``snapshot.event_snapshot`` made again from
only what changed.

The service shows the page after every fold and, at most every ``VIEW_S``, after a hall's
state. Made from scratch that is one document per match, group, bracket match and ban of
the whole event: at 3,000 matches tens of milliseconds, every result. Here every part is
kept with what it was made from, and made again only when that changed: a list of the
previous snapshot is reused whole when nothing in it changed, and copied with only the
changed entries replaced otherwise (a web reader may still be encoding the old one, so a
list once handed out is never written to). What changed is told by the ledgers' revisions
(``office.views.revision``), never by the identity of a part: the matches' entries by the
fold's ``changed`` (the matches whose view it replaced) and the pairings' revisions (what
the page shows of a match reads its view and its pairing only), the tables', the
bracket's and the bans' by theirs.

What the office rules and reviews (the results waiting for it, the held matches, the
placings, the top scorers, the green cards, the eliminations) is kept by category and made
again only for the matches that changed (``office.views.pageextras``); the alerts' entries are
kept while no alert was added, none was handled and no warnings moved. A change of the
voided matches (a forfeit eliminating a team) makes every match's entry and every list
again (each entry says whether its match is voided; the scorers do not count it).

The scorers are kept as a standing of each category (``scorers.ScorerStanding``) and put in
the document as a ``board.Later``: their entries are made by the board's first reader of that
version, not here (one goal moves the rank of every scorer below it: thousands at 3,000
matches). The document, its ``Later`` parts made (``board.made``), equals
``event_snapshot``'s for the same input (tests/office/test_page_cache.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from arena.tournament.event import Category, Event
from arena.tournament.model import ScheduledMatch
from office.views import merge, snapshot
from office.views.alerts import Handled
from office.views.board import Later
from office.views.ledger import Ledger
from office.views.pageextras import CategoryExtras
from office.views.scorers import ScorerStanding
from office.views.snapshot import AlertView, HallLive

# The rulings' lists of the document, in its order (``snapshot._rulings``); the scorers'
# entries are made when the page is read (``board.Later``).
_RULINGS = ("placings", "scorers", "green_cards", "eliminated")


def _entries_of(standing: ScorerStanding | None) -> Callable[[], list[dict[str, Any]]]:
    return standing.entries if standing is not None else list


class PageCache:
    """The page's snapshot of one event, made again part by part."""

    def __init__(self, event: Event) -> None:
        self.event = event
        self._halls = event.halls()
        plain = event.plain
        every = [(c, m) for c in event.categories for m in c.tournament.matches]
        bracket = [(c, m) for c, m in every if m.group is None]
        if not plain:  # event_snapshot's order: by start (its ISO text), stable
            every.sort(key=lambda cm: str(snapshot._iso(cm[1].start)))
            bracket.sort(key=lambda cm: str(snapshot._iso(cm[1].start)))
        self._order = [(c.name, m.id) for c, m in every]
        self._position = {key: i for i, key in enumerate(self._order)}
        self._bracket_order = bracket
        self._seen: dict[str, Ledger] = {}  # category -> the ledger the parts were made of
        self._matches: list[dict[str, Any]] = []
        self._groups: dict[str, list[dict[str, Any]]] = {}
        self._group_position = {(c.name, g.name): i for c in event.categories
                                for i, g in enumerate(c.tournament.groups)}
        self._all_groups: list[dict[str, Any]] = []
        self._all_suspensions: list[dict[str, Any]] = []
        self._bracket: list[dict[str, Any]] = []
        self._suspensions: dict[str, list[dict[str, Any]]] = {}
        self._hall_next: dict[str, tuple[Category, ScheduledMatch] | None] = {}
        self._hall_docs: dict[str, tuple[HallLive, object, dict[str, Any]]] = {}
        self._lives: list[HallLive | None] = []
        self._hall_list: list[dict[str, Any]] = []
        # category -> its review, held and rulings lists; (list, category) -> the list
        # tagged with its category (an event of several)
        self._extras_of: dict[str, CategoryExtras] = {}
        self._alerts_read: tuple[object, ...] = ()  # what the alerts' entries were made of
        self._alerts_count = 0
        self._warned_at: tuple[int, ...] = ()  # the warnings' revisions, by category
        self._alert_list: list[dict[str, Any]] = []
        # (list, category) -> the list's revision and its entries tagged with the category
        self._tags: dict[tuple[str, str], tuple[int, list[dict[str, Any]]]] = {}
        # category -> its scorers' entries and those tagged with the category (``Later``)
        self._scorer_tags: dict[str, tuple[int, list[dict[str, Any]]]] = {}
        self._scorer_tags_lock = threading.Lock()

    def reset(self) -> None:
        """Make every part again next time."""
        self._seen = {}
        self._hall_next = {}

    def build(self, ledgers: Mapping[str, Ledger], halls: Mapping[str, HallLive],
              alerts: Sequence[AlertView], now: Any, *,
              office: Mapping[str, Any] | None = None,
              handled: Mapping[int, Handled] | None = None,
              changed: Mapping[str, set[str]] | None = None) -> dict[str, Any]:
        """``event_snapshot(event, ledgers, halls, alerts, now, office=office,
        handled=handled)``.

        ``changed``: by category, the matches whose view changed since the last build
        (None: not known, every match is looked at)."""
        event = self.event
        seen = self._seen
        if changed is None or any(c.name not in seen for c in event.categories):
            seen = {}
        else:
            # A match voided or no longer (rules 001 'Waiting period': a team eliminated or
            # a forfeit protested away) shows so, and its group's table and hall's next
            # move with it: its entries are made again as a changed match's.
            changed = dict(changed)  # the caller's sets are not written to
            for c in event.categories:
                moved = seen[c.name].voided ^ ledgers[c.name].voided
                if moved:
                    changed[c.name] = changed.get(c.name, set()) | moved
        moved_halls = self._update_matches(ledgers, seen, changed)
        groups = self._update_groups(ledgers, seen, changed)
        bracket = self._update_bracket(ledgers, seen)
        suspensions = self._update_suspensions(ledgers, seen)
        self._seen = dict(ledgers)
        hall_docs = self._update_halls(halls, ledgers, moved_halls if seen else None)
        extras = [(c.name, self._extras(c, ledgers[c.name], c.name not in seen, changed))
                  for c in event.categories]
        standings = [(c.name, self._extras_of[c.name].scorers) for c in event.categories]
        if event.plain:
            (only,) = event.categories
            t = only.tournament
            extra = extras[0][1]
            return {
                "review": extra["review"],
                "held": extra["held"],
                "office": dict(office or {}),
                "generated": snapshot._iso(now),
                "tournament": {"id": t.id, "name": t.name},
                "groups": groups,
                "matches": self._matches,
                "bracket": bracket,
                "suspensions": suspensions,
                **{key: extra[key] if key != "scorers"
                   else Later(_entries_of(standings[0][1])) for key in _RULINGS},
                "halls": hall_docs,
                "alerts": self._alerts(alerts, handled, ledgers),
            }

        def tagged(key: str) -> list[dict[str, Any]]:
            return self._tagged(key, extras)

        return {
            "office": dict(office or {}),
            "generated": snapshot._iso(now),
            "tournament": {"id": event.id, "name": event.name},
            "categories": [{"name": c.name, "title": c.title, "preset": c.tournament.preset,
                            "groups": [g.name for g in c.tournament.groups]}
                           for c in event.categories],
            "groups": groups,
            "matches": self._matches,
            "bracket": bracket,
            "suspensions": suspensions,
            "review": tagged("review"),
            "held": tagged("held"),
            **{key: tagged(key) if key != "scorers"
               else Later(partial(self._tagged_scorers, standings)) for key in _RULINGS},
            "halls": hall_docs,
            "alerts": self._alerts(alerts, handled, ledgers),
        }

    def _alerts(self, alerts: Sequence[AlertView], handled: Mapping[int, Handled] | None,
                ledgers: Mapping[str, Ledger]) -> list[dict[str, Any]]:
        """The alerts, newest first, then the ledgers' warnings (``snapshot``'s): kept while
        no alert was added, nothing was done about one and no warnings tuple moved (the
        service only ever appends to its alerts)."""
        # The service's own alerts (it only appends) and what it did about them, by
        # identity; the ledgers' warnings by revision.
        reads = (alerts, alerts[-1] if alerts else None, handled)
        warned_at = tuple(ledgers[c.name].revisions.part("warnings")
                          for c in self.event.categories)
        if len(alerts) == self._alerts_count and warned_at == self._warned_at \
                and all(a is b for a, b in zip(reads, self._alerts_read, strict=True)):
            return self._alert_list
        done = handled or {}
        several = not self.event.plain
        warned = [w for c in self.event.categories
                  for w in snapshot.warning_entries(ledgers[c.name],
                                                    f"{c.name}: " if several else "")]
        self._alerts_read, self._alerts_count, self._warned_at = reads, len(alerts), warned_at
        self._alert_list = [snapshot._alert(a, done) for a in reversed(alerts)] + warned
        return self._alert_list

    def _extras(self, category: Category, ledger: Ledger, full: bool,
                changed: Mapping[str, set[str]] | None) -> dict[str, list[dict[str, Any]]]:
        """The review, held and rulings entries of one category (``snapshot``'s), made
        again for what changed (``office.views.pageextras``)."""
        extras = self._extras_of.get(category.name)
        if extras is None:
            extras = self._extras_of[category.name] = CategoryExtras(category.tournament)
        return extras.update(ledger, None if full or changed is None
                             else changed.get(category.name, set()))

    def _tagged(self, key: str, extras: list[tuple[str, dict[str, list[dict[str, Any]]]]]
                ) -> list[dict[str, Any]]:
        """One of the lists across the categories, each entry naming its category; a
        category's tagged entries are kept while its list has the same revision."""
        out: list[dict[str, Any]] = []
        for name, lists in extras:
            items = lists[key]
            revision = self._extras_of[name].revisions[key]
            kept = self._tags.get((key, name))
            if kept is None or kept[0] != revision:
                kept = (revision, [{**item, "category": name} for item in items])
                self._tags[key, name] = kept
            out += kept[1]
        return out

    def _tagged_scorers(self, standings: list[tuple[str, ScorerStanding | None]]
                        ) -> list[dict[str, Any]]:
        """The scorers across the categories, each entry naming its category (made by a
        reader of the board, perhaps several at once on their threads: under a lock); a
        category's tagged entries are kept while its standing has the same revision."""
        out: list[dict[str, Any]] = []
        with self._scorer_tags_lock:
            for name, standing in standings:
                revision = standing.revision if standing is not None else 0
                kept = self._scorer_tags.get(name)
                if kept is None or kept[0] != revision:
                    items = standing.entries() if standing is not None else []
                    kept = (revision, [{**item, "category": name} for item in items])
                    self._scorer_tags[name] = kept
                out += kept[1]
        return out

    def _match_doc(self, category: str, ledger: Ledger, match: str) -> dict[str, Any]:
        doc = snapshot._match(ledger, ledger.matches[match])
        return doc if self.event.plain else {**doc, "category": category}

    def _update_matches(self, ledgers: Mapping[str, Ledger], seen: Mapping[str, Ledger],
                        changed: Mapping[str, set[str]] | None) -> set[str]:
        """The matches' entries; the halls whose matches changed."""
        updates: list[tuple[int, dict[str, Any]]] = []
        halls: set[str] = set()
        for c in self.event.categories:
            ledger, before = ledgers[c.name], seen.get(c.name)
            if before is None:
                ids: Sequence[str] | set[str] = list(ledger.matches)
            elif (was := before.revisions).part("pairings") \
                    == (now := ledger.revisions).part("pairings"):
                ids = (changed or {}).get(c.name, set())
                if was.part("matches") == now.part("matches") and not ids:
                    continue
            else:  # the bracket moved: a pairing the fold kept has the revision it had
                kept = was.pairings
                ids = (changed or {}).get(c.name, set()) | {
                    mid for mid, revision in now.pairings.items()
                    if kept.get(mid, was.stamp) != revision} \
                    if now.pairings else set(ledger.pairings)
            for mid in ids:
                updates.append((self._position[c.name, mid], self._match_doc(c.name, ledger,
                                                                             mid)))
                halls.add(ledger.matches[mid].scheduled.hall)
        if updates:
            matches = list(self._matches) if len(self._matches) == len(self._order) \
                else [{} for _ in self._order]
            for position, doc in updates:
                matches[position] = doc
            self._matches = matches
        return halls

    def _update_groups(self, ledgers: Mapping[str, Ledger], seen: Mapping[str, Ledger],
                       changed: Mapping[str, set[str]] | None) -> list[dict[str, Any]]:
        """The tables' entries: a table moves only with a result of its group or its lots."""
        moved = False
        for c in self.event.categories:
            ledger, before = ledgers[c.name], seen.get(c.name)
            if before is not None \
                    and before.revisions.part("tables") == ledger.revisions.part("tables"):
                continue
            kept = self._groups.get(c.name)
            if before is None or kept is None or changed is None \
                    or before.draws != ledger.draws:
                names: Iterable[str] = [g.name for g in c.tournament.groups]
                docs: list[dict[str, Any]] = [{} for _ in c.tournament.groups]
            else:
                # The groups of the changed matches, and any table with a new revision (an
                # elimination ranks its team's groups again without it).
                names = {g for mid in changed.get(c.name, ())
                         if (g := ledger.matches[mid].scheduled.group) is not None}
                was, now = before.revisions, ledger.revisions
                names.update(g for g in ledger.tables if was.table(g) != now.table(g))
                docs = list(kept)
            for name in names:
                table = ledger.tables[name]
                doc = table.to_json()
                docs[self._group_position[c.name, name]] = \
                    doc if self.event.plain else {**doc, "category": c.name}
            self._groups[c.name] = docs
            moved = True
        if moved or not self._all_groups:
            self._all_groups = [doc for c in self.event.categories
                                for doc in self._groups[c.name]]
        return self._all_groups

    def _update_bracket(self, ledgers: Mapping[str, Ledger], seen: Mapping[str, Ledger]
                        ) -> list[dict[str, Any]]:
        if seen and all(seen[c.name].revisions.part("pairings")
                        == ledgers[c.name].revisions.part("pairings")
                        for c in self.event.categories):
            return self._bracket
        plain = self.event.plain
        docs = []
        for c, m in self._bracket_order:
            p = ledgers[c.name].pairings[m.id]
            doc = {"match": m.id, "stage": m.stage.value, "home": p.home, "away": p.away,
                   "home_slot": m.home.text, "away_slot": m.away.text,
                   "provisional": p.provisional, "start": snapshot._iso(m.start),
                   "hall": m.hall}
            docs.append(doc if plain else {**doc, "category": c.name})
        self._bracket = docs
        return docs

    def _update_suspensions(self, ledgers: Mapping[str, Ledger], seen: Mapping[str, Ledger]
                            ) -> list[dict[str, Any]]:
        moved = False
        for c in self.event.categories:
            ledger, before = ledgers[c.name], seen.get(c.name)
            if before is not None and before.revisions.part("suspensions") \
                    == ledger.revisions.part("suspensions"):
                continue
            moved = True
            docs = []
            for s in ledger.suspensions:
                doc = {"team": s.team, "player": s.player, "name": s.name, "rule": s.rule,
                       "offences": s.offences, "offence_match": s.offence_match,
                       "banned": s.banned, "served": list(s.served),
                       "pending": list(s.pending), "waiting": s.waiting}
                docs.append(doc if self.event.plain else {**doc, "category": c.name})
            self._suspensions[c.name] = docs
        if moved:
            self._all_suspensions = [doc for c in self.event.categories
                                     for doc in self._suspensions[c.name]]
        return self._all_suspensions

    def _update_halls(self, halls: Mapping[str, HallLive], ledgers: Mapping[str, Ledger],
                      moved: set[str] | None) -> list[dict[str, Any]]:
        """The halls' entries; ``moved``: the halls whose matches changed (None: all)."""
        lives = [halls.get(name) for name in self._halls]
        if moved is not None and not moved and len(lives) == len(self._lives) \
                and all(a is b for a, b in zip(lives, self._lives, strict=True)):
            return self._hall_list
        self._lives = lives
        self._hall_list = [self._hall(name, live or HallLive(), ledgers,
                                      moved is None or name in moved)
                           for name, live in zip(self._halls, lives, strict=True)]
        return self._hall_list

    def _hall(self, name: str, live: HallLive, ledgers: Mapping[str, Ledger],
              moved: bool) -> dict[str, Any]:
        """A hall's entry; its next looked up again only when its matches changed (a hall's
        next reads the states of its own matches only)."""
        if moved or name not in self._hall_next:
            self._hall_next[name] = merge.next_for_hall(self.event, ledgers, name)
        found = self._hall_next[name]
        kept = self._hall_docs.get(name)
        if kept is not None and kept[0] is live and kept[1] == found:
            return kept[2]
        doc = snapshot._hall_doc(name, live, found[1].id if found is not None else None)
        if not self.event.plain:
            doc["next_category"] = found[0].name if found is not None else None
        self._hall_docs[name] = (live, found, doc)
        return doc
