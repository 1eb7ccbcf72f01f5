"""Final placings (office.views.placings) and top scorers (office.views.scorers) per category, and
their exports: read off the example tournaments' brackets and the matches' records."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from types import MappingProxyType

import pytest

from arena import presets
from arena.core.commands import End, Goal, Start, Undo
from arena.core.match import Match, feed
from arena.core.phase import Phase, Team
from arena.core.phase import Stage as CoreStage
from arena.core.values import MatchSetup, TeamInfo
from arena.tournament.event import Event
from arena.tournament.files import load_event, load_tournament
from arena.tournament.model import DecidedBy, Tournament
from arena.wire import event_document
from office.rules import rulings
from office.views.ledger import Correction, Ledger, Received, Review, ReviewAction, build
from office.views.placings import placings
from office.views.scorers import top_scorers
from office.views.snapshot import event_snapshot, snapshot
from office.web.officepage import placings_csv, scorers_csv

from .games import Play, hall_event
from .test_ledger import all_group_results, events_of, group_plays

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples/tournaments"
T0 = datetime(2026, 12, 5, 12, 0, 0)
LATER = T0 + timedelta(days=1)


def shape(ledger: Ledger) -> list[tuple[int | None, str]]:
    return [(p.place, p.label) for p in placings(ledger)]


def test_000_places_1_to_10_from_the_final_bronze_and_placement_games() -> None:
    # Rules 000 'Format' 2A: 1st and 2nd of each group play the semi-finals and finals for
    # places 1 to 4; 2B: 3rd, 4th and 5th play placement games (the file: P5, P7, P9).
    ledger = build(load_tournament(EXAMPLES / "000-ice-hockey.toml"), [], now=T0)
    assert shape(ledger) == [
        (1, "Winner F"), (2, "Loser F"), (3, "Winner BR"), (4, "Loser BR"),
        (5, "Winner P5"), (6, "Loser P5"), (7, "Winner P7"), (8, "Loser P7"),
        (9, "Winner P9"), (10, "Loser P9")]


def test_001_both_semi_final_losers_share_third_place() -> None:
    # Rules 001 'Prizes': "Players of the 1st-4th place teams will receive medals. The
    # match for third place will not be played."
    ledger = build(load_tournament(EXAMPLES / "001-floorball.toml"), [], now=T0)
    assert shape(ledger) == [(1, "Winner F"), (2, "Loser F"), (3, "Loser SF1"),
                             (3, "Loser SF2")]
    assert [p.shared for p in placings(ledger)] == [False, False, True, True]


def test_002_final_and_third_place_game() -> None:
    ledger = build(load_tournament(EXAMPLES / "002-youth-hockey.toml"), [], now=T0)
    assert [place for place, _ in shape(ledger)] == [1, 2, 3, 4]
    assert [p.match for p in placings(ledger)] == ["F", "F", "P3", "P3"]


def test_003_follow_up_matches_by_group_place() -> None:
    # Rules 003 'General': "one follow-up match is played according to the group placing":
    # 1st A v 1st B for places 1 and 2, ... 4th A v 4th B for 7 and 8.
    ledger = build(load_tournament(EXAMPLES / "003-football.toml"), [], now=T0)
    assert [p.match for p in placings(ledger)] == ["X1", "X1", "X2", "X2", "X3", "X3",
                                                   "X4", "X4"]
    assert [place for place, _ in shape(ledger)] == list(range(1, 9))


def played_001() -> tuple[Tournament, Ledger]:
    """Rules 001's example played to its final: groups, semis, final (home wins each)."""
    t = load_tournament(EXAMPLES / "001-floorball.toml")
    scores = all_group_results(t)
    evs = events_of(t, group_plays(t, "A", scores) + group_plays(t, "B", scores))
    ledger = build(t, evs, now=LATER)
    for mid in ("SF1", "SF2", "F"):
        p = ledger.pairings[mid]
        assert p.home and p.away
        evs += events_of(t, [Play(mid, p.home, p.away, 2, 1, stage=CoreStage.PLAYOFF)])
        ledger = build(t, evs, now=LATER)
    return t, ledger


def test_placings_name_the_teams_once_played_and_the_rest_are_not_placed() -> None:
    t, ledger = played_001()
    sf1, sf2 = ledger.pairings["SF1"], ledger.pairings["SF2"]
    found = placings(ledger)
    assert [(p.place, p.team) for p in found[:4]] == [
        (1, sf1.home), (2, sf2.home), (3, sf1.away), (3, sf2.away)]
    rest = found[4:]
    assert {p.team for p in rest} == set(t.teams) - {p.team for p in found[:4]}
    assert {(p.place, p.label) for p in rest} == {(None, "not placed")}
    rows = list(csv.reader(io.StringIO(placings_csv(snapshot(ledger, {}, (), LATER))
                                       .decode("utf-8-sig"))))
    assert rows[0] == ["place", "team", "shared", "decided_in", "provisional", "note"]
    assert rows[1][:4] == ["1", sf1.home, "false", "F"]
    assert rows[3][:3] == ["3", sf1.away, "true"]


def test_a_place_not_decided_yet_says_who_it_will_be_and_rest_waits() -> None:
    t = load_tournament(EXAMPLES / "001-floorball.toml")
    found = placings(build(t, [], now=T0))
    assert all(p.team is None for p in found)
    assert len(found) == 4  # nobody is "not placed" while places are open


def with_roster(t: Tournament, team: str, roster: dict[int, str]) -> Tournament:
    teams = dict(t.teams)
    teams[team] = replace(teams[team], roster=MappingProxyType(roster))
    return replace(t, teams=MappingProxyType(teams))


def test_top_scorers_from_the_records_with_the_roster_names() -> None:
    t = with_roster(load_tournament(EXAMPLES / "001-floorball.toml"), "FBC Ostrava",
                    {20: "J. Novák"})
    # A3 IBF Falun 1-3 FBC Ostrava, A5 Tatran Střešovice 1-3 FBC Ostrava: away goals are
    # by #20, #21, #22 (tests/office/games.py), home's by #10.
    plays = [p for p in group_plays(t, "A", all_group_results(t)) if p.match in ("A3", "A5")]
    ledger = build(t, events_of(t, plays), now=LATER)
    scorers = top_scorers(ledger)
    assert [(s.rank, s.team, s.player, s.goals) for s in scorers[:3]] == [
        (1, "FBC Ostrava", 20, 2), (1, "FBC Ostrava", 21, 2), (1, "FBC Ostrava", 22, 2)]
    assert scorers[0].name == "J. Novák"
    assert {(s.rank, s.goals) for s in scorers[3:]} == {(4, 1)}
    assert {s.team for s in scorers[3:]} == {"IBF Falun", "Tatran Střešovice"}
    rows = list(csv.reader(io.StringIO(scorers_csv(snapshot(ledger, {}, (), LATER))
                                       .decode("utf-8-sig"))))
    assert rows[:2] == [["rank", "team", "player", "name", "goals"],
                        ["1", "FBC Ostrava", "20", "J. Novák", "2"]]
    # A forfeit has no scorers (the 0:5 replaces what was played): A5's goals go.
    forfeit = rulings.Forfeit("A5", "Tatran Střešovice", rulings.ForfeitCause.LATE, "late",
                              T0)
    fix = Correction("A5", 0, 5, "late", T0, DecidedBy.FORFEIT, forfeit)
    after = top_scorers(build(t, events_of(t, plays), [fix], now=LATER))
    assert [(s.player, s.goals) for s in after if s.team == "FBC Ostrava"] == [
        (20, 1), (21, 1), (22, 1)]


def test_a_goal_corrected_away_takes_that_sides_scorers_off_and_says_so() -> None:
    # Rules 001 'Protests': the jury's result replaces the hall's. A3 was played IBF Falun
    # 1-3 FBC Ostrava (Falun's #10; Ostrava's #20, #21, #22).
    t = load_tournament(EXAMPLES / "001-floorball.toml")
    plays = [p for p in group_plays(t, "A", all_group_results(t)) if p.match == "A3"]

    def scorers(*fixes: Correction) -> tuple[set[tuple[str, int]], Ledger]:
        ledger = build(t, events_of(t, plays), list(fixes), now=LATER)
        return {(s.team, s.player) for s in top_scorers(ledger)}, ledger

    played, _ = scorers()
    assert played == {("IBF Falun", 10), ("FBC Ostrava", 20), ("FBC Ostrava", 21),
                      ("FBC Ostrava", 22)}
    # A goal of Ostrava's disallowed (1-2): which one the record does not say, so none of
    # Ostrava's three counts, Falun's still does; the office is told.
    fewer, ledger = scorers(Correction("A3", 1, 2, "goal disallowed", T0))
    assert fewer == {("IBF Falun", 10)}
    assert ledger.matches["A3"].uncredited == ("FBC Ostrava",)
    assert any(w.startswith("A3: corrected to 1:2, fewer goals for FBC Ostrava") and
               "scorers of A3 are not counted" in w for w in ledger.warnings)
    # A goal given that the hall missed (2-3): every goal recorded still stands.
    more, ledger = scorers(Correction("A3", 2, 3, "goal given", T0))
    assert more == played and ledger.matches["A3"].uncredited == ()
    assert not any(w.startswith("A3: corrected") for w in ledger.warnings)
    # The latest correction counts: set back to 1-3, the scorers are back.
    back, _ = scorers(Correction("A3", 1, 2, "goal disallowed", T0),
                      Correction("A3", 1, 3, "protest withdrawn", T0))
    assert back == played


def test_a_replayed_or_voided_match_counts_no_scorer() -> None:
    # A3 IBF Falun 1-3 FBC Ostrava, A5 Tatran Střešovice 1-3 FBC Ostrava, played.
    t = load_tournament(EXAMPLES / "001-floorball.toml")
    plays = [p for p in group_plays(t, "A", all_group_results(t)) if p.match in ("A3", "A5")]
    played = build(t, events_of(t, plays), now=LATER)
    assert ("Tatran Střešovice", 10) in {(s.team, s.player) for s in top_scorers(played)}
    # The office orders A5 replayed (office review --replay): what was played is void.
    seq = played.matches["A5"].final_seq
    replay = Review("A5", ReviewAction.REPLAY, "wrong teams", T0, seq=seq)
    replayed = build(t, events_of(t, plays), now=LATER, reviews=[replay])
    assert {(s.team, s.player, s.goals) for s in top_scorers(replayed)} == {
        ("IBF Falun", 10, 1), ("FBC Ostrava", 20, 1), ("FBC Ostrava", 21, 1),
        ("FBC Ostrava", 22, 1)}
    # Rules 001 'Waiting period': Tatran late twice (A2, A4) is eliminated, its group
    # matches voided: A5's goals count for nobody, A3's still do.
    late = [Correction(m, *score, "late", T0, DecidedBy.FORFEIT,
                       rulings.Forfeit(m, "Tatran Střešovice", rulings.ForfeitCause.LATE,
                                       "late", T0))
            for m, score in (("A2", (5, 0)), ("A4", (5, 0)))]
    voided = build(t, events_of(t, plays), late, now=LATER)
    assert "A5" in voided.voided
    assert {(s.team, s.player, s.goals) for s in top_scorers(voided)} == {
        ("IBF Falun", 10, 1), ("FBC Ostrava", 20, 1), ("FBC Ostrava", 21, 1),
        ("FBC Ostrava", 22, 1)}


def test_a_goal_taken_back_before_the_final_is_not_counted() -> None:
    # The office keeps the record of the final that stands, not every goal event: a goal
    # undone by the timekeeper was sent as an event, but is not in the record.
    t = load_tournament(EXAMPLES / "001-floorball.toml")
    m = t.match("A1")
    assert m is not None and m.home.team and m.away.team
    match = Match(presets.load(m.preset), MatchSetup(
        m.id, CoreStage.GROUP, TeamInfo(m.home.team, ("#000000", "#ffffff")),
        TeamInfo(m.away.team, ("#ffffff", "#000000"))))
    events = []
    second = 1_000_000_000
    commands = [Start(0), Goal(second, Team.HOME, 9), Undo(2 * second),
                Goal(3 * second, Team.HOME, 14)]
    for cmd in commands:
        fed = feed(match, cmd)
        assert fed.refused is None
        events += fed.events
    n = 4
    while match.state.phase is not Phase.FINAL:
        n += 1
        fed = feed(match, End(n * second))
        events += fed.events
    payloads = [event_document(m.hall, {"match": m.id, "seq": e.seq, "event": e.kind.value,
                                        "data": dict(e.data), "at": e.at}) for e in events]
    assert any(p["type"] == "goal" and p["data"].get("player") == 9 for p in payloads)
    ledger = build(t, [Received(hall_event(p), T0) for p in payloads], now=LATER)
    assert [(s.team, s.player, s.goals) for s in top_scorers(ledger)] == [
        (m.home.team, 14, 1)]


def test_an_events_placings_and_scorers_name_their_category() -> None:
    event: Event = load_event(ROOT / "examples/events/001-floorball-event.toml")
    ledgers = {c.name: build(c.tournament, [], now=T0) for c in event.categories}
    doc = event_snapshot(event, ledgers, {}, (), T0)
    assert {p["category"] for p in doc["placings"]} == {c.name for c in event.categories}
    assert doc["scorers"] == [] and doc["green_cards"] == [] and doc["eliminated"] == []
    header = placings_csv(doc).decode("utf-8-sig").splitlines()[0]
    assert header.startswith("category,place,team")


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_every_example_has_a_place_for_each_finish(path: Path) -> None:
    ledger = build(load_tournament(path), [], now=T0)
    found = placings(ledger)
    assert found and found[0].place == 1
    assert all(p.place is not None for p in found)
