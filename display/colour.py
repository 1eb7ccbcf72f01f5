"""Colours: the palette, team colours from the state document, and WCAG contrast.

Pure. Contrast is the WCAG 2.x ratio of relative luminances
(https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio). Every text is at least 7:1 against what
is behind it (WCAG's AAA level): the hall is bright, the screen far away, and spectators'
eyes vary. Team colours are drawn as stripes; they become text colour only through
``readable_on``, which refuses anything under 7:1.

Everything else that is drawn (team stripes, marks, the line-change bar) is at least 3:1
against what is behind it (``MIN_GRAPHIC``: WCAG's figure for large text and for graphics,
success criteria 1.4.3 and 1.4.11). A team colour too dark for that (a navy shirt on the
near-black board) is not dropped but shown lighter (``visible_on``): the same hue, raised
towards white until it reaches 3:1.
"""

from __future__ import annotations

from functools import lru_cache

from .items import Colour

MIN_CONTRAST = 7.0
MIN_GRAPHIC = 3.0  # stripes, marks, bars: WCAG's large-text and non-text figure

BACKGROUND: Colour = (6, 8, 12)  # near-black: the best contrast, and a dark hall glare-free
PANEL: Colour = (20, 25, 35)  # the panels under the scores and tables
WHITE: Colour = (255, 255, 255)
BLACK: Colour = (0, 0, 0)
LABEL: Colour = (200, 208, 220)  # captions: a little quieter than the numbers
CLOCK: Colour = (255, 196, 32)  # amber, the colour of game time on LED boards
BREAK_CLOCK: Colour = (118, 214, 255)  # a break counts in a different colour from game time
ALERT: Colour = (255, 196, 32)  # strength, time-out, line change: amber like the clock
STOP_BOX: Colour = (160, 0, 0)  # "STOP TIME" is white on red
OPERATOR_BOX: Colour = (30, 37, 52)  # the timekeeper's line
ACCEPTED_BOX: Colour = (13, 59, 30)  # a press the rules took: white on dark green
FAULT_BOX: Colour = (160, 0, 0)  # "NOT RECORDING - STORAGE FAULT" is white on red
RESTORED_BOX: Colour = (255, 176, 0)  # "CLOCK RESTORED - CHECK" is black on amber
SCORED: Colour = (70, 225, 125)
MISSED: Colour = (255, 84, 84)
PENDING: Colour = (120, 130, 145)
TRACK: Colour = (45, 52, 66)  # the empty part of the line-change bar
LINK_DOWN: Colour = (150, 156, 168)  # the office-link mark: visible, never loud


class ColourError(ValueError):
    pass


def parse_hex(text: str) -> Colour:
    """``#rrggbb`` or ``#rgb`` (as the state document writes team colours)."""
    digits = text[1:] if text.startswith("#") else text
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    if len(digits) != 6:
        raise ColourError(f"not a colour (#rrggbb): {text!r}")
    try:
        value = int(digits, 16)
    except ValueError as err:
        raise ColourError(f"not a colour (#rrggbb): {text!r}") from err
    return ((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(colour: Colour) -> float:
    r, g, b = colour
    return 0.2126 * _linear(r) + 0.7152 * _linear(g) + 0.0722 * _linear(b)


def contrast(a: Colour, b: Colour) -> float:
    """The WCAG contrast ratio, 1.0 (same) to 21.0 (black on white)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    light, dark = max(la, lb), min(la, lb)
    return (light + 0.05) / (dark + 0.05)


def readable_on(colour: Colour, background: Colour, fallback: Colour = WHITE) -> Colour:
    """``colour`` if it reaches 7:1 on ``background``, else ``fallback``."""
    return colour if contrast(colour, background) >= MIN_CONTRAST else fallback


@lru_cache(maxsize=256)  # every layout asks it of the same few team colours
def visible_on(colour: Colour, background: Colour, minimum: float = MIN_GRAPHIC) -> Colour:
    """``colour`` if it reaches ``minimum`` against ``background``, else the least lightened
    mix of it with white (or, on a light background, darkened with black) that does."""
    if contrast(colour, background) >= minimum:
        return colour
    target = WHITE if relative_luminance(background) < 0.18 else BLACK
    lo, hi = 0, 255  # the mix in 255ths of the target: the smallest that reaches minimum
    while lo < hi:
        mid = (lo + hi) // 2
        if contrast(_mix(colour, target, mid), background) >= minimum:
            hi = mid
        else:
            lo = mid + 1
    return _mix(colour, target, lo)


def _mix(colour: Colour, target: Colour, share: int) -> Colour:
    """``share`` 255ths of the way from ``colour`` to ``target``, channel by channel."""
    r, g, b = (c + ((t - c) * share + 127) // 255 for c, t in zip(colour, target, strict=True))
    return (r, g, b)


def text_colour_on(background: Colour) -> Colour:
    """White or black, whichever contrasts more with ``background``."""
    return WHITE if contrast(WHITE, background) >= contrast(BLACK, background) else BLACK

