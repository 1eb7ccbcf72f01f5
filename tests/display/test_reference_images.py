"""Every screen in every layout looks like its reviewed reference image.

The references (tests/display/reference/, shown in docs/technician.md) were looked at by a person;
``python tests/display/regenerate_references.py`` rewrites them after a deliberate change.

Tolerance: the mean absolute difference is at most 1 level of 255 per channel, and at most
0.1 % of the pixels differ by more than 48 levels. Font rasterisation (FreeType's
antialiasing and hinting) may differ slightly between pygame-ce builds and machines, which
moves a few edge pixels of some glyphs by a little; a real change is far above that: one
clock segment lit or dark is 0.3 % of a 1024x768 screen, a 100 px square 0.5 %.
"""

from __future__ import annotations

import pytest

from display._pygame import pygame
from display.hall import DEFAULT
from display.layout import FrameInputs
from display.options import options_for_name
from display.render import render
from tests.display import states
from tests.display.imagediff import difference
from tests.display.regenerate_references import reference_path

MAX_MEAN = 1.0
MAX_STRONG_SHARE = 0.001


@pytest.mark.parametrize("size", states.SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(states.REFERENCE))
def test_the_screen_matches_its_reference_image(name: str, size: tuple[int, int]) -> None:
    doc, between, status = states.REFERENCE[name]
    options = options_for_name(doc["preset"], states.HALLS.get(name, DEFAULT))
    drawn = render(FrameInputs(doc, size, between, status, options))
    path = reference_path(name, size)
    assert path.exists(), f"{path} missing: run tests/display/regenerate_references.py"
    found = difference(drawn, pygame.image.load(str(path)))
    assert found.mean <= MAX_MEAN and found.strong_share <= MAX_STRONG_SHARE, (
        f"{path.name}: mean difference {found.mean:.2f}, {found.strong_share:.3%} of pixels "
        "changed: if deliberate, regenerate the references and review them")


@pytest.mark.parametrize(("name", "lang"), states.LANGUAGE_REFERENCE,
                         ids=str)
def test_the_screen_in_another_language_matches_its_reference_image(name: str,
                                                                    lang: str) -> None:
    doc, between, status = states.REFERENCE[name]
    size = states.LANGUAGE_SIZE
    options = options_for_name(doc["preset"], states.HALLS.get(name, DEFAULT), lang)
    drawn = render(FrameInputs(doc, size, between, status, options))
    path = reference_path(f"{name}-{lang}", size)
    assert path.exists(), f"{path} missing: run tests/display/regenerate_references.py"
    found = difference(drawn, pygame.image.load(str(path)))
    assert found.mean <= MAX_MEAN and found.strong_share <= MAX_STRONG_SHARE, (
        f"{path.name}: mean difference {found.mean:.2f}, {found.strong_share:.3%} of pixels "
        "changed: if deliberate, regenerate the references and review them")


def test_the_comparison_notices_a_wrong_digit() -> None:
    """A guard on the tolerance: the clock one tenth later is not the same picture."""
    doc, _between, _status = states.REFERENCE["game"]
    later = dict(doc, clock_ms=doc["clock_ms"] - 100)
    size = (1024, 768)
    found = difference(render(FrameInputs(doc, size)), render(FrameInputs(later, size)))
    assert found.strong_share > MAX_STRONG_SHARE
