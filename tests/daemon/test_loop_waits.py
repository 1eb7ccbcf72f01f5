"""The display loop sleeps, it never spins (docs/technician.md, "The scoreboard daemon").

In-process on the fake clock (tests/daemon/inprocess.py), which counts how the daemon uses
time: every clock read, every nap, every nap asked for an instant already reached (a loop
going round without sleeping), every exact wait (``wait_until``: sleep, then spin the
last 2 ms on the real clock). Its naps end late, as the OS's do: by a usual ~0.3 ms, or by
20 ms (a loaded machine without real-time priority), more than the render lead.
In the last minute the clock shows tenths: ten frames a game second, each presented at or
after the instant it was computed for and still showing that instant's tenth, and no tenth
left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.core.units import NS_PER_S
from arena.timesource import FakeClock
from display.values import clock_text
from firmware_py.daemon import NAP_NS
from firmware_py.parts import Display, Keyboard
from hardware.keymap import KeypadConfig
from tests.daemon.inprocess import InProcessHall, RecordingDisplay, TestParts

CONFIG = '[match]\npreset = "ice-hockey-2x20"\n'
LATE_NS = (300_000, 20_000_000)  # a sleep's overshoot: usual; loaded (timesource.py)
LAST_MINUTE_AT_S = 5  # script seconds: the clock set to 1:05 at 0, so 1:00 at 5 and 0 at 65
SCRIPT = ('{"t": 0, "do": "start"}\n'
          '{"t": 0, "do": "set_clock", "ms": 65000}\n')


@dataclass(frozen=True)
class Shown:
    computed_for: int  # the instant the frame's document is for
    presented: int  # the instant the loop presented it
    clock: str  # what it shows
    truth: str  # what the clock shows at the presentation instant (the daemon's own match)


class CheckedDisplay(RecordingDisplay):
    """Records every frame; at each presentation, what the clock shows then."""

    def __init__(self, parts: CheckedParts, size: tuple[int, int]) -> None:
        super().__init__(lambda: parts.made["timeline"], size)
        self.parts = parts
        self.shown: list[Shown] = []
        self.computed_for: list[int] = []  # the instant of every document the daemon made

    def draw(self, doc: Mapping[str, Any], *, between: Mapping[str, Any] | None = None,
             status: Mapping[str, Any] | None = None, options: Any = None) -> list[Any]:
        self._for = self.computed_for[-1]  # the document just made is this frame's
        return super().draw(doc, between=between, status=status, options=options)

    def present(self, dirty: list[Any]) -> None:
        super().present(dirty)
        frame = self.frames[-1]
        truth = self.parts.made["document"](frame.at)
        self.shown.append(Shown(self._for, frame.at, clock_text(frame.doc["clock_ms"]),
                                clock_text(truth["clock_ms"])))


class CheckedParts(TestParts):
    __test__ = False

    def display(self, mode: str, size: tuple[int, int],
                keys: KeypadConfig) -> tuple[Display, Keyboard]:
        _, keyboard = super().display(mode, size, keys)
        self.made["display"] = CheckedDisplay(self, size)
        return self.made["display"], keyboard


@dataclass(frozen=True)
class Use:
    frames: int
    reads: int
    naps: int
    empty_naps: int
    waits: int
    turns: int


@pytest.mark.parametrize("late_ns", LATE_NS)
def test_the_last_minute_is_slept_through_frame_by_frame(tmp_path: Path, late_ns: int) -> None:
    script = tmp_path / "last-minute.jsonl"
    script.write_text(SCRIPT, encoding="utf-8")
    clock = FakeClock(late_ns=late_ns)
    hall = InProcessHall(tmp_path, CONFIG, time=clock)
    parts = CheckedParts()
    daemon = hall.start(script=script, parts=parts)
    display = parts.made["display"]
    assert isinstance(display, CheckedDisplay)
    document = daemon.document

    def noted(at: int) -> dict[str, Any]:
        display.computed_for.append(at)
        return document(at)

    daemon.document = noted  # type: ignore[method-assign]
    parts.made["document"] = document  # the truth, not noted as a frame's
    turns = [0]
    iterate = daemon.iterate

    def counted() -> None:
        turns[0] += 1
        iterate()

    daemon.iterate = counted  # type: ignore[method-assign]
    origin = daemon.timeline.now()
    daemon.run_until(origin + LAST_MINUTE_AT_S * NS_PER_S)
    first = len(display.shown)
    seconds: list[Use] = []
    for second in range(LAST_MINUTE_AT_S + 1, LAST_MINUTE_AT_S + 60):
        before = (len(display.shown), clock.reads, clock.slept, clock.empty_naps,
                  clock.waits, turns[0])
        daemon.run_until(origin + second * NS_PER_S)
        after = (len(display.shown), clock.reads, clock.slept, clock.empty_naps,
                 clock.waits, turns[0])
        seconds.append(Use(*(b - a for a, b in zip(before, after, strict=True))))
    hall.stop()
    # Ten frames a second (a tenth each), in game time.
    assert all(9 <= use.frames <= 11 for use in seconds), seconds
    # No exact wait (its spin) anywhere on the loop's path, no nap for nothing.
    assert sum(use.waits for use in seconds) == 0
    assert sum(use.empty_naps for use in seconds) == 0
    # Asleep between frames: headless with no USB keypad every input wakes the loop itself,
    # so a nap lasts to the frame's rendering, then one to its instant (and one a NAP_NS at
    # most); a few clock reads a nap. A spinning loop reads the clock thousands of times a
    # second, a polling one naps every few ms.
    for use in seconds:
        assert use.naps <= NS_PER_S // NAP_NS + 3 * use.frames, use
        assert use.turns <= 3 * use.frames + 2, use
        assert use.reads <= 20 * (use.naps + use.turns), use
    # Every frame presented at or after its instant, showing what the clock shows then:
    # no frame shows a tenth that is over, and none shows one before its time.
    shown = display.shown[first:]
    assert len(shown) > 500
    for frame in shown:
        assert frame.computed_for <= frame.presented, frame
        assert frame.clock == frame.truth, frame
    # Every tenth shown, in order, none left out (a late wake-up draws the frame for now).
    values = [f.clock for f in shown]
    if values[0] == "01:00":
        values.pop(0)  # the minute's own frame, woken late past the phase's start
    tenths = [f"{t // 10:02d}.{t % 10}" for t in range(599, 0, -1)]
    assert values == tenths[:len(values)]


def test_a_button_edge_ends_the_nap(tmp_path: Path) -> None:
    """A GPIO edge wakes the loop from its GPIO thread (``Console.on_edge``): the loop
    sleeps without looking at the pins every few ms, and a press is still taken at once."""
    hall = InProcessHall(tmp_path, CONFIG)
    daemon = hall.start()
    daemon.run_until(hall.time.now + NS_PER_S)
    assert not daemon._wake.is_set()
    daemon.pins.pin(5).drive_low()  # NEXT (the default wiring, pull-up) pressed
    assert daemon._wake.is_set()
    assert daemon.console is not None and daemon.console.pending()
    hall.stop()
