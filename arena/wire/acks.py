"""The office's retained ``acks`` of a hall: what it has durably stored of the hall's
events, the hall's only proof of delivery (a broker's PUBACK survives neither a broker
replaced by an empty one nor an office restored from an older backup). While the office
cannot store (a full disk), the word also says since when: the hall's events are kept in
the office's memory and retried, and the timekeeper is told. A match whose events the
office refuses from this hall because another hall plays it (two halls claiming one match)
is named with that hall, so the timekeeper is told and the hall holds those events back
until the office gives it the match (``office reschedule --force``)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from . import fields as f
from .limits import LIMITS
from .topics import ACKS, check_name, hall_of


class Ak:
    """The keys of an ``acks`` document."""

    MATCHES = "matches"  # match id -> the highest seq stored with none missing below it
    # The office's wall time (ISO 8601, to the second) since which it cannot store: absent
    # while it stores. Optional, so a hall that does not know it reads the marks as before.
    CANNOT_STORE_SINCE = "cannot_store_since"
    # Match id -> {PLAYED_IN: the hall the office takes its events from}: the office
    # refuses this hall's events of it. Optional, absent when none is; a hall that does
    # not know it retries them as before (a copy a minute at most).
    REFUSED = "refused"
    PLAYED_IN = "played_in"


# An ISO 8601 time of day with an optional date: what the hall shows, nothing longer.
_SINCE = re.compile(r"^(\d{4}-\d{2}-\d{2}T)?\d{2}:\d{2}(:\d{2})?$")


def build_acks(matches: Mapping[str, int], *, cannot_store_since: str | None = None,
               refused: Mapping[str, str] | None = None) -> bytes:
    """The retained ``acks`` of one hall: per match, the highest ``seq`` the office has
    stored with every lower one stored too. A match of the hall's that is absent has nothing
    stored: the document is the office's whole word on the hall, so a hall re-sends what it
    lacks even after the office lost it (restored from an older backup). ``refused``:
    match -> the hall playing it, for the matches whose events the office refuses from
    this hall (at most ``LIMITS.refused_max``, the first by match id)."""
    doc: dict[str, object] = {
        Ak.MATCHES: {check_name("match", m): int(n) for m, n in matches.items()}}
    if cannot_store_since is not None:
        if not _SINCE.match(cannot_store_since):
            raise ValueError(f"{Ak.CANNOT_STORE_SINCE} {cannot_store_since!r}: expected "
                             "YYYY-MM-DDTHH:MM:SS")
        doc[Ak.CANNOT_STORE_SINCE] = cannot_store_since
    if refused:
        doc[Ak.REFUSED] = {check_name("match", m): {Ak.PLAYED_IN: check_name("hall", h)}
                           for m, h in sorted(refused.items())[:LIMITS.refused_max]}
    return f.encode(doc)


def check_acks(topic: str, payload: bytes, tournament: str) -> tuple[str, dict[str, int]]:
    """``(hall, {match: highest gapless seq stored})``. An empty payload (the retained acks
    were cleared) is the office having stored nothing of the hall's."""
    hall = hall_of(topic, ACKS, tournament)
    if not payload:
        return hall, {}
    doc = f.parse_object(topic, payload)
    matches = f.get(topic, doc, Ak.MATCHES, dict, "an object")
    out: dict[str, int] = {}
    for match in matches:
        if not LIMITS.is_name(match):
            f.refuse(topic, f"'{Ak.MATCHES}' key {f.show(match)} is not a match id")
        out[match] = f.integer(topic, matches, match, 0, where=f"{Ak.MATCHES}.")
    return hall, out


def cannot_store_since(payload: bytes) -> str | None:
    """The office's ``cannot_store_since`` in an ``acks`` payload already taken by
    ``check_acks``, or None: absent, or not a time (then the office's word is still its
    marks, which must not be lost to a bad optional key)."""
    if not payload:
        return None
    try:
        doc = f.parse_object(ACKS, payload)
    except f.WireError:
        return None
    since = doc.get(Ak.CANNOT_STORE_SINCE)
    return since if isinstance(since, str) and _SINCE.match(since) else None


def refused_matches(payload: bytes) -> dict[str, str]:
    """The office's ``refused`` in an ``acks`` payload already taken by ``check_acks``:
    match -> the hall playing it. Empty when absent; an entry that is not a match id with
    a hall id is left out, and so is any beyond ``LIMITS.refused_max`` (the marks, the
    office's word on what it stored, must not be lost to a bad optional key)."""
    if not payload:
        return {}
    try:
        doc = f.parse_object(ACKS, payload)
    except f.WireError:
        return {}
    refused = doc.get(Ak.REFUSED)
    if not isinstance(refused, dict):
        return {}
    out: dict[str, str] = {}
    for match, why in refused.items():
        hall = why.get(Ak.PLAYED_IN) if isinstance(why, dict) else None
        if LIMITS.is_name(match) and LIMITS.is_name(hall):
            out[match] = hall
        if len(out) >= LIMITS.refused_max:
            break
    return out
