"""Suspensions: who may not play which match, from the penalties of the match records.

Pure: the schedule, the bracket's pairings and the match outcomes in, the suspensions out.
The rules are data (``StandingsRules.suspensions``, from the preset): each rule counts one
player's penalties of its kinds over the tournament, and the n-th one bans him for
``rule.ban_for(n)`` matches (None: the rest of the tournament). Rules 000 'Penalties' 3 and
4 (game misconducts, match penalties) and rules 001 'Exclusion of a player' (red cards).

A ban is resolved against the real schedule, not a count: it is served only by a match of
his team that is actually played and confirmed, so the hall's ``next`` can list him as
suspended for exactly the matches he must sit out, including bracket matches the team only
reaches later.

Choices where the rules are silent:
- Several bans of one player (a second rule, or an offence while still banned) are served
  one after another in the order of their offences, each match serving one ban: a ban takes
  the team's matches after its own offence match that an earlier ban of his has not taken.
- A match the team loses by forfeit serves no ban (it was not played) and is skipped by all
  of them; a match not yet confirmed (scheduled, live, final) is one he is suspended for,
  but it serves the ban only once confirmed.
- Offences count from any match with a result, confirmed or not: a player sent off must not
  play the next match while the protest window of the last one is still open.
- A team official is counted by his number like a player (0 or a number off the roster).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.core.preset import SuspensionRule
from arena.tournament.model import DecidedBy, MatchOutcome, ScheduledMatch, SlotKind, Tournament
from office.rules.bracket import Pairing


@dataclass(frozen=True, slots=True)
class Suspension:
    """One ban of one player and where it stands.

    ``served``: matches that served it; ``pending``: known matches he is suspended for that
    have not served it yet; ``waiting``: banned matches not tied to a known match yet (the
    team's next match is a bracket match not filled yet, or it has none left). ``banned``
    None is the rest of the tournament: every later match of the team, ``waiting`` 0.
    """

    team: str
    player: int
    name: str | None
    rule: str
    offences: int
    offence_match: str
    banned: int | None
    served: tuple[str, ...]
    pending: tuple[str, ...]
    waiting: int


@dataclass(frozen=True, slots=True)
class Expulsion:
    """A player the office expelled from the tournament at ``match`` under ``rule`` (rules
    001 "Player's start", office.rules.rulings): banned for the rest of it, like a ban of None."""

    team: str
    player: int
    match: str
    rule: str


@dataclass(frozen=True, slots=True)
class _Offence:
    team: str
    player: int
    rule: SuspensionRule
    count: int
    index: int  # of the offence match in the schedule
    match: str
    banned: int | None


def suspensions(tournament: Tournament, pairings: Mapping[str, Pairing],
                outcomes: Mapping[str, MatchOutcome],
                expelled: Sequence[Expulsion] = (),
                voided: frozenset[str] = frozenset()) -> list[Suspension]:
    """Every ban earned so far, in the order of the offences (schedule, then record order;
    an expulsion after the penalties of its match). A ``voided`` match not played (its team
    eliminated, rules 001 'Waiting period') will not be: it serves no ban and none waits on it."""
    penalised: dict[str, list[int]] = {}
    plays: dict[str, list[int]] = {}
    for index, match in enumerate(tournament.matches):
        outcome = outcomes.get(match.id)
        if outcome is not None and outcome.state.has_result:
            for team in dict.fromkeys(p.team for p in outcome.penalties):
                penalised.setdefault(team, []).append(index)
        for playing in dict.fromkeys(_teams(match, pairings)):
            if playing is not None:
                plays.setdefault(playing, []).append(index)
    teams = dict.fromkeys([*penalised, *(e.team for e in expelled)])
    found = [ban for team in teams
             for ban in team_bans(tournament, team, penalised.get(team, ()),
                                  plays.get(team, ()), outcomes, expelled=expelled,
                                  voided=voided)]
    return [s for _, s in sorted(found, key=lambda ban: ban[0])]


# Where an offence stands among all of them: (schedule index of its match, position of the
# penalty in the record, position of the rule): the order ``suspensions`` lists the bans in.
# An expulsion comes after every penalty of its match (``_EXPULSION``).
BanKey = tuple[int, int, int]
_EXPULSION = 1 << 30


def team_bans(tournament: Tournament, team: str, penalised: Sequence[int],
              plays: Sequence[int], outcomes: Mapping[str, MatchOutcome], *,
              expelled: Sequence[Expulsion] = (), voided: frozenset[str] = frozenset()
              ) -> list[tuple[BanKey, Suspension]]:
    """One team's bans, each with its place in the order of all offences.

    A team's bans read only its own penalties, expulsions and matches, so the office can
    compute them again for the two teams of a new result alone (office.views.fold).
    ``penalised``: schedule indices of the matches with a result that hold a penalty of the
    team; ``plays``: those of the matches it plays (its pairing), both ascending;
    ``expelled``: every expulsion (the team's are picked out).
    """
    offences = _offences(tournament, team, penalised, outcomes)
    at = {m.id: i for i, m in enumerate(tournament.matches)} if expelled else {}
    for e in expelled:
        if e.team == team and e.match in at:
            offences.append(((at[e.match], _EXPULSION, 0),
                             _Offence(e.team, e.player, SuspensionRule(e.rule, frozenset(),
                                                                       (None,)),
                                      1, at[e.match], e.match, None)))
    offences.sort(key=lambda o: o[0])
    # Matches a ban of a player has taken (served or pending), so his next ban starts after.
    taken: dict[int, set[int]] = {}
    result: list[tuple[BanKey, Suspension]] = []
    matches = tournament.matches
    entry = tournament.teams.get(team)
    for key, offence in offences:
        used = taken.setdefault(offence.player, set())
        served: list[str] = []
        pending: list[str] = []
        for index in plays:
            if offence.banned is not None and len(served) + len(pending) >= offence.banned:
                break
            if index <= offence.index or index in used:
                continue
            match = matches[index]
            outcome = outcomes.get(match.id)
            if match.id in voided and (outcome is None or not outcome.state.has_result):
                continue
            if outcome is not None and outcome.state.settled:
                if _forfeit(outcome):
                    continue  # not played: serves nothing
                served.append(match.id)
            else:
                pending.append(match.id)
            used.add(index)
        waiting = 0 if offence.banned is None else offence.banned - len(served) - len(pending)
        result.append((key, Suspension(
            team=offence.team, player=offence.player,
            name=entry.roster.get(offence.player) if entry is not None else None,
            rule=offence.rule.name, offences=offence.count, offence_match=offence.match,
            banned=offence.banned, served=tuple(served), pending=tuple(pending),
            waiting=waiting,
        )))
    return result


def suspended_in(match_id: str, suspensions: Sequence[Suspension]) -> list[Suspension]:
    """The bans that keep a player out of ``match_id``: pending for it, or served by it (he
    was suspended for it too, which the page shows on a played match)."""
    return [s for s in suspensions if match_id in s.pending or match_id in s.served]


def _offences(tournament: Tournament, team: str, penalised: Sequence[int],
              outcomes: Mapping[str, MatchOutcome]) -> list[tuple[BanKey, _Offence]]:
    counts: dict[tuple[str, int], int] = {}
    found: list[tuple[BanKey, _Offence]] = []
    for index in penalised:
        match = tournament.matches[index]
        outcome = outcomes.get(match.id)
        if outcome is None or not outcome.state.has_result:
            continue
        for position, penalty in enumerate(outcome.penalties):
            if penalty.team != team:
                continue
            for order, rule in enumerate(tournament.rules.suspensions):
                if penalty.kind not in rule.kinds:
                    continue
                key = (rule.name, penalty.player)
                counts[key] = counts.get(key, 0) + 1
                banned = rule.ban_for(counts[key])
                if banned == 0:  # counted towards the next one, but no ban of its own
                    continue
                found.append(((index, position, order),
                              _Offence(penalty.team, penalty.player, rule, counts[key],
                                       index, match.id, banned)))
    return found


def _teams(match: ScheduledMatch, pairings: Mapping[str, Pairing]) -> tuple[str | None, ...]:
    """Who plays ``match`` as far as is known: its pairing, else the teams the file names."""
    pairing = pairings.get(match.id)
    if pairing is not None:
        return (pairing.home, pairing.away)
    return tuple(slot.team for slot in (match.home, match.away) if slot.kind is SlotKind.TEAM)


def _forfeit(outcome: MatchOutcome) -> bool:
    return outcome.result is not None and outcome.result.decided_by is DecidedBy.FORFEIT
