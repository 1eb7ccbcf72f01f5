"""What the layout hands the renderer: frozen draw items in screen pixels, and the frame.

Pure (standard library only). Every item is hashable, so the renderer finds what changed
between two frames with set arithmetic and redraws only those rectangles.

Coordinates: ``Rect`` is ``(x, y, width, height)`` in whole pixels, origin top left.
Layers say what may lie on top of what: a ``Box`` on ``PANEL`` is a background under content;
everything else (text, bars, marks, team-colour stripes, QR codes) is ``CONTENT`` and never overlaps
other content. The legibility tests check exactly that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Rect = tuple[int, int, int, int]
Colour = tuple[int, int, int]
Align = Literal["left", "center", "right"]
FontName = Literal["digits", "sans"]
MarkKind = Literal[
    "scored",  # shootout: a goal (filled disc)
    "missed",  # shootout: no goal (a cross)
    "pending",  # shootout: a shot still to come (a thin ring)
    "next",  # shootout: the shot that comes next (a thick ring)
    "arrow_left",  # points at the home side (time-out, next shooter)
    "arrow_right",  # points at the away side
    "link_down",  # the office link is down: a small crossed-out ring
]

PANEL = 0
CONTENT = 1


@dataclass(frozen=True, slots=True)
class Box:
    """A filled rectangle: a panel under content (``PANEL``) or a stripe (``CONTENT``)."""

    rect: Rect
    colour: Colour
    layer: int = PANEL
    role: str = ""
    outline: Colour | None = None  # a border inside the rectangle: a team's second colour
    outline_px: int = 0


@dataclass(frozen=True, slots=True)
class Text:
    """One line of text inside ``rect``.

    ``px_height`` is the height of a capital letter or digit as drawn (cap height), not a
    font size: "no text smaller than 4 % of the screen" is about what a spectator sees.
    ``condense`` (percent) narrows long names horizontally before they are truncated.
    """

    rect: Rect
    text: str
    px_height: int
    colour: Colour
    align: Align = "center"
    font: FontName = "sans"
    condense: int = 100
    layer: int = CONTENT
    role: str = ""


@dataclass(frozen=True, slots=True)
class Bar:
    """A horizontal gauge: ``permille`` (0..1000) of the track filled from the left."""

    rect: Rect
    permille: int
    colour: Colour
    track: Colour
    layer: int = CONTENT
    role: str = ""


@dataclass(frozen=True, slots=True)
class Mark:
    """A small symbol drawn from shapes (no font): shootout marks, arrows, the link mark."""

    rect: Rect
    kind: MarkKind
    colour: Colour
    layer: int = CONTENT
    role: str = ""


@dataclass(frozen=True, slots=True)
class Qr:
    """A QR code (display/qr.py): ``rows[y][x]`` dark modules of ``module`` pixels, drawn
    black on a white square that is ``rect`` (the code centred in it, the quiet zone
    around): readers need dark on light, and the board is dark."""

    rect: Rect
    rows: tuple[tuple[bool, ...], ...]
    module: int
    layer: int = CONTENT
    role: str = ""


Item = Box | Text | Bar | Mark | Qr


@dataclass(frozen=True, slots=True)
class Frame:
    """Everything one frame shows, back to front: the renderer draws ``items`` in layer order
    (stable within a layer)."""

    size: tuple[int, int]
    background: Colour
    items: tuple[Item, ...]
    screen: str = ""  # which screen this is ("game", "break", ...): for tests and logs
    variant: str = ""  # "far": fewer things, bigger, for a hall the standard one is short of
    # What the farthest seat is not given and why (``scoreboard snapshot --legibility``).
    notes: tuple[str, ...] = ()

    def with_role(self, role: str) -> list[Item]:
        return [item for item in self.items if item.role == role]

    def texts(self) -> list[Text]:
        return [item for item in self.items if isinstance(item, Text)]


def intersects(a: Rect, b: Rect) -> bool:
    """True if the two rectangles share at least one pixel."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def contains(outer: Rect, inner: Rect) -> bool:
    return (outer[0] <= inner[0] and outer[1] <= inner[1]
            and inner[0] + inner[2] <= outer[0] + outer[2]
            and inner[1] + inner[3] <= outer[1] + outer[3])


def union(a: Rect, b: Rect) -> Rect:
    x, y = min(a[0], b[0]), min(a[1], b[1])
    right, bottom = max(a[0] + a[2], b[0] + b[2]), max(a[1] + a[3], b[1] + b[3])
    return (x, y, right - x, bottom - y)
