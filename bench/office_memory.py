"""Benchmark: what the office service holds in memory for a whole tournament's events.

The tournament is ``bench/office.py``'s (240 group matches in 4 halls, every match played
through the real core); each match is padded to ``--per-match`` events with clock stops and
starts before its final (a real match of ice hockey has a few hundred), so the store holds
about 240 x that many events, as at the end of a long tournament day. The store is filled
once, then a fresh ``OfficeService`` opens it (as after a restart) and folds the ledger.

Prints, for each size, the Python heap the service holds once built (``tracemalloc``: the
current size, after a garbage collection), the peak while it was built, how much the
process's resident set grew, and how long a start takes when every stored event is checked
and when none is new since the last start; with the held memory as a ratio of the first
size's (the baseline, run in the same process): bounded memory keeps that near 1.
A benchmark, not a test: it always exits 0; its figures depend on the machine.

    python bench/office_memory.py [--per-match 50 250] [--seed 7]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from report import add_write_docs, run_writing_docs

from arena import wire
from office.service import OfficeService
from office.storage.store import Store
from tests.office.games import hall_event


def _bench_office() -> Any:
    """``bench/office.py`` (bench/office_module.py loads it by path)."""
    from office_module import bench_office  # noqa: PLC0415 - beside this script

    return bench_office()


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


def measure(t: Any, games: dict[str, list[dict[str, Any]]], per_match: int) -> dict[str, float]:
    """Fill a store with every match padded to ``per_match`` events, then open it twice as
    the office does after a restart: the first start checks every stored event, the second
    only those stored since (none)."""
    with tempfile.TemporaryDirectory() as work:
        store = Store(Path(work) / "office.sqlite")
        received = datetime.now() - timedelta(days=1)
        n = 0
        for events in games.values():
            for doc in padded(events, per_match):
                n += store.add_event(hall_event(doc), received)
        store.close()
        gc.collect()
        store = Store(Path(work) / "office.sqlite")
        before = _rss_mib()
        tracemalloc.start()
        service = OfficeService(t, store, None)
        service.refresh()
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        grown = _rss_mib() - before
        del service
        gc.collect()
        started = time.perf_counter()
        OfficeService(t, store, None).refresh()  # checks nothing: all checked at the first
        second = time.perf_counter() - started
        store.set_checked_upto("none", 0)  # as before the first start: check everything
        started = time.perf_counter()
        OfficeService(t, store, None).refresh()
        first = time.perf_counter() - started
        store.close()
    return {"events": n, "held": current / 2**20, "peak": peak / 2**20, "rss": grown,
            "first": first, "second": second}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-match", type=int, nargs="+", default=[50, 250],
                        help="events per match: the first is the baseline of the ratios")
    parser.add_argument("--seed", type=int, default=7)
    add_write_docs(parser)
    args = parser.parse_args()
    bench = _bench_office()
    t = bench.big_cup()
    games = bench.play_all(t, args.seed)
    rows = [measure(t, games, n) for n in args.per_match]
    base = rows[0]
    print(f"{'events':>8} {'held MiB':>9} {'peak MiB':>9} {'RSS +MiB':>9} "
          f"{'start, all checked':>19} {'start, none new':>16} {'held x base':>12}")
    for r in rows:
        print(f"{int(r['events']):>8} {r['held']:>9.1f} {r['peak']:>9.1f} {r['rss']:>9.0f} "
              f"{r['first']:>17.2f} s {r['second']:>14.2f} s {r['held'] / base['held']:>11.2f}x")
    print("held: Python objects the service keeps once built (tracemalloc, after a garbage "
          "collection); peak: while building; RSS: the process's growth while building. "
          "The starts are untraced.")
    return 0


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "office_memory"))
