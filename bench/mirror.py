"""Benchmark: how far apart are the hall's board and its second board at the same instant?

Runs a private mosquitto on 127.0.0.1, ``scoreboard run`` (headless, mock pins) playing a
clock set to 1:05 and started, so that the last minute is shown in tenths, and
``scoreboard run --mirror`` of that hall on the same machine; both write each frame's state
document (``--state-file``). This process reads both files at the same instants (every
``--poll-ms``) and takes the difference of the clocks they show, in ms of game time.

The baseline, in the same process over the same interval: a board fed the received ticks
(what the hall publishes, shown as it arrives: the running clock once a second), i.e. what
the mirror would show without the anchor. Printed: p50/p99/max of |difference| for both,
and the mirror's p99 as a ratio of the baseline's. One frame of the clock is 100 ms (a
tenth): the mirror's p99 must be within it. The LAN case (another machine, wall clocks by
NTP) adds the two wall clocks' disagreement: docs/technician.md, "A second board".

    python bench/mirror.py [--seconds 20] [--poll-ms 2] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpuload import percentile
from mqtt_e2e import start_broker
from report import add_write_docs, run_writing_docs

from firmware_py.loopback import free_port
from firmware_py.mqtt import MirrorLink

ROOT = Path(__file__).resolve().parent.parent
FRAME_MS = 100  # one shown tenth
TENTHS_BELOW_MS = 60_000  # the preset's (floorball-2x15)
T, HALL = "bench", "hall-a"


def config(port: int) -> str:
    return (f'[match]\npreset = "floorball-2x15"\nid = "M1"\n\n[mqtt]\n'
            f'broker = "mqtt://127.0.0.1:{port}"\ntournament = "{T}"\nhall = "{HALL}"\n')


def read(path: Path) -> dict[str, Any] | None:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return None


def shown_ms(doc: dict[str, Any]) -> int:
    """The clock as the board shows it (display/values.py): rounded up to the tenth in the
    last minute, to the second above it. A frame drawn when a state arrives carries the
    exact remaining time, but shows what the others show."""
    tenths = -(-int(doc["clock_ms"]) // FRAME_MS) * FRAME_MS
    return tenths if tenths < TENTHS_BELOW_MS else -(-tenths // 1000) * 1000


def run(work: Path, seconds: float, poll_ms: float) -> tuple[list[int], list[int]]:
    port = free_port()
    broker = start_broker(work, port)
    hall_dir, mirror_dir = work / "hall", work / "mirror"
    hall_dir.mkdir()
    mirror_dir.mkdir()
    (work / "scoreboard.toml").write_text(config(port))
    (work / "s.jsonl").write_text('{"t": 1, "do": "set_clock", "ms": 65000}\n'
                                  '{"t": 1.5, "do": "start"}\n')
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    common = [sys.executable, "-m", "firmware_py.cli", "run", "--headless",
              "--config", str(work / "scoreboard.toml")]
    procs = [subprocess.Popen([*common, "--mock-pins", "--state-dir", str(hall_dir / "state"),
                               "--state-file", str(hall_dir / "s.json"),
                               "--script", str(work / "s.jsonl")], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
             subprocess.Popen([*common, "--mirror", HALL,
                               "--state-file", str(mirror_dir / "s.json")], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    ticks = MirrorLink("127.0.0.1", port, T, HALL, client_id="bench-ticks")
    ticks.start()
    tick: dict[str, Any] | None = None
    mirror_diff: list[int] = []
    tick_diff: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until both show the running clock
            a, b = read(hall_dir / "s.json"), read(mirror_dir / "s.json")
            if a and b and a["running"] and b["running"]:
                break
            time.sleep(0.05)
        else:
            raise SystemExit("the boards did not start")
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for kind, value in ticks.pump():
                if kind == "state" and value:
                    tick = value
            a, b = read(hall_dir / "s.json"), read(mirror_dir / "s.json")
            if a and b and a["running"]:
                mirror_diff.append(abs(shown_ms(a) - shown_ms(b)))
                if tick is not None:
                    tick_diff.append(abs(shown_ms(a) - shown_ms(tick)))
            time.sleep(poll_ms / 1000)
    finally:
        ticks.close()
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        broker.terminate()
        broker.wait(10)
    return mirror_diff, tick_diff


def figures(name: str, diffs: list[int]) -> str:
    return (f"{name:<28} p50 {percentile(diffs, 50):>4} ms  p99 {percentile(diffs, 99):>4} ms"
            f"  max {max(diffs):>4} ms  (n={len(diffs)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="how long to compare the boards (the clock shows tenths "
                             "for 60 s); default 20")
    parser.add_argument("--poll-ms", type=float, default=2.0,
                        help="read both boards' state files this often; default 2")
    add_write_docs(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mirror_diff, tick_diff = run(Path(tmp), args.seconds, args.poll_ms)
    if not mirror_diff or not tick_diff:
        print("no samples: did the boards run?")
        return 1
    print("|hall's shown clock - second board's| at the same instant, same machine")
    print(figures("mirror (the hall's anchor)", mirror_diff))
    print(figures("baseline (received ticks)", tick_diff))
    ratio = percentile(mirror_diff, 99) / max(1, percentile(tick_diff, 99))
    print(f"p99 ratio mirror/baseline: {ratio:.3f}")
    ok = percentile(mirror_diff, 99) <= FRAME_MS
    print(f"{'PASS' if ok else 'FAIL'}: mirror p99 within one frame ({FRAME_MS} ms)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "mirror"))
