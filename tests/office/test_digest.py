"""The office folds each match as its events arrive (``ledger.MatchDigest``) and keeps only
what it reads of them: the view must be exactly what reading all of a match's events by seq
gives, whatever the arrival order and the duplicates; and what it keeps must not grow with
the number of events (docs/office.md, "The office's faults": memory bounded for a whole event)."""

from __future__ import annotations

import gc
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.files import load_tournament
from arena.tournament.model import Tournament
from office.service import OfficeService
from office.storage import faults
from office.storage.store import Store
from office.views.gapless import Gapless
from office.views.ledger import MatchDigest, Received

from .games import Play, hall_event, play

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 6, 1, 9, 0)


@pytest.fixture(scope="module")
def cup() -> Tournament:
    return load_tournament(ROOT / "examples/tournaments/001-floorball.toml")


@dataclass(frozen=True)
class Ev:
    match: str
    seq: int
    type: str
    data: Mapping[str, Any]


def by_seq(events: list[Received]) -> tuple[Any, Any, tuple[int, ...], int]:
    """The reference: every event kept (first arrival per seq), read in seq order, as the
    ledger read matches before the digest: (live score, final, gaps, top)."""
    seqs: dict[int, Received] = {}
    for item in events:
        seqs.setdefault(item.event.seq, item)
    top = max(seqs, default=0)
    live = final = None
    for n in sorted(seqs):
        ev = seqs[n].event
        score = ev.data.get("score")
        if isinstance(score, Mapping) and isinstance(score.get("home"), int) \
                and isinstance(score.get("away"), int):
            live = (score["home"], score["away"])
        if ev.type == "match_ended":
            final = seqs[n]
        elif (ev.type in ("undone", "cancelled") and ev.data.get("phase") != "final") \
                or ev.type in ("period_started", "clock_started"):
            final = None  # play resumed
    gaps = tuple(n for n in range(1, top) if n not in seqs)
    return live, final, gaps, top


_TYPES = ("clock_started", "clock_stopped", "goal", "period_started", "period_ended",
          "undone", "cancelled", "match_ended", "penalty")
_DATA = st.fixed_dictionaries({}, optional={
    "score": st.one_of(st.fixed_dictionaries({"home": st.integers(0, 9),
                                              "away": st.integers(0, 9)}),
                       st.just({"home": "2", "away": 1}), st.none()),
    "phase": st.sampled_from(["final", "period", "break", "shootout"]),
})
_EVENT = st.tuples(st.integers(1, 40), st.sampled_from(_TYPES), _DATA,
                   st.integers(0, 10_000))


@settings(max_examples=400, deadline=None)
@given(st.lists(_EVENT, max_size=60))
def test_the_digest_reads_a_match_as_reading_all_its_events_by_seq_does(
        drawn: list[tuple[int, str, dict[str, Any], int]]) -> None:
    events = [Received(Ev("A1", seq, kind, data), T0 + timedelta(seconds=s))
              for seq, kind, data, s in drawn]
    digest = MatchDigest.of(events)
    live, final, gaps, top = by_seq(events)
    assert digest.live_score == live
    assert digest.final is final  # the very first arrival of that seq: its receive time
    assert digest.seqs.missing() == gaps
    assert digest.top == top
    assert digest.version == len({seq for seq, *_ in drawn})


@given(st.lists(st.integers(1, 30)))
def test_gapless_knows_every_seq_added_and_the_highest_without_a_gap(seqs: list[int]) -> None:
    g = Gapless(seqs)
    have = set(seqs)
    assert all(n in g for n in have) and not any(n in g for n in range(0, 32) if n not in have)
    upto = 0
    while upto + 1 in have:
        upto += 1
    assert g.upto == upto
    assert g.top == max(have, default=0)


def _received_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Received))


def test_the_service_keeps_one_event_per_finished_match_however_long_it_was(
        tmp_path: Path, cup: Tournament) -> None:
    """Two matches of a few hundred events each: the service keeps their finals, and no
    other event (the page and the commands read the rest from the store)."""
    store = Store(tmp_path / "office.sqlite")
    played = 0
    for m in cup.group_matches("A")[:2]:
        docs = play(m.preset, m.hall, Play(m.id, m.home.team, m.away.team, 1, 0))
        body, last = docs[:-1], docs[-1]
        padded = list(body)
        while len(padded) < 300:  # clock stops and starts before the final
            kind = "clock_stopped" if len(padded) % 2 else "clock_started"
            padded.append({**body[-1], "type": kind,
                           "data": {"period": 1, "clock_ms": 600_000, "score": {
                               "home": 1, "away": 0}}})
        padded.append(last)
        for seq, doc in enumerate(padded, start=1):
            hall = doc["event_id"].split(":")[0]
            store.add_event(hall_event({**doc, "seq": seq,
                                        "event_id": f"{hall}:{doc['match']}:{seq}"}), T0)
            played += 1
    before = _received_alive()
    service = OfficeService(cup, store, None)
    ledger = service.refresh()
    kept = _received_alive() - before
    assert played > 600
    assert kept <= 2, f"the service keeps {kept} events of {played}"
    results = [ledger.matches[m.id].outcome.result for m in cup.group_matches("A")[:2]]
    assert all(r is not None and (r.home_goals, r.away_goals) == (1, 0) for r in results)


def test_at_start_only_the_events_stored_since_the_last_start_are_checked_again(
        tmp_path: Path, cup: Tournament, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path / "office.sqlite")
    first, second = cup.group_matches("A")[:2]
    for m in (first, second):
        for doc in play(m.preset, m.hall, Play(m.id, m.home.team, m.away.team, 2, 1)):
            store.add_event(hall_event(doc), T0)
        if m is first:
            n_first = len(store.events())
    checked: list[str] = []
    real = faults.poison_reason

    def counting(t: Any, e: Any) -> str | None:
        checked.append(e.match)
        return real(t, e)

    monkeypatch.setattr(faults, "poison_reason", counting)
    OfficeService(cup, store, None)
    assert len(checked) == len(store.events()) > n_first  # the first start checks all
    checked.clear()
    OfficeService(cup, store, None)
    assert checked == []  # nothing new: nothing checked again
    m = cup.group_matches("A")[2]
    for doc in play(m.preset, m.hall, Play(m.id, m.home.team, m.away.team, 0, 0)):
        store.add_event(hall_event(doc), T0)
    service = OfficeService(cup, store, None)
    assert set(checked) == {m.id}  # only the rows stored since
    assert service.refresh().matches[m.id].outcome.result is not None

    # Other checks (a new version of the protocol's) check everything again.
    checked.clear()
    monkeypatch.setattr(faults, "checks_version", lambda: "another")
    OfficeService(cup, store, None)
    assert len(checked) == len(store.events())


def test_a_repaired_copy_is_checked_in_full_at_its_first_start(
        tmp_path: Path, cup: Tournament) -> None:
    from office.storage.store import repair_file  # noqa: PLC0415

    store = Store(tmp_path / "office.sqlite")
    m = cup.group_matches("A")[0]
    for doc in play(m.preset, m.hall, Play(m.id, m.home.team, m.away.team, 1, 1)):
        store.add_event(hall_event(doc), T0)
    OfficeService(cup, store, None)
    assert store.checked_upto(faults.checks_version()) == len(store.events())
    store.close()
    repair_file(tmp_path / "office.sqlite", tmp_path / "copy.sqlite")
    copy = Store(tmp_path / "copy.sqlite")
    assert copy.checked_upto(faults.checks_version()) == 0
    assert len(copy.events()) == len(Store(tmp_path / "office.sqlite").events())
