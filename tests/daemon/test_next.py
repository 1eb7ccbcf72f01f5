"""The office's ``next`` over a real mosquitto, to an in-process scoreboard with the real
``HallLink``: loaded only once the match in progress is final and its result has been up
for the final hold, and the previous match's events all still reach the broker; they count
delivered only once the office's ``acks`` say so (here published by the test for the
office, whose own `next` would replace the test's: tests/mqtt/test_delivery.py runs the real
office).

The scoreboard runs on a fake clock (tests/daemon/inprocess.py); the broker and paho's
network thread run in real time, so the waits for them are bounded polls.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena import wire
from arena.core.units import NS_PER_S
from firmware_py.linkconfig import LinkConfig
from firmware_py.parts import HallParts, OfficeLink, OnNext, OnStandings
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import InProcessHall, TestParts
from tests.fixtures import Broker, wait_for
from tests.mqtt.conftest import Collector, check_sequence

pytestmark = pytest.mark.slow  # every test here starts a process

NEXT = {"match": "A2", "preset": "floorball-2x15", "stage": "group",
        "teams": {"home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]},
                  "away": {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}}}


def real_link(config: LinkConfig, on_next: OnNext, on_standings: OnStandings) -> OfficeLink:
    return HallParts().link(config, on_next, on_standings)


def test_next_waits_for_the_final_then_loads_and_the_old_events_all_go(
        tmp_path: Path, broker: Broker) -> None:
    collector = Collector(broker.port, "arena/v1/T1/H1/#", client_id="next-test")
    assert collector.subscribed.wait(10)
    collector.client.publish("arena/v1/T1/H1/next", json.dumps(NEXT), qos=1,
                             retain=True).wait_for_publish(10)
    hall = InProcessHall(tmp_path, f"""
[match]
preset = "football-p08"
[display]
final_hold_s = 1
[mqtt]
broker = "mqtt://127.0.0.1:{broker.port}"
tournament = "T1"
hall = "H1"
""")
    script = write_script(tmp_path / "s.jsonl", [
        {"t": 0, "do": "start"}, {"t": 0.3, "do": "goal", "team": "home", "player": 9},
        {"t": 2.5, "do": "end"}])
    try:
        daemon = hall.start(script=script, parts=TestParts(link_factory=real_link))
        # The retained `next` arrives in real time, while the game is on: it waits.
        wait_for(lambda: (daemon.run_until(hall.time.now + NS_PER_S // 100),
                          daemon.next_match.pending is not None)[1], 10, "the retained next")
        assert daemon.match.setup.match_id == "M1"
        daemon.run_until(hall.time.now + 10 * NS_PER_S,
                         stop_when=lambda: daemon.match.setup.match_id == "A2")
        finals = [f for f in hall.frames if f.doc["match"] == "M1" and f.doc["phase"] == "final"]
        first = next(f for f in hall.frames if f.doc["match"] == "A2")
        # The match in progress was played to its end first, and its final stayed up.
        assert finals and first.at - finals[0].at >= NS_PER_S
        assert first.doc["phase"] == "pregame" and first.doc["teams"]["home"]["name"] == "Lions"

        records = [r for r in hall_records(hall, "M1") if r.get("type") == "event"]
        link = daemon.link
        assert link is not None

        def all_m1_at_the_broker() -> bool:
            link.pump()
            return {e["seq"] for e in collector.events() if e["match"] == "M1"} \
                >= {r["seq"] for r in records}

        wait_for(all_m1_at_the_broker, 20, "every M1 event at the broker")
        check_sequence([e for e in collector.events() if e["match"] == "M1"], len(records),
                       "H1", "M1")
        # At the broker is not delivered: only the office's word is.
        link.pump()
        assert link.unacked == len(records)
        collector.client.publish(wire.hall_topic("T1", "H1", wire.ACKS),
                                 wire.build_acks({"M1": len(records)}), qos=1,
                                 retain=True).wait_for_publish(10)
        wait_for(lambda: (link.pump(), link.unacked == 0)[1], 20, "the office's acks")
        assert (hall.state_dir / "current").read_text().strip() == "A2"
        assert (hall.state_dir / "A2.journal").exists()
        wait_for(lambda: (link.pump(), any(json.loads(p).get("match") == "A2"
                                           for p in collector.on("/state")))[1],
                 20, "A2's retained state")
        hall.stop()
        wait_for(lambda: collector.on("/status")[-1:] == [b"offline"], 10, "offline")
    finally:
        if hall.daemon is not None:
            hall.stop()
        collector.close()


def hall_records(hall: InProcessHall, match: str) -> list[dict[str, object]]:
    from firmware_py.journal import scan  # noqa: PLC0415

    path = hall.state_dir / f"{match}.journal"
    return scan(path.read_bytes(), str(path)).records
