"""The ledger folded again after each change, doing only what the change touches.

``ledger.build_from`` reads every match, ranks every group, fills the whole bracket and
counts every ban: right for one fold, but the service folds again after every event, and
at 3,000 matches that is tens of milliseconds a goal. ``LedgerFold`` keeps what it built
and, told which matches got events, redoes only

- the views of those matches, of the finals whose protest window closed and of the matches
  a new correction names;
- the tables of their groups (and of the groups whose lots changed);
- the bracket, only when an outcome or a table that feeds it changed;
- the bans of the teams whose penalties or matches changed (``discipline.team_bans``);
- the warnings and the next window to close, of those matches.

The office's own rulings are folded the same way. A change of the corrections (the
forfeits among them) or of the reviews takes again the matches whose correction or review
changed, as if they had got events: their views, their groups' tables, the bracket if they
or their tables feed it (a keep pins its bracket match, a swap credits the result), the
bans of the teams concerned. What the forfeits decide is read again from all of them
(``rulings.eliminations``: a few, cheap) and what moved touches only what reads it:

- a team eliminated or no longer (rules 001 'Waiting period'): its groups ranked again
  with or without it and without its voided matches, the warnings of the matches it is
  paired in, the bans of the teams playing a match voided or no longer (a voided match not
  played serves no ban); the bracket, as ever, only if one of those tables feeds it;
- an expulsion (rules 001 "Player's start") or its end: the bans of that player's team.

The green cards are taken again whenever they change. ``reset`` (the service's, after a
failed fold) forgets everything; the next build reads every match again.

Each ledger carries the revisions of its parts (``office.views.revision``): what this build
changed has a new one, the rest the previous ledger's, so what reads the ledgers (the
service's retained documents, the page cache) makes again what has a new revision. The
mappings handed out are read-only and never written to afterwards: a change makes a new
one. Its ledger equals ``build_from``'s for the same input, whatever the order of the
changes (tests/office/test_fold.py compares them after every step, and the revisions and
what was handed out with the previous ledger).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from arena.tournament.model import Draw, MatchOutcome, ResultState

# build_from's own helpers are called through its module (ledger._read_match...): one
# reading of a match for both folds, the same one a test replaces.
from office.rules import bracket, discipline, rulings
from office.views import ledger
from office.views.foldstate import FoldState
from office.views.ledger import (
    Correction,
    Ledger,
    MatchDigest,
    Review,
    ReviewAction,
    group_table,
)


def _drop(indices: list[int], index: int) -> None:
    at = bisect_left(indices, index)
    if at < len(indices) and indices[at] == index:
        del indices[at]


def _penalised(outcome: MatchOutcome | None) -> Iterable[str]:
    """The teams with a penalty in an outcome that counts for the bans."""
    if outcome is None or not outcome.state.has_result:
        return ()
    return dict.fromkeys(p.team for p in outcome.penalties)


def _playing(pairing: bracket.Pairing | None) -> Iterable[str]:
    if pairing is None:
        return ()
    return [t for t in dict.fromkeys((pairing.home, pairing.away)) if t is not None]


class LedgerFold(FoldState):
    """One tournament's ledger, kept and folded again after each change."""

    def build(self, by_match: Mapping[str, MatchDigest], corrections: Sequence[Correction] = (),
              draws: Sequence[Draw] = (), now: datetime | None = None, *,
              touched: Iterable[str] | None = None, reviews: Sequence[Review] = (),
              green_cards: Sequence[rulings.GreenCard] = ()) -> Ledger:
        """``ledger.build_from(tournament, by_match, corrections, draws, now,
        reviews=reviews, green_cards=green_cards)``.

        ``touched``: the matches whose digests may have changed since the last build (None:
        look at every one). A digest replaced by another object counts as changed too.
        """
        t = self.tournament
        matches = t.matches
        latest: dict[str, Correction] = {}
        for c in corrections:
            latest[c.match] = c
        latest_review = {r.match: r for r in reviews}
        cards = tuple(green_cards)
        if cards != self._cards_in:
            self._cards_in = cards
            self._cards = rulings.current_cards(t, cards)
        first = self._ledger is None
        ruled: set[str] = set()  # the matches whose correction or review changed
        ruled_groups: set[str] = set()  # the groups whose voided matches or teams changed
        ruled_warn: set[str] = set()  # the matches whose warnings read an elimination
        if first:
            self._rule(latest, latest_review)
        elif latest != self._corrections or latest_review != self._reviews:
            ruled, ruled_groups, ruled_warn = self._rerule(latest, latest_review)
        if first or (now is None) != (self._now is None) \
                or (now is not None and self._now is not None and now < self._now):
            candidates = set(self._index)  # time went back: settle every match again
        else:
            candidates = set()
            for mid in self._index if touched is None else touched:
                digest = by_match.get(mid)
                read = self._read.get(mid)
                if read is None or read[0] is not digest \
                        or read[1] != (0 if digest is None else digest.version):
                    candidates.add(mid)
            if now is not None:
                candidates.update(mid for mid, at in self._to_settle.items() if now >= at)
            candidates |= ruled
        self._now = now
        candidates &= self._index.keys()

        # A ruled match is taken again even when its view is as it was: a review changes
        # how a result is credited (swap) or pinned (keep), not the view read.
        viewed = self._view(candidates, by_match, latest, now) | ruled
        new_outcomes: dict[str, MatchOutcome] = {}
        dirty_groups: set[str] = set(self._groups) if first else ruled_groups
        for mid in viewed:
            m = matches[self._index[mid]]
            base = self._base[mid]
            review = self._reviews.get(mid)
            if m.group is not None:
                assert m.home.team is not None and m.away.team is not None
                teams = (m.home.team, m.away.team)
                outcome = ledger._renamed(base.outcome, *teams)
                self._why.pop(mid, None)
                self._resolved.pop(mid, None)
                if ledger._from_hall(base) and base.hall_teams != teams:
                    if review is not None and review.action is ReviewAction.SWAP \
                            and (review.home, review.away) == teams:
                        self._resolved[mid] = review
                    else:
                        self._why[mid] = ledger._misfit(base, teams)
                        outcome = replace(outcome, state=ResultState.NEEDS_REVIEW)
                new_outcomes[mid] = outcome
                dirty_groups.add(m.group)
            else:
                self._pinned.pop(mid, None)
                if review is not None and review.action is ReviewAction.KEEP \
                        and ledger._from_hall(base) \
                        and base.hall_teams == (review.home, review.away):
                    assert review.home is not None and review.away is not None
                    self._pinned[mid] = (review.home, review.away)
        draws = tuple(draws)
        if draws != self._draws:
            dirty_groups.update(g for g in self._groups
                                if [d for d in draws if d.group == g]
                                != [d for d in self._draws if d.group == g])
            self._draws = draws
        changed_outcomes = self._take_outcomes(new_outcomes)

        tables = self._tables
        changed_tables: set[str] = set()
        for g in dirty_groups & self._groups.keys():
            table = group_table(t, self._groups[g], self._scheduled[g], self._outcomes, draws,
                                voided=self._voided, eliminated=self._eliminated)
            if table != tables.get(g):
                changed_tables.add(g)
                if tables is self._tables:
                    tables = dict(tables)
                tables[g] = table
        if first:
            tables = {g.name: tables[g.name] for g in t.groups}  # in the file's order
        self._tables = tables
        self.changed_tables = changed_tables

        changed_pairings: set[str] = set()
        if first or not viewed.isdisjoint(self._feeding_matches) \
                or not changed_tables.isdisjoint(self._feeding_groups):
            changed_pairings, refilled = self._refill(first)
            changed_outcomes |= refilled

        views = self._views
        self.changed = set()
        reasoned, self._reasoned = self._reasoned, set()
        for mid in viewed | changed_outcomes | reasoned:
            base, outcome = self._base[mid], self._outcomes[mid]
            view = ledger._shown(base, outcome, self._why.get(mid),
                                 self._resolved.get(mid, base.resolved))
            if view != views.get(mid):
                if views is self._views:
                    views = dict(views)
                views[mid] = view
                self.changed.add(mid)
        if first:
            views = {m.id: views[m.id] for m in matches}
        self._views = views

        self._warn(viewed | changed_outcomes | changed_pairings | self.changed | ruled_warn)
        self._discipline(changed_outcomes, first)

        self.changed_pairings = changed_pairings
        built = Ledger(t, views, tables, self._pairings, self._suspensions, self._warnings,
                       min(self._unconfirmed.values(), default=None), draws, self._forfeits,
                       self._eliminations, self._voided, self._cards, by_hall=self._by_hall)
        built = replace(built, revisions=self._stamps.revise(
            self._ledger, built, self.changed, changed_tables, changed_pairings))
        self._ledger = built
        return built

    def _rule(self, corrections: dict[str, Correction], reviews: dict[str, Review]) -> None:
        """What the office's rulings decide, as ``build_from`` reads them. What is as it
        was stays the very object it was (the page and the service compare by identity)."""
        t = self.tournament
        self._corrections = corrections
        self._reviews = reviews
        forfeits = tuple(c.forfeit for c in corrections.values()
                         if c.forfeit is not None and c.match in self._index)
        if forfeits == self._forfeits:
            return  # a correction or a review without a forfeit: nothing else moves
        self._forfeits = forfeits
        eliminations = rulings.eliminations(t, forfeits, order=self._index,
                                            group_matches=self._group_matches)
        if eliminations != self._eliminations:
            self._eliminations = eliminations
            self._voided = frozenset(mid for e in eliminations for mid in e.voided)
            self._eliminated = frozenset(e.team for e in eliminations)
        expelled = tuple(
            discipline.Expulsion(f.team, f.player, f.match, f.cause.rule)
            for f in forfeits
            if f.cause is rulings.ForfeitCause.UNAUTHORISED and f.player is not None)
        if expelled != self._expelled:
            self._expelled = expelled
            self._expelled_teams = frozenset(e.team for e in expelled)

    def _rerule(self, corrections: dict[str, Correction], reviews: dict[str, Review]
                ) -> tuple[set[str], set[str], set[str]]:
        """A change of the office's rulings between two folds, as ``_rule`` reads them: the
        matches whose correction or review changed (their views taken again), the groups
        to rank again (matches voided or no longer, teams eliminated or no longer: rules
        001 'Waiting period') and the matches whose warnings name an elimination. The teams
        whose bans may move (an expulsion, a voided match they play) are marked affected.
        """
        ruled = {mid for mid in corrections.keys() | self._corrections.keys()
                 if corrections.get(mid) != self._corrections.get(mid)}
        ruled.update(mid for mid in reviews.keys() | self._reviews.keys()
                     if reviews.get(mid) != self._reviews.get(mid))
        ruled &= self._index.keys()
        voided, eliminated, expelled = self._voided, self._eliminated, self._expelled
        self._rule(corrections, reviews)
        groups: set[str] = set()
        warn: set[str] = set()
        matches = self.tournament.matches
        for mid in voided ^ self._voided:
            group = matches[self._index[mid]].group
            if group is not None:
                groups.add(group)
            self._affected.update(_playing(self._pairings.get(mid)))
        for team in eliminated ^ self._eliminated:
            groups.update(self._groups_of.get(team, ()))
            warn.update(matches[i].id for i in self._plays.get(team, ()))
        if expelled is not self._expelled:
            self._affected.update(e.team for e in set(expelled) ^ set(self._expelled))
        return ruled, groups, warn

    def _view(self, candidates: set[str], by_match: Mapping[str, MatchDigest],
              corrections: Mapping[str, Correction], now: datetime | None) -> set[str]:
        """Read the candidates again; the ones whose view changed."""
        changed: set[str] = set()
        matches = self.tournament.matches
        for mid in candidates:
            index = self._index[mid]
            m = matches[index]
            digest = by_match.get(mid)
            version = 0 if digest is None else digest.version
            read = self._read.get(mid)
            if read is None or read[0] is not digest or read[1] != version:
                view = ledger._read_match(m, digest or MatchDigest(), self._window)
                self._read[mid] = (digest, version, view)
            else:
                view = read[2]
            if view.outcome.state is ResultState.FINAL and view.confirm_at is not None \
                    and now is not None and now < view.confirm_at:
                self._to_settle[mid] = view.confirm_at
            else:
                self._to_settle.pop(mid, None)
            view = ledger._settle(view, now)
            view = ledger.replay_voided(view, self._reviews.get(mid), digest)
            correction = corrections.get(mid)
            if correction is not None:
                view = ledger._corrected(view, correction)
            if mid in self._base and view == self._base[mid]:
                continue
            self._base[mid] = view
            changed.add(mid)
            found = view.warnings()
            if found:
                self._gap_warnings[index] = found
            else:
                self._gap_warnings.pop(index, None)
            if view.outcome.state is ResultState.FINAL and view.confirm_at is not None:
                self._unconfirmed[mid] = view.confirm_at
            else:
                self._unconfirmed.pop(mid, None)
        return changed

    def _take_outcomes(self, new: Mapping[str, MatchOutcome]) -> set[str]:
        """Keep the new outcomes; the matches whose outcome changed (with the teams they
        penalise moved in the ban index)."""
        changed: set[str] = set()
        for mid, outcome in new.items():
            old = self._outcomes.get(mid)
            if old is not None and old == outcome:
                self._outcomes[mid] = outcome  # equal: the new object, as build_from has it
                continue
            index = self._index[mid]
            for team in _penalised(old):
                _drop(self._penalised[team], index)
                self._affected.add(team)
            for team in _penalised(outcome):
                insort(self._penalised.setdefault(team, []), index)
                self._affected.add(team)
            self._outcomes[mid] = outcome
            changed.add(mid)
        return changed

    def _refill(self, first: bool) -> tuple[set[str], set[str]]:
        """The bracket filled as ``build_from`` fills it (the same passes, from the same
        start), over the matches it can move; the pairings and outcomes that changed."""
        base = self._base
        outcomes = dict(self._outcomes)
        why, resolved, pinned = self._why, self._resolved, self._pinned
        for mid in self._bracket_ids:
            outcomes[mid] = base[mid].outcome
            why.pop(mid, None)
            review = self._reviews.get(mid)
            if mid in pinned and review is not None:
                resolved[mid] = review
            else:
                resolved.pop(mid, None)
        # A bracket match whose slots name teams is paired by them, unless a keep pinned it.
        static = {**self._static, **{mid: bracket.Pairing(mid, teams[0], teams[1], False)
                                     for mid, teams in pinned.items() if mid in self._static}}
        filled_before: dict[str, bracket.Pairing] | None = None
        pairings = static
        for _ in range(len(self._bracket_ids) + 1):
            filled = bracket.fill(self._bracket, self._tables, outcomes, pinned)
            if filled == filled_before:
                break
            filled_before = filled
            pairings = {**static, **filled}
            ledger._settle_bracket(self._bracket_ids, base, pairings, self._reviews, pinned,
                                   outcomes=outcomes, why=why, resolved=resolved)
        changed_pairings: set[str] = set()
        new_pairings = self._pairings
        if first:
            new_pairings = {m.id: pairings[m.id] for m in self.tournament.matches}
            changed_pairings = set(new_pairings)
        else:
            movable = set(filled_before or ()) | {mid for mid in self._bracket_ids
                                                  if mid in self._static}
            for mid in movable:
                p = pairings[mid]
                if p != new_pairings[mid]:
                    if new_pairings is self._pairings:
                        new_pairings = dict(new_pairings)
                    new_pairings[mid] = p
                    changed_pairings.add(mid)
        for mid in changed_pairings:
            index = self._index[mid]
            for team in _playing(self._pairings.get(mid)):
                _drop(self._plays[team], index)
                self._affected.add(team)
            for team in _playing(new_pairings[mid]):
                insort(self._plays.setdefault(team, []), index)
                self._affected.add(team)
        self._pairings = new_pairings
        self._reasoned = set(self._bracket_ids)  # their reviews may have moved
        changed_outcomes = self._take_outcomes({mid: outcomes[mid] for mid in self._bracket_ids})
        return changed_pairings, changed_outcomes

    def _warn(self, matches: set[str]) -> None:
        """The warnings of the matches whose view or pairing changed (``build_from``'s)."""
        moved = False
        for mid in matches:
            index = self._index[mid]
            m = self.tournament.matches[index]
            view = self._views[mid]
            pairing = self._pairings.get(mid)
            found: list[str] = []
            if pairing is not None and view.outcome.state is ResultState.SCHEDULED:
                for team in (pairing.home, pairing.away):
                    if team in self._eliminated:
                        found.append(f"{m.id}: {team} is eliminated "
                                     f"({rulings.WAITING_PERIOD}); the office decides this "
                                     "match (office correct)")
            if m.stage.decided and view.outcome.result is not None \
                    and view.outcome.result.winner is None:
                found.append(f"{m.id}: a {m.stage.value} match ended level; the bracket waits "
                             "for a decision (office correct)")
            if found:
                self._pair_warnings[index] = tuple(found)
            else:
                self._pair_warnings.pop(index, None)
            moved = True
        if moved:  # the gaps' warnings change only with a view, so only then too
            self._warnings = self.tournament.warnings \
                + tuple(w for i in sorted(self._gap_warnings) for w in self._gap_warnings[i]) \
                + tuple(w for i in sorted(self._pair_warnings) for w in self._pair_warnings[i])

    def _discipline(self, outcomes: set[str], first: bool) -> None:
        """The bans again for the teams whose penalties or matches changed: a ban reads the
        penalties of its team and whether its team's matches were played."""
        teams = self._affected
        self._affected = set()
        if first:
            teams |= self._expelled_teams
        for mid in outcomes:
            teams.update(_playing(self._pairings.get(mid)))
        moved = first
        for team in teams:
            indices = self._penalised.get(team)
            bans = discipline.team_bans(self.tournament, team, indices or (),
                                        self._plays.get(team, ()), self._outcomes,
                                        expelled=self._expelled, voided=self._voided) \
                if indices or team in self._expelled_teams else []
            if bans != self._bans.get(team, []):
                moved = True
                if bans:
                    self._bans[team] = bans
                else:
                    self._bans.pop(team, None)
        if moved:
            self._suspensions = tuple(s for _, s in sorted(
                (ban for bans in self._bans.values() for ban in bans), key=lambda b: b[0]))
