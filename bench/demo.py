"""Benchmark: how long ``arena-demo --headless`` takes, against the README's "< 1 min".

Each run is the whole demo as a user starts it (a private mosquitto if installed, the
event's office, two halls at the default time scale, the tables at the end), timed from
spawn to exit. Printed per run and as p50/max, with two ratios: to the README's promise (60 s) and
to the scripted play time (per hall, the sum of its scripts' last ``t`` divided by the time
scale; the slower hall), the floor the halls cannot go under. What lies between is start-up,
pregame and final holds, the office's storing and the tables.

A benchmark on real time, not a test: it always exits 0; its figures depend on the machine.

    python bench/demo.py [--runs 3] [--load]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The bench is a folder of scripts, not a package: make the repo top importable.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpuload import busy_cores, whole_number
from report import add_write_docs, run_writing_docs

from arena.core.units import NS_PER_S
from demo.orchestration import DEFAULT_TIME_SCALE
from demo.tournaments import load_demo_event
from firmware_py.script import parse_script

PROMISE_S = 60.0  # README: "a short tournament (< 1 min)"


def scripted_play_s() -> float:
    """The slower hall's scripted time at the default time scale."""
    per_hall = []
    demo = load_demo_event()
    for hall in demo.halls():
        total_ns = 0
        for match in demo.hall_matches(hall):
            lines = parse_script(demo.script(match.id).read_text(encoding="utf-8"), match.id)
            total_ns += lines[-1].t if lines else 0
        per_hall.append(total_ns / NS_PER_S / DEFAULT_TIME_SCALE)
    return max(per_hall)


def one_run() -> tuple[float, int]:
    with tempfile.TemporaryDirectory(prefix="bench-demo-") as folder:
        began = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "demo", "--headless",
                               "--out", str(Path(folder) / "demo")],
                              capture_output=True, text=True, check=False)
        return time.monotonic() - began, done.returncode


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=whole_number(), default=3)
    p.add_argument("--load", action="store_true", help="keep every core busy meanwhile")
    add_write_docs(p)
    args = p.parse_args()
    floor = scripted_play_s()
    times: list[float] = []
    with busy_cores(args.load) as cores:
        print(f"arena-demo --headless, {args.runs} runs"
              + (f", {cores} cores kept busy" if args.load else ""))
        for i in range(args.runs):
            took, code = one_run()
            times.append(took)
            print(f"  run {i + 1}: {took:6.1f} s" + ("" if code == 0 else f"  (exit {code})"))
    times.sort()
    p50 = times[len(times) // 2]
    print(f"p50 {p50:.1f} s, max {times[-1]:.1f} s")
    print(f"p50 / README's {PROMISE_S:g} s: {p50 / PROMISE_S:.2f}")
    print(f"p50 / scripted play ({floor:.1f} s at x{DEFAULT_TIME_SCALE:g}): {p50 / floor:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "demo"))
