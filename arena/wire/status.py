"""A hall's retained ``status``: ``online``, or ``offline`` (also its last will)."""

from __future__ import annotations

from . import fields as f
from .limits import LIMITS
from .topics import STATUS, hall_of

ONLINE = b"online"
OFFLINE = b"offline"


def build_status(online: bool) -> bytes:
    """The retained ``status``; ``offline`` is also the hall's last will."""
    return ONLINE if online else OFFLINE


def check_status(topic: str, payload: bytes, tournament: str) -> tuple[str, bool]:
    """``(hall, online)``. An empty payload (the retained status was cleared) is offline."""
    hall = hall_of(topic, STATUS, tournament)
    if len(payload) > LIMITS.payload_bytes:
        f.refuse(topic, f"{len(payload)} bytes, over the {LIMITS.payload_bytes}-byte limit")
    if payload in (OFFLINE, b""):
        return hall, False
    if payload == ONLINE:
        return hall, True
    f.refuse(topic, f"status must be 'online' or 'offline', got {payload[:40]!r}")
