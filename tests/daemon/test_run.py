"""``scoreboard run`` as a process: a scripted game, stopping, systemd notify, recovery.

Headless (SDL dummy driver), mock pins; time runs for real (scaled where a whole game is
played), and the tests wait for conditions with bounded polling.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware_py.core.units import NS_PER_S, ceil_ms
from tests.daemon.conftest import ROOT, Hall, script_origin, write_script

EXAMPLE = ROOT / "examples" / "replay" / "floorball-u9-2x10.jsonl"


def replay_at(script: Path, preset: str, seconds: float, *extra: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "firmware_py.cli", "replay", str(script),
                           "--preset", preset, "--at", repr(seconds), *extra], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=True)
    doc = json.loads(done.stdout)
    doc.pop("t")
    return dict(doc)


@pytest.mark.slow
def test_a_scripted_game_ends_as_scoreboard_replay_says(tmp_path: Path) -> None:
    hall = Hall(tmp_path, '[match]\npreset = "floorball-u9-2x10"\n')
    # A 23-minute game in ~6 s: the injected clock runs 250 times real time.
    hall.start("--script", str(EXAMPLE), "--time-scale", "250", "--exit-when-done")
    assert hall.wait_exit(60) == 0, hall.log_text()
    doc = hall.doc()
    assert doc is not None and doc["phase"] == "final"
    t = (doc.pop("at_ns") - script_origin(hall.records())) / NS_PER_S
    assert not doc.pop("restored")
    assert doc == replay_at(EXAMPLE, "floorball-u9-2x10", t)
    # Structured logs: every command with its edge time, every state change.
    applied = hall.log_lines("command applied")
    assert applied and all(" at=" in line and " match=M1 " in line for line in applied)
    assert any("phase=final" in line for line in hall.log_lines("state"))


def test_sigterm_stops_in_order_with_the_horn_off(tmp_path: Path) -> None:
    hall = Hall(tmp_path)
    script = write_script(tmp_path / "horn.jsonl", [{"t": 0, "do": "start"},
                                                   {"t": 0.1, "do": "horn", "on": True}])
    hall.start("--script", str(script))
    hall.wait_doc(lambda d: d["horn"], 30, "the horn to sound")
    assert hall.signal(signal.SIGTERM) == 0
    order = [line.split("msg=")[1].split(" ")[0].strip('"')
             for line in hall.log_text().splitlines()
             if any(f"msg={m}" in line or f'msg="{m}' in line
                    for m in ("stopping", "horn relay off", "journal closed", "stopped"))]
    assert order == ["stopping", "horn", "journal", "stopped"], hall.log_text()
    doc = hall.doc()
    assert doc is not None and doc["running"]  # the last state, written on the way out


def test_sd_notify_ready_after_the_first_frame_watchdog_and_status(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(20)
        hall = Hall(tmp_path)
        script = write_script(tmp_path / "s.jsonl", [{"t": 0, "do": "start"}])
        hall.start("--script", str(script),
                   env={"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "200000"})
        messages: list[str] = []
        ready_had_frame = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            message = sock.recv(4096).decode()
            if message.startswith("READY=1"):
                ready_had_frame = hall.state_file.exists()
            messages.append(message)
            if sum(m == "WATCHDOG=1" for m in messages) >= 3 and ready_had_frame is not None:
                break
        assert hall.signal(signal.SIGTERM) == 0
        while True:  # what was sent while stopping
            try:
                sock.settimeout(2)
                messages.append(sock.recv(4096).decode())
            except TimeoutError:
                break
    assert ready_had_frame is True
    assert any(m.startswith("READY=1\nSTATUS=M1 P1 ") for m in messages)
    assert sum(m == "WATCHDOG=1" for m in messages) >= 3
    assert any(m.startswith("STATUS=M1 P1 ") and " running 0-0" in m for m in messages)
    assert "STOPPING=1" in messages


def clock_ms_at(at_ns: int, started: int, period_s: int) -> int:
    return ceil_ms(period_s * NS_PER_S - (at_ns - started))


@pytest.mark.slow
def test_a_kill_in_the_same_boot_resumes_the_running_clock_exactly(tmp_path: Path) -> None:
    hall = Hall(tmp_path, '[match]\npreset = "floorball-2x15"\n')
    script = write_script(tmp_path / "s.jsonl", [
        {"t": 0, "do": "start"}, {"t": 0.5, "do": "goal", "team": "home", "player": 9},
        {"t": 1.0, "do": "penalty", "team": "away", "player": 4, "kind": "minor"},
        {"t": 30, "do": "stop"}])
    hall.start("--script", str(script))
    hall.wait_doc(lambda d: d["penalties"]["away"], 30, "the penalty")
    hall.kill()
    killed_at = time.monotonic_ns()
    hall.start("--script", str(script))
    doc = hall.wait_doc(lambda d: d["at_ns"] > killed_at, 30, "a frame of the new process")
    records = hall.records()
    started = script_origin(records)
    assert doc["running"] and not doc["restored"]
    assert doc["clock_ms"] == clock_ms_at(doc["at_ns"], started, 15 * 60)
    assert abs(time.monotonic_ns() - doc["at_ns"]) < 2 * NS_PER_S  # within a frame or so
    assert doc["score"] == {"home": 1, "away": 0}
    assert doc["penalties"]["away"][0]["remaining_ms"] == ceil_ms(
        120 * NS_PER_S - (doc["at_ns"] - started - NS_PER_S))
    # No script line was played twice.
    goals = [r for r in records if r.get("type") == "command"
             and r["command"]["do"] == "goal"]
    assert len(goals) == 1
    assert hall.signal(signal.SIGTERM) == 0


@pytest.mark.slow
def test_a_new_boot_comes_back_stopped_at_the_last_journalled_value(tmp_path: Path) -> None:
    """While the clock runs its instant is journalled every 5 s of game time, so after a power
    cut the clock comes back at most that far behind the game (not back at the last goal)."""
    hall = Hall(tmp_path, '[match]\npreset = "floorball-2x15"\n')
    script = write_script(tmp_path / "s.jsonl", [
        {"t": 0, "do": "start"}, {"t": 0.5, "do": "goal", "team": "away"}])
    args = ("--script", str(script), "--time-scale", "10")
    hall.start(*args, env={"SCOREBOARD_TEST_BOOT_ID": "boot-one"})
    seen = hall.wait_doc(
        lambda d: d["score"]["away"] == 1 and d["clock_ms"] <= 15 * 60_000 - 12_000,
        30, "the clock to run 12 s of game time after the goal")
    hall.kill()
    before = hall.records()
    started = script_origin(before)
    last_at = max(r["at"] for r in before if isinstance(r.get("at"), int))
    assert any(r.get("type") == "clock" for r in before), "no clock checkpoint journalled"
    hall.start(*args, env={"SCOREBOARD_TEST_BOOT_ID": "boot-two"})
    doc = hall.wait_doc(lambda d: d["restored"], 30, "the restored mark")
    assert not doc["running"]
    assert doc["clock_ms"] == clock_ms_at(last_at, started, 15 * 60)
    assert doc["clock_ms"] - seen["clock_ms"] <= 5_000 + 1_000  # a checkpoint + a frame
    assert doc["score"] == {"away": 1, "home": 0}
    assert hall.log_lines("power loss: clock restored from the journal, CHECK IT")
    timelines = [r for r in hall.records() if r.get("type") == "timeline"]
    assert timelines[-1]["restored"] and timelines[-1]["boot"] == "boot-two"
    assert hall.signal(signal.SIGTERM) == 0


@pytest.mark.slow
def test_a_stopped_clock_still_gets_a_frame_a_second(tmp_path: Path) -> None:
    """With no display deadline (pregame, a stopped clock, the final) a frame is still drawn
    about once a second, so a status change (the office link going down) shows."""
    hall = Hall(tmp_path, '[match]\npreset = "floorball-2x15"\n')
    hall.start()
    first = hall.wait_doc(lambda d: d["phase"] == "pregame", 30, "the first frame")
    second = hall.wait_doc(lambda d: d["at_ns"] > first["at_ns"], 10, "an idle frame")
    third = hall.wait_doc(lambda d: d["at_ns"] > second["at_ns"], 10, "another idle frame")
    assert third["at_ns"] - second["at_ns"] <= 2 * NS_PER_S
    assert hall.signal(signal.SIGTERM) == 0
