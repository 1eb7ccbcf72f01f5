"""Group tables ranked by each rule document (the rules' 'Ranking').

Rule documents (000-003; docs/developer.md, "The rules the core applies"):
- 000 (ice hockey, preset ice-hockey-2x20): 'The ranking of each team in each group'.
- 001 (floorball, preset floorball-2x15): 'Qualifying criteria'.
- 003 (football, preset football-p10): 'Ranking'.

Every expected order below was worked out by hand from the rule text (the comments show the
figures), never read back from the code.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import presets
from arena.core.preset import Criterion, Points, StandingsRules
from arena.tournament.model import DecidedBy, Draw, GameResult, Group, GroupTable
from office.rules.standings import rank_group

R000 = presets.load("ice-hockey-2x20").standings
R001 = presets.load("floorball-2x15").standings
R003 = presets.load("football-p10").standings

C = Criterion
_ids = itertools.count(1)


def game(home: str, away: str, score: str, *, by: DecidedBy = DecidedBy.REGULATION,
         pim: tuple[int, int] = (0, 0)) -> GameResult:
    h, a = (int(x) for x in score.split(":"))
    return GameResult(f"M{next(_ids)}", home, away, h, a, by, pim[0], pim[1])


def group(*teams: str) -> Group:
    return Group("A", teams)


def order(table: GroupTable) -> list[str]:
    return [r.team for r in table.rows]


def why(table: GroupTable) -> list[str | None]:
    return [r.decided_by.value if r.decided_by else None for r in table.rows]


def ranks(table: GroupTable) -> list[int]:
    return [r.rank for r in table.rows]


def lots(table: GroupTable) -> list[bool]:
    return [r.lots_needed for r in table.rows]


def test_the_presets_encode_the_documents_lists() -> None:
    # The tests below rely on these lists: 000 'The ranking of each team in each group'
    # rules 2-8 (and the three-or-more paragraph), 001 'Qualifying criteria' 2-5, 003
    # 'Ranking' (head-to-head match, goal difference, goals, overall GD, overall goals, lots).
    assert R000.tiebreak[:3] == (C.GOAL_DIFFERENCE, C.GOALS_FOR, C.HEAD_TO_HEAD_POINTS)
    assert R000.tiebreak_many == (C.HEAD_TO_HEAD_POINTS, C.HEAD_TO_HEAD_GOAL_DIFFERENCE,
                                  C.HEAD_TO_HEAD_GOALS_FOR, C.HEAD_TO_HEAD_PENALTY_MINUTES,
                                  C.LOTS)
    assert R001.tiebreak == R001.tiebreak_many == (
        C.HEAD_TO_HEAD_POINTS, C.HEAD_TO_HEAD_GOAL_DIFFERENCE, C.GOAL_DIFFERENCE, C.LOTS)
    assert R003.tiebreak[:3] == (C.HEAD_TO_HEAD_POINTS, C.HEAD_TO_HEAD_GOAL_DIFFERENCE,
                                 C.HEAD_TO_HEAD_GOALS_FOR)
    assert (R000.points.win, R001.points.win, R003.points.win) == (2, 2, 3)


# ---------------------------------------------------------------------------------------
# Figures and points


def test_figures_and_points_per_row_000() -> None:
    # 000 'The ranking of each team in each group' 1 (points: 2 a win, 1 a draw).
    results = [game("A", "B", "3:1", pim=(4, 12)), game("B", "C", "2:2", pim=(2, 0)),
               game("C", "A", "0:1", pim=(6, 2))]
    table = rank_group(group("A", "B", "C"), results, R000)
    a, c, b = table.rows
    assert (a.team, a.played, a.won, a.drawn, a.lost, a.goals_for, a.goals_against,
            a.points, a.penalty_minutes) == ("A", 2, 2, 0, 0, 4, 1, 4, 6)
    # B and C both have 1 point; 000 rule 2 (goal difference): C -1, B -2.
    assert (c.team, c.points, c.goals_for, c.goals_against, c.drawn) == ("C", 1, 2, 3, 1)
    assert (b.team, b.points, b.penalty_minutes, b.lost) == ("B", 1, 14, 1)
    assert why(table) == ["points", "goal_difference", None]
    assert ranks(table) == [1, 2, 3]


def test_overtime_wins_are_wins_with_the_presets_overtime_points() -> None:
    # 003 'Ranking' (3 a win, 1 a draw) with the preset data's overtime points
    # (Points.overtime_win / overtime_loss) applied when a match went past regulation.
    rules = dataclasses.replace(R003, points=Points(3, 1, 0, overtime_win=2,
                                                    overtime_loss=1))
    results = [game("A", "B", "2:1", by=DecidedBy.OVERTIME),
               game("C", "B", "4:3", by=DecidedBy.SHOOTOUT)]
    table = rank_group(group("A", "B", "C"), results, rules)
    rows = {r.team: r for r in table.rows}
    assert (rows["A"].won, rows["A"].points) == (1, 2)
    assert (rows["C"].won, rows["C"].points) == (1, 2)
    assert (rows["B"].lost, rows["B"].points) == (2, 2)


def test_001_points_override_three_for_a_win() -> None:
    # 001 'Qualifying criteria' 1 (points): 001 states no points, so the preset has IFF's
    # 2/1/0 and a tournament may say 3/1/0. A won one and lost one; B drew twice.
    results = [game("A", "C", "1:0"), game("A", "D", "0:1"),
               game("B", "C", "1:1"), game("B", "D", "1:1")]
    default = rank_group(group("A", "B", "C", "D"), results, R001)
    # 2/1/0: D 3, A 2, B 2, C 1. A and B never met (criteria 2-3 give 0 each) and both
    # have goal difference 0 (criterion 4): only the random draw (5) can split them.
    assert order(default) == ["D", "A", "B", "C"]
    assert ranks(default) == [1, 2, 2, 4]
    assert lots(default) == [False, True, True, False]
    three = dataclasses.replace(R001, points=Points(win=3, draw=1, loss=0))
    table = rank_group(group("A", "B", "C", "D"), results, three)
    # 3/1/0: D 4, A 3, B 2, C 1.
    assert [r.points for r in table.rows] == [4, 3, 2, 1]
    assert order(table) == ["D", "A", "B", "C"]
    assert why(table) == ["points", "points", "points", None]
    assert not any(lots(table))


def test_results_outside_the_group_are_ignored() -> None:
    # 003 'Ranking': "the group order is decided by total points" - of the group's matches.
    results = [game("A", "B", "1:0"), game("A", "X", "0:9"), game("Y", "Z", "1:0")]
    table = rank_group(group("A", "B"), results, R003)
    assert order(table) == ["A", "B"]
    assert (table.rows[0].played, table.rows[0].goals_against) == (1, 0)


# ---------------------------------------------------------------------------------------
# Three-way cycles (A beat B, B beat C, C beat A)


def test_000_cycle_resolved_by_the_sub_table_before_overall_goal_difference() -> None:
    # 000 'The ranking of each team in each group': three tied in points -> "starting from
    # the first rule (considering only the matches between the tied teams)".
    results = [game("A", "B", "3:0"), game("B", "C", "1:0"), game("C", "A", "1:0"),
               game("A", "D", "1:0"), game("B", "D", "9:0"), game("C", "D", "5:0")]
    table = rank_group(group("A", "B", "C", "D"), results, R000)
    # A, B, C 4 points each. Sub-table: 2 points each; goal difference A +2, C 0, B -2.
    # Overall goal difference would say B +7, C +5, A +3: the sub-table comes first.
    assert order(table) == ["A", "C", "B", "D"]
    assert why(table) == ["head_to_head_goal_difference", "head_to_head_goal_difference",
                          "points", None]


def test_000_cycle_level_in_the_sub_table_stays_with_the_mutual_matches() -> None:
    # 000 'The ranking...': the sub-table separates nobody (1:0 each, no penalty minutes):
    # every rule counts only the matches between the tied teams, so the dice (rule 8),
    # although the overall goal difference differs (A +3, B +2, C +1 against D).
    results = [game("A", "B", "1:0"), game("B", "C", "1:0"), game("C", "A", "1:0"),
               game("A", "D", "3:0"), game("B", "D", "2:0"), game("C", "D", "1:0")]
    table = rank_group(group("C", "D", "B", "A"), results, R000)
    assert order(table) == ["A", "B", "C", "D"]  # level rows in name order
    assert lots(table) == [True, True, True, False]
    assert why(table) == [None, None, "points", None]


def test_001_cycle_resolved_by_total_score() -> None:
    # 001 'Qualifying criteria': 2 points from the mutual matches (2 each), 3 score from
    # them (0 each), 4 total score: A +3, B +2, C +1.
    results = [game("A", "B", "1:0"), game("B", "C", "1:0"), game("C", "A", "1:0"),
               game("A", "D", "3:0"), game("B", "D", "2:0"), game("C", "D", "1:0")]
    table = rank_group(group("A", "B", "C", "D"), results, R001)
    assert order(table) == ["A", "B", "C", "D"]
    assert why(table) == ["goal_difference", "goal_difference", "points", None]


# A cycle whose sub-table splits off one team by goals scored among the three (A 3, B 3,
# C 1) and leaves A and B level: they restart on their own mutual match (A 3:2 B). Overall
# goal difference says the opposite (C +9, B +5, A +1), so no other reading passes.
CYCLE_RESTART = [game("A", "B", "3:2"), game("B", "C", "1:0"), game("C", "A", "1:0"),
                 game("A", "D", "1:0"), game("B", "D", "5:0"), game("C", "D", "9:0")]


def test_003_cycle_split_by_head_to_head_goals_then_restart_on_the_mutual_match() -> None:
    # 003 'Ranking': head-to-head match, goal difference, goals scored among the tied
    # teams; "restarting for those still level": A and B start again from the
    # head-to-head match with only their own game.
    table = rank_group(group("A", "B", "C", "D"), CYCLE_RESTART, R003)
    assert order(table) == ["A", "B", "C", "D"]
    assert why(table) == ["head_to_head_points", "head_to_head_goals_for", "points", None]


def test_000_two_left_from_a_three_way_tie_keep_the_sub_table_list() -> None:
    # 000 'The ranking...': "When three or more teams are tied in points, continue to
    # determine the standings of the remaining teams starting from the first rule
    # (considering only the matches between the tied teams)". The two left level keep that
    # list: their mutual match (A won) decides, not rule 2's overall goal difference
    # (B +5, A +1), which the two-team list would apply first.
    table = rank_group(group("A", "B", "C", "D"), CYCLE_RESTART, R000)
    assert order(table) == ["A", "B", "C", "D"]
    assert why(table) == ["head_to_head_points", "head_to_head_goals_for", "points", None]


def test_001_same_cycle_goes_to_total_score() -> None:
    # 001 'Qualifying criteria' has no goals-scored criterion: 2 and 3 give everyone the
    # same (2 points, goal difference 0), so 4 (total score) decides: C +9, B +5, A +1.
    table = rank_group(group("A", "B", "C", "D"), CYCLE_RESTART, R001)
    assert order(table) == ["C", "B", "A", "D"]
    assert why(table) == ["goal_difference", "goal_difference", "points", None]


# ---------------------------------------------------------------------------------------
# Penalty minutes (000 only)


def test_000_two_teams_separated_only_by_penalty_minutes() -> None:
    # 000 'The ranking...' 7: penalty minutes, after goal difference, goals for and the
    # whole head-to-head (a 2:2 draw) give A and B the same.
    results = [game("A", "B", "2:2", pim=(4, 10)), game("A", "C", "1:0", pim=(2, 0)),
               game("B", "C", "1:0")]
    for teams in (("A", "B", "C"), ("B", "C", "A")):
        table = rank_group(group(*teams), results, R000)
        assert order(table) == ["A", "B", "C"]
        assert [r.penalty_minutes for r in table.rows] == [6, 10, 0]
        assert why(table) == ["penalty_minutes", "points", None]


def test_000_three_way_tie_separated_only_by_penalty_minutes() -> None:
    # 000 'The ranking...': a 1:0 cycle leaves rules 1-6 level in the sub-table; rule 7
    # (fewer penalty minutes, in the matches between the tied teams) orders A 2, C 4, B 6.
    # (tests/office/test_standings_many.py has the cases where the overall minutes differ.)
    results = [game("A", "B", "1:0", pim=(2, 2)), game("B", "C", "1:0", pim=(4, 4)),
               game("C", "A", "1:0")]
    table = rank_group(group("A", "B", "C"), results, R000)
    assert order(table) == ["A", "C", "B"]
    assert why(table) == ["head_to_head_penalty_minutes", "head_to_head_penalty_minutes",
                          None]


def test_003_ignores_penalty_minutes_and_asks_for_lots() -> None:
    # 003 'Ranking' has no penalty-minutes criterion: the same results as the 000 test
    # above leave A and B level after every criterion: drawing of lots.
    results = [game("A", "B", "2:2", pim=(4, 10)), game("A", "C", "1:0", pim=(2, 0)),
               game("B", "C", "1:0")]
    table = rank_group(group("A", "B", "C"), results, R003)
    assert order(table) == ["A", "B", "C"]  # level rows in name order
    assert ranks(table) == [1, 1, 3]
    assert lots(table) == [True, True, False]
    assert why(table) == [None, "points", None]


# ---------------------------------------------------------------------------------------
# Lots


LEVEL_PAIR = [game("A", "B", "1:1"), game("A", "C", "2:0"), game("B", "C", "2:0")]


@pytest.mark.parametrize(("rules", "document"), [
    (R000, "000 'The ranking of each team in each group' 8: dice"),
    (R001, "001 'Qualifying criteria' 5: random draw"),
    (R003, "003 'Ranking': drawing of lots"),
])
def test_level_after_every_criterion_needs_lots_then_a_draw_decides(
        rules: StandingsRules, document: str) -> None:
    g = group("C", "B", "A")
    table = rank_group(g, LEVEL_PAIR, rules)
    assert order(table) == ["A", "B", "C"], document
    assert ranks(table) == [1, 1, 3]
    assert lots(table) == [True, True, False]
    # Nothing places A above B; B is placed above C by points.
    assert why(table) == [None, "points", None]

    drawn = rank_group(g, LEVEL_PAIR, rules, [Draw("A", ("B", "A"), seed=7)])
    assert order(drawn) == ["B", "A", "C"], document
    assert ranks(drawn) == [1, 2, 3]
    assert not any(lots(drawn))
    assert why(drawn) == ["lots", "points", None]


def test_the_latest_draw_of_the_group_wins_and_other_groups_draws_are_ignored() -> None:
    # 003 'Ranking': drawing of lots, recorded by the office (never rolled silently).
    draws = [Draw("A", ("A", "B")), Draw("A", ("B", "A")), Draw("B", ("A", "B"))]
    table = rank_group(group("A", "B", "C"), LEVEL_PAIR, R003, draws)
    assert order(table) == ["B", "A", "C"]
    assert why(table)[0] == "lots"


def test_a_draw_that_misses_a_level_team_is_not_used() -> None:
    # 000 'The ranking...' 8 (dice): a three-way 1:1 cycle with equal penalty minutes; a
    # draw naming only two of the three cannot order them.
    results = [game("A", "B", "1:1"), game("B", "C", "1:1"), game("C", "A", "1:1")]
    table = rank_group(group("A", "B", "C"), results, R000, [Draw("A", ("C", "A"))])
    assert ranks(table) == [1, 1, 1]
    assert lots(table) == [True, True, True]
    assert why(table) == [None, None, None]
    drawn = rank_group(group("A", "B", "C"), results, R000, [Draw("A", ("C", "A", "B"))])
    assert order(drawn) == ["C", "A", "B"]
    assert why(drawn) == ["lots", "lots", None]


def test_ranks_are_competition_ranks_around_a_level_pair() -> None:
    # 003 'Ranking': D won everything; A and B level after every criterion (lots); C last.
    results = [*LEVEL_PAIR, game("D", "A", "1:0"), game("D", "B", "1:0"), game("D", "C", "1:0")]
    table = rank_group(group("A", "B", "C", "D"), results, R003)
    assert order(table) == ["D", "A", "B", "C"]
    assert ranks(table) == [1, 2, 2, 4]
    assert why(table) == ["points", None, "points", None]


def test_no_lots_before_the_teams_have_played() -> None:
    # 000 'The ranking...' 8 (dice) only once the teams have played: at the start everyone
    # shares rank 1 in name order and nothing asks for lots (our choice, see standings).
    table = rank_group(group("Wolves", "Bears", "Lions"), [], R000)
    assert order(table) == ["Bears", "Lions", "Wolves"]
    assert ranks(table) == [1, 1, 1]
    assert not any(lots(table))
    assert why(table) == [None, None, None]
    # A and B drew 0:0 (both played: level after everything -> lots); C and D have not
    # played yet and share rank 3 quietly.
    table = rank_group(group("D", "C", "B", "A"), [game("A", "B", "0:0")], R000)
    assert order(table) == ["A", "B", "C", "D"]
    assert ranks(table) == [1, 1, 3, 3]
    assert lots(table) == [True, True, False, False]
    assert why(table) == [None, "points", None, None]


def test_a_list_without_lots_still_ends_in_lots_needed() -> None:
    # 001 'Qualifying criteria' 5 is the random draw; a tournament that dropped it from the
    # list still cannot rank level teams by itself.
    rules = dataclasses.replace(R001, tiebreak=R001.tiebreak[:-1],
                                tiebreak_many=R001.tiebreak_many[:-1])
    table = rank_group(group("A", "B", "C"), LEVEL_PAIR, rules)
    assert lots(table) == [True, True, False]
    drawn = rank_group(group("A", "B", "C"), LEVEL_PAIR, rules, [Draw("A", ("B", "A"))])
    assert why(drawn) == ["lots", "points", None]


# ---------------------------------------------------------------------------------------
# The same results, different documents


# A and B level on points under both 000 (2/1/0: 4 each) and 003 (3/1/0: 6 each). A won
# the mutual match; B has the better overall goal difference (+9 against +1).
SAME = [game("A", "B", "1:0"), game("A", "C", "1:0"), game("A", "D", "0:1"),
        game("B", "C", "5:0"), game("B", "D", "5:0"), game("C", "D", "0:0")]


def test_000_uses_overall_goal_difference_before_head_to_head() -> None:
    # 000 'The ranking...': 2 goal difference comes before 4 head-to-head points.
    table = rank_group(group("A", "B", "C", "D"), SAME, R000)
    assert order(table) == ["B", "A", "D", "C"]
    assert why(table) == ["goal_difference", "points", "points", None]


def test_003_uses_head_to_head_before_overall_goal_difference() -> None:
    # 003 'Ranking': "Head-to-head match" first, overall goal difference only fourth.
    table = rank_group(group("A", "B", "C", "D"), SAME, R003)
    assert order(table) == ["A", "B", "D", "C"]
    assert why(table) == ["head_to_head_points", "points", "points", None]


# ---------------------------------------------------------------------------------------
# Forfeits


# B won the mutual match by forfeit (0:5). A and B have the same goals for and goal
# difference overall (6:5 each), so only the head-to-head (with the forfeit in it) splits
# them. C and D are level on points too.
FORFEIT = [game("A", "B", "0:5", by=DecidedBy.FORFEIT), game("A", "C", "3:0"),
           game("A", "D", "3:0"), game("B", "C", "0:5"), game("B", "D", "1:0"),
           game("C", "D", "0:1")]


def test_000_forfeit_counts_as_a_played_match_and_in_head_to_head() -> None:
    # 000 'The ranking...': rules 2-3 level (A 6:5, B 6:5), rule 4 head-to-head points:
    # the forfeit gives B the mutual match. C (5:4) and D (1:4) split by rule 2.
    table = rank_group(group("A", "B", "C", "D"), FORFEIT, R000)
    assert order(table) == ["B", "A", "C", "D"]
    assert why(table) == ["head_to_head_points", "points", "goal_difference", None]
    rows = {r.team: r for r in table.rows}
    assert (rows["A"].played, rows["A"].lost, rows["A"].goals_against) == (3, 1, 5)
    assert (rows["B"].won, rows["B"].goals_for, rows["B"].points) == (2, 6, 4)


@pytest.mark.parametrize(("rules", "document"), [
    (R001, "001 'Qualifying criteria' 2: points from a mutual match"),
    (R003, "003 'Ranking': head-to-head match"),
])
def test_forfeit_decides_the_mutual_match(rules: StandingsRules, document: str) -> None:
    # B beat A by forfeit; D beat C 1:0: both pairs split on the mutual match.
    table = rank_group(group("A", "B", "C", "D"), FORFEIT, rules)
    assert order(table) == ["B", "A", "D", "C"], document
    assert why(table) == ["head_to_head_points", "points", "head_to_head_points", None]


def test_003_forfeit_in_a_three_way_sub_table() -> None:
    # 003 'Ranking': a cycle through a forfeit. A beat B 2:0, B beat C by forfeit 5:0, C
    # beat A 1:0: 3 points each, head-to-head points 3 each; head-to-head goal difference
    # counts the forfeit's 5:0: B +3 (5:2), A +1 (2:1), C -4 (1:5).
    cycle = [game("A", "B", "2:0"), game("B", "C", "5:0", by=DecidedBy.FORFEIT),
             game("C", "A", "1:0")]
    table = rank_group(group("A", "B", "C"), cycle, R003)
    assert order(table) == ["B", "A", "C"]
    assert why(table) == ["head_to_head_goal_difference", "head_to_head_goal_difference",
                          None]
    assert [r.played for r in table.rows] == [2, 2, 2]


# ---------------------------------------------------------------------------------------
# Properties: the table is a function of the results


TEAMS = ("Ants", "Bees", "Cats", "Dogs", "Eels", "Foxes")


@st.composite
def _groups(draw: st.DrawFn) -> tuple[Group, list[GameResult], list[Draw]]:
    size = draw(st.integers(2, 6))
    teams = TEAMS[:size]
    pairs = [p for p in itertools.combinations(teams, 2) if draw(st.booleans())]
    results = []
    for i, (home, away) in enumerate(pairs):
        # Low scores and few penalty minutes make ties and cycles common.
        by = draw(st.sampled_from([DecidedBy.REGULATION, DecidedBy.FORFEIT]))
        hg, ag = draw(st.integers(0, 2)), draw(st.integers(0, 2))
        results.append(GameResult(f"G{i}", home, away, hg, ag, by,
                                  draw(st.sampled_from([0, 2])), draw(st.sampled_from([0, 2]))))
    draws = draw(st.lists(st.permutations(teams).map(lambda p: Draw("A", tuple(p))),
                          max_size=1))
    return Group("A", teams), results, draws


@settings(max_examples=300, deadline=None)
@given(case=_groups(), rules=st.sampled_from([R000, R001, R003]), data=st.data())
def test_the_table_is_a_function_of_the_results(
        case: tuple[Group, list[GameResult], list[Draw]], rules: StandingsRules,
        data: st.DataObject) -> None:
    # 000 'The ranking...', 001 'Qualifying criteria', 003 'Ranking': each ranks a set of
    # results; the order they were typed in or the teams listed in cannot matter.
    g, results, draws = case
    table = rank_group(g, results, rules, draws)
    shuffled_results = data.draw(st.permutations(results))
    shuffled_teams = data.draw(st.permutations(g.teams))
    again = rank_group(Group("A", tuple(shuffled_teams)), shuffled_results, rules, draws)
    assert again == table

    rows = table.rows
    assert sorted(r.team for r in rows) == sorted(g.teams)
    assert rows[0].rank == 1
    assert rows[-1].decided_by is None
    for i, (upper, lower) in enumerate(itertools.pairwise(rows)):
        assert upper.rank <= lower.rank
        assert upper.points >= lower.points
        if upper.rank == lower.rank:
            assert upper.decided_by is None  # nothing placed one above the other
            assert upper.lots_needed == lower.lots_needed
        else:
            assert upper.decided_by is not None
            assert lower.rank == i + 2  # competition ranking
            if upper.points != lower.points:
                assert upper.decided_by is Criterion.POINTS
    for row in rows:
        if row.lots_needed:
            assert sum(1 for r in rows if r.rank == row.rank) >= 2
