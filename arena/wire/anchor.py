"""The clock's anchor in the hall's retained ``state`` (docs/developer.md, "A second board"):
what a second board (``scoreboard run --mirror HALL``) needs to show the hall's countdowns
from the hall's own arithmetic instead of from the once-a-second ticks.

The document is exact at one instant of the hall's timeline; ``anchor`` says which instant
that is on the hall's clocks, and the game clock's remaining time there to the nanosecond:

- ``mono_ns``: the hall's monotonic clock at that instant (same machine, same boot: the
  mirror's monotonic clock is the same clock);
- ``wall_ns``: the hall's wall clock at that instant, null while the hall's wall clock is not
  known to be synchronised (another machine: the mirror maps it with its own wall clock, so
  the error is the two machines' NTP disagreement);
- ``boot``: the hall's boot id, which tells the mirror whether ``mono_ns`` is its own clock;
- ``scale``: match ns per real ns (``--time-scale``, "1" for a real game), as a fraction;
- ``clock_ns``: the game clock's remaining time at that instant;
- ``tenths_below_ms``: below this the game clock shows tenths (the preset's), so the mirror
  draws its frames when the hall's do.

``follow`` is the document some match time after its instant; ``next_change`` when it next
shows something else. Both are pure: the caller brings the elapsed time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from arena.core.units import NS_PER_MS, NS_PER_S

from .fields import refuse

TENTH_NS = NS_PER_S // 10
NAME = "anchor"  # the key of the state document that carries it


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a state document sits on the hall's clocks (see the module's docstring)."""

    mono_ns: int
    wall_ns: int | None
    boot: str
    scale: Fraction
    clock_ns: int
    tenths_below_ms: int

    def to_json(self) -> dict[str, Any]:
        return {"mono_ns": self.mono_ns, "wall_ns": self.wall_ns, "boot": self.boot,
                "scale": str(self.scale), "clock_ns": self.clock_ns,
                "tenths_below_ms": self.tenths_below_ms}


def _whole(topic: str, value: Any, key: str, *, null: bool = False) -> Any:
    if value is None and null:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        refuse(topic, f"anchor.{key}: expected a whole number, got {value!r}")
    return value


def read_anchor(topic: str, doc: Mapping[str, Any]) -> Anchor | None:
    """The anchor of a state document; None if it has none (an older hall); a malformed one
    raises ``WireError`` naming the topic and the key."""
    raw = doc.get(NAME)
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        refuse(topic, f"anchor: expected an object, got {raw!r}")
    boot = raw.get("boot")
    if not isinstance(boot, str):
        refuse(topic, f"anchor.boot: expected a string, got {boot!r}")
    try:
        scale = Fraction(str(raw.get("scale")))
    except (ValueError, ZeroDivisionError):
        refuse(topic, f"anchor.scale: expected a fraction such as \"1\", got {raw.get('scale')!r}")
    if scale <= 0:
        refuse(topic, f"anchor.scale: must be above 0, got {scale}")
    clock_ns = _whole(topic, raw.get("clock_ns"), "clock_ns")
    if clock_ns < 0:
        refuse(topic, f"anchor.clock_ns: must not be negative, got {clock_ns}")
    return Anchor(mono_ns=_whole(topic, raw.get("mono_ns"), "mono_ns"),
                  wall_ns=_whole(topic, raw.get("wall_ns"), "wall_ns", null=True),
                  boot=boot, scale=scale, clock_ns=clock_ns,
                  tenths_below_ms=_whole(topic, raw.get("tenths_below_ms"), "tenths_below_ms"))


def _ceil_ms(ns: int) -> int:
    return -(-ns // NS_PER_MS)


def _left(ms: int, elapsed: int) -> int:
    """A countdown shown as ``ms`` at the anchor, ``elapsed`` later (ns, never below 0)."""
    return max(0, ms * NS_PER_MS - elapsed)


def follow(doc: Mapping[str, Any], anchor: Anchor, elapsed: int) -> dict[str, Any]:
    """The state document ``elapsed`` match ns after the instant it was exact for, as the
    hall computes it: the game clock from ``clock_ns``; a running penalty and the line change
    with the game clock; a time-out and the pregame countdown on the match's own time. Nothing
    goes below zero: what happens there (a period's end, a penalty's) is the hall's to say,
    in the next document, which it sends at once."""
    elapsed = max(0, elapsed)
    out = dict(doc)
    out.pop(NAME, None)
    running = bool(doc.get("running"))
    if running:
        left = max(0, anchor.clock_ns - elapsed)
        out["clock_ms"] = _ceil_ms(left)
        out["running"] = left > 0
        penalties = doc.get("penalties")
        if isinstance(penalties, Mapping):
            out["penalties"] = {side: [
                {**p, "remaining_ms": _ceil_ms(_left(p["remaining_ms"], elapsed))}
                if p.get("running") and isinstance(p.get("remaining_ms"), int) else p
                for p in listed] for side, listed in penalties.items()}
        if isinstance(doc.get("shift_ms"), int):
            out["shift_ms"] = _ceil_ms(_left(doc["shift_ms"], elapsed))
    for key in ("timeout", "countdown"):
        item = doc.get(key)
        if isinstance(item, Mapping) and isinstance(item.get("remaining_ms"), int):
            out[key] = {**item, "remaining_ms": _ceil_ms(_left(item["remaining_ms"], elapsed))}
    return out


def _next_second(left: int) -> int:
    """How long until a countdown with ``left`` ns to go, shown rounded up to whole seconds,
    shows its next value (the core's rule: arena/core/match.py)."""
    return left - ((left - 1) // NS_PER_S) * NS_PER_S


def next_change(doc: Mapping[str, Any], anchor: Anchor, elapsed: int) -> int | None:
    """The elapsed match ns (after the anchor) at which ``follow`` next shows another digit,
    or None while nothing counts. The game clock changes at whole seconds, and at whole
    tenths below ``tenths_below_ms`` (the core's ``GameClock.next_deadline``); the others at
    whole seconds."""
    elapsed = max(0, elapsed)
    lefts: list[int] = []  # ns to each countdown's next shown value
    if doc.get("running"):
        left = anchor.clock_ns - elapsed
        if left > 0:
            target = ((left - 1) // NS_PER_S) * NS_PER_S
            if target < anchor.tenths_below_ms * NS_PER_MS:
                target = ((left - 1) // TENTH_NS) * TENTH_NS
            lefts.append(left - target)
        for listed in (doc.get("penalties") or {}).values():
            lefts += [_next_second(r) for p in listed if p.get("running")
                      and isinstance(p.get("remaining_ms"), int)
                      and (r := _left(p["remaining_ms"], elapsed)) > 0]
        if isinstance(doc.get("shift_ms"), int) and (r := _left(doc["shift_ms"], elapsed)) > 0:
            lefts.append(_next_second(r))
    for key in ("timeout", "countdown"):
        item = doc.get(key)
        if isinstance(item, Mapping) and isinstance(item.get("remaining_ms"), int) and (
                r := _left(item["remaining_ms"], elapsed)) > 0:
            lefts.append(_next_second(r))
    return elapsed + min(lefts) if lefts else None
