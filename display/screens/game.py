"""The game screen (a period, overtime, before the first face-off) and the break screen.

Wide (16:9)::

    HOME NAME ...................        ................... AWAY NAME
    ======= stripe ==============        ============== stripe =======
    +--------+                                           +--------+
    |   2    |              1 2 : 3 4                    |   1    |
    +--------+                                           +--------+
    #8  2+2           +1          PERIOD          #12  MISC
    1:23                            2                 10:00
    #19                         [ STOP ]
    0:21                          3 ON 5
                                STOP TIME
    [ operator line: PENALTY HOME  PLAYER #7_        ][CLOCK RESTORED - CHECK] (o)

Narrow (4:3): the scores sit under the names with the period between them, and the clock
has its own row below. The clock's digits are at least 30 % of the screen height in both.
The break screen is the same frame with the break countdown (in blue, not game time),
what comes next, and the penalties carried over.

Sizes follow the hall (``display/hall.py``): the clock, the scores, the period and the
running penalties' times are at least ``canvas.legible`` (the farthest seat's letter
height) where they fit. A penalty is a block: its player number and kind ("2+2", "MAJ",
"MISC", "GM", "MP") on a small line, its time in big digits under it; the penalties that
do not fit at that size (and those waiting) fold into "+N" rather than shrink. When even the
standard arrangement cannot give them that size, the far arrangement drops the period's
caption, the second penalty and the quieter indicators (``Frame.variant`` says "far").
Which arrangement a frame gets is chosen in ``display/screens/gamesizing.py``.

Running and stopped: a running game clock is amber; a stopped one is white with a red STOP
mark under the period, in the stop-time window too (whose own mark is amber, never red).
After a goal (the document's ``goal``, there for a few seconds) the scorer's number, and
his name when the roster gives one, take the scoring side's penalty column; the clock and
scores stay where they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from arena.words import word

from .. import colour as pal
from .. import segments, values
from ..document import GoalView, PenaltyView, StateView, StatusView
from ..fit import ABOVE, BELOW, extents, line_height
from ..items import CONTENT, PANEL, Align, Bar, Box, Colour, Item, Mark, Rect, intersects
from .common import (
    Canvas,
    digit_height,
    digits,
    footer,
    footer_top,
    halves,
    row_cap_top,
    stripe,
    team_name,
    text,
)

CLOCK_CAP = {True: 31.0, False: 31.0}  # percent of the height: wide, narrow (>= 30 %)
MAX_PENALTIES = 3  # running penalties a side shown as blocks at most, then "+N"
PENALTY_TARGET = 12.0  # percent: penalty times take at least this when the hall asks less
PERIOD_TARGET = 11.0  # percent: likewise the period's value
BAR = 2.2  # the line-change bar's height, percent of the screen height
# Short labels that tell the kinds apart (the words display.kind.*: IIHF scoresheet
# abbreviations in English); a minor has none.
KIND_LABELS = ("double_minor", "major", "misconduct", "game_misconduct", "match", "personal",
               "bench_minor")
PLAY = ("period", "overtime")  # the phases whose clock is game time a spectator watches
OVERTIME = ("overtime", "overtime_break")


def kind_label(kind: str, canvas: Canvas | None = None) -> str:
    """A penalty kind's short label in the hall's language (English without ``canvas``)."""
    if kind == "minor":
        return ""
    if kind in KIND_LABELS:
        key = f"display.kind.{kind}"
        return canvas.word(key) if canvas is not None else word(key)
    return kind.replace("_", " ").upper()[:5]


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
    period_area: Rect  # wide: the centre column's top; narrow: between the scores
    columns: tuple[Rect, Rect, Rect]  # bottom zone: home, centre, away
    row_cap: int


def base_caps(canvas: Canvas) -> tuple[int, int]:
    """The names' and the bottom zone's cap heights of the standard arrangement."""
    if canvas.wide:
        return canvas.u(6.2), canvas.u(4.8)
    return canvas.u(5.6), canvas.min_px


def grid(canvas: Canvas, name_cap: int | None = None, row_cap: int | None = None) -> Grid:
    """The standard grid, or one with taller names (everything under them moves down by
    what they take more, the bottom zone gives it up) and taller bottom-zone rows."""
    u, w = canvas.u, canvas.width
    home, away = halves(canvas)
    bottom = footer_top(canvas)
    base_name, base_row = base_caps(canvas)
    name = max(base_name, name_cap or 0)
    row = max(base_row, row_cap or 0)
    if canvas.wide:
        name_top = max(u(2.6), math.ceil(ABOVE * name) + u(0.5))
        # the stripe under the name's lowest reach, as in the standard grid
        dy = max(0, name_top + name + math.ceil(BELOW * name) + u(0.5) - u(11.4))
        if name == base_name:
            name_top, dy = u(2.6), 0
        clock_cap = u(CLOCK_CAP[True])
        side = canvas.x(19)
        panel_top, panel_h = u(14) + dy, u(33)
        scores = ((canvas.margin, panel_top, side, panel_h),
                  (w - canvas.margin - side, panel_top, side, panel_h))
        gap = canvas.x(2)
        clock_x = canvas.margin + side + gap
        columns = _columns(canvas, u(49.5) + dy, bottom, canvas.x(31.5), canvas.x(2.5))
        return Grid(
            name_cap_top=name_top, name_cap=name, stripe=(u(11.4) + dy, u(1.4)),
            score_areas=scores, score_cap=u(28),
            clock_area=(clock_x, u(15) + dy, w - 2 * clock_x, clock_cap), clock_cap=clock_cap,
            period_area=columns[1], columns=columns, row_cap=row,
        )
    name_top = max(u(2.8), math.ceil(ABOVE * name) + u(0.5))
    dy = max(0, name_top + name + math.ceil(BELOW * name) + u(0.5) - u(10.6))
    if name == base_name:
        name_top, dy = u(2.8), 0
    clock_cap = u(CLOCK_CAP[False])
    panel_w = canvas.x(30)
    panel_top, panel_h = u(13.5) + dy, u(22)
    scores = ((home[0] + (home[2] - panel_w) // 2, panel_top, panel_w, panel_h),
              (away[0] + (away[2] - panel_w) // 2, panel_top, panel_w, panel_h))
    gap_left = scores[0][0] + panel_w + canvas.x(1.5)
    gap_right = scores[1][0] - canvas.x(1.5)
    return Grid(
        name_cap_top=name_top, name_cap=name, stripe=(u(10.6) + dy, u(1.4)),
        score_areas=scores, score_cap=min(max(u(17.5), canvas.legible), panel_h - u(2)),
        clock_area=(canvas.margin, u(37) + dy, w - 2 * canvas.margin, clock_cap),
        clock_cap=clock_cap,
        period_area=(gap_left, panel_top, gap_right - gap_left, u(36.5) - u(13.5)),
        columns=_columns(canvas, u(69.5) + dy, bottom, canvas.x(29.5), canvas.x(2)),
        row_cap=row,
    )


def _columns(canvas: Canvas, top: int, bottom: int, side: int, gap: int
             ) -> tuple[Rect, Rect, Rect]:
    left = (canvas.margin, top, side, bottom - top)
    right = (canvas.width - canvas.margin - side, top, side, bottom - top)
    centre_x = left[0] + side + gap
    centre = (centre_x, top, right[0] - gap - centre_x, bottom - top)
    return left, centre, right


def standard_screen(canvas: Canvas, state: StateView, status: StatusView) -> list[Item]:
    """The standard arrangement alone, no search (bench/render.py's baseline)."""
    return game_items(canvas, grid(canvas), state, status, far=False)


def game_items(canvas: Canvas, g: Grid, state: StateView, status: StatusView, *,
               far: bool) -> list[Item]:
    """The items of one arrangement: the grid ``g``, the far one's fewer things or not
    (display/screens/gamesizing.py chooses which)."""
    is_break = state.phase in ("intermission", "overtime_break")
    items: list[Item] = []
    items += header(canvas, g, state)
    stopped = state.phase in PLAY and not state.running
    items += clock_face(canvas, g, state).items(state.clock_ms)
    left, centre, right = g.columns
    rows = Rows(g.row_cap, zone_row_height(canvas, g.row_cap, state), zone_text(canvas))
    period_items, below = period(canvas, g, state, is_break, far=far)
    items += period_items
    for side, area, penalties in zip(("home", "away"), (left, right), state.penalties,
                                     strict=True):
        plan = penalty_plan(canvas, area, rows, penalties, extra=state.extra_player == side,
                            far=far)
        goal = state.goal if state.goal is not None and state.goal.team == side else None
        if goal is not None:
            items += goal_panel(canvas, area, goal, plan.cap, side=side)
            continue
        items += team_column(canvas, area, rows, penalties, extra=state.extra_player == side,
                             side=side, plan=plan)
    ind_area = centre
    if canvas.wide:
        ind_area = (centre[0], below, centre[2], centre[1] + centre[3] - below)
    items += indicators(canvas, ind_area, rows, state, is_break, stopped=stopped, far=far)
    items += footer(canvas, state.entry, status)
    return items


@dataclass(frozen=True, slots=True)
class ClockFace:
    """Where and how the clock is drawn: everything its items depend on but the time, so a
    frame that only ticks the clock re-lays just these (display/layoutcache.py)."""

    area: Rect
    height: int
    colour: Colour
    tenths_below_ms: int

    def items(self, clock_ms: int) -> list[Item]:
        shown = values.clock_text(clock_ms, self.tenths_below_ms)
        return list(digits(self.area, shown, self.height, self.colour, role="clock",
                           per_char=True))


def clock_face(canvas: Canvas, g: Grid, state: StateView) -> ClockFace:
    is_break = state.phase in ("intermission", "overtime_break")
    stopped = state.phase in PLAY and not state.running
    colour = pal.BREAK_CLOCK if is_break else (pal.WHITE if stopped else pal.CLOCK)
    height = digit_height("00:00", g.clock_area[2], g.clock_cap)  # the same size in SS.t
    return ClockFace(g.clock_area, height, colour, canvas.options.tenths_below_ms)


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


def period_label(canvas: Canvas, state: StateView) -> str:
    if state.phase in OVERTIME:
        return canvas.word("display.period.overtime")
    return str(state.period)


def pregame_line(canvas: Canvas) -> str:
    """``2 x 20:00`` (under PERIODS): how the game is played, before the first face-off."""
    opts = canvas.options
    return f"{opts.periods} \u00d7 {values.minutes_seconds(opts.period_ms)}"


def period(canvas: Canvas, g: Grid, state: StateView, is_break: bool, *, far: bool
           ) -> tuple[list[Item], int]:
    """PERIOD over its number (OT in overtime; NEXT and what comes in a break; before the
    first face-off how the game is played, ``2 x 20:00``), the number at least the hall's
    legible size. Also where the area under it starts."""
    items: list[Item] = []
    area = g.period_area
    label = period_label(canvas, state)
    overtime = state.phase in OVERTIME
    if state.phase == "pregame":
        caption, value = canvas.word("display.periods"), pregame_line(canvas)
    elif is_break:
        caption = canvas.word("display.next")
        value = label if overtime else canvas.word("display.period.next", n=label)
    else:  # in overtime too: "PERIOD OT" (the value says which)
        caption, value = canvas.word("display.period"), label
    small = canvas.min_px if not canvas.wide else max(canvas.min_px, canvas.u(4.4))
    cap_caption = max(small, g.row_cap)  # as tall as the rows under it, where it fits
    top = area[1] + canvas.u(0.5)
    # Wide, in play: the caption stands beside the number (a row saved for the indicators);
    # before the face-off and on 4:3 it stands over it.
    beside = canvas.wide and state.phase != "pregame"
    show_caption = True  # a bare number between the scores could be taken for one
    if show_caption and not beside:
        caption_h = line_height(cap_caption, caption)
        item = text(canvas, area, row_cap_top(top, caption_h, cap_caption, caption),
                    cap_caption, caption, colour=pal.LABEL, role="period.caption")
        if item:
            items.append(item)
        top += caption_h + canvas.u(0.5)
    bottom = area[1] + area[3]
    target = max(canvas.legible, canvas.u(PERIOD_TARGET))
    room = bottom - top
    if canvas.wide:  # leave the indicators below two rows (far: one, STOP or the time-out)
        room -= (1 if far else 2) * (line_height(g.row_cap, zone_text(canvas))
                                     + canvas.u(1.2)) \
            + canvas.u(1)
    above, below_ = extents(value)
    cap = max(canvas.min_px, min(target, math.floor((room - 2) / (1 + above + below_))))
    value_area = area
    # Beside the number: as tall as the rows where that fits, else the standard size; never
    # taller than the number (they share its baseline).
    for size in dict.fromkeys((min(cap_caption, cap), small)) if show_caption and beside \
            else ():
        caption_w = canvas.measure(caption, "sans", size)
        gap = canvas.u(2)
        value_w = canvas.measure(value, "sans", cap)
        if caption_w + gap + value_w <= area[2]:
            x0 = area[0] + (area[2] - caption_w - gap - value_w) // 2
            value_area = (x0 + caption_w + gap, 0, value_w, 0)
            item = text(canvas, (x0, 0, caption_w, 0),
                        top + math.ceil(above * cap) + cap - size, size, caption,
                        colour=pal.LABEL, align="left", role="period.caption")
            if item:
                items.append(item)
            break
    item = text(canvas, value_area, top + math.ceil(above * cap), cap, value, colour=pal.WHITE,
                role="pregame.periods" if state.phase == "pregame" else "period")
    if item:
        items.append(item)
        top = item.rect[1] + item.rect[3]
    return items, top + canvas.u(1)


@dataclass(frozen=True, slots=True)
class PenaltyPlan:
    """How one side sets its penalties."""

    shown: int  # running penalties shown as blocks
    cap: int  # the digits' height of the side's penalty times
    inline: bool = False  # number and kind beside the time (else on a line above it)
    cell: int = 0  # inline: the width of the number-and-kind cell, with its gap


def block_height(canvas: Canvas, rows_: Rows, plan: PenaltyPlan) -> int:
    """A penalty block: the time's digits and the number with the kind beside them (inline)
    or over them, and a gap."""
    if plan.inline:
        return max(plan.cap, 2 * line_height(rows_.cap, rows_.texts)) + canvas.u(1.2)
    return rows_.height + plan.cap + canvas.u(1.2)


def _lines(canvas: Canvas, p: PenaltyView) -> tuple[str, str]:
    return (f"#{p.player}" if p.player else "#?"), kind_label(p.kind, canvas)


def penalty_plan(canvas: Canvas, area: Rect, rows_: Rows, penalties: tuple[PenaltyView, ...],
                 *, extra: bool, far: bool) -> PenaltyPlan:
    """How many running penalties a side shows and how big their times are: the times at
    the hall's legible size (at least ``PENALTY_TARGET``) if they fit, and as many blocks as
    fit at that size (one in the far arrangement); the rest fold into "+N". Of the two ways
    to set a block (number beside or over the time), the one whose times read from farther,
    then shows more, then is bigger."""
    target = max(canvas.legible, canvas.u(PENALTY_TARGET))
    mine = [p for p in penalties if p.running][:1 if far else MAX_PENALTIES]
    if not mine:
        return PenaltyPlan(0, target)
    template = "00:00" if any(p.remaining_ms > 599_000 for p in mine) else "0:00"
    cell = max(canvas.measure(text_, "sans", rows_.cap) for p in mine for text_ in _lines(canvas, p)
               if text_) + canvas.u(1.5)
    room = area[3] - (rows_.height if extra else 0)
    best: tuple[tuple[int, int, int], PenaltyPlan] | None = None
    for inline in (False, True):
        plan = PenaltyPlan(len(mine), digit_height(template, area[2] - (cell if inline else 0),
                                                   target), inline, cell if inline else 0)
        while plan.shown > 1 and plan.shown * block_height(canvas, rows_, plan) > room:
            plan = PenaltyPlan(plan.shown - 1, plan.cap, inline, plan.cell)
        spare = room - block_height(canvas, rows_, plan)
        if spare < 0:  # not even one block at that size: one, as big as it fits
            plan = PenaltyPlan(1, plan.cap + spare, inline, plan.cell)
        if plan.cap < canvas.min_px or block_height(canvas, rows_, plan) > room:
            continue  # (number and kind beside the time need two rows however small it is)
        key = (min(plan.cap, canvas.legible), plan.shown, plan.cap)
        if best is None or key > best[0]:
            best = (key, plan)
    return best[1] if best is not None else PenaltyPlan(0, canvas.min_px)


def goal_panel(canvas: Canvas, area: Rect, goal: GoalView, cap: int, *, side: str
               ) -> list[Item]:
    """GOAL, the scorer's number in big digits and his name (if known), on a panel over the
    scoring side's penalty column for the few seconds the document carries ``goal``. GOAL
    stands over the number, or beside it where the panel is short (4:3); where even that
    leaves the number under the smallest size, the name is left out."""
    items: list[Item] = [Box(area, pal.PANEL, PANEL, f"goal.{side}.box")]
    pad = canvas.u(1.2)
    inner = (area[0] + pad, area[1] + pad, area[2] - 2 * pad, area[3] - 2 * pad)
    small = max(canvas.min_px, canvas.u(5.2) if canvas.wide else canvas.min_px)
    bottom = inner[1] + inner[3]
    name = goal.name.upper() if goal.name else ""
    title_word = canvas.word("display.goal")
    title_line = line_height(small, title_word)
    title_h = title_line + pad
    number = goal.player
    target = max(cap, canvas.legible)
    title_w = canvas.measure(title_word, "sans", small) + canvas.u(2)
    # The number comes before the name: where a short panel (taller names above it, an
    # accented GOAL in its language) leaves the number under the smallest size with the
    # name's line, the name is left out, not the number squeezed.
    for keep_name in (True, False) if name else (False,):
        name_h = line_height(small, name) + pad if keep_name else 0
        over = digit_height(number or "0", inner[2], min(target, inner[3] - name_h - title_h))
        # beside: the number's line is never lower than GOAL's own, which it centres
        beside = digit_height(number or "0", inner[2] - title_w, min(target, inner[3] - name_h))
        if title_line > inner[3] - name_h:
            beside = 0  # not even GOAL's line beside it fits over the name
        if not number or max(over, beside) >= canvas.min_px:
            break
    if not keep_name and number and max(over, beside) < canvas.min_px:
        keep_name, over, beside = True, 0, 0  # no number at all: GOAL and the name
    if not keep_name:
        name = ""
    y = inner[1]
    if number and beside > over and beside >= canvas.min_px:  # GOAL left of the number
        line = max(beside, title_line)
        title = text(canvas, (inner[0], 0, title_w, 0),
                     row_cap_top(y, line, small, title_word), small, title_word,
                     colour=pal.CLOCK, align="left", role=f"goal.{side}.title")
        items += [title] if title else []
        items += digits((inner[0] + title_w, y, inner[2] - title_w, line), number, beside,
                        pal.WHITE, role=f"goal.{side}.player")
        y += line + pad
    else:
        title = text(canvas, inner, row_cap_top(y, title_h - pad, small, title_word), small,
                     title_word, colour=pal.CLOCK, role=f"goal.{side}.title")
        items += [title] if title else []
        y += title_h
        if number and over >= canvas.min_px:
            items += digits((inner[0], y, inner[2], over), number, over, pal.WHITE,
                            role=f"goal.{side}.player")
            y += over + pad
        elif not number:  # its own line's height: "EI MAALINTEKIJÄÄ" needs room above
            nobody = canvas.word("display.no_scorer")
            nobody_h = line_height(small, nobody)
            if y + nobody_h <= bottom:  # a short panel (taller names above) keeps GOAL
                item = text(canvas, inner, row_cap_top(y, nobody_h, small, nobody), small,
                            nobody, colour=pal.LABEL, role=f"goal.{side}.player")
                items += [item] if item else []
            y += nobody_h + pad
    if name and y + line_height(small, name) <= bottom:
        item = text(canvas, inner, row_cap_top(y, line_height(small, name), small, name),
                    small, name, colour=pal.WHITE, role=f"goal.{side}.name")
        items += [item] if item else []
    return items


@dataclass(frozen=True, slots=True)
class Rows:
    """The bottom zone's rows: one cap height and one pitch for all three columns, so the
    penalties and the indicators beside them stand on the same lines."""

    cap: int
    height: int
    texts: str  # every character the rows write (zone_text)

    def cap_top(self, top: int) -> int:
        return row_cap_top(top, self.height, self.cap, self.texts)


# The words the bottom zone writes; with player numbers, digits and signs, all it writes.
ZONE_WORDS = ("display.extra_player", "display.timeout", "display.strength", "display.stop",
              "display.stop_time", "display.line_change", "display.intermission",
              "display.overtime_break", *(f"display.kind.{k}" for k in KIND_LABELS))


def zone_text(canvas: Canvas) -> str:
    """Every character the bottom zone writes except player numbers, in the hall's language
    (an accented word needs taller rows than plain capitals)."""
    return _zone_text(canvas.options.language)


@lru_cache(maxsize=16)  # asked many times a layout; the words of a language never change
def _zone_text(language: str) -> str:
    return "#+:0123456789 " + " ".join(
        word(key, language, time="", home="", away="", seconds="") for key in ZONE_WORDS)


def zone_row_height(canvas: Canvas, cap: int, state: StateView) -> int:
    """Rows as tall as their characters need (plain capitals need far less room than a
    name with accents), so more fits on a 4:3 screen."""
    players = "".join(p.player for side in state.penalties for p in side)
    return line_height(cap, zone_text(canvas) + players) + canvas.u(1.2)


def team_column(canvas: Canvas, area: Rect, rows_: Rows, penalties: tuple[PenaltyView, ...], *,
                extra: bool, side: str, plan: PenaltyPlan) -> list[Item]:
    """Under a team: the extra-player note (rules 003), then ``plan.shown`` running penalties as
    blocks (the number and the kind's label, the time in big digits; running ones come
    first in the state), and "+N" for the others (waiting, or running with no room)."""
    cap, row_h = rows_.cap, rows_.height
    outer: Align = "left" if side == "home" else "right"
    inner_end: Align = "right" if side == "home" else "left"
    items: list[Item] = []
    y = area[1]
    if extra:
        item = text(canvas, area, rows_.cap_top(y), cap, canvas.word("display.extra_player"),
                    colour=pal.ALERT,
                    align=outer, role=f"extra.{side}")
        if item:
            items.append(item)
        y += row_h
    blocks = [p for p in penalties if p.running][:plan.shown]
    rest = len(penalties) - len(blocks)
    reserve = canvas.measure(f"+{rest}", "sans", cap) + canvas.u(2) if rest else 0
    more_y = y  # the line "+N" shares: the first block's number line, or one of its own
    for i, p in enumerate(blocks):
        number, label = _lines(canvas, p)
        shown_time = values.minutes_seconds(p.remaining_ms)
        if plan.inline:
            time_w = segments.text_width(shown_time, plan.cap)
            block_w = plan.cell + time_w
            x0 = area[0] if side == "home" else area[0] + area[2] - block_w
            cell = (x0, y, plan.cell - canvas.u(1.5), 0)
            line_h = line_height(cap, rows_.texts)
            top = y + (max(plan.cap, 2 * line_h) - 2 * line_h) // 2
            for j, content in enumerate((number, label)):
                if content:
                    item = text(canvas, cell, row_cap_top(top + j * line_h, line_h, cap,
                                                          rows_.texts),
                                cap, content, colour=pal.WHITE if j == 0 else pal.LABEL,
                                align="left", role=f"penalty.{side}.player")
                    if item:
                        items.append(item)
            items += digits((x0 + plan.cell, y, time_w, plan.cap), shown_time, plan.cap,
                            pal.WHITE, role=f"penalty.{side}.time", align="left")
            if i == 0:
                more_y = y + max(plan.cap, 2 * line_h) + canvas.u(1.2)
            y += block_height(canvas, rows_, plan)
            continue
        line = f"{number}  {label}" if label else number
        room = area
        if rest and i == 0:  # leave "+N" its place at the inner end
            room = (area[0] + (reserve if side == "away" else 0), area[1],
                    area[2] - reserve, area[3])
        item = text(canvas, room, rows_.cap_top(y), cap, line, colour=pal.WHITE, align=outer,
                    role=f"penalty.{side}.player")
        if item:
            items.append(item)
        y += row_h
        height = min(plan.cap, digit_height(shown_time, area[2], plan.cap))
        items += digits((area[0], y, area[2], height), shown_time, height, pal.WHITE,
                        role=f"penalty.{side}.time", align=outer)
        y += height + canvas.u(1.2)
    if rest:
        inline_more = plan.inline and blocks
        if inline_more:  # under the last block if it has room, else beside the first
            if y + row_h <= area[1] + area[3]:
                more_y, align = y, outer
            else:
                more_y, align = area[1] + (row_h if extra else 0), inner_end
        else:
            align = inner_end if blocks else outer
            if not blocks and y + row_h > area[1] + area[3]:
                return items
        item = text(canvas, area, rows_.cap_top(more_y), cap, f"+{rest}", colour=pal.ALERT,
                    align=align, role=f"penalty.{side}.more")
        if item and not any(_overlaps(item, other) for other in items):
            items.append(item)
    return items


def _overlaps(a: Item, b: Item) -> bool:
    return intersects(a.rect, b.rect)


def indicators(canvas: Canvas, area: Rect, rows_: Rows, state: StateView,
               is_break: bool, *, stopped: bool, far: bool) -> list[Item]:
    """The centre of the bottom zone, top to bottom: STOP (the game clock is stopped),
    time-out, strength when uneven, stop time, the line-change countdown; whatever does not
    fit is left out in that order (the far arrangement keeps only STOP and the time-out)."""
    rows: list[tuple[str, int]] = []  # (kind, height)
    cap, row_h = rows_.cap, rows_.height
    bar_h = canvas.u(BAR)
    if is_break:
        rows.append(("break", row_h))
    if stopped and state.timeout is None:  # a time-out says it already, beside a white clock
        rows.append(("stopped", row_h))
    if state.timeout is not None:
        rows.append(("timeout", row_h))
    if far:
        rows = rows[:1]
    elif (state.strength is not None and state.strength[0] != state.strength[1]
            and not is_break):
        rows.append(("strength", row_h))
    if state.stop_time and not is_break and not far:
        rows.append(("stop", row_h))
    if state.shift_ms is not None and not is_break and not far:
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
        label = canvas.word("display.overtime_break" if state.phase == "overtime_break"
                            else "display.intermission")
        item = text(canvas, area, cap_top, cap, label, colour=pal.BREAK_CLOCK, role="break")
        return [item] if item else []
    if kind == "timeout" and state.timeout is not None:
        shown = values.minutes_seconds(state.timeout.remaining_ms)
        label = canvas.word("display.timeout", time=shown)
        item = None
        # The arrows beside it are as big as its letters: in tall rows both shrink together
        # rather than the label be cut (it would hide the time).
        for size in range(cap, canvas.min_px - 1, -1):
            arrow = size
            inner = (area[0] + arrow + canvas.u(1), 0, area[2] - 2 * (arrow + canvas.u(1)), 0)
            top = cap_top + (cap - size) // 2
            item = text(canvas, inner, top, size, label, colour=pal.ALERT, role="timeout")
            if item is None or item.text == label or size == canvas.min_px:
                cap, cap_top = size, top
                break
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
        item = text(canvas, area, cap_top, cap,
                    canvas.word("display.strength", home=home, away=away), colour=pal.ALERT,
                    role="strength")
        return [item] if item else []
    if kind == "stopped":  # white on red: the one red mark of the game screen
        item = text(canvas, area, cap_top, cap, canvas.word("display.stop"), colour=pal.WHITE,
                    role="stopped")
        if item is None:
            return []
        pad = canvas.u(2.5)
        left = max(area[0], item.rect[0] - pad)
        right = min(area[0] + area[2], item.rect[0] + item.rect[2] + pad)
        box = (left, y, right - left, row_h - canvas.u(0.6))
        return [Box(box, pal.STOP_BOX, PANEL, "stopped.box"), item]
    if kind == "stop":  # the stop-time window: amber, so it is never taken for STOP
        item = text(canvas, area, cap_top, cap, canvas.word("display.stop_time"),
                    colour=pal.ALERT, role="stop_time")
        return [item] if item else []
    if kind == "shift" and state.shift_ms is not None:
        secs = values.whole_seconds(state.shift_ms)
        item = text(canvas, area, cap_top, cap,
                    canvas.word("display.line_change", seconds=secs), colour=pal.WHITE,
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
