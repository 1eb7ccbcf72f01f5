"""A demo that needs nothing but Python: replay the bundled example games and narrate them.

It stands in for the full demo (hall displays, office, MQTT) until the daemon exists.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TextIO

from display.snapshot import snapshot
from firmware_py import presets
from firmware_py.core.events import Event, EventKind
from firmware_py.core.match import Match, MatchSetup, TeamInfo, feed
from firmware_py.core.phase import Stage
from firmware_py.core.state import state_document
from firmware_py.core.units import NS_PER_S
from firmware_py.script import parse_script

_NARRATED = {
    EventKind.PERIOD_STARTED, EventKind.PERIOD_ENDED, EventKind.BREAK_STARTED,
    EventKind.BREAK_ENDED, EventKind.GOAL, EventKind.FORFEIT, EventKind.UNDONE,
    EventKind.SHOOTOUT_STARTED, EventKind.MATCH_ENDED, EventKind.CLOCK_SET,
    EventKind.PENALTY, EventKind.PENALTY_STARTED, EventKind.PENALTY_ENDED,
    EventKind.TIMEOUT_STARTED, EventKind.TIMEOUT_ENDED, EventKind.SHOT,
}


def _mmss(ms: int) -> str:
    seconds = -(-ms // 1000)
    return f"{seconds // 60:2d}:{seconds % 60:02d}"


def _line(event: Event) -> str:
    d = event.data
    stamp = f"[{event.at / NS_PER_S:8.2f} s]"
    kind = event.kind
    if kind is EventKind.GOAL:
        who = f" #{d['player']}" if d.get("player") is not None else ""
        text = (f"goal {d['team']}{who} in period {d['period']} at {_mmss(d['clock_ms'])} left"
                f" -> {d['score']['home']}:{d['score']['away']}")
    elif kind is EventKind.MATCH_ENDED:
        r = d["result"]
        text = f"final {r['home']}:{r['away']} ({r['decided_by']})"
        decisive = (d["record"].get("shootout") or {}).get("decisive")
        if decisive:
            text += f", decisive shot {decisive['team']} #{decisive['player']}"
    elif kind is EventKind.BREAK_STARTED:
        text = f"{d['phase']} of {_mmss(d['length_ms'])} before period {d['next_period']}"
    elif kind is EventKind.PENALTY:
        text = (f"penalty {d['team']} #{d['player']} {d['kind']} in period {d['period']}"
                + (" (coincidental)" if d["coincidental"] else ""))
    elif kind in (EventKind.PENALTY_STARTED, EventKind.PENALTY_ENDED):
        how = "starts" if kind is EventKind.PENALTY_STARTED else d["how"]
        text = f"penalty {d['team']} #{d['player']} {d['kind']} {how}"
    elif kind is EventKind.SHOT:
        who = f" #{d['player']}" if d.get("player") is not None else ""
        text = (f"shot {d['team']}{who} {'scores' if d['scored'] else 'misses'}"
                f" -> {d['tally']['home']}:{d['tally']['away']}")
    elif kind is EventKind.UNDONE:
        text = f"undo {d['what']} -> {d['score']['home']}:{d['score']['away']}, {d['phase']}"
    else:
        details = ", ".join(f"{k} {v}" for k, v in d.items() if k not in ("score",))
        text = f"{kind.value.replace('_', ' ')} ({details})" if details else kind.value
    return f"  {stamp} {text}"


# Moments worth a picture of the hall display.
_PICTURED = {
    EventKind.PERIOD_STARTED, EventKind.GOAL, EventKind.BREAK_STARTED,
    EventKind.SHOOTOUT_STARTED, EventKind.SHOT, EventKind.MATCH_ENDED, EventKind.PENALTY,
}


def _picture(pictures: Path, match: Match, name: str, event: Event, out: TextIO) -> None:
    """The hall display as it looks right after ``event`` (headless, a PNG)."""
    doc = state_document(match, event.at)
    path = pictures / f"{name}-{event.seq:03d}-{event.kind.value}.png"
    snapshot(doc, (1280, 720), path)
    print(f"             picture: {path}", file=out)


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
        script = parse_script((folder / example["script"]).read_text(encoding="utf-8"),
                              example["script"])
        print(f"{preset.name} ({example['stage']}): {example['about']}", file=out)
        name = example["script"].removesuffix(".jsonl")
        for line in script:
            fed = feed(match, line.command)
            for event in fed.events:
                if event.kind in _NARRATED:
                    print(_line(event), file=out)
                if pictures is not None and event.kind in _PICTURED:
                    _picture(pictures, match, name, event, out)
            if fed.refused is not None:
                print(f"  [{line.t / NS_PER_S:8.2f} s] refused: {fed.refused}", file=out)
        deadline = match.next_deadline()
        while deadline is not None:  # let the game run out
            for event in match.advance(deadline):
                if event.kind in _NARRATED:
                    print(_line(event), file=out)
                if pictures is not None and event.kind in _PICTURED:
                    _picture(pictures, match, name, event, out)
            deadline = match.next_deadline()
        print(file=out)
    return 0
