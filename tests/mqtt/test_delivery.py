"""Every event reaches the office's store through broker kills, scoreboard kills, outages,
a broker replaced by an empty one and an office restored from an older copy.

The scoreboard here is ``python -m firmware_py.replaypublisher`` playing a 213-line floorball
game (218 events, the last one ``match_ended`` with the match record) into its journal; it
exits 0 only once the office says (its retained ``acks``) it has stored every event. The
office is the real one (``OfficeService`` on ``OfficePeer`` and SQLite) in the test process.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena import wire
from tests.fixtures import Broker, Office, stored_ids, tournament_file, wait_for
from tests.mqtt.conftest import Collector, check_sequence, game_script, publisher

pytestmark = pytest.mark.slow  # every test here starts a process

TOTAL = 218
EVERY_ID = [f"H1:M1:{seq}" for seq in range(1, TOTAL + 1)]


def office(broker: Broker, tmp_path: Path, db: str = "office.sqlite") -> Office:
    return Office(broker.port, tmp_path / db,
                  tournament_file(tmp_path / "cup.toml", "T1", [("M1", "H1")]))


def mark(journal_dir: Path) -> int:
    """What the hall keeps of the office's word on M1."""
    path = journal_dir / "M1.journal.stored"
    return int(path.read_text()) if path.exists() else 0


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
    the_office = office(broker, tmp_path)
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
        assert stored_ids(the_office.db) == EVERY_ID and mark(journal) == TOTAL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        collector.close()
        the_office.stop()


def test_broker_absent_at_start(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker")
    broker.start()
    collector = persistent_collector(broker)
    the_office = office(broker, tmp_path)
    wait_for(lambda: the_office.peer.subscribed, 10, "the office to subscribe")
    since = time.time()
    wait_for(lambda: broker.saved_after(since), 5, "the broker to save the office's session")
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
        assert stored_ids(the_office.db) == EVERY_ID
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        collector.close()
        the_office.stop()
        broker.stop()


@pytest.mark.slow
def test_scoreboard_killed_at_random_moments(broker: Broker, tmp_path: Path) -> None:
    rng = random.Random(20261129)
    the_office = office(broker, tmp_path)
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
        assert stored_ids(the_office.db) == EVERY_ID
    finally:
        collector.close()
        the_office.stop()


def test_office_down_and_broker_replaced_empty_every_event_stored_once(
        broker: Broker, tmp_path: Path) -> None:
    """The office is down for the whole game; the broker PUBACKs everything, is SIGKILLed
    and comes back with nothing (no persistence file); then the office comes up. Only the
    office's word ends the hall's delivery, so the hall sends it all again."""
    script = game_script(tmp_path / "game.jsonl")
    journal, log = tmp_path / "journal", tmp_path / "publish.log"
    watch = Collector(broker.port, "arena/v1/T1/H1/events", client_id="watch",
                      persistent=False)
    wait_for(watch.subscribed.is_set, 5, "the watcher")
    proc = publisher(script, journal, broker.port, speed=0, log=log)
    the_office: Office | None = None
    try:
        # The broker had every event (it passed them all on, so it PUBACKed them all), and
        # still the hall waits: no office has said it stored anything.
        wait_for(lambda: len(watch.distinct_seqs()) == TOTAL, 20, "every event at the broker")
        watch.close()
        assert proc.poll() is None and mark(journal) == 0
        broker.kill()
        (broker.dir / "mosquitto.db").unlink(missing_ok=True)  # replaced by an empty one
        broker.start()
        the_office = office(broker, tmp_path)
        finish(proc, log)
        assert stored_ids(the_office.db) == EVERY_ID  # the store's key: each exactly once
        assert mark(journal) == TOTAL
        assert "re-sending M1 from seq 1" in log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if the_office is not None:
            the_office.stop()


def test_an_office_restored_from_an_older_copy_gets_what_the_copy_lacks(
        broker: Broker, tmp_path: Path) -> None:
    script = game_script(tmp_path / "game.jsonl")
    journal, log = tmp_path / "journal", tmp_path / "publish.log"
    the_office = office(broker, tmp_path)
    try:
        finish(publisher(script, journal, broker.port, speed=0, log=log), log)
        assert mark(journal) == TOTAL
    finally:
        the_office.stop()
    # An older copy: taken before seq 40..45 and everything after 150 had arrived (and the
    # rows are append-only in a live store, so the copy is made by hand here).
    older = tmp_path / "older.sqlite"
    shutil.copy(tmp_path / "office.sqlite", older)
    with contextlib.closing(sqlite3.connect(older)) as con:
        con.execute("DROP TRIGGER events_no_delete")
        con.execute("DELETE FROM events WHERE seq BETWEEN 40 AND 45 OR seq > 150")
        con.commit()
    acks = Collector(broker.port, wire.hall_topic("T1", "H1", wire.ACKS), client_id="acks",
                     persistent=False)
    restored = office(broker, tmp_path, db="older.sqlite")
    try:
        # The restored office's word (up to 39, the gap after it) replaces the retained 218.
        wait_for(lambda: acks.on("/acks")[-1:] == [wire.build_acks({"M1": 39})], 10,
                 "the restored office's acks")
        # The hall starts again: nothing left to play, and its own mark says 218, but the
        # office's word is authoritative: it sends 40..218 again, the gap filled first.
        finish(publisher(script, journal, broker.port, speed=0, log=log), log)
        assert stored_ids(older) == EVERY_ID
        assert json.loads(acks.on("/acks")[-1]) == {"matches": {"M1": TOTAL}}
        assert mark(journal) == TOTAL
        assert "re-sending" in log.read_text()
    finally:
        acks.close()
        restored.stop()
