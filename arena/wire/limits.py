"""The wire's limits, declared once: what a name, a number and a text may be.

Every end that lets a value onto the wire or into the office's store reads this table: the
tournament and event files' reader (ids, team names, short names, rosters, group sizes,
points), the office's ``next`` and ``standings``, the checks of a hall's final record and the
office's intake. A tournament file therefore cannot hold a name that a final carrying it
would be refused for: the same rule decides both. The docs' table of limits
(docs/developer.md, "Limits"; the tournament file's part in docs/office.md) is written from
this one by docs/reference.py, each row's words from its field's ``meaning``.

The ranges are what a real match can produce, with room to spare (docs/developer.md 4.4). A number
beyond them is a forgery or a bug, and would rank or suspend nonsense.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import TypeGuard

from arena.core.commands import MAX_CLOCK_MS, MAX_PLAYER
from arena.safejson import MAX_BYTES


def _limit(value: int, meaning: str, file: str = "") -> int:
    """A limit and what it bounds; ``file``: what of a tournament or event file it bounds
    (empty: nothing a file holds), for the office's page."""
    return field(default=value, metadata={"meaning": meaning, "file": file})


@dataclass(frozen=True, slots=True)
class Limits:
    """The one table of the wire's limits (``LIMITS``)."""

    # An id (tournament, hall, group, category, match) is one MQTT topic level and part of
    # an event_id: no '/', '+', '#' (topic syntax), no ':' (the event_id's separator).
    name_chars: int = _limit(
        64, "characters of an id: 1 to this many of A-Z a-z 0-9 _ . - (an MQTT topic level "
            "and part of an event_id)",
        "`id` of the tournament, the event and each category; each group's `name`; each "
        "match's `id` and `hall`")
    # Characters of any string in an event (a team's name, a penalty's kind, the wall time):
    # what a team's name may be in the file, since every final carries it.
    text_chars: int = _limit(
        200, "characters of a team's name and of any string in an event; printable, not "
             "blank (no control, format or line separator character)",
        "a team's name (and no space at either end); the `name` of the tournament, the "
        "event and each category")
    # What a printed game sheet's narrow columns hold.
    short_chars: int = _limit(6, "characters of a team's short name; printable",
                              "a team's `short`")
    # A player's name in a roster: what fits the scorer's line of the hall display (the
    # longest of a real squad is about 30 characters: more is a paste of something else).
    roster_name_chars: int = _limit(
        40, "characters of a player's name in a roster; printable, not blank",
        "each name of a team's `roster`")
    # a shirt number (the console refuses any other: arena.core.commands)
    player_max: int = _limit(MAX_PLAYER, "a shirt number, from 0",
                             "each key of a team's `roster`")
    # A group's table is one retained message (``standings``) every hall reads: the largest
    # group of names at ``text_chars`` fits ``payload_bytes`` (a real group has 3 to 8).
    group_teams_max: int = _limit(32, "teams in one group (its table is one message)",
                                  "each group's `teams`")
    # A result's table points (a real preset gives 0 to 3): with a group's matches, the
    # sum stays a small number on the standings' wire and the page.
    points_max: int = _limit(100, "table points for one result, from 0",
                             "`points` and `standings.points`")
    # How long a match holds its hall.
    slot_minutes_max: int = _limit(24 * 60, "minutes a match holds its hall, from 1",
                                   "`slot_minutes`")
    goals_max: int = _limit(999, "a team's goals in one match")
    minutes_max: int = _limit(60, "one penalty's recorded minutes (a 5+20 counts 25)")
    period_max: int = _limit(20, "periods of a match, overtimes included")
    clock_ms_max: int = _limit(MAX_CLOCK_MS, "a period clock's reading, ms (24 h)")
    items_max: int = _limit(1000, "goals, penalties or shots of one match's record")
    number_max: int = _limit(2**53, "any other number in an event's data (JSON's safe "
                                    "integers), either sign")
    int64: int = _limit(2**63, "any number stored: SQLite's INTEGER range (below it)")
    # A hall numbers a match's events gaplessly from 1 (a replay numbers on above the voided
    # game's): a real match has a few hundred, so no seq is ever above this, and none is
    # more than ``seq_ahead`` above the highest the office stored of its match (the ledger
    # would walk every seq up to it).
    seq_max: int = _limit(20_000, "an event's seq (and a replay's above_seq)")
    seq_ahead: int = _limit(1000, "how far an event's seq may be above the highest the "
                                  "office stored of its match")
    # The matches a hall's ``acks`` names as refused (another hall plays them): a hall
    # claims one by mistake, rarely two; the office names the first this many, and its
    # page shows every one (the retained word stays far below ``payload_bytes``).
    refused_max: int = _limit(32, "matches one hall's acks names as refused (played in "
                                  "another hall)")
    # a match record is a few kB; more is refused unparsed
    payload_bytes: int = _limit(MAX_BYTES, "bytes of one MQTT message (refused unparsed "
                                           "above it)")
    # What the hall display's QR code holds (display/qr.py: byte mode, version 10, level M),
    # and the characters of an address a spectator can still read under it.
    public_url_chars: int = _limit(200, "characters of the public site's address (its QR "
                                        "code between games)")
    public_url_bytes: int = _limit(213, "bytes of that address in UTF-8 (what the QR code "
                                        "holds)")
    name_alphabet: str = "A-Za-z0-9_."
    name_rule: str = "1-64 of A-Z a-z 0-9 _ . -"
    colour_rule: str = "'#rrggbb'"

    @property
    def name_pattern(self) -> re.Pattern[str]:
        return _NAME_PATTERN

    def is_name(self, value: object) -> TypeGuard[str]:
        """An id: 1 to ``name_chars`` of ``name_alphabet`` and '-'."""
        return isinstance(value, str) and _NAME_PATTERN.fullmatch(value) is not None

    @staticmethod
    def is_colour(value: object) -> TypeGuard[str]:
        """A colour as files and ``next`` give it (``colour_rule``)."""
        return isinstance(value, str) and _COLOUR.fullmatch(value) is not None

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

    def rows(self) -> tuple[tuple[str, int, str, str], ...]:
        """``(name, value, meaning, what of a file it bounds)`` of every limit, in the
        table's order: what the docs' tables are written from."""
        return tuple((f.name, getattr(self, f.name), f.metadata["meaning"],
                      f.metadata["file"]) for f in fields(self) if "meaning" in f.metadata)


LIMITS = Limits()
_NAME_PATTERN = re.compile(rf"[{LIMITS.name_alphabet}-]{{1,{LIMITS.name_chars}}}")
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
