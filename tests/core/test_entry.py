"""Keypad entry: pure, with injected time (the daemon forwards keys as plain names)."""

from __future__ import annotations

from firmware_py.core.commands import Goal, Penalty
from firmware_py.core.entry import EntryWhat, KeypadEntry
from firmware_py.core.phase import Team

from .helpers import S

KINDS = ["minor", "double_minor", "major", "misconduct"]


def test_goal_with_scorer_on_enter_and_without_on_timeout() -> None:
    pad = KeypadEntry(KINDS, timeout=S(5))
    assert pad.begin(EntryWhat.GOAL, Team.HOME, S(10)) == []
    assert pad.key("1", S(11)) == [] and pad.key("4", S(11)) == []
    assert pad.key("enter", S(12)) == [Goal(S(10), Team.HOME, 14)]
    pad.begin(EntryWhat.GOAL, Team.AWAY, S(20))
    assert pad.next_deadline() == S(25)
    assert pad.poll(S(24.9)) == []
    assert pad.poll(S(25)) == [Goal(S(20), Team.AWAY, None)]


def test_every_key_extends_the_timeout() -> None:
    pad = KeypadEntry(KINDS, timeout=S(5))
    pad.begin(EntryWhat.GOAL, Team.HOME, S(10))
    pad.key("7", S(14))
    assert pad.poll(S(16)) == []
    assert pad.poll(S(19)) == [Goal(S(10), Team.HOME, 7)]


def test_penalty_number_then_kind_digit() -> None:
    pad = KeypadEntry(KINDS)
    pad.begin(EntryWhat.PENALTY, Team.AWAY, S(10))
    for key in ("2", "3", "enter"):
        assert pad.key(key, S(11)) == []
    assert pad.describe() == {"what": "penalty", "team": "away", "player": "23",
                              "stage": "kind", "kinds": ["1 minor", "2 double_minor",
                                                         "3 major", "4 misconduct"]}
    assert pad.key("9", S(12)) == []  # no ninth kind: ignored
    assert pad.key("2", S(12)) == [Penalty(S(10), Team.AWAY, 23, "double_minor")]


def test_penalty_defaults_to_the_first_kind() -> None:
    pad = KeypadEntry(KINDS, timeout=S(5))
    pad.begin(EntryWhat.PENALTY, Team.HOME, S(10))
    pad.key("8", S(11))
    pad.key("enter", S(11))
    assert pad.key("enter", S(12)) == [Penalty(S(10), Team.HOME, 8, "minor")]
    pad.begin(EntryWhat.PENALTY, Team.HOME, S(20))
    pad.key("5", S(21))
    assert pad.poll(S(26)) == [Penalty(S(20), Team.HOME, 5, "minor")]


def test_escape_cancels_and_backspace_corrects() -> None:
    pad = KeypadEntry(KINDS)
    pad.begin(EntryWhat.GOAL, Team.HOME, S(10))
    pad.key("escape", S(11))
    assert pad.describe() is None and pad.poll(S(100)) == []
    pad.begin(EntryWhat.GOAL, Team.HOME, S(20))
    for key in ("1", "2", "backspace", "7"):
        pad.key(key, S(21))
    assert pad.key("enter", S(22)) == [Goal(S(20), Team.HOME, 17)]


def test_at_most_two_digits_and_stray_keys_change_nothing() -> None:
    pad = KeypadEntry(KINDS)
    assert pad.key("5", S(1)) == []  # nothing pending
    pad.begin(EntryWhat.GOAL, Team.HOME, S(10))
    for key in ("1", "2", "3", "x"):
        pad.key(key, S(11))
    assert pad.key("enter", S(12)) == [Goal(S(10), Team.HOME, 12)]


def test_a_new_button_completes_the_pending_entry_first() -> None:
    pad = KeypadEntry(KINDS)
    pad.begin(EntryWhat.GOAL, Team.HOME, S(10))
    pad.key("9", S(11))
    assert pad.begin(EntryWhat.PENALTY, Team.AWAY, S(12)) == [Goal(S(10), Team.HOME, 9)]
    assert pad.describe() is not None and pad.describe()["what"] == "penalty"  # type: ignore[index]


def test_no_timed_penalties_no_penalty() -> None:
    pad = KeypadEntry([])
    pad.begin(EntryWhat.PENALTY, Team.HOME, S(10))
    assert pad.key("enter", S(11)) == []
