"""The shell's time source: the one place outside the core that reads the OS clock.

Everything the scoreboard's shell does with time goes through a ``TimeSource``: reading the
monotonic clock, napping between looks at the inputs, being awake at a deadline, and the wall
clock for labels. ``SystemTime`` is the real one; a test passes ``FakeClock`` and runs a
whole scoreboard in milliseconds, as trio's MockClock does for trio programs.

Two ways to be awake at an instant:

- ``wait_until`` is exact: ``time.sleep`` overshoots by ~0.1 ms (up to ~0.3 ms) and, without
  real-time priority on a loaded machine, by up to ~15 ms, so it sleeps until shortly before
  the deadline and spins the rest. Only the horn's relay needs that (firmware_py/hornthread.py).
- ``sleep_until`` never spins: it sleeps for what is left (again if a nap ended early) and
  returns at or a little after the instant. The display's frames and the loop's naps use it:
  a frame shown 0.1 ms after its instant still shows the tenth of that instant, and the spin
  cost more than all the drawing (bench/render.py).

Wall time is only for labels, and only once systemd-timesyncd says the clock is set
(``/run/systemd/timesync/synchronized``): a Pi 4 has no battery clock, so before that the
wall clock may be years off.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

from arena.core.units import NS_PER_S

SYNCED_FLAG = Path("/run/systemd/timesync/synchronized")

# Wake this long before a deadline and spin the rest: well above sleep's usual overshoot
# (~0.1-0.3 ms) so the sleep almost never ends after the deadline, small enough that the
# spin (which holds a core, and the GIL) costs little.
DEFAULT_SPIN_NS = 2_000_000

# SCHED_FIFO priority for the thread that switches the horn: above every normal process, far
# below the kernel's own real-time threads. The daemon's unit and bench/ use the same.
REALTIME_PRIORITY = 10

WallClock = Callable[[], float]  # seconds since the epoch, for labels only


class TimeSource(Protocol):
    """What the shell needs of time. All instants are integer ns on the monotonic clock."""

    def monotonic_ns(self) -> int:
        """Now."""

    def sleep(self, seconds: float) -> None:
        """Nap about ``seconds`` (a nap may end early; callers look at the clock again)."""

    def wait_until(self, deadline_ns: int, cancel: threading.Event | None = None) -> int:
        """Be awake at ``deadline_ns`` exactly, spinning the last moment (or earlier if
        ``cancel`` is set); the instant seen."""

    def sleep_until(self, deadline_ns: int, cancel: threading.Event | None = None) -> int:
        """Sleep until ``deadline_ns`` without spinning: return at or a little after it (or
        earlier if ``cancel`` is set); the instant seen."""

    def wall(self) -> WallClock | None:
        """The wall clock, or None while it is not known to be set."""


def wait_until(
    deadline_ns: int,
    *,
    clock: Callable[[], int] = time.monotonic_ns,
    sleep: Callable[[float], object] | None = None,
    spin_ns: int = DEFAULT_SPIN_NS,
    cancel: threading.Event | None = None,
) -> int:
    """Return at ``deadline_ns`` on ``clock`` (or as soon after as the OS allows).

    Sleeps until about ``spin_ns`` before the deadline, then spins on ``clock`` until it is
    reached. Returns the instant observed on ``clock``: at or after the deadline, or before
    it if ``cancel`` was set (the caller's deadline changed: a stop, a correction).

    ``sleep`` defaults to ``cancel.wait`` when a cancel event is given, so that setting it
    wakes the waiter at once rather than after the sleep, and to ``time.sleep`` otherwise.
    A sleep that ends early (a signal, a fake) is simply followed by another one.
    """
    if sleep is None:
        sleep = cancel.wait if cancel is not None else time.sleep
    now = clock()
    while deadline_ns - now > spin_ns:
        if cancel is not None and cancel.is_set():
            return now
        sleep((deadline_ns - now - spin_ns) / NS_PER_S)
        now = clock()
    # The spin: checking the event costs ~0.1 µs a round, negligible against the target.
    while now < deadline_ns:
        if cancel is not None and cancel.is_set():
            return now
        now = clock()
    return now


def sleep_until(
    deadline_ns: int,
    *,
    clock: Callable[[], int] = time.monotonic_ns,
    sleep: Callable[[float], object] | None = None,
    cancel: threading.Event | None = None,
) -> int:
    """Return at or after ``deadline_ns`` on ``clock`` without a busy wait.

    Each round blocks in ``sleep`` for all that is left, so the thread gives up its core
    (and the GIL) until the OS wakes it: a late wake-up (sleep's overshoot) is accepted,
    never an early one. Returns the instant observed: at or after the deadline, or before it
    if ``cancel`` was set (``sleep`` then defaults to ``cancel.wait``, which it ends)."""
    if sleep is None:
        sleep = cancel.wait if cancel is not None else time.sleep
    now = clock()
    while now < deadline_ns:
        if cancel is not None and cancel.is_set():
            return now
        sleep((deadline_ns - now) / NS_PER_S)
        now = clock()
    return now


class SystemTime:
    """The OS clock: ``time.monotonic_ns``, ``time.sleep`` and, once synchronised,
    ``time.time``."""

    def __init__(self, synced_flag: Path = SYNCED_FLAG) -> None:
        self._synced_flag = synced_flag

    def monotonic_ns(self) -> int:
        return time.monotonic_ns()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def wait_until(self, deadline_ns: int, cancel: threading.Event | None = None) -> int:
        return wait_until(deadline_ns, cancel=cancel)

    def sleep_until(self, deadline_ns: int, cancel: threading.Event | None = None) -> int:
        return sleep_until(deadline_ns, cancel=cancel)

    def wall(self) -> WallClock | None:
        return time.time if self._synced_flag.exists() else None


class SteadyWall:
    """The wall clock as it read when this was made, moved on by the monotonic clock: a
    local ``datetime`` that never jumps when the wall clock does (NTP stepping a clock that
    was off, a daylight-saving change of a naive local time, a technician's ``date``).

    For what the office counts in wall terms and must count in real time: a protest window
    is so many minutes after a final arrived, and an hour's step must neither close every
    open window at once nor hold them all an hour longer. The price: after a step, the
    office's times are off by the step until it is restarted (``drift`` says by how much).
    """

    def __init__(self, wall: Callable[[], datetime] = datetime.now,
                 monotonic: Callable[[], int] = time.monotonic_ns) -> None:
        self._wall = wall
        self._monotonic = monotonic
        self._anchor = wall()
        self._since = monotonic()

    def __call__(self) -> datetime:
        return self._anchor + timedelta(microseconds=(self._monotonic() - self._since) // 1000)

    def drift(self) -> timedelta:
        """How far the wall clock has moved away from this one since it was made."""
        return self._wall() - self()


# The one real time source of a process: the defaults of everything that takes a clock.
SYSTEM = SystemTime()


def realtime_ns() -> int:
    """The kernel's CLOCK_REALTIME in ns, only to map input events a kernel stamped on it
    onto the monotonic clock (hardware/keypad.py); never for labels (that is ``wall``)."""
    return time.time_ns()


def monotonic_s() -> float:
    """Now on the OS's monotonic clock, in seconds (for timeouts of network and process
    waits, which are real time by nature)."""
    return SYSTEM.monotonic_ns() / NS_PER_S


def make_realtime(priority: int = REALTIME_PRIORITY) -> str:
    """Give the calling thread SCHED_FIFO scheduling if allowed; say what it got.

    On Linux, pid 0 means the calling *thread*, so the daemon calls this from its deadline
    thread only. Without it, on a loaded 2-core machine wake-ups come up to ~15 ms late;
    with it, under 0.5 ms. Needs root or CAP_SYS_NICE (the unit grants it with
    ``CPUSchedulingPolicy=fifo``); failing is not an error, the horn is merely less punctual.
    """
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except (OSError, AttributeError) as err:  # PermissionError is an OSError; no sched_* off Linux
        return f"normal scheduling (SCHED_FIFO not available: {err.__class__.__name__})"
    return f"SCHED_FIFO priority {priority}"


# -- the fake ------------------------------------------------------------------------------

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
FAKE_START_NS = 1_000 * NS_PER_S  # a monotonic clock some time after boot


def ns_since_epoch(when: datetime) -> int:
    """A wall instant as integer ns since the epoch, exactly (no float on the way); a naive
    datetime is read as UTC."""
    delta = (when if when.tzinfo is not None else when.replace(tzinfo=UTC)) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * NS_PER_S + delta.microseconds * 1_000


class FakeClock:
    """A ``TimeSource`` for tests whose time moves only when told to (trio's MockClock).

    The test moves it with ``advance``/``jump_to``; the code under test moves it by waiting:
    every nap and every wait for a deadline jumps straight to its end (trio's autojump), so
    a 40-minute game runs in milliseconds and each instant is exact, with nothing of the
    machine's load in it. ``now`` (ns) may also be read and set directly.

    The ways real clocks misbehave, each off by default: ``late_ns`` ends every nap that
    much after its instant (the OS's overshoot); ``nap_share`` ends a ``sleep`` after only
    that share of what was asked (a signal cutting it short), so the caller must sleep
    again; ``step_ns`` moves the clock at every reading (a spin then ends).

    It counts how it is used, so a test can tell a sleeping loop from a spinning one:
    clock ``reads``, ``naps`` (the seconds each ``sleep``/``sleep_until`` asked for),
    ``empty_naps`` (asked for nothing: a loop going round without sleeping) and exact
    ``waits`` (``wait_until``).

    The wall clock is the monotonic one plus a fixed offset, or unknown (``wall=None``: not
    yet synchronised); ``wall`` is given as a ``datetime`` (exact; a naive one is read as
    UTC and ``wall_datetime`` then gives naive ones back) or seconds since the epoch at the
    starting instant, and ``set_wall`` sets or forgets it later. One thread at
    a time: it holds no lock.
    """

    def __init__(self, now: int = FAKE_START_NS, *, wall: datetime | float | None = None,
                 late_ns: int = 0, nap_share: float = 1.0, step_ns: int = 0) -> None:
        self.now = now
        self.late_ns = late_ns
        self.nap_share = nap_share
        self.step_ns = step_ns
        self.reads = 0
        self.naps: list[float] = []
        self.empty_naps = 0
        self.waits = 0
        self._wall_offset_ns: int | None = None
        self._wall_naive = False
        self.set_wall(wall)

    # -- the test's hand on it

    def advance(self, seconds: float) -> int:
        """Let ``seconds`` pass; the new now."""
        return self.advance_ns(round(seconds * NS_PER_S))

    def advance_ns(self, ns: int) -> int:
        if ns < 0:
            raise ValueError(f"a monotonic clock does not go back ({ns} ns)")
        self.now += ns
        return self.now

    def jump_to(self, instant_ns: int) -> int:
        """Be at ``instant_ns`` (not before now: the clock is monotonic); the new now."""
        if instant_ns < self.now:
            raise ValueError(f"a monotonic clock does not go back ({instant_ns} < {self.now})")
        self.now = instant_ns
        return self.now

    def set_wall(self, wall: datetime | float | None) -> None:
        """The wall clock shows ``wall`` now (and moves on with the monotonic clock), or is
        not known (None)."""
        if wall is None:
            self._wall_offset_ns = None
        elif isinstance(wall, datetime):
            self._wall_offset_ns = ns_since_epoch(wall) - self.now
            self._wall_naive = wall.tzinfo is None
        else:
            self._wall_offset_ns = round(wall * NS_PER_S) - self.now

    @property
    def slept(self) -> int:
        """Naps taken: a measure of how busy a loop is."""
        return len(self.naps)

    # -- the TimeSource

    def monotonic_ns(self) -> int:
        self.reads += 1
        self.now += self.step_ns
        return self.now

    def __call__(self) -> int:
        """The monotonic clock as a plain callable (for code that takes ``clock=``)."""
        return self.monotonic_ns()

    def monotonic(self) -> float:
        """The monotonic clock in seconds (for code that takes ``time.monotonic``)."""
        return self.monotonic_ns() / NS_PER_S

    def sleep(self, seconds: float) -> None:
        self.naps.append(seconds)
        self.empty_naps += seconds <= 0
        self.now += max(1, round(seconds * NS_PER_S * self.nap_share)) + self.late_ns

    def wait_until(self, deadline_ns: int, cancel: threading.Event | None = None) -> int:
        self.waits += 1
        if cancel is not None and cancel.is_set():
            return self.now
        self.now = max(self.now, deadline_ns)
        return self.now

    def sleep_until(self, deadline_ns: int, cancel: threading.Event | None = None) -> int:
        if deadline_ns <= self.now or (cancel is not None and cancel.is_set()):
            return self.now  # as the real one: no nap at all
        self.naps.append((deadline_ns - self.now) / NS_PER_S)
        self.now = deadline_ns + self.late_ns
        return self.now

    def wall(self) -> WallClock | None:
        return None if self._wall_offset_ns is None else self.wall_time

    # -- the wall clock in the shapes callers take

    def wall_ns(self) -> int:
        if self._wall_offset_ns is None:
            raise LookupError("the fake wall clock is not set")
        return self.now + self._wall_offset_ns

    def wall_time(self) -> float:
        """Seconds since the epoch, as ``time.time``."""
        return self.wall_ns() / NS_PER_S

    def wall_datetime(self) -> datetime:
        """The wall clock as a UTC datetime (naive if it was set naive), exact to the µs."""
        when = EPOCH + timedelta(microseconds=self.wall_ns() // 1_000)
        return when.replace(tzinfo=None) if self._wall_naive else when

    def realtime_ns(self) -> int:
        """The kernel's CLOCK_REALTIME (as ``realtime_ns``): the wall clock in ns."""
        return self.wall_ns()
