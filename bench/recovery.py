"""Benchmark: restart time of ``scoreboard run`` from SIGKILL to the first correct frame.

Each hall is a real ``scoreboard run --headless --mock-pins`` child process (its own state
directory, ``--state-file``, and a ``NOTIFY_SOCKET`` of this process: the daemon sends READY=1
right after its first frame is drawn and written), playing a generated script on
ice-hockey-2x20 at real time (time scale 1): a start, then ``n - 1`` more commands 5 ms apart
(goals, clock stops and starts; the clock left running), so its journal holds ``n``
journalled commands (plus their events and the daemon's own records) before the kills begin.
One hall per ``--lengths`` value (default 10, 100 and 1000 commands).

A kill: SIGKILL, reap, start again at once with the same state directory and script (the
same boot: the running clock must resume where the game is), then wait for READY=1. The
time is taken from just before the SIGKILL to READY=1 received. The frame is then checked:
the state file's document (written by the new process: ``at_ns`` after the kill) must equal
a reference replay of the script up to that instant (tests/daemon/conftest.py), every key
equal but the countdowns, which may differ by one frame (1 s at time scale 1). A wrong
frame is counted and printed. From the daemon's log, the part spent inside the daemon
(``first frame ms_since_start``: from building the daemon, after the interpreter and imports,
through the journal's replay to the first frame) is shown beside it.

Baseline in the same run, interleaved with the kills: a cold start of a fresh daemon on an
empty state directory (no journal to replay; the same script's first line starts the clock),
spawn -> READY=1. The ratio of the p50s shows what replaying the journal costs; the rows for
10, 100 and 1000 commands show how it grows with the journal.

With ``--load`` every core is kept busy by a busy-loop process during the measurement.
A benchmark on real time, not a test: it always exits 0; its figures depend on the machine.

    python bench/recovery.py [--kills 30] [--lengths 10,100,1000] [--load]
"""

from __future__ import annotations

import argparse
import os
import platform
import queue
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# The bench is a folder of scripts, not a package: make the repo top importable.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpuload import busy_cores, ms, percentile, whole_number
from report import add_write_docs, run_writing_docs

from arena.core.values import MatchSetup
from firmware_py.script import ScriptLine, parse_script
from tests.daemon.conftest import (
    Hall,
    frame_differences,
    reference_state,
    script_origin,
    write_script,
)

PRESET = "ice-hockey-2x20"
SETUP = MatchSetup()  # the config's match: M1, group stage, Home v Away
CONFIG = f'[match]\npreset = "{PRESET}"\n'
GAP_S = 0.005  # between two generated commands (match time = real time here)
FRAME_MS = 1000  # one frame at time scale 1: the clock shows whole seconds above a minute
READY_TIMEOUT_S = 60
FIRST_FRAME = re.compile(r'msg="first frame" ms_since_start=([0-9.]+)')


def generated_script(commands: int) -> list[dict[str, Any]]:
    """A start, then goals, stops and starts, ``commands`` in all; the clock ends running."""
    cycle = [{"do": "goal", "team": "home", "player": 9}, {"do": "stop"}, {"do": "start"},
             {"do": "goal", "team": "away", "player": 11}]
    lines: list[dict[str, Any]] = [{"t": 0, "do": "start"}]
    for i in range(1, commands):
        lines.append({"t": round(i * GAP_S, 3), **cycle[(i - 1) % len(cycle)]})
    if lines[-1]["do"] == "stop":
        lines[-1] = {"t": lines[-1]["t"], "do": "goal", "team": "home", "player": 9}
    return lines


class Notified:
    """A datagram socket standing in for systemd's, read all the time by a thread (an unread
    socket fills after net.unix.max_dgram_qlen datagrams and then blocks the daemon's
    STATUS= sends); the instants READY=1 arrived are queued."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.ready: queue.SimpleQueue[int] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._read, name=f"notify {path}", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            try:
                message = self.sock.recv(4096)
            except OSError:
                return  # closed
            if message.startswith(b"READY=1"):
                self.ready.put(time.monotonic_ns())

    def drain(self) -> None:
        """Forget the READY=1 seen so far."""
        while not self.ready.empty():
            self.ready.get_nowait()

    def wait_ready(self, timeout_s: float) -> int:
        """The monotonic_ns at which the next READY=1 arrived."""
        try:
            return self.ready.get(timeout=timeout_s)
        except queue.Empty:
            raise SystemExit(f"no READY=1 within {timeout_s} s ({self.path})") from None

    def close(self) -> None:
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self.thread.join(5)


class Board:
    """A hall with its script, its notify socket and its environment."""

    def __init__(self, directory: Path, lines: list[dict[str, Any]]) -> None:
        self.hall = Hall(directory, CONFIG)
        self.script = write_script(directory / "script.jsonl", lines)
        self.lines: list[ScriptLine] = parse_script(self.script.read_text(), str(self.script))
        self.notify = Notified(directory / "notify.sock")
        self.env = {"NOTIFY_SOCKET": str(self.notify.path)}
        self.origin = 0

    def start(self) -> int:
        """Start the daemon and wait for its first frame: spawn -> READY=1 in ns."""
        self.notify.drain()
        began = time.monotonic_ns()
        self.hall.start("--script", str(self.script), env=self.env)
        return self.notify.wait_ready(READY_TIMEOUT_S) - began

    def kill_and_restart(self) -> int:
        """SIGKILL, reap, start again: kill -> READY=1 in ns."""
        proc = self.hall.proc
        assert proc is not None
        self.notify.drain()
        began = time.monotonic_ns()
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        self.hall.start("--script", str(self.script), env=self.env)
        return self.notify.wait_ready(READY_TIMEOUT_S) - began

    def check_frame(self, after_ns: int) -> str | None:
        """None if the state file holds a frame of the new process equal to the reference;
        else what is wrong."""
        doc = self.hall.doc()
        if doc is None or doc["at_ns"] <= after_ns:
            return "no frame of the new process in the state file at READY=1"
        expected, _ = reference_state(PRESET, SETUP, self.lines, self.origin, doc["at_ns"])
        same, differ = frame_differences(doc, expected)
        if not same or any(abs(d) > FRAME_MS for d in differ.values()):
            return f"frame differs from the reference: {doc} != {expected}"
        return None

    def daemon_ms(self) -> float:
        """The last start's ``first frame ms_since_start`` from the log."""
        found = FIRST_FRAME.findall(self.hall.log_text())
        return float(found[-1]) if found else float("nan")

    def wait_filled(self, commands: int, timeout_s: float = 120) -> None:
        """Until every generated line is journalled (the origin known, the clock running)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.hall.check_alive()
            records = self.hall.records() if (self.hall.state_dir / "M1.journal").exists() else []
            if sum(1 for r in records if "script" in r and r.get("type") == "command") \
                    >= commands:
                self.origin = script_origin(records)
                return
            time.sleep(0.05)
        raise SystemExit(f"the hall did not journal {commands} commands in {timeout_s} s")

    def journal_size(self) -> tuple[int, int]:
        path = self.hall.state_dir / "M1.journal"
        return len(self.hall.records()), path.stat().st_size

    def close(self) -> None:
        self.hall.stop()
        self.notify.close()


def header(kills: int, lengths: list[int], workers: int) -> None:
    print("bench/recovery.py: scoreboard run, SIGKILL -> first correct frame (a benchmark, "
          "not a test)")
    print(f"machine   {platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
          f"{platform.release()}; Python {platform.python_version()}")
    print(f"game      {PRESET} at real time, headless, mock pins; {kills} kills per journal "
          f"length {', '.join(map(str, lengths))}; READY=1 via NOTIFY_SOCKET after the first "
          "frame")
    print(f"load      {workers} busy-loop processes (one per core)" if workers
          else "load      none (--load to keep every core busy)")


def row(label: str, values: list[int], daemon: list[float], base_p50: int | None) -> None:
    p50 = percentile(values, 50)
    ratio = f"  {p50 / base_p50:.2f}x baseline" if base_p50 else ""
    inside = sorted(daemon)[len(daemon) // 2] if daemon else float("nan")
    print(f"  {label:42} p50 {ms(p50)}  p99 {ms(percentile(values, 99))}  max "
          f"{ms(max(values))}{ratio}  (in the daemon p50 {inside:.1f} ms)")


def run(kills: int, lengths: list[int], load: bool) -> None:
    top = Path(tempfile.mkdtemp(prefix="bench-recovery-"))
    boards: dict[int, Board] = {}
    cold: list[int] = []
    cold_daemon: list[float] = []
    restarts: dict[int, list[int]] = {n: [] for n in lengths}
    inside: dict[int, list[float]] = {n: [] for n in lengths}
    wrong: list[str] = []
    try:
        for n in lengths:
            board = Board(top / f"hall-{n}", generated_script(n))
            board.start()
            board.wait_filled(n)
            boards[n] = board
        sizes = {n: boards[n].journal_size() for n in lengths}
        with busy_cores(load) as workers:
            header(kills, lengths, workers)
            for k in range(kills):
                fresh = Board(top / f"cold-{k}", generated_script(1))
                try:
                    cold.append(fresh.start())
                    cold_daemon.append(fresh.daemon_ms())
                finally:
                    fresh.close()
                    shutil.rmtree(fresh.hall.dir, ignore_errors=True)
                for n in lengths:
                    board = boards[n]
                    killed_at = time.monotonic_ns()
                    restarts[n].append(board.kill_and_restart())
                    inside[n].append(board.daemon_ms())
                    problem = board.check_frame(killed_at)
                    if problem is not None:
                        wrong.append(f"{n} commands, kill {k + 1}: {problem}")
        base = percentile(cold, 50)
        print(f"restart time, SIGKILL -> READY=1 (first frame drawn), {kills} times each:")
        row("baseline: cold start, empty state", cold, cold_daemon, None)
        for n in lengths:
            records, size = sizes[n]
            row(f"after {n} commands ({records} records, {size // 1024} KiB)", restarts[n],
                inside[n], base)
        total = kills * len(lengths)
        print(f"frames checked against the reference replay: {total - len(wrong)} of {total} "
              "correct")
        for problem in wrong:
            print(f"  WRONG: {problem}")
    finally:
        for board in boards.values():
            board.close()
        shutil.rmtree(top, ignore_errors=True)


def lengths_arg(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"a comma-separated list of whole numbers, got "
                                         f"{text!r}") from err
    if not values or any(v < 1 or v > 100_000 for v in values):
        raise argparse.ArgumentTypeError(f"each length must be 1..100000, got {text!r}")
    return values


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kills", type=whole_number(1000), default=30,
                   help="kills per journal length, and cold starts of the baseline (default 30)")
    p.add_argument("--lengths", type=lengths_arg, default=[10, 100, 1000],
                   help="journalled commands before the kills, one hall each (default "
                        "10,100,1000)")
    p.add_argument("--load", action="store_true",
                   help="keep every core busy with a busy-loop process while measuring")
    add_write_docs(p)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    run(args.kills, args.lengths, args.load)
    return 0


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "recovery"))
