"""Hitting an instant on the monotonic clock: the shell's side of "horns fire at deadlines".

The core computes *when* (a period's end, a horn's end) as an absolute monotonic instant; this
module makes the process be awake at that instant. ``time.sleep`` overshoots by ~0.1 ms (up to
~0.3 ms) and, without real-time priority on a loaded machine, by up to ~15 ms (STACK-NOTES
"Time"), so ``wait_until`` sleeps until shortly before the deadline and spins the rest.

This is not part of ``firmware_py.core``: it reads the OS clock and sleeps.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

NS_PER_S = 1_000_000_000

# Wake this long before a deadline and spin the rest: well above sleep's usual overshoot
# (~0.1-0.3 ms) so the sleep almost never ends after the deadline, small enough that the
# spin (which holds a core, and the GIL) costs little.
DEFAULT_SPIN_NS = 2_000_000

# SCHED_FIFO priority for the thread that switches the horn: above every normal process, far
# below the kernel's own real-time threads. The daemon's unit and bench/ use the same.
REALTIME_PRIORITY = 10


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
