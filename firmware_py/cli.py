"""The ``scoreboard`` command."""

from __future__ import annotations

import argparse
import json
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path

from display import snapshot as display_snapshot
from firmware_py import presets, publish
from firmware_py.core.errors import ScoreboardError
from firmware_py.core.match import Match, MatchSetup
from firmware_py.core.phase import Stage
from firmware_py.core.preset import Preset
from firmware_py.demo import play_examples
from firmware_py.replay import replay
from firmware_py.script import ScriptError, parse_script, parse_time
from hardware.console import load_config
from hardware.horn import force_off

EXIT_BAD_INPUT = 2


def _seconds(text: str) -> Decimal:
    try:
        value = Decimal(text)
        parse_time(value)
    except (InvalidOperation, ValueError) as err:
        raise argparse.ArgumentTypeError(f"--at takes seconds >= 0, got {text!r}") from err
    return value


def _add_preset_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--preset", metavar="NAME",
                       help=f"a bundled rule preset: {', '.join(presets.names())}")
    group.add_argument("--preset-file", metavar="PATH", type=Path,
                       help="a preset TOML file of your own (see firmware_py/presets/)")


def _load_preset(args: argparse.Namespace) -> Preset:
    if args.preset_file is not None:
        return presets.load_file(args.preset_file)
    return presets.load(args.preset)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scoreboard",
        description="Arena Scoreboard: the hall's game clock, horn and display controller.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "replay",
        help="play a script of timekeeper actions and print state documents",
        description=(
            "Play a JSON Lines script of timekeeper actions ({\"t\": seconds, \"do\": command, "
            "...}) through the same rules as the live scoreboard and print one state document "
            "(JSON, one a line) per --at time, in the order given. A command the rules refuse "
            "is reported on stderr with its line number and skipped; a malformed line stops the "
            "replay with exit code 2. A command at exactly an --at time is applied before that "
            "snapshot."
        ),
    )
    p.add_argument("script", type=Path, help="the script (JSON Lines)")
    _add_preset_options(p)
    p.add_argument("--stage", choices=[s.value for s in Stage], default="group",
                   help="group (a draw may stand) or playoff (played to a decision); "
                   "default: group")
    p.add_argument("--match", default="M1", help="the match id shown in the state; default M1")
    p.add_argument("--at", type=_seconds, action="append", metavar="S",
                   help="script time in seconds of a snapshot; repeat for more (required "
                   "unless --publish)")
    p.add_argument("--publish", metavar="mqtt://HOST:PORT",
                   help="publish the game's events over MQTT as a live hall would (journal, "
                   "outbox, QoS 1), instead of printing snapshots")
    p.add_argument("--tournament", help="with --publish: the tournament id in the topics")
    p.add_argument("--hall", help="with --publish: the hall id in the topics")
    p.add_argument("--journal", type=Path, metavar="DIR",
                   help="with --publish: journal folder (resumed if it holds the match)")
    p.add_argument("--config", type=Path, metavar="FILE",
                   help="with --publish: broker, tournament, hall and credentials from the "
                   "config file's [mqtt] table (then --publish may be given as 'config')")
    p.add_argument("--speed", type=float, default=0.0,
                   help="with --publish: script seconds per real second; 0 = no waiting")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("presets", help="list the bundled rule presets",
                       description="List the bundled rule presets with a one-line summary.")
    p.set_defaults(func=cmd_presets)

    p = sub.add_parser(
        "horn-off",
        help="drive the horn relay off (after a crash; the service's ExecStopPost)",
        description="Drive the horn relay's pin to its inactive level and release it. Run by "
        "the service after the daemon stops, so a horn left on by a crash goes quiet. Uses "
        "gpiozero's pin factory from GPIOZERO_PIN_FACTORY (lgpio on a Pi, mock for a dry run).",
    )
    p.add_argument("--pin", type=int, default=None,
                   help="BCM pin of the relay; default: the console map's horn.pin")
    p.add_argument("--active-low", action="store_true", default=None,
                   help="the relay board switches on a low input (console map: "
                   "horn.active_high = false)")
    p.set_defaults(func=cmd_horn_off)

    p = sub.add_parser(
        "snapshot",
        help="render a state document to a PNG, as the hall display shows it (headless)",
        description="Render one state document (a JSON object, or one line of scoreboard "
        "replay output: --line N; - reads standard input) to a PNG exactly as the hall "
        "display draws it. Needs no screen: works over SSH and in CI. A bad file or size is "
        "reported with what is wrong, exit code 2.",
    )
    display_snapshot.add_arguments(p)
    p.set_defaults(func=display_snapshot.run)

    p = sub.add_parser(
        "demo",
        help="replay the bundled example games and print how they went",
        description="Replay each bundled example game (examples/replay/) and print its state "
        "at every change of phase, then its result. Needs no hardware, display or network.",
    )
    p.add_argument("--examples", type=Path, default=None,
                   help="folder of example scripts; default: the repository's examples/replay")
    p.add_argument("--pictures", type=Path, default=None, metavar="DIR",
                   help="also draw the hall display (1280x720 PNGs, headless) at every goal, "
                   "penalty, period, break, shot and result into DIR")
    p.set_defaults(func=cmd_demo)
    return parser


def cmd_replay(args: argparse.Namespace) -> int:
    if args.publish:
        needed = ("journal",) if args.config else ("tournament", "hall", "journal")
        missing = [f"--{k}" for k in needed if getattr(args, k) is None]
        if missing:
            print(f"scoreboard replay: --publish needs {', '.join(missing)}", file=sys.stderr)
            return EXIT_BAD_INPUT
        argv = [str(args.script), "--match", args.match, "--stage", args.stage,
                "--journal", str(args.journal), "--speed", str(args.speed)]
        if args.publish != "config":
            argv += ["--broker", args.publish]
        for option in ("tournament", "hall", "config"):
            if getattr(args, option) is not None:
                argv += [f"--{option}", str(getattr(args, option))]
        argv += (["--preset-file", str(args.preset_file)] if args.preset_file
                 else ["--preset", args.preset])
        return publish.main(argv)
    if not args.at:
        print("scoreboard replay: give at least one --at S (or --publish)", file=sys.stderr)
        return EXIT_BAD_INPUT
    preset = _load_preset(args)
    try:
        text = args.script.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(f"scoreboard replay: cannot read {args.script}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    script = parse_script(text, str(args.script))
    match = Match(preset, MatchSetup(match_id=args.match, stage=Stage(args.stage)))
    times = [parse_time(s) for s in args.at]
    documents, refusals = replay(match, script, times)
    for refusal in refusals:
        print(f"{args.script} line {refusal.line}: {refusal.message}", file=sys.stderr)
    for seconds, document in zip(args.at, documents, strict=True):
        print(json.dumps({"t": float(seconds), **document}))
    return 0


def cmd_presets(args: argparse.Namespace) -> int:
    width = max(len(n) for n in presets.names())
    for name in presets.names():
        print(f"{name:<{width}}  {presets.load(name).summary}")
    return 0


def cmd_horn_off(args: argparse.Namespace) -> int:
    config = load_config()
    pin = args.pin if args.pin is not None else config.horn_pin
    active_high = not args.active_low if args.active_low is not None else config.horn_active_high
    try:
        force_off(pin, active_high=active_high)
    except Exception as err:  # gpiozero raises many kinds; the message is what matters here
        print(f"scoreboard horn-off: GPIO{pin}: {err.__class__.__name__}: {err}",
              file=sys.stderr)
        return 1
    print(f"horn relay on GPIO{pin} driven off ({'active high' if active_high else 'active low'})")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    folder = args.examples or Path(__file__).resolve().parent.parent / "examples" / "replay"
    return play_examples(folder, sys.stdout, args.pictures)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except ScriptError as err:
        print(f"scoreboard {args.command}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ScoreboardError as err:
        print(f"scoreboard {args.command}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return code


if __name__ == "__main__":
    sys.exit(main())
