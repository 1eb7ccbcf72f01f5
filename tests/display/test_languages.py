"""The hall display in every language (docs/developer.md, "Languages"): each word comes from the
hall's table, every letter of it is in the display's font, and the longer Czech and Finnish
words still follow the legibility rules (shrunk to fit their box, nothing overlapping or
leaving the screen)."""

from __future__ import annotations

import re

import pytest

from arena import words
from display import fonts
from display.items import Frame
from display.layout import LayoutOptions, layout
from tests.display import states
from tests.display.checks import problems
from tests.display.test_legibility import NAME_PAIRS, STATUS, VARIATIONS

OTHERS = [lang for lang in words.LANGUAGES if lang != words.DEFAULT]
# Team names, office labels and the keypad's prompts are the event's data, not the table's.
DATA_ROLES = ("name.", "table.team", "next.about", "entry", "feedback", "pregame.suspended",
              "goal.home.name", "goal.away.name")


def display_words(lang: str) -> list[str]:
    return [words.word(k, lang) for k in words.table(words.DEFAULT) if k.startswith("display.")]


def frame_in(lang: str, screen: str, size: tuple[int, int] = (1920, 1080),
             status: dict[str, object] | None = None) -> Frame:
    doc, between = VARIATIONS[screen]
    return layout(doc, size, between=between, status=status, measure=fonts.measure,
                  options=LayoutOptions(shootout_rounds=5, language=lang))


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_every_letter_of_every_display_word_is_in_the_font(lang: str) -> None:
    """FreeSansBold has Č Ř Ů Ě Đ Ć Ä Ö and the rest: no word shows a missing-glyph box.
    (``get_metrics`` gives None for a glyph the font lacks.)"""
    face = fonts.face()
    letters = sorted(set("".join(display_words(lang))) - {" "})
    lacking = [c for c, m in zip(letters, face.get_metrics("".join(letters), size=40),
                                 strict=True) if m is None]
    assert lacking == [], f"{lang}: the font has no glyph for {lacking}"


def test_the_font_check_notices_a_missing_glyph() -> None:
    assert fonts.face().get_metrics("\u4e00", size=40) == [None]  # a CJK letter it lacks


@pytest.mark.parametrize("lang", OTHERS)
def test_no_english_display_word_is_left_on_any_screen(lang: str) -> None:
    """Every screen shows the hall's words: an English word of the display's table that the
    language does not share (``STOP`` is Czech too) appears on no screen in that language."""
    own = {t for w in words.table(lang).values() for t in re.findall(r"[A-Z]{2,}", w)}
    english = {t for w in display_words("en") for t in re.findall(r"[A-Z]{2,}", w)} - own
    everything = {"recording": False, "journal_damaged": 12, "restored": True,
                  "set_aside": "2", "schedule": "x", "office_online": False}
    left = set()
    for screen in VARIATIONS:
        for status in (None, everything):
            frame = frame_in(lang, screen, status=status)
            for t in frame.texts():
                if t.font == "sans" and not t.role.startswith(DATA_ROLES):
                    left |= {(screen, t.role, w) for w in re.findall(r"[A-Z]{2,}", t.text)
                             if w in english}
    assert left == set()


def test_the_check_for_english_words_can_fail() -> None:
    frame = frame_in("en", "game")
    assert any("PERIOD" in t.text for t in frame.texts())
    assert not any("PERIOD" in t.text for t in frame_in("fi", "game").texts())
    assert any("ERÄ" in t.text for t in frame_in("fi", "game").texts())


@pytest.mark.parametrize("size", states.SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_no_display_word_is_cut_short(lang: str, size: tuple[int, int]) -> None:
    """The table's words fit whole on the screens the display is made for (a word cut to
    "ODDECHOVÝ…" would hide the time-out's time): a translation too long for its box
    fails here, and gets a shorter wording."""
    cut = [(screen, t.role, t.text) for screen in VARIATIONS
           for t in frame_in(lang, screen, size).texts()
           if t.text.endswith("\u2026") and not t.role.startswith(DATA_ROLES)]
    assert cut == []


SIZES = [*states.SIZES, (800, 480), (1280, 1024)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", OTHERS)
def test_every_screen_follows_the_legibility_rules_in_every_language(
        lang: str, size: tuple[int, int]) -> None:
    """The legibility test's screens (tests/display/test_legibility.py), in the longer
    words: no text under 4 %, nothing overlapping or off the screen."""
    for screen in VARIATIONS:
        for home, away in (NAME_PAIRS[0], NAME_PAIRS[len(NAME_PAIRS) // 2]):
            for status in STATUS:
                doc, between = VARIATIONS[screen]
                frame = layout(states.with_names(doc, home, away), size, between=between,
                               status=status, measure=fonts.measure,
                               options=LayoutOptions(shootout_rounds=5, language=lang))
                assert problems(frame) == [], (lang, screen, home, away, status)


def test_an_unknown_language_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="display language 'de': one of en, cs, sr, fi"):
        LayoutOptions(language="de")
