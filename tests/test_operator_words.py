"""The timekeeper's view in the hall's language (docs/developer.md, "Languages", "The operator
view"): the page's words, the keypad's prompt and keys, the records, all from the tables."""

from __future__ import annotations

import pytest

from arena import words
from arena.core.commands import Goal, Start
from arena.core.entry import KeypadEntry
from arena.core.phase import Team
from arena.core.state import state_document
from arena.core.values import MatchSetup, TeamInfo
from firmware_py.operatorview import operator_document
from firmware_py.operatorweb import body_html
from tests.core.helpers import Game, S

ENGLISH_LABELS = ("last records", "penalty kinds", "not acknowledged", "no office",
                  "stopped", "scorer", "erase", "cancel")


def view(lang: str) -> dict[str, object]:
    game = Game("ice-hockey-2x20")
    game.do(Start(S(1)))
    game.do(Goal(S(2), Team.HOME, 12))
    keypad = KeypadEntry(list(game.match.preset.penalties.kinds))
    keypad.choose("goal_away", S(3))
    state = {**state_document(game.match, S(3)), "entry": keypad.describe()}
    return operator_document(game.match, state, lang=lang)


@pytest.mark.parametrize("lang", ["cs", "sr", "fi"])
def test_the_operator_view_speaks_the_halls_language(lang: str) -> None:
    doc = view(lang)
    page = body_html(doc)
    for label in ENGLISH_LABELS:
        assert label not in page, f"{label!r} left in English"
    assert words.word("operator.records", lang) in page
    assert words.word("operator.no_office", lang) in page
    entry = doc["entry"]
    assert isinstance(entry, dict)
    assert entry["prompt"] == words.word("entry.prompt.scorer", lang, head=words.word(
        "entry.head.team", lang, what=words.word("entry.what.goal", lang),
        team=words.word("entry.team.away", lang)))
    assert ["backspace", words.word("entry.key.erase", lang)] in entry["keys"]
    record = doc["records"][0]  # type: ignore[index]
    assert record["text"] == f"{words.word('operator.goal', lang)} " \
        f"{words.word('feedback.team.lower.home', lang)} #12"


def test_in_english_the_view_says_what_the_state_document_says() -> None:
    doc = view("en")
    entry = doc["entry"]
    assert isinstance(entry, dict)
    assert entry["prompt"] == "GOAL AWAY: scorer" and "say" not in entry
    assert "last records" in body_html(doc)


def test_a_record_names_the_player_the_roster_has() -> None:
    """The tournament file's rosters reach the hall in ``next`` (docs/technician.md, "After a
    goal"): the timekeeper's records name the scorer as the hall display does; a number missing from
    the roster stays a number."""
    home = TeamInfo("Lions", ("#10233f", "#ffffff"), roster=((12, "A. Novák"),))
    game = Game("ice-hockey-2x20", setup=MatchSetup(match_id="T1", home=home))
    game.do(Start(S(1)))
    game.do(Goal(S(2), Team.HOME, 12))
    game.do(Goal(S(3), Team.HOME, 9))
    doc = operator_document(game.match, state_document(game.match, S(4)), lang="cs")
    texts = [r["text"] for r in doc["records"]]  # type: ignore[attr-defined]
    assert texts == [f"{words.word('operator.goal', 'cs')} "
                     f"{words.word('feedback.team.lower.home', 'cs')} #9",
                     f"{words.word('operator.goal', 'cs')} "
                     f"{words.word('feedback.team.lower.home', 'cs')} #12 A. Novák"]
    assert "A. Novák" in body_html(doc)
