"""The last press's outcome (firmware_py/feedback.py): its wording and its expiry, as pure
values on an injected timeline."""

from __future__ import annotations

import pytest

from firmware_py.core.commands import Goal, Horn, Penalty, SetClock, Shot, Start, Timeout
from firmware_py.core.phase import Team
from firmware_py.feedback import REASON_CHARS, Feedback, press_label, short_reason


def test_presses_are_named_as_their_buttons() -> None:
    assert press_label(Goal(0, Team.HOME, 12)) == "GOAL HOME #12"
    assert press_label(Goal(0, Team.AWAY)) == "GOAL AWAY"
    assert press_label(Penalty(0, Team.AWAY, 7, "double_minor")) == \
        "PENALTY AWAY #7 DOUBLE MINOR"
    assert press_label(Timeout(0, Team.HOME)) == "TIME-OUT HOME"
    assert press_label(Shot(0, Team.HOME, False, 9)) == "SHOT HOME #9 MISSED"
    assert press_label(Horn(0, False)) == "HORN OFF" and press_label(Horn(0, True)) == "HORN"
    assert press_label(SetClock(0, 754_321)) == "SET CLOCK 12:35"


@pytest.mark.parametrize(("reason", "short"), [
    # rules 001, 'Time-out': not in the group matches, only in play-offs matches
    ("time-outs are allowed only in the playoff stage, this is a group match",
     "no time-outs in group games"),
    ("the clock is already running", "the clock is already running"),
    ("unknown kind 'minr' in ice-hockey-2x20 (one of minor, major)",
     "unknown penalty kind minr"),
    ("the journal is damaged: hold NEXT to play on from what was read",
     "journal damaged: hold NEXT"),
    # rules 000, 'The winning goal race': started by the away team
    ("away shoots first in round 1 (rules 000, 'The winning goal race of the ranking "
     "matches': started by the away team marked in the program)",
     "away shoots first in round 1"),
    # rules 000, 'Penalties' 3; IIHF game winning shots procedure (III)
    ("#9 (away) may not shoot: sent off for the rest of the game (game misconduct)",
     "#9 sent off: may not shoot"),
    ("#7 (home) may not shoot: his penalty had not ended when playing time ended",
     "#7 still penalised: may not shoot"),
])
def test_reasons_in_a_few_words(reason: str, short: str) -> None:
    assert short_reason(reason) == short


def test_a_long_unknown_reason_is_cut() -> None:
    text = short_reason("a reason nobody has mapped " * 5)
    assert len(text) <= REASON_CHARS and text.endswith("\u2026")


def test_a_notice_lasts_its_time_and_a_new_press_replaces_it() -> None:
    feedback = Feedback(shown_ns=100)
    assert feedback.current(0) is None and feedback.expires(0) is None
    first = feedback.refused(Timeout(10, Team.HOME), "the clock is already running", 10)
    assert first.text() == "TIME-OUT HOME \u2717 the clock is already running"
    assert first.text(marks=False) == "TIME-OUT HOME REFUSED: the clock is already running"
    assert first.shorter() == ["REFUSED: the clock is already running",
                               "the clock is already running"]
    assert feedback.current(109) is first and feedback.expires(50) == 110
    assert feedback.current(110) is None and feedback.expires(110) is None
    second = feedback.accepted(Start(120), 120)
    assert second.accepted and second.to_json() == {
        "press": "START", "accepted": True, "reason": None, "text": "START \u2713"}
    feedback.clear()
    assert feedback.current(121) is None
