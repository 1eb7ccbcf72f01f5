"""A bracket that never plays unknown teams: held matches, results that need
review, and alerts about played matches the office resolves.

The cup is rules 000's format in small (ice-hockey-2x20, rules 000 'Format' 2A/2B: the
first two of each group play the semi-finals, the thirds a placement game), in three halls.
Group A ends in a three-way tie that only lots separate (rules 000 'The ranking of each team
in each group', 8: "dice"; the preset's tie-break lists end with ``lots``).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from arena import presets, wire
from arena.core.commands import End, Start
from arena.core.match import Match, feed
from arena.core.phase import Phase
from arena.core.phase import Stage as CoreStage
from arena.tournament.files import load_tournament
from arena.tournament.model import Draw, ResultState, Tournament
from firmware_py.between import between_games
from firmware_py.mqtt import parse_next
from firmware_py.nextmatch import NextMatch, setup_from_next
from office.cli.main import main
from office.views.ledger import Ledger, Received, Review, ReviewAction, build
from office.views.snapshot import snapshot

from .games import Play, hall_event, play
from .test_service import FakeMessage, service

T0 = datetime(2026, 12, 5, 12, 0, 0)

CUP = """
name = "Holds Cup"
id = "holds-cup"
preset = "ice-hockey-2x20"

[[groups]]
name = "A"
teams = ["Riga", "Tartu", "Vilnius"]

[[groups]]
name = "B"
teams = ["Kurbads", "Kaunas", "Jokerit"]

{matches}
"""
SCHEDULE = [
    # id, group or stage, hall, hour, home, away
    ("A1", "A", "hall-1", 8, "Riga", "Tartu"),
    ("B1", "B", "hall-2", 8, "Kurbads", "Kaunas"),
    ("A2", "A", "hall-1", 9, "Tartu", "Vilnius"),
    ("B2", "B", "hall-2", 9, "Kurbads", "Jokerit"),
    ("B3", "B", "hall-2", 10, "Kaunas", "Jokerit"),
    ("A3", "A", "hall-3", 10, "Vilnius", "Riga"),
    ("SF1", "playoff", "hall-1", 11, "A1", "B2"),
    ("SF2", "playoff", "hall-2", 11, "B1", "A2"),
    ("P5", "placement", "hall-3", 11, "A3", "B3"),
    ("F", "playoff", "hall-1", 12, "W:SF1", "W:SF2"),
    ("BR", "playoff", "hall-2", 12, "L:SF1", "L:SF2"),
]
# A: each beats one, 1-0: level on points, goals and every head-to-head figure.
# B: Kurbads, Kaunas, Jokerit in that order.
GROUP_SCORES = {"A1": (1, 0), "A2": (1, 0), "A3": (1, 0),
                "B1": (3, 1), "B2": (3, 1), "B3": (3, 1)}
LOTS = Draw("A", ("Vilnius", "Riga", "Tartu"))


def cup_text() -> str:
    blocks = []
    for mid, where, hall, hour, home, away in SCHEDULE:
        stage = f'stage = "group"\ngroup = "{where}"' if len(where) == 1 \
            else f'stage = "{where}"'
        blocks.append(f'[[matches]]\nid = "{mid}"\n{stage}\nhall = "{hall}"\n'
                      f"start = 2026-12-05T{hour:02d}:00:00\n"
                      f'home = "{home}"\naway = "{away}"\n')
    return CUP.format(matches="\n".join(blocks))


@pytest.fixture
def cup_file(tmp_path: Path) -> Path:
    path = tmp_path / "cup.toml"
    path.write_text(cup_text(), encoding="utf-8")
    return path


@pytest.fixture
def cup(cup_file: Path) -> Tournament:
    return load_tournament(cup_file)


def played(t: Tournament, match: str, home: str, away: str,
           score: tuple[int, int]) -> list[Received]:
    m = t.match(match)
    assert m is not None
    stage = CoreStage.PLAYOFF if m.stage.decided else CoreStage.GROUP
    return [Received(hall_event(p), T0)
            for p in play(m.preset, m.hall, Play(match, home, away, *score, stage=stage))]


def group(t: Tournament, *ids: str) -> list[Received]:
    out: list[Received] = []
    for mid in ids:
        m = t.match(mid)
        assert m is not None and m.home.team and m.away.team
        out += played(t, mid, m.home.team, m.away.team, GROUP_SCORES[mid])
    return out


def next_doc(ledger: Ledger, hall: str) -> dict[str, Any]:
    doc = ledger.next_document(hall)
    assert doc is not None
    # What the hall itself makes of it: its own check passes.
    return parse_next(json.dumps(doc).encode())


# -- 1. held matches -------------------------------------------------------------------------


def test_a_semi_is_held_until_its_group_is_complete_and_its_lots_are_drawn(
        cup: Tournament) -> None:
    evs = group(cup, "A1", "A2", "B1", "B2", "B3")
    ledger = build(cup, evs, now=T0)
    # hall-1 has played its group matches; group A still has A3 to play.
    doc = next_doc(ledger, "hall-1")
    assert doc["match"] == "SF1" and doc["waiting"] is True
    assert doc["teams"]["home"] == {"name": "1st A", "colours": doc["teams"]["home"]["colours"],
                                    "placeholder": True}
    # Group B is complete and settled (rules 000 states no protest window): 2nd B is known.
    assert doc["teams"]["away"]["name"] == "Kaunas"
    assert "placeholder" not in doc["teams"]["away"]

    evs += group(cup, "A3")
    ledger = build(cup, evs, now=T0)
    assert ledger.tables["A"].complete and ledger.tables["A"].rows[0].lots_needed
    doc = next_doc(ledger, "hall-1")
    assert doc["waiting"] is True and doc["teams"]["home"]["name"] == "1st A"
    p5 = next_doc(ledger, "hall-3")
    assert p5["match"] == "P5" and p5["waiting"] is True  # "3rd A" waits for the lots too

    ledger = build(cup, evs, draws=[LOTS], now=T0)
    doc = next_doc(ledger, "hall-1")
    assert "waiting" not in doc
    assert (doc["teams"]["home"]["name"], doc["teams"]["away"]["name"]) == ("Vilnius", "Kaunas")
    assert next_doc(ledger, "hall-3")["teams"]["home"]["name"] == "Tartu"


def test_the_final_is_held_until_both_semis_are_decided(cup: Tournament) -> None:
    evs = group(cup, *GROUP_SCORES)
    evs += played(cup, "SF1", "Vilnius", "Kaunas", (2, 1))
    ledger = build(cup, evs, draws=[LOTS], now=T0)
    doc = next_doc(ledger, "hall-1")
    assert doc["match"] == "F" and doc["waiting"] is True
    assert doc["teams"]["home"]["name"] == "Vilnius"
    assert doc["teams"]["away"] == {**doc["teams"]["away"], "name": "Winner SF2",
                                    "placeholder": True}
    page = snapshot(ledger, {}, [], T0)
    assert {"match": "F", "hall": "hall-1", "waiting_for": ["Winner SF2"]} in page["held"]


def finished(match: Match) -> Match:
    at = 0
    for cmd in (Start(at=at),):
        assert feed(match, cmd).refused is None
    while match.state.phase is not Phase.FINAL:
        at += 1_000_000_000
        assert feed(match, End(at=at)).refused is None
    return match


def test_the_hall_never_loads_a_waiting_next_and_says_it_waits_for_the_office(
        cup: Tournament) -> None:
    ledger = build(cup, group(cup, "A1", "A2", "B1", "B2", "B3"), now=T0)
    doc = next_doc(ledger, "hall-1")
    queue = NextMatch()
    queue.offer(doc)
    a2 = finished(Match(presets.load("ice-hockey-2x20")))
    assert queue.take(a2.state, now=10**15, hold=0) is None
    screen = between_games(a2, 10**15, pending=queue.pending, loaded=None, standings={},
                           final_hold=0)
    assert screen is not None and screen["next"]["waiting"] is True
    assert screen["next"]["home"]["name"] == "1st A"
    # Should a hall load it anyway, the core refuses to start it.
    _, setup = setup_from_next(doc)
    fed = feed(Match(presets.load("ice-hockey-2x20"), setup), Start(at=0))
    assert fed.refused is not None and "teams not known: 1st A" in str(fed.refused)
    # The real teams: loaded as usual.
    queue.offer(next_doc(build(cup, group(cup, *GROUP_SCORES), draws=[LOTS], now=T0), "hall-1"))
    taken = queue.take(a2.state, now=10**15, hold=0)
    assert taken is not None and taken["teams"]["home"]["name"] == "Vilnius"


# -- 2. needs review -------------------------------------------------------------------------


def test_a_semi_played_while_held_needs_review_and_is_never_confirmed(cup: Tournament) -> None:
    evs = group(cup, *GROUP_SCORES)
    # The hall played SF1 from a schedule of its own, under the slots' names.
    evs += played(cup, "SF1", "1st A", "2nd B", (3, 2))
    much_later = T0 + timedelta(days=1)  # far past any protest window
    for draws in ([], [LOTS]):
        ledger = build(cup, evs, draws=draws, now=much_later)
        view = ledger.matches["SF1"]
        assert view.outcome.state is ResultState.NEEDS_REVIEW
        assert view.review is not None and "1st A - 2nd B" in view.review
        assert next_doc(ledger, "hall-1")["match"] == "F"
        assert next_doc(ledger, "hall-1")["waiting"] is True  # no winner of SF1 yet
    page = snapshot(ledger, {}, [], much_later)
    assert [r["match"] for r in page["review"]] == ["SF1"]
    assert "office review SF1" in page["review"][0]["todo"]


def test_a_group_result_under_other_names_needs_review_and_holds_the_bracket(
        cup: Tournament) -> None:
    evs = group(cup, "A1", "A2", "B1", "B2", "B3")
    evs += played(cup, "A3", "Home", "Away", (1, 0))  # a hall on its config's names
    ledger = build(cup, evs, draws=[LOTS], now=T0 + timedelta(hours=5))
    assert ledger.matches["A3"].outcome.state is ResultState.NEEDS_REVIEW
    assert ledger.tables["A"].under_review and ledger.tables["A"].complete
    assert next_doc(ledger, "hall-1")["waiting"] is True
    accept = Review("A3", ReviewAction.SWAP, "hall ran without the office", T0,
                    "Vilnius", "Riga")
    ledger = build(cup, evs, draws=[LOTS], now=T0 + timedelta(hours=5), reviews=[accept])
    assert ledger.matches["A3"].outcome.state is ResultState.CONFIRMED
    assert "waiting" not in next_doc(ledger, "hall-1")


# -- 3. alerts about played matches, resolved --------------------------------------------------


def messages(t: Tournament, match: str, home: str, away: str,
             score: tuple[int, int]) -> list[FakeMessage]:
    m = t.match(match)
    assert m is not None
    stage = CoreStage.PLAYOFF if m.stage.decided else CoreStage.GROUP
    return [FakeMessage(f"arena/v1/{t.id}/{m.hall}/events", json.dumps(p).encode())
            for p in play(m.preset, m.hall, Play(match, home, away, *score, stage=stage))]


def run(*argv: str) -> int:
    return main(list(argv))


@pytest.fixture
def played_semi(tmp_path: Path, cup_file: Path, cup: Tournament) -> Any:
    """Groups done, lots drawn, SF1 played Vilnius - Kaunas 2-1; then the jury turns B1 round
    (Kaunas beat Kurbads): 2nd B is Kurbads now, and SF1 was played by Kaunas."""
    svc, peer, _wall, store = service(tmp_path, cup)
    db = str(tmp_path / "office.sqlite")
    for mid, score in GROUP_SCORES.items():
        m = cup.match(mid)
        assert m is not None and m.home.team and m.away.team
        peer.inbox += messages(cup, mid, m.home.team, m.away.team, score)
    svc.pump()
    assert run("draw-lots", "--tournament", str(cup_file), "--db", db, "--group", "A",
               "--order", "Vilnius,Riga,Tartu") == 0
    svc.pump()
    peer.inbox += messages(cup, "SF1", "Vilnius", "Kaunas", (2, 1))
    svc.pump()
    assert svc.ledger is not None
    assert svc.ledger.matches["SF1"].outcome.state is ResultState.CONFIRMED
    assert run("correct", "B1", "--score", "1-3", "--reason", "protest upheld",
               "--tournament", str(cup_file), "--db", db) == 0
    svc.pump()
    return svc, peer, store, db, str(cup_file)


def test_a_correction_that_moves_a_played_semi_raises_an_alert_that_stays(
        played_semi: Any, capsys: pytest.CaptureFixture[str]) -> None:
    svc, _, store, db, cup_file = played_semi
    ledger = svc.ledger
    assert (ledger.pairings["SF1"].home, ledger.pairings["SF1"].away) == ("Vilnius", "Kurbads")
    assert ledger.matches["SF1"].outcome.state is ResultState.NEEDS_REVIEW
    result = ledger.matches["SF1"].outcome.result
    assert (result.home, result.away) == ("Vilnius", "Kaunas")  # never moved to Kurbads
    (alert,) = [a for a in store.alerts() if a.match == "SF1"]
    assert "Kurbads" in alert.text and "Kaunas" in alert.text
    page = svc.board.current()
    top = [a for a in page["alerts"] if a.get("match") == "SF1"]
    assert top[0]["status"] == "open" and "office alerts resolve" in top[0]["todo"]
    # Acknowledged: it leaves the top, the match stays to be resolved.
    capsys.readouterr()
    assert run("alerts", "ack", str(alert.id), "--tournament", cup_file, "--db", db) == 0
    assert "still needs resolving" in capsys.readouterr().out
    svc.pump()
    page = svc.board.current()
    assert [a["status"] for a in page["alerts"] if a.get("match") == "SF1"] == ["acknowledged"]
    assert [r["match"] for r in page["review"]] == ["SF1"]
    assert run("alerts", "list", "--json", "--tournament", cup_file, "--db", db) == 0
    listed = json.loads(capsys.readouterr().out)
    assert any(r["id"] == alert.id and r["status"] == "acknowledged" for r in listed)


def test_keep_lets_the_result_stand_for_the_teams_who_played(played_semi: Any) -> None:
    svc, _, store, db, cup_file = played_semi
    (alert,) = [a for a in store.alerts() if a.match == "SF1"]
    assert run("alerts", "resolve", str(alert.id), "--keep", "--reason", "played in good faith",
               "--tournament", cup_file, "--db", db) == 0
    svc.pump()
    ledger = svc.ledger
    assert (ledger.pairings["SF1"].home, ledger.pairings["SF1"].away) == ("Vilnius", "Kaunas")
    assert ledger.matches["SF1"].outcome.state is ResultState.CONFIRMED
    assert ledger.pairings["F"].home == "Vilnius"
    assert any(a["status"] == "resolved" for a in svc.board.current()["alerts"]
               if a.get("match") == "SF1")
    assert [a.kind for a in store.admin_actions()][-1] == "review"  # audited


def test_swap_credits_the_result_to_the_new_pairing(played_semi: Any) -> None:
    svc, _, _store, db, cup_file = played_semi
    assert run("review", "SF1", "--swap", "--reason", "jury: result stands for Kurbads",
               "--tournament", cup_file, "--db", db) == 0
    svc.pump()
    ledger = svc.ledger
    result = ledger.matches["SF1"].outcome.result
    assert (result.home, result.away) == ("Vilnius", "Kurbads")
    assert ledger.matches["SF1"].outcome.state is ResultState.CONFIRMED
    assert ledger.pairings["BR"].home == "Kurbads"
    assert not svc.board.current()["review"]


def test_replay_voids_the_result_and_sends_the_match_again(played_semi: Any) -> None:
    svc, peer, _store, db, cup_file = played_semi
    assert run("review", "SF1", "--replay", "--reason", "replay ordered",
               "--tournament", cup_file, "--db", db) == 0
    svc.pump()
    ledger = svc.ledger
    assert ledger.matches["SF1"].outcome.state is ResultState.SCHEDULED
    nxt = json.loads(peer.retained[f"arena/v1/{svc.event.id}/hall-1/next"])
    assert nxt["match"] == "SF1" and "waiting" not in nxt
    assert (nxt["teams"]["home"]["name"], nxt["teams"]["away"]["name"]) == ("Vilnius", "Kurbads")
    # The hall plays it as a fresh game numbered above the voided final (wire.Nx.REPLAY).
    voided = [a for a in _store.admin_actions() if a.kind == "review"][-1].data["seq"]
    assert nxt["replay"] == {"above_seq": voided}


def test_resolving_refuses_what_cannot_be_done(
        played_semi: Any, capsys: pytest.CaptureFixture[str]) -> None:
    _svc, _, store, db, cup = played_semi
    assert run("review", "A1", "--keep", "--reason", "x", "--tournament", cup, "--db", db) == 2
    assert "--swap" in capsys.readouterr().err
    plain = [a for a in store.alerts() if a.match is None]
    assert plain  # SF2 (not played yet) re-filled: an alert to acknowledge only
    assert run("alerts", "resolve", str(plain[0].id), "--keep", "--reason", "x",
               "--tournament", cup, "--db", db) == 2
    assert "office alerts ack" in capsys.readouterr().err
    assert run("review", "F", "--swap", "--reason", "x", "--tournament", cup, "--db", db) == 2
    assert "no result" in capsys.readouterr().err


def test_after_a_replay_the_events_above_the_voided_final_count_again(cup: Tournament) -> None:
    evs = group(cup, *GROUP_SCORES) + played(cup, "SF1", "Vilnius", "Kaunas", (2, 1))
    before = build(cup, evs, draws=[LOTS], now=T0)
    voided = before.matches["SF1"].final_seq
    assert voided is not None
    replay = Review("SF1", ReviewAction.REPLAY, "replay ordered", T0, seq=voided)
    ledger = build(cup, evs, draws=[LOTS], now=T0, reviews=[replay])
    assert ledger.matches["SF1"].outcome.state is ResultState.SCHEDULED
    assert next_doc(ledger, "hall-1")["match"] == "SF1"
    assert next_doc(ledger, "hall-1")["replay"] == {"above_seq": voided}
    # An event of the voided game the office got after the final (here a repeat of the
    # horn): the replay must number above it too, or the office would drop a new event as
    # a duplicate of its seq.
    m = cup.match("SF1")
    assert m is not None
    late = dict(play(m.preset, m.hall, Play("SF1", "Vilnius", "Kaunas", 2, 1,
                                            stage=CoreStage.PLAYOFF))[-1])
    late.update(seq=voided + 1, event_id=wire.event_id("hall-1", "SF1", voided + 1),
                type="horn", data={"on": True})
    with_late = build(cup, [*evs, Received(hall_event(late), T0)], draws=[LOTS], now=T0,
                      reviews=[replay])
    assert with_late.matches["SF1"].outcome.state is ResultState.SCHEDULED
    assert next_doc(with_late, "hall-1")["replay"] == {"above_seq": voided + 1}
    # The replayed game, numbered on above the voided events (as the hall must send it).
    again = []
    for sent in play(m.preset, m.hall, Play("SF1", "Vilnius", "Kaunas", 0, 3,
                                            stage=CoreStage.PLAYOFF)):
        seq = sent["seq"] + voided
        renumbered = dict(sent, seq=seq, event_id=wire.event_id(m.hall, "SF1", seq))
        again.append(Received(hall_event(renumbered), T0))
    begun = build(cup, evs + again[:1], draws=[LOTS], now=T0, reviews=[replay])
    assert begun.matches["SF1"].outcome.state is ResultState.LIVE  # no longer anyone's next
    assert next_doc(begun, "hall-1")["match"] != "SF1"
    ledger = build(cup, evs + again, draws=[LOTS], now=T0, reviews=[replay])
    result = ledger.matches["SF1"].outcome.result
    assert result is not None and result.winner == "Kaunas"
    assert ledger.matches["SF1"].outcome.state is ResultState.CONFIRMED
    assert ledger.matches["SF1"].replay_above is None


def test_a_replay_played_in_another_hall_continues_the_numbering_and_is_acked_there(
        played_semi: Any) -> None:
    """The replay moved to hall-3 (its journal holds nothing of SF1). Its `next`
    says what to number above; the office stores the new game after hall-1's events and
    tells hall-3 so in its own `acks` (the seqs below its first count whichever hall sent
    them); hall-1 hears its own game stored, whole."""
    svc, peer, store, db, cup_file = played_semi
    assert run("review", "SF1", "--replay", "--reason", "replay ordered",
               "--tournament", cup_file, "--db", db) == 0
    for later, hall in (("F", "hall-1"), ("BR", "hall-2")):  # the semi must end before
        assert run("reschedule", later, "--hall", hall, "--start", "2026-12-05 13:00",
                   "--reason", "after the replay", "--tournament", cup_file, "--db", db) == 0
    assert run("reschedule", "SF1", "--hall", "hall-3", "--start", "2026-12-05 11:45",
               "--force", "--reason", "hall-1 is busy", "--tournament", cup_file,
               "--db", db) == 0
    peer.inbox += messages(svc.event.categories[0].tournament, "P5", "Tartu", "Jokerit",
                           (1, 0))  # hall-3's match before the replay
    svc.pump()
    root = f"arena/v1/{svc.event.id}"
    nxt = json.loads(peer.retained[f"{root}/hall-3/next"])
    voided = max(e.seq for e in store.events("SF1"))
    assert nxt["match"] == "SF1" and nxt["replay"] == {"above_seq": voided}
    again = []
    for sent in play("ice-hockey-2x20", "hall-3", Play("SF1", "Vilnius", "Kurbads", 0, 2,
                                                     stage=CoreStage.PLAYOFF)):
        seq = sent["seq"] + nxt["replay"]["above_seq"]
        again.append(FakeMessage(f"{root}/hall-3/events", json.dumps(
            dict(sent, seq=seq, event_id=wire.event_id("hall-3", "SF1", seq))).encode()))
    peer.inbox += again
    svc.pump()
    assert svc.refused == 0
    top = voided + len(again)
    assert json.loads(peer.retained[f"{root}/hall-3/acks"])["matches"]["SF1"] == top
    assert json.loads(peer.retained[f"{root}/hall-1/acks"])["matches"]["SF1"] == voided
    assert svc.ledger is not None
    result = svc.ledger.matches["SF1"].outcome.result
    assert result is not None and (result.home, result.away, result.winner) \
        == ("Vilnius", "Kurbads", "Kurbads")
    assert svc.ledger.pairings["F"].home == "Kurbads"
