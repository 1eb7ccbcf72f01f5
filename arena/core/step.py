"""One change of a match's state in the making, and the events it emits.

Every handler of the engine works on a ``Step``: it replaces the immutable state as it goes
and numbers each event as it is emitted, so ``Match.apply`` can throw the whole step away
when a handler refuses half-way, and nothing was changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .events import Event, EventKind
from .phase import Phase, Team
from .units import Nanos
from .values import MatchState


@dataclass(slots=True)
class Step:
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


def score_json(score: dict[Team, int]) -> dict[str, int]:
    """A score as the events and the record spell it."""
    return {team.value: n for team, n in score.items()}
