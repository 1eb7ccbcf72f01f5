"""The one place ``pygame`` (pygame-ce) is imported from, so its start-up banner is off."""

from __future__ import annotations

import os

# pygame-ce prints a banner on import unless this is set; the daemon's log has no use for it.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
from pygame import freetype

__all__ = ["freetype", "pygame"]
