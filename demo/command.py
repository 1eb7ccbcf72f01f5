"""The ``arena-demo`` command line: its options, its help, and which demo they ask for."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from demo.examples import EXAMPLES_DIR, play_examples
from demo.orchestration import DEFAULT_TIME_SCALE, DEFAULT_TIMEOUT_S, run_demo
from demo.tournaments import DEMO_DIR

DESCRIPTION = """\
Play a short tournament day on this machine, in under a minute, as a real one runs: one
event (examples/demo/event.toml: junior football by rules 003) with two categories, P08
(preset football-p08) and P10 (football-p10), each one group of three teams and a follow-up
match of the first two, sharing two halls.

It starts a private mosquitto on a free 127.0.0.1 port (if mosquitto is installed; without
it the halls play alone and there are no tables), one `office serve` for the whole event
(its office page on http://127.0.0.1:PORT/, printed at the start), and two halls:
`scoreboard run` with mock pins and its own state, playing the timekeeper's script
(examples/demo/event/<match>.jsonl) of its first match, then of each match the office
sends it as next, of either category (a hall's next is its next match across the
categories), on a clock that runs --time-scale times real time. The hall displays open in
windows where there is a screen (DISPLAY or WAYLAND_DISPLAY), else (and with --headless)
the halls run headless; either way they draw a PNG at every phase change. What each hall
journals (goals, periods, results, the matches the office sends) is printed here as it
happens, behind the hall's name.

In P08 two teams end level after every criterion of rules 003: the follow-up has no teams
until the office draws lots, which the demo does as an office would (`office draw-lots
--random`, seed printed). When every hall is done it prints each category's group tables
the office computed, with the "why" column, says where the PNGs are, and stops everything
it started. Exit code 0 when all went well; 1 with the end of the log of what failed; 130
on Ctrl-C.
"""


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``arena-demo``."""
    p.add_argument("--headless", action="store_true",
                   help="no windows even where there is a screen: the halls draw PNG "
                   "snapshots")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="work dir to keep: the PNG snapshots (DIR/<hall>/), the logs "
                   "(DIR/logs/), the halls' journals (DIR/state/), the office store "
                   "(DIR/office/), the public site's static export (DIR/site/) and the generated "
                   "configs. Must be empty, new, or a "
                   "previous demo's. Default: a temporary folder, removed after a good run")
    p.add_argument("--time-scale", type=_positive, default=DEFAULT_TIME_SCALE, metavar="X",
                   help="the halls' clocks run X times real time (default %(default)g: the "
                   "whole demo takes well under a minute)")
    p.add_argument("--timeout", type=_positive, default=DEFAULT_TIMEOUT_S, metavar="S",
                   help="give up (and say why) if the halls are not done after S seconds "
                   "(default %(default)g)")
    p.add_argument("--without-office", action="store_true",
                   help="do not start mosquitto and the office even if installed: the halls "
                   "play alone, as when mosquitto is missing")
    p.add_argument("--verbose", action="store_true",
                   help="also print every line the halls log, as they log it (behind "
                   "'<hall> log |'); every line is in the work dir's logs/<hall>.log either "
                   "way")
    p.add_argument("--demo-dir", type=Path, default=DEMO_DIR, help=argparse.SUPPRESS)
    p.add_argument("--examples", nargs="?", type=Path, const=EXAMPLES_DIR, default=None,
                   metavar="DIR",
                   help="the small demo instead: narrate the example games of "
                   "examples/replay/ (or DIR) through the scoreboard's rules, no processes, "
                   "no network")
    p.add_argument("--pictures", type=Path, default=None, metavar="DIR",
                   help="with --examples (implies it): also draw the hall display (1280x720 "
                   "PNGs, headless) at every goal, penalty, period, break, shot and result")


def run(args: argparse.Namespace) -> int:
    """``arena-demo``: the small demo with --examples or --pictures, else the
    tournament day. Returns the exit code."""
    if args.examples is not None or args.pictures is not None:
        return play_examples(args.examples or EXAMPLES_DIR, sys.stdout, args.pictures)
    return run_demo(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena-demo",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """The ``arena-demo`` command."""
    return run(build_parser().parse_args(argv))
