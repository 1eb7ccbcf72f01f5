"""The wire's limits, declared once: what a name, a number and a text may be.

Every end that lets a value onto the wire or into the office's store reads this table: the
tournament file's reader (team names, rosters, ids), the office's ``next``, the checks of a
hall's final record and the office's intake. A tournament file therefore cannot hold a name
that a final carrying it would be refused for: the same rule decides both.

The ranges are what a real match can produce, with room to spare (docs/developer.md 4.4). A number
beyond them is a forgery or a bug, and would rank or suspend nonsense.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeGuard

from arena.safejson import MAX_BYTES


@dataclass(frozen=True, slots=True)
class Limits:
    """The one table of the wire's limits (``LIMITS``)."""

    # An id (tournament, hall, group, category, match) is one MQTT topic level and part of
    # an event_id: no '/', '+', '#' (topic syntax), no ':' (the event_id's separator).
    name_chars: int = 64
    name_alphabet: str = "A-Za-z0-9_."
    name_rule: str = "1-64 of A-Z a-z 0-9 _ . -"
    # Characters of any string in an event (a team's name, a penalty's kind, the wall time).
    text_chars: int = 200
    # A player's name in a roster: what fits the scorer's line of the hall display (the
    # longest of a real squad is about 30 characters: more is a paste of something else).
    roster_name_chars: int = 40
    player_max: int = 99  # a shirt number (the console refuses any other)
    goals_max: int = 999  # a team's goals in one match
    minutes_max: int = 60  # one penalty's recorded minutes (a 5+20 counts 25)
    period_max: int = 20  # periods, overtimes included
    clock_ms_max: int = 24 * 3600 * 1000  # a period clock reading
    items_max: int = 1000  # goals, penalties or shots of one match
    number_max: int = 2**53  # any other number in an event's data (JSON's safe integers)
    int64: int = 2**63  # SQLite's INTEGER range: a bigger number could not even be stored
    # A hall numbers a match's events gaplessly from 1 (a replay numbers on above the voided
    # game's): a real match has a few hundred, so no seq is ever above this, and none is
    # more than ``seq_ahead`` above the highest the office stored of its match (the ledger
    # would walk every seq up to it).
    seq_max: int = 20_000
    seq_ahead: int = 1000
    payload_bytes: int = MAX_BYTES  # a match record is a few kB; more is refused unparsed
    # What the hall display's QR code holds (display/qr.py: byte mode, version 10, level M),
    # and the characters of an address a spectator can still read under it.
    public_url_chars: int = 200
    public_url_bytes: int = 213

    @property
    def name_pattern(self) -> re.Pattern[str]:
        return _NAME_PATTERN

    def is_name(self, value: object) -> TypeGuard[str]:
        """An id: 1 to ``name_chars`` of ``name_alphabet`` and '-'."""
        return isinstance(value, str) and _NAME_PATTERN.fullmatch(value) is not None

    @staticmethod
    def forbidden(text: str) -> str | None:
        """The first character no text on the wire may hold, else None: a control, format,
        line or paragraph separator or other unprintable character (``str.isprintable``:
        only the plain space of the separators passes). A name with one would print as
        something other than what was typed, or break a line of the page or the display."""
        return next((c for c in text if not c.isprintable()), None)

    def text_problem(self, text: str, chars: int | None = None) -> str | None:
        """Why ``text`` may not be a name or text on the wire (None: it may): blank, longer
        than ``chars`` (default ``text_chars``), or holding a forbidden character."""
        most = self.text_chars if chars is None else chars
        if not text.strip():
            return "must not be empty"
        if len(text) > most:
            return f"must be at most {most} characters, got {len(text)}"
        bad = self.forbidden(text)
        if bad is not None:
            return f"must have no control characters, got {bad!r}"
        return None


LIMITS = Limits()
_NAME_PATTERN = re.compile(rf"[{LIMITS.name_alphabet}-]{{1,{LIMITS.name_chars}}}")
