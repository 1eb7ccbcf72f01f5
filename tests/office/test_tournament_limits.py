"""The tournament file and the office's intake hold names to one table of limits
(``arena.wire.limits``): whatever name a tournament file may hold, a final carrying it can
be stored, and the hall takes the ``next`` that names it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from arena import presets, wire
from arena.tournament.files import load_tournament
from arena.tournament.model import Tournament
from arena.tournament.reader import TournamentError, parse_tournament
from firmware_py.mqtt import parse_next
from office.storage import intake
from office.views.ledger import build

from .games import Play, play

PRESET = "floorball-2x15"
PRESETS = {PRESET: presets.load(PRESET)}
LIMIT = wire.LIMITS.text_chars

CUP = """\
name = "Limit Cup"
id = "limit-cup"
preset = "floorball-2x15"

[[groups]]
name = "A"
teams = [{home}, "Bears"]

[[matches]]
id = "A1"
group = "A"
hall = "hall-1"
start = 2026-12-05T09:00:00
home = {home}
away = "Bears"
"""


def load(tmp_path: Path, home: str) -> Tournament:
    path = tmp_path / "cup.toml"
    path.write_text(CUP.format(home=home), encoding="utf-8")
    return load_tournament(path)


def test_a_team_name_longer_than_a_final_may_carry_is_refused_at_load(tmp_path: Path) -> None:
    name = "L" * (LIMIT + 1)
    with pytest.raises(TournamentError) as caught:
        load(tmp_path, f'"{name}"')
    message = str(caught.value)
    assert "cup.toml: groups[0].teams[0]: team 'LLLL" in message
    assert f"must be at most {LIMIT} characters, got {LIMIT + 1}" in message
    # one character less is a name the office stores (below, for any name)
    assert load(tmp_path, f'"{"L" * LIMIT}"').teams["L" * LIMIT].name == "L" * LIMIT


@pytest.mark.parametrize("escaped", ["Lions\\u0007", "Lions\\tCub", "Li\\u200bons",
                                     "Li\\u00a0ons"])
def test_a_team_name_with_a_control_character_is_refused_at_load(tmp_path: Path,
                                                                  escaped: str) -> None:
    with pytest.raises(TournamentError, match=r"cup.toml: groups\[0\]\.teams\[0\]: team "
                                              r"'Li.*: a team name must have no control "
                                              "characters"):
        load(tmp_path, f'"{escaped}"')


def test_a_team_table_name_is_held_to_the_same_limits(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match=r"groups\[0\]\.teams\[0\]\.name: team 'LL.*"
                                              f"at most {LIMIT} characters"):
        load(tmp_path, f'{{name = "{"L" * (LIMIT + 1)}", short = "LIO"}}')


def cup_of(home: str, away: str) -> dict[str, Any]:
    """The tournament file (as tomllib reads it) of one group match between the two."""
    return {"name": "Limit Cup", "id": "limit-cup", "preset": PRESET,
            "groups": [{"name": "A", "teams": [home, away]}],
            "matches": [{"id": "A1", "group": "A", "hall": "hall-1",
                         "start": datetime(2026, 12, 5, 9), "home": home, "away": away}]}


# Printable characters only (letters, marks, numbers, punctuation, symbols): names the
# reader may accept at any length, so the property meets names right at the limit.
PRINTABLE = st.characters(categories=("L", "M", "N", "P", "S"))


def around(limit: int) -> st.SearchStrategy[str]:
    """Printable text one character short of ``limit``, at it, or one over, as often."""
    return st.integers(limit - 1, limit + 1).flatmap(
        lambda n: st.text(PRINTABLE, min_size=n, max_size=n))


NAMES = st.one_of(
    st.text(max_size=12),
    st.text(min_size=LIMIT - 2, max_size=LIMIT + 2),
    around(LIMIT),
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=30),
    st.sampled_from(["Lions", "1. FC Köln", "Åre IK", "HC \u00a0Davos", "A1", "W:SF1",
                     "Tre\u200bKronor", "x\x7f", "Jokerit\u2028", " Bears"]),
)
ROSTER_NAMES = st.one_of(
    st.text(max_size=8),
    around(wire.LIMITS.roster_name_chars),
)


@settings(max_examples=80, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(home=NAMES, away=NAMES, player=ROSTER_NAMES, short=around(wire.LIMITS.short_chars))
@example(home="\U0001f3d2" * LIMIT, away="B" * LIMIT,
         player="\U0001f3d2" * wire.LIMITS.roster_name_chars,
         short="\U0001f3d2" * wire.LIMITS.short_chars)
def test_any_name_the_reader_accepts_is_stored_in_a_final(home: str, away: str, player: str,
                                                          short: str) -> None:
    assume(home != away)
    cup = cup_of(home, away)
    cup["groups"][0]["teams"][0] = {"name": home, "short": short, "roster": {"7": player}}
    try:
        t = parse_tournament(cup, "cup.toml", PRESETS)
    except TournamentError:
        return  # refused where it enters: the office never meets it
    match = t.match("A1")
    assert match is not None
    # the hall takes the office's own next naming them (its ledger's, checked as the
    # hall checks the payload), nothing of it left out ...
    doc = build(t, []).next_document(match.hall)
    assert doc is not None
    got = parse_next(wire.encode(doc))
    assert (got["teams"]["home"]["name"], got["teams"]["away"]["name"]) == (home, away)
    assert got["teams"]["home"]["roster"] == {"7": player}
    # ... and the office stores every event of the match played under those names, the
    # final with its whole record (wire.event_document) included
    topic = wire.hall_topic(t.id, match.hall, wire.EVENTS)
    documents = play(PRESET, match.hall, Play("A1", home, away, 1, 0))
    assert documents[-1][wire.Ev.TYPE] == "match_ended"
    for doc in documents:
        payload = wire.build_event(match.hall, {
            "match": doc[wire.Ev.MATCH], "seq": doc[wire.Ev.SEQ], "event": doc[wire.Ev.TYPE],
            "data": doc[wire.Ev.DATA], "at": doc[wire.Ev.AT_NS]})
        ev = intake.check_event(topic, payload, t, doc[wire.Ev.SEQ] - 1)
        assert ev.seq == doc[wire.Ev.SEQ]
    assert documents[-1][wire.Ev.DATA]["record"]["teams"] == {"home": home, "away": away}


# ---------------------------------------------------------------- the rest of the file


def refused(data: dict[str, Any]) -> str:
    with pytest.raises(TournamentError) as caught:
        parse_tournament(data, "cup.toml", PRESETS)
    return str(caught.value)


def test_the_tournaments_own_name_is_held_to_the_text_rules() -> None:
    """The page and the printouts show it: no control character, no more than a team's."""
    cup = cup_of("Lions", "Bears")
    assert parse_tournament({**cup, "name": "N" * LIMIT}, "cup.toml", PRESETS).name == \
        "N" * LIMIT
    assert refused({**cup, "name": "N" * (LIMIT + 1)}).startswith(
        f"cup.toml: name: 'NNN{'N' * 34}...': the tournament's name must be at most {LIMIT} "
        f"characters, got {LIMIT + 1}")
    assert "cup.toml: name: 'Limit\\nCup': the tournament's name must have no control " \
        "characters, got '\\n'" in refused({**cup, "name": "Limit\nCup"})


def test_a_group_larger_than_one_table_message_holds_is_refused() -> None:
    most = wire.LIMITS.group_teams_max
    teams = [f"Team {i}" for i in range(most + 1)]
    cup = cup_of("Lions", "Bears")
    del cup["matches"]  # groups alone are a file (for ranking a results file)
    parse_tournament({**cup, "groups": [{"name": "A", "teams": teams[:most]}]}, "cup.toml",
                     PRESETS)
    assert refused({**cup, "groups": [{"name": "A", "teams": teams}]}) == (
        f"cup.toml: groups[0].teams: group A has {most + 1} teams, the limit is {most} (its "
        "table is one message to every hall)")


def test_points_beyond_the_limit_are_refused_where_the_file_gives_them() -> None:
    most = wire.LIMITS.points_max
    cup = cup_of("Lions", "Bears")
    parse_tournament({**cup, "points": {"win": most}}, "cup.toml", PRESETS)
    assert refused({**cup, "points": {"win": most + 1}}) == (
        f"cup.toml: points.win: {most + 1} points, the limit is {most} a result (a group's "
        "table is sent to every hall)")
    assert refused({**cup, "standings": {"points": {"draw": most + 1}}}).startswith(
        f"cup.toml: standings.points.draw: {most + 1} points, the limit is {most}")


def test_slot_minutes_are_held_to_the_table() -> None:
    most = wire.LIMITS.slot_minutes_max
    cup = cup_of("Lions", "Bears")
    parse_tournament({**cup, "slot_minutes": most}, "cup.toml", PRESETS)
    assert refused({**cup, "slot_minutes": most + 1}) == (
        f"cup.toml: slot_minutes: must be a whole number of minutes from 1 to {most}, got "
        f"{most + 1}")


def test_a_default_short_name_is_within_its_limit_whatever_the_name() -> None:
    """Upper-casing can lengthen a letter ("ß" is "SS"): the default is cut after it."""
    team = {"name": "\ufb03\ufb03\ufb03 Cup", "colours": ["#000000", "#ffffff"]}
    cup = cup_of("Lions", "Bears")
    cup["groups"][0]["teams"][0] = team
    cup["matches"][0]["home"] = team["name"]
    got = parse_tournament(cup, "cup.toml", PRESETS).teams[team["name"]]
    assert got.short == "FFI" and len(got.short) <= wire.LIMITS.short_chars


# ---------------------------------------------------------------- the largest messages

# A four-byte character of UTF-8 (printable): the longest a name can be in bytes.
WIDE = "\U0001f3d2"


def wide_name(i: int, chars: int = LIMIT) -> str:
    tag = str(i)
    return WIDE * (chars - len(tag)) + tag


def test_the_largest_group_of_the_longest_names_is_one_standings_message() -> None:
    """Every figure at the most a group of ``group_teams_max`` can reach (a double round
    robin, every match at the limits of goals, points and penalties): still one message,
    and the hall's check of a table takes it."""
    limits = wire.LIMITS
    n = limits.group_teams_max
    played = 2 * (n - 1)
    rows = tuple(wire.Row(
        team=wide_name(i), played=played, won=played, drawn=played, lost=played,
        goals_for=played * limits.goals_max, goals_against=played * limits.goals_max,
        points=played * limits.points_max, rank=i + 1,
        penalty_minutes=played * limits.items_max * limits.minutes_max,
        decided_by="head_to_head_goal_difference", lots_needed=True) for i in range(n))
    table = wire.Standings(group="G" * limits.name_chars, rows=rows,
                           tournament="t" * limits.name_chars, provisional=True,
                           complete=True, category="c" * limits.name_chars)
    topic = wire.standings_topic("t" * limits.name_chars, table.group, table.category)
    payload = wire.build_standings(table)
    assert len(payload) <= limits.payload_bytes, len(payload)
    assert wire.check_standings(topic, payload, "t" * limits.name_chars) == table
    # and the office's own table of such a group, from the file, is the one the hall takes
    teams = [wide_name(i) for i in range(n)]
    cup = cup_of("Lions", "Bears")
    del cup["matches"]
    t = parse_tournament({**cup, "groups": [{"name": "A", "teams": teams}]}, "cup.toml",
                         PRESETS)
    doc = build(t, []).standings_document("A")
    checked = wire.check_standings(wire.standings_topic(t.id, "A"),
                                   wire.encode(doc), t.id)
    assert sorted(r.team for r in checked.rows) == sorted(teams)


def test_the_largest_next_is_one_message_the_hall_takes_whole() -> None:
    """Both teams at the longest names, their rosters full of the longest players' names,
    every player suspended, a replay, the public site's longest address: one message, and
    the hall's check leaves nothing of it out."""
    limits = wire.LIMITS
    roster = tuple((n, wide_name(n, limits.roster_name_chars))
                   for n in range(limits.player_max + 1))
    url = "https://" + "h" * (limits.public_url_bytes - len("https://"))
    nxt = wire.Next(
        match="M" * limits.name_chars, preset=PRESET, stage="playoff",
        home=wire.Team(wide_name(1), ("#000000", "#ffffff"), roster=roster),
        away=wire.Team(wide_name(2), ("#ffffff", "#000000"), roster=roster),
        scheduled="2026-12-05T09:00", label="Group " + "G" * limits.name_chars,
        suspended=tuple(wire.Suspended(side, n) for side in ("home", "away")
                        for n in range(limits.player_max + 1)),
        category="c" * limits.name_chars, replay_above=limits.seq_max,
        public_url=url[:limits.public_url_chars])
    payload = wire.build_next(nxt)
    assert len(payload) <= limits.payload_bytes, len(payload)
    got = wire.check_next(wire.hall_topic("t", "hall-1", wire.NEXT), payload, (PRESET,))
    assert got == nxt and got.ignored == ()


def test_the_offices_next_of_the_longest_names_and_rosters_is_what_the_hall_loads() -> None:
    """From the file to the hall: the office's ``next`` (its ledger) of a match between two
    teams at every limit of the file, checked as the hall checks it, keeps every name."""
    limits = wire.LIMITS
    roster = {str(n): wide_name(n, limits.roster_name_chars)
              for n in range(limits.player_max + 1)}
    home = {"name": wide_name(1), "short": WIDE * limits.short_chars,
            "colours": ["#000000", "#ffffff"], "roster": roster}
    away = {"name": wide_name(2), "roster": roster}
    cup = cup_of("Lions", "Bears")
    cup["groups"][0]["teams"] = [home, away]
    cup["matches"][0] |= {"home": home["name"], "away": away["name"]}
    t = parse_tournament(cup, "cup.toml", PRESETS)
    doc = build(t, []).next_document("hall-1")
    assert doc is not None
    payload = wire.encode(doc)
    assert len(payload) <= limits.payload_bytes
    checked = parse_next(payload)  # the hall's own check of the payload
    assert checked == doc
    assert checked["teams"]["home"]["name"] == home["name"]
    assert checked["teams"]["away"]["roster"] == roster
