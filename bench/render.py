"""Benchmark: what the hall display costs at 1920x1080, per frame and in CPU share.

Two measurements, each against a baseline run in the same process:

1. Frame cost (layout + draw, ``perf_counter_ns``) over the same state documents of a running
   game, taken at successive display deadlines: a full redraw of every item (the renderer
   forced to forget its previous frame, its image cache kept warm) against the real path,
   which redraws only what changed. Once in the last minute (the clock shows tenths) and
   once above a minute (whole seconds). Prints p50/p99/max and the ratio of the p50s.
2. CPU share (process CPU time over wall time) of the display loop over ``--seconds`` of a
   running clock: ours wakes at each ``Match.display_deadline`` through ``FramePacer`` and
   ``wait_until`` exactly as ``display.pacing`` prescribes (10 frames/s under a minute, 1/s
   above), draws only the changes and updates only those rectangles; the naive loop lays
   out and redraws everything and updates the whole screen every 1/60 s
   (``pygame.time.Clock.tick(60)``, the pygame tutorial loop). Half of each run is above a
   minute, half in the last minute; both halves are printed, and the ratio naive/ours.

The game on screen: period 1 of ice-hockey-2x20, 2:1, a minor penalty running.

SDL's dummy video driver: ``pygame.display.update`` copies nothing to a real screen here, so
what a Pi's kmsdrm update costs (much more for the naive full-screen update) is not in these
figures. Figures depend on the machine: the header says which one. This is a benchmark, not
a test: it asserts nothing and exits 0.

    python bench/render.py [--seconds 60] [--frames 600]
"""

from __future__ import annotations

import os

# Before pygame is imported (display imports it): headless, silent, whatever the desktop.
os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

import argparse
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The bench is a folder of scripts, not a package: make the repo top importable so this runs
# from a plain checkout without installing the project.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpuload import ms, percentile, whole_number

from display import fonts
from display._pygame import pygame
from display.layout import LayoutOptions, layout
from display.options import options_for
from display.pacing import FramePacer
from display.render import Renderer
from display.screen import Display
from display.values import clock_text
from firmware_py import presets
from firmware_py.core.commands import Command, Goal, Penalty, SetClock, Start
from firmware_py.core.match import Match, feed
from firmware_py.core.phase import Team
from firmware_py.core.state import state_document
from firmware_py.core.values import MatchSetup, TeamInfo
from firmware_py.timesource import wait_until

SIZE = (1920, 1080)
PRESET = "ice-hockey-2x20"
NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000
MINUTE_MS = 60_000  # the preset shows tenths below this
NAIVE_FPS = 60
# Frame-cost runs use simulated time: any instant far from zero will do.
SIMULATED_START_NS = 1_000 * NS_PER_S
# Above a minute, the frame-cost run starts early in the period: 600 seconds fit before 1:00.
SECONDS_RUN_START_MS = 19 * MINUTE_MS
# The CPU run's clock starts at a minute plus half the run, inside a 20-minute period.
MAX_SECONDS = 2_000

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
    """Layout + draw of each document; ``full`` forgets the previous frame before each."""
    # The frame before the run: the daemon has always drawn one already, and it warms the
    # image cache as the daemon's would be (new digits still miss, as they would there).
    renderer.invalidate()
    renderer.draw(layout(first, SIZE, measure=fonts.measure, options=options))
    out = FrameCosts([], [])
    for doc in docs:
        started = time.perf_counter_ns()
        frame = layout(doc, SIZE, measure=fonts.measure, options=options)
        if full:
            renderer.invalidate()
        dirty = renderer.draw(frame)
        out.costs_ns.append(time.perf_counter_ns() - started)
        out.repainted.append(sum(w * h for _x, _y, w, h in dirty))
    return out


def layout_costs(docs: list[Doc], options: LayoutOptions) -> FrameCosts:
    """Layout alone: how much of a steady frame is pure Python before any pixel."""
    out = FrameCosts([], [])
    for doc in docs:
        started = time.perf_counter_ns()
        layout(doc, SIZE, measure=fonts.measure, options=options)
        out.costs_ns.append(time.perf_counter_ns() - started)
    return out


def cold_frame_ns(surface: pygame.Surface, doc: Doc, options: LayoutOptions) -> int:
    """A first frame with an empty image cache (start-up, or a new window): every digit and
    name rasterised. The fonts' size tables are process-wide and already warm."""
    renderer = Renderer(SIZE, surface=surface)
    started = time.perf_counter_ns()
    renderer.draw(layout(doc, SIZE, measure=fonts.measure, options=options))
    return time.perf_counter_ns() - started


def costs_line(label: str, run: FrameCosts) -> str:
    c = run.costs_ns
    line = (f"  {label:<34} p50 {ms(percentile(c, 50))}, p99 {ms(percentile(c, 99))}, "
            f"max {ms(max(c))}  ({len(c)} frames")
    if not run.repainted:
        return line + ")"
    share = 100 * percentile(run.repainted, 50) / (SIZE[0] * SIZE[1])
    return line + f", repainted p50 {share:.1f} % of the screen)"


def bench_frame_costs(surface: pygame.Surface, frames: int, options: LayoutOptions) -> None:
    print(f"frame cost at {SIZE[0]}x{SIZE[1]}: layout + draw, the same documents for both")
    renderer = Renderer(SIZE, surface=surface)
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
        print(costs_line("full redraw (every item)", full))
        print(costs_line("only what changed (the real path)", changes))
        print(costs_line("of which layout (no pixels)", layout_costs(docs, options)))
        print(f"  ratio of p50s full/changes        {ratio:.1f}x")
    doc = state_document(running_game(SIMULATED_START_NS, MINUTE_MS), SIMULATED_START_NS)
    print(f" first frame, empty image cache      {ms(cold_frame_ns(surface, doc, options))}"
          " (once, at start-up)")


# ------------------------------------------------------------------------------- CPU share

@dataclass
class Usage:
    cpu_ns: int = 0
    wall_ns: int = 0
    frames: int = 0
    drawing_cpu_ns: int = 0  # state document + layout + draw + update, without the waits

    @property
    def share(self) -> float:
        return 100 * self.cpu_ns / self.wall_ns if self.wall_ns else 0.0


Loop = Callable[[Usage], None]


def measured(loop: Loop) -> Usage:
    """Run ``loop`` and charge it the process's CPU time and the wall time it took."""
    usage = Usage()
    cpu, wall = time.process_time_ns(), time.monotonic_ns()
    loop(usage)
    usage.cpu_ns = time.process_time_ns() - cpu
    usage.wall_ns = time.monotonic_ns() - wall
    return usage


def ours_until(display: Display, match: Match, pacer: FramePacer, options: LayoutOptions,
               until: int) -> Loop:
    """The daemon's display loop (``display.pacing``), frames presented up to ``until``."""
    def loop(usage: Usage) -> None:
        while (plan := pacer.plan(time.monotonic_ns())).present_at <= until:
            wait_until(plan.render_at)
            cpu, started = time.process_time_ns(), time.monotonic_ns()
            match.advance(plan.present_at)
            doc = state_document(match, plan.present_at)  # the value for that instant
            dirty = display.draw(doc, options=options)
            pacer.rendered(time.monotonic_ns() - started)
            usage.drawing_cpu_ns += time.process_time_ns() - cpu
            wait_until(plan.present_at)
            display.present(dirty)
            usage.frames += 1
        # The next frame lies beyond the window: the daemon would be asleep until then.
        time.sleep(max(0, until - time.monotonic_ns()) / NS_PER_S)
    return loop


def naive_until(renderer: Renderer, match: Match, options: LayoutOptions,
                until: int) -> Loop:
    """Everything, every 1/60 s: lay out, redraw the whole screen, update all of it."""
    clock = pygame.time.Clock()

    def loop(usage: Usage) -> None:
        while (now := time.monotonic_ns()) < until:
            cpu = time.process_time_ns()
            match.advance(now)
            renderer.invalidate()
            renderer.draw(layout(state_document(match, now), SIZE, measure=fonts.measure,
                                 options=options))
            pygame.display.update()
            usage.drawing_cpu_ns += time.process_time_ns() - cpu
            usage.frames += 1
            clock.tick(NAIVE_FPS)
    return loop


# Given the match, the loop that draws it until an instant (the same state for both halves).
Prepare = Callable[[Match], Callable[[int], Loop]]


def split_run(seconds: int, prepare: Prepare, warm: Callable[[Doc], None]
              ) -> tuple[Usage, Usage]:
    """One run of ``seconds`` on a clock that starts ``seconds / 2`` above a minute: the
    usage above a minute, then in the last minute (the same match, renderer and caches)."""
    half_ns = seconds * NS_PER_S // 2
    remaining_ms = MINUTE_MS + half_ns // NS_PER_MS
    now = time.monotonic_ns()
    warm(state_document(running_game(now, remaining_ms), now))  # start-up, not steady state
    start = time.monotonic_ns()
    match = running_game(start, remaining_ms)
    until = prepare(match)
    above = measured(until(start + half_ns))
    below = measured(until(start + 2 * half_ns))
    return above, below


def usage_line(label: str, usage: Usage) -> str:
    wall_s = usage.wall_ns / NS_PER_S
    drawing = 100 * usage.drawing_cpu_ns / usage.wall_ns if usage.wall_ns else 0.0
    # The rest is the loop between frames: for ours wait_until's spin, for naive tick().
    return (f"  {label:<28} CPU {usage.share:6.2f} % of one core (drawing {drawing:5.2f} %, "
            f"waiting {usage.share - drawing:5.2f} %), {usage.frames} frames in {wall_s:.1f} s "
            f"({usage.frames / wall_s:.1f}/s)")


def ratio_line(label: str, naive: Usage, ours: Usage) -> str:
    ratio = f"{naive.share / ours.share:.1f}x" if ours.share > 0 else "n/a (ours measured 0)"
    return f"  ratio naive/ours, {label:<26} {ratio}"


def bench_cpu(display: Display, seconds: int, options: LayoutOptions) -> None:
    print(f"CPU share of the display loop: {seconds} s each, ours then naive, one process; "
          f"the clock runs from {(MINUTE_MS + seconds * 500) / 1000:.1f} s left: half above "
          "a minute, half in the last minute")

    def prepare_ours(match: Match) -> Callable[[int], Loop]:
        pacer = FramePacer(match.display_deadline)  # its learned lead carries across halves
        return lambda until: ours_until(display, match, pacer, options, until)

    def warm_ours(doc: Doc) -> None:
        display.renderer.invalidate()
        display.draw(doc, options=options)

    naive_renderer = Renderer(SIZE, surface=display.renderer.surface)

    def prepare_naive(match: Match) -> Callable[[int], Loop]:
        return lambda until: naive_until(naive_renderer, match, options, until)

    def warm_naive(doc: Doc) -> None:
        naive_renderer.draw(layout(doc, SIZE, measure=fonts.measure, options=options))

    ours = split_run(seconds, prepare_ours, warm_ours)
    naive = split_run(seconds, prepare_naive, warm_naive)
    halves = ("above a minute (1/s)", "last minute (tenths)")
    print(" ours: frames at display deadlines, only the changes, wait_until (sleep, then spin"
          " the last 2 ms)")
    for label, usage in zip(halves, ours, strict=True):
        print(usage_line(label, usage))
    print(f" naive: everything every 1/{NAIVE_FPS} s, pygame.time.Clock.tick({NAIVE_FPS}) "
          "(whole ms: a little over 60/s)")
    for label, usage in zip(halves, naive, strict=True):
        print(usage_line(label, usage))
    for label, n, o in zip(halves, naive, ours, strict=True):
        print(ratio_line(label, n, o))
    print(ratio_line("whole run", total(naive), total(ours)))


def total(halves: tuple[Usage, Usage]) -> Usage:
    a, b = halves
    return Usage(a.cpu_ns + b.cpu_ns, a.wall_ns + b.wall_ns, a.frames + b.frames,
                 a.drawing_cpu_ns + b.drawing_cpu_ns)


# ------------------------------------------------------------------------------- main

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
    print("          dummy video driver: display.update reaches no screen, its real cost "
          "(kmsdrm) is not included")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(
            "Benchmark, not a test: the hall display's frame cost at 1920x1080 (full redraw "
            "against redrawing only what changed; p50/p99/max and the ratio) and the CPU "
            "share of the display loop over a running clock at its own frame rate against a "
            "naive loop that redraws everything at 60 fps (both, and the ratio). Headless "
            "(SDL dummy driver); asserts nothing, exits 0; figures depend on the machine."
        ),
    )
    parser.add_argument(
        "--seconds", type=whole_number(MAX_SECONDS), default=60,
        help="wall time of each CPU-share run, ours and naive (default 60; e.g. 5 for a "
             "quick check); half above a minute on the clock, half in the last minute",
    )
    parser.add_argument(
        "--frames", type=whole_number(10_000), default=600,
        help="frames per frame-cost run (default 600; the last minute has at most 599 "
             "tenths before zero, so that run stops there)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    display = Display("headless", SIZE)
    try:
        header()
        options = options_for(presets.load(PRESET))
        bench_frame_costs(display.renderer.surface, args.frames, options)
        bench_cpu(display, args.seconds, options)
    finally:
        display.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
