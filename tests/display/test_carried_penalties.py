"""The break screen shows the penalties carried over it, from the core's own state document
(rules 002 'Overtime': penalised players stay in the penalty box during the break)."""

from __future__ import annotations

from arena import presets
from arena.core.commands import Penalty, Start
from arena.core.match import Match, feed
from arena.core.phase import Stage, Team
from arena.core.state import state_document
from arena.core.units import seconds
from arena.core.values import MatchSetup
from display import fonts
from display.layout import layout
from display.options import options_for_name
from tests.display.checks import problems


def test_the_break_screen_shows_a_double_minors_second_part_carried_over() -> None:
    # Rules 002 'Rules': a minor lasts until the end of the shift, so the double minor
    # given 5 s before period 1 ends has its whole second part (a shift) still to serve.
    name = "youth-hockey-3x18"
    match = Match(presets.load(name), MatchSetup(match_id="Y1", stage=Stage.GROUP))
    feed(match, Start(0))
    feed(match, Penalty(seconds(1075), Team.HOME, 7, "double_minor"))
    match.advance(seconds(1300))
    doc = state_document(match, seconds(1300))
    assert doc["phase"] == "intermission"
    for size in ((1920, 1080), (1024, 768)):
        frame = layout(doc, size, measure=fonts.measure, options=options_for_name(name))
        shown = {t.role: t.text for t in frame.texts() if t.role.startswith("penalty.home")}
        assert shown.get("penalty.home.time") == "1:00", (size, shown)
        assert "7" in shown.get("penalty.home.player", ""), (size, shown)
        assert problems(frame) == [], size
