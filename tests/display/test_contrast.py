"""Default colours against the board: every preset, every screen.

Text is held to 7:1 by the legibility checks (tests/display/checks.py). Here everything else
a spectator must see, the team stripes, the marks and the line-change bar, is held to
3:1 against what is behind it (WCAG 2.x: 3:1 is the figure for large text, success criterion
1.4.3, and for graphics, 1.4.11), with the teams' default colours, the ones a hall shows
when nobody set any. Home plays dark and away light (rules 000, "home-team plays in
dark-colored forms"), so the default home colour is a dark blue that still shows on the
near-black board.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from arena import presets
from arena.core.values import MatchSetup
from display import colour as pal
from display import fonts
from display.colour import MIN_GRAPHIC, contrast, parse_hex, visible_on
from display.document import DEFAULT_COLOURS
from display.hall import HallGeometry
from display.items import CONTENT, Bar, Box, Frame, Mark
from display.layout import layout
from display.options import options_for_name
from tests.display import states
from tests.display.checks import backdrop, problems

SIZES = [(1920, 1080), (1024, 768)]
HALLS = [HallGeometry(68.5, 25), HallGeometry(68.5, 40)]


def default_teams(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with its teams' colours taken out: the document's defaults apply."""
    out = copy.deepcopy(doc)
    for side in ("home", "away"):
        out["teams"][side].pop("colours", None)
    return out


def low_contrast(frame: Frame) -> list[str]:
    """Every drawn thing other than text (and the panels text sits on) under 3:1."""
    found = []
    for item in frame.items:
        behind = backdrop(frame, item)
        colours: list[tuple[str, pal.Colour]] = []
        if isinstance(item, Box) and item.layer == CONTENT:
            colours.append(("fill", item.colour))
            if item.outline is not None and item.outline_px:
                colours.append(("edge", item.outline))
        elif isinstance(item, Mark):
            colours.append(("mark", item.colour))
        elif isinstance(item, Bar):
            colours.append(("bar", item.colour))
            if contrast(item.colour, item.track) < MIN_GRAPHIC:
                found.append(f"bar on its track {contrast(item.colour, item.track):.2f}:1")
        found += [f"{item.role} {what} {colour} {contrast(colour, behind):.2f}:1"
                  for what, colour in colours if contrast(colour, behind) < MIN_GRAPHIC]
    return found


SCREENS = states.REFERENCE


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("preset", presets.names())
def test_default_colours_reach_3_to_1_on_every_screen_of_every_preset(
        preset: str, size: tuple[int, int]) -> None:
    for name, (doc, given, status) in SCREENS.items():
        named = default_teams(dict(doc, preset=preset))
        between = copy.deepcopy(given)
        if between is not None and "next" in between:
            for side in ("home", "away"):
                between["next"][side].pop("colours", None)
        for hall in HALLS:
            frame = layout(named, size, between=between, status=status, measure=fonts.measure,
                           options=options_for_name(preset, hall))
            assert low_contrast(frame) == [], (preset, name, hall)
            assert problems(frame) == [], (preset, name, hall)  # text: 7:1, as always
            # the defaults are drawn as they are, not lightened
            for band in frame.with_role("stripe.home"):
                assert isinstance(band, Box)
                assert band.colour == DEFAULT_COLOURS["home"][0], (preset, name)


def test_the_default_colours_are_the_cores_and_reach_3_to_1_unchanged() -> None:
    """The display's defaults (a document without colours) are the match's defaults, and
    every one of them shows on the board as it is, without the lighter fallback."""
    setup = MatchSetup()
    for side, info in (("home", setup.home), ("away", setup.away)):
        assert tuple(parse_hex(c) for c in info.colours) == DEFAULT_COLOURS[side]
        for colour in DEFAULT_COLOURS[side]:
            assert contrast(colour, pal.BACKGROUND) >= MIN_GRAPHIC, (side, colour)
            assert visible_on(colour, pal.BACKGROUND) == colour
    # Rules 000: the home team plays in the dark shirt, the away team in the light one.
    assert pal.relative_luminance(DEFAULT_COLOURS["home"][0]) \
        < pal.relative_luminance(DEFAULT_COLOURS["away"][0])


@pytest.mark.parametrize("colours", [["#10233f", "#000000"], ["#000000", "#050505"],
                                     ["#3b0000", "#001a00"]])
def test_a_team_colour_too_dark_for_the_board_is_drawn_lighter(colours: list[str]) -> None:
    """A team's own colours too dark to see on the board (a navy shirt with a black trim)
    still show: raised towards white just to 3:1, so the hue stays the team's."""
    doc = copy.deepcopy(states.GAME)
    doc["teams"]["home"]["colours"] = colours
    for size in SIZES:
        frame = layout(doc, size, measure=fonts.measure)
        assert low_contrast(frame) == []
        (band,) = frame.with_role("stripe.home")
        assert isinstance(band, Box)
        shirt = parse_hex(colours[0])
        assert band.colour != shirt
        assert contrast(band.colour, pal.BACKGROUND) == pytest.approx(MIN_GRAPHIC, abs=0.15)
        # lighter, never another colour: every channel moved towards white
        assert all(new >= old for new, old in zip(band.colour, shirt, strict=True))


def test_visible_on_leaves_a_colour_that_reaches_3_to_1_alone() -> None:
    red, navy = parse_hex("#c8102e"), parse_hex("#10233f")
    assert contrast(red, pal.BACKGROUND) >= MIN_GRAPHIC
    assert visible_on(red, pal.BACKGROUND) == red
    lighter = visible_on(navy, pal.BACKGROUND)
    assert contrast(navy, pal.BACKGROUND) < MIN_GRAPHIC <= contrast(lighter, pal.BACKGROUND)
    # on a light background a too-light colour is darkened instead
    pale = parse_hex("#f8f8f0")
    darker = visible_on(pale, pal.WHITE)
    assert contrast(darker, pal.WHITE) >= MIN_GRAPHIC
    assert sum(darker) < sum(pale)
