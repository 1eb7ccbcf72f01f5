"""Suspensions reach the hall, in process: the office's ``next`` document (its ledger) is
checked as the hall checks it, loaded into a match as the hall loads it, and laid out on
the pregame screen, which names the suspended players of both teams, here the ones the
office expelled (rules 001 "Player's start"; a penalty's ban takes the same path:
tests/office/test_ledger.py checks it reaches ``next``)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from arena import presets
from arena.core.commands import Goal, Start
from arena.core.match import Match, feed
from arena.core.phase import Team
from arena.core.state import state_document
from arena.tournament.files import load_tournament
from arena.tournament.model import DecidedBy
from display.layout import layout
from firmware_py.between import between_games
from firmware_py.mqtt import parse_next
from firmware_py.nextmatch import setup_from_next
from office.rules import rulings
from office.views.ledger import Correction, build

from .games import Play
from .test_ledger import events_of

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 12, 5, 12, 0, 0)


def test_the_pregame_screen_names_the_suspended_and_the_expelled_of_both_teams() -> None:
    t = load_tournament(ROOT / "examples/tournaments/001-floorball.toml")
    # hall-1 plays A1 and B1, then A3 (IBF Falun v FBC Ostrava).
    plays = [Play("A1", "FBC Ostrava", "Kloten-Dietlikon Jets", 2, 1),
             Play("B1", "Florbal Chodov", "KS Szczekociny", 1, 0)]
    evs = events_of(t, plays)
    # Rules 001 "Player's start": IBF Falun's #5 started without the right in A2, and
    # FBC Ostrava's #17 in A1: both teams lose 0:5 and the players are expelled.
    expel = [
        Correction("A2", 0, 5, "unauthorised", T0, DecidedBy.FORFEIT, rulings.Forfeit(
            "A2", "IBF Falun", rulings.ForfeitCause.UNAUTHORISED, "no licence", T0, 5)),
        Correction("A1", 0, 5, "unauthorised", T0, DecidedBy.FORFEIT, rulings.Forfeit(
            "A1", "FBC Ostrava", rulings.ForfeitCause.UNAUTHORISED, "other team", T0, 17)),
    ]
    ledger = build(t, evs, expel, now=T0 + timedelta(hours=1))
    doc = ledger.next_document("hall-1")
    assert doc is not None and doc["match"] == "A3"  # IBF Falun v FBC Ostrava
    checked = parse_next(json.dumps(doc).encode())  # the hall's own check of the payload
    assert sorted(checked["suspended"], key=lambda s: s["team"]) == [
        {"team": "away", "player": 17}, {"team": "home", "player": 5}]
    preset, setup = setup_from_next(checked)
    match = Match(presets.load(preset), setup)
    between = between_games(match, 0, pending=None, loaded=checked, standings={},
                            final_hold=0)
    assert between is not None
    frame = layout(state_document(match, 0), (1920, 1080), between=between)
    lines = [t.text for t in frame.texts() if t.role == "pregame.suspended"]
    assert len(lines) == 1
    assert lines[0].startswith("SUSPENDED: ")
    assert "IBF FALUN #5" in lines[0] and "FBC OSTRAVA #17" in lines[0]


def test_the_offices_next_carries_the_rosters_and_the_hall_names_the_scorer() -> None:
    """The tournament file's rosters ride on the office's ``next`` (docs/developer.md
    4.4), are checked and loaded as the hall does, and a goal by a rostered number puts the
    name in the state document's ``goal`` and on the game screen; a side without a roster
    has no key, and a number not in the roster shows the number only."""
    t = load_tournament(ROOT / "examples/tournaments/000-ice-hockey.toml")
    # hall-1 plays A1 and B1, then A3: Narva PSK (no roster) v HK Riga (one).
    plays = [Play("A1", "Narva PSK", "Tartu Valk", 2, 1),
             Play("B1", "Ozolnieki/Monarhs", "HK Kurbads", 1, 0)]
    ledger = build(t, events_of(t, plays), [], now=T0 + timedelta(hours=1))
    doc = ledger.next_document("hall-1")
    assert doc is not None and doc["match"] == "A3"
    assert doc["teams"]["away"]["roster"] == {"1": "K. Ozols", "7": "M. Bērziņš",
                                              "19": "R. Kalniņš"}
    assert "roster" not in doc["teams"]["home"]
    checked = parse_next(json.dumps(doc).encode())  # the hall's own check of the payload
    assert checked["teams"] == doc["teams"]
    preset, setup = setup_from_next(checked)
    assert setup.away.roster == ((1, "K. Ozols"), (7, "M. Bērziņš"), (19, "R. Kalniņš"))
    assert setup.home.roster == ()
    match = Match(presets.load(preset), setup)
    s = 10**9
    feed(match, Start(0))
    feed(match, Goal(10 * s, Team.AWAY, 7))
    named = state_document(match, 11 * s)
    assert named["goal"] == {"team": "away", "player": 7, "name": "M. Bērziņš"}
    frame = layout(named, (1920, 1080))
    assert [x.text for x in frame.texts() if x.role == "goal.away.name"] == ["M. BĒRZIŅŠ"]
    feed(match, Goal(20 * s, Team.AWAY, 23))  # not on the roster: the number only
    unnamed = state_document(match, 21 * s)
    assert unnamed["goal"] == {"team": "away", "player": 23}
    frame = layout(unnamed, (1920, 1080))
    assert [x.text for x in frame.texts() if x.role == "goal.away.player"] == ["23"]
    assert not frame.with_role("goal.away.name")
