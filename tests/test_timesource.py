"""The shell reads the OS clock in one place: arena/timesource.py (docs/developer.md 2, rule 2).

Everything else in the scoreboard (firmware_py outside the pure core, hardware/) takes its
time from a ``TimeSource`` or a clock passed in, so a test can run it on a fake clock."""

from __future__ import annotations

import ast
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arena.timesource import (
    NS_PER_S,
    FakeClock,
    SystemTime,
    ns_since_epoch,
    sleep_until,
    wait_until,
)

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


def test_sleep_until_sleeps_all_that_is_left_and_never_spins() -> None:
    """The display's wait: one nap for the whole way, no look at the clock in a loop, and a
    late wake-up accepted as it is; where sleep_until spun the last 2 ms, wait_until does
    (the horn's exactness)."""
    late = FakeClock(0, late_ns=150_000)
    assert sleep_until(10_000_000, clock=late.monotonic_ns, sleep=late.sleep) == 10_150_000
    assert late.naps == [0.01] and late.reads == 2
    early = FakeClock(0, nap_share=0.5)  # every nap ends half way: each one sleeps the rest
    assert sleep_until(8_000_000, clock=early.monotonic_ns, sleep=early.sleep) >= 8_000_000
    assert all(b < a for a, b in zip(early.naps, early.naps[1:], strict=False))
    assert early.reads == len(early.naps) + 1
    exact = FakeClock(0)
    assert sleep_until(0, clock=exact.monotonic_ns, sleep=exact.sleep) == 0 and exact.naps == []
    cancel = threading.Event()
    cancel.set()
    assert sleep_until(10**12, clock=exact.monotonic_ns, sleep=exact.sleep, cancel=cancel) == 0


def test_the_system_time_sleeps_until_an_instant_and_can_be_cancelled() -> None:
    real = SystemTime()
    start = real.monotonic_ns()
    assert real.sleep_until(start + 3_000_000) >= start + 3_000_000
    cancel = threading.Event()
    cancel.set()
    far = real.monotonic_ns() + 60 * 1_000_000_000
    assert real.sleep_until(far, cancel=cancel) < far


# -- the fake clock the tests share


def test_the_fake_clock_moves_only_when_told_or_waited_on() -> None:
    fake = FakeClock(5 * NS_PER_S)
    assert fake.monotonic_ns() == fake.monotonic_ns() == 5 * NS_PER_S  # reading moves nothing
    assert fake() == 5 * NS_PER_S and fake.monotonic() == 5.0 and fake.reads == 4
    assert fake.advance(1.5) == 6_500_000_000
    assert fake.advance_ns(1) == 6_500_000_001
    assert fake.jump_to(7 * NS_PER_S) == 7 * NS_PER_S
    with pytest.raises(ValueError, match="does not go back"):
        fake.jump_to(6 * NS_PER_S)
    with pytest.raises(ValueError, match="does not go back"):
        fake.advance(-1)
    assert fake.now == 7 * NS_PER_S


def test_the_fake_clocks_waits_jump_to_their_end_and_count() -> None:
    fake = FakeClock(0)
    assert fake.wait_until(3 * NS_PER_S) == 3 * NS_PER_S and fake.waits == 1
    assert fake.wait_until(NS_PER_S) == 3 * NS_PER_S  # past: at once, the clock stays
    assert fake.sleep_until(4 * NS_PER_S) == 4 * NS_PER_S and fake.naps == [1.0]
    assert fake.sleep_until(4 * NS_PER_S) == 4 * NS_PER_S and fake.slept == 1  # no nap at all
    fake.sleep(0.25)
    fake.sleep(0)  # a loop that went round without sleeping: still 1 ns, never stuck
    assert fake.now == 4_250_000_001 and fake.naps == [1.0, 0.25, 0] and fake.empty_naps == 1
    cancel = threading.Event()
    cancel.set()
    assert fake.wait_until(10 * NS_PER_S, cancel) == fake.now == 4_250_000_001
    assert fake.sleep_until(10 * NS_PER_S, cancel) == 4_250_000_001


def test_the_fake_clock_misbehaves_only_when_asked() -> None:
    late = FakeClock(0, late_ns=150_000)
    assert late.sleep_until(NS_PER_S) == NS_PER_S + 150_000
    late.sleep(0.001)
    assert late.now == NS_PER_S + 1_000_000 + 300_000
    short = FakeClock(0, nap_share=0.5)
    short.sleep(1.0)
    assert short.now == NS_PER_S // 2
    stepping = FakeClock(0, step_ns=1_000)
    assert [stepping.monotonic_ns() for _ in range(3)] == [1_000, 2_000, 3_000]


def test_the_fake_wall_clock_is_unknown_until_set_and_moves_with_the_monotonic() -> None:
    fake = FakeClock()
    assert fake.wall() is None
    with pytest.raises(LookupError):
        fake.wall_ns()
    start = datetime(2026, 12, 5, 9, 30, 0, 250_000, tzinfo=UTC)
    fake.set_wall(start)
    wall = fake.wall()
    assert wall is not None and wall() == start.timestamp()
    fake.advance(90.5)
    assert fake.wall_datetime() == start + timedelta(seconds=90.5)  # exact, no float
    assert fake.realtime_ns() == ns_since_epoch(start) + 90_500_000_000
    naive = FakeClock(wall=datetime(2026, 12, 5, 8, 0))
    naive.advance(60)
    assert naive.wall_datetime() == datetime(2026, 12, 5, 8, 1)  # naive in, naive out
    seconds = FakeClock(wall=1_800_000_000.0)
    seconds.advance(2)
    assert seconds.wall_time() == 1_800_000_002.0
    seconds.set_wall(None)  # the clock is no longer known to be set
    assert seconds.wall() is None
