"""The match's timeline: the boot's monotonic clock (from the injected time source) mapped
onto the match's time.

    match time = real monotonic ns * scale + offset

- ``offset`` is 0 for a match journalled in this boot. After a power loss the monotonic clock
  starts again from about zero, so the journal's instants mean nothing on it; the daemon then
  picks the offset that makes "now" equal the last journalled instant and journals it (a
  ``timeline`` record), so a later crash in the same boot resumes on the same timeline.
- ``scale`` makes time run faster than real time (``--time-scale``, the demo). It multiplies
  the whole monotonic clock, not the time since start, so a restarted daemon with the same
  scale lands on the same timeline. A Fraction keeps the mapping exact in integers.

Every wait is computed back to real time with ``to_real``, so a scaled clock still wakes at
the exact instants the core asked for.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from arena.core.units import NS_PER_S

BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")
# For tests only (documented in tests/daemon and `scoreboard run --help`): pretend to be in
# another boot, so the power-loss path can be exercised without a reboot.
BOOT_ID_ENV = "SCOREBOARD_TEST_BOOT_ID"


def boot_id() -> str:
    """This boot's id: unchanged by a crash, new after a power loss or reboot."""
    override = os.environ.get(BOOT_ID_ENV)
    if override:
        return override
    try:
        return BOOT_ID_FILE.read_text(encoding="ascii").strip()
    except OSError:
        return ""


def parse_scale(text: str) -> Fraction:
    """``--time-scale``: a positive number, e.g. ``60`` or ``2.5``."""
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError) as err:
        raise ValueError(f"--time-scale takes a positive number, got {text!r}") from err
    if value <= 0:
        raise ValueError(f"--time-scale takes a positive number, got {text!r}")
    return value


class Timeline:
    """Match time from real monotonic time: ``real * scale + offset``, in integer ns."""

    def __init__(self, real: Callable[[], int], scale: Fraction = Fraction(1),
                 offset: int = 0) -> None:
        """``real``: the time source's monotonic clock (``TimeSource.monotonic_ns``)."""
        self.scale = scale
        self.offset = offset
        self.real = real
        # The scale's terms as plain ints: the loop converts several times a frame, and a
        # Fraction's properties cost a call each.
        self._num, self._den = scale.numerator, scale.denominator

    def from_real(self, real_ns: int) -> int:
        return real_ns * self._num // self._den + self.offset

    def to_real(self, match_ns: int) -> int:
        """The earliest real instant at which the match time is ``match_ns`` or later."""
        return -((-(match_ns - self.offset) * self._den) // self._num)  # ceiling division

    def now(self) -> int:
        return self.from_real(self.real())

    def ticks_to_ns(self, ticks: float) -> int:
        """A GPIO edge stamp (gpiozero ticks: monotonic seconds) on the match timeline."""
        return self.from_real(round(ticks * NS_PER_S))
