"""The match's values: what a match is set up with, what it records, and its whole state.

All frozen: ``Match`` replaces its ``MatchState`` on every change instead of mutating it, so
a reader (the display thread, the horn thread, the journal, undo) always holds a consistent
snapshot without a lock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .errors import Refused
from .events import Event
from .gameclock import GameClock
from .penalties import Box
from .phase import Phase, Stage, Team
from .shootout import ShotRecord
from .units import Nanos

if TYPE_CHECKING:
    # Only for the annotation: an undo entry holds the state to rewind to, so the two
    # modules name each other; the state itself needs nothing of undo at run time.
    from .undo import Input, UndoEntry


class DecidedBy(StrEnum):
    REGULATION = "regulation"
    OVERTIME = "overtime"
    SHOOTOUT = "shootout"
    FORFEIT = "forfeit"


@dataclass(frozen=True, slots=True)
class TeamInfo:
    name: str
    colours: tuple[str, str]
    # Not a team yet: a bracket slot's label ("2nd B", "Winner SF1"). A match with one is
    # not played: START is refused until the office names the team.
    placeholder: bool = False
    # The players' names by shirt number, in number order (the office's tournament file,
    # through ``next``): only what the display shows of a scorer, never a rule's input, so
    # a number missing from it plays exactly as one in it.
    roster: tuple[tuple[int, str], ...] = ()

    def player_name(self, number: int | None) -> str | None:
        """The roster's name for this shirt number, if it has one."""
        return next((name for n, name in self.roster if n == number), None)


@dataclass(frozen=True, slots=True)
class MatchSetup:
    """What is known before the first press: from the office's ``next`` or the config."""

    match_id: str = "M1"
    stage: Stage = Stage.GROUP
    home: TeamInfo = TeamInfo("Home", ("#2f64c4", "#ffffff"))  # home dark (rules 000)
    away: TeamInfo = TeamInfo("Away", ("#f2f2f2", "#2f64c4"))


@dataclass(frozen=True, slots=True)
class GoalRecord:
    seq: int  # the goal event's seq: what undo names
    team: Team
    player: int | None
    period: int
    clock_ms: int  # time left on the period clock when it was scored
    at: int | None = None  # the press's instant (ns): the display shows the scorer a while


@dataclass(frozen=True, slots=True)
class Result:
    home: int
    away: int
    decided_by: DecidedBy

    def to_json(self) -> dict[str, Any]:
        return {"home": self.home, "away": self.away, "decided_by": self.decided_by.value}


@dataclass(frozen=True, slots=True)
class HornSignal:
    """The horn sounds from ``start`` until ``end``; whether it sounds now is derived from
    the instant, so a horn ends by itself without an event or a timer. (Why it sounds is in
    its HORN event.)"""

    start: Nanos
    end: Nanos

    def sounding(self, now: Nanos) -> bool:
        return self.start <= now < self.end


@dataclass(frozen=True, slots=True)
class HornOutlook:
    """What the horn does at an instant, as the core sees it: whether it sounds, and the
    next instant at which that may change (``None``: nothing is scheduled; only a new
    command can start a horn)."""

    on: bool
    next_change: Nanos | None


@dataclass(frozen=True, slots=True)
class TimeoutState:
    """A running time-out: a real-time countdown, horn at its end (rules 001 'Time-out')."""

    team: Team
    start: Nanos
    end: Nanos


@dataclass(frozen=True, slots=True)
class MatchState:
    clock: GameClock
    phase: Phase = Phase.PREGAME
    period: int = 1  # during a break: the period that follows
    started: bool = False  # the current period's clock has run
    goals: tuple[GoalRecord, ...] = ()
    forfeit: Team | None = None  # the team that lost by forfeit
    result: Result | None = None
    horn_auto: HornSignal | None = None
    horn_manual: HornSignal | None = None
    undo: tuple[UndoEntry, ...] = ()
    epoch: int = 0  # counts phase changes: an undo may not reach across one it did not cause
    played: Nanos = 0  # game time of the periods before the current one (penalties run on it)
    box: Box = ()  # every penalty of the match, served or not
    shift_mark: Nanos = 0  # period game time of the last line change (rules 002)
    timeout: TimeoutState | None = None
    timeouts_used: tuple[int, int] = (0, 0)  # home, away
    shots: tuple[ShotRecord, ...] = ()
    barred: frozenset[tuple[Team, int]] = frozenset()  # may not shoot (rules 002)
    cancelled: frozenset[int] = frozenset()  # seqs of goals and penalties struck by cancel
    # The commands taken since the oldest clock correction still undoable (else empty): what
    # undo replays from the state before a correction to take the whole of it back.
    inputs: tuple[Input, ...] = ()
    seq: int = 0  # seq of the latest event
    last_at: Nanos | None = None  # instant of the latest event

    def score(self) -> dict[Team, int]:
        score = {Team.HOME: 0, Team.AWAY: 0}
        for goal in self.goals:
            score[goal.team] += 1
        return score

    def entered(self, phase: Phase, **changes: Any) -> MatchState:
        """This state moved into ``phase``. Every phase change counts in ``epoch``, which is
        what stops an undo from reaching back across a phase change it did not cause."""
        return replace(self, phase=phase, epoch=self.epoch + 1, **changes)


@dataclass(frozen=True, slots=True)
class Fed:
    """What feeding one command produced: the events (of time passing and of the command)
    and, if the rules refused the command, why."""

    events: list[Event]
    refused: Refused | None
