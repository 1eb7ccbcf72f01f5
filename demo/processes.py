"""The demo's child processes: every one is started here and stopped by its own pid.

A child's output goes to its log file (kept in the work dir for people to read, and its end
quoted when something fails); the demo reads no meaning from it.
"""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from arena.timesource import SYSTEM, monotonic_s
from demo.configs import mosquitto_config
from demo.tournaments import REPO, DemoError
from firmware_py.loopback import free_port, port_open

STOP_WAIT_S = 5.0  # after SIGTERM, before SIGKILL
TAIL_LINES = 25


class Printer:
    """Lines from several threads onto one stream, whole lines only."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.lock = threading.Lock()

    def __call__(self, text: str = "") -> None:
        with self.lock:
            print(text, file=self.out, flush=True)


@dataclass
class Child:
    """A process the demo started: its output goes to a log file, and with ``echo`` also
    to the demo's output, each line behind ``echo_prefix`` (``--verbose``)."""

    name: str
    argv: list[str]
    log: Path
    echo: Callable[[str], None] | None = None
    echo_prefix: str = ""
    env: Mapping[str, str] | None = None
    proc: subprocess.Popen[str] | None = None
    tail: collections.deque[str] = field(default_factory=lambda: collections.deque(
        maxlen=TAIL_LINES))
    _reader: threading.Thread | None = None

    def start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        # A session of its own: a Ctrl-C in the terminal reaches the demo only, which then
        # stops its children in order (halls first, the broker last).
        self.proc = subprocess.Popen(
            self.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            text=True, encoding="utf-8", errors="replace", bufsize=1, cwd=REPO,
            env=dict(self.env) if self.env is not None else None, start_new_session=True)
        self._reader = threading.Thread(target=self._read, name=f"demo-{self.name}",
                                        daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        with self.proc.stdout as stream, self.log.open("a", encoding="utf-8") as log:
            for raw in stream:
                line = raw.rstrip("\n")
                log.write(line + "\n")
                log.flush()
                self.tail.append(line)
                if self.echo is not None:
                    self.echo(f"{self.echo_prefix}{line}")

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def poll(self) -> int | None:
        return self.proc.poll() if self.proc is not None else None

    def finish_output(self, timeout: float = 2.0) -> None:
        """Wait for the reader to pass on the last lines of an exited process."""
        if self._reader is not None:
            self._reader.join(timeout)

    def stop(self) -> int | None:
        """SIGTERM, then SIGKILL if it has not gone after ``STOP_WAIT_S``: only this pid."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGTERM)
                self.proc.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(STOP_WAIT_S)
            except ProcessLookupError:
                pass
        self.finish_output()
        return self.proc.returncode

    def tail_text(self) -> str:
        lines = list(self.tail)
        if not lines and self.log.exists():
            lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        return "\n".join(f"    {line}" for line in lines[-TAIL_LINES:]) or "    (no output)"


class Broker:
    """A private mosquitto on a free 127.0.0.1 port, its config and log in ``folder``."""

    def __init__(self, binary: str, folder: Path) -> None:
        self.port = free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        folder.mkdir(parents=True, exist_ok=True)
        self.config = folder / "mosquitto.conf"
        self.config.write_text(mosquitto_config(self.port, folder / "mosquitto.log",
                                                as_root=os.geteuid() == 0), encoding="utf-8")
        self.child = Child("mosquitto", [binary, "-c", str(self.config)],
                           folder / "mosquitto.out")

    def start(self, timeout: float = 10.0) -> None:
        self.child.start()
        deadline = monotonic_s() + timeout
        while not port_open(self.port):
            if self.child.poll() is not None:
                self.child.finish_output()
                log = self.config.with_name("mosquitto.log")
                text = log.read_text(errors="replace") if log.exists() else ""
                raise DemoError(f"mosquitto exited at once (code {self.child.poll()}):\n"
                                f"{self.child.tail_text()}\n{text}")
            if monotonic_s() > deadline:
                raise DemoError(f"mosquitto did not listen on 127.0.0.1:{self.port} "
                                f"within {timeout:g} s")
            SYSTEM.sleep(0.05)  # mosquitto binds within milliseconds; poll, do not spin

    def stop(self) -> None:
        self.child.stop()


@dataclass
class HallRuns:
    """One hall of the demo: its ``scoreboard run`` processes, played one after the other
    (one with the office; one a match without it)."""

    name: str
    runs: list[Child]
    current: int = -1
    failed: Child | None = None

    @property
    def child(self) -> Child | None:
        return self.runs[self.current] if 0 <= self.current < len(self.runs) else None

    def step(self) -> bool:
        """Start the next run if the current one ended well; True once all are done."""
        child = self.child
        if child is not None:
            code = child.poll()
            if code is None:
                return False
            child.finish_output()
            if code != 0:
                self.failed = child
                return True
        if self.current + 1 >= len(self.runs):
            return True
        self.current += 1
        self.runs[self.current].start()
        return False

    def stop(self) -> None:
        child = self.child
        if child is not None:
            child.stop()
