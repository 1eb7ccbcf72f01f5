"""The text font and real text widths.

Text (names, labels) is set in FreeSansBold, the font that ships inside pygame-ce (its
default font; GNU FreeFont, Copyright 2002 Free Software Foundation, GPL, distributed with
pygame): a plain, heavy sans that reads well at a distance and needs no file of our own.
Digits of the clock and scores are not a font at all (``segments``).

It is drawn with ``pygame.freetype`` with kerning off: ``pygame.font`` (SDL_ttf) applies this
font's kerning table, which opens visible gaps inside words ("BEOGR A", "AV ATAR").
Widths are the ink's bounding box, exactly what is drawn.

A ``Text``'s ``px_height`` is a cap height; ``size_for_cap`` finds the smallest font size
whose capitals are at least that tall, so no text is ever smaller than the layout asked.
"""

from __future__ import annotations

import math
from functools import lru_cache

from . import segments
from ._pygame import freetype, pygame
from .items import Colour, FontName

CAP_PROBE = "H"


@lru_cache(maxsize=1)
def face() -> freetype.Font:
    if not freetype.get_init():
        freetype.init()
    font = freetype.Font(None)
    font.kerning = False
    font.pad = False  # the ink's box, so widths are what a spectator sees
    return font


@lru_cache(maxsize=512)
def cap_height(size: int) -> int:
    """The height of a capital H at font size ``size`` (hinting makes it not quite linear)."""
    return int(face().get_rect(CAP_PROBE, size=size).height)


@lru_cache(maxsize=512)
def size_for_cap(cap: int) -> int:
    size = max(2, math.floor(cap / 0.74))
    while cap_height(size) < cap:
        size += 1
    while size > 2 and cap_height(size - 1) >= cap:
        size -= 1
    return size


@lru_cache(maxsize=8192)
def measure(text: str, font_name: FontName, px_height: int) -> int:
    """Width in pixels of ``text`` as the renderer draws it (the layout's ``measure``)."""
    if font_name == "digits":
        return segments.text_width(text, px_height)
    if not text.strip():
        return 0
    return int(face().get_rect(text, size=size_for_cap(px_height)).width)


def render(text: str, cap: int, colour: Colour) -> tuple[pygame.Surface, int]:
    """``text`` at cap height ``cap``: the image (the ink, tightly) and how far its top lies
    above the baseline."""
    image, box = face().render(text, colour, size=size_for_cap(cap))
    return image, int(box.y)
