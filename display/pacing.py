"""When to draw: frames at the instants the shown state changes, not at a free-running rate.

Pure: time comes in as arguments. ``deadline(now)`` is the core's
``Match.display_deadline``: the next instant a shown digit changes (a whole second, or a
tenth under the preset's threshold), a horn switches or a deadline falls. A frame is
*presented* at that instant and shows the state document computed *for* that instant, so no
frame shows a tenth that is already over and none shows one before its time. Rendering
starts ``lead`` earlier (a running estimate of how long a frame takes to draw), so the
finished frame is waiting when the instant comes::

    plan = pacer.plan(clock())
    wait_until(plan.render_at)
    doc = state_document(match, plan.present_at, entry)   # the value for that instant
    started = clock()
    dirty = renderer.draw(layout(doc, ...))
    pacer.rendered(clock() - started)
    wait_until(plan.present_at)
    pygame.display.update(dirty)

A stopped clock has no deadline: then a frame every ``idle`` (1 s) picks up what the core
does not schedule (the office link, a status change); a button press wakes the loop at once.

A loop that woke late (a loaded machine: a sleep may end ~15 ms after its instant) passes
``shown``, the instant of the frame on the screen: if the value it shows is already over,
the next frame is for *now*, drawn at once, instead of for the next change after now (which
would leave the over tenth up for one more tenth).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.core.units import NS_PER_MS

IDLE_NS = 1_000 * NS_PER_MS
MIN_LEAD_NS = 2 * NS_PER_MS  # slack for the sleep until the render instant (it may wake late)
MAX_LEAD_NS = 50 * NS_PER_MS  # a frame that takes longer is late, not earlier still


@dataclass(frozen=True, slots=True)
class FramePlan:
    present_at: int  # the instant the frame is shown and the state is computed for
    render_at: int  # when to start drawing it


class FramePacer:
    def __init__(self, deadline: Callable[[int], int | None], *, idle_ns: int = IDLE_NS,
                 lead_ns: int = 8 * NS_PER_MS) -> None:
        self.deadline = deadline
        self.idle_ns = idle_ns
        self.lead_ns = lead_ns

    def plan(self, now: int, shown: int | None = None) -> FramePlan:
        """``shown``: the instant the frame on the screen was computed for, if any."""
        due = self.deadline(now if shown is None or shown >= now else shown)
        present = now + self.idle_ns if due is None else min(max(due, now), now + self.idle_ns)
        return FramePlan(present, max(now, present - self.lead_ns))

    def rendered(self, took_ns: int) -> None:
        """Learn from a frame's drawing time: lead = a smoothed 1.5 x that, plus slack."""
        target = took_ns * 3 // 2 + MIN_LEAD_NS
        smoothed = (self.lead_ns * 7 + target) // 8
        self.lead_ns = max(MIN_LEAD_NS, min(MAX_LEAD_NS, max(smoothed, target)))
