"""The match day's clock in the shell: the scheduled start, a wall time, as an instant on the
match timeline, for the core's pregame (arena/core/pregame.py) and the timekeeper's
schedule line (arena/core/catchup.py). docs/timekeeper.md, "The match day".

The office's ``next`` (and the local schedule's document shaped like it) names the start
as local wall time to the minute (``"2026-05-16T10:30"``). The core never reads a clock, so
the shell maps it once, with the time source's wall clock, and only once that clock is known
to be synchronised (a Pi has no battery clock):

    start = now + (scheduled wall time - wall clock now)

The mapping is made once per match and kept: the plan's instants (the warm-up's horn) then
stay fixed while the loop runs; a restart maps it again (the plan is never journalled). A
scheduled time that is not a valid ISO time is no schedule: today's pregame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from arena.core.units import NS_PER_MS
from arena.timesource import WallClock


def wall_seconds(text: object) -> float | None:
    """A ``scheduled`` ISO local time as seconds since the epoch; None if it is not one.
    A naive time is the hall's local time (the tournament's), as the office writes it."""
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


@dataclass(frozen=True, slots=True)
class Scheduled:
    """A match's scheduled start and the hall's next match's (None: not known), as instants
    on the match timeline."""

    match: str
    start: int
    next_start: int | None


class MatchDay:
    """Keeps the mapping of the board's match: made once it can be, then kept."""

    def __init__(self) -> None:
        self._kept: Scheduled | None = None
        self._key: tuple[str, object, object] | None = None

    def scheduled(self, match: str, doc: Mapping[str, Any] | None, next_scheduled: str | None,
                  *, now: int, wall: WallClock | None, scale: Fraction = Fraction(1)
                  ) -> Scheduled | None:
        """``doc``: the ``next`` the board's match came from (None: the config's match, no
        time known); ``next_scheduled``: the hall's next match's start from the local
        schedule; ``now``: the match timeline's now; ``scale``: how much faster match time
        runs than real time (``--time-scale``: a wall-clock minute is that many on it)."""
        if doc is None or doc.get("match") != match:
            return None
        key = (match, doc.get("scheduled"), next_scheduled)
        if key == self._key:
            return self._kept
        start_wall = wall_seconds(doc.get("scheduled"))
        if start_wall is None or wall is None:
            return None  # not yet: the wall clock may still be synchronised later
        wall_now = wall()
        next_wall = wall_seconds(next_scheduled)
        self._key = key
        self._kept = Scheduled(match, _instant(start_wall, wall_now, now, scale),
                               None if next_wall is None
                               else _instant(next_wall, wall_now, now, scale))
        return self._kept


def _instant(at_wall: float, wall_now: float, now: int, scale: Fraction) -> int:
    """Whole milliseconds from now: a float epoch time is only ~0.2 µs fine, and a
    synchronised wall clock is good to a few ms anyway; so the instants are clean."""
    ms = round((at_wall - wall_now) * 1000)
    return now + ms * NS_PER_MS * scale.numerator // scale.denominator
