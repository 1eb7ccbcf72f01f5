"""What ``office.views.fold.LedgerFold`` keeps between builds: the tournament's indexes that
never change (who plays in which group, which matches the bracket reads) and the parts of the
last ledger it built, with the rulings and warnings they were made with."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from arena.tournament.model import Draw, GroupTable, MatchOutcome, SlotKind, Tournament
from office.rules import bracket, discipline, rulings
from office.views.ledger import (
    Correction,
    Ledger,
    MatchDigest,
    MatchView,
    Review,
    group_schedule,
    schedule_by_hall,
)
from office.views.revision import Stamps


class FoldState:
    """What a fold keeps between builds: the tournament's fixed indexes (made once) and the
    parts of the last ledger with what they were made from (``reset`` forgets those)."""

    def __init__(self, tournament: Tournament) -> None:
        t = tournament
        self.tournament = t
        self._window = timedelta(seconds=t.rules.protest_window_s)
        self._index = {m.id: i for i, m in enumerate(t.matches)}
        self._scheduled = group_schedule(t)
        self._groups = {g.name: g for g in t.groups}
        self._group_matches = rulings.group_matches_by_team(t)  # what an elimination voids
        self._groups_of: dict[str, list[str]] = {}  # team -> the groups it plays in
        for g in t.groups:
            for team in g.teams:
                self._groups_of.setdefault(team, []).append(g.name)
        self._by_hall = schedule_by_hall(t)
        # A match whose slots both name teams is paired once and for all (every group
        # match); only the others, and the matches their W:/L: slots name, are filled again.
        self._static = {m.id: bracket.Pairing(m.id, m.home.team, m.away.team, False)
                        for m in t.matches
                        if m.home.kind is SlotKind.TEAM and m.away.kind is SlotKind.TEAM}
        filled = [m for m in t.matches if m.id not in self._static]
        named = {s.match for m in filled for s in (m.home, m.away)
                 if s.kind in (SlotKind.WINNER, SlotKind.LOSER)}
        self._bracket = replace(t, matches=tuple(
            m for m in t.matches if m.id not in self._static or m.id in named))
        self._bracket_ids = [m.id for m in t.matches if m.group is None]
        # What the bracket reads: the tables of these groups, the outcomes of these matches.
        self._feeding_groups = {s.group for m in filled for s in (m.home, m.away)
                                if s.kind is SlotKind.GROUP_PLACE}
        self._feeding_matches = {m.id for m in self._bracket.matches} | set(self._bracket_ids)
        self._read: dict[str, tuple[MatchDigest | None, int, MatchView]] = {}
        self._cards_in: tuple[rulings.GreenCard, ...] = ()
        self._cards: tuple[rulings.GreenCard, ...] = ()
        self.reset()

    def reset(self) -> None:
        """Forget what was built: the next ``build`` reads every match again."""
        self._ledger: Ledger | None = None
        self._now: datetime | None = None
        self._base: dict[str, MatchView] = {}  # settled and corrected, not yet renamed
        self._outcomes: dict[str, MatchOutcome] = {}  # as the tables and bracket read them
        self._views: dict[str, MatchView] = {}
        self._tables: dict[str, GroupTable] = {}
        self._pairings: dict[str, bracket.Pairing] = {}
        self._corrections: dict[str, Correction] = {}
        self._reviews: dict[str, Review] = {}
        # What the rulings decided (build_from's): kept until the corrections change.
        self._forfeits: tuple[rulings.Forfeit, ...] = ()
        self._eliminations: tuple[rulings.Elimination, ...] = ()
        self._voided: frozenset[str] = frozenset()
        self._eliminated: frozenset[str] = frozenset()
        self._expelled: tuple[discipline.Expulsion, ...] = ()
        self._expelled_teams: frozenset[str] = frozenset()
        self._why: dict[str, str] = {}  # match -> why its result needs the office
        self._resolved: dict[str, Review] = {}  # match -> the review its result stands on
        self._pinned: dict[str, tuple[str, str]] = {}  # bracket matches a keep fixed
        self._reasoned: set[str] = set()  # bracket matches the last refill looked at
        self._draws: tuple[Draw, ...] = ()
        self._to_settle: dict[str, datetime] = {}  # finals whose window is still open
        self._unconfirmed: dict[str, datetime] = {}  # final views -> confirm_at
        self._gap_warnings: dict[int, tuple[str, ...]] = {}  # a match's own (``MatchView``)
        self._pair_warnings: dict[int, tuple[str, ...]] = {}
        self._warnings: tuple[str, ...] = ()
        self._penalised: dict[str, list[int]] = {}  # team -> indices, ascending
        self._plays: dict[str, list[int]] = {}
        self._bans: dict[str, list[tuple[discipline.BanKey, discipline.Suspension]]] = {}
        self._suspensions: tuple[discipline.Suspension, ...] = ()
        self._affected: set[str] = set()  # teams whose bans may have moved in this build
        self.changed: set[str] = set()  # the matches whose view the last build changed
        self.changed_tables: set[str] = set()  # and the groups whose table it changed
        self.changed_pairings: set[str] = set()  # and the matches whose pairing it changed
        self._stamps = Stamps()  # the revisions of the ledgers' parts (office.views.revision)
