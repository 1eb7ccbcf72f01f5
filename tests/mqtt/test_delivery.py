"""Every event reaches the subscriber through broker kills, scoreboard kills and outages.

The scoreboard here is ``python -m firmware_py.replaypublisher`` playing a 213-line floorball game
(218 events, the last one ``match_ended`` with the match record) into its journal.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.mqtt.conftest import (
    Broker,
    Collector,
    check_sequence,
    game_script,
    publisher,
    wait_for,
)

TOTAL = 218


def journalled(journal_dir: Path) -> int:
    """Events in the publisher's journal so far."""
    path = journal_dir / "M1.journal"
    return path.read_bytes().count(b'"type":"event"') if path.exists() else 0


def progressed(proc: subprocess.Popen[bytes], journal_dir: Path,
               target: int) -> Callable[[], bool]:
    return lambda: journalled(journal_dir) >= target or proc.poll() is not None


def persistent_collector(broker: Broker) -> Collector:
    """The office's way: a persistent session, saved by the broker before anything is killed."""
    collector = Collector(broker.port, "arena/v1/T1/H1/events")
    wait_for(collector.subscribed.is_set, 5, "the subscription")
    # After the SUBACK: a save that ends later holds the subscription (one-threaded broker).
    since = time.time()
    wait_for(lambda: broker.saved_after(since), 5, "the broker to save the session")
    return collector


def finish(proc: subprocess.Popen[bytes], log: Path) -> None:
    try:
        rc = proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
    assert rc == 0, log.read_text(errors="replace")


def test_broker_killed_mid_game(broker: Broker, tmp_path: Path) -> None:
    collector = persistent_collector(broker)
    script = game_script(tmp_path / "game.jsonl")
    journal, log = tmp_path / "journal", tmp_path / "publish.log"
    proc = publisher(script, journal, broker.port, speed=80, log=log)
    try:
        wait_for(lambda: len(collector.distinct_seqs()) >= 40, 20, "40 events through")
        broker.kill()
        received = len(collector.distinct_seqs())
        # The game goes on without the broker: the journal grows, nothing is lost.
        wait_for(lambda: journalled(journal) >= received + 60, 20, "60 events in the outage")
        assert proc.poll() is None
        broker.start()
        finish(proc, log)
        wait_for(lambda: len(collector.distinct_seqs()) == TOTAL, 20, "every event")
        events = collector.events()
        check_sequence(events, TOTAL, "H1", "M1")
        assert events[-1]["type"] == "match_ended" and "record" in events[-1]["data"]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        collector.close()


def test_broker_absent_at_start(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker")
    broker.start()
    collector = persistent_collector(broker)
    broker.stop()  # a clean stop saves the session too
    script = game_script(tmp_path / "game.jsonl")
    journal, log = tmp_path / "journal", tmp_path / "publish.log"
    proc = publisher(script, journal, broker.port, speed=0, log=log)
    try:
        # Without a broker the game is played and journalled in full; the process waits.
        wait_for(lambda: journalled(journal) == TOTAL, 20, "the whole game journalled")
        assert proc.poll() is None
        broker.start()
        finish(proc, log)
        wait_for(lambda: len(collector.distinct_seqs()) == TOTAL, 20, "every event")
        check_sequence(collector.events(), TOTAL, "H1", "M1")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        collector.close()
        broker.stop()


@pytest.mark.slow
def test_scoreboard_killed_at_random_moments(broker: Broker, tmp_path: Path) -> None:
    rng = random.Random(20261129)
    collector = Collector(broker.port, "arena/v1/T1/H1/events")
    wait_for(collector.subscribed.is_set, 5, "the subscription")
    script = game_script(tmp_path / "game.jsonl")
    journal, log = tmp_path / "journal", tmp_path / "publish.log"
    kills = kills_mid_game = 0
    try:
        while kills_mid_game < 50 and journalled(journal) < TOTAL:
            before = journalled(journal)
            proc = publisher(script, journal, broker.port, speed=40, log=log)
            if rng.random() < 0.3:
                # Any moment: starting, resuming the journal, connecting, sending.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(rng.uniform(0.0, 0.5))
            else:
                # A moment a few events further into the game, then a little later still.
                target = min(TOTAL, before + rng.randint(1, 4))
                wait_for(progressed(proc, journal, target), 20, "the game to go on")
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(rng.uniform(0.0, 0.03))
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                kills += 1
                kills_mid_game += journalled(journal) < TOTAL
            proc.wait()
        assert kills_mid_game >= 50, f"only {kills_mid_game} kills while the game was on"
        finish(publisher(script, journal, broker.port, speed=0, log=log), log)
        wait_for(lambda: len(collector.distinct_seqs()) == TOTAL, 20, "every event")
        check_sequence(collector.events(), TOTAL, "H1", "M1")
    finally:
        collector.close()
