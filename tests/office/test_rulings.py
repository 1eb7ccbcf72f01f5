"""The office's rulings (office.rules.rulings) through the ``office`` command and the store:
rules 001 'Waiting period' (late forfeits, elimination), rules 001 "Player's start"
(0:5 and expulsion), rules 003 'Match officials' (one green card per team and match).

The matches are played through the real core (tests/office/games.py) and stored as the
service stores them; the commands write audited office actions, and the ledger is read back
as the service folds it (``service.ledger_from_store``).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from arena import presets as bundled
from arena.tournament.files import load_tournament
from arena.tournament.model import DecidedBy, ResultState, Tournament
from firmware_py.mqtt import parse_next
from office.cli.main import main
from office.rules.forfeitscore import forfeit_goals
from office.service import ledger_from_store
from office.storage.store import Store
from office.views.ledger import Ledger
from office.views.placings import placings
from office.views.snapshot import snapshot

from .games import Play, hall_event, play
from .test_ledger import all_group_results, group_plays

ROOT = Path(__file__).resolve().parents[2]
FLOORBALL = ROOT / "examples/tournaments/001-floorball.toml"  # rules 001
T0 = datetime(2026, 12, 5, 12, 0, 0)
OSTRAVA, TATRAN, FALUN, KLOTEN = ("FBC Ostrava", "Tatran Střešovice", "IBF Falun",
                                  "Kloten-Dietlikon Jets")


@pytest.fixture(scope="module")
def cup() -> Tournament:
    return load_tournament(FLOORBALL)


def store_with(tmp_path: Path, t: Tournament, plays: list[Play]) -> Path:
    db = tmp_path / "office.sqlite"
    store = Store(db)
    try:
        for game in plays:
            m = t.match(game.match)
            assert m is not None
            for payload in play(m.preset, m.hall, game):
                store.add_event(hall_event(payload), T0)
    finally:
        store.close()
    return db


def office(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--tournament", str(FLOORBALL)] if argv[0] != "--help" else [*argv])
    out, err = capsys.readouterr()
    return code, out, err


def ledger(t: Tournament, db: Path) -> Ledger:
    store = Store(db)
    try:
        return ledger_from_store(t, store, T0 + timedelta(days=1))
    finally:
        store.close()


def played_groups(t: Tournament) -> list[Play]:
    scores = all_group_results(t)
    return group_plays(t, "A", scores) + group_plays(t, "B", scores)


# -- rules 001 'Waiting period' ---------------------------------------------------------


def test_a_late_team_loses_0_5(cup: Tournament, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    # Rules 001 'Waiting period': "the match will be abandoned against of the late team";
    # the score is the rules' forfeit, 0:5. A2 is IBF Falun (home) v Tatran Střešovice.
    db = store_with(tmp_path, cup, [])
    code, out, err = office(capsys, "forfeit", "A2", "--team", TATRAN, "--late",
                            "--db", str(db))
    assert (code, err) == (0, "")
    assert "5-0, forfeit against Tatran" in out
    view = ledger(cup, db).matches["A2"]
    assert view.outcome.state is ResultState.CORRECTED
    result = view.outcome.result
    assert result is not None
    assert (result.home, result.home_goals, result.away_goals) == (FALUN, 5, 0)
    assert result.decided_by is DecidedBy.FORFEIT
    assert view.correction is not None and "rules 001 'Waiting period'" in view.correction.reason
    # One late forfeit eliminates nobody.
    assert ledger(cup, db).eliminations == ()


def test_two_late_forfeits_eliminate_the_team_and_void_its_results(
        cup: Tournament, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Rules 001 'Waiting period': "in the event of two forfeits due to a late start, the
    # team will be eliminated from the tournament and the results of their match will be
    # voided": every group match of Tatran goes, the other teams' results against it too.
    db = store_with(tmp_path, cup, played_groups(cup))
    before = ledger(cup, db)
    assert [r.team for r in before.tables["A"].rows] == [OSTRAVA, TATRAN, FALUN, KLOTEN]
    assert before.pairings["SF2"].away == TATRAN  # 2nd of group A
    assert office(capsys, "forfeit", "A2", "--team", TATRAN, "--late", "--db", str(db))[0] == 0
    code, out, _ = office(capsys, "forfeit", "A4", "--team", TATRAN, "--late",
                          "--reason", "arrived 10 minutes after the start", "--db", str(db))
    assert code == 0 and "Tatran Střešovice is eliminated" in out
    after = ledger(cup, db)
    (gone,) = after.eliminations
    assert gone.team == TATRAN and gone.forfeits == ("A2", "A4")
    assert set(gone.voided) == {"A2", "A4", "A5"}  # its three group matches
    table = after.tables["A"]
    assert [r.team for r in table.rows] == [OSTRAVA, FALUN, KLOTEN]
    assert {r.team: r.played for r in table.rows} == {OSTRAVA: 2, FALUN: 2, KLOTEN: 2}
    assert table.complete  # the voided matches are not waited for
    # The bracket follows the recomputed table: IBF Falun is now 2nd of group A.
    assert after.pairings["SF2"].away == FALUN
    # The page: the team marked eliminated, its matches voided; it is not placed.
    doc = snapshot(after, {}, (), T0)
    assert doc["eliminated"] == [{"team": TATRAN, "forfeits": ["A2", "A4"],
                                  "voided": ["A2", "A4", "A5"],
                                  "rule": "rules 001 'Waiting period'"}]
    assert {m["id"] for m in doc["matches"] if m["voided"]} == {"A2", "A4", "A5"}
    assert [p.team for p in placings(after) if p.eliminated] == [TATRAN]


def test_an_eliminated_teams_matches_still_to_play_are_not_next(
        cup: Tournament, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Rules 001 'Waiting period': an eliminated team plays no more; A5 (Tatran v Ostrava)
    # is the hall's next until then.
    db = store_with(tmp_path, cup, [p for p in played_groups(cup)
                                    if p.match in ("A1", "B1", "A3", "B3")])
    assert ledger(cup, db).next_for_hall("hall-1").id == "A5"  # type: ignore[union-attr]
    office(capsys, "forfeit", "A2", "--team", TATRAN, "--late", "--db", str(db))
    office(capsys, "forfeit", "A4", "--team", TATRAN, "--late", "--db", str(db))
    nxt = ledger(cup, db).next_for_hall("hall-1")
    assert nxt is not None and nxt.id == "B5"


def test_a_correction_after_a_forfeit_replaces_it(
        cup: Tournament, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The jury upheld a protest against the first forfeit (rules 001 'Protests': its
    # decision is final): that forfeit no longer counts towards the elimination.
    db = store_with(tmp_path, cup, played_groups(cup))
    office(capsys, "forfeit", "A2", "--team", TATRAN, "--late", "--db", str(db))
    assert main(["correct", "A2", "--score", "1-3", "--reason", "protest upheld",
                 "--tournament", str(FLOORBALL), "--db", str(db)]) == 0
    office(capsys, "forfeit", "A4", "--team", TATRAN, "--late", "--db", str(db))
    after = ledger(cup, db)
    assert after.eliminations == ()
    assert [f.match for f in after.forfeits] == ["A4"]


def test_forfeit_refusals(cup: Tournament, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    db = store_with(tmp_path, cup, [])
    code, _, err = office(capsys, "forfeit", "A2", "--team", OSTRAVA, "--late", "--db", str(db))
    assert code == 2 and "does not play A2" in err
    code, _, err = office(capsys, "forfeit", "SF1", "--team", OSTRAVA, "--late", "--db", str(db))
    assert code == 2 and "not known yet" in err  # the semi is not filled
    code, _, err = office(capsys, "forfeit", "Z9", "--team", OSTRAVA, "--late", "--db", str(db))
    assert code == 2 and "no match 'Z9'" in err
    assert office(capsys, "forfeit", "A2", "--team", TATRAN, "--late", "--db", str(db))[0] == 0
    code, _, err = office(capsys, "forfeit", "A2", "--team", TATRAN, "--late", "--db", str(db))
    assert code == 2 and "already stands" in err
    code, _, err = office(capsys, "forfeit", "A2", "--team", TATRAN, "--late",
                          "--db", str(tmp_path / "none.sqlite"))
    assert code == 2 and "no such store" in err


# -- rules 001 "Player's start" ---------------------------------------------------------


def test_an_unauthorised_start_is_0_5_and_expels_the_player(
        cup: Tournament, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Rules 001 "Player's start": "any unauthorized start by a player will result in a 0:5
    # forfeit and the player's expulsion from the tournament". A1: Ostrava v Kloten.
    db = store_with(tmp_path, cup, [p for p in played_groups(cup) if p.match in ("A1", "B1")])
    code, out, _ = office(capsys, "unauthorised", "A1", "--team", OSTRAVA, "--player", "17",
                          "--reason", "plays for another team", "--db", str(db))
    assert code == 0 and "#17 is expelled" in out
    after = ledger(cup, db)
    result = after.matches["A1"].outcome.result
    assert result is not None and (result.home_goals, result.away_goals) == (0, 5)
    (ban,) = after.suspensions
    assert (ban.team, ban.player, ban.banned) == (OSTRAVA, 17, None)
    assert "Player's start" in ban.rule
    assert ban.pending == ("A3", "A5")  # every later group match of Ostrava
    # The hall's next for A3 (IBF Falun v FBC Ostrava) names him on the away side.
    doc = after.next_document("hall-1")
    assert doc is not None and doc["match"] == "A3"
    assert parse_next(json.dumps(doc).encode())["suspended"] == [{"team": "away",
                                                                  "player": 17}]
    with pytest.raises(SystemExit) as refused:
        office(capsys, "unauthorised", "A3", "--team", FALUN, "--player", "100",
               "--reason", "x", "--db", str(db))
    assert refused.value.code == 2 and "0-99" in capsys.readouterr().err


# -- the forfeit score is the preset's, as the hall's ------------------------------------

FOOTBALL = ROOT / "examples/tournaments/003-football.toml"  # rules 003
HONKA, HJK = "FC Honka Musta", "HJK Sininen"


def football(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--tournament", str(FOOTBALL)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_late_football_team_loses_0_3(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    # Rules 003 names no forfeit score; the football preset's [forfeit] goals (cited "not
    # stated in rules 003: 3:0, as football's forfeit") is 3, and the hall records a
    # forfeit by it: the office's forfeit is 0:3 too, not ice hockey's 0:5.
    # A2 is KäPa Keltainen (home) v FC Honka Musta.
    t = load_tournament(FOOTBALL)
    db = store_with(tmp_path, t, [])
    code, out, err = football(capsys, "forfeit", "A2", "--team", HONKA, "--late",
                              "--db", str(db))
    assert (code, err) == (0, "")
    assert "3-0, forfeit against FC Honka Musta" in out
    result = ledger(t, db).matches["A2"].outcome.result
    assert result is not None and result.decided_by is DecidedBy.FORFEIT
    assert (result.home, result.home_goals, result.away_goals) == ("KäPa Keltainen", 3, 0)


def test_an_unauthorised_start_in_football_is_0_3(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # Rules 003: the football preset's forfeit (0:3) for an unauthorised start as well; the
    # player is expelled as under rules 001 "Player's start". A1: HJK Sininen (home).
    t = load_tournament(FOOTBALL)
    db = store_with(tmp_path, t, [])
    code, out, _ = football(capsys, "unauthorised", "A1", "--team", HJK, "--player", "7",
                            "--reason", "plays for another team", "--db", str(db))
    assert code == 0 and "0-3, forfeit against HJK Sininen" in out
    after = ledger(t, db)
    result = after.matches["A1"].outcome.result
    assert result is not None and (result.home_goals, result.away_goals) == (0, 3)
    (ban,) = after.suspensions
    assert (ban.team, ban.player) == (HJK, 7)


@pytest.mark.parametrize(("example", "goals"), [
    ("000-ice-hockey.toml", 5),  # rules 000 'Rules': "a technical loss, with the result of 0:5"
    ("001-floorball.toml", 5),  # rules 001 "Player's start": "a 0:5 forfeit"
    ("002-youth-hockey.toml", 5),  # rules 002 names none: 0:5, as rules 000 and 001
    ("003-football.toml", 3),  # rules 003 names none: football's 3:0
])
def test_every_forfeit_is_scored_by_its_match_s_preset(example: str, goals: int) -> None:
    t = load_tournament(ROOT / "examples/tournaments" / example)
    for m in t.matches:
        assert forfeit_goals(t, m.id) == goals == bundled.load(m.preset).forfeit_goals


# -- rules 003 'Match officials': green cards ---------------------------------------------


def test_one_green_card_per_team_and_match(cup: Tournament, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # Rules 003 'Match officials': "green cards are given to one fair-play player of each
    # team": a second card for the same team and match is refused, unless it replaces the
    # first with a reason (kept with it).
    db = store_with(tmp_path, cup, [])
    assert office(capsys, "green-card", "A1", "--team", OSTRAVA, "--player", "9",
                  "--db", str(db))[0] == 0
    assert office(capsys, "green-card", "A1", "--team", KLOTEN, "--player", "4",
                  "--db", str(db))[0] == 0
    code, _, err = office(capsys, "green-card", "A1", "--team", OSTRAVA, "--player", "11",
                          "--db", str(db))
    assert code == 2 and "already has its green card (#9" in err
    code, _, err = office(capsys, "green-card", "A1", "--team", OSTRAVA, "--player", "11",
                          "--replace", "--db", str(db))
    assert code == 2 and "--reason must say why" in err
    code, out, _ = office(capsys, "green-card", "A1", "--team", OSTRAVA, "--player", "11",
                          "--replace", "--reason", "the referee named the wrong shirt",
                          "--db", str(db))
    assert code == 0 and "replaces #9" in out
    code, _, err = office(capsys, "green-card", "A1", "--team", FALUN, "--player", "3",
                          "--db", str(db))
    assert code == 2 and "does not play A1" in err
    cards = ledger(cup, db).green_cards
    assert [(c.match, c.team, c.player) for c in cards] == [("A1", OSTRAVA, 11),
                                                            ("A1", KLOTEN, 4)]
    code, out, _ = office(capsys, "green-cards", "--json", "--db", str(db))
    listed = json.loads(out)["categories"][0]["green_cards"]
    assert [(c["team"], c["player"]) for c in listed] == [(OSTRAVA, 11), (KLOTEN, 4)]
    assert snapshot(ledger(cup, db), {}, (), T0)["green_cards"][0]["player"] == 11


@pytest.mark.parametrize("command", [["forfeit"], ["unauthorised"], ["green-card"],
                                     ["green-cards"], ["placings"], ["scorers"]])
def test_every_new_command_has_help(command: list[str],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage: office")


def test_a_ban_is_not_left_waiting_on_a_voided_match(
        cup: Tournament, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Rules 001 'Waiting period': Tatran eliminated before A5 (Tatran v Ostrava) is played;
    # Ostrava's expelled #17 (rules 001 "Player's start", at A3) is not suspended for a
    # match that will not be played.
    db = store_with(tmp_path, cup, [p for p in played_groups(cup)
                                    if p.match in ("A1", "B1", "A3")])
    office(capsys, "unauthorised", "A3", "--team", OSTRAVA, "--player", "17",
           "--reason", "plays for another team", "--db", str(db))
    assert ledger(cup, db).suspensions[0].pending == ("A5",)
    office(capsys, "forfeit", "A2", "--team", TATRAN, "--late", "--db", str(db))
    office(capsys, "forfeit", "A4", "--team", TATRAN, "--late", "--db", str(db))
    (ban,) = ledger(cup, db).suspensions
    assert ban.pending == () and ban.banned is None
