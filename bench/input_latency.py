"""Benchmark: a button edge on a (mock) GPIO pin -> command applied -> clock stopped.

For 10,000 presses of START/STOP on gpiozero's MockFactory, with both cores loaded, prints
p50/p99/max of the time from the edge to the command being applied by the core, and the
error between the edge instant and the instant the clock stopped at (ours must be 0: the
press takes effect at its edge). The same presses stamped the naive way, with the time the
loop got round to them, are the baseline: their error is the processing latency itself.

Debounce and the double-tap guard are set to 0 here: the bench presses far faster than a
hand, and it measures the input path, not those policies (tests/hardware covers them).

    python bench/input_latency.py [--presses 10000] [--no-load]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpuload import busy_cores, ms, percentile

from firmware_py import presets
from firmware_py.core.commands import Command, Stop
from firmware_py.core.match import Match, feed
from hardware.console import Console, load_config
from hardware.pins import mock_factory


def run(presses: int) -> tuple[list[int], list[int], list[int]]:
    """Latencies edge -> applied, our stop errors, naive stop errors (all ns)."""
    factory = mock_factory()
    config = load_config({"debounce_ms": 0, "double_tap_ms": 0})
    match = Match(presets.load("ice-hockey-2x20"))
    console = Console(config, factory, [])
    pin = factory.pin(next(b.pin for b in config.buttons if b.action == "start_stop"))
    latency: list[int] = []
    ours: list[int] = []
    naive: list[int] = []
    applied: list[Command] = []
    try:
        for _ in range(presses):
            pin.drive_low()  # the edge, stamped by the pin driver
            edge = round(pin._last_change * 1e9)  # what the driver's callback received
            console.drain(time.monotonic_ns(), match, applied.append)
            command = applied.pop()
            feed(match, command)
            done = time.monotonic_ns()
            latency.append(done - edge)
            if isinstance(command, Stop):
                stopped_at = match.state.last_at or 0
                ours.append(stopped_at - edge)
                naive.append(done - edge)  # a loop that stamps presses when it sees them
            pin.drive_high()
            console.drain(time.monotonic_ns(), match, applied.append)
            if match.state.clock.remaining(time.monotonic_ns()) < 60 * 10**9:
                match = Match(match.preset)  # a fresh game before the period can end
    finally:
        console.close()
    return latency, ours, naive


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Benchmark, not a test: button edge -> command applied -> clock stopped, "
        "on gpiozero's MockFactory with every core loaded; prints percentiles and the error "
        "between each edge and the instant the clock stopped (ours must be 0)."
    )
    parser.add_argument("--presses", type=int, default=10_000, help="default 10000")
    parser.add_argument("--no-load", action="store_true", help="no busy-loop processes")
    args = parser.parse_args(argv)
    with busy_cores(not args.no_load) as workers:
        latency, ours, naive = run(args.presses)
    print(f"presses        {args.presses} on MockFactory, load: {workers} busy-loop processes")
    print(f"edge -> applied   p50 {ms(percentile(latency, 50))}, "
          f"p99 {ms(percentile(latency, 99))}, max {ms(max(latency))}")
    worst = max(abs(e) for e in ours)
    print(f"stop error, ours (stop instant - edge), {len(ours)} stops: max |error| {worst} ns "
          f"({'exact' if worst == 0 else 'NOT EXACT'})")
    print(f"stop error, naive (stamped when processed): p50 {ms(percentile(naive, 50))}, "
          f"p99 {ms(percentile(naive, 99))}, max {ms(max(naive))}")
    return 0 if worst == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
