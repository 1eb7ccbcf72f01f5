"""``scoreboard replay``: its options and what it prints (docs/developer.md, "Replay scripts")."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from arena import presets, words
from arena.core.match import Match
from arena.core.phase import PLAYED_STAGES, Stage
from arena.core.preset import Preset
from arena.core.values import MatchSetup
from arena.keys import LAYOUTS
from firmware_py import replaypublisher
from firmware_py.replay import DayError, play
from firmware_py.replayday import MatchDay, parse_wall
from firmware_py.replaymatch import (
    FromTournament,
    ReplayMatchError,
    from_tournament,
    is_tournament_file,
)
from firmware_py.script import parse_replay_script, parse_time

EXIT_BAD_INPUT = 2

DESCRIPTION = (
    "Play a JSON Lines script of timekeeper actions ({\"t\": seconds, \"do\": command, "
    "...}) through the same rules as the live scoreboard and print one state document "
    "(JSON, one a line) per --at time, in the order given, with the records a timekeeper "
    "can cancel or correct (their seq and CANCEL number). A script may also press keys by "
    "their key-map names ({\"t\": 3, \"key\": \"KEY_KP5\"}: through the console and the "
    "keypad's entry grammar, as at the table) and give the match day ({\"t\": 0, "
    "\"match_day\": {\"clock\": \"09:40\", \"scheduled\": \"10:30\"}}: the pregame's "
    "countdowns, the warm-up horn and the schedule line). A command the rules refuse "
    "is reported on stderr with its line number and skipped; a malformed line stops the "
    "replay with exit code 2. A command at exactly an --at time is applied before that "
    "snapshot."
)

EPILOG = """\
examples:
  scoreboard replay examples/replay/ice-hockey-2x20.jsonl --preset ice-hockey-2x20 --at 300
  scoreboard replay drill.jsonl --preset youth-hockey-3x18 --clock 09:45 --scheduled 10:30 \\
      --at 0 --at 900 --answers answers.jsonl
  scoreboard replay game.jsonl --tournament cup.toml --match A3 --at 3000
  scoreboard replay game.jsonl --tournament cup.toml --match A3 \\
      --publish mqtt://127.0.0.1:1883 --journal resend

--tournament FILE (a path: it has a '/' or ends in .toml) plays the file's match as its
schedule names it: the teams (names, colours, rosters), stage, preset and hall, and the
scheduled start (with --clock: the match day). Published so, a re-sent result is stored by
the office as final; under other names (--home/--away, default Home and Away) it waits for
the office's review. A published script's keys are played through the console first: the
commands they make are sent (a match day changes no event)."""


def _seconds(text: str) -> Decimal:
    try:
        value = Decimal(text)
        parse_time(value)
    except (InvalidOperation, ValueError) as err:
        raise argparse.ArgumentTypeError(f"--at takes seconds >= 0, got {text!r}") from err
    return value


def _wall_option(text: str) -> str:
    try:
        parse_wall(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from err
    return text


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "replay", help="play a script of timekeeper actions (or keys) and print state documents",
        description=textwrap.fill(DESCRIPTION, 88), epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("script", type=Path, help="the script (JSON Lines)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--preset", metavar="NAME",
                       help=f"a bundled rule preset: {', '.join(presets.names())} (required "
                       "unless --tournament FILE names the match's)")
    group.add_argument("--preset-file", metavar="PATH", type=Path,
                       help="a preset TOML file of your own (see arena/presets/)")
    p.add_argument("--stage", choices=[s.value for s in PLAYED_STAGES], default=None,
                   help="group (a draw may stand) or playoff (played to a decision); "
                   "default: the tournament file's, else group")
    p.add_argument("--match", default="M1", help="the match id shown in the state (with "
                   "--tournament FILE: the file's match played); default M1")
    p.add_argument("--home", metavar="NAME", help="the home team's name; default: the "
                   "tournament file's, else Home")
    p.add_argument("--away", metavar="NAME", help="the away team's name; default: the "
                   "tournament file's, else Away")
    p.add_argument("--at", type=_seconds, action="append", metavar="S",
                   help="script time in seconds of a snapshot; repeat for more (required "
                   "unless --publish)")
    day = p.add_argument_group("the match day (or a script's match_day line)")
    day.add_argument("--clock", type=_wall_option, metavar="HH:MM[:SS]",
                     help="the hall's clock of day at script time 0")
    day.add_argument("--scheduled", type=_wall_option, metavar="HH:MM",
                     help="the match's scheduled start (default: the tournament file's)")
    day.add_argument("--next", type=_wall_option, metavar="HH:MM",
                     help="the hall's next match's start: when this one must be over "
                     "(default: the tournament file's next match in the hall)")
    keys = p.add_argument_group("key presses")
    keys.add_argument("--layout", choices=LAYOUTS, default="keyboard",
                      help="the key map the script's key names are looked up in (the one key "
                      "map of the shared domain); default keyboard: the numpad's keys and a "
                      "letter per action")
    keys.add_argument("--answers", type=Path, metavar="FILE",
                      help="write what the operator view shows after each key (its entry "
                      "and the press's outcome) to FILE, one JSON object a key")
    keys.add_argument("--language", choices=words.LANGUAGES, default=words.DEFAULT,
                      help="the language of those answers (the hall's [display] language); "
                      "default en")
    p.add_argument("--publish", metavar="mqtt://HOST:PORT",
                   help="publish the game's events over MQTT as a live hall would (journal, "
                   "outbox, QoS 1), instead of printing snapshots")
    p.add_argument("--tournament", metavar="ID|FILE",
                   help="the tournament file: the match's teams, stage, preset, hall and "
                   "scheduled start from it; or, with --publish, the tournament id in the "
                   "topics")
    p.add_argument("--hall", help="with --publish: the hall id in the topics (default: the "
                   "tournament file's match's)")
    p.add_argument("--journal", type=Path, metavar="DIR",
                   help="with --publish: journal folder (resumed if it holds the match)")
    p.add_argument("--config", type=Path, metavar="FILE",
                   help="with --publish: broker, tournament, hall and credentials from the "
                   "config file's [mqtt] table (then --publish may be given as 'config')")
    p.add_argument("--speed", type=float, default=0.0,
                   help="with --publish: script seconds per real second; 0 = no waiting")
    p.set_defaults(func=cmd_replay)


def _published(args: argparse.Namespace) -> int:
    file = args.tournament is not None and is_tournament_file(args.tournament)
    needed = ("journal",) if args.config or file else ("tournament", "hall", "journal")
    missing = [f"--{k}" for k in needed if getattr(args, k) is None]
    if missing:
        print(f"scoreboard replay: --publish needs {', '.join(missing)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    argv = [str(args.script), "--match", args.match, "--journal", str(args.journal),
            "--speed", str(args.speed)]
    if args.publish != "config":
        argv += ["--broker", args.publish]
    for option in ("tournament", "hall", "config", "stage", "home", "away"):
        if getattr(args, option) is not None:
            argv += [f"--{option}", str(getattr(args, option))]
    if args.preset_file is not None:
        argv += ["--preset-file", str(args.preset_file)]
    elif args.preset is not None:
        argv += ["--preset", args.preset]
    return replaypublisher.main(argv)


def _match(args: argparse.Namespace, found: FromTournament | None) -> Match:
    if args.preset is None and args.preset_file is None and found is None:
        raise ReplayMatchError("give --preset or --preset-file (or --tournament FILE)")
    preset: Preset
    if args.preset_file is not None:
        preset = presets.load_file(args.preset_file)
    else:
        preset = presets.load(args.preset or (found.preset if found else ""))
    base = found.setup if found is not None else MatchSetup(match_id=args.match)
    setup = replace(base, stage=Stage(args.stage) if args.stage else base.stage,
                    home=replace(base.home, name=args.home or base.home.name),
                    away=replace(base.away, name=args.away or base.away.name))
    return Match(preset, setup)


def _day(args: argparse.Namespace, found: FromTournament | None) -> MatchDay:
    given = MatchDay(*(None if v is None else parse_wall(v)
                       for v in (args.clock, args.scheduled, args.next)))
    return given.over(found.day) if found is not None else given


def cmd_replay(args: argparse.Namespace) -> int:
    if args.publish:
        return _published(args)
    if not args.at:
        print("scoreboard replay: give at least one --at S (or --publish)", file=sys.stderr)
        return EXIT_BAD_INPUT
    found = None
    if args.tournament is not None:
        if not is_tournament_file(args.tournament):
            print(f"scoreboard replay: --tournament {args.tournament!r} without --publish must "
                  "be the tournament file (a path: it has a '/' or ends in .toml)",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        found = from_tournament(Path(args.tournament), args.match)
    match = _match(args, found)
    try:
        text = args.script.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(f"scoreboard replay: cannot read {args.script}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    script = parse_replay_script(text, str(args.script), args.layout)
    try:
        played = play(match, script, [parse_time(s) for s in args.at], day=_day(args, found),
                      lang=args.language)
    except DayError as err:
        print(f"scoreboard replay: {args.script} {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for refusal in played.refusals:
        print(f"{args.script} line {refusal.line}: {refusal.message}", file=sys.stderr)
    for seconds, document in zip(args.at, played.snapshots, strict=True):
        print(json.dumps({"t": float(seconds), **document}))
    if args.answers is not None:
        args.answers.write_text("".join(json.dumps(a, ensure_ascii=False) + "\n"
                                        for a in played.answers), encoding="utf-8")
    return 0
