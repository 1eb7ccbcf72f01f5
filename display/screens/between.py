"""Between games: the hall's next match, its scheduled time, and the tables of the groups
played here::

    NEXT MATCH                                                   14:30
    HOME NAME ..................          .................. AWAY NAME
    ======= stripe =============          ============= stripe =======
                             GROUP A  ·  MATCH A4
    +- GROUP A ---------- P  W  D  L  GOALS PTS -+ +- GROUP B ---- ... -+
    | 1 LIONS             3  2  1  0   7:2    7  | | 1 ...               |

Wide screens set two tables side by side, narrow ones stack them; a narrow table drops the
W/D/L columns before a name is cut. Groups that do not fit are left out (the daemon can
page through them by passing a few at a time). Without tables (no office yet) the next match
fills the screen. With a public address (``public_url``) its QR code stands at the right of
the tables (display/screens/address.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.wire import Row

from .. import colour as pal
from .. import values
from ..document import BetweenView, NextMatchView, StateView, StatusView, TableView
from ..fit import fit_text, line_height
from ..items import PANEL, Box, Item, Rect
from .address import address_column
from .common import Canvas, footer, halves, row_cap_top, stripe, team_name, text

# The number columns by their keys; the headers are the words display.table.<key>.
FULL = ("played", "won", "drawn", "lost", "goals", "points")
COMPACT = ("goals", "points")


def between_screen(canvas: Canvas, between: BetweenView, status: StatusView,
                   state: StateView | None = None) -> list[Item]:
    u = canvas.u
    items: list[Item] = []
    full = (canvas.margin, 0, canvas.width - 2 * canvas.margin, 0)
    pregame = state is not None and state.phase == "pregame"
    lines = pregame_lines(canvas, between.next, state) if pregame and state else []
    table_top = 0
    if between.next is not None and not between.tables:
        items += next_match_big(canvas, between.next)
        items += pregame_block(canvas, u(79), lines)
    elif between.next is not None:
        items += next_match_bar(canvas, between.next)
        if lines:  # one line if it fits uncut, else a line each
            joined = "  \u00b7  ".join(t for t, _r in lines)
            if canvas.measure(joined, "sans", _pregame_cap(canvas)) <= full[2]:
                lines = [(joined, "pregame.periods")]
        block = pregame_block(canvas, u(23.5), lines)
        items += block
        table_top = max((i.rect[1] + i.rect[3] for i in block), default=0) + u(1.5)
    else:
        title = text(canvas, full, u(3.5), u(5.5), canvas.word("display.standings"),
                     colour=pal.CLOCK, role="title")
        items += [title] if title else []
    if between.tables:
        top = max(u(22.5), table_top) if between.next is not None else u(13)
        width = full[2]
        if between.public_url:  # the public site's QR code at the right of the tables
            column, used = address_column(canvas, between.public_url, top)
            items += column
            width -= used + canvas.x(1.5) if used else 0
        items += tables(canvas, (canvas.margin, top, width, u(92.5) - top), between.tables,
                        between.page)
    items += footer(canvas, None, status)
    return items


def pregame_lines(canvas: Canvas, match: NextMatchView | None, state: StateView
                  ) -> list[tuple[str, str]]:
    """Before the first face-off, under the next match: the warm-up or start countdown
    when the document carries one (``countdown``), how the game is played (``2 PERIODS OF
    20:00``),
    and the players the office says are suspended. (text, role), most important first."""
    opts = canvas.options
    lines: list[tuple[str, str]] = []
    length = values.minutes_seconds(opts.period_ms)
    plan = canvas.word("display.plan.one", length=length) if opts.periods == 1 \
        else canvas.word("display.plan", n=opts.periods, length=length)
    if state.countdown is not None:
        shown = values.minutes_seconds(state.countdown.remaining_ms)
        plan = f"{countdown_label(canvas, state.countdown.label)} {shown}  \u00b7  {plan}"
    lines.append((plan, "pregame.periods"))
    if match is not None and match.suspended:
        def team(side: str) -> str:
            return (match.home if side == "home" else match.away).name.upper()

        who = " \u00b7 ".join(f"{team(s.team)} #{s.player}" for s in match.suspended)
        lines.append((canvas.word("display.suspended", who=who), "pregame.suspended"))
    return lines


def countdown_label(canvas: Canvas, label: str) -> str:
    """The countdown's label (the core's ``resurfacing``, ``warm-up``, ``start in``) in the
    hall's language; a label the words do not know is shown as it came."""
    key = f"display.countdown.{label.lower()}"
    return canvas.word(key) if canvas.knows(key) else label.upper()


def _pregame_cap(canvas: Canvas) -> int:
    return max(canvas.min_px, canvas.u(4.4))


def pregame_block(canvas: Canvas, top: int, lines: list[tuple[str, str]]) -> list[Item]:
    full = (canvas.margin, 0, canvas.width - 2 * canvas.margin, 0)
    cap = _pregame_cap(canvas)
    items: list[Item] = []
    for content, role in lines:
        item = text(canvas, full, row_cap_top(top, line_height(cap, content), cap, content), cap,
                    content, colour=pal.WHITE if role == "pregame.periods" else pal.ALERT,
                    role=role)
        if item:
            items.append(item)
        top += line_height(cap, content) + canvas.u(1)
    return items


def next_match_big(canvas: Canvas, match: NextMatchView) -> list[Item]:
    """No tables yet (no office): the next match fills the screen."""
    u = canvas.u
    full = (canvas.margin, 0, canvas.width - 2 * canvas.margin, 0)
    items: list[Item | None] = [
        text(canvas, full, u(12), u(8), canvas.word("display.next_match"), colour=pal.CLOCK,
             role="title")]
    if match.time:
        items.append(text(canvas, full, u(27), u(11), _clock_time(match.time), colour=pal.WHITE,
                          role="next.time"))
    for side, area in zip(("home", "away"), halves(canvas), strict=True):
        team = match.home if side == "home" else match.away
        items += team_name(canvas, area, u(50), u(8), team, side=side)
        items.append(stripe((area[0], u(50) + line_height(u(8)), area[2], u(1.6)), team, side))
    about = _about(canvas, match)
    if about:
        items.append(text(canvas, full, u(70), u(5), about, colour=pal.LABEL, role="next.about"))
    return [item for item in items if item is not None]


def next_match_bar(canvas: Canvas, match: NextMatchView) -> list[Item]:
    """Above the tables: NEXT MATCH, what it is and when on one line, the teams below."""
    u = canvas.u
    cap, top = u(5), u(3)
    full = (canvas.margin, 0, canvas.width - 2 * canvas.margin, 0)
    items: list[Item | None] = []
    title = text(canvas, full, top, cap, canvas.word("display.next_match"), colour=pal.CLOCK,
                 align="left", role="title")
    items.append(title)
    left = title.rect[0] + title.rect[2] + canvas.x(2) if title else full[0]
    right = full[0] + full[2]
    if match.time:
        when = text(canvas, full, top, cap, _clock_time(match.time), colour=pal.WHITE,
                    align="right", role="next.time")
        items.append(when)
        right = when.rect[0] - canvas.x(2) if when else right
    about = _about(canvas, match)
    if about and right - left > canvas.u(10):
        items.append(text(canvas, (left, 0, right - left, 0), top, cap, about, colour=pal.LABEL,
                          role="next.about"))
    name_top, name_cap = u(11.8), u(6)
    for side, area in zip(("home", "away"), halves(canvas), strict=True):
        team = match.home if side == "home" else match.away
        items += team_name(canvas, area, name_top, name_cap, team, side=side)
        items.append(stripe((area[0], name_top + line_height(name_cap) - u(1), area[2],
                             u(1.4)), team, side))
    return [item for item in items if item is not None]


def _about(canvas: Canvas, match: NextMatchView) -> str:
    # A match whose teams the office does not know yet says so where its label goes: the
    # slots' names ("2ND B") show above it, so nobody lines up for it.
    # A replay (the office voided the result) says so too: the teams line up again.
    # A label that is the match's id (a bracket match labelled by it) is said once.
    label = None if match.label and match.match and \
        match.label.casefold() == match.match.casefold() else match.label
    parts = (label, canvas.word("display.match", match=match.match) if match.match
             else None, canvas.word("display.waiting") if match.waiting else None,
             canvas.word("display.replay") if match.replay else None)
    return " \u00b7 ".join(x for x in parts if x).upper()


def _clock_time(value: str) -> str:
    """A schedule's time as HH:MM; an ISO date-time is cut to its time of day."""
    if "T" in value:
        value = value.split("T", 1)[1]
    parts = value.split(":")
    if len(parts) >= 2 and all(p[:2].isdigit() for p in parts[:2]):
        return f"{parts[0][:2]}:{parts[1][:2]}"
    return value


@dataclass(frozen=True, slots=True)
class TableStyle:
    cap: int  # the text's cap height
    spacing: int  # between two rows
    texts: str  # every character of every table: rows have room for the tallest

    def row_height(self) -> int:
        return line_height(self.cap, self.texts) + self.spacing


def tables(canvas: Canvas, area: Rect, groups: tuple[TableView, ...], page: int
           ) -> list[Item]:
    """The group tables. Preferred: all on one screen with no name cut short, stacked in one
    column, else (wide screens) side by side, each at the largest size (then the loosest
    rows) that does it. Failing that, the most that fit at the smallest size; if not all do,
    ``page`` (which the daemon counts up every few seconds) chooses the screenful shown."""
    texts = "".join(_texts(canvas, t) for t in groups)
    arrangements = (1, 2) if canvas.wide and len(groups) > 1 else (1,)
    styles = [TableStyle(cap, spacing, texts)
              for cap in range(max(canvas.min_px, canvas.u(4.8)), canvas.min_px - 1, -1)
              for spacing in (round(cap * 0.25), canvas.u(0.3))]
    chosen = next(((columns, style) for columns in arrangements for style in styles
                   if len(_pages(canvas, area, groups, style)) <= columns
                   and all(_names_fit(canvas, t, style.cap, _column_width(canvas, area,
                                                                          columns))
                           for t in groups)), None)
    if chosen is None:  # names will be cut: as many tables at once as possible
        style = styles[-1]
        one = [c for c in arrangements if len(_pages(canvas, area, groups, style)) <= c]
        chosen = (one[0] if one else arrangements[-1], style)
    columns, style = chosen
    col_w = _column_width(canvas, area, columns)
    gap = canvas.x(1.5)
    x0 = area[0] + (area[2] - (col_w * columns + gap * (columns - 1))) // 2
    stacks = _pages(canvas, area, groups, style)
    screens = [stacks[i:i + columns] for i in range(0, len(stacks), columns)]
    items: list[Item] = []
    for col, stack in enumerate(screens[page % len(screens)]):
        for table, y in stack:
            items += table_items(canvas, (x0 + col * (col_w + gap), y, col_w, 0), table, style)
    return items


def _column_width(canvas: Canvas, area: Rect, columns: int) -> int:
    if columns == 1:
        return min(area[2], canvas.x(76)) if canvas.wide else area[2]
    return (area[2] - canvas.x(1.5) * (columns - 1)) // columns


def _pages(canvas: Canvas, area: Rect, groups: tuple[TableView, ...], style: TableStyle
           ) -> list[list[tuple[TableView, int]]]:
    """Tables stacked top to bottom (with their y), a new stack when one is full."""
    stacks: list[list[tuple[TableView, int]]] = [[]]
    y = area[1]
    for table in groups:
        need = _table_height(canvas, table, style)
        if y + need > area[1] + area[3] and stacks[-1]:
            stacks.append([])
            y = area[1]
        stacks[-1].append((table, y))
        y += need + canvas.u(1)
    return stacks


def _table_height(canvas: Canvas, table: TableView, style: TableStyle) -> int:
    return (len(table.rows) + 1) * style.row_height() + canvas.u(1)


def _group(canvas: Canvas, table: TableView) -> str:
    return canvas.word("display.group", group=table.group).upper() if table.group \
        else canvas.word("display.table")


def _texts(canvas: Canvas, table: TableView) -> str:
    """Every character the table shows."""
    return "".join([_group(canvas, table), *(canvas.word(f"display.table.{k}") for k in FULL),
                    *(r.team.upper() for r in table.rows), "0123456789:"])


def _geometry(canvas: Canvas, area: Rect, table: TableView, cap: int
              ) -> tuple[int, int, int, int, list[tuple[str, str, int, int]]]:
    """inner x, rank width, name x, name width, and the number columns (header, key, x,
    width) of a table in ``area``."""
    pad, gap = canvas.u(1.2), max(canvas.u(2), round(cap * 0.6))
    inner_x, inner_w = area[0] + pad, area[2] - 2 * pad
    rank_w = max(canvas.measure(str(len(table.rows)), "sans", cap), 1)
    name_x = inner_x + rank_w + canvas.u(2)
    spec = _columns(canvas, table, cap, inner_x + inner_w - name_x, gap)
    right = inner_x + inner_w
    xs: list[tuple[str, str, int, int]] = []
    for header, key, width in reversed(spec):
        xs.append((header, key, right - width, width))
        right -= width + gap
    xs.reverse()
    return inner_x, rank_w, name_x, right - name_x, xs


def _names_fit(canvas: Canvas, table: TableView, cap: int, width: int) -> bool:
    _x, _r, _n, name_w, _xs = _geometry(canvas, (0, 0, width, 0), table, cap)
    return all(fit_text(row.team.upper(), name_w, cap, canvas.measure, min_px=canvas.min_px)
               .text == row.team.upper() for row in table.rows)


def table_items(canvas: Canvas, area: Rect, table: TableView, style: TableStyle
                ) -> list[Item]:
    cap, texts = style.cap, style.texts
    row_h = style.row_height()
    height = _table_height(canvas, table, style)
    items: list[Item] = [Box((area[0], area[1], area[2], height), pal.PANEL, PANEL,
                             "table.panel")]
    inner_x, rank_w, name_x, name_w, xs = _geometry(canvas, area, table, cap)
    right = name_x + name_w
    y = area[1] + canvas.u(0.5)
    cap_top = row_cap_top(y, row_h, cap, texts)
    group = _group(canvas, table)
    if table.group and canvas.measure(group, "sans", cap) > right - inner_x:
        group = table.group.upper()  # "GROUP A" where it fits, else the group's name alone
    head = text(canvas, (inner_x, 0, right - inner_x, 0), cap_top, cap, group, colour=pal.CLOCK,
                align="left", role="table.group")
    items += [head] if head else []
    for header, _key, x, width in xs:
        item = text(canvas, (x, 0, width, 0), cap_top, cap, header, colour=pal.LABEL,
                    role="table.header")
        items += [item] if item else []
    for i, row in enumerate(table.rows):
        cap_top = row_cap_top(y + (i + 1) * row_h, row_h, cap, texts)
        rank = text(canvas, (inner_x, 0, rank_w, 0), cap_top, cap, str(i + 1),
                    colour=pal.LABEL, align="right", role="table.rank")
        name = text(canvas, (name_x, 0, name_w, 0), cap_top, cap, row.team.upper(),
                    colour=pal.WHITE, align="left", role="table.team")
        items += [x for x in (rank, name) if x is not None]
        for _header, key, x, width in xs:
            item = text(canvas, (x, 0, width, 0), cap_top, cap, _cell(row, key), colour=pal.WHITE,
                        role=f"table.{key}")
            items += [item] if item else []
    return items


def _cell(row: Row, key: str) -> str:
    if key == "goals":
        return f"{row.goals_for}:{row.goals_against}"
    value: int = getattr(row, key)
    return str(value)


def _columns(canvas: Canvas, table: TableView, cap: int, width: int, gap: int
             ) -> list[tuple[str, str, int]]:
    """The number columns with their widths: all of them if the names keep at least half
    the table, else the compact set (goals, points)."""
    def widths(spec: tuple[str, ...]) -> list[tuple[str, str, int]]:
        headers = [(canvas.word(f"display.table.{key}"), key) for key in spec]
        return [(header, key, max(canvas.measure(s, "sans", cap)
                                  for s in [header] + [_cell(r, key) for r in table.rows]))
                for header, key in headers]

    full = widths(FULL)
    used = sum(w + gap for _h, _k, w in full)
    return full if used <= width // 2 else widths(COMPACT)
