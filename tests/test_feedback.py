"""The last press's outcome (firmware_py/feedback.py): its wording and its expiry, as pure
values on an injected timeline."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from arena import words
from arena.core.commands import (
    Command,
    Goal,
    Horn,
    Penalty,
    SetClock,
    Shot,
    Start,
    Stop,
    Timeout,
)
from arena.core.errors import Reason, Refused, because
from arena.core.match import Match
from arena.core.phase import Stage, Team
from firmware_py.feedback import REASON_CHARS, Feedback, press_label, short_reason
from tests.core.helpers import Game, S


def test_presses_are_named_as_their_buttons() -> None:
    assert press_label(Goal(0, Team.HOME, 12)) == "GOAL HOME #12"
    assert press_label(Goal(0, Team.AWAY)) == "GOAL AWAY"
    assert press_label(Penalty(0, Team.AWAY, 7, "double_minor")) == \
        "PENALTY AWAY #7 DOUBLE MINOR"
    assert press_label(Timeout(0, Team.HOME)) == "TIME-OUT HOME"
    assert press_label(Shot(0, Team.HOME, False, 9)) == "SHOT HOME #9 MISSED"
    assert press_label(Horn(0, False)) == "HORN OFF" and press_label(Horn(0, True)) == "HORN"
    assert press_label(SetClock(0, 754_321)) == "SET CLOCK 12:35"


def refusal(game: Game, command: Command) -> Reason:
    """The core's own refusal of ``command`` now (not a sentence written here)."""
    game.match.advance(command.at)
    with pytest.raises(Refused) as refused:
        game.match.apply(command)
    return refused.value.why


def group_timeout() -> Reason:
    """A preset whose time-outs are for the play-offs only, in a group game: the core's
    refusal (ice-hockey-2x20 with its time-outs' stages narrowed)."""
    hockey = Game("ice-hockey-2x20")
    rules = hockey.match.preset.timeouts
    assert rules is not None
    hockey.match = Match(replace(hockey.match.preset, timeouts=replace(
        rules, stages=frozenset({Stage.PLAYOFF}))), hockey.match.setup)
    hockey.do(Start(S(1)))
    hockey.do(Stop(S(2)))
    return refusal(hockey, Timeout(S(3), Team.HOME))


def test_reasons_in_a_few_words() -> None:
    why = group_timeout()
    assert why.text == "time-outs are allowed only in the playoff stage, this is a group match"
    assert short_reason(why) == "no time-outs in group games"
    hockey = Game("ice-hockey-2x20")
    hockey.do(Start(S(1)))
    assert short_reason(refusal(hockey, Start(S(2)))) == "the clock is already running"
    assert short_reason(refusal(hockey, Penalty(S(3), Team.HOME, 7, "minr"))) == \
        "unknown penalty kind minr"
    # The shell's own refusals are Reasons too (firmware_py/daemon.py).
    assert short_reason(because("journal_damaged", "the journal is damaged: hold NEXT to "
                                "play on from what was read")) == "journal damaged: hold NEXT"
    # rules 000, 'Penalties' 3; IIHF game winning shots procedure (III)
    assert short_reason(because("shot_barred_sent_off", "...", player=9, team="away")) == \
        "#9 sent off: may not shoot"
    assert short_reason(because("shot_barred_penalised", "...", player=7, team="home")) == \
        "#7 still penalised: may not shoot"


@pytest.mark.parametrize(("lang", "press", "reason", "early"), [
    ("cs", "TIME-OUT DOMÁCÍ", "time-out není povolen (skupina)", "žádný gól před zápasem"),
    ("sr", "TAJM-AUT DOMAĆIN", "tajm-aut nije dozvoljen (grupa)", "nema gola pre utakmice"),
    ("fi", "AIKALISÄ KOTI", "aikalisä ei ole sallittu (lohko)", "ei maalia ennen ottelua"),
])
def test_a_refusal_reads_in_the_halls_language(lang: str, press: str, reason: str,
                                               early: str) -> None:
    # docs/developer.md, "Languages": the timekeeper's words are the hall's
    assert short_reason(refusal(Game("ice-hockey-2x20"), Goal(S(1), Team.HOME)), lang) == early
    why = group_timeout()
    notice = Feedback(shown_ns=100, lang=lang).refused(Timeout(S(1), Team.HOME), why, S(1))
    assert notice.press == press and notice.reason == reason
    assert notice.text() == f"{press} \u2717 {reason}"
    refused = words.word("feedback.refused", lang)
    assert notice.text(marks=False) == f"{press} {refused} {reason}"
    accepted = Feedback(lang=lang).accepted(Penalty(S(1), Team.AWAY, 7, "double_minor"), 0)
    kind = words.word("sheet.kind.double_minor", lang).upper()
    assert accepted.press.endswith(f"#7 {kind}") and accepted.text(marks=False).endswith(
        words.word("feedback.ok", lang))


def test_every_refusal_the_core_can_give_has_its_words() -> None:
    """Each ``because("key", ...)`` in the core and the daemon names a ``refused.<key>`` of
    the English table (so every language has it: tests/test_words.py), and every such word
    is still given somewhere."""
    given = refusal_keys()
    english = {k.removeprefix("refused.") for k in words.table("en") if
               k.startswith("refused.")}
    assert sorted(given - english) == [], "refusals with no words"
    assert sorted(english - given) == [], "words of no refusal"


def refusal_keys() -> set[str]:
    root = Path(__file__).resolve().parents[1]
    keys: set[str] = set()
    barred: set[str] = set()
    for path in [*sorted((root / "arena" / "core").glob("*.py")),
                 *sorted((root / "firmware_py").glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "because" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    keys.add(first.value)
                elif isinstance(first, ast.JoinedStr):
                    # f"shot_barred_{bar.key}": one key per reason a shooter is barred.
                    head = first.values[0]
                    assert isinstance(head, ast.Constant) and head.value == "shot_barred_", \
                        ast.unparse(first)
                    barred.add("shot_barred_")
    # The barring reasons are because() keys themselves (Match.barred): each makes one.
    bars = {"sent_off", "penalised", "barred"}
    assert bars <= keys
    return (keys - bars) | {f"shot_barred_{b}" for b in bars if barred}


def test_a_long_unknown_reason_is_cut() -> None:
    text = short_reason("a reason nobody has mapped " * 5)
    assert len(text) <= REASON_CHARS and text.endswith("\u2026")


def test_a_notice_lasts_its_time_and_a_new_press_replaces_it() -> None:
    feedback = Feedback(shown_ns=100)
    assert feedback.current(0) is None and feedback.expires(0) is None
    first = feedback.refused(Timeout(10, Team.HOME), because(
        "running", "the clock is already running"), 10)
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
