"""The penalty box: who serves, who waits, and for how long, in game time.

Time here is *game time played* (``elapsed``): it advances only while the game clock runs,
stands still in breaks and carries into the next period and into overtime (IIHF 1.6/IFF
601.4: penalty time is synchronised to game time). A correction of the game clock corrects
the penalties with it, as on every real scoreboard, because both are read off the same
coordinate.

Rules applied here, all driven by the preset's penalty kinds:
- at most ``max_shorthanded`` penalised players of a team serve shorthanded time at once; a
  further penalty waits and starts at the exact instant a place frees, in the order given
  (IFF 603.3; IIHF rule book: delayed penalties);
- penalties of a team given at the same game time (keyed during one stoppage) are measured
  shorter first where the preset says so (``rank``; IFF 603.3), whatever order they were
  keyed in; otherwise in the order keyed;
- a player's penalties run one after another (IFF 603.5), a major before a minor given with it
  where the preset says so (IIHF appendix IV table 14, B1); personal penalties (misconduct,
  floorball 10 min personal) only when the player has no team penalty to serve, and a running
  one is paused while a new team penalty of his is served (IFF 603.5);
- a goal against a shorthanded team releases one releasable penalty: the current part of the
  one with the least time left (IIHF rule 16 and appendix IV table 14; IFF 604, the minor
  bench penalty; never a personal penalty, IFF 609.2);
- coincidental penalties change no strength, are not released and are served in full.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .phase import Team
from .units import Nanos


@dataclass(frozen=True, slots=True)
class PenaltyKind:
    name: str
    parts: tuple[Nanos, ...]  # a double minor is two parts of two minutes
    shorthanded: bool  # the team plays one short while it runs
    releasable: bool  # a goal against the shorthanded team ends the current part
    ejects: bool  # the player is gone for the rest of the game
    recorded_minutes: int  # what the match record counts (a 5+20 counts 25)
    until_shift_end: bool  # each part lasts until the end of the shift it starts in (rules 002)

    @property
    def length(self) -> Nanos:
        """Its nominal length, every part (IFF 603.3 measures shorter penalties first)."""
        return sum(self.parts)

    @property
    def severity(self) -> int:
        """0 for a major, match or game misconduct, 1 for a minor: with ``major_first`` a
        player's major is served before a minor given with it."""
        return 0 if not self.releasable else 1


@dataclass(frozen=True, slots=True)
class Penalty:
    seq: int  # the penalty event's seq: what undo names
    team: Team
    player: int
    kind: PenaltyKind
    coincidental: bool
    given: Nanos  # game time when given
    period: int
    clock_ms: int
    part: int = 0
    left: Nanos | None = None  # time left in the current part while not running
    expiry: Nanos | None = None  # game time the current part ends, while running
    started: Nanos | None = None  # game time it (last) started running
    done: bool = False
    released_by: int | None = None  # seq of the goal that ended it
    started_by: int | None = None  # seq of the event whose freed place started it
    # Among the team's penalties given at the same game time, a lower rank is measured
    # first: the full length with IFF 603.3's shorter-first rule, else 0 (the order keyed).
    rank: Nanos = 0

    @property
    def shorthanded(self) -> bool:
        return self.kind.shorthanded and not self.coincidental

    @property
    def releasable(self) -> bool:
        return self.kind.releasable and not self.coincidental

    @property
    def running(self) -> bool:
        return self.expiry is not None and not self.done

    @property
    def waiting(self) -> bool:
        return self.expiry is None and not self.done

    def queue_key(self) -> tuple[int, int, int]:
        """The team's queue for serving places: in the order given; given together, by
        rank (shorter first where the preset says so), then as keyed."""
        return (self.given, self.rank, self.seq)

    def player_key(self, major_first: bool) -> tuple[bool, int, int, int, int]:
        """The player's own order: team penalties before personal ones, then as given
        (given together: a major first where the preset says so, else by rank)."""
        severity = self.kind.severity if major_first else 0
        return (not self.shorthanded, self.given, severity, self.rank, self.seq)

    def remaining(self, elapsed: Nanos, shift: Nanos | None) -> Nanos:
        """All the time still to serve: the current part and the parts after it."""
        later = sum(self._part_length(i, shift) for i in range(self.part + 1,
                                                                  len(self.kind.parts)))
        if self.done:
            return 0
        if self.expiry is not None:
            return max(0, self.expiry - elapsed) + later
        current = self.left if self.left is not None else self._part_length(self.part, shift)
        return current + later

    def _part_length(self, index: int, shift: Nanos | None) -> Nanos:
        if self.kind.until_shift_end and shift is not None:
            return shift  # not started yet: a whole shift is the most it can last
        return self.kind.parts[index]


Box = tuple[Penalty, ...]
# The game time at which the shift running at a given game time ends (rules 002 line changes).
ShiftEnd = Callable[[Nanos], Nanos]


def running_shorthanded(box: Box, team: Team) -> int:
    return sum(1 for p in box if p.team is team and p.running and p.shorthanded)


def _part_expiry(p: Penalty, part: int, start: Nanos, shift_end: ShiftEnd | None) -> Nanos:
    if p.kind.until_shift_end and shift_end is not None:
        return shift_end(start)
    left = p.left if p.left is not None and part == p.part else p.kind.parts[part]
    return start + left


@dataclass(frozen=True, slots=True)
class Change:
    """What a box operation did, for events and for undo."""

    penalty: Penalty  # the new version
    before: Penalty  # the version it replaced
    what: str  # "started", "part", "expired", "released"


def schedule(box: Box, elapsed: Nanos, max_places: int, shift_end: ShiftEnd | None,
             cause: int | None, *, major_first: bool = False) -> tuple[Box, list[Change]]:
    """Start every waiting penalty that may start now, in queue order."""
    changes: list[Change] = []
    items = list(box)
    order = sorted(range(len(items)), key=lambda i: items[i].queue_key())
    for i in order:
        p = items[i]
        if not p.waiting:
            continue
        mine = p.player_key(major_first)
        blocked = False
        for q in items:
            if q is p or q.team is not p.team or q.player != p.player or q.done:
                continue
            if q.running and not (p.shorthanded and not q.shorthanded):
                blocked = True  # one penalty at a time; a team penalty pre-empts a personal
            elif q.waiting and q.player_key(major_first) < mine:
                blocked = True  # an earlier one of his is still to serve
        if blocked:
            continue
        if p.shorthanded and running_shorthanded(tuple(items), p.team) >= max_places:
            continue
        for j, q in enumerate(items):
            if q.team is p.team and q.player == p.player and q.running and not q.shorthanded:
                # IFF 603.5: his personal penalty is postponed while the team penalty runs.
                paused = pause(q, elapsed)
                items[j] = paused
                changes.append(Change(paused, q, "paused"))
        expiry = _part_expiry(p, p.part, elapsed, shift_end)
        new = replace(p, expiry=expiry, left=None, started=elapsed, started_by=cause)
        items[i] = new
        changes.append(Change(new, p, "started"))
    return tuple(items), changes


def carried(box: Box, end: Nanos, shift_end: ShiftEnd | None) -> Box:
    """The box once a period has ended at game time ``end``, its clock run out: penalties
    keep every part still to serve over the break and into the next period or overtime
    (rules 002, 'Overtime': penalised players stay in the penalty box; IIHF, IFF 601.4:
    penalty time is game time). Timed parts carry as they are. A part lasting until the
    end of its shift (rules 002) that started at the period's end has no shift of that
    period left: it is served in the first shift played next, whose end ``shift_end`` (of
    the phase that follows) gives; where that phase has no shifts, it lasts its own length.
    A part started before keeps the end it has: the period's end, if the clock ran out (it
    has ended with it), or, in a period ended early (END), the game time at which its shift
    would have ended."""
    def again(p: Penalty) -> Penalty:
        if not (p.running and p.kind.until_shift_end and p.expiry is not None
                and p.expiry > end):
            return p
        return replace(p, expiry=_part_expiry(p, p.part, end, shift_end))

    return tuple(again(p) for p in box)


def pause(p: Penalty, elapsed: Nanos) -> Penalty:
    """Back to waiting, keeping the time it still has in its current part."""
    assert p.expiry is not None
    return replace(p, expiry=None, left=max(0, p.expiry - elapsed))


def next_expiry(box: Box) -> Nanos | None:
    return min((p.expiry for p in box if p.running and p.expiry is not None), default=None)


def expire(box: Box, elapsed: Nanos, shift_end: ShiftEnd | None) -> tuple[Box, list[Change]]:
    """End every part whose time is up at ``elapsed``; a next part follows at once."""
    changes: list[Change] = []
    items = list(box)
    for i, p in enumerate(items):
        if not p.running or p.expiry is None or p.expiry > elapsed:
            continue
        new = _next_part(p, p.expiry, shift_end)
        items[i] = new
        changes.append(Change(new, p, "part" if new.running else "expired"))
    return tuple(items), changes


def _next_part(p: Penalty, at: Nanos, shift_end: ShiftEnd | None) -> Penalty:
    if p.part + 1 < len(p.kind.parts):
        part = p.part + 1
        return replace(p, part=part, left=None, expiry=_part_expiry(p, part, at, shift_end))
    return replace(p, done=True)


def release(box: Box, against: Team, elapsed: Nanos, goal_seq: int,
            shift_end: ShiftEnd | None) -> tuple[Box, Change | None]:
    """A goal against ``against`` while it is shorthanded: end the current part of its
    running releasable penalty with the least time left (only one; IIHF 555, IFF 604: a
    goal ends a minor bench penalty, not a major one or a personal penalty, 606 and 609.2)."""
    candidates = [
        (p.expiry - elapsed, p.queue_key(), i) for i, p in enumerate(box)
        if p.team is against and p.running and p.shorthanded and p.releasable
        and p.expiry is not None
    ]
    if not candidates:
        return box, None
    _, _, index = min(candidates)
    p = box[index]
    new = _next_part(p, elapsed, shift_end)
    if new.done:
        new = replace(new, released_by=goal_seq)
    items = list(box)
    items[index] = new
    return tuple(items), Change(new, p, "released")
