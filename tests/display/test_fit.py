"""Long names shrink, then narrow, then are cut with an ellipsis; widths are the font's."""

from __future__ import annotations

import math

import pytest

from display import fonts, segments
from display.fit import ABOVE, BELOW, ELLIPSIS, approx_measure, condensed, fit_text, line_height


def test_a_text_that_fits_is_left_alone() -> None:
    fitted = fit_text("LIONS", 1000, 60, fonts.measure, min_px=40)
    assert (fitted.text, fitted.px_height, fitted.condense) == ("LIONS", 60, 100)
    assert fitted.width == fonts.measure("LIONS", "sans", 60)


def test_a_long_text_shrinks_first() -> None:
    name = "CRVENA ZVEZDA BEOGRA"
    width = fonts.measure(name, "sans", 50)
    fitted = fit_text(name, width - 40, 60, fonts.measure, min_px=30)
    assert fitted.text == name and fitted.condense == 100
    assert 30 <= fitted.px_height < 50
    assert fonts.measure(name, "sans", fitted.px_height) <= width - 40


def test_at_the_smallest_size_it_narrows_then_is_cut_with_an_ellipsis() -> None:
    name = "CRVENA ZVEZDA BEOGRA"
    at_min = fonts.measure(name, "sans", 40)
    narrowed = fit_text(name, at_min * 9 // 10, 60, fonts.measure, min_px=40)
    assert narrowed.text == name and narrowed.px_height == 40 and narrowed.condense < 100
    assert condensed(at_min, narrowed.condense) <= at_min * 9 // 10
    cut = fit_text(name, at_min // 2, 60, fonts.measure, min_px=40)
    assert cut.text.endswith(ELLIPSIS) and name.startswith(cut.text[:-1].rstrip())
    assert cut.width <= at_min // 2
    assert condensed(fonts.measure(cut.text, "sans", 40), cut.condense) == cut.width


def test_nothing_when_not_even_the_ellipsis_fits() -> None:
    assert fit_text("LIONS", 3, 60, fonts.measure, min_px=40).text == ""


def test_digits_shrink_but_never_narrow() -> None:
    fitted = fit_text("12:34", 300, 200, fonts.measure, min_px=10, font="digits")
    assert fitted.condense == 100
    assert segments.text_width("12:34", fitted.px_height) <= 300


@pytest.mark.parametrize("text", ["CRVENA ZVEZDA BEOGRA", "WWWWWWWWWWWWWWWWWWWW", "#88 10:00",
                                  "ÚSTÍ NAD LABEM ŠČŽ", "PENALTY HOME  #7  KIND?", "…"])
@pytest.mark.parametrize("cap", [31, 44, 77, 200])
def test_the_pure_estimate_is_never_narrower_than_the_font(text: str, cap: int) -> None:
    assert approx_measure(text, "sans", cap) >= fonts.measure(text, "sans", cap)


@pytest.mark.parametrize("cap", [*range(29, 80), 120, 200, 347])
def test_capitals_are_at_least_the_asked_height_and_fit_their_line(cap: int) -> None:
    """px_height is the cap height as drawn; accents above capitals and descenders stay
    inside ``line_height`` (the renderer places the line; nothing is clipped)."""
    assert fonts.cap_height(fonts.size_for_cap(cap)) >= cap
    cap_px = fonts.cap_height(fonts.size_for_cap(cap))
    above, below = math.ceil(ABOVE * cap), math.ceil(BELOW * cap)
    assert line_height(cap) == cap + above + below
    for text in ("H", "ÅŮŽČÉÖ", "ĄĘÇŞQJ,()", "#12 0:45"):
        image, rise = fonts.render(text, cap, (255, 255, 255))
        # The renderer puts the baseline cap_px below the capitals' top, which is ``above``
        # below the line's top: the ink must stay between the line's top and bottom.
        baseline = above + cap_px
        assert baseline - rise >= 0, text
        assert baseline - rise + image.get_height() <= line_height(cap), text
