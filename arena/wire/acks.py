"""The office's retained ``acks`` of a hall: what it has durably stored of the hall's
events, the hall's only proof of delivery (a broker's PUBACK survives neither a broker
replaced by an empty one nor an office restored from an older backup)."""

from __future__ import annotations

from collections.abc import Mapping

from . import fields as f
from .limits import LIMITS
from .topics import ACKS, check_name, hall_of


class Ak:
    """The keys of an ``acks`` document."""

    MATCHES = "matches"  # match id -> the highest seq stored with none missing below it


def build_acks(matches: Mapping[str, int]) -> bytes:
    """The retained ``acks`` of one hall: per match, the highest ``seq`` the office has
    stored with every lower one stored too. A match of the hall's that is absent has nothing
    stored: the document is the office's whole word on the hall, so a hall re-sends what it
    lacks even after the office lost it (restored from an older backup)."""
    return f.encode({Ak.MATCHES: {check_name("match", m): int(n) for m, n in matches.items()}})


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
