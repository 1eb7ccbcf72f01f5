"""Final placings of a category: places 1..N from the bracket and the placement games.

Pure: a ledger in, the placings out. The tournament file says which places a match decides
only in comments ("F: places 1 and 2"), so they are read off the bracket's shape:

- A finish is a side of a playoff or placement match that no later match takes on: the
  winner and the loser of the final, of a third-place or placement game, and the losers of
  semi-finals that no match sends on (rules 001 'Prizes': "the match for third place will
  not be played": both share third place).
- Finishes are ordered by where their match comes from: a match between group places ranks
  by the sum of those places (1st v 2nd before 3rd v 3rd before 4th v 4th; every
  quarter-final of 1st-4th v 8th-5th alike); a match between winners of a match before one
  between its losers; within a match the winner first. Finishes nobody can tell apart
  share the place (both semi-final losers are 3rd).
- With no playoff or placement match and one group, the group table is the placing (once
  complete). Teams the bracket does not reach are "not placed": the rules documents give
  them no place (rules 000 'Format' places every team through its placement games).
- A team eliminated (rules 001 'Waiting period') is not placed.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.tournament.model import ScheduledMatch, SlotKind, Tournament
from office.views.ledger import Ledger

_WINNER, _LOSER = 0, 1


@dataclass(frozen=True, slots=True)
class Placing:
    """One place. ``team`` None: the match deciding it has no result yet (``label`` says
    who it will be: "Winner F"). ``place`` None: not placed (``eliminated`` says why)."""

    place: int | None
    team: str | None
    label: str
    match: str | None
    shared: bool = False
    provisional: bool = False
    eliminated: bool = False

    def to_json(self) -> dict[str, object]:
        return {"place": self.place, "team": self.team, "label": self.label,
                "match": self.match, "shared": self.shared, "provisional": self.provisional,
                "eliminated": self.eliminated}


def placings(ledger: Ledger) -> tuple[Placing, ...]:
    """The places in order, then the teams not placed (eliminated first)."""
    t = ledger.tournament
    eliminated = {e.team for e in ledger.eliminations}
    decided = [m for m in t.matches if m.stage.decided]
    out = _from_bracket(ledger, decided) if decided else _from_group(ledger)
    placed = {p.team for p in out if p.team is not None}
    out += [Placing(None, team, "eliminated", None, eliminated=True)
            for team in t.teams if team in eliminated and team not in placed]
    if all(p.team is not None for p in out):  # every place known: the rest are not placed
        out += [Placing(None, team, "not placed", None)
                for team in t.teams if team not in placed and team not in eliminated]
    return tuple(out)


def _from_bracket(ledger: Ledger, decided: list[ScheduledMatch]) -> list[Placing]:
    t = ledger.tournament
    taken = {(slot.match, slot.kind) for m in decided for slot in (m.home, m.away)
             if slot.kind in (SlotKind.WINNER, SlotKind.LOSER)}
    keys: dict[str, tuple[int, ...]] = {}
    finishes: list[tuple[tuple[int, ...], ScheduledMatch, int]] = []
    for m in decided:
        key = _key(t, m, keys)
        for which, kind in ((_WINNER, SlotKind.WINNER), (_LOSER, SlotKind.LOSER)):
            if (m.id, kind) not in taken:
                finishes.append(((*key, which), m, which))
    finishes.sort(key=lambda f: f[0])  # stable: schedule order among equals
    out: list[Placing] = []
    for key, m, which in finishes:
        above = sum(1 for k, _, _ in finishes if k < key)
        shared = sum(1 for k, _, _ in finishes if k == key) > 1
        team, provisional = _team(ledger, m, which)
        label = f"{'Winner' if which == _WINNER else 'Loser'} {m.id}"
        out.append(Placing(above + 1, team, label, m.id, shared, provisional))
    return out


def _key(t: Tournament, m: ScheduledMatch, keys: dict[str, tuple[int, ...]]
         ) -> tuple[int, ...]:
    """Where a match ranks among the finishes (see the module's docstring); a W:/L: slot
    always names an earlier match, so the recursion ends."""
    if m.id in keys:
        return keys[m.id]
    if m.home.kind is SlotKind.GROUP_PLACE and m.away.kind is SlotKind.GROUP_PLACE:
        key: tuple[int, ...] = ((m.home.place or 0) + (m.away.place or 0),)
    else:
        sides: list[tuple[int, ...]] = []
        for slot in (m.home, m.away):
            if slot.kind is SlotKind.GROUP_PLACE:
                sides.append((2 * (slot.place or 0),))
            elif slot.kind is SlotKind.TEAM:
                sides.append((0,))  # a team the file names: seeded at the top
            else:
                earlier = t.match(slot.match or "")
                assert earlier is not None  # the tournament file checks it
                which = _WINNER if slot.kind is SlotKind.WINNER else _LOSER
                sides.append((*_key(t, earlier, keys), which))
        key = min(sides)
    keys[m.id] = key
    return key


def _team(ledger: Ledger, m: ScheduledMatch, which: int) -> tuple[str | None, bool]:
    view = ledger.matches[m.id]
    result = view.outcome.result
    pairing = ledger.pairings.get(m.id)
    if result is None or pairing is None or {result.home, result.away} != {pairing.home,
                                                                            pairing.away}:
        return None, False
    team = result.winner if which == _WINNER else result.loser
    return team, pairing.provisional or not view.outcome.state.settled


def _from_group(ledger: Ledger) -> list[Placing]:
    if len(ledger.tournament.groups) != 1:
        return []
    table = ledger.tables[ledger.tournament.groups[0].name]
    if not table.complete:
        return [Placing(i + 1, None, f"{i + 1}. of group {table.name}", None)
                for i in range(len(table.rows))]
    return [Placing(r.rank, r.team, f"group {table.name}", None,
                    sum(1 for o in table.rows if o.rank == r.rank) > 1, table.provisional)
            for r in table.rows]
