"""Undo: what an undoable action leaves behind, and the state without it.

Undo is a new event, never an erasure (docs/developer.md 2, rule 3): every undoable action pushes an
``UndoEntry`` on the state's stack; ``undo`` pops the latest. This module says whether an
entry can still be taken back and computes the state without it, as pure functions of
values. What needs the match's rules (rescheduling the penalty box, deciding again how
regulation ended, the events) stays with ``Match``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from . import penalties as box_rules
from .commands import Command
from .errors import Reason, because
from .penalties import Box, Change
from .penalties import Penalty as ServedPenalty
from .phase import Phase, Team
from .units import Nanos
from .values import MatchState


class UndoKind(StrEnum):
    GOAL = "goal"
    PENALTY = "penalty"
    TIMEOUT = "timeout"
    SHOT = "shot"
    SET_CLOCK = "set_clock"
    END = "end"
    FORFEIT = "forfeit"


@dataclass(frozen=True, slots=True)
class UndoEntry:
    kind: UndoKind
    seq: int  # the seq of the event it reverts
    at: Nanos  # when the action was taken
    epoch: int  # the state's epoch right after the action
    # The state just before the action: end and forfeit rewind the phase machine to it; a
    # clock correction is taken back by replaying what came after it from here. Neither
    # compared nor shown: it holds the undo stack below, whose entries hold theirs, so a
    # stack of corrections is a chain that comparing or printing would walk as a tree
    # (twice the work per entry). Two states that differ only in how they were reached
    # compare equal.
    before: MatchState | None = field(default=None, compare=False, repr=False)
    delta: Nanos = 0  # set_clock: how much it added to the clock
    elapsed: Nanos = 0  # game time when the action was taken
    changes: tuple[Change, ...] = ()  # goal: what it did in the penalty box
    team: Team | None = None  # time-out: whose


@dataclass(frozen=True, slots=True)
class Input:
    """A command the match took, and the seq of the state just before it: its first event
    was ``seq + 1``. Replayed with that numbering, what it recorded keeps its seq."""

    command: Command
    seq: int


def pushed(state: MatchState, kind: UndoKind, seq: int, at: Nanos, *,
           before: MatchState | None = None, delta: Nanos = 0, elapsed: Nanos = 0,
           changes: tuple[Change, ...] = (), team: Team | None = None) -> MatchState:
    """``state`` with the action just taken (event ``seq``) on top of its undo stack."""
    entry = UndoEntry(kind, seq, at, state.epoch, before, delta, elapsed, changes, team)
    return replace(state, undo=(*state.undo, entry))


def refusal(entry: UndoEntry, state: MatchState) -> Reason | None:
    """Why ``entry`` can no longer be undone in ``state``, or ``None``.

    A clock correction, an early end and a forfeit act on the phase they were taken in; once
    the match has moved to another phase, taking them back would rewrite a phase that has
    been played since, so the timekeeper corrects the clock instead. (The refusals of a goal
    depend on the rules of overtime and stay with ``Match``.)"""
    if state.epoch == entry.epoch:
        return None
    if entry.kind is UndoKind.SET_CLOCK:
        return because("undo_clock_over", "the clock correction was in a phase that is over; "
                       "correct the clock with set_clock")
    if entry.kind in (UndoKind.END, UndoKind.FORFEIT):
        return because("undo_moved_on", f"the {entry.kind.value} cannot be undone: the game "
                       "has moved on since; correct it with set_clock", what=entry.kind.value)
    return None


def rewound(state: MatchState, before: MatchState, action_at: Nanos) -> MatchState:
    """``state`` with its phase machine back at ``before`` (the state just before an end or
    a forfeit taken at ``action_at``).

    Goals, the event count and the undo stack are kept: only the phase, period and clock go
    back. A play clock that was running is stopped at the instant of the action, because
    play did stop then; a break clock runs on as if never interrupted. Rewinding is itself a
    phase change (the entry's epoch was that of the state after the action)."""
    clock = before.clock
    if before.phase.is_play and clock.running:
        clock = clock.stop(action_at)
    return state.entered(before.phase, period=before.period, started=before.started,
                         clock=clock, result=None, forfeit=None, horn_auto=before.horn_auto,
                         played=before.played, shift_mark=before.shift_mark)


def without_penalty(state: MatchState, entry: UndoEntry) -> MatchState:
    """The penalty is gone from the box (the caller reschedules: a place it held is free)."""
    return replace(state, box=tuple(p for p in state.box if p.seq != entry.seq))


def without_timeout(state: MatchState, entry: UndoEntry) -> MatchState:
    """A time-out given by mistake: it stops, and the team has it again."""
    assert entry.team is not None
    timeout = state.timeout
    if timeout is not None and timeout.team is entry.team:
        timeout = None
    home, away = state.timeouts_used
    used = (home - 1, away) if entry.team is Team.HOME else (home, away - 1)
    return replace(state, timeout=timeout, timeouts_used=used)


def without_shot(state: MatchState, entry: UndoEntry) -> MatchState:
    """The shot is taken back; a shootout it decided goes on."""
    shots = tuple(shot for shot in state.shots if shot.seq != entry.seq)
    if state.phase is Phase.FINAL:
        return state.entered(Phase.SHOOTOUT, shots=shots, result=None)
    return replace(state, shots=shots)


def unreleased(box: Box, entry: UndoEntry, now: Nanos, max_shorthanded: int, *,
               resume: bool = True) -> Box:
    """``box`` at game time ``now`` without the releases of the goal ``entry`` undoes.

    With ``resume`` (undo, just after the goal) the released penalty comes back with the
    time it had left at the goal; without (a cancel, maybe much later) it comes back as if
    never released and ends at the game time it would have ended, which may be now (the
    match lets it fall due at once). A penalty given since may have taken the freed place,
    so the latest starter beyond ``max_shorthanded`` waits again (the caller reschedules
    the box). A released penalty cancelled since stays gone."""
    restored: dict[int, ServedPenalty] = {}
    for change in entry.changes:
        before = change.before
        if resume and before.running and before.expiry is not None:
            before = replace(before, expiry=before.expiry + (now - entry.elapsed))
        restored[before.seq] = before
    box = tuple(restored.get(p.seq, p) for p in box)
    for team in Team:
        while box_rules.running_shorthanded(box, team) > max_shorthanded:
            latest = max((p for p in box if p.team is team and p.running and p.shorthanded
                          and p.seq not in restored), key=lambda p: (p.started or 0, p.seq))
            box = tuple(box_rules.pause(p, now) if p is latest else p for p in box)
    return box
