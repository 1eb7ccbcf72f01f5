"""Every state document of the bundled example games (examples/replay/) lays out legibly and
renders: penalties, shootouts, time-outs, line changes, the extra player, breaks, finals."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena import presets
from arena.core.match import Match
from arena.core.phase import Stage
from arena.core.values import MatchSetup
from display import fonts
from display.layout import FrameInputs, layout
from display.options import options_for_name
from display.render import Renderer
from firmware_py.replay import play
from firmware_py.script import parse_replay_script, parse_time
from tests.display.checks import problems

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "replay"
INDEX = tomllib.loads((EXAMPLES / "index.toml").read_text(encoding="utf-8"))["example"]


def documents(example: dict[str, Any]) -> list[dict[str, Any]]:
    # Keys and the match day too: a game from keys shows the entry on the operator line.
    script = parse_replay_script((EXAMPLES / example["script"]).read_text(encoding="utf-8"),
                                 example["script"])
    match = Match(presets.load(example["preset"]),
                  MatchSetup(match_id="M1", stage=Stage(example["stage"])))
    return play(match, script, [parse_time(t) for t in example["at"]]).snapshots


@pytest.mark.parametrize("example", INDEX, ids=lambda e: e["script"])
def test_every_example_snapshot_lays_out_legibly_and_renders(example: dict[str, Any]) -> None:
    options = options_for_name(example["preset"])
    renderer = Renderer((1280, 720))
    for doc in documents(example):
        for size in ((1920, 1080), (1024, 768)):
            frame = layout(doc, size, measure=fonts.measure, options=options)
            assert problems(frame) == [], (example["script"], doc["phase"], size)
        renderer.render(FrameInputs(doc, (1280, 720), options=options))
