"""End to end: two scripted halls publish through a real mosquitto; ``office serve`` stores,
ranks, fills the bracket and publishes the retained tables and each hall's ``next``.

Everything is a real process (the halls are ``python -m firmware_py.replaypublisher``, the office is
``python -m office serve``); the test waits for conditions with bounded polling, never for
time to pass.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from arena.wire import event_document
from firmware_py.journal import scan
from tests.fixtures import (
    ROOT,
    Broker,
    free_port,
    office_serve,
    port_open,
    stop_gently,
    wait_for,
)
from tests.mqtt.conftest import Collector

pytestmark = pytest.mark.slow  # every test here starts a process

TOURNAMENT = """
name = "Two Hall Cup"
id = "two-hall-cup"
preset = "floorball-2x15"

[standings]
protest_window_min = 0
# A red card bans the next match at once (a stricter override than rules 001's, so the
# ban shows in a `next` within this short tournament).
suspensions = [{name = "red card", kinds = ["match"], bans = [1]}]

[[groups]]
name = "A"
teams = ["Lions", "Bears", "Wolves"]

[[groups]]
name = "B"
teams = ["Eagles", "Hawks", "Owls"]

[[matches]]
id = "A1"
group = "A"
hall = "hall-1"
start = 2026-12-05T09:00:00
home = "Lions"
away = "Bears"

[[matches]]
id = "A2"
group = "A"
hall = "hall-1"
start = 2026-12-05T10:00:00
home = "Bears"
away = "Wolves"

[[matches]]
id = "A3"
group = "A"
hall = "hall-1"
start = 2026-12-05T11:00:00
home = "Wolves"
away = "Lions"

[[matches]]
id = "B1"
group = "B"
hall = "hall-2"
start = 2026-12-05T09:00:00
home = "Eagles"
away = "Hawks"

[[matches]]
id = "B2"
group = "B"
hall = "hall-2"
start = 2026-12-05T10:00:00
home = "Hawks"
away = "Owls"

[[matches]]
id = "B3"
group = "B"
hall = "hall-2"
start = 2026-12-05T11:00:00
home = "Owls"
away = "Eagles"

[[matches]]
id = "F"
stage = "playoff"
preset = "floorball-2x20"
hall = "hall-1"
start = 2026-12-05T13:00:00
home = "A1"
away = "B1"

[[matches]]
id = "P3"
stage = "placement"
preset = "floorball-2x20"
hall = "hall-2"
start = 2026-12-05T13:00:00
home = "A2"
away = "B2"
"""

# (match, home, away, home goals, away goals, penalties (side, player, kind))
HALL_1 = [("A1", "Lions", "Bears", 3, 1, []), ("A2", "Bears", "Wolves", 2, 0, []),
          ("A3", "Wolves", "Lions", 1, 1, [])]
HALL_2 = [("B1", "Eagles", "Hawks", 0, 2, []), ("B2", "Hawks", "Owls", 1, 1, []),
          ("B3", "Owls", "Eagles", 0, 3, [("away", 9, "match")])]


def script(path: Path, home_goals: int, away_goals: int,
           penalties: list[tuple[str, int, str]]) -> Path:
    lines: list[dict[str, Any]] = [{"t": 0, "do": "start"}]
    t = 10
    for side, n in (("home", home_goals), ("away", away_goals)):
        for i in range(n):
            lines.append({"t": t, "do": "goal", "team": side, "player": 10 + i})
            t += 10
    for side, player, kind in penalties:
        lines.append({"t": t, "do": "penalty", "team": side, "player": player, "kind": kind})
        t += 10
    lines += [{"t": t, "do": "end"}, {"t": t + 1, "do": "end"}, {"t": t + 2, "do": "end"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def play_hall(tmp: Path, port: int, hall: str, games: list[Any]) -> None:
    for match, home, away, hg, ag, pens in games:
        s = script(tmp / f"{match}.jsonl", hg, ag, pens)
        done = subprocess.run(
            [sys.executable, "-m", "firmware_py.replaypublisher", str(s),
             "--preset", "floorball-2x15",
             "--journal", str(tmp / hall), "--broker", f"mqtt://127.0.0.1:{port}",
             "--tournament", "two-hall-cup", "--hall", hall, "--match", match,
             "--home", home, "--away", away, "--speed", "0", "--timeout", "60"],
            cwd=ROOT, capture_output=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr.decode()


class Retained:
    """The latest retained document per topic under the tournament."""

    def __init__(self, port: int) -> None:
        self.collector = Collector(port, "arena/v1/two-hall-cup/#", client_id="test-retained",
                                   persistent=False)

    def latest(self, suffix: str) -> Any:
        payloads = self.collector.on(suffix)
        if not payloads or not payloads[-1]:
            return None
        return json.loads(payloads[-1])

    def close(self) -> None:
        self.collector.close()


def start_office(tmp_path: Path, port: int, http: int | None = None
                 ) -> subprocess.Popen[bytes]:
    (tmp_path / "cup.toml").write_text(TOURNAMENT)
    return office_serve(tmp_path, port, tmp_path / "cup.toml", http=http)


def stored_events(db: Path) -> int:
    with sqlite3.connect(db) as c:
        return int(c.execute("SELECT COUNT(*) FROM events").fetchone()[0])


def test_two_halls_through_mosquitto_give_tables_bracket_and_next(
        tmp_path: Path, broker: Broker) -> None:
    http = free_port()
    office = start_office(tmp_path, broker.port, http)
    retained = Retained(broker.port)
    try:
        # The office publishes each hall's first match as soon as it is connected (and so
        # subscribed, with its persistent session).
        wait_for(lambda: (retained.latest("hall-1/next") or {}).get("match") == "A1", 30,
                 "the office's first next for hall-1")
        halls = [threading.Thread(target=play_hall, args=(tmp_path, broker.port, h, g))
                 for h, g in (("hall-1", HALL_1), ("hall-2", HALL_2))]
        for t in halls:
            t.start()
        for t in halls:
            t.join(timeout=300)

        def table(group: str) -> list[tuple[str, int]]:
            doc = retained.latest(f"standings/{group}") or {"rows": []}
            return [(r["team"], r["points"]) for r in doc["rows"]]

        # Rules 001 'Qualifying criteria' 1: points (2 a win, 1 a draw).
        wait_for(lambda: table("A") == [("Lions", 3), ("Bears", 2), ("Wolves", 1)], 30,
                 f"group A ranked (now {table('A')})")
        wait_for(lambda: table("B") == [("Hawks", 3), ("Eagles", 2), ("Owls", 1)], 30,
                 f"group B ranked (now {table('B')})")
        standings_a = retained.latest("standings/A")
        assert standings_a["complete"] and not standings_a["provisional"]
        assert [r["decided_by"] for r in standings_a["rows"]] == ["points", "points", None]

        # The bracket: F = A1-B1 in hall-1, P3 = A2-B2 in hall-2, with the red card of B3
        # (Eagles #9, away in P3) suspending him for it.
        def nxt(hall: str) -> dict[str, Any]:
            return retained.latest(f"{hall}/next") or {}

        wait_for(lambda: nxt("hall-1").get("match") == "F", 30, "hall-1's next is the final")
        final = nxt("hall-1")
        assert (final["teams"]["home"]["name"], final["teams"]["away"]["name"]) == (
            "Lions", "Hawks")
        assert final["stage"] == "playoff" and final["preset"] == "floorball-2x20"
        wait_for(lambda: nxt("hall-2").get("match") == "P3", 30, "hall-2's next is P3")
        p3 = nxt("hall-2")
        assert (p3["teams"]["home"]["name"], p3["teams"]["away"]["name"]) == (
            "Bears", "Eagles")
        assert p3["suspended"] == [{"team": "away", "player": 9}]

        # The office page's data and exports, from the running service.
        wait_for(lambda: port_open(http), 30, "the office page")
        page = json.loads(_get(http, "/api/snapshot"))
        assert [r["team"] for r in page["groups"][0]["rows"]] == ["Lions", "Bears", "Wolves"]
        assert {h["hall"]: h["next"] for h in page["halls"]} == {"hall-1": "F", "hall-2": "P3"}
        assert any(s["team"] == "Eagles" and s["pending"] == ["P3"]
                   for s in page["suspensions"])
        tables = _get(http, "/tables.csv").decode("utf-8-sig").splitlines()
        assert tables[1].startswith("A,1,Lions,")
        total = stored_events(tmp_path / "office.sqlite")

        # A hall's events delivered twice and out of order change nothing.
        replay = [json.loads(line) for line in _journal_payloads(tmp_path / "hall-2", "B2")]
        random.Random(3).shuffle(replay)
        _publish_raw(broker.port, "arena/v1/two-hall-cup/hall-2/events",
                     [json.dumps(d).encode() for d in replay + replay[:5]])
        # Garbage of every kind, each refused with a log line naming topic and reason.
        b3 = json.loads(_journal_payloads(tmp_path / "hall-2", "B3")[0])
        stranger = {**b3, "match": "Z9", "event_id": "hall-2:Z9:1"}
        wrong_hall = {**b3, "event_id": "hall-1:B3:1"}
        base = "arena/v1/two-hall-cup"
        garbage = [
            (f"{base}/hall-2/events", b"not json {", "not JSON"),
            (f"{base}/hall-2/events", json.dumps({"seq": 1}).encode(), "'event_id'"),
            (f"{base}/hall-9/events", json.dumps(b3).encode(), "hall-9"),
            (f"{base}/hall-2/events", json.dumps(stranger).encode(), "Z9"),
            (f"{base}/hall-1/events", json.dumps(wrong_hall).encode(), "hall-2"),
            (f"{base}/hall-2/events", b"x" * 1_000_000, "1000000"),
        ]
        for topic, payload, _ in garbage:
            _publish_raw(broker.port, topic, [payload])

        def refused() -> list[str]:
            log = (tmp_path / "office.log").read_text()
            return [line for line in log.splitlines() if "refused" in line]

        wait_for(lambda: len(refused()) >= len(garbage), 30,
                 "the office to refuse every piece of garbage")
        for (topic, _, reason), line in zip(garbage, refused(), strict=True):
            assert topic in line and reason in line, (topic, reason, line)
        assert stored_events(tmp_path / "office.sqlite") == total
        assert table("B") == [("Hawks", 3), ("Eagles", 2), ("Owls", 1)]
        assert nxt("hall-2")["match"] == "P3"
    finally:
        retained.close()
        stop_gently(office)
    log = (tmp_path / "office.log").read_text()
    assert "Traceback" not in log, log
    assert office.returncode == 0, log


def _journal_payloads(journal_dir: Path, match: str) -> list[str]:
    """The ``events`` messages of a match, rebuilt from the hall's own journal."""
    records = scan((journal_dir / f"{match}.journal").read_bytes(), match).records
    hall = journal_dir.name
    return [json.dumps(event_document(hall, r)) for r in records if "event" in r]


def _get(port: int, path: str) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
        return bytes(reply.read())


def _publish_raw(port: int, topic: str, payloads: list[bytes]) -> int:
    """Publish payloads QoS 1 with a plain client and wait until the broker has them all."""
    client = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                         client_id="test-raw-publisher")
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        infos = [client.publish(topic, payload, qos=1) for payload in payloads]
        for info in infos:
            info.wait_for_publish(timeout=10)
        return len(infos)
    finally:
        client.disconnect()
        client.loop_stop()


def test_an_office_killed_mid_game_loses_nothing(tmp_path: Path, broker: Broker) -> None:
    """SIGKILL the office while a hall publishes: its persistent session keeps the events
    published meanwhile, and an event it had received but not yet stored (so not acked) is
    sent again; after the restart every event is stored once and the table is complete,
    and only then do the hall's publishers end (the office's acks)."""
    office = start_office(tmp_path, broker.port)
    retained = Retained(broker.port)
    try:
        wait_for(lambda: (retained.latest("hall-1/next") or {}).get("match") == "A1", 30,
                 "the office's first next for hall-1")
        hall = threading.Thread(target=play_hall, args=(tmp_path, broker.port, "hall-1", HALL_1))
        hall.start()
        db = tmp_path / "office.sqlite"
        wait_for(lambda: db.exists() and stored_events(db) >= 5, 60, "some events stored")
        office.kill()  # no clean shutdown: no offline, no flush, nothing
        office.wait()
        # The hall plays on: its first game ends while the office is down (and waits, as
        # a hall's delivery ends only when the office has stored the events).
        a1 = tmp_path / "hall-1" / "A1.journal"
        wait_for(lambda: b"match_ended" in a1.read_bytes(), 60, "A1 played to its end")
        office = start_office(tmp_path, broker.port)
        hall.join(timeout=300)
        assert not hall.is_alive()

        def table() -> list[tuple[str, int]]:
            doc = retained.latest("standings/A") or {"rows": []}
            return [(r["team"], r["played"]) for r in doc["rows"]]

        wait_for(lambda: table() == [("Lions", 2), ("Bears", 2), ("Wolves", 2)], 60,
                 f"group A complete after the restart (now {table()})")
        journalled = sum(len(_journal_payloads(tmp_path / "hall-1", m)) for m, *_ in HALL_1)
        assert stored_events(db) == journalled
    finally:
        retained.close()
        stop_gently(office)
