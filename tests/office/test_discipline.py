"""Suspensions from the match records, with the bundled presets' rules (each test cites the
rule document it checks): rules 000 'Penalties' 3 (game misconduct) and 4 (match penalty),
rules 001 'Exclusion of a player' (red cards). A ban is served only by a match that
is actually played and confirmed; it is resolved against the real schedule, including
bracket matches filled later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from arena import presets
from arena.core.preset import StandingsRules, SuspensionRule
from arena.tournament.model import (
    DecidedBy,
    GameResult,
    Group,
    MatchOutcome,
    PenaltyEntry,
    ResultState,
    ScheduledMatch,
    Slot,
    SlotKind,
    Stage,
    TeamEntry,
    Tournament,
)
from office.rules.bracket import Pairing
from office.rules.discipline import Suspension, suspended_in, suspensions

TEAMS = ("Lions", "Bears", "Wolves", "Foxes")
T0 = datetime(2026, 12, 5, 9, 0)
HOCKEY = presets.load("ice-hockey-2x20").standings  # rules 000
FLOORBALL = presets.load("floorball-2x15").standings  # rules 001
CONFIRMED, FINAL = ResultState.CONFIRMED, ResultState.FINAL

# One group of four, then semis by group place and a final. Lions play A1, A3, A5.
SCHEDULE = (
    ("A1", "Lions", "Bears"), ("A2", "Wolves", "Foxes"), ("A3", "Lions", "Wolves"),
    ("A4", "Bears", "Foxes"), ("A5", "Foxes", "Lions"), ("A6", "Bears", "Wolves"),
    ("SF1", "A1", "A4"), ("SF2", "A2", "A3"), ("F", "W:SF1", "W:SF2"),
)


def slot(text: str) -> Slot:
    if text.startswith("W:"):
        return Slot(text, SlotKind.WINNER, match=text[2:])
    if text.startswith("A") and text[1:].isdigit():
        return Slot(text, SlotKind.GROUP_PLACE, group="A", place=int(text[1:]))
    return Slot(text, SlotKind.TEAM, team=text)


def cup(rules: StandingsRules = HOCKEY) -> Tournament:
    matches = tuple(
        ScheduledMatch(mid, Stage.GROUP if mid.startswith("A") else Stage.PLAYOFF,
                       "A" if mid.startswith("A") else None, "hall-1",
                       T0 + timedelta(hours=i), slot(home), slot(away), "ice-hockey-2x20")
        for i, (mid, home, away) in enumerate(SCHEDULE)
    )
    teams = {name: TeamEntry(name, name[:3].upper()) for name in TEAMS}
    teams["Lions"] = TeamEntry("Lions", "LIO", roster={7: "A. Player", 9: "B. Player"})
    return Tournament("Test Cup", "test-cup", "ice-hockey-2x20", teams,
                      (Group("A", TEAMS),), matches, rules)


def group_pairings(t: Tournament, **bracket: tuple[str | None, str | None]) -> dict[str, Pairing]:
    """What the bracket says: group matches name their teams; bracket matches as given."""
    pairings: dict[str, Pairing] = {}
    for m in t.matches:
        home, away = bracket.get(m.id, (m.home.team, m.away.team))
        pairings[m.id] = Pairing(m.id, home, away, False)
    return pairings


def outcome(match: str, state: ResultState = CONFIRMED, *penalties: tuple[str, int, str],
            forfeit: bool = False) -> MatchOutcome:
    home, away = dict((m, (h, a)) for m, h, a in SCHEDULE)[match]
    result = None
    if state.has_result:
        decided_by = DecidedBy.FORFEIT if forfeit else DecidedBy.REGULATION
        result = GameResult(match, home, away, 0 if forfeit else 2, 5 if forfeit else 1,
                            decided_by)
    entries = tuple(PenaltyEntry(team, player, kind, 25) for team, player, kind in penalties)
    return MatchOutcome(match, state, result, entries)


def outcomes(*items: MatchOutcome) -> dict[str, MatchOutcome]:
    return {o.match: o for o in items}


def run(t: Tournament, outs: Mapping[str, MatchOutcome],
        pairings: Mapping[str, Pairing] | None = None) -> list[Suspension]:
    return suspensions(t, group_pairings(t) if pairings is None else pairings, outs)


def brief(found: Sequence[Suspension]) -> list[tuple[object, ...]]:
    return [(s.player, s.offences, s.offence_match, s.banned, s.served, s.pending, s.waiting)
            for s in found]


GM = ("Lions", 7, "game_misconduct")
MP = ("Lions", 7, "match")


# Rules 000 'Penalties' 3: game misconduct penalties.

def test_000_a_first_game_misconduct_bans_nobody() -> None:
    # "sent away from the field for the rest of the game": no suspension beyond it.
    assert run(cup(), outcomes(outcome("A1", CONFIRMED, GM))) == []


def test_000_a_second_game_misconduct_bans_for_the_next_game() -> None:
    # "a second Game Misconduct penalty in the tournament, he is suspended for the next game"
    found = run(cup(), outcomes(outcome("A1", CONFIRMED, GM), outcome("A3", CONFIRMED, GM)))
    assert found == [Suspension("Lions", 7, "A. Player", "game misconduct", 2, "A3", 1,
                                served=(), pending=("A5",), waiting=0)]


def test_000_a_third_game_misconduct_disqualifies_for_the_tournament() -> None:
    # "a third Game Misconduct Penalty he is disqualified for the tournament entirely"
    t = cup()
    outs = outcomes(outcome("A1", CONFIRMED, GM), outcome("A2"), outcome("A3", CONFIRMED, GM),
                    outcome("A5", CONFIRMED, GM))
    # In reality he sat A5 out; the record says otherwise, which the office still counts.
    pairings = group_pairings(t, SF1=("Lions", "Foxes"), SF2=("Bears", "Wolves"))
    found = run(t, outs, pairings)
    assert brief(found) == [
        (7, 2, "A3", 1, ("A5",), (), 0),
        (7, 3, "A5", None, (), ("SF1",), 0),  # the final is not his yet: nothing waits
    ]
    pairings["F"] = Pairing("F", "Lions", "Bears", True)
    found = run(t, outcomes(*outs.values(), outcome("SF1")), pairings)
    assert brief(found)[1] == (7, 3, "A5", None, ("SF1",), ("F",), 0)


# Rules 000 'Penalties' 4: match penalties.

def test_000_a_match_penalty_bans_for_the_next_game() -> None:
    # "automatically suspended for the next game as well"
    found = run(cup(), outcomes(outcome("A1", CONFIRMED, MP)))
    assert brief(found) == [(7, 1, "A1", 1, (), ("A3",), 0)]
    assert found[0].rule == "match penalty"


def test_000_a_second_match_penalty_disqualifies() -> None:
    # "If the same player/team official receives a second Match penalty, he is disqualified"
    found = run(cup(), outcomes(outcome("A1", CONFIRMED, MP), outcome("A3"),
                                outcome("A5", CONFIRMED, MP)))
    assert brief(found) == [(7, 1, "A1", 1, ("A3",), (), 0), (7, 2, "A5", None, (), (), 0)]


def test_000_a_team_official_is_suspended_by_his_number_like_a_player() -> None:
    # "a player/team official who receives a Match penalty": officials carry no shirt number.
    found = run(cup(), outcomes(outcome("A1", CONFIRMED, ("Lions", 0, "match"))))
    assert brief(found) == [(0, 1, "A1", 1, (), ("A3",), 0)]
    assert found[0].name is None  # not on the roster


def test_000_misconducts_and_match_penalties_are_counted_apart() -> None:
    # Rules 000 'Penalties' 3 and 4 count their own kind: one of each is a first of each.
    found = run(cup(), outcomes(outcome("A1", CONFIRMED, GM), outcome("A3", CONFIRMED, MP)))
    assert [(s.rule, s.offences) for s in found] == [("match penalty", 1)]


def test_000_offences_are_counted_per_player_and_team() -> None:
    found = run(cup(), outcomes(outcome("A1", CONFIRMED, GM, ("Lions", 9, "game_misconduct"),
                                        ("Bears", 7, "game_misconduct"))))
    assert found == []


# Rules 001 'Exclusion of a player': red cards.

def test_001_red_cards_one_two_three() -> None:
    # "Red card 1: exclusion until the end of the match" (no ban), "Red card 2: automatic
    # ban from the next match", "Red card 3: ... suspended for the remainder of the
    # tournament".
    t = cup(FLOORBALL)
    red = ("Lions", 9, "match")
    assert run(t, outcomes(outcome("A1", CONFIRMED, red))) == []
    found = run(t, outcomes(outcome("A1", CONFIRMED, red), outcome("A3", CONFIRMED, red)))
    assert found == [Suspension("Lions", 9, "B. Player", "red card", 2, "A3", 1,
                                served=(), pending=("A5",), waiting=0)]
    found = run(t, outcomes(outcome("A1", CONFIRMED, red), outcome("A3", CONFIRMED, red),
                            outcome("A5", CONFIRMED, red)))
    assert brief(found) == [(9, 2, "A3", 1, ("A5",), (), 0), (9, 3, "A5", None, (), (), 0)]


def test_001_two_red_cards_in_one_match_count_one_after_the_other() -> None:
    # Rules 001 'Exclusion of a player': the second red card of the tournament bans.
    red = ("Lions", 9, "match")
    found = run(cup(FLOORBALL), outcomes(outcome("A1", CONFIRMED, red, red)))
    assert brief(found) == [(9, 2, "A1", 1, (), ("A3",), 0)]


# Serving a ban: only by a match that is actually played and confirmed.

def test_a_ban_is_pending_through_a_final_but_unconfirmed_match() -> None:
    # Rules 000 'Penalties' 4: the next game; it serves the ban once its result is confirmed.
    t = cup()
    found = run(t, outcomes(outcome("A1", CONFIRMED, MP), outcome("A3", FINAL)))
    assert brief(found) == [(7, 1, "A1", 1, (), ("A3",), 0)]
    assert suspended_in("A3", found) == found
    found = run(t, outcomes(outcome("A1", CONFIRMED, MP), outcome("A3", CONFIRMED)))
    assert brief(found) == [(7, 1, "A1", 1, ("A3",), (), 0)]
    assert suspended_in("A5", found) == []


def test_a_corrected_match_serves_the_ban_like_a_confirmed_one() -> None:
    found = run(cup(), outcomes(outcome("A1", CONFIRMED, MP), outcome("A3", ResultState.CORRECTED)))
    assert brief(found) == [(7, 1, "A1", 1, ("A3",), (), 0)]


def test_a_live_or_scheduled_match_is_one_he_is_suspended_for() -> None:
    t = cup()
    for state in (ResultState.SCHEDULED, ResultState.LIVE):
        found = run(t, outcomes(outcome("A1", CONFIRMED, MP), outcome("A3", state)))
        assert brief(found) == [(7, 1, "A1", 1, (), ("A3",), 0)]


def test_a_forfeit_does_not_serve_a_ban() -> None:
    # Not actually played: the ban moves on to the team's next match.
    found = run(cup(), outcomes(outcome("A1", CONFIRMED, MP),
                                outcome("A3", CONFIRMED, forfeit=True)))
    assert brief(found) == [(7, 1, "A1", 1, (), ("A5",), 0)]
    assert suspended_in("A3", found) == []


def test_an_offence_in_a_final_but_unconfirmed_match_already_bans() -> None:
    found = run(cup(), outcomes(outcome("A1", FINAL, MP)))
    assert brief(found) == [(7, 1, "A1", 1, (), ("A3",), 0)]


def test_a_match_without_a_result_counts_no_offence() -> None:
    assert run(cup(), outcomes(outcome("A1", ResultState.LIVE, MP))) == []


def test_a_ban_carries_into_a_bracket_match_filled_later() -> None:
    # Offence in the Lions' last group match: the next game is a semi not filled yet.
    t = cup()
    outs = outcomes(outcome("A5", CONFIRMED, MP))
    found = run(t, outs, group_pairings(t, SF1=(None, None), SF2=(None, None)))
    assert brief(found) == [(7, 1, "A5", 1, (), (), 1)]
    # The group is done: Lions play SF2 (the pairing may still be provisional).
    found = run(t, outs, group_pairings(t, SF1=("Bears", "Foxes"), SF2=("Wolves", "Lions")))
    assert brief(found) == [(7, 1, "A5", 1, (), ("SF2",), 0)]
    assert suspended_in("SF2", found) == found


def test_a_team_with_no_later_match_leaves_the_ban_waiting() -> None:
    t = cup()
    pairings = group_pairings(t, SF1=("Lions", "Foxes"), SF2=("Bears", "Wolves"),
                              F=("Lions", "Bears"))
    found = run(t, outcomes(outcome("F", CONFIRMED, MP)), pairings)
    assert brief(found) == [(7, 1, "F", 1, (), (), 1)]


def test_other_teams_matches_do_not_serve_a_ban() -> None:
    found = run(cup(), outcomes(outcome("A1", CONFIRMED, MP), outcome("A2"), outcome("A4")))
    assert brief(found) == [(7, 1, "A1", 1, (), ("A3",), 0)]


def test_bans_of_one_player_are_served_one_after_the_other() -> None:
    # Our choice (no rule document says): each match serves one ban, in offence order.
    rules = StandingsRules(suspensions=(
        SuspensionRule("major", frozenset({"major"}), (1, 2)),
    ))
    t = cup(rules)
    major = ("Lions", 7, "major")
    pairings = group_pairings(t, SF1=("Lions", "Foxes"), SF2=("Bears", "Wolves"))
    found = run(t, outcomes(outcome("A1", CONFIRMED, major, major), outcome("A3")), pairings)
    assert brief(found) == [
        (7, 1, "A1", 1, ("A3",), (), 0),
        (7, 2, "A1", 2, (), ("A5", "SF1"), 0),
    ]
    assert [s.offences for s in suspended_in("A5", found)] == [2]


def test_a_ban_after_a_ban_for_the_rest_of_the_tournament_waits() -> None:
    rules = StandingsRules(suspensions=(
        SuspensionRule("a", frozenset({"match"}), (None,)),
        SuspensionRule("b", frozenset({"match"}), (1,)),
    ))
    found = run(cup(rules), outcomes(outcome("A1", CONFIRMED, MP)))
    assert brief(found) == [(7, 1, "A1", None, (), ("A3", "A5"), 0), (7, 1, "A1", 1, (), (), 1)]


@given(st.lists(st.sampled_from(["A1", "A3", "A5"]), min_size=1, max_size=5),
       st.lists(st.sampled_from(list(ResultState)), min_size=3, max_size=3),
       st.lists(st.booleans(), min_size=3, max_size=3))
def test_every_ban_is_accounted_for_and_no_match_serves_two(
    offence_matches: list[str], states: list[ResultState], forfeits: list[bool],
) -> None:
    t = cup(replace(HOCKEY, suspensions=(
        SuspensionRule("major", frozenset({"major"}), (0, 1, 2)),
    )))
    outs: dict[str, MatchOutcome] = {}
    for mid, state, forfeit in zip(("A1", "A3", "A5"), states, forfeits, strict=True):
        outs[mid] = outcome(mid, state, forfeit=forfeit and state.has_result)
    for mid in offence_matches:
        if not outs[mid].state.has_result:
            outs[mid] = outcome(mid, FINAL)
        outs[mid] = replace(outs[mid], penalties=(*outs[mid].penalties,
                                                   PenaltyEntry("Lions", 7, "major", 5)))
    found = run(t, outs)
    assert found == run(t, outs)
    taken: list[str] = []
    for s in found:
        assert s.banned is not None
        assert len(s.served) + len(s.pending) + s.waiting == s.banned
        for mid in s.served:
            result = outs[mid].result
            assert outs[mid].state.settled and result is not None
            assert result.decided_by is not DecidedBy.FORFEIT
        for mid in s.pending:
            assert mid not in outs or not outs[mid].state.settled
        order = [m for m, _, _ in SCHEDULE]
        assert all(order.index(m) > order.index(s.offence_match)
                   for m in (*s.served, *s.pending))
        taken += [*s.served, *s.pending]
    assert len(taken) == len(set(taken))
