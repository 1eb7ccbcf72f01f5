"""The operator line shows any keypad entry: its prompt, what was typed and as many of its
numbered choices as fit (the state document's ``entry``, docs/developer.md 4.3)."""

from __future__ import annotations

import copy
import re

import pytest

from arena.core.entry import KeypadEntry, Record
from arena.core.phase import Team
from display.document import DocumentError, read_state
from display.layout import layout
from display.screens.common import entry_lines

from . import states

KINDS = ["minor", "double_minor", "major", "misconduct", "game_misconduct", "match"]


def described(action: str, *keys: str) -> dict[str, object]:
    pad = KeypadEntry(KINDS)
    pad.records = (Record(7, "goal", Team.HOME, 9, None, 1, 600_000),)
    pad.choose(action, 0)
    for key in keys:
        pad.key(key, 1)
    out = pad.describe()
    assert out is not None
    return out


def line_of(entry: dict[str, object]) -> list[str]:
    doc = copy.deepcopy(states.GAME)
    doc["entry"] = entry
    view = read_state(doc).entry
    assert view is not None
    return entry_lines(view)


def test_the_fullest_line_has_the_prompt_what_was_typed_and_every_choice() -> None:
    lines = line_of(described("penalty_away", "1", "2", "enter"))
    assert lines[0] == ("PENALTY AWAY #12: KIND  _  1 MINOR   2 DOUBLE MINOR   3 MAJOR   "
                        "4 MISCONDUCT   5 GAME MISCONDUCT   6 MATCH")
    assert lines[1].endswith("5 GAME MISCONDUCT   \u2026")  # shorter: choices give way
    assert lines[-2:] == ["PENALTY AWAY #12: KIND  _", "PENALTY AWAY #12: KIND"]


def test_entries_without_a_team_and_their_typing() -> None:
    assert line_of(described("set_clock", "1", "2", "0", "0"))[0] == "SET CLOCK: M:SS.T  12:00.0"
    assert line_of(described("menu", "1"))[0].startswith("MENU: ACTION  1  1 START/STOP   "
                                                         "10 SHOT AWAY")
    assert line_of(described("cancel"))[0] == ("CANCEL/CORRECT: WHICH RECORD  _  "
                                               "1 GOAL HOME #9 P1 10:00")
    assert line_of(described("end"))[0] == "END: ENTER CONFIRMS  _"


def test_an_old_entry_without_a_prompt_reads_as_before() -> None:
    assert line_of({"what": "goal", "team": "home", "player": "7", "stage": "number"}) == [
        "GOAL HOME  SCORER #7", "GOAL HOME  #7"]


def test_the_menu_entry_is_drawn_on_the_game_screen() -> None:
    doc = copy.deepcopy(states.GAME)
    doc["entry"] = states.MENU_ENTRY
    frame = layout(doc, (1920, 1080))
    shown = [item for item in frame.items if getattr(item, "role", "") == "entry"]
    assert len(shown) == 1 and getattr(shown[0], "text", "").startswith("MENU: ACTION  1")


def test_a_malformed_key_list_names_where() -> None:
    doc = copy.deepcopy(states.GAME)
    doc["entry"] = {**states.MENU_ENTRY, "keys": [["1"]]}
    with pytest.raises(DocumentError, match=re.escape("entry.keys[0]: expected [key, meaning]")):
        read_state(doc)


def shown_in(lang: str, entry: dict[str, object]) -> str:
    """The operator line the hall display draws for ``entry`` in ``lang`` (1920x1080)."""
    from display.fonts import measure  # noqa: PLC0415
    from display.layout import LayoutOptions  # noqa: PLC0415

    doc = copy.deepcopy(states.GAME)
    doc["entry"] = entry
    frame = layout(doc, (1920, 1080), options=LayoutOptions(language=lang), measure=measure)
    (line,) = [t.text for t in frame.texts() if t.role == "entry"]
    return line


# The keypad's phrases (the state document's entry.say, docs/developer.md 4.3) in the hall's
# language ([display] language, docs/developer.md, "Languages"): the prompt, then as many choices as
# fit.
WORDED = {
    "cs": ("TREST HOSTÉ #12: DRUH  _  1 MENŠÍ TREST   2 DVOJITÝ MENŠÍ TREST",
           "MENU: AKCE  _  1 START/STOP   2 SIRÉNA   3 GÓL DOMÁCÍ",
           "NASTAVIT ČAS: M:SS.D  12:00.0"),
    "sr": ("ISKLJUČENJE GOST #12: VRSTA  _  1 MALA KAZNA",
           "MENI: RADNJA  _  1 START/STOP   2 SIRENA   3 GOL DOMAĆIN",
           "PODESI VREME: M:SS.D  12:00.0"),
    "fi": ("JÄÄHY VIERAS #12: RANGAISTUS  _  1 PIENI RANGAISTUS",
           "VALIKKO: TOIMINTO  _  1 KÄYNTIIN/SEIS   2 SUMMERI   3 MAALI KOTI",
           "ASETA AIKA: M:SS.K  12:00.0"),
}


@pytest.mark.parametrize("lang", sorted(WORDED))
def test_the_operator_line_is_in_the_halls_language(lang: str) -> None:
    penalty, menu, clock = WORDED[lang]
    shown = [shown_in(lang, described("penalty_away", "1", "2", "enter")),
             shown_in(lang, described("menu")),
             shown_in(lang, described("set_clock", "1", "2", "0", "0"))]
    assert shown[0].startswith(penalty), shown[0]
    assert shown[1].startswith(menu), shown[1]
    assert shown[2] == clock
    for line in shown:  # none of the keypad's English is left
        assert not any(w in line for w in ("PENALTY", "KIND", "ACTION", "SET CLOCK", "HORN"))


def test_in_english_the_line_is_the_documents_prompt() -> None:
    entry = described("penalty_away", "1", "2", "enter")
    assert shown_in("en", entry).startswith(f"{str(entry['prompt']).upper()}  _  1 MINOR")


def test_a_document_without_phrases_shows_its_english_in_any_language() -> None:
    """An entry from before ``say`` (or another tool's): its prompt as it came."""
    entry = {k: v for k, v in described("menu").items() if k != "say"}
    assert shown_in("fi", entry).startswith("MENU: ACTION  _  1 START/STOP")


def test_a_malformed_phrase_names_where() -> None:
    doc = copy.deepcopy(states.GAME)
    entry = described("menu")
    doc["entry"] = {**entry, "say": {"prompt": ["prompt.menu", {"x": 1.5}]}}
    with pytest.raises(DocumentError, match=re.escape("entry.say.prompt.x: expected text")):
        read_state(doc)
    doc["entry"] = {**entry, "say": {"prompt": "MENU"}}
    with pytest.raises(DocumentError, match=re.escape("entry.say.prompt")):
        read_state(doc)
    doc["entry"] = {**entry, "say": {"keys": [["1"]]}}
    with pytest.raises(DocumentError, match=re.escape("entry.say.keys[0]: expected [key, ")):
        read_state(doc)
