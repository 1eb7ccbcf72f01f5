"""Shared test setup: headless drivers everywhere, and the brokers of the process tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures import SHIPPED_USERS, Broker, ShippedBroker

# Headless everywhere: SDL's dummy drivers for the display tests, gpiozero's mock pins.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")


# -- the process tests' shared setup (tests/fixtures.py): a mosquitto for one test


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A plain mosquitto (anonymous access) on a free loopback port, stopped after."""
    b = Broker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


@pytest.fixture
def shipped_broker(tmp_path: Path) -> Iterator[ShippedBroker]:
    """The office broker as installed (``SHIPPED_USERS``), on a free loopback port."""
    b = ShippedBroker(tmp_path / "shipped-broker", SHIPPED_USERS)
    b.start()
    yield b
    b.stop()
