"""What the office does with its own bad data: refusals counted by reason, stored events that
no longer pass the checks or that the ledger cannot fold (quarantine), and the lean copy of
an event the service keeps for folding.

Pure: standard library and the project's pure modules only (the service does the storing).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from firmware_py import wire

from . import intake
from .model import Tournament

MAX_REASONS = 100  # distinct refusal reasons counted; any further one counts as "other"
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"\d+")


def reason_key(kind: str, reason: str) -> str:
    """A refusal's reason without what varies from one message to the next (the value got,
    a hall's name, a size): what the office page counts by. ``kind`` is the topic's
    (``events``, ``state``, ``status``, or ``topic`` for one the office does not read)."""
    text = reason.split(", got ", maxsplit=1)[0].split(" (expected ", maxsplit=1)[0]
    field = ""
    if text.startswith("'"):  # "'data.record.teams' must be an object"
        end = text.find("'", 1)
        if end > 0:
            field, text = text[: end + 1], text[end + 1:]
    text = _NUMBER.sub("N", _QUOTED.sub("...", text)).strip()
    return f"{kind}: {_NUMBER.sub('N', field)} {text}".replace("  ", " ")[:120]


class RefusalCounts:
    """Refused messages by ``reason_key``, bounded (``MAX_REASONS``)."""

    def __init__(self) -> None:
        self.total = 0
        self.by_reason: dict[str, int] = {}

    def count(self, kind: str, reason: str) -> str:
        self.total += 1
        key = reason_key(kind, reason)
        if key not in self.by_reason and len(self.by_reason) >= MAX_REASONS:
            key = f"{kind}: other"
        self.by_reason[key] = self.by_reason.get(key, 0) + 1
        return key

    def to_json(self) -> list[dict[str, Any]]:
        return [{"reason": k, "count": n}
                for k, n in sorted(self.by_reason.items(), key=lambda kv: (-kv[1], kv[0]))]


def poison_reason(tournament: Tournament, ev: Any) -> str | None:
    """Why a stored event (``office.store.StoredEvent``) would be refused today, or None.

    The schema of its own hall's topic and the protocol's seq bound; not the schedule (a
    match moved to another hall keeps the old hall's events, under their event_id)."""
    try:
        topic = wire.hall_topic(tournament.id, ev.hall, wire.EVENTS)
    except ValueError as err:
        return f"hall: {err}"
    doc = {wire.Ev.EVENT_ID: ev.event_id, wire.Ev.MATCH: ev.match, wire.Ev.SEQ: ev.seq,
           wire.Ev.TYPE: ev.type, wire.Ev.DATA: ev.data, wire.Ev.AT_NS: ev.at_ns,
           wire.Ev.WALL: ev.wall}
    try:
        wire.check_event(topic, wire.encode(doc), tournament.id)
        intake.check_seq(topic, ev.seq, intake.MAX_SEQ)
    except (wire.WireError, ValueError, TypeError) as err:
        return getattr(err, "reason", str(err))
    return None


@dataclass(frozen=True, slots=True)
class FoldEvent:
    """What the ledger reads of a stored event (``ledger.HallEventLike``), and no more: the
    whole data of a final (its result and record), else only the live score and the phase.
    The service keeps one per stored event, for the whole tournament; the page and the
    commands read the rest from the store."""

    hall: str
    match: str
    seq: int
    type: str
    data: Mapping[str, Any]

    @property
    def event_id(self) -> str:
        return wire.event_id(self.hall, self.match, self.seq)


_SHARED: dict[tuple[Any, ...], Mapping[str, Any]] = {}  # equal lean data is one object
_KEPT = ("score", "phase")


def lean(ev: Any) -> FoldEvent:
    """``ev`` (any ``HallEventLike``) as a ``FoldEvent``."""
    data: Mapping[str, Any] = ev.data
    if ev.type != "match_ended":
        score = data.get("score")
        key: tuple[Any, ...] = (
            (score.get("home"), score.get("away")) if isinstance(score, Mapping) else score,
            data.get("phase"))
        if isinstance(key[0], tuple | int | str | None) and isinstance(key[1], str | None):
            shared = _SHARED.get(key)
            if shared is None:
                shared = {k: data[k] for k in _KEPT if k in data}
                if len(_SHARED) < 10_000:
                    _SHARED[key] = shared
            data = shared
        else:
            data = {k: data[k] for k in _KEPT if k in data}
    return FoldEvent(sys.intern(ev.hall), sys.intern(ev.match), ev.seq, sys.intern(ev.type),
                     data)
