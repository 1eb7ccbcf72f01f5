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


def show(display: Display, doc: dict[str, object], **extra: object) -> list[object]:
    """As the daemon does: draw into the back buffer, then present what changed."""
    dirty = display.draw(doc, **extra)  # type: ignore[arg-type]
    display.present(dirty)
    return list(dirty)


def test_the_headless_display_draws_frames_and_updates_only_changes(display: Display) -> None:
    assert display.size == (640, 360)
    assert show(display, states.GAME) == [(0, 0, 640, 360)]
    assert show(display, states.GAME) == []
    later = dict(states.GAME, clock_ms=states.GAME["clock_ms"] - 100)
    (dirty,) = show(display, later)
    assert dirty[2] * dirty[3] < 640 * 360 // 20  # type: ignore[index]


def test_a_windowed_display_under_the_dummy_driver() -> None:
    shown = Display("windowed", (800, 450))
    try:
        assert show(shown, states.BREAK, status={"restored": True})
    finally:
        shown.close()
