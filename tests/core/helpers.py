"""Helpers for core tests: seconds to the core's nanoseconds, and a match driven like the shell
drives it (every command through ``feed``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from arena import presets
from arena.core.commands import Command
from arena.core.events import Event, EventKind
from arena.core.match import Match, feed
from arena.core.phase import Stage
from arena.core.state import state_document
from arena.core.units import ns_from_seconds
from arena.core.values import MatchSetup


def S(seconds: float | int | str) -> int:
    """Seconds (exact decimal) as the core's nanoseconds."""
    return ns_from_seconds(Decimal(str(seconds)))


class Game:
    """A match plus everything it emitted; commands refused by the rules are kept, not raised."""

    def __init__(self, preset: str, stage: Stage = Stage.GROUP,
                 setup: MatchSetup | None = None) -> None:
        self.match = Match(presets.load(preset), setup or MatchSetup(match_id="T1", stage=stage))
        self.events: list[Event] = []
        self.refusals: list[str] = []

    def do(self, command: Command) -> list[Event]:
        fed = feed(self.match, command)
        self.events += fed.events
        if fed.refused is not None:
            self.refusals.append(str(fed.refused))
        return fed.events

    def at(self, seconds: float | int | str) -> dict[str, Any]:
        """The state document at a script time, after letting time pass to it."""
        now = S(seconds)
        self.events += self.match.advance(now)
        return state_document(self.match, now)

    def kinds(self) -> list[EventKind]:
        return [e.kind for e in self.events]
