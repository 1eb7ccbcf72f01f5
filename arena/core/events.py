"""Events: what happened, in order, numbered gaplessly per match.

The core returns events from ``Match.apply`` and ``Match.advance``; the shell journals them
(the outbox of MQTT) and the office builds its records from them. An event is stamped with
the instant it happened in game terms: a period that ended at its deadline says so, however
late the loop noticed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .units import Nanos


class EventKind(StrEnum):
    PERIOD_STARTED = "period_started"
    CLOCK_STARTED = "clock_started"
    CLOCK_STOPPED = "clock_stopped"
    CLOCK_SET = "clock_set"
    PERIOD_ENDED = "period_ended"
    BREAK_STARTED = "break_started"
    BREAK_ENDED = "break_ended"
    GOAL = "goal"
    FORFEIT = "forfeit"
    HORN = "horn"
    UNDONE = "undone"
    CANCELLED = "cancelled"
    CORRECTED = "corrected"
    PENALTY = "penalty"
    PENALTY_STARTED = "penalty_started"
    PENALTY_ENDED = "penalty_ended"
    TIMEOUT_STARTED = "timeout_started"
    TIMEOUT_ENDED = "timeout_ended"
    SHIFT_ENDED = "shift_ended"
    SHOOTOUT_STARTED = "shootout_started"
    SHOT = "shot"
    MATCH_ENDED = "match_ended"


@dataclass(frozen=True, slots=True)
class Event:
    seq: int
    at: Nanos
    kind: EventKind
    data: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "at": self.at, "type": self.kind.value, **self.data}
