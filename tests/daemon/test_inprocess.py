"""The whole scoreboard in-process on a fake clock (tests/daemon/inprocess.py): a game from
pregame to final, crashes and a power loss, the office's ``next`` and the final hold, the
between-games screen. Each runs in milliseconds and every instant is exact, so the daemon's
frames are compared with the reference replay key by key, countdowns included.

The game is examples/replay/ice-hockey-2x20-playoff.jsonl (ice-hockey-2x20, rules 000, play-off
stage): stacked penalties, goals, a clock stop, the break, period 2 with its stop-time minute,
a misconduct, and a shootout (rules 000 'Overtime and shootout') to the final.
"""

from __future__ import annotations

import itertools
import logging
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena import presets
from arena.core.match import Match, feed
from arena.core.phase import Stage, Team
from arena.core.state import state_document
from arena.core.units import NS_PER_S
from arena.core.values import MatchSetup
from arena.timesource import FakeClock
from firmware_py.script import ScriptLine, parse_script
from tests.daemon.conftest import ROOT, reference_state, script_origin, write_script
from tests.daemon.inprocess import START_NS, Frame, InProcessHall, TestParts

GAME = ROOT / "examples" / "replay" / "ice-hockey-2x20-playoff.jsonl"
PRESET = "ice-hockey-2x20"
SETUP = MatchSetup(stage=Stage.PLAYOFF)
CONFIG = f'[match]\npreset = "{PRESET}"\nstage = "playoff"\n'


def game_lines() -> list[ScriptLine]:
    return parse_script(GAME.read_text(encoding="utf-8"), str(GAME))


def without_extras(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "restored"}


def check_frame(frame: Frame, lines: list[ScriptLine], origin: int) -> None:
    """A frame is the reference replay's document for its instant, with the inputs and
    deadlines taken up to the loop's "now" when it was drawn: every key, exactly."""
    expected, _ = reference_state(PRESET, SETUP, lines, origin, frame.at, drained=frame.drained)
    assert without_extras(frame.doc) == expected, f"frame at {frame.at - origin} ns"


class Reference:
    """``reference_state`` for frames in order, without replaying from the start for each:
    one match fed the lines and advanced as the frames' drain instants move on (the core
    gives the same state for one big advance as for many small ones)."""

    def __init__(self, lines: list[ScriptLine], origin: int) -> None:
        self.match = Match(presets.load(PRESET), SETUP)
        self.rest = list(lines)
        self.origin = origin
        self.events: list[Any] = []

    def check(self, frame: Frame) -> None:
        while self.rest and self.origin + self.rest[0].t <= frame.drained:
            line = self.rest.pop(0)
            self.events += feed(self.match, replace(line.command,
                                                    at=self.origin + line.t)).events
        self.events += self.match.advance(frame.drained)
        expected = state_document(self.match, frame.at)
        assert without_extras(frame.doc) == expected, f"frame at {frame.at - self.origin} ns"


def records(hall: InProcessHall, match: str = "M1") -> list[dict[str, Any]]:
    from firmware_py.journal import scan  # noqa: PLC0415

    path = hall.state_dir / f"{match}.journal"
    return scan(path.read_bytes(), str(path)).records


def test_a_whole_game_with_penalties_and_a_shootout_is_the_reference_replay(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="firmware_py.daemon")
    hall = InProcessHall(tmp_path, CONFIG)
    lines = game_lines()
    daemon = hall.start(script=GAME, exit_when_done=True)
    assert hall.frames == [] and daemon.match.state.phase.value == "pregame"
    daemon.run_until(START_NS + 4000 * NS_PER_S)
    assert daemon.stopping == "done"
    daemon.shutdown()
    origin = script_origin(records(hall))
    frames = hall.frames
    # A frame a second while a clock runs, tenths in the last minute: thousands of frames.
    assert len(frames) > 2500
    reference = Reference(lines, origin)
    for frame in frames:
        reference.check(frame)
    assert [f.at for f in frames] == sorted(f.at for f in frames)
    last = frames[-1]
    assert last.doc["phase"] == "final"
    assert last.doc["result"] == {"home": 2, "away": 1, "decided_by": "shootout"}
    # The journal holds exactly the reference's events, and the office got them all.
    _, events = reference_state(PRESET, SETUP, lines, origin, last.at)
    journalled = [r for r in records(hall) if r.get("type") == "event"]
    assert [(r["seq"], r["at"], r["event"], r["data"]) for r in journalled] == \
        [(e.seq, e.at, e.kind.value, dict(e.data)) for e in events]
    # The relay switched on at each period's end, at the very instant, each time for the
    # preset's 2 s (the break's end sounds too), and is off.
    ends = [e.at for e in events if e.kind.value == "period_ended"]
    switched = hall.horn.switched
    ons = [at for at, on in switched[0::2] if on]
    assert len(ons) == len(switched) // 2 and set(ends) <= set(ons)
    assert [off - on for (on, _), (off, _) in zip(switched[0::2], switched[1::2],
                                                  strict=True)] == [2 * NS_PER_S] * len(ons)
    assert not hall.horn.driver.relay.is_on
    # Structured logs: every command with its edge time, every state change.
    applied = [r for r in caplog.records if r.getMessage() == "command applied"]
    assert len(applied) == len(lines) - 1  # one shot is refused: the shootout was decided
    assert all(r.kv["match"] == "M1" and "at" in r.kv for r in applied)  # type: ignore[attr-defined]
    assert any(r.getMessage() == "state" and r.kv["phase"] == "final"  # type: ignore[attr-defined]
               for r in caplog.records)


def test_a_crash_anywhere_resumes_exactly_where_the_game_is(tmp_path: Path) -> None:
    """Crashed 100 times at random instants of the game (seeded), restarted 0.1-3 s later
    in the same boot: the first frame after each restart is the reference replay's, exactly
    (the monotonic clock kept running, so a running clock resumes where the game is), and
    the journal ends with exactly the reference's events, none twice, none lost."""
    lines = game_lines()
    clock = FakeClock()
    hall = InProcessHall(tmp_path, CONFIG, time=clock)
    rng = random.Random(20261201)
    daemon = hall.start(script=GAME)
    daemon.run_until(clock.now + NS_PER_S)
    origin = script_origin(records(hall))
    end = origin + lines[-1].t + 60 * NS_PER_S
    # Uniform over the game, and two in each short stretch for sure (game seconds: the
    # stopped clock, the break, the shootout, the final).
    short = [(160, 200), (1240, 1300), (2540, 2670), (2670, 2730)]
    moments = sorted([rng.randrange(origin, end) for _ in range(100 - 2 * len(short))]
                     + [origin + rng.randrange(low, high) * NS_PER_S
                        for low, high in short for _ in range(2)])
    phases: set[str] = set()
    for moment in moments:
        daemon.run_until(max(moment, clock.now))
        phases.add(daemon.match.state.phase.value + ("" if daemon.match.state.clock.running
                                                      else " (stopped)"))
        hall.crash()
        clock.now += rng.randrange(NS_PER_S // 10, 3 * NS_PER_S)
        daemon = hall.start(script=GAME)
        seen = len(hall.frames)
        daemon.run_until(clock.now, stop_when=lambda seen=seen: len(hall.frames) > seen)
        check_frame(hall.frames[-1], lines, origin)
    assert phases >= {"period", "period (stopped)", "intermission", "shootout (stopped)",
                      "final (stopped)"}, phases
    daemon.run_until(end)
    final = hall.frames[-1]
    assert final.doc["phase"] == "final"
    _, events = reference_state(PRESET, SETUP, lines, origin, final.at)
    kept = records(hall)
    journalled = [r for r in kept if r.get("type") == "event"]
    assert [(r["seq"], r["at"], r["event"], r["data"]) for r in journalled] == \
        [(e.seq, e.at, e.kind.value, dict(e.data)) for e in events]
    played = [r["script"] for r in kept if "script" in r]
    assert len(played) == len(set(played)), f"script lines played twice: {played}"
    hall.stop()


def test_a_power_loss_comes_back_stopped_at_the_last_journalled_instant(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """docs/developer.md 3: after a power loss (a Pi has no battery clock) the clock comes back
    stopped at the last journalled value and says so until the timekeeper confirms it."""
    script = write_script(tmp_path / "s.jsonl", [{"t": 0, "do": "start"},
                                                 {"t": 30, "do": "goal", "team": "home"}])
    clock = FakeClock()
    hall = InProcessHall(tmp_path, '[match]\npreset = "floorball-2x15"\n', time=clock)
    daemon = hall.start(script=script)
    daemon.run_until(clock.now + 100 * NS_PER_S + NS_PER_S // 3)
    before = hall.frames[-1].doc
    assert before["running"] and before["score"]["home"] == 1
    last_at = max(r["at"] for r in records(hall) if isinstance(r.get("at"), int))
    hall.crash()
    # A new boot: the monotonic clock starts again near zero.
    hall.time = FakeClock(now=7 * NS_PER_S)
    hall.boot = "boot-2"
    daemon = hall.start(script=script)
    daemon.run_until(hall.time.now + 2 * NS_PER_S)
    doc = hall.frames[-1].doc
    assert not doc["running"] and doc["restored"] and doc["score"]["home"] == 1
    # Checkpoints every 5 s of running clock: at most that far behind the game.
    origin = script_origin(records(hall))
    assert doc["clock_ms"] == 900_000 - (last_at - origin) // 1_000_000
    assert 900_000 - before["clock_ms"] - (last_at - origin) // 1_000_000 <= 5000
    assert hall.frames[-1].status == {"restored": True, "office_online": None,
                                      "recording": True, "journal_damaged": None}
    assert "power loss: clock restored from the journal, CHECK IT" in caplog.messages
    timelines = [r for r in records(hall) if r.get("type") == "timeline"]
    assert timelines[-1]["restored"] and timelines[-1]["boot"] == "boot-2"
    # The timekeeper checks the clock and starts it: the mark goes.
    daemon.console.button("start_stop", hall.time.now, True)  # type: ignore[union-attr]
    daemon.console.button("start_stop", hall.time.now + 80_000_000, False)  # type: ignore[union-attr]
    daemon.run_until(hall.time.now + 2 * NS_PER_S)
    doc = hall.frames[-1].doc
    assert doc["running"] and not doc["restored"]
    hall.stop()


NEXT = {"match": "A2", "preset": "floorball-2x15", "stage": "group", "scheduled": "10:40",
        "teams": {"home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]},
                  "away": {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}}}
TABLE = {"group": "A", "rows": [
    {"team": "Lions", "played": 1, "won": 1, "drawn": 0, "lost": 0, "goals_for": 3,
     "goals_against": 1, "points": 2},
    {"team": "Bears", "played": 1, "won": 0, "drawn": 0, "lost": 1, "goals_for": 1,
     "goals_against": 3, "points": 0}]}
LINKED = """
[match]
preset = "football-p08"
[display]
final_hold_s = 30
[mqtt]
broker = "mqtt://127.0.0.1:1883"
tournament = "T1"
hall = "H1"
"""


def test_next_waits_for_the_final_and_its_hold_and_every_old_event_still_goes(
        tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.jsonl", [
        {"t": 0, "do": "start"}, {"t": 0.3, "do": "goal", "team": "home", "player": 9},
        {"t": 2.5, "do": "end"}])
    hall = InProcessHall(tmp_path, LINKED)
    daemon = hall.start(script=script)
    link = hall.link
    assert link.started
    daemon.run_until(hall.time.now + NS_PER_S)
    link.offer_next(NEXT)  # the office's next arrives during the game: it waits
    link.offer_standings("A", TABLE)
    daemon.run_until(hall.time.now + NS_PER_S)
    assert daemon.match.setup.match_id == "M1" and daemon.next_match.pending is not None
    daemon.run_until(hall.time.now + 2 * NS_PER_S)
    assert daemon.match.state.phase.value == "final"
    final_at = daemon.match.state.last_at
    assert final_at is not None
    # The final stays up for [display] final_hold_s, then the next match replaces it.
    daemon.run_until(final_at + 30 * NS_PER_S - 1)
    assert daemon.match.setup.match_id == "M1"
    hold_end = final_at + 30 * NS_PER_S
    held = [f for f in hall.frames if f.doc["phase"] == "final" and f.at < hold_end]
    assert len(held) >= 30 and all(f.between is None for f in held)
    daemon.run_until(final_at + 31 * NS_PER_S)
    assert daemon.match.setup.match_id == "A2"
    first = next(f for f in hall.frames if f.doc["match"] == "A2")
    assert first.at >= final_at + 30 * NS_PER_S
    assert first.doc["phase"] == "pregame" and first.doc["teams"]["home"]["name"] == "Lions"
    # The between-games screen: the match on the board with its time, and the tables.
    assert first.between is not None
    assert first.between["next"]["match"] == "A2" and first.between["next"]["time"] == "10:40"
    assert first.between["tables"] == [{"group": "A", "rows": TABLE["rows"]}]
    assert (hall.state_dir / "current").read_text().strip() == "A2"
    # Every M1 event reached the office, in order, before anything of A2.
    m1 = [r for r in records(hall, "M1") if r.get("type") == "event"]
    sent = [(r["match"], r["seq"]) for r in link.sent]
    assert sent[:len(m1)] == [("M1", r["seq"]) for r in m1]
    assert link.unacked == 0 and link.states[-1]["match"] == "A2"
    hall.stop()
    assert link.closed


def test_the_between_games_screen_is_drawn_by_the_real_display(tmp_path: Path) -> None:
    """Before the first face-off, with the office's tables: pygame's dummy driver draws the
    screen, and a snapshot of each phase is written (``--snapshots``)."""
    hall = InProcessHall(tmp_path, LINKED)
    daemon = hall.start(parts=TestParts(real_display=True), snapshots=tmp_path / "pics")
    hall.link.offer_standings("A", TABLE)
    daemon.run_until(hall.time.now + 3 * NS_PER_S)
    between = daemon.between(hall.time.now)
    assert between is not None and between["tables"][0]["rows"][0]["team"] == "Lions"
    assert daemon.frame_count >= 3  # an idle frame a second
    pictures = sorted((tmp_path / "pics").glob("*.png"))
    assert [p.name for p in pictures] == ["M1-001-pregame-p1.png"]
    hall.stop()


def test_a_stopped_clock_still_gets_a_frame_a_second(tmp_path: Path) -> None:
    """With no display deadline the board is still redrawn every second (an office or
    status change shows within one), and the loop naps instead of spinning."""
    hall = InProcessHall(tmp_path, '[match]\npreset = "floorball-2x15"\n')
    daemon = hall.start()
    begin = hall.time.now
    daemon.run_until(begin + 10 * NS_PER_S)
    shown = [f.at for f in hall.frames]
    gaps = [b - a for a, b in itertools.pairwise(shown)]
    assert len(shown) >= 10 and max(gaps) <= NS_PER_S
    # A nap is at most 10 ms: about a hundred a second, never a busy spin.
    assert hall.time.slept <= 10 * 110
    hall.stop()


def test_a_press_takes_effect_at_its_edge_time(tmp_path: Path) -> None:
    """START/STOP from the console: the clock starts and stops at the edges' own instants,
    whenever the loop gets round to them."""
    hall = InProcessHall(tmp_path, '[match]\npreset = "floorball-2x15"\n')
    daemon = hall.start()
    console = daemon.console
    assert console is not None
    t0 = hall.time.now + NS_PER_S
    daemon.run_until(t0 + 5 * NS_PER_S)  # the press is read late, at t0 + 5 s
    console.button("start_stop", t0, True)
    console.button("start_stop", t0 + 60_000_000, False)
    daemon.run_until(t0 + 10 * NS_PER_S)
    stop_at = t0 + 12_345_678_901
    daemon.run_until(stop_at + 3 * NS_PER_S)
    console.button("start_stop", stop_at, True)
    console.button("start_stop", stop_at + 60_000_000, False)
    daemon.run_until(stop_at + 5 * NS_PER_S)
    doc = hall.frames[-1].doc
    assert not doc["running"]
    assert doc["clock_ms"] == 900_000 - (stop_at - t0) // 1_000_000
    hall.stop()


def test_a_cancel_and_a_correction_from_the_keypad_survive_a_restart(tmp_path: Path) -> None:
    """MENU 15 on the keypad: a goal cancelled and a penalty renumbered are commands in the
    journal, so a crash and a restart (journal replay) bring them back exactly."""
    hall = InProcessHall(tmp_path, CONFIG)
    daemon = hall.start()
    console = daemon.console
    assert console is not None
    t0 = hall.time.now + NS_PER_S

    def tap(action: str, at: int) -> None:
        assert console is not None
        console.button(action, at, True)
        console.button(action, at + 50_000_000, False)

    def keys(at: int, *names: str) -> None:
        assert console is not None
        for name in names:
            console.key(name, at)

    tap("start_stop", t0)
    tap("goal_home", t0 + 10 * NS_PER_S)
    keys(t0 + 11 * NS_PER_S, "9", "enter")
    tap("penalty_away", t0 + 20 * NS_PER_S)
    keys(t0 + 21 * NS_PER_S, "1", "2", "enter", "1")
    daemon.run_until(t0 + 30 * NS_PER_S)
    tap("menu", t0 + 31 * NS_PER_S)
    keys(t0 + 32 * NS_PER_S, "1", "5", "1", "2", "1", "enter")  # newest: the penalty, #21
    daemon.run_until(t0 + 40 * NS_PER_S)
    tap("menu", t0 + 41 * NS_PER_S)
    keys(t0 + 42 * NS_PER_S, "1", "5", "2", "enter")  # then the goal: cancelled
    daemon.run_until(t0 + 50 * NS_PER_S)

    def played(state: Any) -> tuple[Any, ...]:
        return (state.score(), [(p.team.value, p.player) for p in state.box],
                sorted(state.cancelled), state.seq)

    before = played(daemon.match.state)
    assert before[:2] == ({Team.HOME: 0, Team.AWAY: 0}, [("away", 21)])
    commands = [r["command"]["do"] for r in records(hall) if r.get("type") == "command"]
    assert commands[-2:] == ["correct", "cancel"]
    hall.crash()
    hall.time.now += NS_PER_S
    daemon = hall.start()
    daemon.run_until(hall.time.now + NS_PER_S)
    assert played(daemon.match.state) == before
    assert hall.frames[-1].doc["score"] == {"home": 0, "away": 0}
    assert [p["player"] for p in hall.frames[-1].doc["penalties"]["away"]] == [21]
    hall.stop()


def test_a_goal_from_a_usb_keypad_counts_at_the_kernels_instant(tmp_path: Path) -> None:
    """Headless, the keypad is read through evdev (here the real ``EvdevKeys`` on a fake
    device): START/STOP and a goal act at the instants the kernel stamped on the keys, not
    when the loop read them; a replugged keypad works again without a restart."""
    from hardware.keypad import EvdevKeys  # noqa: PLC0415
    from tests.hardware.fake_evdev import FakeBus  # noqa: PLC0415

    hall = InProcessHall(tmp_path, '[match]\npreset = "floorball-2x15"\n'
                                   '[console]\nkeypad = false\n'
                                   '[keypad.keys]\nKEY_F1 = "goal_home"\n')
    bus = FakeBus()
    pad = bus.plug("/dev/input/event3")
    keys = EvdevKeys(hall.config.keypad, monotonic=hall.time.monotonic_ns,
                     realtime=hall.time.monotonic_ns, list_paths=bus.paths,
                     open_device=bus.open, set_clock=bus.set_clock)
    daemon = hall.start(parts=TestParts(key_source=keys))
    assert daemon.keys is keys
    t0 = hall.time.now + NS_PER_S
    daemon.run_until(t0 - NS_PER_S // 2)
    assert pad.clock_set
    pad.tap("KEY_KPPLUS", t0, t0 + 80_000_000)
    daemon.run_until(t0 + 3 * NS_PER_S)
    goal_at = t0 + 61_234_567_000
    daemon.run_until(goal_at + 2 * NS_PER_S)  # the key is read 2 s after its edge
    pad.tap("KEY_F1", goal_at, goal_at + 90_000_000)
    daemon.run_until(goal_at + 4 * NS_PER_S)
    doc = hall.frames[-1].doc
    assert doc["score"] == {"home": 1, "away": 0} and doc["running"]
    commands = [(r["at"], r["command"]["do"]) for r in records(hall)
                if r.get("type") == "command"]
    assert commands == [(t0, "start"), (goal_at, "goal")]
    # Unplugged and plugged in again mid-game: found at the next rescan, no restart.
    bus.unplug("/dev/input/event3")
    daemon.run_until(goal_at + 5 * NS_PER_S)
    again = bus.plug("/dev/input/event4")
    daemon.run_until(goal_at + 7 * NS_PER_S)
    second = goal_at + 8 * NS_PER_S
    again.tap("KEY_F1", second, second + 90_000_000)
    daemon.run_until(second + NS_PER_S)
    assert hall.frames[-1].doc["score"] == {"home": 2, "away": 0}
    hall.stop()
    assert again.closed  # the daemon closed its inputs


def test_a_clock_correction_confirmed_and_undone_from_the_keypad_survives_a_restart(
        tmp_path: Path) -> None:
    """Rules 000 'Penalties' (a minor is 2 min; IIHF delayed penalties, 4 v 4 here): MENU 11
    sets the clock forward past both minors; the keypad shows that they end and the second
    Enter sets it; MENU 17 undoes it, shown as the minors back in the box, Enter again. A
    crash and a restart (journal replay) bring the 4 v 4 back with the same time left."""
    hall = InProcessHall(tmp_path, CONFIG)
    daemon = hall.start()
    console = daemon.console
    assert console is not None
    t0 = hall.time.now + NS_PER_S

    def tap(action: str, at: int) -> None:
        assert console is not None
        console.button(action, at, True)
        console.button(action, at + 50_000_000, False)

    def keys(at: int, *names: str) -> None:
        assert console is not None
        for name in names:
            console.key(name, at)

    tap("start_stop", t0)
    tap("start_stop", t0 + 20 * NS_PER_S)  # stopped at 19:40
    tap("penalty_home", t0 + 21 * NS_PER_S)
    keys(t0 + 22 * NS_PER_S, "7", "enter", "1")
    tap("penalty_away", t0 + 23 * NS_PER_S)
    keys(t0 + 24 * NS_PER_S, "4", "enter", "1")
    daemon.run_until(t0 + 30 * NS_PER_S)
    tap("menu", t0 + 31 * NS_PER_S)
    keys(t0 + 32 * NS_PER_S, "1", "1", "1", "5", "0", "0", "enter")
    daemon.run_until(t0 + 33 * NS_PER_S)
    assert hall.frames[-1].doc["strength"] == {"home": 4, "away": 4}  # not yet: shown first
    assert hall.frames[-1].doc["entry"]["prompt"] == \
        "SET CLOCK: home #7 minor ends; away #4 minor ends"
    keys(t0 + 34 * NS_PER_S, "enter")
    daemon.run_until(t0 + 35 * NS_PER_S)
    assert hall.frames[-1].doc["strength"] == {"home": 5, "away": 5}
    tap("menu", t0 + 36 * NS_PER_S)
    keys(t0 + 37 * NS_PER_S, "1", "7", "enter")
    daemon.run_until(t0 + 38 * NS_PER_S)
    assert hall.frames[-1].doc["entry"]["prompt"].startswith(
        "UNDO: home #7 minor back in the box")
    keys(t0 + 39 * NS_PER_S, "enter")
    daemon.run_until(t0 + 40 * NS_PER_S)

    def shown(doc: dict[str, Any]) -> tuple[Any, ...]:
        return (doc["strength"], doc["penalties"], doc["clock_ms"])

    before = shown(hall.frames[-1].doc)
    assert before == ({"home": 4, "away": 4},
                      {"home": [{"player": 7, "kind": "minor", "remaining_ms": 120_000,
                                 "running": True}],
                       "away": [{"player": 4, "kind": "minor", "remaining_ms": 120_000,
                                 "running": True}]}, 19 * 60_000 + 40_000)
    commands = [r["command"]["do"] for r in records(hall) if r.get("type") == "command"]
    assert commands[-2:] == ["set_clock", "undo"]
    hall.crash()
    hall.time.now += NS_PER_S
    daemon = hall.start()
    daemon.run_until(hall.time.now + NS_PER_S)
    assert shown(hall.frames[-1].doc) == before
    hall.stop()
