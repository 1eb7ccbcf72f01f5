"""A real mosquitto for the MQTT tests: own port, own config, own data directory.

The broker is started by the test that needs it and stopped by its pid; ``restart`` keeps
the data directory, so a persistent subscriber session saved before a kill comes back.
Tests wait for conditions with bounded polling (``wait_for``), never a fixed sleep.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from firmware_py.loopback import DEBIAN_MOSQUITTO, find_mosquitto, free_port, port_open

ROOT = Path(__file__).resolve().parents[2]
MOSQUITTO = find_mosquitto() or str(DEBIAN_MOSQUITTO)
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


def tournament_file(path: Path, tournament: str, matches: list[tuple[str, str]]) -> Path:
    """A tournament file with these ``(match, hall)`` group matches (teams X v Y, home and
    away swapped each time, as a double round robin has them): all an office needs to
    accept their events."""
    lines = [f'name = "{tournament}"', f'id = "{tournament}"', 'preset = "floorball-2x15"',
             "", "[[groups]]", 'name = "A"', 'teams = ["X", "Y"]']
    for i, (match, hall) in enumerate(matches):
        lines += ["", "[[matches]]", f'id = "{match}"', 'group = "A"', f'hall = "{hall}"',
                  f"start = 2026-12-05T{9 + i:02d}:00:00",
                  *(('home = "X"', 'away = "Y"') if i % 2 == 0 else ('home = "Y"', 'away = "X"'))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class Office:
    """The real office in a thread of the test: ``OfficeService`` on an ``OfficePeer`` and a
    SQLite ``Store``, as ``office serve`` runs them. It stores the halls' events and
    publishes each hall's ``acks``; ``stop`` and a new ``Office`` on the same file are an
    office restart (its persistent session stays with the broker)."""

    def __init__(self, port: int, db: Path, tournament: Path, *, username: str | None = None,
                 password: str | None = None, public_url: str | None = None) -> None:
        from arena.tournament.files import load_tournament  # noqa: PLC0415
        from office.peer import OfficePeer  # noqa: PLC0415
        from office.service import OfficeService  # noqa: PLC0415
        from office.storage.store import Store  # noqa: PLC0415

        self.db = db
        cup = load_tournament(tournament)
        self.store = Store(db)
        self.peer = OfficePeer("127.0.0.1", port, cup.id, username=username, password=password,
                               reconnect_s=(1, 1))
        self.service = OfficeService(cup, self.store, self.peer, public_url=public_url)
        self._stop = threading.Event()
        self.peer.start()
        self._thread = threading.Thread(target=self._run, name="test-office", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self.service.refresh()
        while not self._stop.is_set():
            self.service.pump(0.05)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.peer.close()
        self.store.close()


def stored_ids(db: Path) -> list[str]:
    """Every ``event_id`` in an office's store (one row each: the store's key)."""
    with contextlib.closing(sqlite3.connect(db)) as con:
        return [r[0] for r in con.execute("SELECT event_id FROM events ORDER BY match, seq")]


def wait_for(condition: Callable[[], bool], timeout: float, what: str,
             step: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


class Broker:
    """One mosquitto process on 127.0.0.1:``port`` with its data in ``directory``."""

    def __init__(self, directory: Path, port: int | None = None, extra: str = "") -> None:
        self.dir = directory
        self.port = port or free_port()
        self.extra = extra
        self.config_text: str | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.dir.mkdir(parents=True, exist_ok=True)
        self.config = self.dir / "mosquitto.conf"
        self.log = self.dir / "mosquitto.log"

    def write_config(self) -> None:
        if self.config_text is not None:  # a whole configuration of the test's own
            self.config.write_text(self.config_text)
            return
        # As root mosquitto drops to the `mosquitto` user, which cannot write a test's temp
        # directory; `user root` keeps it root (ignored when not started as root).
        lines = [
            f"listener {self.port} 127.0.0.1",
            "set_tcp_nodelay true",
            "persistence true",
            f"persistence_location {self.dir}/",
            "autosave_interval 1",  # save sessions every second: the tests kill it
            "log_type error",
            "log_type warning",
            "log_type notice",
            f"log_dest file {self.log}",
            "user root",
        ]
        if "allow_anonymous" not in self.extra:
            lines.append("allow_anonymous true")
        self.config.write_text("\n".join(lines) + "\n" + self.extra + "\n")

    def start(self) -> None:
        assert self.proc is None
        if not Path(MOSQUITTO).exists():  # fail loudly: a skip would hide the missing tests
            raise RuntimeError("mosquitto is not installed: apt-get install mosquitto "
                               "(./quickstart.sh test installs it)")
        self.write_config()
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.config)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: port_open(self.port) or self.proc is None or
                 self.proc.poll() is not None, 10, "mosquitto to listen")
        if self.proc.poll() is not None:
            raise RuntimeError(f"mosquitto exited: {self.log.read_text(errors='replace')}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is None:
            return
        os.kill(self.proc.pid, sig)
        self.proc.wait(10)
        self.proc = None

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def saved_after(self, instant: float) -> bool:
        db = self.dir / "mosquitto.db"
        return db.exists() and db.stat().st_mtime > instant


SHIPPED_CONF = ROOT / "systemd" / "mosquitto" / "arena.conf"
SHIPPED_ACL = ROOT / "systemd" / "mosquitto" / "arena.acl"


def add_user(passwd: Path, user: str, password: str) -> None:
    """One user in a mosquitto password file, the way install.sh adds the office's: the
    password twice on standard input (``-c`` creates the file for the first user)."""
    create = [] if passwd.exists() else ["-c"]
    subprocess.run([MOSQUITTO_PASSWD, *create, str(passwd), user],
                   input=f"{password}\n{password}\n".encode(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def shipped_config(broker: Broker, passwd: Path, acl: Path = SHIPPED_ACL) -> str:
    """systemd/mosquitto/arena.conf as shipped, moved to the test's port, password file, log
    and data directory (the ACL is the shipped file itself unless ``acl`` names another).
    Nothing else changes."""
    text = SHIPPED_CONF.read_text()
    for old, new in [("listener 1883", f"listener {broker.port} 127.0.0.1"),
                     ("/etc/mosquitto/arena.passwd", str(passwd)),
                     ("/etc/mosquitto/arena.acl", str(acl)),
                     # `user root`: as root mosquitto would drop to a user that cannot
                     # write the test's directory (ignored when not started as root).
                     ("log_dest syslog", f"log_dest file {broker.log}\nuser root")]:
        assert old in text, old
        text = text.replace(old, new)
    # Debian's mosquitto.conf gives the location the shipped file relies on.
    return text + f"persistence_location {broker.dir}/\n"


class ShippedBroker(Broker):
    """A mosquitto with exactly the shipped office configuration and ACL, and a password
    file made as install.sh makes it, holding ``users`` (user name -> password)."""

    def __init__(self, directory: Path, users: dict[str, str], port: int | None = None, *,
                 acl: Path = SHIPPED_ACL, extra: str = "") -> None:
        super().__init__(directory, port)
        self.users = dict(users)
        self.passwd = self.dir / "arena.passwd"
        for user, password in self.users.items():
            add_user(self.passwd, user, password)
        # ``extra``: more of the shipped configuration (a venue's bridge), as conf.d adds it.
        self.config_text = shipped_config(self, self.passwd, acl) + extra


#: The users of ``shipped_broker``: the office, two halls and a read-only display.
SHIPPED_USERS = {"office": "office-secret", "hall-a": "a-secret", "hall-b": "b-secret",
                 "display": "display-secret"}


@pytest.fixture
def shipped_broker(tmp_path: Path) -> Iterator[ShippedBroker]:
    """The office broker as installed (``SHIPPED_USERS``), on a free loopback port."""
    b = ShippedBroker(tmp_path / "shipped-broker", SHIPPED_USERS)
    b.start()
    yield b
    b.stop()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


class Collector:
    """A subscriber that keeps every message, by topic, and the events in arrival order."""

    def __init__(self, port: int, topic: str, *, client_id: str = "test-collector",
                 persistent: bool = True, username: str | None = None,
                 password: str | None = None) -> None:
        self.lock = threading.Lock()
        self.messages: list[tuple[str, bytes]] = []
        self.subscribed = threading.Event()
        self.topic = topic
        c = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id=client_id,
                        protocol=paho.MQTTv311, clean_session=not persistent)
        if username:
            c.username_pw_set(username, password)
        c.reconnect_delay_set(min_delay=1, max_delay=1)
        c.on_connect = self._on_connect
        c.on_subscribe = self._on_subscribe
        c.on_message = self._on_message
        self.client = c
        c.connect_async("127.0.0.1", port)
        c.loop_start()

    def _on_connect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if not reason.is_failure:
            client.subscribe(self.topic, qos=1)

    def _on_subscribe(self, *args: Any) -> None:
        self.subscribed.set()

    def _on_message(self, client: paho.Client, userdata: Any, msg: paho.MQTTMessage) -> None:
        with self.lock:
            self.messages.append((msg.topic, bytes(msg.payload)))

    def on(self, suffix: str) -> list[bytes]:
        with self.lock:
            return [p for t, p in self.messages if t.endswith(suffix)]

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(p) for p in self.on("/events")]

    def distinct_seqs(self) -> set[int]:
        return {e["seq"] for e in self.events()}

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def check_sequence(events: list[dict[str, Any]], total: int, hall: str, match: str) -> int:
    """Gapless 1..total, first arrivals in order, duplicates identical; returns duplicates."""
    first: dict[str, dict[str, Any]] = {}
    order: list[int] = []
    for e in events:
        assert e["event_id"] == f"{hall}:{match}:{e['seq']}"
        if e["event_id"] in first:
            assert e == first[e["event_id"]], "a duplicate differs from the original"
            continue
        first[e["event_id"]] = e
        order.append(e["seq"])
    assert order == list(range(1, total + 1)), f"gaps or disorder: {order}"
    return len(events) - len(order)


def game_script(path: Path) -> Path:
    """A floorball game of 213 lines and 218 events, ending with the match record."""
    lines: list[dict[str, Any]] = []
    t = 0.0
    for i in range(100):
        lines.append({"t": t, "do": "start"})
        t += 3
        if i % 10 == 5:
            lines.append({"t": t, "do": "goal", "team": "home" if i % 20 == 5 else "away",
                          "player": 7})
            t += 1
        lines.append({"t": t, "do": "stop"})
        t += 1
    for _ in range(3):
        lines.append({"t": t, "do": "end"})
        t += 1
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def publisher(script: Path, journal: Path, port: int, *, speed: float, hall: str = "H1",
              match: str = "M1", extra: tuple[str, ...] = (),
              log: Path | None = None,
              env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``python -m firmware_py.replaypublisher`` as a child process (the thing the tests kill)."""
    args = [sys.executable, "-m", "firmware_py.replaypublisher", str(script),
            "--preset", "floorball-2x15", "--journal", str(journal),
            "--broker", f"mqtt://127.0.0.1:{port}", "--tournament", "T1", "--hall", hall,
            "--match", match, "--speed", str(speed), "--reconnect-max", "1", *extra]
    out = open(log, "ab") if log is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        return subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=out, env=env)
    finally:
        if log is not None:
            out.close()  # type: ignore[union-attr]
