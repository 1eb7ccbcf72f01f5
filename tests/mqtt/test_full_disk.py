"""A full disk heals without a restart: the real ``office serve`` on a store in a small
tmpfs, the shipped broker, two halls publishing more than the broker's in-flight window
(mosquitto's max_inflight_messages, 20) each. While the disk is full nothing is stored, the
office's page and every hall's acks say it cannot store; once the fill file is removed
every event is stored exactly once, by the same process (docs/office.md, "The office's
faults").

Root only (it mounts a tmpfs); the broker and the office run in real time, so every wait
for them is a bounded poll.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from arena import wire
from firmware_py.loopback import free_port
from tests.fixtures import (
    SHIPPED_USERS,
    ShippedBroker,
    office_serve,
    stop_gently,
    tournament_file,
    wait_for,
)
from tests.mqtt.conftest import Collector
from tests.office.games import Play, encoded, play

pytestmark = pytest.mark.slow  # it starts a broker and the office

T = "heal-cup"
HALLS = {"hall-a": "M1", "hall-b": "M2"}


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs for the store, unmounted whatever happens."""
    where = tmp_path / "disk"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("needs root: it mounts a small tmpfs to fill the store's disk")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)],
                             capture_output=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode(errors='replace')}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def fill(path: Path) -> None:
    """Write ``path`` until the filesystem has no byte left."""
    chunk = b"\0" * 65536
    with open(path, "wb", buffering=0) as f:
        while True:
            try:
                f.write(chunk)
            except OSError:
                break
        for size in (4096, 512, 1):  # the last partial blocks too
            while True:
                try:
                    f.write(chunk[:size])
                except OSError:
                    break


def stored(db: Path) -> list[str]:
    """The store's event ids, read-only (a reader never needs space)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
        return [r[0] for r in con.execute("SELECT event_id FROM events")]


def hall_client(port: int, hall: str) -> paho.Client:
    client = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id=hall,
                         protocol=paho.MQTTv311, clean_session=True)
    client.username_pw_set(hall, SHIPPED_USERS[hall])
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def latest_acks(watcher: Collector, hall: str) -> dict[str, Any] | None:
    payloads = watcher.on(f"/{hall}/acks")
    return json.loads(payloads[-1]) if payloads and payloads[-1] else None


def page(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/snapshot", timeout=5) as r:
        doc = json.loads(r.read())
    assert isinstance(doc, dict)
    return doc


def test_a_full_disk_heals_without_a_restart(tmp_path: Path, small_disk: Path) -> None:
    broker = ShippedBroker(tmp_path / "broker", SHIPPED_USERS)
    broker.start()
    cup = tournament_file(tmp_path / "cup.toml", T, [(m, h) for h, m in HALLS.items()])
    db = small_disk / "office.sqlite"
    http = free_port()
    office = office_serve(tmp_path, broker.port, cup, username="office",
                          password=SHIPPED_USERS["office"], http=http,
                          extra=["--db", str(db)])
    watcher = Collector(broker.port, f"{wire.tournament_root(T)}/+/acks",
                        client_id="display", persistent=False, username="display",
                        password=SHIPPED_USERS["display"])
    clients: list[paho.Client] = []
    games = {hall: [encoded(p) for p in play("floorball-2x15", hall,
                                             Play(match, "X", "Y", 12, 10))]
             for hall, match in HALLS.items()}
    sent = {hall: [str(json.loads(p)[wire.Ev.EVENT_ID]) for p in payloads]
            for hall, payloads in games.items()}
    assert all(len(ids) > 20 for ids in sent.values())

    def office_up() -> bool:
        assert office.poll() is None, (tmp_path / "office.log").read_text()
        return True

    try:
        # The office's first word to each hall: it is subscribed and its store is open.
        wait_for(lambda: office_up() and all(latest_acks(watcher, h) is not None
                                             for h in HALLS), 30, "the office's acks")
        fill(small_disk / "fill")
        clients = [hall_client(broker.port, hall) for hall in HALLS]
        for client, hall in zip(clients, HALLS, strict=True):
            topic = wire.hall_topic(T, hall, wire.EVENTS)
            for payload in games[hall]:
                client.publish(topic, payload, qos=1).wait_for_publish(10)

        def cannot_store_shown() -> bool:
            office_up()
            told = all((latest_acks(watcher, h) or {}).get(wire.Ak.CANNOT_STORE_SINCE)
                       for h in HALLS)
            return told and bool(page(http)["office"]["store_since"])

        wait_for(cannot_store_shown, 30, "the office saying it cannot store")
        office_doc = page(http)["office"]
        assert "full" in str(office_doc["store_error"])
        # What the broker handed over waits in the office (the window's worth at most).
        assert 0 < sum(office_doc["store_waiting"].values()) <= 20
        assert stored(db) == []
        # Retried with back-off while it lasts (0.5 s, then 1 s, ...), failing each time.
        wait_for(lambda: "try 3" in str(page(http)["office"]["store_error"]), 30,
                 "two retries failing while the disk is full")
        assert stored(db) == []

        (small_disk / "fill").unlink()

        def all_stored() -> bool:
            office_up()
            return len(stored(db)) >= sum(len(ids) for ids in sent.values())

        wait_for(all_stored, 90, "every event stored after the disk was freed", step=0.2)
        ids = stored(db)
        assert sorted(ids) == sorted(sent["hall-a"] + sent["hall-b"])  # each once
        assert office.poll() is None  # the same process: no restart

        def healed() -> bool:
            office_up()
            words = [latest_acks(watcher, h) or {} for h in HALLS]
            return not page(http)["office"]["store_since"] and all(
                wire.Ak.CANNOT_STORE_SINCE not in w
                and w.get(wire.Ak.MATCHES) == {HALLS[h]: len(sent[h])}
                for h, w in zip(HALLS, words, strict=True))

        wait_for(healed, 30, "the office saying it stores again, every event acknowledged")
        assert page(http)["office"]["store_error"] is None
    finally:
        for client in clients:
            client.disconnect()
            client.loop_stop()
        watcher.close()
        stop_gently(office)
        broker.stop()
