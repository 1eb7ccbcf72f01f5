"""Three or more teams level on points: rules 000, 'The ranking of each team in each group'.

The text: "When three or more teams are tied in points, continue to determine the standings of
the remaining teams starting from the first rule (considering only the matches between the
tied teams)". So every step - points, goal difference, goals for, penalty minutes, then the
dice - counts the mutual matches only, and those still level after a separation start again
from the first rule on their own mutual matches. The overall figures are an organiser's
choice a tournament file may make (and cite); two-team ties keep rules 1-8 as written.

Every expected order below was worked out by hand from the rule text (the comments show the
figures), never read back from the code.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import presets, words
from arena.core.errors import PresetError
from arena.core.preset import Criterion, StandingsRules, parse_standings
from arena.tournament.model import DecidedBy, Draw, GameResult, Group, GroupTable, Row
from arena.tournament.reader import parse_tournament
from office.cli.main import why as cli_why
from office.rules.standings import rank_group

C = Criterion
R000 = presets.load("ice-hockey-2x20").standings
R001 = presets.load("floorball-2x15").standings
R002 = presets.load("youth-hockey-3x18").standings
R003 = presets.load("football-p10").standings

# The organiser's variant, as a tournament file would write it: the mutual matches first,
# the overall figures when they separate nobody.
OVERALL_AFTER_MUTUAL = ["head_to_head_points", "head_to_head_goal_difference",
                        "head_to_head_goals_for", "goal_difference", "goals_for",
                        "penalty_minutes", "lots"]
VARIANT = parse_standings(
    {"tiebreak_many": OVERALL_AFTER_MUTUAL,
     "cite": {"tiebreak_many": "organiser's choice, not rules 000: the overall figures "
                               "once the mutual matches separate nobody"}},
    "cup.toml", R000)

_ids = itertools.count(1)


def game(home: str, away: str, score: str, pim: tuple[int, int] = (0, 0)) -> GameResult:
    h, a = (int(x) for x in score.split(":"))
    return GameResult(f"M{next(_ids)}", home, away, h, a, DecidedBy.REGULATION, *pim)


def rank(results: list[GameResult], rules: StandingsRules, draws: tuple[Draw, ...] = (),
         teams: tuple[str, ...] = ("A", "B", "C", "D")) -> GroupTable:
    return rank_group(Group("A", teams), results, rules, draws)


def order(table: GroupTable) -> list[str]:
    return [r.team for r in table.rows]


def why(table: GroupTable) -> list[str | None]:
    # decided_by holds the Criterion (a str enum); the plain value reads best in a diff.
    return [None if r.decided_by is None else str(r.decided_by) for r in table.rows]


# ---------------------------------------------------------------------------------------
# The preset says what the text says


def test_000_lists_follow_the_text() -> None:
    # Rules 000 'The ranking of each team in each group': two teams, rules 2-8 as numbered;
    # three or more, rules 1-3 and 7 on the mutual matches (4-6 would count the same
    # matches again), then 8, the dice.
    assert R000.tiebreak == (C.GOAL_DIFFERENCE, C.GOALS_FOR, C.HEAD_TO_HEAD_POINTS,
                             C.HEAD_TO_HEAD_GOAL_DIFFERENCE, C.HEAD_TO_HEAD_GOALS_FOR,
                             C.PENALTY_MINUTES, C.LOTS)
    assert R000.tiebreak_many == (C.HEAD_TO_HEAD_POINTS, C.HEAD_TO_HEAD_GOAL_DIFFERENCE,
                                  C.HEAD_TO_HEAD_GOALS_FOR, C.HEAD_TO_HEAD_PENALTY_MINUTES,
                                  C.LOTS)
    assert all(c.mutual or c is C.LOTS for c in R000.tiebreak_many)
    cite = presets.load("ice-hockey-2x20").cite("standings.tiebreak_many")
    assert cite is not None and cite.startswith("rules 000, 'The ranking of each team")
    assert "overall" not in cite


def test_the_other_documents_keep_their_own_lists() -> None:
    # Rules 001 'Qualifying criteria' (2 points and 3 score of the mutual match, 4 total
    # score, 5 random draw), rules 003 'Ranking' (head-to-head match, goal difference,
    # goals, then over all matches, lots) name overall figures after the mutual ones and
    # one list for any number of teams; rules 002 has no ranking section (the preset's
    # IIHF-like list, cited as such). None of them counts penalty minutes.
    assert R001.tiebreak == R001.tiebreak_many == (
        C.HEAD_TO_HEAD_POINTS, C.HEAD_TO_HEAD_GOAL_DIFFERENCE, C.GOAL_DIFFERENCE, C.LOTS)
    for rules in (R002, R003):
        assert rules.tiebreak == rules.tiebreak_many == (
            C.HEAD_TO_HEAD_POINTS, C.HEAD_TO_HEAD_GOAL_DIFFERENCE, C.HEAD_TO_HEAD_GOALS_FOR,
            C.GOAL_DIFFERENCE, C.GOALS_FOR, C.LOTS)


def test_a_file_names_the_new_criterion_or_a_misspelling_is_refused() -> None:
    # The organiser's list is data: the new criterion reads, a typo is named with a hint.
    assert VARIANT.tiebreak_many == tuple(Criterion(c) for c in OVERALL_AFTER_MUTUAL)
    assert VARIANT.tiebreak == R000.tiebreak  # two-team ties untouched by the override
    with pytest.raises(PresetError, match=r"cup.toml: standings.tiebreak_many.*"
                                          r"mutual_penalty_minutes"):
        parse_standings({"tiebreak_many": ["mutual_penalty_minutes", "lots"]}, "cup.toml",
                        R000)


def test_a_tournament_file_chooses_the_overall_variant_and_cites_it() -> None:
    # Rules 000 'The ranking of each team in each group': the variant is not the text, so
    # the file states it as its own choice; the preset's two-team list stays.
    data: dict[str, Any] = {
        "name": "Cup", "id": "cup", "preset": "ice-hockey-2x20",
        "groups": [{"name": "A", "teams": ["Lions", "Bears", "Wolves"]}],
        "standings": {"tiebreak_many": OVERALL_AFTER_MUTUAL,
                      "cite": {"tiebreak_many": "organiser's choice, not rules 000"}},
    }
    t = parse_tournament(data, "cup.toml", {"ice-hockey-2x20": presets.load("ice-hockey-2x20")})
    assert t.rules.tiebreak_many == VARIANT.tiebreak_many
    assert t.rules.tiebreak == R000.tiebreak


# ---------------------------------------------------------------------------------------
# Three level: the mutual matches separate one, the other two restart on their own match


# A, B and C beat D and form a cycle: 4 points each. Mutual matches: A 2:0 B, B 4:3 C,
# C 3:0 A. Mutual points 2 each; mutual goal difference A 2:3 = -1, B 4:5 = -1, C 6:4 = +2:
# C first. A and B start again from rule 1 on their own match: A won it. Continuing the
# three-way list instead (mutual goals for: B 4, A 2) would put B above A, and so would the
# overall goal difference (B +8 with 9:0 against D, A 0) and the two-team list.
RESTART = [game("A", "B", "2:0"), game("B", "C", "4:3"), game("C", "A", "3:0"),
           game("A", "D", "1:0"), game("B", "D", "9:0"), game("C", "D", "1:0")]


@pytest.mark.parametrize("rules", [R000, VARIANT], ids=["text", "organiser"])
def test_000_one_separated_then_two_restart_on_their_own_mutual_match(
        rules: StandingsRules) -> None:
    # Rules 000, 'The ranking of each team in each group', the three-or-more paragraph; the
    # organiser's variant agrees while the mutual matches separate someone.
    table = rank(RESTART, rules)
    assert order(table) == ["C", "A", "B", "D"]
    assert why(table) == ["head_to_head_goal_difference", "head_to_head_points", "points",
                          None]
    assert [r.rank for r in table.rows] == [1, 2, 3, 4]


# ---------------------------------------------------------------------------------------
# Three level: the mutual matches separate nobody -> their penalty minutes, then lots


# A 1:0 B, B 1:0 C, C 1:0 A and each 1:0 against D: rules 1-6 level among A, B, C and
# overall (goal difference +1, goals 2 each). Penalty minutes in the mutual matches: A 2
# (2+0), B 6 (4+2), C 4 (2+2); over all matches A 22, B 6, C 14 (the games against D).
MUTUAL_PIM = [game("A", "B", "1:0", (2, 4)), game("B", "C", "1:0", (2, 2)),
              game("C", "A", "1:0", (2, 0)), game("A", "D", "1:0", (20, 0)),
              game("B", "D", "1:0"), game("C", "D", "1:0", (10, 0))]


def test_000_nobody_separated_by_the_mutual_matches_their_penalty_minutes_decide() -> None:
    # Rules 000, 'The ranking...' 7 (penalty minutes) "considering only the matches
    # between the tied teams": A 2, C 4, B 6. The overall minutes (B 6, C 14, A 22) would
    # give the opposite order.
    table = rank(MUTUAL_PIM, R000)
    assert order(table) == ["A", "C", "B", "D"]
    assert why(table) == ["head_to_head_penalty_minutes", "head_to_head_penalty_minutes",
                          "points", None]
    assert [r.penalty_minutes for r in table.rows[:3]] == [22, 14, 6]  # the row shows all


def test_the_organisers_variant_counts_the_overall_minutes() -> None:
    # Organiser's choice (not rules 000): the overall figures once the mutual matches
    # separate nobody; goal difference and goals are level, the minutes B 6, C 14, A 22.
    table = rank(MUTUAL_PIM, VARIANT)
    assert order(table) == ["B", "C", "A", "D"]
    assert why(table) == ["penalty_minutes", "penalty_minutes", "points", None]


# A, B and C draw each other 1:1 and beat D. Mutual penalty minutes A 2 (2+0), B 4 (2+2),
# C 4 (2+2): A first. B and C restart on their own 1:1 with 2 minutes each: level after
# every rule, so the dice. Overall, B's 5:0 against D would have split them.
LEVEL_PAIR_AFTER_PIM = [game("A", "B", "1:1", (2, 2)), game("B", "C", "1:1", (2, 2)),
                        game("C", "A", "1:1", (2, 0)), game("A", "D", "1:0"),
                        game("B", "D", "5:0"), game("C", "D", "1:0")]


def test_000_then_lots_for_the_two_still_level_on_their_own_match() -> None:
    # Rules 000, 'The ranking...' 7 then 8 (dice), each on the mutual matches of those
    # still level; the dice are the office's draw, never rolled here.
    table = rank(LEVEL_PAIR_AFTER_PIM, R000)
    assert order(table) == ["A", "B", "C", "D"]  # B and C share a rank, in name order
    assert [r.rank for r in table.rows] == [1, 2, 2, 4]
    assert [r.lots_needed for r in table.rows] == [False, True, True, False]
    assert why(table) == ["head_to_head_penalty_minutes", None, "points", None]

    drawn = rank(LEVEL_PAIR_AFTER_PIM, R000, (Draw("A", ("C", "B")),))
    assert order(drawn) == ["A", "C", "B", "D"]
    assert why(drawn) == ["head_to_head_penalty_minutes", "lots", "points", None]
    assert not any(r.lots_needed for r in drawn.rows)

    # The organiser's variant: after the mutual figures (level), the overall goal
    # difference B +5, A +1, C +1; A and C restart: level on their 1:1 and on overall goal
    # difference and goals (+1, 3 each), then the overall minutes A 2, C 4.
    variant = rank(LEVEL_PAIR_AFTER_PIM, VARIANT)
    assert order(variant) == ["B", "A", "C", "D"]
    assert why(variant) == ["goal_difference", "penalty_minutes", "points", None]


def test_000_three_level_on_every_mutual_figure_go_to_the_dice_not_overall() -> None:
    # Rules 000, 'The ranking...': a 1:0 cycle with no penalty minutes; against D the three
    # won 3:0, 2:0 and 1:0, so the overall goal difference differs (A +3, B +2, C +1) but
    # the text never looks at it for three level: rule 8, the dice.
    results = [game("A", "B", "1:0"), game("B", "C", "1:0"), game("C", "A", "1:0"),
               game("A", "D", "3:0"), game("B", "D", "2:0"), game("C", "D", "1:0")]
    table = rank(results, R000)
    assert [r.rank for r in table.rows] == [1, 1, 1, 4]
    assert [r.lots_needed for r in table.rows] == [True, True, True, False]
    assert why(table) == [None, None, "points", None]
    drawn = rank(results, R000, (Draw("A", ("B", "C", "A", "D")),))
    assert order(drawn) == ["B", "C", "A", "D"]
    assert why(drawn) == ["lots", "lots", "points", None]
    assert order(rank(results, VARIANT)) == ["A", "B", "C", "D"]


def test_000_two_team_ties_are_unchanged() -> None:
    # Rules 000, 'The ranking...' for two teams: 2 (overall goal difference) before 4
    # (head-to-head). A beat D 1:0, but A and D (4 points each) split on the overall goal
    # difference: D +3 (4:1), A +1 (2:1). B and C (2 each): B +3 (5:2), C -7 (1:8).
    results = [game("A", "B", "1:0"), game("A", "C", "0:1"), game("B", "C", "5:0"),
               game("A", "D", "1:0"), game("B", "D", "0:1"), game("C", "D", "0:3")]
    table = rank(results, R000)
    assert order(table) == ["D", "A", "B", "C"]
    assert why(table) == ["goal_difference", "points", "goal_difference", None]


def test_000_two_teams_count_penalty_minutes_over_all_matches() -> None:
    # Rules 000, 'The ranking...' 7 for two teams: A and B (3 points, +1, 3 goals each)
    # drew 2:2 with A 4 minutes, B 2 in it; over all matches A 4, B 8 (6 against C). The
    # overall minutes place A first; the mutual ones would place B.
    results = [game("A", "B", "2:2", (4, 2)), game("A", "C", "1:0"),
               game("B", "C", "1:0", (6, 0))]
    table = rank(results, R000, teams=("A", "B", "C"))
    assert order(table) == ["A", "B", "C"]
    assert why(table) == ["penalty_minutes", "points", None]


# ---------------------------------------------------------------------------------------
# The words: every criterion has its "why" in every language


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_every_criterion_has_its_why_words(lang: str) -> None:
    # The office and the public site show the criterion behind each placing (rules 000
    # 'The ranking...' for the mutual penalty minutes): none may fall back to English.
    table = words.table(lang)
    for criterion in Criterion:
        assert f"print.why.{criterion.value}" in table, (lang, criterion)
        assert f"site.why.{criterion.value}" in table, (lang, criterion)
    assert words.word("site.why.head_to_head_penalty_minutes", lang) != words.word(
        "site.why.penalty_minutes", lang)


def test_the_office_command_words_every_criterion() -> None:
    # `office standings` prints the "why" column in English: the mutual minutes (rules 000
    # 'The ranking...' 7 among three or more) are told apart from the overall ones.
    said = {c: cli_why(Row("A", 1, 1, 0, 0, 1, 0, 2, rank=1, decided_by=c)) for c in Criterion}
    assert all(said.values())
    assert len(set(said.values())) == len(said)
    assert said[C.HEAD_TO_HEAD_PENALTY_MINUTES] == "fewer head-to-head penalty minutes"


# ---------------------------------------------------------------------------------------
# Properties


NAMES = ("Ants", "Bees", "Cats", "Dogs", "Eels", "Foxes")
ALL_RULES = [R000, VARIANT, R001, R002, R003]


@st.composite
def _round_robin(draw: st.DrawFn) -> tuple[tuple[str, ...], list[GameResult]]:
    """A complete round robin (everyone has played) with low scores: ties are common."""
    teams = NAMES[:draw(st.integers(3, 6))]
    results = [GameResult(f"G{i}", home, away, draw(st.integers(0, 2)),
                          draw(st.integers(0, 2)), DecidedBy.REGULATION,
                          draw(st.sampled_from([0, 2])), draw(st.sampled_from([0, 2])))
               for i, (home, away) in enumerate(itertools.combinations(teams, 2))]
    return teams, results


def _placing(row: Row) -> tuple[object, ...]:
    return (row.rank, row.points, row.goals_for, row.goals_against, row.penalty_minutes,
            row.lots_needed)


def _criteria(table: GroupTable) -> list[tuple[int, str]]:
    return sorted((r.rank or 0, str(r.decided_by)) for r in table.rows)


@settings(max_examples=200, deadline=None)
@given(case=_round_robin(), rules=st.sampled_from(ALL_RULES), data=st.data())
def test_renaming_the_teams_renames_the_table(
        case: tuple[tuple[str, ...], list[GameResult]], rules: StandingsRules,
        data: st.DataObject) -> None:
    # Rules 000 'The ranking...', 001 'Qualifying criteria', 003 'Ranking': a team is
    # placed by its results, never by its name: a permutation of the names (the draw's
    # too, when there is one) gives every team the placing its results had.
    teams, results = case
    new = dict(zip(teams, data.draw(st.permutations(teams)), strict=True))
    draws: tuple[Draw, ...] = ()
    if data.draw(st.booleans()):
        draws = (Draw("A", tuple(data.draw(st.permutations(teams)))),)
    table = rank(results, rules, draws, teams)
    renamed = rank([dataclasses.replace(r, home=new[r.home], away=new[r.away])
                    for r in results], rules,
                   tuple(Draw("A", tuple(new[t] for t in d.order)) for d in draws),
                   tuple(new.values()))
    assert {new[r.team]: _placing(r) for r in table.rows} == {
        r.team: _placing(r) for r in renamed.rows}
    # Rows sharing a rank are listed in name order, so which of them carries the criterion
    # below the shared rank may change with the names; the criteria by rank may not.
    assert _criteria(table) == _criteria(renamed)
    if draws:  # every team placed: the very same order and criteria, renamed
        assert [(new[r.team], r.decided_by) for r in table.rows] == [
            (r.team, r.decided_by) for r in renamed.rows]


@settings(max_examples=200, deadline=None)
@given(case=_round_robin(), rules=st.sampled_from(ALL_RULES), data=st.data())
def test_with_the_dice_recorded_the_ranking_is_a_total_order(
        case: tuple[tuple[str, ...], list[GameResult]], rules: StandingsRules,
        data: st.DataObject) -> None:
    # Rules 000 'The ranking...' 8 (dice), 001 5 (random draw), 003 (drawing of lots):
    # once everyone has played and the office has drawn, every team has its own place and
    # a criterion above every row but the last.
    teams, results = case
    draw = Draw("A", tuple(data.draw(st.permutations(teams))))
    table = rank(results, rules, (draw,), teams)
    assert [r.rank for r in table.rows] == list(range(1, len(teams) + 1))
    assert sorted(order(table)) == sorted(teams)
    assert not any(r.lots_needed for r in table.rows)
    assert all(r.decided_by is not None for r in table.rows[:-1])
    assert table.rows[-1].decided_by is None


@settings(max_examples=200, deadline=None)
@given(case=_round_robin())
def test_000_three_or_more_level_never_look_past_their_mutual_matches(
        case: tuple[tuple[str, ...], list[GameResult]]) -> None:
    # Rules 000 'The ranking...': inside a points tie of three or more, every placing is
    # made by a mutual figure or the dice; and the order inside it depends only on the
    # mutual matches: doubling every score against the teams outside it changes nothing.
    teams, results = case
    table = rank(results, R000, (), teams)
    by_points: dict[int, list[Row]] = {}
    for row in table.rows:
        by_points.setdefault(row.points, []).append(row)
    for rows in by_points.values():
        if len(rows) < 3:
            continue
        for row in rows[:-1]:
            assert row.decided_by is None or Criterion(row.decided_by).mutual, row
        level = {r.team for r in rows}
        outside = [dataclasses.replace(r, home_goals=2 * r.home_goals,
                                       away_goals=2 * r.away_goals, home_pim=r.home_pim + 2)
                   if len({r.home, r.away} & level) == 1 else r for r in results]
        again = rank(outside, R000, (), teams)
        inside = [(r.team, r.decided_by, r.lots_needed) for r in rows]
        assert [(r.team, r.decided_by, r.lots_needed) for r in again.rows
                if r.team in level] == inside
