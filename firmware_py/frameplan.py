"""When the daemon draws: the display's pacer (display/pacing.py) on the match's timeline,
with the loop's own limits.

- A frame is shown at the instant the shown state next changes, and computed for it; when
  the loop woke after that instant (late), at once, computed for now.
- With no display deadline (a stopped clock, pregame, the final) the pacer plans an idle
  frame a second ahead of *now*, which moves on every turn: it is anchored on the last frame
  shown instead, so a status change (office offline) is drawn within a second.
- At most one frame per ``MIN_FRAME_GAP_NS`` of real time, even time-scaled.
- A core deadline at or before the planned frame comes first: it is journalled, then drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from arena.core.units import NS_PER_S
from display.pacing import FramePacer

MIN_FRAME_GAP_NS = 33_000_000  # real time: at most ~30 frames a second, even time-scaled
NEVER = -(1 << 62)


@dataclass(frozen=True, slots=True)
class Step:
    wake_at: int  # the next instant the loop must act on (match time)
    draw_at: int | None  # a frame whose rendering is due now, for this instant; else None


class FramePlanner:
    def __init__(self, deadline: Callable[[int], int | None], scale: Fraction) -> None:
        self.scale = scale
        self._num, self._den = scale.numerator, scale.denominator  # ints: asked every turn
        self.pacer = FramePacer(deadline, idle_ns=self.match_ns(NS_PER_S))
        self.last_present = NEVER
        self.count = 0  # frames shown

    def match_ns(self, real_ns: int) -> int:
        """A real-time duration on the match's timeline."""
        return real_ns * self._num // self._den

    def earliest(self, now: int) -> int:
        """The first instant a frame may be shown (the frame gap since the last one)."""
        return max(now, self.last_present + self.match_ns(MIN_FRAME_GAP_NS))

    def plan(self, now: int, due: int | None, others: Iterable[int | None]) -> Step:
        """``due``: the core's next deadline; ``others``: more instants to wake at (inputs
        settling, the watchdog, a script line)."""
        plan = self.pacer.plan(now, None if self.count == 0 else self.last_present)
        present_at = max(min(plan.present_at, self.last_present + self.pacer.idle_ns),
                         self.earliest(now))
        render_at = present_at - (plan.present_at - plan.render_at)
        draw_at: int | None = None
        targets = [render_at]
        if due is not None and due <= present_at:
            targets = [due]  # something happens at or before that frame: journal it first
        elif now >= render_at:
            draw_at = present_at
        targets += [t for t in others if t is not None]
        return Step(min(targets), draw_at)

    def rendered(self, real_ns: int) -> None:
        """A frame took ``real_ns`` to draw: the pacer starts the next one that much early."""
        self.pacer.rendered(self.match_ns(real_ns))

    def presented(self, at: int) -> None:
        self.last_present = at
        self.count += 1
