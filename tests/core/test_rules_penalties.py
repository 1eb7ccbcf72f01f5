"""Penalties, strength and power-play releases, from the rule documents and the IIHF/IFF rules
they rely on (each test cites its source)."""

from __future__ import annotations

from typing import Any

from arena.core.commands import Goal, Penalty, Start, Stop, Undo
from arena.core.events import EventKind
from arena.core.phase import Stage, Team

from .helpers import Game, S

HOME, AWAY = Team.HOME, Team.AWAY


def box(doc: dict[str, Any], team: str) -> list[tuple[int, str, int, bool]]:
    return [(p["player"], p["kind"], p["remaining_ms"], p["running"])
            for p in doc["penalties"][team]]


def hockey(stage: Stage = Stage.GROUP) -> Game:
    g = Game("ice-hockey-2x20", stage)
    g.do(Start(0))
    return g


def test_a_minor_runs_two_minutes_of_game_time_and_the_team_is_one_short() -> None:
    # Rules 000 'Penalties' 1: minor penalty, 2 minutes.
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    doc = g.at(130)
    assert box(doc, "home") == [(7, "minor", 90_000, True)]
    assert doc["strength"] == {"home": 4, "away": 5}
    doc = g.at(220)
    assert doc["penalties"]["home"] == [] and doc["strength"]["home"] == 5
    ended = next(e for e in g.events if e.kind is EventKind.PENALTY_ENDED)
    assert ended.at == S(220)  # exactly two minutes of game time after the penalty


def test_penalty_time_runs_only_while_the_game_clock_runs() -> None:
    # IIHF / IFF: penalty time is game time; it stops with the clock.
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    g.do(Stop(S(110)))
    assert box(g.at(500), "home") == [(7, "minor", 110_000, True)]
    g.do(Start(S(600)))
    assert box(g.at(700), "home") == [(7, "minor", 10_000, True)]
    assert g.at(710)["penalties"]["home"] == []


def test_penalty_time_carries_over_the_break_into_the_next_period() -> None:
    # Rules 000: one minute break; the penalty's remaining minute is served in period 2.
    g = hockey()
    g.do(Penalty(S(1140), AWAY, 11, "minor"))  # 60 s before the end of period 1
    doc = g.at(1230)  # in the break
    assert doc["phase"] == "intermission"
    assert box(doc, "away") == [(11, "minor", 60_000, True)]
    assert doc["strength"]["away"] == 4
    g.do(Start(S(1260)))
    assert box(g.at(1300), "away") == [(11, "minor", 20_000, True)]
    assert g.at(1320)["penalties"]["away"] == []


def test_a_third_penalty_waits_and_starts_the_instant_a_place_frees() -> None:
    # IIHF: no more than two players of a team serve penalties at once (delayed penalty);
    # IFF 603.3: two bench penalties per team measured at once.
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    g.do(Penalty(S(130), HOME, 8, "minor"))
    g.do(Penalty(S(140), HOME, 9, "minor"))
    doc = g.at(150)
    assert box(doc, "home") == [(7, "minor", 70_000, True), (8, "minor", 100_000, True),
                                (9, "minor", 120_000, False)]
    assert doc["strength"]["home"] == 3
    doc = g.at(221)  # #7 expired at 220: #9 started at that exact instant
    assert box(doc, "home") == [(8, "minor", 29_000, True), (9, "minor", 119_000, True)]
    started = next(e for e in g.events
                   if e.kind is EventKind.PENALTY_STARTED and e.data["player"] == 9)
    assert started.at == S(220)


def test_strength_never_goes_below_the_minimum() -> None:
    # IIHF: a team always has at least three skaters on the ice.
    g = hockey()
    for n, t in ((7, 100), (8, 101), (9, 102), (10, 103)):
        g.do(Penalty(S(t), HOME, n, "minor"))
    doc = g.at(110)
    assert doc["strength"] == {"home": 3, "away": 5}
    assert [p["running"] for p in doc["penalties"]["home"]] == [True, True, False, False]


def test_a_power_play_goal_releases_the_minor_with_the_least_time_left() -> None:
    # IIHF rule 16, appendix IV table 14 C: the minor with the least time left ends; only one.
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    g.do(Penalty(S(130), HOME, 8, "minor"))
    g.do(Goal(S(150), AWAY, 11))
    doc = g.at(151)
    assert box(doc, "home") == [(8, "minor", 99_000, True)]
    assert doc["strength"] == {"home": 4, "away": 5}
    ended = [e for e in g.events if e.kind is EventKind.PENALTY_ENDED]
    assert [(e.data["player"], e.data["how"]) for e in ended] == [(7, "released")]


def test_a_goal_releases_nothing_unless_the_scorer_has_more_players() -> None:
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    g.do(Penalty(S(100), AWAY, 4, "minor"))
    g.do(Goal(S(150), AWAY, 11))  # 4 v 4: not a power play
    assert len(g.at(151)["penalties"]["home"]) == 1
    g2 = hockey()
    g2.do(Penalty(S(100), HOME, 7, "minor"))
    g2.do(Goal(S(150), HOME, 9))  # a shorthanded goal releases nothing
    assert len(g2.at(151)["penalties"]["home"]) == 1


def test_majors_misconducts_and_match_penalties_are_never_released() -> None:
    # IIHF: only minor penalties end on a goal; a major is served in full.
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "major"))
    g.do(Penalty(S(100), HOME, 8, "game_misconduct"))
    g.do(Goal(S(150), AWAY, 11))
    doc = g.at(151)
    assert [(p[0], p[1], p[3]) for p in box(doc, "home")] == [
        (7, "major", True), (8, "game_misconduct", True)]
    assert doc["strength"]["home"] == 3


def test_the_released_penalty_is_the_minor_even_if_a_major_has_less_time() -> None:
    # Appendix IV table 14 C3: A15 major, A23 minor, goal: A23 returns.
    g = hockey()
    g.do(Penalty(S(100), HOME, 15, "major"))
    g.do(Penalty(S(250), HOME, 23, "minor"))
    g.do(Goal(S(300), AWAY))
    assert [p[0] for p in box(g.at(301), "home")] == [15]


def test_a_double_minor_is_one_entry_and_a_goal_ends_only_its_current_part() -> None:
    # IIHF appendix IV table 14 A1: first part ends with the goal, the second begins.
    g = hockey()
    g.do(Penalty(S(100), HOME, 15, "double_minor"))
    assert box(g.at(130), "home") == [(15, "double_minor", 210_000, True)]
    g.do(Goal(S(160), AWAY))  # 60 s into the first part
    assert box(g.at(161), "home") == [(15, "double_minor", 119_000, True)]
    g.do(Goal(S(200), AWAY))  # during the second part: it ends
    assert g.at(201)["penalties"]["home"] == []


def test_a_double_minor_second_part_after_the_first_expires() -> None:
    # Table 14 A2: the first part has expired, the second ends with the goal.
    g = hockey()
    g.do(Penalty(S(100), HOME, 15, "double_minor"))
    assert box(g.at(250), "home") == [(15, "double_minor", 90_000, True)]
    g.do(Goal(S(260), AWAY))
    assert g.at(261)["penalties"]["home"] == []


def test_coincidental_penalties_change_no_strength_and_are_served_in_full() -> None:
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "minor", coincidental=True))
    g.do(Penalty(S(100), AWAY, 4, "minor", coincidental=True))
    g.do(Penalty(S(110), HOME, 9, "minor"))
    doc = g.at(120)
    assert doc["strength"] == {"home": 4, "away": 5}
    g.do(Goal(S(130), AWAY))  # power play goal: releases #9, never the coincidental #7
    doc = g.at(131)
    assert [p[0] for p in box(doc, "home")] == [7]
    assert doc["strength"] == {"home": 5, "away": 5}
    assert box(g.at(219), "home") == [(7, "minor", 1_000, True)]


def test_a_misconduct_is_served_by_the_player_alone_after_his_minor() -> None:
    # IIHF: a minor and a misconduct together: a substitute serves the minor... the player
    # serves the minor first, then the ten minutes; the team is short only for the minor.
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "misconduct"))
    g.do(Penalty(S(100), HOME, 7, "minor"))
    doc = g.at(110)
    assert box(doc, "home") == [(7, "minor", 110_000, True), (7, "misconduct", 600_000, False)]
    assert doc["strength"]["home"] == 4
    doc = g.at(230)
    assert box(doc, "home") == [(7, "misconduct", 590_000, True)]
    assert doc["strength"]["home"] == 5


def test_a_major_is_served_before_a_minor_given_with_it_in_ice_hockey() -> None:
    # IIHF appendix IV table 14 B1: one player with a minor and a major: the major first.
    g = hockey()
    g.do(Penalty(S(100), HOME, 15, "minor"))
    g.do(Penalty(S(100), HOME, 15, "major"))
    assert box(g.at(101), "home") == [(15, "major", 299_000, True),
                                      (15, "minor", 120_000, False)]
    g.do(Goal(S(150), AWAY))  # table 14 B1: no penalty terminates
    assert len(g.at(151)["penalties"]["home"]) == 2


def test_floorball_penalties_of_a_player_run_in_the_order_given() -> None:
    # IFF 603.5: a player's penalties are served consecutively, in the order imposed.
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(Penalty(S(100), HOME, 15, "minor"))
    g.do(Penalty(S(100), HOME, 15, "major"))
    assert box(g.at(101), "home") == [(15, "minor", 119_000, True),
                                      (15, "major", 300_000, False)]


def test_floorball_personal_penalty_starts_when_the_bench_minor_ends_or_is_released() -> None:
    # IFF 609: a 10 min personal penalty always comes with a minor bench penalty; IFF 603.5:
    # the personal penalty starts only when his bench penalties have expired or terminated.
    g = Game("floorball-2x20", Stage.PLAYOFF)
    g.do(Start(0))
    g.do(Penalty(S(100), AWAY, 6, "minor"))
    g.do(Penalty(S(100), AWAY, 6, "personal"))
    doc = g.at(110)
    assert box(doc, "away") == [(6, "minor", 110_000, True), (6, "personal", 600_000, False)]
    assert doc["strength"]["away"] == 4
    g.do(Goal(S(150), HOME))  # the minor ends with the goal: the personal starts now
    doc = g.at(160)
    assert box(doc, "away") == [(6, "personal", 590_000, True)]
    assert doc["strength"]["away"] == 5
    g.do(Goal(S(170), HOME))  # IFF 609.2: a goal does not end a personal penalty
    assert box(g.at(171), "away") == [(6, "personal", 579_000, True)]


def test_a_new_bench_penalty_postpones_a_running_personal_penalty() -> None:
    # IFF 603.5: the remaining personal penalty is postponed until the bench penalty expires.
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(Penalty(S(100), AWAY, 6, "personal"))
    g.do(Penalty(S(200), AWAY, 6, "minor"))
    assert box(g.at(210), "away") == [(6, "minor", 110_000, True),
                                      (6, "personal", 500_000, False)]
    assert box(g.at(330), "away") == [(6, "personal", 490_000, True)]


def test_game_misconduct_and_match_penalty_are_five_shorthanded_minutes_and_25_recorded(
) -> None:
    # Rules 000 'Penalties' 3 and 4: game misconduct 5+20, match penalty 25; the player is gone.
    g = hockey()
    g.do(Penalty(S(100), HOME, 10, "game_misconduct"))
    g.do(Penalty(S(100), AWAY, 20, "match"))
    assert g.at(101)["strength"] == {"home": 4, "away": 4}
    g.do(Penalty(S(110), AWAY, 21, "minor"))
    doc = g.at(111)
    assert box(doc, "home") == [(10, "game_misconduct", 289_000, True)]
    assert doc["strength"] == {"home": 4, "away": 3}
    g.do(Start(S(1260)))
    g.at(2460)
    record = next(e for e in g.events if e.kind is EventKind.MATCH_ENDED).data["record"]
    assert record["penalty_minutes"] == {"home": 25, "away": 27}
    assert {(p["player"], p["kind"], p["minutes"], p["ejected"]) for p in record["penalties"]} \
        == {(10, "game_misconduct", 25, True), (20, "match", 25, True), (21, "minor", 2, False)}


def test_undo_of_a_goal_brings_the_released_penalty_back_with_its_time_at_the_goal() -> None:
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    g.do(Penalty(S(110), HOME, 8, "minor"))
    g.do(Penalty(S(120), HOME, 9, "minor"))  # waits
    g.do(Goal(S(150), AWAY))  # releases #7 (70 s left); #9 starts
    g.do(Stop(S(150)))
    assert box(g.at(160), "home") == [(8, "minor", 80_000, True), (9, "minor", 120_000, True)]
    g.do(Undo(S(170)))  # the goal is disallowed
    doc = g.at(171)
    assert box(doc, "home") == [(7, "minor", 70_000, True), (8, "minor", 80_000, True),
                                (9, "minor", 120_000, False)]
    assert doc["score"] == {"home": 0, "away": 0}


def test_undo_of_a_penalty_frees_its_place() -> None:
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    g.do(Penalty(S(100), HOME, 8, "minor"))
    g.do(Penalty(S(100), HOME, 9, "minor"))
    g.do(Undo(S(130)))  # #9 given by mistake
    assert [p[0] for p in box(g.at(131), "home")] == [7, 8]
    g.do(Undo(S(140)))
    doc = g.at(141)
    assert [p[0] for p in box(doc, "home")] == [7]
    assert doc["strength"]["home"] == 4


def test_youth_minor_lasts_until_the_end_of_the_shift_rules_002() -> None:
    # Rules 002 'Rules': a minor penalty lasts until the end of the shift.
    g = Game("youth-hockey-3x18")
    g.do(Start(0))
    g.do(Penalty(S(75), HOME, 7, "minor"))  # shift 2 runs 60-120 s
    doc = g.at(80)
    assert box(doc, "home") == [(7, "minor", 40_000, True)]
    assert doc["shift_ms"] == 40_000 and doc["strength"]["home"] == 4
    assert g.at(120)["penalties"]["home"] == []


def test_penalties_carry_into_overtime_rules_002() -> None:
    # Rules 002 'Overtime': penalised players stay in the penalty box during the break.
    g = Game("youth-hockey-3x18")
    g.do(Start(0))
    g.do(Start(S(1680)))
    g.do(Start(S(2960)))
    g.do(Penalty(S(3950), AWAY, 4, "major"))  # 90 s before period 3 ends at 4040 s
    doc = g.at(4100)
    assert doc["phase"] == "overtime_break"
    assert box(doc, "away") == [(4, "major", 210_000, True)]
    assert doc["strength"] == {"home": 5, "away": 4}
    g.do(Start(S(4230)))
    assert box(g.at(4330), "away") == [(4, "major", 110_000, True)]


def test_football_has_no_timed_penalties_and_unknown_kinds_are_refused() -> None:
    g = Game("football-p10")
    g.do(Start(0))
    g.do(Penalty(S(10), HOME, 7, "minor"))
    h = hockey()
    h.do(Penalty(S(10), HOME, 7, "personal"))
    assert g.refusals == ["penalty refused: the football-p10 rules have no timed penalties"]
    assert h.refusals[0].startswith("penalty refused: unknown kind 'personal' in "
                                    "ice-hockey-2x20 (one of minor, double_minor, major")


def test_a_penalty_in_the_break_counts_for_the_period_that_ended() -> None:
    g = hockey()
    g.do(Penalty(S(1205), HOME, 7, "minor"))
    doc = g.at(1230)
    assert box(doc, "home") == [(7, "minor", 120_000, True)]
    event = next(e for e in g.events if e.kind is EventKind.PENALTY)
    assert event.data["period"] == 1
