"""The office-side faults a real event meets, staged with real processes on loopback: what
tests/mqtt/test_office_faults.py asserts and bench/faults_office.py reports as rows.

- ``chaos``: SIGKILLs of ``office serve`` and of both halls (``python -m
  firmware_py.replaypublisher``, the real HallLink on a journal) at random moments of a
  two-category event on a seeded schedule; each killed process is started again at once, as
  systemd's ``Restart=`` would. Afterwards the store's events are compared with the halls'
  journals (each stored exactly once) and ``office standings --db`` with a run without kills.
- ``double_delivery``: every event published twice (QoS 1, the second with the same content
  as a hall's re-send after a lost PUBACK); ``bridge_loop``: a venue broker bridged to the
  event broker with the halls' topics both ways (the loop a wrong ``venue.conf`` makes).
- ``damaged_page``: bytes of a page of a running ``office serve``'s store overwritten.
- ``claimed_twice``: two halls play one match: ``hall-1`` (its hall in the schedule, a
  replaypublisher) and then ``hall-2`` (the scoreboard in this process on a fake clock,
  with the real ``HallLink``). The office keeps hall-1's, tells hall-2 (its ``acks``, its
  operator view) and its page says so once; ``office reschedule --force`` gives hall-2 the
  match and every event hall-2 held back is stored.

Every broker and process here is started by this module and ended by its pid.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from firmware_py.loopback import free_port
from tests.fixtures import ROOT, Broker, office_serve, stop_gently, wait_for
from tests.mqtt.conftest import Collector, game_script, publisher

EVENT = "chaos-cup"
# Two categories sharing two halls, each hall playing one match of each (the shape of the
# demo's event, smaller): (category, match, hall, home, away).
MATCHES = (("A", "A1", "hall-1", "Lions", "Bears"), ("B", "B1", "hall-2", "Owls", "Hawks"),
           ("B", "B2", "hall-1", "Hawks", "Owls"), ("A", "A2", "hall-2", "Bears", "Lions"))
HALL_ORDER = {"hall-1": ("A1", "B2"), "hall-2": ("B1", "A2")}


def event_file(directory: Path) -> Path:
    """A two-category event (one tournament file per category, an event file including both)."""
    directory.mkdir(parents=True, exist_ok=True)
    includes = []
    for category in ("A", "B"):
        teams = sorted({t for c, _, _, h, a in MATCHES if c == category for t in (h, a)})
        lines = [f'name = "{category}"', f'id = "{category}"', 'preset = "floorball-2x15"', "",
                 "[[groups]]", 'name = "G"', f"teams = {json.dumps(teams)}"]
        for i, (c, match, hall, home, away) in enumerate(MATCHES):
            if c == category:
                lines += ["", "[[matches]]", f'id = "{match}"', 'group = "G"',
                          f'hall = "{hall}"', f"start = 2026-12-05T{9 + i:02d}:00:00",
                          f'home = "{home}"', f'away = "{away}"']
        path = directory / f"{category}.toml"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        includes.append(path.name)
    event = directory / "event.toml"
    event.write_text(f'[event]\nname = "Chaos Cup"\nid = "{EVENT}"\n'
                     f"include = {json.dumps(includes)}\n", encoding="utf-8")
    return event


def journal_ids(halls: Path) -> list[str]:
    """Every event id the halls' journals hold (each once: a journal numbers gaplessly)."""
    ids = []
    for hall in sorted(HALL_ORDER):
        for match in HALL_ORDER[hall]:
            path = halls / hall / f"{match}.journal"
            if not path.exists():
                continue
            for line in path.read_text(errors="replace").splitlines():
                with contextlib.suppress(ValueError, IndexError):
                    doc = json.loads(line.split(" ", 1)[1])  # after the line's checksum
                    if doc.get("type") == "event":
                        ids.append(f"{hall}:{match}:{doc['seq']}")
    return sorted(ids)


def store_rows(db: Path) -> tuple[list[str], int]:
    """The store's event ids (sorted; the primary key, so a copy would be a second id) and
    its conflicts (an event id sent again with other content)."""
    with contextlib.closing(sqlite3.connect(db)) as con:
        ids = sorted(r[0] for r in con.execute("SELECT event_id FROM events"))
        conflicts = con.execute("SELECT count(*) FROM conflicts").fetchone()[0]
    return ids, int(conflicts)


def standings(event: Path, db: Path) -> str:
    """``office standings --db`` of each category, as the office prints them (JSON)."""
    out = []
    for category in ("A", "B"):
        done = subprocess.run([sys.executable, "-m", "office", "standings", "--tournament",
                               str(event), "--category", category, "--db", str(db), "--json"],
                              cwd=ROOT, capture_output=True, text=True, check=False, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
        out.append(done.stdout)
    return "\n".join(out)


@dataclass
class Hall:
    """One hall: its two matches played in turn by a replaypublisher each, restarted after a
    kill on the same journal (it resumes where the journal ends)."""

    name: str
    work: Path
    port: int
    speed: float
    script: Path
    index: int = 0
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def match(self) -> str | None:
        order = HALL_ORDER[self.name]
        return order[self.index] if self.index < len(order) else None

    @property
    def done(self) -> bool:
        return self.match is None

    def start(self) -> None:
        match = self.match
        assert match is not None and self.proc is None
        _, _, _, home, away = next(m for m in MATCHES if m[1] == match)
        self.proc = publisher(self.script, self.work / self.name, self.port, speed=self.speed,
                              hall=self.name, match=match, log=self.work / f"{self.name}.log",
                              extra=("--tournament", EVENT, "--home", home, "--away", away))
        self.starts += 1

    def poll(self) -> None:
        """On to the next match when this one's publisher ended: it exits 0 only once the
        office's acks hold every event of the match."""
        if self.proc is not None and self.proc.poll() is not None:
            rc, self.proc = self.proc.returncode, None
            if rc == 0:
                self.index += 1
            if not self.done:
                self.start()

    @property
    def ended(self) -> bool:
        """Its publisher has exited (``poll`` takes it on)."""
        return self.proc is not None and self.proc.poll() is not None

    def kill(self) -> bool:
        if self.proc is None or self.proc.poll() is not None:
            return False
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.proc = None
        self.start()
        return True

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None


def _watch_until(condition: Callable[[], bool], instant: float) -> None:
    """Poll ``condition`` until it holds or the monotonic ``instant`` comes (the moment of
    the next kill): a wait on the processes, never a sleep for something to happen."""
    with contextlib.suppress(AssertionError):  # the instant came first
        wait_for(condition, max(0.0, instant - time.monotonic()), "a hall's publisher")


@dataclass
class ChaosResult:
    seed: int
    kills: dict[str, int] = field(default_factory=dict)
    journalled: list[str] = field(default_factory=list)
    stored: list[str] = field(default_factory=list)
    conflicts: int = 0
    tables: str = ""
    seconds: float = 0.0

    @property
    def total_kills(self) -> int:
        return sum(self.kills.values())


def play_event(work: Path, *, kills: int, seed: int, speed: float,
               timeout: float = 240) -> ChaosResult:
    """The event played through a real mosquitto, ``office serve`` and two halls; ``kills``
    SIGKILLs spread over it at random (seeded) moments, each of a random one of the three
    processes still running, each started again at once. Then every hall plays to its end."""
    rng = random.Random(seed)
    result = ChaosResult(seed, {"office": 0, "hall-1": 0, "hall-2": 0})
    began = time.monotonic()
    event = event_file(work / "event")
    script = game_script(work / "game.jsonl")
    broker = Broker(work / "broker")
    broker.start()
    (work / "office").mkdir(parents=True, exist_ok=True)
    office = office_serve(work / "office", broker.port, event)
    halls = [Hall(h, work, broker.port, speed, script) for h in HALL_ORDER]
    try:
        for hall in halls:
            hall.start()
        deadline = time.monotonic() + timeout
        while not all(h.done for h in halls):
            if time.monotonic() > deadline:
                raise AssertionError(f"the event did not end within {timeout} s "
                                     f"(seed {seed}, kills {result.kills})")
            if result.total_kills < kills:
                # A kill every 0.05-0.6 s: inside starting, resuming, connecting and
                # sending, for the halls and for the office alike. Until that moment the
                # halls are watched: one whose publisher ended goes on at once.
                at = time.monotonic() + rng.uniform(0.05, 0.6)
                _watch_until(lambda: any(h.ended for h in halls), at)
                if time.monotonic() < at:
                    for hall in halls:
                        hall.poll()
                    continue
                live = ["office", *(h.name for h in halls if not h.done)]
                target = rng.choice(live)
                if target == "office":
                    office.kill()
                    office.wait()
                    office = office_serve(work / "office", broker.port, event)
                    result.kills["office"] += 1
                elif next(h for h in halls if h.name == target).kill():
                    result.kills[target] += 1
            else:  # the kills done: on as soon as a hall's publisher ends
                _watch_until(lambda: any(h.ended for h in halls), time.monotonic() + 1.0)
            for hall in halls:
                hall.poll()
    finally:
        for hall in halls:
            hall.stop()
        stop_gently(office)
        broker.stop()
    result.seconds = time.monotonic() - began
    db = work / "office" / "office.sqlite"
    result.journalled = journal_ids(work)
    result.stored, result.conflicts = store_rows(db)
    result.tables = standings(event, db)
    return result


# --------------------------------------------------------------------------- delivery


@contextlib.contextmanager
def client(port: int, name: str) -> Iterator[paho.Client]:
    c = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id=name,
                    protocol=paho.MQTTv311)
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        yield c
    finally:
        c.disconnect()
        c.loop_stop()


def match_payloads(hall: str, match: str, home: str, away: str) -> list[bytes]:
    """A whole match's event payloads as its hall sends them (tests/office/games.py)."""
    from tests.office.games import Play, play  # noqa: PLC0415

    return [json.dumps(p).encode()
            for p in play("floorball-2x15", hall, Play(match, home, away, 2, 1))]


def publish_all(port: int, topic: str, payloads: list[bytes], copies: int) -> None:
    with client(port, f"fault-hall-{free_port()}") as c:
        for payload in payloads:
            for _ in range(copies):
                c.publish(topic, payload, qos=1).wait_for_publish(10)


def events_topic(hall: str) -> str:
    return f"arena/v1/{EVENT}/{hall}/events"


def http_json(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return json.loads(r.read())


def wait_stored(db: Path, n: int, timeout: float = 30) -> None:
    wait_for(lambda: db.exists() and _count(db) >= n, timeout, f"{n} events stored")


def _count(db: Path) -> int:
    with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(db)) as con:
        return int(con.execute("SELECT count(*) FROM events").fetchone()[0])
    return -1


@dataclass
class DeliveryResult:
    sent: int  # distinct events
    delivered: int  # copies the event broker handed to a subscriber of the halls' topics
    stored: list[str]
    conflicts: int


def double_delivery(work: Path, *, bridge: str | None = None,
                    timeout: float = 30) -> DeliveryResult:
    """One match's events published twice each, and the office's store read back.

    ``bridge``: None, the hall publishes to the event broker itself; ``"loop"``, it publishes
    to a venue broker bridged to the event broker with the halls' events both ways (``topic
    arena/v1/# both 1``: the venue's events go out and come back in)."""
    event = event_file(work / "event")
    central = Broker(work / "central")
    central.start()
    venue: Broker | None = None
    if bridge is not None:
        venue = Broker(work / "venue", extra="\n".join([
            "connection loop", f"address 127.0.0.1:{central.port}",
            "bridge_protocol_version mqttv311", "try_private true",
            "cleansession false", "restart_timeout 1 2",
            "topic arena/v1/# both 1"]))
        venue.start()
    (work / "office").mkdir(parents=True, exist_ok=True)
    office = office_serve(work / "office", central.port, event)
    watch = Collector(central.port, "arena/#", client_id="fault-watch",
                      persistent=False)
    db = work / "office" / "office.sqlite"
    try:
        wait_for(watch.subscribed.is_set, 10, "the watcher's subscription")
        wait_for(lambda: bool(watch.on("/acks")), 30, "the office's first acks")
        payloads = match_payloads("hall-1", "A1", "Lions", "Bears")
        if venue is not None:
            # The bridge is up once a message through it arrives.
            with client(venue.port, "fault-probe") as probe:
                def through() -> bool:
                    probe.publish("arena/v1/probe", b"1", qos=1).wait_for_publish(1)
                    return watch_probe(watch)
                wait_for(through, 30, "the bridge to be up", step=0.2)
        port = venue.port if venue is not None else central.port
        publish_all(port, events_topic("hall-1"), payloads, copies=2)
        # A marker after the copies, on their topic and route (another match's first
        # event): once it is stored, every copy before it has been handed to the office
        # (QoS 1 keeps one publisher's order on a topic). A wait on that, not a sleep.
        marker = match_payloads("hall-1", "B2", "Hawks", "Owls")[0]
        publish_all(port, events_topic("hall-1"), [marker], copies=1)
        wait_for(lambda: "hall-1:B2:1" in store_rows(db)[0] if db.exists() else False,
                 timeout, "the marker after the copies stored")
        wait_stored(db, len(payloads) + 1, timeout)
        stored, conflicts = store_rows(db)
        return DeliveryResult(len(payloads), len(_of_match(watch.on("/events"), "A1")),
                              [i for i in stored if i.startswith("hall-1:A1:")], conflicts)
    finally:
        watch.close()
        stop_gently(office)
        if venue is not None:
            venue.stop()
        central.stop()


def _of_match(payloads: list[bytes], match: str) -> list[bytes]:
    out = []
    for payload in payloads:
        with contextlib.suppress(ValueError):
            if json.loads(payload).get("match") == match:
                out.append(payload)
    return out


def watch_probe(watch: Collector) -> bool:
    with watch.lock:
        return any(t == "arena/v1/probe" for t, _ in watch.messages)


@dataclass
class DamageResult:
    check_exit: int
    check_output: str
    served_before: Any
    served_after: Any
    store_error: str | None
    stored_after: int
    alive: bool
    log: str


def damaged_page(work: Path, table: str = "events") -> DamageResult:
    """``office serve`` storing a match; then bytes of a page of ``table`` in its store are
    overwritten while it runs, another match's events are published, and ``office check``
    and the office's page are read."""
    event = event_file(work / "event")
    broker = Broker(work / "broker")
    broker.start()
    (work / "office").mkdir(parents=True, exist_ok=True)
    http = free_port()
    office = office_serve(work / "office", broker.port, event, http=http)
    db = work / "office" / "office.sqlite"
    watch = Collector(broker.port, "arena/#", client_id="fault-watch", persistent=False)
    try:
        wait_for(lambda: bool(watch.on("/acks")), 30, "the office's first acks")
        first = match_payloads("hall-1", "A1", "Lions", "Bears")
        publish_all(broker.port, events_topic("hall-1"), first, copies=1)
        wait_stored(db, len(first))
        wait_for(lambda: _tables(http) is not None, 30, "the office's page")
        before = _tables(http)
        damage(db, table)
        second = match_payloads("hall-2", "B1", "Owls", "Hawks")
        publish_all(broker.port, events_topic("hall-2"), second, copies=1)
        wait_for(lambda: office.poll() is not None
                 or http_json(http, "/api/snapshot")["office"].get("store_error"),
                 30, "the office to meet the damage")
        snap = http_json(http, "/api/snapshot") if office.poll() is None else {}
        done = subprocess.run([sys.executable, "-m", "office", "check", "--db", str(db)],
                              cwd=ROOT, capture_output=True, text=True, timeout=60,
                              check=False)
        return DamageResult(done.returncode, done.stdout + done.stderr, before, _tables(http),
                            snap.get("office", {}).get("store_error"), _count(db),
                            office.poll() is None,
                            (work / "office" / "office.log").read_text(errors="replace"))
    finally:
        watch.close()
        stop_gently(office)
        broker.stop()


def _tables(http: int) -> Any:
    with contextlib.suppress(OSError, ValueError):
        snap = http_json(http, "/api/snapshot")
        return snap.get("categories") or snap.get("standings") or snap
    return None


def damage(db: Path, table: str) -> int:
    """Overwrite the middle of ``table``'s root page (after a checkpoint, so that the page
    is read from the main file, not the WAL); the page number."""
    with contextlib.closing(sqlite3.connect(db)) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                           (table,)).fetchone()[0]
        size = con.execute("PRAGMA page_size").fetchone()[0]
    with open(db, "r+b") as f:
        f.seek((root - 1) * size)
        f.write(b"\xff" * 16)  # the page header: type, free blocks, cell count
        f.flush()
        os.fsync(f.fileno())
    return int(root)


# --------------------------------------------------------------------------- one match, two halls


@dataclass
class ClaimResult:
    first_sent: int  # hall-1's events of the match (its publisher exited 0: all stored)
    first_exit: int
    refused: dict[str, str]  # what hall-2's link took from its acks
    held: int  # hall-2's events not stored while refused
    view: str  # the operator page's office line, and the window's lines
    alerts: list[str]  # the office page's alerts on the claim
    refusals: int  # events refused by the office (each logged, counted)
    stored_before: int  # hall-2's events stored before the reschedule
    journalled: int  # hall-2's events in its journal
    stored_after: int  # hall-2's events stored after it
    refused_after: dict[str, str]
    unacked_after: int


CLAIM_GAME = [{"t": 0, "do": "start"}, {"t": 1, "do": "goal", "team": "away", "player": 9},
              {"t": 10, "do": "end"}, {"t": 11, "do": "end"}, {"t": 12, "do": "end"}]


def claimed_twice(work: Path, timeout: float = 60) -> ClaimResult:
    """Match A1 played by hall-1 (the schedule's) and then by hall-2, through a real
    mosquitto and ``office serve``; then ``office reschedule A1 --hall hall-2 --force``."""
    from arena.core.phase import Phase  # noqa: PLC0415 (the scoreboard, only here)
    from arena.core.units import NS_PER_S  # noqa: PLC0415
    from display.operatorwindow import operator_lines  # noqa: PLC0415
    from firmware_py.operatorview import operator_document  # noqa: PLC0415
    from firmware_py.operatorweb import body_html  # noqa: PLC0415
    from firmware_py.parts import HallParts  # noqa: PLC0415
    from tests.daemon.conftest import write_script  # noqa: PLC0415
    from tests.daemon.inprocess import InProcessHall, TestParts  # noqa: PLC0415

    event = event_file(work / "event")
    broker = Broker(work / "broker")
    broker.start()
    (work / "office").mkdir(parents=True, exist_ok=True)
    http = free_port()
    office = office_serve(work / "office", broker.port, event, http=http)
    db = work / "office" / "office.sqlite"
    scripts = work / "scripts"
    scripts.mkdir(parents=True, exist_ok=True)
    write_script(scripts / "A1.jsonl", CLAIM_GAME)
    hall = InProcessHall(work / "hall-2", f"""
[match]
preset = "floorball-2x15"
id = "A1"
home = "Lions"
away = "Bears"
[display]
final_hold_s = 1
[mqtt]
broker = "mqtt://127.0.0.1:{broker.port}"
tournament = "{EVENT}"
hall = "hall-2"
""")
    try:
        first = publisher(game_script(work / "game.jsonl"), work / "hall-1", broker.port,
                          speed=0, hall="hall-1", match="A1", log=work / "hall-1.log",
                          extra=("--tournament", EVENT, "--home", "Lions", "--away", "Bears"))
        first_exit = first.wait(timeout=timeout)
        first_sent = len(_hall_ids(db, "hall-1"))
        daemon = hall.start(script_dir=scripts, parts=TestParts(
            link_factory=lambda cfg, on_next, on_standings: HallParts().link(
                cfg, on_next, on_standings)))
        link = daemon.link
        assert link is not None

        def play_on(until: Any, what: str) -> None:
            def step() -> bool:
                assert office.poll() is None, (work / "office" / "office.log").read_text()
                daemon.run_until(hall.time.now + NS_PER_S)  # fake time: a second a look
                link.pump()
                return bool(until())
            wait_for(step, timeout, what)

        def refused_and_final() -> bool:
            return daemon.match.state.phase is Phase.FINAL and bool(link.refused)

        play_on(refused_and_final, "hall-2's match played and its refusal heard")
        held, refused = link.unacked, dict(link.refused)
        doc = operator_document(daemon.match, daemon.document(hall.time.now),
                                office=daemon.office.view())
        view = body_html(doc) + "\n" + "\n".join(line.text for line in operator_lines(doc))

        def claim_alerts() -> list[str]:
            return [str(a["text"]) for a in http_json(http, "/api/snapshot").get("alerts", [])
                    if "sends events of it" in str(a.get("text"))]

        wait_for(lambda: bool(claim_alerts()), timeout, "the office's alert on the claim")
        alerts = claim_alerts()
        refusals = int(http_json(http, "/api/snapshot")["office"].get("refused_total", -1))
        stored_before = len(_hall_ids(db, "hall-2"))
        done = subprocess.run(
            [sys.executable, "-m", "office", "reschedule", "A1", "--hall", "hall-2", "--force",
             "--reason", "hall-2 played it", "--tournament", str(event), "--db", str(db)],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        journalled = len(_journal_events(hall.state_dir / "A1.journal"))
        play_on(lambda: not link.refused and link.unacked == 0,
                "hall-2's events stored once the office gave it the match")
        return ClaimResult(first_sent, first_exit, refused, held, view, alerts, refusals,
                           stored_before, journalled, len(_hall_ids(db, "hall-2")),
                           dict(link.refused), link.unacked)
    finally:
        if hall.daemon is not None:
            hall.stop()
        stop_gently(office)
        broker.stop()


def _hall_ids(db: Path, hall: str) -> list[str]:
    ids, _ = store_rows(db) if db.exists() else ([], 0)
    return [i for i in ids if i.startswith(f"{hall}:A1:")]


def _journal_events(path: Path) -> list[dict[str, Any]]:
    from firmware_py.journal import scan  # noqa: PLC0415

    return [r for r in scan(path.read_bytes(), str(path)).records if r.get("type") == "event"]


__all__ = ["EVENT", "HALL_ORDER", "MATCHES", "ChaosResult", "ClaimResult", "Collector",
           "claimed_twice", "client",
           "event_file", "events_topic", "http_json", "journal_ids", "match_payloads",
           "play_event", "publish_all", "standings", "store_rows", "wait_stored"]
