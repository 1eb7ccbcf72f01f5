"""The commands of play: the clock (start, stop, set, next, end), goals, time-outs, the
shootout's shots, the horn button and a forfeit.

Each handler works on a ``Step`` and refuses (``Refused``) only for reasons beyond the
phase: ``machine.GRID`` has already said whether the phase allows the command at all.
"""

from __future__ import annotations

from dataclasses import replace

from . import machine
from . import shifts as shift_rules
from . import shootout as shootout_rules
from .commands import End, Forfeit, Goal, Horn, Next, SetClock, Shot, Start, Stop, Timeout
from .course import PhaseCourse
from .errors import Refused, because
from .events import EventKind
from .lengths import phase_length
from .machine import Trigger
from .penalties import Change
from .phase import Phase, Team
from .shootout import ShotRecord
from .step import Step, score_json
from .undo import UndoKind
from .units import Nanos, ceil_ms, ms
from .values import DecidedBy, GoalRecord, HornSignal, TimeoutState


class Plays(PhaseCourse):
    def _start(self, step: Step, cmd: Start, at: Nanos) -> None:
        s = step.state
        if s.clock.running and s.phase.is_play:
            raise Refused("start", because("running", "the clock is already running"))
        if s.timeout is not None:
            self._end_timeout(step, at, early=True)  # play resumes: the time-out is over
        if s.phase.is_break:
            # A break ends early when the teams are ready: the next period starts at once.
            self._end_break(step, at, early=True)
        elif s.phase is Phase.PREGAME:
            unknown = [t.name for t in (self.setup.home, self.setup.away) if t.placeholder]
            if unknown:
                raise Refused("start", because("teams_unknown", f"teams not known: "
                                               f"{', '.join(unknown)}"))
            self._enter(step, Trigger.START)
        s = step.state
        if not s.started:
            # Play begins: like a phase change, nothing before it can be undone across it.
            step.set(epoch=s.epoch + 1)
            step.emit(at, EventKind.PERIOD_STARTED, period=s.period, phase=s.phase.value)
        s = step.state
        step.set(clock=s.clock.start(at), started=True)
        step.emit(at, EventKind.CLOCK_STARTED, period=s.period,
                  clock_ms=ceil_ms(s.clock.remaining(at)))

    def _stop(self, step: Step, cmd: Stop, at: Nanos) -> None:
        s = step.state
        if not s.clock.running:
            raise Refused("stop", machine.STOPPED)
        step.set(clock=s.clock.stop(at))
        step.emit(at, EventKind.CLOCK_STOPPED, period=s.period,
                  clock_ms=ceil_ms(step.state.clock.remaining(at)))

    def _goal(self, step: Step, cmd: Goal, at: Nanos) -> None:
        s = step.state
        if s.phase is Phase.INTERMISSION:
            # Entered during the break: it was scored in the period that just ended.
            period, clock_ms = s.period - 1, 0
        else:
            period, clock_ms = s.period, ceil_ms(s.clock.remaining(at))
        seq = s.seq + 1
        goals = (*s.goals, GoalRecord(seq, cmd.team, cmd.player, period, clock_ms, at))
        step.set(goals=goals)
        score = step.state.score()
        step.emit(at, EventKind.GOAL, team=cmd.team.value, player=cmd.player, period=period,
                  clock_ms=clock_ms, score=score_json(score))
        elapsed = self.elapsed(s, at)
        changes: tuple[Change, ...] = ()
        # The preset's decision.sudden_death: the first goal in overtime ends the match.
        golden = s.phase is Phase.OVERTIME and self.preset.decision.sudden_death
        if not golden and self.strength(s, cmd.team) > self.strength(s, cmd.team.other):
            changes = self._release(step, cmd.team.other, elapsed, seq, at)
        if golden:
            step.set(clock=s.clock.stop(at) if s.clock.running else s.clock)
            self._finish(step, at, DecidedBy.OVERTIME)
        self._push_undo(step, UndoKind.GOAL, seq, at, elapsed=elapsed, changes=changes)

    def _timeout(self, step: Step, cmd: Timeout, at: Nanos) -> None:
        s = step.state
        rules = self.preset.timeouts
        if rules is None:
            why = self.preset.cite("timeouts.per_team")
            raise Refused("timeout", because("no_timeouts", f"the {self.preset.name} rules "
                                             "have no time-outs" + (f": {why}" if why else "")))
        if self.setup.stage.played_as not in rules.stages:
            allowed = " or ".join(sorted(st.value for st in rules.stages))
            raise Refused("timeout", because(
                "timeout_stage", f"time-outs are allowed only in the {allowed} stage, this is "
                f"a {self.setup.stage.value} match", stage=self.setup.stage.value))
        if s.timeout is not None:
            raise Refused("timeout", because("timeout_running", f"a time-out of "
                                             f"{s.timeout.team.value} is running",
                                             team=s.timeout.team.value))
        if s.clock.running:
            raise Refused("timeout", because("timeout_clock", "a time-out is taken with the "
                                             "game clock stopped"))
        used = s.timeouts_used[0 if cmd.team is Team.HOME else 1]
        if used >= rules.per_team:
            raise Refused("timeout", because("timeouts_used", f"{cmd.team.value} has used "
                                             f"its {rules.per_team} time-out"
                                             f"{'s' if rules.per_team > 1 else ''}",
                                             team=cmd.team.value, n=rules.per_team))
        home, away = s.timeouts_used
        step.set(timeout=TimeoutState(cmd.team, at, at + rules.length),
                 timeouts_used=(home + 1, away) if cmd.team is Team.HOME else (home, away + 1))
        seq = step.emit(at, EventKind.TIMEOUT_STARTED, team=cmd.team.value,
                        length_ms=ceil_ms(rules.length))
        self._push_undo(step, UndoKind.TIMEOUT, seq, at, team=cmd.team)

    def _shot(self, step: Step, cmd: Shot, at: Nanos) -> None:
        s = step.state
        rules = self.preset.shootout
        # The table admits shots only in the shootout phase, which only a preset with a
        # shootout reaches, and a decided shootout is final at once: never decided here.
        assert rules is not None
        why = shootout_rules.refusal(
            rules, s.shots, cmd.team, cmd.player, self.barred(s), order=self._shootout_order,
            first_series_rule=self.preset.cite("shootout.distinct_first_series"))
        if why is not None:
            raise Refused("shot", why)
        seq = s.seq + 1
        shots = (*s.shots, ShotRecord(seq, cmd.team, cmd.player, cmd.scored))
        step.set(shots=shots)
        step.emit(at, EventKind.SHOT, team=cmd.team.value, player=cmd.player,
                  scored=cmd.scored, tally=self._tally(shots))
        if shootout_rules.winner(rules, shots) is not None:
            self._finish(step, at, DecidedBy.SHOOTOUT)
        self._push_undo(step, UndoKind.SHOT, seq, at)

    def _shootout_order(self, team: Team, shots: tuple[ShotRecord, ...]) -> str:
        """Why ``team`` opens the next round after ``shots``: the rule behind it."""
        rules = self.preset.shootout
        assert rules is not None
        if sum(1 for x in shots if x.team is team) >= rules.rounds and \
                rules.tiebreak_second_starts:
            rule = self.preset.cite("shootout.tiebreak_second_starts") or "the preset"
            return f"the team that shot second starts the tie-break: {rule}"
        if rules.first is None:
            return f"{team.value} took the first shot, so it opens every round"
        return self.preset.cite("shootout.first") or f"the preset: {team.value} starts"

    def _tally(self, shots: tuple[ShotRecord, ...]) -> dict[str, int]:
        return {team.value: sum(s.scored for s in shots if s.team is team) for team in Team}

    def _set_clock(self, step: Step, cmd: SetClock, at: Nanos) -> None:
        s = step.state
        limit = phase_length(self.preset, s.phase, s.period)
        value = ms(cmd.ms)
        if value > limit:
            raise Refused("set_clock", because(
                "clock_too_long", f"{cmd.ms} ms is more than the {ceil_ms(limit)} ms this "
                f"{'break' if s.phase.is_break else 'period'} lasts"))
        if value == 0 and s.phase is Phase.PREGAME:
            raise Refused("set_clock", because("clock_zero", "the first period cannot start "
                                               "at zero"))
        old = s.clock.remaining(at)
        step.set(clock=s.clock.set(at, value))
        self._resync_shifts(step, at)
        seq = step.emit(at, EventKind.CLOCK_SET, period=s.period, phase=s.phase.value,
                        from_ms=ceil_ms(old), to_ms=cmd.ms)
        # The whole state before it: undo replays what came after from there (``Match``).
        self._push_undo(step, UndoKind.SET_CLOCK, seq, at, delta=value - old, before=s)

    def _next(self, step: Step, cmd: Next, at: Nanos) -> None:
        s = step.state
        if s.phase.is_break:
            self._end_break(step, at, early=True)
            return
        if s.clock.running:
            raise Refused("next", because("clock_running", "the clock is running: stop it "
                                          "first (or use end)"))
        # A deliberate gesture (NEXT is held) with the clock stopped: end the period.
        self._end(step, End(at), at)

    def _end(self, step: Step, cmd: End, at: Nanos) -> None:
        before = step.state
        if before.phase.is_play:
            self._end_period(step, at, shortened=True)
        else:
            self._end_break(step, at, early=True)
        self._push_undo(step, UndoKind.END, step.state.seq, at, before=before)

    def _forfeit(self, step: Step, cmd: Forfeit, at: Nanos) -> None:
        s = step.state
        if s.phase is Phase.FINAL:
            raise Refused("forfeit", machine.OVER)
        before = s
        # Every clock stops with the match, a break's too (undo brings the break back).
        clock = s.clock.stop(at) if s.clock.running else s.clock
        step.set(clock=clock, forfeit=cmd.team)
        seq = step.emit(at, EventKind.FORFEIT, loser=cmd.team.value)
        self._finish(step, at, DecidedBy.FORFEIT)
        self._push_undo(step, UndoKind.FORFEIT, seq, at, before=before)

    def _horn(self, step: Step, cmd: Horn, at: Nanos) -> None:
        s = step.state
        sounding = s.horn_manual is not None and s.horn_manual.sounding(at)
        if cmd.on == sounding:
            return  # a release after the cap, or a second press: nothing changes
        if cmd.on:
            horn = HornSignal(at, at + self.preset.horn.manual_cap)
        else:
            assert s.horn_manual is not None
            horn = replace(s.horn_manual, end=at)
        step.set(horn_manual=horn)
        step.emit(at, EventKind.HORN, reason="manual", on=cmd.on,
                  length_ms=ceil_ms(horn.end - horn.start) if cmd.on else None)

    def _resync_shifts(self, step: Step, at: Nanos) -> None:
        """After a clock correction the next line change is the next one after the new time."""
        mark = shift_rules.mark_at(self.preset, step.state, at)
        if mark is not None:
            step.set(shift_mark=mark)
