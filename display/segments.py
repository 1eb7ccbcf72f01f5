"""Seven-segment digits as polygons: the clock and the scores.

Pure geometry. The renderer fills these polygons; no font file is involved, so there is no
font licence to carry, and the digits stay crisp at any size and read from across a hall.

The layout is the standard seven-segment display: segments ``a`` (top), ``b`` (top right),
``c`` (bottom right), ``d`` (bottom), ``e`` (bottom left), ``f`` (top left) and ``g``
(middle), each a bevelled bar (a hexagon) so neighbouring segments meet at mitred corners.
Segment names and the digit encodings follow Wikipedia, "Seven-segment display" and
"Seven-segment display character representations"
(https://en.wikipedia.org/wiki/Seven-segment_display): 6 with its top bar and 9 with its
bottom bar (so neither can be read as b or q), 7 without ``f``. Proportions (width 0.54 of the
height, bars 0.13 thick) are ours, chosen by eye to match LED scoreboards.
"""

from __future__ import annotations

from functools import lru_cache

Point = tuple[float, float]
Polygon = tuple[Point, ...]

# Fractions of the digit height.
WIDTH = 0.54  # a digit cell
THICK = 0.13  # a segment bar
GAP = 0.014  # the dark seam between two segments
SPACING = 0.15  # between two characters
NARROW = 0.26  # the cell of ':' and '.'

SEGMENTS: dict[str, str] = {
    "0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg",
    "5": "acdfg", "6": "acdefg", "7": "abc", "8": "abcdefg", "9": "abcdfg",
    "-": "g", " ": "",
}


def _horizontal(x0: float, x1: float, y: float, t: float) -> Polygon:
    h = t / 2
    return ((x0, y), (x0 + h, y - h), (x1 - h, y - h), (x1, y), (x1 - h, y + h), (x0 + h, y + h))


def _vertical(x: float, y0: float, y1: float, t: float) -> Polygon:
    h = t / 2
    return ((x, y0), (x + h, y0 + h), (x + h, y1 - h), (x, y1), (x - h, y1 - h), (x - h, y0 + h))


@lru_cache(maxsize=64)
def segment_polygons(height: int) -> dict[str, Polygon]:
    """The seven segments of a digit ``height`` pixels tall, in its cell's coordinates."""
    w, t, g = digit_width(height), THICK * height, GAP * height
    h = float(height)
    left, right = t / 2, w - t / 2
    top, middle, bottom = t / 2, h / 2, h - t / 2
    return {
        "a": _horizontal(left + g, right - g, top, t),
        "b": _vertical(right, top + g, middle - g, t),
        "c": _vertical(right, middle + g, bottom - g, t),
        "d": _horizontal(left + g, right - g, bottom, t),
        "e": _vertical(left, middle + g, bottom - g, t),
        "f": _vertical(left, top + g, middle - g, t),
        "g": _horizontal(left + g, right - g, middle, t),
    }


def dots(char: str, height: int) -> tuple[tuple[float, float, float, float], ...]:
    """The squares of ``:`` or ``.`` as (x, y, w, h) in the character's cell."""
    t = THICK * height
    x = (advance(char, height) - t) / 2
    if char == ":":
        return ((x, height * 0.30 - t / 2, t, t), (x, height * 0.70 - t / 2, t, t))
    if char == ".":
        return ((x, height - t, t, t),)
    return ()


def digit_width(height: int) -> int:
    return round(WIDTH * height)


def advance(char: str, height: int) -> int:
    """The width of a character's cell (digits all alike, so the clock never jitters)."""
    return round(NARROW * height) if char in ":." else digit_width(height)


def spacing(height: int) -> int:
    return round(SPACING * height)


def cells(text: str, height: int) -> list[tuple[int, int]]:
    """(x offset, width) of each character of ``text`` set at ``height``."""
    out: list[tuple[int, int]] = []
    x = 0
    for char in text:
        width = advance(char, height)
        out.append((x, width))
        x += width + spacing(height)
    return out


def text_width(text: str, height: int) -> int:
    if not text:
        return 0
    x, width = cells(text, height)[-1]
    return x + width


def lit(char: str) -> str:
    """The segments lit for ``char`` (unknown characters light nothing)."""
    return SEGMENTS.get(char, "")
