"""How the daemon's log lines write an instant (seconds, to the microsecond) and the events
a command or a deadline made (their seq range)."""

from __future__ import annotations

from arena.core.events import Event
from arena.core.units import NS_PER_S


def seconds(ns: int) -> str:
    return f"{ns / NS_PER_S:.6f}"


def seq_range(events: list[Event]) -> str | None:
    if not events:
        return None
    first, last = events[0].seq, events[-1].seq
    return str(first) if first == last else f"{first}..{last}"
