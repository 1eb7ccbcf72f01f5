"""What arrives from the broker, checked before anything is stored (docs/developer.md 4.4).

Anyone who can publish to the broker can send anything: not JSON, the wrong schema, a hall
that does not exist, a hall reporting another hall's match, a megabyte. The wire module
checks a message against the contract; here it is also checked against this tournament's
schedule. Each ``check_*`` returns a clean value or raises ``Refusal`` naming the topic and
the reason; nothing else escapes, whatever the bytes, so the service can log the refusal
and carry on.

Pure: standard library and the project's pure modules only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from arena import wire
from arena.tournament.model import ScheduledMatch
from arena.wire import MAX_PAYLOAD, HallEvent


class Schedule(Protocol):
    """What the checks read of the schedule: a ``Tournament``, or an ``Event`` of several
    categories (arena.tournament.event: one topic tree, match ids unique across it)."""

    @property
    def id(self) -> str: ...
    def match(self, match_id: str) -> ScheduledMatch | None: ...
    def halls(self) -> tuple[str, ...]: ...

# A message the office will not use; ``str()`` is ``"<topic>: <reason>"``.
Refusal = wire.WireError

__all__ = ["MAX_PAYLOAD", "MAX_SEQ", "SEQ_AHEAD", "Claimed", "Claims", "HallEvent", "Playing",
           "Refusal", "Schedule", "check_event", "check_seq", "check_state", "check_status",
           "classify"]


class Claimed(Refusal):
    """An event of a match the schedule gives to another hall, which plays it: two halls
    claim one match. The hall playing it keeps it (the schedule's, or the one ``Playing``
    names); this one is told (``Claims``, its ``acks``)."""

    def __init__(self, topic: str, reason: str, *, match: str, hall: str,
                 played_in: str) -> None:
        super().__init__(topic, reason)
        self.match = match
        self.hall = hall  # the hall refused
        self.played_in = played_in  # the hall the match's events are taken from

# A hall numbers a match's events gaplessly from 1, and sends them in order: an event far
# above the highest stored is a forgery or a bug, and the ledger would walk every seq up to
# it (a seq of 2**62 would hang the office). A real match has a few hundred events. Both
# bounds are the wire's limits (arena.wire.limits), a replay's `next` is bound by them too.
SEQ_AHEAD = wire.LIMITS.seq_ahead  # at most this far above the highest stored seq of its match
MAX_SEQ = wire.LIMITS.seq_max  # and never above this


class Playing:
    """The hall playing each match: the one that sent the highest seq stored of it.

    A match moved to another hall while it is played (``office reschedule --force``, a
    forced ``office reload``) stays the playing hall's: its events are still taken from
    there, its final, a final taken back, a lost event sent again, until another hall takes
    the match up (a replay numbers its events above the first game's, so its first stored
    event makes that hall the playing one). Only events that passed the checks are added:
    a hall cannot claim a match by sending it events."""

    __slots__ = ("_halls", "_of")

    def __init__(self) -> None:
        self._of: dict[str, tuple[int, str]] = {}  # match -> (highest seq stored, its hall)
        self._halls: Counter[str] = Counter()  # hall -> how many matches it plays

    def add(self, hall: str, match: str, seq: int) -> None:
        """An event of ``match`` stored from ``hall``."""
        held = self._of.get(match)
        if held is not None and held[0] >= seq:
            return
        if held is not None:
            self._halls[held[1]] -= 1
        self._of[match] = (seq, hall)
        self._halls[hall] += 1

    def hall(self, match: str) -> str | None:
        """The hall playing ``match`` (None: nothing stored of it)."""
        held = self._of.get(match)
        return held[1] if held is not None else None

    def plays(self, hall: str) -> bool:
        """Whether ``hall`` is the playing hall of some match."""
        return self._halls[hall] > 0


class Claims:
    """The matches whose events the office refuses from a hall because another hall plays
    them (``Claimed``): told to that hall in its ``acks`` (wire.Ak.REFUSED) and once on the
    page, and kept until the office gives the hall the match (``office reschedule
    --force``: ``review``) or one of its events of it is stored. In memory only: after a
    restart the hall re-sends, is refused again and so told again."""

    __slots__ = ("_of",)

    def __init__(self) -> None:
        self._of: dict[str, dict[str, str]] = {}  # hall -> match -> the hall playing it

    def claim(self, hall: str, match: str, played_in: str) -> bool:
        """``hall``'s events of ``match`` are refused, ``played_in`` plays it; True if that
        is news (the hall is to be told), False when it was told already."""
        mine = self._of.setdefault(hall, {})
        if mine.get(match) == played_in:
            return False
        mine[match] = played_in
        return True

    def lift(self, hall: str, match: str) -> bool:
        """``hall``'s events of ``match`` are taken now; True if they were refused."""
        mine = self._of.get(hall)
        return mine is not None and mine.pop(match, None) is not None

    def of(self, hall: str) -> dict[str, str]:
        """Match -> the hall playing it, for the matches refused from ``hall``."""
        return dict(self._of.get(hall, {}))

    def review(self, played_in: Callable[[str, str], str | None]) -> set[str]:
        """After a schedule change: each claim's hall playing the match again
        (``played_in(hall, match)``: None once the match is ``hall``'s, or no longer in
        the schedule); the halls whose refusals changed."""
        changed = set()
        for hall, mine in self._of.items():
            for match, was in list(mine.items()):
                now = played_in(hall, match)
                if now == was:
                    continue
                if now is None:
                    del mine[match]
                else:
                    mine[match] = now
                changed.add(hall)
        return changed


def classify(topic: str, tournament: Schedule) -> tuple[str, str] | None:
    """``(hall, kind)`` for a hall's events, state or status in this tournament.

    The hall is not checked against the schedule here; None for any other topic (another
    tournament, ``standings/...``, the office's own ``next``).
    """
    found = wire.route(topic, tournament.id)
    if found is None or found.hall is None or found.kind not in wire.FROM_HALL:
        return None
    return found.hall, found.kind


def check_event(topic: str, payload: bytes, tournament: Schedule,
                stored_top: int | Callable[[str], int] = 0,
                playing: Playing | None = None) -> HallEvent:
    """A hall's event, checked against the topic, the schema, the schedule and what is
    stored: ``stored_top`` is the highest seq stored for the event's match (0: none), or
    a function of the match id giving it. A match is taken from its scheduled hall, or
    from the hall ``playing`` it (moved while it was played there: ``Playing``)."""
    hall = _known_hall(topic, wire.EVENTS, tournament,
                       also=playing.plays if playing is not None else None)
    ev = wire.check_event(topic, payload, tournament.id)
    scheduled = tournament.match(ev.match)
    if scheduled is None:
        raise Refusal(topic, f"unknown match {ev.match!r}")
    if scheduled.hall != hall and (playing is None or playing.hall(ev.match) != hall):
        held = playing.hall(ev.match) if playing is not None else None
        raise Claimed(topic, f"match {ev.match!r} is assigned to hall {scheduled.hall!r}, "
                             f"not {hall!r}", match=ev.match, hall=hall,
                      played_in=held or scheduled.hall)
    check_seq(topic, ev.seq, stored_top(ev.match) if callable(stored_top) else stored_top)
    return ev


def check_seq(topic: str, seq: int, stored_top: int) -> None:
    """``seq`` within reach of the highest stored of its match (``SEQ_AHEAD``, ``MAX_SEQ``)."""
    if seq > MAX_SEQ:
        raise Refusal(topic, f"'{wire.Ev.SEQ}' {seq} is above the protocol's {MAX_SEQ}")
    if seq > stored_top + SEQ_AHEAD:
        raise Refusal(topic, f"'{wire.Ev.SEQ}' {seq} is more than {SEQ_AHEAD} above the "
                             f"highest stored for its match ({stored_top})")


def check_state(topic: str, payload: bytes, tournament: Schedule) -> tuple[str, dict[str, Any]]:
    """A hall's retained state document, loosely checked: the page only shows it.

    An empty payload (the retained state was cleared) gives an empty document: no state.
    """
    _known_hall(topic, wire.STATE, tournament)
    return wire.check_state(topic, payload, tournament.id)


def check_status(topic: str, payload: bytes, tournament: Schedule) -> tuple[str, bool]:
    """A hall's retained status: True for ``online`` (an empty payload counts as offline)."""
    _known_hall(topic, wire.STATUS, tournament)
    return wire.check_status(topic, payload, tournament.id)


def _known_hall(topic: str, kind: str, tournament: Schedule,
                also: Callable[[str], bool] | None = None) -> str:
    """The topic's hall, refused unless the topic is a hall's ``kind`` and the hall is in
    the schedule, or ``also`` says it is one to hear (a hall playing a match moved away
    from it: ``Playing.plays``). Checked first: a stranger's payload is not even parsed."""
    hall = wire.hall_of(topic, kind, tournament.id)
    if hall not in tournament.halls() and (also is None or not also(hall)):
        raise Refusal(topic, f"unknown hall {hall!r} (not in the schedule)")
    return hall
