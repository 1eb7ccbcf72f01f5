"""``arena-demo --examples [--pictures DIR]``: the example games of ``examples/replay/``
played through the core and narrated, no processes, no network."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TextIO

from arena import presets
from arena.core.events import Event, EventKind
from arena.core.match import Match, feed
from arena.core.phase import Stage
from arena.core.state import state_document
from arena.core.units import NS_PER_S
from arena.core.values import MatchSetup, TeamInfo
from demo.narration import NARRATED, event_text
from demo.tournaments import REPO
from display.snapshot import snapshot
from firmware_py.keyplay import SETTLE_NS, KeyPlayer
from firmware_py.replayday import DayPlay, scheduled_at
from firmware_py.script import DayLine, KeyLine, parse_replay_script

EXAMPLES_DIR = REPO / "examples" / "replay"
PICTURE_SIZE = (1280, 720)

# Moments worth a picture of the hall display.
PICTURED = frozenset({
    EventKind.PERIOD_STARTED, EventKind.GOAL, EventKind.BREAK_STARTED,
    EventKind.SHOOTOUT_STARTED, EventKind.SHOT, EventKind.MATCH_ENDED, EventKind.PENALTY,
})


def _stamp(ns: int) -> str:
    return f"[{ns / NS_PER_S:8.2f} s]"


def _picture(pictures: Path, match: Match, name: str, event: Event, out: TextIO) -> None:
    """The hall display as it looks right after ``event`` (headless, a PNG)."""
    doc = state_document(match, event.at)
    path = pictures / f"{name}-{event.seq:03d}-{event.kind.value}.png"
    snapshot(doc, PICTURE_SIZE, path)
    print(f"             picture: {path}", file=out)


def _tell(events: list[Event], match: Match, name: str, out: TextIO,
          pictures: Path | None) -> None:
    for event in events:
        if event.kind in NARRATED:
            print(f"  {_stamp(event.at)} {event_text(event)}", file=out)
        if pictures is not None and event.kind in PICTURED:
            _picture(pictures, match, name, event, out)


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
        script = parse_replay_script((folder / example["script"]).read_text(
            encoding="utf-8"), example["script"])
        print(f"{preset.name} ({example['stage']}): {example['about']}", file=out)
        name = example["script"].removesuffix(".jsonl")
        keys = KeyPlayer(match)
        for line in script:
            # A game played from keys: the console's commands, told as they are made.
            keys.until(line.t)
            if isinstance(line, KeyLine):
                keys.press(line)
            elif isinstance(line, DayLine):
                DayPlay().begin(match, scheduled_at(line.day, line.t, setup.match_id))
            else:
                fed = feed(match, line.command)
                keys.events += fed.events
                if fed.refused is not None:
                    print(f"  {_stamp(line.t)} refused: {fed.refused}", file=out)
            _tell(keys.events, match, name, out, pictures)
            keys.events.clear()
            for refusal in keys.refusals:
                print(f"  {_stamp(line.t)} refused: {refusal.message}", file=out)
            keys.refusals.clear()
        if script:  # a key's release or an entry's timeout after the last line
            keys.until(script[-1].t + SETTLE_NS)
            _tell(keys.events, match, name, out, pictures)
        deadline = match.next_deadline()
        while deadline is not None:  # let the game run out
            _tell(match.advance(deadline), match, name, out, pictures)
            deadline = match.next_deadline()
        print(file=out)
    return 0
