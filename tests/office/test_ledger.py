"""The office's fold of hall events into results, tables, bracket, suspensions and ``next``.

Every event here comes from the real core (tests/office/games.py), as a hall publishes it.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from arena.core.phase import Stage as CoreStage
from arena.tournament.files import load_tournament
from arena.tournament.model import ResultState, Stage, Tournament
from firmware_py.mqtt import parse_next
from office.rules import bracket
from office.views.ledger import Correction, Ledger, Received, Review, ReviewAction, build

from .games import Play, hall_event, play

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 12, 5, 12, 0, 0)


@pytest.fixture(scope="module")
def cup() -> Tournament:
    return load_tournament(ROOT / "examples/tournaments/001-floorball.toml")


def events_of(t: Tournament, plays: list[Play], *, at: datetime = T0) -> list[Received]:
    out = []
    for game in plays:
        m = t.match(game.match)
        assert m is not None
        for payload in play(m.preset, m.hall, game):
            out.append(Received(hall_event(payload), at))
    return out


def group_plays(t: Tournament, group: str, scores: dict[str, tuple[int, int]]) -> list[Play]:
    plays = []
    for m in t.group_matches(group):
        if m.id in scores:
            assert m.home.team is not None and m.away.team is not None
            h, a = scores[m.id]
            plays.append(Play(m.id, m.home.team, m.away.team, h, a))
    return plays


def all_group_results(t: Tournament) -> dict[str, tuple[int, int]]:
    """A decisive result for every group match: the team listed first in the group wins
    most (goals by the difference of their list positions)."""
    scores = {}
    for g in t.groups:
        for m in t.group_matches(g.name):
            assert m.home.team is not None and m.away.team is not None
            h, a = g.teams.index(m.home.team), g.teams.index(m.away.team)
            scores[m.id] = (3, 1) if h < a else (1, 3)
    return scores


def test_no_events_every_match_scheduled_and_the_first_match_is_next(cup: Tournament) -> None:
    ledger = build(cup, [], now=T0)
    assert {v.outcome.state for v in ledger.matches.values()} == {ResultState.SCHEDULED}
    for hall in cup.halls():
        first = next(m for m in cup.matches if m.hall == hall)
        assert ledger.next_for_hall(hall) == first


def test_a_final_becomes_confirmed_when_the_protest_window_passes(cup: Tournament) -> None:
    # Rules 001 'Protests': "no later than 15 minutes after the end of the match".
    first = cup.group_matches("A")[0]
    evs = events_of(cup, group_plays(cup, "A", {first.id: (2, 1)}))
    assert build(cup, evs, now=T0 + timedelta(minutes=14, seconds=59)).matches[
        first.id].outcome.state is ResultState.FINAL
    later = build(cup, evs, now=T0 + timedelta(minutes=15))
    assert later.matches[first.id].outcome.state is ResultState.CONFIRMED
    ledger = build(cup, evs, now=T0)
    assert ledger.next_change == T0 + timedelta(minutes=15)
    assert ledger.tables["A"].provisional
    assert not later.tables["A"].provisional


def test_duplicates_and_any_arrival_order_change_nothing(cup: Tournament) -> None:
    evs = events_of(cup, group_plays(cup, "A", all_group_results(cup)))
    reference = build(cup, evs, now=T0)
    shuffled = evs + evs[: len(evs) // 2]
    random.Random(7).shuffle(shuffled)
    again = build(cup, shuffled, now=T0)
    assert again.tables == reference.tables
    assert again.outcomes() == reference.outcomes()
    assert again.pairings == reference.pairings


def test_a_match_being_played_is_live_and_no_longer_next(cup: Tournament) -> None:
    first = cup.group_matches("A")[0]
    assert first.home.team and first.away.team
    payloads = play(first.preset, first.hall,
                    Play(first.id, first.home.team, first.away.team, 1, 0), finish=False)
    ledger = build(cup, [Received(hall_event(p), T0) for p in payloads], now=T0)
    view = ledger.matches[first.id]
    assert view.outcome.state is ResultState.LIVE
    assert view.live_score == (1, 0)
    nxt = ledger.next_for_hall(first.hall)
    assert nxt is not None and nxt.id != first.id


def test_missing_events_are_shown_as_gaps_and_the_result_still_counts(cup: Tournament) -> None:
    first = cup.group_matches("A")[0]
    evs = events_of(cup, group_plays(cup, "A", {first.id: (2, 1)}))
    holed = [r for r in evs if r.event.seq not in (2, 3, 5)]
    ledger = build(cup, holed, now=T0)
    assert ledger.matches[first.id].gaps == (2, 3, 5)
    assert any("events 2-3, 5" in w for w in ledger.warnings)
    assert ledger.matches[first.id].outcome.result is not None


def complete_groups(t: Tournament, now: datetime) -> tuple[list[Received], Ledger]:
    evs = events_of(t, group_plays(t, "A", all_group_results(t))
                    + group_plays(t, "B", all_group_results(t)))
    return evs, build(t, evs, now=now)


def test_complete_groups_fill_the_semis(cup: Tournament) -> None:
    _, ledger = complete_groups(cup, T0 + timedelta(hours=1))
    a, b = (cup.groups[0].teams, cup.groups[1].teams)
    semis = [m for m in cup.matches if m.stage is Stage.PLAYOFF and m.home.group]
    assert {(ledger.pairings[m.id].home, ledger.pairings[m.id].away) for m in semis} == {
        (a[0], b[1]), (b[0], a[1])}


def test_a_correction_re_ranks_and_re_fills_the_bracket(cup: Tournament) -> None:
    evs, before = complete_groups(cup, T0 + timedelta(hours=1))
    a = cup.groups[0].teams
    # The match between the first two of group A, turned round by the jury.
    decisive = next(m for m in cup.group_matches("A") if {m.home.team, m.away.team} == {a[0], a[1]})
    score = (0, 5) if decisive.home.team == a[0] else (5, 0)
    fix = Correction(decisive.id, *score, reason="ineligible player (rules 001)", at=T0)
    after = build(cup, evs, [fix], now=T0 + timedelta(hours=1))
    assert after.matches[decisive.id].outcome.state is ResultState.CORRECTED
    assert [r.team for r in after.tables["A"].rows][:2] == [a[1], a[0]]
    assert bracket.changes(before.pairings, after.pairings)


def test_next_is_a_valid_next_document_with_suspended_players() -> None:
    t = load_tournament(ROOT / "examples/tournaments/000-ice-hockey.toml")
    # Rules 000 'Penalties' 4: a match penalty suspends the player for the next game.
    first = t.matches[0]
    assert first.home.team and first.away.team
    evs = [Received(hall_event(p), T0) for p in play(
        first.preset, first.hall,
        Play(first.id, first.home.team, first.away.team, 1, 0, [("home", 7, "match")]))]
    ledger = build(t, evs, now=T0)
    team = first.home.team
    later = next(m for m in t.matches[1:] if team in (m.home.team, m.away.team))
    doc: dict[str, Any] | None = None
    for hall in t.halls():
        d = ledger.next_document(hall)
        if d is not None and d["match"] == later.id:
            doc = d
    if doc is None:  # the team's next game is not the very next one of its hall
        suspended = [s for s in ledger.suspensions if s.team == team]
        assert suspended and suspended[0].pending == (later.id,)
        return
    parsed = parse_next(json.dumps(doc).encode())
    side = "home" if later.home.team == team else "away"
    assert {"team": side, "player": 7} in parsed["suspended"]


def test_every_next_document_passes_the_halls_own_check() -> None:
    for path in sorted((ROOT / "examples/tournaments").glob("*.toml")):
        t = load_tournament(path)
        ledger = build(t, [], now=T0)
        for hall in t.halls():
            doc = ledger.next_document(hall)
            assert doc is not None
            assert parse_next(json.dumps(doc).encode())["match"] == doc["match"]


def test_a_bracket_match_played_under_placeholder_names_needs_review_until_swapped(
        cup: Tournament) -> None:
    evs, ledger = complete_groups(cup, T0 + timedelta(hours=1))
    semi = next(m for m in cup.matches if m.stage is Stage.PLAYOFF and m.home.group)
    # The hall played it under "1st A" / "2nd B" (a local schedule: the office never sends
    # such a match): the office does not credit the real teams with it on its own.
    evs += events_of(cup, [Play(semi.id, semi.home.label(), semi.away.label(), 4, 2,
                                stage=CoreStage.PLAYOFF)])
    later = T0 + timedelta(hours=2)
    after = build(cup, evs, now=later)
    view = after.matches[semi.id]
    assert view.outcome.state is ResultState.NEEDS_REVIEW  # never confirmed by the window
    assert view.review is not None and "1st A" in view.review
    assert [v.scheduled.id for v in after.review()] == [semi.id]
    final = next(m for m in cup.matches if semi.id in (m.home.match, m.away.match))
    assert None in (after.pairings[final.id].home, after.pairings[final.id].away)
    # The office accepts it for the pairing (office review --swap): the real teams.
    p = ledger.pairings[semi.id]
    swap = Review(semi.id, ReviewAction.SWAP, "hall used the slot names", later, p.home, p.away)
    settled = build(cup, evs, now=later, reviews=[swap])
    result = settled.matches[semi.id].outcome.result
    assert result is not None and result.winner == p.home
    assert settled.matches[semi.id].outcome.state is ResultState.CONFIRMED
    assert p.home in (settled.pairings[final.id].home, settled.pairings[final.id].away)


def test_a_cancelled_golden_goal_reopens_the_match_at_the_office() -> None:
    # Rules 002 'Overtime': a golden goal ends the match; the timekeeper cancels it (the
    # referee disallowed it) and overtime goes on, so the office shows the match live again.
    from arena import presets  # noqa: PLC0415
    from arena.core.commands import Cancel, End, Goal, Start  # noqa: PLC0415
    from arena.core.match import Match, feed  # noqa: PLC0415
    from arena.core.phase import Team  # noqa: PLC0415
    from arena.core.values import MatchSetup, TeamInfo  # noqa: PLC0415
    from arena.wire import event_document  # noqa: PLC0415

    t = load_tournament(ROOT / "examples/tournaments/002-youth-hockey.toml")
    m = t.match("A1")
    assert m is not None and m.home.team is not None and m.away.team is not None
    match = Match(presets.load(m.preset), MatchSetup(
        m.id, CoreStage.GROUP, TeamInfo(m.home.team, ("#000000", "#ffffff")),
        TeamInfo(m.away.team, ("#ffffff", "#000000"))))
    second = 1_000_000_000
    events = []
    for n, cmd in enumerate([Start(0), End(1), Start(2), End(3), Start(4), End(5), Start(6),
                             Goal(7 * second, Team.AWAY, 9)]):
        fed = feed(match, cmd)
        assert fed.refused is None, fed.refused
        events += fed.events
        assert n < 7 or match.state.phase.value == "final"

    def received() -> list[Received]:
        return [Received(hall_event(event_document(m.hall, {
            "match": m.id, "seq": e.seq, "event": e.kind.value, "data": dict(e.data),
            "at": e.at})), T0) for e in events]

    assert build(t, received(), now=T0).matches[m.id].outcome.state in (
        ResultState.FINAL, ResultState.CONFIRMED)
    goal = match.state.goals[-1].seq
    fed = feed(match, Cancel(8 * second, goal))
    assert fed.refused is None and fed.events[-1].data["phase"] == "overtime"
    events += fed.events
    assert build(t, received(), now=T0).matches[m.id].outcome.state is ResultState.LIVE
