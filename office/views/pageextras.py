"""The lists of one category's page that the office rules and reviews, kept between ledgers
and made again only for what changed: the results waiting for the office, the
held matches, the placings, the top scorers, the green cards and the eliminations.

Made whole (``snapshot``'s way) they read every match of the category on every result: at
3,000 matches the scorers alone are tens of milliseconds. Each list here reads only what
it depends on:

- ``review``: the views of the matches that changed (a result needs review or not by its
  own view only), kept in schedule order;
- ``held``: a hall's next reads its own matches and the bracket's pairings, so only the
  halls of the changed matches are looked at again, every hall when the pairings moved;
- ``placings``: the bracket's matches and pairings, the eliminations (and a one-group
  tournament's table): made again when one of those has another revision
  (``office.views.revision``: the fold keeps the revision of what it did not change);
- ``scorers``: counted again only for the changed matches (``scorers.ScorerTally``), kept
  as a standing (``self.scorers``) whose entries are made when the page is read, not here
  (one goal moves the rank of every scorer below it);
- ``green_cards``, ``eliminated``: short, made again when the ledger's own tuple changed.

A list unchanged is the very object handed out before (a web reader may still be encoding
it: a list once handed out is never written to), under the same revision
(``self.revisions``, by list: what is kept of a list elsewhere is told by it). The lists
equal ``snapshot``'s for the same ledger (tests/office/test_page_cache.py,
tests/office/test_page_extras.py).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from arena.tournament.model import Tournament
from office.rules import rulings
from office.views import snapshot
from office.views.ledger import Ledger
from office.views.placings import placings
from office.views.revision import stamp
from office.views.scorers import ScorerStanding, ScorerTally

Doc = dict[str, Any]


class CategoryExtras:
    """The review, held and rulings lists of one category's page."""

    def __init__(self, tournament: Tournament) -> None:
        t = tournament
        self.tournament = t
        self._position = {m.id: i for i, m in enumerate(t.matches)}
        self._halls = t.halls()
        self._decided = tuple(m.id for m in t.matches if m.stage.decided)
        # A tournament without playoff matches is placed by its one group's table.
        self._placed_by = t.groups[0].name if not self._decided and len(t.groups) == 1 \
            else None
        self._seen: Ledger | None = None
        self._review: dict[str, Doc] = {}  # match -> its entry, while it waits for the office
        self._held: dict[str, Doc | None] = {}  # hall -> its held next's entry
        self._placings_read: tuple[int, ...] = ()  # the revisions the placings were made of
        self._scorers = ScorerTally()
        self.scorers: ScorerStanding | None = None  # the last update's
        self.lists: dict[str, list[Doc]] = {}
        self.revisions: dict[str, int] = {}  # list -> its revision (a new list, a new one)

    def update(self, ledger: Ledger, changed: Collection[str] | None) -> dict[str, list[Doc]]:
        """The lists for ``ledger`` but the scorers (those are ``self.scorers`` after it);
        ``changed``: the matches whose view changed since the last call (None: not known:
        everything is read)."""
        before = self._seen
        if before is None:
            changed = None
        elif changed is not None and before.voided != ledger.voided:
            # A match voided or no longer (rules 001 'Waiting period') counts no goals and
            # is no hall's next: read again as a changed match.
            changed = {*changed, *(before.voided ^ ledger.voided)}
        self._seen = ledger
        lists = dict(self.lists)
        self._update_review(ledger, changed, lists)
        self._update_held(ledger, before, changed, lists)
        r = ledger.revisions
        reads = (r.part("tournament"), r.part("eliminations"),
                 *(r.match(mid) for mid in self._decided),
                 *(r.pairing(mid) for mid in self._decided),
                 r.table(self._placed_by) if self._placed_by is not None else 0)
        if reads != self._placings_read:
            self._placings_read = reads
            lists["placings"] = [p.to_json() for p in placings(ledger)]
        self.scorers = self._scorers.count(ledger, changed)
        if before is None or before.revisions.part("green_cards") != r.part("green_cards"):
            lists["green_cards"] = [{"match": g.match, "team": g.team, "player": g.player,
                                     "name": g.name, "reason": g.reason}
                                    for g in ledger.green_cards]
        if before is None or before.revisions.part("eliminations") != r.part("eliminations"):
            lists["eliminated"] = [{"team": e.team, "forfeits": list(e.forfeits),
                                    "voided": list(e.voided), "rule": rulings.WAITING_PERIOD}
                                   for e in ledger.eliminations]
        for key, items in lists.items():
            if self.lists.get(key) is not items:  # a list made in this call
                self.revisions[key] = stamp()
        self.lists = lists
        return lists

    def _update_review(self, ledger: Ledger, changed: Collection[str] | None,
                       lists: dict[str, list[Doc]]) -> None:
        if changed is None:
            self._review = {mid: snapshot._review(v) for mid, v in ledger.matches.items()
                            if v.review is not None}
        else:
            moved = False
            for mid in changed:
                view = ledger.matches[mid]
                if view.review is None:
                    moved |= self._review.pop(mid, None) is not None
                else:
                    doc = snapshot._review(view)
                    if doc != self._review.get(mid):
                        self._review[mid] = doc
                        moved = True
            if not moved and "review" in lists:
                return
        position = self._position
        lists["review"] = [self._review[mid]
                           for mid in sorted(self._review, key=position.__getitem__)]

    def _update_held(self, ledger: Ledger, before: Ledger | None,
                     changed: Collection[str] | None, lists: dict[str, list[Doc]]) -> None:
        if changed is None or before is None \
                or before.revisions.part("pairings") != ledger.revisions.part("pairings"):
            halls: Collection[str] = self._halls
        else:
            halls = {ledger.matches[mid].scheduled.hall for mid in changed}
            if not halls and "held" in lists:
                return
        moved = False
        for hall in halls:
            m = ledger.next_for_hall(hall)
            waiting = ledger.held(m) if m is not None else ()
            doc = {"match": m.id, "hall": m.hall, "waiting_for": list(waiting)} \
                if m is not None and waiting else None
            if doc != self._held.get(hall):
                self._held[hall] = doc
                moved = True
        if moved or "held" not in lists:
            lists["held"] = [doc for hall in self._halls
                             if (doc := self._held.get(hall)) is not None]
