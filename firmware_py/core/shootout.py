"""Shootouts: who shoots next, when it is decided, which shots the rules refuse.

The scoreboard records what happens on the ice and never blocks the referee: ``next`` only
suggests who shoots by the rules, and either team may take the first shot of a round. What is
refused is what cannot be right: a team shooting twice in one round, a shooter the rules
exclude. (A shot after the decision is refused by the phase table: a decided shootout is
final at once.)
"""

from __future__ import annotations

from dataclasses import dataclass

from .phase import Team
from .preset import ShootoutRules


@dataclass(frozen=True, slots=True)
class ShotRecord:
    seq: int  # the shot event's seq: what undo names
    team: Team
    player: int | None
    scored: bool


Shots = tuple[ShotRecord, ...]


def _of(shots: Shots, team: Team) -> list[ShotRecord]:
    return [s for s in shots if s.team is team]


def starter(rules: ShootoutRules, shots: Shots) -> Team | None:
    """The team that starts the first series: the preset's, or whoever shot first."""
    if rules.first is not None:
        return rules.first
    return shots[0].team if shots else None


def winner(rules: ShootoutRules, shots: Shots) -> Team | None:
    """The winner as soon as it is certain, else None.

    In the first series: as soon as one side cannot catch up with the shots it has left. In
    sudden death: as soon as a pair is complete with one scored and the other missed."""
    home, away = _of(shots, Team.HOME), _of(shots, Team.AWAY)
    goals = {Team.HOME: sum(s.scored for s in home), Team.AWAY: sum(s.scored for s in away)}
    taken = {Team.HOME: len(home), Team.AWAY: len(away)}
    if taken[Team.HOME] <= rules.rounds and taken[Team.AWAY] <= rules.rounds:
        for team in Team:
            left = rules.rounds - taken[team.other]
            if goals[team] > goals[team.other] + left:
                return team
        return None
    if taken[Team.HOME] == taken[Team.AWAY] and goals[Team.HOME] != goals[Team.AWAY]:
        return Team.HOME if goals[Team.HOME] > goals[Team.AWAY] else Team.AWAY
    return None


def next_team(rules: ShootoutRules, shots: Shots) -> Team | None:
    """Who shoots next by the rules; None once decided, or before the first shot where the
    starting team is chosen or drawn on the day."""
    if winner(rules, shots) is not None:
        return None
    home, away = len(_of(shots, Team.HOME)), len(_of(shots, Team.AWAY))
    if home != away:
        return Team.HOME if home < away else Team.AWAY  # the round's second shot
    first = starter(rules, shots)
    if home < rules.rounds or first is None or not rules.tiebreak_second_starts:
        return first
    # IIHF: in the tie-break pairs the team that shot second in the first round starts.
    return shots[0].team.other


def refusal(rules: ShootoutRules, shots: Shots, team: Team, player: int | None,
            barred: frozenset[tuple[Team, int]]) -> str | None:
    """Why the rules refuse this shot in an undecided shootout, or None."""
    mine, theirs = len(_of(shots, team)), len(_of(shots, team.other))
    if mine > theirs:
        return f"{team.value} has already shot in this round; {team.other.value} shoots next"
    if player is None:
        return None
    if (team, player) in barred:
        return (f"#{player} ({team.value}) may not shoot: sent off, or still serving a "
                "penalty when overtime ended")
    first_series = _of(shots, team)[: rules.rounds]
    if rules.distinct_first_series and mine < rules.rounds and any(
        s.player == player for s in first_series
    ):
        return f"#{player} ({team.value}) has already shot in the first series"
    return None


def decisive(shots: Shots, won_by: Team) -> ShotRecord:
    """The decisive goal: the winner's goal that put it ahead for good (rules 000: 'the
    deciding goal is credited to the player who took the shot')."""
    against = sum(s.scored for s in _of(shots, won_by.other))
    scored = [s for s in _of(shots, won_by) if s.scored]
    return scored[against]
