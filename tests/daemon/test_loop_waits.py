"""The display loop sleeps, it never spins (README "The scoreboard daemon").

In-process on the fake clock (tests/daemon/inprocess.py), which counts how the daemon uses
time: every clock read, every nap, every nap asked for an instant already reached (a loop
going round without sleeping), every exact wait (``wait_until``: sleep, then spin the
last 2 ms on the real clock). Its naps end ``LATE_NS`` after their instant, as the OS's do.
In the last minute the clock shows tenths: ten frames a game second, each presented at or
after the instant it was computed for and still showing that instant's tenth.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from display.values import clock_text
from firmware_py.core.units import NS_PER_S
from firmware_py.daemon import SLICE_NS
from firmware_py.parts import Display, Keyboard
from tests.daemon.inprocess import FakeTime, InProcessHall, RecordingDisplay, TestParts

CONFIG = '[match]\npreset = "ice-hockey-2x20"\n'
LATE_NS = 300_000  # a sleep's usual overshoot on a Pi (firmware_py/timesource.py)
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

    def display(self, mode: str, size: tuple[int, int]) -> tuple[Display, Keyboard]:
        _, keyboard = super().display(mode, size)
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


def test_the_last_minute_is_slept_through_frame_by_frame(tmp_path: Path) -> None:
    script = tmp_path / "last-minute.jsonl"
    script.write_text(SCRIPT, encoding="utf-8")
    clock = FakeTime(late_ns=LATE_NS)
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
    # Asleep between frames: naps of at most a slice (for the inputs that cannot wake the
    # loop), about two more a frame (to its rendering, to its instant); a few clock reads a
    # nap. A spinning loop reads the clock thousands of times a second.
    slices = NS_PER_S // SLICE_NS
    for use in seconds:
        assert use.naps <= slices + 3 * use.frames, use
        assert use.turns <= 3 * use.frames + 2, use
        assert use.reads <= 8 * (use.naps + use.turns), use
    # Every frame presented at or after its instant, showing what the clock shows then:
    # no frame shows a tenth that is over, and none shows one before its time.
    shown = display.shown[first:]
    assert len(shown) > 500
    for frame in shown:
        assert frame.computed_for <= frame.presented, frame
        assert frame.clock == frame.truth, frame
    assert [f.clock for f in shown[:3]] == ["59.9", "59.8", "59.7"]
