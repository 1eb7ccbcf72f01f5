"""Penalties and strength: who sits in the box, when he comes back and how many play.

The box's rules themselves (queueing, expiry, release by a goal) are pure functions in
``penalties``; this floor keeps them in step with the match: it schedules the box at the
game time of each change and emits what started and ended.
"""

from __future__ import annotations

from dataclasses import replace

from . import penalties as box_rules
from .commands import Penalty
from .engine import MatchBase
from .errors import Refused, because
from .events import EventKind
from .penalties import Change
from .penalties import Penalty as ServedPenalty
from .phase import Phase, Team
from .step import Step
from .undo import UndoKind
from .units import Nanos, ceil_ms
from .values import MatchState


class PenaltyDesk(MatchBase):
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

    def _box_events(self, step: Step, at: Nanos, changes: list[Change]) -> None:
        for change in changes:
            p = change.penalty
            if change.what == "started":
                step.emit(at, EventKind.PENALTY_STARTED, team=p.team.value, player=p.player,
                          kind=p.kind.name, penalty_seq=p.seq)
            elif change.what in ("expired", "released"):
                step.emit(at, EventKind.PENALTY_ENDED, team=p.team.value, player=p.player,
                          kind=p.kind.name, penalty_seq=p.seq, how=change.what,
                          part_ended=change.before.part + 1, finished=p.done)

    def _schedule(self, step: Step, at: Nanos, elapsed: Nanos, cause: int | None
                  ) -> list[Change]:
        rules = self.preset.penalties
        box, changes = box_rules.schedule(step.state.box, elapsed, rules.max_shorthanded,
                                          self.shift_end(step.state), cause,
                                          major_first=rules.major_first)
        step.set(box=box)
        self._box_events(step, at, changes)
        return changes

    def _release(self, step: Step, against: Team, elapsed: Nanos, goal_seq: int, at: Nanos
                 ) -> tuple[Change, ...]:
        box, change = box_rules.release(step.state.box, against, elapsed, goal_seq,
                                        self.shift_end(step.state))
        if change is None:
            return ()
        step.set(box=box)
        self._box_events(step, at, [change])
        return (change, *self._schedule(step, at, elapsed, goal_seq))

    def _penalties_fall_due(self, step: Step, at: Nanos) -> None:
        elapsed = self.elapsed(step.state, at)
        box, changes = box_rules.expire(step.state.box, elapsed, self.shift_end(step.state))
        step.set(box=box)
        self._box_events(step, at, changes)
        self._schedule(step, at, elapsed, step.state.seq)

    def _penalty(self, step: Step, cmd: Penalty, at: Nanos) -> None:
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
