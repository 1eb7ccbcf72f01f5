"""``arena-demo``: a whole little tournament day on one machine, in under a minute.

One event as a real one runs (``examples/demo/event.toml``, junior football by rules 003):
two categories, P08 and P10, each with its own preset, group and follow-up match, sharing
two halls. The demo starts a private mosquitto on a free loopback port (if mosquitto is
installed), one ``office serve`` for the event, and two halls: ``scoreboard run`` daemons
with mock pins, each playing the timekeeper's script (``examples/demo/event/<match>.jsonl``)
of its first match (in its config) and of every later one the office sends it as ``next``,
of either category, on a clock that runs ``--time-scale`` times real time. When a group ends
with teams level after every criterion, the demo draws the lots as the office would
(demo/lots.py) and the follow-up match gets its teams. While they play, the demo
follows each hall's journals (demo/journals.py) and prints what they record
(demo/narration.py) behind the hall's name. At the end it prints the group
tables the office computed and stops everything it started (by pid).

Without mosquitto the halls play alone: each match is one daemon run with the match in its
config (a follow-up under its slots' names, "1st A"), and there are no tables.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from arena.timesource import SYSTEM, monotonic_s
from demo.configs import (
    SNAPSHOT_SIZE,
    WINDOW_SIZE,
    display_mode,
    hall_command,
    hall_config,
    office_command,
    public_site_url,
)
from demo.journals import HallJournals
from demo.lots import LotsDrawer
from demo.narration import journal_lines
from demo.processes import Broker, Child, HallRuns, Printer
from demo.tables import print_tables, tables_complete
from demo.tournaments import (
    DemoError,
    DemoEvent,
    DemoMatch,
    load_demo_event,
    shown,
)
from demo.workdir import count_pngs, prepare_work_dir
from firmware_py.loopback import find_mosquitto, free_port

DEFAULT_TIME_SCALE = 30.0
SITE = "site"  # the public site's static export, in the work dir beside the halls' PNGs
DEFAULT_TIMEOUT_S = 120.0
NO_MOSQUITTO = ("mosquitto is not installed (sudo apt install mosquitto): "
                "the halls play without the office")
POLL_S = 0.1  # how often the halls' processes and journals are looked at
# The halls exit once the broker has their last events; the office may still be storing them.
SETTLE_S = 15.0
SETTLE_POLL_S = 0.3

Clock = Callable[[], float]


@dataclass(frozen=True)
class Office:
    event: DemoEvent
    child: Child
    db: Path
    lots: LotsDrawer


@dataclass
class Hall:
    """One hall: its runs of ``scoreboard run`` and the journals they write."""

    name: str
    runs: HallRuns
    journals: HallJournals
    configured: frozenset[str]  # the matches in its configs; any other came from the office

    def narrate(self, say: Callable[[str], None]) -> None:
        """Print what the hall's journals recorded since the last call."""
        for gained in self.journals.read():
            for line in journal_lines(gained.records, gained.match, self.configured):
                say(f"{self.name} | {line}")


class _Interrupted(Exception):
    pass


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Interrupted


def _hall_env(environ: Mapping[str, str], display: str) -> dict[str, str]:
    env = {**environ, "PYTHONUNBUFFERED": "1", "GPIOZERO_PIN_FACTORY": "mock"}
    if display == "headless":
        env.setdefault("SDL_VIDEODRIVER", "dummy")
        env.setdefault("SDL_AUDIODRIVER", "dummy")
    return env


def _plan_hall(demo: DemoEvent, hall: str, *, index: int, args: argparse.Namespace,
               work: Path, display: str, environ: Mapping[str, str], broker: Broker | None,
               say: Printer) -> Hall:
    """The runs of one hall, their configs written. With the office: one run, the hall's
    first match in its config (so the board shows it from the first frame) and every later
    one as the office's ``next``. Without it: one run a match, each with its match in the
    config."""
    size = WINDOW_SIZE if display == "windowed" else SNAPSHOT_SIZE
    env = _hall_env(environ, display)
    if display == "windowed":  # side by side, not one on top of the other
        env.setdefault("SDL_VIDEO_WINDOW_POS", f"{20 + index * (WINDOW_SIZE[0] + 20)},60")
    snapshots = work / hall
    snapshots.mkdir(parents=True, exist_ok=True)
    matches = demo.hall_matches(hall)
    runs: list[tuple[str, DemoMatch]] = (
        [("", matches[0])] if broker is not None
        else [(f"-{m.id}", m) for m in matches])
    children: list[Child] = []
    state_dirs: list[Path] = []
    for suffix, match in runs:
        state = work / "state" / f"{hall}{suffix}"
        config = work / "config" / f"{hall}{suffix}.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(hall_config(
            hall, state_dir=state, display=display, size=size,
            broker=broker.url if broker is not None else None,
            tournament=demo.id, match=match), encoding="utf-8")
        argv = hall_command(config, display=display, state_dir=state,
                            script_dir=demo.scripts, time_scale=args.time_scale,
                            snapshots=snapshots)
        children.append(Child(hall, argv, work / "logs" / f"{hall}.log",
                              echo=say if args.verbose else None,
                              echo_prefix=f"{hall} log | ", env=env))
        state_dirs.append(state)
    return Hall(hall, HallRuns(hall, children), HallJournals(state_dirs),
                frozenset(m.id for _, m in runs))


def _start_office(demo: DemoEvent, broker: Broker, work: Path, say: Printer, *,
                  offices: list[Office], clock: Clock) -> None:
    """The event's one ``office serve``, added to ``offices`` once started (so a failure
    later still stops it)."""
    db = work / "office" / f"{demo.id}.sqlite"
    db.parent.mkdir(parents=True, exist_ok=True)
    http = free_port()
    public = free_port()
    child = Child(f"office {demo.id}",
                  office_command(demo.file, db, broker.url, http, public_port=public,
                                 site=work / SITE),
                  work / "logs" / f"office-{demo.id}.log")
    child.start()
    offices.append(Office(demo, child, db, LotsDrawer(demo.file, db, say, clock)))
    say(f"office for {demo.name} ({demo.file.name}, {len(demo.categories)} categories): "
        f"pid {child.pid}; its page: http://127.0.0.1:{http}/")
    say(f"public results site (for phones): {public_site_url(public)} "
        f"(its static export: {work / SITE})")


def _play(halls: list[Hall], offices: list[Office], timeout: float, clock: Clock,
          say: Printer) -> str | None:
    """Run the halls to their end, narrating their journals; what went wrong, or None."""
    deadline = clock() + timeout
    done: set[str] = set()
    while len(done) < len(halls):
        failure: str | None = None
        for hall in halls:
            if hall.name not in done and hall.runs.step():
                done.add(hall.name)
                failed = hall.runs.failed
                if failed is not None:
                    failure = (f"{hall.name} failed (exit code {failed.poll()}); "
                               f"the end of its log ({failed.log}):\n{failed.tail_text()}")
            hall.narrate(say)  # after step: an ended run's last records are on the disk
        for office in offices:
            office.lots.step()  # the office's own work: lots for a finished group
            if office.lots.failed is not None:
                failure = office.lots.failed
            if office.child.poll() is not None:
                failure = (f"the office for {office.event.name} stopped (exit code "
                           f"{office.child.poll()}); the end of its log ({office.child.log}):"
                           f"\n{office.child.tail_text()}")
        if failure is not None:
            return failure
        if len(done) < len(halls) and clock() > deadline:
            late = [h for h in halls if h.name not in done]
            return "\n".join(
                f"{h.name} was not done after {timeout:g} s; the end of its log:\n"
                + (h.runs.child.tail_text() if h.runs.child else "    (not started)")
                for h in late)
        if len(done) < len(halls):
            SYSTEM.sleep(POLL_S)  # between looks at processes that run by themselves
    return None


def _print_all_tables(offices: list[Office], clock: Clock, say: Printer) -> bool:
    """Wait for every office to hold every result, then print the tables; False if one
    could not be printed or never got them all."""
    settle = clock() + SETTLE_S
    pending = list(offices)
    while pending and clock() < settle:
        pending = [o for o in pending if not tables_complete(o.event.file, o.db)]
        if pending:
            SYSTEM.sleep(SETTLE_POLL_S)
    ok = True
    for office in offices:
        say()
        if not print_tables(office.event, office.db, say):
            ok = False
    for office in pending:
        ok = False
        say(f"arena-demo: the office for {office.event.name} did not get every "
            f"result; the end of its log ({office.child.log}):\n{office.child.tail_text()}")
    return ok


def run_demo(args: argparse.Namespace, out: TextIO | None = None,
             environ: Mapping[str, str] | None = None, clock: Clock = monotonic_s) -> int:
    """``arena-demo`` (without --examples). Returns the exit code. ``clock`` measures
    the timeouts and the times printed."""
    environ = dict(os.environ if environ is None else environ)
    say = Printer(out if out is not None else sys.stdout)
    began = clock()
    try:
        demo = load_demo_event(args.demo_dir)
        work, temporary = prepare_work_dir(args.out)
    except Exception as err:  # TournamentError, DemoError, OSError: all reported the same
        say(f"arena-demo: {err}")
        return 1
    display = display_mode(args.headless, environ)
    mosquitto = None if args.without_office else find_mosquitto()

    broker: Broker | None = None
    offices: list[Office] = []
    halls: list[Hall] = []
    ok = False
    interrupted = False
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        halls_of = demo.halls()
        say(f"Arena Scoreboard demo: {demo.name}, {len(demo.categories)} categories "
            f"({', '.join(c.name for c in demo.categories)}) sharing {len(halls_of)} halls, "
            f"the clock running {args.time_scale:g} times real time.")
        say(f"work dir: {work}" + (" (temporary)" if temporary else ""))
        if mosquitto is None:
            say("mosquitto: not used (--without-office)" if args.without_office
                else NO_MOSQUITTO)
        else:
            broker = Broker(mosquitto, work / "mosquitto")
            broker.start()
            say(f"mosquitto: private broker on 127.0.0.1:{broker.port} (pid {broker.child.pid})")
            _start_office(demo, broker, work, say, offices=offices, clock=clock)
        for index, name in enumerate(halls_of):
            halls.append(_plan_hall(demo, name, index=index, args=args, work=work,
                                    display=display, environ=environ, broker=broker, say=say))
            say(f"{name}: scripts {shown(demo.scripts)}, display {display}")
            for m in demo.hall_matches(name):
                say(f"    {m.id:<6} {m.category:<4} {m.home} v {m.away}")
        say()

        failure = _play(halls, offices, args.timeout, clock, say)
        say()
        if failure is not None:
            say(f"arena-demo: {failure}")
        else:
            say(f"Every hall is done ({clock() - began:.1f} s).")
            if offices:
                ok = _print_all_tables(offices, clock, say)
            else:
                ok = True
                say("No office ran, so there are no group tables ("
                    + ("drop --without-office" if args.without_office
                       else "install mosquitto") + " to see them).")
    except (KeyboardInterrupt, _Interrupted):
        interrupted = True
        say()
        say("arena-demo: interrupted; stopping what it started")
    except DemoError as err:
        say(f"arena-demo: {err}")
    finally:
        for hall in halls:
            hall.runs.stop()
        for office in offices:
            code = office.child.stop()
            if ok and code not in (0, None):
                ok = False
                say(f"arena-demo: the office {office.child.name} ended with exit code "
                    f"{code}; the end of its log ({office.child.log}):\n"
                    f"{office.child.tail_text()}")
        if broker is not None:
            broker.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)

    _say_where_things_are(halls, work, temporary, ok, say)
    how = "interrupted after" if interrupted else "done in" if ok else "failed after"
    say(f"{how} {clock() - began:.1f} s")
    if interrupted:
        return 130
    return 0 if ok else 1


def _say_where_things_are(halls: list[Hall], work: Path, temporary: bool, ok: bool,
                          say: Printer) -> None:
    """The PNGs and logs: kept (and where), or gone with a temporary work dir."""
    pictures = {h.name: count_pngs(work / h.name) for h in halls}
    if any(pictures.values()):
        say()
        where = ", ".join(f"{work / name} ({n})" for name, n in pictures.items())
        if temporary and ok:
            say(f"The halls drew {sum(pictures.values())} PNG snapshots; they go with the "
                "temporary work dir (use --out DIR to keep them).")
        else:
            say(f"PNG snapshots of the hall displays: {where}")
    if (work / SITE / "index.html").exists() and not temporary:
        say(f"The public site's static export: {work / SITE} (open index.html)")
    if temporary and ok:
        shutil.rmtree(work, ignore_errors=True)
    elif temporary:
        say(f"logs kept in {work / 'logs'}")
