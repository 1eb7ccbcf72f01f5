"""What rides on a ``next`` besides the match: the public site's address (a QR code between
games) and each team's roster (the scorer's name on the hall display).

Each check raises ValueError saying what is wrong; the caller names where it came from (the
hall's config, ``office serve --public-url``, the tournament file's reader, a ``next``).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from arena.safejson import kind_of

from . import fields as f
from .limits import LIMITS

# What the hall display's QR code holds, and what a spectator can read under it.
PUBLIC_URL_CHARS = LIMITS.public_url_chars
PUBLIC_URL_BYTES = LIMITS.public_url_bytes


def check_public_url(url: object) -> str:
    """The public site's address as a phone opens it from the hall's QR code: an
    ``http://`` or ``https://`` address with a host, no spaces, short enough for the code.
    Raises ValueError saying what is wrong (the caller names where it came from): the
    hall's ``[display] public_url``, ``office serve --public-url`` and ``next`` all use it."""
    if not isinstance(url, str) or not url:
        raise ValueError(f"must be a non-empty string, got {kind_of(url)}")
    if any(c.isspace() or not c.isprintable() for c in url):
        raise ValueError(f"must have no spaces or control characters, got {url[:60]!r}")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # a malformed port or IPv6 host
        host = None
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not host:
        raise ValueError(f"must be an http:// or https:// address, got {url[:60]!r}")
    if len(url) > PUBLIC_URL_CHARS or len(url.encode("utf-8")) > PUBLIC_URL_BYTES:
        raise ValueError(f"must be at most {PUBLIC_URL_CHARS} characters ({PUBLIC_URL_BYTES} "
                         f"bytes of UTF-8: what a QR code on the screen holds), got {len(url)}")
    return url


# A roster holds the numbers a console takes (0..player_max, so at most one name each).
ROSTER_NAME_CHARS = LIMITS.roster_name_chars
_ROSTER_NUMBER = re.compile(r"0|[1-9][0-9]?")  # as JSON object keys: "7", never "07"


def roster_document(roster: tuple[tuple[int, str], ...]) -> dict[str, str]:
    """A roster as its JSON object, keyed by the shirt number's digits."""
    return {str(number): name for number, name in roster}


def check_roster(value: object) -> tuple[tuple[int, str], ...]:
    """A team's ``roster`` in a ``next``: ``{"7": "A. Player", ...}``, numbers 0 to
    ``LIMITS.player_max``. Raises ValueError saying what is wrong (the caller names where)."""
    if not isinstance(value, dict):
        raise ValueError(f"must be an object of number: name, got {kind_of(value)}")
    if len(value) > LIMITS.player_max + 1:
        raise ValueError(f"has {len(value)} players, more than the {LIMITS.player_max + 1} "
                         f"numbers 0-{LIMITS.player_max}")
    out: list[tuple[int, str]] = []
    for key, name in value.items():
        if not isinstance(key, str) or not _ROSTER_NUMBER.fullmatch(key):
            raise ValueError(f"key {f.show(key)} is not a shirt number (0-{LIMITS.player_max})")
        try:
            out.append((int(key), check_roster_name(name)))
        except ValueError as err:
            raise ValueError(f"{key}: {err}") from None
    return tuple(sorted(out))


def check_roster_name(name: object) -> str:
    """A player's name as a roster gives it: printable text (``Limits.forbidden``), not
    blank, at most ``ROSTER_NAME_CHARS``. Raises ValueError; the tournament file's reader
    uses it too, so the office never sends a name a hall would leave out."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"must be the player's name, got {f.show(name)}")
    if LIMITS.forbidden(name) is not None:
        raise ValueError(f"must have no control characters, got {f.show(name)}")
    if len(name) > ROSTER_NAME_CHARS:
        raise ValueError(f"must be at most {ROSTER_NAME_CHARS} characters, got {len(name)}")
    return name


