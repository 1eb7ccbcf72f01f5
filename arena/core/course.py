"""The phases' course: periods and breaks ending, time-outs and line changes running out,
regulation and overtime decided, the match finished.

Which phase a moment leads to is read from ``machine.TRANSITIONS``; this floor decides which
trigger the moment is (the score and the preset say whether a tie goes on) and does what
entering the phase takes (its clock, its events, its horn).
"""

from __future__ import annotations

from typing import Any

from . import penalties as box_rules
from . import shifts as shift_rules
from . import shootout as shootout_rules
from .errors import Reason, because
from .events import EventKind
from .gameclock import GameClock
from .lengths import phase_length
from .machine import Trigger, after
from .phase import Phase, Team
from .record import match_record
from .step import Step, score_json
from .strength import PenaltyDesk
from .units import Nanos, ceil_ms
from .values import DecidedBy, MatchState, Result


class PhaseCourse(PenaltyDesk):
    def _enter(self, step: Step, trigger: Trigger, **changes: Any) -> None:
        """Enter the phase ``trigger`` leads to from the current one (the course's table)."""
        step.enter(after(step.state.phase, trigger), **changes)

    def _end_timeout(self, step: Step, at: Nanos, *, early: bool) -> None:
        timeout = step.state.timeout
        assert timeout is not None
        step.set(timeout=None)
        step.emit(at, EventKind.TIMEOUT_ENDED, team=timeout.team.value, early=early)
        if not early:
            self._horn_auto(step, at, "timeout_end")

    def _change_lines(self, step: Step, at: Nanos) -> None:
        s = step.state
        change = shift_rules.next_change(self.preset, s)
        assert change is not None
        step.set(shift_mark=change)
        step.emit(at, EventKind.SHIFT_ENDED, period=s.period,
                  shift=change // (self.preset.shifts.length if self.preset.shifts else 1))
        self._horn_auto(step, at, "shift")

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

    def _end_period(self, step: Step, at: Nanos, *, shortened: bool) -> None:
        s = step.state
        if s.timeout is not None:
            self._end_timeout(step, at, early=True)
        # Penalty time carries over: only the game time actually played counts (a shortened
        # period adds what was played of it, not its full length).
        step.set(clock=GameClock.stopped_at(0), played=self.elapsed(s, at), shift_mark=0)
        step.emit(at, EventKind.PERIOD_ENDED, period=s.period, phase=s.phase.value,
                  shortened=shortened, score=score_json(s.score()))
        self._horn_auto(step, at, "period_end")
        if s.phase is Phase.PERIOD and s.period < self.preset.periods:
            length = phase_length(self.preset, Phase.INTERMISSION, s.period + 1)
            self._enter(step, Trigger.PERIOD_OVER, period=s.period + 1, started=False,
                        clock=GameClock(length, at))
            step.emit(at, EventKind.BREAK_STARTED, phase=Phase.INTERMISSION.value,
                      next_period=s.period + 1, length_ms=ceil_ms(length))
        elif s.phase is Phase.PERIOD:
            self._after_regulation(step, at)
        else:
            self._after_overtime(step, at)
        # The box over the break: a part that began at the period's end (the clock ran out)
        # is served in the first shift of what follows (rules 002), read off it now.
        end = s.played + self.play_length(s)
        step.set(box=box_rules.carried(step.state.box, end, self.shift_end(step.state)))

    def _after_regulation(self, step: Step, at: Nanos) -> None:
        # Also reached from an undo during the overtime break: regulation is what is decided.
        step.set(period=self.preset.periods)
        s = step.state
        decision = self.preset.decision
        if not self._tied(s) or not decision.required(self.setup.stage):
            self._finish(step, at, DecidedBy.REGULATION)
        elif decision.overtime is not None:
            length = phase_length(self.preset, Phase.OVERTIME_BREAK, self.preset.periods + 1)
            last_regulation = self.preset.periods
            self._enter(step, Trigger.TIE_TO_OVERTIME, period=last_regulation + 1,
                        started=False, clock=GameClock(length, at))
            step.emit(at, EventKind.BREAK_STARTED, phase=Phase.OVERTIME_BREAK.value,
                      next_period=last_regulation + 1, length_ms=ceil_ms(length))
        else:
            self._start_shootout(step, at)

    def _after_overtime(self, step: Step, at: Nanos) -> None:
        if self._tied(step.state) and self.preset.decision.shootout:
            self._start_shootout(step, at)
        else:
            self._finish(step, at, DecidedBy.OVERTIME)

    def _start_shootout(self, step: Step, at: Nanos) -> None:
        s = step.state
        rules = self.preset.shootout
        barred = frozenset(self.barred(s))
        self._enter(step, Trigger.TIE_TO_SHOOTOUT, clock=GameClock.stopped_at(0), barred=barred)
        first = shootout_rules.next_team(rules, ()) if rules is not None else None
        step.emit(at, EventKind.SHOOTOUT_STARTED, first=first.value if first else None,
                  barred=sorted([t.value, n] for t, n in barred))

    def _end_break(self, step: Step, at: Nanos, *, early: bool) -> None:
        s = step.state
        length = self.play_length(s)  # of the period the break leads to
        step.emit(at, EventKind.BREAK_ENDED, phase=s.phase.value, next_period=s.period,
                  early=early)
        if not early:
            self._horn_auto(step, at, "break_end")
        self._enter(step, Trigger.BREAK_OVER, started=False,
                    clock=GameClock.stopped_at(length))

    def _finish(self, step: Step, at: Nanos, decided_by: DecidedBy) -> None:
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
        self._enter(step, Trigger.DECIDED, result=result)
        step.emit(at, EventKind.MATCH_ENDED, result=result.to_json(),
                  record=match_record(self.preset, self.setup, step.state))
