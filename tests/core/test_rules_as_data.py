"""Rules as data: the forfeit score, sudden death, citations and ``extends`` are the preset's.

The core never tests a preset's name (docs/developer.md 2, rule 5): each rule a tournament document
states is a preset field, and these tests check the field against the document it cites.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from arena import presets
from arena.core.commands import Forfeit, Goal, Next, Penalty, Shot, Start, Undo
from arena.core.errors import PresetError
from arena.core.match import Match, feed
from arena.core.phase import Stage, Team
from arena.core.preset import CITE, cited_fields, parse_preset, resolve
from arena.core.state import state_document
from arena.core.tables import Table, parse_toml, to_toml
from arena.core.values import MatchSetup

from .helpers import Game, S

HOME, AWAY = Team.HOME, Team.AWAY
PRESET_DIR = Path(presets.__file__).parent
DESCRIPTIVE = {"name", "summary", "rules"}  # what a preset says of itself, not rules


def _data(name: str) -> dict[str, Any]:
    return presets.resolved(*presets.bundled_text(name))[0]


# ---------------------------------------------------------------- the forfeit score


@pytest.mark.parametrize(("preset", "goals"), [
    # Rules 000 'Rules': a team not ready: a technical loss with the result of 0:5.
    ("ice-hockey-2x20", 5),
    # Rules 001 "Player's start": an unauthorized start results in a 0:5 forfeit.
    ("floorball-2x15", 5), ("floorball-2x20", 5), ("floorball-u9-2x10", 5),
    # Rules 002 states no forfeit score: 0:5, as rules 000 and 001 (cited as "not stated").
    ("youth-hockey-3x18", 5),
    # Rules 003 states no forfeit score: football's 3:0 (cited as "not stated").
    ("football-p08", 3), ("football-p10", 3),
])
def test_a_forfeit_is_recorded_with_the_presets_score(preset: str, goals: int) -> None:
    g = Game(preset)
    g.do(Start(0))
    g.do(Goal(S(50), HOME))
    g.do(Forfeit(S(100), HOME))
    assert g.at(101)["result"] == {"home": 0, "away": goals, "decided_by": "forfeit"}
    assert presets.load(preset).cite("forfeit.goals") is not None


def test_the_forfeit_citations_say_where_the_document_is_silent() -> None:
    # Rules 002 and 003 name no forfeit score: the preset says so rather than pretend.
    for name in ("youth-hockey-3x18", "football-p08", "football-p10"):
        citation = presets.load(name).cite("forfeit.goals")
        assert citation is not None and citation.startswith("not stated in rules 00")
    assert "0:5" in (presets.load("ice-hockey-2x20").cite("forfeit.goals") or "")
    assert "0:5" in (presets.load("floorball-2x15").cite("forfeit.goals") or "")


def test_forfeit_goals_are_validated() -> None:
    data = _data("ice-hockey-2x20")
    data["forfeit"] = {"goals": 0}
    with pytest.raises(PresetError, match=r"^mine.toml: forfeit.goals: must be at least 1"):
        parse_preset(data, "mine.toml")
    data["forfeit"] = {"goals": 5, "score": 5}
    with pytest.raises(PresetError, match=r"^mine.toml: forfeit.score: unknown key"):
        parse_preset(data, "mine.toml")


# ---------------------------------------------------------------- the shootout's goal


def _shootout_win(match: Match, at: int) -> None:
    """Shots until the away team has won the shootout (its first series)."""
    number = 10
    while match.state.phase.value == "shootout":
        team = shootout_next(match)
        feed(match, Shot(S(at), team, scored=team is AWAY, player=number))
        at, number = at + 10, number + 1


def shootout_next(match: Match) -> Team:
    doc = state_document(match, match.state.last_at or 0)
    return Team(doc["shootout"]["next"]) if doc["shootout"]["next"] else AWAY


@pytest.mark.parametrize("preset", ["ice-hockey-2x20", "floorball-2x15", "youth-hockey-3x18",
                                    "football-p08", "football-p10"])
def test_a_shootout_adds_only_the_decisive_goal_to_the_result(preset: str) -> None:
    # Rules 000 'The winning goal race of the ranking matches': only the decisive goal is
    # recorded in the final result; the other documents say nothing, and record it so too.
    loaded = presets.load(preset)
    assert loaded.shootout is not None and loaded.shootout.winner_goals == 1
    assert loaded.cite("shootout.winner_goals") is not None


def test_the_shootout_goal_is_the_presets() -> None:
    data = _data("ice-hockey-2x20")
    data["shootout"]["winner_goals"] = 2
    data["shootout"][CITE].pop("winner_goals")
    match = Match(parse_preset(data, "test.toml"), MatchSetup(stage=Stage.PLAYOFF))
    feed(match, Start(S(0)))
    feed(match, Goal(S(30), HOME, 9))
    feed(match, Goal(S(60), AWAY, 7))
    match.advance(S(1200))  # rules 000: 2 x 20 min, a playoff tie: overtime, then shots
    while match.state.phase.value not in ("shootout", "final"):
        feed(match, Next(S(1300)))
        match.advance(match.next_deadline() or S(9000))
    _shootout_win(match, (match.state.last_at or 0) // 1_000_000_000 + 10)
    result = state_document(match, match.state.last_at or 0)["result"]
    assert result == {"home": 1, "away": 3, "decided_by": "shootout"}


# ---------------------------------------------------------------- sudden death


def _youth(sudden_death: bool) -> Match:
    data = _data("youth-hockey-3x18")
    data["decision"]["sudden_death"] = sudden_death
    data["decision"][CITE].pop("sudden_death")
    return Match(parse_preset(data, "test.toml"), MatchSetup(stage=Stage.GROUP))


def _to_overtime(match: Match) -> None:
    for t in (0, 1680, 2960, 4220):  # 3 x 18 min, 10 and 3 min breaks, the 3 min OT break
        feed(match, Start(S(t)))


def test_rules_002_overtime_is_sudden_death() -> None:
    # Rules 002 'Overtime': overtime lasts 6 min, or until a "golden goal" is scored.
    preset = presets.load("youth-hockey-3x18")
    assert preset.decision.sudden_death
    assert "golden goal" in (preset.cite("decision.sudden_death") or "")


def test_without_sudden_death_overtime_is_played_out_and_goals_release_penalties() -> None:
    # The same rules with decision.sudden_death = false: a goal in overtime does not end it.
    match = _youth(sudden_death=False)
    _to_overtime(match)
    feed(match, Penalty(S(4230), HOME, 4, "minor"))
    assert state_document(match, S(4240))["strength"] == {"home": 4, "away": 5}
    feed(match, Goal(S(4250), AWAY, 9))
    doc = state_document(match, S(4251))
    assert (doc["phase"], doc["running"], doc["result"]) == ("overtime", True, None)
    # The goal against the shorthanded team ended its minor (rules 002 minors: releasable).
    assert doc["penalties"]["home"] == [] and doc["strength"] == {"home": 5, "away": 5}
    match.advance(S(4580))  # 6 min from 4220 s
    doc = state_document(match, S(4580))
    assert doc["result"] == {"home": 0, "away": 1, "decided_by": "overtime"}


def test_without_sudden_death_a_tied_overtime_still_goes_to_the_shootout() -> None:
    match = _youth(sudden_death=False)
    _to_overtime(match)
    feed(match, Goal(S(4300), AWAY, 9))
    feed(match, Goal(S(4400), HOME, 3))
    match.advance(S(4580))
    assert state_document(match, S(4580))["phase"] == "shootout"


def test_without_sudden_death_undoing_the_last_overtime_goal_decides_again() -> None:
    match = _youth(sudden_death=False)
    _to_overtime(match)
    feed(match, Goal(S(4300), AWAY, 9))
    match.advance(S(4580))
    assert state_document(match, S(4580))["phase"] == "final"
    feed(match, Undo(S(4590)))
    assert state_document(match, S(4590))["phase"] == "shootout"  # 0:0 after overtime


def test_sudden_death_needs_an_overtime() -> None:
    data = _data("ice-hockey-2x20")
    data["decision"]["sudden_death"] = True
    with pytest.raises(PresetError, match=r"decision.overtime_s: missing"):
        parse_preset(data, "mine.toml")


# ---------------------------------------------------------------- citations


@pytest.mark.parametrize("name", presets.names())
def test_every_field_of_every_bundled_preset_cites_its_rule_document(name: str) -> None:
    data = _data(name)
    preset = parse_preset(data, name)
    uncited = [path for path, _, citation in cited_fields(preset, data)
               if citation is None and path not in DESCRIPTIVE]
    assert uncited == []
    # The citations are data: a comment in the file holds none of them.
    for path, _, citation in cited_fields(preset, data):
        if path not in DESCRIPTIVE:
            assert citation is not None
            assert any(word in citation for word in ("rules 00", "IIHF", "IFF", "FIFA",
                                                     "not stated", "not a rule")), path


def test_a_citation_covers_the_fields_of_the_table_it_names() -> None:
    # Rules 000 'Penalties': one citation on penalties.kinds covers every kind.
    preset = presets.load("ice-hockey-2x20")
    assert preset.cite("penalties.kinds.minor.parts_s") == preset.cite("penalties.kinds")
    assert "rules 000, 'Penalties'" in (preset.cite("penalties.kinds") or "")
    # Rules 000 'Rules': the last minute of the second period, in an array of tables.
    assert "last minute" in (preset.cite("clock.stop_time[0].last_s") or "")
    assert preset.cite("no.such.field") is None


@pytest.mark.parametrize(("change", "expected"), [
    ("d['clock']['cite']['period'] = 'x'", "mine.toml: clock.cite.period: names no field"),
    ("d['clock']['cite']['periods'] = ''", "mine.toml: clock.cite.periods: must be a non-empty"),
    ("d['clock']['cite'] = 'rules 000'", "mine.toml: clock.cite: must be a table of field"),
    ("d['penalties']['kinds']['minor']['cite'] = {'part_s': 'x'}",
     "mine.toml: penalties.kinds.minor.cite.part_s: names no field"),
])
def test_a_bad_citation_names_the_file_and_the_key(change: str, expected: str) -> None:
    d = copy.deepcopy(_data("ice-hockey-2x20"))
    exec(change, {"d": d})
    with pytest.raises(PresetError) as err:
        parse_preset(d, "mine.toml")
    assert expected in str(err.value)


# ---------------------------------------------------------------- extends (pure merge)


def _loader(files: Mapping[str, str]) -> Any:
    def load(name: str) -> tuple[dict[str, Any], str]:
        if name not in files:
            raise PresetError(f"unknown preset {name!r}")
        return tomllib.loads(files[name]), f"{name}.toml"
    return load


BASE = """
name = "base"
summary = "base summary"
[clock]
periods = 2
breaks_s = [60]
cite.periods = "rules 000"
cite.breaks_s = "rules 000 break"
[[clock.stop_time]]
period = 2
last_s = 60
[standings]
tiebreak = ["goal_difference", "lots"]
"""


def test_extends_merges_tables_key_by_key_and_the_derived_preset_wins() -> None:
    derived = tomllib.loads("""
extends = "base"
name = "mine"
[clock]
period_s = 900
breaks_s = [120]
cite.period_s = "rules 001"
""")
    merged, source = resolve(derived, "mine.toml", _loader({"base": BASE}))
    assert source == "mine.toml (extends base.toml)"
    assert merged["name"] == "mine" and "extends" not in merged
    assert merged["summary"] == "base summary"  # inherited
    assert merged["clock"]["periods"] == 2 and merged["clock"]["period_s"] == 900
    assert merged["clock"]["breaks_s"] == [120]
    # The base's citation of a field the derived preset sets is dropped; its others stay.
    assert merged["clock"][CITE] == {"periods": "rules 000", "period_s": "rules 001"}


def test_extends_replaces_arrays_and_arrays_of_tables_whole() -> None:
    derived = tomllib.loads("""
extends = "base"
name = "mine"
[clock]
stop_time = []
[standings]
tiebreak = ["lots"]
""")
    merged, _ = resolve(derived, "mine.toml", _loader({"base": BASE}))
    assert merged["clock"]["stop_time"] == []
    assert merged["standings"]["tiebreak"] == ["lots"]


def test_name_is_never_inherited() -> None:
    merged, _ = resolve({"extends": "base"}, "mine.toml", _loader({"base": BASE}))
    assert "name" not in merged


def test_extends_chains_and_refuses_a_cycle() -> None:
    files = {"base": BASE, "middle": 'extends = "base"\n[clock]\nperiods = 3\n',
             "a": 'extends = "b"\n', "b": 'extends = "a"\n'}
    merged, source = resolve({"extends": "middle", "name": "x"}, "mine.toml", _loader(files))
    assert source == "mine.toml (extends middle.toml, base.toml)"
    assert merged["clock"]["periods"] == 3 and merged["clock"]["breaks_s"] == [60]
    with pytest.raises(PresetError, match=r"^b.toml: extends: 'a' makes a cycle "
                       r"\(mine.toml -> a.toml -> b.toml -> a.toml\)"):
        resolve({"extends": "a"}, "mine.toml", _loader(files))


@pytest.mark.parametrize(("derived", "expected"), [
    ({"extends": "nothing"}, "mine.toml: extends: unknown preset 'nothing'"),
    ({"extends": 3}, "mine.toml: extends: must be the name of a bundled preset, got 3"),
    ({"extends": "base", "clock": 5},
     "mine.toml: clock: is a table in the preset it extends, not a value"),
    ({"extends": "base", "summary": {"a": 1}},
     "mine.toml: summary: is a value in the preset it extends, not a table"),
    ({"extends": "base", "clock": {"stop_time": {"period": 1}}},
     "mine.toml: clock.stop_time: is a value in the preset it extends, not a table"),
])
def test_extends_errors_name_the_file_and_the_key(derived: dict[str, Any], expected: str
                                                  ) -> None:
    with pytest.raises(PresetError) as err:
        resolve(derived, "mine.toml", _loader({"base": BASE}))
    assert str(err.value).startswith(expected)


def test_an_unresolved_extends_is_not_parsed_alone() -> None:
    data = _data("ice-hockey-2x20")
    data["extends"] = "floorball-base"
    with pytest.raises(PresetError, match=r"^mine.toml: extends: not resolved"):
        parse_preset(data, "mine.toml")


# ---------------------------------------------------------------- the TOML reader


def test_parse_toml_names_the_source_and_the_line() -> None:
    with pytest.raises(PresetError, match=r"^cup.toml: not valid TOML: .*line 3"):
        parse_toml('a = 1\nb = 2\nc = = 3\n', "cup.toml", PresetError)


def test_a_table_names_the_source_the_key_path_and_the_problem() -> None:
    class CupError(ValueError):
        pass

    top = Table({"clock": {"period_s": "15 min", "perods": 2}}, "cup.toml", CupError,
                keys=["clock"])
    with pytest.raises(CupError, match=r"^cup.toml: clock.perods: unknown key \(misspelt\?\); "
                       r"did you mean 'periods'\?"):
        top.table("clock", keys=["periods", "period_s"])
    clock = top.table("clock")
    with pytest.raises(CupError, match=r"^cup.toml: clock.period_s: must be a whole number"):
        clock.integer("period_s")
    with pytest.raises(CupError, match=r"^cup.toml: clock.perods: unknown key"):
        clock.done()


@pytest.mark.parametrize("name", presets.names())
def test_to_toml_writes_what_parses_back_the_same(name: str) -> None:
    data = _data(name)
    data["odd key"] = {"tab\there": "quote \" backslash \\ del \x7f é"}
    assert tomllib.loads(to_toml(data, header="a header\nof two lines")) == data
