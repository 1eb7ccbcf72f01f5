"""A second board (``scoreboard run --mirror HALL``, firmware_py/mirror.py) on the in-process
harness: the hall's daemon on a fake clock publishes its states (with the clock's anchor),
and a mirror on a fake clock starting at the same instant takes each one when the hall sent
it, as a broker with no delay would hand it on. Both boards must show the same tenth at the
same instant, though the hall sends its running clock once a second only.

Tournament rules: the clock shows tenths in the last minute of a period (floorball, rules
002 "Playing time": the preset's ``tenths_below_s``), which is what is compared here."""

from __future__ import annotations

import json
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from arena import wire
from arena.core.units import NS_PER_MS, NS_PER_S
from arena.timesource import FakeClock
from display.values import clock_text
from firmware_py import journal
from firmware_py.config import parse
from firmware_py.mirror import Mirror, MirrorOptions
from firmware_py.sdnotify import Notifier
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import START_NS, InProcessHall

CONFIG = """
[match]
preset = "floorball-2x15"
id = "M1"

[mqtt]
broker = "mqtt://127.0.0.1:1"
tournament = "T"
hall = "hall-a"
"""


@dataclass(frozen=True)
class Shown:
    doc: dict[str, Any]
    status: Mapping[str, Any]
    at: int  # the mirror's monotonic instant it was presented at


class MirrorDisplay:
    """Keeps what the mirror draws, stamped with the instant it is presented."""

    def __init__(self, time: FakeClock) -> None:
        self.time = time
        self.size = (1280, 720)
        self.drawn: list[tuple[dict[str, Any], Mapping[str, Any]]] = []
        self.frames: list[Shown] = []
        self.closed = False

    def draw(self, doc: Mapping[str, Any], *, between: Mapping[str, Any] | None = None,
             status: Mapping[str, Any] | None = None, options: Any = None) -> list[Any]:
        self.drawn.append((dict(doc), dict(status or {})))
        return [(0, 0, *self.size)]

    def present(self, dirty: list[Any]) -> None:
        doc, status = self.drawn[-1]
        self.frames.append(Shown(doc, status, self.time.now))

    def close(self) -> None:
        self.closed = True


class ReplayedBroker:
    """The hall's published states, each handed on at the instant it was sent (its anchor's
    ``mono_ns``: the hall publishes a frame's state as it shows it)."""

    def __init__(self, time: FakeClock, states: list[dict[str, Any]]) -> None:
        self.time = time
        self.pending = sorted(states, key=lambda d: d["anchor"]["mono_ns"])
        self.connected = True
        self.online = True
        self.closed = False

    def start(self) -> None:
        pass

    def pump(self, timeout: float = 0.0) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = [("status", self.online)]
        while self.pending and self.pending[0]["anchor"]["mono_ns"] <= self.time.now:
            # What the wire carries: encoded and checked as the mirror's link checks it.
            body = wire.build_state(self.pending.pop(0))
            out.append(("state", wire.check_state(wire.hall_topic("T", "hall-a", wire.STATE),
                                                  body, "T")[1]))
        return out

    def close(self) -> None:
        self.closed = True


def hall_states(tmp_path: Path, script: list[dict[str, Any]], seconds: float
                ) -> tuple[InProcessHall, list[dict[str, Any]], int]:
    """The hall's run: the hall, every state it published, and its timeline's offset
    (match time = monotonic + offset: the time scale is 1)."""
    hall = InProcessHall(tmp_path / "hall", CONFIG, boot="boot-1")
    daemon = hall.start(script=write_script(tmp_path / "s.jsonl", script))
    daemon.run_until(hall.time.now + round(seconds * NS_PER_S))
    offset = daemon.timeline.offset
    hall.stop()
    return hall, list(hall.link.states), offset


def mirror_of(states: list[dict[str, Any]], until: int, *, boot: str = "boot-1",
              silent_ns: int = 25 * NS_PER_S, late_ns: int = 0, frame_log: Path | None = None
              ) -> tuple[Mirror, MirrorDisplay, ReplayedBroker]:
    """``late_ns``: every nap of the mirror ends that much after its instant (a loaded
    machine without real-time scheduling)."""
    time = FakeClock(START_NS, late_ns=late_ns)
    display = MirrorDisplay(time)
    link = ReplayedBroker(time, states)
    mirror = Mirror(parse({}, "test"), MirrorOptions("hall-a", "headless",
                                                     silent_ns=silent_ns, frame_log=frame_log),
                    time=time, link=link, display=display, boot=boot)
    mirror.start()
    for instant in sorted({d["anchor"]["mono_ns"] for d in states} | {until}):
        if instant > time.now:
            mirror.run_until(instant)
    mirror.shutdown()
    return mirror, display, link


def shown_at(frames: list[tuple[int, dict[str, Any]]], instant: int) -> dict[str, Any] | None:
    before = [doc for at, doc in frames if at <= instant]
    return before[-1] if before else None


# A period played into its last minute: the clock starts 2 s in, stops at 14:05 left, is set
# to 1:05 and runs again into the tenths (the preset's period is 15 min).
SCRIPT = [{"t": 2, "do": "start"}, {"t": 57, "do": "stop"},
          {"t": 58, "do": "set_clock", "ms": 65_000}, {"t": 61, "do": "start"}]


def test_both_boards_show_the_same_tenth_at_the_same_instant(tmp_path: Path) -> None:
    hall, states, offset = hall_states(tmp_path, SCRIPT, 75)
    assert all("anchor" in d for d in states)
    # The hall sends a running clock once a second: the mirror's tenths are its own.
    running = [d for d in states if d["running"]]
    assert len(running) < 100
    end = START_NS + 75 * NS_PER_S
    _, display, _ = mirror_of(states, end)
    hall_shown = [(f.at - offset, f.doc) for f in hall.frames]
    mirror_shown = [(f.at, f.doc) for f in display.frames]
    tenths = [f for f in display.frames if f.doc["clock_ms"] < 60_000 and f.doc["running"]]
    assert len(tenths) > 30, "the last minute is drawn in tenths by the mirror itself"
    compared = 0
    for instant in range(START_NS + NS_PER_S, end - NS_PER_S, 7 * NS_PER_MS):
        ours, theirs = shown_at(hall_shown, instant), shown_at(mirror_shown, instant)
        if ours is None:
            continue
        assert theirs is not None, instant
        assert clock_text(theirs["clock_ms"]) == clock_text(ours["clock_ms"]), (
            f"at {(instant - START_NS) / NS_PER_S:.3f} s the hall shows "
            f"{clock_text(ours['clock_ms'])}, the mirror {clock_text(theirs['clock_ms'])}")
        assert (theirs["phase"], theirs["running"], theirs["score"]) == (
            ours["phase"], ours["running"], ours["score"])
        compared += 1
    assert compared > 9000
    assert not any(f.status["board_link_lost"] for f in display.frames)


def test_a_mirror_waking_late_shows_each_tenth_at_once_not_one_later(tmp_path: Path) -> None:
    # Every wake-up 30 ms late, more than the mirror draws ahead: it wakes after each change
    # it planned for, and must draw that change then (for the instant it woke at) rather
    # than plan for the next one and leave the over tenth up for another tenth.
    hall, states, offset = hall_states(tmp_path, SCRIPT, 75)
    late = 30 * NS_PER_MS
    end = START_NS + 75 * NS_PER_S
    _, display, _ = mirror_of(states, end, late_ns=late)
    hall_shown = [(f.at - offset, f.doc) for f in hall.frames]
    mirror_shown = [(f.at, f.doc) for f in display.frames]
    changes = [(at, doc) for at, doc in hall_shown
               if doc["running"] and 0 < doc["clock_ms"] < 60_000 and at < end - NS_PER_S]
    assert len(changes) > 50  # 9 s of tenths
    for at, doc in changes:
        theirs = shown_at(mirror_shown, at + late + NS_PER_MS)
        assert theirs is not None
        assert clock_text(theirs["clock_ms"]) == clock_text(doc["clock_ms"]), (
            f"{(at - START_NS) / NS_PER_S:.3f} s: the hall put up {clock_text(doc['clock_ms'])}"
            f", the mirror shows {clock_text(theirs['clock_ms'])} {late // NS_PER_MS + 1} ms on")


def logged(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_both_boards_log_each_frame_they_present(tmp_path: Path) -> None:
    # --frame-log (bench/mirror.py): one line per frame presented, the instant it went on
    # the screen and the clock it shows, in the order shown.
    hall = InProcessHall(tmp_path / "hall", CONFIG, boot="boot-1")
    daemon = hall.start(script=write_script(tmp_path / "s.jsonl", [{"t": 2, "do": "start"}]),
                        frame_log=tmp_path / "hall.jsonl")
    daemon.run_until(hall.time.now + 5 * NS_PER_S)
    offset = daemon.timeline.offset
    hall.stop()
    lines = logged(tmp_path / "hall.jsonl")
    assert [(d["shown_ns"] + offset, d["at_ns"], d["clock_ms"], d["running"])
            for d in lines] == [(f.at, f.at, f.doc["clock_ms"], f.doc["running"])
                                for f in hall.frames]
    assert any(d["running"] for d in lines)
    _, display, _ = mirror_of(list(hall.link.states), START_NS + 6 * NS_PER_S,
                              frame_log=tmp_path / "mirror.jsonl")
    mirrored = logged(tmp_path / "mirror.jsonl")
    assert [(d["shown_ns"], d["clock_ms"]) for d in mirrored] == [
        (f.at, f.doc["clock_ms"]) for f in display.frames]
    assert len(mirrored) >= 5


def test_another_boot_without_wall_clocks_follows_from_the_arrival(tmp_path: Path) -> None:
    # Another machine and no synchronised wall clock: the document counts from when it came,
    # which here (a broker without delay) is when it was sent: the same tenths again.
    _, states, _ = hall_states(tmp_path, SCRIPT, 70)
    end = START_NS + 70 * NS_PER_S
    mirror, display, _ = mirror_of(states, end, boot="another-boot")
    assert mirror.followed is not None and mirror.followed.basis.value == "arrival"
    last = display.frames[-1]
    assert last.at <= end
    assert last.doc["clock_ms"] == mirror.followed.shown(last.at)["clock_ms"]
    assert 0 < last.doc["clock_ms"] < 60_000


def test_a_silent_hall_is_marked_and_its_clock_runs_on(tmp_path: Path) -> None:
    # The hall's last state arrived 2 s into the game, then nothing: after the silence the
    # mark is up, and the clock keeps running from the anchor (15:00 less the time since).
    _, states, _ = hall_states(tmp_path, [{"t": 2, "do": "start"}], 3)
    silent = 5 * NS_PER_S
    end = START_NS + 30 * NS_PER_S
    _, display, _ = mirror_of(states, end, silent_ns=silent)
    last_sent = max(d["anchor"]["mono_ns"] for d in states)
    before = [f for f in display.frames if f.at < last_sent + silent]
    after = [f for f in display.frames if f.at >= last_sent + silent]
    assert before and not any(f.status["board_link_lost"] for f in before)
    assert after and all(f.status["board_link_lost"] for f in after)
    assert after[0].at == last_sent + silent, "marked at the end of the silence, not later"
    started = next(d for d in states if d["running"])
    run_ns = display.frames[-1].at - started["anchor"]["mono_ns"]
    expected = -(-(started["anchor"]["clock_ns"] - run_ns) // NS_PER_MS)
    assert display.frames[-1].doc["clock_ms"] == expected
    assert display.frames[-1].doc["running"]


def test_an_offline_hall_is_marked_at_once_and_a_stopped_clock_stays(tmp_path: Path) -> None:
    _, states, _ = hall_states(tmp_path, [{"t": 2, "do": "start"}, {"t": 4, "do": "stop"}], 6)
    time = FakeClock(START_NS)
    display = MirrorDisplay(time)
    link = ReplayedBroker(time, states)
    mirror = Mirror(parse({}, "test"), MirrorOptions("hall-a", "headless"), time=time,
                    link=link, display=display, boot="boot-1")
    mirror.start()
    mirror.run_until(START_NS + 6 * NS_PER_S)
    stopped_at = display.frames[-1].doc["clock_ms"]
    link.online = False  # the hall's will: `offline`
    mirror.run_until(time.now + 20 * NS_PER_S)
    assert display.frames[-1].status["board_link_lost"]
    assert display.frames[-1].doc["clock_ms"] == stopped_at
    assert not display.frames[-1].doc["running"]
    mirror.shutdown()
    assert link.closed and display.closed


def test_under_systemd_it_is_ready_at_once_and_pings_the_watchdog(tmp_path: Path) -> None:
    # The hall's unit with another ExecStart (Type=notify, WatchdogSec=10s): READY=1 before
    # any state came (the hall may be away: the board is up, and waits), then WATCHDOG=1
    # every half watchdog period of the mirror's clock, and STOPPING=1 at the end.
    _, states, _ = hall_states(tmp_path, [{"t": 2, "do": "start"}], 4)
    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"})
        time = FakeClock(START_NS)
        display = MirrorDisplay(time)
        mirror = Mirror(parse({}, "test"), MirrorOptions("hall-a", "headless"), time=time,
                        link=ReplayedBroker(time, states), display=display, boot="boot-1",
                        notifier=notifier)
        mirror.start()
        sock.setblocking(False)
        first = sock.recv(4096).decode()
        assert first.startswith("READY=1\nSTATUS=mirror of hall-a") and not display.frames
        messages = []
        pings: list[int] = []
        while time.now < START_NS + 4 * NS_PER_S:
            mirror.run_until(time.now + NS_PER_S // 4)
            try:
                while True:
                    messages.append(message := sock.recv(4096).decode())
                    if message == "WATCHDOG=1":
                        pings.append(time.now)
            except BlockingIOError:
                pass
        mirror.shutdown()
        messages.append(sock.recv(4096).decode())
    assert 4 <= len(pings) <= 6  # every second for 4 s
    assert all(b - a <= NS_PER_S + NS_PER_S // 4 for a, b in pairwise(pings))
    assert "STATUS=mirror of hall-a: following" in messages
    assert messages[-1] == "STOPPING=1"


def test_the_mirror_opens_no_journal_and_writes_nothing(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # The hall's states first (its daemon journals); then a journal opened anywhere in the
    # process fails the test, and the mirror's working folder stays empty.
    _, states, _ = hall_states(tmp_path, [{"t": 2, "do": "start"}], 4)

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the mirror opened a journal")

    monkeypatch.setattr(journal.Journal, "__init__", refused)
    work = tmp_path / "mirror"
    work.mkdir()
    monkeypatch.chdir(work)
    mirror, display, _ = mirror_of(states, START_NS + 6 * NS_PER_S)
    assert len(display.frames) >= 5  # one a second, and the start
    assert list(work.iterdir()) == []
    assert mirror.stopping is None  # it ran to the end, not stopped by a fault
