"""The game clock: anchor arithmetic on injected monotonic time.

``remaining(now) = remaining_at_anchor - (now - anchor)``, re-anchored on every start, stop
and correction. Nothing is ever decremented per tick, so a late frame or a busy CPU can
delay what is drawn but never shifts the game time, and a clock rebuilt from its anchor
after a crash is exactly where the game is.
"""

from __future__ import annotations

from dataclasses import dataclass

from .units import NS_PER_MS, NS_PER_S, Nanos

TENTH = 100 * NS_PER_MS


@dataclass(frozen=True, slots=True)
class GameClock:
    """A countdown. ``anchor`` is the instant it was last started, ``None`` while stopped.

    Values are immutable: every operation returns a new clock, so a state snapshot can be
    handed to the display thread, the journal and undo without copying or locking.
    """

    remaining_at_anchor: Nanos
    anchor: Nanos | None = None

    def __post_init__(self) -> None:
        if self.remaining_at_anchor < 0:
            raise ValueError(f"a clock cannot hold negative time ({self.remaining_at_anchor} ns)")

    @classmethod
    def stopped_at(cls, remaining: Nanos) -> GameClock:
        return cls(remaining, None)

    @property
    def running(self) -> bool:
        return self.anchor is not None

    def remaining(self, now: Nanos) -> Nanos:
        """Time left at ``now``; never negative, never more than at the anchor."""
        if self.anchor is None:
            return self.remaining_at_anchor
        elapsed = max(0, now - self.anchor)
        return max(0, self.remaining_at_anchor - elapsed)

    def zero_at(self) -> Nanos | None:
        """The instant the clock reaches zero, or ``None`` while stopped."""
        if self.anchor is None:
            return None
        return self.anchor + self.remaining_at_anchor

    def start(self, at: Nanos) -> GameClock:
        if self.anchor is not None:
            raise ValueError("the clock is already running")
        return GameClock(self.remaining_at_anchor, at)

    def stop(self, at: Nanos) -> GameClock:
        if self.anchor is None:
            raise ValueError("the clock is already stopped")
        return GameClock(self.remaining(at), None)

    def set(self, at: Nanos, remaining: Nanos) -> GameClock:
        """A correction: ``remaining`` from ``at`` on, running or not as before."""
        return GameClock(remaining, at if self.anchor is not None else None)

    def adjusted(self, at: Nanos, delta: Nanos) -> GameClock:
        """Add ``delta`` (may be negative) to the time left, clamped at zero."""
        return self.set(at, max(0, self.remaining(at) + delta))

    def next_deadline(self, now: Nanos, tenths_below: Nanos) -> Nanos | None:
        """The next instant at which the shown value changes, or ``None`` while stopped.

        The display rounds up (it shows 0 only at zero), so the shown value changes exactly
        when the remaining time reaches a whole second, or a whole tenth once it is below
        ``tenths_below``. Zero is always such an instant. The display schedules its frames
        here; the horn and period end use ``zero_at``.
        """
        if self.anchor is None:
            return None
        left = self.remaining(now)
        if left == 0:
            return None
        target = ((left - 1) // NS_PER_S) * NS_PER_S
        if target < tenths_below:
            target = ((left - 1) // TENTH) * TENTH
        return now + (left - target)
