"""What the MQTT tests add to the shared setup (tests/fixtures.py: the broker, the
tournament file, the office): a collecting subscriber, the check of a hall's event
sequence, a scripted game and ``scoreboard publish`` as a child process."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from tests.fixtures import ROOT


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
