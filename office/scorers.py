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

from dataclasses import dataclass

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
