"""Benchmark: what the operator view costs the daemon's loop, and how fast the page answers.

The loop's share, per rebuild (at most ten a second): ``operator_document`` for a match
with goals and penalties on the board, the comparison with the last one, and the JSON
encoding (``Snapshot``). The page's share runs on its own threads; it is measured here with
a client on 127.0.0.1 fetching ``/operator.json`` and ``/`` while the loop keeps publishing.
Printed as percentiles; nothing is asserted (a benchmark, not a test).

    python bench/operatorview.py [--rounds 2000]
"""

from __future__ import annotations

import argparse
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpuload import ms, percentile
from report import add_write_docs, run_writing_docs

from arena import presets
from arena.core.commands import Goal, Penalty, Start, Stop
from arena.core.match import Match
from arena.core.phase import Team
from arena.core.state import state_document
from arena.core.units import NS_PER_S
from firmware_py.feedback import Feedback
from firmware_py.operatorview import OfficeLine, operator_document
from firmware_py.operatorweb import OperatorWeb, Snapshot


def a_busy_match() -> Match:
    match = Match(presets.load("ice-hockey-2x20"))
    at = NS_PER_S
    match.apply(Start(at))
    for i in range(6):
        at += 30 * NS_PER_S
        match.advance(at)
        match.apply(Goal(at, Team.HOME if i % 2 else Team.AWAY, 10 + i))
        match.advance(at + NS_PER_S)
        match.apply(Penalty(at + NS_PER_S, Team.AWAY if i % 2 else Team.HOME, 20 + i, "minor"))
    match.advance(at + 2 * NS_PER_S)
    match.apply(Stop(at + 2 * NS_PER_S))
    return match


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, help="rebuilds to time")
    add_write_docs(parser)
    args = parser.parse_args(argv)
    match = a_busy_match()
    feedback = Feedback()
    now = match.state.last_at or 0
    notice = feedback.accepted(Goal(now, Team.HOME, 12), now)
    entry = {"what": "penalty", "team": "home", "player": "7", "stage": "kind",
             "kinds": ["1 minor", "2 double_minor", "3 major"]}
    costs: list[int] = []
    last = None
    for i in range(args.rounds):
        doc = state_document(match, now + i * 100_000_000, entry)
        started = time.perf_counter_ns()
        view = operator_document(match, doc, notice=notice, office=OfficeLine(True, i % 3))
        if view != last:
            last = view
            snapshot = Snapshot(view)
        costs.append(time.perf_counter_ns() - started)
    print(f"loop: build + compare + encode, {args.rounds} rebuilds, "
          f"{len(snapshot.body)} bytes: p50 {ms(percentile(costs, 50))}, "
          f"p99 {ms(percentile(costs, 99))}, max {ms(max(costs))}")
    web = OperatorWeb("127.0.0.1", 0)
    web.start()
    try:
        web.publish(snapshot)
        for path in ("/operator.json", "/"):
            waits: list[int] = []
            for _ in range(200):
                started = time.perf_counter_ns()
                with urllib.request.urlopen(web.url(path), timeout=5) as answer:
                    answer.read()
                waits.append(time.perf_counter_ns() - started)
            print(f"page: GET {path} on 127.0.0.1, 200 requests: p50 "
                  f"{ms(percentile(waits, 50))}, p99 {ms(percentile(waits, 99))}")
    finally:
        web.close()
    return 0


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "operatorview"))
