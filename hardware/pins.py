"""gpiozero pin factories, so that nothing outside this package imports gpiozero.

On a Pi the factory comes from GPIOZERO_PIN_FACTORY (lgpio: docs/developer.md, "Dependency facts");
on a PC and in tests it is gpiozero's MockFactory, chosen explicitly (gpiozero does not fall back to
it).
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

# BCM number -> the pin of the 40-pin header it is on (every Pi since the B+, Pi 5 too): what
# the technician counts on the board (`scoreboard wiring` prints both, docs/technician.md,
# "Wiring the console"). The header's other pins are power and ground.
HEADER_PINS: dict[int, int] = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19,
    9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35,
    16: 36, 26: 37, 20: 38, 21: 40,
}


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
