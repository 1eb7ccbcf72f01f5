"""Shootouts: who shoots next, when it is decided, which shots the rules refuse.

The order is the rules': the starting team of the first series is the preset's (``first``),
or, where it is chosen or drawn on the day, the team of the first shot taken; it opens every
round, except that with ``tiebreak_second_starts`` (IIHF) the other team opens the tie-break
pairs. With the preset's ``strict_order`` a shot for the team that is not next is refused
(the board cannot be keyed out of the order, so the tally on the display and the decision
follow the rules); a team's second shot in a round and a shooter the rules exclude always
are, and with ``distinct_first_series`` a player's second shot in the first series (the
refusal names the preset's rule). (A shot after the decision is refused by the phase
table: a decided shootout is final at once.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .errors import Reason, because
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
            barred: Mapping[tuple[Team, int], Reason],
            *, order: Callable[[Team, Shots], str] | None = None,
            first_series_rule: str | None = None) -> Reason | None:
    """Why the rules refuse this shot in an undecided shootout, or None.

    ``barred``: the players who may not shoot, each with the reason. ``order``: why a team
    opens a round (the rule behind it), for the refusal of a shot out of turn.
    ``first_series_rule``: the rule behind ``distinct_first_series`` (the preset's
    citation), named when a player would shoot twice in the first series."""
    mine, theirs = len(_of(shots, team)), len(_of(shots, team.other))
    if mine > theirs:
        return because("shot_twice", f"{team.value} has already shot in this round; "
                       f"{team.other.value} shoots next", team=team.value,
                       other=team.other.value)
    due = next_team(rules, shots) if rules.strict_order else None
    if due is not None and due is not team:
        why = f" ({order(due, shots)})" if order is not None else ""
        return because("shot_order", f"{due.value} shoots first in round {mine + 1}{why}",
                       team=due.value, round=mine + 1)
    if player is None:
        return None
    if (team, player) in barred:
        bar = barred[(team, player)]
        return because(f"shot_barred_{bar.key}",
                       f"#{player} ({team.value}) may not shoot: {bar.text}",
                       player=player, team=team.value)
    first_series = _of(shots, team)[: rules.rounds]
    if rules.distinct_first_series and mine < rules.rounds and any(
        s.player == player for s in first_series
    ):
        # The first series only: in the sudden death after it anyone eligible may shoot,
        # a first-series shooter too (rules 000, 001, 002, 003).
        why = f" ({first_series_rule})" if first_series_rule else ""
        return because("shot_first_series",
                       f"#{player} ({team.value}) has already shot in the first series, "
                       f"whose {rules.rounds} shots are taken by {rules.rounds} different "
                       f"players{why}", player=player, team=team.value)
    return None


def decisive(shots: Shots, won_by: Team) -> ShotRecord:
    """The decisive goal: the winner's goal that put it ahead for good (rules 000: 'the
    deciding goal is credited to the player who took the shot')."""
    against = sum(s.scored for s in _of(shots, won_by.other))
    scored = [s for s in _of(shots, won_by) if s.scored]
    return scored[against]
