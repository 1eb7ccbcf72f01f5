"""Layout: (state document, screen size) -> what to draw where. Pure: standard library only,
no pygame (a test checks the imports), no clock, no I/O.

Which screen:

- ``pregame``, ``period``, ``overtime``: the game screen;
- ``intermission``, ``overtime_break``: the break screen;
- ``shootout``: the shootout screen;
- ``final``: the final screen;
- ``pregame`` or ``final`` *with* between-games data (``between``, the next match and the
  group tables) that has something to show: the between-games screen. The daemon decides
  when: it passes ``between`` before the first face-off and some time after the final horn
  (the final result stays up until then).

``status`` adds the status marks on every screen: "NOT RECORDING - STORAGE FAULT" (red)
while the journal cannot be written, "JOURNAL DAMAGED AT BYTE N - HOLD NEXT" (red) until the
timekeeper confirms playing on from a damaged journal, "CLOCK RESTORED - CHECK" until the
timekeeper confirms a clock brought back after a power loss, and a small mark while the
office link is down.

Sizes follow the hall (``options.hall``: the picture's height and the farthest seat,
``display/hall.py``): the game screen gives what the back row must read at least the
letter height it reads (``Frame.variant`` is "far" when it shows fewer things to do so).

Text widths come from ``measure`` (the renderer passes the real font's); the default is a
pure, generous estimate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import colour
from .document import BetweenView, StateView, StatusView, read_between, read_state, read_status
from .fit import Measure, approx_measure
from .items import Frame, Item
from .screens.between import between_screen
from .screens.common import Canvas, LayoutOptions
from .screens.final import final_screen
from .screens.gamesizing import game_screen
from .screens.shootout import shootout_screen

__all__ = ["FrameInputs", "LayoutOptions", "Views", "layout", "layout_inputs", "layout_views",
           "read_views", "screen_name"]

MIN_SIZE = (320, 200)


@dataclass(frozen=True)
class FrameInputs:
    """Everything one frame depends on: the state document (computed for the frame's
    presentation time), the screen size, and the optional between-games and status data."""

    doc: Mapping[str, Any]
    size: tuple[int, int]
    between: Mapping[str, Any] | None = None
    status: Mapping[str, Any] | None = None
    options: LayoutOptions = field(default_factory=LayoutOptions)


def screen_name(phase: str, between: BetweenView | None) -> str:
    if between is not None and (between.next is not None or between.tables) \
            and phase in ("pregame", "final"):
        return "between"
    return {
        "intermission": "break", "overtime_break": "break", "shootout": "shootout",
        "final": "final",
    }.get(phase, "game")


def layout(doc: Mapping[str, Any], size: tuple[int, int], *,
           between: Mapping[str, Any] | None = None,
           status: Mapping[str, Any] | None = None,
           measure: Measure = approx_measure,
           options: LayoutOptions | None = None) -> Frame:
    """The frame for ``doc`` on a screen of ``size`` pixels.

    Raises ``document.DocumentError`` (a ``ValueError``) naming the key of a malformed
    document, and ``ValueError`` for a screen too small to lay out.
    """
    views = read_views(doc, between, status)
    return layout_views(views, size, measure=measure, options=options or LayoutOptions())


@dataclass(frozen=True, slots=True)
class Views:
    """The typed views of one frame's documents: all of them a layout reads (hashable)."""

    state: StateView
    between: BetweenView | None
    status: StatusView


def read_views(doc: Mapping[str, Any], between: Mapping[str, Any] | None = None,
               status: Mapping[str, Any] | None = None) -> Views:
    """``document.DocumentError`` names the key of a malformed document."""
    return Views(read_state(doc), read_between(between) if between is not None else None,
                 read_status(status))


def layout_views(views: Views, size: tuple[int, int], *, measure: Measure = approx_measure,
                 options: LayoutOptions | None = None) -> Frame:
    """The frame for documents already read (``layout`` reads them first)."""
    width, height = size
    if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
        raise ValueError(f"screen {width}x{height} is too small (at least "
                         f"{MIN_SIZE[0]}x{MIN_SIZE[1]})")
    state, extra, marks = views.state, views.between, views.status
    canvas = Canvas(width, height, measure, options or LayoutOptions())
    name = screen_name(state.phase, extra)
    items: list[Item]
    variant, notes = "", tuple[str, ...]()
    if name == "between" and extra is not None:
        items = between_screen(canvas, extra, marks, state)
    elif name == "shootout":
        items = shootout_screen(canvas, state, marks)
    elif name == "final":
        items = final_screen(canvas, state, marks)
    else:
        chosen = game_screen(canvas, state, marks)
        items, variant, notes = chosen.items, chosen.variant, chosen.notes
    return Frame(size, colour.BACKGROUND, tuple(items), name, variant, notes)


def layout_inputs(inputs: FrameInputs, measure: Measure = approx_measure) -> Frame:
    return layout(inputs.doc, inputs.size, between=inputs.between, status=inputs.status,
                  measure=measure, options=inputs.options)
