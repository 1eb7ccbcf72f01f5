"""Recovery from crashes: ``scoreboard run`` killed (SIGKILL) 40 times during a scripted game.

What needs a real process: a kill can land anywhere, also inside a journal write or between
a write and its fsync, and the new process must read its journal back as it was. Exactness
at 100 crash instants is tested in-process on a fake clock (tests/daemon/test_inprocess.py).


The game is examples/replay/ice-hockey-2x20-playoff.jsonl (ice-hockey-2x20, playoff stage):
stacked penalties, goals, a clock stop, the break, period 2 with its stop-time minute, a
misconduct, and a shootout to the final; about 2700 s of game time, played at ``SCALE``
times real time (~35 s). The kill moments come from a seeded RNG: uniform over the whole
game and on into the final, plus one in each short stretch (``SHORT``: the stopped clock,
the break, the shootout, the final). After each kill the daemon is restarted at once with
the same state directory, script and (test-only) boot id, so the restart is a crash in the
same boot: the monotonic clock kept running and a running game clock must resume where the
game is, not where the kill left it.

After each restart the first state document the NEW process writes (its ``at_ns`` is after
the kill) must equal a reference: a fresh ``Match`` fed the same script lines up to that
document's ``at_ns`` and advanced to it (what ``scoreboard replay`` computes). Every key must
be equal except the countdowns (``clock_ms``, ``shift_ms``, each ``remaining_ms``), which may
differ by one frame (``FRAME_MS``, see there); where a script line or an event falls within
one frame before ``at_ns``, the reference drained just before it is accepted too (see
``compare``). At the end: the journal's events are gapless 1..n and equal, one by one (seq,
instant, kind, data), to the reference's events, so no script line was applied twice or
lost; no script line is marked as played twice; the final state equals the reference.

Marked slow: about a minute. Time runs for real (scaled); every wait is bounded polling
for a condition (the state file, the game's clock reaching a kill moment), never a sleep.
"""

from __future__ import annotations

import random
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from arena.core.phase import Stage
from arena.core.units import NS_PER_S
from arena.core.values import MatchSetup
from firmware_py.frameplan import MIN_FRAME_GAP_NS
from firmware_py.script import ScriptLine, parse_script
from tests.daemon.conftest import (
    ROOT,
    Hall,
    frame_differences,
    reference_state,
    script_origin,
)
from tests.fixtures import wait_for

SCRIPT = ROOT / "examples" / "replay" / "ice-hockey-2x20-playoff.jsonl"
PRESET = "ice-hockey-2x20"
SETUP = MatchSetup(stage=Stage.PLAYOFF)  # the config's match: M1, Home v Away
BOOT = "kill-test-boot"  # one boot for the whole test: every kill is a crash in the same boot
SCALE = 80  # the injected clock runs 80 times real time: the game takes ~35 s
KILLS = 40
SEED = 20260808
FINAL_TAIL_S = 60  # kill moments run on this long (game time) past the last script line
# The script's short stretches (game seconds from its origin): the clock stopped in period 1,
# the break, the shootout, the final.
SHORT = ((160, 200), (1240, 1300), (2500, 2670), (2670, 2670 + FINAL_TAIL_S))
CLEAR_S = 2 * SCALE  # two seconds of real time before each short stretch: no uniform kill

# One frame, in game time. The daemon draws at the instant the shown state next changes (the
# clock shows whole seconds above a minute: a frame a second; tenths below), but never more
# than one frame per MIN_FRAME_GAP_NS of real time, which at SCALE is MIN_FRAME_GAP_NS * SCALE
# of game time (2640 ms at 80; the in-process crash test checks the countdowns exactly).
# The longer of the two is one frame of the game's display.
FRAME_MS = max(1000, MIN_FRAME_GAP_NS * SCALE // 1_000_000)


def script_lines() -> list[ScriptLine]:
    return parse_script(SCRIPT.read_text(encoding="utf-8"), str(SCRIPT))


def compare(doc: dict[str, Any], lines: list[ScriptLine], origin: int,
            what: str) -> tuple[dict[str, int], bool]:
    """Assert the daemon's frame ``doc`` equals the reference replay at its ``at_ns``, every
    key but the countdowns, which may differ by one frame. Returns the countdowns that differ
    (path -> daemon minus reference, ms) and whether the frame matched only a reference
    drained a little earlier.

    The daemon takes its inputs and advances at ``now``, then draws a frame computed for an
    instant a little later (at least ``now``; after a frame, at most one frame later): a
    script line or deadline falling in between shows in its next frame. So where one falls
    within one frame before ``at_ns``, the reference drained just before it is accepted
    too."""
    at = doc["at_ns"]
    _, events = reference_state(PRESET, SETUP, lines, origin, at)
    near = sorted({i for i in [origin + line.t for line in lines] + [e.at for e in events]
                   if at - FRAME_MS * 1_000_000 < i <= at}, reverse=True)
    tried = []
    for drained in [None, *(i - 1 for i in near)]:
        reference, _ = reference_state(PRESET, SETUP, lines, origin, at, drained=drained)
        same, differ = frame_differences(doc, reference)
        if same and all(abs(d) <= FRAME_MS for d in differ.values()):
            return differ, drained is not None
        tried.append(reference)
    raise AssertionError(f"{what}: the frame is not the reference replay's (countdowns may "
                         f"differ by {FRAME_MS} ms)\n daemon    {doc}\n" +
                         "".join(f" reference {r}\n" for r in tried))


def kill_moments(rng: random.Random, end_s: float) -> list[float]:
    """Uniform over the whole game, and one early in each short stretch for sure.

    A restart takes about a second of real time, ``CLEAR_S`` of game time at ``SCALE``: no
    uniform kill falls that close before a short stretch or inside it, so the board is up
    again when the stretch's own kill comes (a stretch is under a second of real time)."""
    # Not in the stretch's first FRAME_MS either: the board shows a phase a frame after it
    # begins, and the phase counted is the one shown when the kill comes.
    lead = 3 * FRAME_MS / 1000
    short = [rng.uniform(low + lead, (low + high) / 2) for low, high in SHORT]
    spread: list[float] = []
    while len(spread) < KILLS - len(short):
        moment = rng.uniform(0, end_s)
        if not any(low - CLEAR_S <= moment < high for low, high in SHORT):
            spread.append(moment)
    return sorted(short + spread)


def game_ns() -> int:
    """Now on the daemon's timeline: the same boot's monotonic clock, scaled, offset 0."""
    return time.monotonic_ns() * SCALE


def reached(hall: Hall, instant: int) -> bool:
    hall.check_alive()
    return game_ns() >= instant


@pytest.mark.slow
def test_kills_during_a_game_each_resume_as_the_reference_replay(
        tmp_path: Path) -> None:
    lines = script_lines()
    end_s = lines[-1].t // NS_PER_S + FINAL_TAIL_S
    moments = kill_moments(random.Random(SEED), end_s)
    env = {"SCOREBOARD_TEST_BOOT_ID": BOOT}
    hall = Hall(tmp_path, f'[match]\npreset = "{PRESET}"\nstage = "{SETUP.stage.value}"\n')
    args = ("--script", str(SCRIPT), "--time-scale", str(SCALE))
    try:
        hall.start(*args, env=env)
        hall.wait_doc(lambda d: d["running"], 30, "the first frame of the game")
        origin = script_origin(hall.records())
        phases: dict[str, int] = {}
        differing: list[str] = []
        late: list[str] = []
        for number, moment in enumerate(moments, 1):
            target = origin + round(moment * NS_PER_S)
            # Kill once the game has reached the chosen moment (at once if the moment passed
            # while the daemon was restarting). On the game's clock, not on the state file:
            # a board that stands still (a stopped clock, the final) draws no new frames.
            wait_for(lambda t=target: reached(hall, t), 60,
                     f"kill {number}: the game at {moment:.1f} s")
            shown = hall.doc()
            assert shown is not None
            phase = shown["phase"] + ("" if shown["running"] else " (stopped)")
            phases[phase] = phases.get(phase, 0) + 1
            hall.kill()
            killed_at = game_ns()
            hall.start(*args, env=env)
            doc = hall.wait_doc(lambda d, k=killed_at: d["at_ns"] > k, 30,
                                f"kill {number}: the first frame of the new process")
            assert doc["at_ns"] <= game_ns()  # computed for an instant that has come
            what = f"after kill {number} at {(killed_at - origin) / NS_PER_S:.1f} s"
            differ, drained_earlier = compare(doc, lines, origin, what)
            if drained_earlier:
                late.append(what)
            if differ:
                differing.append(f"{what}: {differ} (frame at {doc['at_ns'] - origin} ns)")
                shutil.copytree(hall.state_dir, tmp_path / f"state-after-kill-{number}")
        assert set(phases) >= {"period", "period (stopped)", "intermission",
                               "shootout (stopped)", "final (stopped)"}, phases
        # The end: the whole game played, then a clean stop (the last state written).
        hall.wait_doc(lambda d: d["phase"] == "final", 60, "the final")
        assert hall.signal(signal.SIGTERM) == 0
        last = hall.doc()
        assert last is not None
        expected, events = reference_state(PRESET, SETUP, lines, origin, last["at_ns"])
        same, differ = frame_differences(last, expected)
        assert same and not differ, f"the final state:\n daemon    {last}\n reference {expected}"
    finally:
        hall.stop()
    records = hall.records()
    journalled = [r for r in records if r.get("type") == "event"]
    assert [r["seq"] for r in journalled] == list(range(1, len(journalled) + 1))
    assert [(r["seq"], r["at"], r["event"], r["data"]) for r in journalled] == \
        [(e.seq, e.at, e.kind.value, dict(e.data)) for e in events]
    played = [r["script"] for r in records if "script" in r]
    assert len(played) == len(set(played)), f"script lines played twice: {played}"
    print(f"\n{KILLS} kills; the board's phase at the kills: {phases}; countdowns off the "
          f"reference (tolerance {FRAME_MS} ms) after {len(differing)} restarts; frames that "
          f"matched a reference drained before a line or deadline just before: {len(late)}",
          *differing, *late, sep="\n  ")
