"""The shell's time source: the one place outside the core that reads the OS clock.

Everything the scoreboard's shell does with time goes through a ``TimeSource``: reading the
monotonic clock, napping between looks at the inputs, being awake at a deadline, and the wall
clock for labels. ``SystemTime`` is the real one; a test passes a fake (tests/fakes.py) and
runs a whole scoreboard in milliseconds, as trio's MockClock does for trio programs.

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
