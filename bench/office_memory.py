"""Benchmark: what the office service holds in memory for a whole tournament's events.

The tournament is ``bench/office.py``'s (240 group matches in 4 halls, every match played
through the real core); each match is padded to ``--per-match`` events with clock stops and
starts before its final (a real match of ice hockey has a few hundred), so the store holds
about 240 x that many events, as at the end of a long tournament day. The store is filled
once, then a fresh ``OfficeService`` opens it (as after a restart) and folds the ledger.

Prints the Python heap the service holds once built (``tracemalloc``: the current size,
after a garbage collection) and the peak while it was built, and how much the process's
resident set grew while it was built.
A benchmark, not a test: it always exits 0; its figures depend on the machine.

    python bench/office_memory.py [--per-match 250] [--seed 7]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware_py import wire
from office.service import OfficeService
from office.store import Store
from tests.office.games import hall_event


def _bench_office() -> Any:
    """``bench/office.py`` (its name is the package's, so loaded by path)."""
    here = Path(__file__).resolve().parent
    sys.path.insert(1, str(here))  # its own imports: cpuload, mqtt_e2e
    spec = importlib.util.spec_from_file_location("bench_office", here / "office.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rss_mib() -> float:
    """The process's resident set now (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def padded(events: list[dict[str, Any]], per_match: int) -> list[dict[str, Any]]:
    """The match's events with clock stops and starts before its final, renumbered."""
    body, final = events[:-1], events[-1]
    out = list(body)
    hall = final[wire.Ev.EVENT_ID].split(":")[0]
    while len(out) < per_match - 1:
        kind = "clock_stopped" if len(out) % 2 else "clock_started"
        out.append({**body[-1], "type": kind, "data": {"period": 1, "clock_ms": 600_000}})
    out.append(final)
    for seq, doc in enumerate(out, start=1):
        out[seq - 1] = {**doc, wire.Ev.SEQ: seq,
                        wire.Ev.EVENT_ID: wire.event_id(hall, doc[wire.Ev.MATCH], seq)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-match", type=int, default=250)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    bench = _bench_office()
    t = bench.big_cup()
    games = bench.play_all(t, args.seed)
    with tempfile.TemporaryDirectory() as work:
        store = Store(Path(work) / "office.sqlite")
        received = datetime.now() - timedelta(days=1)
        n = 0
        for events in games.values():
            for doc in padded(events, args.per_match):
                n += store.add_event(hall_event(doc), received)
        store.close()
        del games
        gc.collect()
        store = Store(Path(work) / "office.sqlite")
        before = _rss_mib()
        started = time.perf_counter()
        tracemalloc.start()
        service = OfficeService(t, store, None)
        service.refresh()
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        took = time.perf_counter() - started
        grown = _rss_mib() - before
        print(f"{n} events stored; the service holds {current / 2**20:.1f} MiB of Python "
              f"objects once built (peak {peak / 2**20:.1f} MiB while building); the "
              f"process's RSS grew by {grown:.0f} MiB; {took:.1f} s (traced, so slower)")
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
