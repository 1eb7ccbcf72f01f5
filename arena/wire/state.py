"""A hall's retained ``state``: the state document (docs/developer.md 4.3, built by the core's
``arena.core.state.state_document``), declared here by its top-level fields.

The office only shows it, so every field is optional (a hall between matches sends little)
and only the types are checked; what is inside the nested objects is the display's to read.
A newer core's extra keys are kept, as docs/developer.md 4.3 allows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from . import fields as f
from .schema import Field, Kind, Presence, Schema
from .topics import STATE, hall_of


class StateDocument(TypedDict, total=False):
    """The state document's top-level fields (``DOCUMENT`` declares each one's type)."""

    preset: str
    stage: str
    match: str | None  # the match id, as an event's
    teams: dict[str, Any]
    phase: str
    period: int
    clock_ms: int
    running: bool
    stop_time: bool
    horn: bool
    score: dict[str, Any]
    penalties: dict[str, Any]
    strength: dict[str, Any]
    shift_ms: int | None
    timeout: dict[str, Any] | None
    shootout: dict[str, Any] | None
    extra_player: str | None
    result: dict[str, Any] | None
    entry: dict[str, Any] | None
    goal: dict[str, Any]  # only for a few seconds after a goal
    countdown: dict[str, Any]  # only before a scheduled start
    anchor: dict[str, Any]  # only on the wire: where the document sits on the hall's clocks


_OPT, _NULL = Presence.OPTIONAL, Presence.NULLABLE
# The same fields as ``StateDocument``, in its order (tests/test_wire_schema.py holds them equal).
DOCUMENT = Schema(tuple(Field(name, kind, presence) for name, kind, presence in (
    ("preset", Kind.STRING, _OPT), ("stage", Kind.STRING, _OPT),
    ("match", Kind.STRING, _NULL), ("teams", Kind.OBJECT, _OPT),
    ("phase", Kind.STRING, _OPT), ("period", Kind.INT, _OPT),
    ("clock_ms", Kind.INT, _OPT), ("running", Kind.BOOL, _OPT),
    ("stop_time", Kind.BOOL, _OPT), ("horn", Kind.BOOL, _OPT),
    ("score", Kind.OBJECT, _OPT), ("penalties", Kind.OBJECT, _OPT),
    ("strength", Kind.OBJECT, _OPT), ("shift_ms", Kind.INT, _NULL),
    ("timeout", Kind.OBJECT, _NULL), ("shootout", Kind.OBJECT, _NULL),
    ("extra_player", Kind.SIDE, _NULL), ("result", Kind.OBJECT, _NULL),
    ("entry", Kind.OBJECT, _NULL), ("goal", Kind.OBJECT, _OPT),
    ("countdown", Kind.OBJECT, _OPT), ("anchor", Kind.OBJECT, _OPT),
)))


def build_state(doc: Mapping[str, Any]) -> bytes:
    """The retained ``state``: the state document, as declared (a field of the wrong type is
    the core's bug, raised here rather than sent)."""
    DOCUMENT.check(STATE, doc)
    return f.encode(doc)


def check_state(topic: str, payload: bytes, tournament: str) -> tuple[str, dict[str, Any]]:
    """``(hall, document)`` of a retained state, loosely checked: it is only shown.

    An empty payload (the retained state was cleared) gives an empty document: no state.
    """
    hall = hall_of(topic, STATE, tournament)
    if not payload:
        return hall, {}
    doc = f.parse_object(topic, payload)
    DOCUMENT.check(topic, doc)
    return hall, doc
