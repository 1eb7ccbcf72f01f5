"""HallLink's retained state: a refresh always carries the latest document, never one a
newer document has replaced (a stopped clock must not be refreshed back to running)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from arena.timesource import FakeClock
from firmware_py.mqtt import STATE_EVERY_S, HallLink
from tests.fixtures import Broker, wait_for
from tests.mqtt.conftest import Collector

pytestmark = pytest.mark.slow  # every test here starts a process


def pumped(link: HallLink, condition: Callable[[], bool]) -> Callable[[], bool]:
    def check() -> bool:
        link.pump()
        return condition()
    return check


def test_a_refresh_and_a_reconnect_send_the_latest_state(broker: Broker) -> None:
    clock = FakeClock(0)
    link = HallLink("127.0.0.1", broker.port, "T1", "H1", clock=clock.monotonic)
    collector = Collector(broker.port, "arena/v1/T1/H1/state", persistent=False)
    running, stopped = {"running": True, "clock_ms": 5000}, {"running": False, "clock_ms": 4200}
    # Handed over before the link is connected: only the latest goes out, at connect.
    link.publish_state({"running": False, "clock_ms": 6000})
    link.publish_state(running)
    link.start()
    try:
        wait_for(collector.subscribed.is_set, 5, "the collector")
        wait_for(pumped(link, lambda: len(collector.on("/state")) == 1), 5, "the state")
        link.publish_state(stopped)
        wait_for(lambda: len(collector.on("/state")) == 2, 5, "the stop")
        clock.advance(STATE_EVERY_S)
        link.pump()  # the refresh is due
        wait_for(lambda: len(collector.on("/state")) == 3, 5, "the refresh")
        assert [json.loads(p) for p in collector.on("/state")] == [running, stopped, stopped]
    finally:
        link.close()
        collector.close()
