"""What the office does with its own bad data: refusals counted by reason, and stored events
that no longer pass the checks or that the ledger cannot fold (quarantine).

Pure: standard library and the project's pure modules only (the service does the storing).
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
from pathlib import Path
from typing import Any

from arena import wire
from office.storage import intake

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


@functools.cache
def checks_version() -> str:
    """Names the checks ``poison_reason`` applies: a digest of the modules that make them.
    What was checked at one start need not be checked again at the next (the store keeps
    how far it got, ``Store.checked_upto``) unless these changed with a new version."""
    digest = hashlib.sha256()
    for module in (wire, intake, sys.modules[__name__]):
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()[:16]


def poison_reason(tournament: intake.Schedule, ev: Any) -> str | None:
    """Why a stored event (``office.storage.store.StoredEvent``) would be refused today, or None.

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
