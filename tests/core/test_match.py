"""The match state machine: phases, breaks, stop time, the core commands and undo."""

from __future__ import annotations

from decimal import Decimal

import pytest

from arena.core.commands import (
    Correct,
    End,
    Forfeit,
    Goal,
    Horn,
    Next,
    Penalty,
    SetClock,
    Start,
    Stop,
    Timeout,
    Undo,
)
from arena.core.errors import Refused
from arena.core.events import EventKind
from arena.core.match import GOAL_SHOWN
from arena.core.phase import Phase, Stage, Team
from arena.core.values import MatchSetup, TeamInfo

from .helpers import Game, S

HOME, AWAY = Team.HOME, Team.AWAY


def test_pregame_shows_period_one_full_and_stopped() -> None:
    doc = Game("ice-hockey-2x20").at(0)
    assert (doc["phase"], doc["period"], doc["clock_ms"], doc["running"]) == (
        "pregame", 1, 1_200_000, False)
    assert doc["score"] == {"home": 0, "away": 0}
    assert doc["result"] is None


def test_a_period_ends_by_itself_at_exactly_zero_and_the_break_runs() -> None:
    # Rules 000 'Rules': 2 x 20 min, one minute break between periods.
    g = Game("ice-hockey-2x20")
    g.do(Start(S(10)))
    assert g.at(1209.999)["phase"] == "period"
    # The loop notices late (at 1215 s) but the period ended at its deadline, 1210 s.
    doc = g.at(1215)
    ended = next(e for e in g.events if e.kind is EventKind.PERIOD_ENDED)
    assert ended.at == S(1210)
    assert (doc["phase"], doc["period"], doc["running"]) == ("intermission", 2, True)
    assert doc["clock_ms"] == 55_000  # the break counts by itself from 1210 s
    horn = [e for e in g.events if e.kind is EventKind.HORN]
    assert horn[0].at == S(1210) and horn[0].data["reason"] == "period_end"
    assert g.at(1211)["horn"] is True  # the automatic horn sounds 2 s by default
    assert g.at(1212)["horn"] is False


def test_when_the_break_reaches_zero_the_next_period_waits_stopped_at_full_length() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    doc = g.at(1260)
    assert (doc["phase"], doc["period"], doc["clock_ms"], doc["running"]) == (
        "period", 2, 1_200_000, False)
    assert g.at(1300)["clock_ms"] == 1_200_000  # still waiting
    assert g.kinds().count(EventKind.BREAK_ENDED) == 1


def test_start_during_a_break_ends_it_and_starts_the_next_period_at_once() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(Start(S(1230)))  # 30 s into the 60 s break
    doc = g.at(1240)
    assert (doc["phase"], doc["period"], doc["running"], doc["clock_ms"]) == (
        "period", 2, True, 1_190_000)
    ended = next(e for e in g.events if e.kind is EventKind.BREAK_ENDED)
    assert ended.data["early"] is True


def test_next_during_a_break_ends_it_and_the_period_waits() -> None:
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(Next(S(950)))
    doc = g.at(1000)
    assert (doc["phase"], doc["period"], doc["running"], doc["clock_ms"]) == (
        "period", 2, False, 900_000)


def test_a_group_draw_stands() -> None:
    # Rules 000 'Rules': a draw earns each team 1 point: no tie-break in the group stage.
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(Start(S(1260)))
    doc = g.at(2460)
    assert doc["phase"] == "final"
    assert doc["result"] == {"home": 0, "away": 0, "decided_by": "regulation"}


def test_a_playoff_tie_goes_to_the_shootout_rules_000() -> None:
    # Rules 000 'The winning goal race of the ranking matches': tied -> winning shots.
    g = Game("ice-hockey-2x20", Stage.PLAYOFF)
    g.do(Start(0))
    g.do(Start(S(1260)))
    doc = g.at(2460)
    assert (doc["phase"], doc["result"]) == ("shootout", None)
    assert EventKind.SHOOTOUT_STARTED in g.kinds()


def test_youth_hockey_ties_go_to_overtime_in_every_stage_rules_002() -> None:
    # Rules 002 'Overtime': a tie goes to a 3 min break, then 6 min; no stage is named.
    g = Game("youth-hockey-3x18", Stage.GROUP)
    g.do(Start(0))
    g.do(Start(S(1680)))
    g.do(Start(S(2960)))
    doc = g.at(4040)
    assert (doc["phase"], doc["period"], doc["clock_ms"], doc["running"]) == (
        "overtime_break", 4, 180_000, True)
    doc = g.at(4220)
    assert (doc["phase"], doc["period"], doc["clock_ms"], doc["running"]) == (
        "overtime", 4, 360_000, False)
    assert doc["strength"] == {"home": 5, "away": 5}  # 5 skaters a side in overtime


def test_golden_goal_ends_overtime_rules_002() -> None:
    # Rules 002 'Overtime': 6 min, or until a "golden goal" is scored.
    g = Game("youth-hockey-3x18")
    g.do(Start(0))
    g.do(Start(S(1680)))
    g.do(Start(S(2960)))
    g.do(Start(S(4220)))
    g.do(Goal(S(4300), AWAY, 9))
    doc = g.at(4400)
    assert doc["phase"] == "final"
    assert doc["clock_ms"] == 280_000 and doc["running"] is False
    assert doc["result"] == {"home": 0, "away": 1, "decided_by": "overtime"}


def test_undoing_a_golden_goal_reopens_overtime_with_the_clock_stopped_at_the_goal() -> None:
    g = Game("youth-hockey-3x18")
    for t in (0, 1680, 2960, 4220):
        g.do(Start(S(t)))
    g.do(Goal(S(4300), AWAY, 9))
    g.do(Undo(S(4330)))
    doc = g.at(4340)
    assert (doc["phase"], doc["clock_ms"], doc["running"], doc["result"]) == (
        "overtime", 280_000, False, None)
    assert doc["score"] == {"home": 0, "away": 0}


@pytest.mark.parametrize(
    ("preset", "period", "remaining", "inside"),
    [
        # Rules 000 'Rules': the last minute of the second period is clear time.
        ("ice-hockey-2x20", 2, "60.000", True),
        ("ice-hockey-2x20", 2, "60.001", False),
        ("ice-hockey-2x20", 2, "0.001", True),
        ("ice-hockey-2x20", 1, "30", False),
        # Rules 001 'Playing time': play-offs, the last 3 min net time (IFF 201: period 2).
        ("floorball-2x20", 2, "180", True),
        ("floorball-2x20", 2, "180.5", False),
        ("floorball-2x20", 1, "100", False),
        ("floorball-2x15", 2, "10", False),
    ],
)
def test_stop_time_is_true_exactly_inside_the_window(preset: str, period: int, remaining: str,
                                                     inside: bool) -> None:
    g = Game(preset)
    length = g.match.preset.period_length
    if period == 2:
        g.do(Start(0))
        g.do(Next(length))  # the break is skipped; period 2 waits
        start = length
    else:
        start = 0
    g.do(Start(start))
    t = start + length - S(remaining)
    doc = g.at(f"{t / 10**9:.9f}")
    assert doc["period"] == period and doc["phase"] == "period"
    assert doc["stop_time"] is inside


def test_stop_takes_effect_at_the_press_time_even_when_applied_late() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.at(100.2)  # the loop has drawn a frame after the press but before processing it
    g.do(Stop(S(100)))
    assert g.at(500)["clock_ms"] == 1_100_000


def test_a_press_queued_behind_a_period_end_acts_at_the_period_end() -> None:
    # A press cannot act before something that has already happened (journal replay order).
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.at(1200.5)
    g.do(Goal(S(1199.9), HOME, 4))  # processed after the period ended
    goal = next(e for e in g.events if e.kind is EventKind.GOAL)
    assert goal.at == S(1200)
    assert goal.data["period"] == 1  # entered during the break: credited to period 1


def test_set_clock_and_its_undo() -> None:
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(SetClock(S(100), ms=700_000))  # 800 s shown, the referee says 700 s
    assert g.at(110)["clock_ms"] == 690_000
    g.do(Undo(S(120)))  # as if the correction never happened
    assert g.at(130)["clock_ms"] == 770_000


def test_set_clock_to_zero_ends_the_period_and_beyond_the_length_is_refused() -> None:
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(SetClock(S(10), ms=900_001))
    assert g.refusals == [
        "set_clock refused: 900001 ms is more than the 900000 ms this period lasts"]
    g.do(SetClock(S(20), ms=0))
    assert g.at(20)["phase"] == "intermission"


def test_set_clock_during_a_break_changes_the_break() -> None:
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(SetClock(S(910), ms=30_000))
    assert g.at(920)["clock_ms"] == 20_000
    assert g.at(940)["phase"] == "period"


def test_end_shortens_a_period_as_if_its_clock_reached_zero_and_undo_brings_it_back() -> None:
    # Rules 003 'Match officials': referees may shorten the playing time.
    g = Game("football-p08")
    g.do(Start(0))
    g.do(Goal(S(60), HOME))
    g.do(End(S(1400)))
    doc = g.at(1400)
    assert doc["phase"] == "final"
    assert doc["result"] == {"home": 1, "away": 0, "decided_by": "regulation"}
    g.do(Undo(S(1420)))
    doc = g.at(1430)
    assert (doc["phase"], doc["clock_ms"], doc["running"], doc["result"]) == (
        "period", 100_000, False, None)


def test_end_during_a_break_and_undo_while_the_break_still_runs() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(End(S(1210)))
    assert g.at(1211)["phase"] == "period"
    g.do(Undo(S(1215)))
    doc = g.at(1220)
    assert (doc["phase"], doc["clock_ms"], doc["running"]) == ("intermission", 40_000, True)


def test_undo_of_an_end_is_refused_once_the_next_period_has_begun() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(End(S(600)))
    g.do(Start(S(610)))
    g.do(Undo(S(620)))
    assert len(g.refusals) == 1 and "the game has moved on" in g.refusals[0]


def test_forfeit_records_0_5_whatever_the_score_and_undo_restores() -> None:
    # Rules 000 'Rules' and rules 001 "Player's start": a technical loss 0:5.
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(Goal(S(50), HOME))
    g.do(Forfeit(S(100), HOME))
    doc = g.at(101)
    assert doc["phase"] == "final"
    assert doc["score"] == {"home": 1, "away": 0}
    assert doc["result"] == {"home": 0, "away": 5, "decided_by": "forfeit"}
    g.do(Undo(S(110)))
    doc = g.at(111)
    assert (doc["phase"], doc["clock_ms"], doc["running"], doc["result"]) == (
        "period", 800_000, False, None)


def test_forfeit_in_pregame_when_a_team_does_not_come() -> None:
    # Rules 000: a team not ready 5 minutes before: technical loss 0:5.
    g = Game("ice-hockey-2x20")
    g.do(Forfeit(S(1), AWAY))
    assert g.at(2)["result"] == {"home": 5, "away": 0, "decided_by": "forfeit"}


def test_undo_of_a_goal_that_decided_a_playoff_sends_the_tie_on_to_its_decision() -> None:
    g = Game("ice-hockey-2x20", Stage.PLAYOFF)
    g.do(Start(0))
    g.do(Goal(S(100), HOME))
    g.do(Start(S(1260)))
    assert g.at(2460)["result"] == {"home": 1, "away": 0, "decided_by": "regulation"}
    g.do(Undo(S(2500)))  # the goal is disallowed after the final horn
    doc = g.at(2501)
    assert (doc["phase"], doc["result"]) == ("shootout", None)


def test_undo_reverts_one_step_per_press_most_recent_first() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(Goal(S(10), HOME))
    g.do(Goal(S(20), AWAY))
    g.do(Goal(S(30), AWAY))
    g.do(Undo(S(40)))
    assert g.at(41)["score"] == {"home": 1, "away": 1}
    g.do(Undo(S(50)))
    assert g.at(51)["score"] == {"home": 1, "away": 0}
    g.do(Undo(S(60)))
    g.do(Undo(S(70)))
    assert g.refusals == ["undo refused: there is nothing to undo"]
    undone = [e for e in g.events if e.kind is EventKind.UNDONE]
    assert [e.data["what"] for e in undone] == ["goal", "goal", "goal"]


def test_manual_horn_sounds_while_held_and_is_capped() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Horn(S(5), on=True))
    assert g.at(6)["horn"] is True
    g.do(Horn(S(7), on=False))
    assert g.at(7)["horn"] is False
    g.do(Horn(S(20), on=True))
    assert g.at(29.9)["horn"] is True
    assert g.at(30)["horn"] is False  # capped at 10 s: a stuck button cannot deafen the hall
    g.do(Horn(S(45), on=False))  # the late release changes nothing
    assert g.refusals == []


@pytest.mark.parametrize(
    ("setup", "command", "reason"),
    [
        ([], Stop(S(1)), "stop refused: the clock is already stopped"),
        ([Start(0)], Start(S(1)), "start refused: the clock is already running"),
        ([], Goal(S(1), HOME), "goal refused: no goal can be scored in the pregame phase"),
        ([], Next(S(1)), "next refused: nothing follows the pregame phase by itself; press start"),
        ([Start(0)], Next(S(1)), "next refused: the clock is running: stop it first"),
        ([], End(S(1)), "end refused: there is no period or break to end in the pregame phase"),
        ([Start(0)], Stop(S(1250)), "stop refused: the break clock runs by itself"),
        ([Forfeit(0, HOME)], Goal(S(1), HOME), "goal refused: no goal can be scored in the final"),
        ([Forfeit(0, HOME)], Forfeit(S(1), AWAY), "forfeit refused: the match is already over"),
        ([Forfeit(0, HOME)], Start(S(1)), "start refused: there is no game clock in the final"),
        ([], SetClock(S(1), ms=0), "set_clock refused: the first period cannot start at zero"),
    ],
)
def test_illegal_commands_are_refused_precisely_and_change_nothing(
    setup: list[object], command: object, reason: str
) -> None:
    g = Game("ice-hockey-2x20")
    for c in setup:
        g.do(c)  # type: ignore[arg-type]
    g.match.advance(command.at)  # type: ignore[attr-defined]
    before = g.match.state
    with pytest.raises(Refused) as err:
        g.match.apply(command)  # type: ignore[arg-type]
    assert str(err.value).startswith(reason)
    assert g.match.state is before


def test_apply_insists_on_advancing_first() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    with pytest.raises(ValueError, match="advance"):
        g.match.apply(Goal(S(1300), HOME))


def test_events_are_numbered_gaplessly_and_in_time_order() -> None:
    g = Game("youth-hockey-3x18")
    for t in (0, 1680, 2960):
        g.do(Start(S(t)))
    g.do(Goal(S(3000), HOME))
    g.at(5000)
    assert [e.seq for e in g.events] == list(range(1, len(g.events) + 1))
    assert [e.at for e in g.events] == sorted(e.at for e in g.events)


def test_display_deadline_is_the_next_shown_change() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    assert g.match.display_deadline(S(0.25)) == S(1)
    g.do(Horn(S(2.5), on=True))
    g.do(Horn(S(2.7), on=False))
    assert g.match.display_deadline(S(2.6)) == S(2.7)  # the horn switching off
    assert g.match.display_deadline(S(1199.95)) == S(1200)


def test_undo_of_a_break_end_is_refused_once_the_next_period_has_started() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(End(S(1210)))  # the break ended early; period 2 waits
    g.do(Start(S(1215)))
    g.do(Undo(S(1500)))
    assert g.refusals and "the game has moved on" in g.refusals[0]
    assert g.at(1500)["clock_ms"] == 1_200_000 - 285_000  # period 2's play is kept


def test_a_forfeit_during_a_break_stops_the_break_clock() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(Forfeit(S(1230), Team.AWAY))
    doc = g.at(1240)
    assert (doc["phase"], doc["running"], doc["clock_ms"]) == ("final", False, 30_000)
    assert g.match.display_deadline(S(1240)) is None
    g.do(Undo(S(1245)))  # the break comes back as if never interrupted
    doc = g.at(1250)
    assert (doc["phase"], doc["running"], doc["clock_ms"]) == ("intermission", True, 10_000)


def test_display_deadline_includes_penalty_and_time_out_seconds() -> None:
    # A penalty given half a second off the clock's seconds changes its shown M:SS in between.
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(Penalty(S(10.5), Team.HOME, 7, "minor"))
    assert g.match.display_deadline(S(11)) == S(11.5)
    assert g.match.display_deadline(S(11.5)) == S(12)
    t = Game("floorball-2x20", Stage.PLAYOFF)
    t.do(Start(0))
    t.do(Stop(S(100.3)))
    t.do(Timeout(S(100.6), Team.HOME))
    assert t.match.display_deadline(S(101)) == S(101.6)  # the stopped clock changes nothing


def test_a_change_after_the_final_re_emits_the_whole_record_last() -> None:
    """A match penalty given at the final horn must reach the office's suspensions: the last
    event of a match always carries its complete record (rules 000 'Penalties' 4)."""
    g = Game("ice-hockey-2x20")
    g.do(Start(at=S(0)))
    t = 1
    while g.match.state.phase is not Phase.FINAL:
        g.do(End(at=S(t)))
        t += 1
    events = g.do(Penalty(at=S(t), team=Team.HOME, player=4, kind="match"))
    assert events[-1].kind is EventKind.MATCH_ENDED
    assert events[-1].data["amended"] is True
    record = events[-1].data["record"]
    assert [(p["player"], p["kind"]) for p in record["penalties"]] == [(4, "match")]
    events = g.do(Undo(at=S(t + 1)))
    assert events[-1].kind is EventKind.MATCH_ENDED
    assert events[-1].data["record"]["penalties"] == []


def test_the_state_document_names_the_scorer_for_a_few_seconds_after_a_goal() -> None:
    """The hall display shows who scored (docs/technician.md, "The hall display"): the document
    carries ``goal`` from the press for GOAL_SHOWN, and the display gets a frame when it goes."""
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(Stop(S(100)))
    g.do(Goal(S(100.4), Team.AWAY, 17))
    assert "goal" not in g.at(100.3)
    assert g.at(100.4)["goal"] == {"team": "away", "player": 17}
    shown_until = S(100.4) + GOAL_SHOWN
    assert g.match.display_deadline(S(101)) == shown_until  # the stopped clock: nothing else
    assert g.at(str(Decimal(shown_until - 1) / 10**9))["goal"]["player"] == 17
    assert "goal" not in g.at(str(Decimal(shown_until) / 10**9))
    g.do(Goal(S(200), Team.HOME, None))
    assert g.at(201)["goal"] == {"team": "home", "player": None}
    g.do(Undo(S(202)))
    assert "goal" not in g.at(202)  # an undone goal leaves the screen at once


def test_the_scorers_name_comes_from_his_teams_roster_and_only_from_it() -> None:
    """After a goal the scorer's number and, when the roster has one, his name.
    The name is looked up in the scoring side's roster alone (the other side's #9 is
    another player); a number not in it, or none, leaves ``goal`` as it always was."""
    setup = MatchSetup(
        match_id="T1",
        home=TeamInfo("Lions", ("#10233f", "#ffffff"), roster=((9, "A. Nine"), (17, "H. Home"))),
        away=TeamInfo("Bears", ("#f2f2f2", "#10233f"), roster=((17, "B. Seventeen"),)))
    g = Game("ice-hockey-2x20", setup=setup)
    g.do(Start(0))
    g.do(Stop(S(100)))
    g.do(Goal(S(100), Team.AWAY, 17))
    assert g.at(101)["goal"] == {"team": "away", "player": 17, "name": "B. Seventeen"}
    g.do(Goal(S(120), Team.AWAY, 9))  # home's #9 has a name; away's has none
    assert g.at(121)["goal"] == {"team": "away", "player": 9}
    g.do(Goal(S(140), Team.HOME, None))
    assert g.at(141)["goal"] == {"team": "home", "player": None}
    scored = g.do(Goal(S(160), Team.HOME, 8))
    g.do(Correct(S(161), scored[0].seq, 9))  # the right number: its name with it
    assert g.at(162)["goal"] == {"team": "home", "player": 9, "name": "A. Nine"}
    plain = Game("ice-hockey-2x20")
    plain.do(Start(0))
    plain.do(Goal(S(5), Team.HOME, 9))
    assert plain.at(6)["goal"] == {"team": "home", "player": 9}
