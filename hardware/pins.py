"""gpiozero pin factories, so that nothing outside this package imports gpiozero.

On a Pi the factory comes from GPIOZERO_PIN_FACTORY (lgpio: docs/developer.md, "Dependency facts");
on a PC and in tests it is gpiozero's MockFactory, chosen explicitly (gpiozero does not fall back to
it).
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]


def mock_factory() -> Any:
    """Pins that exist only in memory: for a PC, a demo and the benchmarks. (For the real
    pins pass ``pin_factory=None``: gpiozero then uses GPIOZERO_PIN_FACTORY.)"""
    return MockFactory()


def factory(name: str) -> Any:
    """A pin factory by name: ``"mock"`` or ``"lgpio"`` (a Pi; the only one that works on a
    Pi 5, docs/developer.md, "Dependency facts"). lgpio is imported only when asked for: a PC does
    not have it."""
    if name == "mock":
        return mock_factory()
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory  # type: ignore[import-untyped]  # noqa: PLC0415

        return LGPIOFactory()
    raise ValueError(f"unknown pin factory {name!r} (lgpio or mock)")
