"""Shared test helpers: time in readable units, presets, a match with a fake clock."""

from __future__ import annotations

import os

# Headless everywhere: SDL's dummy drivers for the display tests, gpiozero's mock pins.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
