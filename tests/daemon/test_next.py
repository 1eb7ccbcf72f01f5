"""The office's ``next`` over a real mosquitto: loaded only when no match is in progress,
and the previous match's events all still reach the broker."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from tests.daemon.conftest import Hall, write_script
from tests.mqtt.conftest import Broker, Collector, broker, check_sequence, wait_for

__all__ = ["broker"]  # the fixture, shared with tests/mqtt

NEXT = {"match": "A2", "preset": "floorball-2x15", "stage": "group",
        "teams": {"home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]},
                  "away": {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}}}


def test_next_waits_for_the_final_then_loads_and_the_old_events_all_go(
        tmp_path: Path, broker: Broker) -> None:
    collector = Collector(broker.port, "arena/v1/T1/H1/#", client_id="next-test")
    assert collector.subscribed.wait(10)
    collector.client.publish("arena/v1/T1/H1/next", json.dumps(NEXT), qos=1,
                             retain=True).wait_for_publish(10)
    hall = Hall(tmp_path, f"""
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
        hall.start("--script", str(script))
        # The final stays up ([display] final_hold_s) before the next match replaces it.
        hall.wait_doc(lambda d: d["match"] == "M1" and d["phase"] == "final", 30,
                      "M1's final on the board")
        doc = hall.wait_doc(lambda d: d["match"] == "A2", 30, "the next match on the board")
        assert doc["phase"] == "pregame" and doc["teams"]["home"]["name"] == "Lions"
        text = hall.log_text()
        # The match in progress was played to its end first, and its final stayed up.
        assert text.index("msg=\"next match loaded\"") > text.index("do=end")

        m1 = [r for r in hall.records("M1") if r.get("type") == "event"]
        wait_for(lambda: {e["seq"] for e in collector.events() if e["match"] == "M1"}
                 >= {r["seq"] for r in m1}, 20, "every M1 event at the broker")
        check_sequence([e for e in collector.events() if e["match"] == "M1"], len(m1),
                       "H1", "M1")
        assert (hall.state_dir / "current").read_text().strip() == "A2"
        assert (hall.state_dir / "A2.journal").exists()
        wait_for(lambda: any(json.loads(p).get("match") == "A2"
                             for p in collector.on("/state")), 20, "A2's retained state")
        assert hall.signal(signal.SIGTERM) == 0
        wait_for(lambda: collector.on("/status")[-1:] == [b"offline"], 10, "offline")
    finally:
        hall.stop()
        collector.close()
