"""Benchmark: what the hall display costs at 1920x1080 (or the screen's size), per frame
and in CPU share.

Two measurements, each against a baseline run in the same process:

1. Frame cost (layout + draw + ``display.update``, ``perf_counter_ns``) over the same state
   documents of a running
   game, taken at successive display deadlines: a full redraw of every item (the renderer
   forced to forget its previous frame, its image cache kept warm, a fresh layout) against
   the real path (``Renderer.render``, as ``Display.draw``), which lays out from its memory
   what did not change and redraws only what changed. Once in the last minute (the clock
   shows tenths) and once above a minute (whole seconds). Prints p50/p99/max and the
   ratio of the p50s.
2. CPU share (process CPU time over wall time) of the display loop, phase by phase, over
   one match played by a script: pregame, the clock running above a minute, the last
   minute (tenths), stopped, the break, the shootout, ``--seconds`` each. Ours is the
   daemon itself (``Daemon`` on the OS clock, the real parts on mock pins, the headless
   display): frames at the core's display deadlines (10/s with tenths, else 1/s), only the
   changes drawn and updated, asleep between them, never spinning. The naive loop plays
   the same script on the core and lays out, redraws and updates the whole screen every
   1/60 s (``pygame.time.Clock.tick(60)``, the pygame tutorial loop). Each whole second is
   one sample: per phase the share over the phase, the p50/p90/max of the seconds, and the
   ratio naive/ours. Both without the audio horn (the naive loop has none, and its mixer is
   not the display's); a third run of ours with it on prints what SDL's audio thread adds.

Between them, the game screen's relayout (pure Python, no pixels): what a frame costs when
a penalty's second changes and the remembered layout misses. The standard arrangement
alone is the baseline; against it the game screen as the daemon lays it out (its
far-seat search's choice remembered, ``display/screens/gamesizing.py`` ``CHOICES``) and with that
memory forgotten before every frame (the search over every candidate, as when a penalty
comes or a name changes). p50/p99 and the ratios of the p50s, at the screen's size and at
1024x768 in the preset's hall (a 55-inch TV, the farthest seat at 25 m), and at the
screen's size with that seat at 40 m.

The game on screen for the frame costs: period 1 of ice-hockey-2x20, 2:1, a minor penalty
running.

By default on SDL's dummy video driver (headless, at 1920x1080): ``pygame.display.update``
copies nothing to a real screen there, so what a Pi's kmsdrm update costs (much more for
the naive full-screen update) is not in those figures. ``--driver kmsdrm`` (or any SDL
video driver; ``--driver env`` takes ``SDL_VIDEODRIVER`` as the environment sets it) runs
everything full screen on that driver at the screen's own size, the update to the screen
included: on a Pi's console, or a virtual one with Mesa's llvmpipe. The audio horn's run
always uses SDL's dummy audio driver. Figures depend on the machine: the header says which
one. This is a benchmark, not a test: it asserts nothing and exits 0.

    python bench/render.py [--seconds 10] [--frames 600] [--driver dummy|kmsdrm|env|...]
"""

from __future__ import annotations

import os

# Before pygame is imported (display imports it): silent, whatever the desktop. The video
# driver is chosen in main (``--driver``), before the display is opened (SDL reads it then).
os.environ["SDL_AUDIODRIVER"] = "dummy"

import argparse
import json
import platform
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

# The bench is a folder of scripts, not a package: make the repo top importable so this runs
# from a plain checkout without installing the project.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpuload import ms, percentile, whole_number
from report import add_write_docs, run_writing_docs

from arena import presets
from arena.core.commands import Command, Goal, Penalty, SetClock, Start
from arena.core.match import Match, feed
from arena.core.phase import Stage, Team
from arena.core.state import state_document
from arena.core.units import NS_PER_S
from arena.core.values import MatchSetup, TeamInfo
from arena.timesource import TimeSource
from display import fonts
from display._pygame import pygame
from display.hall import HallGeometry
from display.layout import FrameInputs, LayoutOptions, layout, read_views
from display.options import options_for
from display.render import Renderer
from display.screen import HEADLESS_DRIVERS, Display, Mode
from display.screens.common import Canvas
from display.screens.game import standard_screen
from display.screens.gamesizing import CHOICES, game_screen
from display.values import clock_text
from firmware_py.between import between_games
from firmware_py.config import Config
from firmware_py.config import parse as parse_config
from firmware_py.daemon import Daemon
from firmware_py.parts import HallParts, KeySource, NoKeys
from firmware_py.runconfig import RunOptions
from firmware_py.script import parse_script

SIZE = (1920, 1080)  # headless; full screen the screen's own
PRESET = "ice-hockey-2x20"
MINUTE_MS = 60_000  # the preset shows tenths below this
NAIVE_FPS = 60
# Frame-cost runs use simulated time: any instant far from zero will do.
SIMULATED_START_NS = 1_000 * NS_PER_S
# Above a minute, the frame-cost run starts early in the period: 600 seconds fit before 1:00.
SECONDS_RUN_START_MS = 19 * MINUTE_MS

Doc = dict[str, Any]


# ------------------------------------------------------------------------------- the game

def running_game(at: int, remaining_ms: int) -> Match:
    """Period 1 running with ``remaining_ms`` on the clock at ``at``: 2:1 and a minor penalty
    with most of its two minutes left, so the screen has a second countdown ticking too."""
    preset = presets.load(PRESET)
    match = Match(preset, MatchSetup(
        match_id="B1",
        home=TeamInfo("HC Kometa Brno", ("#10233f", "#ffffff")),
        away=TeamInfo("Lions", ("#f2f2f2", "#10233f")),
    ))
    setup = at - 4 * NS_PER_S  # the commands come in just before ``at``, in order
    # Set a second after the start, to what it must show three seconds later, at ``at``.
    commands: list[Command] = [
        Start(setup),
        SetClock(setup + NS_PER_S, remaining_ms + 3_000),
        Goal(setup + 2 * NS_PER_S, Team.HOME, 17),
        Goal(setup + 2 * NS_PER_S + NS_PER_S // 2, Team.HOME, 9),
        Goal(setup + 3 * NS_PER_S, Team.AWAY, 27),
        # After the clock was set: setting it moves game time, which would serve the penalty.
        Penalty(setup + 3 * NS_PER_S + NS_PER_S // 2, Team.AWAY, 12, "minor"),
    ]
    for command in commands:
        refused = feed(match, command).refused
        if refused is not None:
            raise RuntimeError(f"bench set-up refused: {refused}")
    match.advance(at)
    return match


def deadline_docs(match: Match, now: int, count: int) -> list[Doc]:
    """Up to ``count`` state documents at the match's successive display deadlines, while the
    period runs (at zero the break screen follows: a different benchmark)."""
    docs: list[Doc] = []
    while len(docs) < count:
        due = match.display_deadline(now)
        if due is None:
            break
        match.advance(due)
        doc = state_document(match, due)
        if doc["phase"] != "period":
            break
        docs.append(doc)
        now = due
    return docs


# ------------------------------------------------------------------------------- frame cost

@dataclass
class FrameCosts:
    costs_ns: list[int]
    repainted: list[int]  # pixels repainted per frame (none recorded for layout alone)


def frame_costs(renderer: Renderer, first: Doc, docs: list[Doc], options: LayoutOptions, *,
                full: bool) -> FrameCosts:
    """Layout + draw + update of each document; ``full`` lays out afresh, forgets the
    previous frame and updates the whole screen, else as the daemon does (``Display.draw``
    and ``present``: only the rectangles that changed)."""
    size = renderer.surface.get_size()
    # The frame before the run: the daemon has always drawn one already, and it warms the
    # image cache as the daemon's would be (new digits still miss, as they would there).
    renderer.invalidate()
    renderer.draw(layout(first, size, measure=fonts.measure, options=options))
    pygame.display.update()
    out = FrameCosts([], [])
    for doc in docs:
        started = time.perf_counter_ns()
        if full:
            frame = layout(doc, size, measure=fonts.measure, options=options)
            renderer.invalidate()
            dirty = renderer.draw(frame)
            pygame.display.update()
        else:  # as Display.draw does: the layout from the renderer's memory where it can
            renderer.render(FrameInputs(doc, size, options=options))
            dirty = renderer.last_dirty
            if dirty:
                pygame.display.update([pygame.Rect(r) for r in dirty])
        out.costs_ns.append(time.perf_counter_ns() - started)
        out.repainted.append(sum(w * h for _x, _y, w, h in dirty))
    return out


def layout_costs(docs: list[Doc], size: tuple[int, int], options: LayoutOptions
                 ) -> FrameCosts:
    """Layout alone: how much of a steady frame is pure Python before any pixel."""
    out = FrameCosts([], [])
    for doc in docs:
        started = time.perf_counter_ns()
        layout(doc, size, measure=fonts.measure, options=options)
        out.costs_ns.append(time.perf_counter_ns() - started)
    return out


def cold_frame_ns(surface: pygame.Surface, doc: Doc, options: LayoutOptions) -> int:
    """A first frame with an empty image cache (start-up, or a new window): every digit and
    name rasterised. The fonts' size tables are process-wide and already warm."""
    size = surface.get_size()
    renderer = Renderer(size, surface=surface)
    started = time.perf_counter_ns()
    renderer.draw(layout(doc, size, measure=fonts.measure, options=options))
    return time.perf_counter_ns() - started


def costs_line(label: str, run: FrameCosts, size: tuple[int, int]) -> str:
    c = run.costs_ns
    line = (f"  {label:<34} p50 {ms(percentile(c, 50))}, p99 {ms(percentile(c, 99))}, "
            f"max {ms(max(c))}  ({len(c)} frames")
    if not run.repainted:
        return line + ")"
    share = 100 * percentile(run.repainted, 50) / (size[0] * size[1])
    return line + f", repainted p50 {share:.1f} % of the screen)"


def bench_frame_costs(surface: pygame.Surface, frames: int, options: LayoutOptions) -> None:
    size = surface.get_size()
    print(f"frame cost at {size[0]}x{size[1]}: layout + draw + display.update, the same "
          "documents for both")
    renderer = Renderer(size, surface=surface)
    scenarios = [
        ("last minute (tenths)", MINUTE_MS),
        ("above a minute (whole seconds)", SECONDS_RUN_START_MS),
    ]
    for name, remaining_ms in scenarios:
        match = running_game(SIMULATED_START_NS, remaining_ms)
        first = state_document(match, SIMULATED_START_NS)
        docs = deadline_docs(match, SIMULATED_START_NS, frames)
        full = frame_costs(renderer, first, docs, options, full=True)
        changes = frame_costs(renderer, first, docs, options, full=False)
        ratio = percentile(full.costs_ns, 50) / percentile(changes.costs_ns, 50)
        print(f" {name}, clock {clock_text(docs[0]['clock_ms'])} to "
              f"{clock_text(docs[-1]['clock_ms'])}:")
        print(costs_line("full redraw (every item)", full, size))
        print(costs_line("only what changed (the real path)", changes, size))
        print(costs_line("of which layout (no pixels)", layout_costs(docs, size, options),
                         size))
        print(f"  ratio of p50s full/changes        {ratio:.1f}x")
    doc = state_document(running_game(SIMULATED_START_NS, MINUTE_MS), SIMULATED_START_NS)
    print(f" first frame, empty image cache      {ms(cold_frame_ns(surface, doc, options))}"
          " (once, at start-up)")


# ------------------------------------------------------------------------------- relayout

# A 55-inch TV with the farthest seat at 40 m: the search's far arrangement and grown rows.
FAR_HALL = HallGeometry(68.5, 40)


def relayout_costs(canvas: Canvas, docs: list[Doc]) -> tuple[list[int], list[int], list[int]]:
    """Per document: the standard arrangement alone, the game screen with its remembered
    choice (warmed by the first document, as the daemon's would be), and the game screen
    with that memory forgotten first (the full search)."""
    views = [read_views(doc) for doc in docs]
    standard, remembered, searched = [], [], []
    game_screen(canvas, views[0].state, views[0].status)
    for view in views:
        started = time.perf_counter_ns()
        standard_screen(canvas, view.state, view.status)
        standard.append(time.perf_counter_ns() - started)
        started = time.perf_counter_ns()
        game_screen(canvas, view.state, view.status)
        remembered.append(time.perf_counter_ns() - started)
        CHOICES.forget()
        started = time.perf_counter_ns()
        game_screen(canvas, view.state, view.status)
        searched.append(time.perf_counter_ns() - started)
    return standard, remembered, searched


def bench_relayout(size: tuple[int, int], frames: int, options: LayoutOptions) -> None:
    match = running_game(SIMULATED_START_NS, SECONDS_RUN_START_MS)
    # The seconds a penalty runs: each one a new layout (its time changes).
    docs = [doc for doc in deadline_docs(match, SIMULATED_START_NS, frames)
            if any(p["running"] for p in doc["penalties"]["away"])]
    print(f"game-screen relayout, a penalty's second changing every frame ({len(docs)} "
          "frames, layout only): the standard arrangement alone as the baseline")
    far = replace(options, hall=FAR_HALL)
    for (width, height), hall in ((size, options), ((1024, 768), options), (size, far)):
        canvas = Canvas(width, height, fonts.measure, hall)
        standard, remembered, searched = relayout_costs(canvas, docs)
        base = percentile(standard, 50)
        seat = hall.hall
        print(f" {width}x{height}, {seat.visible_height_cm:g} cm screen, farthest seat "
              f"{seat.farthest_m:g} m:")
        for label, costs in (("standard arrangement (baseline)", standard),
                             ("far-seat search, choice remembered", remembered),
                             ("far-seat search every frame", searched)):
            print(f"  {label:<36} p50 {ms(percentile(costs, 50))}, p99 "
                  f"{ms(percentile(costs, 99))}  ({percentile(costs, 50) / base:.1f}x the "
                  "baseline's p50)")
    CHOICES.forget()


# ------------------------------------------------------------------------------- CPU share

# The CPU run: one match through every phase the hall display shows, ``--seconds`` each.
# Play-off stage: the tie after period 2 goes to a shootout (rules 000 'The winning goal race').
CPU_CONFIG = f'[match]\npreset = "{PRESET}"\nstage = "playoff"\n[display]\nsize = "1920x1080"\n'
# The display loop is compared without the audio horn: the naive loop has none, and the
# horn's mixer is not the display's (SDL's audio thread mixes a buffer every 11.6 ms,
# display or not). What it adds is measured on its own, in a third run with it on.
NO_AUDIO = '[console.horn]\naudio = false\n'
WITH_AUDIO = '[console.horn]\naudio = "auto"\n'
PHASES = ("pregame (1/s)", "running (1/s)", "last minute (tenths)", "stopped (1/s)",
          "break (tenths)", "shootout (1/s)")
MAX_PHASE_S = 50  # the last minute and the 1-minute break must not run out within a phase
SETTLE_NS = NS_PER_S // 2  # a phase's first half second (its change drawn) is not measured
PPM = 1_000_000  # CPU share in parts per million of a core (whole numbers for percentiles)


def phase_script(seconds: int) -> str:
    """Pregame for ``seconds``, then the clock running above a minute, in the last minute
    (tenths), stopped, the break (tenths: under a minute), the shootout; ``seconds`` each."""
    p = seconds
    lines: list[dict[str, Any]] = [
        {"t": p, "do": "start"},
        {"t": p, "do": "set_clock", "ms": (60 + p) * 1000},  # 1:00 exactly at 2p
        {"t": 3 * p, "do": "stop"},
        {"t": 4 * p, "do": "end"},  # period 1 ends: the break runs
        {"t": 5 * p, "do": "end"},  # the break ends; period 2 waits, stopped
        {"t": 5 * p, "do": "end"},  # period 2 ends 0:0: the shootout
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


@dataclass
class PhaseUsage:
    shares_ppm: list[int]  # CPU share of each whole second measured
    cpu_ns: int = 0
    wall_ns: int = 0
    frames: int = 0

    @property
    def share(self) -> float:
        return 100 * self.cpu_ns / self.wall_ns if self.wall_ns else 0.0


def sample_phases(seconds: int, origin: int, advance: Callable[[int], None],
                  frames: Callable[[], int]) -> list[PhaseUsage]:
    """For each phase: ``advance`` (the loop under test) to its start plus SETTLE_NS, then
    one whole second at a time, each charged the process's CPU time over its wall time."""
    out = []
    for k in range(len(PHASES)):
        begin = origin + k * seconds * NS_PER_S + SETTLE_NS
        advance(begin)
        usage = PhaseUsage([])
        shown = frames()
        for second in range(1, seconds):
            cpu, wall = time.process_time_ns(), time.monotonic_ns()
            advance(begin + second * NS_PER_S)
            took_cpu, took_wall = time.process_time_ns() - cpu, time.monotonic_ns() - wall
            usage.shares_ppm.append(PPM * 100 * took_cpu // max(1, took_wall))
            usage.cpu_ns += took_cpu
            usage.wall_ns += took_wall
        usage.frames = frames() - shown
        out.append(usage)
    return out


class BenchParts(HallParts):
    """The real parts (mock pins, the horn's thread, the headless display), no keypad."""

    def keys(self, config: Config, clock: TimeSource) -> KeySource:
        return NoKeys()  # the bench must not read this machine's input devices


def display_mode() -> Mode:
    """Headless on a driver that shows nothing, else full screen (KMSDRM: the only way)."""
    driver = os.environ.get("SDL_VIDEODRIVER", "")
    return "headless" if driver.lower() in HEADLESS_DRIVERS else "fullscreen"


def ours(seconds: int, folder: Path, horn: str = NO_AUDIO) -> list[PhaseUsage]:
    """The daemon itself (``Daemon.run_until`` on the OS clock): its loop, its waits, its
    journal and horn thread, the frames at the core's display deadlines; ``horn`` says
    whether the audio horn (SDL's mixer and its audio thread) runs too."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "phases.jsonl"
    script.write_text(phase_script(seconds), encoding="utf-8")
    config = parse_config(tomllib.loads(CPU_CONFIG + horn), "bench config")
    options = RunOptions(display_mode=display_mode(), pin_factory="mock",
                         state_dir=folder / "state", script=script)
    daemon = Daemon(config, options, parts=BenchParts())
    daemon.start()
    try:
        assert daemon.script is not None
        return sample_phases(seconds, daemon.script.origin, daemon.run_until,
                             lambda: daemon.frame_count)
    finally:
        daemon.request_stop("bench done")
        daemon.shutdown()


def naive(seconds: int, display: Display, options: LayoutOptions) -> list[PhaseUsage]:
    """The same script on the core, everything every 1/60 s: the state now, the whole
    screen laid out afresh and redrawn (the renderer forgets its frame), all of it
    updated."""
    preset = presets.load(PRESET)
    match = Match(preset, MatchSetup(stage=Stage.PLAYOFF))
    rest = parse_script(phase_script(seconds), "phases")
    clock = pygame.time.Clock()
    origin = time.monotonic_ns()
    count = [0]

    def advance(until: int) -> None:
        while (now := time.monotonic_ns()) < until:
            while rest and origin + rest[0].t <= now:
                line = rest.pop(0)
                feed(match, replace(line.command, at=origin + line.t))
            match.advance(now)
            between = between_games(match, now, pending=None, loaded=None, standings={},
                                    final_hold=0)
            # Laid out afresh (Display.draw would lay out from the renderer's memory).
            frame = layout(state_document(match, now), display.size, between=between,
                           measure=fonts.measure, options=options)
            display.renderer.invalidate()
            display.renderer.draw(frame)
            pygame.display.update()
            count[0] += 1
            clock.tick(NAIVE_FPS)

    return sample_phases(seconds, origin, advance, lambda: count[0])


def usage_line(label: str, usage: PhaseUsage) -> str:
    s = usage.shares_ppm
    wall_s = usage.wall_ns / NS_PER_S
    return (f"  {label:<22} CPU {usage.share:6.2f} % of a core; per second p50 "
            f"{percentile(s, 50) / PPM:6.2f} %, p90 {percentile(s, 90) / PPM:6.2f} %, max "
            f"{max(s) / PPM:6.2f} %; {usage.frames / wall_s:5.1f} frames/s")


def bench_cpu(seconds: int, options: LayoutOptions) -> None:
    print(f"CPU share of the display loop, phase by phase ({seconds} s each, the first "
          f"{SETTLE_NS / NS_PER_S} s of each not measured): ours, then naive, one process")
    with tempfile.TemporaryDirectory(prefix="bench-render-") as folder:
        mine = ours(seconds, Path(folder) / "silent")
        sounding = ours(seconds, Path(folder) / "audio", WITH_AUDIO)
    print(" ours: the daemon (Daemon.run_until, the OS clock): frames at the display "
          "deadlines, only the changes, asleep between them (never a spin); the horn on "
          "the relay only")
    for label, usage in zip(PHASES, mine, strict=True):
        print(usage_line(label, usage))
    print(" ours with the audio horn too ([console.horn] audio, SDL's "
          f"{os.environ['SDL_AUDIODRIVER']} audio driver): what its mixer thread adds")
    for label, usage, silent in zip(PHASES, sounding, mine, strict=True):
        print(f"{usage_line(label, usage)}; +{usage.share - silent.share:.2f} points")
    display = Display(display_mode(), SIZE)
    try:
        theirs = naive(seconds, display, options)
    finally:
        display.close()
    print(f" naive: everything every 1/{NAIVE_FPS} s, pygame.time.Clock.tick({NAIVE_FPS}) "
          "(whole ms: a little over 60/s)")
    for label, usage in zip(PHASES, theirs, strict=True):
        print(usage_line(label, usage))
    print(" ratio naive/ours, both without an audio horn (CPU share over the phase; and of "
          "the per-second p50s)")
    for label, n, o in zip(PHASES, theirs, mine, strict=True):
        p50 = percentile(o.shares_ppm, 50)
        whole = f"{n.share / o.share:6.1f}x" if o.share > 0 else "   n/a"
        of_p50 = (f"{percentile(n.shares_ppm, 50) / p50:6.1f}x" if p50 > 0 else "   n/a")
        print(f"  {label:<22} {whole}   (p50s {of_p50})")


# ------------------------------------------------------------------------------- main

def choose_driver(driver: str) -> None:
    """``SDL_VIDEODRIVER`` for every display this run opens (``env``: as it is)."""
    if driver != "env":
        os.environ["SDL_VIDEODRIVER"] = driver


def header() -> None:
    machine = platform.machine()
    pi = machine in ("aarch64", "armv7l", "armv6l")
    print("bench/render.py: hall display cost (a benchmark, not a test)")
    print(f"machine   {machine}, {os.cpu_count()} cores, {platform.system()} "
          f"{platform.release()}; Python {platform.python_version()}, pygame-ce "
          f"{pygame.version.ver}, SDL {'.'.join(map(str, pygame.get_sdl_version()))}, "
          f"video driver {pygame.display.get_driver()}")
    if not pi:
        print(f"          NOT a Raspberry Pi ({machine}): absolute figures will be higher on a "
              "Pi; compare the ratios")
    driver = pygame.display.get_driver()
    if driver in HEADLESS_DRIVERS:
        print(f"          {driver} video driver: display.update reaches no screen, its real "
              "cost (kmsdrm) is not included")
    else:
        hints = {h: os.environ[h] for h in ("SDL_FRAMEBUFFER_ACCELERATION",
                                            "SDL_RENDER_DRIVER") if os.environ.get(h)}
        print(f"          {driver} video driver, full screen: display.update to the screen "
              f"included; {' '.join(f'{k}={v}' for k, v in hints.items()) or 'no hints'}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(
            "Benchmark, not a test: the hall display's frame cost at 1920x1080 (full redraw "
            "against redrawing only what changed; p50/p99/max and the ratio), the game screen's "
            "relayout (the far-seat search, remembered and afresh, against the standard "
            "arrangement alone) and the CPU "
            "share of the daemon's display loop in every phase of a match (pregame, "
            "running, last minute, stopped, break, shootout) against a naive loop that "
            "redraws everything at 60 fps (percentiles, and the ratio). Headless "
            "(SDL dummy driver) unless --driver says; asserts nothing, exits 0; figures "
            "depend on the machine."
        ),
    )
    parser.add_argument(
        # 2 at least: a phase's first half second is not measured, then one sample a second.
        "--seconds", type=whole_number(MAX_PHASE_S, low=2), default=10,
        help=f"wall time of each phase of the CPU-share runs, ours and naive (default 10, "
             f"2 to {MAX_PHASE_S}: the last minute and the break must last; 6 phases, so "
             "the three runs take 18 times this)",
    )
    parser.add_argument(
        "--frames", type=whole_number(10_000), default=600,
        help="frames per frame-cost run (default 600; the last minute has at most 599 "
             "tenths before zero, so that run stops there)",
    )
    parser.add_argument(
        "--driver", default="dummy", metavar="NAME",
        help="SDL video driver: dummy (default: headless at 1920x1080), kmsdrm (a Pi's "
             "console, or a virtual one: full screen at its size, the update to the screen "
             "measured), any other SDL knows, or env (SDL_VIDEODRIVER as set, else SDL's "
             "own choice)",
    )
    add_write_docs(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    choose_driver(args.driver)
    try:
        display = Display(display_mode(), SIZE)
    except pygame.error as err:
        print(f"bench/render.py: cannot open the display on SDL video driver "
              f"{os.environ.get('SDL_VIDEODRIVER', '(SDL default)')}: {err}", file=sys.stderr)
        return 2
    options = options_for(presets.load(PRESET))
    try:
        header()
        bench_frame_costs(display.renderer.surface, args.frames, options)
        bench_relayout(display.renderer.surface.get_size(), args.frames, options)
    finally:
        display.close()  # the daemon opens the display its own way
    bench_cpu(args.seconds, options)
    return 0


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "render"))
