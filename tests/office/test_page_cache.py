"""The service re-ranking only what changed shows and publishes exactly what a
fold from scratch would: after every step of random sequences of hall messages (events in
any order, with gaps and repeats, states, statuses), corrections, lots, reviews (``office
review --keep/--swap``), forfeits (rules 001: late twice eliminates, an unauthorised start
expels) and green cards (rules 003) from the shell and the wall time moving, its ledgers
equal ``ledger_from_store``'s, its page snapshot ``event_snapshot``'s of those ledgers, and
every retained ``standings`` and ``next`` the documents of those ledgers. A plain
tournament file (rules 000) and an event of several categories sharing halls (rules 001,
examples/events)."""

from __future__ import annotations

import copy
import json
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import wire
from arena.core.phase import Stage as CoreStage
from arena.timesource import FakeClock
from arena.tournament.event import Event
from arena.tournament.files import load_event, load_tournament
from office.rules import rulings
from office.rules.forfeitscore import forfeit_goals
from office.service import OfficeService, ledger_from_store
from office.storage.store import Store
from office.views import alerts, merge, slugs
from office.views.board import SnapshotBoard
from office.views.ledger import Review, ReviewAction
from office.views.snapshot import event_snapshot

from .games import Play, play
from .test_service import T0, FakeMessage, FakePeer

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("minor", "game_misconduct", "match", "red_card", "minor")


def games_of(event: Event) -> dict[str, list[dict[str, Any]]]:
    """One way each match goes, as its hall sends it (bracket matches under their slots'
    text: a hall that loaded the match before the bracket was filled)."""
    rng = random.Random(3)
    out = {}
    for c in event.categories:
        kinds = [k for k in KINDS if k in c.tournament.rules.suspensions[0].kinds] \
            if c.tournament.rules.suspensions else []
        for m in c.tournament.matches:
            pens = [(rng.choice(("home", "away")), rng.randint(2, 5), rng.choice(kinds))
                    for _ in range(rng.randint(0, 2))] if kinds else []
            stage = CoreStage.PLAYOFF if m.stage.decided else CoreStage.GROUP
            out[m.id] = play(m.preset, m.hall, Play(m.id, m.home.team or m.home.text,
                                                    m.away.team or m.away.text,
                                                    rng.randint(0, 3), rng.randint(0, 3),
                                                    pens, stage))
    return out


EVENTS: dict[str, tuple[Event, dict[str, list[dict[str, Any]]]]] = {}


def event_named(name: str) -> tuple[Event, dict[str, list[dict[str, Any]]]]:
    if name not in EVENTS:
        if name == "plain":
            event = Event.single(load_tournament(ROOT / "examples/tournaments/000-ice-hockey.toml"))
        else:
            event = load_event(ROOT / "examples/events/001-floorball-event.toml")
        EVENTS[name] = (event, games_of(event))
    return EVENTS[name]


def check(svc: OfficeService, peer: FakePeer, store: Store, wall: FakeClock) -> dict[str, Any]:
    """The service's page, retained standings and nexts are the fold from scratch's; the
    page it handed out."""
    event = svc.event
    assert svc.ledgers is not None
    fresh = {c.name: ledger_from_store(c.tournament, store, wall.wall_datetime(),
                                       None if event.plain else c.name)
             for c in event.categories}
    assert svc.ledgers == fresh
    for name, ledger in fresh.items():
        assert list(svc.ledgers[name].matches) == list(ledger.matches)
    page = dict(svc.board.current()) if svc.board is not None else {}
    page.pop("version")
    expected = event_snapshot(event, fresh, svc.halls, svc._alerts, wall.wall_datetime(),
                              office=svc.office_document(),
                              handled=alerts.handled(store.admin_actions()))
    page.pop("generated"), expected.pop("generated")  # when it was made: not what it says
    # The public pages' addresses: every one of the schedule in force, as the store keeps it.
    kept = {slugs.Named(kind, category, name): s
            for kind, category, name, s in store.slugs()}
    assert set(slugs.of_event(event)) <= set(kept)
    expected["slugs"] = slugs.to_json(slugs.assign(slugs.of_event(event), kept))
    assert page == expected
    for topic, table in merge.standings(event, fresh):
        assert peer.retained[topic] == wire.build_standings(table)
    for hall in event.halls():
        upcoming = merge.next_match(event, fresh, hall)
        assert peer.retained[wire.hall_topic(event.id, hall, wire.NEXT)] \
            == (b"" if upcoming is None else wire.build_next(upcoming))
    return svc.board.current() if svc.board is not None else {}


steps = st.lists(st.tuples(st.sampled_from(("events", "events", "one", "state", "status",
                                            "correct", "draw", "time", "review",
                                            "forfeit", "green")),
                           st.integers(0, 10_000), st.integers(0, 10_000)),
                 min_size=1, max_size=25)


@pytest.mark.parametrize("name", ["plain", "categories"])
@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=steps)
def test_what_the_service_shows_and_publishes_is_the_fold_from_scratch(
        tmp_path_factory: pytest.TempPathFactory, name: str,
        steps: list[tuple[str, int, int]]) -> None:
    event, games = event_named(name)
    path = tmp_path_factory.mktemp("store") / "office.sqlite"
    store = Store(path)
    shell = Store(path)  # `office correct` and `office draw-lots`: another connection
    peer, wall = FakePeer(), FakeClock(wall=T0)
    svc = OfficeService(event, store, peer, SnapshotBoard(), wall=wall.wall_datetime,
                        monotonic=wall.monotonic)
    schedule = [m for _, m in event.schedule()]
    halls = event.halls()
    svc.pump()
    handed: tuple[dict[str, Any], dict[str, Any]] | tuple[()] = ()
    for kind, a, b in steps:
        m = schedule[a % len(schedule)]
        payloads = games[m.id]
        topic = wire.hall_topic(event.id, m.hall, wire.EVENTS)
        if kind == "events":
            chosen = payloads[:b % (len(payloads) + 1)]
        elif kind == "one":
            chosen = [payloads[b % len(payloads)]]
        else:
            chosen = []
        peer.inbox = [FakeMessage(topic, json.dumps(p).encode()) for p in chosen]
        hall = halls[b % len(halls)]
        if kind == "state":
            doc = {"match": m.id, "phase": "running", "clock_ms": b, "score": {"home": 1}}
            peer.inbox = [FakeMessage(wire.hall_topic(event.id, hall, wire.STATE),
                                      json.dumps(doc).encode())]
        elif kind == "status":
            peer.inbox = [FakeMessage(wire.hall_topic(event.id, hall, wire.STATUS),
                                      b"online" if b % 2 else b"offline")]
        elif kind == "correct":
            shell.admin("correct", {"match": m.id, "home": b % 4, "away": (b // 4) % 4,
                                    "reason": "jury"}, wall.wall_datetime())
        elif kind == "draw":
            c = event.categories[a % len(event.categories)]
            group = c.tournament.groups[b % len(c.tournament.groups)]
            order = random.Random(b).sample(group.teams, len(group.teams))
            shell.admin("draw", {"group": group.name, "order": order,
                                 "category": None if event.plain else c.name}, wall.wall_datetime())
        elif kind == "review":
            # One of the results waiting for the office (else any match), kept for the teams
            # who played it or credited to the pairing the schedule names now.
            assert svc.ledgers is not None
            c = event.categories[a % len(event.categories)]
            ledger = svc.ledgers[c.name]
            waiting = ledger.review()
            view = waiting[a % len(waiting)] if waiting else ledger.matches[
                c.tournament.matches[a % len(c.tournament.matches)].id]
            pairing = ledger.pairings[view.scheduled.id]
            review = Review(view.scheduled.id, ReviewAction.KEEP, "played", wall.wall_datetime(),
                            *view.hall_teams) if b % 2 and view.hall_teams is not None \
                else Review(view.scheduled.id, ReviewAction.SWAP, "credited", wall.wall_datetime(),
                            pairing.home, pairing.away)
            shell.admin(alerts.REVIEW, alerts.review_data(review, []), wall.wall_datetime())
        elif kind == "forfeit":
            # Few teams: two late forfeits of one eliminate it.
            team = m.home.team or m.away.team or m.home.text
            late = b % 4 != 0
            forfeit = rulings.Forfeit(m.id, team, rulings.ForfeitCause.LATE if late
                                      else rulings.ForfeitCause.UNAUTHORISED, "jury",
                                      wall.wall_datetime(),
                                      None if late else 2 + b % 4)
            owner = event.category_of(m.id)
            assert owner is not None
            shell.admin(rulings.FORFEIT, rulings.forfeit_data(
                forfeit, "home", forfeit_goals(owner.tournament, m.id)), wall.wall_datetime())
        elif kind == "green":
            team = m.home.team or m.away.team or m.home.text
            shell.admin(rulings.GREEN_CARD, {"match": m.id, "team": team,
                                             "player": 2 + b % 5, "reason": ""},
                         wall.wall_datetime())
        elif kind == "time":
            wall.advance(timedelta(minutes=b % 20).total_seconds())
        svc.pump()
        # The page is made at most every VIEW_S after a state: let that pass, then compare.
        wall.advance(1)
        svc.pump()
        page = check(svc, peer, store, wall)
        # What the page cache kept between the refreshes is reused, never written to: the
        # page handed out before (a web reader may still be encoding it) is as it was.
        if handed and handed[0] != handed[1]:
            pytest.fail("the page handed out before was changed by the refresh after it")
        handed = (page, copy.deepcopy(page))
    assert wall.wall_datetime() >= T0
    shell.close()
    store.close()


def test_a_ban_earned_in_one_hall_reaches_the_next_of_another(tmp_path: Path) -> None:
    """Rules 000 'Penalties' 4: a match penalty bans the player from his team's next match.
    Tartu Valk's next is A4 in hall-2, which hall-2 plays next once A2 and B2 are; the ban
    comes from A1 in hall-1, so nothing of hall-2's own matches changed."""
    event, _ = event_named("plain")
    (category,) = event.categories
    t = category.tournament
    store = Store(tmp_path / "office.sqlite")
    peer, wall = FakePeer(), FakeClock(wall=T0)
    svc = OfficeService(event, store, peer, SnapshotBoard(), wall=wall.wall_datetime,
                        monotonic=wall.monotonic)
    for mid, pens in (("A2", []), ("B2", []), ("A1", [("away", 7, "match")])):
        m = t.match(mid)
        assert m is not None and m.home.team is not None and m.away.team is not None
        payloads = play(m.preset, m.hall, Play(mid, m.home.team, m.away.team, 2, 1, pens))
        topic = wire.hall_topic(event.id, m.hall, wire.EVENTS)
        peer.inbox = [FakeMessage(topic, json.dumps(p).encode()) for p in payloads]
        svc.pump()
        check(svc, peer, store, wall)
    upcoming = json.loads(peer.retained[wire.hall_topic(event.id, "hall-2", wire.NEXT)])
    assert upcoming["match"] == "A4"
    assert upcoming["suspended"] == [{"team": "home", "player": 7}]
    store.close()


def test_an_elimination_moves_the_next_of_the_halls_of_its_voided_matches(
        tmp_path: Path) -> None:
    """Rules 001 'Waiting period': a team late twice is eliminated and its group matches
    voided; a voided match is not played, so the hall whose next it was gets the match
    after it, though nothing of that match was ruled on; a protest upheld against the
    second forfeit (office correct) gives it back."""
    event, games = event_named("plain")
    (category,) = event.categories
    t = category.tournament
    path = tmp_path / "office.sqlite"
    store, shell = Store(path), Store(path)
    peer, wall = FakePeer(), FakeClock(wall=T0)
    svc = OfficeService(event, store, peer, SnapshotBoard(), wall=wall.wall_datetime,
                        monotonic=wall.monotonic)
    team = "Tartu Valk"
    own = [m for m in t.matches if m.group is not None and team in (m.home.team, m.away.team)]
    voided = own[1]  # its second match, its hall's next once that hall has played the others
    svc.pump()
    for m in t.matches:
        if m.hall == voided.hall and m.start < voided.start:
            topic = wire.hall_topic(event.id, m.hall, wire.EVENTS)
            peer.inbox = [FakeMessage(topic, json.dumps(p).encode()) for p in games[m.id]]
            svc.pump()
    check(svc, peer, store, wall)
    next_topic = wire.hall_topic(event.id, voided.hall, wire.NEXT)
    assert json.loads(peer.retained[next_topic])["match"] == voided.id
    for m in own[-2:]:
        side = "home" if m.home.team == team else "away"
        shell.admin(rulings.FORFEIT, rulings.forfeit_data(
            rulings.Forfeit(m.id, team, rulings.ForfeitCause.LATE, "late",
                            wall.wall_datetime()), side,
            forfeit_goals(t, m.id)), wall.wall_datetime())
        svc.pump()
        check(svc, peer, store, wall)
    assert svc.ledgers is not None and voided.id in svc.ledgers[category.name].voided
    assert json.loads(peer.retained[next_topic])["match"] != voided.id
    shell.admin("correct", {"match": own[-1].id, "home": 1, "away": 1,
                            "reason": "protest upheld"}, wall.wall_datetime())
    svc.pump()
    check(svc, peer, store, wall)
    assert json.loads(peer.retained[next_topic])["match"] == voided.id
    shell.close()
    store.close()


@pytest.mark.parametrize("name", ["plain", "categories"])
def test_rulings_and_reviews_after_the_results_are_shown_as_from_scratch(
        tmp_path: Path, name: str) -> None:
    """Every match played (the bracket under its slots' text, so its results wait for the
    office), then from the shell: a team late twice (rules 001 'Waiting period': eliminated,
    its group matches voided), a player's unauthorised start (rules 001 "Player's start":
    expelled), a green card (rules 003) and a review of every result waiting (office review
    --keep). After each the page and the retained documents are a fold from scratch's."""
    event, games = event_named(name)
    path = tmp_path / "office.sqlite"
    store, shell = Store(path), Store(path)
    peer, wall = FakePeer(), FakeClock(wall=T0)
    svc = OfficeService(event, store, peer, SnapshotBoard(), wall=wall.wall_datetime,
                        monotonic=wall.monotonic)
    for _, m in event.schedule():
        topic = wire.hall_topic(event.id, m.hall, wire.EVENTS)
        peer.inbox = [FakeMessage(topic, json.dumps(p).encode()) for p in games[m.id]]
        svc.pump()
    wall.advance(3600)  # every protest window closed
    svc.pump()
    check(svc, peer, store, wall)
    category = event.categories[0]
    group = [m for m in category.tournament.matches if m.group is not None]
    team = group[0].home.team
    assert team is not None
    own = [m for m in group if team in (m.home.team, m.away.team)]
    other = next(m for m in group if team not in (m.home.team, m.away.team))
    assert other.home.team is not None
    forfeits = [rulings.Forfeit(m.id, team, rulings.ForfeitCause.LATE, "late", wall.wall_datetime())
                for m in own[:2]]
    forfeits.append(rulings.Forfeit(other.id, other.home.team,
                                    rulings.ForfeitCause.UNAUTHORISED, "start",
                                    wall.wall_datetime(), 7))
    for forfeit in forfeits:
        side = "home" if forfeit.team == category.tournament.match(forfeit.match).home.team \
            else "away"  # type: ignore[union-attr]
        shell.admin(rulings.FORFEIT, rulings.forfeit_data(
            forfeit, side, forfeit_goals(category.tournament, forfeit.match)), wall.wall_datetime())
        svc.pump()
        check(svc, peer, store, wall)
    assert svc.ledgers is not None and svc.ledgers[category.name].eliminations
    shell.admin(rulings.GREEN_CARD, {"match": other.id, "team": other.home.team, "player": 4,
                                     "reason": ""}, wall.wall_datetime())
    svc.pump()
    check(svc, peer, store, wall)
    reviewed = 0
    for _ in range(len(list(event.schedule()))):
        waiting = [(c, v) for c in event.categories for v in svc.ledgers[c.name].review()]
        if not waiting:
            break
        _, view = waiting[0]
        assert view.hall_teams is not None
        review = Review(view.scheduled.id, ReviewAction.KEEP, "played", wall.wall_datetime(),
                        *view.hall_teams)
        shell.admin(alerts.REVIEW, alerts.review_data(review, []), wall.wall_datetime())
        svc.pump()
        check(svc, peer, store, wall)
        reviewed += 1
    assert reviewed  # results played under placeholders waited for the office
    shell.close()
    store.close()
