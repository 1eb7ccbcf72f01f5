"""The office's rulings under the tournament rules: forfeits it awards, the eliminations they
lead to, the players they expel, and the fair-play green cards it records.

Pure: the office's audited actions (``office.storage.store`` admin rows) in, values out; the ledger
applies them (``office.views.ledger.build_from``). Nothing the halls sent is changed.

- Rules 001 'Waiting period': a late team loses the match by forfeit; "in the event of two
  forfeits due to a late start, the team will be eliminated from the tournament and the
  results of their match will be voided". The office reads that as every group match of the
  team voided, the forfeits included: the group tables are ranked again without them (the
  other teams' results against it go too) and without the team, whose place in its group is
  taken by the teams below it.
- Rules 001 "Player's start": "any unauthorized start by a player will result in a 0:5
  forfeit and the player's expulsion from the tournament": the team loses by the forfeit
  score and the player is suspended for the rest of the tournament (listed in every
  ``next`` of his team).
- Rules 003 'Match officials': "green cards are given to one fair-play player of each team":
  one card per team and match; a second is refused unless it replaces the first (audited
  with its reason).

Choices where the rules are silent:
- The forfeit score is the match's preset's (``[forfeit] goals``, arena/presets), for
  lateness and an unauthorised start alike, as the hall records a forfeit: 0:5 in ice
  hockey and floorball (rules 000 'Rules' gives a late team "a technical loss, with the
  result of 0:5"; rules 001 "Player's start" names "a 0:5 forfeit"), 0:3 in football
  (rules 003 names none: the presets cite football's usual 3:0). ``forfeitscore`` reads it.
- A forfeit stands while it is the match's latest office result: an ``office correct`` after
  it (a protest upheld) replaces it, and it then counts towards no elimination or expulsion.
- An eliminated team's bracket matches already played keep their results (the bracket has
  moved on from them); one it would still play is the office's to decide (a warning says so).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from arena.tournament.model import ScheduledMatch, Tournament

# The office's admin row kinds (office.storage.store.admin): read back by ``forfeit_of`` and
# ``green_cards_of``.
FORFEIT = "forfeit"
GREEN_CARD = "green_card"

LATE_FORFEITS_TO_ELIMINATE = 2  # rules 001 'Waiting period'
WAITING_PERIOD = "rules 001 'Waiting period'"
PLAYERS_START = "rules 001 'Player's start'"
FAIR_PLAY = "rules 003 'Match officials'"


class ForfeitCause(StrEnum):
    LATE = "late"  # rules 001 'Waiting period'
    UNAUTHORISED = "unauthorised"  # rules 001 "Player's start"

    @property
    def rule(self) -> str:
        return WAITING_PERIOD if self is ForfeitCause.LATE else PLAYERS_START


@dataclass(frozen=True, slots=True)
class Forfeit:
    """The office awarded ``match`` against ``team`` (it lost by the preset's forfeit
    score)."""

    match: str
    team: str
    cause: ForfeitCause
    reason: str
    at: datetime
    player: int | None = None  # UNAUTHORISED: the player who started without the right

    def score(self, side: str, goals: int) -> tuple[int, int]:
        """(home, away) goals when ``team`` is the ``side`` ("home"/"away") and the match's
        preset gives a forfeit ``goals`` against (``forfeitscore.forfeit_goals``)."""
        return (0, goals) if side == "home" else (goals, 0)


@dataclass(frozen=True, slots=True)
class GreenCard:
    """Rules 003: the fair-play player of one team in one match."""

    match: str
    team: str
    player: int
    at: datetime
    reason: str = ""  # why it replaced an earlier card (empty for the first)
    name: str | None = None  # from the team's roster


@dataclass(frozen=True, slots=True)
class Elimination:
    """Rules 001 'Waiting period': ``team`` forfeited ``forfeits`` for being late; the
    results of ``voided`` (its group matches) do not count."""

    team: str
    forfeits: tuple[str, ...]
    voided: tuple[str, ...]


def forfeit_of(data: Mapping[str, Any], at: datetime) -> Forfeit:
    """A stored ``forfeit`` action as the value it records."""
    player = data.get("player")
    return Forfeit(match=str(data["match"]), team=str(data["team"]),
                   cause=ForfeitCause(str(data["cause"])), reason=str(data["reason"]), at=at,
                   player=int(player) if player is not None else None)


def forfeit_data(forfeit: Forfeit, side: str, goals: int) -> dict[str, Any]:
    """The admin row of a forfeit: its score too, so it is read back as a correction
    without the bracket or the preset (the side is the one the team played on when it was
    awarded, ``goals`` the preset's forfeit score then)."""
    home, away = forfeit.score(side, goals)
    return {"match": forfeit.match, "team": forfeit.team, "side": side,
            "cause": forfeit.cause.value, "player": forfeit.player, "reason": forfeit.reason,
            "home": home, "away": away}


def green_cards_of(actions: Iterable[tuple[str, Mapping[str, Any], datetime]]
                   ) -> list[GreenCard]:
    """The green cards recorded, in the order recorded, from (kind, data, at) admin rows;
    a later card for the same team and match replaces the earlier one (``current_cards``)."""
    return [GreenCard(match=str(data["match"]), team=str(data["team"]),
                      player=int(data["player"]), at=at, reason=str(data.get("reason") or ""))
            for kind, data, at in actions if kind == GREEN_CARD]


def current_cards(tournament: Tournament, cards: Sequence[GreenCard]) -> tuple[GreenCard, ...]:
    """The card that stands for each team and match of ``tournament`` (the latest), with
    the player's name from the roster, in schedule order."""
    latest: dict[tuple[str, str], GreenCard] = {}
    for card in cards:
        if tournament.match(card.match) is not None:
            latest[card.match, card.team] = card  # a replacement keeps the first's place
    order = {m.id: i for i, m in enumerate(tournament.matches)}
    out: list[GreenCard] = []
    for card in sorted(latest.values(), key=lambda c: order[c.match]):
        entry = tournament.teams.get(card.team)
        name = entry.roster.get(card.player) if entry is not None else None
        out.append(GreenCard(card.match, card.team, card.player, card.at, card.reason, name))
    return tuple(out)


def eliminations(tournament: Tournament, forfeits: Sequence[Forfeit], *,
                 order: Mapping[str, int] | None = None,
                 group_matches: Mapping[str, tuple[str, ...]] | None = None
                 ) -> tuple[Elimination, ...]:
    """Teams with two standing late forfeits, in the order of their second one; each with
    its group matches, whose results are voided.

    ``order`` (match -> schedule index) and ``group_matches`` (team -> the group matches
    naming it, in schedule order) may be handed in by a caller that keeps them (the fold,
    after every ruling), so as not to read the whole schedule again."""
    late: dict[str, list[str]] = {}
    if order is None:
        order = {m.id: i for i, m in enumerate(tournament.matches)}
    for f in sorted(forfeits, key=lambda f: order.get(f.match, len(order))):
        if f.cause is ForfeitCause.LATE and f.match in order:
            late.setdefault(f.team, []).append(f.match)
    out: list[Elimination] = []
    for team, matches in late.items():
        if len(matches) < LATE_FORFEITS_TO_ELIMINATE:
            continue
        voided = group_matches.get(team, ()) if group_matches is not None \
            else tuple(m.id for m in tournament.matches
                       if m.group is not None and team in _named(m))
        out.append(Elimination(team, tuple(matches), voided))
    return tuple(out)


def group_matches_by_team(tournament: Tournament) -> dict[str, tuple[str, ...]]:
    """Each team's group matches in schedule order (``eliminations``' ``group_matches``)."""
    out: dict[str, list[str]] = {}
    for m in tournament.matches:
        if m.group is not None:
            for team in dict.fromkeys(_named(m)):
                if team is not None:
                    out.setdefault(team, []).append(m.id)
    return {team: tuple(ids) for team, ids in out.items()}


def _named(m: ScheduledMatch) -> tuple[str | None, str | None]:
    return (m.home.team, m.away.team)
