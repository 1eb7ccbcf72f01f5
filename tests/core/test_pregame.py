"""The match day as preset data: the pregame before a scheduled start and the
timekeeper's catch-up suggestion, pure (arena/core/pregame.py, core/catchup.py).

Rules 002 'Match format': the ice is resurfaced before the warm-up and after the first
period; the warm-up starts at T-15 min and lasts 10 min. Rules 000 'Rules': a team must be
ready to come on ice 5 minutes before the start, and a game takes at most 50 minutes
including the warm-up. Rules 003 'General': teams present 5 minutes before the start;
'Match officials': referees may shorten the playing time to keep the schedule.
"""

from __future__ import annotations

import tomllib
from dataclasses import replace

import pytest

from arena import presets
from arena.core.catchup import CatchUp, catch_up, describe, due_end
from arena.core.commands import Start, Stop
from arena.core.errors import PresetError
from arena.core.match import Match, feed
from arena.core.phase import Phase
from arena.core.pregame import HORIZON, PregameStep, pregame_plan
from arena.core.preset import PregameRules, parse_preset
from arena.core.state import state_document
from arena.core.units import NS_PER_S

S = NS_PER_S
MIN = 60 * S
START = 10_000 * S  # the scheduled start on the match timeline


# ------------------------------------------------------------------ preset data, cited


def test_rules_002_pregame_is_youth_hockey_preset_data_with_citations() -> None:
    """Rules 002 'Match format': warm-up at T-15 min, 10 min long, the ice resurfaced before
    it and after the first period."""
    preset = presets.load("youth-hockey-3x18")
    rules = preset.pregame
    assert rules.warmup_lead == 15 * MIN and rules.warmup == 10 * MIN
    assert rules.resurfacing == 10 * MIN and rules.resurfacing_after == (1,)
    assert rules.warmup_horn is True
    assert preset.cite("pregame.warmup_lead_s") == (
        "rules 002, 'Match format': warm-up starts at T-15 min")
    assert preset.cite("pregame.warmup_s") == "rules 002, 'Match format': the warm-up lasts 10 min"
    resurfacing = preset.cite("pregame.resurfacing_s")
    assert resurfacing is not None and resurfacing.startswith(
        "rules 002, 'Match format': the ice is resurfaced before the warm-up")
    after = preset.cite("pregame.resurfacing_after")
    assert after is not None and after.startswith("rules 002, 'Match format'")
    horn = preset.cite("pregame.warmup_horn")
    assert horn is not None and horn.startswith("not stated in rules 002")


def test_rules_000_slot_and_teams_ready_are_ice_hockey_preset_data_with_citations() -> None:
    """Rules 000 'Rules': ready to come on ice 5 minutes before the start; at most 50 minutes
    a game including the warm-up (whose length is not stated: no warm-up countdown)."""
    preset = presets.load("ice-hockey-2x20")
    rules = preset.pregame
    assert rules.teams_ready == 5 * MIN and rules.slot == 50 * MIN and rules.shorten
    assert rules.warmup is None and not rules.warmup_horn
    slot = preset.cite("pregame.slot_s")
    assert slot is not None and slot.startswith("rules 000, 'Rules': the maximum total duration")
    ready = preset.cite("pregame.teams_ready_s")
    assert ready is not None and ready.startswith("rules 000, 'Rules': the team must be ready")


@pytest.mark.parametrize("name", ["football-p08", "football-p10"])
def test_rules_003_teams_ready_and_shortening_are_football_preset_data(name: str) -> None:
    """Rules 003 'General': present 5 minutes before; 'Match officials': shortening."""
    preset = presets.load(name)
    assert preset.pregame.teams_ready == 5 * MIN and preset.pregame.shorten
    assert preset.pregame.slot is None  # not stated: the local schedule says when
    shorten = preset.cite("pregame.shorten")
    assert shorten is not None and shorten.startswith("rules 003, 'Match officials'")


def test_a_preset_without_a_pregame_table_has_none_of_it() -> None:
    preset = presets.load("floorball-2x15")
    assert preset.pregame == PregameRules()
    plan = pregame_plan(preset, START)  # only the bare start countdown, an hour ahead
    assert [s.step for s in plan.spans] == [PregameStep.START] and plan.horn is None
    assert plan.countdown(START - HORIZON - 1) is None


def _with_pregame(table: str) -> dict[str, object]:
    data, _ = presets.resolved(*presets.bundled_text("floorball-u9-2x10"))
    data["pregame"] = tomllib.loads(table)
    return data


@pytest.mark.parametrize(("table", "problem"), [
    ("warmup_s = 600", r"pregame\.warmup_lead_s: missing: warmup_s and warmup_lead_s go"),
    ("warmup_s = 600\nwarmup_lead_s = 300", r"pregame\.warmup_lead_s: the warm-up \(600 s\) "
     "would not be over"),
    ("resurfacing_s = 600", r"pregame\.resurfacing_s: means nothing without a warm-up"),
    ("warmup_horn = true", r"pregame\.warmup_horn: means nothing without a warm-up"),
    ("slot_s = 0", r"pregame\.slot_s: must be at least 1"),
    ("resurfacing_after = [2]", r"pregame\.resurfacing_after: period 2 has no break after it"),
    ("warmup_horns = true", r"pregame\.warmup_horns: unknown key"),
    ("shorten = 1", r"pregame\.shorten: must be true or false"),
])
def test_a_bad_pregame_table_is_refused_naming_the_key(table: str, problem: str) -> None:
    with pytest.raises(PresetError, match=rf"^club\.toml: {problem}"):
        parse_preset(_with_pregame(table), "club.toml")


# ------------------------------------------------------------------ the pregame's timetable


def test_rules_002_pregame_resurfacing_then_warm_up_with_its_horn_then_the_start() -> None:
    """Rules 002 'Match format': resurfaced before the warm-up, which starts at T-15 min and
    lasts 10 min; the horn sounds at its end, exactly (its length: the preset's end horn)."""
    preset = presets.load("youth-hockey-3x18")
    plan = pregame_plan(preset, START)
    warmup_at, warmup_end = START - 15 * MIN, START - 5 * MIN
    assert plan.countdown(warmup_at - 10 * MIN - 1) is None  # before: today's pregame
    shown = plan.countdown(warmup_at - 10 * MIN)
    assert shown is not None and shown.step is PregameStep.RESURFACING
    assert shown.remaining == 10 * MIN  # the time to the warm-up
    shown = plan.countdown(warmup_at)
    assert shown is not None and (shown.step, shown.remaining) == (PregameStep.WARMUP, 10 * MIN)
    shown = plan.countdown(warmup_end)
    assert shown is not None and (shown.step, shown.remaining) == (PregameStep.START, 5 * MIN)
    assert plan.countdown(START) is None
    assert plan.horn is not None
    assert (plan.horn.start, plan.horn.end) == (warmup_end, warmup_end + preset.horn.end)
    assert not plan.horn_sounding(warmup_end - 1) and plan.horn_sounding(warmup_end)
    # What is shown changes at each whole second of the countdown and at each step.
    assert min(plan.changes(warmup_at - 1)) == warmup_at
    assert min(plan.changes(warmup_at + S // 2)) == warmup_at + S
    assert min(plan.changes(warmup_end - 1)) == warmup_end


def test_rules_000_pregame_counts_to_the_teams_deadline_then_to_the_start() -> None:
    """Rules 000 'Rules': ready 5 minutes before the start (no warm-up length, no horn)."""
    plan = pregame_plan(presets.load("ice-hockey-2x20"), START)
    assert [(s.step, s.begin, s.end) for s in plan.spans] == [
        (PregameStep.TEAMS_READY, START - HORIZON, START - 5 * MIN),
        (PregameStep.START, START - 5 * MIN, START)]
    assert plan.horn is None


def test_the_state_document_carries_the_countdown_only_in_pregame() -> None:
    """docs/developer.md 4.3's ``countdown``: what the hall display shows in its pregame slot."""
    match = Match(presets.load("youth-hockey-3x18"))
    at = START - 12 * MIN
    assert "countdown" not in state_document(match, at)  # no scheduled start: as today
    match.schedule(pregame_plan(match.preset, START))
    doc = state_document(match, at)
    assert doc["countdown"] == {"label": "warm-up", "remaining_ms": 7 * 60_000}
    assert state_document(match, START - 5 * MIN)["horn"] is True  # the warm-up's end
    assert match.horn_outlook(START - 6 * MIN).next_change == START - 5 * MIN
    feed(match, Start(at))  # started early: the pregame is over
    assert match.state.phase is Phase.PERIOD
    assert "countdown" not in state_document(match, at + S)
    assert not match.horn_sounding(START - 5 * MIN)


# ------------------------------------------------------------------ the timekeeper's catch-up


def _three_by_fifteen(shorten: bool = True) -> Match:
    """3 x 15 min with two 3-minute breaks, no slack in the schedule."""
    base = presets.load("youth-hockey-3x18")
    preset = replace(base, period_length=15 * MIN, breaks=(3 * MIN, 3 * MIN),
                     pregame=replace(base.pregame, shorten=shorten))
    return Match(preset)


def test_twelve_minutes_late_with_3x15_and_two_3_min_breaks_periods_of_11_00() -> None:
    """Rules 003 'Match officials': the referees may shorten the playing time to keep the
    schedule. 12 min late: 45 + 6 min to play in 39, so three periods of 11:00."""
    match = _three_by_fifteen()
    due = START + 51 * MIN  # the next match needs the ice then (no slack)
    result = catch_up(match, START + 12 * MIN, START, due)
    assert result == CatchUp(behind=12 * MIN, periods=3, period_length=11 * MIN)
    assert describe(result) == ("BEHIND SCHEDULE BY 12:00: 3 PERIODS OF 11:00 WOULD BRING "
                                "IT BACK (THE REFEREE DECIDES)")
    assert catch_up(match, START - 5 * MIN, START, due) == CatchUp(behind=0)
    assert describe(CatchUp(behind=-4 * MIN)) == "ON SCHEDULE (4:00 TO SPARE)"


def test_the_suggestion_follows_the_game_as_it_is_played() -> None:
    """Period 1 played in full from 12 min late: periods 2 and 3 of 9:00 bring it back; a
    stopped clock keeps the game time but the hall falls further behind."""
    match = _three_by_fifteen()
    due = START + 51 * MIN
    late = START + 12 * MIN
    feed(match, Start(late))
    match.advance(late + 15 * MIN)  # period 1 over: the break runs
    assert match.state.phase is Phase.INTERMISSION
    result = catch_up(match, late + 15 * MIN, START, due)
    assert result is not None and (result.periods, result.period_length) == (2, 9 * MIN)
    # Into the break and on to period 2, stopped: nothing moves but the hall's time.
    match.advance(late + 18 * MIN)
    feed(match, Start(late + 18 * MIN))
    feed(match, Stop(late + 19 * MIN))
    before = catch_up(match, late + 19 * MIN, START, due)
    after = catch_up(match, late + 21 * MIN, START, due)
    assert before is not None and after is not None
    assert after.behind == before.behind + 2 * MIN
    assert after.periods == 1  # period 2 has begun; period 3 takes what is left


def test_in_the_last_period_the_suggestion_is_its_clock() -> None:
    match = _three_by_fifteen()
    preset = match.preset
    match = Match(replace(preset, periods=1, breaks=()))
    feed(match, Start(START))
    feed(match, Stop(START + 5 * MIN))  # 10:00 left, stopped 3 minutes
    result = catch_up(match, START + 8 * MIN, START, START + 15 * MIN)
    assert result == CatchUp(behind=3 * MIN, clock=7 * MIN)
    assert describe(result).endswith("THE CLOCK AT 7:00 WOULD BRING IT BACK (THE REFEREE "
                                     "DECIDES)")


def test_where_the_rules_do_not_shorten_only_the_lateness_is_shown() -> None:
    """Rules 002 'Match format': 3 x 18 without stopping the clock, nothing on shortening."""
    match = _three_by_fifteen(shorten=False)
    result = catch_up(match, START + 12 * MIN, START, START + 51 * MIN)
    assert result == CatchUp(behind=12 * MIN)
    assert describe(result) == "BEHIND SCHEDULE BY 12:00"


def test_too_late_to_catch_up_by_shortening_suggests_nothing() -> None:
    match = _three_by_fifteen()
    result = catch_up(match, START + 50 * MIN, START, START + 51 * MIN)
    assert result is not None and result.period_length is None and result.behind > 0


def test_due_end_from_the_next_match_or_the_slot() -> None:
    """Rules 000 'Rules': 50 minutes a game, the warm-up included; rules 002: the next
    match's resurfacing and warm-up (25 min before its start) need the ice."""
    hockey = Match(presets.load("ice-hockey-2x20"))
    assert due_end(hockey, START, None) == START + 50 * MIN
    assert due_end(hockey, START, START + 45 * MIN) == START + 45 * MIN
    youth = Match(presets.load("youth-hockey-3x18"))
    assert due_end(youth, START, None) is None  # no slot stated: the schedule must say
    assert due_end(youth, START, START + 90 * MIN) == START + 65 * MIN
