"""A replay from end to end (docs/office.md, "Held matches, needs review and alerts"): a
real hall and the real office through the broker exactly as shipped.

The hall (the in-process daemon with the real ``HallLink``, tests/daemon/inprocess.py) plays
the group and then the final the office sends it. The jury then corrects a group result,
which moves a team of the final already played: the office raises an alert, and the
timekeeper's office resolves it with ``--replay``. The office sends the final again, the
hall plays it as a fresh game with the new pairing and another result, and the office's
page (its snapshot document, read over HTTP) shows the replayed result once and the voided
one nowhere: in the results, the bracket and the placings.

The scoreboard's clock is fake; the broker, paho and the office run in real time, so every
wait for them is a bounded poll.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena.core.phase import Phase
from arena.core.units import NS_PER_S
from firmware_py.daemon import Daemon
from firmware_py.journal import scan
from firmware_py.linkconfig import LinkConfig
from firmware_py.loopback import free_port
from firmware_py.parts import HallParts, OfficeLink, OnNext, OnStandings
from office.cli.main import main as office
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import InProcessHall, TestParts
from tests.fixtures import ShippedBroker, office_serve, stop_gently, wait_for

pytestmark = pytest.mark.slow  # every test here starts a process

T = "replay-cup"
# Rules 001 (floorball-2x15): two points a win; the first two of the group play the final.
TOURNAMENT = f"""
name = "Replay Cup"
id = "{T}"
preset = "floorball-2x15"

[standings]
protest_window_min = 0

[[groups]]
name = "A"
teams = ["Lions", "Bears", "Wolves"]

[[matches]]
id = "G1"
group = "A"
hall = "hall-1"
start = 2026-12-05T09:00:00
home = "Lions"
away = "Bears"

[[matches]]
id = "G2"
group = "A"
hall = "hall-1"
start = 2026-12-05T10:00:00
home = "Bears"
away = "Wolves"

[[matches]]
id = "G3"
group = "A"
hall = "hall-1"
start = 2026-12-05T11:00:00
home = "Wolves"
away = "Lions"

[[matches]]
id = "F"
stage = "playoff"
hall = "hall-1"
start = 2026-12-05T12:00:00
home = "A1"
away = "A2"
"""
USERS = {"office": "office-secret", "hall-1": "hall-1-secret"}


def game(*goals: str) -> list[dict[str, Any]]:
    """The goals in order (``home``/``away``), then both periods and the break ended."""
    return [{"t": 0, "do": "start"},
            *({"t": 1 + i, "do": "goal", "team": team, "player": 9 + i}
              for i, team in enumerate(goals)),
            {"t": 10, "do": "end"}, {"t": 11, "do": "end"}, {"t": 12, "do": "end"}]


def real_link(config: LinkConfig, on_next: OnNext, on_standings: OnStandings) -> OfficeLink:
    return HallParts().link(config, on_next, on_standings)


def test_a_replay_ordered_by_the_office_is_played_by_the_hall_and_counts_once(
        tmp_path: Path) -> None:
    broker = ShippedBroker(tmp_path / "broker", USERS)
    broker.start()
    cup = tmp_path / "cup.toml"
    cup.write_text(TOURNAMENT)
    db = tmp_path / "office.sqlite"
    (tmp_path / "hall-password").write_text(USERS["hall-1"] + "\n")
    http = free_port()
    served = office_serve(tmp_path, broker.port, cup, username="office",
                          password=USERS["office"], http=http)
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    write_script(scripts / "G1.jsonl", game("home"))  # Lions 1:0 Bears
    write_script(scripts / "G2.jsonl", game("home"))  # Bears 1:0 Wolves
    write_script(scripts / "G3.jsonl", game("away"))  # Wolves 0:1 Lions
    write_script(scripts / "F.jsonl", game("home"))  # the final: Lions 1:0 Bears
    hall = InProcessHall(tmp_path / "hall", f"""
[match]
preset = "floorball-2x15"
id = "G1"
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

    def page() -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{http}/api/snapshot", timeout=5) as r:
            doc: dict[str, Any] = json.loads(r.read())
        return doc

    def final_of(doc: dict[str, Any]) -> dict[str, Any]:
        (final,) = [m for m in doc["matches"] if m["id"] == "F"]
        return final

    try:
        daemon = hall.start(script_dir=scripts, parts=TestParts(link_factory=real_link))
        link = daemon.link
        assert link is not None

        def play_on(until: Any, what: str, timeout: float = 60) -> None:
            def step() -> bool:
                assert served.poll() is None, (tmp_path / "office.log").read_text()
                daemon.run_until(hall.time.now + NS_PER_S)  # fake time: a second a look
                link.pump()
                return bool(until())
            wait_for(step, timeout, what)

        def final_played(d: Daemon = daemon) -> bool:
            return d.match.setup.match_id == "F" and d.match.state.phase is Phase.FINAL \
                and d.link is not None and d.link.unacked == 0

        # The group, then the final the office sends once the group is done.
        play_on(final_played, "the group and the final played and stored")
        first = page()
        assert (final_of(first)["home"], final_of(first)["away"]) == ("Lions", "Bears")
        assert [p["team"] for p in first["placings"][:2]] == ["Lions", "Bears"]
        voided = daemon.match.state.seq

        # The jury: Wolves beat Bears in G2. Wolves are 2nd now, and the final was played
        # by Bears: an alert, resolved by a replay.
        assert office(["correct", "G2", "--score", "0-2", "--reason", "protest upheld",
                       "--tournament", str(cup), "--db", str(db)]) == 0

        def alert_on_f() -> list[dict[str, Any]]:
            return [a for a in page()["alerts"] if a.get("match") == "F"]

        wait_for(lambda: bool(alert_on_f()), 30, "the office's alert on the final")
        assert office(["alerts", "resolve", str(alert_on_f()[0]["id"]), "--replay",
                       "--reason", "the final was played by the wrong team",
                       "--tournament", str(cup), "--db", str(db)]) == 0
        # The replay: Wolves win it 0:2.
        write_script(scripts / "F.jsonl", game("away", "away"))
        play_on(lambda: daemon.replaying and final_played(), "the replayed final, stored")
        assert daemon.match.setup.away.name == "Wolves"
        path = hall.state_dir / "F.journal"
        records = scan(path.read_bytes(), str(path)).records
        setups = [r for r in records if r["type"] == "match"]
        assert [s.get("replay") for s in setups] == [None, {"above_seq": voided}]
        seqs = [r["seq"] for r in records if r["type"] == "event"]
        assert seqs == list(range(1, len(seqs) + 1))  # both games, the replay above

        def replayed_on_page() -> bool:
            f = final_of(page())
            return f.get("score") == {"home": 0, "away": 2}

        wait_for(replayed_on_page, 30, "the replayed final on the office's page")
        doc = page()
        final = final_of(doc)
        assert (final["home"], final["away"], final["state"]) == ("Lions", "Wolves",
                                                                   "confirmed")
        # Placings from the replayed final alone; the voided one's winner (Lions over
        # Bears) nowhere: not in the results, the bracket or the placings.
        assert [(p["place"], p["team"]) for p in doc["placings"][:2]] == [(1, "Wolves"),
                                                                          (2, "Lions")]
        assert "Bears" not in {p["team"] for p in doc["placings"][:2]}
        assert sum(m["id"] == "F" for m in doc["matches"]) == 1
        text = json.dumps(doc["bracket"])
        assert "Wolves" in text and "Bears" not in text
        assert not doc["review"]
        assert all(a["status"] == "resolved" for a in alert_on_f())
        # The group table: the correction, and nothing of the final.
        (table,) = doc["groups"]
        assert [(r["team"], r["played"], r["points"]) for r in table["rows"]] == [
            ("Lions", 2, 4), ("Wolves", 2, 2), ("Bears", 2, 0)]
        hall.stop()
    finally:
        if hall.daemon is not None:
            hall.stop()
        stop_gently(served)
        broker.stop()
