"""The hall display: full screen on the Pi's console, a window on a desktop, or headless.

- ``fullscreen``: ``SDL_VIDEODRIVER=kmsdrm`` on a Pi without a desktop (docs/developer.md,
"Dependency facts":
  only pygame-ce's wheel has that driver; the service user needs the video, render and input
  groups; on a Pi 5 choose the card with ``SDL_KMSDRM_DEVICE_INDEX``). The size is the
  screen's own; the mouse pointer is hidden.
- ``windowed`` (``--windowed``): a resizable window on a desktop, for development.
- ``headless``: SDL's dummy driver (tests, CI, a hall without a screen), at the configured
  size exactly, whatever ``SDL_VIDEODRIVER`` the service sets.

On KMSDRM the window surface is made with OpenGL ES (``framebuffer_hints``: why).

Display calls must come from the thread that opened it (docs/developer.md, "Dependency facts"), i.e.
the daemon's main loop. ``Display.draw`` draws a frame into the back buffer and ``present``
updates only the rectangles that changed.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Mapping
from typing import Any, Literal

from ._pygame import pygame
from .items import Rect
from .layout import FrameInputs, LayoutOptions
from .render import Renderer

log = logging.getLogger(__name__)

Mode = Literal["fullscreen", "windowed", "headless"]
WINDOW_SIZE = (1280, 720)
CAPTION = "Arena Scoreboard"
HEADLESS_DRIVERS = ("dummy", "offscreen")  # SDL video drivers that show nothing
# The hints that choose how SDL makes the window surface pygame draws into.
FRAMEBUFFER_HINTS = ("SDL_FRAMEBUFFER_ACCELERATION", "SDL_RENDER_DRIVER")


def headless_driver(environ: Mapping[str, str]) -> str | None:
    """The video driver to set for a headless board, or None to keep the environment's.

    Headless means no screen whatever the environment says: the service sets
    ``SDL_VIDEODRIVER=kmsdrm`` for the hall, and a board switched to headless in the config
    must not open the console's screen anyway (KMSDRM sizes every window to the screen's
    mode, so the configured size came out as the screen's, "forcibly resized")."""
    chosen = environ.get("SDL_VIDEODRIVER", "").lower()
    return None if chosen in HEADLESS_DRIVERS else "dummy"


def framebuffer_hints(driver: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The SDL hints to set before ``set_mode`` on video ``driver`` (pygame's name, e.g.
    ``kmsdrm``), where the environment sets none of ``FRAMEBUFFER_HINTS``.

    SDL 2's KMSDRM driver has no window surface of its own: it makes pygame's with a
    renderer, the first one that is not the software one, i.e. ``opengl``. A hall's
    packages bring EGL and OpenGL ES but no desktop OpenGL library; SDL then quietly makes
    an OpenGL ES 2 context and still creates the ``opengl`` renderer on it, whose drawing
    of the window's texture does nothing under ES: the board logs its first frame and the
    screen stays black. Asking for the ``opengles2`` renderer makes the surface through
    the library that is there (on a Pi, the GPU's own). A technician's own choice (either
    hint in the environment) stands."""
    if driver.lower() != "kmsdrm" or any(environ.get(h) for h in FRAMEBUFFER_HINTS):
        return {}
    return {"SDL_FRAMEBUFFER_ACCELERATION": "opengles2"}


class Display:
    def __init__(self, mode: Mode, size: tuple[int, int] | None = None) -> None:
        if mode == "headless" and (driver := headless_driver(os.environ)) is not None:
            os.environ["SDL_VIDEODRIVER"] = driver
        pygame.display.init()
        self._framebuffer(pygame.display.get_driver())
        if mode == "fullscreen":
            surface = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
            pygame.mouse.set_visible(False)
        elif mode == "headless":
            surface = self._headless(size or WINDOW_SIZE)
        else:
            flags = pygame.RESIZABLE if mode == "windowed" else 0
            surface = pygame.display.set_mode(size or WINDOW_SIZE, flags)
            pygame.display.set_caption(CAPTION)
        self.mode = mode
        self.renderer = Renderer(surface.get_size(), surface=surface)

    @staticmethod
    def _framebuffer(driver: str) -> None:
        """Choose how SDL makes the window surface (``framebuffer_hints``), and say it: a
        black screen is then one log line away from its cause. SDL reads hints from the
        environment when it creates the window surface, i.e. in ``set_mode``."""
        hints = framebuffer_hints(driver, os.environ)
        os.environ.update(hints)
        if driver.lower() in HEADLESS_DRIVERS:
            return
        chosen = {h: os.environ[h] for h in FRAMEBUFFER_HINTS if os.environ.get(h)}
        log.info("display framebuffer", extra={"kv": {
            "driver": driver, **(chosen or {"renderer": "SDL's default"}),
            "from": "the board" if hints else "the environment" if chosen else "SDL"}})

    @staticmethod
    def _headless(size: tuple[int, int]) -> pygame.Surface:
        """The window at ``size`` on the dummy driver, exactly: where a driver still gives
        another size, the board draws into a surface of its own at the configured size
        (nobody sees a headless window; snapshots and tests read the configured size)."""
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            window = pygame.display.set_mode(size)
        if window.get_size() == size:
            return window
        log.info("headless window resized by SDL: drawing at the configured size off screen",
                 extra={"kv": {"configured": "{}x{}".format(*size),
                               "window": "{}x{}".format(*window.get_size()),
                               "driver": pygame.display.get_driver(),
                               **({"warning": str(said[0].message)} if said else {})}})
        return pygame.Surface(size).convert()

    @property
    def size(self) -> tuple[int, int]:
        return self.renderer.surface.get_size()

    def draw(self, doc: Mapping[str, Any], *, between: Mapping[str, Any] | None = None,
             status: Mapping[str, Any] | None = None,
             options: LayoutOptions | None = None) -> list[Rect]:
        """Draw the frame for ``doc`` into the back buffer; the rectangles that changed."""
        self._follow_window()
        self.renderer.render(FrameInputs(doc, self.size, between, status,
                                         options or LayoutOptions()))
        return self.renderer.last_dirty

    def present(self, dirty: list[Rect]) -> None:
        """Show what ``draw`` drew (at the frame's instant: see ``pacing``)."""
        if dirty:
            pygame.display.update([pygame.Rect(r) for r in dirty])

    def close(self) -> None:
        pygame.display.quit()

    def _follow_window(self) -> None:
        """A resized window (or a mode change) gets a new surface and a full redraw
        (headless: the one surface at the configured size, see ``_headless``)."""
        if self.mode == "headless":
            return
        surface = pygame.display.get_surface()
        if surface is not None and surface is not self.renderer.surface:
            self.renderer = Renderer(surface.get_size(), surface=surface)
