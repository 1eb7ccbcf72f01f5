"""Cancel and correct one earlier record (not only the last): new audited events, never
erasures (docs/developer.md 2, rule 3). A cancel works out its consequences as undo does; a
correction changes only the number. Rules cited where they apply."""

from __future__ import annotations

from typing import Any

from arena.core.commands import (
    Cancel,
    Correct,
    End,
    Goal,
    Penalty,
    Shot,
    Start,
    Stop,
    Undo,
)
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


def seq_of(g: Game, kind: EventKind, **data: Any) -> int:
    return next(e.seq for e in g.events
                if e.kind is kind and all(e.data.get(k) == v for k, v in data.items()))


def record(g: Game) -> dict[str, Any]:
    return next(e for e in reversed(g.events) if e.kind is EventKind.MATCH_ENDED).data["record"]


def test_cancelling_a_running_penalty_mid_list_starts_the_waiting_one_at_once() -> None:
    # IIHF (delayed penalties): at most two serve at once; the third starts the instant a
    # place frees. A cancelled penalty frees its place at the cancel, as undo's does.
    g = hockey()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    g.do(Penalty(S(130), HOME, 8, "minor"))
    g.do(Penalty(S(140), HOME, 9, "minor"))
    seven = seq_of(g, EventKind.PENALTY, player=7)
    g.do(Goal(S(145), HOME, 3))  # later actions do not stop a cancel of an earlier one
    events = g.do(Cancel(S(150), seven))
    assert [e.kind for e in events] == [EventKind.PENALTY_STARTED, EventKind.CANCELLED]
    assert events[-1].data == {"cancelled_seq": seven, "what": "penalty", "team": "home",
                               "player": 7, "score": {"home": 1, "away": 0},
                               "phase": "period", "clock_ms": 1_050_000}
    doc = g.at(160)
    assert box(doc, "home") == [(8, "minor", 90_000, True), (9, "minor", 110_000, True)]
    assert g.refusals == []


def test_cancelling_a_waiting_penalty_leaves_the_running_ones_alone() -> None:
    g = hockey()
    for at, player in ((100, 7), (130, 8), (140, 9)):
        g.do(Penalty(S(at), HOME, player, "minor"))
    g.do(Cancel(S(150), seq_of(g, EventKind.PENALTY, player=9)))
    assert box(g.at(160), "home") == [(7, "minor", 60_000, True), (8, "minor", 90_000, True)]
    g.do(Stop(S(170)))
    g.do(End(S(171)))
    g.at(1300)
    g.do(Start(S(1300)))
    g.do(End(S(1301)))
    rec = record(g)
    assert [p["player"] for p in rec["penalties"]] == [7, 8]
    assert rec["penalty_minutes"] == {"home": 4, "away": 0}


def test_a_cancelled_goal_brings_back_the_minor_it_released_ending_when_it_would_have() -> None:
    # IIHF rule 16 / appendix IV table 14 (rules 000 'Penalties'): a goal against a
    # shorthanded team ends its minor. The goal is struck: the minor was never ended, so it
    # ends at the game time it would have (undo, just after the goal, gives the time left).
    g = hockey()
    g.do(Penalty(S(100), AWAY, 11, "minor"))  # ends at game time 220 s
    g.do(Goal(S(160), HOME, 9))
    assert g.at(161)["penalties"]["away"] == []
    g.do(Stop(S(170)))
    goal = seq_of(g, EventKind.GOAL, player=9)
    g.do(Cancel(S(300), goal))
    doc = g.at(301)
    assert doc["score"] == {"home": 0, "away": 0}
    assert box(doc, "away") == [(11, "minor", 50_000, True)] and doc["strength"]["away"] == 4
    g.do(Start(S(400)))
    assert g.at(450)["penalties"]["away"] == []  # served to its end at 220 s of game time
    assert g.at(449)["strength"]["away"] == 5


def test_a_released_minor_whose_time_is_over_by_the_cancel_ends_at_once() -> None:
    g = hockey()
    g.do(Penalty(S(100), AWAY, 11, "minor"))
    g.do(Goal(S(160), HOME, 9))
    goal = seq_of(g, EventKind.GOAL, player=9)
    events = g.do(Cancel(S(400), goal))  # game time 400 s: the minor would be long over
    ended = [e for e in events if e.kind is EventKind.PENALTY_ENDED]
    assert len(ended) == 1 and ended[0].data["how"] == "expired"
    assert g.at(401)["penalties"]["away"] == []


def test_a_goal_of_an_earlier_period_is_cancelled_in_the_next() -> None:
    g = hockey()
    g.do(Goal(S(100), HOME, 9))
    g.do(Goal(S(200), AWAY, 4))
    goal = seq_of(g, EventKind.GOAL, player=9)
    g.at(1201)  # the period is over: intermission
    g.do(Start(S(1260)))
    g.do(Cancel(S(1300), goal))
    assert g.at(1301)["score"] == {"home": 0, "away": 1} and g.refusals == []


def test_a_golden_goal_cancelled_reopens_overtime_as_its_undo_would() -> None:
    # Rules 002 'Overtime': 6 min or until a golden goal.
    g = Game("youth-hockey-3x18")
    g.do(Start(0))
    for n in range(3):
        g.do(End(S(10 + n)))
        if n < 2:
            g.do(Start(S(10.5 + n)))
    assert g.at(20)["phase"] == "overtime_break"
    g.do(Start(S(31)))  # ends the break early: overtime's clock starts at once
    g.do(Goal(S(91), AWAY, 17))
    assert g.at(92)["phase"] == "final"
    g.do(Cancel(S(100), seq_of(g, EventKind.GOAL, player=17)))
    doc = g.at(101)
    assert doc["phase"] == "overtime" and doc["score"] == {"home": 0, "away": 0}
    assert doc["clock_ms"] == 300_000 and not doc["running"]


def test_a_regulation_goal_is_not_cancelled_once_overtime_has_begun() -> None:
    g = Game("youth-hockey-3x18")
    g.do(Start(0))
    g.do(Goal(S(5), HOME, 3))
    g.do(Goal(S(6), AWAY, 4))
    for n in range(3):
        g.do(End(S(10 + n)))
        if n < 2:
            g.do(Start(S(10.5 + n)))
    g.do(Start(S(30)))
    g.do(Cancel(S(40), seq_of(g, EventKind.GOAL, player=3)))
    assert g.refusals == ["cancel refused: the goal was scored before the overtime phase and "
                          "the score decided how the game went on; the office corrects the "
                          "result"]


def test_after_the_final_horn_a_group_goal_is_cancelled_and_the_record_amended() -> None:
    g = hockey()
    g.do(Goal(S(100), HOME, 9))
    g.do(Goal(S(200), HOME, 10))
    g.do(End(S(300)))
    g.do(Start(S(400)))
    g.do(End(S(500)))
    assert g.at(501)["result"] == {"home": 2, "away": 0, "decided_by": "regulation"}
    events = g.do(Cancel(S(600), seq_of(g, EventKind.GOAL, player=10)))
    assert [e.kind for e in events] == [EventKind.CANCELLED, EventKind.MATCH_ENDED]
    assert events[-1].data["amended"] is True
    assert events[-1].data["result"] == {"home": 1, "away": 0, "decided_by": "regulation"}
    assert [goal["player"] for goal in record(g)["goals"]] == [9]


def test_a_cancel_that_would_tie_a_decided_playoff_is_refused() -> None:
    # Rules 000 'The winning goal race': a tie in a ranking match goes to the winning shots;
    # the board cannot replay that, the office corrects the result.
    g = hockey(Stage.PLAYOFF)
    g.do(Goal(S(100), HOME, 9))
    g.do(End(S(300)))
    g.do(Start(S(400)))
    g.do(End(S(500)))
    g.do(Cancel(S(600), seq_of(g, EventKind.GOAL, player=9)))
    assert g.refusals == ["cancel refused: without the goal the game is tied and the rules "
                          "decide a tie in overtime or a shootout; the office corrects the "
                          "result"]
    assert g.at(601)["result"]["home"] == 1


def test_precise_refusals_of_cancel_and_correct() -> None:
    g = hockey()
    g.do(Goal(S(100), HOME, 9))
    goal = seq_of(g, EventKind.GOAL, player=9)
    g.do(Goal(S(110), HOME, 8))
    undone = seq_of(g, EventKind.GOAL, player=8)
    g.do(Undo(S(111)))
    latest = g.match.state.seq
    g.do(Cancel(S(120), 99))
    g.do(Correct(S(121), 1, 5))  # event 1: the period started
    g.do(Cancel(S(122), undone))
    g.do(Correct(S(123), goal, 9))
    g.do(Cancel(S(124), goal))
    g.do(Cancel(S(125), goal))
    g.do(Correct(S(126), goal, 4))
    assert g.refusals == [
        f"cancel refused: there is no event 99 in this match (the latest is {latest})",
        "correct refused: event 1 is not a goal or a penalty on record (another event, or "
        "one taken back by undo)",
        f"cancel refused: event {undone} is not a goal or a penalty on record (another "
        "event, or one taken back by undo)",
        f"correct refused: event {goal} already has #9",
        f"cancel refused: event {goal} was cancelled already",
        f"correct refused: event {goal} was cancelled already",
    ]


def test_undo_after_a_cancel_takes_back_the_latest_action_still_standing() -> None:
    g = hockey()
    g.do(Goal(S(100), HOME, 9))
    g.do(Goal(S(110), AWAY, 4))
    g.do(Cancel(S(120), seq_of(g, EventKind.GOAL, player=9)))
    g.do(Undo(S(130)))
    assert g.at(131)["score"] == {"home": 0, "away": 0}
    g.do(Undo(S(140)))  # nothing is left to undo: the cancelled goal is not brought back
    assert g.refusals == ["undo refused: there is nothing to undo"]


def test_correcting_a_scorer_or_a_player_changes_only_the_number_in_any_phase() -> None:
    g = hockey()
    g.do(Goal(S(100), HOME, 9))
    g.do(Penalty(S(150), AWAY, 11, "minor"))
    pen = seq_of(g, EventKind.PENALTY, player=11)
    goal = seq_of(g, EventKind.GOAL, player=9)
    before = g.at(151)
    events = g.do(Correct(S(152), pen, 21))
    assert events[-1].data == {"corrected_seq": pen, "what": "penalty", "team": "away",
                               "player": 21, "was": 11}
    doc = g.at(153)
    assert [p["player"] for p in doc["penalties"]["away"]] == [21]
    assert doc["strength"] == before["strength"] and doc["score"] == before["score"]
    g.do(End(S(300)))
    g.do(Start(S(400)))
    g.do(End(S(500)))
    events = g.do(Correct(S(600), goal, 19))  # after the final horn: the record is amended
    assert events[-1].kind is EventKind.MATCH_ENDED and events[-1].data["amended"] is True
    rec = record(g)
    assert [x["player"] for x in rec["goals"]] == [19]
    assert [x["player"] for x in rec["penalties"]] == [21]
    assert rec["result"] == {"home": 1, "away": 0, "decided_by": "regulation"}
    assert g.refusals == []


def shootout_with_a_barred_player() -> tuple[Game, int]:
    # Rules 002 'Penalty shots' 2: a player whose penalty had not expired when overtime ended
    # may not shoot.
    g = Game("youth-hockey-3x18")
    g.do(Start(0))
    for n in range(3):
        g.do(End(S(10 + n)))
        if n < 2:
            g.do(Start(S(10.5 + n)))
    g.do(Start(S(31)))  # ends the break early: overtime's clock starts at once
    g.do(Penalty(S(40), HOME, 12, "major"))
    pen = seq_of(g, EventKind.PENALTY, player=12)
    g.do(End(S(50)))
    assert g.at(51)["phase"] == "shootout"
    return g, pen


def test_a_penalty_that_bars_a_shooter_is_not_cancelled_once_the_shootout_is_on() -> None:
    g, pen = shootout_with_a_barred_player()
    g.do(Cancel(S(60), pen))
    assert g.refusals == ["cancel refused: the penalty bars #12 from the shootout, which has "
                          "begun; the office corrects the record"]


def test_correcting_a_barred_players_number_moves_the_bar_to_the_right_player() -> None:
    g, pen = shootout_with_a_barred_player()
    g.do(Correct(S(60), pen, 21))
    g.do(Shot(S(61), HOME, scored=True, player=12))  # #12 was never penalised: he may shoot
    g.do(Shot(S(62), AWAY, scored=False, player=5))
    g.do(Shot(S(63), HOME, scored=True, player=21))
    assert len(g.refusals) == 1 and "21" in g.refusals[0]
