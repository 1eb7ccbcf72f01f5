"""The shootout screen: a row of marks per team (scored, missed, still to come), the tally,
and who shoots next::

                               SHOOTOUT
    HOME NAME ..........................................
    ======= stripe =======
    (>)  [o] [x] [o] ( ) ( )                          2
    AWAY NAME ..........................................
         [x] [o] ( ) ( ) ( )                          1
                          NEXT: HOME NAME

A team's row has the first series' shots (the preset's rounds) and, in sudden death, a
slot for every round played plus the next one. After very long shootouts the oldest rounds
give way (a "+N" says how many are not shown) so the marks never get too small to see.
"""

from __future__ import annotations

from .. import colour as pal
from ..document import ShootoutView, StateView, StatusView
from ..fit import line_height
from ..items import PANEL, Box, Item, Mark, MarkKind, Rect
from .common import Canvas, digit_height, digits, footer, stripe, team_name, text

MIN_MARK = 3.6  # percent of the height: the smallest mark that still reads from 40 m


def slots(shots: ShootoutView, rounds: int) -> int:
    """How many marks a row has: the first series, or every round so far plus the next."""
    played = max(len(shots.home), len(shots.away))
    pending = 1 if shots.next is not None and played >= rounds and \
        len(shots.home) == len(shots.away) else 0
    return max(rounds, played + pending)


def shootout_screen(canvas: Canvas, state: StateView, status: StatusView) -> list[Item]:
    u = canvas.u
    shots = state.shootout or ShootoutView((), (), None)
    items: list[Item] = []
    title = text(canvas, (canvas.margin, 0, canvas.width - 2 * canvas.margin, 0), u(3), u(7),
                 canvas.word("display.shootout"), colour=pal.CLOCK, role="title")
    if title:
        items.append(title)
    count = slots(shots, canvas.options.shootout_rounds)
    tally_w = canvas.x(16)
    left = canvas.margin + u(7)  # room for the "next" arrow
    right = canvas.width - canvas.margin
    marks_w = right - tally_w - canvas.x(2) - left
    for i, side in enumerate(("home", "away")):
        top = u(15) + i * u(38)
        team = state.team(side)
        name_area = (left, 0, right - tally_w - canvas.x(2) - left, 0)
        items += team_name(canvas, name_area, top + u(1.5), u(6), team, side=side, align="left")
        items.append(stripe((left, top + u(1.5) + line_height(u(6)), marks_w, u(1.2)), team,
                            side))
        row_top = top + u(12)
        mark_area = (left, row_top, marks_w, u(14))
        taken = shots.home if side == "home" else shots.away
        items += _marks(canvas, mark_area, taken, count, next_here=shots.next == side, side=side)
        if shots.next == side:
            size = u(5)
            items.append(Mark((canvas.margin, row_top + (u(14) - size) // 2, size, size),
                              "arrow_right", pal.CLOCK, role=f"next.{side}"))
        panel = (right - tally_w, top + u(1), tally_w, u(26))
        items.append(Box(panel, pal.PANEL, PANEL, f"panel.{side}"))
        tally = str(sum(taken))
        pad = u(2)
        inner = (panel[0] + pad, panel[1] + pad, panel[2] - 2 * pad, panel[3] - 2 * pad)
        height = digit_height(tally if len(tally) > 1 else "0", inner[2], u(18))
        items += digits(inner, tally, height, pal.WHITE, role=f"tally.{side}")
    if shots.next is not None:
        name = state.team(shots.next).name.upper()
        line = text(canvas, (canvas.margin, 0, canvas.width - 2 * canvas.margin, 0), u(84),
                    canvas.min_px, canvas.word("display.shootout.next", team=name),
                    colour=pal.LABEL, role="next")
        if line:
            items.append(line)
    items += footer(canvas, state.entry, status)
    return items


def _marks(canvas: Canvas, area: Rect, taken: tuple[bool, ...], count: int, *,
           next_here: bool, side: str) -> list[Item]:
    size = min(area[3], canvas.u(10))
    least = canvas.u(MIN_MARK)
    while size > least and count * (size + size // 3) - size // 3 > area[2]:
        size -= 1
    gap = max(2, size // 3)
    items: list[Item] = []
    x, first = area[0], 0
    if count * (size + gap) - gap > area[2]:
        # The oldest rounds give way; "+N" says how many, so the tally still adds up.
        label = f"+{count}"
        label_w = canvas.measure(label, "sans", canvas.min_px) + max(gap, canvas.u(1.5))
        fits = max(1, (area[2] - label_w + gap) // (size + gap))
        first = count - fits
        more = text(canvas, (x, 0, label_w, 0), area[1] + (area[3] - canvas.min_px) // 2,
                    canvas.min_px, f"+{first}", colour=pal.LABEL, align="left",
                    role=f"marks.{side}.hidden")
        if more:
            items.append(more)
        x += label_w
    y = area[1] + (area[3] - size) // 2
    for slot in range(first, count):
        kind: MarkKind
        if slot < len(taken):
            kind, colour = ("scored", pal.SCORED) if taken[slot] else ("missed", pal.MISSED)
        elif slot == len(taken) and next_here:
            kind, colour = "next", pal.CLOCK
        else:
            kind, colour = "pending", pal.PENDING
        items.append(Mark((x, y, size, size), kind, colour, role=f"mark.{side}"))
        x += size + gap
    return items
