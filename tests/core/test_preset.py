"""Presets: the seven of docs/developer.md 4.1, and clear errors for bad files."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from arena import presets
from arena.core.errors import PresetError
from arena.core.phase import Stage
from arena.core.preset import Criterion as C
from arena.core.preset import parse_preset
from arena.core.units import seconds

NAMES = [
    "ice-hockey-2x20", "floorball-2x15", "floorball-2x20", "floorball-u9-2x10",
    "youth-hockey-3x18", "football-p08", "football-p10",
]
PRESET_DIR = Path(presets.__file__).parent


def test_the_seven_presets_of_the_design_are_bundled() -> None:
    assert sorted(NAMES) == presets.names()


@pytest.mark.parametrize("name", NAMES)
def test_every_preset_loads_and_cites_its_rule_document(name: str) -> None:
    preset = presets.load(name)
    assert preset.name == name
    assert preset.rules.startswith("Rules 00")


def test_ice_hockey_follows_rules_000() -> None:
    # Rules 000 'Rules': 2 x 20 min raw time, last minute of period 2 clear time, 1 min break.
    p = presets.load("ice-hockey-2x20")
    assert (p.periods, p.period_length, p.breaks) == (2, seconds(1200), (seconds(60),))
    assert p.stop_time_window(2) == seconds(60)
    assert p.stop_time_window(1) is None
    # 'The winning goal race of the ranking matches': shootout, ranking matches only.
    assert p.decision.required(Stage.PLAYOFF) and not p.decision.required(Stage.GROUP)
    assert p.decision.overtime is None and p.decision.shootout


def test_floorball_follows_rules_001() -> None:
    # Rules 001 'Playing time': groups 2 x 15, play-offs 2 x 20 and the last 3 min net, U9 2 x 10.
    assert presets.load("floorball-2x15").period_length == seconds(900)
    assert presets.load("floorball-2x15").stop_time == ()
    playoff = presets.load("floorball-2x20")
    assert playoff.period_length == seconds(1200)
    assert playoff.stop_time_window(2) == seconds(180)
    assert playoff.stop_time_window(1) is None  # IFF 201: of the regular game time only
    assert presets.load("floorball-u9-2x10").period_length == seconds(600)


def test_youth_hockey_follows_rules_002() -> None:
    # Rules 002 'Match format' and 'Overtime'.
    p = presets.load("youth-hockey-3x18")
    assert (p.periods, p.period_length) == (3, seconds(1080))
    assert p.breaks[1] == seconds(180)
    assert p.stop_time == ()  # without stopping the clock
    assert p.decision.required(Stage.GROUP) and p.decision.required(Stage.PLAYOFF)
    assert p.decision.overtime_break == seconds(180)
    assert p.decision.overtime == seconds(360)
    assert p.decision.overtime_players == 5


def test_football_follows_rules_003() -> None:
    # Rules 003 'General': 1 x 25 min; 'Match rules': P08 8 v 8, P10 5 v 5 (goalkeeper excluded).
    p08, p10 = presets.load("football-p08"), presets.load("football-p10")
    assert (p08.periods, p08.period_length, p08.breaks) == (1, seconds(1500), ())
    assert (p08.players, p10.players) == (7, 4)


def _toml(name: str) -> dict[str, object]:
    return tomllib.loads((PRESET_DIR / f"{name}.toml").read_text(encoding="utf-8"))


def _broken(change: str) -> dict[str, object]:
    data = _toml("ice-hockey-2x20")
    exec(change, {"d": data})  # a one-line mutation of the parsed document
    return data


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("del d['clock']['period_s']", "mine.toml: clock.period_s: missing"),
        ("d['clock']['period_s'] = '20:00'", "clock.period_s: must be a whole number"),
        ("d['clock']['period_s'] = 0", "clock.period_s: must be at least 1"),
        ("d['clock']['periods'] = True", "clock.periods: must be a whole number"),
        ("d['clock']['breaks_s'] = [60, 60]", "clock.breaks_s: needs one break length"),
        ("d['clock']['peroid_s'] = 5", "clock.peroid_s: unknown key"),
        ("d['clock']['stop_time'][0]['period'] = 3",
         "clock.stop_time[0].period: must be at least 1 and at most 2, got 3"),
        ("d['field']['minimum'] = 9", "field.minimum: must be at least 0 and at most 5"),
        ("d['decision']['stages'] = ['semifinal']", "decision.stages: unknown value 'semifinal'"),
        ("d['decision']['shootout'] = False",
         "decision.shootout: a tie must be decided, but there is no overtime or shootout"),
        ("del d['decision']", "mine.toml: decision: missing"),
        ("d['horn'] = {'end_ms': 5}", "horn.end_ms: must be at least 100"),
        ("d['name'] = ''", "name: must be a non-empty string"),
        ("d['standings']['tiebreak'] = ['goal_diff']",
         "standings.tiebreak: unknown value 'goal_diff'"),
        ("d['standings']['tiebreak'] = ['lots', 'goals_for']",
         "standings.tiebreak: 'lots' can only be the last criterion"),
        ("d['standings']['tiebreak_many'] = ['goals_for', 'goals_for']",
         "standings.tiebreak_many: names a criterion twice"),
        ("d['standings']['points'] = {'win': 2, 'tie': 1}", "standings.points.tie: unknown key"),
        ("d['standings']['protest_window_min'] = -5",
         "standings.protest_window_min: must be at least 0"),
        ("d['standings']['suspensions'][0]['bans'] = [0, 'forever']",
         "standings.suspensions[0].bans: every entry must be a match count >= 0 or \"rest\""),
        ("d['standings']['suspensions'][0]['kinds'] = ['red_card']",
         "standings.suspensions: 'game misconduct' names 'red_card', not a penalty kind"),
    ],
)
def test_a_bad_preset_names_the_file_the_key_and_the_problem(change: str, expected: str) -> None:
    with pytest.raises(PresetError) as err:
        parse_preset(_broken(change), "mine.toml")
    assert expected in str(err.value)
    assert str(err.value).startswith("mine.toml: ")


def test_a_users_own_preset_file_loads(tmp_path: Path) -> None:
    text = (PRESET_DIR / "ice-hockey-2x20.toml").read_text(encoding="utf-8")
    path = tmp_path / "club-3x15.toml"
    path.write_text(text.replace('name = "ice-hockey-2x20"', 'name = "club-3x15"')
                    .replace("periods = 2", "periods = 3").replace("breaks_s = [60]",
                                                                  "breaks_s = [60, 120]"))
    preset = presets.load_file(path)
    assert (preset.name, preset.periods, preset.breaks[1]) == ("club-3x15", 3, seconds(120))


def test_unreadable_and_invalid_files_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(PresetError, match=r"nope\.toml: cannot read"):
        presets.load_file(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n")
    with pytest.raises(PresetError, match=r"bad\.toml: not valid TOML"):
        presets.load_file(bad)
    with pytest.raises(PresetError, match="unknown preset 'hockey'"):
        presets.load("hockey")


def test_standings_rules_follow_each_rule_document() -> None:
    """Rules 000 'The ranking of each team in each group', 001 'Qualifying criteria' and
    'Protests', 003 'Ranking' and 'Protests', as the presets' [standings] data."""
    hockey = presets.load("ice-hockey-2x20").standings
    assert (hockey.points.win, hockey.points.draw, hockey.points.loss) == (2, 1, 0)
    assert hockey.tiebreak[:3] == (C.GOAL_DIFFERENCE, C.GOALS_FOR, C.HEAD_TO_HEAD_POINTS)
    assert hockey.tiebreak_many[0] is C.HEAD_TO_HEAD_POINTS
    assert hockey.tiebreak[-2:] == (C.PENALTY_MINUTES, C.LOTS)
    assert [(r.name, r.bans) for r in hockey.suspensions] == [
        ("game misconduct", (0, 1, None)), ("match penalty", (1, None))]
    floorball = presets.load("floorball-2x15").standings
    assert floorball.tiebreak == (C.HEAD_TO_HEAD_POINTS, C.HEAD_TO_HEAD_GOAL_DIFFERENCE,
                                  C.GOAL_DIFFERENCE, C.LOTS)
    assert floorball.protest_window_s == 15 * 60
    football = presets.load("football-p10").standings
    assert (football.points.win, football.points.draw) == (3, 1)
    assert football.protest_window_s == 20 * 60
