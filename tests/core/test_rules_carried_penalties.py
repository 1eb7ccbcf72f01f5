"""Penalties over a period's end: every part still to serve is carried over the break and
into the next period or overtime, and served there with the strength that follows.

Rules 002 (youth hockey): 'Rules': a minor penalty lasts until the end of the shift (play
stops every 60 s for a line change, and a period's end ends its last shift); a double minor
is two minors served one after the other (IIHF Official Rule Book, the rules 002 rely on
where silent); 'Overtime': penalised players stay in the penalty box during the break.
Rules 000 and 001 (ice hockey, floorball): penalty time is game time (IIHF; IFF Rules of
the Game 601.4), so the rest of a penalty is served after the break. Rules 003 (football)
have no timed penalties (tests/core/test_rules_penalties.py holds the refusal).
"""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from arena.core.commands import Goal, Penalty, Start
from arena.core.events import Event, EventKind
from arena.core.match import Match
from arena.core.phase import Stage, Team
from arena.core.preset import parse_preset
from arena.core.values import MatchSetup

from .helpers import Game, S

HOME, AWAY = Team.HOME, Team.AWAY
YOUTH = "youth-hockey-3x18"

# Youth hockey (rules 002 'Match format'): 3 x 18 min running clock, 10 min after period 1,
# 3 min after period 2, 3 min before overtime (6 min). Every period is started the instant
# its break ends, so game time g is at script time g, g + 600, g + 780 and g + 960.
PERIOD = 1080
STARTS = (0, 1680, 2940, 4200)  # script times of periods 1-3 and overtime
OFFSETS = (0, 600, 780, 960)


def box(doc: dict[str, Any], team: str) -> list[tuple[int, str, int, bool]]:
    return [(p["player"], p["kind"], p["remaining_ms"], p["running"])
            for p in doc["penalties"][team]]


def ended(g: Game, seq: int | None = None) -> list[Event]:
    return [e for e in g.events if e.kind is EventKind.PENALTY_ENDED
            and (seq is None or e.data["penalty_seq"] == seq)]


def youth(up_to: int = 1, game: Game | None = None) -> Game:
    """A youth match whose periods (and overtime) start as their breaks end, the first
    ``up_to`` of them started (4: overtime too)."""
    g = game or Game(YOUTH)
    for index in range(up_to):
        start_period(g, index)
    return g


def start_period(g: Game, index: int) -> None:
    """Start period ``index + 1`` (3: overtime) the instant its break ends."""
    g.at(STARTS[index])
    g.do(Start(S(STARTS[index])))


def script_time(game_s: float, *, at_end: bool) -> float:
    """The script time of game time ``game_s``: a period's end (``at_end``) is where the
    period ends, not where the next one starts."""
    for index in range(3, -1, -1):
        boundary = index * PERIOD
        if game_s > boundary or (game_s == boundary and not at_end):
            return game_s + OFFSETS[index]
    return game_s


def test_rules_002_a_double_minor_keeps_its_second_part_over_the_intermission() -> None:
    # Rules 002 'Rules': a minor lasts until the end of the shift; the double minor's
    # second part is the next shift played, the first of period 2; 'Overtime': penalised
    # players stay in the penalty box over the break.
    g = youth(up_to=1)
    g.do(Penalty(S(1075), HOME, 7, "double_minor"))  # 5 s before period 1 ends
    assert box(g.at(1079), "home") == [(7, "double_minor", 61_000, True)]
    for t in (1080, 1081, 1679):  # the intermission: 60 s still to serve, still 4 v 5
        doc = g.at(t)
        assert doc["phase"] == "intermission"
        assert box(doc, "home") == [(7, "double_minor", 60_000, True)]
        assert doc["strength"] == {"home": 4, "away": 5}
    start_period(g, 1)
    doc = g.at(1700)
    assert box(doc, "home") == [(7, "double_minor", 40_000, True)]
    assert doc["strength"] == {"home": 4, "away": 5} and doc["shift_ms"] == 40_000
    doc = g.at(1740)  # the first shift of period 2 ends: so does the penalty
    assert doc["penalties"]["home"] == [] and doc["strength"]["home"] == 5
    [end] = ended(g)
    assert (end.at, end.data["part_ended"], end.data["finished"]) == (S(1740), 2, True)


def test_rules_002_a_double_minor_keeps_its_second_part_into_overtime() -> None:
    # Rules 002 'Overtime': a tie goes to a 3 min break, penalised players staying in the
    # penalty box, then overtime with 5 skaters a side: 4 v 5 while the part runs.
    g = youth(up_to=3)
    g.do(Penalty(S(4010), AWAY, 4, "double_minor"))  # 10 s before regulation ends
    doc = g.at(4020)
    assert doc["phase"] == "overtime_break"
    assert box(doc, "away") == [(4, "double_minor", 60_000, True)]
    assert doc["strength"] == {"home": 5, "away": 4}
    start_period(g, 3)
    doc = g.at(4230)
    assert (doc["phase"], doc["strength"]) == ("overtime", {"home": 5, "away": 4})
    assert box(doc, "away") == [(4, "double_minor", 30_000, True)]
    assert g.at(4260)["penalties"]["away"] == []
    assert [e.at for e in ended(g)] == [S(4260)]


def test_rules_002_a_minor_given_in_the_last_shift_ends_with_the_period() -> None:
    # Rules 002 'Rules': a minor lasts until the end of the shift, and the period's end
    # ends the period's last shift (18 min are 18 shifts of 60 s): nothing is carried.
    g = youth(up_to=1)
    g.do(Penalty(S(1075), HOME, 7, "minor"))
    doc = g.at(1080)
    assert doc["phase"] == "intermission" and doc["penalties"]["home"] == []
    assert doc["strength"]["home"] == 5
    assert [e.at for e in ended(g)] == [S(1080)]


def test_rules_002_a_penalty_whose_place_frees_at_the_period_end_serves_the_next_shift(
) -> None:
    # IIHF (delayed penalties; rules 002 rely on it): a third penalty waits for a place;
    # rules 002: once it starts it lasts a whole shift, here the first of period 2, not
    # the no time left of period 1.
    g = youth(up_to=1)
    for player in (7, 8, 9):
        g.do(Penalty(S(1070), HOME, player, "minor"))
    assert box(g.at(1079), "home")[2] == (9, "minor", 60_000, False)
    doc = g.at(1080)
    assert box(doc, "home") == [(9, "minor", 60_000, True)]
    assert doc["strength"]["home"] == 4
    start_period(g, 1)
    assert g.at(1739)["strength"]["home"] == 4
    assert g.at(1740)["penalties"]["home"] == []


def test_rules_002_a_carried_part_is_ended_by_a_power_play_goal() -> None:
    # Rules 002 'Overtime' (penalised players stay in the box) and the IIHF rule 16 the
    # preset cites: a goal against the shorthanded team ends the minor's current part.
    g = youth(up_to=1)
    g.do(Penalty(S(1075), HOME, 7, "double_minor"))
    start_period(g, 1)
    g.do(Goal(S(1700), AWAY, 10))
    doc = g.at(1700)
    assert doc["penalties"]["home"] == [] and doc["strength"]["home"] == 5
    [end] = ended(g)
    assert (end.at, end.data["how"], end.data["part_ended"]) == (S(1700), "released", 2)


def test_rules_002_without_shifts_in_overtime_a_carried_part_lasts_its_length() -> None:
    # A preset whose overtime has no line changes (shifts.in_overtime = false): a part that
    # would end with a shift is served for its own length there (here 45 s, to tell it
    # from the 60 s shift).
    text = resources.files("arena.presets").joinpath(f"{YOUTH}.toml").read_text("utf-8")
    text = text.replace("in_overtime = true", "in_overtime = false")
    text = text.replace("[penalties.kinds.double_minor]\nparts_s = [60, 60]",
                        "[penalties.kinds.double_minor]\nparts_s = [60, 45]")
    g = Game(YOUTH)
    g.match = Match(parse_preset(tomllib.loads(text), "custom.toml"),
                    MatchSetup(match_id="T1", stage=Stage.GROUP))
    youth(up_to=3, game=g)
    g.do(Penalty(S(4010), AWAY, 4, "double_minor"))
    assert box(g.at(4020), "away") == [(4, "double_minor", 45_000, True)]
    start_period(g, 3)
    assert g.at(4244)["strength"]["away"] == 4
    assert g.at(4245)["penalties"]["away"] == []


# Where a penalty falls: any shift of regulation, often its last seconds and often the
# last shift of a period (where the second part is carried over a break).
shift_numbers = st.one_of(st.integers(0, 3 * PERIOD // 60 - 1), st.sampled_from([17, 35, 53]))
into_shift_ms = st.one_of(st.integers(0, 59_999), st.integers(55_000, 59_999))


@settings(max_examples=40, deadline=None)
@given(shift=shift_numbers, into_ms=into_shift_ms,
       kind=st.sampled_from(["minor", "double_minor"]))
@example(shift=17, into_ms=59_999, kind="double_minor")  # the issue: seconds before the end
@example(shift=53, into_ms=0, kind="double_minor")  # into overtime
@example(shift=18, into_ms=0, kind="minor")  # the first instant of period 2
def test_rules_002_every_part_is_a_whole_shift_wherever_the_penalty_falls(
    shift: int, into_ms: int, kind: str,
) -> None:
    # Rules 002 'Rules': each minor lasts until the end of the shift it starts in (play
    # stops every 60 s of game time, and the period's end is a shift's end); the double
    # minor's second part is the next shift played, after a break if need be ('Overtime':
    # the penalised stay in the box), overtime included. The team is one short throughout.
    given_ms = shift * 60_000 + into_ms
    first = (shift + 1) * 60
    end = first + (60 if kind == "double_minor" else 0)
    g = youth(up_to=1 + given_ms // (PERIOD * 1000))
    given_at = script_time(given_ms / 1000, at_end=False)
    g.at(given_at)
    g.do(Penalty(S(given_at), HOME, 7, kind))
    for index, start in enumerate(STARTS):
        if start > given_at and index * PERIOD < end:
            start_period(g, index)
    end_at = script_time(end, at_end=True)
    checks = {script_time(first, at_end=True), script_time(first, at_end=True) + 0.5,
              end_at - 0.001}
    for t in sorted(c for c in checks if given_at <= c < end_at):
        assert g.at(t)["strength"]["home"] == 4, (t, g.at(t)["penalties"])
    doc = g.at(end_at)
    assert doc["penalties"]["home"] == [] and doc["strength"]["home"] == 5
    [done] = ended(g)
    assert (done.at, done.data["finished"]) == (S(end_at), True)


@settings(max_examples=30, deadline=None)
@given(given_s=st.integers(0, 1199),
       preset=st.sampled_from([("ice-hockey-2x20", 60), ("floorball-2x20", 120)]))
def test_a_timed_double_minor_is_served_in_full_across_the_break(
    given_s: int, preset: tuple[str, int],
) -> None:
    # Rules 000 'Rules' (one minute break) with the IIHF's 2+2, and IFF Rules of the Game
    # 601.4 and 603.5 (two minors of a player one after the other): penalty time is game
    # time, so what is left at the period's end is served after the break.
    name, break_s = preset
    g = Game(name)
    g.do(Start(0))
    g.do(Penalty(S(given_s), HOME, 7, "double_minor"))
    end = given_s + 240
    end_at = end if end <= 1200 else end + break_s
    if given_s + 120 < 1200 < end:  # the second part runs over the break
        assert g.at(1200 + break_s / 2)["strength"]["home"] == 4
    if end > 1200:
        g.at(1200 + break_s)
        g.do(Start(S(1200 + break_s)))
    assert g.at(end_at - 0.001)["strength"]["home"] == 4
    assert g.at(end_at)["penalties"]["home"] == []
    assert [e.at for e in ended(g)] == [S(end_at)]
