"""gpiozero pin factories, so that nothing outside this package imports gpiozero.

On a Pi the factory comes from GPIOZERO_PIN_FACTORY (lgpio: STACK-NOTES); on a PC and in
tests it is gpiozero's MockFactory, chosen explicitly (gpiozero does not fall back to it).
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]


def mock_factory() -> Any:
    """Pins that exist only in memory: for a PC, a demo and the benchmarks. (For the real
    pins pass ``pin_factory=None``: gpiozero then uses GPIOZERO_PIN_FACTORY.)"""
    return MockFactory()
