"""The match day (docs/timekeeper.md, "The match day"): the board's match's scheduled start
mapped onto the match timeline once the wall clock is known, the pregame's timetable the core
counts down to, and the timekeeper's schedule line (how far the hall runs behind)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, TypedDict

from arena.core.catchup import catch_up, describe, due_end
from arena.core.match import Match
from arena.core.pregame import pregame_plan
from arena.core.units import NS_PER_MS, NS_PER_S
from arena.timesource import WallClock
from firmware_py.logfmt import kv
from firmware_py.loglines import seconds
from firmware_py.matchday import MatchDay, Scheduled

if TYPE_CHECKING:
    from firmware_py.daemon import Daemon

log = logging.getLogger("firmware_py.daemon")

# The wall clock, not synchronised at start, is looked at again this often (real time): once
# it is, a scheduled start can be mapped onto the match timeline (firmware_py/matchday.py).
WALL_RETRY_NS = 5 * NS_PER_S
# The timekeeper's schedule line is recomputed this often (real time) while a match with a
# scheduled start is on the board: a stopped clock keeps the game time, not the hall's.
SCHEDULE_VIEW_NS = NS_PER_S


class ScheduleLine(TypedDict):
    """The timekeeper's schedule line: a suggestion only, never applied."""

    behind_ms: int
    periods: int
    period_ms: int | None
    clock_ms: int | None
    text: str


class Timetable:
    """The board's match's place in the day."""

    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon
        self.wall: WallClock | None = daemon.time.wall()
        self._wall_retry = 0  # real time: when to look at an unknown wall clock again
        self._matchday = MatchDay()
        self.scheduled: Scheduled | None = None
        self.view_at: int | None = None  # match time: rebuild the schedule line then

    def tick(self, now: int) -> None:
        """The board's match's scheduled start on the match timeline, and the pregame's
        timetable the core counts down to and sounds the warm-up's horn by. Nothing of it is
        journalled: it is mapped again after a restart."""
        daemon = self._daemon
        clock = daemon.time
        if self.wall is None and clock.monotonic_ns() >= self._wall_retry:
            self.wall = clock.wall()
            self._wall_retry = clock.monotonic_ns() + WALL_RETRY_NS
        session = daemon.session_on_board()
        match = session.recorder.match
        scheduled = self._matchday.scheduled(session.match_id, daemon.loader.loaded_next,
                                             daemon.plan.next_in_hall(), now=now,
                                             wall=self.wall, scale=daemon.timeline.scale)
        if scheduled != self.scheduled:
            self.scheduled = scheduled
            self.view_at = now  # the timekeeper's line at once
        plan = None if scheduled is None else pregame_plan(match.preset, scheduled.start)
        if match.pregame == plan:
            return
        match.schedule(plan)
        if plan is not None:
            kv(log, logging.INFO, "pregame scheduled", match=session.match_id,
               start_in=seconds(plan.start - now),
               steps=",".join(span.step.name.lower() for span in plan.spans),
               warmup_horn_in=None if plan.horn is None else seconds(plan.horn.start - now))
        daemon.horn_on_board().poke()  # the warm-up's horn is a deadline of the horn's thread
        daemon.dirty = True

    def line(self, at: int) -> ScheduleLine | None:
        """The timekeeper's schedule line at ``at`` (``schedule_line``)."""
        scheduled = self.scheduled
        return None if scheduled is None else schedule_line(self._daemon.match, scheduled, at)


def schedule_line(match: Match, scheduled: Scheduled, at: int) -> ScheduleLine | None:
    """The timekeeper's schedule line at ``at`` (arena/core/catchup.py): how far the hall
    runs behind and what shortened periods would bring it back. Pure: ``scoreboard replay``
    shows the same line."""
    due = due_end(match, scheduled.start, scheduled.next_start)
    result = None if due is None else catch_up(match, at, scheduled.start, due)
    if result is None:
        return None
    return {"behind_ms": result.behind // NS_PER_MS, "periods": result.periods,
            "period_ms": None if result.period_length is None
            else result.period_length // NS_PER_MS,
            "clock_ms": None if result.clock is None else result.clock // NS_PER_MS,
            "text": describe(result)}
