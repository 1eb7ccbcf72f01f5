"""Remembered layouts: a tenths frame lays out only the clock.

A frame's layout is a pure function of the documents it reads (``layout.Views``), the screen
size, the options and the measure. Ten times a second in the last minute only the clock's
value differs from the frame before (the penalties' times and the line-change countdown show
whole seconds), so this keeps the last few frames keyed by exactly those inputs, with two
things taken out of the key:

- every countdown shown in whole seconds (penalties, the time-out, the line change, the
  pregame countdown) is rounded up to the second it shows before it is laid out, as
  ``values`` rounds it: the frame is the same, and the key changes once a second;
- on the game and break screens, the clock's value: the clock's items are laid out again
  by its ``ClockFace`` (everything they depend on but the time, part of the key) and put
  where the clock stood.

A key is built from the typed views, never the raw document, so a key the document has
and the display does not read (``restored``...) does not miss, and every key it does read
is in it. tests/display/test_layoutcache.py compares cached frames with fresh ones for
generated sequences of documents.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from .document import PenaltyView, StateView
from .fit import Measure
from .items import Frame, Item
from .layout import FrameInputs, LayoutOptions, Views, layout_views, read_views, screen_name
from .screens.common import Canvas
from .screens.game import ClockFace, clock_face, grid

SIZE = 8  # frames remembered: a few screens the board goes back and forth between
CLOCKED = ("game", "break")  # the screens whose clock ``ClockFace`` lays out


def _shown_s(ms: int) -> int:
    """``ms`` rounded up to the whole second a countdown shows (``values.minutes_seconds``)."""
    return -(-max(0, ms) // 1000) * 1000


def shown_state(state: StateView, *, clock: bool) -> StateView:
    """``state`` as far as the layout sees it: the whole-second countdowns rounded up to the
    second shown; the clock's value zero unless ``clock`` (the key of a clocked screen).
    Only what differs is replaced (``replace`` is slow enough to matter ten times a
    second)."""
    changes: dict[str, Any] = {}
    if not clock and state.clock_ms != 0:
        changes["clock_ms"] = 0
    if any(p.remaining_ms != _shown_s(p.remaining_ms) for side in state.penalties
           for p in side):
        home, away = (tuple(_penalty_shown(p) for p in side) for side in state.penalties)
        changes["penalties"] = (home, away)
    if state.shift_ms is not None and state.shift_ms != _shown_s(state.shift_ms):
        changes["shift_ms"] = _shown_s(state.shift_ms)
    timeout, countdown = state.timeout, state.countdown
    if timeout is not None and timeout.remaining_ms != _shown_s(timeout.remaining_ms):
        changes["timeout"] = replace(timeout, remaining_ms=_shown_s(timeout.remaining_ms))
    if countdown is not None and countdown.remaining_ms != _shown_s(countdown.remaining_ms):
        changes["countdown"] = replace(countdown,
                                       remaining_ms=_shown_s(countdown.remaining_ms))
    return replace(state, **changes) if changes else state


def _penalty_shown(p: PenaltyView) -> PenaltyView:
    shown = _shown_s(p.remaining_ms)
    return p if shown == p.remaining_ms else replace(p, remaining_ms=shown)


@dataclass(frozen=True, slots=True)
class _Entry:
    frame: Frame
    face: ClockFace | None  # None: the frame is for ``clock_ms`` only
    clock_at: int = 0  # where the clock's items start in ``frame.items``
    clock_count: int = 0
    clock_ms: int = 0  # the value ``frame`` shows


@dataclass
class LayoutStats:
    hits: int = 0
    misses: int = 0


class LayoutCache:
    """``layout`` for a stream of frames, remembering the last ``SIZE`` layouts."""

    def __init__(self, measure: Measure, size: int = SIZE) -> None:
        self.measure = measure
        self.size = size
        self.stats = LayoutStats()
        self._entries: OrderedDict[tuple[Any, ...], _Entry] = OrderedDict()

    def layout(self, inputs: FrameInputs) -> Frame:
        """The frame ``layout_inputs(inputs, measure)`` gives, from memory where it can."""
        views = read_views(inputs.doc, inputs.between, inputs.status)
        state = views.state
        clocked = screen_name(state.phase, views.between) in CLOCKED
        shown = Views(shown_state(state, clock=not clocked), views.between, views.status)
        key = (shown, inputs.size, inputs.options)
        entry = self._entries.get(key)
        if entry is None or (entry.face is None and entry.clock_ms != state.clock_ms):
            self.stats.misses += 1
            entry = self._lay_out(shown, state, inputs.size, inputs.options, clocked)
            self._entries[key] = entry
            if len(self._entries) > self.size:
                self._entries.popitem(last=False)
            return entry.frame
        self.stats.hits += 1
        self._entries.move_to_end(key)
        if entry.face is None or entry.clock_ms == state.clock_ms:
            return entry.frame
        items = entry.frame.items
        clock: tuple[Item, ...] = tuple(entry.face.items(state.clock_ms))
        spliced = (items[:entry.clock_at] + clock
                   + items[entry.clock_at + entry.clock_count:])
        frame = entry.frame
        return Frame(frame.size, frame.background, spliced, frame.screen, frame.variant,
                     frame.notes)

    def _lay_out(self, shown: Views, state: StateView, size: tuple[int, int],
                 options: LayoutOptions, clocked: bool) -> _Entry:
        # Laid out with the real clock value: the frame is right whatever follows.
        views = shown
        if shown.state.clock_ms != state.clock_ms:
            views = Views(replace(shown.state, clock_ms=state.clock_ms), shown.between,
                          shown.status)
        frame = layout_views(views, size, measure=self.measure, options=options)
        if not clocked:
            return _Entry(frame, None, clock_ms=state.clock_ms)
        canvas = Canvas(*size, self.measure, options)
        face = clock_face(canvas, grid(canvas), views.state)
        expected = tuple(face.items(state.clock_ms))
        at = next((i for i, item in enumerate(frame.items) if item.role == "clock"), None)
        if at is not None and expected and frame.items[at].rect[1] != expected[0].rect[1]:
            # Taller names moved the clock down (display/screens/game.py, ``grid``).
            x, y, w, h = face.area
            moved = frame.items[at].rect[1] - expected[0].rect[1]
            face = replace(face, area=(x, y + moved, w, h))
            expected = tuple(face.items(state.clock_ms))
        if at is None or frame.items[at:at + len(expected)] != expected or any(
                item.role == "clock" for item in frame.items[at + len(expected):]):
            # Not the clock ``face`` lays out: this frame is for this clock value only.
            return _Entry(frame, None, clock_ms=state.clock_ms)
        return _Entry(frame, face, at, len(expected), state.clock_ms)

