"""The tournament file and the office's intake hold names to one table of limits
(``arena.wire.limits``): whatever name a tournament file may hold, a final carrying it can
be stored, and the hall takes the ``next`` that names it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arena import presets, wire
from arena.tournament.files import load_tournament
from arena.tournament.model import Tournament
from arena.tournament.reader import TournamentError, parse_tournament
from office.storage import intake

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


NAMES = st.one_of(
    st.text(max_size=12),
    st.text(min_size=LIMIT - 2, max_size=LIMIT + 2),
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=30),
    st.sampled_from(["Lions", "1. FC Köln", "Åre IK", "HC \u00a0Davos", "A1", "W:SF1",
                     "Tre\u200bKronor", "x\x7f", "Jokerit\u2028", " Bears"]),
)


@settings(max_examples=80, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(home=NAMES, away=NAMES)
def test_any_name_the_reader_accepts_is_stored_in_a_final(home: str, away: str) -> None:
    assume(home != away)
    try:
        cup = parse_tournament(cup_of(home, away), "cup.toml", PRESETS)
    except TournamentError:
        return  # refused where it enters: the office never meets it
    match = cup.match("A1")
    assert match is not None
    # the hall takes the office's next naming them ...
    nxt = wire.Next(match="A1", preset=PRESET, stage="group",
                    home=wire.Team(home, ("#000000", "#ffffff")),
                    away=wire.Team(away, ("#ffffff", "#000000")))
    got = wire.check_next(wire.hall_topic(cup.id, "hall-1", wire.NEXT), wire.build_next(nxt))
    assert (got.home.name, got.away.name) == (home, away)
    # ... and the office stores every event of the match played under those names, the
    # final with its whole record (wire.event_document) included
    topic = wire.hall_topic(cup.id, match.hall, wire.EVENTS)
    documents = play(PRESET, match.hall, Play("A1", home, away, 1, 0))
    assert documents[-1][wire.Ev.TYPE] == "match_ended"
    for doc in documents:
        payload = wire.build_event(match.hall, {
            "match": doc[wire.Ev.MATCH], "seq": doc[wire.Ev.SEQ], "event": doc[wire.Ev.TYPE],
            "data": doc[wire.Ev.DATA], "at": doc[wire.Ev.AT_NS]})
        ev = intake.check_event(topic, payload, cup, doc[wire.Ev.SEQ] - 1)
        assert ev.seq == doc[wire.Ev.SEQ]
    assert documents[-1][wire.Ev.DATA]["record"]["teams"] == {"home": home, "away": away}
