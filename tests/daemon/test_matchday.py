"""The match day on a whole board (issue 16, README "The match day"): a scheduled match's
pregame on the hall display (resurfacing, the warm-up with its horn, the start countdown)
and the timekeeper's schedule line on the operator view, never applied by itself.

In-process halls on a fake clock (tests/daemon/inprocess.py) whose wall clock is set, so
the local schedule's start maps onto the match timeline; the horn is the real relay on
gpiozero's MockFactory, and ``LoopHorn`` records the instant of every switch.
"""

from __future__ import annotations

import json
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

from firmware_py.core.phase import Phase
from firmware_py.core.units import NS_PER_S
from firmware_py.daemon import Daemon
from tests.daemon.inprocess import START_NS, FakeTime, Frame, InProcessHall

S = NS_PER_S
MIN = 60 * S

YOUTH = """
name = "Ice Cup"
id = "ice-cup"
preset = "youth-hockey-3x18"

[[groups]]
name = "A"
teams = ["Lions", "Bears", "Wolves"]

[[matches]]
id = "A1"
group = "A"
hall = "hall-1"
start = 2026-12-05T08:00:00
home = "Lions"
away = "Bears"

[[matches]]
id = "A2"
group = "A"
hall = "hall-1"
start = 2026-12-05T09:30:00
home = "Bears"
away = "Wolves"
"""

FOOTBALL = YOUTH.replace('"youth-hockey-3x18"', '"football-p08"').replace(
    "09:30:00", "08:30:00")


def hall_at(tmp_path: Path, tournament: str, wall: str, extra: str = "") -> InProcessHall:
    """A hall playing ``tournament`` from its local schedule, its wall clock at ``wall``
    (local time) when the fake monotonic clock starts, and synchronised."""
    path = tmp_path / "tournament.toml"
    path.write_text(tournament, encoding="utf-8")
    epoch = datetime.fromisoformat(wall).timestamp()
    clock = FakeTime(wall=lambda: epoch + (clock.now - START_NS) / S)
    config = f'[schedule]\nfile = "{path}"\nhall = "hall-1"\n{extra}'
    return InProcessHall(tmp_path, config, time=clock)


def countdown(frame: Frame) -> dict[str, Any] | None:
    return frame.doc.get("countdown")


def test_rules_002_pregame_resurfacing_warm_up_horn_then_start_on_the_hall_display(
        tmp_path: Path) -> None:
    """Rules 002 'Match format': the ice is resurfaced before the warm-up; the warm-up
    starts at T-15 min and lasts 10 min. The horn ends it at its exact instant (the
    preset's choice, cited), then the display counts down to the scheduled start."""
    hall = hall_at(tmp_path, YOUTH, "2026-12-05T07:30")
    daemon = hall.start()
    origin = hall.time.now
    start = origin + 30 * MIN  # 08:00
    try:
        assert daemon.match.setup.match_id == "A1"
        daemon.run_until(origin + 4 * MIN)
        assert countdown(hall.frames[-1]) is None  # 07:34: today's pregame
        daemon.run_until(start + 10 * S)
        frames = [f for f in hall.frames if f.at >= origin]
        labels: list[str] = []
        for frame in frames:
            shown = countdown(frame)
            label = None if shown is None else shown["label"]
            if label is not None and (not labels or labels[-1] != label):
                labels.append(label)
        assert labels == ["resurfacing", "warm-up", "start in"]

        def first(label: str) -> Frame:
            return next(f for f in frames if (countdown(f) or {}).get("label") == label)

        resurfacing, warmup, start_in = first("resurfacing"), first("warm-up"), first("start in")
        assert resurfacing.at == start - 25 * MIN  # 07:35: 10 min before the warm-up
        assert countdown(resurfacing) == {"label": "resurfacing", "remaining_ms": 600_000}
        assert warmup.at == start - 15 * MIN  # T-15 min
        assert countdown(warmup) == {"label": "warm-up", "remaining_ms": 600_000}
        assert start_in.at == start - 5 * MIN  # the warm-up lasted 10 min
        assert countdown(start_in) == {"label": "start in", "remaining_ms": 300_000}
        # Every second of the countdown is a frame of its own, at the instant it changes.
        during = [f.at for f in frames if start - 15 * MIN <= f.at < start - 14 * MIN]
        assert during == [start - 15 * MIN + k * S for k in range(60)]
        # The warm-up's horn: on at its end exactly, off after the preset's end horn (2 s).
        assert hall.horn.switched == [(start - 5 * MIN, True), (start - 5 * MIN + 2 * S, False)]
        assert start_in.doc["horn"] is True
        # The scheduled start passes without a press: the board waits, as today.
        assert countdown(hall.frames[-1]) is None
        assert daemon.match.state.phase is Phase.PREGAME
        between = hall.frames[-1].between
        assert between is not None and between["next"]["time"] == "2026-12-05T08:00"
    finally:
        hall.stop()


def test_without_a_synchronised_wall_clock_the_pregame_is_todays(tmp_path: Path) -> None:
    """The wall clock may be years off before it is synchronised (a Pi has no battery
    clock): then nothing is counted down and no warm-up horn sounds."""
    path = tmp_path / "tournament.toml"
    path.write_text(YOUTH, encoding="utf-8")
    hall = InProcessHall(tmp_path, f'[schedule]\nfile = "{path}"\nhall = "hall-1"\n')
    daemon = hall.start()
    try:
        daemon.run_until(hall.time.now + 40 * MIN)
        assert all(countdown(f) is None for f in hall.frames)
        assert hall.horn.switched == []
        assert daemon.match.pregame is None
    finally:
        hall.stop()


def operator_view(daemon: Daemon) -> dict[str, Any]:
    assert daemon.operator_web is not None
    with urllib.request.urlopen(daemon.operator_web.url("/operator.json"), timeout=5) as reply:
        doc: dict[str, Any] = json.loads(reply.read())
    return doc


def test_rules_003_the_timekeeper_sees_how_late_the_hall_runs_and_nothing_is_applied(
        tmp_path: Path) -> None:
    """Rules 003 'Match officials': referees may shorten the playing time to keep the
    schedule. A1 (1 x 25 min) at 08:00, A2 at 08:30: at 08:10, not started, the hall is 5
    minutes behind and one period of 20:00 would bring it back. The line follows the
    time; the board's clock is never touched."""
    served = '[operator]\nport = 0\nbind = "127.0.0.1"\n'
    hall = hall_at(tmp_path, FOOTBALL, "2026-12-05T08:10", served)
    daemon = hall.start()
    origin = hall.time.now
    try:
        daemon.run_until(origin)
        schedule = operator_view(daemon)["schedule"]
        assert schedule["text"] == ("BEHIND SCHEDULE BY 5:00: 1 PERIOD OF 20:00 WOULD BRING "
                                    "IT BACK (THE REFEREE DECIDES)")
        assert schedule["behind_ms"] == 5 * 60_000
        assert (schedule["periods"], schedule["period_ms"]) == (1, 20 * 60_000)
        daemon.run_until(origin + 3 * MIN)  # nothing pressed: the view moves on by itself
        schedule = operator_view(daemon)["schedule"]
        assert schedule["text"] == ("BEHIND SCHEDULE BY 8:00: 1 PERIOD OF 17:00 WOULD BRING "
                                    "IT BACK (THE REFEREE DECIDES)")
        # Never applied: the board's period is still the preset's 25:00, in pregame.
        assert daemon.match.state.phase is Phase.PREGAME
        assert daemon.match.state.clock.remaining(hall.time.now) == 25 * MIN
        assert hall.frames[-1].doc["clock_ms"] == 25 * 60_000
        assert daemon.match.state.seq == 0  # not one event: no set_clock, no end
    finally:
        hall.stop()
