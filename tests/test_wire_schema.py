"""The wire's declarations (arena/wire/): each event kind's data, the final record and the
state document are field tables from which the checks and the builders derive, and every
limit is in one table (``wire.LIMITS``)."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError
from typing import Any

import pytest

from arena import presets, wire
from arena.core.events import EventKind
from arena.core.match import Match
from arena.core.state import state_document
from arena.core.values import MatchSetup

T, H = "cup-2026", "hall-1"
EVENTS = wire.hall_topic(T, H, wire.EVENTS)
STATE = wire.hall_topic(T, H, wire.STATE)


def event(kind: str, data: dict[str, Any]) -> bytes:
    return wire.build_event(H, {"match": "A1", "seq": 4, "event": kind, "data": data,
                                "at": 5, "wall": None})


def reason(topic: str, payload: bytes) -> str:
    check = wire.check_state if topic == STATE else wire.check_event
    with pytest.raises(wire.WireError) as caught:
        check(topic, payload, T)
    return caught.value.reason


def test_every_event_kind_has_its_data_declared() -> None:
    assert set(wire.DATA) == set(EventKind)
    # the final's data is the final record's declaration, with nothing lost
    assert wire.FINAL.names <= wire.DATA[EventKind.MATCH_ENDED].names


@pytest.mark.parametrize(("kind", "data", "said"), [
    ("goal", {"team": "home", "player": 7, "period": "1"},
     "'data.period' must be an integer, got a string"),
    ("goal", {"player": 7}, "'data.team' is missing"),
    ("goal", {"team": "centre", "player": 7}, "'data.team' must be 'home' or 'away'"),
    ("horn", {"reason": "manual", "on": "yes"}, "'data.on' must be true or false, got a string"),
    ("horn", {"reason": "bell\x07"}, "'data.reason' contains a control character"),
    ("timeout_started", {"team": "visitors"}, "'data.team' must be 'home' or 'away'"),
    ("shootout_started", {"first": "both"}, "'data.first' must be 'home', 'away' or null"),
    ("period_ended", {"score": {"home": 1, "away": -1}},
     "'data.score.away' must be an integer from 0 to 999, got -1"),
])
def test_a_mistyped_or_missing_declared_field_is_refused_naming_it(kind: str,
                                                                  data: dict[str, Any],
                                                                  said: str) -> None:
    assert said in reason(EVENTS, event(kind, data))


def test_declared_fields_may_be_absent_and_undeclared_ones_are_ignored() -> None:
    # an older hall sent fewer fields; a newer one may send more
    for kind in ("period_started", "horn", "clock_set", "shift_ended"):
        assert wire.check_event(EVENTS, event(kind, {"hall_clock": "ptp"}), T).type == kind


def test_the_state_document_is_declared_and_the_cores_passes() -> None:
    assert tuple(wire.StateDocument.__annotations__) == tuple(
        f.name for f in wire.DOCUMENT.fields)
    match = Match(presets.load("floorball-2x15"), MatchSetup(match_id="A1"))
    doc = state_document(match, 0)
    assert set(doc) <= wire.DOCUMENT.names
    assert wire.check_state(STATE, wire.build_state(doc), T) == (H, json.loads(
        wire.build_state(doc)))
    assert "'running' must be true or false, got a string" in reason(
        STATE, wire.encode({**doc, "running": "yes"}))
    with pytest.raises(wire.WireError, match="'period' must be an integer"):
        wire.build_state({**doc, "period": "2"})  # the builder holds to it as well


def test_a_builder_writes_only_what_is_declared() -> None:
    with pytest.raises(TypeError, match="undeclared field"):
        wire.MESSAGE.build(event_id="h:A1:1", surprise=1)
    with pytest.raises(TypeError, match="missing field"):
        wire.MESSAGE.build(event_id="h:A1:1")
    doc = wire.event_document(H, {"match": "A1", "seq": 1, "event": "horn", "at": 0})
    assert tuple(doc) == tuple(f.name for f in wire.MESSAGE.fields)


def record(home: str = "Lions") -> dict[str, Any]:
    return {"match": "A1", "preset": "youth", "stage": "group",
            "teams": {"home": home, "away": "Bears"},
            "result": {"home": 1, "away": 0, "decided_by": "regulation"},
            "score": {"home": 1, "away": 0}, "goals": [], "penalties": [],
            "penalty_minutes": {"home": 0, "away": 0}, "forfeit": None, "shootout": None}


def test_the_final_built_by_the_wire_is_the_one_the_check_takes() -> None:
    result: wire.Result = {"home": 1, "away": 0, "decided_by": "regulation"}
    data = wire.final_data(result, record())
    ev = wire.check_event(EVENTS, event("match_ended", dict(data)), T)
    assert ev.data["record"]["teams"]["home"] == "Lions"
    with pytest.raises(wire.WireError, match=r"'data\.record\.teams\.home' is 201 characters"):
        wire.final_data(result, record("L" * 201))


def test_one_table_of_limits() -> None:
    limits = wire.LIMITS
    with pytest.raises(FrozenInstanceError):
        limits.text_chars = 500  # type: ignore[misc]
    # the names callers always read are the table's
    read = (wire.MAX_TEXT, wire.MAX_PLAYER, wire.MAX_SEQ, wire.MAX_PAYLOAD,
            wire.ROSTER_NAME_CHARS, wire.PUBLIC_URL_CHARS)
    table = (limits.text_chars, limits.player_max, limits.seq_max, limits.payload_bytes,
             limits.roster_name_chars, limits.public_url_chars)
    assert read == table
    assert limits.is_name("hall-1") and not limits.is_name("x" * (limits.name_chars + 1))
    assert limits.text_problem("Lions") is None
    assert limits.text_problem("x" * (limits.text_chars + 1)) == (
        f"must be at most {limits.text_chars} characters, got {limits.text_chars + 1}")
    assert limits.text_problem("Li\u200bons") == "must have no control characters, got '\\u200b'"
    assert limits.text_problem("  ") == "must not be empty"
    # the words of the table say its numbers, and every limit says what it bounds (the
    # docs' tables are written from those words: docs/reference.py)
    assert limits.name_rule.startswith(f"1-{limits.name_chars} ")
    assert all(meaning for _, _, meaning, _ in limits.rows())
    assert {name for name, *_ in limits.rows()} >= {"text_chars", "player_max", "seq_max",
                                                      "group_teams_max", "short_chars"}
    assert limits.is_colour("#10233f") and not limits.is_colour("red")


def test_next_holds_team_names_to_the_limits_a_final_will() -> None:
    nxt = wire.Next("A1", "floorball-2x15", "group",
                    wire.Team("L" * 201, ("#000000", "#ffffff")),
                    wire.Team("Bears", ("#ffffff", "#000000")))
    with pytest.raises(wire.WireError, match=r"'teams\.home\.name' must be at most 200"):
        wire.check_next(wire.hall_topic(T, H, wire.NEXT), wire.build_next(nxt))
