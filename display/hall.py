"""The hall the screen hangs in: how tall its picture is and how far the back row sits.

Pure. A letter can be read from about 250 times its height (the rule of thumb signage and
scoreboard makers use: 40 m needs 16 cm letters), so the layout sizes the clock, the
scores, the period and the running penalties' times to at least ``farthest_m / 250`` where
the screen allows, and ``readable_from_m`` tells, for any text, from how far it reads.

Two profiles ship: ``TV55`` (a 55-inch 16:9 television, 68.5 cm of picture, the back row at
25 m: a school gym or a small rink) and ``PROJECTOR`` (a 2 m tall projected picture seen from
40 m: a big hall). ``[display] screen_height_cm`` and ``farthest_seat_m`` describe any
other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

READING_RATIO = 250  # distance / letter height at which a letter is still read


@dataclass(frozen=True, slots=True)
class HallGeometry:
    visible_height_cm: float  # the picture's height on the wall or the TV
    farthest_m: float  # the seat farthest from the screen

    def __post_init__(self) -> None:
        if not 1 <= self.visible_height_cm <= 5000:
            raise ValueError(f"screen height {self.visible_height_cm:g} cm: expected 1 to "
                             "5000 cm")
        if not 0.5 <= self.farthest_m <= 500:
            raise ValueError(f"farthest seat {self.farthest_m:g} m: expected 0.5 to 500 m")

    def cm(self, px: int, screen_px: int) -> float:
        """The height in cm of ``px`` pixels on a picture ``screen_px`` pixels tall."""
        return px * self.visible_height_cm / screen_px

    def readable_from_m(self, px: int, screen_px: int) -> float:
        """How far a letter ``px`` pixels tall can be read from, in metres."""
        return self.cm(px, screen_px) * READING_RATIO / 100

    def legible_px(self, screen_px: int) -> int:
        """The smallest letter height (pixels) the farthest seat reads."""
        needed_cm = self.farthest_m * 100 / READING_RATIO
        return math.ceil(needed_cm * screen_px / self.visible_height_cm - 1e-9)


TV55 = HallGeometry(visible_height_cm=68.5, farthest_m=25.0)
PROJECTOR = HallGeometry(visible_height_cm=200.0, farthest_m=40.0)
PROFILES = {"tv55": TV55, "projector": PROJECTOR}
DEFAULT = TV55


def parse_hall(text: str) -> HallGeometry:
    """``tv55``, ``projector`` or ``HEIGHT_CM@DISTANCE_M`` (``68.5@25``)."""
    if text.lower() in PROFILES:
        return PROFILES[text.lower()]
    height, sep, distance = text.partition("@")
    try:
        if not sep:
            raise ValueError
        return HallGeometry(float(height), float(distance))
    except ValueError as err:
        detail = f": {err}" if str(err) else ""
        raise ValueError(f"hall {text!r}: expected tv55, projector or HEIGHT_CM@DISTANCE_M "
                         f"(e.g. 68.5@25){detail}") from None
