"""A match's final record: the ``data`` of its ``match_ended`` event, declared field by
field (``arena.core.record.match_record`` builds it). The office ranks and suspends from it
alone, so every field is checked, type and range, against the one table of limits."""

from __future__ import annotations

from typing import Any, TypedDict

from arena.core.values import DecidedBy

from .fields import STAGES
from .limits import LIMITS
from .schema import Field, Kind, Presence, Schema

L = LIMITS
DECIDED_BY = tuple(d.value for d in DecidedBy)
_OPTIONAL, _NULLABLE, _PRESENT = Presence.OPTIONAL, Presence.NULLABLE, Presence.PRESENT


def _sides(kind: Kind, presence: Presence = Presence.REQUIRED, **limits: Any) -> Schema:
    """``{"home": ..., "away": ...}``."""
    return Schema(tuple(Field(s, kind, presence, **limits) for s in ("home", "away")))


class Result(TypedDict):
    home: int
    away: int
    decided_by: str  # a DecidedBy value


RESULT = Schema((
    Field("home", Kind.INT, maximum=L.goals_max),
    Field("away", Kind.INT, maximum=L.goals_max),
    Field("decided_by", Kind.CHOICE, choices=DECIDED_BY, plain=True),
))
SCORE = _sides(Kind.INT, maximum=L.goals_max)
TEAMS = _sides(Kind.TEXT, nonempty=True)  # the teams' names: the limits' text rules
GOAL = Schema((
    Field("team", Kind.SIDE),
    Field("player", Kind.INT, _NULLABLE, maximum=L.player_max),  # null: the team's goal
    Field("period", Kind.INT, maximum=L.period_max),
    Field("clock_ms", Kind.INT, maximum=L.clock_ms_max),
))
PENALTY = Schema((
    Field("team", Kind.SIDE),
    Field("player", Kind.INT, maximum=L.player_max),
    Field("kind", Kind.TEXT, nonempty=True),
    Field("minutes", Kind.INT, maximum=L.minutes_max),
    # older halls sent only team, player, kind and minutes
    Field("period", Kind.INT, _OPTIONAL, maximum=L.period_max),
    Field("clock_ms", Kind.INT, _OPTIONAL, maximum=L.clock_ms_max),
    Field("coincidental", Kind.BOOL, _OPTIONAL),
    Field("ejected", Kind.BOOL, _OPTIONAL),
))
# A shot's player: a number, or null when the console keyed the shot without one (as a
# goal's scorer may be); never missing.
_SHOOTER = Field("player", Kind.INT, _PRESENT, maximum=L.player_max,
                 hint=" (null when the shooter was not keyed)")
SHOT = Schema((Field("team", Kind.SIDE), _SHOOTER, Field("scored", Kind.BOOL, _OPTIONAL)))
# Rules 000: the decisive goal is credited to the player who took the shot.
DECISIVE = Schema((Field("team", Kind.SIDE), _SHOOTER))
SHOOTOUT = Schema((
    Field("shots", Kind.ITEMS, schema=SHOT),
    Field("decisive", Kind.OBJECT, _NULLABLE, schema=DECISIVE),
))
RECORD = Schema((
    Field("match", Kind.TEXT),
    Field("preset", Kind.TEXT),
    Field("stage", Kind.CHOICE, choices=STAGES),
    Field("teams", Kind.OBJECT, schema=TEAMS),
    Field("result", Kind.OBJECT, _NULLABLE, schema=RESULT),
    Field("score", Kind.OBJECT, schema=SCORE),
    Field("goals", Kind.ITEMS, schema=GOAL),
    Field("penalties", Kind.ITEMS, schema=PENALTY),
    Field("penalty_minutes", Kind.OBJECT, _OPTIONAL,
          schema=_sides(Kind.INT, _OPTIONAL, maximum=L.goals_max * L.minutes_max)),
    Field("forfeit", Kind.SIDE, _NULLABLE),
    Field("shootout", Kind.OBJECT, _NULLABLE, schema=SHOOTOUT),
))
FINAL = Schema((
    Field("result", Kind.OBJECT, schema=RESULT),
    Field("record", Kind.OBJECT, schema=RECORD),
))


class Final(TypedDict):
    """A ``match_ended`` event's data, as ``FINAL`` declares it."""

    result: Result
    record: dict[str, Any]  # as ``RECORD`` declares it


def final_data(result: Result, record: dict[str, Any]) -> Final:
    """A ``match_ended`` event's data, its record checked against ``RECORD``'s fields
    (a record the office would refuse is a bug of the hall's, raised here: ``WireError``)."""
    data = FINAL.build(result=result, record=record)
    FINAL.check("match_ended", data, "data.")
    return Final(result=data["result"], record=data["record"])
