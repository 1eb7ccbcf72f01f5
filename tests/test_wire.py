"""The MQTT contract (arena/wire/): every message built, then checked, comes back
the same; every kind of bad input is refused with a reason naming the topic and the field;
a newer minor version's extra keys are ignored."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from arena import wire
from arena.wire import Next, Row, Standings, Suspended, Team, WireError

T, H = "cup-2026", "hall-1"
EVENTS = wire.hall_topic(T, H, wire.EVENTS)
NEXT = wire.hall_topic(T, H, wire.NEXT)
STANDINGS_A = wire.standings_topic(T, "A")
PRESETS = ("ice-hockey-2x20", "floorball-2x15")


def refused(check: Any, topic: str, payload: bytes, *args: Any) -> WireError:
    with pytest.raises(WireError) as caught:
        check(topic, payload, *args)
    err = caught.value
    assert err.topic == topic and str(err) == f"{topic}: {err.reason}"
    return err


def edited(payload: bytes, **changes: Any) -> bytes:
    """The payload with keys replaced (a value of ... removes the key)."""
    doc = json.loads(payload)
    for key, value in changes.items():
        if value is ...:
            del doc[key]
        else:
            doc[key] = value
    return json.dumps(doc).encode()


# -- topics --------------------------------------------------------------------------------


def test_the_topic_tree() -> None:
    topics = wire.hall_topics(T, H)
    assert (topics.events, topics.state, topics.status, topics.next, topics.standings) == (
        f"arena/{wire.VERSION}/cup-2026/hall-1/events", "arena/v1/cup-2026/hall-1/state",
        "arena/v1/cup-2026/hall-1/status", "arena/v1/cup-2026/hall-1/next",
        "arena/v1/cup-2026/standings/#")
    assert STANDINGS_A == "arena/v1/cup-2026/standings/A"
    assert wire.standings_filter(T) == topics.standings
    assert topics.acks == "arena/v1/cup-2026/hall-1/acks"  # the office's word, retained
    assert wire.hall_subscriptions(topics) == [(topics.next, 1), (topics.standings, 1),
                                               (topics.acks, 1)]
    assert wire.office_subscriptions(T) == [("arena/v1/cup-2026/+/events", 1),
                                            ("arena/v1/cup-2026/+/state", 0),
                                            ("arena/v1/cup-2026/+/status", 1)]
    assert wire.office_topic(T, "standings/A") == STANDINGS_A
    assert wire.office_topic(T, NEXT) == NEXT  # a full one is kept


@pytest.mark.parametrize("bad", ["a/b", "+", "#", "", "a:b", "x" * 65, "sp ace"])
def test_names_that_would_break_the_topic_or_the_event_id_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="hall"):
        wire.hall_topics(T, bad)
    with pytest.raises(ValueError, match="tournament"):
        wire.tournament_root(bad)
    with pytest.raises(ValueError, match="group"):
        wire.standings_topic(T, bad)
    with pytest.raises(ValueError, match="kind 'scores'"):
        wire.hall_topic(T, H, "scores")


def test_a_hall_cannot_be_named_like_the_tables_level() -> None:
    with pytest.raises(ValueError, match="hall 'standings': that level is the office's tables"):
        wire.hall_topics(T, wire.STANDINGS)


def test_a_hall_cannot_be_named_like_a_second_boards_user() -> None:
    # mirror-HALL is the broker user of HALL's second board (systemd/mosquitto/arena.acl).
    with pytest.raises(ValueError, match="hall 'mirror-a': ids beginning with 'mirror-'"):
        wire.hall_topics(T, "mirror-a")
    assert wire.check_hall("mirrors") == "mirrors"  # the prefix only, hyphen and all


def test_routing_a_topic() -> None:
    assert wire.route(EVENTS, T) == wire.Route(wire.EVENTS, hall=H)
    assert wire.route(NEXT, T) == wire.Route(wire.NEXT, hall=H)
    assert wire.route(STANDINGS_A, T) == wire.Route(wire.STANDINGS, group="A")
    for other in ("arena/v1/other/hall-1/events", "arena/v2/cup-2026/hall-1/events",
                  f"{EVENTS}/x", "arena/v1/cup-2026/hall-1/scores", "arena/v1//", "",
                  "arena/v1/cup-2026/hall+1/events"):
        assert wire.route(other, T) is None, other
    assert wire.hall_of(EVENTS, wire.EVENTS, T) == H
    with pytest.raises(WireError, match="not a topic of the form arena/v1/cup-2026/<hall>/state"):
        wire.hall_of(EVENTS, wire.STATE, T)


# -- events --------------------------------------------------------------------------------


def journal_record(**changes: Any) -> dict[str, Any]:
    return {"type": "event", "match": "A1", "seq": 3, "event": "goal", "at": 123_000_000,
            "data": {"team": "home", "player": 7}, "wall": "2026-12-05T09:14:03+01:00",
            "boot": "b1", **changes}


def ended(**result: Any) -> bytes:
    data = {"result": {"home": 3, "away": 2, "decided_by": "shootout", **result},
            "record": {"match": "A1", "preset": "youth", "stage": "group",
                       "teams": {"home": "Lions", "away": "Bears"},
                       "result": {"home": 3, "away": 1, "decided_by": "shootout"},
                       "score": {"home": 3, "away": 1},
                       "goals": [{"team": "home", "player": 7, "period": 1, "clock_ms": 600_000}],
                       "penalties": [{"team": "away", "player": 12, "kind": "minor", "minutes": 2,
                                      "period": 1, "clock_ms": 300_000, "coincidental": False,
                                      "ejected": False}],
                       "penalty_minutes": {"home": 0, "away": 2}, "forfeit": None,
                       "shootout": None}}
    return wire.build_event(H, journal_record(event="match_ended", data=data))


def test_an_event_round_trips() -> None:
    ev = wire.check_event(EVENTS, wire.build_event(H, journal_record()), T)
    assert ev == wire.HallEvent(event_id="hall-1:A1:3", hall=H, match="A1", seq=3, type="goal",
                                data={"team": "home", "player": 7}, at_ns=123_000_000,
                                wall="2026-12-05T09:14:03+01:00")
    assert wire.event_id(H, "A1", 3) == ev.event_id
    final = wire.check_event(EVENTS, ended(), T)
    assert final.type == "match_ended" and final.data["result"]["decided_by"] == "shootout"
    unsynced = wire.event_document(H, journal_record(wall=None))
    assert unsynced["wall"] is None and unsynced["wall_synced"] is False


def test_an_event_of_a_newer_minor_version_is_accepted() -> None:
    body = edited(wire.build_event(H, journal_record()), hall_clock="ptp", priority=2)
    assert wire.check_event(EVENTS, body, T).seq == 3


GOOD_EVENT = wire.build_event(H, journal_record())


@pytest.mark.parametrize(("topic", "body", "reason"), [
    ("arena/v1/cup-2026/hall-1/state", GOOD_EVENT, "not a topic of the form"),
    ("arena/v1/other/hall-1/events", GOOD_EVENT, "arena/v1/cup-2026/<hall>/events"),
    (EVENTS, b"[]", "must be a JSON object, got a list"),
    (EVENTS, b"{", "not JSON"),
    (EVENTS, b"x" * (wire.MAX_PAYLOAD + 1), "over the 65536-byte limit"),
    (EVENTS, edited(GOOD_EVENT, seq=...), "'seq' is missing"),
    (EVENTS, edited(GOOD_EVENT, seq="3"), "'seq' must be an integer, got a string"),
    (EVENTS, edited(GOOD_EVENT, seq=True), "'seq' must be an integer, got a boolean"),
    (EVENTS, edited(GOOD_EVENT, seq=0, event_id="hall-1:A1:0"), "'seq' must be an integer "
                                                                "from 1 up, got 0"),
    (EVENTS, edited(GOOD_EVENT, event_id=...), "'event_id' is missing"),
    (EVENTS, edited(GOOD_EVENT, event_id="hall-2:A1:3"), "'event_id' 'hall-2:A1:3' does not "
                                                         "match topic and fields"),
    (EVENTS, edited(GOOD_EVENT, match=7), "'match' must be a string, got an integer"),
    (EVENTS, edited(GOOD_EVENT, type="teleport"), "'type' 'teleport' is not a known event"),
    (EVENTS, edited(GOOD_EVENT, data=[]), "'data' must be an object, got a list"),
    (EVENTS, edited(GOOD_EVENT, at_ns=-1), "'at_ns' must be an integer from 0 up"),
    (EVENTS, edited(GOOD_EVENT, wall=...), "'wall' is missing"),
    (EVENTS, edited(GOOD_EVENT, wall=5), "'wall' must be a string or null, got an integer"),
    (EVENTS, ended(home="3"), "'data.result.home' must be an integer, got a string"),
    (EVENTS, ended(decided_by="coin"), "'data.result.decided_by' must be one of regulation"),
    (EVENTS, edited(ended(), data={"result": {"home": 1, "away": 0,
                                              "decided_by": "regulation"}}),
     "'data.record' is missing"),
])
def test_a_bad_event_is_refused_naming_the_field(topic: str, body: bytes, reason: str) -> None:
    assert reason in refused(wire.check_event, topic, body, T).reason


# -- state and status ------------------------------------------------------------------------


def test_state_round_trips_and_equal_documents_give_equal_bytes() -> None:
    topic = wire.hall_topic(T, H, wire.STATE)
    doc = {"match": "A1", "phase": "period", "score": {"home": 1, "away": 0}, "future": [1]}
    assert wire.check_state(topic, wire.build_state(doc), T) == (H, doc)
    assert wire.build_state(doc) == wire.build_state(dict(reversed(doc.items())))
    assert wire.build_state({"phase": "pregame"}) == b'{"phase":"pregame"}'  # unchanged
    assert wire.check_state(topic, b"", T) == (H, {})
    assert "'match' must be a string or null" in refused(
        wire.check_state, topic, b'{"match": 3}', T).reason
    assert "not a topic" in refused(wire.check_state, EVENTS, b"{}", T).reason


def test_status_round_trips() -> None:
    topic = wire.hall_topic(T, H, wire.STATUS)
    for online in (True, False):
        assert wire.check_status(topic, wire.build_status(online), T) == (H, online)
    assert wire.check_status(topic, b"", T) == (H, False)
    assert "must be 'online' or 'offline', got b'maybe'" in refused(
        wire.check_status, topic, b"maybe", T).reason
    assert "over the" in refused(wire.check_status, topic, b"o" * (1 << 20), T).reason


# -- next ----------------------------------------------------------------------------------

A_NEXT = Next(match="SF1", preset="ice-hockey-2x20", stage="playoff",
              home=Team("Lions", ("#10233f", "#ffffff")),
              away=Team("Bears", ("#f2f2f2", "#000000")),
              scheduled="2026-12-05T14:00", label="Semi-final 1",
              suspended=(Suspended("away", 12),))
GOOD_NEXT = wire.build_next(A_NEXT)


def test_next_round_trips() -> None:
    assert wire.check_next(NEXT, GOOD_NEXT, PRESETS) == A_NEXT
    bare = Next("A1", "floorball-2x15", "group", A_NEXT.home, A_NEXT.away)
    assert wire.check_next(NEXT, wire.build_next(bare)) == bare
    assert "label" not in wire.next_document(bare)  # as halls have always read it


def test_next_may_carry_the_public_sites_address() -> None:
    """The office's public address (``office serve --public-url``) rides on ``next``; a
    ``next`` without it reads as before."""
    told = Next(**{**{f: getattr(A_NEXT, f) for f in A_NEXT.__slots__},  # type: ignore[arg-type]
                   "public_url": "https://cup.example.org/results/"})
    doc = wire.next_document(told)
    assert doc["public_url"] == "https://cup.example.org/results/"
    assert wire.check_next(NEXT, wire.build_next(told), PRESETS) == told
    assert "public_url" not in wire.next_document(A_NEXT)


@pytest.mark.parametrize(("url", "reason"), [
    ("ftp://results.local/", "must be an http:// or https:// address"),
    ("results.local", "must be an http:// or https:// address"),
    ("http://", "must be an http:// or https:// address"),
    ("http://[::1", "must be an http:// or https:// address"),
    ("http://results.local/a b", "must have no spaces or control characters"),
    (f"http://x.org/{'a' * 200}", "must be at most 200 characters"),
    ("http://x.org/" + "\u00e9" * 101, "must be at most 200 characters (213 bytes"),
    (5, "must be a non-empty string, got an integer"),
    ("", "must be a non-empty string"),
])
def test_a_bad_address_in_next_is_left_out_and_the_match_still_taken(url: Any,
                                                                      reason: str) -> None:
    """A hall must get its next game even when the office's address is wrong: the address
    is left out, and why is kept for the hall's one log line."""
    doc = {**json.loads(GOOD_NEXT), "public_url": url}
    got = wire.check_next(NEXT, json.dumps(doc).encode(), PRESETS)
    assert got.public_url is None and got.match == A_NEXT.match
    assert len(got.ignored) == 1 and reason in got.ignored[0], got.ignored
    assert got.ignored[0].startswith("'public_url' ") and got.ignored[0].endswith("left out")
    with pytest.raises(ValueError, match=reason.replace("(", r"\(")):
        wire.check_public_url(url)
    assert "public_url" not in wire.next_document(got)
    null = wire.check_next(NEXT, json.dumps({**doc, "public_url": None}).encode(), PRESETS)
    assert null.public_url is None and null.ignored == ()


ROSTERED = Next(**{**{f: getattr(A_NEXT, f) for f in A_NEXT.__slots__},  # type: ignore[arg-type]
                   "home": Team("Lions", ("#10233f", "#ffffff"),
                                roster=((0, "T. Official"), (7, "A. Ås"), (99, "Z. Last"))),
                   "away": Team("Bears", ("#f2f2f2", "#000000"))})


def test_next_carries_each_sides_roster_by_shirt_number() -> None:
    """A team's roster rides in its side of ``next`` as the tournament file has it
    (number: name), keyed by the number's digits; a side without one has no key, so a
    ``next`` without rosters reads exactly as before."""
    doc = wire.next_document(ROSTERED)
    assert doc["teams"]["home"]["roster"] == {"0": "T. Official", "7": "A. Ås",
                                              "99": "Z. Last"}
    assert "roster" not in doc["teams"]["away"]
    assert wire.check_next(NEXT, wire.build_next(ROSTERED), PRESETS) == ROSTERED
    assert all("roster" not in t for t in wire.next_document(A_NEXT)["teams"].values())
    # Read in number order whatever order the object has.
    shuffled = json.loads(wire.build_next(ROSTERED))
    shuffled["teams"]["home"]["roster"] = {"99": "Z. Last", "0": "T. Official", "7": "A. Ås"}
    got = wire.check_next(NEXT, json.dumps(shuffled).encode(), PRESETS)
    assert got.home.roster == ROSTERED.home.roster and got.ignored == ()


@pytest.mark.parametrize(("roster", "reason"), [
    (["A. Player"], "must be an object of number: name, got a list"),
    ("7=A. Player", "must be an object of number: name, got a string"),
    ({"100": "A. Player"}, 'key "100" is not a shirt number (0-99)'),
    ({"-1": "A. Player"}, 'key "-1" is not a shirt number (0-99)'),
    ({"07": "A. Player"}, 'key "07" is not a shirt number (0-99)'),
    ({"seven": "A. Player"}, 'key "seven" is not a shirt number (0-99)'),
    ({"7": 7}, "7: must be the player's name, got 7"),
    ({"7": "  "}, "7: must be the player's name"),
    ({"7": None}, "7: must be the player's name, got null"),
    ({"7": "A.\nPlayer"}, "7: must have no control characters"),
    ({"7": "A\u200bPlayer"}, "7: must have no control characters"),
    ({"7": "A" * 41}, "7: must be at most 40 characters, got 41"),
    ({str(n): "A" for n in range(100)} | {"x": "B"}, "has 101 players, more than the 100"),
])
def test_a_bad_roster_in_next_is_left_out_and_the_match_still_taken(roster: Any,
                                                                    reason: str) -> None:
    """A roster only names scorers: a bad one must not keep a hall from its next game. It
    is left out (that side's, the other side's stays), and why is kept for the log."""
    doc = json.loads(wire.build_next(ROSTERED))
    doc["teams"]["away"]["roster"] = roster
    got = wire.check_next(NEXT, json.dumps(doc).encode(), PRESETS)
    assert got.match == A_NEXT.match and got.away.roster == ()
    assert got.home.roster == ROSTERED.home.roster
    assert len(got.ignored) == 1 and reason in got.ignored[0], got.ignored
    assert got.ignored[0].startswith("'teams.away.roster' ")
    assert got.ignored[0].endswith(": left out")
    with pytest.raises(ValueError, match=r"\A" + re.escape(reason)):
        wire.check_roster(roster)
    assert "roster" not in wire.next_document(got)["teams"]["away"]
    null = dict(doc)
    null["teams"]["away"]["roster"] = None  # null is no roster, said nowhere
    assert wire.check_next(NEXT, json.dumps(null).encode(), PRESETS).ignored == ()


def test_the_longest_roster_a_next_takes() -> None:
    full = {str(n): "N" * wire.ROSTER_NAME_CHARS for n in range(wire.MAX_PLAYER + 1)}
    got = wire.check_roster(full)
    assert len(got) == 100 and got[0] == (0, "N" * 40) and got[-1][0] == 99


def test_next_of_a_newer_minor_version_is_accepted() -> None:
    doc = json.loads(GOOD_NEXT)
    doc["venue"] = "Rink 2"
    doc["teams"]["home"]["short"] = "LIO"
    doc["suspended"][0]["reason"] = "match penalty"
    assert wire.check_next(NEXT, json.dumps(doc).encode(), PRESETS) == A_NEXT


def teams(**home: Any) -> dict[str, Any]:
    return {"home": {"name": "Lions", "colours": ["#10233f", "#ffffff"], **home},
            "away": {"name": "Bears", "colours": ["#f2f2f2", "#000000"]}}


@pytest.mark.parametrize(("body", "reason"), [
    (b"\xff", "not UTF-8"),
    (b"[1]", "must be a JSON object, got a list"),
    (edited(GOOD_NEXT, match="A/1"), "'match' must be a match id"),
    (edited(GOOD_NEXT, match=...), "'match' must be a match id (1-64 of A-Z a-z 0-9 _ . -), "
                                   "got null"),
    (edited(GOOD_NEXT, preset="quidditch"), "'preset' 'quidditch' is not a known preset"),
    (edited(GOOD_NEXT, preset=...), "'preset' is missing"),
    (edited(GOOD_NEXT, stage="final"), "'stage' must be 'group' or 'playoff', got \"final\""),
    (edited(GOOD_NEXT, teams="Lions v Bears"), "'teams' must be an object with 'home' and "
                                               "'away', got a string"),
    (edited(GOOD_NEXT, teams={"home": teams()["home"]}), "'teams.away' must be an object"),
    (edited(GOOD_NEXT, teams=teams(name=" ")), "'teams.home.name' must be a non-empty string"),
    (edited(GOOD_NEXT, teams=teams(colours=["navy", "#ffffff"])),
     "'teams.home.colours' must be two '#rrggbb' strings, got [\"navy\", \"#ffffff\"]"),
    (edited(GOOD_NEXT, scheduled=1400), "'scheduled' must be a string or null, got an integer"),
    (edited(GOOD_NEXT, label=["Semi"]), "'label' must be a string or null, got a list"),
    (edited(GOOD_NEXT, suspended={"home": 7}), "'suspended' must be a list, got an object"),
    (edited(GOOD_NEXT, suspended=[{"team": "visitors", "player": 7}]),
     "'suspended' item 0 must be {'team': 'home'|'away', 'player': int}"),
    (edited(GOOD_NEXT, suspended=[{"team": "home", "player": True}]), "'suspended' item 0"),
    # A retained next with a lone surrogate in a team name crash-looped the hall: refused
    # by safejson before any field is read, whether escaped or not.
    (edited(GOOD_NEXT, teams=teams(name="Li\ud800ns")), "not valid Unicode (a lone surrogate)"),
    (GOOD_NEXT.replace(b"Lions", b"Li\\udc00ns"), "not valid Unicode (a lone surrogate)"),
])
def test_a_bad_next_is_refused_naming_the_field(body: bytes, reason: str) -> None:
    assert reason in refused(wire.check_next, NEXT, body, PRESETS).reason


# -- standings -----------------------------------------------------------------------------


def row(team: str, rank: int, points: int, **extra: Any) -> Row:
    return Row(team=team, played=2, won=points // 2, drawn=0, lost=2 - points // 2,
               goals_for=5, goals_against=3, points=points, rank=rank, penalty_minutes=4,
               decided_by="points", lots_needed=False, **extra)


TABLE = Standings(group="A", tournament=T, provisional=True, complete=False,
                  rows=(row("Lions", 1, 4), row("Bears", 2, 0)))
GOOD_TABLE = wire.build_standings(TABLE)


def test_standings_round_trip() -> None:
    assert wire.check_standings(STANDINGS_A, GOOD_TABLE, T) == TABLE
    doc = wire.standings_document(TABLE)
    assert doc["name"] == doc["group"] == "A"  # the office's table, named as on its page
    assert wire.row_document(TABLE.rows[0])["goals_for"] == 5


def test_the_hall_shows_the_team_and_the_figures_between_games() -> None:
    assert wire.between_table(wire.check_standings(STANDINGS_A, GOOD_TABLE)) == {
        "group": "A", "rows": [
            {"team": "Lions", "played": 2, "won": 2, "drawn": 0, "lost": 0, "goals_for": 5,
             "goals_against": 3, "points": 4},
            {"team": "Bears", "played": 2, "won": 0, "drawn": 0, "lost": 2, "goals_for": 5,
             "goals_against": 3, "points": 0}]}


def test_standings_of_a_newer_minor_version_or_with_only_the_required_keys() -> None:
    doc = json.loads(GOOD_TABLE)
    doc["stage"] = "round-robin"
    doc["rows"][0]["form"] = "WW"
    assert wire.check_standings(STANDINGS_A, json.dumps(doc).encode()) == TABLE
    minimal = {"group": "A", "rows": [{"team": "Lions", **row("Lions", 1, 4).figures()}]}
    table = wire.check_standings(STANDINGS_A, json.dumps(minimal).encode())
    assert table.rows[0].rank is None and table.tournament is None and not table.complete
    negative = {"group": "A", "rows": [{"team": "Lions", **row("L", 1, 0).figures(),
                                        "points": -3}]}  # a forfeit's deduction
    assert wire.check_standings(STANDINGS_A, json.dumps(negative).encode()).rows[0].points == -3


def rows_with(**changes: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(GOOD_TABLE)["rows"]
    for key, value in changes.items():
        if value is ...:
            del rows[1][key]
        else:
            rows[1][key] = value
    return rows


@pytest.mark.parametrize(("topic", "body", "reason"), [
    (wire.hall_topic(T, H, wire.STATE), GOOD_TABLE, "not a topic of the form "
                                                    "arena/v1/cup-2026/standings/<group>"),
    (STANDINGS_A, b"{oops", "not JSON"),
    (STANDINGS_A, edited(GOOD_TABLE, group=...), "'group' is missing"),
    (wire.standings_topic(T, "B"), GOOD_TABLE, "'group' 'A' is not the topic's group 'B'"),
    (STANDINGS_A, edited(GOOD_TABLE, rows={"Lions": 1}), "'rows' must be a list, got an object"),
    (STANDINGS_A, edited(GOOD_TABLE, rows=["Lions"]), "'rows[0]' must be an object, got a "
                                                      "string"),
    (STANDINGS_A, edited(GOOD_TABLE, rows=rows_with(team=...)), "'rows[1].team' is missing"),
    (STANDINGS_A, edited(GOOD_TABLE, rows=rows_with(goals_for=...)),
     "'rows[1].goals_for' is missing"),
    (STANDINGS_A, edited(GOOD_TABLE, rows=rows_with(won=1.5)),
     "'rows[1].won' must be an integer, got a number"),
    (STANDINGS_A, edited(GOOD_TABLE, rows=rows_with(lost=-1)),
     "'rows[1].lost' must be an integer from 0 up, got -1"),
    (STANDINGS_A, edited(GOOD_TABLE, rows=rows_with(rank="1")),
     "'rows[1].rank' must be an integer or null, got a string"),
    (STANDINGS_A, edited(GOOD_TABLE, rows=rows_with(lots_needed="no")),
     "'rows[1].lots_needed' must be true or false, got a string"),
    (STANDINGS_A, edited(GOOD_TABLE, provisional=1), "'provisional' must be true or false"),
])
def test_bad_standings_are_refused_naming_the_field(topic: str, body: bytes,
                                                    reason: str) -> None:
    assert reason in refused(wire.check_standings, topic, body, T).reason


# -- categories: an event of several shares one tree ------------------------------------


def test_an_events_tables_carry_their_category_in_the_topic_and_the_document() -> None:
    topic = wire.standings_topic(T, "A", "U11")
    assert topic == "arena/v1/cup-2026/standings/U11/A"
    assert wire.route(topic, T) == wire.Route(wire.STANDINGS, group="A", category="U11")
    assert wire.route("arena/v1/cup-2026/standings/U11/A/x", T) is None
    assert wire.route("arena/v1/cup-2026/standings/U 11/A", T) is None
    table = Standings("A", TABLE.rows, T, category="U11")
    payload = wire.build_standings(table)
    assert wire.check_standings(topic, payload, T) == table
    # The category in the document is the topic's: a U9 table on U11's topic is refused.
    assert "'category' 'U9' is not the topic's category ('U11')" in refused(
        wire.check_standings, topic, edited(payload, category="U9"), T).reason
    assert "'category' None is not the topic's category ('U11')" in refused(
        wire.check_standings, topic, edited(payload, category=...), T).reason
    assert "is not the topic's category (none)" in refused(
        wire.check_standings, STANDINGS_A, payload, T).reason
    # A one-category table is as it was: no category key at all.
    assert "category" not in json.loads(GOOD_TABLE)
    with pytest.raises(ValueError, match="category 'U/11'"):
        wire.standings_topic(T, "A", "U/11")


def test_next_may_name_the_matchs_category() -> None:
    with_category = Next(**{**{f: getattr(A_NEXT, f) for f in A_NEXT.__dataclass_fields__},
                            "category": "U11"})
    payload = wire.build_next(with_category)
    assert json.loads(payload)["category"] == "U11"
    assert wire.check_next(NEXT, payload, PRESETS) == with_category
    assert "category" not in json.loads(GOOD_NEXT)
    assert wire.check_next(NEXT, GOOD_NEXT, PRESETS).category is None
    for bad in (11, "U 11", ""):
        assert "'category' must be a category name" in refused(
            wire.check_next, NEXT, edited(GOOD_NEXT, category=bad), PRESETS).reason


def test_a_waiting_next_round_trips_with_its_placeholder_sides() -> None:
    # The office names the match but not yet its teams (placeholders): the hall must not load it.
    held = Next("SF1", "floorball-2x15", "playoff",
                Team("1st A", ("#10233f", "#ffffff"), placeholder=True), A_NEXT.away,
                waiting=True)
    doc = wire.next_document(held)
    assert doc["waiting"] is True and doc["teams"]["home"]["placeholder"] is True
    assert "placeholder" not in doc["teams"]["away"]
    assert wire.check_next(NEXT, wire.build_next(held)) == held
    assert "waiting" not in wire.next_document(A_NEXT)  # as halls have always read it


@pytest.mark.parametrize(("body", "reason"), [
    (edited(GOOD_NEXT, teams=teams(placeholder=True)),
     "'waiting' must be true when a team is a placeholder (Lions)"),
    (edited(GOOD_NEXT, waiting="yes"), "'waiting' must be true or false"),
    (edited(GOOD_NEXT, teams=teams(placeholder=1)), "'teams.home.placeholder' must be true or"),
])
def test_a_placeholder_team_is_never_a_next_to_load(body: bytes, reason: str) -> None:
    assert reason in refused(wire.check_next, NEXT, body, PRESETS).reason


def test_a_replay_next_round_trips_and_only_a_replay_carries_the_key() -> None:
    # A replay: the office voided the result; the hall numbers the new game above 37.
    again = Next(**{**{f: getattr(A_NEXT, f) for f in A_NEXT.__dataclass_fields__},
                    "replay_above": 37})
    payload = wire.build_next(again)
    assert json.loads(payload)["replay"] == {"above_seq": 37}
    assert wire.check_next(NEXT, payload, PRESETS) == again
    assert "replay" not in json.loads(GOOD_NEXT)  # as halls have always read it
    assert wire.check_next(NEXT, edited(GOOD_NEXT, replay=None), PRESETS).replay_above is None


@pytest.mark.parametrize(("replay", "reason"), [
    (37, "'replay' must be an object with 'above_seq', got an integer 37"),
    ({}, "'replay.above_seq' is missing"),
    ({"above_seq": "37"}, "'replay.above_seq' must be an integer, got a string"),
    ({"above_seq": True}, "'replay.above_seq' must be an integer, got a boolean"),
    ({"above_seq": 0}, "'replay.above_seq' must be an integer from 1 to 20000, got 0"),
    ({"above_seq": wire.MAX_SEQ + 1}, "'replay.above_seq' must be an integer from 1 to 20000"),
])
def test_a_bad_replay_in_a_next_is_refused_naming_the_field(replay: Any, reason: str) -> None:
    assert reason in refused(wire.check_next, NEXT, edited(GOOD_NEXT, replay=replay),
                             PRESETS).reason


def test_acks_name_the_refused_matches_with_the_hall_playing_them_within_the_limit() -> None:
    """Two halls claiming one match: the office's acks to the refused hall name the match
    and the hall playing it, at most ``refused_max`` (the marks are never lost to it)."""
    many = {f"M{i:02d}": "hall-1" for i in range(wire.LIMITS.refused_max + 8)}
    payload = wire.build_acks({"A1": 3}, refused=many)
    doc = json.loads(payload)
    assert doc[wire.Ak.REFUSED]["M00"] == {wire.Ak.PLAYED_IN: "hall-1"}
    assert len(wire.refused_matches(payload)) == wire.LIMITS.refused_max
    assert wire.check_acks("arena/v1/T/hall-2/acks", payload, "T") == ("hall-2", {"A1": 3})
    assert wire.Ak.REFUSED not in json.loads(wire.build_acks({"A1": 3}))  # absent when none
    with pytest.raises(ValueError, match="hall"):
        wire.build_acks({}, refused={"A1": "hall/1"})
    bad = b'{"matches": {"A1": 3}, "refused": {"A1": {"played_in": "a/b"}, "B1": 7, "C1": ' \
          b'{"played_in": "hall-1"}}}'
    assert wire.refused_matches(bad) == {"C1": "hall-1"}
    assert wire.refused_matches(b'{"matches": {}, "refused": []}') == {}
    assert wire.refused_matches(b"") == {}
