"""IFF Rules of the Game 2022, 603 to 609 (and the 601, 613 and 614 sentences they lean on),
sentence by sentence, on the floorball presets: each test names the sentence it shows.

docs/developer.md's table "IFF 603 to 609, checked against the floorball presets" lists which
sentences a scoreboard can apply and points here (or to the older tests beside this file).
"""

from __future__ import annotations

from typing import Any

from arena.core.commands import End, Goal, Penalty, Shot, Start, Stop
from arena.core.events import EventKind
from arena.core.phase import Phase, Stage, Team

from .helpers import Game, S

HOME, AWAY = Team.HOME, Team.AWAY


def box(doc: dict[str, Any], team: str = "home") -> list[tuple[int, str, int, bool]]:
    return [(p["player"], p["kind"], p["remaining_ms"], p["running"])
            for p in doc["penalties"][team]]


def floorball(stage: Stage = Stage.GROUP) -> Game:
    g = Game("floorball-2x15", stage)
    g.do(Start(0))
    return g


def ended(g: Game) -> list[tuple[int, int, str]]:
    """(instant, player, how) of every penalty part that ended, in order."""
    return [(e.at, e.data["player"], e.data["how"]) for e in g.events
            if e.kind is EventKind.PENALTY_ENDED]


def test_iff_603_1_and_2_a_bench_penalty_is_two_minutes_and_the_team_plays_one_short(
) -> None:
    # 603.1: a bench penalty lasts 2 minutes; 603.2: it affects the team, the penalised
    # player is not replaced on the rink (five field players less one).
    g = floorball()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    doc = g.at(160)
    assert box(doc) == [(7, "minor", 60_000, True)]
    assert doc["strength"] == {"home": 4, "away": 5}
    doc = g.at(220)
    assert doc["penalties"]["home"] == [] and doc["strength"]["home"] == 5
    assert ended(g) == [(S(220), 7, "expired")]


def test_iff_601_4_penalty_time_is_game_time_over_a_stoppage_and_the_break() -> None:
    # 601.4: penalty time is synchronised to game time: it stands while the clock is
    # stopped and in the break, and the rest is served in the next period.
    g = floorball()
    g.do(Penalty(S(800), AWAY, 11, "minor"))  # 100 s before the end of period 1
    g.do(Stop(S(850)))
    assert box(g.at(900), "away") == [(11, "minor", 70_000, True)]
    g.do(Start(S(950)))
    doc = g.at(1000)  # period 1 ended at 1000 s: 20 s left, carried over the break
    assert doc["phase"] == "intermission"
    assert box(doc, "away") == [(11, "minor", 20_000, True)]
    assert doc["strength"]["away"] == 4
    g.do(Start(S(1200)))
    assert box(g.at(1210), "away") == [(11, "minor", 10_000, True)]
    assert g.at(1220)["penalties"]["away"] == []


def test_iff_603_3_and_4_a_third_waits_and_four_stay_on_the_rink() -> None:
    # 603.3: no more than two bench penalties of a team are measured at once, in the order
    # imposed; 603.4: with more than two carried out the team still plays with four on the
    # rink (three field players and the goalkeeper) until only one is being measured.
    g = floorball()
    g.do(Penalty(S(10), HOME, 4, "minor"))   # 10-130 s
    g.do(Penalty(S(20), HOME, 5, "minor"))   # 20-140 s
    g.do(Penalty(S(30), HOME, 6, "minor"))   # waits for a place: 130-250 s
    doc = g.at(31)
    assert [(p[0], p[3]) for p in box(doc)] == [(4, True), (5, True), (6, False)]
    assert doc["strength"]["home"] == 3
    assert g.at(135)["strength"]["home"] == 3  # #6 took #4's place at 130 s
    assert box(g.at(135)) == [(5, "minor", 5_000, True), (6, "minor", 115_000, True)]
    assert g.at(145)["strength"]["home"] == 4  # only #6's is measured now
    assert g.at(250)["strength"]["home"] == 5
    assert ended(g) == [(S(130), 4, "expired"), (S(140), 5, "expired"),
                        (S(250), 6, "expired")]


def test_iff_603_5_any_number_of_a_players_bench_penalties_run_one_after_another() -> None:
    # 603.5: an unlimited number of bench penalties can be imposed on one player; they are
    # served consecutively, one measured at a time (603.3), a started one going on unaffected.
    g = floorball()
    for at in (10, 20, 30, 40):
        g.do(Penalty(S(at), HOME, 5, "minor"))
    doc = g.at(60)
    assert [(p[2], p[3]) for p in box(doc)] == [(70_000, True), (120_000, False),
                                                (120_000, False), (120_000, False)]
    assert doc["strength"]["home"] == 4  # one player, one place
    g.at(500)
    assert ended(g) == [(S(130), 5, "expired"), (S(250), 5, "expired"),
                        (S(370), 5, "expired"), (S(490), 5, "expired")]


def test_iff_604_a_goal_ends_one_minor_of_the_team_playing_short_one_per_goal() -> None:
    # 604: a goal against the team playing short ends its minor bench penalty; one penalty
    # per goal (the one with the least time left, as the board chooses: see docs/developer.md).
    g = floorball()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    g.do(Penalty(S(130), HOME, 8, "minor"))
    g.do(Goal(S(150), AWAY, 11))
    doc = g.at(151)
    assert box(doc) == [(8, "minor", 99_000, True)]
    assert doc["strength"] == {"home": 4, "away": 5}
    g.do(Goal(S(160), AWAY, 12))
    assert g.at(161)["penalties"]["home"] == []
    assert ended(g) == [(S(150), 7, "released"), (S(160), 8, "released")]


def test_iff_604_a_goal_ends_nothing_when_the_scorers_are_not_more_on_the_rink() -> None:
    # 604: only the team playing with fewer players has its minor ended; with one penalised
    # on each side (four against four) a goal ends nothing, nor does the short team's own.
    g = floorball()
    g.do(Penalty(S(100), HOME, 7, "minor"))
    g.do(Penalty(S(100), AWAY, 4, "minor"))
    g.do(Goal(S(150), AWAY, 11))
    doc = g.at(151)
    assert len(box(doc, "home")) == 1 and len(box(doc, "away")) == 1
    g2 = floorball()
    g2.do(Penalty(S(100), HOME, 7, "minor"))
    g2.do(Goal(S(150), HOME, 9))
    assert box(g2.at(151)) == [(7, "minor", 69_000, True)]


def test_iff_606_a_major_bench_penalty_is_five_minutes_and_a_goal_does_not_end_it() -> None:
    # 606: a major bench penalty (five fingers, 808) is served in full: goals against the
    # team playing short do not end it.
    g = floorball()
    g.do(Penalty(S(100), HOME, 9, "major"))
    g.do(Goal(S(150), AWAY))
    g.do(Goal(S(200), AWAY))
    doc = g.at(201)
    assert box(doc) == [(9, "major", 199_000, True)]
    assert doc["strength"]["home"] == 4
    g.at(400)
    assert ended(g) == [(S(400), 9, "expired")]


def test_iff_603_5_a_personal_penalty_waits_for_his_major_and_is_not_ended_by_goals(
) -> None:
    # 603.5: the personal penalty starts only when all his bench penalties have expired;
    # 609.2: a goal does not end it; a personal penalty changes no strength (glossary).
    g = floorball()
    g.do(Penalty(S(100), HOME, 9, "minor"))
    g.do(Penalty(S(100), HOME, 9, "personal"))
    g.do(Penalty(S(110), HOME, 9, "major"))
    assert [(p[1], p[3]) for p in box(g.at(111))] == [
        ("minor", True), ("personal", False), ("major", False)]
    g.at(221)  # his minor ended at 220 s: the major, a bench penalty, comes before
    assert [(p[1], p[3]) for p in box(g.at(221))] == [("major", True), ("personal", False)]
    g.do(Goal(S(300), AWAY))  # neither the major (606) nor the personal penalty ends
    doc = g.at(520)
    assert box(doc) == [(9, "personal", 600_000, True)]
    assert doc["strength"]["home"] == 5
    g.do(Goal(S(600), AWAY))
    assert box(g.at(600)) == [(9, "personal", 520_000, True)]
    doc = g.at(1000)  # period 1 ended at 900 s: the rest waits for period 2 (601.4)
    assert doc["phase"] == "intermission" and box(doc) == [(9, "personal", 220_000, True)]


def test_iff_613_614_a_match_penalty_is_five_minutes_short_and_the_player_is_gone() -> None:
    # 614 (and 611.1 for the technical one): a match penalty is followed by a major bench
    # penalty, served by a team-mate: five minutes short, never ended by a goal; the
    # offender takes no further part, penalty shots included (608; bar_ejected).
    g = floorball()
    g.do(Penalty(S(100), HOME, 9, "match"))
    given = next(e for e in g.events if e.kind is EventKind.PENALTY)
    assert given.data["ejected"] is True and given.data["minutes"] == 25
    g.do(Goal(S(150), AWAY))
    doc = g.at(151)
    assert box(doc) == [(9, "match", 249_000, True)] and doc["strength"]["home"] == 4
    assert g.at(400)["strength"]["home"] == 5


def test_iff_608_a_match_penalty_before_the_match_bars_the_player_but_no_one_sits() -> None:
    # 608: an offence before the match leading to a match penalty is reported and the
    # offender takes no part in the match, extra time and penalty shots included, but no
    # bench penalty is imposed (the preset's ejection_only_outside_match).
    g = Game("floorball-2x20", Stage.PLAYOFF)
    g.do(Penalty(0, HOME, 9, "match"))
    g.do(Start(S(10)))
    doc = g.at(20)
    assert doc["penalties"]["home"] == [] and doc["strength"]["home"] == 5
    assert [e.kind for e in g.events].count(EventKind.PENALTY_STARTED) == 0
    g.at(1210)  # period 1 over
    g.do(Start(S(1330)))
    assert g.at(2530)["phase"] == "shootout"  # 0:0 in a play-off: penalty shots
    g.do(Shot(S(2540), HOME, True, 9))
    assert g.refusals and g.refusals[-1].endswith("sent off for the rest of the game (match)")
    record = next(e for e in g.events if e.kind is EventKind.PENALTY)
    assert record.data["ejected"] is True



def test_iff_608_a_match_penalty_after_the_match_is_recorded_with_no_time_to_serve() -> None:
    # 608: an offence after the match that leads to a match penalty is reported (the amended
    # record, for the office's suspensions) but no bench penalty is imposed.
    g = Game("floorball-2x15")
    g.do(Start(0))
    t = 1
    while g.match.state.phase is not Phase.FINAL:
        g.do(End(S(t)))
        t += 1
    events = g.do(Penalty(S(t), AWAY, 8, "match"))
    assert events[-1].kind is EventKind.MATCH_ENDED and events[-1].data["amended"] is True
    assert [(p["player"], p["ejected"]) for p in events[-1].data["record"]["penalties"]] \
        == [(8, True)]
    assert [e.kind for e in g.events].count(EventKind.PENALTY_STARTED) == 0


def test_a_floorball_double_minor_serves_like_two_minors_of_one_player() -> None:
    # Not in the IFF 2022 text read (603.1: a bench penalty is 2 minutes): double_minor is
    # served as 603.5 and 604 serve two minors of one player: the second starts when the
    # first expires or terminates, and a goal ends only the one running.
    two, one = floorball(), floorball()
    two.do(Penalty(S(100), HOME, 5, "minor"))
    two.do(Penalty(S(100), HOME, 5, "minor"))
    one.do(Penalty(S(100), HOME, 5, "double_minor"))
    for g in (two, one):
        g.do(Goal(S(160), AWAY))
        assert g.at(161)["strength"]["home"] == 4
        assert sum(p[2] for p in box(g.at(161))) == 119_000
        assert g.at(280)["penalties"]["home"] == [] and g.at(280)["strength"]["home"] == 5
    assert [e[0] for e in ended(two)] == [e[0] for e in ended(one)] == [S(160), S(280)]
