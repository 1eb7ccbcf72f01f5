"""The office-side faults a real event meets, on real mosquittos and a real ``office serve``
on loopback (tests/mqtt/officefaults.py stages them; bench/faults_office.py reports the same
runs, with 50 kills instead of 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mqtt.officefaults import claimed_twice, damaged_page, double_delivery, play_event

pytestmark = pytest.mark.slow  # every test here starts processes

SEED = 20261205


def test_every_event_delivered_twice_is_stored_once(tmp_path: Path) -> None:
    """A hall's re-send after a lost PUBACK: the same event, same content, a second time."""
    r = double_delivery(tmp_path)
    assert r.delivered == 2 * r.sent
    assert len(r.stored) == r.sent == len(set(r.stored))
    assert r.conflicts == 0


def test_a_bridge_with_the_halls_topics_both_ways_stores_each_event_once(
        tmp_path: Path) -> None:
    """A venue broker bridged with ``topic arena/v1/# both 1``: what goes out may come back
    in. The office stores each event once, whatever number of copies reaches it."""
    r = double_delivery(tmp_path, bridge="loop")
    assert r.delivered >= 2 * r.sent
    assert len(r.stored) == r.sent == len(set(r.stored))
    assert r.conflicts == 0


def test_a_page_damaged_while_serving_is_named_by_check_and_the_page_says_so(
        tmp_path: Path) -> None:
    """The root page of the events table overwritten under a running ``office serve``: it
    keeps serving the tables it holds, the page says the store cannot take events (and to
    run ``office check``), nothing is acknowledged (the halls re-send), and ``office check``
    names the damaged table."""
    r = damaged_page(tmp_path)
    assert r.alive, r.log[-2000:]
    assert r.served_after == r.served_before  # the tables it held, still served
    assert r.store_error is not None and "office check" in r.store_error
    assert r.check_exit == 1
    assert "table 'events'" in r.check_output and "damaged" in r.check_output


def test_ten_random_kills_of_office_and_halls_lose_and_duplicate_nothing(
        tmp_path: Path) -> None:
    """SIGKILLs of ``office serve`` and both halls at random (seeded) moments of a
    two-category event: every journalled event stored exactly once, no conflicts, and the
    tables those of the same event played without kills."""
    calm = play_event(tmp_path / "calm", kills=0, seed=SEED, speed=120)
    chaos = play_event(tmp_path / "chaos", kills=10, seed=SEED, speed=120)
    assert chaos.total_kills == 10, f"seed {SEED}: {chaos.kills}"
    assert chaos.stored == chaos.journalled, f"seed {SEED}"
    assert len(chaos.stored) == len(calm.stored)
    assert chaos.conflicts == 0
    assert chaos.tables == calm.tables, f"seed {SEED}"


def test_a_match_claimed_by_two_halls_is_kept_by_the_first_and_the_other_is_told(
        tmp_path: Path) -> None:
    """Two halls play one match (docs/office.md, "The office's faults"): the office keeps
    the schedule's hall, whose events it stored first; the other hall's are refused, and
    that hall hears it in its acks: it holds them (nothing re-sent on a timer), and its
    operator view says "office refuses match A1: played in hall-1"; the office's page says
    so once, not once per event. ``office reschedule A1 --hall hall-2 --force`` then gives
    hall-2 the match, and every event it held back is stored (rules 001 'Match schedule':
    the organiser may change the schedule at any time)."""
    r = claimed_twice(tmp_path)
    assert r.first_exit == 0 and r.first_sent > 0
    assert r.refused == {"A1": "hall-1"}
    assert r.held == r.journalled > 0 and r.stored_before == 0
    assert r.view.count("office refuses match A1: played in hall-1") == 2  # page and window
    assert len(r.alerts) == 1, r.alerts
    assert r.alerts[0].startswith("A1: hall-2 sends events of it, but hall-1 plays it")
    assert r.refusals >= 1
    assert r.stored_after == r.journalled  # nothing lost
    assert r.refused_after == {} and r.unacked_after == 0
