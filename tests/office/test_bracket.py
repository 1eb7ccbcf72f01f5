"""The bracket: group places and winners/losers fill the scheduled matches: the
office fills the bracket when a group is complete, and re-fills it with a visible alert when
a correction changes it. The layout is rules 000's: semis A1-B2 and B1-A2, final, bronze."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from arena.core.preset import StandingsRules
from arena.tournament.model import (
    GameResult,
    Group,
    GroupTable,
    MatchOutcome,
    ResultState,
    Row,
    ScheduledMatch,
    Slot,
    SlotKind,
    Stage,
    TeamEntry,
    Tournament,
)
from office.rules.bracket import Pairing, changes, fill

A = ("Lions", "Bears", "Wolves")
B = ("Eagles", "Sharks", "Hawks")
T0 = datetime(2026, 12, 5, 9, 0)


def slot(text: str) -> Slot:
    if text.startswith(("W:", "L:")):
        kind = SlotKind.WINNER if text.startswith("W:") else SlotKind.LOSER
        return Slot(text, kind, match=text[2:])
    if text[0] in "AB" and text[1:].isdigit():
        return Slot(text, SlotKind.GROUP_PLACE, group=text[0], place=int(text[1:]))
    return Slot(text, SlotKind.TEAM, team=text)


def scheduled(match_id: str, hour: int, home: str, away: str,
              group: str | None = None) -> ScheduledMatch:
    stage = Stage.GROUP if group is not None else Stage.PLAYOFF
    return ScheduledMatch(match_id, stage, group, "hall-1", T0 + timedelta(hours=hour),
                          slot(home), slot(away), "ice-hockey-2x20")


def cup() -> Tournament:
    group_matches = [
        scheduled("GA1", 0, "Lions", "Bears", "A"), scheduled("GB1", 1, "Eagles", "Sharks", "B"),
        scheduled("GA2", 2, "Bears", "Wolves", "A"), scheduled("GB2", 3, "Sharks", "Hawks", "B"),
        scheduled("GA3", 4, "Wolves", "Lions", "A"), scheduled("GB3", 5, "Hawks", "Eagles", "B"),
    ]
    bracket = [
        scheduled("SF1", 6, "A1", "B2"), scheduled("SF2", 7, "B1", "A2"),
        scheduled("BRZ", 8, "L:SF1", "L:SF2"), scheduled("F", 9, "W:SF1", "W:SF2"),
    ]
    teams = {name: TeamEntry(name, name[:3].upper()) for name in A + B}
    return Tournament("Test Cup", "test-cup", "ice-hockey-2x20", teams,
                      (Group("A", A), Group("B", B)), tuple(group_matches + bracket),
                      StandingsRules())


def table(name: str, order: Sequence[str], *, ranks: Sequence[int] | None = None,
          lots: Sequence[str] = (), complete: bool = True,
          provisional: bool = False) -> GroupTable:
    ranks = ranks if ranks is not None else range(1, len(order) + 1)
    rows = tuple(Row(team=team, played=2, won=0, drawn=0, lost=0, goals_for=0, goals_against=0,
                     points=0, rank=rank, penalty_minutes=0, lots_needed=team in lots)
                 for rank, team in zip(ranks, order, strict=True))
    return GroupTable(name, rows, provisional=provisional, complete=complete)


def tables(a: Sequence[str] = A, b: Sequence[str] = B, *,
           provisional: bool = False) -> dict[str, GroupTable]:
    return {"A": table("A", a, provisional=provisional),
            "B": table("B", b, provisional=provisional)}


def won(match: str, home: str, away: str, score: tuple[int, int],
        state: ResultState = ResultState.CONFIRMED) -> MatchOutcome:
    return MatchOutcome(match, state, GameResult(match, home, away, *score))


def sides(pairings: dict[str, Pairing], match: str) -> tuple[str | None, str | None]:
    return pairings[match].home, pairings[match].away


def test_every_scheduled_match_gets_a_pairing_and_group_matches_name_their_teams() -> None:
    t = cup()
    pairings = fill(t, {}, {})
    assert list(pairings) == [m.id for m in t.matches]
    assert pairings["GA1"] == Pairing("GA1", "Lions", "Bears", False)
    assert sides(pairings, "SF1") == (None, None)
    assert sides(pairings, "F") == (None, None)


def test_complete_groups_fill_the_semis_first_of_one_against_second_of_the_other() -> None:
    # Rules 000's example: semis A1-B2 and B1-A2.
    pairings = fill(cup(), tables(), {})
    assert pairings["SF1"] == Pairing("SF1", "Lions", "Sharks", False)
    assert pairings["SF2"] == Pairing("SF2", "Eagles", "Bears", False)
    assert sides(pairings, "F") == (None, None)  # the semis are not played yet
    assert sides(pairings, "BRZ") == (None, None)


def test_an_incomplete_group_leaves_its_places_open() -> None:
    pairings = fill(cup(), {"A": table("A", A, complete=False), "B": table("B", B)}, {})
    assert sides(pairings, "SF1") == (None, "Sharks")
    assert sides(pairings, "SF2") == ("Eagles", None)


def test_a_place_that_needs_lots_stays_open_until_they_are_drawn() -> None:
    # Bears and Wolves level after every criterion for 2nd place.
    level = table("A", A, ranks=(1, 2, 2), lots=("Bears", "Wolves"))
    pairings = fill(cup(), {"A": level, "B": table("B", B)}, {})
    assert sides(pairings, "SF1") == ("Lions", "Sharks")
    assert sides(pairings, "SF2") == ("Eagles", None)


def test_two_sharing_first_place_leave_first_and_second_open() -> None:
    level = table("A", A, ranks=(1, 1, 3), lots=("Lions", "Bears"))
    pairings = fill(cup(), {"A": level, "B": table("B", B)}, {})
    assert sides(pairings, "SF1") == (None, "Sharks")  # A1 shared
    assert sides(pairings, "SF2") == ("Eagles", None)  # nobody holds A2


def test_a_shared_rank_without_lots_flag_is_still_not_one_team() -> None:
    level = table("A", A, ranks=(1, 1, 3))
    pairings = fill(cup(), {"A": level, "B": table("B", B)}, {})
    assert sides(pairings, "SF1") == (None, "Sharks")


def test_a_provisional_table_makes_its_places_provisional() -> None:
    pairings = fill(cup(), {"A": table("A", A, provisional=True), "B": table("B", B)}, {})
    assert pairings["SF1"] == Pairing("SF1", "Lions", "Sharks", True)
    assert pairings["SF2"] == Pairing("SF2", "Eagles", "Bears", True)


def test_winners_and_losers_chain_through_the_semis_to_the_final_and_bronze() -> None:
    outcomes = {
        "SF1": won("SF1", "Lions", "Sharks", (3, 1)),
        "SF2": won("SF2", "Eagles", "Bears", (1, 2)),  # the away side wins
    }
    pairings = fill(cup(), tables(), outcomes)
    assert pairings["F"] == Pairing("F", "Lions", "Bears", False)
    assert pairings["BRZ"] == Pairing("BRZ", "Sharks", "Eagles", False)


def test_a_semi_final_not_confirmed_makes_the_final_provisional() -> None:
    outcomes = {
        "SF1": won("SF1", "Lions", "Sharks", (3, 1)),
        "SF2": won("SF2", "Eagles", "Bears", (1, 2), ResultState.FINAL),
    }
    pairings = fill(cup(), tables(), outcomes)
    assert pairings["F"] == Pairing("F", "Lions", "Bears", True)
    assert pairings["BRZ"] == Pairing("BRZ", "Sharks", "Eagles", True)


def test_a_provisional_semi_pairing_carries_into_the_final() -> None:
    # The semis' results are confirmed, but group A's table is not.
    outcomes = {
        "SF1": won("SF1", "Lions", "Sharks", (3, 1)),
        "SF2": won("SF2", "Eagles", "Bears", (4, 2), ResultState.CORRECTED),
    }
    pairings = fill(cup(), {"A": table("A", A, provisional=True), "B": table("B", B)}, outcomes)
    assert pairings["F"] == Pairing("F", "Lions", "Eagles", True)


def test_a_semi_without_a_result_leaves_the_final_open() -> None:
    outcomes = {
        "SF1": MatchOutcome("SF1", ResultState.LIVE),
        "SF2": won("SF2", "Eagles", "Bears", (1, 2)),
    }
    pairings = fill(cup(), tables(), outcomes)
    assert pairings["F"] == Pairing("F", None, "Bears", False)
    assert pairings["BRZ"] == Pairing("BRZ", None, "Eagles", False)


def test_a_winner_needs_the_semis_pairing_known() -> None:
    # A result is in for SF1 but group A is not complete: the pairing itself is not known.
    outcomes = {"SF1": won("SF1", "Lions", "Sharks", (3, 1))}
    pairings = fill(cup(), {"A": table("A", A, complete=False), "B": table("B", B)}, outcomes)
    assert sides(pairings, "F") == (None, None)


def test_a_result_for_teams_the_pairing_no_longer_names_decides_nothing() -> None:
    # SF1 was played Lions-Sharks; a correction in group A now puts Bears first.
    outcomes = {"SF1": won("SF1", "Lions", "Sharks", (3, 1))}
    pairings = fill(cup(), tables(a=("Bears", "Lions", "Wolves")), outcomes)
    assert sides(pairings, "SF1") == ("Bears", "Sharks")
    assert sides(pairings, "F") == (None, None)


def test_a_level_result_in_a_bracket_match_has_no_winner_yet() -> None:
    outcomes = {"SF1": won("SF1", "Lions", "Sharks", (2, 2), ResultState.FINAL)}
    pairings = fill(cup(), tables(), outcomes)
    assert sides(pairings, "F") == (None, None)


def test_changes_reports_a_correction_that_swaps_the_semi_teams() -> None:
    t = cup()
    before = fill(t, tables(), {})
    after = fill(t, tables(a=("Bears", "Lions", "Wolves")), {})
    assert changes(before, after) == [
        "SF1 home: Bears instead of Lions",
        "SF2 away: Lions instead of Bears",
    ]


def test_changes_reports_a_filled_slot_that_is_open_again() -> None:
    t = cup()
    outcomes = {
        "SF1": won("SF1", "Lions", "Sharks", (3, 1)),
        "SF2": won("SF2", "Eagles", "Bears", (1, 2)),
    }
    before = fill(t, tables(), outcomes)
    corrected = dict(outcomes, SF1=won("SF1", "Lions", "Sharks", (2, 2), ResultState.CORRECTED))
    after = fill(t, tables(), corrected)
    assert changes(before, after) == [
        "BRZ home: no longer known (was Sharks)",
        "F home: no longer known (was Lions)",
    ]


def test_filling_an_open_slot_is_not_an_alert() -> None:
    t = cup()
    assert changes(fill(t, {}, {}), fill(t, tables(), {})) == []


team_orders = st.tuples(st.permutations(A), st.permutations(B))
semi_scores = st.tuples(st.integers(0, 5), st.integers(0, 5)).filter(lambda s: s[0] != s[1])
states = st.sampled_from(list(ResultState))


@given(team_orders, semi_scores, semi_scores, states, st.booleans())
def test_fill_follows_the_tables_and_results_and_is_a_function_of_them(
    orders: tuple[list[str], list[str]], sf1: tuple[int, int], sf2: tuple[int, int],
    state: ResultState, provisional: bool,
) -> None:
    t = cup()
    a, b = orders
    tabs = tables(a, b, provisional=provisional)
    semis = fill(t, tabs, {})
    assert sides(semis, "SF1") == (a[0], b[1])
    assert sides(semis, "SF2") == (b[0], a[1])
    outcomes = {
        "SF1": won("SF1", a[0], b[1], sf1, state),
        "SF2": won("SF2", b[0], a[1], sf2, ResultState.CONFIRMED),
    }
    pairings = fill(t, tabs, outcomes)
    assert pairings == fill(t, tabs, outcomes)
    assert changes(pairings, pairings) == []
    w1 = a[0] if sf1[0] > sf1[1] else b[1]
    w2 = b[0] if sf2[0] > sf2[1] else a[1]
    l2 = a[1] if w2 == b[0] else b[0]
    if state.has_result:
        l1 = b[1] if w1 == a[0] else a[0]
        assert pairings["F"] == Pairing("F", w1, w2, provisional or not state.settled)
        assert pairings["BRZ"] == Pairing("BRZ", l1, l2, provisional or not state.settled)
    else:
        assert pairings["F"] == Pairing("F", None, w2, provisional)
    # Every side the semis filled and the results later completed is no alert.
    assert changes(semis, pairings) == []
