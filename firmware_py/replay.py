"""``scoreboard replay``: run a script through the core and take state snapshots.

Exactly what the live scoreboard would do with the same presses at the same instants: every
command goes through ``feed``; a command the rules refuse is reported with its line and
skipped; a command at exactly a snapshot time is applied before the snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arena.core.match import Match, feed
from arena.core.state import state_document
from arena.core.units import Nanos
from firmware_py.script import ScriptLine


@dataclass(frozen=True, slots=True)
class Refusal:
    line: int
    message: str


def replay(
    match: Match, script: list[ScriptLine], at: list[Nanos]
) -> tuple[list[dict[str, Any]], list[Refusal]]:
    """State documents at each ``at`` instant (in the order given) and the refusals."""
    order = sorted(range(len(at)), key=lambda i: at[i])
    snapshots: dict[int, dict[str, Any]] = {}
    refusals: list[Refusal] = []
    pending = iter(order)
    next_index = next(pending, None)

    def take_until(limit: Nanos | None) -> Iterator[int]:
        nonlocal next_index
        while next_index is not None and (limit is None or at[next_index] < limit):
            yield next_index
            next_index = next(pending, None)

    for line in script:
        for index in take_until(line.t):
            snapshots[index] = snapshot(match, at[index])
        fed = feed(match, line.command)
        if fed.refused is not None:
            refusals.append(Refusal(line.line, str(fed.refused)))
    for index in take_until(None):
        snapshots[index] = snapshot(match, at[index])
    return [snapshots[i] for i in range(len(at))], refusals


def snapshot(match: Match, now: Nanos) -> dict[str, Any]:
    match.advance(now)
    return state_document(match, now)
