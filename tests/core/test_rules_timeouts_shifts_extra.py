"""Time-outs (rules 001), youth hockey line changes (rules 002) and the football P10 extra
player (rules 003), checked through the state document (docs/developer.md 4.3), the events and the
refusals. Each test cites its rule."""

from __future__ import annotations

from typing import Any

import pytest

from arena.core.commands import Goal, Start, Stop, Timeout, Undo
from arena.core.events import Event, EventKind
from arena.core.phase import Stage, Team

from .helpers import Game, S

HOME, AWAY = Team.HOME, Team.AWAY

# ---------------------------------------------------------------- time-outs (rules 001)


def playoff_stopped(preset: str = "floorball-2x20") -> Game:
    """A play-off match, the clock stopped at 100 s (1 100 000 ms left in period 1)."""
    g = Game(preset, Stage.PLAYOFF)
    g.do(Start(0))
    g.do(Stop(S(100)))
    return g


def of_kind(g: Game, kind: EventKind) -> list[Event]:
    return [e for e in g.events if e.kind is kind]


@pytest.mark.parametrize("preset", ["floorball-2x15", "floorball-2x20", "floorball-u9-2x10"])
def test_a_playoff_time_out_counts_30_s_and_the_horn_sounds_2_s_from_its_end(
    preset: str,
) -> None:
    # Rules 001 'Time-out': allowed in play-off matches (30 s with the clock stopped, IFF 202,
    # as the preset says).
    g = playoff_stopped(preset)
    length_ms = g.match.preset.period_length // 10**6
    g.do(Timeout(S(110), HOME))
    assert g.refusals == []
    assert g.at(110)["timeout"] == {"team": "home", "remaining_ms": 30_000}
    doc = g.at(120)
    assert doc["timeout"] == {"team": "home", "remaining_ms": 20_000}
    assert (doc["clock_ms"], doc["running"], doc["horn"]) == (length_ms - 100_000, False, False)
    doc = g.at(139.999)
    assert (doc["timeout"], doc["horn"]) == ({"team": "home", "remaining_ms": 1}, False)
    doc = g.at(140)
    assert (doc["timeout"], doc["horn"]) == (None, True)
    assert g.at(141.999)["horn"] is True
    doc = g.at(142)
    assert (doc["horn"], doc["clock_ms"], doc["running"]) == (False, length_ms - 100_000, False)
    [ended] = of_kind(g, EventKind.TIMEOUT_ENDED)
    assert (ended.at, ended.data["team"], ended.data["early"]) == (S(140), "home", False)
    horns = [e for e in of_kind(g, EventKind.HORN) if e.data["reason"] == "timeout_end"]
    assert [(e.at, e.data["length_ms"]) for e in horns] == [(S(140), 2000)]


@pytest.mark.parametrize("preset", ["floorball-2x15", "floorball-2x20", "floorball-u9-2x10"])
def test_a_time_out_in_the_group_stage_is_refused_and_nothing_changes(preset: str) -> None:
    # Rules 001 'Time-out': time-out cannot be taken in the group matches.
    g = Game(preset, Stage.GROUP)
    g.do(Start(0))
    g.do(Stop(S(100)))
    g.match.advance(S(110))
    before = g.match.state
    events = len(g.events)
    g.do(Timeout(S(110), AWAY))
    assert g.match.state is before
    assert len(g.events) == events
    assert len(g.refusals) == 1
    message = g.refusals[0]
    assert message.startswith("timeout refused")
    assert "group" in message and "play" in message and "only" in message
    assert g.at(120)["timeout"] is None


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        ([Start(0)], ("clock", "stopped")),  # the clock runs
        ([], ("pregame",)),  # no period under way
        ([Start(0), Stop(S(1))], ()),  # accepted: stopped in a period
    ],
)
def test_a_time_out_is_taken_only_with_the_game_clock_stopped_in_a_period(
    setup: list[Any], words: tuple[str, ...]
) -> None:
    # Rules 001 'Time-out' (play-offs only); IFF 202: taken during a stoppage of play.
    g = Game("floorball-2x20", Stage.PLAYOFF)
    for command in setup:
        g.do(command)
    g.do(Timeout(S(10), HOME))
    if not words:
        assert g.refusals == []
        assert g.at(10)["timeout"] == {"team": "home", "remaining_ms": 30_000}
        return
    assert len(g.refusals) == 1
    assert all(word in g.refusals[0] for word in words), g.refusals[0]
    assert g.at(10)["timeout"] is None


def test_no_time_out_during_the_intermission() -> None:
    # Rules 001 'Time-out'; IFF 202: a time-out interrupts the game, not a break.
    g = Game("floorball-2x20", Stage.PLAYOFF)
    g.do(Start(0))
    g.do(Timeout(S(1250), HOME))  # the 2 min break runs from 1200 s
    assert len(g.refusals) == 1 and "intermission" in g.refusals[0]
    assert g.at(1260)["timeout"] is None
    # Period 2 waiting to start (clock stopped, in a period): allowed.
    g.do(Timeout(S(1330), HOME))
    assert g.at(1340)["timeout"] == {"team": "home", "remaining_ms": 20_000}


def test_one_time_out_per_team_per_match() -> None:
    # Rules 001 'Time-out' (play-offs); IFF 202: one time-out per team per match.
    g = playoff_stopped()
    g.do(Timeout(S(110), HOME))
    g.at(150)
    g.do(Timeout(S(160), HOME))
    assert len(g.refusals) == 1
    assert "home" in g.refusals[0] and "used" in g.refusals[0]
    g.do(Timeout(S(170), AWAY))
    assert g.at(180)["timeout"] == {"team": "away", "remaining_ms": 20_000}
    # Period 2: still none left for either team.
    g.do(Start(S(200)))
    assert g.at(1420)["phase"] == "period"  # period 1 ended at 1300 s, then a 2 min break
    g.do(Timeout(S(1430), HOME))
    g.do(Timeout(S(1440), AWAY))
    assert len(g.refusals) == 3
    assert "home" in g.refusals[1] and "away" in g.refusals[2]
    assert "used" in g.refusals[2]
    assert g.at(1450)["timeout"] is None


def test_starting_the_clock_ends_the_time_out_without_a_horn() -> None:
    # Rules 001 'Time-out'; IFF 202: play resumes, the time-out is over (and used).
    g = playoff_stopped()
    g.do(Timeout(S(110), AWAY))
    g.do(Start(S(120)))
    doc = g.at(125)
    assert (doc["timeout"], doc["running"], doc["clock_ms"], doc["horn"]) == (
        None, True, 1_095_000, False)
    [ended] = of_kind(g, EventKind.TIMEOUT_ENDED)
    assert (ended.at, ended.data["early"]) == (S(120), True)
    assert g.at(145)["horn"] is False  # nothing sounds at the time-out's old deadline
    assert not [e for e in of_kind(g, EventKind.HORN) if e.data["reason"] == "timeout_end"]
    g.do(Stop(S(150)))
    g.do(Timeout(S(155), AWAY))
    assert len(g.refusals) == 1 and "used" in g.refusals[0]


def test_undo_of_a_running_time_out_stops_it_and_gives_it_back() -> None:
    # Rules 001 'Time-out': one a team; a time-out given by mistake is not used.
    g = playoff_stopped()
    g.do(Timeout(S(110), HOME))
    g.do(Undo(S(115)))
    doc = g.at(116)
    assert doc["timeout"] is None
    assert g.at(145)["horn"] is False  # no horn at the undone time-out's deadline
    assert of_kind(g, EventKind.TIMEOUT_ENDED) == []
    g.do(Timeout(S(150), HOME))
    assert g.refusals == []
    assert g.at(160)["timeout"] == {"team": "home", "remaining_ms": 20_000}


def test_undo_of_a_finished_time_out_gives_it_back() -> None:
    # Rules 001 'Time-out': one a team per match.
    g = playoff_stopped()
    g.do(Timeout(S(110), AWAY))
    g.at(150)
    g.do(Undo(S(150)))
    undone = of_kind(g, EventKind.UNDONE)
    assert [e.data["what"] for e in undone] == ["timeout"]
    g.do(Timeout(S(160), AWAY))
    assert g.refusals == []
    assert g.at(170)["timeout"] == {"team": "away", "remaining_ms": 20_000}


# ---------------------------------------------------------------- line changes (rules 002)

YOUTH = "youth-hockey-3x18"


def shift_events(g: Game) -> list[tuple[int, int, int]]:
    return [(e.at, e.data["period"], e.data["shift"]) for e in of_kind(g, EventKind.SHIFT_ENDED)]


def shift_horns(g: Game) -> list[int]:
    return [e.at for e in of_kind(g, EventKind.HORN) if e.data["reason"] == "shift"]


def test_a_shift_horn_every_60_s_of_game_time_and_none_at_the_period_end() -> None:
    # Rules 002 'Rules': play is stopped after every 60 sec for a mandatory line change;
    # 'Match format': 3 x 18 min. The 18th shift ends with the period: its horn is the
    # period's own, not an extra one.
    g = Game(YOUTH)
    g.do(Start(S(5)))
    g.at(1200)
    expected = [(S(5 + 60 * k), 1, k) for k in range(1, 18)]
    assert shift_events(g) == expected
    assert shift_horns(g) == [at for at, _, _ in expected]
    [ended] = of_kind(g, EventKind.PERIOD_ENDED)
    assert ended.at == S(1085)
    at_end = [e for e in g.events if e.at == S(1085)]
    assert EventKind.SHIFT_ENDED not in [e.kind for e in at_end]
    assert [e.data["reason"] for e in at_end if e.kind is EventKind.HORN] == ["period_end"]


def test_the_shift_horn_sounds_1_s_from_the_exact_deadline() -> None:
    # Rules 002 'Rules' (a line change every 60 s); the issue: horn 1 s at every shift end.
    g = Game(YOUTH)
    g.do(Start(0))
    assert g.at(59.999)["horn"] is False
    assert g.at(60)["horn"] is True
    assert g.at(60.999)["horn"] is True
    horns = [e for e in of_kind(g, EventKind.HORN) if e.data["reason"] == "shift"]
    assert [(e.at, e.data["length_ms"]) for e in horns] == [(S(60), 1000)]
    assert g.at(61)["horn"] is False


def test_shift_ms_counts_with_the_game_clock_and_stops_when_it_stops() -> None:
    # Rules 002 'Rules': a line change after every 60 s of play.
    g = Game(YOUTH)
    assert g.at(0)["shift_ms"] == 60_000  # pregame: the first shift waits to start
    g.do(Start(S(10)))
    assert [g.at(t)["shift_ms"] for t in (10, 25, 69.999, 70, 85)] == [
        60_000, 45_000, 1, 60_000, 45_000]
    g.do(Stop(S(85.5)))  # 15.5 s into shift 2
    assert g.at(85.5)["shift_ms"] == 44_500
    assert g.at(300)["shift_ms"] == 44_500  # stopped with the clock
    assert shift_events(g) == [(S(70), 1, 1)]
    g.do(Start(S(300)))
    assert g.at(330)["shift_ms"] == 14_500
    assert g.at(344.499)["shift_ms"] == 1
    doc = g.at(344.5)
    assert (doc["shift_ms"], doc["horn"]) == (60_000, True)
    assert shift_events(g) == [(S(70), 1, 1), (S(344.5), 1, 2)]
    assert g.at(374.5)["shift_ms"] == 30_000


def test_shift_ms_is_null_in_breaks_and_full_while_the_next_period_waits() -> None:
    # Rules 002 'Match format' (3 periods, breaks) and 'Rules' (shifts of 60 s of play):
    # every period starts with a fresh shift, whatever was left of the last one.
    g = Game(YOUTH)
    g.do(Start(0))
    g.do(Stop(S(1050)))  # 30 s into the 18th shift
    assert g.at(1060)["shift_ms"] == 30_000
    g.do(Start(S(1100)))  # the period ends at 1130 s
    doc = g.at(1130)
    assert (doc["phase"], doc["shift_ms"]) == ("intermission", None)
    assert g.at(1500)["shift_ms"] is None
    doc = g.at(1730)  # the 10 min break is over: period 2 waits to start
    assert (doc["phase"], doc["period"], doc["running"], doc["shift_ms"]) == (
        "period", 2, False, 60_000)
    g.do(Start(S(1800)))
    assert g.at(1830)["shift_ms"] == 30_000
    g.at(1860)
    assert shift_events(g)[-1] == (S(1860), 2, 1)
    assert len([e for e in shift_events(g) if e[1] == 1]) == 17


def test_shifts_go_on_in_overtime_and_stop_in_the_shootout() -> None:
    # Rules 002 'Overtime': 3 min break, 6 min overtime (the preset keeps the line changes
    # of 'Rules' in overtime); 'Penalty shots' 1: then penalty shots.
    g = Game(YOUTH, Stage.GROUP)
    for t in (0, 1680, 2940):
        g.do(Start(S(t)))
    doc = g.at(4100)
    assert (doc["phase"], doc["shift_ms"]) == ("overtime_break", None)
    doc = g.at(4200)
    assert (doc["phase"], doc["shift_ms"]) == ("overtime", 60_000)
    g.do(Start(S(4210)))
    assert g.at(4240)["shift_ms"] == 30_000
    g.do(Stop(S(4250)))
    assert g.at(4300)["shift_ms"] == 20_000
    g.do(Start(S(4300)))
    doc = g.at(4700)
    assert (doc["phase"], doc["shift_ms"]) == ("shootout", None)
    overtime = [e for e in shift_events(g) if e[1] == 4]
    assert overtime == [(S(4320), 4, 1), (S(4380), 4, 2), (S(4440), 4, 3), (S(4500), 4, 4),
                        (S(4560), 4, 5)]
    [ot_end] = [e for e in of_kind(g, EventKind.PERIOD_ENDED) if e.data["period"] == 4]
    assert ot_end.at == S(4620)
    assert S(4620) not in shift_horns(g)


def test_no_shift_ms_in_presets_without_line_changes() -> None:
    # Rules 000 'Rules': no line-change rule.
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    assert g.at(100)["shift_ms"] is None
    assert shift_events(g) == []


# ---------------------------------------------------------------- extra player (rules 003)


class Football:
    """A football match under way; goals one a second from 10 s on."""

    def __init__(self, preset: str = "football-p10") -> None:
        self.g = Game(preset)
        self.g.do(Start(0))
        self.t = 10

    def goals(self, script: str) -> list[tuple[str | None, dict[str, int]]]:
        """``"HHA"``: home, home, away score; ``U``: undo. (extra_player, strength) after each."""
        seen: list[tuple[str | None, dict[str, int]]] = []
        for letter in script:
            self.t += 1
            if letter == "U":
                self.g.do(Undo(S(self.t)))
            else:
                self.g.do(Goal(S(self.t), HOME if letter == "H" else AWAY))
            doc = self.g.at(self.t)
            seen.append((doc["extra_player"], doc["strength"]))
        assert self.g.refusals == []
        return seen

    def doc(self) -> dict[str, Any]:
        return self.g.at(self.t)


EVEN = {"home": 4, "away": 4}
AWAY_PLUS = {"home": 4, "away": 5}
HOME_PLUS = {"home": 5, "away": 4}


def test_p10_a_team_five_goals_down_gets_an_extra_player() -> None:
    # Rules 003 'Match rules': P10 plays 5 v 5 (4 field players + goalkeeper); a team may add
    # an extra player when the opponent leads by 5 goals.
    f = Football()
    assert f.doc()["extra_player"] is None and f.doc()["strength"] == EVEN
    assert f.goals("HHHH") == [(None, EVEN)] * 4
    assert f.goals("H") == [("away", AWAY_PLUS)]
    assert f.doc()["score"] == {"home": 5, "away": 0}
    assert f.goals("H") == [("away", AWAY_PLUS)]  # 6-0: still


def test_p10_the_extra_player_stays_at_4_and_3_and_goes_at_2() -> None:
    # Rules 003 'Match rules': the advantage is lost when the difference narrows to 2 goals.
    f = Football()
    f.goals("AAAAA")
    assert f.doc()["extra_player"] == "home" and f.doc()["strength"] == HOME_PLUS
    assert f.goals("HHH") == [("home", HOME_PLUS), ("home", HOME_PLUS), (None, EVEN)]
    assert f.doc()["score"] == {"home": 3, "away": 5}
    # Widening again to 3 or 4 does not bring it back; a lead of 5 does.
    assert f.goals("AAA") == [(None, EVEN), (None, EVEN), ("home", HOME_PLUS)]


def test_p10_a_lead_of_4_that_never_was_5_gives_no_extra_player() -> None:
    # Rules 003 'Match rules': only a 5-goal lead gives the trailing team the extra player.
    f = Football()
    assert f.goals("HHHHAHA") == [(None, EVEN)] * 7
    assert f.doc()["score"] == {"home": 5, "away": 2}


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        # 5-0 gives away the extra player; the undone fifth goal takes it away again.
        ("HHHHHU", None),
        # 5-3: lost; the undone third away goal (5-2, after having been 5) brings it back.
        ("HHHHHAAAU", "away"),
        # 5-2 with it; two undos back to 5-0: still there.
        ("HHHHHAAUU", "away"),
        # Three undos: back to 4-0, a lead that never was 5.
        ("HHHHHAAUUU", None),
    ],
)
def test_p10_undo_of_a_goal_recomputes_the_extra_player(script: str,
                                                         expected: str | None) -> None:
    # Rules 003 'Match rules' (5-goal lead, lost at a 2-goal difference); an undone goal
    # never happened.
    f = Football()
    f.goals(script)
    doc = f.doc()
    assert doc["extra_player"] == expected
    assert doc["strength"] == (AWAY_PLUS if expected == "away" else EVEN)


def test_p08_has_no_extra_player_rule() -> None:
    # Rules 003 'Match rules': the extra player is a P10 rule; P08 plays 8 v 8 (7 + keeper).
    f = Football("football-p08")
    seen = f.goals("HHHHHHAA")
    assert seen == [(None, {"home": 7, "away": 7})] * 8


# ---------------------------------------------------------------- time-outs (ice hockey)


@pytest.mark.parametrize("stage", [Stage.GROUP, Stage.PLAYOFF])
def test_ice_hockey_one_30_s_time_out_a_team_in_every_game(stage: Stage) -> None:
    # Rules 000 say nothing of time-outs: the IIHF's team time-out applies, one of
    # 30 seconds a team a game, group and ranking matches alike.
    g = Game("ice-hockey-2x20", stage)
    g.do(Start(0))
    g.do(Stop(S(100)))
    g.do(Timeout(S(110), AWAY))
    assert g.at(115)["timeout"] == {"team": "away", "remaining_ms": 25_000}
    assert g.at(140)["timeout"] is None
    g.do(Timeout(S(150), AWAY))
    g.do(Timeout(S(160), HOME))
    assert g.at(161)["timeout"] == {"team": "home", "remaining_ms": 29_000}
    assert g.refusals == ["timeout refused: away has used its 1 time-out"]
    assert g.match.preset.cite("timeouts.per_team") is not None


def test_ice_hockey_a_time_out_is_refused_while_the_clock_runs() -> None:
    # IIHF Official Rule Book (team time-out): taken at a normal stoppage (clock stopped).
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(Timeout(S(50), HOME))
    assert g.refusals == ["timeout refused: a time-out is taken with the game clock stopped"]
    g.do(Stop(S(60)))
    g.do(Timeout(S(61), HOME))
    assert g.refusals[1:] == []
    assert g.at(62)["timeout"] == {"team": "home", "remaining_ms": 29_000}


@pytest.mark.parametrize("stage", [Stage.GROUP, Stage.PLAYOFF])
def test_youth_hockey_has_no_time_out_and_the_refusal_says_why(stage: Stage) -> None:
    # Rules 002 'Match format': 3 x 18 min without stopping the clock; the IIHF time-out is
    # taken with the clock stopped, so the preset allows none (timeouts.per_team = 0) and
    # the refusal quotes its citation.
    g = Game("youth-hockey-3x18", stage)
    g.do(Start(0))
    g.do(Timeout(S(30), HOME))
    g.do(Stop(S(40)))  # even at a stoppage
    g.do(Timeout(S(41), AWAY))
    assert g.match.preset.timeouts is None
    assert len(g.refusals) == 2
    for message in g.refusals:
        assert message.startswith("timeout refused: the youth-hockey-3x18 rules have no "
                                  "time-outs: rules 002, 'Match format'")
