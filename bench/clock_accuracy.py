"""Benchmark: how far from the true zero does a countdown end, on a loaded CPU?

Runs a real countdown on the real monotonic clock, twice over the same interval:

* ours: ``GameClock`` (anchor arithmetic), woken at each instant the shown value changes the
  way the daemon schedules its frames: sleep until ~2 ms before the deadline, then spin;
* naive: ``sleep(0.1); remaining -= 0.1`` in floats, what most hobby scoreboards do.

Two errors are printed for each: the *clock's* error at zero (when its own reading reaches
zero, against the true zero) and the *observer's* (when the process noticed). Ours reads the
monotonic clock, so its reading is exact by construction; what is left is how late the OS
wakes the process. The daemon runs its deadline thread with real-time priority (systemd
CPUSchedulingPolicy=fifo), and so does this bench's observer when allowed (--no-realtime to
see the difference: on a loaded 2-core VM, wake-ups then come up to ~15 ms late).

PASS when ours, as observed, is within 1 ms. This is a benchmark on real time, not a test:
its figures depend on the machine and its load.

    python bench/clock_accuracy.py [--seconds 60] [--no-load] [--no-realtime]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import signal
import sys
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path

# The bench is a folder of scripts, not a package: make the repo top importable so this runs
# from a plain checkout without installing the project.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpuload import busy_cores, join_all, ms, percentile, whole_number
from report import add_write_docs, run_writing_docs

from arena.core.gameclock import GameClock
from arena.core.units import NS_PER_MS, NS_PER_S
from arena.timesource import make_realtime, wait_until

# The hall display shows tenths in the last minute, so that is how the daemon schedules.
TENTHS_BELOW_NS = 60 * NS_PER_S
# The common start lies this far in the future when announced, so that both countdown
# processes are already waiting for it and begin within microseconds of each other.
START_LEAD_NS = 200 * NS_PER_MS
# Requirement from the issue tracker: ours must end within 1 ms of the true zero.
LIMIT_NS = NS_PER_MS
# Below this our error counts as zero for the ratio (no division by ~0).
RATIO_FLOOR_NS = 1_000

NAIVE_TICK_S = 0.1
# 0.1 is not exact in binary: after n subtractions the float is a few 1e-13 above or below
# zero (5.0 ends at -0.0999.. after 51 ticks, i.e. one tick late, without it). Comparing with
# a small epsilon lets the naive clock end on the tick it means to, so what we measure is its
# sleep drift, not its float residue: the comparison is in its favour.
NAIVE_EPSILON = 1e-9


@dataclass
class OursResult:
    scheduling: str
    began_ns: int
    zero_seen_ns: int
    zero_at_ns: int | None
    lateness_ns: list[int] = field(default_factory=list)


@dataclass
class NaiveResult:
    began_ns: int
    zero_seen_ns: int
    ticks: int


def ignore_sigint() -> None:
    # Ctrl-C goes to the whole process group; the parent alone decides how children end.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_ours(conn: Connection, total_ns: int, realtime: bool) -> None:
    """Count down with GameClock, waking at each deadline as the daemon's display loop does."""
    ignore_sigint()
    # Asked for here, in the measuring process itself: make_realtime applies to the calling
    # thread only (as in the daemon's deadline thread), so the parent cannot do it for us.
    scheduling = make_realtime() if realtime else "normal scheduling (--no-realtime)"
    conn.send("ready")
    start_ns: int = conn.recv()
    clock = GameClock.stopped_at(total_ns).start(start_ns)
    now = wait_until(start_ns)
    result = OursResult(scheduling=scheduling, began_ns=now, zero_seen_ns=0,
                        zero_at_ns=clock.zero_at())
    while (deadline := clock.next_deadline(now, TENTHS_BELOW_NS)) is not None:
        now = wait_until(deadline)
        result.lateness_ns.append(now - deadline)
        if clock.remaining(now) == 0:
            result.zero_seen_ns = now
            break
    conn.send(result)
    conn.close()


def run_naive(conn: Connection, seconds: int) -> None:
    """Count down the hobby way: sleep a tick, subtract a tick."""
    ignore_sigint()
    conn.send("ready")
    start_ns: int = conn.recv()
    began = wait_until(start_ns)
    remaining = float(seconds)
    ticks = 0
    while remaining > NAIVE_EPSILON:
        time.sleep(NAIVE_TICK_S)
        remaining -= NAIVE_TICK_S
        ticks += 1
    zero_seen = time.monotonic_ns()
    conn.send(NaiveResult(began_ns=began, zero_seen_ns=zero_seen, ticks=ticks))
    conn.close()


def run_countdowns(seconds: int, realtime: bool) -> tuple[OursResult, NaiveResult, int]:
    """Run both countdowns from one common start; return their results and the start."""
    # Separate processes, not threads: our spin holds the GIL for up to timing's
    # DEFAULT_SPIN_NS (2 ms) and would delay the naive thread's wake-ups (and the other way
    # round), mixing the two errors.
    ours_conn, ours_child = mp.Pipe()
    naive_conn, naive_child = mp.Pipe()
    procs = [
        mp.Process(target=run_ours, args=(ours_child, seconds * NS_PER_S, realtime),
                   name="ours"),
        mp.Process(target=run_naive, args=(naive_child, seconds), name="naive"),
    ]
    try:
        for proc in procs:
            proc.start()
        for conn in (ours_conn, naive_conn):
            conn.recv()  # "ready": the process is up and waiting for the start instant
        start_ns = time.monotonic_ns() + START_LEAD_NS
        for conn in (ours_conn, naive_conn):
            conn.send(start_ns)
        ours: OursResult = ours_conn.recv()
        naive: NaiveResult = naive_conn.recv()
    finally:
        join_all(procs)
    return ours, naive, start_ns


def fmt_ms(ns: int) -> str:
    return f"{ns / NS_PER_MS:+.3f} ms"


def ratio_text(naive_err_ns: int, ours_err_ns: int) -> str:
    if abs(ours_err_ns) < RATIO_FLOOR_NS:
        return f"> {abs(naive_err_ns) / RATIO_FLOOR_NS:,.0f}x (ours below 1 µs; floor 1 µs)"
    return f"{abs(naive_err_ns) / abs(ours_err_ns):,.1f}x"


def report(
    seconds: int, load_workers: int, ours: OursResult, naive: NaiveResult, start_ns: int
) -> bool:
    """Print the figures; return whether ours ended within the limit."""
    true_zero = start_ns + seconds * NS_PER_S
    ours_err = ours.zero_seen_ns - true_zero
    naive_err = naive.zero_seen_ns - true_zero
    load = f"{load_workers} busy-loop processes (one per core)" if load_workers else "none"
    lat = ours.lateness_ns
    zero_at_diff = None if ours.zero_at_ns is None else ours.zero_at_ns - true_zero

    print(f"countdown      {seconds} s on time.monotonic_ns(), load: {load}")
    print(f"ours observer  {ours.scheduling}")
    exact = "exact" if zero_at_diff == 0 else "NOT EXACT"
    print("clock error at zero (the clock's own reading reaches zero - true zero)")
    print(f"  ours (GameClock)           {zero_at_diff} ns ({exact})")
    print(f"  naive (sleep 0.1, -= 0.1)  {fmt_ms(naive_err)}  ({naive.ticks} ticks)")
    print("observed error at zero (the process noticed zero - true zero; positive = late)")
    print(f"  ours (GameClock)           {fmt_ms(ours_err)}")
    print(f"  naive (sleep 0.1, -= 0.1)  {fmt_ms(naive_err)}")
    print(f"  ratio naive/ours           {ratio_text(naive_err, ours_err)}")
    print(
        f"ours wake-up lateness over {len(lat)} deadlines: "
        f"p50 {ms(percentile(lat, 50))}, p99 {ms(percentile(lat, 99))}, max {ms(max(lat))}"
    )
    print(
        f"began after common start     ours {(ours.began_ns - start_ns) / 1000:.1f} µs, "
        f"naive {(naive.began_ns - start_ns) / 1000:.1f} µs"
    )
    passed = abs(ours_err) <= LIMIT_NS
    verdict = "PASS" if passed else "FAIL"
    print(f"{verdict}: ours within {LIMIT_NS / NS_PER_MS:.0f} ms of true zero ({fmt_ms(ours_err)})")
    return passed


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(
            "Benchmark, not a test: runs a real countdown on the monotonic clock with every "
            "core loaded, next to a naive sleep(0.1)/subtract-0.1 clock, and prints each "
            "one's error at zero in ms and their ratio. Exit status 0 when ours ends within "
            "1 ms of the true zero, 1 otherwise; the figures depend on the machine and load."
        ),
    )
    parser.add_argument(
        "--seconds",
        type=whole_number(),
        default=60,
        help="length of the countdown in whole seconds (default 60; e.g. 3 for a quick check)",
    )
    parser.add_argument(
        "--no-load",
        action="store_true",
        help="do not start the busy-loop processes (one per CPU core) that load the machine",
    )
    parser.add_argument(
        "--no-realtime",
        action="store_true",
        help="keep our observer at normal scheduling priority (the daemon uses SCHED_FIFO)",
    )
    add_write_docs(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with busy_cores(not args.no_load) as workers:
        ours, naive, start_ns = run_countdowns(args.seconds, not args.no_realtime)
    return 0 if report(args.seconds, workers, ours, naive, start_ns) else 1


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "clock_accuracy"))
