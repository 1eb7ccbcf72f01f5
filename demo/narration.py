"""What the demo prints of a match: its events as one line each. Pure: no I/O, no clock.

The same words serve both demos: ``--examples`` narrates the events the core returns as it
plays an example script, and the tournament demo narrates the records it reads from each
hall's journals (docs/developer.md 2, rule 3: the journal is the source of truth), so a hall's
narration is exactly what the hall recorded, whatever its log says.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from pathlib import PurePath
from typing import Any

from arena.core.events import Event, EventKind

# What a spectator would notice; the clock starting and stopping, horns and line changes
# would drown the rest.
NARRATED = frozenset({
    EventKind.PERIOD_STARTED, EventKind.PERIOD_ENDED, EventKind.BREAK_STARTED,
    EventKind.BREAK_ENDED, EventKind.GOAL, EventKind.FORFEIT, EventKind.UNDONE,
    EventKind.SHOOTOUT_STARTED, EventKind.MATCH_ENDED, EventKind.CLOCK_SET,
    EventKind.PENALTY, EventKind.PENALTY_STARTED, EventKind.PENALTY_ENDED,
    EventKind.TIMEOUT_STARTED, EventKind.TIMEOUT_ENDED, EventKind.SHOT,
})

MATCH_WIDTH = 4  # the match id column of the tournament demo's lines


def mmss(ms: int) -> str:
    """A clock value as the board shows whole seconds: rounded up, as the clock counts."""
    seconds = -(-ms // 1000)
    return f"{seconds // 60:2d}:{seconds % 60:02d}"


def _score(score: Mapping[str, int]) -> str:
    return f"{score['home']}:{score['away']}"


def _phase(name: str) -> str:
    return name.replace("_", " ")  # "overtime_break" -> "overtime break"


def _who(data: Mapping[str, Any]) -> str:
    return f" #{data['player']}" if data.get("player") is not None else ""


def _described(kind: EventKind, d: Mapping[str, Any]) -> str | None:
    """The words for the kinds that have their own; None: the generic form."""
    if kind is EventKind.GOAL:
        return (f"goal {d['team']}{_who(d)} in period {d['period']} at {mmss(d['clock_ms'])} "
                f"left -> {_score(d['score'])}")
    if kind is EventKind.MATCH_ENDED:
        r = d["result"]
        text = f"final {r['home']}:{r['away']} ({r['decided_by']})"
        decisive = (d["record"].get("shootout") or {}).get("decisive")
        if decisive:
            text += f", decisive shot {decisive['team']} #{decisive['player']}"
        return text
    if kind is EventKind.PERIOD_STARTED:
        return f"{d['phase']} {d['period']} starts"
    if kind is EventKind.PERIOD_ENDED:
        return (f"{d['phase']} {d['period']} ends"
                + (" (shortened)" if d.get("shortened") else "")
                + f" at {_score(d['score'])}")
    if kind is EventKind.BREAK_STARTED:
        return (f"{_phase(d['phase'])} of {mmss(d['length_ms'])} "
                f"before period {d['next_period']}")
    if kind is EventKind.BREAK_ENDED:
        return f"{_phase(d['phase'])} ends" + (" early" if d.get("early") else "")
    if kind is EventKind.CLOCK_SET:
        return f"clock set from {mmss(d['from_ms']).strip()} to {mmss(d['to_ms']).strip()}"
    if kind is EventKind.PENALTY:
        return (f"penalty {d['team']} #{d['player']} {d['kind']} in period {d['period']}"
                + (" (coincidental)" if d["coincidental"] else ""))
    if kind in (EventKind.PENALTY_STARTED, EventKind.PENALTY_ENDED):
        how = "starts" if kind is EventKind.PENALTY_STARTED else d["how"]
        return f"penalty {d['team']} #{d['player']} {d['kind']} {how}"
    if kind is EventKind.SHOT:
        return (f"shot {d['team']}{_who(d)} {'scores' if d['scored'] else 'misses'}"
                f" -> {_score(d['tally'])}")
    if kind is EventKind.UNDONE:
        return f"undo {d['what']} -> {_score(d['score'])}, {d['phase']}"
    return None


def event_text(event: Event) -> str:
    """One event in words. An event whose data lacks what its words need (a journal written
    by another version, say) is still shown, in the generic form."""
    try:
        described = _described(event.kind, event.data)
    except (KeyError, TypeError, AttributeError):
        described = None
    if described is not None:
        return described
    details = ", ".join(f"{k} {v}" for k, v in event.data.items() if k != "score")
    return f"{event.kind.value.replace('_', ' ')} ({details})" if details else event.kind.value


def match_heading(record: Mapping[str, Any], configured: Collection[str]) -> str:
    """A journal's first record (the match's setup) as the line that puts it on the board.

    ``configured``: the matches the demo wrote into the hall's configs. Any other match in
    the hall's journals can only have come from the office, as its ``next``."""
    match = str(record.get("match", "?"))
    teams = record.get("teams") or {}
    home = (teams.get("home") or {}).get("name", "?")
    away = (teams.get("away") or {}).get("name", "?")
    # The journal keeps the preset's source name ("ice-hockey-2x20.toml" or a user's path).
    preset = PurePath(str(record.get("preset_source", "?"))).stem
    how = "on the board" if match in configured else "next match from the office"
    return f"{how}: {match} {home} v {away} ({preset}, {record.get('stage', '?')})"


def record_line(record: Mapping[str, Any], match: str, configured: Collection[str]) -> str | None:
    """One record of ``match``'s journal as the demo prints it, or None for what it leaves
    out (inputs, the shell's own records, events not in ``NARRATED``)."""
    kind = record.get("type")
    column = f"{match:<{MATCH_WIDTH}}"
    if kind == "match":
        return match_heading(record, configured)
    if kind == "event":
        data = record.get("data") or {}
        try:
            if not isinstance(data, Mapping):
                raise TypeError("data is not an object")
            event = Event(int(record["seq"]), int(record["at"]), EventKind(record["event"]),
                          data)
        except (KeyError, TypeError, ValueError):
            return f"{column} unreadable event record: {dict(record)}"
        return f"{column} {event_text(event)}" if event.kind in NARRATED else None
    if kind == "advance" and "script" in record:
        # The recorder journals a refused press that let time pass as an advance; the
        # journal does not keep why the rules refused it (the hall's log does).
        return f"{column} script line {record['script']} refused"
    return None


def journal_lines(records: Iterable[Mapping[str, Any]], match: str,
                  configured: Collection[str]) -> list[str]:
    """The lines of records read from ``match``'s journal, in journal order."""
    return [line for r in records if (line := record_line(r, match, configured)) is not None]
