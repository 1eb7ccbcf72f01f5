"""Top scorers of a category, from the goals of the match records the office keeps.

Pure: a ledger in, the scorers out. The office keeps of each match the record of the final
that stands (``ledger.MatchDigest``), not every goal event: a goal taken back before the
final is not in it, so counting the records counts what stood. Names come from the
tournament file's rosters.

Choices where the rules are silent:
- Every match with a result counts, confirmed or not (as the tables do), except a voided
  match (rules 001 'Waiting period') and a forfeit (a 0:5 the office awarded has no
  scorers, whatever was played).
- A goal without a scorer's number is not counted for anyone.
- A shootout's shots are not goals of the record (the result counts the deciding goal,
  rules 000 'The winning goal race', but a player's tally here counts play only).
- Players level on goals share the rank; they are listed by team, then number.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from .ledger import Ledger
from .model import DecidedBy


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


class ScorerTally:
    """``top_scorers`` as the page's entries (``Scorer.to_json``), kept between ledgers and
    counted again only for the matches whose view changed (issue 17).

    Counting every record again is the whole event's goals on every result. Here each
    match's credited goals are kept and a changed match moves only its own scorers. The
    scorers level on goals form a tier sharing one rank (1 + how many scored more), kept
    sorted by team and number: a tier whose members moved gets them taken out or put in at
    their place; a tier below a change only has its rank moved (its entries copied with the
    new rank); a tier above every change is the very list of entries it was. A list or an
    entry once handed out is never written to (a web reader may still be encoding it).
    """

    def __init__(self) -> None:
        self._credits: dict[str, tuple[Scorer_, ...]] = {}
        self._goals: dict[Scorer_, int] = {}
        # goals -> (the tier's rank, its scorers sorted, their entries in that order),
        # most goals first
        self._tiers: dict[int, tuple[int, list[Scorer_], list[Entry]]] = {}
        self._entries: list[Entry] = []

    def entries(self, ledger: Ledger, matches: Iterable[str] | None) -> list[Entry]:
        """``[s.to_json() for s in top_scorers(ledger)]``; ``matches``: those whose view
        may have changed since the last call (None: count every match again)."""
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
        if not joins and not leaves and matches is not None:
            return self._entries
        teams = ledger.tournament.teams
        tiers: dict[int, tuple[int, list[Scorer_], list[Entry]]] = {}
        rank = 1
        for n in sorted(self._tiers.keys() | joins.keys(), reverse=True):
            kept_rank, keys, docs = self._tiers.get(n, (0, [], []))
            moving = n in joins or n in leaves
            if kept_rank != rank:
                docs = list(map(dict.copy, docs))
                for doc in docs:
                    doc["rank"] = rank
            elif moving:
                docs = list(docs)
            if moving:
                keys = list(keys)
                for key in leaves.get(n, ()):
                    at = bisect_left(keys, key)
                    del keys[at], docs[at]
                for key in sorted(joins.get(n, ())):
                    at = bisect_left(keys, key)
                    keys.insert(at, key)
                    team, player = key
                    entry = teams.get(team)
                    docs.insert(at, {"rank": rank, "team": team, "player": player,
                                     "name": entry.roster.get(player) if entry else None,
                                     "goals": n})
            if keys:
                tiers[n] = (rank, keys, docs)
                rank += len(keys)
        self._tiers = tiers
        self._entries = list(chain.from_iterable(docs for _, _, docs in tiers.values()))
        return self._entries
