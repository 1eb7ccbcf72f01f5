"""Shared by the benchmarks: keep every core busy while measuring, and percentiles.

    with busy_cores() as workers: ...   # one arithmetic busy-loop process per core
    join_all(procs)                     # end a benchmark's own helper processes
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.synchronize import Event

# Workers check their stop event once per this many steps: prompt to stop, mostly arithmetic.
CHUNK = 100_000


def _burn(stop: Event) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when workers end
    x = 0
    while not stop.is_set():
        for i in range(CHUNK):
            x = (x * 31 + i) % 1_000_003


@contextmanager
def busy_cores(enabled: bool = True) -> Iterator[int]:
    """Start one busy-loop process per core (none if not ``enabled``); stop and join them
    (only these) on exit. Yields how many run."""
    workers = (os.cpu_count() or 1) if enabled else 0
    stop = mp.Event()
    procs = [mp.Process(target=_burn, args=(stop,), name=f"load-{n}") for n in range(workers)]
    for proc in procs:
        proc.start()
    try:
        yield workers
    finally:
        stop.set()
        join_all(procs)


def join_all(procs: list[mp.Process], timeout_s: float = 5) -> None:
    """Join the given processes; terminate only one that has not ended after ``timeout_s``."""
    for proc in procs:
        proc.join(timeout=timeout_s)
        if proc.is_alive():
            proc.terminate()
            proc.join()


def whole_number(limit: int | None = None, low: int = 1) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` (to ``limit``), with a clear error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from err
        if value < low or (limit is not None and value > limit):
            upper = f"..{limit}" if limit is not None else " or more"
            raise argparse.ArgumentTypeError(
                f"must be a whole number {low}{upper}, got {value}")
        return value

    return parse


def percentile(values: list[int], pct: float) -> int:
    """Nearest-rank percentile: every figure reported is one that really happened."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(pct / 100 * len(ordered))) - 1]


def ms(ns: float) -> str:
    return f"{ns / 1e6:.3f} ms"
