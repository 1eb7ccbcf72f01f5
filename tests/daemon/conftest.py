"""Helpers for the daemon tests: ``scoreboard run`` as a child process, headless, mock pins.

The tests observe it through ``--state-file`` (each frame's document with ``at_ns``, the
instant it was computed for), its journal and its key=value log; they wait for conditions
with bounded polling, never a fixed sleep.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena import presets
from arena.core.events import Event
from arena.core.match import Match, feed
from arena.core.state import state_document
from arena.core.values import MatchSetup
from firmware_py.journal import Record, scan
from firmware_py.script import ScriptLine
from tests.fixtures import wait_for

ROOT = Path(__file__).resolve().parents[2]


def write_script(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


class Hall:
    """One ``scoreboard run`` in ``directory`` (state dir, state file, log, config)."""

    def __init__(self, directory: Path, config: str = "") -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.state_dir = directory / "state"
        self.state_file = directory / "state.json"
        self.log = directory / "hall.log"
        self.config = directory / "scoreboard.toml"
        self.config.write_text(config)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, *extra: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        assert self.proc is None or self.proc.poll() is not None
        args = [sys.executable, "-m", "firmware_py.cli", "run", "--headless", "--mock-pins",
                "--config", str(self.config), "--state-dir", str(self.state_dir),
                "--state-file", str(self.state_file), *extra]
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                         env={**os.environ, **(env or {})})
        return self.proc

    def doc(self) -> dict[str, Any] | None:
        try:
            return dict(json.loads(self.state_file.read_text()))
        except (OSError, ValueError):
            return None

    def wait_doc(self, condition: Callable[[dict[str, Any]], bool], timeout: float,
                 what: str) -> dict[str, Any]:
        found: list[dict[str, Any]] = []

        def check() -> bool:
            doc = self.doc()
            if doc is not None and condition(doc):
                found.append(doc)
                return True
            self.check_alive()
            return False

        wait_for(check, timeout, what)
        return found[-1]

    def check_alive(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            raise AssertionError(f"scoreboard run exited with {self.proc.returncode}:\n"
                                 f"{self.log_text()}")

    def signal(self, sig: int = signal.SIGTERM, timeout: float = 20) -> int:
        assert self.proc is not None
        self.proc.send_signal(sig)
        return self.proc.wait(timeout)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def wait_exit(self, timeout: float) -> int:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired as err:
            self.proc.kill()
            raise AssertionError(f"still running after {timeout} s:\n{self.log_text()}") \
                from err

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def log_lines(self, msg: str) -> list[str]:
        return [line for line in self.log_text().splitlines() if f"msg={msg} " in line
                or f'msg="{msg}"' in line]

    def records(self, match: str = "M1") -> list[Record]:
        path = self.state_dir / f"{match}.journal"
        return scan(path.read_bytes(), str(path)).records

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def script_origin(records: list[Record]) -> int:
    return next(int(r["origin"]) for r in records if r.get("type") == "script")


# -- a reference replay of a script, to compare the daemon's frames with (test_kills.py and
#    bench/recovery.py) -----------------------------------------------------------------------

COUNTDOWNS = ("clock_ms", "shift_ms", "remaining_ms")  # the keys of a state document that count


def reference_state(preset: str, setup: MatchSetup, lines: list[ScriptLine], origin: int,
                    at_ns: int, *, drained: int | None = None) -> tuple[dict[str, Any],
                                                                   list[Event]]:
    """What ``scoreboard replay`` computes: a fresh match fed the script lines due by
    ``at_ns`` (line i at ``origin + t_i``), advanced to ``at_ns``; its state document there
    and every event until then.

    ``drained`` (<= ``at_ns``): what the daemon shows when it took its inputs and advanced
    at ``drained`` and then drew a frame for ``at_ns`` a little later: lines and deadlines
    up to ``drained`` only, the document still computed for ``at_ns``."""
    until = at_ns if drained is None else drained
    match = Match(presets.load(preset), setup)
    events: list[Event] = []
    for line in lines:
        at = origin + line.t
        if at > until:
            break
        events += feed(match, replace(line.command, at=at)).events
    events += match.advance(until)
    return state_document(match, at_ns), events


def split_countdowns(value: Any, path: str = "") -> tuple[Any, dict[str, int]]:
    """``value`` with each countdown replaced by a marker, and the countdowns by path."""
    found: dict[str, int] = {}
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            here = f"{path}.{key}"
            if key in COUNTDOWNS and isinstance(item, int):
                out[key] = "countdown"
                found[here] = item
            else:
                out[key], more = split_countdowns(item, here)
                found.update(more)
        return out, found
    if isinstance(value, list):
        listed = []
        for index, item in enumerate(value):
            plain, more = split_countdowns(item, f"{path}[{index}]")
            listed.append(plain)
            found.update(more)
        return listed, found
    return value, found


def frame_differences(doc: dict[str, Any], expected: dict[str, Any]) -> tuple[bool,
                                                                              dict[str, int]]:
    """A daemon frame (``--state-file``: with ``at_ns`` and ``restored``) against a reference
    document: (every key but the countdowns equal, the countdowns that differ: path -> daemon
    minus reference, ms). ``restored`` is compared with False (no power loss)."""
    got = {k: v for k, v in doc.items() if k not in ("at_ns", "restored")}
    plain, counts = split_countdowns(got)
    ref_plain, ref_counts = split_countdowns(expected)
    same = plain == ref_plain and counts.keys() == ref_counts.keys() and not doc.get("restored")
    return same, {k: v - ref_counts[k] for k, v in counts.items()
                  if k in ref_counts and v != ref_counts[k]}
