"""The bracket: who plays each scheduled match, once the tables and results say so.

Pure: the schedule, the group tables and the match outcomes in, one ``Pairing`` per
scheduled match out. Nothing is remembered between calls; the service calls ``fill`` again
after every change and ``changes`` tells the office when a correction re-filled a slot that
was already filled (a team may already have been told it plays there).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from arena.tournament.model import GroupTable, MatchOutcome, Slot, SlotKind, Tournament


@dataclass(frozen=True, slots=True)
class Pairing:
    """Who plays ``match``. A side is None while it is not known yet. ``provisional``: a
    known side rests on a result or a table that is not confirmed yet, so it may change."""

    match: str
    home: str | None
    away: str | None
    provisional: bool


@dataclass(frozen=True, slots=True)
class _Side:
    team: str | None
    provisional: bool = False


_UNKNOWN = _Side(None)


def fill(tournament: Tournament, tables: Mapping[str, GroupTable],
         outcomes: Mapping[str, MatchOutcome],
         pinned: Mapping[str, tuple[str, str]] | None = None) -> dict[str, Pairing]:
    """A pairing for every scheduled match, in schedule order.

    Schedule order is enough for a single pass: a "W:SF1" or "L:SF1" slot always names an
    earlier match, so SF1's pairing is already known when the slot is read. ``pinned``:
    matches whose teams the office fixed (a played match it kept for the teams who played
    it, ``office review --keep``), whatever their slots now say.
    """
    pairings: dict[str, Pairing] = {}
    for match in tournament.matches:
        fixed = (pinned or {}).get(match.id)
        if fixed is not None:
            pairings[match.id] = Pairing(match.id, fixed[0], fixed[1], False)
            continue
        home = _resolve(match.home, tables, outcomes, pairings)
        away = _resolve(match.away, tables, outcomes, pairings)
        pairings[match.id] = Pairing(match.id, home.team, away.team,
                                     home.provisional or away.provisional)
    return pairings


def _resolve(slot: Slot, tables: Mapping[str, GroupTable],
             outcomes: Mapping[str, MatchOutcome], earlier: Mapping[str, Pairing]) -> _Side:
    if slot.kind is SlotKind.TEAM:
        return _Side(slot.team)
    if slot.kind is SlotKind.GROUP_PLACE:
        return _group_place(slot, tables)
    return _winner_or_loser(slot, outcomes, earlier)


def _group_place(slot: Slot, tables: Mapping[str, GroupTable]) -> _Side:
    table = tables.get(slot.group or "")
    # An incomplete table's order still moves with every result still to come: nobody can
    # be told they play a semi-final on it.
    if table is None or not table.complete:
        return _UNKNOWN
    # A result of the group is under review: its order is the office's to settle first.
    if table.under_review:
        return _UNKNOWN
    holders = [row for row in table.rows if row.rank == slot.place]
    # Teams sharing the place are level after every criterion: the office must draw lots
    # before the slot can be filled. A place nobody holds (two share the place above) is the
    # same case seen from below.
    if len(holders) != 1 or holders[0].lots_needed:
        return _UNKNOWN
    return _Side(holders[0].team, table.provisional)


def _winner_or_loser(slot: Slot, outcomes: Mapping[str, MatchOutcome],
                     earlier: Mapping[str, Pairing]) -> _Side:
    ref = earlier.get(slot.match or "")
    if ref is None or ref.home is None or ref.away is None:
        return _UNKNOWN
    outcome = outcomes.get(ref.match)
    if outcome is None or not outcome.state.has_result or outcome.result is None:
        return _UNKNOWN
    result = outcome.result
    # A result recorded for other teams than the pairing now names (a group correction
    # re-filled the semi after it was played) says nothing about this pairing's winner:
    # leave the slot open rather than advance a team that is no longer in the match.
    if {result.home, result.away} != {ref.home, ref.away}:
        return _UNKNOWN
    team = result.winner if slot.kind is SlotKind.WINNER else result.loser
    if team is None:  # level: a bracket match is played to a decision, so not final yet
        return _UNKNOWN
    return _Side(team, ref.provisional or not outcome.state.settled)


def changes(old: Mapping[str, Pairing], new: Mapping[str, Pairing]) -> list[str]:
    """Alerts for every side that was filled in ``old`` and now names another team or none.

    A side filled for the first time is the bracket doing its job, not news to alert on.
    """
    return [text for _, text in changed(old, new)]


def changed(old: Mapping[str, Pairing], new: Mapping[str, Pairing]) -> list[tuple[str, str]]:
    """``changes`` with the match each one is about: (match id, text)."""
    alerts: list[tuple[str, str]] = []
    for match_id, before in old.items():
        after = new.get(match_id)
        for side, was in (("home", before.home), ("away", before.away)):
            if was is None:
                continue
            now = None if after is None else (after.home if side == "home" else after.away)
            if now == was:
                continue
            if now is None:
                alerts.append((match_id, f"{match_id} {side}: no longer known (was {was})"))
            else:
                alerts.append((match_id, f"{match_id} {side}: {now} instead of {was}"))
    return alerts
