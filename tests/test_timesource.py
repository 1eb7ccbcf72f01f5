"""The shell reads the OS clock in one place: arena/timesource.py (docs/developer.md 2, rule 2).

Everything else in the scoreboard (firmware_py outside the pure core, hardware/) takes its
time from a ``TimeSource`` or a clock passed in, so a test can run it on a fake clock."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest

from arena.timesource import SystemTime, sleep_until, wait_until

ROOT = Path(__file__).resolve().parents[1]
HOME = ROOT / "arena" / "timesource.py"
CLOCK_CALLS = {"time": {"monotonic", "monotonic_ns", "time", "time_ns", "sleep",
                        "perf_counter", "perf_counter_ns"},
               "datetime": {"now", "utcnow", "today"}}


def clock_reads(source: str, name: str) -> list[str]:
    """Every ``time.monotonic()``-like use (called or passed on) and every import from
    ``time``, as ``name:line: what``."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.attr in CLOCK_CALLS.get(node.value.id, ()):
            found.append(f"{name}:{node.lineno}: {node.value.id}.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "time":
            found.append(f"{name}:{node.lineno}: from time import ...")
    return found


def shell_files() -> list[Path]:
    files = [p for top in ("arena", "firmware_py", "hardware")
             for p in sorted((ROOT / top).rglob("*.py"))]
    return [p for p in files if "core" not in p.relative_to(ROOT).parts and p != HOME]


def test_only_the_time_source_reads_the_os_clock() -> None:
    found = [hit for path in shell_files()
             for hit in clock_reads(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert not found, "the shell reads the OS clock outside arena/timesource.py:\n" + \
        "\n".join(found)


@pytest.mark.parametrize("source", [
    "import time\nnow = time.monotonic_ns()\n",
    "import time\ndef f(clock=time.monotonic): ...\n",
    "import time\ntime.sleep(1)\n",
    "from time import monotonic\n",
    "from datetime import datetime\nstamp = datetime.now()\n",
])
def test_the_check_finds_a_clock_read(source: str) -> None:
    assert clock_reads(source, "bad.py"), source


def test_the_system_time_hits_a_deadline_and_can_be_cancelled() -> None:
    real = SystemTime()
    start = real.monotonic_ns()
    assert real.wait_until(start + 3_000_000) >= start + 3_000_000
    cancel = threading.Event()
    cancel.set()
    far = real.monotonic_ns() + 60 * 1_000_000_000
    assert wait_until(far, cancel=cancel) < far  # returns at once: the caller's plan changed


class SteppedClock:
    """A clock that moves only in ``sleep``, by what was asked times ``share`` (a nap that
    ends early: a signal) plus ``late_ns`` (the OS's overshoot)."""

    def __init__(self, share: float = 1.0, late_ns: int = 0) -> None:
        self.now = 0
        self.share = share
        self.late_ns = late_ns
        self.reads = 0
        self.naps: list[float] = []

    def clock(self) -> int:
        self.reads += 1
        return self.now

    def sleep(self, seconds: float) -> None:
        self.naps.append(seconds)
        self.now += max(1, int(seconds * 1e9 * self.share)) + self.late_ns


def test_sleep_until_sleeps_all_that_is_left_and_never_spins() -> None:
    """The display's wait: one nap for the whole way, no look at the clock in a loop, and a
    late wake-up accepted as it is; where sleep_until spun the last 2 ms, wait_until does
    (the horn's exactness)."""
    late = SteppedClock(late_ns=150_000)
    assert sleep_until(10_000_000, clock=late.clock, sleep=late.sleep) == 10_150_000
    assert late.naps == [0.01] and late.reads == 2
    early = SteppedClock(share=0.5)  # every nap ends half way: each one sleeps the rest
    assert sleep_until(8_000_000, clock=early.clock, sleep=early.sleep) >= 8_000_000
    assert all(b < a for a, b in zip(early.naps, early.naps[1:], strict=False))
    assert early.reads == len(early.naps) + 1
    exact = SteppedClock(share=1.0)
    assert sleep_until(0, clock=exact.clock, sleep=exact.sleep) == 0 and exact.naps == []
    cancel = threading.Event()
    cancel.set()
    assert sleep_until(10**12, clock=exact.clock, sleep=exact.sleep, cancel=cancel) == 0


def test_the_system_time_sleeps_until_an_instant_and_can_be_cancelled() -> None:
    real = SystemTime()
    start = real.monotonic_ns()
    assert real.sleep_until(start + 3_000_000) >= start + 3_000_000
    cancel = threading.Event()
    cancel.set()
    far = real.monotonic_ns() + 60 * 1_000_000_000
    assert real.sleep_until(far, cancel=cancel) < far
