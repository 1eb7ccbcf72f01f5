"""Rows of bench/faults.py: the office-side faults, staged with real mosquittos, a real
``office serve`` and real halls on loopback (tests/mqtt/officefaults.py; the tests of
tests/mqtt/test_office_faults.py assert the same runs with 10 kills instead of ``kills``).

Each row is (fault, expected, happened, verdict), staged for real."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.mqtt.officefaults import claimed_twice, damaged_page, double_delivery, play_event

OfficeRow = tuple[str, str, str, str]  # fault, expected, happened, verdict


def _verdict(ok: bool) -> str:
    return "ok" if ok else "FAILS"


def delivery_rows(work: Path) -> list[OfficeRow]:
    rows = []
    for bridge, fault in ((None, "double delivery (every event twice)"),
                          ("loop", "venue bridge loop (topics both ways)")):
        r = double_delivery(work / (bridge or "twice"), bridge=bridge)
        ok = len(r.stored) == r.sent == len(set(r.stored)) and r.conflicts == 0
        rows.append((fault, f"{r.sent} events stored once, no conflict",
                     f"{r.delivered} copies delivered, {len(r.stored)} stored, "
                     f"{r.conflicts} conflicts", _verdict(ok)))
    return rows


def damage_row(work: Path) -> OfficeRow:
    r = damaged_page(work / "damage")
    named = [line.split(": ", 1)[-1] for line in r.check_output.splitlines()
             if "is damaged" in line]
    ok = (r.alive and r.served_after == r.served_before and r.check_exit == 1 and bool(named)
          and r.store_error is not None and "office check" in r.store_error)
    return ("SQLite page damaged while serving",
            "check names it; tables still served; page says it cannot store",
            f"serve {'up' if r.alive else 'DOWN'}, check exit {r.check_exit} "
            f"({'; '.join(named) or 'nothing named'}), page: "
            f"{(r.store_error or 'no error shown')[:60]}", _verdict(ok))


def chaos_row(work: Path, kills: int, seed: int) -> OfficeRow:
    calm = play_event(work / "calm", kills=0, seed=seed, speed=120)
    chaos = play_event(work / "chaos", kills=kills, seed=seed, speed=120, timeout=600)
    once = chaos.stored == chaos.journalled
    ok = once and chaos.conflicts == 0 and chaos.tables == calm.tables \
        and chaos.total_kills == kills
    by = ", ".join(f"{k} {v}" for k, v in chaos.kills.items())
    return (f"{kills} SIGKILLs of office and halls (seed {seed})",
            "every event stored once; tables = a run without kills",
            f"kills: {by}; {len(chaos.stored)}/{len(chaos.journalled)} journalled events "
            f"stored{' once' if once else ' NOT once'}, {chaos.conflicts} conflicts, tables "
            f"{'equal' if chaos.tables == calm.tables else 'DIFFER'}; {chaos.seconds:.0f} s "
            f"(calm run {calm.seconds:.0f} s)", _verdict(ok))


def replay_row(work: Path) -> OfficeRow:
    r = claimed_twice(work / "claimed")
    told = "office refuses match A1: played in hall-1" in r.view
    ok = (r.first_exit == 0 and r.refused == {"A1": "hall-1"} and told
          and len(r.alerts) == 1 and r.stored_before == 0 and r.held == r.journalled
          and r.stored_after == r.journalled and r.refused_after == {}
          and r.unacked_after == 0)
    return ("replayed match claimed by two halls",
            "first claim wins, the other hall is told; reschedule --force lets it in",
            f"hall-1's {r.first_sent} stored; hall-2 told "
            f"{', '.join(f'{m} played in {h}' for m, h in r.refused.items()) or 'nothing'}, "
            f"{r.held} held ({r.refusals} refused), operator view "
            f"{'says so' if told else 'SILENT'}, {len(r.alerts)} page alert; after the "
            f"reschedule {r.stored_after}/{r.journalled} of hall-2's stored",
            _verdict(ok))


def rows(kills: int = 50, seed: int = 20261205) -> list[OfficeRow]:
    with tempfile.TemporaryDirectory(prefix="faults-office-") as tmp:
        work = Path(tmp)
        return [*delivery_rows(work), damage_row(work), chaos_row(work, kills, seed),
                replay_row(work)]


def print_table(table: list[OfficeRow]) -> None:
    head = ("fault", "expected", "happened", "verdict")
    widths = [max(len(head[i]), *(len(r[i]) for r in table)) for i in range(3)]
    print(" | ".join(f"{h:<{w}}" for h, w in zip(head[:3], widths, strict=True))
          + f" | {head[3]}")
    print("-+-".join("-" * w for w in widths) + "-+-" + "-" * 7)
    for row in table:
        print(" | ".join(f"{c:<{w}}" for c, w in zip(row[:3], widths, strict=True))
              + f" | {row[3]}")
