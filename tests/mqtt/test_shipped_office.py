"""A real hall and the real office through the broker exactly as shipped (arena.conf,
arena.acl, a password file made as install.sh makes it): the hall's game reaches the office,
and the office's tables reach the hall's between-games screen.

The hall is the in-process daemon (tests/daemon/inprocess.py) with the real ``HallLink``,
logged in as its hall id; the office is ``python -m office serve`` run as office.service
runs it (user ``office``, password from a file, the default client id). The scoreboard's
clock is fake; the broker, paho and the office run in real time, so every wait for them is
a bounded poll.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena import wire
from arena.core.units import NS_PER_S
from firmware_py.daemon import Daemon
from firmware_py.linkconfig import LinkConfig
from firmware_py.parts import HallParts, OfficeLink, OnNext, OnStandings
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import InProcessHall, TestParts
from tests.fixtures import ShippedBroker, office_serve, stop_gently, wait_for
from tests.mqtt.conftest import Collector

pytestmark = pytest.mark.slow  # every test here starts a process

T = "shipped-cup"
TOURNAMENT = f"""
name = "Shipped Cup"
id = "{T}"
preset = "floorball-2x15"

[standings]
protest_window_min = 0

[[groups]]
name = "A"
teams = ["Lions", "Bears", "Wolves"]

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
"""
USERS = {"office": "office-secret", "hall-1": "hall-1-secret", "display": "display-secret"}
START_S = 600  # the game starts 10 min into the script: the first tables come before it


def real_link(config: LinkConfig, on_next: OnNext, on_standings: OnStandings) -> OfficeLink:
    return HallParts().link(config, on_next, on_standings)


def tables(daemon: Daemon, now: int) -> list[dict[str, Any]]:
    between = daemon.between(now)
    return [] if between is None else list(between["tables"])


def test_the_offices_tables_reach_a_real_hall_through_the_shipped_broker(
        tmp_path: Path) -> None:
    broker = ShippedBroker(tmp_path / "broker", USERS)
    broker.start()
    (tmp_path / "cup.toml").write_text(TOURNAMENT)
    (tmp_path / "hall-password").write_text(USERS["hall-1"] + "\n")
    office = office_serve(tmp_path, broker.port, tmp_path / "cup.toml", username="office",
                          password=USERS["office"])
    # What the office publishes, read as the display user reads it.
    watcher = Collector(broker.port, wire.standings_filter(T), client_id="tables-watcher",
                        persistent=False, username="display", password=USERS["display"])
    hall = InProcessHall(tmp_path / "hall", f"""
[match]
preset = "floorball-2x15"
id = "A1"
home = "Lions"
away = "Bears"
[display]
final_hold_s = 1
[mqtt]
broker = "mqtt://127.0.0.1:{broker.port}"
tournament = "{T}"
hall = "hall-1"
username = "hall-1"
password_file = "{tmp_path / 'hall-password'}"
""")
    script = write_script(tmp_path / "A1.jsonl", [
        {"t": START_S, "do": "start"}, {"t": START_S + 1, "do": "goal", "team": "home",
                                        "player": 9},
        {"t": START_S + 2, "do": "end"}, {"t": START_S + 3, "do": "end"},
        {"t": START_S + 4, "do": "end"}])

    def office_table() -> list[dict[str, Any]]:
        payloads = watcher.on("/standings/A")
        if not payloads or not payloads[-1]:
            return []
        topic = wire.standings_topic(T, "A")
        return [wire.between_table(wire.check_standings(topic, payloads[-1], T))]

    try:
        daemon = hall.start(script=script, parts=TestParts(link_factory=real_link))
        link = daemon.link
        assert link is not None

        def step(ns: int) -> int:
            assert office.poll() is None, (tmp_path / "office.log").read_text()
            daemon.run_until(hall.time.now + ns)
            link.pump()
            return hall.time.now

        # Before the first face-off: the office's tables (nothing played yet), retained.
        wait_for(lambda: bool(tables(daemon, step(NS_PER_S // 1000))), 20,
                 "the office's tables on the hall's pregame screen")
        assert daemon.match.state.phase.value == "pregame"  # the script's start is to come
        first = tables(daemon, hall.time.now)
        assert first == office_table()
        assert {row["team"] for row in first[0]["rows"]} == {"Lions", "Bears", "Wolves"}
        assert all(row["played"] == 0 for row in first[0]["rows"])
        # The game: its events go to the office, which ranks it and publishes the table.
        daemon.run_until(hall.time.now + (START_S + 10) * NS_PER_S,
                         stop_when=lambda: daemon.match.state.phase.value == "final")
        assert daemon.match.state.phase.value == "final"

        def lions_played() -> bool:
            shown = tables(daemon, step(NS_PER_S // 100))
            return bool(shown) and any(r["team"] == "Lions" and r["played"] == 1
                                       for r in shown[0]["rows"])

        wait_for(lions_played, 30, "the table with the hall's own result")
        shown = tables(daemon, hall.time.now)
        assert shown == office_table()
        lions = next(r for r in shown[0]["rows"] if r["team"] == "Lions")
        assert (lions["won"], lions["goals_for"], lions["goals_against"], lions["points"]) \
            == (1, 1, 0, 2)  # rules 001: two points a win
        hall.stop()
    finally:
        if hall.daemon is not None:
            hall.stop()
        watcher.close()
        stop_gently(office)
        broker.stop()
