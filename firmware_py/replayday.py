"""The match day of a replay (docs/developer.md, "Replay scripts"): the hall's clock of day and
the scheduled starts, put on the script's timeline as the daemon puts them on its own
(firmware_py/matchday.py), so ``scoreboard replay`` plays the pregame's countdowns, the
warm-up's horn and the timekeeper's schedule line.

A script's ``match_day`` line (or ``--clock``, ``--scheduled``, ``--next``) says what the
hall's clock reads at that line's ``t`` and when this match and the hall's next one are
scheduled. Times of day are ``HH:MM`` or ``HH:MM:SS``; a date-time as the tournament file
and the office write it (``2026-05-16T10:30``) is taken too. Two times that both have a date
are compared with it; otherwise by the time of day alone (one day, as a hall plays it). The
mapping is made once, at that line, and kept, as the daemon keeps its own:

    start = t + (scheduled - clock)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time

from arena.core.match import Match
from arena.core.pregame import pregame_plan
from arena.core.units import NS_PER_S, Nanos
from firmware_py.matchday import Scheduled
from firmware_py.timetable import ScheduleLine, schedule_line

DAY_S = 24 * 60 * 60
FIELDS = ("clock", "scheduled", "next")


@dataclass(frozen=True, slots=True)
class WallTime:
    """A wall time to the second: its date if given, and the seconds since midnight."""

    day: date | None
    second: int

    def minus(self, other: WallTime) -> int:
        """Whole seconds from ``other`` to this one."""
        if self.day is not None and other.day is not None:
            return (self.day - other.day).days * DAY_S + self.second - other.second
        return self.second - other.second

    def text(self) -> str:
        clock = f"{self.second // 3600:02d}:{self.second // 60 % 60:02d}:{self.second % 60:02d}"
        return clock if self.day is None else f"{self.day.isoformat()}T{clock}"


def parse_wall(value: object) -> WallTime:
    """``"10:30"``, ``"10:30:15"`` or ``"2026-05-16T10:30"``; a ``ValueError`` says why not."""
    if not isinstance(value, str):
        raise ValueError(f"must be a time of day like \"10:30\", got {value!r}")
    try:
        when = datetime.fromisoformat(value) if "T" in value else None
        clock = when.time() if when is not None else time.fromisoformat(value)
    except ValueError:
        raise ValueError(f"must be a time of day like \"10:30\" or \"10:30:15\" (or a "
                         f"date-time like \"2026-05-16T10:30\"), got {value!r}") from None
    return _wall(None if when is None else when.date(), clock, value)


def _wall(day: date | None, clock: time, text: str) -> WallTime:
    if clock.microsecond or clock.tzinfo is not None:
        raise ValueError(f"must be to the second, without a time zone, got {text!r}")
    return WallTime(day, clock.hour * 3600 + clock.minute * 60 + clock.second)


@dataclass(frozen=True, slots=True)
class MatchDay:
    """What a ``match_day`` line (or the command line) says; ``scheduled`` and ``next`` may
    come from elsewhere (the tournament file's match and the hall's next one)."""

    clock: WallTime | None = None
    scheduled: WallTime | None = None
    next: WallTime | None = None

    def over(self, base: MatchDay) -> MatchDay:
        """This day's fields, the ones it lacks from ``base``."""
        return MatchDay(self.clock or base.clock, self.scheduled or base.scheduled,
                        self.next or base.next)


def parse_day(obj: Mapping[str, object], where: str) -> MatchDay:
    """A ``match_day`` object; a ``ValueError`` names the field that is wrong."""
    unknown = sorted(set(obj) - set(FIELDS))
    if unknown:
        raise ValueError(f"{where}: unknown field {unknown[0]!r} in match_day (the fields: "
                         f"{', '.join(FIELDS)})")
    read: dict[str, WallTime] = {}
    for name in FIELDS:
        if name in obj:
            try:
                read[name] = parse_wall(obj[name])
            except ValueError as err:
                raise ValueError(f"{where}: match_day {name!r} {err}") from None
    return MatchDay(read.get("clock"), read.get("scheduled"), read.get("next"))


def scheduled_at(day: MatchDay, t: Nanos, match_id: str) -> Scheduled:
    """The day's starts as instants on the script's timeline, the hall's clock reading
    ``day.clock`` at ``t``; a ``ValueError`` if the clock or the start is not known."""
    if day.clock is None or day.scheduled is None:
        missing = "clock" if day.clock is None else "scheduled"
        raise ValueError(f"the match day needs '{missing}' (the hall's clock of day at its "
                         "line, and the scheduled start: from the line, --clock and "
                         "--scheduled, or the tournament file's match)")
    clock = day.clock
    nxt = None if day.next is None else t + day.next.minus(clock) * NS_PER_S
    return Scheduled(match_id, t + day.scheduled.minus(clock) * NS_PER_S, nxt)


class DayPlay:
    """The match day as the replay plays it: the pregame handed to the match at the line,
    and the timekeeper's schedule line at each snapshot."""

    def __init__(self) -> None:
        self.scheduled: Scheduled | None = None

    def begin(self, match: Match, scheduled: Scheduled) -> None:
        self.scheduled = scheduled
        match.schedule(pregame_plan(match.preset, scheduled.start))

    def line(self, match: Match, at: Nanos) -> ScheduleLine | None:
        return None if self.scheduled is None else schedule_line(match, self.scheduled, at)
