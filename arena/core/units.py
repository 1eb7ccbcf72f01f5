"""Time units of the core.

Instants and durations are integer nanoseconds on the monotonic clock (``time.monotonic_ns``
in the shell, a fake clock in tests). Integers, because floats accumulate error and two
floats that should be equal are not; nanoseconds, because a GPIO edge timestamp is finer
than a millisecond and the clock must stop at exactly that edge.

The state document speaks milliseconds. A countdown is rounded *up* to whole milliseconds so
that ``0`` is shown only when the time is truly over.
"""

from __future__ import annotations

from decimal import Decimal

NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000

Nanos = int


def ms(value: int) -> Nanos:
    """Milliseconds as nanoseconds."""
    return value * NS_PER_MS


def seconds(value: int) -> Nanos:
    """Whole seconds as nanoseconds."""
    return value * NS_PER_S


def ceil_ms(ns: Nanos) -> int:
    """A remaining time in whole milliseconds, rounded up (0 only at zero)."""
    return -((-ns) // NS_PER_MS)


def ns_from_seconds(value: Decimal | int | str) -> Nanos:
    """Exact seconds (as a JSON script writes them) to nanoseconds.

    ``Decimal`` keeps ``75.3`` exact; a float would land a few ns off and a press at an
    ``--at`` time could fall on the wrong side of it. Sub-nanosecond digits are rounded.
    """
    return int((Decimal(value) * NS_PER_S).to_integral_value())
