"""Fitting text into a rectangle: shrink, then condense, then truncate with an ellipsis.

Pure. Widths come from an injected ``measure(text, font, px_height) -> width in pixels``; the
renderer passes one backed by the real font, so a fitted text is exactly as wide as drawn.
``approx_measure`` is a pure, deliberately generous stand-in (FreeSansBold's advance widths
plus a pixel a character for hinting) for callers without pygame.

Vertical extent: a text line of cap height ``c`` needs room above the capitals for accents
(Č, Ž, Ö reach 1.29 c above the baseline in FreeSansBold) and below it (Q, Ç, Ą, commas):
``line_height`` gives the rectangle a line needs; the renderer centres the font's ascent and
descent in it.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from . import segments
from .items import FontName

Measure = Callable[[str, FontName, int], int]

ELLIPSIS = "\u2026"
ABOVE = 0.32  # room above the cap height, in cap heights (Å, Ů, Ž, É: up to 0.31)
BELOW = 0.34  # room below the baseline (Ą, Ę, Ç, Ş: up to 0.32; brackets, commas)
PLAIN_ABOVE = 0.06  # capitals, digits and most signs: round letters overshoot, $ 0.05
PLAIN_BELOW = 0.10  # Q's tail 0.075
_TALL_ASCII = frozenset("(),;[]{}|_@$`")  # reach below the baseline or above the capitals
_PLAIN_SIGNS = frozenset("\u00b7\u2026\u2013\u2014\u2022\u00d7\u00b0")  # · … – — • × °
# Combining marks drawn under a letter (cedilla, ogonek, comma and dots below, ...).
_MARKS_BELOW = frozenset(range(0x0316, 0x0334)) - {0x031A, 0x031B}
MIN_CONDENSE = 82  # percent: a name may be narrowed to this width before it is truncated

# FreeSansBold advance widths of ASCII 32..126 in hundredths of the cap height, measured
# with pygame-ce's bundled font at cap height 201 px (tests/display checks they still hold).
_ADVANCE = (
    "38,46,65,76,76,121,99,33,46,46,53,80,38,46,38,38,76,76,76,76,76,76,76,76,76,76,45,45,80,"
    "80,80,84,133,99,100,99,99,92,84,106,99,38,76,99,84,114,99,106,91,106,99,92,84,99,91,129,"
    "91,91,84,45,42,46,80,82,46,76,84,76,84,76,46,83,84,38,38,76,38,121,84,84,84,84,53,76,46,"
    "84,76,106,76,76,69,53,38,53,80"
)
_ADVANCES = {chr(32 + i): int(v) for i, v in enumerate(_ADVANCE.split(","))}
_WIDEST = 137  # any other character (the ellipsis is 137): assume the widest


@lru_cache(maxsize=4096)  # the game screen asks it of the same long row text many times
def extents(text: str | None) -> tuple[float, float]:
    """How far ``text`` reaches above its capitals and below its baseline, in cap heights.

    Capitals, digits and plain signs need little room; accented capitals (Ž, Å) need room
    above, letters with a mark below (Ç, Ą) and brackets room below. ``None`` means any
    text: the most room. Lower case is given the most room both ways.
    """
    if text is None:
        return ABOVE, BELOW
    above, below = PLAIN_ABOVE, PLAIN_BELOW
    for char in text:
        if char.isascii() or char in _PLAIN_SIGNS:
            if char in _TALL_ASCII or char.islower():
                return ABOVE, BELOW
            continue
        above = ABOVE
        parts = unicodedata.decomposition(char).split()
        if not parts or any(int(p, 16) in _MARKS_BELOW for p in parts if not p.startswith("<")):
            below = BELOW  # a mark below, or a letter we cannot take apart (Ø, Ł): be safe
    return above, below


def line_height(px_height: int, text: str | None = None) -> int:
    """The height of the rectangle a line of cap height ``px_height`` needs (for ``text``,
    or for any text)."""
    above, below = extents(text)
    return px_height + math.ceil(above * px_height) + math.ceil(below * px_height)


def cap_top(rect_y: int, rect_h: int, px_height: int, text: str | None = None) -> int:
    """Where the capitals start in a text rectangle (the renderer and the layout agree)."""
    return (rect_y + (rect_h - line_height(px_height, text)) // 2
            + math.ceil(extents(text)[0] * px_height))


def approx_measure(text: str, font: FontName, px_height: int) -> int:
    """A pure estimate, never narrower than the real font (within hinting)."""
    if font == "digits":
        return segments.text_width(text, px_height)
    total = sum(_ADVANCES.get(char, _WIDEST) for char in text)
    return math.ceil(total * px_height / 100) + len(text)


@dataclass(frozen=True, slots=True)
class Fitted:
    text: str
    px_height: int
    condense: int = 100  # percent of the natural width
    width: int = 0  # as drawn


def condensed(width: int, condense: int) -> int:
    return math.ceil(width * condense / 100)


def fit_text(text: str, max_width: int, px_height: int, measure: Measure, *,
             min_px: int, font: FontName = "sans", min_condense: int = MIN_CONDENSE) -> Fitted:
    """The largest rendering of ``text`` no wider than ``max_width``.

    First the text shrinks (down to ``min_px``, the smallest legible cap height), then it is
    narrowed (down to ``min_condense`` percent), and only then cut with an ellipsis.
    """
    px = max(px_height, min_px)
    width = measure(text, font, px)
    if width <= max_width:
        return Fitted(text, px, 100, width)
    # Widths grow about linearly with the size: jump close, then step down to be exact.
    px = max(min_px, min(px - 1, math.floor(px * max_width / max(width, 1))))
    width = measure(text, font, px)
    while width > max_width and px > min_px:
        px -= 1
        width = measure(text, font, px)
    if width <= max_width:
        return Fitted(text, px, 100, width)
    condense = math.floor(100 * max_width / width)
    if condense >= min_condense and font == "sans":
        while condense > min_condense and condensed(width, condense) > max_width:
            condense -= 1
        return Fitted(text, px, condense, condensed(width, condense))
    condense = min_condense if font == "sans" else 100
    return _truncate(text, max_width, px, measure, condense=condense, font=font)


def _truncate(text: str, max_width: int, px: int, measure: Measure, *, condense: int,
              font: FontName) -> Fitted:
    """The longest prefix (plus an ellipsis) that fits: binary search on its length."""

    def shown(n: int) -> str:
        return text[:n].rstrip() + ELLIPSIS

    lo, hi = 0, len(text) - 1  # shown(lo) is assumed to fit; find the largest that does
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if condensed(measure(shown(mid), font, px), condense) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    candidate = shown(lo)
    width = condensed(measure(candidate, font, px), condense)
    if width > max_width:
        return Fitted("", px, condense, 0)  # not even the ellipsis fits: show nothing
    return Fitted(candidate, px, condense, width)
