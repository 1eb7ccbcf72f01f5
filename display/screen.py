"""The hall display: full screen on the Pi's console, a window on a desktop, or headless.

- ``fullscreen``: ``SDL_VIDEODRIVER=kmsdrm`` on a Pi without a desktop (docs/developer.md,
"Dependency facts":
  only pygame-ce's wheel has that driver; the service user needs the video, render and input
  groups; on a Pi 5 choose the card with ``SDL_KMSDRM_DEVICE_INDEX``). The size is the
  screen's own; the mouse pointer is hidden.
- ``windowed`` (``--windowed``): a resizable window on a desktop, for development.
- ``headless``: SDL's dummy driver (tests, CI).

Display calls must come from the thread that opened it (docs/developer.md, "Dependency facts"), i.e.
the daemon's main loop. ``Display.draw`` draws a frame into the back buffer and ``present``
updates only the rectangles that changed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from ._pygame import pygame
from .items import Rect
from .layout import FrameInputs, LayoutOptions
from .render import Renderer

Mode = Literal["fullscreen", "windowed", "headless"]
WINDOW_SIZE = (1280, 720)
CAPTION = "Arena Scoreboard"


class Display:
    def __init__(self, mode: Mode, size: tuple[int, int] | None = None) -> None:
        if mode == "headless":
            os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        pygame.display.init()
        if mode == "fullscreen":
            surface = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
            pygame.mouse.set_visible(False)
        else:
            flags = pygame.RESIZABLE if mode == "windowed" else 0
            surface = pygame.display.set_mode(size or WINDOW_SIZE, flags)
            pygame.display.set_caption(CAPTION)
        self.mode = mode
        self.renderer = Renderer(surface.get_size(), surface=surface)

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
        """A resized window (or a mode change) gets a new surface and a full redraw."""
        surface = pygame.display.get_surface()
        if surface is not None and surface is not self.renderer.surface:
            self.renderer = Renderer(surface.get_size(), surface=surface)
