"""Everything from the broker is checked before it is stored; garbage gets a reason naming
the field or the problem, and nothing but ``Refusal`` ever escapes."""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import presets
from arena.core.commands import Command, Shot, Start
from arena.core.events import Event, EventKind
from arena.core.match import Match, feed
from arena.core.phase import Stage as CoreStage
from arena.core.phase import Team
from arena.core.preset import StandingsRules
from arena.core.values import MatchSetup
from arena.tournament.model import (
    Group,
    ScheduledMatch,
    Slot,
    SlotKind,
    Stage,
    TeamEntry,
    Tournament,
)
from arena.wire import event_document
from office.storage.intake import (
    MAX_PAYLOAD,
    HallEvent,
    Playing,
    Refusal,
    check_event,
    check_state,
    check_status,
    classify,
)

T = "cup"
EVENTS = f"arena/v1/{T}/hall-1/events"


def _team(name: str) -> Slot:
    return Slot(name, SlotKind.TEAM, team=name)


def tournament() -> Tournament:
    def match(mid: str, hall: str, home: str, away: str) -> ScheduledMatch:
        return ScheduledMatch(mid, Stage.GROUP, "A", hall, datetime(2026, 12, 5, 9),
                              _team(home), _team(away), "ice-hockey-2x20")

    teams = ("Lions", "Bears", "Wolves")
    return Tournament(
        name="Cup", id=T, preset="ice-hockey-2x20",
        teams={n: TeamEntry(n, n[:3].upper()) for n in teams},
        groups=(Group("A", teams),),
        matches=(match("A1", "hall-1", "Lions", "Bears"),
                 match("A2", "hall-2", "Bears", "Wolves")),
        rules=StandingsRules(),
    )


TOURNAMENT = tournament()


def record(seq: int = 3, event: str = "goal", data: dict[str, Any] | None = None,
           match: str = "A1") -> dict[str, Any]:
    return {"type": "event", "seq": seq, "match": match, "event": event, "at": 123_000_000,
            "data": {"team": "home", "player": 7} if data is None else data,
            "wall": "2026-12-05T09:14:03.120+01:00", "boot": "b1"}


def payload(hall: str = "hall-1", **changes: Any) -> dict[str, Any]:
    doc = event_document(hall, record())
    doc.update(changes)
    return doc


def encode(doc: Any) -> bytes:
    return json.dumps(doc).encode()


def ended_data(**result_changes: Any) -> dict[str, Any]:
    result = {"home": 3, "away": 1, "decided_by": "regulation", **result_changes}
    return {"result": result, "record": full_record()}


def full_record() -> dict[str, Any]:
    """A match record as ``arena.core.record.match_record`` writes it."""
    return {"match": "A1", "preset": "youth", "stage": "group",
            "teams": {"home": "Lions", "away": "Bears"},
            "result": {"home": 3, "away": 1, "decided_by": "regulation"},
            "score": {"home": 3, "away": 1},
            "goals": [{"team": "home", "player": 7, "period": 1, "clock_ms": 600_000}],
            "penalties": [{"team": "away", "player": 12, "kind": "minor", "minutes": 2,
                           "period": 1, "clock_ms": 300_000, "coincidental": False,
                           "ejected": False}],
            "penalty_minutes": {"home": 0, "away": 2}, "forfeit": None, "shootout": None}


def without(doc: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != key}


def ended(**result_changes: Any) -> bytes:
    return encode(event_document("hall-1", record(9, "match_ended", ended_data(**result_changes))))


def ended_penalty(**changes: Any) -> bytes:
    data = ended_data()
    data["record"]["penalties"][0].update(changes)
    return encode(event_document("hall-1", record(9, "match_ended", data)))


def ended_record(**changes: Any) -> bytes:
    data = ended_data()
    data["record"].update(changes)
    return encode(event_document("hall-1", record(9, "match_ended", data)))


GARBAGE: list[tuple[str, str, bytes, str]] = [
    ("not JSON", EVENTS, b"goal!", "not JSON"),
    ("a JSON list", EVENTS, b"[1, 2]", "must be a JSON object, got a list"),
    ("1 MB", EVENTS, b"{" + b" " * (1024 * 1024) + b"}", f"{1024 * 1024 + 2} bytes"),
    ("not UTF-8", EVENTS, b'{"a": "\xff"}', "not UTF-8"),
    ("NaN", EVENTS, encode(payload()).replace(b'"at_ns": 123000000', b'"at_ns": NaN'),
     "NaN is not allowed"),
    ("nested too deeply", EVENTS, b"[" * 30_000 + b"]" * 30_000, "nested too deeply"),
    ("data 40 levels deep", EVENTS,
     encode(payload(data=json.loads('{"a":' * 40 + "1" + "}" * 40))), "nested more than 32"),
    ("lone surrogate", EVENTS, encode(payload(wall="\ud800")), "not valid Unicode"),
    ("missing seq", EVENTS, encode(without(payload(), "seq")), "'seq' is missing"),
    ("seq as a string", EVENTS, encode(payload(seq="3")), "'seq' must be an integer, got a string"),
    ("seq true", EVENTS, encode(payload(seq=True)), "'seq' must be an integer, got a boolean"),
    ("seq 0", EVENTS, encode(payload(seq=0, event_id="hall-1:A1:0")),
     "'seq' must be an integer from 1 up, got 0"),
    ("seq beyond SQLite", EVENTS, encode(payload(seq=2**63)), "'seq' must be an integer from 1"),
    ("seq a float", EVENTS, encode(payload(seq=3.0)), "'seq' must be an integer, got a number"),
    ("missing event_id", EVENTS, encode(without(payload(), "event_id")), "'event_id' is missing"),
    ("match not a string", EVENTS, encode(payload(match=1)), "'match' must be a string"),
    ("unknown type", EVENTS, encode(payload(type="teleport")),
     "'type' 'teleport' is not a known event type"),
    ("data not an object", EVENTS, encode(payload(data=[1])),
     "'data' must be an object, got a list"),
    ("at_ns a string", EVENTS, encode(payload(at_ns="now")), "'at_ns' must be an integer"),
    ("wall a number", EVENTS, encode(payload(wall=5)), "'wall' must be a string or null"),
    ("wall missing", EVENTS, encode(without(payload(), "wall")), "'wall' is missing"),
    ("unknown hall", f"arena/v1/{T}/hall-9/events", encode(payload("hall-9")),
     "unknown hall 'hall-9'"),
    ("unknown match", EVENTS, encode(payload(match="Z9", event_id="hall-1:Z9:3")),
     "unknown match 'Z9'"),
    ("match of another hall", EVENTS, encode(payload(match="A2", event_id="hall-1:A2:3")),
     "match 'A2' is assigned to hall 'hall-2', not 'hall-1'"),
    ("event_id mismatch", EVENTS, encode(payload(event_id="hall-1:A1:4")),
     "'event_id' 'hall-1:A1:4' does not match topic and fields (expected 'hall-1:A1:3')"),
    ("event_id of another hall", EVENTS, encode(payload(event_id="hall-2:A1:3")),
     "does not match topic"),
    ("wrong tournament", "arena/v1/other-cup/hall-1/events", encode(payload()),
     f"not a topic of the form arena/v1/{T}/<hall>/events"),
    ("wrong version", f"arena/v2/{T}/hall-1/events", encode(payload()), "not a topic"),
    ("state topic", f"arena/v1/{T}/hall-1/state", encode(payload()), "not a topic"),
    ("extra level", f"arena/v1/{T}/hall-1/events/x", encode(payload()), "not a topic"),
    ("result missing", EVENTS,
     encode(event_document("hall-1", record(9, "match_ended", {"record": {"penalties": []}}))),
     "'data.result' is missing"),
    ("result home a string", EVENTS, ended(home="3"),
     "'data.result.home' must be an integer, got a string"),
    ("result away negative", EVENTS, ended(away=-1), "'data.result.away' must be an integer"),
    ("decided by a coin", EVENTS, ended(decided_by="coin"),
     "'data.result.decided_by' must be one of regulation, overtime, shootout, forfeit"),
    ("record missing", EVENTS,
     encode(event_document("hall-1", record(9, "match_ended", without(ended_data(), "record")))),
     "'data.record' is missing"),
    ("penalty team", EVENTS, ended_penalty(team="visitors"),
     "'data.record.penalties[0].team' must be 'home' or 'away'"),
    ("penalty player", EVENTS, ended_penalty(player="12"),
     "'data.record.penalties[0].player' must be an integer"),
    ("penalty minutes", EVENTS, ended_penalty(minutes=None),
     "'data.record.penalties[0].minutes' must be an integer, got null"),
    ("penalty kind", EVENTS, ended_penalty(kind=2), "'data.record.penalties[0].kind' must be"),
    # Found in review: each of these crashed the service, or was ranked.
    ("record teams a list", EVENTS, ended_record(teams=["Lions", "Bears"]),
     "'data.record.teams' must be an object, got a list"),
    ("penalty minutes a string", EVENTS, ended_record(penalty_minutes="2"),
     "'data.record.penalty_minutes' must be an object, got a string"),
    ("a score of 2**62", EVENTS, ended(home=2**62),
     "'data.result.home' must be an integer from 0 to 999"),
    ("record score huge", EVENTS, ended_record(score={"home": 2**62, "away": 0}),
     "'data.record.score.home' must be an integer from 0 to 999"),
    ("record team name empty", EVENTS, ended_record(teams={"home": " ", "away": "Bears"}),
     "'data.record.teams.home' must not be empty"),
    ("record team name huge", EVENTS, ended_record(teams={"home": "L" * 201, "away": "B"}),
     "'data.record.teams.home' is 201 characters"),
    ("record team name control", EVENTS, ended_record(teams={"home": "L\x1b[2J", "away": "B"}),
     "'data.record.teams.home' contains a control character"),
    ("record goals not objects", EVENTS, ended_record(goals=[1]),
     "'data.record.goals[0]' must be an object, got an integer"),
    ("goal player 100", EVENTS, ended_record(goals=[{"team": "home", "player": 100,
                                                     "period": 1, "clock_ms": 0}]),
     "'data.record.goals[0].player' must be an integer from 0 to 99"),
    ("penalty 1000 minutes", EVENTS, ended_penalty(minutes=1000),
     "'data.record.penalties[0].minutes' must be an integer from 0 to 60"),
    ("record stage", EVENTS, ended_record(stage="final"), "'data.record.stage' must be one of"),
    ("record forfeit", EVENTS, ended_record(forfeit="both"), "'data.record.forfeit' must be"),
    ("shootout shots", EVENTS, ended_record(shootout={"shots": [{"team": "home"}]}),
     "'data.record.shootout.shots[0].player' is missing"),
    ("record missing teams", EVENTS, encode(event_document("hall-1", record(
        9, "match_ended", {"result": ended_data()["result"],
                           "record": without(full_record(), "teams")}))),
     "'data.record.teams' is missing"),
    ("live score huge", EVENTS, encode(payload(data={"team": "home", "player": 7,
                                                     "score": {"home": 2**62, "away": 0}})),
     "'data.score.home' must be an integer from 0 to 999"),
    ("a goal by player 1000", EVENTS, encode(payload(data={"team": "home", "player": 1000})),
     "'data.player' must be an integer from 0 to 99"),
    ("a goal of nobody's", EVENTS, encode(payload(data={"team": "both"})),
     "'data.team' must be 'home' or 'away'"),
    ("any number huge", EVENTS, encode(payload(data={"team": "home", "x": [2**60]})),
     "'data.x[0]' is 1152921504606846976, beyond"),
    ("any string huge", EVENTS, encode(payload(data={"team": "home", "x": "y" * 201})),
     "'data.x' is 201 characters"),
    ("wall huge", EVENTS, encode(payload(wall="w" * 201)), "'wall' is 201 characters"),
    ("seq 2**62", EVENTS, encode(payload(seq=2**62, event_id=f"hall-1:A1:{2**62}")),
     "'seq' 4611686018427387904 is above the protocol's 20000"),
    ("seq far ahead", EVENTS, encode(payload(seq=1001, event_id="hall-1:A1:1001")),
     "'seq' 1001 is more than 1000 above the highest stored for its match (0)"),
]


def test_seq_is_bounded_by_what_is_stored() -> None:
    body = encode(payload(seq=1500, event_id="hall-1:A1:1500"))
    with pytest.raises(Refusal, match="more than 1000 above the highest stored"):
        check_event(EVENTS, body, TOURNAMENT, stored_top=499)
    assert check_event(EVENTS, body, TOURNAMENT, stored_top=500).seq == 1500


@pytest.mark.parametrize(("topic", "body", "reason"), [g[1:] for g in GARBAGE],
                         ids=[g[0] for g in GARBAGE])
def test_garbage_is_refused_with_a_reason_naming_the_problem(topic: str, body: bytes,
                                                            reason: str) -> None:
    with pytest.raises(Refusal) as caught:
        check_event(topic, body, TOURNAMENT)
    assert reason in caught.value.reason
    assert caught.value.topic == topic
    assert str(caught.value) == f"{topic}: {caught.value.reason}"


def test_a_valid_event_from_the_hall_round_trips() -> None:
    body = json.dumps(event_document("hall-1", record()), separators=(",", ":")).encode()
    ev = check_event(EVENTS, body, TOURNAMENT)
    assert ev == HallEvent(event_id="hall-1:A1:3", hall="hall-1", match="A1", seq=3,
                           type="goal", data={"team": "home", "player": 7}, at_ns=123_000_000,
                           wall="2026-12-05T09:14:03.120+01:00")


def test_a_match_record_and_a_null_wall_are_accepted() -> None:
    ev = check_event(EVENTS, ended(), TOURNAMENT)
    assert ev.type == "match_ended" and ev.data["result"]["home"] == 3
    no_wall = dict(payload(), wall=None)
    assert check_event(EVENTS, encode(no_wall), TOURNAMENT).wall is None


def test_the_size_limit_is_exact() -> None:
    body = encode(payload())
    padded = body + b" " * (MAX_PAYLOAD - len(body))  # JSON's whitespace counts too
    assert len(padded) == MAX_PAYLOAD
    check_event(EVENTS, padded, TOURNAMENT)
    with pytest.raises(Refusal, match="over the 65536-byte limit"):
        check_event(EVENTS, padded + b" ", TOURNAMENT)


def test_classify() -> None:
    assert classify(EVENTS, TOURNAMENT) == ("hall-1", "events")
    assert classify(f"arena/v1/{T}/hall-2/state", TOURNAMENT) == ("hall-2", "state")
    assert classify(f"arena/v1/{T}/hall-2/status", TOURNAMENT) == ("hall-2", "status")
    assert classify(f"arena/v1/{T}/hall-2/next", TOURNAMENT) is None  # the office's own
    assert classify(f"arena/v1/{T}/standings/A", TOURNAMENT) is None
    assert classify("arena/v1/other/hall-1/events", TOURNAMENT) is None
    assert classify("arena/v1//", TOURNAMENT) is None


def test_state_documents() -> None:
    topic = f"arena/v1/{T}/hall-2/state"
    assert check_state(topic, b'{"match": "A2", "score": {"home": 1}}', TOURNAMENT) == (
        "hall-2", {"match": "A2", "score": {"home": 1}})
    assert check_state(topic, b'{"match": null}', TOURNAMENT) == ("hall-2", {"match": None})
    assert check_state(topic, b"", TOURNAMENT) == ("hall-2", {})  # the retained one cleared
    for body, reason in [(b"[]", "must be a JSON object"), (b"{", "not JSON"),
                         (b'{"match": 3}', "'match' must be a string or null"),
                         (b" " * (MAX_PAYLOAD + 1), "over the")]:
        with pytest.raises(Refusal, match=reason):
            check_state(topic, body, TOURNAMENT)
    with pytest.raises(Refusal, match="unknown hall 'hall-7'"):
        check_state(f"arena/v1/{T}/hall-7/state", b"{}", TOURNAMENT)
    with pytest.raises(Refusal, match="not a topic"):
        check_state(EVENTS, b"{}", TOURNAMENT)


def test_status() -> None:
    topic = f"arena/v1/{T}/hall-1/status"
    assert check_status(topic, b"online", TOURNAMENT) == ("hall-1", True)
    assert check_status(topic, b"offline", TOURNAMENT) == ("hall-1", False)
    assert check_status(topic, b"", TOURNAMENT) == ("hall-1", False)
    with pytest.raises(Refusal, match="must be 'online' or 'offline'"):
        check_status(topic, b"maybe", TOURNAMENT)
    with pytest.raises(Refusal, match="unknown hall"):
        check_status(f"arena/v1/{T}/gym/status", b"online", TOURNAMENT)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12)
FIELDS = ("event_id", "match", "seq", "type", "data", "at_ns", "wall")


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.binary(max_size=200),
    JSONISH.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(st.sampled_from(FIELDS), JSONISH).map(
        lambda d: json.dumps({**payload(), **d}).encode()),
    st.dictionaries(st.sampled_from(("result", "record")), JSONISH).map(
        lambda d: json.dumps({**payload(type="match_ended"), "data": d}).encode()),
))
def test_nothing_but_refusal_escapes(body: bytes) -> None:
    for check in (check_event, check_state, check_status):
        for topic in (EVENTS, f"arena/v1/{T}/hall-1/state", f"arena/v1/{T}/hall-1/status"):
            with contextlib.suppress(Refusal):  # anything else fails the test
                check(topic, body, TOURNAMENT)


def _shootout_final(shooters: tuple[int | None, int | None]) -> bytes:
    """The ``match_ended`` of a real ice-hockey ranking match (the core's own record): 0:0,
    then away misses and home scores, twice (2:0 decides it); ``shooters``: the numbers
    keyed for away and home in round 1, one up in round 2 (None: keyed without one)."""
    match = Match(presets.load("ice-hockey-2x20"),
                  MatchSetup(match_id="A1", stage=CoreStage.PLAYOFF))
    events: list[Event] = []
    s = 10**9
    commands: list[Command] = [Start(0), Start(1260 * s)]
    for n in range(2):
        away, home = (None if p is None else p + n for p in shooters)
        commands += [Shot((2470 + 20 * n) * s, Team.AWAY, False, away),
                     Shot((2480 + 20 * n) * s, Team.HOME, True, home)]
    for command in commands:
        fed = feed(match, command)
        assert fed.refused is None
        events += fed.events
    final = events[-1]
    assert final.kind is EventKind.MATCH_ENDED
    doc = {"type": "event", "seq": final.seq, "match": "A1", "event": "match_ended",
           "at": final.at, "data": final.data, "wall": None, "boot": "b1"}
    return encode(event_document("hall-1", doc))


@pytest.mark.parametrize(("shooters", "decisive"), [
    ((9, 4), {"team": "home", "player": 4}),  # the goal that put home ahead for good
    ((None, None), {"team": "home", "player": None}),
])
def test_the_office_takes_the_record_naming_the_decisive_shooter(
        shooters: tuple[int | None, int | None], decisive: dict[str, Any]) -> None:
    # Rules 000 'The winning goal race': only the decisive goal is recorded in the result,
    # credited to the player who took the shot. The core's record names him
    # (record.shootout.decisive) and the office takes it as it is; a shootout keyed without
    # numbers is taken too (the shooter null, as a goal's scorer may be).
    ev = check_event(EVENTS, _shootout_final(shooters), TOURNAMENT, stored_top=1)
    record = ev.data["record"]
    assert ev.data["result"] == {"home": 1, "away": 0, "decided_by": "shootout"}
    assert record["shootout"]["decisive"] == decisive
    assert [shot["player"] is None for shot in record["shootout"]["shots"]] == \
        [shooters[0] is None] * 4


def test_a_decisive_shot_without_a_player_key_is_refused() -> None:
    # Null is "keyed without a number"; a missing key is a broken record.
    data = ended_data()
    data["record"]["shootout"] = {"shots": [], "decisive": {"team": "home"}}
    body = encode(event_document("hall-1", record(9, "match_ended", data)))
    with pytest.raises(Refusal, match=r"'data\.record\.shootout\.decisive\.player' is missing"):
        check_event(EVENTS, body, TOURNAMENT)


def test_a_match_moved_away_is_still_taken_from_the_hall_playing_it() -> None:
    """Rules 001 'Match schedule' (the organiser may change the schedule at any time): A2
    was played in hall-2 when it was moved (forced) to hall-1. hall-2 goes on sending it and
    is heard, even with nothing else left to play; hall-3 never is, for it plays nothing;
    hall-1, A2's hall now, is heard too (a replay there numbers on above hall-2's game)."""
    a1, a2_there = TOURNAMENT.matches
    moved = replace(TOURNAMENT, matches=(a1, replace(a2_there, hall="hall-1",
                                                     start=datetime(2026, 12, 5, 11))))
    assert moved.halls() == ("hall-1",)
    playing = Playing()
    hall2 = f"arena/v1/{T}/hall-2/events"
    a2 = encode(event_document("hall-2", record(4, match="A2")))
    with pytest.raises(Refusal, match="unknown hall 'hall-2'"):
        check_event(hall2, a2, moved, 3, playing)  # nothing of A2 from hall-2 stored yet
    playing.add("hall-2", "A2", 3)
    assert playing.hall("A2") == "hall-2" and playing.plays("hall-2")
    assert check_event(hall2, a2, moved, 3, playing).hall == "hall-2"
    with pytest.raises(Refusal, match="unknown hall 'hall-2'"):
        check_event(hall2, a2, moved, 3)  # without knowing who plays it: refused as before
    hall3 = f"arena/v1/{T}/hall-3/events"
    with pytest.raises(Refusal, match="unknown hall 'hall-3'"):
        check_event(hall3, encode(event_document("hall-3", record(4, match="A2"))), moved, 3,
                    playing)
    a2_in_hall1 = encode(event_document("hall-1", record(4, match="A2")))
    assert check_event(EVENTS, a2_in_hall1, moved, 3, playing).hall == "hall-1"
    # The replay's first event stored in hall-1: hall-1 plays A2 now, hall-2 nothing.
    playing.add("hall-1", "A2", 4)
    playing.add("hall-2", "A2", 2)  # an older event stored late changes nothing
    assert playing.hall("A2") == "hall-1" and not playing.plays("hall-2")
    with pytest.raises(Refusal, match="unknown hall 'hall-2'"):
        check_event(hall2, a2, moved, 4, playing)
