"""`scoreboard replay --publish`: a game re-sent as a live hall would, through a real broker."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_py.cli import main
from tests.fixtures import Broker, Office, stored_ids, tournament_file, wait_for
from tests.mqtt.conftest import Collector, check_sequence

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "replay"


def cup_office(broker: Broker, tmp_path: Path) -> Office:
    """The office: `replay --publish` ends only once it has stored every event."""
    return Office(broker.port, tmp_path / "office.sqlite",
                  tournament_file(tmp_path / "cup.toml", "cup",
                                  [("SF1", "hall-1"), ("P1", "hall-2")]))


@pytest.mark.slow
def test_replay_publish_sends_every_event_of_the_game(broker: Broker, tmp_path: Path) -> None:
    collector = Collector(broker.port, "arena/v1/cup/hall-1/#", client_id="cli-collector",
                          persistent=False)
    office = cup_office(broker, tmp_path)
    try:
        wait_for(collector.subscribed.is_set, 10, "the collector to subscribe")
        code = main(["replay", str(EXAMPLES / "ice-hockey-2x20-playoff.jsonl"),
                     "--preset", "ice-hockey-2x20", "--stage", "playoff",
                     "--publish", f"mqtt://127.0.0.1:{broker.port}", "--tournament", "cup",
                     "--hall", "hall-1", "--match", "SF1", "--journal", str(tmp_path / "j")])
        assert code == 0
        events = collector.events
        wait_for(lambda: any(e["type"] == "match_ended" for e in events()), 10,
                 "the last event")
        received = events()
        total = max(e["seq"] for e in received)
        check_sequence(received, total, "hall-1", "SF1")
        record = next(e for e in received if e["type"] == "match_ended")["data"]["record"]
        assert record["result"] == {"home": 2, "away": 1, "decided_by": "shootout"}
        assert record["shootout"]["decisive"] == {"team": "home", "player": 9}
        assert len(stored_ids(office.db)) == total
    finally:
        collector.close()
        office.stop()


def test_replay_publish_needs_its_topic_names(capsys: object) -> None:
    code = main(["replay", str(EXAMPLES / "football-p10.jsonl"), "--preset", "football-p10",
                 "--publish", "mqtt://127.0.0.1:1"])
    assert code == 2


@pytest.mark.slow
def test_replay_publish_takes_the_broker_from_the_config_file(broker: Broker,
                                                              tmp_path: Path) -> None:
    config = tmp_path / "scoreboard.toml"
    config.write_text(f'[mqtt]\nbroker = "mqtt://127.0.0.1:{broker.port}"\n'
                      'tournament = "cup"\nhall = "hall-2"\n', encoding="utf-8")
    collector = Collector(broker.port, "arena/v1/cup/hall-2/events", client_id="cfg-collector",
                          persistent=False)
    office = cup_office(broker, tmp_path)
    try:
        wait_for(collector.subscribed.is_set, 10, "the collector to subscribe")
        code = main(["replay", str(EXAMPLES / "ice-hockey-2x20-playoff.jsonl"), "--preset",
                     "ice-hockey-2x20", "--stage", "playoff", "--publish", "config",
                     "--config", str(config), "--match", "P1",
                     "--journal", str(tmp_path / "j")])
        assert code == 0
        wait_for(lambda: any(e["type"] == "match_ended" for e in collector.events()), 10,
                 "the last event")
        events = collector.events()
        check_sequence(events, max(e["seq"] for e in events), "hall-2", "P1")
    finally:
        collector.close()
        office.stop()
