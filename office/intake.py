"""What arrives from the broker, checked before anything is stored (DESIGN.md 4.4).

Anyone who can publish to the broker can send anything: not JSON, the wrong schema, a hall
that does not exist, a hall reporting another hall's match, a megabyte. Each ``check_*``
returns a clean value or raises ``Refusal`` naming the topic and the reason; nothing else
escapes, whatever the bytes, so the service can log the refusal and carry on.

Pure: standard library and the project's pure modules only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from firmware_py.core.events import EventKind
from office.model import DecidedBy, Tournament

MAX_PAYLOAD = 64 * 1024  # a match record is a few kB; anything bigger is refused unparsed
# A match record is 4 levels deep. Far deeper JSON would still parse here but could hit
# Python's recursion limit later, deeper in some other call stack (storing, the page).
MAX_DEPTH = 32
_INT64 = 2**63  # SQLite's INTEGER range: a bigger number could not even be stored
_KINDS = ("events", "state", "status")
_EVENT_TYPES = frozenset(k.value for k in EventKind)
_DECIDED_BY = tuple(d.value for d in DecidedBy)


class Refusal(ValueError):
    """A message the office will not use; ``str()`` is ``"<topic>: <reason>"``."""

    def __init__(self, topic: str, reason: str) -> None:
        super().__init__(f"{topic}: {reason}")
        self.topic = topic
        self.reason = reason


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


def classify(topic: str, tournament: Tournament) -> tuple[str, str] | None:
    """``(hall, kind)`` for ``arena/v1/<this tournament>/<hall>/<events|state|status>``.

    The hall is not checked against the schedule here; None for any other topic (another
    tournament, ``standings/...``, the office's own ``next``).
    """
    parts = topic.split("/")
    if len(parts) != 5 or parts[:3] != ["arena", "v1", tournament.id]:
        return None
    hall, kind = parts[3], parts[4]
    if not hall or kind not in _KINDS:
        return None
    return hall, kind


def check_event(topic: str, payload: bytes, tournament: Tournament) -> HallEvent:
    """A hall's event, checked against the topic, the schema and the schedule."""
    hall = _hall_of(topic, "events", tournament)
    doc = _object(topic, payload)
    event_id = _get(topic, doc, "event_id", str, "a string")
    match_id = _get(topic, doc, "match", str, "a string")
    seq = _int(topic, doc, "seq", minimum=1)
    kind = _get(topic, doc, "type", str, "a string")
    if kind not in _EVENT_TYPES:
        _refuse(topic, f"'type' {kind!r} is not a known event type")
    data = _get(topic, doc, "data", dict, "an object")
    at_ns = _int(topic, doc, "at_ns", minimum=0)
    if "wall" not in doc:
        _refuse(topic, "'wall' is missing")
    wall = doc["wall"]
    if wall is not None and not isinstance(wall, str):
        _refuse(topic, f"'wall' must be a string or null, got {_kind_of(wall)}")

    scheduled = tournament.match(match_id)
    if scheduled is None:
        _refuse(topic, f"unknown match {match_id!r}")
    if scheduled.hall != hall:
        _refuse(topic, f"match {match_id!r} is assigned to hall {scheduled.hall!r}, "
                       f"not {hall!r}")
    expected = f"{hall}:{match_id}:{seq}"
    if event_id != expected:
        _refuse(topic, f"'event_id' {event_id!r} does not match topic and fields "
                       f"(expected {expected!r})")
    if kind == EventKind.MATCH_ENDED.value:
        _check_match_ended(topic, data)
    return HallEvent(event_id=event_id, hall=hall, match=match_id, seq=seq, type=kind,
                     data=data, at_ns=at_ns, wall=wall)


def check_state(topic: str, payload: bytes, tournament: Tournament) -> tuple[str, dict[str, Any]]:
    """A hall's retained state document, loosely checked: the page only shows it.

    An empty payload (the retained state was cleared) gives an empty document: no state.
    """
    hall = _hall_of(topic, "state", tournament)
    if not payload:
        return hall, {}
    doc = _object(topic, payload)
    match = doc.get("match")
    if match is not None and not isinstance(match, str):
        _refuse(topic, f"'match' must be a string or null, got {_kind_of(match)}")
    return hall, doc


def check_status(topic: str, payload: bytes, tournament: Tournament) -> tuple[str, bool]:
    """A hall's retained status: True for ``online``.

    An empty payload (the retained status was cleared) counts as offline.
    """
    hall = _hall_of(topic, "status", tournament)
    if len(payload) > MAX_PAYLOAD:
        _refuse(topic, _too_big(payload))
    if payload in (b"offline", b""):
        return hall, False
    if payload == b"online":
        return hall, True
    _refuse(topic, f"status must be 'online' or 'offline', got {payload[:40]!r}")


# Helpers ---------------------------------------------------------------------------------


def _refuse(topic: str, reason: str) -> NoReturn:
    raise Refusal(topic, reason)


def _hall_of(topic: str, kind: str, tournament: Tournament) -> str:
    found = classify(topic, tournament)
    if found is None or found[1] != kind:
        _refuse(topic, f"not a topic of the form arena/v1/{tournament.id}/<hall>/{kind}")
    hall = found[0]
    if hall not in tournament.halls():
        _refuse(topic, f"unknown hall {hall!r} (not in the schedule)")
    return hall


def _too_big(payload: bytes) -> str:
    return f"payload of {len(payload)} bytes is over the {MAX_PAYLOAD}-byte limit"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _object(topic: str, payload: bytes) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD:
        _refuse(topic, _too_big(payload))
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as err:
        _refuse(topic, f"not UTF-8 ({err.reason} at byte {err.start})")
    try:
        # NaN and Infinity are not JSON; whoever reads our store or page later would choke.
        doc = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        _refuse(topic, f"not JSON ({err.msg} at line {err.lineno} column {err.colno})")
    except ValueError as err:  # NaN, or an integer of thousands of digits
        _refuse(topic, f"not usable JSON ({err})")
    except RecursionError:
        _refuse(topic, "not usable JSON (nested too deeply)")
    if not isinstance(doc, dict):
        _refuse(topic, f"must be a JSON object, got {_kind_of(doc)}")
    if _depth(doc) > MAX_DEPTH:
        _refuse(topic, f"nested more than {MAX_DEPTH} levels deep")
    try:
        # A "\ud800" escape decodes to a lone surrogate, which SQLite cannot store as text.
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):
        _refuse(topic, "contains a string that is not valid Unicode (a lone surrogate)")
    return doc


def _depth(doc: Any) -> int:
    """How deeply lists and objects nest (iteratively: no recursion limit of our own)."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(doc, 1)]
    while todo:
        value, level = todo.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:
                todo.extend((v, level + 1) for v in (value.values() if isinstance(value, dict)
                                                     else value))
    return deepest


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _get(topic: str, doc: Mapping[str, Any], name: str, kind: type[Any], wanted: str, *,
         where: str = "") -> Any:
    if name not in doc:
        _refuse(topic, f"'{where}{name}' is missing")
    value = doc[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        _refuse(topic, f"'{where}{name}' must be {wanted}, got {_kind_of(value)} {_show(value)}")
    return value


def _int(topic: str, doc: Mapping[str, Any], name: str, minimum: int, *, where: str = "") -> int:
    # bool is a subclass of int in Python, but `true` is not a sequence number.
    value: int = _get(topic, doc, name, int, "an integer", where=where)
    if not minimum <= value < _INT64:
        _refuse(topic, f"'{where}{name}' must be an integer from {minimum} up, got {_show(value)}")
    return value


def _show(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_match_ended(topic: str, data: Mapping[str, Any]) -> None:
    """The last event of a match carries its result and whole record: the office ranks and
    suspends from it alone, so it must be complete."""
    result = _get(topic, data, "result", dict, "an object", where="data.")
    _int(topic, result, "home", 0, where="data.result.")
    _int(topic, result, "away", 0, where="data.result.")
    decided_by = _get(topic, result, "decided_by", str, "a string", where="data.result.")
    if decided_by not in _DECIDED_BY:
        _refuse(topic, f"'data.result.decided_by' must be one of {', '.join(_DECIDED_BY)}, "
                       f"got {decided_by!r}")
    record = _get(topic, data, "record", dict, "an object", where="data.")
    penalties = _get(topic, record, "penalties", list, "a list", where="data.record.")
    for i, penalty in enumerate(penalties):
        where = f"data.record.penalties[{i}]"
        if not isinstance(penalty, dict):
            _refuse(topic, f"'{where}' must be an object, got {_kind_of(penalty)}")
        team = _get(topic, penalty, "team", str, "a string", where=where + ".")
        if team not in ("home", "away"):
            _refuse(topic, f"'{where}.team' must be 'home' or 'away', got {team!r}")
        _int(topic, penalty, "player", 0, where=where + ".")
        _get(topic, penalty, "kind", str, "a string", where=where + ".")
        _int(topic, penalty, "minutes", 0, where=where + ".")
