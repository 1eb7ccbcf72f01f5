"""GameClock: anchor arithmetic on injected time (docs/developer.md 2, rule 2; 3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.core.gameclock import GameClock
from arena.core.units import ceil_ms, ms, seconds

from .helpers import S

TENTHS = seconds(60)


def test_a_stopped_clock_keeps_its_value() -> None:
    clock = GameClock.stopped_at(seconds(1200))
    assert not clock.running
    assert clock.remaining(S(9999)) == seconds(1200)
    assert clock.zero_at() is None
    assert clock.next_deadline(S(5), TENTHS) is None


def test_a_running_clock_is_anchor_arithmetic() -> None:
    clock = GameClock.stopped_at(seconds(1200)).start(S(100))
    assert clock.remaining(S(100)) == seconds(1200)
    assert clock.remaining(S(350.25)) == seconds(1200) - S(250.25)
    assert clock.zero_at() == S(1300)
    assert clock.remaining(S(1300)) == 0
    assert clock.remaining(S(5000)) == 0  # never negative


def test_stop_takes_the_press_time_not_a_later_one() -> None:
    clock = GameClock.stopped_at(seconds(60)).start(S(10))
    stopped = clock.stop(S(20.123456789))
    assert stopped.remaining_at_anchor == seconds(50) - 123_456_789
    assert not stopped.running


def test_nanosecond_presses_do_not_accumulate_error() -> None:
    # 10,000 stop/start pairs of odd lengths: the sum of running time is exact.
    clock = GameClock.stopped_at(seconds(1200))
    t = 0
    run = 0
    for i in range(10_000):
        clock = clock.start(t)
        t += 7_777 + i
        run += 7_777 + i
        clock = clock.stop(t)
        t += 1_000_003
    assert clock.remaining(t) == seconds(1200) - run


def test_set_keeps_running_state_and_reanchors() -> None:
    running = GameClock.stopped_at(seconds(600)).start(0)
    corrected = running.set(S(10), seconds(300))
    assert corrected.running
    assert corrected.remaining(S(70)) == seconds(240)
    stopped = GameClock.stopped_at(seconds(600)).set(S(10), seconds(300))
    assert not stopped.running
    assert stopped.remaining(S(70)) == seconds(300)


def test_start_and_stop_refuse_the_wrong_state() -> None:
    with pytest.raises(ValueError, match="already running"):
        GameClock.stopped_at(1).start(0).start(0)
    with pytest.raises(ValueError, match="already stopped"):
        GameClock.stopped_at(1).stop(0)
    with pytest.raises(ValueError, match="negative"):
        GameClock.stopped_at(-1)


def test_next_deadline_whole_seconds_above_the_tenths_threshold() -> None:
    clock = GameClock.stopped_at(seconds(1200)).start(0)
    # At the start 20:00 is shown; it changes to 19:59 after exactly one second.
    assert clock.next_deadline(0, TENTHS) == S(1)
    assert clock.next_deadline(S(0.4), TENTHS) == S(1)
    assert clock.next_deadline(S(1), TENTHS) == S(2)


def test_next_deadline_tenths_below_the_threshold_and_zero() -> None:
    clock = GameClock.stopped_at(seconds(61)).start(0)
    assert clock.next_deadline(0, TENTHS) == S(1)  # 61 s -> 60 s: still whole seconds
    assert clock.next_deadline(S(1), TENTHS) == S(1.1)  # 60.0 -> 59.9: tenths from here
    assert clock.next_deadline(S(60.95), TENTHS) == S(61)  # the last deadline is zero itself
    assert clock.next_deadline(S(61), TENTHS) is None


@given(
    start=st.integers(0, 10**13),
    length=st.integers(1, seconds(3600)),
    offset=st.integers(0, seconds(3600)),
)
def test_next_deadline_is_where_the_shown_value_changes(start: int, length: int,
                                                          offset: int) -> None:
    clock = GameClock.stopped_at(length).start(start)
    now = start + offset
    deadline = clock.next_deadline(now, TENTHS)
    if clock.remaining(now) == 0:
        assert deadline is None
        return
    assert deadline is not None and deadline > now

    def shown(t: int) -> int:
        left = clock.remaining(t)
        unit = seconds(1) if ceil_ms(left) > 60_000 else ms(100)
        return -(-left // unit) * unit

    # Nothing changes before the deadline, and something changes at it.
    assert shown(deadline - 1) == shown(now)
    assert shown(deadline) != shown(now)


@given(
    length=st.integers(1, seconds(3600)),
    steps=st.lists(st.integers(0, seconds(100)), min_size=1, max_size=30),
)
def test_remaining_never_increases_and_never_goes_negative(length: int, steps: list[int]) -> None:
    clock = GameClock.stopped_at(length).start(0)
    t, last = 0, length
    for step in steps:
        t += step
        now = clock.remaining(t)
        assert 0 <= now <= last
        last = now
