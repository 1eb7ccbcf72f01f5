"""The timekeeper's side of the display (docs/timekeeper.md, "The operator view"): the hall
display's operator line shows the last press's outcome, or the entry, or nothing when the timekeeper
has a view of their own; the second window draws the operator view (SDL's dummy driver
opens several windows, so the real ``pygame.Window`` is tested)."""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

import pytest

from arena import words
from arena.core.entry import MENU, KeypadEntry
from arena.keys import KEYBOARD
from display._pygame import pygame
from display.audiostatus import AudioStatus
from display.colour import ACCEPTED_BOX, BACKGROUND, FAULT_BOX
from display.keyboard import Keyboard, QuitRequest
from display.layout import layout
from display.operatorwindow import (
    WINDOW_SIZE,
    OperatorWindow,
    draw_operator,
    operator_lines,
    placed,
)
from display.screen import Display
from firmware_py.operatorview import audio_line, countdown, worded_entry
from firmware_py.operatorweb import body_html
from tests.display import states
from tests.display.checks import problems

REFUSED: dict[str, Any] = {
    "text": "TIME-OUT HOME REFUSED: no time-outs in group games", "accepted": False,
    "shorter": ["REFUSED: no time-outs in group games", "no time-outs in group games"]}
ACCEPTED = {"text": "GOAL HOME #12 OK", "accepted": True}


def roles(doc: dict[str, Any], status: dict[str, Any], size: tuple[int, int] = (1920, 1080)
          ) -> dict[str, str]:
    frame = layout(doc, size, status=status)
    assert problems(frame) == []
    return {t.role: t.text for t in frame.texts()}


@pytest.mark.parametrize("size", states.SIZES)
def test_the_operator_line_shows_the_outcome_over_the_entry(size: tuple[int, int]) -> None:
    shown = roles(states.GAME, {"feedback": REFUSED}, size)
    assert "entry" not in shown
    assert shown["feedback.refused"] in [REFUSED["text"], *REFUSED["shorter"]]
    frame = layout(states.GAME, size, status={"feedback": ACCEPTED})
    (box,) = [b for b in frame.items if getattr(b, "role", "") == "feedback.ok.box"]
    assert box.colour == ACCEPTED_BOX
    frame = layout(states.GAME, size, status={"feedback": REFUSED})
    (box,) = [b for b in frame.items if getattr(b, "role", "") == "feedback.refused.box"]
    assert box.colour == FAULT_BOX


@pytest.mark.parametrize("doc", [states.GAME, states.BREAK, states.SHOOTOUT, states.FINAL])
def test_every_screen_shows_the_outcome_legibly_in_the_fullest_wording_that_fits(
        doc: dict[str, Any]) -> None:
    wide = roles(doc, {"feedback": REFUSED}, (1920, 1080))
    assert wide["feedback.refused"] == REFUSED["text"]
    assert roles(doc, {"feedback": REFUSED}, (1024, 768))["feedback.refused"] == \
        "REFUSED: no time-outs in group games"
    # Beside a status mark, the reason alone (the mark is louder and stays).
    marked = roles(doc, {"feedback": REFUSED, "restored": True}, (1280, 720))
    assert marked["feedback.refused"] == "no time-outs in group games"
    assert marked["status.restored"] == "CLOCK RESTORED - CHECK"


def test_without_the_operator_line_neither_entry_nor_outcome_is_shown() -> None:
    with_line = roles(states.GAME, {})
    assert with_line["entry"].startswith("PENALTY AWAY")
    off = roles(states.GAME, {"operator_line": False, "feedback": REFUSED})
    assert not {"entry", "feedback.refused"} & set(off)


def test_a_bad_feedback_is_named() -> None:
    with pytest.raises(ValueError, match=r"status\.feedback\.text"):
        layout(states.GAME, (1280, 720), status={"feedback": {"text": 3}})


VIEW: dict[str, Any] = {
    "match": "A3", "preset": "ice-hockey-2x20", "stage": "group",
    "teams": {"home": "Lions", "away": "Bears"}, "score": {"home": 1, "away": 0},
    "phase": "period", "period": 2, "clock": "12:34", "running": False, "horn": True,
    "feedback": {"press": "TIME-OUT HOME", "accepted": False,
                 "reason": "no time-outs in group games",
                 "text": "TIME-OUT HOME \u2717 no time-outs in group games"},
    "entry": {"what": "penalty", "team": "home", "player": "7", "stage": "kind",
              "kinds": states.KINDS},
    "kinds": [{"key": 1, "name": "minor", "minutes": 2},
              {"key": 2, "name": "double_minor", "minutes": 4}],
    "records": [{"key": 1, "seq": 9, "what": "goal", "team": "home", "player": 12, "kind": None,
                 "period": 2, "clock": "13:01", "undo_next": True}],
    "undo": {"seq": 9, "what": "goal"},
    "office": {"connected": False, "unacked": 3},
    "suspensions": {"home": [4], "away": []},
}


def test_the_window_lines_carry_every_part_of_the_view() -> None:
    text = [line.text for line in operator_lines(VIEW)]
    assert text[0] == "TIME-OUT HOME REFUSED: no time-outs in group games"
    assert "PENALTY HOME" in text and "> 7" in text
    assert "  2   double minor" in text  # what key 2 does next
    assert any("HORN" in t and "stopped" in t for t in text)
    assert "office OFFLINE, 3 not acknowledged" in text
    # The number CANCEL picks it by, not its seq (9): one numbering for the timekeeper.
    assert "1  goal home #12  P2 13:01   < UNDO" in text
    assert "2  double minor  4 min" in text
    assert "suspended Lions: #4" in text and "suspended Bears: none" in text
    # A richer keypad grammar (prompt, typed, keys) is shown as it comes.
    entry = {"prompt": "SCORER?", "typed": "1", "keys": [["enter", "goal"], ["*", "menu"]]}
    lines = [line.text for line in operator_lines({**VIEW, "entry": entry})]
    assert "SCORER?" in lines and "> 1" in lines and "  *   menu" in lines


@pytest.fixture
def hall_window() -> Iterator[Display]:
    shown = Display("headless", (640, 360))
    yield shown
    shown.close()


def test_the_second_window_draws_the_view(hall_window: Display) -> None:
    window = OperatorWindow((390, 700))
    try:
        window.draw(VIEW)
        surface = window.window.get_surface()
        assert surface.get_size() == (390, 700)
        assert surface.get_at((2, 20))[:3] == FAULT_BOX  # the refusal's band on top
        inked = sum(surface.get_at((x, y))[:3] != BACKGROUND
                    for x in range(0, 390, 7) for y in range(100, 700, 7))
        assert inked > 50
        # The hall window is untouched by it.
        hall = pygame.display.get_surface()
        assert hall is not None and hall.get_size() == (640, 360)
    finally:
        window.close()


def test_drawing_onto_a_small_surface_leaves_out_what_does_not_fit(
        hall_window: Display) -> None:
    surface = pygame.Surface((200, 120))
    draw_operator(surface, VIEW)  # no error; the top lines are there
    assert surface.get_at((1, 10))[:3] == FAULT_BOX


def test_closing_the_operator_window_only_closes_it(hall_window: Display) -> None:
    window = OperatorWindow()
    keyboard = Keyboard(KEYBOARD)
    pygame.event.post(pygame.event.Event(pygame.WINDOWCLOSE, window=window.window))
    assert keyboard.poll() == [] and window.closed
    window.draw(VIEW)  # a closed window draws nothing, and does not fail
    other = pygame.Window("other", (100, 100))
    try:
        pygame.event.post(pygame.event.Event(pygame.WINDOWCLOSE, window=other))
        assert keyboard.poll() == [QuitRequest()]
    finally:
        other.destroy()


AUDIO_STATES = [(AudioStatus("on", driver="alsa"), "on", False),
                (AudioStatus("on", driver="dummy", silent=True), "silent", True),
                (AudioStatus("opening"), "opening", False),
                (AudioStatus("retrying", problem="ALSA: no card", tries=3), "retrying", True),
                (AudioStatus("failed", problem="no horn.wav"), "failed", True),
                (AudioStatus("off"), "off", False)]


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_the_audio_horn_line_is_in_the_halls_language_on_the_page_and_the_window(
        lang: str) -> None:
    """On, on a silent driver, opening, retrying (no sound card yet), failed, off by the
    config: each its own words, translated, on both of the timekeeper's views; the ones
    where the horn makes no sound stand out."""
    for status, key, alert in AUDIO_STATES:
        assert f"operator.audio.{key}" in words.table(lang), f"{lang}: {key} untranslated"
        line = audio_line(status, lang)
        expected = words.word(f"operator.audio.{key}", lang, driver=status.driver,
                              problem=status.problem)
        assert line["text"] == expected and line["alert"] is alert
        assert "{" not in expected
        assert status.driver in expected and (key != "failed" or status.problem in expected)
        shown = [(ln.text, ln.box) for ln in operator_lines({**VIEW, "audio": line})]
        assert (expected, FAULT_BOX if alert else None) in shown
        page = body_html({**VIEW, "language": lang, "audio": line})
        assert f'class="{"late" if alert else "quiet"}">{html.escape(expected)}</p>' in page
    # Without a status (before the horn started) neither view has the line.
    assert "audio" not in body_html(VIEW)


def _menu_view(page: int) -> dict[str, Any]:
    """The view of the MENU entry on ``page`` (0 or 1) as the daemon builds it, with a
    press's answer above it (the worst case for room)."""

    pad = KeypadEntry(["minor", "double_minor"])
    pad.choose("menu", 0)
    for _ in range(page):
        pad.key("dot", 0)
    entry = worded_entry(pad.describe(), "en")
    entry["timeout"] = countdown(pad.lapse(), 0, "en")
    return {**VIEW, "entry": entry}


def test_the_window_shows_a_whole_menu_page_at_480_by_800() -> None:
    """Both pages of the MENU (dot turns them) fit the window under a press's answer: every
    one of the 18 actions is reachable, none cut off below."""

    assert WINDOW_SIZE == (480, 800)
    drawn: set[str] = set()
    for page in (0, 1):
        view = _menu_view(page)
        lines = [line.text for line, *_ in placed(view, WINDOW_SIZE)]
        assert lines[0].startswith("TIME-OUT HOME")  # the answer on top
        assert "the list waits for your key (Escape closes it)" in lines
        keyed = [line.split()[0] for line in lines if line.startswith("  ")]
        assert keyed[-3:] == ["dot", "backspace", "escape"], lines  # nothing cut below
        drawn |= {k for k in keyed if k.isdigit()}
    assert drawn == {str(n) for n in range(1, len(MENU) + 1)}


def test_the_window_shows_the_winner_the_countdown_and_a_timed_out_entry() -> None:
    view = {**VIEW, "result": {"text": "winner: Lions, shootout 3:2"},
            "timed_out": {"text": "entry timed out: SET CLOCK dropped"},
            "entry": {**VIEW["entry"], "timeout": {"in_s": 3,
                                                   "text": "3 s without a key: entered "
                                                           "as typed"}}}
    lines = [line.text for line, *_ in placed(view, WINDOW_SIZE)]
    score = lines.index("Lions 1 : 0 Bears")
    assert lines[score + 1] == "winner: Lions, shootout 3:2"
    assert lines.index("entry timed out: SET CLOCK dropped") < lines.index("PENALTY HOME")
    assert "3 s without a key: entered as typed" in lines

