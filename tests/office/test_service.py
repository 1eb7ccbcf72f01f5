"""The service loop with a fake broker peer and a fake wall clock: what it stores, acks,
publishes, and when it re-folds."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from arena import wire
from arena.timesource import FakeClock, SteadyWall
from arena.tournament.files import load_tournament
from arena.tournament.model import Tournament
from office.cli.main import main
from office.service import OfficeService
from office.storage.store import Store
from office.views.board import SnapshotBoard

from .games import Play, play

ROOT = Path(__file__).resolve().parents[2]
CUP = ROOT / "examples/tournaments/001-floorball.toml"
T0 = datetime(2026, 12, 5, 12, 0, 0)


@dataclass(frozen=True)
class FakeMessage:
    topic: str
    payload: bytes
    qos: int = 1


class FakePeer:
    def __init__(self) -> None:
        self.inbox: list[FakeMessage] = []
        self.acked: list[FakeMessage] = []
        self.retained: dict[str, bytes] = {}
        self.sent: list[tuple[str, bytes]] = []  # every publish, repeats included
        self.publishes = 0

    def poll(self, timeout: float = 0.0) -> list[Any]:
        out, self.inbox = self.inbox, []
        return out

    def ack(self, message: Any) -> bool:
        self.acked.append(message)
        return True

    def publish_retained(self, topic: str, payload: bytes, qos: int = 1) -> None:
        self.retained[topic] = payload
        self.sent.append((topic, payload))
        self.publishes += 1


@pytest.fixture
def cup() -> Tournament:
    return load_tournament(CUP)


def messages_of(t: Tournament, match_id: str, hg: int, ag: int,
                penalties: tuple[tuple[str, int, str], ...] = ()) -> list[FakeMessage]:
    m = t.match(match_id)
    assert m is not None and m.home.team and m.away.team
    return [FakeMessage(f"arena/v1/{t.id}/{m.hall}/events", json.dumps(p).encode())
            for p in play(m.preset, m.hall, Play(m.id, m.home.team, m.away.team, hg, ag,
                                                 penalties))]


def service(tmp_path: Path, t: Tournament) -> tuple[OfficeService, FakePeer, FakeClock, Store]:
    store = Store(tmp_path / "office.sqlite")
    peer, wall = FakePeer(), FakeClock(wall=T0)
    return OfficeService(t, store, peer, SnapshotBoard(), wall=wall.wall_datetime,
                         monotonic=wall.monotonic), peer, wall, store


def retained(peer: FakePeer, topic: str) -> Any:
    payload = peer.retained.get(topic)
    return json.loads(payload) if payload else None


def test_events_are_stored_then_acked_and_garbage_is_acked_too(
        tmp_path: Path, cup: Tournament) -> None:
    svc, peer, _, store = service(tmp_path, cup)
    first = cup.group_matches("A")[0]
    good = messages_of(cup, first.id, 2, 1)
    garbage = FakeMessage(f"arena/v1/{cup.id}/{first.hall}/events", b"{nope")
    peer.inbox = [*good, garbage, *good[:3]]
    svc.pump()
    assert len(store.events()) == len(good)
    assert peer.acked == [*good, garbage, *good[:3]]  # every message, refused ones included
    assert svc.refused == 1


def test_standings_and_next_are_published_only_when_they_change(
        tmp_path: Path, cup: Tournament) -> None:
    svc, peer, _, _ = service(tmp_path, cup)
    svc.pump()
    base = f"arena/v1/{cup.id}"
    assert set(peer.retained) == {f"{base}/standings/A", f"{base}/standings/B",
                                  *(f"{base}/{h}/next" for h in cup.halls()),
                                  *(f"{base}/{h}/acks" for h in cup.halls())}
    sent = peer.publishes
    svc.pump()
    assert peer.publishes == sent  # nothing new: nothing sent
    first = cup.group_matches("A")[0]
    peer.inbox = messages_of(cup, first.id, 2, 1)
    svc.pump()
    table = retained(peer, f"{base}/standings/A")
    assert [r["played"] for r in table["rows"]].count(1) == 2
    # Rules 001 'Protests': 15 minutes; until then the table is provisional.
    assert table["provisional"] is True
    nxt = retained(peer, f"{base}/{first.hall}/next")
    assert nxt["match"] != first.id


def test_acks_say_per_match_the_highest_seq_stored_without_a_gap(
        tmp_path: Path, cup: Tournament) -> None:
    svc, peer, _, store = service(tmp_path, cup)
    first = cup.group_matches("A")[0]
    topic = f"arena/v1/{cup.id}/{first.hall}/acks"
    # Before anything is stored the office already speaks: nothing of this hall's.
    assert wire.check_acks(topic, peer.retained[topic], cup.id) == (first.hall, {})
    good = messages_of(cup, first.id, 2, 1)
    gap = 2  # the third event is lost on the way
    published: list[bytes] = []
    peer.inbox = good[:gap] + good[gap + 1:]
    for message in peer.poll():
        svc.handle(message)
        published.append(peer.retained[topic])
    # Each ack follows the commit of what it says; nothing past the gap is acknowledged.
    assert wire.check_acks(topic, peer.retained[topic], cup.id)[1] == {first.id: gap}
    assert len(set(published)) == gap  # it only changed while the gapless run grew
    svc.handle(good[gap])  # the hall fills the gap
    assert wire.check_acks(topic, peer.retained[topic], cup.id)[1] == {first.id: len(good)}
    # A restarted office says the same from its store alone.
    _, peer2, _, _ = service(tmp_path, cup)
    assert peer2.retained[topic] == peer.retained[topic]
    assert len(store.events()) == len(good)


def test_an_event_stored_above_a_gap_repeats_the_acks_at_most_every_2_s(
        tmp_path: Path, cup: Tournament) -> None:
    svc, peer, wall, _ = service(tmp_path, cup)
    first = cup.group_matches("A")[0]
    topic = f"arena/v1/{cup.id}/{first.hall}/acks"
    good = messages_of(cup, first.id, 2, 1)
    assert len(good) >= 6
    svc.handle(good[0])
    svc.handle(good[1])

    def words() -> list[dict[str, int]]:
        return [wire.check_acks(topic, p, cup.id)[1] for t, p in peer.sent if t == topic]

    before = len(words())
    svc.handle(good[3])  # the third was lost: stored above a gap
    # The same word again: the hall hears "no progress" and re-sends from seq 3.
    assert words()[before:] == [{first.id: 2}]
    svc.handle(good[4])  # within 2 s of the repeat: no second one
    assert len(words()) == before + 1
    wall.advance(2)
    svc.handle(good[5])
    assert words()[before:] == [{first.id: 2}, {first.id: 2}]
    svc.handle(good[2])  # the hall filled the gap: an ordinary, changed word
    assert words()[-1] == {first.id: 6}
    svc.handle(good[1])  # a duplicate below the mark says nothing
    assert words()[-1] == {first.id: 6} and len(words()) == before + 3


def test_the_protest_window_closing_republishes_without_any_message(
        tmp_path: Path, cup: Tournament) -> None:
    svc, peer, wall, _ = service(tmp_path, cup)
    first = cup.group_matches("A")[0]
    peer.inbox = messages_of(cup, first.id, 2, 1)
    svc.pump()
    topic = f"arena/v1/{cup.id}/standings/A"
    assert retained(peer, topic)["provisional"] is True
    wall.advance((T0 + timedelta(minutes=15) - wall.wall_datetime()).total_seconds())
    svc.pump()
    assert retained(peer, topic)["provisional"] is False


@pytest.mark.parametrize("step", [timedelta(hours=1), timedelta(hours=-1)])
def test_a_wall_clock_step_neither_closes_nor_stretches_an_open_protest_window(
        tmp_path: Path, cup: Tournament, step: timedelta) -> None:
    """The protest window is 15 minutes of real time after the final arrived (the cup's
    rules, ``protest_window_s``): the office's own clock (``SteadyWall``, as ``office
    serve`` has it) keeps it so when NTP steps the wall clock by an hour mid-window."""
    store = Store(tmp_path / "office.sqlite")
    peer, clock = FakePeer(), FakeClock(wall=T0)
    svc = OfficeService(cup, store, peer, SnapshotBoard(),
                        wall=SteadyWall(clock.wall_datetime, clock.monotonic_ns),
                        monotonic=clock.monotonic)
    first = cup.group_matches("A")[0]
    peer.inbox = messages_of(cup, first.id, 2, 1)
    svc.pump()
    topic = f"arena/v1/{cup.id}/standings/A"
    arrived = clock.now
    clock.advance(60)
    clock.set_wall(clock.wall_datetime() + step)
    svc.pump()
    assert retained(peer, topic)["provisional"] is True  # +1 h: not closed at once
    clock.jump_to(arrived + 15 * 60 * 1_000_000_000 - 1_000_000)
    svc.pump()
    assert retained(peer, topic)["provisional"] is True
    clock.advance(1)
    svc.pump()
    assert retained(peer, topic)["provisional"] is False  # -1 h: not an hour longer


def test_a_correction_from_the_shell_is_picked_up_through_the_store(
        tmp_path: Path, cup: Tournament, capsys: pytest.CaptureFixture[str]) -> None:
    svc, peer, _, _ = service(tmp_path, cup)
    first = cup.group_matches("A")[0]
    peer.inbox = messages_of(cup, first.id, 2, 1)
    svc.pump()
    assert main(["correct", first.id, "--score", "0-5", "--reason", "ineligible player",
                 "--tournament", str(CUP), "--db", str(tmp_path / "office.sqlite")]) == 0
    svc.pump()
    assert svc.ledger is not None
    view = svc.ledger.matches[first.id]
    assert view.outcome.state.value == "corrected"
    result = view.outcome.result
    assert result is not None and (result.home_goals, result.away_goals) == (0, 5)
    doc = svc.board.current() if svc.board else {}
    row = next(m for m in doc["matches"] if m["id"] == first.id)
    assert row["correction"]["reason"] == "ineligible player"


def test_bad_corrections_are_refused_with_a_reason(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "office.sqlite")
    assert main(["correct", "NOPE", "--score", "1-0", "--reason", "x", "--tournament",
                 str(CUP), "--db", db]) == 2
    assert "no match 'NOPE'" in capsys.readouterr().err
    assert main(["correct", "SF1", "--score", "one-nil", "--reason", "x", "--tournament",
                 str(CUP), "--db", db]) == 2
    assert "--score" in capsys.readouterr().err


def test_a_hall_state_updates_the_page_without_re_ranking(
        tmp_path: Path, cup: Tournament) -> None:
    svc, peer, wall, _ = service(tmp_path, cup)
    svc.pump()
    ledger = svc.ledger
    hall = cup.halls()[0]
    state = {"match": "A1", "phase": "period", "period": 1, "clock_ms": 600000,
             "running": True, "score": {"home": 1, "away": 0},
             "teams": {"home": {"name": "X"}, "away": {"name": "Y"}}}
    peer.inbox = [FakeMessage(f"arena/v1/{cup.id}/{hall}/state", json.dumps(state).encode(),
                              qos=0),
                  FakeMessage(f"arena/v1/{cup.id}/{hall}/status", b"online", qos=1)]
    svc.pump()
    assert svc.board is not None
    assert all(h["live"] is None for h in svc.board.current()["halls"])  # at most 4 a second
    wall.advance(0.25)
    svc.pump()
    assert svc.ledger is ledger  # not re-folded
    assert svc.board is not None
    shown = next(h for h in svc.board.current()["halls"] if h["hall"] == hall)
    assert shown["online"] is True and shown["live"]["clock_ms"] == 600000


def test_draw_lots_in_the_store_settles_a_tie(tmp_path: Path, cup: Tournament,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Rules 001 'Qualifying criteria' 5: random draw, recorded, never rolled silently."""
    svc, peer, _, _ = service(tmp_path, cup)
    for m in cup.group_matches("A"):
        peer.inbox += messages_of(cup, m.id, 1, 1)  # every match drawn: all level
    svc.pump()
    assert svc.ledger is not None
    assert all(r.lots_needed for r in svc.ledger.tables["A"].rows)
    db = str(tmp_path / "office.sqlite")
    assert main(["draw-lots", "--tournament", str(CUP), "--db", db, "--group", "A",
                 "--random", "--seed", "42"]) == 0
    svc.pump()
    rows = svc.ledger.tables["A"].rows
    assert not any(r.lots_needed for r in rows)
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    assert [r.decided_by.value if r.decided_by else None for r in rows] == [
        "lots", "lots", "lots", None]


def test_a_correction_that_changes_the_bracket_raises_an_alert(
        tmp_path: Path, cup: Tournament, capsys: pytest.CaptureFixture[str]) -> None:
    svc, peer, _, store = service(tmp_path, cup)
    a = cup.groups[0].teams
    for g in cup.groups:
        for m in cup.group_matches(g.name):
            assert m.home.team and m.away.team
            h, w = g.teams.index(m.home.team), g.teams.index(m.away.team)
            peer.inbox += messages_of(cup, m.id, *((2, 0) if h < w else (0, 2)))
    svc.pump()
    assert svc.ledger is not None
    semi = next(m for m in cup.matches if m.home.text == "A1")
    assert svc.ledger.pairings[semi.id].home == a[0]
    # The jury gives a[1] the match against a[0] (rules 001 'Protests').
    m = next(m for m in cup.group_matches("A") if {m.home.team, m.away.team} == {a[0], a[1]})
    score = "0-5" if m.home.team == a[0] else "5-0"
    assert main(["correct", m.id, "--score", score, "--reason", "protest upheld",
                 "--tournament", str(CUP), "--db", str(tmp_path / "office.sqlite")]) == 0
    svc.pump()
    assert svc.ledger.pairings[semi.id].home == a[1]
    texts = [alert.text for alert in store.alerts()]
    assert any(semi.id in t and a[1] in t and a[0] in t for t in texts), texts
    assert svc.board is not None
    assert any(semi.id in x["text"] for x in svc.board.current()["alerts"])


def test_standings_from_the_store_are_the_services_tables(
        tmp_path: Path, cup: Tournament, capsys: pytest.CaptureFixture[str]) -> None:
    svc, peer, _, _ = service(tmp_path, cup)
    first = cup.group_matches("A")[0]
    peer.inbox = messages_of(cup, first.id, 3, 0)
    svc.pump()
    capsys.readouterr()
    assert main(["standings", "--tournament", str(CUP), "--db", str(tmp_path / "office.sqlite"),
                 "--json", "--group", "A"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert svc.ledger is not None
    assert printed["groups"] == [svc.ledger.tables["A"].to_json()]
    assert main(["standings", "--tournament", str(CUP), "--db", str(tmp_path / "nope.sqlite")]
                ) == 2


def test_the_public_address_is_in_every_halls_next_and_a_bad_one_is_refused(
        tmp_path: Path, cup: Tournament) -> None:
    """``office serve --public-url``: the halls' between-games QR code."""
    url = "https://cup.example.org/results/"
    store = Store(tmp_path / "office.sqlite")
    try:
        for bad in ("javascript:alert(1)", "results.local", f"http://x.org/{'a' * 200}"):
            with pytest.raises(ValueError, match="must be"):
                OfficeService(cup, store, FakePeer(), public_url=bad)
        peer = FakePeer()
        svc = OfficeService(cup, store, peer, public_url=url)
        svc.pump()
        for hall in cup.halls():
            topic = f"arena/v1/{cup.id}/{hall}/next"
            assert wire.check_next(topic, peer.retained[topic]).public_url == url
        assert svc.office_document()["public_url"] == url  # and the office page shows it
        plain = FakePeer()
        bare = OfficeService(cup, store, plain)
        bare.pump()
        assert bare.office_document()["public_url"] is None
        assert all("public_url" not in json.loads(payload)
                   for topic, payload in plain.retained.items() if topic.endswith("/next"))
    finally:
        store.close()
