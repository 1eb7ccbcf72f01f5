"""The USB keypad's faults a real event meets, on a whole in-process hall (fake clock) whose
keypad is the real ``EvdevKeys`` on a fake evdev device (tests/hardware/fake_evdev.py: this
machine has no /dev/uinput, so no real virtual device can be made and pulled out):

- unplugged while the HORN key is held: the horn goes off at once (its release never comes),
  and the table says the keypad is gone; a press read before the unplug is kept; a hold
  cut short by the unplug does nothing; a replugged keypad plays on and the table says so;
- a flood of 1,000 key events a second for some seconds: every goal typed is journalled
  once, none lost, none twice (bench/faults_hall.py times the loop under the same flood).

Unplug and replug are docs/technician.md, "USB keypad"; the entries are docs/timekeeper.md,
"Entries in detail".
"""

from __future__ import annotations

from pathlib import Path

from arena.core.units import NS_PER_S
from arena.timesource import FakeClock
from hardware.keypad import EvdevKeys
from tests.daemon.inprocess import InProcessHall, TestParts
from tests.hardware.fake_evdev import FakeBus, FakeDevice

from .test_inprocess import records

CONFIG = ('[match]\npreset = "floorball-2x15"\n'
          '[keypad]\nevdev = true\nlayout = "numpad"\n')
MS = 1_000_000
PAD = "/dev/input/event3"


def hall_with_keypad(tmp_path: Path, config: str = CONFIG, time: FakeClock | None = None
                     ) -> tuple[InProcessHall, FakeBus, FakeDevice]:
    hall = InProcessHall(tmp_path, config, time=time)
    bus = FakeBus()
    device = bus.plug(PAD)
    keys = EvdevKeys(hall.config.keypad, monotonic=hall.time.monotonic_ns,
                     realtime=hall.time.monotonic_ns, list_paths=bus.paths,
                     open_device=bus.open, set_clock=bus.set_clock)
    hall.start(parts=TestParts(key_source=keys))
    return hall, bus, device


def run_to(hall: InProcessHall, instant: int) -> None:
    assert hall.daemon is not None
    hall.daemon.run_until(instant)


def events(hall: InProcessHall, kind: str) -> list[dict[str, object]]:
    return [r for r in records(hall) if r.get("type") == "event" and r["event"] == kind]


def notice(hall: InProcessHall) -> str | None:
    daemon = hall.daemon
    assert daemon is not None
    current = daemon.feedback.current(daemon.timeline.now())
    return None if current is None else current.text()


def test_a_horn_held_when_the_keypad_is_unplugged_stops_and_the_table_is_told(
        tmp_path: Path) -> None:
    hall, bus, device = hall_with_keypad(tmp_path)
    t0 = hall.time.now + NS_PER_S
    device.tap("KEY_KPPLUS", t0, t0 + 60 * MS)  # START
    run_to(hall, t0 + 200 * MS)
    horn_down = t0 + 2 * NS_PER_S
    device.key("KEY_KPASTERISK", horn_down)  # HORN held...
    run_to(hall, horn_down + 500 * MS)
    assert hall.horn.driver.is_on
    pulled = hall.time.now
    bus.unplug(PAD)  # ...and the cable pulled: its release never comes
    run_to(hall, pulled + 100 * MS)

    assert not hall.horn.driver.is_on
    on_at, off_at = [at for at, _ in hall.horn.switched[-2:]]
    assert [on for _, on in hall.horn.switched[-2:]] == [True, False]
    assert on_at == horn_down
    # Off at the loop's first look after the pull: one slice of the loop at most.
    assert pulled <= off_at <= pulled + 20 * MS
    assert notice(hall) == "KEYPAD \u2717 unplugged: plug it in again"
    horns = [r["command"] for r in records(hall) if r.get("type") == "command"
             and r["command"]["do"] == "horn"]
    assert [h["on"] for h in horns] == [True, False]  # journalled, as every press
    hall.stop()


def test_what_was_read_before_the_unplug_counts_and_a_cut_hold_does_nothing(
        tmp_path: Path) -> None:
    """A goal whose scorer was typed but not yet entered completes on the entry's timeout
    (docs/timekeeper.md, "Entries in detail": a goal completes by itself); UNDO held for
    less than its hold when the cable goes is no UNDO."""
    hall, bus, device = hall_with_keypad(tmp_path)
    t0 = hall.time.now + NS_PER_S
    device.tap("KEY_KPPLUS", t0, t0 + 60 * MS)  # START
    run_to(hall, t0 + 200 * MS)
    goal = t0 + 10 * NS_PER_S
    for i, key in enumerate(("KEY_KPSLASH", "KEY_KP3", "KEY_KP1", "KEY_KP7")):  # MENU 3, #17
        device.tap(key, goal + i * 150 * MS, goal + i * 150 * MS + 60 * MS)
    run_to(hall, goal + 700 * MS)
    device.key("KEY_NUMLOCK", goal + 800 * MS)  # UNDO going down (a hold of 1 s is UNDO)
    run_to(hall, goal + 1000 * MS)
    bus.unplug(PAD)
    run_to(hall, goal + 10 * NS_PER_S)

    goals = events(hall, "goal")
    assert [(g["data"]["team"], g["data"]["player"]) for g in goals] == [  # type: ignore[index]
        ("home", 17)]
    assert goals[0]["at"] == goal + 150 * MS  # MENU 3, the goal button: not the timeout
    assert events(hall, "undone") == []
    assert hall.daemon is not None and hall.daemon.match.state.clock.running
    hall.stop()


def test_a_replugged_keypad_plays_on_and_the_table_is_told(tmp_path: Path) -> None:
    hall, bus, device = hall_with_keypad(tmp_path)
    t0 = hall.time.now + NS_PER_S
    device.tap("KEY_KPPLUS", t0, t0 + 60 * MS)  # START
    run_to(hall, t0 + 200 * MS)
    bus.unplug(PAD)
    run_to(hall, t0 + 500 * MS)
    assert notice(hall) == "KEYPAD \u2717 unplugged: plug it in again"
    again = bus.plug("/dev/input/event5")  # another port: another node
    run_to(hall, t0 + 2 * NS_PER_S)  # the folder is listed again within a second
    assert notice(hall) == "KEYPAD \u2713"
    stop = t0 + 3 * NS_PER_S
    again.tap("KEY_KPPLUS", stop, stop + 60 * MS)  # STOP from the replugged keypad
    run_to(hall, stop + 200 * MS)
    daemon = hall.daemon
    assert daemon is not None and not daemon.match.state.clock.running
    stops = [r for r in records(hall) if r.get("type") == "command"
             and r["command"]["do"] == "stop"]
    assert [r["at"] for r in stops] == [stop]
    hall.stop()


def test_a_flood_of_a_thousand_key_events_a_second_loses_and_doubles_nothing(
        tmp_path: Path) -> None:
    """Five seconds of a full keyboard at 1,000 events a second (a key down or up every ms):
    goals for alternate teams, each with a scorer typed, corrected with Backspace and
    entered. Every goal is journalled once, with its scorer, at its key's instant."""
    hall, _, device = hall_with_keypad(
        tmp_path, CONFIG.replace('layout = "numpad"', 'layout = "keyboard"'))
    t0 = hall.time.now + NS_PER_S
    device.tap("KEY_SPACE", t0, t0 + 60 * MS)  # START
    run_to(hall, t0 + 200 * MS)
    start = t0 + NS_PER_S
    typed: list[tuple[str, int, int]] = []  # team, scorer, the goal key's instant
    at = start
    seconds = 5
    while at < start + seconds * NS_PER_S:
        team = "home" if len(typed) % 2 == 0 else "away"
        scorer = 10 + len(typed) % 90
        first, second = divmod(scorer, 10)
        wrong = (second + 1) % 10
        keys = ["KEY_Q" if team == "home" else "KEY_P", f"KEY_{first}", f"KEY_{wrong}",
                "KEY_BACKSPACE", f"KEY_{second}", "KEY_ENTER"]
        typed.append((team, scorer, at))
        for key in keys:
            device.tap(key, at, at + MS)
            at += 2 * MS
        run_to(hall, at)  # the loop reads while the flood goes on
    run_to(hall, at + NS_PER_S)

    goals = events(hall, "goal")
    got = [(g["data"]["team"], g["data"]["player"], g["at"]) for g in goals]  # type: ignore[index]
    assert len(typed) >= 5 * 1000 // 12  # the flood was what it says
    assert got == typed
    hall.stop()
