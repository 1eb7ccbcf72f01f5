"""Top scorers of a category, from the goals of the match records the office keeps.

Pure (no I/O; a standing's lock only lets readers on several threads make its entries
once): a ledger in, the scorers out. The office keeps of each match the record of the final
that stands (``ledger.MatchDigest``), not every goal event: a goal taken back before the
final is not in it, so counting the records counts what stood. Names come from the
tournament file's rosters.

Choices where the rules are silent:
- Every match with a result counts, confirmed or not (as the tables do), except a voided
  match (rules 001 'Waiting period') and a forfeit (the score the office awarded has no
  scorers, whatever was played).
- A goal without a scorer's number is not counted for anyone.
- A shootout's shots are not goals of the record (the result counts the deciding goal,
  rules 000 'The winning goal race', but a player's tally here counts play only).
- Players level on goals share the rank; they are listed by team, then number.
"""

from __future__ import annotations

import threading
from bisect import bisect_left, insort
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from arena.tournament.model import DecidedBy, TeamEntry
from office.views.ledger import Ledger
from office.views.revision import stamp


@dataclass(frozen=True, slots=True)
class Scorer:
    rank: int
    team: str
    player: int
    name: str | None  # from the team's roster
    goals: int

    def to_json(self) -> dict[str, object]:
        return {"rank": self.rank, "team": self.team, "player": self.player,
                "name": self.name, "goals": self.goals}


def top_scorers(ledger: Ledger) -> tuple[Scorer, ...]:
    """Every scorer of the category, most goals first."""
    counts: dict[tuple[str, int], int] = {}
    for mid, view in ledger.matches.items():
        outcome = view.outcome
        result = outcome.result
        if not outcome.state.has_result or result is None or mid in ledger.voided \
                or result.decided_by is DecidedBy.FORFEIT:
            continue
        for goal in outcome.goals:
            if goal.player is not None:
                key = (goal.team, goal.player)
                counts[key] = counts.get(key, 0) + 1
    order = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1]))
    out: list[Scorer] = []
    teams = ledger.tournament.teams
    rank, previous = 0, None
    for position, ((team, player), goals) in enumerate(order, 1):
        if goals != previous:  # 1 + how many scored more: most goals first, so the position
            rank, previous = position, goals
        entry = teams.get(team)
        out.append(Scorer(rank, team, player, entry.roster.get(player) if entry else None,
                          goals))
    return tuple(out)


Scorer_ = tuple[str, int]  # (team, player)
Entry = dict[str, object]  # a scorer's entry on the page (``Scorer.to_json``)
Tier = tuple[int, tuple[Scorer_, ...]]  # (goals, the scorers level on them, sorted)


def _credited(ledger: Ledger, mid: str) -> tuple[Scorer_, ...]:
    """The (team, player) of each goal of one match that ``top_scorers`` counts."""
    view = ledger.matches.get(mid)
    if view is None:
        return ()
    outcome = view.outcome
    result = outcome.result
    if not outcome.state.has_result or result is None or mid in ledger.voided \
            or result.decided_by is DecidedBy.FORFEIT:
        return ()
    return tuple((g.team, g.player) for g in outcome.goals if g.player is not None)


class ScorerStanding:
    """The scorers of one category at one ledger: the tiers of scorers level on goals, most
    goals first, each sorted by team and number. Its entries (``Scorer.to_json``, the list
    ``top_scorers`` makes) are made when first asked for, once (a goal moves the
    rank of every scorer of the tiers below it, thousands at 3,000 matches, so they are
    written when the page is read, not on every result).

    A value: the tiers are never changed, so a reader on another thread makes the entries of
    the standing it holds, whatever the tally counted since. Making them reuses the entries
    of the last standing whose entries were made: a tier with the same rank and the same
    scorers is that very list, a tier with the same rank keeps its scorers' entries.
    """

    __slots__ = ("_base", "_docs", "_entries", "_lock", "_roster", "_teams", "revision",
                 "tiers")

    def __init__(self, tiers: tuple[Tier, ...], teams: Mapping[str, TeamEntry],
                 previous: ScorerStanding | None, roster: int = 0) -> None:
        self.tiers = tiers
        self._teams = teams
        # ``teams``' revision (the ledger's tournament's): entries of another roster are
        # not reused.
        self._roster = roster
        # A new standing is a new value: what is kept of one (the page's tagged entries)
        # is told by this (office.views.revision).
        self.revision = stamp()
        # The last standing whose entries were made (read _base before _docs: one made
        # meanwhile on another thread is then seen as made). At most one deep: a made
        # standing lets go of its own.
        base = previous._base if previous is not None else None
        if previous is not None and previous._docs is not None:
            base = previous
        self._base: ScorerStanding | None = base
        self._docs: dict[int, tuple[int, tuple[Scorer_, ...], list[Entry]]] | None = None
        self._entries: list[Entry] | None = None
        self._lock = threading.Lock()

    @property
    def count(self) -> int:
        """How many scorers."""
        return sum(len(keys) for _, keys in self.tiers)

    def entries(self) -> list[Entry]:
        """``[s.to_json() for s in top_scorers(ledger)]``, made on the first call (a list or an
        entry handed out is never written to)."""
        with self._lock:
            if self._entries is None:
                self._make()
            assert self._entries is not None
            return self._entries

    def _make(self) -> None:
        base = self._base
        kept = base._docs if base is not None and base._roster == self._roster else None
        kept = kept or {}
        teams = self._teams
        docs_of: dict[int, tuple[int, tuple[Scorer_, ...], list[Entry]]] = {}
        out: list[Entry] = []
        rank = 1  # 1 + how many scored more
        for goals, keys in self.tiers:
            old = kept.get(goals)
            if old is not None and old[1] == keys:
                docs = old[2] if old[0] == rank else _ranked(old[2], rank)
            else:
                # The scorers still in the tier keep their entries (with the new rank).
                reuse = dict(zip(old[1], old[2] if old[0] == rank else _ranked(old[2], rank),
                                 strict=True)) if old is not None else {}
                docs = []
                for key in keys:
                    doc = reuse.get(key)
                    if doc is None:
                        team, player = key
                        entry = teams.get(team)
                        doc = {"rank": rank, "team": team, "player": player,
                               "name": entry.roster.get(player) if entry else None,
                               "goals": goals}
                    docs.append(doc)
            docs_of[goals] = (rank, keys, docs)
            out += docs
            rank += len(keys)
        self._docs, self._entries, self._base = docs_of, out, None


def _ranked(docs: list[Entry], rank: int) -> list[Entry]:
    """Copies of a tier's entries with another rank (the entries handed out stay as they were)."""
    out = list(map(dict.copy, docs))
    for doc in out:
        doc["rank"] = rank
    return out


class ScorerTally:
    """``top_scorers`` kept between ledgers and counted again only for the matches whose view
    changed, as a ``ScorerStanding``.

    Counting every record again is the whole event's goals on every result. Here each
    match's credited goals are kept and a changed match moves only its own scorers: each
    goes out of the tier of its old count and into the tier of its new one (a tier is a
    sorted tuple: one made again for each tier a scorer left or joined). What a result costs
    does not grow with the number of scorers; their entries, whose ranks do, are made by
    the standing when it is read.
    """

    def __init__(self) -> None:
        self._credits: dict[str, tuple[Scorer_, ...]] = {}
        self._goals: dict[Scorer_, int] = {}
        self._tiers: dict[int, tuple[Scorer_, ...]] = {}  # goals -> its scorers, sorted
        self._standing: ScorerStanding | None = None

    def entries(self, ledger: Ledger, matches: Iterable[str] | None) -> list[Entry]:
        """``[s.to_json() for s in top_scorers(ledger)]`` (``count``'s standing's entries)."""
        return self.count(ledger, matches).entries()

    def count(self, ledger: Ledger, matches: Iterable[str] | None) -> ScorerStanding:
        """The scorers of ``ledger``; ``matches``: those whose view may have changed since
        the last call (None: count every match again). Unchanged: the same standing."""
        if matches is None:
            self._credits, self._goals, self._tiers = {}, {}, {}
        goals = self._goals
        moved: dict[Scorer_, int] = {}  # scorer -> goals before this call
        for mid in ledger.matches if matches is None else matches:
            new = _credited(ledger, mid)
            old = self._credits.get(mid, ())
            if new == old:
                continue
            if new:
                self._credits[mid] = new
            else:
                del self._credits[mid]
            for key in old:
                moved.setdefault(key, goals[key])
                goals[key] -= 1
            for key in new:
                moved.setdefault(key, goals.get(key, 0))
                goals[key] = goals.get(key, 0) + 1
        joins: dict[int, list[Scorer_]] = {}
        leaves: dict[int, list[Scorer_]] = {}
        for key, before in moved.items():
            after = goals[key]
            if after == before:
                if after == 0:
                    del goals[key]  # credited and taken back in one call
                continue
            if before > 0:
                leaves.setdefault(before, []).append(key)
            if after > 0:
                joins.setdefault(after, []).append(key)
            else:
                del goals[key]
        teams = ledger.tournament.teams
        roster = ledger.revisions.part("tournament")
        standing = self._standing
        if not joins and not leaves and matches is not None and standing is not None \
                and standing._roster == roster:
            return standing
        tiers = dict(self._tiers)
        for n in joins.keys() | leaves.keys():
            keys = list(tiers.get(n, ()))
            for key in leaves.get(n, ()):
                del keys[bisect_left(keys, key)]
            for key in joins.get(n, ()):
                insort(keys, key)
            if keys:
                tiers[n] = tuple(keys)
            else:
                tiers.pop(n, None)
        self._tiers = tiers
        self._standing = ScorerStanding(tuple((n, tiers[n]) for n in sorted(tiers, reverse=True)),
                                        teams, standing, roster)
        return self._standing
