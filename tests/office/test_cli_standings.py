"""`office standings` and `office draw-lots` (the rules' 'Ranking'), through ``main(argv)``.

The tournament is a small file written here: group A (Lions, Bears, Wolves) and group B
(Hawks, Owls, Foxes) on preset ice-hockey-2x20, i.e. rules 000 'The ranking of each team in
each group' (2 points a win; two teams level: goal difference, goals for, head-to-head, penalty
minutes, dice).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from office.cli.main import main

TOURNAMENT = """\
name = "Test Cup"
id = "test-cup"
preset = "ice-hockey-2x20"

[[groups]]
name = "A"
teams = ["Lions", "Bears", "Wolves"]

[[groups]]
name = "B"
teams = ["Hawks", "Owls", "Foxes"]
"""
_MATCHES = [("A1", "A", "Lions", "Bears"), ("A2", "A", "Bears", "Wolves"),
            ("A3", "A", "Wolves", "Lions"), ("B1", "B", "Hawks", "Owls"),
            ("B2", "B", "Owls", "Foxes"), ("B3", "B", "Foxes", "Hawks")]


def _tournament_text() -> str:
    parts = [TOURNAMENT]
    for i, (mid, grp, home, away) in enumerate(_MATCHES):
        parts.append(f'[[matches]]\nid = "{mid}"\ngroup = "{grp}"\nhall = "hall-1"\n'
                     f"start = 2026-12-05T{9 + i:02d}:00:00\n"
                     f'home = "{home}"\naway = "{away}"\n')
    parts.append('[[matches]]\nid = "F"\nstage = "playoff"\nhall = "hall-1"\n'
                 'start = 2026-12-05T18:00:00\nhome = "A1"\naway = "B1"\n')
    return "\n".join(parts)


def res(match: str, home: str, away: str, score: str, **extra: object) -> str:
    h, a = (int(x) for x in score.split(":"))
    return json.dumps({"match": match, "home": home, "away": away,
                       "score": {"home": h, "away": a}, **extra})


@pytest.fixture
def cup(tmp_path: Path) -> Path:
    path = tmp_path / "cup.toml"
    path.write_text(_tournament_text(), encoding="utf-8")
    return path


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# Group A complete: Lions and Bears level on everything (lots needed); group B one result
# still 'final' (protest window open).
LEVEL = (res("A1", "Lions", "Bears", "1:1"), res("A2", "Bears", "Wolves", "2:0"),
         res("A3", "Wolves", "Lions", "0:2"),
         res("B1", "Hawks", "Owls", "3:1", state="final", penalty_minutes={"home": 4, "away": 2}))


def test_json_shape_and_values(cup: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    # 000 'The ranking of each team in each group': Lions and Bears 3 points, 3:1 each, a
    # 1:1 mutual match, no penalty minutes: rule 8 (dice) -> lots needed.
    results = write(tmp_path, *LEVEL, res("F", "Lions", "Hawks", "1:0"))  # F: bracket
    code, out, err = run(capsys, "standings", "--tournament", str(cup), "--results",
                         str(results), "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert list(doc) == ["groups"]
    a, b = doc["groups"]
    assert list(a) == ["name", "provisional", "complete", "rows"]
    assert (a["name"], a["provisional"], a["complete"]) == ("A", False, True)
    assert (b["name"], b["provisional"], b["complete"]) == ("B", True, False)
    assert list(a["rows"][0]) == ["rank", "team", "played", "won", "drawn", "lost",
                                  "goals_for", "goals_against", "points", "penalty_minutes",
                                  "decided_by", "lots_needed"]
    assert [(r["rank"], r["team"], r["points"], r["decided_by"], r["lots_needed"])
            for r in a["rows"]] == [(1, "Bears", 3, None, True), (1, "Lions", 3, "points", True),
                                    (3, "Wolves", 0, None, False)]
    # The bracket match F counted for nobody: Lions played only their two group games.
    assert a["rows"][1]["played"] == 2
    assert [(r["team"], r["points"], r["penalty_minutes"]) for r in b["rows"]] == [
        ("Hawks", 2, 4), ("Foxes", 0, 0), ("Owls", 0, 2)]
    # Owls played and lost; Foxes have not played: 000 rule 1 (points) cannot split 0 and 0,
    # rule 2 (goal difference) does: Foxes 0, Owls -2.
    assert [r["decided_by"] for r in b["rows"]] == ["points", "goal_difference", None]


def test_one_group_and_the_human_table(cup: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    results = write(tmp_path, *LEVEL)
    code, out, _ = run(capsys, "standings", "--tournament", str(cup), "--results",
                       str(results), "--group", "A")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Group A (complete)"
    assert lines[1].split() == ["#", "Team", "P", "W", "D", "L", "Goals", "GD", "Pts", "PIM",
                                "Why"]
    assert lines[2].split() == ["1", "Bears", "2", "1", "1", "0", "3:1", "+2", "3", "0",
                                "lots", "needed"]
    assert lines[4].split() == ["3", "Wolves", "2", "0", "0", "2", "0:4", "-4", "0", "0"]
    # Aligned: the points column ends where its header ends.
    pts_end = lines[1].index("Pts") + len("Pts")
    assert [line[pts_end - 1] for line in lines[2:5]] == ["3", "3", "0"]
    assert "Group B" not in out


def test_human_table_says_why(cup: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    # 000 'The ranking...': a cycle, three teams tied in points -> "starting from the first
    # rule (considering only the matches between the tied teams)": head-to-head points 2
    # each, head-to-head goal difference Lions +2, Wolves 0, Bears -2.
    results = write(tmp_path, res("A1", "Lions", "Bears", "3:0"),
                    res("A2", "Bears", "Wolves", "1:0"), res("A3", "Wolves", "Lions", "1:0"))
    code, out, _ = run(capsys, "standings", "--tournament", str(cup), "--results",
                       str(results), "--group", "A")
    assert code == 0
    rows = out.splitlines()[2:5]
    assert [row.split()[1] for row in rows] == ["Lions", "Wolves", "Bears"]
    assert rows[0].endswith("  head-to-head goal difference")
    assert rows[1].endswith("  head-to-head goal difference")
    assert rows[2].endswith("  0")  # the last row: nothing below it, no "why"


@pytest.mark.parametrize(("lines", "message"), [
    ((LEVEL[0], LEVEL[1], "", res("A3", "Wolves", "Lions", "0:2").replace("0", '"0"', 1)),
     'results.jsonl:4: score.home: must be a whole number >= 0, got "0"'),
    ((LEVEL[0], '{"match": "A2", "home": "Bears", "away": "Wolves", "score": {"home": 1, '
                '"away": 0}, "venue": "x"}'), "results.jsonl:2: venue: unknown key"),
    ((res("A1", "Bears", "Lions", "1:0"),),
     "results.jsonl:1: home/away: match 'A1' is Lions v Bears in the schedule, the result "
     "says Bears v Lions (home and away swapped)"),
    ((res("A1", "Lions", "Wolves", "1:0"),),
     "results.jsonl:1: home/away: match 'A1' is Lions v Bears"),
    ((res("X9", "Lions", "Hawks", "1:0"),),
     "results.jsonl:1: match: 'X9' is not in the schedule and its teams are not in one group"),
    ((res("X9", "Lions", "Pumas", "1:0"),), "Pumas is in no group"),
    (('{"draw": "C", "order": ["Lions", "Bears"]}',),
     "results.jsonl:1: draw: no group 'C' in the tournament"),
    (('{"draw": "A", "order": ["Lions", "Hawks"]}',),
     "results.jsonl:1: order: Hawks not in group A"),
    ((LEVEL[0], LEVEL[0]), "results.jsonl:2: match: \"A1\" is already on line 1"),
])
def test_bad_input_exits_2_naming_line_and_key(
        cup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        lines: tuple[str, ...], message: str) -> None:
    results = write(tmp_path, *lines)
    code, out, err = run(capsys, "standings", "--tournament", str(cup), "--results",
                         str(results), "--json")
    assert code == 2
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_missing_files_and_a_bad_tournament_exit_2(cup: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "standings", "--tournament", str(cup), "--results",
                       str(tmp_path / "nope.jsonl"))
    assert code == 2
    assert "nope.jsonl: cannot read" in err
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n', encoding="utf-8")
    code, _, err = run(capsys, "standings", "--tournament", str(bad), "--results",
                       str(write(tmp_path)))
    assert code == 2
    assert "bad.toml" in err
    code, _, err = run(capsys, "standings", "--tournament", str(cup), "--results",
                       str(write(tmp_path)), "--group", "Z")
    assert (code, "--group: no group 'Z'" in err) == (2, True)


def test_an_unscheduled_match_in_one_group_is_counted_with_a_warning(
        cup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = write(tmp_path, res("A1", "Lions", "Bears", "1:0"),
                    res("A9", "Bears", "Lions", "4:0"))
    code, out, err = run(capsys, "standings", "--tournament", str(cup), "--results",
                         str(results), "--json", "--group", "A")
    assert code == 0
    assert "results.jsonl:2: warning: match 'A9' is not in the schedule; counted for group A" \
        in err
    (group,) = json.loads(out)["groups"]
    assert [(r["team"], r["played"]) for r in group["rows"][:2]] == [("Bears", 2), ("Lions", 2)]
    assert group["complete"] is False


def test_draw_lots_round_trip(cup: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    # 000 'The ranking...' 8 (dice): drawn by the office, recorded, then used by the table.
    results = write(tmp_path, *LEVEL)
    before = results.read_text(encoding="utf-8")
    code, out, err = run(capsys, "draw-lots", "--tournament", str(cup), "--results",
                         str(results), "--group", "A", "--order", "Lions, Bears")
    assert (code, err) == (0, "")
    assert out.startswith("Lots drawn for group A: Lions, Bears\n")
    text = results.read_text(encoding="utf-8")
    assert text.startswith(before)
    assert json.loads(text.splitlines()[-1]) == {"draw": "A", "order": ["Lions", "Bears"],
                                                 "seed": None}
    code, out, _ = run(capsys, "standings", "--tournament", str(cup), "--results",
                       str(results), "--json", "--group", "A")
    rows = json.loads(out)["groups"][0]["rows"]
    assert [(r["rank"], r["team"], r["decided_by"], r["lots_needed"]) for r in rows] == [
        (1, "Lions", "lots", False), (2, "Bears", "points", False), (3, "Wolves", None, False)]
    # Nothing left to draw.
    code, _, err = run(capsys, "draw-lots", "--tournament", str(cup), "--results",
                       str(results), "--group", "A", "--order", "Bears,Lions")
    assert code == 2
    assert "no teams of group A are level" in err


def test_draw_lots_random_records_its_seed(cup: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # 000 'The ranking...' 8 (dice) rolled by the machine: the seed makes it checkable.
    orders = []
    for attempt in ("one", "two"):
        folder = tmp_path / attempt
        folder.mkdir()
        results = write(folder, *LEVEL)
        code, out, _ = run(capsys, "draw-lots", "--tournament", str(cup), "--results",
                           str(results), "--group", "A", "--random", "--seed", "12345",
                           "--json")
        assert code == 0
        last = json.loads(results.read_text(encoding="utf-8").splitlines()[-1])
        assert last["seed"] == 12345
        assert sorted(last["order"]) == ["Bears", "Lions"]
        orders.append(last["order"])
        table = json.loads(out)["groups"][0]
        assert [r["team"] for r in table["rows"][:2]] == last["order"]
        assert table["rows"][0]["decided_by"] == "lots"
    assert orders[0] == orders[1]  # same seed, same draw
    # Without --seed a fresh one is drawn and recorded.
    results = write(tmp_path, *LEVEL)
    code, _, _ = run(capsys, "draw-lots", "--tournament", str(cup), "--results",
                     str(results), "--group", "A", "--random")
    assert code == 0
    seed = json.loads(results.read_text(encoding="utf-8").splitlines()[-1])["seed"]
    assert isinstance(seed, int)


@pytest.mark.parametrize(("argv", "message"), [
    (("--group", "B", "--order", "Hawks,Owls"), "no teams of group B are level"),
    (("--group", "A", "--order", "Lions,Wolves"), "Wolves is not level with another team"),
    (("--group", "A", "--order", "Lions"), "must name exactly the teams of one level set"),
    (("--group", "A", "--order", "Lions,Pumas"), "'Pumas' is not in group A"),
    (("--group", "A", "--order", "Lions,Lions"), "names a team twice"),
    (("--group", "A", "--order", "Lions,,Bears"), "an empty team name"),
    (("--group", "Q", "--random"), "--group: no group 'Q'"),
    (("--group", "A", "--order", "Lions,Bears", "--seed", "3"), "--seed: only with --random"),
])
def test_draw_lots_errors(cup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          argv: tuple[str, ...], message: str) -> None:
    results = write(tmp_path, *LEVEL)
    before = results.read_text(encoding="utf-8")
    code, _, err = run(capsys, "draw-lots", "--tournament", str(cup), "--results",
                       str(results), *argv)
    assert code == 2
    assert message in err
    assert results.read_text(encoding="utf-8") == before  # nothing recorded


def test_draw_lots_for_a_three_way_set(cup: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # 000 'The ranking...' 8 (dice): three teams level after every rule (1:1 each, no
    # penalty minutes); one --order names the whole set.
    results = write(tmp_path, *LEVEL[:3], res("B1", "Hawks", "Owls", "1:1"),
                    res("B2", "Owls", "Foxes", "1:1"), res("B3", "Foxes", "Hawks", "1:1"))
    results.write_text(results.read_text(encoding="utf-8").rstrip("\n"), encoding="utf-8")
    code, out, _ = run(capsys, "draw-lots", "--tournament", str(cup), "--results",
                       str(results), "--group", "B", "--order", "Owls,Foxes,Hawks", "--json")
    assert code == 0
    rows = json.loads(out)["groups"][0]["rows"]
    assert [(r["team"], r["rank"], r["decided_by"]) for r in rows] == [
        ("Owls", 1, "lots"), ("Foxes", 2, "lots"), ("Hawks", 3, None)]
    # The file had no final newline: the draw still went on a line of its own.
    assert json.loads(results.read_text(encoding="utf-8").splitlines()[-1])["draw"] == "B"


@pytest.mark.parametrize("command", [[], ["standings"], ["draw-lots"]])
def test_every_command_has_help(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: office")
    assert len(out.splitlines()) > 3


@pytest.mark.slow
def test_python_dash_m_office(cup: Path, tmp_path: Path) -> None:
    results = write(tmp_path, *LEVEL)
    done = subprocess.run([sys.executable, "-m", "office", "standings", "--tournament",
                           str(cup), "--results", str(results), "--json"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert [g["name"] for g in json.loads(done.stdout)["groups"]] == ["A", "B"]


# A1 and the rest of the round robin (the schedule check refuses a group where two teams
# never meet) under ids the results do not use: those count as unscheduled, with a warning.
FOUR = """\
name = "Four Cup"
id = "four-cup"
preset = "ice-hockey-2x20"

[[groups]]
name = "A"
teams = ["Ants", "Bees", "Cats", "Dogs"]

[[matches]]
id = "A1"
group = "A"
hall = "hall-1"
start = 2026-12-05T09:00:00
home = "Ants"
away = "Bees"

[[matches]]
id = "S2"
group = "A"
hall = "hall-1"
start = 2026-12-05T11:00:00
home = "Cats"
away = "Dogs"

[[matches]]
id = "S3"
group = "A"
hall = "hall-1"
start = 2026-12-05T13:00:00
home = "Ants"
away = "Cats"

[[matches]]
id = "S4"
group = "A"
hall = "hall-1"
start = 2026-12-05T15:00:00
home = "Dogs"
away = "Bees"

[[matches]]
id = "S5"
group = "A"
hall = "hall-1"
start = 2026-12-05T17:00:00
home = "Dogs"
away = "Ants"

[[matches]]
id = "S6"
group = "A"
hall = "hall-1"
start = 2026-12-05T19:00:00
home = "Bees"
away = "Cats"
"""

# 000 'The ranking...' 8 (dice): Ants and Bees level after every rule (3 points, 3:1, a 1:1
# mutual match), Cats and Dogs too (1 point, 1:3, 1:1): two sets waiting for lots.
TWO_SETS = (res("A1", "Ants", "Bees", "1:1"), res("A2", "Cats", "Dogs", "1:1"),
            res("A3", "Ants", "Cats", "2:0"), res("A4", "Bees", "Dogs", "2:0"))


@pytest.mark.parametrize(("order", "expected"), [
    ("Bees,Ants,Dogs,Cats", [("Bees", 1, "lots", False), ("Ants", 2, "points", False),
                             ("Dogs", 3, "lots", False), ("Cats", 4, None, False)]),
    ("Dogs,Cats", [("Ants", 1, None, True), ("Bees", 1, "points", True),
                   ("Dogs", 3, "lots", False), ("Cats", 4, None, False)]),
])
def test_draw_lots_for_one_set_or_every_set_in_table_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], order: str,
        expected: list[tuple[str, int, str | None, bool]]) -> None:
    cup = tmp_path / "four.toml"
    cup.write_text(FOUR, encoding="utf-8")
    results = write(tmp_path, *TWO_SETS)
    code, out, err = run(capsys, "draw-lots", "--tournament", str(cup), "--results",
                         str(results), "--group", "A", "--order", order, "--json")
    assert code == 0, err
    assert "A2" in err  # unscheduled matches are warned about, and counted
    rows = json.loads(out)["groups"][0]["rows"]
    assert [(r["team"], r["rank"], r["decided_by"], r["lots_needed"]) for r in rows] == expected


def test_draw_lots_refuses_sets_out_of_table_order(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # 000 'The ranking...' 8 (dice): an order mixing the two level sets is not a draw.
    cup = tmp_path / "four.toml"
    cup.write_text(FOUR, encoding="utf-8")
    results = write(tmp_path, *TWO_SETS)
    for order in ("Dogs,Cats,Bees,Ants", "Ants,Dogs", "Ants,Bees,Cats"):
        code, _, err = run(capsys, "draw-lots", "--tournament", str(cup), "--results",
                           str(results), "--group", "A", "--order", order)
        assert code == 2, order
        assert "lots are needed for: Ants, Bees; Cats, Dogs" in err
    code, out, _ = run(capsys, "draw-lots", "--tournament", str(cup), "--results",
                       str(results), "--group", "A", "--random", "--seed", "9", "--json")
    assert code == 0
    drawn = json.loads(results.read_text(encoding="utf-8").splitlines()[-1])
    # --random draws every set, each within its own places.
    assert sorted(drawn["order"][:2]) == ["Ants", "Bees"]
    assert sorted(drawn["order"][2:]) == ["Cats", "Dogs"]
    assert not any(r["lots_needed"] for r in json.loads(out)["groups"][0]["rows"])


def test_a_file_of_groups_only_ranks_by_teams_and_knows_a_round_robin_is_complete(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rules 003 'Ranking': win 3; level on points, the head-to-head match first."""
    t = tmp_path / "t.toml"
    t.write_text('name = "G"\nid = "g"\npreset = "football-p10"\n'
                 '[[groups]]\nname = "A"\nteams = ["A", "B", "C"]\n')
    r = tmp_path / "r.jsonl"
    r.write_text("".join(json.dumps(x) + "\n" for x in [
        {"match": "1", "home": "A", "away": "B", "score": {"home": 0, "away": 1}},
        {"match": "2", "home": "B", "away": "C", "score": {"home": 0, "away": 3}},
        {"match": "3", "home": "C", "away": "A", "score": {"home": 0, "away": 1}}]))
    assert main(["standings", "--tournament", str(t), "--results", str(r), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # no schedule: no per-line warnings
    group = json.loads(captured.out)["groups"][0]
    assert group["complete"] is True
    # A three-way cycle, all on 3 points: the sub-table of their mutual matches (here the
    # whole group) separates them by head-to-head goal difference (C +2, A 0, B -2).
    assert [(row["team"], row["decided_by"]) for row in group["rows"]] == [
        ("C", "head_to_head_goal_difference"), ("A", "head_to_head_goal_difference"),
        ("B", None)]
