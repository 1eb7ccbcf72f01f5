"""The match state machine: commands in, events out.

``Match`` holds one immutable ``MatchState`` and replaces it on every change, so a reader (the
display thread, the journal, undo) always holds a consistent snapshot without a lock.

- ``advance(now)`` lets time pass: periods and breaks end at their exact deadlines, each an
  event stamped with the deadline, however late the caller noticed.
- ``apply(command)`` applies one command at its own instant or raises ``Refused`` and changes
  nothing. The caller must have advanced to the command's time first; ``feed`` does both.

A command never acts before the latest event (``last_at``): a press that was queued while
the loop already ended the period takes effect at the period's end, not inside it. That rule
makes the state a pure function of the sequence of inputs, so replaying a journal of the
inputs (commands, and advances that emitted events) rebuilds exactly the same state.

Beside it: the values a match holds (``values``), which command each phase allows and why
not (``machine``, one table), and what undo records and restores (``undo``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from . import machine
from . import penalties as box_rules
from . import shootout as shootout_rules
from . import undo as undo_rules
from .commands import (
    Cancel,
    Command,
    Correct,
    End,
    Forfeit,
    Goal,
    Horn,
    Next,
    Penalty,
    SetClock,
    Shot,
    Start,
    Stop,
    Timeout,
    Undo,
)
from .errors import Reason, Refused, because
from .events import Event, EventKind
from .gameclock import GameClock
from .penalties import Change, ShiftEnd
from .penalties import Penalty as ServedPenalty
from .phase import Phase, Team
from .pregame import Countdown, PregamePlan
from .preset import Preset
from .shootout import ShotRecord
from .undo import UndoEntry, UndoKind
from .units import NS_PER_S, Nanos, ceil_ms, ms
from .values import (
    DecidedBy,
    Fed,
    GoalRecord,
    HornOutlook,
    HornSignal,
    MatchSetup,
    MatchState,
    Result,
    TimeoutState,
)


@dataclass(slots=True)
class _Step:
    """A state being changed and the events that change emits."""

    state: MatchState
    events: list[Event] = field(default_factory=list)

    def emit(self, at: Nanos, kind: EventKind, /, **data: Any) -> int:
        seq = self.state.seq + 1
        last = at if self.state.last_at is None else max(at, self.state.last_at)
        self.state = replace(self.state, seq=seq, last_at=last)
        self.events.append(Event(seq, at, kind, data))
        return seq

    def set(self, **changes: Any) -> None:
        self.state = replace(self.state, **changes)

    def enter(self, phase: Phase, **changes: Any) -> None:
        self.state = self.state.entered(phase, **changes)


class Match:
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

    # ---------------------------------------------------------------- time

    # Game time (``elapsed``): the coordinate penalties and line changes run on. It moves only
    # while a period's clock runs, so it is read off the clock and corrected with it.

    def play_length(self, s: MatchState) -> Nanos:
        """The length of the period being played or coming next."""
        overtime = s.phase in (Phase.OVERTIME, Phase.OVERTIME_BREAK)
        length = self.preset.decision.overtime if overtime else self.preset.period_length
        return length or 0

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

    def _shifts_on(self, s: MatchState) -> bool:
        shifts = self.preset.shifts
        if shifts is None or s.phase in (Phase.SHOOTOUT, Phase.FINAL):
            return False
        if s.phase in (Phase.OVERTIME, Phase.OVERTIME_BREAK):
            return shifts.in_overtime
        return True

    def shift_end(self, s: MatchState) -> ShiftEnd | None:
        """Game time -> the end of the shift running then (rules 002 minors end there)."""
        shifts = self.preset.shifts
        if shifts is None or not self._shifts_on(s):
            return None
        played, length, shift = s.played, self.play_length(s), shifts.length

        def end(elapsed: Nanos) -> Nanos:
            return played + min(length, ((elapsed - played) // shift + 1) * shift)

        return end

    def _next_shift_change(self, s: MatchState) -> Nanos | None:
        """Period game time of the next line change, if one falls inside the period."""
        shifts = self.preset.shifts
        if shifts is None or not self._shifts_on(s):
            return None
        change = (s.shift_mark // shifts.length + 1) * shifts.length
        return change if change < self.play_length(s) else None

    def _due(self, s: MatchState) -> list[tuple[Nanos, int]]:
        """Everything that will fall due, as (instant, priority): at one instant penalties
        end first, then a time-out, then a line change, then the period or break."""
        due: list[tuple[Nanos, int]] = []
        expiry = box_rules.next_expiry(s.box) if s.phase.is_play else None
        if expiry is not None:
            instant = self._instant_of(s, expiry)
            if instant is None and s.last_at is not None and expiry <= self.elapsed(s, s.last_at):
                instant = s.last_at  # the clock was stopped exactly at its end
            if instant is not None:
                due.append((instant, 0))
        if s.timeout is not None:
            due.append((s.timeout.end, 1))
        change = self._next_shift_change(s)
        if change is not None and s.phase.is_play:
            instant = self._instant_of(s, s.played + change)
            if instant is not None:
                due.append((instant, 2))
        if (s.phase.is_play or s.phase.is_break) and s.clock.running:
            zero = s.clock.zero_at()
            assert zero is not None
            due.append((zero, 3))
        return due

    def next_deadline(self) -> Nanos | None:
        """The next instant at which ``advance`` will emit something, or ``None``."""
        s, known = self._state, self._deadline_of
        if known is not None and known[0] is s:
            return known[1]
        deadline = min((instant for instant, _ in self._due(s)), default=None)
        self._deadline_of = (s, deadline)
        return deadline

    def horn_sounding(self, now: Nanos) -> bool:
        """Whether the horn sounds at ``now``: an automatic signal or the manual button."""
        s, plan = self._state, self._pregame
        if plan is not None and s.phase is Phase.PREGAME and plan.horn_sounding(now):
            return True  # the warm-up's end (rules 002 presets)
        return any(h is not None and h.sounding(now) for h in (s.horn_auto, s.horn_manual))

    def horn_outlook(self, now: Nanos) -> HornOutlook:
        """Whether the horn sounds at ``now`` and the next instant after it at which that
        may change: what the horn relay follows.

        The horn of a deadline (a period's end) exists in the state only once ``advance``
        has passed that deadline, and the shell advances the match through the journal (an
        fsync) first. So this looks ahead on a scratch copy advanced to ``now``: the state
        is immutable, so the copy is cheap and this match is not touched, and replaying the
        journal reaches the same state, so the horn never sounds for something the journal
        will not hold. The state is read once: a caller on another thread gets a consistent
        answer while this match moves on. The warm-up's end horn (core/pregame.py) is the
        one horn not journalled: it comes from the schedule the shell handed over
        (``schedule``), sounds only while the match is in pregame and records nothing."""
        ahead = Match(self.preset, self.setup, self._state)
        ahead.schedule(self._pregame)
        ahead.advance(now)
        s = ahead.state
        horns = [h for h in (s.horn_auto, s.horn_manual) if h is not None]
        plan = ahead.pregame
        if plan is not None and plan.horn is not None and s.phase is Phase.PREGAME:
            horns.append(plan.horn)  # the warm-up's end: switched at its instant too
        # A horn edge, or the next deadline, which may start a horn.
        changes: list[Nanos | None] = [t for h in horns for t in (h.start, h.end)]
        changes.append(ahead.next_deadline())
        return HornOutlook(on=ahead.horn_sounding(now),
                           next_change=min((t for t in changes if t is not None and t > now),
                                           default=None))

    def start_stop(self, at: Nanos) -> Start | Stop:
        """What a press of the START/STOP button at ``at`` means: stop while the game clock
        runs (a period or overtime), start otherwise (begin the match or a period, resume
        play, or end a break early).

        Judged on the state as it stands, not advanced to ``at``: a press just after the
        clock reached zero, before the period's end has been processed, was meant to stop
        that clock. It stays a stop (refused, the period being over) and never becomes a
        start that would cut the intermission short."""
        s = self._state
        return Stop(at) if s.phase.is_play and s.clock.running else Start(at)

    def display_deadline(self, now: Nanos) -> Nanos | None:
        """The next instant after ``now`` at which the state document changes: a shown clock
        digit, a horn switching, a deadline. The display schedules its frames here."""
        s = self._state
        candidates = [s.clock.next_deadline(now, self.preset.tenths_below)]
        # Penalty, line-change and time-out countdowns are shown in whole seconds too, and
        # they are not in step with the game clock's seconds.
        countdowns: list[Nanos] = []
        if s.phase.is_play and s.clock.running:
            elapsed = self.elapsed(s, now)
            countdowns += [p.expiry - elapsed for p in s.box
                           if p.running and p.expiry is not None]
            change = self._next_shift_change(s)
            if change is not None:
                countdowns.append(s.played + change - elapsed)
        if s.timeout is not None:
            countdowns.append(s.timeout.end - now)
        candidates += [now + _to_next_second(left) for left in countdowns if left > 0]
        for horn in (s.horn_auto, s.horn_manual):
            if horn is not None:
                candidates += [t for t in (horn.start, horn.end) if t > now]
        goal = self.goal_shown(now)
        if goal is not None and goal.at is not None:  # the scorer leaves the screen then
            candidates.append(goal.at + GOAL_SHOWN)
        due = self.next_deadline()
        if due is not None and due > now:
            candidates.append(due)
        plan = self._pregame
        if plan is not None and s.phase is Phase.PREGAME:
            candidates += plan.changes(now)  # the pregame's countdown and its steps
        return min((c for c in candidates if c is not None), default=None)

    def goal_shown(self, now: Nanos) -> GoalRecord | None:
        """The goal the display shows its scorer for at ``now``: the newest one, during
        ``GOAL_SHOWN`` after its press (a cancelled goal is gone at once)."""
        goals = self._state.goals
        last = goals[-1] if goals else None
        if last is None or last.at is None or not last.at <= now < last.at + GOAL_SHOWN:
            return None
        return last

    def advance(self, now: Nanos) -> list[Event]:
        """Let time pass up to ``now``; everything that falls due happens at its deadline."""
        step = _Step(self._state)
        while True:
            self._state = step.state
            due = self.next_deadline()
            if due is None or due > now:
                break
            # Nothing happens before what has already happened: a break that an undo brought
            # back after it should have ended ends at the undo, not in the past.
            last = step.state.last_at
            at = due if last is None else max(due, last)
            kind = min(p for instant, p in self._due(step.state) if instant == due)
            if kind == 0:
                self._penalties_fall_due(step, at)
            elif kind == 1:
                self._end_timeout(step, at, early=False)
            elif kind == 2:
                self._change_lines(step, at)
            elif step.state.phase.is_play:
                self._end_period(step, at, shortened=False)
            else:
                self._end_break(step, at, early=False)
        return step.events

    # ---------------------------------------------------------------- commands

    def apply(self, command: Command) -> list[Event]:
        """Apply one command at its instant; raise ``Refused`` and change nothing if the
        rules refuse it now."""
        at = command.at if self._state.last_at is None else max(command.at, self._state.last_at)
        due = self.next_deadline()
        if due is not None and due <= at:
            raise ValueError(
                f"advance({at}) before applying {command.name}: something falls due at {due}"
            )
        # The phase table first: a handler then refuses only for reasons beyond the phase.
        why = machine.refusal(command, self._state.phase)
        if why is not None:
            raise Refused(command.name, why)
        handler = self._handlers()[type(command)]
        step = _Step(self._state)
        handler(step, command, at)
        if (self._state.phase is Phase.FINAL and step.state.phase is Phase.FINAL
                and step.events and step.events[-1].kind is not EventKind.MATCH_ENDED):
            # The record changed after the final (a match penalty at the horn, a disallowed
            # goal): the last event of a match always carries its whole record, so the
            # office never has to rebuild one from the events before it.
            result = step.state.result
            assert result is not None
            step.emit(at, EventKind.MATCH_ENDED, result=result.to_json(),
                      record=match_record(self, step.state), amended=True)
        self._state = step.state
        return step.events

    def _handlers(self) -> dict[type[Command], Callable[[_Step, Any, Nanos], None]]:
        return {
            Start: self._start,
            Stop: self._stop,
            Goal: self._goal,
            SetClock: self._set_clock,
            Next: self._next,
            End: self._end,
            Forfeit: self._forfeit,
            Horn: self._horn,
            Undo: self._undo,
            Penalty: self._penalty,
            Timeout: self._timeout,
            Shot: self._shot,
            Cancel: self._cancel,
            Correct: self._correct,
        }

    def _start(self, step: _Step, cmd: Start, at: Nanos) -> None:
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
            step.enter(Phase.PERIOD)
        s = step.state
        if not s.started:
            # Play begins: like a phase change, nothing before it can be undone across it.
            step.set(epoch=s.epoch + 1)
            step.emit(at, EventKind.PERIOD_STARTED, period=s.period, phase=s.phase.value)
        s = step.state
        step.set(clock=s.clock.start(at), started=True)
        step.emit(at, EventKind.CLOCK_STARTED, period=s.period,
                  clock_ms=ceil_ms(s.clock.remaining(at)))

    def _stop(self, step: _Step, cmd: Stop, at: Nanos) -> None:
        s = step.state
        if not s.clock.running:
            raise Refused("stop", machine.STOPPED)
        step.set(clock=s.clock.stop(at))
        step.emit(at, EventKind.CLOCK_STOPPED, period=s.period,
                  clock_ms=ceil_ms(step.state.clock.remaining(at)))

    def _goal(self, step: _Step, cmd: Goal, at: Nanos) -> None:
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
                  clock_ms=clock_ms, score=_score_json(score))
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

    # ---------------------------------------------------------------- penalties

    def strength(self, s: MatchState, team: Team) -> int:
        """Players on the field, goalkeeper excluded: the preset's number less the team's
        shorthanded penalties, never below the minimum, plus the extra player (rules 003)."""
        p = self.preset
        base = p.players
        if s.phase in (Phase.OVERTIME, Phase.OVERTIME_BREAK) and p.decision.overtime_players:
            base = p.decision.overtime_players
        short = box_rules.running_shorthanded(s.box, team)
        extra = 1 if self.extra_player(s) is team else 0
        return max(p.minimum_players, base - short) + extra

    def extra_player(self, s: MatchState) -> Team | None:
        """Rules 003 P10: a team down by ``lead`` goals may field an extra player until the
        gap narrows to ``until``. Derived from the goals in order, so undo needs nothing."""
        rule = self.preset.extra_player
        if rule is None:
            return None
        score = {Team.HOME: 0, Team.AWAY: 0}
        holder: Team | None = None
        for goal in s.goals:
            score[goal.team] += 1
            gap = score[Team.HOME] - score[Team.AWAY]
            if holder is None and abs(gap) >= rule.lead:
                holder = Team.AWAY if gap > 0 else Team.HOME
            elif holder is not None and abs(gap) <= rule.until:
                holder = None
        return holder

    def _box_events(self, step: _Step, at: Nanos, changes: list[Change]) -> None:
        for change in changes:
            p = change.penalty
            if change.what == "started":
                step.emit(at, EventKind.PENALTY_STARTED, team=p.team.value, player=p.player,
                          kind=p.kind.name, penalty_seq=p.seq)
            elif change.what in ("expired", "released"):
                step.emit(at, EventKind.PENALTY_ENDED, team=p.team.value, player=p.player,
                          kind=p.kind.name, penalty_seq=p.seq, how=change.what,
                          part_ended=change.before.part + 1, finished=p.done)

    def _schedule(self, step: _Step, at: Nanos, elapsed: Nanos, cause: int | None
                  ) -> list[Change]:
        rules = self.preset.penalties
        box, changes = box_rules.schedule(step.state.box, elapsed, rules.max_shorthanded,
                                          self.shift_end(step.state), cause,
                                          major_first=rules.major_first)
        step.set(box=box)
        self._box_events(step, at, changes)
        return changes

    def _release(self, step: _Step, against: Team, elapsed: Nanos, goal_seq: int, at: Nanos
                 ) -> tuple[Change, ...]:
        box, change = box_rules.release(step.state.box, against, elapsed, goal_seq,
                                        self.shift_end(step.state))
        if change is None:
            return ()
        step.set(box=box)
        self._box_events(step, at, [change])
        return (change, *self._schedule(step, at, elapsed, goal_seq))

    def _penalties_fall_due(self, step: _Step, at: Nanos) -> None:
        elapsed = self.elapsed(step.state, at)
        box, changes = box_rules.expire(step.state.box, elapsed, self.shift_end(step.state))
        step.set(box=box)
        self._box_events(step, at, changes)
        self._schedule(step, at, elapsed, step.state.seq)

    def _penalty(self, step: _Step, cmd: Penalty, at: Nanos) -> None:
        s = step.state
        kinds = self.preset.penalties.kinds
        if not kinds:
            raise Refused("penalty", because("no_penalties", f"the {self.preset.name} rules "
                                                 "have no timed penalties"))
        kind = kinds.get(cmd.kind)
        if kind is None:
            raise Refused("penalty", because("unknown_kind", f"unknown kind {cmd.kind!r} in "
                                             f"{self.preset.name} (one of {', '.join(kinds)})",
                                             kind=cmd.kind))
        seq = s.seq + 1
        elapsed = self.elapsed(s, at)
        period = s.period - 1 if s.phase is Phase.INTERMISSION else s.period
        clock_ms = ceil_ms(s.clock.remaining(at)) if s.phase.is_play else 0
        rules = self.preset.penalties
        penalty = ServedPenalty(seq=seq, team=cmd.team, player=cmd.player, kind=kind,
                                coincidental=cmd.coincidental, given=elapsed, period=period,
                                clock_ms=clock_ms,
                                rank=kind.length if rules.shorter_first else 0)
        if rules.ejection_only_outside_match and kind.ejects and s.phase in (
                Phase.PREGAME, Phase.FINAL):
            # IFF 608: given before or after the match, it is reported (and before, the
            # player sits the match out), but no bench penalty is imposed: recorded as
            # served, the team never short.
            penalty = replace(penalty, done=True)
        # Given together with this one (same game time: keyed in the same stoppage) and not
        # served a moment yet: the team's penalties of this instant are queued again with
        # it, so that the order of serving is the rules' (IFF 603.3 shorter first; IIHF a
        # player's major before his minor), never the order they were keyed in.
        together = {p.seq: p for p in s.box if p.team is cmd.team and p.running
                    and p.given == elapsed and p.started == elapsed}
        box = tuple(box_rules.pause(p, elapsed) if p.seq in together else p for p in s.box)
        step.set(box=(*box, penalty))
        step.emit(at, EventKind.PENALTY, team=cmd.team.value, player=cmd.player,
                  kind=kind.name, coincidental=cmd.coincidental, period=period,
                  clock_ms=clock_ms, minutes=kind.recorded_minutes, ejected=kind.ejects)
        box, changes = box_rules.schedule(step.state.box, elapsed, rules.max_shorthanded,
                                          self.shift_end(step.state), None,
                                          major_first=rules.major_first)
        # One that starts again at once is unchanged: it keeps its start and no event says
        # it started twice.
        kept = {p.seq for p in box if p.seq in together and p.running
                and p.expiry == together[p.seq].expiry}
        step.set(box=tuple(together[p.seq] if p.seq in kept else p for p in box))
        self._box_events(step, at, [c for c in changes if c.penalty.seq not in kept])
        self._push_undo(step, UndoKind.PENALTY, seq, at, elapsed=elapsed)

    # ---------------------------------------------------------------- time-outs

    def _timeout(self, step: _Step, cmd: Timeout, at: Nanos) -> None:
        s = step.state
        rules = self.preset.timeouts
        if rules is None:
            why = self.preset.cite("timeouts.per_team")
            raise Refused("timeout", because("no_timeouts", f"the {self.preset.name} rules "
                                             "have no time-outs" + (f": {why}" if why else "")))
        if self.setup.stage not in rules.stages:
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

    def _end_timeout(self, step: _Step, at: Nanos, *, early: bool) -> None:
        timeout = step.state.timeout
        assert timeout is not None
        step.set(timeout=None)
        step.emit(at, EventKind.TIMEOUT_ENDED, team=timeout.team.value, early=early)
        if not early:
            self._horn_auto(step, at, "timeout_end")

    # ---------------------------------------------------------------- line changes

    def _change_lines(self, step: _Step, at: Nanos) -> None:
        s = step.state
        change = self._next_shift_change(s)
        assert change is not None
        step.set(shift_mark=change)
        step.emit(at, EventKind.SHIFT_ENDED, period=s.period,
                  shift=change // (self.preset.shifts.length if self.preset.shifts else 1))
        self._horn_auto(step, at, "shift")

    # ---------------------------------------------------------------- shootout

    def _shot(self, step: _Step, cmd: Shot, at: Nanos) -> None:
        s = step.state
        rules = self.preset.shootout
        # The table admits shots only in the shootout phase, which only a preset with a
        # shootout reaches, and a decided shootout is final at once: never decided here.
        assert rules is not None
        why = shootout_rules.refusal(rules, s.shots, cmd.team, cmd.player, self.barred(s),
                                     order=self._shootout_order)
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

    def barred(self, s: MatchState) -> dict[tuple[Team, int], Reason]:
        """Who may not shoot in the shootout, and why: the preset's ``bar_ejected`` (sent
        off for the rest of the game) and ``bar_penalised`` (a penalty not ended when
        playing time ended; penalties stand still in the shootout, so one given during it
        bars its player too: IIHF game winning shots (III)). Those barred when the shootout
        began stay barred (``s.barred``; a corrected number moves the bar)."""
        rules = self.preset.shootout
        why: dict[tuple[Team, int], Reason] = {}
        if rules is None:
            return why
        for p in s.box:
            who = (p.team, p.player)
            if rules.bar_ejected and p.kind.ejects:
                why[who] = because("sent_off", "sent off for the rest of the game "
                                   f"({p.kind.name.replace('_', ' ')})")
            elif rules.bar_penalised and not p.done and who not in why:
                during = s.phase is Phase.SHOOTOUT and who not in s.barred
                why[who] = because("penalised", "he was penalised during the shootout") \
                    if during else because("penalised", "his penalty had not ended when "
                                           "playing time ended")
        for who in s.barred:
            why.setdefault(who, because("barred", "barred when the shootout began"))
        return why

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

    def _set_clock(self, step: _Step, cmd: SetClock, at: Nanos) -> None:
        s = step.state
        limit = self._full_length(s)
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
        self._push_undo(step, UndoKind.SET_CLOCK, seq, at, delta=value - old)

    def _next(self, step: _Step, cmd: Next, at: Nanos) -> None:
        s = step.state
        if s.phase.is_break:
            self._end_break(step, at, early=True)
            return
        if s.clock.running:
            raise Refused("next", because("clock_running", "the clock is running: stop it "
                                          "first (or use end)"))
        # A deliberate gesture (NEXT is held) with the clock stopped: end the period.
        self._end(step, End(at), at)

    def _end(self, step: _Step, cmd: End, at: Nanos) -> None:
        before = step.state
        if before.phase.is_play:
            self._end_period(step, at, shortened=True)
        else:
            self._end_break(step, at, early=True)
        self._push_undo(step, UndoKind.END, step.state.seq, at, before=before)

    def _forfeit(self, step: _Step, cmd: Forfeit, at: Nanos) -> None:
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

    def _horn(self, step: _Step, cmd: Horn, at: Nanos) -> None:
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

    # ---------------------------------------------------------------- undo

    def _push_undo(self, step: _Step, kind: UndoKind, seq: int, at: Nanos, *,
                   before: MatchState | None = None, delta: Nanos = 0, elapsed: Nanos = 0,
                   changes: tuple[Change, ...] = (), team: Team | None = None) -> None:
        step.state = undo_rules.pushed(step.state, kind, seq, at, before=before, delta=delta,
                                       elapsed=elapsed, changes=changes, team=team)

    def _undo(self, step: _Step, cmd: Undo, at: Nanos) -> None:
        s = step.state
        if not s.undo:
            raise Refused("undo", because("nothing_to_undo", "there is nothing to undo"))
        entry = s.undo[-1]
        why = undo_rules.refusal(entry, s)
        if why is not None:
            raise Refused("undo", why)
        step.set(undo=s.undo[:-1])
        if entry.kind is UndoKind.GOAL:
            self._undo_goal(step, entry, at)
        elif entry.kind is UndoKind.SET_CLOCK:
            step.set(clock=s.clock.adjusted(at, -entry.delta))
            self._resync_shifts(step, at)
        elif entry.kind is UndoKind.PENALTY:
            step.state = undo_rules.without_penalty(step.state, entry)
            # A place it held is free now: the next waiting penalty starts at once.
            self._schedule(step, at, self.elapsed(step.state, at), None)
        elif entry.kind is UndoKind.TIMEOUT:
            step.state = undo_rules.without_timeout(step.state, entry)
        elif entry.kind is UndoKind.SHOT:
            step.state = undo_rules.without_shot(step.state, entry)
        else:
            assert entry.before is not None
            step.state = undo_rules.rewound(step.state, entry.before, entry.at)
        step.emit(at, EventKind.UNDONE, undone_seq=entry.seq, what=entry.kind.value,
                  score=_score_json(step.state.score()), phase=step.state.phase.value,
                  clock_ms=ceil_ms(step.state.clock.remaining(at)))

    def _resync_shifts(self, step: _Step, at: Nanos) -> None:
        """After a clock correction the next line change is the next one after the new time."""
        shifts = self.preset.shifts
        s = step.state
        if shifts is not None and not s.phase.is_break:
            into = self.play_length(s) - s.clock.remaining(at)
            step.set(shift_mark=(into // shifts.length) * shifts.length)

    def _unrelease(self, step: _Step, entry: UndoEntry, at: Nanos, *, resume: bool = True
                   ) -> None:
        """Undo of a goal that released a penalty: the penalty comes back with the time it
        had left at the goal (``resume``; a cancel: as if never released, ending when it
        would have); what started because its place freed goes back to waiting."""
        now = self.elapsed(step.state, at)
        step.set(box=undo_rules.unreleased(step.state.box, entry, now,
                                           self.preset.penalties.max_shorthanded,
                                           resume=resume))
        self._schedule(step, at, now, None)

    def _undo_goal(self, step: _Step, entry: UndoEntry, at: Nanos, *, command: str = "undo",
                   resume: bool = True) -> None:
        s = step.state
        goal = next(g for g in s.goals if g.seq == entry.seq)
        decided = s.result.decided_by if s.result is not None else None
        if s.phase is Phase.OVERTIME and goal.period < s.period:
            raise Refused(command, because("goal_before_overtime", "the goal was scored in "
                                           "regulation and overtime has begun; the office "
                                           "corrects the result"))
        if s.phase is Phase.SHOOTOUT and s.shots:
            raise Refused(command, because("shootout_begun", "the shootout has begun; undo "
                                           "its shots first"))
        step.set(goals=tuple(g for g in s.goals if g.seq != entry.seq))
        if entry.changes:
            self._unrelease(step, entry, at, resume=resume)
        if decided is DecidedBy.OVERTIME and not self.preset.decision.sudden_death:
            if goal.period <= self.preset.periods:
                raise Refused(command, because("goal_before_overtime", "the goal was scored "
                                               "in regulation and overtime was played; the "
                                               "office corrects the result"))
            # Overtime was played out: how it ended is decided again, now.
            step.set(result=None)
            self._after_overtime(step, at)
        elif decided is DecidedBy.OVERTIME:
            # The golden goal is taken back: overtime goes on from the goal, clock stopped.
            step.enter(Phase.OVERTIME, result=None,
                       clock=GameClock.stopped_at(ms(goal.clock_ms)))
        elif decided is DecidedBy.REGULATION or s.phase in (Phase.OVERTIME_BREAK,
                                                            Phase.SHOOTOUT):
            # The score that decided how regulation ended has changed: decide again, now.
            step.set(result=None)
            self._after_regulation(step, at)

    # ---------------------------------------------------------------- cancel, correct

    def _record_of(self, s: MatchState, command: str, seq: int) -> GoalRecord | ServedPenalty:
        """The goal or penalty that event ``seq`` recorded, or why there is none."""
        if seq in s.cancelled:
            raise Refused(command, because("cancelled_already", f"event {seq} was cancelled "
                                           "already", seq=seq))
        goal = next((g for g in s.goals if g.seq == seq), None)
        if goal is not None:
            return goal
        penalty = next((p for p in s.box if p.seq == seq), None)
        if penalty is not None:
            return penalty
        if not 1 <= seq <= s.seq:
            raise Refused(command, because("no_event", f"there is no event {seq} in this "
                                           f"match (the latest is {s.seq})", seq=seq))
        raise Refused(command, because("not_a_record", f"event {seq} is not a goal or a "
                                       "penalty on record (another event, or one taken back "
                                       "by undo)", seq=seq))

    def _cancel(self, step: _Step, cmd: Cancel, at: Nanos) -> None:
        s = step.state
        record = self._record_of(s, "cancel", cmd.seq)
        entry = next((e for e in s.undo if e.seq == cmd.seq), None)
        # Later actions stay undoable; the struck one is no longer on the undo stack.
        step.set(undo=tuple(e for e in s.undo if e.seq != cmd.seq),
                 cancelled=s.cancelled | {cmd.seq})
        if isinstance(record, GoalRecord):
            what = "goal"
            self._cancel_goal(step, record, entry, at)
        else:
            what = "penalty"
            if s.phase is Phase.SHOOTOUT and (record.team, record.player) in s.barred:
                raise Refused("cancel", because("penalty_bars", f"the penalty bars "
                                                f"#{record.player} from the shootout, which "
                                                "has begun; the office corrects the record",
                                                player=record.player))
            step.set(box=tuple(p for p in step.state.box if p.seq != cmd.seq))
            if s.phase.is_play or s.phase.is_break:
                # A place it held is free now: the next waiting penalty starts at once (as
                # undo of a penalty does).
                self._schedule(step, at, self.elapsed(step.state, at), None)
        step.emit(at, EventKind.CANCELLED, cancelled_seq=cmd.seq, what=what,
                  team=record.team.value, player=record.player,
                  score=_score_json(step.state.score()), phase=step.state.phase.value,
                  clock_ms=ceil_ms(step.state.clock.remaining(at)))

    def _cancel_goal(self, step: _Step, goal: GoalRecord, entry: UndoEntry | None,
                     at: Nanos) -> None:
        s = step.state
        if entry is not None and entry.epoch == s.epoch:
            # Within the phase it was scored in, a cancel is undo's taking back of the goal
            # (a golden goal reopens overtime, a decided regulation is decided again), except
            # that a penalty it released ends when it would have, not later.
            self._undo_goal(step, entry, at, command="cancel", resume=False)
            return
        decided = s.result.decided_by if s.result is not None else None
        if s.phase not in (Phase.PREGAME, Phase.PERIOD, Phase.INTERMISSION) and not (
                s.phase is Phase.FINAL and decided is DecidedBy.REGULATION):
            raise Refused("cancel", because("goal_decided", f"the goal was scored before "
                                            f"the {s.phase.value} phase and the score decided "
                                            "how the game went on; the office corrects the "
                                            "result"))
        goals = tuple(g for g in s.goals if g.seq != goal.seq)
        step.set(goals=goals)
        if entry is not None and entry.changes:
            self._unrelease(step, entry, at, resume=False)
        if s.phase is Phase.FINAL:
            after = step.state
            if self._tied(after) and self.preset.decision.required(self.setup.stage):
                raise Refused("cancel", because("goal_decided", "without the goal the game is "
                                                "tied and the rules decide a tie in overtime "
                                                "or a shootout; the office corrects the "
                                                "result"))
            score = after.score()
            step.set(result=Result(score[Team.HOME], score[Team.AWAY], DecidedBy.REGULATION))

    def _correct(self, step: _Step, cmd: Correct, at: Nanos) -> None:
        s = step.state
        record = self._record_of(s, "correct", cmd.seq)
        if record.player == cmd.player:
            raise Refused("correct", because("same_number", f"event {cmd.seq} already has "
                                             f"#{cmd.player}", player=cmd.player))
        if isinstance(record, GoalRecord):
            what = "goal"
            step.set(goals=tuple(replace(g, player=cmd.player) if g.seq == cmd.seq else g
                                 for g in s.goals))
        else:
            what = "penalty"
            box = tuple(replace(p, player=cmd.player) if p.seq == cmd.seq else p for p in s.box)
            barred = s.barred
            old = (record.team, record.player)
            if old in barred and not any((p.team, p.player) == old for p in box):
                # The shootout bar follows the penalty to the right player.
                barred = (barred - {old}) | {(record.team, cmd.player)}
            step.set(box=box, barred=barred)
        step.emit(at, EventKind.CORRECTED, corrected_seq=cmd.seq, what=what,
                  team=record.team.value, player=cmd.player, was=record.player)

    # ---------------------------------------------------------------- phase machine

    def _full_length(self, s: MatchState) -> Nanos:
        p = self.preset
        if s.phase is Phase.INTERMISSION:
            return p.break_after(s.period - 1)
        if s.phase is Phase.OVERTIME_BREAK:
            return p.decision.overtime_break or 0
        if s.phase is Phase.OVERTIME:
            return p.decision.overtime or 0
        return p.period_length

    def _horn_auto(self, step: _Step, at: Nanos, reason: str) -> None:
        horn = self.preset.horn
        length = horn.shift if reason == "shift" else horn.end
        signal = HornSignal(at, at + length)
        current = step.state.horn_auto
        if current is not None and current.sounding(at) and current.end > signal.end:
            # A horn already sounding longer (a period end over a line change) is not cut.
            signal = current
        step.set(horn_auto=signal)
        step.emit(at, EventKind.HORN, reason=reason, on=True, length_ms=ceil_ms(length))

    def _end_period(self, step: _Step, at: Nanos, *, shortened: bool) -> None:
        s = step.state
        if s.timeout is not None:
            self._end_timeout(step, at, early=True)
        # Penalty time carries over: only the game time actually played counts (a shortened
        # period adds what was played of it, not its full length).
        step.set(clock=GameClock.stopped_at(0), played=self.elapsed(s, at), shift_mark=0)
        step.emit(at, EventKind.PERIOD_ENDED, period=s.period, phase=s.phase.value,
                  shortened=shortened, score=_score_json(s.score()))
        self._horn_auto(step, at, "period_end")
        if s.phase is Phase.PERIOD and s.period < self.preset.periods:
            length = self.preset.break_after(s.period)
            step.enter(Phase.INTERMISSION, period=s.period + 1, started=False,
                       clock=GameClock(length, at))
            step.emit(at, EventKind.BREAK_STARTED, phase=Phase.INTERMISSION.value,
                      next_period=s.period + 1, length_ms=ceil_ms(length))
        elif s.phase is Phase.PERIOD:
            self._after_regulation(step, at)
        else:
            self._after_overtime(step, at)

    def _tied(self, s: MatchState) -> bool:
        score = s.score()
        return score[Team.HOME] == score[Team.AWAY]

    def _after_regulation(self, step: _Step, at: Nanos) -> None:
        # Also reached from an undo during the overtime break: regulation is what is decided.
        step.set(period=self.preset.periods)
        s = step.state
        decision = self.preset.decision
        if not self._tied(s) or not decision.required(self.setup.stage):
            self._finish(step, at, DecidedBy.REGULATION)
        elif decision.overtime is not None:
            length = decision.overtime_break or 0
            last_regulation = self.preset.periods
            step.enter(Phase.OVERTIME_BREAK, period=last_regulation + 1, started=False,
                       clock=GameClock(length, at))
            step.emit(at, EventKind.BREAK_STARTED, phase=Phase.OVERTIME_BREAK.value,
                      next_period=last_regulation + 1, length_ms=ceil_ms(length))
        else:
            self._start_shootout(step, at)

    def _after_overtime(self, step: _Step, at: Nanos) -> None:
        if self._tied(step.state) and self.preset.decision.shootout:
            self._start_shootout(step, at)
        else:
            self._finish(step, at, DecidedBy.OVERTIME)

    def _start_shootout(self, step: _Step, at: Nanos) -> None:
        s = step.state
        rules = self.preset.shootout
        barred = frozenset(self.barred(s))
        step.enter(Phase.SHOOTOUT, clock=GameClock.stopped_at(0), barred=barred)
        first = shootout_rules.next_team(rules, ()) if rules is not None else None
        step.emit(at, EventKind.SHOOTOUT_STARTED, first=first.value if first else None,
                  barred=sorted([t.value, n] for t, n in barred))

    def _end_break(self, step: _Step, at: Nanos, *, early: bool) -> None:
        s = step.state
        overtime = s.phase is Phase.OVERTIME_BREAK
        length = self.preset.decision.overtime if overtime else self.preset.period_length
        assert length is not None
        step.emit(at, EventKind.BREAK_ENDED, phase=s.phase.value, next_period=s.period,
                  early=early)
        if not early:
            self._horn_auto(step, at, "break_end")
        step.enter(Phase.OVERTIME if overtime else Phase.PERIOD, started=False,
                   clock=GameClock.stopped_at(length))

    def _finish(self, step: _Step, at: Nanos, decided_by: DecidedBy) -> None:
        s = step.state
        if decided_by is DecidedBy.FORFEIT:
            assert s.forfeit is not None
            loser = s.forfeit
            goals = self.preset.forfeit_goals  # the preset's [forfeit] goals
            result = Result(
                home=0 if loser is Team.HOME else goals,
                away=0 if loser is Team.AWAY else goals,
                decided_by=decided_by,
            )
        else:
            score = s.score()
            if decided_by is DecidedBy.SHOOTOUT:
                # The result credits the winner the preset's goals for the shootout (rules
                # 000: only the decisive goal), never the shots' tally.
                rules = self.preset.shootout
                assert rules is not None
                won_by = shootout_rules.winner(rules, s.shots)
                assert won_by is not None
                score[won_by] += rules.winner_goals
            result = Result(score[Team.HOME], score[Team.AWAY], decided_by)
        step.enter(Phase.FINAL, result=result)
        step.emit(at, EventKind.MATCH_ENDED, result=result.to_json(),
                  record=match_record(self, step.state))


GOAL_SHOWN: Nanos = 8 * NS_PER_S  # the scorer's number stays up this long after a goal


def _to_next_second(left: Nanos) -> Nanos:
    """How long until a countdown with ``left`` to go, shown rounded up to whole seconds,
    shows its next value."""
    return left - ((left - 1) // NS_PER_S) * NS_PER_S


def match_record(match: Match, s: MatchState) -> dict[str, Any]:
    """What the tournament records of a match: the office ranks and suspends from it."""
    rules = match.preset.shootout
    record: dict[str, Any] = {
        "match": match.setup.match_id,
        "preset": match.preset.name,
        "stage": match.setup.stage.value,
        "teams": {"home": match.setup.home.name, "away": match.setup.away.name},
        "result": s.result.to_json() if s.result is not None else None,
        "score": _score_json(s.score()),
        "goals": [
            {"team": g.team.value, "player": g.player, "period": g.period,
             "clock_ms": g.clock_ms}
            for g in s.goals
        ],
        "penalties": [
            {"team": p.team.value, "player": p.player, "kind": p.kind.name,
             "minutes": p.kind.recorded_minutes, "period": p.period, "clock_ms": p.clock_ms,
             "coincidental": p.coincidental, "ejected": p.kind.ejects}
            for p in s.box
        ],
        "penalty_minutes": {
            team.value: sum(p.kind.recorded_minutes for p in s.box if p.team is team)
            for team in Team
        },
        "forfeit": s.forfeit.value if s.forfeit is not None else None,
        "shootout": None,
    }
    if s.shots and rules is not None:
        won_by = shootout_rules.winner(rules, s.shots)
        deciding = shootout_rules.decisive(s.shots, won_by) if won_by is not None else None
        record["shootout"] = {
            "shots": [{"team": x.team.value, "player": x.player, "scored": x.scored}
                      for x in s.shots],
            "decisive": {"team": deciding.team.value, "player": deciding.player}
            if deciding is not None else None,
        }
    return record


def _score_json(score: dict[Team, int]) -> dict[str, int]:
    return {team.value: n for team, n in score.items()}


def feed(match: Match, command: Command) -> Fed:
    """Let time pass to the command's instant, apply it, and let any deadline it created
    (a clock set to zero) fall due. The one way the shell hands a command to the core."""
    events = match.advance(command.at)
    refused: Refused | None = None
    try:
        events += match.apply(command)
    except Refused as err:
        refused = err
    # The command took effect at its own instant or, if it was queued behind an event, at
    # that event's: whatever it made due by then (a clock set to zero) happens now.
    last = match.state.last_at
    events += match.advance(command.at if last is None else max(command.at, last))
    return Fed(events, refused)
