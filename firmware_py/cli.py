"""The ``scoreboard`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from arena import presets
from arena.core.errors import ScoreboardError
from arena.core.match import Match
from arena.core.phase import PLAYED_STAGES, Stage
from arena.core.preset import Preset, cited_fields, parse_preset
from arena.core.tables import toml_value
from arena.core.units import NS_PER_S
from arena.core.values import MatchSetup
from display import snapshot as display_snapshot
from firmware_py import config as hall_config
from firmware_py import replaypublisher
from firmware_py.replay import replay
from firmware_py.runconfig import RunOptions
from firmware_py.script import ScriptError, parse_script, parse_time
from firmware_py.timeline import BOOT_ID_ENV, parse_scale
from hardware import keydocs
from hardware.console import load_config
from hardware.horn import force_off

EXIT_BAD_INPUT = 2
EXIT_IN_USE = 3  # the state folder is another scoreboard's

# Printed from the one key map (arena/keys.py, no pygame needed for `scoreboard --help`): the
# same map the window, the full screen and the evdev reader look keys up in.
KEY_MAP_HELP = keydocs.run_help()

RUN_EPILOG = KEY_MAP_HELP + f"""

headless on Linux ([keypad] evdev = "auto"; true: in every mode): USB keypads and keyboards are
read through evdev, each key at the kernel's edge time, found again when replugged (README
"Wiring the console"; the label sheet is examples/keypad-labels.md).

config: every key and its default is in examples/scoreboard.toml; a missing default file
means all defaults. Options given here win over the file.

a hall without an office ([schedule] file): a local copy of the office's event file (every
category sharing the halls) or of a tournament file; the hall plays its own matches across
the categories in start order, each with its category's preset, teams and rosters.

signals: SIGTERM/SIGINT stop in order (horn off, last state and `offline` published,
journal closed, display closed) and exit 0. Under systemd (Type=notify): READY=1 after the
first frame, WATCHDOG=1 at half of WatchdogSec, STATUS= with the match and its clock.

for tests only: {BOOT_ID_ENV}=ID pretends the machine booted again (the power-loss path:
the clock comes back stopped at its last journalled value, marked CLOCK RESTORED - CHECK)."""


PRESETS_EPILOG = """\
--show prints the preset resolved: a preset that extends another (extends = "NAME") is
shown with its bases merged in, as a match plays it and as the journal keeps it. Each field
is one line `PATH = VALUE`, and under it the rule document and section it comes from: the
`cite.FIELD = "..."` entry of its table, or of the nearest table holding it (the citation
of `penalties.kinds` covers every kind). "(no citation)" marks a field nobody cited.

citations are data, not comments: in a preset file of your own, write them beside the
fields, e.g.
  [clock]
  period_s = 900
  cite.period_s = "rules 001, 'Playing time': in the basic groups 2 x 15 mins"
"""


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
                       help="a preset TOML file of your own (see arena/presets/)")


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
    p.add_argument("--stage", choices=[s.value for s in PLAYED_STAGES], default="group",
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

    p = sub.add_parser("presets", help="list the bundled rule presets, or show one with the "
                       "rule document behind each field",
                       description="List the bundled rule presets with a one-line summary; "
                       "with --show, print one preset field by field, each with its citation.",
                       epilog=PRESETS_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--show", metavar="NAME",
                   help="a bundled preset's name, or the path of a preset file of your own "
                   "(a path has a '/' or ends in .toml)")
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
    p.add_argument("--config", type=Path, default=None, metavar="FILE",
                   help="take the pin, its polarity and the pin factory from this config "
                   "file's [console] and [gpio] tables (the service passes the hall's)")
    p.set_defaults(func=cmd_horn_off)

    p = sub.add_parser(
        "wiring",
        help="test the console's wiring: every button and key live, the horn on request",
        description="The technician's wiring test, before the first game, with the service "
        "stopped (sudo systemctl stop scoreboard): prints the config's pin map (each button's "
        "BCM and header pin, the relay's pin and polarity), then one line per input edge "
        "as it comes: the time in ms since the start (the driver's own edge stamp), the "
        "GPIO button or the USB keypad and key, pressed or released, chatter marked. "
        "Commands are lines on standard input: h [S] switches the horn relay on for S "
        "seconds (default 1), t on or off, a [S] sounds the audio horn, q quits (the relay "
        "off, and a list of the buttons never pressed). Needs no display.",
        epilog="Refuses to run while the scoreboard daemon holds the state folder (exit 3): "
        "it takes the daemon's own lock, so the service cannot start during the test either. "
        "With --mock-pins (a dry run on a PC) the commands press NAME, release NAME and "
        "tap NAME drive a button's pin.",
    )
    p.add_argument("--config", type=Path, default=None, metavar="FILE",
                   help=f"the config whose pin map, pins, keypad and horn are tested; default "
                   f"{hall_config.DEFAULT_PATH}")
    p.add_argument("--mock-pins", action="store_true",
                   help="gpiozero's mock pins instead of the config's [gpio] pin_factory")
    p.add_argument("--state-dir", type=Path, default=None, metavar="DIR",
                   help="the state folder whose lock is taken (config [state] dir)")
    p.set_defaults(func=cmd_wiring)

    p = sub.add_parser(
        "run",
        help="run the scoreboard: console, clock, horn, display, serial link, office link",
        description="Run the hall's scoreboard: read the console (buttons and keypad), apply "
        "every press at its edge time through the journal, sound the horn at its deadlines, "
        "draw the hall display, feed the serial link and send every event to the office. "
        "Resumes the match on the board after a crash (a running clock exactly where the "
        "game is) or a power loss (the clock stopped at its last journalled value).",
        epilog=RUN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--config", type=Path, default=None, metavar="FILE",
                   help=f"the config file; default {hall_config.DEFAULT_PATH}")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--windowed", dest="display_mode", action="store_const",
                      const="windowed", help="a window on a desktop; the keyboard stands in "
                      "for the console buttons (key map below)")
    mode.add_argument("--fullscreen", dest="display_mode", action="store_const",
                      const="fullscreen", help="full screen (on a Pi console: KMSDRM)")
    mode.add_argument("--headless", dest="display_mode", action="store_const",
                      const="headless", help="no screen: SDL's dummy driver; every state "
                      "change is logged")
    p.add_argument("--mock-pins", action="store_true",
                   help="gpiozero's mock pins instead of the config's [gpio] pin_factory")
    p.add_argument("--state-dir", type=Path, default=None, metavar="DIR",
                   help="journals, acks and the current-match pointer (config [state] dir)")
    p.add_argument("--log-level", choices=hall_config.LOG_LEVELS, default=None,
                   help="config [log] level; default info")
    p.add_argument("--script", type=Path, default=None, metavar="FILE",
                   help="play a replay script (docs/developer.md 4.2) on the match on the board: "
                   "line i at the script's origin + t_i; restart-safe (no line is played twice)")
    p.add_argument("--script-dir", type=Path, default=None, metavar="DIR",
                   help="the script of each match, DIR/<match id>.jsonl (also for matches "
                   "loaded from the office's next)")
    p.add_argument("--time-scale", type=_scale, default=None, metavar="X",
                   help="the injected clock runs X times real time (the demo); default 1")
    p.add_argument("--snapshots", type=Path, default=None, metavar="DIR",
                   help="write a PNG of the display at each phase change and at the final")
    p.add_argument("--state-file", type=Path, default=None, metavar="PATH",
                   help="write each frame's state document to PATH (atomically), and "
                   "while the between-games screen is up its data to PATH's name with "
                   ".between.json (for scoreboard snapshot --between)")
    p.add_argument("--frame-log", type=Path, default=None, metavar="PATH",
                   help="append a JSON line to PATH for each frame presented: the monotonic "
                   "instant it went on the screen and the clock it shows (bench/mirror.py "
                   "compares two boards with it)")
    p.add_argument("--exit-when-done", action="store_true",
                   help="exit 0 once the script is played, the match is final and every "
                   "event is acknowledged (or no broker is configured)")
    p.add_argument("--mirror", metavar="HALL", default=None,
                   help="a second board of HALL: show what HALL's board shows, its clock "
                   "from HALL's anchors, over the config's [mqtt] broker with the mirror's "
                   "own user; no console, pins, horn nor journal (docs/technician.md, "
                   "\"A second board\")")
    p.add_argument("--mirror-silent", metavar="S", type=float, default=None,
                   help="with --mirror: show BOARD LINK LOST after S seconds without a state "
                   "from the hall; default 25")
    p.set_defaults(func=cmd_run)

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
        return replaypublisher.main(argv)
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
    if args.show is not None:
        print(show_preset(args.show), end="")
        return 0
    width = max(len(n) for n in presets.names())
    for name in presets.names():
        print(f"{name:<{width}}  {presets.load(name).summary}")
    return 0


def show_preset(name: str) -> str:
    """A preset, resolved, field by field with the rule document behind each field."""
    is_file = "/" in name or name.endswith(".toml")
    text, source = presets.file_text(name) if is_file else presets.bundled_text(name)
    data, where = presets.resolved(text, source)
    preset = parse_preset(data, where)
    lines = [f"{preset.name}: {preset.summary}", f"  from {where}", ""]
    lines += [f"  {line}" for line in preset.rules.splitlines()]
    for path, value, citation in cited_fields(preset, data):
        if path in ("name", "summary", "rules"):
            continue
        lines += ["", f"{path} = {toml_value(value)}", f"    {citation or '(no citation)'}"]
    return "\n".join(lines) + "\n"


def _scale(text: str) -> Fraction:
    try:
        return parse_scale(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from err


def cmd_horn_off(args: argparse.Namespace) -> int:
    factory = None  # gpiozero's choice: GPIOZERO_PIN_FACTORY
    if args.config is not None:
        try:
            hall = hall_config.load(args.config)
        except hall_config.ConfigError as err:
            print(f"scoreboard horn-off: {err}", file=sys.stderr)
            return EXIT_BAD_INPUT
        config = hall.console
        if hall.pin_factory != "auto" or "GPIOZERO_PIN_FACTORY" not in os.environ:
            from firmware_py.runconfig import is_raspberry_pi, resolve_pin_factory  # noqa: PLC0415
            from hardware.pins import factory as pin_factory  # noqa: PLC0415

            factory = pin_factory(resolve_pin_factory(hall.pin_factory, pi=is_raspberry_pi()))
    else:
        config = load_config()
    pin = args.pin if args.pin is not None else config.horn_pin
    active_high = not args.active_low if args.active_low is not None else config.horn_active_high
    try:
        force_off(pin, active_high=active_high, pin_factory=factory)
    except Exception as err:  # gpiozero raises many kinds; the message is what matters here
        print(f"scoreboard horn-off: GPIO{pin}: {err.__class__.__name__}: {err}",
              file=sys.stderr)
        return 1
    print(f"horn relay on GPIO{pin} driven off ({'active high' if active_high else 'active low'})")
    return 0


def cmd_wiring(args: argparse.Namespace) -> int:
    import tempfile  # noqa: PLC0415

    from arena.timesource import SYSTEM, realtime_ns  # noqa: PLC0415
    from firmware_py import runconfig, wiring  # noqa: PLC0415 - pygame only for the test
    from firmware_py.statelock import StateLock, StateLocked  # noqa: PLC0415
    from hardware import keymap  # noqa: PLC0415
    from hardware.keypad import EvdevKeys  # noqa: PLC0415
    from hardware.pins import factory as pin_factory  # noqa: PLC0415

    try:
        config = hall_config.load(args.config)
    except hall_config.ConfigError as err:
        print(f"scoreboard wiring: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    name = "mock" if args.mock_pins else runconfig.resolve_pin_factory(
        config.pin_factory, pi=runconfig.is_raspberry_pi())
    lock = StateLock(args.state_dir or config.state_dir)
    try:
        # The daemon's lock, before any pin: the two never drive the relay at once.
        lock.acquire()
    except StateLocked as err:
        print(f"scoreboard wiring: the scoreboard is running: {err}. Stop it first: "
              "sudo systemctl stop scoreboard", file=sys.stderr)
        return EXIT_IN_USE
    wiring.stderr_logging()
    if lock.problem is not None:
        print(f"scoreboard wiring: note: {lock.problem}", file=sys.stderr)
    keys = None
    if keymap.enabled(config.keypad.mode, "headless", sys.platform):
        keys = EvdevKeys(config.keypad, monotonic=SYSTEM.monotonic_ns, realtime=realtime_ns)
    try:
        # lgpio makes its notification FIFO in the working directory, which a technician's
        # shell may not be allowed to write (the unit gives the daemon LG_WD): a folder of
        # the test's own, removed at the end.
        with tempfile.TemporaryDirectory(prefix="scoreboard-wiring-") as work:
            os.environ.setdefault("LG_WD", work)
            pins = pin_factory(name)
            wiring.run_wiring(config.console, pins, name, keys=keys,
                             keypad=wiring.keypad_text(keys, config.keypad.layout,
                                                       config.keypad.grab),
                             audio=wiring.audio_for(config.console), stdin=sys.stdin.fileno(),
                             out=sys.stdout, clock=SYSTEM.monotonic_ns)
    except Exception as err:  # gpiozero and lgpio raise many kinds; the message matters
        where = "; ".join(getattr(err, "__notes__", []))
        hint = ("lgpio is not installed here (install.sh installs python3-lgpio; on a PC: "
                "--mock-pins)" if isinstance(err, ImportError) else "another program may "
                "hold the pin (the scoreboard service: sudo systemctl stop scoreboard)")
        print(f"scoreboard wiring: {where or 'opening the pins'} ({name}): "
              f"{err.__class__.__name__}: {err}; {hint}", file=sys.stderr)
        return 1
    finally:
        lock.release()
    return 0


def bad_frame_log(path: Path | None) -> bool:
    """``--frame-log`` must go into a folder that exists (said on stderr if not): the board
    opens it before its first frame."""
    if path is not None and not path.parent.is_dir():
        print(f"scoreboard run: --frame-log {path}: no such folder {path.parent}",
              file=sys.stderr)
        return True
    return False


def run_setup(args: argparse.Namespace) -> tuple[hall_config.Config, RunOptions] | int:
    """The config and options of ``scoreboard run``, or the exit code of a bad one (the
    problem printed). Also sets up logging. Shared with bench/daemon.py's timed child."""
    from firmware_py import logfmt, runconfig  # noqa: PLC0415

    try:
        config = hall_config.load(args.config)
    except hall_config.ConfigError as err:
        print(f"scoreboard run: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for path, what in ((args.script, "--script"), (args.script_dir, "--script-dir")):
        if path is not None and not path.exists():
            print(f"scoreboard run: {what} {path}: no such file or folder", file=sys.stderr)
            return EXIT_BAD_INPUT
    if bad_frame_log(args.frame_log):
        return EXIT_BAD_INPUT
    logfmt.setup(args.log_level or config.log_level)
    pi = runconfig.is_raspberry_pi()
    mode = args.display_mode or runconfig.resolve_display_mode(
        config.display_mode, os.environ, pi=pi, dri=Path("/dev/dri").exists())
    return config, runconfig.RunOptions(
        display_mode=mode,
        pin_factory="mock" if args.mock_pins else runconfig.resolve_pin_factory(
            config.pin_factory, pi=pi),
        state_dir=args.state_dir or config.state_dir,
        time_scale=args.time_scale or Fraction(1),
        script=args.script,
        script_dir=args.script_dir,
        snapshots=args.snapshots,
        state_file=args.state_file,
        frame_log=args.frame_log,
        exit_when_done=args.exit_when_done,
    )


# What a mirror has none of: the options that would act on a console, a journal or a match.
MIRROR_REFUSES = ("script", "script_dir", "time_scale", "snapshots", "exit_when_done",
                  "state_dir")


def cmd_mirror(args: argparse.Namespace) -> int:
    from firmware_py import logfmt, runconfig  # noqa: PLC0415
    from firmware_py.mirror import Mirror, MirrorOptions, check_link  # noqa: PLC0415

    given = [f"--{k.replace('_', '-')}" for k in MIRROR_REFUSES if getattr(args, k)]
    if given:
        print(f"scoreboard run --mirror: {', '.join(given)}: a mirror has no console, "
              "journal or match of its own", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.mirror_silent is not None and args.mirror_silent <= 0:
        print(f"scoreboard run: --mirror-silent takes seconds above 0, got "
              f"{args.mirror_silent}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if bad_frame_log(args.frame_log):
        return EXIT_BAD_INPUT
    try:
        config = hall_config.load(args.config)
        check_link(config, args.mirror)
    except (hall_config.ConfigError, ValueError) as err:
        print(f"scoreboard run --mirror: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    logfmt.setup(args.log_level or config.log_level)
    mode = args.display_mode or runconfig.resolve_display_mode(
        config.display_mode, os.environ, pi=runconfig.is_raspberry_pi(),
        dri=Path("/dev/dri").exists())
    options = MirrorOptions(hall=args.mirror, display_mode=mode, state_file=args.state_file,
                            frame_log=args.frame_log)
    if args.mirror_silent is not None:
        options = replace(options, silent_ns=round(args.mirror_silent * NS_PER_S))
    return Mirror(config, options).run()


def cmd_run(args: argparse.Namespace) -> int:
    from firmware_py.daemon import Daemon  # noqa: PLC0415 - pygame etc. only for `run`
    from firmware_py.statelock import StateLocked  # noqa: PLC0415

    if args.mirror is not None:
        return cmd_mirror(args)
    if args.mirror_silent is not None:
        print("scoreboard run: --mirror-silent goes with --mirror", file=sys.stderr)
        return EXIT_BAD_INPUT
    setup = run_setup(args)
    if isinstance(setup, int):
        return setup
    try:
        return Daemon(*setup).run()
    except StateLocked as err:
        # Not a fault of this daemon to retry: another one has the folder (docs/technician.md, "The
        # scoreboard daemon"). Said on stderr, so journald and a terminal both show it.
        print(f"scoreboard run: {err}", file=sys.stderr)
        return EXIT_IN_USE


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
