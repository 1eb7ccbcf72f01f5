"""The game screen (a period, overtime, before the first face-off) and the break screen.

Wide (16:9)::

    HOME NAME ...................        ................... AWAY NAME
    ======= stripe ==============        ============== stripe =======
    +--------+                                           +--------+
    |   2    |              1 2 : 3 4                    |   1    |
    +--------+                                           +--------+
                              PERIOD 2
    #8    3:40               4 ON 5                 EXTRA PLAYER
    #9    1:40              STOP TIME
    +1                    LINE CHANGE 45  [=====---]
    [ operator line: PENALTY HOME  PLAYER #7_        ][CLOCK RESTORED - CHECK] (o)

Narrow (4:3): the scores sit under the names with the period between them, and the clock
has its own row below. The clock's digits are at least 30 % of the screen height in both.
The break screen is the same frame with the break countdown (in blue, not game time),
what comes next, and the penalties carried over.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import colour as pal
from .. import values
from ..document import PenaltyView, StateView, StatusView
from ..fit import line_height
from ..items import CONTENT, PANEL, Align, Bar, Box, Item, Mark, Rect
from .common import (
    Canvas,
    digit_height,
    digits,
    footer,
    halves,
    row_cap_top,
    stripe,
    team_name,
    text,
)

CLOCK_CAP = {True: 33.0, False: 31.0}  # percent of the height: wide, narrow (>= 30 %)
SHOWN_PENALTIES = 2  # two running with player numbers, then "+N"
BAR = 2.2  # the line-change bar's height, percent of the screen height


@dataclass(frozen=True, slots=True)
class Grid:
    """Where things go, in pixels, for one screen size."""

    name_cap_top: int
    name_cap: int
    stripe: tuple[int, int]  # y, height
    score_areas: tuple[Rect, Rect]  # home, away panels
    score_cap: int
    clock_area: Rect
    clock_cap: int
    period_area: Rect  # the period caption (narrow: between the scores; wide: under the clock)
    period_cap_top: int
    period_cap: int
    period_value: tuple[int, int] | None  # narrow: (cap top, cap) of the big period value
    columns: tuple[Rect, Rect, Rect]  # bottom zone: home, centre, away
    row_cap: int


def grid(canvas: Canvas) -> Grid:
    u, w = canvas.u, canvas.width
    home, away = halves(canvas)
    if canvas.wide:
        clock_cap = u(CLOCK_CAP[True])
        side = canvas.x(19)
        panel_top, panel_h = u(16), u(37)
        scores = ((canvas.margin, panel_top, side, panel_h),
                  (w - canvas.margin - side, panel_top, side, panel_h))
        gap = canvas.x(2)
        clock_x = canvas.margin + side + gap
        return Grid(
            name_cap_top=u(3.4), name_cap=u(7), stripe=(u(13.2), u(1.6)),
            score_areas=scores, score_cap=u(28),
            clock_area=(clock_x, u(18), w - 2 * clock_x, clock_cap), clock_cap=clock_cap,
            period_area=(clock_x, 0, w - 2 * clock_x, 0),
            period_cap_top=u(55.5), period_cap=u(5.5), period_value=None,
            columns=_columns(canvas, u(63), u(92.5), canvas.x(24)), row_cap=u(5.2),
        )
    clock_cap = u(CLOCK_CAP[False])
    panel_w = canvas.x(30)
    panel_top, panel_h = u(13.5), u(22)
    scores = ((home[0] + (home[2] - panel_w) // 2, panel_top, panel_w, panel_h),
              (away[0] + (away[2] - panel_w) // 2, panel_top, panel_w, panel_h))
    gap_left = scores[0][0] + panel_w + canvas.x(1.5)
    gap_right = scores[1][0] - canvas.x(1.5)
    return Grid(
        name_cap_top=u(2.8), name_cap=u(5.6), stripe=(u(10.6), u(1.4)),
        score_areas=scores, score_cap=u(17.5),
        clock_area=(canvas.margin, u(37.5), w - 2 * canvas.margin, clock_cap),
        clock_cap=clock_cap,
        period_area=(gap_left, 0, gap_right - gap_left, 0),
        period_cap_top=u(15.5), period_cap=canvas.min_px, period_value=(u(23), u(9.5)),
        columns=_columns(canvas, u(70.5), u(92.5), canvas.x(28)), row_cap=canvas.min_px,
    )


def _columns(canvas: Canvas, top: int, bottom: int, side: int) -> tuple[Rect, Rect, Rect]:
    gap = canvas.x(3)
    left = (canvas.margin, top, side, bottom - top)
    right = (canvas.width - canvas.margin - side, top, side, bottom - top)
    centre_x = left[0] + side + gap
    centre = (centre_x, top, right[0] - gap - centre_x, bottom - top)
    return left, centre, right


def game_screen(canvas: Canvas, state: StateView, status: StatusView) -> list[Item]:
    g = grid(canvas)
    is_break = state.phase in ("intermission", "overtime_break")
    items: list[Item] = []
    items += header(canvas, g, state)
    clock_colour = pal.BREAK_CLOCK if is_break else pal.CLOCK
    shown = values.clock_text(state.clock_ms, canvas.options.tenths_below_ms)
    height = digit_height("00:00", g.clock_area[2], g.clock_cap)  # the same size in SS.t
    items += digits(g.clock_area, shown, height, clock_colour, role="clock", per_char=True)
    items += period(canvas, g, state, is_break)
    left, centre, right = g.columns
    rows = Rows(g.row_cap, zone_row_height(canvas, g.row_cap, state))
    items += team_column(canvas, left, rows, state.penalties[0],
                         extra=state.extra_player == "home", side="home")
    items += team_column(canvas, right, rows, state.penalties[1],
                         extra=state.extra_player == "away", side="away")
    items += indicators(canvas, centre, rows, state, is_break)
    items += footer(canvas, state.entry, status)
    return items


def header(canvas: Canvas, g: Grid, state: StateView) -> list[Item]:
    """Names with their stripes, and the scores on their panels."""
    items: list[Item] = []
    for side, area, score_area, score in zip(
            ("home", "away"), halves(canvas), g.score_areas, state.score, strict=True):
        team = state.team(side)
        align: Align = "center"
        if canvas.wide:  # names start at the outer edges, over the scores
            align = "left" if side == "home" else "right"
        items += team_name(canvas, area, g.name_cap_top, g.name_cap, team, side=side, align=align)
        items.append(stripe((area[0], g.stripe[0], area[2], g.stripe[1]), team, side))
        items.append(Box(score_area, pal.PANEL, PANEL, f"panel.{side}"))
        pad = canvas.u(2)
        inner = (score_area[0] + pad, score_area[1], score_area[2] - 2 * pad, score_area[3])
        shown = str(score)
        height = digit_height(shown if len(shown) > 2 else "00", inner[2], g.score_cap)
        items += digits(inner, shown, height, pal.WHITE, role=f"score.{side}")
    return items


def period_label(state: StateView) -> str:
    if state.phase in ("overtime", "overtime_break"):
        return "OT"
    return str(state.period)


def period(canvas: Canvas, g: Grid, state: StateView, is_break: bool) -> list[Item]:
    """PERIOD 2 / OVERTIME; in a break what comes next (the state's period is the next)."""
    items: list[Item] = []
    label = period_label(state)
    if g.period_value is None:  # wide: one line under the clock
        if is_break:
            line = "NEXT: OVERTIME" if label == "OT" else f"NEXT: PERIOD {label}"
        else:
            line = "OVERTIME" if label == "OT" else f"PERIOD {label}"
        item = text(canvas, g.period_area, g.period_cap_top, g.period_cap, line, colour=pal.LABEL,
                    role="period")
        return [item] if item else []
    caption = "NEXT" if is_break else ("OVERTIME" if label == "OT" else "PERIOD")
    item = text(canvas, g.period_area, g.period_cap_top, g.period_cap, caption, colour=pal.LABEL,
                role="period.caption")
    if item:
        items.append(item)
    value = label if not is_break or label == "OT" else f"P{label}"
    cap_top, cap = g.period_value
    item = text(canvas, g.period_area, cap_top, cap, value, colour=pal.WHITE, role="period")
    if item:
        items.append(item)
    return items


@dataclass(frozen=True, slots=True)
class Rows:
    """The bottom zone's rows: one cap height and one pitch for all three columns, so the
    penalties and the indicators beside them stand on the same lines."""

    cap: int
    height: int

    def cap_top(self, top: int) -> int:
        return row_cap_top(top, self.height, self.cap, ZONE_TEXT)


# Everything the bottom zone writes except player numbers: capitals, digits and signs.
ZONE_TEXT = "#+:0123456789 EXTRA PLAYER TIME-OUT ON STOP LINE CHANGE INTERMISSION OVERTIME BREAK"


def zone_row_height(canvas: Canvas, cap: int, state: StateView) -> int:
    """Rows as tall as their characters need (plain capitals need far less room than a
    name with accents), so more fits on a 4:3 screen."""
    players = "".join(p.player for side in state.penalties for p in side)
    return line_height(cap, ZONE_TEXT + players) + canvas.u(1.2)


def team_column(canvas: Canvas, area: Rect, rows_: Rows, penalties: tuple[PenaltyView, ...], *,
                extra: bool, side: str) -> list[Item]:
    """Under a team: the extra-player note (rules 003), two penalties with player numbers
    and time left (running ones come first in the state), then "+N" for the rest."""
    cap, row_h = rows_.cap, rows_.height
    rows: list[tuple[str, str]] = []  # (left text, right text)
    if extra:
        rows.append(("EXTRA PLAYER", ""))
    shown = [p for p in penalties[:SHOWN_PENALTIES] if p.running]
    capacity = max(0, area[3] // row_h)
    rest = len(penalties) - len(shown)
    # Leave a row for "+N" if anything is left over; fold penalties into it if short of room.
    while shown and len(rows) + len(shown) + (1 if rest else 0) > capacity:
        shown.pop()
        rest += 1
    rows += [(f"#{p.player}" if p.player else "#?", values.minutes_seconds(p.remaining_ms))
             for p in shown]
    if rest:
        rows.append((f"+{rest}", ""))
    items: list[Item] = []
    for i, (left, right) in enumerate(rows[:capacity]):
        cap_top = rows_.cap_top(area[1] + i * row_h)
        colour = pal.ALERT if left == "EXTRA PLAYER" else pal.WHITE
        if right:
            right_item = text(canvas, area, cap_top, cap, right, colour=pal.WHITE, align="right",
                              role=f"penalty.{side}.time")
            if right_item is None:
                continue
            room = (area[0], 0, right_item.rect[0] - area[0] - canvas.u(2), 0)
            left_item = text(canvas, room, cap_top, cap, left, colour=colour, align="left",
                             role=f"penalty.{side}.player")
            items += [x for x in (left_item, right_item) if x is not None]
        else:
            role = f"extra.{side}" if left == "EXTRA PLAYER" else f"penalty.{side}.more"
            item = text(canvas, area, cap_top, cap, left, colour=colour,
                        align="left" if side == "home" else "right", role=role)
            if item:
                items.append(item)
    return items


def indicators(canvas: Canvas, area: Rect, rows_: Rows, state: StateView,
               is_break: bool) -> list[Item]:
    """The centre of the bottom zone, top to bottom: time-out, strength when uneven, stop
    time, the line-change countdown; whatever does not fit is left out in that order."""
    rows: list[tuple[str, int]] = []  # (kind, height)
    cap, row_h = rows_.cap, rows_.height
    bar_h = canvas.u(BAR)
    if is_break:
        rows.append(("break", row_h))
    if state.timeout is not None:
        rows.append(("timeout", row_h))
    if (state.strength is not None and state.strength[0] != state.strength[1]
            and not is_break):
        rows.append(("strength", row_h))
    if state.stop_time and not is_break:
        rows.append(("stop", row_h))
    if state.shift_ms is not None and not is_break:
        rows.append(("shift", row_h + bar_h + canvas.u(0.6)))
    items: list[Item] = []
    y = area[1]
    for kind, height in rows:
        if y + height > area[1] + area[3]:
            break
        items += _indicator(canvas, area, (y, row_h, rows_.cap_top(y), cap), kind, state)
        y += height
    return items


def _indicator(canvas: Canvas, area: Rect, row: tuple[int, int, int, int], kind: str,
               state: StateView) -> list[Item]:
    """One indicator in the row ``(y, height, capitals' top, cap height)``."""
    y, row_h, cap_top, cap = row
    bar_h = canvas.u(BAR)
    items: list[Item] = []
    if kind == "break":
        label = "OVERTIME BREAK" if state.phase == "overtime_break" else "INTERMISSION"
        item = text(canvas, area, cap_top, cap, label, colour=pal.BREAK_CLOCK, role="break")
        return [item] if item else []
    if kind == "timeout" and state.timeout is not None:
        arrow = cap
        inner = (area[0] + arrow + canvas.u(1), 0, area[2] - 2 * (arrow + canvas.u(1)), 0)
        shown = values.minutes_seconds(state.timeout.remaining_ms)
        item = text(canvas, inner, cap_top, cap, f"TIME-OUT {shown}", colour=pal.ALERT,
                    role="timeout")
        if item is None:
            return []
        items.append(item)
        if state.timeout.team == "home":
            rect = (item.rect[0] - arrow - canvas.u(1), cap_top, arrow, cap)
            items.append(Mark(rect, "arrow_left", pal.ALERT, role="timeout.team"))
        else:
            rect = (item.rect[0] + item.rect[2] + canvas.u(1), cap_top, arrow, cap)
            items.append(Mark(rect, "arrow_right", pal.ALERT, role="timeout.team"))
        return items
    if kind == "strength" and state.strength is not None:
        home, away = state.strength
        item = text(canvas, area, cap_top, cap, f"{home} ON {away}", colour=pal.ALERT,
                    role="strength")
        return [item] if item else []
    if kind == "stop":
        item = text(canvas, area, cap_top, cap, "STOP TIME", colour=pal.WHITE, role="stop_time")
        if item is None:
            return []
        pad = canvas.u(1.2)
        left = max(area[0], item.rect[0] - pad)
        right = min(area[0] + area[2], item.rect[0] + item.rect[2] + pad)
        box = (left, y, right - left, row_h)  # the row
        return [Box(box, pal.STOP_BOX, PANEL, "stop_time.box"), item]
    if kind == "shift" and state.shift_ms is not None:
        secs = values.whole_seconds(state.shift_ms)
        item = text(canvas, area, cap_top, cap, f"LINE CHANGE {secs}", colour=pal.WHITE,
                    role="shift")
        if item:
            items.append(item)
        length = max(1, canvas.options.shift_length_ms)
        # The bar moves in whole seconds, with the number: one redraw a second, not a frame.
        permille = max(0, min(1000, secs * 1_000_000 // length))
        bar_w = min(area[2], canvas.x(24))
        rect = (area[0] + (area[2] - bar_w) // 2, y + row_h, bar_w, bar_h)
        items.append(Bar(rect, permille, pal.ALERT if secs <= 10 else pal.SCORED, pal.TRACK,
                         CONTENT, "shift.bar"))
    return items
