"""The display with SDL's dummy driver: it opens, draws, and updates only what changed."""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from display._pygame import pygame
from display.screen import Display, framebuffer_hints, headless_driver
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


# ------------------------------------------------------------------ headless at its size


@pytest.mark.parametrize(("environ", "chosen"), [
    ({}, "dummy"), ({"SDL_VIDEODRIVER": "kmsdrm"}, "dummy"),  # the service's, for the hall
    ({"SDL_VIDEODRIVER": "x11"}, "dummy"), ({"SDL_VIDEODRIVER": "dummy"}, None),
    ({"SDL_VIDEODRIVER": "offscreen"}, None)])
def test_headless_never_opens_a_screen(environ: dict[str, str], chosen: str | None) -> None:
    assert headless_driver(environ) == chosen


def test_a_headless_board_under_the_services_kmsdrm_is_headless_at_its_size(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The unit sets SDL_VIDEODRIVER=kmsdrm; [display] mode = "headless" still means the
    dummy driver at the configured size (KMSDRM would size the window to the screen)."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "kmsdrm")
    shown = Display("headless", (1280, 720))
    try:
        assert pygame.display.get_driver() == "dummy" and shown.size == (1280, 720)
        assert os.environ["SDL_VIDEODRIVER"] == "dummy"
    finally:
        shown.close()


def test_a_headless_window_resized_by_sdl_still_draws_at_the_configured_size(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A driver that gives another size than asked (1280x768 for 1280x720, with pygame's
    "forcibly resized" warning): the board draws at the configured size anyway, with one
    log line instead of the warning."""
    real = pygame.display.set_mode

    def resized(size: tuple[int, int], flags: int = 0) -> Any:
        window = real((size[0], 768), flags)
        warnings.warn("Requested window was forcibly resized by the OS.", RuntimeWarning,
                      stacklevel=2)
        return window

    monkeypatch.setattr(pygame.display, "set_mode", resized)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none escapes to the daemon's stderr
        with caplog.at_level(logging.INFO, logger="display.screen"):
            shown = Display("headless", (1280, 720))
    try:
        assert shown.size == (1280, 720)
        assert show(shown, states.GAME) == [(0, 0, 1280, 720)]
        assert show(shown, states.GAME) == []  # the same surface: nothing to redraw
        assert shown.size == (1280, 720)
        assert [r.getMessage() for r in caplog.records] == [
            "headless window resized by SDL: drawing at the configured size off screen"]
    finally:
        shown.close()


# ------------------------------------------------------------------ the KMSDRM framebuffer


@pytest.mark.parametrize(("driver", "environ", "hints"), [
    ("kmsdrm", {}, {"SDL_FRAMEBUFFER_ACCELERATION": "opengles2"}),
    ("KMSDRM", {"SDL_VIDEODRIVER": "kmsdrm"}, {"SDL_FRAMEBUFFER_ACCELERATION": "opengles2"}),
    # The technician's own choice stands (either hint).
    ("kmsdrm", {"SDL_FRAMEBUFFER_ACCELERATION": "software"}, {}),
    ("kmsdrm", {"SDL_RENDER_DRIVER": "opengl"}, {}),
    # Drivers with a window surface of their own: nothing changes.
    ("dummy", {}, {}), ("x11", {}, {}), ("wayland", {}, {}), ("offscreen", {}, {})])
def test_kmsdrm_draws_its_window_surface_with_opengl_es(
        driver: str, environ: dict[str, str], hints: dict[str, str]) -> None:
    assert framebuffer_hints(driver, environ) == hints


def test_on_kmsdrm_the_hint_is_set_before_the_window_and_said(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    for hint in ("SDL_FRAMEBUFFER_ACCELERATION", "SDL_RENDER_DRIVER"):
        monkeypatch.delenv(hint, raising=False)
    with caplog.at_level(logging.INFO, logger="display.screen"):
        Display._framebuffer("kmsdrm")
    assert os.environ["SDL_FRAMEBUFFER_ACCELERATION"] == "opengles2"
    (record,) = caplog.records
    assert record.getMessage() == "display framebuffer"
    assert record.kv == {"driver": "kmsdrm", "SDL_FRAMEBUFFER_ACCELERATION": "opengles2",
                         "from": "the board"}


def test_under_the_dummy_driver_no_hint_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SDL_FRAMEBUFFER_ACCELERATION", raising=False)
    shown = Display("headless", (640, 360))
    try:
        assert "SDL_FRAMEBUFFER_ACCELERATION" not in os.environ
    finally:
        shown.close()
