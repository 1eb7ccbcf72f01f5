"""A stand-in for ``scoreboard run`` in the demo's orchestration tests (tests/test_demo.py).

    python demo_fake_hall.py MODE <the demo's `scoreboard run` flags>

- ``play``: plays the script of its config's match through the recorder, into the journal
  of its ``--state-dir``, as a hall does (no display, no broker, no clock: each line at its
  own script time), says so on stdout and exits 0;
- ``fail``: says what a daemon says of a bad config and exits 2;
- ``hang``: writes its pid to ``<state-dir>/pid``, says ``playing`` and waits to be stopped.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import tomllib
from importlib import resources
from pathlib import Path

from arena.core.values import MatchSetup
from firmware_py import config as hall_config_file
from firmware_py.journal import Journal
from firmware_py.matchfiles import MatchFiles
from firmware_py.recorder import Recorder
from firmware_py.script import parse_script


def record_match(state_dir: Path, preset: str, setup: MatchSetup, script: str,
                 name: str) -> Path:
    """A match's journal in ``state_dir`` as a hall writes it: ``script`` (the replay
    script's text) played through the recorder, each line at its own script time and tagged
    with its line number, then time run out to the last deadline. Returns its path."""
    preset_toml = resources.files("arena.presets").joinpath(
        f"{preset}.toml").read_text(encoding="utf-8")
    files = MatchFiles(state_dir)
    path = files.journal(setup.match_id)
    journal, _ = Journal.open(path)
    with journal:
        recorder = Recorder.create(journal, preset_toml, f"{preset}.toml", setup)
        for line in parse_script(script, name):
            recorder.command(line.command, {"script": line.line})
        while (deadline := recorder.match.next_deadline()) is not None:
            recorder.advance(deadline)
    files.set_current(setup.match_id)
    return path


def play(config: Path, state_dir: Path, script_dir: Path) -> int:
    parsed = hall_config_file.parse(tomllib.loads(config.read_text(encoding="utf-8")),
                                    str(config))
    setup = parsed.match.setup
    script = script_dir / f"{setup.match_id}.jsonl"
    record_match(state_dir, parsed.match.preset, setup, script.read_text(encoding="utf-8"),
                 str(script))
    print(f"fake hall played {setup.match_id}", flush=True)
    return 0


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=("play", "fail", "hang"))
    p.add_argument("--config", type=Path, required=True)
    p.add_argument("--state-dir", type=Path, required=True)
    p.add_argument("--script-dir", type=Path, required=True)
    args, _ = p.parse_known_args(argv)
    if args.mode == "play":
        return play(args.config, args.state_dir, args.script_dir)
    if args.mode == "fail":
        print("scoreboard run: hall.toml: gpio.pin_factory: bad", flush=True)
        return 2
    args.state_dir.mkdir(parents=True, exist_ok=True)
    (args.state_dir / "pid").write_text(str(os.getpid()))
    print("playing", flush=True)
    # Until the demo's SIGTERM ends it; a broken demo that never does leaves no process
    # behind for long.
    threading.Event().wait(600)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
