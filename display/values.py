"""The shown values of countdowns. Pure.

Every countdown is rounded *up* to the unit shown, so a clock shows 0 only at zero and a
frame never shows a second (or tenth) that is already over: at 59.95 s left the clock still
shows 1:00 and turns to 59.9 at exactly 59.9 s, the instants ``Match.display_deadline``
reports.
"""

from __future__ import annotations

DEFAULT_TENTHS_BELOW_MS = 60_000


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def clock_text(ms: int, tenths_below_ms: int = DEFAULT_TENTHS_BELOW_MS) -> str:
    """``MM:SS``, or ``SS.t`` once the value shown in tenths is under the threshold."""
    ms = max(0, ms)
    tenths = _ceil_div(ms, 100)
    if tenths * 100 < tenths_below_ms:
        return f"{tenths // 10:02d}.{tenths % 10}"
    secs = _ceil_div(ms, 1000)
    return f"{secs // 60:02d}:{secs % 60:02d}"


def minutes_seconds(ms: int) -> str:
    """``M:SS`` (penalties, time-outs), rounded up to the second."""
    secs = _ceil_div(max(0, ms), 1000)
    return f"{secs // 60}:{secs % 60:02d}"


def whole_seconds(ms: int) -> int:
    """Seconds left, rounded up (the line-change countdown)."""
    return _ceil_div(max(0, ms), 1000)
