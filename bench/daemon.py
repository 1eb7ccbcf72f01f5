"""Benchmark: ``scoreboard run`` as a whole: cold start, CPU share and memory, loop iteration.

Every daemon here is a real ``scoreboard run --headless --mock-pins`` child process (SDL's
dummy video driver) with its own state directory and a ``NOTIFY_SOCKET`` of this process,
on which it sends READY=1 right after its first frame. No ``--state-file`` (that is a test's
view, not what a hall runs).

1. Cold start to first frame: ``--starts`` times, a fresh daemon on an empty state directory
   (the script's first line starts the clock): spawn -> READY=1; p50/p99/max, and the part
   inside the daemon from its log (``first frame ms_since_start``: building the daemon,
   journal, display, first frame; the rest is the interpreter and the imports). Baseline,
   interleaved: the bare interpreter (``python -c pass``, spawn -> exit), and the ratio.
   Also SIGTERM -> exit (stopping in order) of each daemon.
2. CPU share and resident memory over ``--minutes`` (default 5) at real time (time scale 1):
   the running game is youth-hockey-3x18 (line changes every 60 s with horns; the horn relay
   is switched by its own thread on mock pins) with a penalty and a goal every minute
   (minors end with the shift, a major every third minute). CPU share is utime + stime of
   ``/proc/<pid>/stat`` (every thread) over wall time, for the whole window and per minute;
   memory is VmRSS (at the start, the end and its largest sample, sampled every second) and
   VmHWM (the peak) from ``/proc/<pid>/status``. Baseline in the same run, side by side: an
   idle daemon (the same preset, no script: pregame, the clock stopped); the ratio shows
   what the running game costs.
3. Loop iteration time: the daemon does not report it, so two more daemons run alongside
   (the same running game, the same idle board) with the loop timed from outside its code:
   this file runs itself as the child (a hidden ``--child-loop-stats`` mode) and times
   ``Daemon.iterate``, subtracting the time its injected time source spent in ``sleep``,
   ``sleep_until`` and ``wait_until`` (the naps, the sleep until a frame's instant); the
   rest is the work:
   inputs, apply and journal (fsync), advance, draw, outputs. p50/p99/max, iterations and
   frames per second. The instrumented daemons' CPU share is printed too, to show the
   wrapper's own cost is small.

With ``--load`` every core is kept busy by a busy-loop process during 2 and 3.
A benchmark on real time, not a test: it always exits 0; its figures depend on the machine.

    python bench/daemon.py [--minutes 5] [--starts 20] [--load]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The bench is a folder of scripts, not a package: make the repo top importable.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpuload import busy_cores, ms, percentile, whole_number
from report import add_write_docs, run_writing_docs

ROOT = Path(__file__).resolve().parent.parent

PRESET = "youth-hockey-3x18"
CONFIG = f'[match]\npreset = "{PRESET}"\n'
CHILD_MODE = "--child-loop-stats"
READY_TIMEOUT_S = 60
FIRST_FRAME = re.compile(r'msg="first frame" ms_since_start=([0-9.]+)')
CLK_TCK = os.sysconf("SC_CLK_TCK")


# -- the instrumented child (part 3) ----------------------------------------------------------


def child_loop_stats(stats_path: str, cli_args: list[str]) -> int:
    """Run ``scoreboard run`` in this process with its loop iterations timed: each
    ``Daemon.iterate``'s duration minus the time its time source spent napping and waiting
    for instants (``TimeSource.sleep``, ``sleep_until`` and ``wait_until``). Writes
    ``{"work_ns": [...], "frames": n, "seconds": s}`` to ``stats_path`` when it stops."""
    from arena.timesource import SystemTime  # noqa: PLC0415
    from firmware_py.cli import build_parser, run_setup  # noqa: PLC0415
    from firmware_py.daemon import Daemon as Board  # noqa: PLC0415

    class MeteredTime(SystemTime):
        """The real clock, keeping count of the time spent waiting."""

        waited = 0

        def sleep(self, seconds: float) -> None:
            began = time.perf_counter_ns()
            super().sleep(seconds)
            self.waited += time.perf_counter_ns() - began

        def wait_until(self, deadline_ns: int, cancel: Any = None) -> int:
            began = time.perf_counter_ns()
            try:
                return super().wait_until(deadline_ns, cancel)
            finally:
                self.waited += time.perf_counter_ns() - began

        def sleep_until(self, deadline_ns: int, cancel: Any = None) -> int:
            began = time.perf_counter_ns()
            try:
                return super().sleep_until(deadline_ns, cancel)
            finally:
                self.waited += time.perf_counter_ns() - began

    metered = MeteredTime()
    work: list[int] = []

    class TimedBoard(Board):
        def iterate(self) -> None:
            metered.waited = 0
            began = time.perf_counter_ns()
            super().iterate()
            work.append(time.perf_counter_ns() - began - metered.waited)

    setup = run_setup(build_parser().parse_args(cli_args))
    if isinstance(setup, int):
        return setup
    board = TimedBoard(*setup, time=metered)
    began = time.monotonic()
    try:
        return board.run()
    finally:
        Path(stats_path).write_text(json.dumps({"work_ns": work, "frames": board.frame_count,
                                                "seconds": time.monotonic() - began}))


# -- daemons as child processes ---------------------------------------------------------------


def game_script(minutes: int) -> list[dict[str, Any]]:
    """A start, then each minute a penalty (minors end with the shift; a major every third
    minute) and a goal, alternating teams; line changes (horns) every 60 s by the preset."""
    lines: list[dict[str, Any]] = [{"t": 0, "do": "start"}]
    for minute in range(minutes + 1):
        team, other = ("home", "away") if minute % 2 == 0 else ("away", "home")
        kind = "major" if minute % 3 == 2 else "minor"
        lines.append({"t": minute * 60 + 20, "do": "penalty", "team": team,
                      "player": 4 + minute % 7, "kind": kind})
        lines.append({"t": minute * 60 + 45, "do": "goal", "team": other,
                      "player": 10 + minute % 5})
    return lines


class Daemon:
    """One ``scoreboard run`` in ``directory``: config, state, log, notify socket."""

    def __init__(self, directory: Path, script: list[dict[str, Any]] | None,
                 stats: bool = False) -> None:
        # Here, not at the top: the instrumented child (this file) need not import it.
        from recovery import Notified  # noqa: PLC0415

        self.dir = directory
        directory.mkdir(parents=True)
        config = directory / "scoreboard.toml"
        config.write_text(CONFIG)
        self.log = directory / "daemon.log"
        self.stats = directory / "loop.json" if stats else None
        self.notify = Notified(directory / "notify.sock")
        args = ["run", "--headless", "--mock-pins", "--config", str(config),
                "--state-dir", str(directory / "state")]
        if script is not None:
            path = directory / "script.jsonl"
            path.write_text("".join(json.dumps(line) + "\n" for line in script))
            args += ["--script", str(path)]
        if self.stats is not None:
            self.args = [sys.executable, str(Path(__file__).resolve()), CHILD_MODE,
                         str(self.stats), *args]
        else:
            self.args = [sys.executable, "-m", "firmware_py.cli", *args]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> int:
        """Spawn; wait for READY=1. Spawn -> READY=1 in ns."""
        env = {**os.environ, "NOTIFY_SOCKET": str(self.notify.path)}
        with open(self.log, "ab") as out:
            began = time.monotonic_ns()
            self.proc = subprocess.Popen(self.args, cwd=ROOT, stdout=out,
                                         stderr=subprocess.STDOUT, env=env)
        return self.notify.wait_ready(READY_TIMEOUT_S) - began

    def stop(self) -> tuple[int, int]:
        """SIGTERM; (exit code, SIGTERM -> exit in ns)."""
        assert self.proc is not None
        began = time.monotonic_ns()
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            code = -9
        return code, time.monotonic_ns() - began

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.notify.close()

    def daemon_ms(self) -> float:
        found = FIRST_FRAME.findall(self.log.read_text(errors="replace"))
        return float(found[-1]) if found else float("nan")

    def cpu_ticks(self) -> int:
        assert self.proc is not None
        stat = Path(f"/proc/{self.proc.pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        return int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)

    def memory_kib(self) -> dict[str, int]:
        assert self.proc is not None
        out = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
        return out


# -- 1. cold start ----------------------------------------------------------------------------


def bench_cold_start(top: Path, starts: int) -> None:
    ready: list[int] = []
    inside: list[float] = []
    stopping: list[int] = []
    bare: list[int] = []
    codes: set[int] = set()
    for k in range(starts):
        began = time.monotonic_ns()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.monotonic_ns() - began)
        daemon = Daemon(top / f"cold-{k}", [{"t": 0, "do": "start"}])
        try:
            ready.append(daemon.start())
            inside.append(daemon.daemon_ms())
            code, took = daemon.stop()
            codes.add(code)
            stopping.append(took)
        finally:
            daemon.kill()
            shutil.rmtree(daemon.dir, ignore_errors=True)
    base = percentile(bare, 50)
    print(f"1. cold start to first frame, {starts} starts (empty state directory):")
    print(f"  spawn -> READY=1                 p50 {ms(percentile(ready, 50))}  p99 "
          f"{ms(percentile(ready, 99))}  max {ms(max(ready))}  "
          f"{percentile(ready, 50) / base:.1f}x baseline")
    print(f"  of which in the daemon (its log) p50 {sorted(inside)[len(inside) // 2]:.1f} ms  "
          f"max {max(inside):.1f} ms (the rest: interpreter and imports)")
    print(f"  baseline: python -c pass         p50 {ms(base)}  p99 {ms(percentile(bare, 99))}")
    print(f"  SIGTERM -> exit (in order)       p50 {ms(percentile(stopping, 50))}  p99 "
          f"{ms(percentile(stopping, 99))}; exit codes {sorted(codes)}")


# -- 2 and 3. a running game over minutes -----------------------------------------------------


def share(ticks: int, seconds: float) -> float:
    return 100.0 * ticks / CLK_TCK / seconds


def bench_running(top: Path, minutes: int, load: bool) -> None:
    script = game_script(minutes)
    daemons = {
        "running": Daemon(top / "running", script),
        "idle": Daemon(top / "idle", None),
        "running, loop timed": Daemon(top / "running-timed", script, stats=True),
        "idle, loop timed": Daemon(top / "idle-timed", None, stats=True),
    }
    try:
        for daemon in daemons.values():
            daemon.start()
        with busy_cores(load) as workers:
            print(f"2. a running game over {minutes} min at real time ({PRESET}: line changes "
                  f"with horns every 60 s, a penalty and a goal a minute), load: "
                  f"{f'{workers} busy-loop processes' if workers else 'none'}")
            first = {name: d.cpu_ticks() for name, d in daemons.items()}
            rss: dict[str, list[int]] = {name: [] for name in daemons}
            minute_ticks: dict[str, list[int]] = {name: [] for name in daemons}
            last = dict(first)
            began = time.monotonic()
            for second in range(1, minutes * 60 + 1):
                time.sleep(max(0.0, began + second - time.monotonic()))
                for name, daemon in daemons.items():
                    rss[name].append(daemon.memory_kib()["VmRSS"])
                if second % 60 == 0:
                    for name, daemon in daemons.items():
                        now_ticks = daemon.cpu_ticks()
                        minute_ticks[name].append(now_ticks - last[name])
                        last[name] = now_ticks
            wall = time.monotonic() - began
            total = {name: last[name] - first[name] for name in daemons}
            peak = {name: d.memory_kib()["VmHWM"] for name, d in daemons.items()}
        for name in ("running", "idle"):
            per_minute = " ".join(f"{share(t, 60):.2f}" for t in minute_ticks[name])
            print(f"  {name:8} CPU {share(total[name], wall):5.2f} % of a core (per minute: "
                  f"{per_minute} %); VmRSS {rss[name][0] / 1024:.1f} -> {rss[name][-1] / 1024:.1f}"
                  f" MiB (largest {max(rss[name]) / 1024:.1f}), VmHWM {peak[name] / 1024:.1f} MiB")
        idle_share = share(total["idle"], wall)
        ratio = share(total["running"], wall) / idle_share if idle_share else float("inf")
        print(f"  running / idle CPU: {ratio:.1f}x  (baseline: the idle daemon, pregame, clock "
              "stopped)")
        timed = {name: share(total[name], wall) for name in daemons if "timed" in name}
        print("  the loop-timed daemons (part 3): " + ", ".join(
            f"{name} {value:.2f} %" for name, value in timed.items()))
    finally:
        codes = {}
        for name, daemon in daemons.items():
            if daemon.proc is not None and daemon.proc.poll() is None:
                codes[name] = daemon.stop()[0]
            daemon.kill()
    print(f"3. loop iteration time, work excluding waits (SIGTERM exit codes: "
          f"{sorted(set(codes.values()))}):")
    baseline: int | None = None
    for name in ("idle, loop timed", "running, loop timed"):
        stats_path = daemons[name].stats
        assert stats_path is not None
        try:
            stats = json.loads(stats_path.read_text())
        except (OSError, ValueError):
            print(f"  {name}: no stats written")
            continue
        work: list[int] = stats["work_ns"]
        seconds = stats["seconds"]
        p50 = percentile(work, 50)
        ratio = f"  {p50 / baseline:.1f}x idle" if baseline else ""
        print(f"  {name:20} p50 {ms(p50)}  p99 {ms(percentile(work, 99))}  max {ms(max(work))}"
              f"{ratio}; {len(work) / seconds:.1f} iterations/s, {stats['frames'] / seconds:.2f}"
              f" frames/s over {seconds:.0f} s")
        baseline = baseline or p50


def header() -> None:
    print("bench/daemon.py: scoreboard run, headless (a benchmark, not a test)")
    print(f"machine   {platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
          f"{platform.release()}; Python {platform.python_version()}")
    if platform.machine() not in ("aarch64", "armv7l", "armv6l"):
        print(f"          NOT a Raspberry Pi ({platform.machine()}): absolute figures will "
              "be higher on a Pi")
    print("          SDL dummy video driver: the screen update's real cost (kmsdrm) is not "
          "included; mock pins")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=whole_number(120), default=5,
                   help="length of the running-game measurement (2 and 3), default 5")
    p.add_argument("--starts", type=whole_number(1000), default=20,
                   help="cold starts (1), default 20")
    p.add_argument("--load", action="store_true",
                   help="keep every core busy with a busy-loop process during 2 and 3")
    add_write_docs(p)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [CHILD_MODE]:
        return child_loop_stats(argv[1], argv[2:])
    args = parse_args(argv)
    header()
    top = Path(tempfile.mkdtemp(prefix="bench-daemon-"))
    try:
        bench_cold_start(top, args.starts)
        bench_running(top, args.minutes, args.load)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "daemon"))
