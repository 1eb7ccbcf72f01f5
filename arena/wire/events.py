"""A hall's ``events``: one message per event of a match, numbered gaplessly from 1.

The message's fields are declared once (``MESSAGE``): ``event_document`` builds from it and
``check_event`` checks against it, then the event's ``data`` against its kind's declaration
(``eventdata.DATA``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.core.events import EventKind

from . import fields as f
from .eventdata import check_data
from .limits import LIMITS
from .schema import Field, Kind, Presence, Schema
from .topics import EVENTS, hall_of


class Ev:
    """The keys of an ``events`` message."""

    EVENT_ID = "event_id"
    MATCH = "match"
    SEQ = "seq"
    TYPE = "type"
    DATA = "data"
    AT_NS = "at_ns"  # the hall's monotonic time of the press
    WALL = "wall"
    WALL_SYNCED = "wall_synced"
    BOOT = "boot"


_TYPES = tuple(k.value for k in EventKind)
MESSAGE = Schema((
    Field(Ev.EVENT_ID, Kind.STRING),
    Field(Ev.MATCH, Kind.STRING),
    Field(Ev.SEQ, Kind.INT, minimum=1),
    Field(Ev.TYPE, Kind.STRING),
    Field(Ev.DATA, Kind.OBJECT),
    Field(Ev.AT_NS, Kind.INT),
    Field(Ev.WALL, Kind.STRING, Presence.PRESENT),  # null until the clock is synchronised
    Field(Ev.WALL_SYNCED, Kind.BOOL, Presence.OPTIONAL),
    Field(Ev.BOOT, Kind.STRING, Presence.NULLABLE),
))


def event_id(hall: str, match: str, seq: int) -> str:
    """``<hall>:<match>:<seq>``: what consumers de-duplicate by (names have no ':')."""
    return f"{hall}:{match}:{seq}"


@dataclass(frozen=True)
class HallEvent:
    """One checked ``events`` message."""

    event_id: str  # "<hall>:<match>:<seq>"
    hall: str
    match: str
    seq: int  # gapless per match, from 1
    type: str  # an EventKind value
    data: Mapping[str, Any]
    at_ns: int  # the hall's monotonic time of the press
    wall: str | None  # the hall's wall time, when its clock was synchronised


def event_document(hall: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """An ``events`` message as a document, from a journal event record.

    ``wall`` is present in a record only when the recorder was given a wall clock, which the
    shell does only once the system clock is synchronised (a Pi without RTC boots in 1970).
    """
    wall = record.get("wall")
    return MESSAGE.build(**{
        Ev.EVENT_ID: event_id(hall, str(record["match"]), int(record["seq"])),
        Ev.MATCH: record["match"],
        Ev.SEQ: record["seq"],
        Ev.TYPE: record["event"],
        Ev.DATA: record.get("data", {}),
        Ev.AT_NS: record["at"],
        Ev.WALL: wall,
        Ev.WALL_SYNCED: wall is not None,
        Ev.BOOT: record.get("boot"),
    })


def build_event(hall: str, record: Mapping[str, Any]) -> bytes:
    return json.dumps(event_document(hall, record), separators=(",", ":")).encode("utf-8")


def check_event(topic: str, payload: bytes, tournament: str) -> HallEvent:
    """An ``events`` message, checked against its topic and the schema (not the schedule:
    that is the office's)."""
    hall = hall_of(topic, EVENTS, tournament)
    doc = f.parse_object(topic, payload)
    for field in MESSAGE.fields[:4]:  # the type is known before the rest is read
        field.check(topic, doc, "")
    kind = doc[Ev.TYPE]
    if kind not in _TYPES:
        f.refuse(topic, f"'{Ev.TYPE}' {kind!r} is not a known event type")
    MESSAGE.check(topic, doc)
    wall = doc[Ev.WALL]
    if wall is not None and len(wall) > LIMITS.text_chars:
        f.refuse(topic, f"'{Ev.WALL}' is {len(wall)} characters, more than "
                        f"{LIMITS.text_chars}")
    match_id, seq = doc[Ev.MATCH], doc[Ev.SEQ]
    expected = event_id(hall, match_id, seq)
    if doc[Ev.EVENT_ID] != expected:
        f.refuse(topic, f"'{Ev.EVENT_ID}' {doc[Ev.EVENT_ID]!r} does not match topic and "
                        f"fields (expected {expected!r})")
    data = doc[Ev.DATA]
    check_data(topic, EventKind(kind), data)
    return HallEvent(event_id=doc[Ev.EVENT_ID], hall=hall, match=match_id, seq=seq,
                     type=kind, data=data, at_ns=doc[Ev.AT_NS], wall=wall)
