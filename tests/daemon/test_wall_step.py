"""A wall-clock step of an hour (NTP setting a clock that was off, a technician's ``date``)
during a game: the game clock, the penalties and the horn's instants are the monotonic
clock's (arena/timesource.py, firmware_py/timeline.py), so the game is the same, instant for
instant, as the one without the step. Only labels use the wall clock (the journal's "wall").

The in-process hall on a fake clock whose wall time jumps while its monotonic time does
not; its presses come from the real ``EvdevKeys`` on a fake keypad. Floorball (rules 001):
two periods of 15 minutes, a 2-minute minor that ends on time, a goal.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from arena.core.units import NS_PER_S
from arena.timesource import FakeClock

from .test_inprocess import records
from .test_keypad_faults import MS, hall_with_keypad

KICKOFF = datetime(2025, 3, 29, 9, 0)  # a Saturday morning


def play(tmp_path: Path, steps: dict[int, int]
         ) -> tuple[list[Any], list[tuple[int, bool]], list[float]]:
    """The game's events (no labels), the horn's switches and the journal's wall labels;
    ``steps``: at the game's second s, the wall clock is moved by that many seconds."""
    clock = FakeClock(wall=KICKOFF)
    hall, _, pad = hall_with_keypad(tmp_path, time=clock)
    daemon = hall.daemon
    assert daemon is not None
    t0 = clock.now + NS_PER_S

    def keys(second: int, *names: str) -> None:
        at = t0 + second * NS_PER_S
        for i, name in enumerate(names):
            down = at + i * 150 * MS
            daemon.run_until(down + 70 * MS)
            pad.tap(name, down, down + 60 * MS)
        daemon.run_until(at + len(names) * 150 * MS + 300 * MS)

    def to(second: int) -> None:
        for at, shift in sorted(steps.items()):
            if at <= second and at not in done:
                daemon.run_until(t0 + at * NS_PER_S)
                clock.set_wall(clock.wall_datetime() + timedelta(seconds=shift))
                done.add(at)
        daemon.run_until(t0 + second * NS_PER_S)

    done: set[int] = set()
    keys(0, "KEY_KPPLUS")  # START
    to(60)
    keys(60, "KEY_KPSLASH", "KEY_KP6", "KEY_KP1", "KEY_KP2", "KEY_KPENTER", "KEY_KPENTER")
    to(200)  # the minor ends at 180 s on the clock, its horn-free end journalled
    keys(200, "KEY_KPSLASH", "KEY_KP3", "KEY_KP9", "KEY_KPENTER")  # goal home #9
    to(300)
    keys(300, "KEY_KPASTERISK")  # the timekeeper's horn, a tap
    to(15 * 60 + 30)  # period 1 ends by itself: the horn at its deadline
    game = [(r["event"], r["at"], r["data"]) for r in records(hall)
            if r.get("type") == "event"]
    switched = list(hall.horn.switched)
    walls = [float(r["wall"]) for r in records(hall) if "wall" in r]
    hall.stop()
    return game, switched, walls


@pytest.mark.parametrize("shift", [3600, -3600])
def test_a_wall_clock_step_mid_game_changes_nothing_of_the_game(
        tmp_path: Path, shift: int) -> None:
    steady, steady_horn, steady_walls = play(tmp_path / "steady", {})
    # Stepped while the clock runs, while the penalty runs, and again later.
    stepped, stepped_horn, walls = play(tmp_path / "stepped", {30: shift, 150: shift,
                                                                600: -shift})
    # The hall saw the steps: its labels jumped (and only its labels).
    assert any(abs(b - a - shift) < 60 for a, b in pairwise(walls))
    assert all(abs(b - a) < 60 for a, b in pairwise(steady_walls))
    kinds = [kind for kind, _, _ in steady]
    assert "penalty" in kinds and "goal" in kinds and "period_ended" in kinds
    assert stepped == steady
    assert stepped_horn == steady_horn and len(steady_horn) >= 4  # the tap, the period end
