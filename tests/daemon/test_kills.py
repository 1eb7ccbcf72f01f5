"""Recovery from crashes: ``scoreboard run`` killed (SIGKILL) 40 times during a scripted game.

What needs a real process: a kill can land anywhere, also inside a journal write or between
a write and its fsync, and the new process must read its journal back as it was. Exactness
at 100 crash instants is tested in-process on a fake clock (tests/daemon/test_inprocess.py).


The game is examples/replay/ice-hockey-2x20-playoff.jsonl (ice-hockey-2x20, playoff stage):
stacked penalties, goals, a clock stop, the break, period 2 with its stop-time minute, a
misconduct, and a shootout to the final; about 2700 s of game time, played at up to
``FASTEST`` times real time (~35 s). The kill moments come from a seeded RNG: uniform over
the whole game and on into the final, plus one in each short stretch (``SHORT``: the
stopped clock, the break, the shootout, the final), which waits until the board shows the
stretch. After each kill the daemon is restarted at once with the same state directory,
script and (test-only) boot id, so the restart is a crash in the same boot: the monotonic
clock kept running and a running game clock must resume where the game is, not where the
kill left it.

After each restart the first state document the NEW process writes (its ``at_ns`` is after
the kill) must equal a reference: a fresh ``Match`` fed the same script lines up to that
document's ``at_ns`` and advanced to it (what ``scoreboard replay`` computes). Every key must
be equal except the countdowns (``clock_ms``, ``shift_ms``, each ``remaining_ms``), which may
differ by one frame (``frame_ms``, see there); where a script line or an event falls within
one frame before ``at_ns``, the reference drained just before it is accepted too (see
``compare``). At the end: the journal's events are gapless 1..n and equal, one by one (seq,
instant, kind, data), to the reference's events, so no script line was applied twice or
lost; no script line is marked as played twice; the final state equals the reference.

Marked slow: about a minute. Time runs for real (scaled); every wait is bounded polling
for a condition (the state file, the game's clock reaching a kill moment), never a sleep.

Nothing depends on how fast the machine is: a loaded machine restarts the daemon later and
draws its frames later, but every frame is compared with the reference at the instant it
was computed for (its recorded ``at_ns``), and a short stretch is only ever killed in once
the board shows it. What load could still do is keep the board down through a whole short
stretch (the stopped clock lasts half a second of real time): so a uniform kill that would
leave less than two restarts before the next stretch begins is put off until after it,
with the restart measured as it goes (from each kill to the new process's first frame, on
the daemon's own timeline), not guessed; and the game runs slower in real time on a
machine that starts the daemon slowly (``pick_scale``, from a cold start measured first).
Deadlines are generous: they only bound a hang.
"""

from __future__ import annotations

import random
import shutil
import signal
import time
from dataclasses import dataclass, replace
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
# The injected clock runs up to 80 times real time (the game takes ~35 s), slower on a
# machine that starts the daemon slowly: see ``pick_scale``.
FASTEST = 80
# The game seconds a restart may take at most: from one stretch's kill to the end of the
# next stretch (``SHORT``) there are about 500 game seconds or more.
RESTART_BUDGET_S = 500
KILLS = 40
SEED = 20260808
FINAL_TAIL_S = 60  # kill moments run on this long (game time) past the last script line
# The stretches every run kills in (game seconds from the script's origin) and what the
# board shows in each: the clock stopped in period 1, the clock running in period 1 (on a
# loaded machine the uniform kills may all be put off past the stretches), the break, the
# shootout, the final.
SHORT = (((160, 200), "period (stopped)"), ((300, 700), "period"),
         ((1240, 1300), "intermission"), ((2500, 2670), "shootout (stopped)"),
         ((2670, 2670 + FINAL_TAIL_S), "final (stopped)"))


def clear_s(scale: int) -> float:
    """No uniform kill this close before a short stretch or inside it (two seconds of real
    time): the first guess of a restart's length, before one has been measured."""
    return 2.0 * scale

# A wait for the daemon beyond what the game itself takes: only a hang lasts this long.
PATIENCE_S = 120

# One frame, in game time. The daemon draws at the instant the shown state next changes (the
# clock shows whole seconds above a minute: a frame a second; tenths below), but never more
# than one frame per MIN_FRAME_GAP_NS of real time, which at a scale is MIN_FRAME_GAP_NS * scale
# of game time (2640 ms at 80; the in-process crash test checks the countdowns exactly).
# The longer of the two is one frame of the game's display.
def frame_ms(scale: int) -> int:
    return max(1000, MIN_FRAME_GAP_NS * scale // 1_000_000)


def pick_scale(start_s: float) -> int:
    """The time scale for a machine that took ``start_s`` real seconds to start the daemon
    and show its first frame: a restart (allowing two cold starts' time, as load comes and
    goes; ``put_off`` minds the restarts measured later) must fit ``RESTART_BUDGET_S`` of
    game time. ``FASTEST`` on an idle machine (a
    start takes well under a second), slower under load, so that the short stretches still
    last many of the loaded machine's loop turns."""
    return max(2, min(FASTEST, int(RESTART_BUDGET_S / (2 * start_s))))


def script_lines() -> list[ScriptLine]:
    return parse_script(SCRIPT.read_text(encoding="utf-8"), str(SCRIPT))


def compare(doc: dict[str, Any], lines: list[ScriptLine], origin: int,
            what: str, frame: int) -> tuple[dict[str, int], bool]:
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
                   if at - frame * 1_000_000 < i <= at}, reverse=True)
    tried = []
    for drained in [None, *(i - 1 for i in near)]:
        reference, _ = reference_state(PRESET, SETUP, lines, origin, at, drained=drained)
        same, differ = frame_differences(doc, reference)
        if same and all(abs(d) <= frame for d in differ.values()):
            return differ, drained is not None
        tried.append(reference)
    raise AssertionError(f"{what}: the frame is not the reference replay's (countdowns may "
                         f"differ by {frame} ms)\n daemon    {doc}\n" +
                         "".join(f" reference {r}\n" for r in tried))


@dataclass(frozen=True)
class Kill:
    moment: float  # game seconds from the script's origin: not before
    shows: str | None = None  # a short stretch's kill: only while the board shows this
    stretch_s: tuple[float, float] = (0.0, 0.0)  # where that stretch begins and ends


def label(doc: dict[str, Any]) -> str:
    """The board's phase as the test counts it."""
    return str(doc["phase"]) + ("" if doc["running"] else " (stopped)")


def kill_plan(rng: random.Random, end_s: float, scale: int) -> list[Kill]:
    """Uniform over the whole game, and one early in each short stretch for sure.

    No uniform kill is drawn within ``clear_s`` before a short stretch or inside it, so that
    the board is up again when the stretch comes; ``put_off`` keeps that true when restarts
    take longer than that on a loaded machine."""
    # Not in the stretch's first frames either: the board shows a phase a frame after it
    # begins (the kill waits for it to show all the same).
    lead = 3 * frame_ms(scale) / 1000
    short = [Kill(rng.uniform(low + lead, (low + high) / 2), shows, (low, high))
             for (low, high), shows in SHORT]
    spread: list[Kill] = []
    while len(spread) < KILLS - len(short):
        moment = rng.uniform(0, end_s)
        if not any(low - clear_s(scale) <= moment < high for (low, high), _ in SHORT):
            spread.append(Kill(moment))
    return sorted(short + spread, key=lambda k: k.moment)


def put_off(kill: Kill, pending: list[Kill], now_s: float, restart_s: float) -> bool:
    """Move a uniform ``kill`` after the next short stretch's own kill if, made now, its
    restart might still be under way when the stretch begins (two restarts' margin)."""
    stretch = next((k for k in pending if k.shows is not None), None)
    if kill.shows is not None or stretch is None:
        return False
    if stretch.stretch_s[0] - max(now_s, kill.moment) >= 2 * restart_s:
        return False
    at = pending.index(stretch) + 1
    pending.insert(at, replace(kill, moment=stretch.moment))  # at once after that restart
    return True


def game_ns(scale: int) -> int:
    """Now on the daemon's timeline: the same boot's monotonic clock, scaled, offset 0."""
    return time.monotonic_ns() * scale


def cold_start_s(directory: Path, config: str) -> float:
    """Real seconds from starting ``scoreboard run`` to its first frame, on this machine
    now (a measurement of the load, not a wait for time to pass)."""
    probe = Hall(directory, config)
    began = time.monotonic()
    try:
        probe.start()
        probe.wait_doc(lambda d: True, PATIENCE_S, "the probe's first frame")
        return time.monotonic() - began
    finally:
        probe.stop()


@pytest.mark.slow
def test_kills_during_a_game_each_resume_as_the_reference_replay(
        tmp_path: Path) -> None:
    lines = script_lines()
    end_s = lines[-1].t // NS_PER_S + FINAL_TAIL_S
    config = f'[match]\npreset = "{PRESET}"\nstage = "{SETUP.stage.value}"\n'
    start_s = cold_start_s(tmp_path / "probe", config)
    scale = pick_scale(start_s)
    frame = frame_ms(scale)
    pending = kill_plan(random.Random(SEED), end_s, scale)
    env = {"SCOREBOARD_TEST_BOOT_ID": BOOT}
    hall = Hall(tmp_path / "hall", config)
    args = ("--script", str(SCRIPT), "--time-scale", str(scale))

    def reached(instant: int) -> bool:
        hall.check_alive()
        return game_ns(scale) >= instant

    try:
        hall.start(*args, env=env)
        hall.wait_doc(lambda d: d["running"], PATIENCE_S, "the first frame of the game")
        origin = script_origin(hall.records())

        def game_s() -> float:
            return (game_ns(scale) - origin) / NS_PER_S

        def game_left_s(moment: float) -> float:
            """Real seconds until the game reaches ``moment``, plus the patience."""
            return max(0.0, moment - game_s()) / scale + PATIENCE_S

        phases: dict[str, int] = {}
        differing: list[str] = []
        late: list[str] = []
        # Game seconds from each kill to the new process's first frame; the cold start
        # measured first stands for them until one has been measured.
        restarts: list[float] = []
        put_off_kills = 0
        number = 0
        while pending:
            kill = pending.pop(0)
            restart_s = max(restarts, default=start_s * scale)
            if put_off(kill, pending, game_s(), restart_s):
                put_off_kills += 1
                continue
            number += 1
            target = origin + round(kill.moment * NS_PER_S)
            # Kill once the game has reached the chosen moment (at once if the moment passed
            # while the daemon was restarting). On the game's clock, not on the state file:
            # a board that stands still (a stopped clock, the final) draws no new frames. A
            # short stretch's kill also waits for the board to show it.
            if kill.shows is None:
                wait_for(lambda t=target: reached(t), game_left_s(kill.moment),
                         f"kill {number}: the game at {kill.moment:.1f} s")
                shown = hall.doc()
            else:
                def showing(doc: dict[str, Any], t: int = target, k: Kill = kill,
                            n: int = number) -> bool:
                    if reached(t) and label(doc) == k.shows:
                        return True
                    # Past the stretch and the board never showed it: say so at once.
                    assert game_s() < k.stretch_s[1] + 3 * frame / 1000, (
                        f"kill {n}: the board was down through {k.shows} "
                        f"(restarts so far {restarts} game s)")
                    return False

                shown = hall.wait_doc(showing, game_left_s(kill.moment),
                                      f"kill {number}: the board showing {kill.shows}")
            assert shown is not None
            phases[label(shown)] = phases.get(label(shown), 0) + 1
            hall.kill()
            killed_at = game_ns(scale)
            hall.start(*args, env=env)
            doc = hall.wait_doc(lambda d, k=killed_at: d["at_ns"] > k, PATIENCE_S,
                                f"kill {number}: the first frame of the new process")
            assert doc["at_ns"] <= game_ns(scale)  # computed for an instant that has come
            restarts.append((doc["at_ns"] - killed_at) / NS_PER_S)
            what = f"after kill {number} at {(killed_at - origin) / NS_PER_S:.1f} s"
            differ, drained_earlier = compare(doc, lines, origin, what, frame)
            if drained_earlier:
                late.append(what)
            if differ:
                differing.append(f"{what}: {differ} (frame at {doc['at_ns'] - origin} ns)")
                shutil.copytree(hall.state_dir, tmp_path / f"state-after-kill-{number}")
        assert number == KILLS
        assert set(phases) >= {"period", "period (stopped)", "intermission",
                               "shootout (stopped)", "final (stopped)"}, phases
        # The end: the whole game played, then a clean stop (the last state written).
        hall.wait_doc(lambda d: d["phase"] == "final", game_left_s(end_s), "the final")
        assert hall.signal(signal.SIGTERM, timeout=PATIENCE_S) == 0
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
          f"reference (tolerance {frame} ms) after {len(differing)} restarts; frames that "
          f"matched a reference drained before a line or deadline just before: {len(late)}; "
          f"at {scale} times real time, restarts {min(restarts) / scale:.2f}-"
          f"{max(restarts) / scale:.2f} s real time, "
          f"kills put off past a short stretch: {put_off_kills}",
          *differing, *late, sep="\n  ")
