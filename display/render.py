"""Rendering a ``Frame`` into pixels, redrawing only what changed.

``Renderer.draw(frame)`` compares the frame's items with the previous frame's (they are
frozen dataclasses: set arithmetic), repaints only the rectangles of items that appeared or
went away, and returns those rectangles for ``pygame.display.update(rects)``. A clock going
from 12:34 to 12:33 repaints one digit's cell. Within a dirty rectangle everything that
touches it is drawn again back to front, so overlapping panels and text stay right.

The layout comes from a ``LayoutCache`` (display/layoutcache.py): a frame where only the
clock moved lays out the clock alone and hands the other items back unchanged. Rendered
text and seven-segment glyphs are cached (keyed by text, size, colour, width), so a
frame costs blits, not font rasterisation. Digits are drawn four times larger and smoothed
down once: anti-aliased edges without a font file.

Works on any surface: the screen (kmsdrm, a desktop window) or an off-screen surface with
SDL's dummy driver (tests, ``scoreboard snapshot``).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, TypeVar

from . import colour, fit, fonts, segments
from ._pygame import pygame
from .items import PANEL, Bar, Box, Colour, Frame, Item, Qr, Rect, Text, intersects, union
from .layout import FrameInputs
from .layoutcache import LayoutCache

SUPERSAMPLE = 4
GHOST_ALPHA = 14  # unlit segments glow faintly, as on an LED board: the digit's shape stays
CACHE_SIZE = 1024
ALIGN_PX = 16  # repainted areas start on a column of this many pixels (``_aligned``)
V = TypeVar("V")


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0


class _Lru(Generic[V]):
    """A small least-recently-used cache of rendered images."""

    def __init__(self, size: int, stats: CacheStats) -> None:
        self._items: OrderedDict[tuple[object, ...], V] = OrderedDict()
        self._size = size
        self._stats = stats

    def get(self, key: tuple[object, ...]) -> V | None:
        found = self._items.get(key)
        if found is None:
            self._stats.misses += 1
            return None
        self._stats.hits += 1
        self._items.move_to_end(key)
        return found

    def put(self, key: tuple[object, ...], value: V) -> V:
        self._items[key] = value
        if len(self._items) > self._size:
            self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._items)


class Renderer:
    """Draws frames onto one surface, keeping what it needs to redraw only the changes."""

    def __init__(self, size: tuple[int, int], *, surface: pygame.Surface | None = None,
                 ghost: bool = True) -> None:
        self.size = size
        self.surface = surface if surface is not None else pygame.Surface(size)
        self.ghost = ghost
        self.stats = CacheStats()
        self._cache: _Lru[pygame.Surface] = _Lru(CACHE_SIZE, self.stats)
        # Text: the image and how far its ink rises above the baseline.
        self._texts: _Lru[tuple[pygame.Surface, int]] = _Lru(CACHE_SIZE, self.stats)
        self._previous: Frame | None = None
        self._panels: list[Rect] = []  # the frame being drawn: what may lie under content
        self._background: Colour = (0, 0, 0)
        self.layouts = LayoutCache(fonts.measure)
        self.last_dirty: list[Rect] = []

    # The layout's measure: the real font's widths.
    measure = staticmethod(fonts.measure)

    def render(self, inputs: FrameInputs) -> pygame.Surface:
        """Lay out ``inputs`` (from memory when only the clock moved) and draw the changes;
        the surface (also ``self.surface``)."""
        self.draw(self.layouts.layout(inputs))
        return self.surface

    def invalidate(self) -> None:
        """Forget the previous frame: the next ``draw`` repaints everything (e.g. after the
        window was exposed)."""
        self._previous = None

    def draw(self, frame: Frame) -> list[Rect]:
        """Draw ``frame``, repainting only what changed; the rectangles repainted."""
        previous = self._previous
        if (previous is None or previous.size != frame.size
                or previous.background != frame.background
                or self.surface.get_size() != frame.size):
            dirty: list[Rect] = [(0, 0, *frame.size)]
        else:
            dirty = merge([item.rect for item in changed_items(previous.items, frame.items)])
        ordered = sorted(frame.items, key=lambda item: item.layer)  # stable within a layer
        self._panels = [item.rect for item in ordered if item.layer == PANEL]
        self._background = frame.background
        # Repainted from a column a little to the left: the pixels between are drawn again
        # as they were (each area is redrawn whole, back to front), so only ``dirty`` changed.
        for area in merge([_aligned(rect) for rect in dirty]):
            self.surface.set_clip(area)
            self.surface.fill(frame.background, area)
            for item in ordered:
                if intersects(item.rect, area):
                    clip = _clip(area, item.rect)
                    self.surface.set_clip(clip)
                    self._draw(item)
            self.surface.set_clip(None)
        self._previous = frame
        self.last_dirty = dirty
        return dirty

    # ----------------------------------------------------------------- items

    def _draw(self, item: Item) -> None:
        if isinstance(item, Box):
            self.surface.fill(item.colour, item.rect)
            if item.outline is not None and item.outline_px > 0:
                pygame.draw.rect(self.surface, item.outline, item.rect, item.outline_px)
        elif isinstance(item, Text):
            if item.font == "digits":
                self._draw_digits(item)
            else:
                self._draw_text(item)
        elif isinstance(item, Bar):
            self.surface.fill(item.track, item.rect)
            filled = item.rect[2] * item.permille // 1000
            if filled > 0:
                self.surface.fill(item.colour, (item.rect[0], item.rect[1], filled, item.rect[3]))
        elif isinstance(item, Qr):
            self._draw_qr(item)
        else:
            self.surface.blit(self._mark(item.kind, item.rect[2], item.rect[3], item.colour),
                              item.rect[:2])

    def _draw_qr(self, item: Qr) -> None:
        self.surface.fill(colour.WHITE, item.rect)
        side = len(item.rows) * item.module
        x0 = item.rect[0] + (item.rect[2] - side) // 2
        y0 = item.rect[1] + (item.rect[3] - side) // 2
        for y, row in enumerate(item.rows):
            for x, dark in enumerate(row):
                if dark:
                    self.surface.fill(colour.BLACK, (x0 + x * item.module, y0 + y * item.module,
                                                  item.module, item.module))

    def _draw_text(self, item: Text) -> None:
        image, rise = self._text(item.text, item.px_height, item.colour, item.condense)
        x, y, w, h = item.rect
        if item.align == "left":
            left = x
        elif item.align == "right":
            left = x + w - image.get_width()
        else:
            left = x + (w - image.get_width()) // 2
        baseline = fit.cap_top(y, h, item.px_height, item.text) + fonts.cap_height(
            fonts.size_for_cap(item.px_height))
        self.surface.blit(image, (left, baseline - rise))

    def _text(self, text: str, cap: int, colour: Colour, condense: int
              ) -> tuple[pygame.Surface, int]:
        key = (text, cap, colour, condense)
        found = self._texts.get(key)
        if found is not None:
            return found
        image, rise = fonts.render(text, cap, colour)
        if condense != 100:
            width = fit.condensed(image.get_width(), condense)
            image = pygame.transform.smoothscale(image, (width, image.get_height()))
        return self._texts.put(key, (_for_screen(image), rise))

    def _draw_digits(self, item: Text) -> None:
        x, y = item.rect[0], item.rect[1]
        # On the bare background (no panel under it: content never overlaps content), a
        # digit is copied already blended onto the background: the same pixels as blending
        # it here, for a fraction of the memory traffic (a clock digit is ~240 kB).
        bare = not any(intersects(item.rect, panel) for panel in self._panels)
        for char, (dx, _w) in zip(item.text, segments.cells(item.text, item.px_height),
                                  strict=True):
            glyph = self._glyph(char, item.px_height, item.colour)
            if bare:
                glyph = self._on_background(glyph, ("glyph", char, item.px_height, item.colour,
                                                     self.ghost))
            self.surface.blit(glyph, (x + dx, y))

    def _on_background(self, image: pygame.Surface, key: tuple[object, ...]
                       ) -> pygame.Surface:
        """``image`` blended onto the background, opaque, in the surface's own format, by
        the same blit that would blend it onto the surface."""
        key = ("opaque", *key, self._background)
        found = self._cache.get(key)
        if found is not None:
            return found
        opaque = pygame.Surface(image.get_size(), 0, self.surface)
        opaque.fill(self._background)
        opaque.blit(image, (0, 0))
        return self._cache.put(key, opaque)

    def _glyph(self, char: str, height: int, colour: Colour) -> pygame.Surface:
        key = ("glyph", char, height, colour, self.ghost)
        found = self._cache.get(key)
        if found is not None:
            return found
        width = segments.advance(char, height)
        big = pygame.Surface((width * SUPERSAMPLE, height * SUPERSAMPLE), pygame.SRCALPHA)
        if char in ":.":
            for x, y, w, h in segments.dots(char, height):
                pygame.draw.rect(big, colour, _scaled_rect(x, y, w, h))
        else:
            on = segments.lit(char)
            for name, polygon in segments.segment_polygons(height).items():
                if name in on:
                    paint: tuple[int, ...] = colour
                elif self.ghost and char != " ":
                    paint = (*colour, GHOST_ALPHA)
                else:
                    continue
                pygame.draw.polygon(big, paint, [(px * SUPERSAMPLE, py * SUPERSAMPLE)
                                                 for px, py in polygon])
        image = pygame.transform.smoothscale(big, (width, height))
        return self._cache.put(key, _for_screen(image))

    def _mark(self, kind: str, w: int, h: int, colour: Colour) -> pygame.Surface:
        key = ("mark", kind, w, h, colour)
        found = self._cache.get(key)
        if found is not None:
            return found
        s = SUPERSAMPLE
        big = pygame.Surface((w * s, h * s), pygame.SRCALPHA)
        cx, cy, r = w * s / 2, h * s / 2, min(w, h) * s / 2
        if kind == "scored":
            pygame.draw.circle(big, colour, (cx, cy), r)
        elif kind in ("pending", "next"):
            ring = max(s, round(r * (0.16 if kind == "pending" else 0.28)))
            pygame.draw.circle(big, colour, (cx, cy), r, ring)
        elif kind == "missed":
            t = r * 0.24
            for sign in (1, -1):
                pygame.draw.polygon(big, colour, _bar((cx - r * 0.78, cy - sign * r * 0.78),
                                                      (cx + r * 0.78, cy + sign * r * 0.78), t))
        elif kind in ("arrow_left", "arrow_right"):
            tip, back = (0.0, w * s) if kind == "arrow_left" else (w * s, 0.0)
            pygame.draw.polygon(big, colour,
                                [(tip, cy), (back, cy - r * 0.9), (back, cy + r * 0.9)])
        else:  # link_down: a ring, crossed out
            ring = max(s, round(r * 0.16))
            pygame.draw.circle(big, colour, (cx, cy), r, ring)
            pygame.draw.polygon(big, colour, _bar((cx - r * 0.7, cy + r * 0.7),
                                                  (cx + r * 0.7, cy - r * 0.7), ring / 2))
        image = pygame.transform.smoothscale(big, (w, h))
        return self._cache.put(key, _for_screen(image))


def render(inputs: FrameInputs) -> pygame.Surface:
    """One frame from scratch, on a new surface (snapshots, tests)."""
    return Renderer(inputs.size).render(inputs)


def changed_items(before: tuple[Item, ...], after: tuple[Item, ...]) -> set[Item]:
    """The items in one frame and not the other. A remembered layout hands the same item
    objects again: those are set aside by identity first (hashing ~40 frozen items a frame
    costs more than the clock's redraw); the rest compared by value."""
    kept = {id(item) for item in before}.intersection(id(item) for item in after)
    return ({item for item in before if id(item) not in kept}
            ^ {item for item in after if id(item) not in kept})


def merge(rects: list[Rect]) -> list[Rect]:
    """Overlapping rectangles joined, so no pixel is painted twice in a frame."""
    out: list[Rect] = []
    for rect in rects:
        if rect[2] <= 0 or rect[3] <= 0:
            continue
        joined = rect
        while True:
            hit = next((i for i, other in enumerate(out) if intersects(joined, other)), None)
            if hit is None:
                break
            joined = union(joined, out.pop(hit))
        out.append(joined)
    return out


def _aligned(rect: Rect) -> Rect:
    """``rect`` widened to the left to a column of ``ALIGN_PX``. SDL fills a rectangle row by
    row with streaming 64-byte stores after the first 16-byte boundary; a row whose stores
    start off a 64-byte line costs ~25 times more (115 against 5 us for one clock digit at
    1920x1080 on x86, bench/render.py). 16 pixels of 4 bytes are one line."""
    x = rect[0] - rect[0] % ALIGN_PX
    return (x, rect[1], rect[2] + rect[0] - x, rect[3])


def _clip(a: Rect, b: Rect) -> Rect:
    x, y = max(a[0], b[0]), max(a[1], b[1])
    right, bottom = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    return (x, y, max(0, right - x), max(0, bottom - y))


def _scaled_rect(x: float, y: float, w: float, h: float) -> tuple[int, int, int, int]:
    s = SUPERSAMPLE
    return (round(x * s), round(y * s), round(w * s), round(h * s))


def _bar(a: tuple[float, float], b: tuple[float, float], half: float
         ) -> list[tuple[float, float]]:
    """A thick line from ``a`` to ``b`` as a polygon (``draw.line`` has square, thin ends)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length * half, dx / length * half
    return [(a[0] + nx, a[1] + ny), (b[0] + nx, b[1] + ny), (b[0] - nx, b[1] - ny),
            (a[0] - nx, a[1] - ny)]


def _for_screen(image: pygame.Surface) -> pygame.Surface:
    """In the display's pixel format when there is a display (blits are then plain copies)."""
    if pygame.display.get_init() and pygame.display.get_surface() is not None:
        return image.convert_alpha()
    return image
