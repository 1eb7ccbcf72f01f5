"""Benchmark: the office's re-rank after one result, and final event -> retained standings.

The tournament is generated, not read from a file: 96 teams in 16 groups of 6 (single round
robin: 240 group matches) in 4 halls, preset ice-hockey-2x20 (rules 000). Every match is
played through the real core (``tests/office/games.py``) with scores and a few penalties
from a seeded RNG, so the office reads exactly the ``events`` payloads a hall publishes.

1. re-rank: every match but the last is finished and the last is live (all its events but
   the final ``match_ended``); then the final arrives. Timed ``--repeat`` times, interleaved:
   (a) what the service does, ``LedgerFold.build`` told the one match that changed (the
   fold is warmed with the live state outside the timed region: office/views/fold.py),
   (b) the baseline, a full ``build`` from all events without a cache. Prints p50/p99/max of
   both and the ratio of the p50s; then p50/p99 of ``rank_group`` for one group alone.
2. final event -> retained standings: starts its own mosquitto on a free port of 127.0.0.1
   (config and data in a temporary directory; stopped by its pid at the end). A real
   ``OfficeService`` (``OfficePeer``, a ``Store`` in the temporary directory) pumps on its
   own thread of this process; the store already holds every match but the last
   ``--matches`` (as after a restart late in the tournament). A publisher plays those
   matches as their halls would, QoS 1 on each hall's ``events`` topic: a match's events
   up to the final are sent and handled first, then the clock starts as the final
   (``match_ended``) is handed to paho and stops when a subscriber receives the retained
   ``standings/<group>`` that counts the match. Prints p50/p99/max. Baseline in the same run
   (5 round trips before each final): the bare broker round trip, publisher -> subscriber,
   QoS 1 retained, of a payload the size of a standings document; prints its p50/p99 and
   the ratio of the p50s (the office's overhead).

``--scale N [N ...]`` measures instead, for cups of about N group matches each
(groups of 6, a hall per 60 matches, a knockout of 7 fed by the first 8 groups):
3. the service's refresh after one result: a real ``OfficeService`` (store on disk, a
   counting peer, a page board) starts with every match stored but the last quarter (at
   most ``--repeat``); those are played one by one, each match's events handled and
   folded, then its final handled and the refresh after it timed: wall and the thread's
   CPU time, p50/p99, and their ratios against the first size. The service's ledger must
   then equal a fold from scratch of the store. Then the refresh after each of the
   office's rulings, ``--rulings`` of each kind, written through a connection of their own
   as the office's commands write them: a group match's score corrected, a result played
   under swapped names settled (review swap), a team's first late forfeit and its second,
   which eliminates it (rules 001 'Waiting period'); p50/p99 each, and its ratio to the
   p50 after a result. The final equality check covers them.
4. at the largest size, final event -> retained standings through mosquitto with every
   hall sending: each hall plays its last ``--per-hall`` matches, the events of all halls
   interleaved at ``--rate`` a second and every hall's retained state once a round; the
   time from each final's publish to the standings that count it, p50/p99/max.

With ``--load`` every core is kept busy by a busy-loop process during both measurements.
A benchmark on real time, not a test: it always exits 0; its figures depend on the machine.

    python bench/office.py [--repeat 200] [--matches 40] [--seed 7] [--load]
    python bench/office.py --scale 240 960 3000 [--rulings 5] [--per-hall 2] [--rate 50]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

# The bench is a folder of scripts, not a package: make the repo top importable (and first,
# so that ``office`` is the package, not this file).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import paho.mqtt.client as paho
from cpuload import busy_cores, ms, percentile, whole_number
from loopclient import subscribed
from mqtt_e2e import free_port, start_broker
from paho.mqtt.enums import CallbackAPIVersion
from report import add_write_docs, run_writing_docs

from arena import presets, wire
from arena.timesource import FakeClock
from arena.tournament.model import ScheduledMatch, Tournament
from arena.tournament.reader import parse_tournament
from office.cli.alerts import settle
from office.peer import OfficePeer
from office.rules import rulings
from office.rules.forfeitscore import forfeit_goals
from office.rules.standings import rank_group
from office.service import OfficeService, ledger_from_store
from office.storage.store import Store
from office.views.alerts import REVIEW, review_data
from office.views.board import SnapshotBoard
from office.views.fold import LedgerFold
from office.views.ledger import MatchDigest, Received, ReviewAction, build
from tests.office.games import Play, hall_event, play

PRESET = "ice-hockey-2x20"
GROUPS, TEAMS, HALLS = 16, 6, 4
NAMES = ("Lions", "Bears", "Wolves", "Eagles", "Hawks", "Owls")
DAY1 = datetime(2026, 12, 5, 8, 0)
# Ice hockey's penalty kinds, mostly minors; the rarer ones also exercise the suspensions.
PENALTIES = (("minor", 12), ("double_minor", 2), ("major", 1), ("misconduct", 1),
             ("game_misconduct", 1))
ROUND_TRIPS_PER_MATCH = 5

Payloads = dict[str, list[dict[str, Any]]]  # match id -> its events payloads, by seq


# -- the tournament ---------------------------------------------------------------------------


def round_robin(teams: list[str]) -> list[list[tuple[str, str]]]:
    """Rounds of a single round robin (circle method): each team once per round."""
    rot = list(teams)
    rounds = []
    for r in range(len(rot) - 1):
        pairs = [(rot[i], rot[-1 - i]) for i in range(len(rot) // 2)]
        rounds.append([(b, a) if (r + i) % 2 else (a, b) for i, (a, b) in enumerate(pairs)])
        rot = [rot[0], rot[-1], *rot[1:-1]]
    return rounds


def group_name(g: int) -> str:
    """A, B, ... Z, BA, BB, ...: letters only (a group name may not end in a digit)."""
    name = chr(ord("A") + g % 26)
    while g >= 26:
        g //= 26
        name = chr(ord("A") + g % 26) + name
    return name


def big_cup(groups: int = GROUPS, halls: int = HALLS, *, knockout: bool = False) -> Tournament:
    """``groups`` groups of 6 in ``halls`` halls; group g plays in hall g % halls, one match
    an hour a hall, rounds interleaved across a hall's groups (the last match scheduled is
    the last group's). ``knockout``: quarter-finals of the first 8 groups' top two, semis
    and a final, after the group stage."""
    names = [group_name(g) for g in range(groups)]
    matches: list[dict[str, Any]] = []
    slot = [0] * halls
    numbers = dict.fromkeys(names, 0)
    rounds = {g: round_robin([f"{g} {n}" for n in NAMES[:TEAMS]]) for g in names}

    def start(hall: int) -> datetime:
        at = DAY1 + timedelta(days=slot[hall] // 12, hours=slot[hall] % 12)
        slot[hall] += 1
        return at

    for r in range(TEAMS - 1):
        for g_index, g in enumerate(names):
            hall = g_index % halls
            for home, away in rounds[g][r]:
                numbers[g] += 1
                matches.append({"id": f"{g}{numbers[g]}", "group": g,
                                "hall": f"hall-{hall + 1}", "start": start(hall),
                                "home": home, "away": away})
    if knockout and groups >= 8:
        last = max(range(halls), key=lambda h: slot[h])
        ko_hall = f"hall-{last + 1}"
        for i in range(4):
            matches.append({"id": f"QF{i + 1}", "stage": "playoff", "hall": ko_hall,
                            "start": start(last), "home": f"{names[2 * i]}1",
                            "away": f"{names[2 * i + 1]}2"})
        for i in range(2):
            matches.append({"id": f"SF{i + 1}", "stage": "playoff", "hall": ko_hall,
                            "start": start(last), "home": f"W:QF{2 * i + 1}",
                            "away": f"W:QF{2 * i + 2}"})
        matches.append({"id": "F", "stage": "playoff", "hall": ko_hall, "start": start(last),
                        "home": "W:SF1", "away": "W:SF2"})
    data = {"name": "Bench Cup", "id": "bench-cup", "preset": PRESET,
            "groups": [{"name": g, "teams": [f"{g} {n}" for n in NAMES[:TEAMS]]}
                       for g in names],
            "matches": matches}
    return parse_tournament(data, "bench-cup", {PRESET: presets.load(PRESET)})


def play_all(t: Tournament, seed: int) -> Payloads:
    """Every match played through the core: seeded scores 0-5 and 0-2 penalties a match."""
    rng = random.Random(seed)
    kinds = [k for k, _ in PENALTIES]
    weights = [w for _, w in PENALTIES]
    out: Payloads = {}
    for m in t.matches:
        if m.group is None:
            continue  # the knockout's matches are not played here
        assert m.home.team is not None and m.away.team is not None
        pens = [(rng.choice(("home", "away")), rng.randint(2, 9),
                 rng.choices(kinds, weights)[0]) for _ in range(rng.choice((0, 0, 1, 2)))]
        game = Play(m.id, m.home.team, m.away.team, rng.randint(0, 5), rng.randint(0, 5), pens)
        out[m.id] = play(m.preset, m.hall, game)
        assert out[m.id][-1]["type"] == "match_ended"
    return out


# -- 1. re-rank after one result --------------------------------------------------------------


def timed(fn: Callable[[], object]) -> int:
    t0 = time.perf_counter_ns()
    fn()
    return time.perf_counter_ns() - t0


def rerank(t: Tournament, games: Payloads, repeat: int) -> None:
    last = t.matches[-1]
    now = DAY1 + timedelta(days=30)
    earlier = now - timedelta(days=1)  # every other final's protest window has passed
    after: dict[str, dict[int, Received]] = {
        mid: {p["seq"]: Received(hall_event(p), now if mid == last.id else earlier)
              for p in payloads}
        for mid, payloads in games.items()}
    before = {**after, last.id: {s: r for s, r in after[last.id].items()
                                 if r.event.type != "match_ended"}}
    everything = [r for seqs in after.values() for r in seqs.values()]
    digests_after = {mid: MatchDigest.of(seqs.values()) for mid, seqs in after.items()}
    digests_before = {**digests_after, last.id: MatchDigest.of(before[last.id].values())}

    check = LedgerFold(t)
    check.build(digests_before, now=now)
    cached = check.build(digests_after, now=now, touched={last.id})
    full = build(t, everything, now=now)
    assert cached == full

    with_cache: list[int] = []
    without: list[int] = []
    for _ in range(repeat):
        fold = LedgerFold(t)
        fold.build(digests_before, now=now)  # the previous refresh: the match live
        with_cache.append(timed(partial(fold.build, digests_after, now=now,
                                        touched={last.id})))
        without.append(timed(partial(build, t, everything, now=now)))

    group = next(g for g in t.groups if g.name == last.group)
    results = [o.result for m in t.group_matches(group.name)
               if (o := cached.matches[m.id].outcome).result is not None]
    ranks = [timed(partial(rank_group, group, results, t.rules, complete=True))
             for _ in range(repeat)]

    print(f"re-rank after one result: {len(t.teams)} teams, {len(t.groups)} groups, "
          f"{len(t.matches)} matches, {len(everything)} events; last match {last.id}; "
          f"{repeat} repetitions")
    for label, values in (("LedgerFold after one result (service)", with_cache),
                          ("build, all events, no cache (baseline)", without)):
        print(f"  {label:40} p50 {ms(percentile(values, 50))}  "
              f"p99 {ms(percentile(values, 99))}  max {ms(max(values))}")
    ratio = percentile(without, 50) / percentile(with_cache, 50)
    print(f"  p50 baseline / p50 service: {ratio:.1f}x")
    print(f"  rank_group, group {group.name} alone ({len(group.teams)} teams, {len(results)} "
          f"results): p50 {ms(percentile(ranks, 50))}  p99 {ms(percentile(ranks, 99))}")


# -- 1b. the service's refresh after one result, by the size of the event -------------------


@dataclass(frozen=True)
class Message:
    topic: str
    payload: bytes


class CountingPeer:
    """The broker side of the service in process: counts what it would publish."""

    def __init__(self) -> None:
        self.published = 0

    def poll(self, timeout: float = 0.0) -> list[Any]:
        return []

    def ack(self, message: Any) -> bool:
        return True

    def publish_retained(self, topic: str, payload: bytes, qos: int = 1) -> None:
        self.published += 1


def scaled(matches: int) -> tuple[Tournament, int]:
    """The cup of about ``matches`` group matches (groups of 6: 15 each), one hall per 60
    matches (4 halls at 240, 50 at 3,000), and a knockout of 7 matches; its hall count."""
    groups = max(8, round(matches / 15))
    halls = max(4, round(groups * 15 / 60))
    return big_cup(groups, halls, knockout=True), halls


def bulk_prefill(store: Store, games: Payloads, ids: list[str], received: datetime) -> int:
    """``prefill`` in one transaction (one fsync, not one an event: 120,000 at 3,000 matches).
    The bench's own shortcut into the store's connection; the office commits every event."""
    n = 0
    with store._lock:
        store._db.execute("BEGIN")
    for mid in ids:
        for p in games[mid]:
            n += store.add_event(hall_event(p), received)
    with store._lock:
        store._db.execute("COMMIT")
    return n


def refresh_by_size(work: Path, size: int, seed: int, results: int, per_kind: int
                    ) -> tuple[int, tuple[int, int, int, int], Tournament, Payloads]:
    """The service's refresh (fold, publish, page snapshot) after one result, ``results``
    times, at a cup of ``size`` matches whose every other match is already stored; prints
    and returns the matches, (p50, p99) of its wall and of its CPU time, the cup, its games."""
    t, halls = scaled(size)
    games = play_all(t, seed)
    group = [m for m in t.matches if m.group is not None]
    results = min(results, len(group) // 4)  # the same late state of the event at every size
    played, measured = group[:-results], group[-results:]
    # Results the office will settle with a review: played under swapped names, spread
    # over the stored ones.
    misnamed = played[len(played) // (2 * per_kind)::max(1, len(played) // per_kind)][:per_kind]
    for m in misnamed:
        games[m.id] = misnamed_game(t, m, seed)
    clock = FakeClock(wall=DAY1 + timedelta(days=30))
    store = Store(work / f"scale-{size}.sqlite")
    stored = bulk_prefill(store, games, [m.id for m in played],
                          clock.wall_datetime() - timedelta(days=1))
    peer = CountingPeer()
    t0 = time.monotonic()
    board = SnapshotBoard()
    service = OfficeService(t, store, peer, board, wall=clock.wall_datetime,
                            monotonic=clock.monotonic)
    service.refresh()
    gc.freeze()  # as `office serve` does after its start
    start_s = time.monotonic() - t0
    refreshes: list[int] = []
    cpu: list[int] = []  # the refresh's own CPU time: what other processes' load leaves out
    stores: list[int] = []
    reads: list[int] = []
    encodes: list[int] = []
    published = 0
    for m in measured:
        topic = wire.hall_topic(t.id, m.hall, wire.EVENTS)
        *live, final = games[m.id]
        for p in live:  # the match played: every event folded, not timed
            service.handle(Message(topic, wire.encode(p)))
            service.refresh_if_needed()
        clock.advance(60)
        before = peer.published
        stores.append(timed(partial(service.handle, Message(topic, wire.encode(final)))))
        cpu0, t0_ns = time.thread_time_ns(), time.perf_counter_ns()
        service.refresh_if_needed()
        refreshes.append(time.perf_counter_ns() - t0_ns)
        cpu.append(time.thread_time_ns() - cpu0)
        # The page's first reader of the new version makes its scorers' entries (board.Later).
        reads.append(timed(board.current))
        encodes.append(timed(partial(json.dumps, board.current(), ensure_ascii=False,
                                     separators=(",", ":"))))  # what office.web.officepage sends
        published += peer.published - before
    rulings_s = rulings_timed(service, work / f"scale-{size}.sqlite", clock,
                              [m for m in played if m not in misnamed], misnamed,
                              count=per_kind)
    assert service.ledger is not None
    fresh = ledger_from_store(t, store, clock.wall_datetime())
    assert service.ledger == fresh, "the incremental fold differs from a fold from scratch"
    store.close()
    p50, p99 = percentile(refreshes, 50), percentile(refreshes, 99)
    c50, c99 = percentile(cpu, 50), percentile(cpu, 99)
    print(f"  {len(t.matches):5} matches ({len(t.groups)} groups, {halls} halls, {stored} "
          f"events stored; service start {start_s:.1f} s), {results} results:\n"
          f"        refresh p50 {ms(p50)}  p99 {ms(p99)}  max {ms(max(refreshes))};  its CPU "
          f"time p50 {ms(c50)}  p99 {ms(c99)};  store+ack of the final p50 "
          f"{ms(percentile(stores, 50))}; {published / len(measured):.1f} retained "
          f"publishes a result;  the page's first read after it p50 "
          f"{ms(percentile(reads, 50))}  p99 {ms(percentile(reads, 99))} (its JSON for the "
          f"page p50 {ms(percentile(encodes, 50))})")
    for label, values in rulings_s:
        print(f"        after {label:34} p50 {ms(percentile(values, 50))}  p99 "
              f"{ms(percentile(values, 99))}  ({percentile(values, 50) / p50:.1f}x the "
              f"refresh after a result)")
    return len(t.matches), (p50, p99, c50, c99), t, games


def misnamed_game(t: Tournament, m: ScheduledMatch, seed: int) -> list[dict[str, Any]]:
    """``m`` as a hall plays it with the teams on the wrong sides (away's name on home):
    the office holds the result for review (ledger ``_misfit``) until it is swapped."""
    assert m.home.team is not None and m.away.team is not None
    rng = random.Random(f"{seed}:{m.id}")
    return play(m.preset, m.hall, Play(m.id, m.away.team, m.home.team, rng.randint(0, 5),
                                       rng.randint(0, 5)))


def rulings_timed(service: OfficeService, db: Path, clock: FakeClock,
                  played: list[ScheduledMatch], misnamed: list[ScheduledMatch], *,
                  count: int) -> list[tuple[str, list[int]]]:
    """The service's refresh after each of the office's rulings, ``count`` of each kind,
    written through a connection of their own as ``office correct``, ``office review`` and
    ``office forfeit --late`` write them (the service reads them on the store's
    data_version): a group match's score corrected, a result played under swapped names
    credited to the schedule's pairing (swap), a team's first late forfeit, and its
    second, which eliminates it (rules 001 'Waiting period': its group matches voided)."""
    t = service.event.categories[0].tournament
    office = Store(db)

    def refresh_after(kind: str, data: dict[str, Any], into: list[int]) -> None:
        clock.advance(60)
        office.admin(kind, data, clock.wall_datetime())
        into.append(timed(service.refresh_if_needed))

    corrected: list[int] = []
    step = max(1, len(played) // (count + 1))
    for i in range(count):
        m = played[(i + 1) * step - 1]
        ledger = service.ledger
        assert ledger is not None
        result = ledger.matches[m.id].outcome.result
        home = (result.home_goals if result is not None else 0) + 1  # another score
        refresh_after("correct", {"match": m.id, "home": home, "away": 0,
                                  "decided_by": None, "reason": "bench: score sheet"}, corrected)
    reviewed: list[int] = []
    for m in misnamed:
        ledger = service.ledger
        assert ledger is not None and ledger.matches[m.id].review is not None
        review = settle(ledger, m.id, ReviewAction.SWAP, "bench: sides swapped",
                        clock.wall_datetime())
        refresh_after(REVIEW, review_data(review, ()), reviewed)
    late: list[int] = []
    eliminating: list[int] = []
    stride = max(1, len(t.groups) // count)
    for i in range(count):
        group = t.groups[(i * stride) % len(t.groups)]
        team = group.teams[-1]
        own = [m for m in t.group_matches(group.name) if team in (m.home.team, m.away.team)]
        for m, into in zip(own[:2], (late, eliminating), strict=True):
            side = "home" if m.home.team == team else "away"
            forfeit = rulings.Forfeit(m.id, team, rulings.ForfeitCause.LATE, "bench: late",
                                      clock.wall_datetime())
            refresh_after(rulings.FORFEIT,
                          rulings.forfeit_data(forfeit, side, forfeit_goals(t, m.id)), into)
    office.close()
    return [("a score correction", corrected), ("a review (swap)", reviewed),
            ("a late forfeit", late), ("a second one (elimination)", eliminating)]


def refresh_scale(work: Path, sizes: list[int], seed: int, results: int, per_kind: int
                  ) -> tuple[Tournament, Payloads]:
    """The refresh at every size; the largest cup and its games (for the broker part)."""
    print(f"refresh after one result, by size: the service (OfficeService, its store on "
          f"disk, a counting peer) with every match stored but the last {results} (at most a "
          f"quarter); those are played one by one, the refresh after each final timed")
    figures = [refresh_by_size(work, size, seed, results, per_kind) for size in sizes]
    base, (b50, b99, bc50, bc99) = figures[0][0], figures[0][1]
    for matches, (p50, p99, c50, c99), _, _ in figures[1:]:
        print(f"  {matches} / {base} matches: p50 {p50 / b50:.2f}x  p99 {p99 / b99:.2f}x;  "
              f"CPU time p50 {c50 / bc50:.2f}x  p99 {c99 / bc99:.2f}x")
    largest = max(figures, key=lambda f: f[0])
    return largest[2], largest[3]


# -- 2. final event -> retained standings through mosquitto -----------------------------------


class Watcher:
    """One client for all the bench's subscriptions: the retained standings (the teams'
    ``played`` summed per group, with the arrival instant) and the bare round trips."""

    def __init__(self, port: int, standings: str, echo: str) -> None:
        self.cond = threading.Condition()
        self.played: dict[str, tuple[int, int]] = {}  # group -> (sum of played, arrival ns)
        self.echoes: dict[int, int] = {}  # round trip number -> arrival ns
        self.size = 0  # bytes of the last standings document
        self.echo = echo
        self.client = subscribed(port, f"bench-office-sub-{os.getpid()}",
                                 [(standings, 1), (echo, 1)], self._on_message)

    def _on_message(self, client: paho.Client, userdata: Any, msg: paho.MQTTMessage) -> None:
        now = time.monotonic_ns()
        if msg.topic == self.echo:
            n = int(msg.payload.split(b" ", 1)[0])
            with self.cond:
                self.echoes.setdefault(n, now)
                self.cond.notify_all()
            return
        if not msg.payload:
            return
        table = wire.check_standings(msg.topic, msg.payload)
        with self.cond:
            self.played[table.group] = (sum(r.played for r in table.rows), now)
            self.size = len(msg.payload)
            self.cond.notify_all()

    def wait(self, ready: Callable[[], bool], what: str, timeout: float = 30) -> None:
        with self.cond:
            if not self.cond.wait_for(ready, timeout):
                raise SystemExit(f"timed out waiting for {what}")

    def echo_arrived(self, n: int) -> int:
        """Wait for round trip ``n``; its arrival instant."""
        self.wait(lambda: n in self.echoes, f"round trip {n}")
        return self.echoes[n]

    def group_played(self, group: str, played: int) -> int:
        """Wait for a table of ``group`` counting ``played``; its arrival instant."""
        self.wait(lambda: self.played[group][0] >= played, f"group {group}'s standings")
        return self.played[group][1]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class ServiceThread:
    """The office's loop (``office serve``'s, without the page) on a thread of its own;
    counts the messages it handled so the bench knows when a match's live events are in."""

    def __init__(self, service: OfficeService) -> None:
        self.service = service
        self.handled = 0
        # What one message's handling took (ns), the store's part of it (its commit), each
        # refresh, each pause of the collector: to tell where a slow final's time went.
        self.handling: list[int] = []
        self.storing: list[tuple[int, int]] = []  # (when it began, how long), perf_counter ns
        self.refreshing: list[int] = []
        self.collecting: list[tuple[int, int, int]] = []  # (when, how long, generation)
        self._gc_at = 0
        self._time(service, "handle", self.handling)
        self._time(service, "refresh_if_needed", self.refreshing)
        store = service.store
        add_event = store.add_event

        def stored(*args: Any) -> bool:
            t0 = time.perf_counter_ns()
            try:
                return add_event(*args)
            finally:
                self.storing.append((t0, time.perf_counter_ns() - t0))

        store.add_event = stored  # type: ignore[method-assign]
        gc.callbacks.append(self._gc)
        self.cond = threading.Condition()
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="office", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.service.refresh()
            while not self.stop.is_set():
                n = self.service.pump(0.05)
                if n:
                    with self.cond:
                        self.handled += n
                        self.cond.notify_all()
        except BaseException as err:  # reported by the bench, not lost on the thread
            self.error = err
            raise

    @staticmethod
    def _time(obj: Any, name: str, into: list[int]) -> None:
        fn = getattr(obj, name)

        def timed_call(*args: Any) -> Any:
            t0 = time.perf_counter_ns()
            try:
                return fn(*args)
            finally:
                into.append(time.perf_counter_ns() - t0)

        setattr(obj, name, timed_call)

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if threading.current_thread() is not getattr(self, "thread", None):
            return
        if phase == "start":
            self._gc_at = time.perf_counter_ns()
        else:
            self.collecting.append((self._gc_at, time.perf_counter_ns() - self._gc_at,
                                    info["generation"]))

    def report(self) -> str:
        """The handling's percentiles and what the slowest ones were made of."""
        slow = [(t, d) for t, d in self.storing if d > 20_000_000]
        gcs = [d for _, d, _ in self.collecting]
        # A slow commit with the collector's pause inside it: the pause, not the disk.
        paused = [max((g for at, g, _ in self.collecting if t <= at and at + g <= t + d),
                      default=0) for t, d in slow]
        full = sorted(d for _, d, gen in self.collecting if gen == 2)
        return (f"  office: one message handled p50 {ms(percentile(self.handling, 50))}  p99 "
                f"{ms(percentile(self.handling, 99))}  max {ms(max(self.handling))} "
                f"({sum(d > 20_000_000 for d in self.handling)} over 20 ms); of it the "
                f"store's commit p50 {ms(percentile([d for _, d in self.storing], 50))}  max "
                f"{ms(max(d for _, d in self.storing))} ({len(slow)} over 20 ms, the "
                f"collector's pause inside them {', '.join(ms(g) for g in paused)}); a refresh "
                f"p99 {ms(percentile(self.refreshing, 99))}  max {ms(max(self.refreshing))}; "
                f"{len(gcs)} collections on its thread, max "
                f"{ms(max(gcs)) if gcs else '-'}, {len(full)} full ones "
                f"{', '.join(ms(g) for g in full)}")

    def wait_handled(self, count: int, timeout: float = 30) -> None:
        with self.cond:
            if not self.cond.wait_for(lambda: self.handled >= count, timeout):
                raise SystemExit(f"the office handled {self.handled} of {count} messages "
                                 f"(error: {self.error!r})")

    def close(self) -> None:
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)
        self.stop.set()
        self.thread.join(10)


def publisher(port: int) -> paho.Client:
    connected = threading.Event()
    c = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                    client_id=f"bench-office-pub-{os.getpid()}", protocol=paho.MQTTv311)
    c.on_connect = lambda *a: connected.set()
    c.max_inflight_messages_set(100)
    c.connect("127.0.0.1", port)
    c.loop_start()
    if not connected.wait(10):
        raise SystemExit("publisher did not connect")
    return c


def prefill(store: Store, games: Payloads, ids: list[str]) -> int:
    """The events of matches played before the office (re)started, straight into the store."""
    received = datetime.now() - timedelta(days=1)  # their protest windows have passed
    n = 0
    for mid in ids:
        for p in games[mid]:
            n += store.add_event(hall_event(p), received)
    return n


def tear_down(store: Store, broker: subprocess.Popen[bytes], *, pub: Any, watcher: Any,
              office: Any, peer: OfficePeer | None) -> None:
    """What a mosquitto measurement started, stopped in reverse: the publisher, the
    subscriber, the office's thread, its peer, the store, then the broker (by its pid)."""
    if pub is not None:
        pub.disconnect()
        pub.loop_stop()
    if watcher is not None:
        watcher.close()
    if office is not None:
        office.close()
    if peer is not None:
        peer.close()
    store.close()
    os.kill(broker.pid, signal.SIGTERM)
    broker.wait(10)


def latency(work: Path, t: Tournament, games: Payloads, matches: int) -> None:
    played = t.matches[-matches:]
    store = Store(work / "office.sqlite")
    t0 = time.monotonic()
    stored = prefill(store, games, [m.id for m in t.matches[:-matches]])
    prefill_s = time.monotonic() - t0

    port = free_port()
    broker = start_broker(work, port)
    peer = office = watcher = pub = None
    try:
        echo = f"bench/office-{os.getpid()}/echo"
        peer = OfficePeer("127.0.0.1", port, t.id, client_id=f"bench-office-{os.getpid()}")
        peer.start()
        deadline = time.monotonic() + 10
        while not peer.subscribed and time.monotonic() < deadline:
            time.sleep(0.01)
        if not peer.subscribed:
            raise SystemExit("the office did not subscribe")
        service = OfficeService(t, store, peer)
        watcher = Watcher(port, wire.standings_filter(t.id), echo)
        office = ServiceThread(service)
        pub = publisher(port)
        # Every group's retained table is there before the first match (its played count
        # is what the office had from the store).
        watcher.wait(lambda: len(watcher.played) == len(t.groups), "the first tables")

        finals: list[int] = []
        trips: list[int] = []
        sent = 0
        trip = 0
        for m in played:
            assert m.group is not None
            topic = wire.hall_topic(t.id, m.hall, wire.EVENTS)
            *live, final = games[m.id]
            for p in live:
                pub.publish(topic, wire.encode(p), qos=1).wait_for_publish(10)
            sent += len(live)
            office.wait_handled(sent)

            size = watcher.size
            for _ in range(ROUND_TRIPS_PER_MATCH):
                trip += 1
                payload = f"{trip} ".encode().ljust(size, b"x")
                start = time.monotonic_ns()
                pub.publish(echo, payload, qos=1, retain=True)
                trips.append(watcher.echo_arrived(trip) - start)

            group = m.group
            target = watcher.played[group][0] + 2  # both teams' played go up by one
            body = wire.encode(final)
            start = time.monotonic_ns()
            pub.publish(topic, body, qos=1)
            finals.append(watcher.group_played(group, target) - start)
            sent += 1
        office.wait_handled(sent)

        print(f"final event -> retained standings through mosquitto: {matches} matches "
              f"published by their halls; the store held {stored} events of "
              f"{len(t.matches) - matches} matches (prefilled in {prefill_s:.1f} s)")
        print(f"  office: match_ended -> standings/<group>  p50 {ms(percentile(finals, 50))}"
              f"  p99 {ms(percentile(finals, 99))}  max {ms(max(finals))}")
        print(f"  bare broker round trip, {watcher.size} B, {len(trips)} times"
              f"     p50 {ms(percentile(trips, 50))}  p99 {ms(percentile(trips, 99))}"
              f"  max {ms(max(trips))}")
        ratio = percentile(finals, 50) / percentile(trips, 50)
        print(f"  p50 office / p50 bare round trip: {ratio:.1f}x; "
              f"{service.refused} messages refused")
        print(office.report())
    finally:
        tear_down(store, broker, pub=pub, watcher=watcher, office=office, peer=peer)


# -- 2b. final -> retained standings through mosquitto, every hall sending -----------------


class FinalsWatcher:
    """Subscribed to every group's retained standings: a final is seen when its group's
    table counts it (the teams' ``played`` summed reaches the final's target)."""

    def __init__(self, port: int, topics: str) -> None:
        self.cond = threading.Condition()
        self.played: dict[str, int] = {}
        self.pending: dict[str, list[tuple[int, int]]] = {}  # group -> (target, sent ns)
        self.latencies: list[int] = []
        self.client = subscribed(port, f"bench-office-finals-{os.getpid()}", [(topics, 1)],
                                 self._on_message)

    def _on_message(self, client: paho.Client, userdata: Any, msg: paho.MQTTMessage) -> None:
        now = time.monotonic_ns()
        if not msg.payload:
            return
        table = wire.check_standings(msg.topic, msg.payload)
        played = sum(r.played for r in table.rows)
        with self.cond:
            self.played[table.group] = played
            waiting = self.pending.get(table.group, [])
            self.latencies.extend(now - sent for target, sent in waiting if played >= target)
            self.pending[table.group] = [w for w in waiting if played < w[0]]
            self.cond.notify_all()

    def expect(self, group: str, target: int, sent: int) -> None:
        with self.cond:
            if self.played.get(group, 0) >= target:
                self.latencies.append(time.monotonic_ns() - sent)  # already there
            else:
                self.pending.setdefault(group, []).append((target, sent))

    def wait(self, ready: Callable[[], bool], what: str, timeout: float = 60) -> None:
        with self.cond:
            if not self.cond.wait_for(ready, timeout):
                raise SystemExit(f"timed out waiting for {what}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def latency_busy(work: Path, t: Tournament, games: Payloads, per_hall: int, rate: float
                 ) -> None:
    """Every hall plays its last ``per_hall`` group matches at once, their events
    interleaved across the halls at ``rate`` a second in all, and each hall's retained
    ``state`` once per round (as a scoreboard sends it every second); the time from a
    final's publish to the retained standings that count it."""
    halls = t.halls()
    queues: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    measured: set[str] = set()
    for hall in halls:
        mine = [m for m in t.matches if m.hall == hall and m.group is not None][-per_hall:]
        measured.update(m.id for m in mine)
        queues[hall] = [(m.id, p) for m in mine for p in games[m.id]]
    store = Store(work / "busy.sqlite")
    t0 = time.monotonic()
    stored = bulk_prefill(store, games, [mid for mid in games if mid not in measured],
                          datetime.now() - timedelta(days=1))
    prefill_s = time.monotonic() - t0
    group_of = {m.id: m.group for m in t.matches}
    port = free_port()
    broker = start_broker(work, port)
    peer = office = watcher = pub = None
    try:
        peer = OfficePeer("127.0.0.1", port, t.id, client_id=f"bench-office-{os.getpid()}")
        peer.start()
        deadline = time.monotonic() + 10
        while not peer.subscribed and time.monotonic() < deadline:
            time.sleep(0.01)
        if not peer.subscribed:
            raise SystemExit("the office did not subscribe")
        service = OfficeService(t, store, peer, SnapshotBoard())
        watcher = FinalsWatcher(port, wire.standings_filter(t.id))
        office = ServiceThread(service)
        pub = publisher(port)
        watcher.wait(lambda: len(watcher.played) == len(t.groups), "the first tables")
        gc.freeze()  # as `office serve` does after its start (and the bench's own games)
        with watcher.cond:
            initial = dict(watcher.played)
        finals = dict.fromkeys(initial, 0)
        period = 1.0 / rate
        due = time.monotonic()
        sent = 0
        started = time.monotonic()
        while any(queues.values()):
            for hall in halls:
                if not queues[hall]:
                    continue
                mid, payload = queues[hall].pop(0)
                topic = wire.hall_topic(t.id, hall, wire.EVENTS)
                body = wire.encode(payload)
                while (left := due - time.monotonic()) > 0:
                    time.sleep(left)
                due += period
                if payload["type"] == "match_ended":
                    group = group_of[mid]
                    assert group is not None
                    finals[group] += 1  # both teams' played go up by one a final
                    start = time.monotonic_ns()
                    pub.publish(topic, body, qos=1)
                    watcher.expect(group, initial[group] + 2 * finals[group], start)
                else:
                    pub.publish(topic, body, qos=1)
                sent += 1
            for hall in halls:  # each hall's state, once a round
                pub.publish(wire.hall_topic(t.id, hall, wire.STATE),
                            wire.encode({"match": queues[hall][0][0] if queues[hall] else None,
                                         "phase": "running", "clock_ms": sent}), qos=0,
                            retain=True)
        total = sum(finals.values())
        watcher.wait(lambda: len(watcher.latencies) >= total, f"{total} finals' standings")
        elapsed = time.monotonic() - started
        lat = watcher.latencies
        print(f"final event -> retained standings through mosquitto, {len(halls)} halls "
              f"sending: {len(t.matches)} matches, the store held {stored} events "
              f"(prefilled in {prefill_s:.1f} s); {sent} events at {sent / elapsed:.0f}/s "
              f"and every hall's state once a round, {total} finals timed")
        print(f"  office: match_ended -> standings/<group>  p50 {ms(percentile(lat, 50))}  "
              f"p99 {ms(percentile(lat, 99))}  max {ms(max(lat))}; "
              f"{service.refused} messages refused")
        print(office.report())
    finally:
        tear_down(store, broker, pub=pub, watcher=watcher, office=office, peer=peer)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=whole_number(), default=200,
                   help="repetitions of the re-rank measurement")
    p.add_argument("--matches", type=whole_number(GROUPS * TEAMS * (TEAMS - 1) // 2), default=40,
                   help="matches published through mosquitto (the last ones scheduled)")
    p.add_argument("--seed", type=int, default=7, help="seed of the scores and penalties")
    p.add_argument("--scale", type=whole_number(), nargs="+", metavar="N",
                   help="instead: the service's refresh after one result at cups of about N "
                        "matches each (e.g. 240 960 3000), ratios against the first, then "
                        "final -> retained standings through mosquitto at the largest, "
                        "its halls all sending")
    p.add_argument("--rulings", type=whole_number(), default=5,
                   help="with --scale: the office's rulings of each kind timed (a score "
                        "correction, a review, a late forfeit, an eliminating one)")
    p.add_argument("--per-hall", type=whole_number(), default=2,
                   help="with --scale: matches each hall plays through mosquitto")
    p.add_argument("--rate", type=float, default=50.0,
                   help="with --scale: hall events a second through mosquitto, all halls "
                        "together (a real game sends a few a minute)")
    p.add_argument("--load", action="store_true",
                   help="keep every core busy (one busy-loop process each) while measuring")
    add_write_docs(p)
    args = p.parse_args()

    if args.scale:
        with busy_cores(args.load) as workers, \
                tempfile.TemporaryDirectory(prefix="office-bench-") as tmp:
            print(f"load: {workers} busy-loop processes" if workers else "load: none")
            t, games = refresh_scale(Path(tmp), args.scale, args.seed, args.repeat,
                                     args.rulings)
            latency_busy(Path(tmp), t, games, args.per_hall, args.rate)
        return 0
    t0 = time.monotonic()
    t = big_cup()
    games = play_all(t, args.seed)
    print(f"{len(t.matches)} matches played through the core in {time.monotonic() - t0:.1f} s "
          f"(seed {args.seed})")
    with busy_cores(args.load) as workers, \
            tempfile.TemporaryDirectory(prefix="office-bench-") as tmp:
        print(f"load: {workers} busy-loop processes (one per core)" if workers
              else "load: none (--load to keep every core busy)")
        rerank(t, games, args.repeat)
        latency(Path(tmp), t, games, args.matches)
    return 0


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "office"))
