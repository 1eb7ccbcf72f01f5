"""A whole tied play-off game entered only from a USB numeric keypad (docs/timekeeper.md, "Entries
in detail"): the daemon in-process on the fake clock, its keypad the real ``EvdevKeys``
reading a fake evdev device with the default 17-key map, every key stamped by the "kernel".

Youth hockey (rules 002, play-off): a 1:1 tie after three periods goes to a break, overtime
with a golden goal ('Overtime'), then penalty shots ('Penalty shots'). On the way: the clock
corrected, a period ended early by the referee, a penalty given to the wrong number and
corrected; the keypad pulled out and plugged in again mid-game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.core.units import NS_PER_S
from hardware.keypad import EvdevKeys
from tests.daemon.inprocess import InProcessHall, TestParts
from tests.hardware.fake_evdev import FakeBus, FakeDevice

from .test_inprocess import records

CONFIG = ('[match]\npreset = "youth-hockey-3x18"\nstage = "playoff"\n'
          '[keypad]\nevdev = true\nlayout = "numpad"\n')
KEY = {**{str(d): f"KEY_KP{d}" for d in range(10)}, "enter": "KEY_KPENTER",
       "start_stop": "KEY_KPPLUS", "menu": "KEY_KPSLASH", "escape": "KEY_KPMINUS"}
MS = 1_000_000


class Keypad:
    """The timekeeper's fingers on the keypad: each key goes down at an instant of the game
    (seconds from the first press), is released 60 ms later, and is read by the loop a
    little after (the daemon must use the kernel's stamp, not the time it read it)."""

    def __init__(self, hall: InProcessHall, device: FakeDevice, t0: int) -> None:
        self.hall, self.device, self.t0 = hall, device, t0

    def at(self, second: float) -> int:
        return self.t0 + round(second * NS_PER_S)

    def type(self, second: float, *names: str) -> None:
        daemon = self.hall.daemon
        assert daemon is not None
        at = self.at(second)
        for i, name in enumerate(names):
            down = at + i * 150 * MS
            daemon.run_until(down + 70 * MS)
            self.device.tap(KEY[name], down, down + 60 * MS)
        daemon.run_until(at + len(names) * 150 * MS + 300 * MS)

    def wait(self, second: float) -> None:
        daemon = self.hall.daemon
        assert daemon is not None
        daemon.run_until(self.at(second))


def test_a_whole_tied_playoff_game_from_the_numeric_keypad_only(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, CONFIG)
    bus = FakeBus()
    device = bus.plug("/dev/input/event3")
    # The real reader on a fake /dev/input, stamping with the daemon's (fake) clock.
    keys = EvdevKeys(hall.config.keypad, monotonic=hall.time.monotonic_ns,
                     realtime=hall.time.monotonic_ns, list_paths=bus.paths,
                     open_device=bus.open, set_clock=bus.set_clock)
    daemon = hall.start(parts=TestParts(key_source=keys))
    pad = Keypad(hall, device, hall.time.now + NS_PER_S)

    pad.type(0, "start_stop")
    pad.type(100, "menu", "3", "9", "enter")  # MENU 3 goal home, #9
    pad.type(200, "menu", "6", "1", "2", "enter", "1")  # MENU 6 penalty away, #12, minor
    pad.type(300, "menu", "4", "7", "enter")  # goal away, #7
    # The clock should show 10:00: MENU 11 (set clock), 1000, Enter; set forward it passes
    # line changes (rules 002, 'Rules': play is stopped after every 60 sec), which the
    # operator line shows first: Enter again sets it.
    pad.type(400, "menu", "1", "1", "1", "0", "0", "0", "enter", "enter")
    # The penalty was #21's: MENU 15 (cancel/correct), record 3 (newest first, below the
    # clock correction and the away goal), 21, Enter.
    pad.type(500, "menu", "1", "5", "3", "2", "1", "enter")
    # Pulled out and plugged in again: the game goes on with no restart.
    bus.unplug("/dev/input/event3")
    pad.wait(510)
    device = pad.device = bus.plug("/dev/input/event4")
    pad.wait(1700)  # period 1 over at 400 + 600 s, then the break by itself
    pad.type(1700, "start_stop")
    pad.type(1800, "menu", "1", "2", "enter")  # the referee ends period 2: MENU 12, Enter
    pad.type(1900, "start_stop")  # the break ended early: period 3 runs
    pad.wait(3100)  # period 3 over: 1:1, the overtime break
    pad.type(3100, "start_stop")  # overtime
    pad.wait(3500)  # no golden goal: penalty shots
    assert daemon.match.state.phase.value == "shootout"
    shots = [("9", "9", "1"), ("10", "7", "0"), ("9", "10", "0"), ("10", "8", "0"),
             ("9", "11", "enter"), ("10", "21", "0"), ("9", "12", "0"), ("10", "22", "0")]
    for n, (item, player, outcome) in enumerate(shots):
        pad.type(3500 + 10 * n, "menu", *item, *player, "enter", outcome)
    pad.wait(3600)

    state = daemon.match.state
    assert state.phase.value == "final"
    assert daemon.session is not None
    journal = records(hall, daemon.session.match_id)
    ended = [r for r in journal if r.get("type") == "event" and r["event"] == "match_ended"]
    record: dict[str, Any] = ended[-1]["data"]["record"]
    assert record["result"] == {"home": 2, "away": 1, "decided_by": "shootout"}
    assert [(g["team"], g["player"]) for g in record["goals"]] == [("home", 9), ("away", 7)]
    assert [(p["team"], p["player"], p["kind"]) for p in record["penalties"]] == [
        ("away", 21, "minor")]
    assert [(x["team"], x["player"], x["scored"]) for x in record["shootout"]["shots"]] == [
        ("home" if item == "9" else "away", int(player), outcome != "0")
        for item, player, outcome in shots]
    # Every command is at the instant its key went down, not when the loop read it.
    commands = [r for r in journal if r.get("type") == "command"]
    assert commands[0]["command"]["do"] == "start" and commands[0]["at"] == pad.at(0)
    kinds = [e["event"] for e in journal if e.get("type") == "event"]
    assert "clock_set" in kinds and "corrected" in kinds
    shortened = [e["data"].get("shortened") for e in journal
                 if e.get("type") == "event" and e["event"] == "period_ended"]
    assert shortened.count(True) == 1
    hall.stop()
