"""A change of the state reaches the serial link and the office link within 100 ms of the
command's application, and no re-send after it goes back to the state before.

In-process on the fake clock (tests/daemon/inprocess.py), with the real ``SerialLink`` on
pyserial's ``loop://``, read back (tests/serial_tap.py). The hand-overs to both links are
stamped on the fake clock, so the 100 ms is exact: the daemon's part of the latency. The
writer thread's part (hand-over to the wire) is real time and measured by bench/faults.py.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.core.commands import Command
from arena.core.units import NS_PER_S
from firmware_py.config import SerialConfig
from firmware_py.daemon import Daemon
from firmware_py.frameplan import MIN_FRAME_GAP_NS
from firmware_py.linkconfig import LinkConfig
from firmware_py.parts import OfficeLink, OnNext, OnStandings, SerialPort
from hardware.serial_link import SerialLink, encode_state
from tests.daemon.inprocess import FakeLink, InProcessHall, TestParts
from tests.serial_tap import LoopTap

# docs/technician.md, "Serial link": a change goes out at once; 100 ms at most.
LIMIT_NS = 100_000_000
CONFIG = """
[match]
preset = "floorball-2x15"
[serial]
url = "loop://"
[mqtt]
broker = "mqtt://127.0.0.1:1883"
tournament = "cup"
hall = "hall-1"
"""


class StampedSerial(SerialLink):
    """The real link; every hand-over is kept with the daemon's instant (match time)."""

    def __init__(self, now: Callable[[], int], *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self._now = now
        self.handed: list[tuple[int, dict[str, Any]]] = []

    def send_state(self, doc: dict[str, object]) -> None:
        self.handed.append((self._now(), json.loads(encode_state(doc))))
        super().send_state(doc)


class StampedLink(FakeLink):
    def __init__(self, now: Callable[[], int], on_next: OnNext,
                 on_standings: OnStandings) -> None:
        super().__init__(on_next, on_standings)
        self._now = now
        self.stamped: list[tuple[int, dict[str, Any]]] = []

    def publish_state(self, doc: dict[str, Any]) -> None:
        self.stamped.append((self._now(), dict(doc)))
        super().publish_state(doc)


@dataclass
class TimedParts(TestParts):
    __test__ = False
    tap: LoopTap = field(default_factory=LoopTap)

    def serial(self, config: SerialConfig, clock: Callable[[], int],
               on_input: Callable[[], None]) -> SerialPort:
        timeline = self.made["timeline"]
        made = StampedSerial(timeline.now, config.url, config.baud, clock=clock,
                             on_input=on_input, opener=self.tap.opener)
        self.made["serial"] = made
        return made

    def link(self, config: LinkConfig, on_next: OnNext, on_standings: OnStandings
             ) -> OfficeLink:
        made = StampedLink(self.made["timeline"].now, on_next, on_standings)
        self.made["link"] = made
        return made


def applied_instants(daemon: Daemon) -> list[tuple[int, str]]:
    """Wraps the daemon's ``_apply``: (the loop's instant, command) for every command."""
    seen: list[tuple[int, str]] = []
    apply = daemon._apply  # the moment of application is what is timed

    def stamped(command: Command, source: str, line: Any = None) -> None:
        seen.append((daemon.timeline.now(), command.name))
        apply(command, source, line)

    daemon._apply = stamped  # type: ignore[method-assign]
    return seen


def first_after(stamped: list[tuple[int, dict[str, Any]]], since: int, running: bool) -> int:
    """The first hand-over at or after ``since`` whose clock is ``running``."""
    return next(at for at, doc in stamped if at >= since and doc["running"] is running)


def press(daemon: Daemon, at: int) -> None:
    assert daemon.console is not None
    daemon.console.button("start_stop", at, True)
    daemon.console.button("start_stop", at + 60_000_000, False)


def test_a_stop_and_a_start_reach_both_links_within_100_ms_and_stay(tmp_path: Path) -> None:
    parts = TimedParts()
    hall = InProcessHall(tmp_path, CONFIG)
    daemon = hall.start(parts=parts)
    applied = applied_instants(daemon)
    serial, link = parts.made["serial"], parts.made["link"]
    assert isinstance(serial, StampedSerial) and isinstance(link, StampedLink)
    start_at = hall.time.now + NS_PER_S
    daemon.run_until(start_at)
    press(daemon, start_at)
    # Stops at instants that fall between frames and between the serial rate limit's slots.
    stops = [start_at + 7_310_000_000, start_at + 19_987_000_000]
    starts = [stop + 2_654_000_000 for stop in stops]
    for stop, start in zip(stops, starts, strict=True):
        daemon.run_until(stop)
        press(daemon, stop)
        daemon.run_until(start)
        press(daemon, start)
    daemon.run_until(starts[-1] + 3 * NS_PER_S)

    names = [name for _, name in applied]
    assert names == ["start", "stop", "start", "stop", "start"]
    for (at, name), _ in zip(applied, names, strict=True):
        running = name == "start"
        # The dirty state is drawn at the earliest frame instant: at most one frame gap
        # after the press is applied (frameplan.py), whenever the next frame was planned.
        shown = next(f.at for f in hall.frames if f.at >= at and f.doc["running"] is running)
        assert shown - at <= MIN_FRAME_GAP_NS
        for stamped in (serial.handed, link.stamped):
            reached = first_after(stamped, at, running)
            assert reached - at <= LIMIT_NS, f"{name} applied at {at}: out {reached - at} ns"
        if not running:
            # Until the next start, every hand-over to either link is the stopped state.
            until = next((a for a, n in applied if a > at), None) or hall.time.now
            for stamped in (serial.handed, link.stamped):
                later = [d for a, d in stamped if at + LIMIT_NS <= a < until]
                assert later and all(d["running"] is False for d in later)

    # On the wire: the last state handed over arrives, and after each stop's first stopped
    # line, no running line until the start's.
    last = json.dumps(serial.handed[-1][1], separators=(",", ":")).encode()
    parts.tap.wait_for(lambda lines: bool(lines) and lines[-1] == last)
    wire = [doc["running"] for _, doc in parts.tap.docs()]
    flips = [wire[0]] + [b for a, b in itertools.pairwise(wire) if a != b]
    assert flips == [False, True, False, True, False, True]
    hall.stop()
