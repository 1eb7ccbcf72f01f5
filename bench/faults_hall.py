"""Rows of bench/faults.py: the hall's faults of the keypad and of time, each with what was
expected, what happened and a verdict. A module of rows, not a script: bench/faults.py
imports it (``ROW_MODULES``) and prints its rows with the others.

1. A USB keypad unplugged while HORN is held (its release never comes), a press read before
   the unplug, and a replug: the in-process hall on a fake clock, the real ``EvdevKeys`` on
   a fake device (this machine has no /dev/uinput to make a real one).
2. 1,000 key events a second for ``FLOOD_S`` seconds on the real clock: the in-process hall
   on ``SystemTime``, a thread typing goals on the fake device at real monotonic stamps;
   goals typed vs journalled, each key's latency from its stamp to the loop reading it
   (p50/p99/max) and the frames drawn, against the same typing at 100 events a second
   (the baseline, same process).
3. A wall-clock step of +-1 h mid-game: the same game with and without three steps.
4. A wall-clock step of +-1 h in an open protest window: the office on ``SteadyWall`` (its
   clock) and, for the ratio, on the plain wall clock (what it had before).
"""

from __future__ import annotations

import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from cpuload import percentile

from arena.core.units import NS_PER_MS, NS_PER_S
from arena.timesource import FakeClock, SteadyWall, SystemTime
from hardware.keypad import EvdevKeys
from tests.daemon.inprocess import InProcessHall, TestParts
from tests.daemon.test_inprocess import records
from tests.hardware.fake_evdev import FakeBus

Fault = tuple[str, str, str, str]  # fault, expected, happened, verdict
FLOOD_S = 5
CONFIG = '[match]\npreset = "floorball-2x15"\n[keypad]\nevdev = true\nlayout = "keyboard"\n'


def verdict(ok: bool) -> str:
    return "held" if ok else "FAILED"


def unplug_rows() -> list[Fault]:
    from tests.daemon.test_keypad_faults import hall_with_keypad, notice, run_to  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as work:
        hall, bus, device = hall_with_keypad(Path(work))
        t0 = hall.time.now + NS_PER_S
        device.tap("KEY_KPPLUS", t0, t0 + 60 * NS_PER_MS)
        run_to(hall, t0 + 200 * NS_PER_MS)
        goal = t0 + 2 * NS_PER_S
        for i, key in enumerate(("KEY_KPSLASH", "KEY_KP3", "KEY_KP9")):  # MENU 3 #9, no Enter
            device.tap(key, goal + i * 150 * NS_PER_MS, goal + i * 150 * NS_PER_MS + 60 * NS_PER_MS)
        device.key("KEY_KPASTERISK", goal + 600 * NS_PER_MS)  # HORN held
        run_to(hall, goal + 900 * NS_PER_MS)
        pulled = hall.time.now
        bus.unplug("/dev/input/event3")
        run_to(hall, pulled + 100 * NS_PER_MS)
        off = [at for at, on in hall.horn.switched if not on and at >= pulled]
        told = notice(hall)
        again = bus.plug("/dev/input/event4")
        replug = hall.time.now
        run_to(hall, replug + 2 * NS_PER_S)
        found = notice(hall)
        stop = hall.time.now + NS_PER_S
        again.tap("KEY_KPPLUS", stop, stop + 60 * NS_PER_MS)
        run_to(hall, stop + 8 * NS_PER_S)
        goals = [r for r in records(hall) if r.get("type") == "event" and r["event"] == "goal"]
        daemon = hall.daemon
        assert daemon is not None
        stopped = not daemon.match.state.clock.running
        hall.stop()
    delay = (off[0] - pulled) / NS_PER_MS if off else None
    return [
        ("keypad unplugged, HORN held", "horn off within a loop slice; table told",
         f"horn off {delay} ms after the pull; notice {told!r}",
         verdict(delay is not None and delay <= 20 and bool(told) and "unplugged" in told)),
        ("keypad unplugged mid-entry", "goal #9 typed before the pull kept (entry timeout)",
         f"{len(goals)} goal(s): {[g['data'].get('player') for g in goals]}",
         verdict([g["data"].get("player") for g in goals] == [9])),
        ("keypad replugged (another node)", "found within the 1 s rescan; presses act",
         f"notice {found!r}; STOP from it {'applied' if stopped else 'lost'}",
         verdict(found == "KEYPAD \u2713" and stopped)),
    ]


def flood_run(gap_ns: int) -> tuple[int, int, list[int], int]:
    """One key event every ``gap_ns`` for ``FLOOD_S`` s on the real clock: (goals typed,
    goals journalled, each key's latency from its stamp to the loop reading it in ns,
    frames drawn). The stamps are the schedule's instants, as a keyboard reporting at that
    pace would give, whenever this thread gets to write them."""
    with tempfile.TemporaryDirectory() as work:
        hall = InProcessHall(Path(work), CONFIG, time=SystemTime())  # type: ignore[arg-type]
        bus = FakeBus()
        device = bus.plug("/dev/input/event3")
        keys = EvdevKeys(hall.config.keypad, monotonic=time.monotonic_ns,
                         realtime=time.monotonic_ns, list_paths=bus.paths,
                         open_device=bus.open, set_clock=bus.set_clock)
        daemon = hall.start(parts=TestParts(key_source=keys))
        latencies: list[int] = []
        lock = threading.Lock()  # the fake device's queue is shared with the loop's reads
        read = keys.poll

        def locked_poll(now: int) -> Any:
            with lock:
                items = read(now)
            # From the key's stamp to the loop having it (it applies it in the same turn).
            seen = time.monotonic_ns()
            latencies.extend(seen - item.at for item in items)
            return items

        keys.poll = locked_poll  # type: ignore[method-assign]
        now = time.monotonic_ns()
        with lock:
            device.tap("KEY_SPACE", now, now + NS_PER_MS)  # START
        daemon.run_until(daemon.timeline.now() + 300 * NS_PER_MS)
        latencies.clear()
        frames_before = len(hall.frames)
        typed = 0

        def typist() -> None:
            nonlocal typed
            begin = time.monotonic_ns()
            n = 0
            while n * gap_ns < FLOOD_S * NS_PER_S:
                keys_ = ["KEY_Q" if typed % 2 == 0 else "KEY_P", "KEY_1", "KEY_4",
                         "KEY_BACKSPACE", "KEY_2", "KEY_ENTER"]
                for key in keys_:
                    for value in (1, 0):
                        due = begin + n * gap_ns
                        while (left := due - time.monotonic_ns()) > 0:
                            time.sleep(left / NS_PER_S)
                        with lock:  # stamped as a keyboard's report at its instant
                            device.key(key, due, value)
                        n += 1
                typed += 1

        thread = threading.Thread(target=typist, daemon=True)
        thread.start()
        daemon.run_until(daemon.timeline.now() + 2 * FLOOD_S * NS_PER_S,
                         stop_when=lambda: not thread.is_alive())
        thread.join()
        frames = len(hall.frames) - frames_before
        daemon.run_until(daemon.timeline.now() + 6 * NS_PER_S)  # the last entry's timeout
        goals = sum(1 for r in records(hall) if r.get("type") == "event"
                    and r["event"] == "goal")
        hall.stop()
        bus.close()
    return typed, goals, latencies, frames


def flood_row() -> Fault:
    _, _, calm, calm_frames = flood_run(10 * NS_PER_MS)  # 100 events/s: a quick timekeeper
    typed, goals, busy, frames = flood_run(NS_PER_MS)

    def ms(values: list[int]) -> str:
        shown = (percentile(values, 50), percentile(values, 99), max(values))
        return "/".join(f"{v / NS_PER_MS:.1f}" for v in shown)

    return (f"key flood (1000 events/s, {FLOOD_S} s)",
            "every goal once; key to loop bounded",
            f"{goals}/{typed} goals; key->loop p50/p99/max {ms(busy)} ms vs "
            f"{ms(calm)} ms at 100 events/s (p99 x"
            f"{percentile(busy, 99) / max(1, percentile(calm, 99)):.1f}); "
            f"{frames / FLOOD_S:.0f} vs {calm_frames / FLOOD_S:.0f} frames/s",
            "FAILED (lost or doubled)" if goals != typed else
            verdict(True) if percentile(busy, 99) < 100 * NS_PER_MS else "no loss; the loop lags")


def wall_step_rows() -> list[Fault]:
    from tests.daemon.test_wall_step import play  # noqa: PLC0415

    rows: list[Fault] = []
    with tempfile.TemporaryDirectory() as work:
        steady, horn, _ = play(Path(work) / "steady", {})
        for shift in (3600, -3600):
            stepped, stepped_horn, _ = play(Path(work) / f"step{shift}",
                                            {30: shift, 150: shift, 600: -shift})
            same = stepped == steady and stepped_horn == horn
            rows.append((f"wall clock {shift // 3600:+d} h mid-game (x3)",
                         "events, penalty, horn instants unchanged",
                         f"{len(stepped)} events, {len(stepped_horn)} horn switches: "
                         f"{'identical' if same else 'DIFFERENT'} to the unstepped game",
                         verdict(same)))
    return rows


def protest_rows() -> list[Fault]:
    from arena.tournament.files import load_tournament  # noqa: PLC0415
    from office.service import OfficeService  # noqa: PLC0415
    from office.storage.store import Store  # noqa: PLC0415
    from office.views.board import SnapshotBoard  # noqa: PLC0415
    from tests.office.test_service import CUP, T0, FakePeer, messages_of  # noqa: PLC0415

    cup = load_tournament(CUP)
    window = cup.rules.protest_window_s

    def closed_after(step: timedelta, steady: bool) -> float:
        with tempfile.TemporaryDirectory() as work:
            store = Store(Path(work) / "office.sqlite")
            peer, clock = FakePeer(), FakeClock(wall=T0)
            wall = SteadyWall(clock.wall_datetime, clock.monotonic_ns) if steady \
                else clock.wall_datetime
            svc = OfficeService(cup, store, peer, SnapshotBoard(), wall=wall,
                                monotonic=clock.monotonic)
            first = cup.group_matches("A")[0]
            peer.inbox = messages_of(cup, first.id, 2, 1)
            svc.pump()
            arrived = clock.now
            clock.advance(60)
            clock.set_wall(clock.wall_datetime() + step)
            while True:
                svc.pump()
                assert svc.ledger is not None
                if svc.ledger.matches[first.id].outcome.state.value == "confirmed":
                    break
                clock.advance(10)
            store.close()
            return (clock.now - arrived) / NS_PER_S

    rows: list[Fault] = []
    for step in (timedelta(hours=1), timedelta(hours=-1)):
        now, before = closed_after(step, True), closed_after(step, False)
        rows.append((f"wall clock {step.total_seconds() / 3600:+.0f} h in a protest window",
                     f"closes {window} s after the final arrived",
                     f"closed after {now:.0f} s (on the plain wall clock, as before: "
                     f"{before:.0f} s)", verdict(abs(now - window) <= 10)))
    return rows


def rows() -> list[Fault]:
    return [*unplug_rows(), flood_row(), *wall_step_rows(), *protest_rows()]
