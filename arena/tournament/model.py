"""The office's values: a tournament, its schedule, results and group tables.

Pure and frozen. The ranking rules themselves (points, tie-break criteria, protest window,
suspensions) are the preset's ``StandingsRules`` (``arena.core.preset``), overridden
by the tournament file where it says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from arena import wire
from arena.core.phase import Stage
from arena.core.preset import StandingsRules

# The scoreboard's own: a result is decided the same way in the hall and in the office, and
# a match has the same stages there.
from arena.core.values import DecidedBy

__all__ = [
    "DecidedBy", "Draw", "GameResult", "GoalEntry", "Group", "GroupTable", "MatchOutcome",
    "PenaltyEntry",
    "ResultState", "Row", "ScheduledMatch", "Slot", "SlotKind", "Stage", "TeamEntry",
    "Tournament",
]


@dataclass(frozen=True, slots=True)
class TeamEntry:
    name: str
    short: str
    colours: tuple[str, str] | None = None  # '#rrggbb' shirt and number; None: by side
    roster: Mapping[int, str] = field(default_factory=dict)  # number -> player's name


@dataclass(frozen=True, slots=True)
class Group:
    name: str
    teams: tuple[str, ...]


class SlotKind(StrEnum):
    TEAM = "team"  # a team named in the file
    GROUP_PLACE = "group_place"  # "A1": first of group A
    WINNER = "winner"  # "W:SF1"
    LOSER = "loser"  # "L:SF1"


@dataclass(frozen=True, slots=True)
class Slot:
    """One side of a scheduled match: a team, or a placeholder the bracket fills."""

    text: str  # as written in the file
    kind: SlotKind
    team: str | None = None  # TEAM
    group: str | None = None  # GROUP_PLACE
    place: int | None = None  # GROUP_PLACE, 1-based
    match: str | None = None  # WINNER / LOSER

    def label(self) -> str:
        """What a person reads before the slot is filled ("1st A", "Winner SF1")."""
        if self.kind is SlotKind.TEAM:
            assert self.team is not None
            return self.team
        if self.kind is SlotKind.GROUP_PLACE:
            return f"{_ordinal(self.place or 0)} {self.group}"
        return f"{'Winner' if self.kind is SlotKind.WINNER else 'Loser'} {self.match}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    id: str
    stage: Stage
    group: str | None  # None for bracket matches
    hall: str
    start: datetime  # local wall time of the tournament, naive
    home: Slot
    away: Slot
    preset: str  # the match's own or the tournament's default
    # How long the match holds its hall (and its teams): the file's `slot_minutes`, else the
    # preset's periods and breaks. 0: unknown (then only equal starts clash).
    length: timedelta = timedelta(0)

    @property
    def end(self) -> datetime:
        return self.start + self.length


@dataclass(frozen=True, slots=True)
class Tournament:
    name: str
    id: str
    preset: str
    teams: Mapping[str, TeamEntry]  # by name, in file order
    groups: tuple[Group, ...]
    matches: tuple[ScheduledMatch, ...]  # in start order (file order breaks ties)
    rules: StandingsRules
    # What the schedule check found worth a look but not a refusal (a team playing back to
    # back, home and away unbalanced): shown with the ledger's warnings.
    warnings: tuple[str, ...] = ()
    # The language of what the public reads (the public site): one of
    # arena.words.LANGUAGES.
    language: str = "en"

    def match(self, match_id: str) -> ScheduledMatch | None:
        for m in self.matches:
            if m.id == match_id:
                return m
        return None

    def group(self, name: str) -> Group | None:
        for g in self.groups:
            if g.name == name:
                return g
        return None

    def group_matches(self, group: str) -> tuple[ScheduledMatch, ...]:
        return tuple(m for m in self.matches if m.group == group)

    def halls(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.hall for m in self.matches))


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished match as the tables count it (one line of a results JSONL file)."""

    match: str
    home: str
    away: str
    home_goals: int
    away_goals: int
    decided_by: DecidedBy = DecidedBy.REGULATION
    home_pim: int = 0  # penalty minutes
    away_pim: int = 0

    @property
    def winner(self) -> str | None:
        if self.home_goals == self.away_goals:
            return None
        return self.home if self.home_goals > self.away_goals else self.away

    @property
    def loser(self) -> str | None:
        if self.home_goals == self.away_goals:
            return None
        return self.away if self.home_goals > self.away_goals else self.home

    def to_json(self) -> dict[str, Any]:
        return {
            "match": self.match, "home": self.home, "away": self.away,
            "score": {"home": self.home_goals, "away": self.away_goals},
            "decided_by": self.decided_by.value,
            "penalty_minutes": {"home": self.home_pim, "away": self.away_pim},
        }


@dataclass(frozen=True, slots=True)
class Draw:
    """Lots drawn by the office for a group: teams in ``order`` rank in that order wherever
    they are still level after every criterion. ``seed`` is kept when the office let the
    machine draw (``office draw-lots --random``), so the draw can be checked."""

    group: str
    order: tuple[str, ...]
    seed: int | None = None
    category: str | None = None  # in an event of several categories (group names repeat)


# A group table's row is the wire's (``arena.wire.Row``): the one row the office ranks, the
# topic carries and the hall's display reads. Its ``decided_by`` holds the ``Criterion``
# that placed it above the next row (a str enum: it is written as its value).
Row = wire.Row


@dataclass(frozen=True, slots=True)
class GroupTable:
    name: str
    rows: tuple[Row, ...]
    provisional: bool = False  # counts a result not yet confirmed
    complete: bool = False  # every group match has a result
    # A group match's result is under review: the order may still change at the office's
    # word, so the bracket fills nothing from this table (not part of the wire's table).
    under_review: bool = False

    def to_json(self) -> dict[str, Any]:
        return wire.table_document(self.name, self.rows,
                                   self.provisional, self.complete)


class ResultState(StrEnum):
    """scheduled -> live -> final (the hall's last event) -> confirmed (the protest window
    passed) ; corrected (by the office, audited) replaces any of them.

    needs_review: a final that does not fit the schedule as the office sees it (the hall
    played other teams than the pairing names, or a bracket match while its teams were not
    known). It never becomes confirmed by itself: the office corrects it or resolves it
    (``office review``: keep, swap or replay, audited)."""

    SCHEDULED = "scheduled"
    LIVE = "live"
    FINAL = "final"
    CONFIRMED = "confirmed"
    CORRECTED = "corrected"
    NEEDS_REVIEW = "needs_review"

    @property
    def has_result(self) -> bool:
        """A result the bracket and the tables may count (not one under review)."""
        return self in (ResultState.FINAL, ResultState.CONFIRMED, ResultState.CORRECTED)

    @property
    def settled(self) -> bool:
        """No longer provisional."""
        return self in (ResultState.CONFIRMED, ResultState.CORRECTED)


@dataclass(frozen=True, slots=True)
class PenaltyEntry:
    """A penalty from a match record, with the team by name."""

    team: str
    player: int
    kind: str  # the preset's penalty kind ("game_misconduct", "match", ...)
    minutes: int


@dataclass(frozen=True, slots=True)
class GoalEntry:
    """A goal from a match record, with the team by name (the top scorers count these)."""

    team: str
    player: int | None  # None: the scorer was not entered
    period: int
    clock_ms: int


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """What the office knows of one scheduled match: its state, its result once there is
    one, and the penalties and goals of its record (for the suspensions, the scorers)."""

    match: str
    state: ResultState
    result: GameResult | None = None
    penalties: tuple[PenaltyEntry, ...] = ()
    goals: tuple[GoalEntry, ...] = ()
