"""Shootouts of the four rule documents, checked through the state document (docs/developer.md 4.3),
the refusals and the match record.

Rules 000 'The winning goal race of the ranking matches' (ice-hockey-2x20), rules 001
'Shootouts' and 'Playing the shootout' (floorball), rules 002 'Overtime' and 'Penalty shots'
(youth-hockey-3x18), rules 003 'Ranking' (football-p08, football-p10). Each test cites its rule.

Shots are written compactly: ``"A+9 H-"`` is the away team's #9 scoring, then a home miss
(shooter not given).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import presets
from arena.core.commands import Command, Goal, Penalty, Shot, Start, Undo
from arena.core.events import EventKind
from arena.core.match import Match, feed
from arena.core.phase import Phase, Stage, Team
from arena.core.values import MatchSetup

from .helpers import Game, S

HOME, AWAY = Team.HOME, Team.AWAY
STEP = 10  # seconds between two shots


@dataclass(frozen=True)
class Variant:
    """A preset played to a tie: the presses that start its periods and when the shootout
    begins (the end of regulation, or of overtime where the rules have one)."""

    preset: str
    rules: str
    starts: tuple[int, ...]
    shootout_at: int
    rounds: int

    def __str__(self) -> str:
        return self.preset


# Rules 000 'Rules': 2 x 20 min, one minute break.
HOCKEY = Variant("ice-hockey-2x20", "000", (0, 1260), 2460, 3)
# Rules 001 'Playing time': play-offs 2 x 20 min (the 2 min break is the preset's choice).
FLOORBALL = Variant("floorball-2x20", "001", (0, 1320), 2520, 3)
# Rules 002 'Match format' and 'Overtime': 3 x 18 min, breaks 10 and 3 min, then a 3 min
# break and 6 min of overtime.
YOUTH = Variant("youth-hockey-3x18", "002", (0, 1680, 2940, 4200), 4560, 5)
# Rules 003 'General': 1 x 25 min.
P10 = Variant("football-p10", "003", (0,), 1500, 3)
P08 = Variant("football-p08", "003", (0,), 1500, 3)

VARIANTS = (HOCKEY, FLOORBALL, YOUTH, P10, P08)
CHOSEN = (FLOORBALL, YOUTH, P10, P08)  # the starting team is chosen or drawn on the day


def _team(letter: str) -> Team:
    return {"H": HOME, "A": AWAY}[letter]


def _other(team: str | None) -> str:
    assert team is not None
    return "away" if team == "home" else "home"


class Shootout:
    """A match of ``variant`` played to a tie (``goals`` each), then into its shootout."""

    def __init__(self, variant: Variant, goals: int = 0, stage: Stage = Stage.PLAYOFF,
                 extra: Sequence[Command] = ()) -> None:
        self.variant = variant
        self.g = Game(variant.preset, stage)
        commands: list[Command] = [Start(S(t)) for t in variant.starts]
        for i in range(goals):
            commands += [Goal(S(10 + 20 * i), HOME, 20 + i), Goal(S(20 + 20 * i), AWAY, 30 + i)]
        for command in sorted([*commands, *extra], key=lambda c: c.at):
            self.g.do(command)
        assert self.g.refusals == []
        self.t = variant.shootout_at
        doc = self.doc()
        assert doc["phase"] == "shootout", doc["phase"]
        assert doc["score"] == {"home": goals, "away": goals}

    def doc(self) -> dict[str, Any]:
        return self.g.at(self.t)

    @property
    def tally(self) -> dict[str, Any]:
        tally: dict[str, Any] = self.doc()["shootout"]
        return tally

    @property
    def next(self) -> str | None:
        following: str | None = self.tally["next"]
        return following

    def shot(self, team: Team, scored: bool, player: int | None = None) -> None:
        self.t += STEP
        self.g.do(Shot(S(self.t), team, scored, player))

    def shots(self, script: str) -> list[str | None]:
        """Take the shots of ``script``; the ``next`` suggestion after each of them."""
        nexts: list[str | None] = []
        refusals = len(self.g.refusals)
        for token in script.split():
            player = int(token[2:]) if token[2:] else None
            self.shot(_team(token[0]), token[1] == "+", player)
            assert len(self.g.refusals) == refusals, (token, self.g.refusals[-1])
            nexts.append(self.next)
        return nexts

    def refused(self, team: Team, scored: bool, player: int | None = None) -> str:
        """Take a shot the rules refuse: the state document is unchanged; the message."""
        refusals = len(self.g.refusals)
        before = self.g.at(self.t + STEP)
        self.shot(team, scored, player)
        assert self.doc() == before
        assert len(self.g.refusals) == refusals + 1
        return self.g.refusals[-1]

    def undo(self) -> None:
        self.t += STEP
        self.g.do(Undo(S(self.t)))

    def ended(self) -> list[dict[str, Any]]:
        return [dict(e.data) for e in self.g.events if e.kind is EventKind.MATCH_ENDED]


def _misses(first: str, rounds: int) -> str:
    """A first series in which everyone misses, ``first`` ("H"/"A") shooting first."""
    second = "A" if first == "H" else "H"
    return " ".join(f"{first}- {second}-" for _ in range(rounds))


# ---------------------------------------------------------------- when there is a shootout


@pytest.mark.parametrize(
    ("preset", "rule"),
    [
        # Rules 000 'Rules': a draw in the group tournament earns each team 1 point.
        ("ice-hockey-2x20", "000"),
        # Rules 001 'Shootouts': only play-off games are played to a decision.
        ("floorball-2x15", "001"),
        ("floorball-2x20", "001"),
        # Rules 003 'Ranking': draw = 1 point; only a placement match goes to a shootout.
        ("football-p10", "003"),
        ("football-p08", "003"),
    ],
)
def test_a_group_stage_tie_stands_without_a_shootout(preset: str, rule: str) -> None:
    # Rules 000 'Rules', 001 'Shootouts', 003 'Ranking' (per case above): group draws stand.
    g = Game(preset, Stage.GROUP)
    p = g.match.preset
    t = 0
    for period in range(1, p.periods + 1):
        g.do(Start(S(t)))
        if period == 1:
            g.do(Goal(S(5), HOME))
            g.do(Goal(S(6), AWAY))
        t += (p.period_length + (p.break_after(period) if period < p.periods else 0)) // 10**9
    doc = g.at(t + 60)
    assert g.refusals == []
    assert doc["phase"] == "final", rule
    assert doc["result"] == {"home": 1, "away": 1, "decided_by": "regulation"}
    assert doc["shootout"] is None
    assert EventKind.SHOOTOUT_STARTED not in g.kinds()


@pytest.mark.parametrize("variant", [HOCKEY, FLOORBALL, P10, P08], ids=str)
def test_a_playoff_tie_goes_straight_to_the_shootout(variant: Variant) -> None:
    # Rules 000 'The winning goal race of the ranking matches' (a tied ranking match);
    # rules 001 'Shootouts' (a tie at the end of regulation time); rules 003 'Ranking' (a
    # placement match, immediately after the playing time). No overtime in any of them.
    so = Shootout(variant, goals=1)
    doc = so.doc()
    assert (doc["phase"], doc["result"], doc["shift_ms"]) == ("shootout", None, None)
    phases = {e.data.get("phase") for e in so.g.events}
    assert "overtime_break" not in phases and "overtime" not in phases
    started = next(e for e in so.g.events if e.kind is EventKind.SHOOTOUT_STARTED)
    assert started.at == S(variant.shootout_at)
    # Rules 000: the away team starts; elsewhere the starter is chosen/drawn on the day.
    expected = "away" if variant is HOCKEY else None
    assert doc["shootout"] == {"home": [], "away": [], "next": expected}


@pytest.mark.parametrize("stage", [Stage.GROUP, Stage.PLAYOFF])
def test_youth_hockey_decides_every_tie_by_overtime_then_penalty_shots(stage: Stage) -> None:
    # Rules 002 'Overtime': a tie -> 3 min break, 6 min golden-goal overtime; 'Penalty shots'
    # 1: if no goal is scored in overtime, penalty shots. No stage is exempt.
    g = Game("youth-hockey-3x18", stage)
    for t in (0, 1680, 2940):
        g.do(Start(S(t)))
    doc = g.at(4020)
    assert (doc["phase"], doc["clock_ms"]) == ("overtime_break", 180_000)
    doc = g.at(4200)
    assert (doc["phase"], doc["period"], doc["clock_ms"], doc["running"]) == (
        "overtime", 4, 360_000, False)
    g.do(Start(S(4200)))
    assert g.at(4559.999)["phase"] == "overtime"
    doc = g.at(4560)
    assert doc["phase"] == "shootout"
    assert doc["shootout"] == {"home": [], "away": [], "next": None}  # 3: home chooses


# ---------------------------------------------------------------- who shoots next


def test_rules_000_next_away_first_then_the_second_shooter_of_round_1_starts_the_pairs() -> None:
    # Rules 000 'The winning goal race': started by the away team, three shots each, then one
    # pair at a time. In the tie-break pairs the team that shot second in the first round
    # (here home) starts (IIHF game-winning shots procedure, as the preset says).
    so = Shootout(HOCKEY)
    assert so.next == "away"
    first_series = so.shots("A- H- A- H- A- H-")
    assert first_series == ["home", "away", "home", "away", "home", "home"]
    assert so.shots("H- A- H+ A+ H+") == ["away", "home", "away", "home", "away"]
    assert so.doc()["phase"] == "shootout"
    assert so.shots("A-") == [None]
    assert so.doc()["result"] == {"home": 1, "away": 0, "decided_by": "shootout"}


def test_rules_000_a_home_shot_to_open_round_1_is_refused_with_the_rule() -> None:
    # Rules 000 'The winning goal race': started by the away team marked in the program. The
    # board cannot be keyed out of the order: a home shot first is refused, naming the rule,
    # and changes nothing.
    so = Shootout(HOCKEY)
    assert so.next == "away"
    message = so.refused(HOME, True, 4)
    assert "away shoots first in round 1" in message
    assert "started by the away team" in message
    assert so.shots("A- H-") == ["home", "away"]
    assert "away shoots first in round 2" in so.refused(HOME, False)


def test_iihf_the_tiebreak_is_opened_by_the_team_that_shot_second() -> None:
    # IIHF game winning shots procedure (IX) (rules 000 says only 'one pair at a time'): the
    # team that shot second in the first series (home) starts the tie-break; an away shot
    # first is refused with that reason, in every pair.
    so = Shootout(HOCKEY)
    so.shots(_misses("A", 3))
    assert so.next == "home"
    message = so.refused(AWAY, False)
    assert "home shoots first in round 4" in message and "tie-break" in message
    assert so.shots("H- A-") == ["away", "home"]
    assert "home shoots first in round 5" in so.refused(AWAY, False)
    assert so.shots("H- A+") == ["away", None]
    assert len(so.g.refusals) == 2


@pytest.mark.parametrize("variant", CHOSEN, ids=str)
@pytest.mark.parametrize("starter", ["H", "A"])
def test_chosen_starter_next_sequence_through_the_series_and_sudden_death(
    variant: Variant, starter: str
) -> None:
    # Rules 001 'Playing the shootout' (three, then sudden death), rules 002 'Penalty shots'
    # 2, 3, 5 (five each, the home team chooses who starts, then one each alternately), rules
    # 003 'Ranking' (the official draws the starter; three each, then one at a time). The
    # first shot sets the order; the same starter opens every round, including sudden death,
    # and a shot by the other team to open a round is refused.
    so = Shootout(variant)
    first = "home" if starter == "H" else "away"
    second_letter = "A" if starter == "H" else "H"
    second = _other(first)
    assert so.next is None  # chosen or drawn on the day: nobody is suggested yet
    for round_no in range(1, variant.rounds + 3):
        assert so.shots(f"{starter}- {second_letter}-") == [second, first]
        message = so.refused(_team(second_letter), False)
        assert f"{first} shoots first in round {round_no + 1}" in message
        assert "took the first shot" in message
    assert so.doc()["phase"] == "shootout"
    assert so.shots(f"{starter}+ {second_letter}-") == [_other(first), None]
    result = so.doc()["result"]
    assert result["decided_by"] == "shootout" and result[first] == 1
    assert len(so.g.refusals) == variant.rounds + 2  # one a round, each refused


# ---------------------------------------------------------------- when it is decided


@pytest.mark.parametrize(
    ("variant", "script", "decided_after", "winner"),
    [
        # Rules 000: away 2-0 after two rounds; home has one shot left and cannot catch up.
        (HOCKEY, "A+ H- A+ H-", 4, "away"),
        # Rules 000: the leader's own goal decides it before home's third shot.
        (HOCKEY, "A+ H- A- H- A+", 5, "away"),
        # Rules 000: away has used its three shots: home 2-1 without its third shot.
        (HOCKEY, "A+ H+ A- H+ A-", 5, "home"),
        # Rules 000: 2-1 decided by the very last shot of the series.
        (HOCKEY, "A+ H- A- H+ A+ H-", 6, "away"),
        # Rules 001: three shots each; 2-0 after two rounds.
        (FLOORBALL, "H+ A- H+ A-", 4, "home"),
        (FLOORBALL, "A- H+ A- H+", 4, "home"),
        # Rules 002 'Penalty shots' 2: five each; 3-0 after three rounds, two left for away.
        (YOUTH, "H+ A- H+ A- H+ A-", 6, "home"),
        # Rules 002: 3-0 for away after away's third goal (home has taken three, two left).
        (YOUTH, "H- A+ H- A+ H- A+", 6, "away"),
        # Rules 003 'Ranking': three each.
        (P10, "A+ H- A+ H-", 4, "away"),
        (P08, "H- A+ H- A+", 4, "away"),
    ],
)
def test_the_first_series_ends_as_soon_as_one_side_cannot_catch_up(
    variant: Variant, script: str, decided_after: int, winner: str
) -> None:
    # Rules 000 'The winning goal race', 001 'Playing the shootout', 002 'Penalty shots' 2,
    # 003 'Ranking' (per case above): the first series is over once it cannot be drawn.
    so = Shootout(variant, goals=2)
    tokens = script.split()
    nexts = so.shots(" ".join(tokens[: decided_after - 1]))
    assert None not in nexts  # still open: the trailing side could still draw level
    assert so.doc()["phase"] == "shootout"
    so.shots(tokens[decided_after - 1])
    doc = so.doc()
    assert doc["phase"] == "final"
    assert doc["shootout"]["next"] is None
    loser = _other(winner)
    assert doc["result"] == {winner: 3, loser: 2, "decided_by": "shootout"}


@pytest.mark.parametrize(
    ("variant", "script"),
    [
        # Rules 000: two rounds 1-0 for away; home can still draw level with its last shot.
        (HOCKEY, "A+ H- A- H-"),
        # Rules 002: 2-0 after two rounds of five: far from decided.
        (YOUTH, "H+ A- H+ A-"),
        # Rules 003: level after the first series -> one at a time.
        (P10, "H+ A+ H- A- H- A-"),
    ],
)
def test_not_decided_while_the_trailing_side_can_still_catch_up(variant: Variant,
                                                                script: str) -> None:
    so = Shootout(variant)
    assert None not in so.shots(script)
    assert (so.doc()["phase"], so.doc()["result"]) == ("shootout", None)


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_sudden_death_is_decided_only_when_the_pair_is_complete(variant: Variant) -> None:
    # Rules 000 'The winning goal race': decided when one team's player scores and his
    # partner does not; rules 001 'Playing the shootout' (sudden death); rules 002 'Penalty
    # shots' 5 and rules 003 'Ranking' (one at a time until there is a decision).
    so = Shootout(variant, goals=2)
    so.shots(_misses("A", variant.rounds))
    opener = so.next or "away"
    o, c = ("H", "A") if opener == "home" else ("A", "H")
    assert so.shots(f"{o}+") == [_other(opener)]
    assert so.doc()["phase"] == "shootout"  # the pair is not complete
    assert so.shots(f"{c}+") == [opener]  # both scored: on to the next pair
    assert so.shots(f"{o}-") == [_other(opener)]
    assert so.doc()["phase"] == "shootout"
    assert so.shots(f"{c}-") == [opener]  # both missed
    assert so.shots(f"{o}-") == [_other(opener)]
    assert so.doc()["result"] is None
    assert so.shots(f"{c}+") == [None]
    doc = so.doc()
    assert doc["phase"] == "final"
    closer = _other(opener)
    assert doc["result"] == {closer: 3, opener: 2, "decided_by": "shootout"}


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_a_team_may_not_shoot_twice_in_one_round(variant: Variant) -> None:
    # Rules 000 (pairs of shots), 001/002/003 (alternately, one each): one shot a team a
    # round. Refused, and nothing changes.
    so = Shootout(variant)
    so.shots("A+")
    message = so.refused(AWAY, True, 9)
    assert "away has already shot in this round" in message
    assert so.tally == {"home": [], "away": [True], "next": "home"}
    # The same in sudden death.
    so.shots(f"H+ {_misses('A', variant.rounds - 1)}")
    opener = so.next
    assert opener is not None
    so.shots(f"{opener[0].upper()}-")
    assert f"{opener} has already shot in this round" in so.refused(_team(opener[0].upper()),
                                                                    False)
    assert so.doc()["phase"] == "shootout"


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_a_shot_after_the_decision_is_refused_and_changes_nothing(variant: Variant) -> None:
    # Rules 000 'The winning goal race': the match is decided; the shootout is over.
    so = Shootout(variant, goals=1)
    o, c = ("A", "H") if variant is HOCKEY else ("H", "A")  # rules 000: away starts
    so.shots(_misses(o, variant.rounds - 1) + f" {o}+ {c}-")
    decided = so.doc()
    assert decided["phase"] == "final"
    for team in (HOME, AWAY):
        so.refused(team, True, 5)
        assert so.doc()["shootout"] == decided["shootout"]
        assert so.doc()["result"] == decided["result"]
    assert len(so.ended()) == 1


def test_the_refusal_after_the_decision_says_the_shootout_is_decided() -> None:
    # Rules 000 'The winning goal race' (decided when one scores and his partner does not).
    # The issue asks for a clear message for "a shot after the shootout is decided": the
    # tally is still on the display, so the message must say it is decided, not that there
    # is no shootout.
    so = Shootout(HOCKEY)
    so.shots("A- H- A- H- A- H- H+ A-")
    assert "decided" in so.refused(AWAY, True)


def test_rules_000_the_three_first_series_shooters_must_differ() -> None:
    # Rules 000 'The winning goal race': started with three (3) different players a team.
    so = Shootout(HOCKEY)
    so.shots("A-9 H-4")
    message = so.refused(AWAY, True, 9)
    assert "#9" in message and "first series" in message
    so.shots("A-10")
    assert "#4" in so.refused(HOME, False, 4)
    so.shots("H-5 A-11")
    assert "#5" in so.refused(HOME, False, 5)
    so.shots("H-6")
    # In the tie-break pairs a first-series shooter may shoot again.
    assert so.shots("H-4 A-9 H+5 A-9") == ["away", "home", "away", None]
    assert len(so.g.refusals) == 3
    assert so.doc()["result"] == {"home": 1, "away": 0, "decided_by": "shootout"}


def test_rules_001_the_first_series_shooters_may_shoot_again_in_sudden_death() -> None:
    # Rules 001 'Playing the shootout': players who started in the first series of three can
    # start in the sudden death series too.
    so = Shootout(FLOORBALL)
    so.shots("H-7 A-8 H-9 A-10 H-11 A-12")
    assert so.shots("H-7 A-8 H-7 A-8 H+11 A-12") == ["away", "home"] * 2 + ["away", None]
    assert so.g.refusals == []


# Rules 001 'Playing time': play-offs 2 x 20, basic groups 2 x 15, U9 2 x 10 (a 2 min break,
# the preset's choice); a play-off tie goes to the shootout in each of them.
FLOORBALLS = (FLOORBALL, Variant("floorball-2x15", "001", (0, 1020), 1920, 3),
              Variant("floorball-u9-2x10", "001", (0, 720), 1320, 3))


@pytest.mark.parametrize("variant", FLOORBALLS, ids=str)
def test_rules_001_the_first_series_of_three_takes_three_different_shooters(
    variant: Variant,
) -> None:
    # Rules 001 'Playing the shootout': a series of three penalty shots, then sudden death;
    # "players who have already started the first series of three can start in the sudden
    # death series too": so in the first series a team's three shooters are three players.
    so = Shootout(variant)
    so.shots("H-7 A-8")
    for _round in (2, 3):  # #7 again in round 2, then in round 3
        message = so.refused(HOME, False, 7)
        assert "#7" in message and "first series" in message
        assert "rules 001, 'Playing the shootout'" in message  # the rule is named
        so.shots("H-9 A-10" if _round == 2 else "H-11")
    fed = feed(so.g.match, Shot(S(so.t + STEP), AWAY, True, 8))  # round 3: #8 again
    assert fed.refused is not None
    assert fed.refused.why.key == "shot_first_series"  # worded in every language
    assert dict(fed.refused.why.fields) == {"player": 8, "team": "away"}
    assert so.tally == {"home": [False] * 3, "away": [False] * 2, "next": "away"}
    so.shots("A-12")
    # Sudden death: anyone eligible, the first series' shooters and the same one again.
    assert so.shots("H-7 A-8 H-7 A-8 H+7 A-8") == ["away", "home"] * 2 + ["away", None]
    assert so.doc()["result"] == {"home": 1, "away": 0, "decided_by": "shootout"}
    assert len(so.g.refusals) == 2


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_every_preset_states_its_own_first_series_rule(variant: Variant) -> None:
    # Rules 000 'The winning goal race' (three different players), 001 'Playing the
    # shootout' (three, anyone again in sudden death), 002 'Penalty shots' 2 (the same
    # player may not take two shots), 003 'Ranking' (first, three players of each team):
    # each preset says it itself and cites its own document for it.
    preset = presets.load(variant.preset)
    assert preset.shootout is not None and preset.shootout.distinct_first_series
    cited = preset.cite("shootout.distinct_first_series")
    assert cited is not None and cited.startswith(f"rules {variant.rules}, "), cited


def test_rules_002_no_player_twice_in_the_first_series_anyone_in_sudden_death() -> None:
    # Rules 002 'Penalty shots' 2: the same player may not take two shots (first series);
    # 5: in the one-each series the same player may take several (or all) shots.
    so = Shootout(YOUTH)
    so.shots("H-10 A-20 H-11 A-21")
    message = so.refused(HOME, False, 10)
    assert "#10" in message and "first series" in message
    so.shots("H-12 A-22 H-13")
    assert "#21" in so.refused(AWAY, True, 21)
    so.shots("A-23 H-14 A-24")
    assert so.tally["home"] == [False] * 5 and so.tally["away"] == [False] * 5
    assert so.shots("H-10 A-20 H-10 A-20 H+10 A-20") == ["away", "home"] * 2 + ["away", None]
    assert len(so.g.refusals) == 2


def _youth_with_penalties() -> Shootout:
    return Shootout(YOUTH, extra=[
        # Overtime runs from 4200 to 4560 s.
        Penalty(S(4210), AWAY, 12, "minor"),  # lasts until its shift ends (4260): expired
        Penalty(S(4500), HOME, 7, "major"),  # 5 min from 4500: not expired at 4560
        Penalty(S(4530), AWAY, 14, "minor"),  # its shift ends at 4560, with overtime
    ])


def test_rules_002_a_player_still_penalised_when_overtime_ends_may_not_shoot() -> None:
    # Rules 002 'Penalty shots' 2: all players may shoot except those whose penalty had not
    # expired when overtime ended; they stay in the penalty box during the shootout.
    so = _youth_with_penalties()
    started = next(e for e in so.g.events if e.kind is EventKind.SHOOTOUT_STARTED)
    assert started.data["barred"] == [["home", 7]]
    message = so.refused(HOME, True, 7)
    assert "#7" in message and "penalty" in message
    assert so.tally == {"home": [], "away": [], "next": None}
    # Rules 002 'Penalty shots' 3: home chose to shoot second. #7 stays barred in the first
    # series and in the one-each series (5), where others may shoot again.
    so.shots("A-12 H-8 A-14 H-9 A-15 H-10 A-16 H-11 A-17")
    assert "#7" in so.refused(HOME, True, 7)
    so.shots("H-13 A-12")
    assert "#7" in so.refused(HOME, True, 7)
    so.shots("H-8 A-14")
    assert "#7" in so.refused(HOME, True, 7)  # in every pair: still barred
    assert so.shots("H+8") == [None]
    assert so.doc()["result"] == {"home": 1, "away": 0, "decided_by": "shootout"}
    assert len(so.g.refusals) == 4


def test_rules_002_a_penalty_that_expired_by_the_end_of_overtime_does_not_bar() -> None:
    # Rules 002 'Penalty shots' 2 (only penalties not expired when overtime ended bar a
    # player); 'Rules': a minor lasts until the end of the shift. #12's minor ended at 4260
    # s; #14's ended with the last shift, at the very instant overtime ended.
    so = _youth_with_penalties()
    assert so.shots("A+12 H-8 A+14") == ["home", "away", "home"]
    assert so.g.refusals == []


def test_rules_002_a_penalty_still_waiting_to_start_bars_its_player_too() -> None:
    # Rules 002 'Penalty shots' 2: a penalty that has not even started (two team-mates hold
    # the places in the box) has certainly not expired when overtime ends.
    so = Shootout(YOUTH, extra=[
        Penalty(S(4400), AWAY, 3, "major"),
        Penalty(S(4401), AWAY, 4, "major"),
        Penalty(S(4402), AWAY, 5, "minor"),  # waits for a place until 4700 s
    ])
    assert so.doc()["penalties"]["away"][2]["running"] is False
    started = next(e for e in so.g.events if e.kind is EventKind.SHOOTOUT_STARTED)
    assert started.data["barred"] == [["away", 3], ["away", 4], ["away", 5]]
    for player in (3, 4, 5):
        assert f"#{player}" in so.refused(AWAY, True, player)
    assert so.shots("A+6") == ["home"]


def test_rules_002_a_player_ejected_for_the_game_may_not_shoot() -> None:
    # Rules 002 'Penalty shots' 2: only players entered for the match may shoot, and not
    # those whose penalty had not expired when overtime ended. A game misconduct sends the
    # player away for the rest of the game (rules 000 'Penalties' 3; the preset's kind
    # "ejects"): his team's 5 minutes are over long before overtime ends, his own penalty
    # is not.
    so = Shootout(YOUTH, extra=[Penalty(S(3000), HOME, 9, "game_misconduct")])
    message = so.refused(HOME, True, 9)
    assert "#9" in message


# ---------------------------------------------------------------- result, record, undo


def test_rules_000_only_the_decisive_goal_is_recorded_credited_to_its_shooter() -> None:
    # Rules 000 'The winning goal race': only the decisive goal is recorded in the final
    # result; it is credited to the player who took the shot.
    so = Shootout(HOCKEY, goals=2)
    so.shots("A+9 H+4 A-10 H-5 A-11 H-6")  # 1-1 after three
    assert so.shots("H+4 A-9") == ["away", None]  # repeat shooters allowed in the pairs
    doc = so.doc()
    assert doc["score"] == {"home": 2, "away": 2}
    assert doc["result"] == {"home": 3, "away": 2, "decided_by": "shootout"}
    ended = so.ended()
    assert len(ended) == 1
    assert ended[0]["result"] == {"home": 3, "away": 2, "decided_by": "shootout"}
    record = ended[0]["record"]
    assert record["result"] == {"home": 3, "away": 2, "decided_by": "shootout"}
    assert record["shootout"]["decisive"] == {"team": "home", "player": 4}
    assert [s["player"] for s in record["shootout"]["shots"]] == [9, 4, 10, 5, 11, 6, 4, 9]


def test_rules_000_the_decisive_goal_of_a_first_series_win() -> None:
    # Rules 000 'The winning goal race': away 2-1 after three; #11's goal put away ahead for
    # good (home's goal had drawn level at 1-1), so it is the decisive one.
    so = Shootout(HOCKEY, goals=2)
    assert so.shots("A+9 H-4 A-10 H+5 A+11 H-6")[-1] is None
    assert so.doc()["result"] == {"home": 2, "away": 3, "decided_by": "shootout"}
    assert so.ended()[0]["record"]["shootout"]["decisive"] == {"team": "away", "player": 11}


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_the_tally_stays_after_the_end_with_next_null(variant: Variant) -> None:
    # Rules 000 'The winning goal race' / 001 'Playing the shootout' / 002 'Penalty shots'
    # / 003 'Ranking'; docs/developer.md 4.3: the tally stays in the state document after the end.
    so = Shootout(variant, goals=2)
    so.shots(f"{_misses('A', variant.rounds - 1)} A+ H+")
    so.shots("H- A+" if so.next == "home" else "A+ H-")  # the tie-break's own opener
    doc = so.doc()
    assert doc["phase"] == "final"
    misses = [False] * (variant.rounds - 1)
    assert doc["shootout"] == {"home": [*misses, True, False],
                               "away": [*misses, True, True], "next": None}
    assert doc["result"] == {"home": 2, "away": 3, "decided_by": "shootout"}
    later = so.g.at(so.t + 3600)
    assert later["shootout"] == doc["shootout"]
    assert later["result"] == doc["result"]


def test_the_shootout_is_null_when_there_was_none() -> None:
    # Rules 000 'The winning goal race': only a tied ranking match has one.
    g = Game("ice-hockey-2x20", Stage.PLAYOFF)
    g.do(Start(0))
    g.do(Goal(S(100), AWAY, 9))
    g.do(Start(S(1260)))
    doc = g.at(2500)
    assert doc["phase"] == "final" and doc["shootout"] is None
    assert doc["result"] == {"home": 0, "away": 1, "decided_by": "regulation"}
    ended = next(e for e in g.events if e.kind is EventKind.MATCH_ENDED)
    assert ended.data["record"]["shootout"] is None


def test_undo_reverts_the_last_shot_one_per_press() -> None:
    # Rules 000 'The winning goal race' (the order the undo brings back).
    so = Shootout(HOCKEY, goals=1)
    so.shots("A+9 H-4 A-10")
    so.undo()
    assert so.tally == {"home": [False], "away": [True], "next": "away"}
    so.undo()
    assert so.tally == {"home": [], "away": [True], "next": "home"}
    so.undo()
    assert so.tally == {"home": [], "away": [], "next": "away"}
    undone = [e.data["what"] for e in so.g.events if e.kind is EventKind.UNDONE]
    assert undone == ["shot", "shot", "shot"]
    # #9's shot is gone: he may take the first shot again.
    assert so.shots("A+9") == ["home"]
    assert so.g.refusals == []


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_undo_of_the_decisive_shot_reopens_the_shootout(variant: Variant) -> None:
    # Rules 000 'The winning goal race' / 001 / 002 / 003: the shootout goes on until it is
    # really decided; a shot recorded by mistake is taken back.
    so = Shootout(variant, goals=2)
    # Home opens the pairs: it started the first series, or (rules 000) it shot second.
    start = "A" if variant is HOCKEY else "H"
    so.shots(_misses(start, variant.rounds) + " H+ A-")
    assert so.doc()["phase"] == "final"
    so.undo()
    doc = so.doc()
    assert (doc["phase"], doc["result"]) == ("shootout", None)
    assert doc["shootout"]["next"] == "away"
    assert doc["shootout"]["home"][-1] is True
    assert len(doc["shootout"]["away"]) == variant.rounds
    # The shot is taken again, this time scored: on to the next pair.
    assert so.shots("A+") == [so.next]
    assert so.doc()["phase"] == "shootout"
    opener = so.next
    o, c = ("H", "A") if opener == "home" else ("A", "H")
    so.shots(f"{o}- {c}+")
    doc = so.doc()
    assert doc["phase"] == "final"
    assert doc["result"] == {_other(opener): 3, opener: 2, "decided_by": "shootout"}
    assert len(so.ended()) == 2


def test_undo_of_the_decisive_shot_of_an_early_first_series_decision() -> None:
    # Rules 000 'The winning goal race': decided 2-0 after two rounds; undone, it is open.
    so = Shootout(HOCKEY, goals=2)
    so.shots("A+ H- A+ H-")
    assert so.doc()["phase"] == "final"
    so.undo()
    assert (so.doc()["phase"], so.doc()["result"], so.next) == ("shootout", None, "home")
    assert so.shots("H+ A- H+") == ["away", "home", "home"]  # 2-2 after three: pairs
    assert so.doc()["phase"] == "shootout"


@pytest.mark.parametrize("variant", CHOSEN, ids=str)
def test_undo_of_the_first_shot_where_the_starter_is_chosen_clears_the_order(
    variant: Variant,
) -> None:
    # Rules 001 'Playing the shootout', 002 'Penalty shots' 3, 003 'Ranking': the starter is
    # chosen or drawn; a first shot taken back no longer sets the order.
    so = Shootout(variant)
    so.shots("A-")
    so.undo()
    assert so.tally == {"home": [], "away": [], "next": None}
    assert so.shots("H- A-") == ["away", "home"]


# ---------------------------------------------------------------- properties


def _expected_next(variant: Variant, order: list[str]) -> str | None:
    """An independent oracle of the ``next`` suggestion while the shootout is open, from the
    teams of the shots taken so far, in order."""
    home, away = order.count("home"), order.count("away")
    if home != away:
        return "home" if home < away else "away"
    fixed = "away" if variant is HOCKEY else None  # rules 000: the away team starts
    starter = fixed or (order[0] if order else None)
    if home < variant.rounds or starter is None:
        return starter
    if variant is HOCKEY:  # the team that shot second in the first round
        return _other(order[0])
    return starter


def _decided(home: list[bool], away: list[bool], rounds: int) -> str | None:
    """An independent oracle: who has won, if it is certain."""
    gh, ga = sum(home), sum(away)
    if len(home) <= rounds and len(away) <= rounds:
        if gh > ga + rounds - len(away):
            return "home"
        if ga > gh + rounds - len(home):
            return "away"
        return None
    if len(home) == len(away) and gh != ga:
        return "home" if gh > ga else "away"
    return None


@settings(max_examples=150, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    presses=st.lists(
        st.tuples(st.booleans(), st.booleans(), st.booleans(),
                  st.none() | st.integers(min_value=1, max_value=30)),
        max_size=40,
    ),
)
def test_random_shots_never_put_a_team_two_ahead_and_nothing_changes_once_decided(
    variant: Variant, presses: list[tuple[bool, bool, bool, int | None]]
) -> None:
    # Rules 000/001/002/003 shootouts: one shot a team a round; decided as soon as it is
    # certain; nothing is recorded after the decision.
    so = Shootout(variant, goals=1)
    order: list[str] = []
    for by_suggestion, home, scored, player in presses:
        suggested = so.next
        if by_suggestion and suggested is not None:
            team = Team(suggested)
        else:
            team = HOME if home else AWAY
        refusals = len(so.g.refusals)
        so.t += STEP
        before = so.doc()
        so.g.do(Shot(S(so.t), team, scored, player))
        doc = so.doc()
        tally = doc["shootout"]
        assert abs(len(tally["home"]) - len(tally["away"])) <= 1
        if before["phase"] == "final":
            assert doc == before
            assert len(so.g.refusals) == refusals + 1
            continue
        if len(so.g.refusals) == refusals:
            order.append(team.value)
        else:
            assert doc == before
        winner = _decided(tally["home"], tally["away"], variant.rounds)
        if winner is None:
            assert (doc["phase"], doc["result"]) == ("shootout", None)
            assert tally["next"] == _expected_next(variant, order)
        else:
            assert doc["phase"] == "final" and tally["next"] is None
            assert doc["result"] == {winner: 2, _other(winner): 1, "decided_by": "shootout"}


# ---------------------------------------------------------------- who may shoot (ice hockey)


def _hockey_with_penalties() -> Shootout:
    return Shootout(HOCKEY, extra=[
        # Regulation ends at 2460 s (period 2 runs from 1260 s).
        Penalty(S(2400), HOME, 7, "minor"),  # 60 s left when playing time ends
        Penalty(S(2300), AWAY, 12, "minor"),  # ended at 2420 s, before the end
        Penalty(S(1300), AWAY, 9, "game_misconduct"),  # the team's 5 min are long over
        Penalty(S(1400), HOME, 10, "match"),
    ])


def test_iihf_a_skater_whose_penalty_had_not_ended_when_playing_time_ended_may_not_shoot(
) -> None:
    # IIHF game winning shots procedure (III), the preset's shootout.bar_penalised: a skater
    # whose penalty had not been completed when playing time ended may not shoot; one whose
    # penalty had ended may.
    so = _hockey_with_penalties()
    assert so.shots("A-12") == ["home"]
    message = so.refused(HOME, True, 7)
    assert message == ("shot refused: #7 (home) may not shoot: his penalty had not ended when "
                       "playing time ended")
    assert so.shots("H-8") == ["away"]
    assert so.g.match.preset.cite("shootout.bar_penalised") is not None


def test_rules_000_a_player_sent_off_for_the_game_may_not_shoot() -> None:
    # Rules 000 'Penalties' 3 (game misconduct) and 4 (match penalty): sent away for the rest
    # of the game, the shootout included (the preset's shootout.bar_ejected), though the
    # team's five minutes ended long before.
    so = _hockey_with_penalties()
    started = next(e for e in so.g.events if e.kind is EventKind.SHOOTOUT_STARTED)
    assert started.data["barred"] == [["away", 9], ["home", 7], ["home", 10]]
    message = so.refused(AWAY, True, 9)
    assert message.endswith("#9 (away) may not shoot: sent off for the rest of the game "
                            "(game misconduct)")
    so.shots("A-11")
    assert so.refused(HOME, True, 10).endswith("sent off for the rest of the game (match)")


def test_iihf_a_player_penalised_during_the_shootout_may_not_shoot_after_it() -> None:
    # IIHF game winning shots procedure (III): players serving penalties assessed during the
    # shootout remain in the penalty box until its end.
    so = Shootout(HOCKEY)
    so.shots("A-9")
    so.t += STEP
    so.g.do(Penalty(S(so.t), HOME, 4, "misconduct"))
    assert so.refused(HOME, True, 4).endswith(
        "#4 (home) may not shoot: he was penalised during the shootout")
    assert so.shots("H-5") == ["away"]


def test_the_bars_are_preset_data_a_preset_without_them_lets_everyone_shoot() -> None:
    # docs/developer.md 2, rule 5: the core never tests a preset's name; the bars are the preset's
    # shootout.bar_penalised and shootout.bar_ejected (here both switched off).
    hockey = presets.load(HOCKEY.preset)
    assert hockey.shootout is not None
    lenient = replace(hockey, shootout=replace(hockey.shootout, bar_penalised=False,
                                               bar_ejected=False))
    match = Match(lenient, MatchSetup(match_id="T1", stage=Stage.PLAYOFF))
    commands: list[Command] = [Start(0), Penalty(S(1300), AWAY, 9, "game_misconduct"),
                               Start(S(1260)), Penalty(S(2400), HOME, 7, "minor")]
    for command in sorted(commands, key=lambda c: c.at):
        assert feed(match, command).refused is None
    match.advance(S(2460))
    assert match.state.phase is Phase.SHOOTOUT and match.state.barred == frozenset()
    assert feed(match, Shot(S(2470), AWAY, False, 9)).refused is None
    assert feed(match, Shot(S(2480), HOME, False, 7)).refused is None


def test_the_strict_order_is_preset_data_off_it_the_board_records_any_opener() -> None:
    # docs/developer.md 2, rule 5: the order of shots is refused only with the preset's
    # shootout.strict_order (a preset text journalled before it existed replays as it
    # played); a team's second shot in a round is refused either way.
    hockey = presets.load(HOCKEY.preset)
    assert hockey.shootout is not None and hockey.shootout.strict_order
    loose = replace(hockey, shootout=replace(hockey.shootout, strict_order=False))
    match = Match(loose, MatchSetup(match_id="T1", stage=Stage.PLAYOFF))
    for command in (Start(0), Start(S(1260))):
        feed(match, command)
    match.advance(S(2460))
    assert feed(match, Shot(S(2470), HOME, False, 4)).refused is None  # away was due
    refused = feed(match, Shot(S(2480), HOME, False, 5)).refused
    assert refused is not None and "home has already shot in this round" in str(refused)


def test_rules_001_a_red_carded_player_may_not_shoot() -> None:
    # Rules 001 'Exclusion of a player': red card 1, exclusion until the end of the match
    # (the match penalty, IFF 2022 608 and 613: penalty shots included); the preset's
    # shootout.bar_ejected. His team's 5 minutes were over long before.
    so = Shootout(FLOORBALL, extra=[Penalty(S(100), HOME, 9, "match")])
    assert so.refused(HOME, True, 9).endswith("sent off for the rest of the game (match)")
    assert so.shots("H-8 A-9") == ["away", "home"]
