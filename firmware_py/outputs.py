"""Where each frame's state document goes besides the screen, and how often.

- ``--state-file``: every frame's document, with ``at_ns`` (the instant it was computed for),
  written atomically, so a test or a second display can tell exactly what is shown;
- ``--frame-log``: a line per frame presented, with the instant it went on the screen
  (``FrameLog``): what was shown when, for bench/mirror.py;
- the retained MQTT state: at once on any change but a countdown's, countdowns once a second;
- the serial link: at once on any change but a countdown's, countdowns at most ``state_hz``;
- the log: one ``state`` line per state change; systemd's STATUS= line.

A "state change" (logged, snapshotted) is a change of anything but what ticks by itself
(``TICKING``). The links are stricter: only the remaining times (``COUNTING``) may wait for
the rate limit. A stop, a start, the horn or a stop-time window flips a flag in ``TICKING``
without being a "state change", and a board fed the old flag shows a running clock after the
whistle: so any other change goes out at once, whatever the rate limit.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.core.units import NS_PER_S
from firmware_py.logfmt import kv

log = logging.getLogger("firmware_py.daemon")

MQTT_CLOCK_EVERY_NS = NS_PER_S  # clock-only changes go to the retained state once a second
# Keys of the state document that change by themselves as time passes; a change of any
# other key is a "state change" (logged, published at once).
TICKING = ("clock_ms", "shift_ms", "timeout", "penalties", "running", "horn", "stop_time")
NEVER = -(1 << 62)


def counting_free(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without its remaining times (``clock_ms`` and ``shift_ms`` while the clock
    runs, a penalty's, the time-out's or the pregame countdown's ``remaining_ms``): what must
    reach the links at once when it changes."""
    # A stopped clock set to another value is no countdown: it goes at once (a second board
    # computes the clock from the last one sent, and it would show the old value).
    counting = ("clock_ms", "shift_ms") if doc["running"] else ()
    out = {k: v for k, v in doc.items() if k not in counting}
    out["penalties"] = {side: [{k: v for k, v in p.items() if k != "remaining_ms"}
                               for p in listed]
                        for side, listed in doc["penalties"].items()}
    if doc["timeout"]:
        out["timeout"] = {k: v for k, v in doc["timeout"].items() if k != "remaining_ms"}
    if doc.get("countdown"):
        out["countdown"] = doc["countdown"]["label"]
    return out


def steady_part(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without what ticks by itself; penalties kept as who and what."""
    out = {k: v for k, v in doc.items() if k not in TICKING}
    out["penalties"] = {side: [(p["player"], p["kind"], p["running"]) for p in listed]
                        for side, listed in doc["penalties"].items()}
    out["timeout"] = doc["timeout"]["team"] if doc["timeout"] else None
    if doc.get("countdown"):
        out["countdown"] = doc["countdown"]["label"]  # a new step is a change, not its time
    return out


def clock_text(ms: int) -> str:
    seconds = -(-ms // 1000)
    if ms < 60_000 and ms % 1000:
        return f"{ms // 1000}.{ms % 1000 // 100}"
    return f"{seconds // 60}:{seconds % 60:02d}"


def status_text(doc: dict[str, Any], restored: bool) -> str:
    """systemd STATUS=, e.g. ``M1 P2 12:34 running 2-1``."""
    phase, period = doc["phase"], doc["period"]
    label = {"period": f"P{period}", "overtime": f"OT{period}"}.get(phase, phase)
    score = f"{doc['score']['home']}-{doc['score']['away']}"
    running = "running" if doc["running"] else "stopped"
    text = f"{doc['match']} {label} {clock_text(doc['clock_ms'])} {running} {score}"
    return text + (" CLOCK RESTORED - CHECK" if restored else "")


def describe_penalties(doc: dict[str, Any], side: str) -> str:
    return ",".join(f"{p['player']}:{p['kind']}{'' if p['running'] else '(waiting)'}"
                    for p in doc["penalties"][side]) or "-"


def write_atomic(path: Path, text: str) -> None:
    """For --state-file: a reader never sees half a document (no fsync: it is a view)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_state_file(path: Path | None, doc: dict[str, Any], at: int) -> None:
    """``at_ns``: the instant (match timeline) the document was computed for."""
    if path is not None:
        write_atomic(path, json.dumps({**doc, "at_ns": at}, separators=(",", ":")))


class FrameLog:
    """``--frame-log FILE``: one JSON line per frame presented, appended as it is shown:
    ``shown_ns``, the monotonic instant just after the present (the screen's instant, on the
    clock every process of the machine shares); ``at_ns``, the instant the frame was computed
    for (the board's own timeline); the clock it shows (``clock_ms``, ``running``). A file,
    not the state file: that one is overwritten, and a reader polling it sees when it was
    written, not each frame and when it was shown."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        # Line-buffered: each frame's line is in the file once written (a reader may stop the
        # board with SIGTERM at any moment).
        self._file = None if path is None else path.open("a", encoding="utf-8", buffering=1)

    def presented(self, shown_ns: int, at: int, doc: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json.dumps({"shown_ns": shown_ns, "at_ns": at,
                                         "clock_ms": doc["clock_ms"],
                                         "running": doc["running"]},
                                        separators=(",", ":")) + "\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def between_file(state_file: Path) -> Path:
    """Beside ``--state-file``: the between-games screen's data of the same frame, there
    while that screen is up (``scoreboard snapshot --between`` draws the same picture)."""
    return state_file.with_name(f"{state_file.stem}.between.json")


def write_between_file(state_file: Path | None, between: dict[str, Any] | None,
                       written: str | None) -> str | None:
    """Writes the between screen's data when it differs from ``written`` (what the last call
    left on disk, ``None`` for no file) and returns what is on disk now: the screen changes
    a few times a minute, the frames come ten times a second."""
    if state_file is None:
        return None
    text = None if between is None else json.dumps(between, separators=(",", ":"))
    if text == written:
        return written
    path = between_file(state_file)
    if text is None:
        path.unlink(missing_ok=True)
    else:
        write_atomic(path, text)
    return text


def log_state(doc: dict[str, Any]) -> None:
    result = doc["result"]
    kv(log, logging.INFO, "state", match=doc["match"], phase=doc["phase"],
       period=doc["period"], clock=clock_text(doc["clock_ms"]),
       score=f"{doc['score']['home']}-{doc['score']['away']}",
       penalties_home=describe_penalties(doc, "home"),
       penalties_away=describe_penalties(doc, "away"),
       timeout=doc["timeout"]["team"] if doc["timeout"] else None,
       result=None if result is None else
       f"{result['home']}-{result['away']}/{result['decided_by']}",
       restored=doc["restored"])


class Outputs:
    """Sends each frame's document on; ``real`` is the time source's monotonic clock (the
    rate limits are in real time: a time-scaled demo must not flood the broker)."""

    def __init__(self, real: Callable[[], int], *, state_file: Path | None,
                 serial_hz: float) -> None:
        self._real = real
        self._state_file = state_file
        self._serial_every = NS_PER_S / serial_hz
        self.last_steady: dict[str, Any] | None = None
        self._last_counting_free: dict[str, Any] | None = None
        self._mqtt_sent_at = NEVER
        self._serial_sent_at = NEVER

    def forget(self) -> None:
        """A new match on the board: its first frame is a state change."""
        self.last_steady = None
        self._last_counting_free = None

    def send(self, doc: dict[str, Any], at: int, *, link: Any, serial: Any,
             notifier: Any, restored: bool,
             on_change: Callable[[dict[str, Any] | None, dict[str, Any]], None],
             anchor: dict[str, Any] | None = None) -> None:
        """``on_change(previous steady part, new steady part)`` runs on a state change.
        ``anchor`` goes with the retained state only (arena/wire/anchor.py): the second
        boards' clocks; the serial link and the state file keep the document as it was."""
        write_state_file(self._state_file, doc, at)
        steady = steady_part(doc)
        changed = steady != self.last_steady
        previous, self.last_steady = self.last_steady, steady
        fixed = counting_free(doc)
        urgent = fixed != self._last_counting_free  # more than a countdown moved
        self._last_counting_free = fixed
        real = self._real()
        if changed:
            log_state(doc)
            on_change(previous, steady)
        if link is not None and (urgent or real - self._mqtt_sent_at >= MQTT_CLOCK_EVERY_NS):
            link.publish_state(doc if anchor is None else {**doc, "anchor": anchor})
            self._mqtt_sent_at = real
        if serial is not None and (urgent or real - self._serial_sent_at >= self._serial_every):
            serial.send_state(doc)
            self._serial_sent_at = real
        notifier.status(status_text(doc, restored))
