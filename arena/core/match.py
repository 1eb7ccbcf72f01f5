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
not and where each phase leads (``machine``, the tables), and what undo records and restores
(``undo``). ``Match`` is the top floor of the engine (``engine`` lists the floors below it):
here time passes and commands are dispatched; the floors do the work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from enum import IntEnum
from typing import Any

from . import machine
from . import penalties as box_rules
from . import shifts as shift_rules
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
from .corrections import Corrections
from .errors import Refused
from .events import Event, EventKind
from .phase import Phase
from .record import match_record
from .step import Step
from .undo import Input, UndoKind
from .units import NS_PER_S, Nanos
from .values import Fed, GoalRecord, HornOutlook, MatchState


class Due(IntEnum):
    """What falls due, in the order of what falls due at one instant: penalties end first,
    then a time-out, then a line change, then the period or break."""

    PENALTIES = 0
    TIMEOUT = 1
    SHIFT = 2
    CLOCK = 3


class Match(Corrections):
    """A match: ``advance`` lets time pass, ``apply`` takes a command (``feed`` does both)."""

    def _due(self, s: MatchState) -> list[tuple[Nanos, Due]]:
        """Everything that will fall due, with its instant."""
        due: list[tuple[Nanos, Due]] = []
        expiry = box_rules.next_expiry(s.box) if s.phase.is_play else None
        if expiry is not None:
            instant = self._instant_of(s, expiry)
            if instant is None and s.last_at is not None and expiry <= self.elapsed(s, s.last_at):
                instant = s.last_at  # the clock was stopped exactly at its end
            if instant is not None:
                due.append((instant, Due.PENALTIES))
        if s.timeout is not None:
            due.append((s.timeout.end, Due.TIMEOUT))
        change = shift_rules.next_change(self.preset, s)
        if change is not None and s.phase.is_play:
            instant = self._instant_of(s, s.played + change)
            if instant is not None:
                due.append((instant, Due.SHIFT))
        if (s.phase.is_play or s.phase.is_break) and s.clock.running:
            zero = s.clock.zero_at()
            assert zero is not None
            due.append((zero, Due.CLOCK))
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
            shift = shift_rules.shift_left(self.preset, s, now)
            if shift is not None and shift_rules.next_change(self.preset, s) is not None:
                countdowns.append(shift)
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
        step = Step(self._state)
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
            if kind is Due.PENALTIES:
                self._penalties_fall_due(step, at)
            elif kind is Due.TIMEOUT:
                self._end_timeout(step, at, early=False)
            elif kind is Due.SHIFT:
                self._change_lines(step, at)
            elif step.state.phase.is_play:
                self._end_period(step, at, shortened=False)
            else:
                self._end_break(step, at, early=False)
        return step.events

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
        removes_correction = _removes_correction(self._state, command)
        step = Step(self._state)
        handler(step, command, at)
        if (self._state.phase is Phase.FINAL and step.state.phase is Phase.FINAL
                and step.events and step.events[-1].kind is not EventKind.MATCH_ENDED):
            # The record changed after the final (a match penalty at the horn, a disallowed
            # goal): the last event of a match always carries its whole record, so the
            # office never has to rebuild one from the events before it.
            result = step.state.result
            assert result is not None
            step.emit(at, EventKind.MATCH_ENDED, result=result.to_json(),
                      record=match_record(self.preset, self.setup, step.state),
                      amended=True)
        seq = self._state.seq
        self._state = step.state
        events = step.events
        if isinstance(command, SetClock):
            events += self._settled(at)
        if events and not removes_correction:
            # One that emitted nothing changed nothing: neither journalled nor replayed. One
            # that took a clock correction back left the history without it (its inputs are
            # those of that history): replayed from before an earlier correction, it would
            # take back another entry (a goal) instead.
            self._state = _noted(self._state, Input(command, seq))
        return events

    def _settled(self, at: Nanos) -> list[Event]:
        """What a clock correction makes due at once falls due now, as part of it: the
        penalties it passes, the period or break it ends at zero. Its undo entry then counts
        the phase it leads to as its own, so undo takes the end back with the rest."""
        events = self.advance(at)
        s = self._state
        top = s.undo[-1] if s.undo else None
        if top is not None and top.kind is UndoKind.SET_CLOCK and top.epoch != s.epoch:
            self._state = replace(s, undo=(*s.undo[:-1], replace(top, epoch=s.epoch)))
        return events

    def _replayed(self, before: MatchState, inputs: Sequence[Input], now: Nanos
                  ) -> MatchState | None:
        """``before`` with ``inputs`` taken again, each at its instant and numbered as it
        was, and time let pass to ``now``: the match as it would stand had what came
        between not happened. None if it could not stand so: a command the rules refuse
        there, or a phase that would have ended meanwhile."""
        scratch = Match(self.preset, self.setup, before)
        for item in inputs:
            scratch.advance(item.command.at)
            # Numbered as it was: a goal or penalty it records keeps the seq the record,
            # the office and a later cancel know it by.
            scratch._state = replace(scratch._state, seq=item.seq)
            try:
                scratch.apply(item.command)
            except Refused:
                return None
            last = scratch._state.last_at
            scratch.advance(item.command.at if last is None else max(item.command.at, last))
        scratch.advance(now)
        if scratch.state.epoch != before.epoch:
            return None
        return scratch.state

    def _handlers(self) -> dict[type[Command], Callable[[Step, Any, Nanos], None]]:
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


def _removes_correction(s: MatchState, command: Command) -> bool:
    """Whether ``command`` takes a clock correction back (undo of one on top, cancel of
    one by its seq)."""
    if isinstance(command, Undo):
        return bool(s.undo) and s.undo[-1].kind is UndoKind.SET_CLOCK
    if isinstance(command, Cancel):
        return any(e.seq == command.seq and e.kind is UndoKind.SET_CLOCK for e in s.undo)
    return False


def _noted(s: MatchState, item: Input) -> MatchState:
    """``s`` with the command just taken among its inputs while a clock correction of the
    phase can still be undone (what undo replays), else with none kept."""
    if any(e.kind is UndoKind.SET_CLOCK and e.epoch == s.epoch for e in s.undo):
        return replace(s, inputs=(*s.inputs, item))
    return replace(s, inputs=()) if s.inputs else s


GOAL_SHOWN: Nanos = 8 * NS_PER_S  # the scorer's number stays up this long after a goal


def _to_next_second(left: Nanos) -> Nanos:
    """How long until a countdown with ``left`` to go, shown rounded up to whole seconds,
    shows its next value."""
    return left - ((left - 1) // NS_PER_S) * NS_PER_S


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
