"""The display with SDL's dummy driver: it opens, draws, and updates only what changed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from display.screen import Display
from tests.display import states


@pytest.fixture
def display() -> Iterator[Display]:
    shown = Display("headless", (640, 360))
    yield shown
    shown.close()


def test_the_headless_display_draws_frames_and_updates_only_changes(display: Display) -> None:
    assert display.size == (640, 360)
    assert display.show(states.GAME) == [(0, 0, 640, 360)]
    assert display.show(states.GAME) == []
    later = dict(states.GAME, clock_ms=states.GAME["clock_ms"] - 100)
    (dirty,) = display.show(later)
    assert dirty[2] * dirty[3] < 640 * 360 // 20


def test_a_windowed_display_under_the_dummy_driver() -> None:
    shown = Display("windowed", (800, 450))
    try:
        assert shown.show(states.BREAK, status={"restored": True})
    finally:
        shown.close()
