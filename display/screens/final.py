"""The final screen: the result and how it was decided::

                              FINAL
        HOME NAME ..............      .............. AWAY NAME
        ====== stripe ==========      ========== stripe ======
                 3                :                2
                          AFTER SHOOTOUT 2:1

The score shown is the result as the tournament records it (a shootout adds only the
decisive goal); the shootout's own tally is on the line under it.
"""

from __future__ import annotations

from .. import colour as pal
from ..document import StateView, StatusView
from ..items import PANEL, Box, Item
from .common import Canvas, digit_height, digits, footer, halves, stripe, team_name, text

DECIDED = ("regulation", "overtime", "shootout", "forfeit")  # display.decided.* words


def final_screen(canvas: Canvas, state: StateView, status: StatusView) -> list[Item]:
    u = canvas.u
    items: list[Item] = []
    full = (canvas.margin, 0, canvas.width - 2 * canvas.margin, 0)
    title = text(canvas, full, u(4), u(8), canvas.word("display.final"), colour=pal.CLOCK,
                 role="title")
    if title:
        items.append(title)
    result = state.result
    score = (result.home, result.away) if result else state.score
    for side, area, goals in zip(("home", "away"), halves(canvas), score, strict=True):
        team = state.team(side)
        items += team_name(canvas, area, u(19), u(6.5), team, side=side)
        items.append(stripe((area[0], u(28.5), area[2], u(1.6)), team, side))
        panel_w = min(area[2], canvas.x(30))
        panel = (area[0] + (area[2] - panel_w) // 2, u(33), panel_w, u(40))
        items.append(Box(panel, pal.PANEL, PANEL, f"panel.{side}"))
        pad = u(2.5)
        inner = (panel[0] + pad, panel[1] + pad, panel[2] - 2 * pad, panel[3] - 2 * pad)
        shown = str(goals)
        height = digit_height(shown if len(shown) > 2 else "00", inner[2], u(33))
        items += digits(inner, shown, height, pal.WHITE, role=f"score.{side}")
    if result is None:
        how = canvas.word("display.full_time")
    elif result.decided_by in DECIDED:
        how = canvas.word(f"display.decided.{result.decided_by}")
    else:
        how = result.decided_by.upper()
    if result and result.decided_by == "shootout" and state.shootout is not None:
        how += f" {sum(state.shootout.home)}:{sum(state.shootout.away)}"
    line = text(canvas, full, u(79), u(6), how, colour=pal.LABEL, role="decided_by")
    if line:
        items.append(line)
    items += footer(canvas, state.entry, status)
    return items
