"""The legibility rules, checked on a laid-out frame (pure: no pixels needed)."""

from __future__ import annotations

import math

from display import fonts
from display.colour import MIN_CONTRAST, contrast
from display.fit import ELLIPSIS, condensed
from display.items import PANEL, Box, Colour, Frame, Item, Text, contains, intersects

MIN_TEXT = 0.04
MIN_CLOCK = 0.30


def backdrop(frame: Frame, item: Item) -> Colour:
    """The colour behind ``item``: the topmost panel under it, else the background. A panel
    that covers only part of it is an error (the text would sit on two colours)."""
    behind = frame.background
    for other in frame.items:
        if other is item or not isinstance(other, Box) or other.layer >= item.layer:
            continue
        if contains(other.rect, item.rect):
            behind = other.colour
        else:
            assert not intersects(other.rect, item.rect), (other, item)
    return behind


def problems(frame: Frame) -> list[str]:
    """Everything wrong with ``frame``; empty if it follows every rule."""
    width, height = frame.size
    found: list[str] = []
    screen = (0, 0, width, height)
    for item in frame.items:
        if not contains(screen, item.rect) or item.rect[2] <= 0 or item.rect[3] <= 0:
            found.append(f"outside the screen or empty: {item}")
    for text in frame.texts():
        if text.px_height < math.ceil(MIN_TEXT * height):
            found.append(f"smaller than 4 %: {text}")
        try:
            ratio = contrast(text.colour, backdrop(frame, text))
        except AssertionError as err:
            found.append(f"on two backgrounds: {err}")
            continue
        if ratio < MIN_CONTRAST:
            found.append(f"contrast {ratio:.1f}:1: {text}")
        drawn = condensed(fonts.measure(text.text, text.font, text.px_height), text.condense)
        if drawn > text.rect[2]:
            found.append(f"{drawn} px wide in {text.rect[2]}: {text}")
    items = frame.items
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if not intersects(a.rect, b.rect):
                continue
            under, over = (a, b) if a.layer <= b.layer else (b, a)
            if not (isinstance(under, Box) and under.layer == PANEL and under.layer < over.layer
                    and contains(under.rect, over.rect)):
                found.append(f"overlap: {a} / {b}")
    return found


def shown_name(frame: Frame, side: str) -> str:
    (item,) = [t for t in frame.texts() if t.role == f"name.{side}"]
    return item.text


def is_name_or_cut(shown: str, name: str) -> bool:
    full = name.upper()
    return shown == full or (shown.endswith(ELLIPSIS) and full.startswith(shown[:-1].rstrip()))


def clock(frame: Frame) -> list[Text]:
    return [t for t in frame.texts() if t.role == "clock"]
