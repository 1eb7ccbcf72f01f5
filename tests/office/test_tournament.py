"""The tournament file ('Tournament file', docs/developer.md 4.5): the four examples, one per
rule document, load as those documents describe; a bad file is refused with the file, the
key and the problem."""

from __future__ import annotations

import dataclasses
import tomllib
from collections import Counter
from datetime import datetime
from itertools import combinations
from pathlib import Path

import pytest

from arena import presets
from arena.core.preset import Criterion, Decision, Preset
from arena.tournament.files import load_tournament, tournament_presets
from arena.tournament.model import SlotKind, Stage, Tournament
from arena.tournament.reader import TournamentError, parse_tournament

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tournaments"
ALL_PRESETS: dict[str, Preset] = {name: presets.load(name) for name in presets.names()}

# A small valid file; the bad files below are this with one change. Match indices in the
# file: [0] A1, [1] B1, [2] SF1, [3] SF2, [4] F; then the rest of each group's round robin
# (the schedule check refuses a group where two teams never meet), earlier in the day.
BASE = """\
name = "Test Cup"
id = "test-cup"
preset = "ice-hockey-2x20"

[[groups]]
name = "A"
teams = ["Lions", "Bears", "Wolves"]

[[groups]]
name = "B"
teams = ["Eagles", "Hawks", "Owls"]

[[matches]]
id = "A1"
group = "A"
stage = "group"
hall = "hall-1"
start = 2026-12-05T09:00:00
home = "Lions"
away = "Bears"

[[matches]]
id = "B1"
group = "B"
stage = "group"
hall = "hall-2"
start = 2026-12-05T09:00:00
home = "Eagles"
away = "Hawks"

[[matches]]
id = "SF1"
stage = "playoff"
hall = "hall-1"
start = 2026-12-05T11:00:00
home = "A1"
away = "B2"

[[matches]]
id = "SF2"
stage = "playoff"
hall = "hall-2"
start = 2026-12-05T11:00:00
home = "B1"
away = "A2"

[[matches]]
id = "F"
stage = "playoff"
hall = "hall-1"
start = 2026-12-05T13:00:00
home = "W:SF1"
away = "W:SF2"

[[matches]]
id = "A2"
group = "A"
hall = "hall-1"
start = 2026-12-05T05:00:00
home = "Bears"
away = "Wolves"

[[matches]]
id = "B2"
group = "B"
hall = "hall-2"
start = 2026-12-05T05:00:00
home = "Hawks"
away = "Owls"

[[matches]]
id = "A3"
group = "A"
hall = "hall-1"
start = 2026-12-05T07:00:00
home = "Wolves"
away = "Lions"

[[matches]]
id = "B3"
group = "B"
hall = "hall-2"
start = 2026-12-05T07:00:00
home = "Owls"
away = "Eagles"
"""


def write(tmp_path: Path, text: str, name: str = "cup.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def edited(old: str, new: str, count: int = 1) -> str:
    assert BASE.count(old) >= count, f"test setup: {old!r} not in BASE"
    return BASE.replace(old, new, count)


def load_text(tmp_path: Path, text: str) -> Tournament:
    return load_tournament(write(tmp_path, text))


# --- the examples -------------------------------------------------------------------------


def example(name: str) -> Tournament:
    return load_tournament(EXAMPLES / name)


def test_there_is_one_example_per_rule_document() -> None:
    names = sorted(p.name for p in EXAMPLES.glob("*.toml"))
    assert names == ["000-ice-hockey.toml", "001-floorball.toml", "002-youth-hockey.toml",
                     "003-football.toml"]


@pytest.mark.parametrize(("name", "preset", "groups", "matches"), [
    ("000-ice-hockey.toml", "ice-hockey-2x20", {"A": 5, "B": 5}, 27),
    ("001-floorball.toml", "floorball-2x15", {"A": 4, "B": 4}, 15),
    ("002-youth-hockey.toml", "youth-hockey-3x18", {"A": 4}, 8),
    ("003-football.toml", "football-p10", {"A": 4, "B": 4}, 16),
])
def test_every_example_loads(name: str, preset: str, groups: dict[str, int],
                             matches: int) -> None:
    t = example(name)
    assert t.preset == preset
    assert {g.name: len(g.teams) for g in t.groups} == groups
    assert len(t.teams) == sum(groups.values())
    assert len(t.matches) == matches
    assert t.halls() == ("hall-1", "hall-2")
    starts = [m.start for m in t.matches]
    assert starts == sorted(starts)
    # A single round robin in every group: each pair meets exactly once.
    for g in t.groups:
        pairs = Counter(frozenset((m.home.text, m.away.text)) for m in t.group_matches(g.name))
        assert set(pairs) == {frozenset(p) for p in combinations(g.teams, 2)}
        assert set(pairs.values()) == {1}


def bracket(t: Tournament) -> dict[str, tuple[str, str, Stage]]:
    return {m.id: (m.home.text, m.away.text, m.stage) for m in t.matches if m.group is None}


def test_ice_hockey_example_follows_rules_000_format() -> None:
    # Rules 000 'Format' 1: two groups of five, each plays each other once (10 a group);
    # 2A: 1st and 2nd to the semi-finals and finals; 2B: 3rd to 5th to placement games.
    t = example("000-ice-hockey.toml")
    assert [len(t.group_matches(g)) for g in ("A", "B")] == [10, 10]
    P, PL = Stage.PLAYOFF, Stage.PLACEMENT
    assert bracket(t) == {
        "SF1": ("A1", "B2", P), "SF2": ("B1", "A2", P),
        "F": ("W:SF1", "W:SF2", P), "BR": ("L:SF1", "L:SF2", P),
        "P5": ("A3", "B3", PL), "P7": ("A4", "B4", PL), "P9": ("A5", "B5", PL),
    }
    final = t.match("F")
    assert final is not None and final.home.kind is SlotKind.WINNER
    assert final.home.match == "SF1" and final.home.label() == "Winner SF1"
    sf1 = t.match("SF1")
    assert sf1 is not None and sf1.home.kind is SlotKind.GROUP_PLACE
    assert (sf1.home.group, sf1.home.place) == ("A", 1)
    # 'The ranking of each team in each group': 2 points a win, 1 a draw.
    assert (t.rules.points.win, t.rules.points.draw, t.rules.points.loss) == (2, 1, 0)
    riga = t.teams["HK Riga"]
    assert riga.short == "RIG" and riga.colours == ("#8b0000", "#ffffff")
    assert riga.roster[7] == "M. Bērziņš"
    assert t.teams["Tartu Valk"].short == "TAR"  # default: first three letters


def test_floorball_example_follows_rules_001() -> None:
    t = example("001-floorball.toml")
    # 'Prizes': "The match for third place will not be played."
    assert bracket(t) == {"SF1": ("A1", "B2", Stage.PLAYOFF), "SF2": ("B1", "A2", Stage.PLAYOFF),
                          "F": ("W:SF1", "W:SF2", Stage.PLAYOFF)}
    assert not any(s.kind is SlotKind.LOSER for m in t.matches for s in (m.home, m.away))
    # 'Playing time': 2 x 15 in the groups, 2 x 20 in the play-offs.
    assert {m.preset for m in t.matches if m.group is not None} == {"floorball-2x15"}
    assert {m.preset for m in t.matches if m.group is None} == {"floorball-2x20"}
    # 'Protests': 15 minutes after the end of the match.
    assert t.rules.protest_window_s == 15 * 60


def test_youth_hockey_example_has_a_final_and_a_third_place_game() -> None:
    # Rules 002 state no format: the file's choice, one group of four, then 1v2 and 3v4.
    t = example("002-youth-hockey.toml")
    assert len(t.group_matches("A")) == 6
    assert bracket(t) == {"F": ("A1", "A2", Stage.PLAYOFF), "P3": ("A3", "A4", Stage.PLAYOFF)}


def test_football_example_gives_everyone_four_matches() -> None:
    # Rules 003 'General': everyone plays 4 matches; two groups and one follow-up match by
    # group placing. 'Ranking': 3 points a win, 1 a draw; 'Protests': 20 minutes.
    t = example("003-football.toml")
    per_team = Counter(s.text for m in t.matches if m.group is not None
                       for s in (m.home, m.away))
    assert set(per_team.values()) == {3} and len(per_team) == 8
    assert bracket(t) == {f"X{n}": (f"A{n}", f"B{n}", Stage.PLACEMENT) for n in range(1, 5)}
    assert (t.rules.points.win, t.rules.points.draw) == (3, 1)
    assert t.rules.protest_window_s == 20 * 60


# --- the format ---------------------------------------------------------------------------


def test_matches_are_sorted_by_start_keeping_file_order_on_ties(tmp_path: Path) -> None:
    # The file lists F first and the group matches last.
    text = BASE.split("[[matches]]")
    head, a1, b1, sf1, sf2, final, *earlier = text
    reordered = "[[matches]]".join([head, final, sf2, sf1, b1, a1, *earlier])
    t = load_text(tmp_path, reordered)
    assert [m.id for m in t.matches] == ["A2", "B2", "A3", "B3", "B1", "A1", "SF2", "SF1",
                                         "F"]


def test_a_team_named_like_a_placeholder_is_the_team(tmp_path: Path) -> None:
    # Documented in arena/tournament/reader.py: the team name wins over "first of group A".
    text = BASE.replace('"Owls"', '"A1"')
    t = load_text(tmp_path, text)
    sf1 = t.match("SF1")
    assert sf1 is not None and sf1.home.kind is SlotKind.TEAM and sf1.home.team == "A1"


def test_team_tables_short_colours_and_roster(tmp_path: Path) -> None:
    text = edited('teams = ["Lions", "Bears", "Wolves"]',
                  'teams = [{name = "Lions", short = "LNS", colours = ["#102040", "#FFFFFF"], '
                  'roster = {7 = "A. Player", 07 = "B. Player"}}, {name = "Bears"}, "Wolves"]')
    with pytest.raises(TournamentError, match=r"roster\.07: player number 7 is given twice"):
        load_text(tmp_path, text)
    t = load_text(tmp_path, text.replace(', 07 = "B. Player"', ', 99 = "B. Player"'))
    lions = t.teams["Lions"]
    assert (lions.short, lions.colours) == ("LNS", ("#102040", "#ffffff"))
    assert dict(lions.roster) == {7: "A. Player", 99: "B. Player"}
    assert t.teams["Bears"].short == "BEA" and t.teams["Bears"].colours is None
    assert list(t.teams) == ["Lions", "Bears", "Wolves", "Eagles", "Hawks", "Owls"]


def test_points_override(tmp_path: Path) -> None:
    t = load_text(tmp_path, edited('preset = "ice-hockey-2x20"\n',
                                   'preset = "ice-hockey-2x20"\npoints = {win = 3}\n'))
    assert (t.rules.points.win, t.rules.points.draw, t.rules.points.loss) == (3, 1, 0)
    # The rest stays the preset's (rules 000 'The ranking of each team in each group').
    assert t.rules.tiebreak == ALL_PRESETS["ice-hockey-2x20"].standings.tiebreak


def test_standings_override(tmp_path: Path) -> None:
    text = BASE + """
[standings]
points = {win = 3, draw = 1, loss = 0}
tiebreak = ["head_to_head_points", "goal_difference", "lots"]
protest_window_min = 10

[[standings.suspensions]]
name = "match penalty"
kinds = ["match"]
bans = [2]
"""
    rules = load_text(tmp_path, text).rules
    assert rules.points.win == 3
    assert rules.tiebreak == (Criterion.HEAD_TO_HEAD_POINTS, Criterion.GOAL_DIFFERENCE,
                              Criterion.LOTS)
    assert rules.protest_window_s == 600
    assert [(s.name, s.bans) for s in rules.suspensions] == [("match penalty", (2,))]


def test_tournament_presets_names_every_preset_with_its_key() -> None:
    data = tomllib.loads(edited('id = "F"\n', 'id = "F"\npreset = "floorball-2x20"\n'))
    assert tournament_presets(data) == {"ice-hockey-2x20": "preset",
                                        "floorball-2x20": "matches[4].preset"}


def test_parse_tournament_is_pure_and_names_its_source() -> None:
    data = tomllib.loads(BASE)
    t = parse_tournament(data, "cup.toml", ALL_PRESETS)
    assert (t.name, t.id, len(t.matches)) == ("Test Cup", "test-cup", 9)
    with pytest.raises(TournamentError, match=r"^cup\.toml: preset: unknown preset "
                       r"'ice-hockey-2x20' \(one of none loaded\)"):
        parse_tournament(data, "cup.toml", {})


def test_a_bracket_match_needs_a_preset_that_decides_a_tie() -> None:
    # The bracket needs a winner; a preset whose draws stand cannot give one.
    hockey = ALL_PRESETS["ice-hockey-2x20"]
    draws = dataclasses.replace(hockey, name="draws-stand", decision=Decision(frozenset()))
    data = tomllib.loads(edited('id = "F"\n', 'id = "F"\npreset = "draws-stand"\n'))
    with pytest.raises(TournamentError, match=r"matches\[4\]\.preset: a playoff match must "
                       r"be decided, but preset 'draws-stand' decides no tie"):
        parse_tournament(data, "cup.toml", {**ALL_PRESETS, "draws-stand": draws})


# --- bad files ----------------------------------------------------------------------------

SUSPENSION = '\n[[standings.suspensions]]\nname = "red"\nkinds = ["red_card"]\nbans = [1]\n'

BAD: list[tuple[str, str, str]] = [
    # (what, the file's text, what the message must say after "cup.toml: ")
    ("unknown key", edited('name = "Test Cup"', 'name = "Test Cup"\ncolour = "red"'),
     "colour: unknown key (misspelt?)"),
    ("misspelt match key", edited('home = "Lions"', 'hom = "Lions"'),
     "matches[0].hom: unknown key (misspelt?); did you mean 'home'?"),
    ("unknown team key", edited('"Lions",', '{name = "Lions", shirt = "red"},'),
     "groups[0].teams[0].shirt: unknown key (misspelt?)"),
    ("missing key", edited('hall = "hall-1"\n', ""), "matches[0].hall: missing"),
    ("missing name", edited('name = "Test Cup"\n', ""), "name: missing"),
    ("bad id", edited('id = "test-cup"', 'id = "test cup"'),
     "id: 'test cup' is not a valid name (1-64 of A-Z a-z 0-9 _ . -)"),
    ("a hall named as the tables' level", edited('hall = "hall-1"', 'hall = "standings"'),
     "matches[0].hall: hall 'standings': that level is the office's tables"),
    ("bad hall", edited('hall = "hall-1"', 'hall = "hall/1"'),
     "matches[0].hall: 'hall/1' is not a valid name"),
    ("quoted date", edited("start = 2026-12-05T09:00:00", 'start = "2026-12-05 09:00"'),
     "matches[0].start: must be a TOML local date-time (start = 2026-12-05T09:00:00, "
     "unquoted), got the string '2026-12-05 09:00'"),
    ("date with offset", edited("start = 2026-12-05T09:00:00", "start = 2026-12-05T09:00:00Z"),
     "matches[0].start: 2026-12-05T09:00:00+00:00 has a UTC offset"),
    ("date without time", edited("start = 2026-12-05T09:00:00", "start = 2026-12-05"),
     "matches[0].start: must be a TOML local date-time (start = 2026-12-05T09:00:00, "
     "unquoted), got a date without a time"),
    ("bad stage", edited('stage = "playoff"', 'stage = "final"'),
     "matches[2].stage: must be one of group, playoff, placement, got 'final'"),
    ("unknown group", edited('group = "A"', 'group = "C"'),
     "matches[0].group: no group 'C' (groups: A, B)"),
    ("bracket match in a group", edited('stage = "playoff"', 'stage = "playoff"\ngroup = "A"'),
     "matches[2].group: a playoff match belongs to no group"),
    ("unknown team in a group match", edited('home = "Lions"', 'home = "Tigers"'),
     "matches[0].home: 'Tigers' is not a team of group A (Lions, Bears, Wolves)"),
    ("team of another group", edited('home = "Lions"', 'home = "Eagles"'),
     "matches[0].home: 'Eagles' is in group B, not in group A"),
    ("placeholder in a group match", edited('home = "Lions"', 'home = "B1"'),
     "matches[0].home: 'B1' is not a team of group A (Lions, Bears, Wolves); a group match "
     "names teams, not placeholders"),
    ("a team in two matches at once",
     edited('group = "B"', 'group = "A"').replace('"Eagles"\naway = "Hawks"',
                                                  '"Wolves"\naway = "Lions"'),
     "matches[1].away: 'Lions' already plays match A1 at this time"),
    ("stage not a string", edited('stage = "playoff"', 'stage = ["playoff"]'),
     "matches[2].stage: must be one of group, playoff, placement, got ['playoff']"),
    ("same team twice", edited('away = "Bears"', 'away = "Lions"'),
     "matches[0].away: the same team twice ('Lions')"),
    ("team in two groups", edited('"Eagles", "Hawks"', '"Lions", "Hawks"'),
     "groups[1].teams[0]: 'Lions' is already in group A"),
    ("team twice in a group", edited('"Lions", "Bears"', '"Lions", "Lions"'),
     "groups[0].teams[1]: 'Lions' is named twice in group A"),
    ("duplicate group", edited('name = "B"', 'name = "A"'),
     "groups[1].name: group 'A' is named twice"),
    ("group name ending in a digit", edited('name = "B"', 'name = "B2"'),
     "groups[1].name: 'B2' ends in a digit"),
    ("group of one", edited('teams = ["Eagles", "Hawks", "Owls"]', 'teams = ["Eagles"]'),
     "groups[1].teams: group B needs at least 2 teams, got 1"),
    ("duplicate match id", edited('id = "B1"', 'id = "A1"'),
     "matches[1].id: match id 'A1' is used twice (first at matches[0])"),
    ("placeholder to a missing group", edited('home = "A1"', 'home = "C1"'),
     "matches[2].home: 'C1' is not a team, nor a placeholder: there is no group 'C'"),
    ("not a placeholder at all", edited('home = "A1"', 'home = "Tigers"'),
     "matches[2].home: 'Tigers' is not a team, nor a placeholder (A1 = first of group A, "
     "W:SF1 / L:SF1 = winner / loser of match SF1)"),
    ("place too big", edited('home = "A1"', 'home = "A4"'),
     "matches[2].home: 'A4': group A has places 1 to 3, not 4"),
    ("place zero", edited('home = "A1"', 'home = "A0"'),
     "matches[2].home: 'A0': group A has places 1 to 3, not 0"),
    ("winner of an unknown match", edited('home = "W:SF1"', 'home = "W:SF9"'),
     "matches[4].home: 'W:SF9' is not a team, nor a placeholder: there is no match 'SF9'"),
    ("winner of a later match", edited('away = "B2"', 'away = "L:F"'),
     "matches[2].away: 'L:F': F starts at 2026-12-05 13:00, not before this match "
     "(2026-12-05 11:00)"),
    ("winner of a match at the same time", edited('away = "B2"', 'away = "W:SF2"'),
     "matches[2].away: 'W:SF2': SF2 starts at 2026-12-05 11:00, not before this match"),
    ("winner of itself", edited('home = "W:SF1"', 'home = "W:F"'),
     "matches[4].home: 'W:F': a match cannot wait for its own result"),
    ("winner of a group match", edited('home = "W:SF1"', 'home = "W:A1"'),
     "matches[4].home: 'W:A1': A1 is a group match"),
    ("placeholder filling two slots", edited('away = "W:SF2"', 'away = "A1"'),
     "matches[4].away: 'A1' already fills matches[2].home"),
    ("two matches in a hall at once", edited('hall = "hall-2"', 'hall = "hall-1"'),
     "matches[1].start: hall-1 already has match A1 at this time"),
    ("unknown preset", edited('preset = "ice-hockey-2x20"', 'preset = "curling"'),
     "preset: unknown preset 'curling' (one of floorball-2x15, "),
    ("unknown match preset", edited('id = "F"\n', 'id = "F"\npreset = "curling"\n'),
     "matches[4].preset: unknown preset 'curling' (one of "),
    ("bad colours", edited('"Lions",', '{name = "Lions", colours = ["red", "#ffffff"]},'),
     "groups[0].teams[0].colours: must be two '#rrggbb' colours (shirt, number), "
     "got ['red', '#ffffff']"),
    ("one colour", edited('"Lions",', '{name = "Lions", colours = ["#ff0000"]},'),
     "groups[0].teams[0].colours: must be two '#rrggbb' colours"),
    ("bad roster key", edited('"Lions",', '{name = "Lions", roster = {x = "A. Player"}},'),
     "groups[0].teams[0].roster.x: 'x' is not a player number (0-99)"),
    ("roster number too big", edited('"Lions",', '{name = "Lions", roster = {100 = "A"}},'),
     "groups[0].teams[0].roster.100: '100' is not a player number (0-99)"),
    # A name a hall would leave out of a `next` (arena/wire/) is refused here.
    ("roster name too long",
     edited('"Lions",', f'{{name = "Lions", roster = {{7 = "{"A" * 41}"}}}},'),
     "groups[0].teams[0].roster.7: must be at most 40 characters, got 41"),
    ("roster name with a newline",
     edited('"Lions",', '{name = "Lions", roster = {7 = "A.\\nB"}},'),
     "groups[0].teams[0].roster.7: must have no control characters"),
    ("roster name blank", edited('"Lions",', '{name = "Lions", roster = {7 = " "}},'),
     "groups[0].teams[0].roster.7: must be the player's name"),
    ("short too long", edited('"Lions",', '{name = "Lions", short = "LIONESS"},'),
     "groups[0].teams[0].short: team 'Lions': 'LIONESS': a short name must be at most 6 "
     "characters, got 7"),
    ("short with a control character",
     edited('"Lions",', '{name = "Lions", short = "LI\\tO"},'),
     "groups[0].teams[0].short: team 'Lions': 'LI\\tO': a short name must have no control "
     "characters"),
    ("team name with spaces", edited('"Lions",', '" Lions",'),
     "groups[0].teams[0]: ' Lions' has leading or trailing spaces"),
    ("points override in both places",
     edited('preset = "ice-hockey-2x20"\n', 'preset = "ice-hockey-2x20"\npoints = {win = 3}\n')
     + "\n[standings]\npoints = {win = 3}\n",
     "points: given twice, here and as standings.points: keep one"),
    ("bad points override", edited('preset = "ice-hockey-2x20"\n',
                                   'preset = "ice-hockey-2x20"\npoints = {win = "two"}\n'),
     "points.win: must be a whole number, got 'two'"),
    ("bad override criterion", BASE + '\n[standings]\ntiebreak = ["goal_diff", "lots"]\n',
     "standings.tiebreak: unknown value 'goal_diff' (one of goal_difference, "),
    ("lots before the end", BASE + '\n[standings]\ntiebreak = ["lots", "goals_for"]\n',
     "standings.tiebreak: 'lots' can only be the last criterion"),
    ("unknown standings key", BASE + "\n[standings]\nprotest_window = 5\n",
     "standings.protest_window: unknown key (misspelt?)"),
    ("suspension of an unknown penalty kind", BASE + "\n[standings]\n" + SUSPENSION,
     "standings.suspensions[0].kinds: 'red_card' is not a penalty kind of preset "
     "'ice-hockey-2x20' (one of minor, "),
]


@pytest.mark.parametrize(("text", "message"), [(t, m) for _, t, m in BAD],
                         ids=[what for what, _, _ in BAD])
def test_a_bad_file_names_the_file_the_key_and_the_problem(tmp_path: Path, text: str,
                                                           message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(TournamentError) as caught:
        load_tournament(path)
    assert str(caught.value).startswith(f"{path}: "), caught.value
    assert message in str(caught.value)


def test_a_toml_syntax_error_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace('name = "Test Cup"', 'name = "Test Cup'))
    with pytest.raises(TournamentError, match=r"cup\.toml: not valid TOML: .*line 1"):
        load_tournament(path)


def test_an_unreadable_file_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match=r"missing\.toml: cannot read"):
        load_tournament(tmp_path / "missing.toml")
    path = tmp_path / "latin1.toml"
    path.write_bytes(BASE.replace("Lions", "L\xf6wen").encode("latin-1"))
    with pytest.raises(TournamentError, match=r"latin1\.toml: not UTF-8 text"):
        load_tournament(path)


def test_start_times_are_naive_local_wall_time(tmp_path: Path) -> None:
    t = load_text(tmp_path, BASE)
    first = t.matches[0]
    assert first.start == datetime(2026, 12, 5, 5, 0) and first.start.tzinfo is None


def test_groups_without_a_schedule_are_enough_to_rank(tmp_path: Path) -> None:
    """`office standings` ranks results by their teams when the file has no [[matches]]."""
    path = write(tmp_path, BASE.partition("[[matches]]")[0])
    t = load_tournament(path)
    assert t.matches == () and t.groups
