"""Countdowns are shown rounded up: 0 only at zero, and no frame shows a unit already over."""

from __future__ import annotations

import pytest

from display.values import clock_text, minutes_seconds, whole_seconds


@pytest.mark.parametrize(("ms", "shown"), [
    (1_200_000, "20:00"),
    (1_199_001, "20:00"),
    (1_199_000, "19:59"),
    (60_000, "01:00"),
    (59_950, "01:00"),  # 59.95 s rounds up to 60.0 s: still shown as a whole minute
    (59_900, "59.9"),
    (59_801, "59.9"),
    (9_000, "09.0"),
    (100, "00.1"),
    (1, "00.1"),
    (0, "00.0"),
    (-5, "00.0"),
    (6_000_000, "100:00"),
])
def test_the_clock_rounds_up_and_shows_tenths_below_a_minute(ms: int, shown: str) -> None:
    assert clock_text(ms) == shown


def test_the_tenths_threshold_is_the_presets() -> None:
    assert clock_text(25_000, tenths_below_ms=20_000) == "00:25"
    assert clock_text(19_999, tenths_below_ms=20_000) == "00:20"  # 20.0 is not under 20 s
    assert clock_text(19_900, tenths_below_ms=20_000) == "19.9"
    assert clock_text(5_000, tenths_below_ms=0) == "00:05"


@pytest.mark.parametrize(("ms", "shown"), [
    (120_000, "2:00"), (119_001, "2:00"), (1, "0:01"), (0, "0:00"), (600_000, "10:00")])
def test_penalties_and_time_outs_show_minutes_and_seconds_rounded_up(ms: int,
                                                                       shown: str) -> None:
    assert minutes_seconds(ms) == shown


def test_shift_seconds_round_up() -> None:
    assert [whole_seconds(ms) for ms in (60_000, 59_999, 1, 0)] == [60, 60, 1, 0]
