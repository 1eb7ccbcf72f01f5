"""The engine's ground floor: what a match is (its preset, setup and one immutable state)
and how game time is read off its clock.

The engine is built in floors, one job each, every floor a subclass of the one below so
that each reads the ones beneath it and nothing above:

- ``engine``: the state, game time, the shared moves (an automatic horn, the undo stack);
- ``strength``: penalties and how many play (``PenaltyDesk``);
- ``course``: the phases' course: periods, breaks, time-outs, line changes, the end
  (``PhaseCourse``; where a phase leads is ``machine.TRANSITIONS``);
- ``plays``: the commands of play: the clock, goals, time-outs, shots (``Plays``);
- ``corrections``: undo, cancel and correct (``Corrections``);
- ``match``: time passing and the dispatch of commands (``Match``, the public face).
"""

from __future__ import annotations

from . import shifts as shift_rules
from . import undo as undo_rules
from .events import EventKind
from .gameclock import GameClock
from .lengths import play_length
from .penalties import Change, ShiftEnd
from .phase import Phase, Team
from .pregame import Countdown, PregamePlan
from .preset import Preset
from .step import Step
from .undo import UndoKind
from .units import Nanos, ceil_ms
from .values import HornSignal, MatchSetup, MatchState


class MatchBase:
    """A match's preset, setup and state, and game time read off its clock."""

    def __init__(
        self, preset: Preset, setup: MatchSetup | None = None, state: MatchState | None = None
    ) -> None:
        self.preset = preset
        self.setup = setup or MatchSetup()
        self._state = state or MatchState(clock=GameClock.stopped_at(preset.period_length))
        # The match day's timetable before the first face-off (core/pregame.py), if the
        # shell knows when the match is scheduled. Derived, never journalled: it changes
        # nothing of the match, only what is shown and the warm-up's horn.
        self._pregame: PregamePlan | None = None
        # The last state's next deadline: the loop asks several times a frame, and a state
        # is immutable, so the answer holds until the state is replaced.
        self._deadline_of: tuple[MatchState, Nanos | None] | None = None

    @property
    def state(self) -> MatchState:
        return self._state

    @property
    def pregame(self) -> PregamePlan | None:
        return self._pregame

    def schedule(self, plan: PregamePlan | None) -> None:
        """Hand over the pregame's timetable (the shell built it from the scheduled start);
        None: the start is not known (today's pregame). Swapped as one reference, so the
        horn's thread reads either plan whole."""
        self._pregame = plan

    def countdown(self, now: Nanos) -> Countdown | None:
        """The pregame's countdown at ``now``: only while the match is in pregame."""
        plan = self._pregame
        if plan is None or self._state.phase is not Phase.PREGAME:
            return None
        return plan.countdown(now)

    def restore(self, state: MatchState) -> None:
        """Put back a state this match had: the recorder does so when the journal cannot be
        written, so that nothing is shown that is not on the disk."""
        self._state = state

    # ---------------------------------------------------------------- game time

    # Game time (``elapsed``): the coordinate penalties and line changes run on. It moves only
    # while a period's clock runs, so it is read off the clock and corrected with it.

    def play_length(self, s: MatchState) -> Nanos:
        """The length of the period being played or coming next."""
        return play_length(self.preset, s.phase)

    def elapsed(self, s: MatchState, now: Nanos) -> Nanos:
        if s.phase.is_play:
            return s.played + self.play_length(s) - s.clock.remaining(now)
        return s.played

    def _instant_of(self, s: MatchState, elapsed: Nanos) -> Nanos | None:
        """When the running clock reaches game time ``elapsed`` (None while stopped)."""
        if not s.phase.is_play or s.clock.anchor is None:
            return None
        at_anchor = s.played + self.play_length(s) - s.clock.remaining_at_anchor
        return s.clock.anchor + max(0, elapsed - at_anchor)

    def shift_end(self, s: MatchState) -> ShiftEnd | None:
        """Game time -> the end of the shift running then (rules 002 minors end there)."""
        return shift_rules.shift_end(self.preset, s)

    def _tied(self, s: MatchState) -> bool:
        score = s.score()
        return score[Team.HOME] == score[Team.AWAY]

    # ---------------------------------------------------------------- shared moves

    def _horn_auto(self, step: Step, at: Nanos, reason: str) -> None:
        horn = self.preset.horn
        length = horn.shift if reason == "shift" else horn.end
        signal = HornSignal(at, at + length)
        current = step.state.horn_auto
        if current is not None and current.sounding(at) and current.end > signal.end:
            # A horn already sounding longer (a period end over a line change) is not cut.
            signal = current
        step.set(horn_auto=signal)
        step.emit(at, EventKind.HORN, reason=reason, on=True, length_ms=ceil_ms(length))

    def _push_undo(self, step: Step, kind: UndoKind, seq: int, at: Nanos, *,
                   before: MatchState | None = None, delta: Nanos = 0, elapsed: Nanos = 0,
                   changes: tuple[Change, ...] = (), team: Team | None = None) -> None:
        step.state = undo_rules.pushed(step.state, kind, seq, at, before=before, delta=delta,
                                       elapsed=elapsed, changes=changes, team=team)
