"""``scoreboard demo``: a whole little tournament day on one machine, in under a minute.

Two tournaments from two rule documents (``examples/demo/hockey.toml``, rules 000, and
``examples/demo/football.toml``, rules 003), each one group of three teams in one hall. The
demo starts a private mosquitto on a free loopback port (if mosquitto is installed), one
``office serve`` per tournament, and two halls: ``scoreboard run`` daemons with mock pins,
each playing the timekeeper's script (``examples/demo/<tournament>/<match>.jsonl``) of its
first match (in its config) and of every later one the office sends it as ``next``, on a
clock that runs ``--time-scale`` times real time. The halls show their displays in windows
where there is a screen (else headless), draw a PNG at every phase change and log every
state change, which the demo prints with the hall's name in front. At the end it prints
the group tables the offices computed and stops everything it started (by pid).

Without mosquitto the halls play alone: each match is one daemon run with the match in its
config, and there are no tables.

``scoreboard demo --examples`` is the older, smaller demo kept below: it narrates the
example games of ``examples/replay/`` through the core, with no processes at all.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from display.snapshot import snapshot
from firmware_py import presets
from firmware_py.core.events import Event, EventKind
from firmware_py.core.match import Match, feed
from firmware_py.core.phase import Stage
from firmware_py.core.state import state_document
from firmware_py.core.units import NS_PER_S
from firmware_py.core.values import MatchSetup, TeamInfo
from firmware_py.loopback import find_mosquitto, free_port, port_open
from firmware_py.script import parse_script
from office.files import load_tournament

REPO = Path(__file__).resolve().parent.parent
DEMO_DIR = REPO / "examples" / "demo"
EXAMPLES_DIR = REPO / "examples" / "replay"
# The demo's tournaments, in the order they are started and printed: file stem = the folder
# of its scripts.
DEMO_TOURNAMENTS = ("hockey", "football")

DEFAULT_TIME_SCALE = 30.0
DEFAULT_TIMEOUT_S = 120.0
MARKER = ".scoreboard-demo"  # marks a folder as a demo's work dir (safe to clean on reuse)
NO_MOSQUITTO = ("mosquitto is not installed (sudo apt install mosquitto): "
                "the halls play without the office")
WINDOW_SIZE = (960, 540)  # two halls side by side on a desktop
SNAPSHOT_SIZE = (1280, 720)  # headless: the PNGs
STOP_WAIT_S = 5.0  # after SIGTERM, before SIGKILL
TAIL_LINES = 25


class DemoError(Exception):
    """Something the demo cannot go on without; the message says what."""


# ---------------------------------------------------------------------------------------
# What is played


@dataclass(frozen=True)
class DemoMatch:
    id: str
    preset: str
    stage: str  # the hall's stage: "group" or "playoff"
    home: str
    away: str
    home_colours: tuple[str, str] | None = None  # shirt and number, from the tournament file
    away_colours: tuple[str, str] | None = None


@dataclass(frozen=True)
class DemoTournament:
    """One tournament of the demo: its file, its scripts and its one hall."""

    key: str  # "hockey": the file's stem and its scripts' folder
    file: Path
    scripts: Path
    id: str
    name: str
    hall: str
    matches: tuple[DemoMatch, ...]
    tiebreak: tuple[str, ...] = ()  # two teams level on points: the criteria, in order
    protest_window_min: int = 0

    def script(self, match: str) -> Path:
        return self.scripts / f"{match}.jsonl"


def load_demo_tournaments(folder: Path = DEMO_DIR,
                          keys: Sequence[str] = DEMO_TOURNAMENTS) -> list[DemoTournament]:
    """The demo's tournaments, checked: one hall each, a script for every match, and no
    two tournaments in the same hall."""
    loaded: list[DemoTournament] = []
    for key in keys:
        path = folder / f"{key}.toml"
        t = load_tournament(path)
        halls = t.halls()
        if len(halls) != 1:
            raise DemoError(f"{path}: the demo plays each tournament in one hall, "
                            f"this one has {len(halls)}: {', '.join(halls)}")
        colours = {name: (team.colours[0], team.colours[1])
                   for name, team in t.teams.items() if team.colours}
        matches = tuple(
            DemoMatch(m.id, m.preset, "playoff" if m.stage.decided else "group",
                      m.home.label(), m.away.label(), colours.get(m.home.label()),
                      colours.get(m.away.label()))
            for m in t.matches)
        demo = DemoTournament(key, path, folder / key, t.id, t.name, halls[0], matches,
                              tuple(c.value.replace("_", " ") for c in t.rules.tiebreak),
                              t.rules.protest_window_s // 60)
        missing = [m.id for m in matches if not demo.script(m.id).is_file()]
        if missing:
            raise DemoError(f"{path}: no timekeeper's script for {', '.join(missing)} "
                            f"(expected {demo.scripts}/<match id>.jsonl)")
        loaded.append(demo)
    used = [d.hall for d in loaded]
    if len(set(used)) != len(used):
        raise DemoError(f"two demo tournaments share a hall: {', '.join(used)}")
    return loaded


# ---------------------------------------------------------------------------------------
# Configuration of the pieces


def display_mode(headless: bool, environ: Mapping[str, str]) -> str:
    """Windows where a screen exists (X11 or Wayland), else headless; --headless forces it."""
    if headless:
        return "headless"
    return "windowed" if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY") else "headless"


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def _toml(tables: Mapping[str, Mapping[str, object]]) -> str:
    out: list[str] = []
    for name, table in tables.items():
        out.append(f"[{name}]")
        out += [f"{key} = {_toml_value(value)}" for key, value in table.items()]
        out.append("")
    return "\n".join(out)


def hall_config(hall: str, *, state_dir: Path, display: str,
                size: tuple[int, int], broker: str | None, tournament: str | None,
                match: DemoMatch | None = None, log_level: str = "info") -> str:
    """The TOML config of one demo hall (``scoreboard run --config``): mock pins, its own
    state folder, the display mode and size, the match it plays first (``match``), and the
    private broker with its tournament and hall (``broker``: the office then sends every
    later match as ``next``; ``None``: no office)."""
    tables: dict[str, dict[str, object]] = {}
    if match is not None:
        table: dict[str, object] = {"preset": match.preset, "id": match.id,
                                    "stage": match.stage, "home": match.home,
                                    "away": match.away}
        if match.home_colours:
            table["home_colours"] = list(match.home_colours)
        if match.away_colours:
            table["away_colours"] = list(match.away_colours)
        tables["match"] = table
    tables["state"] = {"dir": str(state_dir)}
    tables["display"] = {"mode": display, "size": f"{size[0]}x{size[1]}"}
    tables["gpio"] = {"pin_factory": "mock"}
    if broker is not None:
        if tournament is None:
            raise ValueError("a hall on a broker needs its tournament")
        tables["mqtt"] = {"broker": broker, "tournament": tournament, "hall": hall}
    tables["log"] = {"level": log_level}
    return (f"# scoreboard demo: {hall}'s config (generated; see `scoreboard demo --help`)\n"
            + _toml(tables))


def hall_command(config: Path, *, display: str, state_dir: Path, script_dir: Path,
                 time_scale: float, snapshots: Path) -> list[str]:
    """``scoreboard run`` for one demo hall, as this Python runs it."""
    return [sys.executable, "-m", "firmware_py.cli", "run", "--config", str(config),
            "--headless" if display == "headless" else "--windowed", "--mock-pins",
            "--state-dir", str(state_dir), "--script-dir", str(script_dir),
            "--time-scale", f"{time_scale:g}", "--snapshots", str(snapshots),
            "--exit-when-done"]


def office_command(tournament: Path, db: Path, broker: str,
                   http_port: int | None = None) -> list[str]:
    """``office serve`` for one demo tournament (its page on 127.0.0.1 only)."""
    argv = [sys.executable, "-m", "office", "serve", "--tournament", str(tournament),
            "--db", str(db), "--broker", broker, "--log-level", "INFO"]
    if http_port is not None:
        argv += ["--http", str(http_port), "--host", "127.0.0.1"]
    return argv


def mosquitto_config(port: int, log: Path, *, as_root: bool) -> str:
    """A private broker: loopback only, anonymous, nothing kept on disk."""
    lines = [f"listener {port} 127.0.0.1", "allow_anonymous true", "persistence false",
             "log_type error", "log_type warning", "log_type notice",
             f"log_dest file {log}"]
    if as_root:
        # As root mosquitto drops to the `mosquitto` user, which cannot write the work dir.
        lines.append("user root")
    return "# scoreboard demo: a private broker (generated)\n" + "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# Processes: every one is ours, started here and stopped by its pid


def parse_logfmt(line: str) -> dict[str, str] | None:
    """The ``key=value`` fields of one of the daemon's log lines (``firmware_py.logfmt``:
    values with a space, a quote or an '=' are double-quoted with backslash escapes), or
    ``None`` if the line is not one."""
    fields: dict[str, str] = {}
    i, n = 0, len(line)
    while i < n:
        while i < n and line[i] == " ":
            i += 1
        if i >= n:
            break
        eq = line.find("=", i)
        if eq <= i or " " in line[i:eq]:
            return None
        key = line[i:eq]
        i = eq + 1
        if i < n and line[i] == '"':
            i += 1
            value: list[str] = []
            while i < n and line[i] != '"':
                if line[i] == "\\" and i + 1 < n:
                    i += 1
                    value.append({"n": "\n"}.get(line[i], line[i]))
                else:
                    value.append(line[i])
                i += 1
            if i >= n:
                return None  # an unterminated quote
            i += 1
            fields[key] = "".join(value)
        else:
            end = line.find(" ", i)
            end = n if end < 0 else end
            fields[key] = line[i:end]
            i = end
    return fields if "msg" in fields and "level" in fields else None


_QUIET_COMMANDS = {"start", "stop"}  # the state lines show these well enough


def _phase_text(f: Mapping[str, str]) -> str:
    phase = f.get("phase", "?")
    return f"{phase} {f.get('period', '')}".rstrip() if phase in ("period", "overtime") \
        else phase


def _penalties_text(f: Mapping[str, str]) -> str:
    out = []
    for side in ("home", "away"):
        listed = f.get(f"penalties_{side}", "-")
        if listed and listed != "-":
            out += [f"{side} #{p.replace(':', ' ', 1).replace('(', ' (')}"
                    for p in listed.split(",")]
    return ", ".join(out)


def narrate(line: str) -> str | None:
    """A hall daemon's log line as the demo shows it: state changes, the timekeeper's
    actions that matter (goals, penalties, clock corrections), what the clock ended by
    itself, the office's next match, refusals, warnings and errors; the rest (and every
    line as it is) is in the hall's log file. A line that is not the daemon's key=value
    format is shown as it is."""
    f = parse_logfmt(line)
    if f is None:
        return line
    msg, match = f["msg"], f.get("match", "")
    if f["level"] in ("warning", "error", "critical"):
        return f"{f['level'].upper()}: " + " ".join(
            f"{k}={v}" for k, v in f.items() if k not in ("level", "logger"))
    if msg == "state":
        text = f"{match:<4} {_phase_text(f):<13} {f.get('clock', ''):>6}  {f.get('score', '')}"
        penalties = _penalties_text(f)
        if penalties:
            text += f"   penalties: {penalties}"
        if f.get("timeout", "null") != "null":
            text += f"   time-out {f['timeout']}"
        if f.get("result", "null") != "null":
            text += f"   result {f['result'].replace('/', ' ')}"
        return text
    if msg == "command applied" and f.get("do") not in _QUIET_COMMANDS:
        what = " ".join(f[k] for k in ("do", "team") if k in f)
        if "player" in f:
            what += f" #{f['player']}"
        if "kind" in f:
            what += f" {f['kind']}"
        if "ms" in f:
            ms = int(f["ms"]) if f["ms"].isdigit() else 0
            what += f" {ms // 60000}:{ms // 1000 % 60:02d}"
        return f"{match:<4} > {what}"
    if msg == "deadline":
        return f"{match:<4} > {f.get('events', '').replace(',', ', ')}"
    if msg == "next match loaded":
        return (f"next match from the office: {match} {f.get('home')} v {f.get('away')} "
                f"({f.get('preset')}, {f.get('stage')})")
    if msg == "match on the board":
        return f"on the board: {match} ({f.get('preset')})"
    if msg == "stopped":
        return f"stopped ({f.get('reason')})"
    return None


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
    to the demo's output, each line behind ``name``."""

    name: str
    argv: list[str]
    log: Path
    echo: Printer | None = None
    env: Mapping[str, str] | None = None
    # What of a line to echo (None: nothing); default: the line as it is.
    shown: Callable[[str], str | None] = lambda line: line
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
                    text = self.shown(line)
                    if text is not None:
                        self.echo(f"{self.name} | {text}")

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
        deadline = time.monotonic() + timeout
        while not port_open(self.port):
            if self.child.poll() is not None:
                self.child.finish_output()
                log = self.config.with_name("mosquitto.log")
                text = log.read_text(errors="replace") if log.exists() else ""
                raise DemoError(f"mosquitto exited at once (code {self.child.poll()}):\n"
                                f"{self.child.tail_text()}\n{text}")
            if time.monotonic() > deadline:
                raise DemoError(f"mosquitto did not listen on 127.0.0.1:{self.port} "
                                f"within {timeout:g} s")
            time.sleep(0.05)

    def stop(self) -> None:
        self.child.stop()


@dataclass
class Hall:
    """One hall of the demo: a queue of ``scoreboard run`` processes played one after the
    other (one with the office; one a match without it)."""

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


# ---------------------------------------------------------------------------------------
# The office's tables


def standings(tournament: Path, db: Path, *, as_json: bool) -> subprocess.CompletedProcess[str]:
    """``office standings --tournament FILE --db DB`` (the tables as the office has them)."""
    argv = [sys.executable, "-m", "office", "standings", "--tournament", str(tournament),
            "--db", str(db)]
    if as_json:
        argv.append("--json")
    return subprocess.run(argv, capture_output=True, text=True, encoding="utf-8",
                          check=False, cwd=REPO)


def tables_complete(tournament: Path, db: Path) -> bool:
    """Every group of the tournament has all its results in the office's store."""
    if not db.exists():
        return False
    done = standings(tournament, db, as_json=True)
    if done.returncode != 0:
        return False
    try:
        groups = json.loads(done.stdout)["groups"]
    except (ValueError, KeyError, TypeError):
        return False
    return bool(groups) and all(g.get("complete") for g in groups)


def print_tables(demo: DemoTournament, db: Path, say: Callable[[str], None]) -> bool:
    """The office's group tables of one tournament, as ``office standings`` prints them,
    under a heading naming the tournament and its rule document's preset."""
    say(f"{demo.name}: the office's table ({demo.file.name}, preset "
        f"{', '.join(sorted({m.preset for m in demo.matches}))})")
    done = standings(demo.file, db, as_json=False)
    if done.returncode != 0:
        say(f"  office standings failed (exit code {done.returncode}):")
        for line in (done.stderr or done.stdout).strip().splitlines():
            say(f"    {line}")
        return False
    for line in done.stdout.rstrip("\n").splitlines():
        say(f"  {line}")
    if demo.tiebreak:
        say(textwrap.fill(f"Level on points, {demo.file.name} looks at: "
                          f"{', '.join(demo.tiebreak)}.", width=92, initial_indent="  ",
                          subsequent_indent="    "))
    if "provisional" in done.stdout and demo.protest_window_min:
        say(f"  Provisional: a result counts for good {demo.protest_window_min} min after the "
            "match (the rules' protest window).")
    return True


# ---------------------------------------------------------------------------------------
# The demo


def prepare_work_dir(out: Path | None) -> tuple[Path, bool]:
    """The work dir and whether it is a temporary one (removed after a good run). A given
    folder must be empty or a previous demo's (its entries are then replaced)."""
    if out is None:
        work = Path(tempfile.mkdtemp(prefix="scoreboard-demo-"))
        (work / MARKER).touch()
        return work, True
    out.mkdir(parents=True, exist_ok=True)
    entries = [p for p in out.iterdir() if p.name != MARKER]
    if entries and not (out / MARKER).exists():
        raise DemoError(f"--out {out}: the folder is not empty and not a previous demo's "
                        "work dir; give an empty or new folder")
    for p in entries:  # a previous demo's output: a new run starts clean
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()
    (out / MARKER).touch()
    return out, False


def _shown(path: Path) -> str:
    """A path in the repository as the user would type it from there."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def _count_pngs(folder: Path) -> int:
    return sum(1 for _ in folder.rglob("*.png")) if folder.exists() else 0


class _Interrupted(Exception):
    pass


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Interrupted


def run_demo(args: argparse.Namespace, out: TextIO | None = None,
             environ: Mapping[str, str] | None = None) -> int:
    """``scoreboard demo`` (without --examples). Returns the exit code."""
    environ = dict(os.environ if environ is None else environ)
    say = Printer(out if out is not None else sys.stdout)
    began = time.monotonic()
    try:
        tournaments = load_demo_tournaments(args.demo_dir)
        work, temporary = prepare_work_dir(args.out)
    except Exception as err:  # TournamentError, DemoError, OSError: all reported the same
        say(f"scoreboard demo: {err}")
        return 1
    display = display_mode(args.headless, environ)
    size = WINDOW_SIZE if display == "windowed" else SNAPSHOT_SIZE
    mosquitto = None if args.without_office else find_mosquitto()

    broker: Broker | None = None
    offices: list[tuple[DemoTournament, Child, Path]] = []
    halls: list[Hall] = []
    ok = False
    interrupted = False
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        say(f"Arena Scoreboard demo: {len(tournaments)} tournaments, one hall each, the clock "
            f"running {args.time_scale:g} times real time.")
        say(f"work dir: {work}" + (" (temporary)" if temporary else ""))
        if mosquitto is None:
            say("mosquitto: not used (--without-office)" if args.without_office
                else NO_MOSQUITTO)
        else:
            broker = Broker(mosquitto, work / "mosquitto")
            broker.start()
            say(f"mosquitto: private broker on 127.0.0.1:{broker.port} (pid {broker.child.pid})")
            for i, demo in enumerate(tournaments):
                db = work / "office" / f"{demo.id}.sqlite"
                db.parent.mkdir(parents=True, exist_ok=True)
                http = free_port() if i == 0 else None
                child = Child(f"office {demo.id}", office_command(demo.file, db, broker.url, http),
                              work / "logs" / f"office-{demo.id}.log")
                child.start()
                offices.append((demo, child, db))
                page = f"; its page: http://127.0.0.1:{http}/" if http is not None else ""
                say(f"office for {demo.name} ({demo.file.name}): pid {child.pid}{page}")

        hall_env = {**environ, "PYTHONUNBUFFERED": "1", "GPIOZERO_PIN_FACTORY": "mock"}
        if display == "headless":
            hall_env.setdefault("SDL_VIDEODRIVER", "dummy")
            hall_env.setdefault("SDL_AUDIODRIVER", "dummy")
        for index, demo in enumerate(tournaments):
            env = dict(hall_env)
            if display == "windowed":  # side by side, not one on top of the other
                env.setdefault("SDL_VIDEO_WINDOW_POS",
                               f"{20 + index * (WINDOW_SIZE[0] + 20)},60")
            snapshots = work / demo.hall
            snapshots.mkdir(parents=True, exist_ok=True)
            # With the office: one run, the hall's first match in its config (so the board
            # shows it from the first frame) and every later one as the office's `next`.
            # Without it: one run a match, each with its match in the config.
            runs: list[tuple[str, DemoMatch]] = (
                [("", demo.matches[0])] if broker is not None
                else [(f"-{m.id}", m) for m in demo.matches])
            children = []
            for suffix, match in runs:
                state = work / "state" / f"{demo.hall}{suffix}"
                config = work / "config" / f"{demo.hall}{suffix}.toml"
                config.parent.mkdir(parents=True, exist_ok=True)
                config.write_text(hall_config(
                    demo.hall, state_dir=state, display=display, size=size,
                    broker=broker.url if broker is not None else None,
                    tournament=demo.id, match=match), encoding="utf-8")
                children.append(Child(
                    demo.hall,
                    hall_command(config, display=display, state_dir=state,
                                 script_dir=demo.scripts, time_scale=args.time_scale,
                                 snapshots=snapshots),
                    work / "logs" / f"{demo.hall}.log", echo=say, env=env,
                    shown=(lambda line: line) if args.verbose else narrate))
            halls.append(Hall(demo.hall, children))
            say(f"{demo.hall}: {demo.name}, scripts {_shown(demo.scripts)}, display {display}")
            for m in demo.matches:
                say(f"    {m.id:<4} {m.home} v {m.away}")
        say()

        deadline = began + args.timeout
        done: set[str] = set()
        failure: str | None = None
        while failure is None and len(done) < len(halls):
            for hall in halls:
                if hall.name not in done and hall.step():
                    done.add(hall.name)
                    if hall.failed is not None:
                        failure = (f"{hall.name} failed (exit code {hall.failed.poll()}); "
                                   f"the end of its log ({hall.failed.log}):\n"
                                   f"{hall.failed.tail_text()}")
            for demo, child, _ in offices:
                if child.poll() is not None:
                    failure = (f"the office for {demo.name} stopped (exit code {child.poll()}); "
                               f"the end of its log ({child.log}):\n{child.tail_text()}")
            if failure is None and len(done) < len(halls) and time.monotonic() > deadline:
                late = [h for h in halls if h.name not in done]
                failure = "\n".join(
                    f"{h.name} was not done after {args.timeout:g} s; the end of its log:\n"
                    f"{h.child.tail_text() if h.child else '    (not started)'}" for h in late)
            if failure is None and len(done) < len(halls):
                time.sleep(0.1)
        played = time.monotonic() - began
        if failure is not None:
            say()
            say(f"scoreboard demo: {failure}")
        else:
            say()
            say(f"Both halls are done ({played:.1f} s).")
            ok = True
            if offices:
                # The halls exit once the broker has their last events; the office may still
                # be storing them.
                settle = time.monotonic() + 15
                pending = list(offices)
                while pending and time.monotonic() < settle:
                    pending = [o for o in pending if not tables_complete(o[0].file, o[2])]
                    if pending:
                        time.sleep(0.3)
                for demo, _, db in offices:
                    say()
                    if not print_tables(demo, db, say):
                        ok = False
                for demo, child, _ in pending:
                    ok = False
                    say(f"scoreboard demo: the office for {demo.name} did not get every "
                        f"result; the end of its log ({child.log}):\n{child.tail_text()}")
            else:
                say("No office ran, so there are no group tables ("
                    + ("drop --without-office" if args.without_office
                       else "install mosquitto") + " to see them).")
    except (KeyboardInterrupt, _Interrupted):
        interrupted = True
        say()
        say("scoreboard demo: interrupted; stopping what it started")
    except DemoError as err:
        say(f"scoreboard demo: {err}")
    finally:
        for hall in halls:
            hall.stop()
        for _, child, _ in offices:
            code = child.stop()
            if ok and code not in (0, None):
                ok = False
                say(f"scoreboard demo: the office {child.name} ended with exit code {code}; "
                    f"the end of its log ({child.log}):\n{child.tail_text()}")
        if broker is not None:
            broker.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)

    pictures = {h.name: _count_pngs(work / h.name) for h in halls}
    if any(pictures.values()):
        say()
        where = ", ".join(f"{work / name} ({n})" for name, n in pictures.items())
        if temporary and ok:
            say(f"The halls drew {sum(pictures.values())} PNG snapshots; they go with the "
                "temporary work dir (use --out DIR to keep them).")
        else:
            say(f"PNG snapshots of the hall displays: {where}")
    if temporary and ok:
        shutil.rmtree(work, ignore_errors=True)
    elif temporary:
        say(f"logs kept in {work / 'logs'}")
    how = "interrupted after" if interrupted else "done in" if ok else "failed after"
    say(f"{how} {time.monotonic() - began:.1f} s")
    if interrupted:
        return 130
    return 0 if ok else 1


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``scoreboard demo``."""
    p.add_argument("--headless", action="store_true",
                   help="no windows even where there is a screen: the halls draw PNG "
                   "snapshots and log every state change")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="work dir to keep: the PNG snapshots (DIR/<hall>/), the logs "
                   "(DIR/logs/), the office stores (DIR/office/) and the generated configs. "
                   "Must be empty, new, or a previous demo's. Default: a temporary folder, "
                   "removed after a good run")
    p.add_argument("--time-scale", type=_positive, default=DEFAULT_TIME_SCALE, metavar="X",
                   help="the halls' clocks run X times real time (default %(default)g: the "
                   "whole demo takes well under a minute)")
    p.add_argument("--timeout", type=_positive, default=DEFAULT_TIMEOUT_S, metavar="S",
                   help="give up (and say why) if the halls are not done after S seconds "
                   "(default %(default)g)")
    p.add_argument("--without-office", action="store_true",
                   help="do not start mosquitto and the offices even if installed: the halls "
                   "play alone, as when mosquitto is missing")
    p.add_argument("--verbose", action="store_true",
                   help="print every line the halls log, as they log it (by default: their "
                   "state changes, goals, penalties and what the office sends; every line "
                   "is in the work dir's logs/<hall>.log either way)")
    p.add_argument("--demo-dir", type=Path, default=DEMO_DIR, help=argparse.SUPPRESS)
    p.add_argument("--examples", nargs="?", type=Path, const=EXAMPLES_DIR, default=None,
                   metavar="DIR",
                   help="the small demo instead: narrate the example games of "
                   "examples/replay/ (or DIR) through the scoreboard's rules, no processes, "
                   "no network")
    p.add_argument("--pictures", type=Path, default=None, metavar="DIR",
                   help="with --examples (implies it): also draw the hall display (1280x720 "
                   "PNGs, headless) at every goal, penalty, period, break, shot and result")


DESCRIPTION = """\
Play a short tournament day on this machine, in under a minute: two tournaments from two
rule documents (examples/demo/hockey.toml: ice hockey by rules 000, preset ice-hockey-2x20;
examples/demo/football.toml: junior football by rules 003, preset football-p10), each one
group of three teams in one hall.

It starts a private mosquitto on a free 127.0.0.1 port (if mosquitto is installed; without
it the halls play alone and there are no tables), one `office serve` per tournament (the
first one's office page on http://127.0.0.1:PORT/, printed at the start), and two halls:
`scoreboard run` with mock pins and its own state, playing the timekeeper's script
(examples/demo/<tournament>/<match>.jsonl) of its first match, then of each match the
office sends it as next, on a clock that runs --time-scale times real time. The hall
displays open in windows where there is a screen (DISPLAY or WAYLAND_DISPLAY), else (and
with --headless) the halls run headless; either way they draw a PNG at every phase
change and print every state change, here, behind the hall's name.

When both halls are done it prints the group tables the offices computed, with the "why"
column: the two rule documents break ties differently (rules 000 by penalty minutes, rules
003 by goals scored, here), says where the PNGs are, and stops everything it started.
Exit code 0 when all went well; 1 with the end of the log of what failed; 130 on Ctrl-C.
"""


# ---------------------------------------------------------------------------------------
# The small demo (--examples): the example games narrated through the core, no processes

_NARRATED = {
    EventKind.PERIOD_STARTED, EventKind.PERIOD_ENDED, EventKind.BREAK_STARTED,
    EventKind.BREAK_ENDED, EventKind.GOAL, EventKind.FORFEIT, EventKind.UNDONE,
    EventKind.SHOOTOUT_STARTED, EventKind.MATCH_ENDED, EventKind.CLOCK_SET,
    EventKind.PENALTY, EventKind.PENALTY_STARTED, EventKind.PENALTY_ENDED,
    EventKind.TIMEOUT_STARTED, EventKind.TIMEOUT_ENDED, EventKind.SHOT,
}


def _mmss(ms: int) -> str:
    seconds = -(-ms // 1000)
    return f"{seconds // 60:2d}:{seconds % 60:02d}"


def _line(event: Event) -> str:
    d = event.data
    stamp = f"[{event.at / NS_PER_S:8.2f} s]"
    kind = event.kind
    if kind is EventKind.GOAL:
        who = f" #{d['player']}" if d.get("player") is not None else ""
        text = (f"goal {d['team']}{who} in period {d['period']} at {_mmss(d['clock_ms'])} left"
                f" -> {d['score']['home']}:{d['score']['away']}")
    elif kind is EventKind.MATCH_ENDED:
        r = d["result"]
        text = f"final {r['home']}:{r['away']} ({r['decided_by']})"
        decisive = (d["record"].get("shootout") or {}).get("decisive")
        if decisive:
            text += f", decisive shot {decisive['team']} #{decisive['player']}"
    elif kind is EventKind.BREAK_STARTED:
        text = f"{d['phase']} of {_mmss(d['length_ms'])} before period {d['next_period']}"
    elif kind is EventKind.PENALTY:
        text = (f"penalty {d['team']} #{d['player']} {d['kind']} in period {d['period']}"
                + (" (coincidental)" if d["coincidental"] else ""))
    elif kind in (EventKind.PENALTY_STARTED, EventKind.PENALTY_ENDED):
        how = "starts" if kind is EventKind.PENALTY_STARTED else d["how"]
        text = f"penalty {d['team']} #{d['player']} {d['kind']} {how}"
    elif kind is EventKind.SHOT:
        who = f" #{d['player']}" if d.get("player") is not None else ""
        text = (f"shot {d['team']}{who} {'scores' if d['scored'] else 'misses'}"
                f" -> {d['tally']['home']}:{d['tally']['away']}")
    elif kind is EventKind.UNDONE:
        text = f"undo {d['what']} -> {d['score']['home']}:{d['score']['away']}, {d['phase']}"
    else:
        details = ", ".join(f"{k} {v}" for k, v in d.items() if k not in ("score",))
        text = f"{kind.value.replace('_', ' ')} ({details})" if details else kind.value
    return f"  {stamp} {text}"


# Moments worth a picture of the hall display.
_PICTURED = {
    EventKind.PERIOD_STARTED, EventKind.GOAL, EventKind.BREAK_STARTED,
    EventKind.SHOOTOUT_STARTED, EventKind.SHOT, EventKind.MATCH_ENDED, EventKind.PENALTY,
}


def _picture(pictures: Path, match: Match, name: str, event: Event, out: TextIO) -> None:
    """The hall display as it looks right after ``event`` (headless, a PNG)."""
    doc = state_document(match, event.at)
    path = pictures / f"{name}-{event.seq:03d}-{event.kind.value}.png"
    snapshot(doc, (1280, 720), path)
    print(f"             picture: {path}", file=out)


def play_examples(folder: Path, out: TextIO, pictures: Path | None = None) -> int:
    """Narrate every example game; with ``pictures``, also draw the hall display (PNG) at
    each goal, penalty, period, break, shot and result."""
    index = tomllib.loads((folder / "index.toml").read_text(encoding="utf-8"))
    if pictures is not None:
        pictures.mkdir(parents=True, exist_ok=True)
    for example in index["example"]:
        preset = presets.load(example["preset"])
        setup = MatchSetup(match_id="DEMO", stage=Stage(example["stage"]),
                           home=TeamInfo("Lions", ("#10233f", "#ffffff")),
                           away=TeamInfo("Bears", ("#f2f2f2", "#10233f")))
        match = Match(preset, setup)
        script = parse_script((folder / example["script"]).read_text(encoding="utf-8"),
                              example["script"])
        print(f"{preset.name} ({example['stage']}): {example['about']}", file=out)
        name = example["script"].removesuffix(".jsonl")
        for line in script:
            fed = feed(match, line.command)
            for event in fed.events:
                if event.kind in _NARRATED:
                    print(_line(event), file=out)
                if pictures is not None and event.kind in _PICTURED:
                    _picture(pictures, match, name, event, out)
            if fed.refused is not None:
                print(f"  [{line.t / NS_PER_S:8.2f} s] refused: {fed.refused}", file=out)
        deadline = match.next_deadline()
        while deadline is not None:  # let the game run out
            for event in match.advance(deadline):
                if event.kind in _NARRATED:
                    print(_line(event), file=out)
                if pictures is not None and event.kind in _PICTURED:
                    _picture(pictures, match, name, event, out)
            deadline = match.next_deadline()
        print(file=out)
    return 0
