"""WCAG contrast, and the palette's pairs of text and background."""

from __future__ import annotations

import pytest

from display import colour as pal
from display.colour import ColourError, contrast, parse_hex, readable_on, text_colour_on


def test_contrast_matches_wcag_reference_values() -> None:
    assert contrast(pal.BLACK, pal.WHITE) == pytest.approx(21.0)
    assert contrast(pal.WHITE, pal.WHITE) == pytest.approx(1.0)
    # WCAG's own example threshold: #767676 on white is 4.54:1.
    assert contrast((0x76, 0x76, 0x76), pal.WHITE) == pytest.approx(4.54, abs=0.01)
    assert contrast((255, 0, 0), pal.BLACK) == pytest.approx(5.25, abs=0.01)


@pytest.mark.parametrize(("text", "background"), [
    (pal.WHITE, pal.BACKGROUND), (pal.LABEL, pal.BACKGROUND), (pal.CLOCK, pal.BACKGROUND),
    (pal.BREAK_CLOCK, pal.BACKGROUND), (pal.ALERT, pal.BACKGROUND), (pal.WHITE, pal.PANEL),
    (pal.LABEL, pal.PANEL), (pal.CLOCK, pal.PANEL), (pal.WHITE, pal.STOP_BOX),
    (pal.WHITE, pal.OPERATOR_BOX), (pal.BLACK, pal.RESTORED_BOX),
])
def test_every_text_colour_reaches_7_to_1_on_its_background(text: pal.Colour,
                                                             background: pal.Colour) -> None:
    assert contrast(text, background) >= pal.MIN_CONTRAST


def test_team_colours_become_text_only_at_7_to_1() -> None:
    navy, red, yellow = parse_hex("#10233f"), parse_hex("#c8102e"), parse_hex("#ffd700")
    assert readable_on(navy, pal.BACKGROUND) == pal.WHITE
    assert readable_on(red, pal.BACKGROUND) == pal.WHITE
    assert readable_on(yellow, pal.BACKGROUND) == yellow
    assert text_colour_on(yellow) == pal.BLACK
    assert text_colour_on(navy) == pal.WHITE


def test_colours_parse_as_the_state_document_writes_them() -> None:
    assert parse_hex("#10233f") == (16, 35, 63)
    assert parse_hex("#fff") == (255, 255, 255)
    for bad in ("#12345", "red", "#gg0000", ""):
        with pytest.raises(ColourError):
            parse_hex(bad)
