"""Play a replay script as a live hall would: journal every event, publish it over MQTT.

    python -m firmware_py.replaypublisher SCRIPT --preset P --journal DIR \\
        --broker mqtt://127.0.0.1:1883 --tournament T --hall H --match M [--speed X]
    python -m firmware_py.replaypublisher SCRIPT --tournament cup.toml --match M \\
        --journal DIR --broker mqtt://127.0.0.1:1883

The teams are named as the office's schedule names them when ``--tournament`` is the
tournament file (a path: it has a '/' or ends in .toml): the match's teams, stage, preset
and hall are taken from it (firmware_py/replaymatch.py), so the office stores the result as
final; a result under other names (``--home``/``--away``, default Home and Away) waits for
the office's review.

The script's times are the match's monotonic times (so a restart rebuilds the very same
match); ``--speed`` only sets how fast real time runs through them (0: no waiting). The
journal ``DIR/<match>.journal`` is resumed if it exists: script lines already played are
not played again, and events the office has not stored are sent first. ``DIR`` is a state
folder (firmware_py/matchfiles.py): journals in it of another tournament or hall are set
aside, never sent. Exits 0 once the office says it has stored every event (its ``acks``;
the broker's PUBACK is not enough), or 1 after ``--timeout`` seconds without that, or at
once when the office refuses the match from this hall (another hall plays it: run again
once the office gives this hall the match, the journal is resumed).

Which script lines were played is kept in ``<journal>.script`` (one line number a line).
A kill between the journal append of a line and that mark is detected on restart: the
journal's last input has the line's time and command, so the line is not played twice.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from dataclasses import replace
from pathlib import Path

from arena.broker import Tls, parse_broker_url
from arena.core.errors import PresetError
from arena.core.match import Match
from arena.core.phase import PLAYED_STAGES, Stage
from arena.core.preset import Preset
from arena.core.state import state_document
from arena.core.units import NS_PER_S
from arena.core.values import MatchSetup
from arena.timesource import SYSTEM, monotonic_s
from arena.wire import check_name
from firmware_py.journal import Record
from firmware_py.linkconfig import LinkConfigError, load_link_config
from firmware_py.matchfiles import MatchFiles
from firmware_py.mqtt import HallLink
from firmware_py.outbox import JournalTail, Outbox, SeqLog, stored_path
from firmware_py.recorder import open_or_create
from firmware_py.replay import play
from firmware_py.replaymatch import ReplayMatchError, from_tournament, is_tournament_file
from firmware_py.runconfig import preset_text
from firmware_py.script import ScriptLine, parse_replay_script
from firmware_py.timeline import boot_id

log = logging.getLogger("firmware_py.replaypublisher")

PASSWORD_ENV = "ARENA_MQTT_PASSWORD"  # never on the command line: ps shows it to everyone


def remaining_lines(script: list[ScriptLine], done: set[int],
                    records: list[Record]) -> list[ScriptLine]:
    """The script lines still to play after a restart."""
    last_done = max(done, default=0)
    rest = [line for line in script if line.line > last_done]
    inputs = [r for r in records if r.get("type") in ("command", "advance")]
    if rest and inputs:
        last, first = inputs[-1], rest[0]
        # Killed after the journal append but before the mark: the line was played.
        if last.get("at") == first.t and (last["type"] == "advance"
                                          or last.get("command") == first.command.to_json()):
            rest = rest[1:]
    return rest


def published_lines(text: str, name: str, preset: Preset, setup: MatchSetup
                    ) -> tuple[list[ScriptLine], dict[int, int]]:
    """The commands a published game sends, each as a script line, and the script's line
    each came from. A script of commands is its own lines. One with key presses (or a match
    day) is played first on a scratch match of the same preset and setup, so its keys make
    the very commands they make at the table (firmware_py/keyplay.py), at their instants;
    those are numbered 1, 2, ... in the order made (the ``.script`` progress counts them:
    a key may make no command, or two). A match day changes no event."""
    lines = parse_replay_script(text, name)
    if all(isinstance(line, ScriptLine) for line in lines):
        commands = [line for line in lines if isinstance(line, ScriptLine)]
        return commands, {line.line: line.line for line in commands}
    made = play(Match(preset, setup), lines, [], extras=False).commands
    return ([ScriptLine(n, command.at, command) for n, (_, command) in enumerate(made, 1)],
            {n: line for n, (line, _) in enumerate(made, 1)})


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m firmware_py.replaypublisher", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("script", type=Path)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--preset", help="a bundled preset (or from the tournament file)")
    group.add_argument("--preset-file", type=Path)
    p.add_argument("--stage", choices=[s.value for s in PLAYED_STAGES], default=None,
                   help="default: the tournament file's, else group")
    p.add_argument("--journal", type=Path, required=True, metavar="DIR")
    p.add_argument("--config", type=Path, metavar="FILE",
                   help="the hall's config file: broker, tournament, hall, username, "
                   "password_file and TLS files from its [mqtt] table (options below win)")
    p.add_argument("--broker", help="mqtt://HOST:PORT or mqtts://HOST:PORT")
    p.add_argument("--tournament", metavar="ID|FILE",
                   help="the tournament's id, or its file: the match's teams, stage, preset "
                   "and hall from it")
    p.add_argument("--hall")
    p.add_argument("--match", required=True)
    p.add_argument("--home", help="the home team's name (default: the tournament file's, "
                   "else Home)")
    p.add_argument("--away", help="the away team's name (default: the tournament file's, "
                   "else Away)")
    p.add_argument("--speed", type=float, default=1.0, help="script seconds per real second; "
                   "0 plays without waiting")
    p.add_argument("--max-in-flight", type=int, default=20)
    p.add_argument("--timeout", type=float, default=0.0,
                   help="give up waiting for acks after this many seconds (0: never)")
    p.add_argument("--username", help=f"broker user; the password is read from ${PASSWORD_ENV}")
    p.add_argument("--ca-file", help="CA certificate for TLS (mqtts://)")
    p.add_argument("--cert-file", help="client certificate for TLS (optional)")
    p.add_argument("--key-file", help="client key for TLS (optional)")
    p.add_argument("--reconnect-max", type=int, default=30, help="longest reconnect back-off, s")
    return p


def _apply_config(args: argparse.Namespace) -> str | None:
    """Fill the broker settings from --config (command-line options win); the password
    comes from the config's password_file, else from the environment."""
    args.password = os.environ.get(PASSWORD_ENV)
    if args.config is not None:
        try:
            config = load_link_config(args.config)
        except LinkConfigError as err:
            return str(err)
        scheme = "mqtts" if config.broker.tls else "mqtt"
        args.broker = args.broker or f"{scheme}://{config.broker.host}:{config.broker.port}"
        args.tournament = args.tournament or config.tournament
        args.hall = args.hall or config.hall
        args.username = args.username or config.username
        args.password = config.password or args.password
        if config.tls is not None:
            args.ca_file = args.ca_file or config.tls.ca_file
            args.cert_file = args.cert_file or config.tls.cert_file
            args.key_file = args.key_file or config.tls.key_file
    missing = [f"--{k}" for k in ("broker", "tournament", "hall") if not getattr(args, k)]
    return f"missing {', '.join(missing)} (or --config)" if missing else None


def _setup(args: argparse.Namespace) -> MatchSetup:
    """The match as the tournament file names it (``args.tournament`` a file: its id, hall
    and preset filled in where not given), else as the options say."""
    base = MatchSetup(match_id=args.match)
    if args.tournament is not None and is_tournament_file(args.tournament):
        found = from_tournament(Path(args.tournament), args.match)
        args.tournament, args.hall = found.tournament, args.hall or found.hall
        if args.preset is None and args.preset_file is None:
            args.preset = found.preset
        base = found.setup
    if args.preset is None and args.preset_file is None:
        raise ReplayMatchError("give --preset or --preset-file (or --tournament FILE)")
    return replace(base, stage=Stage(args.stage) if args.stage else base.stage,
                   home=replace(base.home, name=args.home or base.home.name),
                   away=replace(base.away, name=args.away or base.away.name))


def run(args: argparse.Namespace) -> int:
    try:
        setup = _setup(args)
    except ReplayMatchError as err:
        print(f"publish: {err}", file=sys.stderr)
        return 2
    problem = _apply_config(args)
    if problem is not None:
        print(f"publish: {problem}", file=sys.stderr)
        return 2
    for kind in ("tournament", "hall", "match"):
        try:
            check_name(kind, getattr(args, kind))
        except ValueError as err:
            print(f"publish: {err}", file=sys.stderr)
            return 2
    broker = parse_broker_url(args.broker)
    try:
        toml_text, source = preset_text(args.preset, args.preset_file)
    except PresetError as err:
        raise SystemExit(str(err)) from err
    files = MatchFiles(args.journal)
    aside = files.claim(args.tournament, args.hall)
    if aside is not None:
        print(f"publish: journals of another tournament or hall set aside in {aside}",
              file=sys.stderr)
    path = files.journal(args.match)
    wall = SYSTEM.wall()
    resumed = open_or_create(path, toml_text, source, setup, wall=wall, boot_id=boot_id())
    for warning in resumed.warnings:
        log.warning("%s", warning)
    recorder = resumed.recorder
    script, source_line = published_lines(args.script.read_text(encoding="utf-8"),
                                          str(args.script), recorder.match.preset, setup)
    tail = JournalTail(path)
    records = tail.read()
    progress = SeqLog(path.with_name(path.name + ".script"))
    rest = remaining_lines(script, progress.values, records)

    outbox = Outbox(stored_path(path), args.max_in_flight, match=args.match)
    outbox.add(records)
    tls = None
    if broker.tls:
        tls = Tls(args.ca_file, args.cert_file, args.key_file)
    link = HallLink(broker.host, broker.port, args.tournament, args.hall, outbox=outbox,
                    username=args.username, password=args.password, tls=tls,
                    reconnect_s=(1, args.reconnect_max))
    link.start()
    try:
        previous_t = rest[0].t if rest else 0
        to_play = {line.line for line in rest}
        played = [line.t for line in script if line.line not in to_play]
        # The retained state at once, not only after the next line (there may be none).
        link.publish_state(state_document(recorder.match, max(played, default=0)))
        for line in rest:
            if args.speed > 0:
                due = monotonic_s() + (line.t - previous_t) / NS_PER_S / args.speed
                while (left := due - monotonic_s()) > 0:
                    link.pump(min(left, 0.05))
            previous_t = line.t
            fed = recorder.command(line.command)
            if fed.refused is not None:
                print(f"{args.script} line {source_line[line.line]}: {fed.refused}",
                      file=sys.stderr)
            progress.add([line.line])
            outbox.add(tail.read())
            link.publish_state(state_document(recorder.match, line.t))
            link.pump()
        if not link.drain(args.timeout if args.timeout > 0 else float("inf")):
            if outbox.refused_by is not None:  # two halls claimed the match
                print(f"publish: the office refuses {args.match} from {args.hall}: "
                      f"{outbox.refused_by} plays it; the {outbox.unacked} events are kept "
                      f"in the journal (run this again once the office gives "
                      f"{args.hall} the match)", file=sys.stderr)
                return 1
            print(f"publish: {outbox.unacked} events not stored by the office after "
                  f"{args.timeout} s", file=sys.stderr)
            return 1
        return 0
    finally:
        link.close()
        progress.close()
        if recorder.journal is not None:
            recorder.journal.close()


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
