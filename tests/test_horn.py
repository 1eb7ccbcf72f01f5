"""The horn relay (the console's): off at start, follows the core, off on every way out.

GPIO is gpiozero's MockFactory (``pin.state`` is the line's level); time is a fake clock, so
nothing here sleeps.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPin  # type: ignore[import-untyped]

from arena import presets
from arena.core.commands import Horn, Start
from arena.core.match import Match, feed
from arena.timesource import FakeClock, make_realtime, wait_until
from hardware.horn import HornDriver, HornRelay, force_off

PIN = 17
MS = 1_000_000
S = 1_000_000_000
PERIOD_END = 1200 * S  # ice-hockey-2x20: a 20-minute period started at 0


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.close()


def level(factory: MockFactory) -> bool:
    """The line's level: True = high."""
    return bool(factory.pin(PIN).state)


# ------------------------------------------------------------------ relay


@pytest.mark.parametrize("active_high", [True, False])
def test_off_at_start_even_if_the_line_was_left_active(
    factory: MockFactory, active_high: bool
) -> None:
    pin: MockPin = factory.pin(PIN)
    # A previous process left the relay on (the line at its active level).
    if active_high:
        pin.drive_high()
    else:
        pin.drive_low()
    relay = HornRelay(PIN, active_high=active_high, pin_factory=factory)
    assert level(factory) is (not active_high)  # idle: low, or high for an active-low board
    assert not relay.is_on
    relay.close()


@pytest.mark.parametrize("active_high", [True, False])
def test_on_off_set_drive_the_line(factory: MockFactory, active_high: bool) -> None:
    with HornRelay(PIN, active_high=active_high, pin_factory=factory) as relay:
        relay.on()
        assert (relay.is_on, level(factory)) == (True, active_high)
        relay.off()
        assert (relay.is_on, level(factory)) == (False, not active_high)
        relay.set(True)
        assert level(factory) is active_high
        relay.set(False)
        assert level(factory) is (not active_high)


def test_set_touches_the_pin_only_on_a_change(
    factory: MockFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    relay = HornRelay(PIN, pin_factory=factory)
    writes: list[str] = []
    on, off = relay.on, relay.off

    def spy_on() -> None:
        writes.append("on")
        on()

    def spy_off() -> None:
        writes.append("off")
        off()

    monkeypatch.setattr(relay, "on", spy_on)
    monkeypatch.setattr(relay, "off", spy_off)
    for value in (False, True, True, True, False, False):
        relay.set(value)
    assert writes == ["on", "off"]
    relay.close()


def test_close_leaves_it_off_and_is_idempotent(factory: MockFactory) -> None:
    relay = HornRelay(PIN, pin_factory=factory)
    relay.on()
    relay.close()
    assert relay.closed and not relay.is_on
    assert not level(factory)
    relay.close()
    assert "closed" in repr(relay)


def test_context_manager_closes_off(factory: MockFactory) -> None:
    with HornRelay(PIN, pin_factory=factory) as relay:
        relay.on()
    assert relay.closed and not level(factory)


@pytest.mark.parametrize("active_high", [True, False])
def test_force_off_from_outside_after_a_crash(factory: MockFactory, active_high: bool) -> None:
    HornRelay(PIN, active_high=active_high, pin_factory=factory).close()
    # The crashed daemon left the line at its active level, and no device holds the pin.
    pin: MockPin = factory.pin(PIN)
    if active_high:
        pin.drive_high()
    else:
        pin.drive_low()
    assert level(factory) is active_high

    force_off(PIN, active_high=active_high, pin_factory=factory)

    assert level(factory) is (not active_high)
    # Released: the daemon can claim the pin again.
    HornRelay(PIN, active_high=active_high, pin_factory=factory).close()


# ------------------------------------------------------------------ fail-safe paths


def test_fail_safe_never_raises(factory: MockFactory, caplog: pytest.LogCaptureFixture) -> None:
    relay = HornRelay(PIN, pin_factory=factory)
    driver = HornDriver([relay], clock=lambda: 0)
    relay.on()
    driver.fail_safe()
    assert not level(factory)
    relay.close()
    with caplog.at_level(logging.ERROR):
        driver.fail_safe()  # a closed device raises inside: logged, not raised
    assert "could not switch the horn relay off" in caplog.text


# ------------------------------------------------------------------ driver against the core


def started_match() -> Match:
    match = Match(presets.load("ice-hockey-2x20"))
    assert feed(match, Start(at=0)).refused is None
    return match


def test_driver_sounds_the_period_end_horn_at_the_core_deadline(factory: MockFactory) -> None:
    match = started_match()
    now = [0]
    driver = HornDriver([HornRelay(PIN, pin_factory=factory)], clock=lambda: now[0])
    assert match.next_deadline() == PERIOD_END
    assert driver.next_change(match, 0) == PERIOD_END

    assert driver.update(match, PERIOD_END - 1) is False
    assert not level(factory)
    # At the deadline the relay switches on before the real match has been advanced (the
    # daemon journals that first); the match itself is not touched by looking ahead.
    before = match.state
    assert driver.update(match, PERIOD_END) is True
    assert level(factory)
    assert match.state is before

    match.advance(PERIOD_END)
    assert driver.next_change(match, PERIOD_END) == PERIOD_END + 2 * S  # default end: 2 s
    now[0] = PERIOD_END + 2 * S - 1
    assert driver.update(match) is True
    now[0] = PERIOD_END + 2 * S
    assert driver.update(match) is False
    assert not level(factory)

    # The 1-minute intermission ends with a horn too.
    break_end = PERIOD_END + 60 * S
    assert driver.next_change(match, PERIOD_END + 2 * S) == break_end
    assert driver.update(match, break_end) is True
    match.advance(break_end)
    assert driver.update(match, break_end + 2 * S) is False
    driver.relay.close()


def test_driver_follows_the_manual_horn_and_its_cap(factory: MockFactory) -> None:
    match = started_match()
    driver = HornDriver([HornRelay(PIN, pin_factory=factory)], clock=lambda: 0)
    press = 10 * S
    feed(match, Horn(at=press, on=True))
    assert driver.update(match, press) is True and level(factory)
    feed(match, Horn(at=press + 3 * S, on=False))
    assert driver.update(match, press + 3 * S) is False and not level(factory)

    # Held down and never released: capped at 10 s.
    press = 100 * S
    feed(match, Horn(at=press, on=True))
    assert driver.update(match, press + 10 * S - 1) is True
    assert driver.next_change(match, press + 10 * S - 1) == press + 10 * S
    assert driver.update(match, press + 10 * S) is False
    assert not level(factory)
    driver.relay.close()


def test_follow_switches_the_relay_and_says_when_to_look_again(factory: MockFactory) -> None:
    """What the horn thread does each round: one question to the core, both answers."""
    match = started_match()
    driver = HornDriver([HornRelay(PIN, pin_factory=factory)], clock=lambda: PERIOD_END)
    assert driver.follow(match, 0) == PERIOD_END
    assert not level(factory)
    assert driver.follow(match) == PERIOD_END + 2 * S  # the clock's now: the deadline
    assert level(factory)
    assert driver.follow(match, PERIOD_END + 2 * S) == PERIOD_END + 60 * S  # the break's end
    assert not level(factory)
    driver.relay.close()


# ------------------------------------------------------------------ wait_until, fake time


STEP = 1_000  # ns the fake clock moves at every reading, so that a spin ends


def fake_time(*, late_ns: int = 0, nap_share: float = 1.0) -> FakeClock:
    """A monotonic clock from 0 that moves ``STEP`` ns per reading and by what ``sleep`` is
    asked plus ``late_ns`` (or only ``nap_share`` of it: a sleep cut short)."""
    return FakeClock(0, late_ns=late_ns, nap_share=nap_share, step_ns=STEP)


def test_wait_until_sleeps_to_the_spin_window_then_spins() -> None:
    fake = fake_time(late_ns=300_000)  # sleep comes back 0.3 ms late
    deadline = 100 * MS
    seen = wait_until(deadline, clock=fake.monotonic_ns, sleep=fake.sleep, spin_ns=2 * MS)
    assert len(fake.naps) == 1
    assert fake.naps[0] == pytest.approx((deadline - STEP - 2 * MS) / S)
    assert deadline <= seen < deadline + STEP  # hit within one clock reading
    assert fake.reads > 2  # it spun


def test_wait_until_sleeps_again_after_an_early_wake() -> None:
    fake = fake_time(nap_share=0.5)
    seen = wait_until(100 * MS, clock=fake.monotonic_ns, sleep=fake.sleep, spin_ns=2 * MS)
    assert len(fake.naps) > 1
    assert 100 * MS <= seen < 100 * MS + STEP


def test_wait_until_only_spins_inside_the_window_and_returns_at_once_if_past() -> None:
    fake = fake_time()
    assert wait_until(1 * MS, clock=fake.monotonic_ns, sleep=fake.sleep) >= 1 * MS
    assert fake.naps == []
    fake = fake_time()
    fake.now = 5 * MS
    assert wait_until(1 * MS, clock=fake.monotonic_ns, sleep=fake.sleep) == 5 * MS + STEP
    assert fake.reads == 1


def test_wait_until_returns_early_when_cancelled() -> None:
    cancel = threading.Event()
    cancel.set()
    fake = fake_time()
    seen = wait_until(S, clock=fake.monotonic_ns, sleep=fake.sleep, cancel=cancel)
    assert seen < S and fake.naps == []

    # Cancelled while sleeping: no spin up to the deadline.
    cancel = threading.Event()
    fake = fake_time()

    def sleep_then_cancel(seconds: float) -> None:
        fake.sleep(seconds / 2)
        cancel.set()

    seen = wait_until(S, clock=fake.monotonic_ns, sleep=sleep_then_cancel, cancel=cancel)
    assert seen < S and len(fake.naps) == 1


def test_wait_until_sleeps_on_the_cancel_event_so_cancelling_wakes_it() -> None:
    fake = fake_time()

    class Cancel(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            assert timeout is not None
            fake.sleep(timeout)
            return False

    seen = wait_until(S, clock=fake.monotonic_ns, cancel=Cancel())
    assert len(fake.naps) == 1 and seen >= S


def test_make_realtime_reports_what_it_got(monkeypatch: pytest.MonkeyPatch) -> None:
    # Never change the test process's own scheduling: fake the system call.
    asked: list[tuple[int, int, int]] = []

    def granted(pid: int, policy: int, param: os.sched_param) -> None:
        asked.append((pid, policy, param.sched_priority))

    monkeypatch.setattr(os, "sched_setscheduler", granted)
    assert make_realtime() == "SCHED_FIFO priority 10"
    assert asked == [(0, os.SCHED_FIFO, 10)]

    def refused(pid: int, policy: int, param: os.sched_param) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "sched_setscheduler", refused)
    assert make_realtime(20).startswith("normal scheduling")
