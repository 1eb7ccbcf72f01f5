"""Corrections: undo (the last action taken back), cancel (a goal, a penalty or a clock
correction struck from the record, however long ago) and correct (its player's number
changed).

What undo records and how a state is rewound are pure functions in ``undo``; this floor
decides, from the phase and the result, whether a goal can still be taken back and what the
match decides again without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from . import undo as undo_rules
from .commands import Cancel, Correct, Undo
from .errors import Refused, because
from .events import EventKind
from .gameclock import GameClock
from .machine import Trigger
from .penalties import Penalty as ServedPenalty
from .phase import Phase, Team
from .plays import Plays
from .step import Step, score_json
from .undo import Input, UndoEntry, UndoKind
from .units import Nanos, ceil_ms, ms
from .values import DecidedBy, GoalRecord, MatchState, Result


class Corrections(Plays):
    def _undo(self, step: Step, cmd: Undo, at: Nanos) -> None:
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
            step.state = self._without_correction(step.state, entry, at, "undo")
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
                  score=score_json(step.state.score()), phase=step.state.phase.value,
                  clock_ms=ceil_ms(step.state.clock.remaining(at)))

    def _replayed(self, before: MatchState, inputs: Sequence[Input], now: Nanos
                  ) -> MatchState | None:
        """``before`` with ``inputs`` taken again and time let pass to ``now`` (None if it
        cannot stand): the top floor (``Match``) replays, since only it takes commands."""
        raise NotImplementedError

    def _without_correction(self, s: MatchState, entry: UndoEntry, at: Nanos, command: str
                            ) -> MatchState:
        """``s`` as it would stand at ``at`` had the clock correction ``entry`` never been
        made: the state before it with every command taken since taken again. Exact by
        construction, never a partial inverse: the penalties it ended and their times, the
        waiting ones it started, the line changes and the period end it passed, their horns
        are as if it never happened. Only the count of events goes on (undo is a new
        event)."""
        assert entry.before is not None
        later = [item for item in s.inputs if item.seq >= entry.seq]
        replayed = self._replayed(entry.before, later, at)
        if replayed is None:
            raise Refused(command, because(
                "correction_overtaken", "without the clock correction the game would have "
                "gone otherwise since (a period or break ended, a command refused); correct "
                "the clock with set_clock"))
        return replace(replayed, seq=s.seq, last_at=s.last_at)

    def _cancel_correction(self, step: Step, entry: UndoEntry, at: Nanos) -> None:
        """A clock correction struck however many actions ago (in its phase): the match as
        if it was never made, the actions after it taken again. It names no team, so the
        record says so with undo's event."""
        s = step.state
        why = undo_rules.refusal(entry, s)
        if why is not None:
            raise Refused("cancel", why)
        step.state = self._without_correction(s, entry, at, "cancel")
        step.set(cancelled=step.state.cancelled | {entry.seq})
        step.emit(at, EventKind.UNDONE, undone_seq=entry.seq, what=entry.kind.value,
                  score=score_json(step.state.score()), phase=step.state.phase.value,
                  clock_ms=ceil_ms(step.state.clock.remaining(at)))

    def _unrelease(self, step: Step, entry: UndoEntry, at: Nanos, *, resume: bool = True
                   ) -> None:
        """Undo of a goal that released a penalty: the penalty comes back with the time it
        had left at the goal (``resume``; a cancel: as if never released, ending when it
        would have); what started because its place freed goes back to waiting."""
        now = self.elapsed(step.state, at)
        step.set(box=undo_rules.unreleased(step.state.box, entry, now,
                                           self.preset.penalties.max_shorthanded,
                                           resume=resume))
        self._schedule(step, at, now, None)

    def _undo_goal(self, step: Step, entry: UndoEntry, at: Nanos, *, command: str = "undo",
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
            self._enter(step, Trigger.GOLDEN_GOAL_UNDONE, result=None,
                        clock=GameClock.stopped_at(ms(goal.clock_ms)))
        elif decided is DecidedBy.REGULATION or s.phase in (Phase.OVERTIME_BREAK,
                                                            Phase.SHOOTOUT):
            # The score that decided how regulation ended has changed: decide again, now.
            step.set(result=None)
            self._after_regulation(step, at)

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

    def _cancel(self, step: Step, cmd: Cancel, at: Nanos) -> None:
        s = step.state
        correction = next((e for e in s.undo if e.seq == cmd.seq
                           and e.kind is UndoKind.SET_CLOCK), None)
        if correction is not None and cmd.seq not in s.cancelled:
            self._cancel_correction(step, correction, at)
            return
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
                  score=score_json(step.state.score()), phase=step.state.phase.value,
                  clock_ms=ceil_ms(step.state.clock.remaining(at)))

    def _cancel_goal(self, step: Step, goal: GoalRecord, entry: UndoEntry | None,
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

    def _correct(self, step: Step, cmd: Correct, at: Nanos) -> None:
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
