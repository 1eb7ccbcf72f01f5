"""`scoreboard replay --publish`: a game re-sent as a live hall would, through a real broker."""

from __future__ import annotations

import json
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


@pytest.mark.slow
def test_a_game_from_keys_is_published_as_the_commands_its_keys_make(
        broker: Broker, tmp_path: Path) -> None:
    collector = Collector(broker.port, "arena/v1/cup/hall-1/#", client_id="keys-collector",
                          persistent=False)
    office = cup_office(broker, tmp_path)
    try:
        wait_for(collector.subscribed.is_set, 10, "the collector to subscribe")
        code = main(["replay", str(EXAMPLES / "ice-hockey-2x20-playoff-keys.jsonl"),
                     "--preset", "ice-hockey-2x20", "--stage", "playoff",
                     "--publish", f"mqtt://127.0.0.1:{broker.port}", "--tournament", "cup",
                     "--hall", "hall-1", "--match", "SF1", "--journal", str(tmp_path / "j")])
        assert code == 0
        wait_for(lambda: any(e["type"] == "match_ended" for e in collector.events()), 10,
                 "the last event")
        received = collector.events()
        total = max(e["seq"] for e in received)
        check_sequence(received, total, "hall-1", "SF1")
        record = next(e for e in received if e["type"] == "match_ended")["data"]["record"]
        # Rules 000, the winning goal race: 2:2, decided 3:2 by the tie-break pair.
        assert record["result"] == {"home": 3, "away": 2, "decided_by": "shootout"}
        assert record["shootout"]["decisive"] == {"team": "home", "player": 9}
        # The scorer corrected from the CANCEL list is sent as corrected.
        assert any(e["type"] == "corrected" for e in received)
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


@pytest.mark.slow
def test_a_resent_result_is_final_under_the_schedules_names(broker: Broker,
                                                            tmp_path: Path) -> None:
    """docs/office.md, "Held matches, needs review and alerts": a hall's result counts only
    for the teams it was played by. Re-sent under the tournament file's names it is final;
    under Home and Away (what --home and --away default to) it needs review."""
    from arena.tournament.files import load_tournament  # noqa: PLC0415
    from arena.tournament.model import ResultState  # noqa: PLC0415
    from office.service import ledger_from_store  # noqa: PLC0415
    from office.storage.store import Store  # noqa: PLC0415

    cup_file = tournament_file(tmp_path / "cup.toml", "cup",
                               [("A1", "hall-1"), ("A2", "hall-1")])
    office = Office(broker.port, tmp_path / "office.sqlite", cup_file)
    game = tmp_path / "game.jsonl"  # 1:0, each period ended by the referee (`end`)
    game.write_text("\n".join(json.dumps(line) for line in (
        {"t": 0, "do": "start"}, {"t": 100, "do": "goal", "team": "home", "player": 10},
        {"t": 110, "do": "end"}, {"t": 120, "do": "end"}, {"t": 130, "do": "start"},
        {"t": 140, "do": "end"})) + "\n", encoding="utf-8")
    url = f"mqtt://127.0.0.1:{broker.port}"
    journal = str(tmp_path / "j")
    by_id = ["--tournament", "cup", "--hall", "hall-1", "--preset", "floorball-2x15"]
    try:
        assert main(["replay", str(game), "--publish", url, "--tournament", str(cup_file),
                     "--match", "A1", "--journal", journal]) == 0
        assert main(["replay", str(game), "--publish", url, *by_id, "--match", "A2",
                     "--journal", journal]) == 0
    finally:
        office.stop()
    cup = load_tournament(cup_file)
    store = Store(tmp_path / "office.sqlite")
    try:
        first = cup.matches[0].start
        ledger = ledger_from_store(cup, store, first.replace(hour=first.hour + 3))
    finally:
        store.close()
    states = {m: ledger.matches[m].outcome.state for m in ("A1", "A2")}
    assert states["A1"] in (ResultState.FINAL, ResultState.CONFIRMED), states
    assert states["A2"] is ResultState.NEEDS_REVIEW
    assert ledger.matches["A1"].hall_teams == ("X", "Y")
    assert ledger.matches["A2"].hall_teams == ("Home", "Away")
