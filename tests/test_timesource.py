"""The shell reads the OS clock in one place: firmware_py/timesource.py (README 2, rule 2).

Everything else in the scoreboard (firmware_py outside the pure core, hardware/) takes its
time from a ``TimeSource`` or a clock passed in, so a test can run it on a fake clock."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest

from firmware_py.timesource import SystemTime, wait_until

ROOT = Path(__file__).resolve().parents[1]
HOME = ROOT / "firmware_py" / "timesource.py"
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
    files = [p for top in ("firmware_py", "hardware") for p in sorted((ROOT / top).rglob("*.py"))]
    return [p for p in files if "core" not in p.relative_to(ROOT).parts and p != HOME]


def test_only_the_time_source_reads_the_os_clock() -> None:
    found = [hit for path in shell_files()
             for hit in clock_reads(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert not found, "the shell reads the OS clock outside firmware_py/timesource.py:\n" + \
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
