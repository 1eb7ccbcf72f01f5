"""Keypad entry: pure, with injected time (the daemon forwards keys as plain names). Every
path of the grammar (arena/core/entry.py's docstring, docs/timekeeper.md, "Entries in detail")."""

from __future__ import annotations

import pytest

from arena import presets
from arena.core.commands import (
    Cancel,
    Correct,
    End,
    Forfeit,
    Goal,
    Horn,
    Next,
    Penalty,
    SetClock,
    Shot,
    Start,
    Timeout,
    Undo,
)
from arena.core.entry import (
    MENU,
    PAGE,
    EntryWhat,
    KeypadEntry,
    Lapse,
    Output,
    Record,
    StartStop,
    records_of,
)
from arena.core.phase import Team

from .helpers import Game, S

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
    described = pad.describe()
    assert described is not None
    # The fields the hall display has always read are kept as they were.
    assert {k: described[k] for k in ("what", "team", "player", "stage", "kinds")} == {
        "what": "penalty", "team": "away", "player": "23", "stage": "kind",
        "kinds": ["1 minor", "2 double_minor", "3 major", "4 misconduct"]}
    assert described["prompt"] == "PENALTY AWAY #23: kind" and described["typed"] == ""
    assert described["keys"][:5] == [["1", "minor"], ["2", "double minor"], ["3", "major"],
                                     ["4", "misconduct"], ["enter", "minor"]]
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


# ---------------------------------------------------------------- the whole grammar

HOCKEY = ["minor", "double_minor", "major", "misconduct", "game_misconduct", "match"]
ELEVEN = [f"k{n}" for n in range(1, 12)]  # a user's preset with more than nine kinds


def keys(pad: KeypadEntry, at: float, *names: str) -> list[Output]:
    out: list[Output] = []
    for name in names:
        out += pad.key(name, S(at))
    return out


def test_every_kind_of_the_preset_is_reachable_not_only_the_first_three() -> None:
    for number, kind in enumerate(HOCKEY, start=1):
        pad = KeypadEntry(HOCKEY)
        pad.begin(EntryWhat.PENALTY, Team.HOME, S(10))
        assert keys(pad, 11, "4", "enter", str(number)) == [
            Penalty(S(10), Team.HOME, 4, kind)]


def test_ten_kinds_or_more_take_two_digits_and_a_one_waits_for_the_second() -> None:
    pad = KeypadEntry(ELEVEN)
    pad.begin(EntryWhat.PENALTY, Team.HOME, S(10))
    keys(pad, 11, "4", "enter")
    assert keys(pad, 11, "1") == []  # 1, 10 or 11: waits
    described = pad.describe()
    assert described is not None and described["typed"] == "1"
    assert [k for k, _ in described["keys"] if k.isdigit()] == ["1", "10", "11"]
    assert keys(pad, 11, "1") == [Penalty(S(10), Team.HOME, 4, "k11")]
    pad.begin(EntryWhat.PENALTY, Team.HOME, S(20))
    assert keys(pad, 21, "enter", "1", "enter") == [Penalty(S(20), Team.HOME, 0, "k1")]
    pad.begin(EntryWhat.PENALTY, Team.HOME, S(30))
    assert keys(pad, 31, "enter", "7") == [Penalty(S(30), Team.HOME, 0, "k7")]  # 70 > 11
    pad.begin(EntryWhat.PENALTY, Team.HOME, S(40))
    keys(pad, 41, "enter", "1", "backspace", "2")  # 2: complete at once
    assert pad.pending is None
    pad.begin(EntryWhat.PENALTY, Team.AWAY, S(50))
    keys(pad, 51, "9", "enter", "1")
    assert pad.poll(S(56)) == [Penalty(S(50), Team.AWAY, 9, "k1")]  # the kind typed


def test_dot_toggles_coincidental_at_any_step_of_a_penalty() -> None:
    pad = KeypadEntry(HOCKEY)
    pad.begin(EntryWhat.PENALTY, Team.AWAY, S(10))
    assert keys(pad, 11, "dot", "1", "2") == []
    described = pad.describe()
    assert described is not None and described["coincidental"] is True
    assert "COINCIDENTAL" in described["prompt"]
    assert keys(pad, 12, "enter", "3") == [
        Penalty(S(10), Team.AWAY, 12, "major", coincidental=True)]
    pad.begin(EntryWhat.PENALTY, Team.AWAY, S(20))
    assert keys(pad, 21, "5", "enter", "dot", "dot", "dot", "1") == [
        Penalty(S(20), Team.AWAY, 5, "minor", coincidental=True)]


def test_backspace_in_the_kind_step_goes_back_to_the_number() -> None:
    pad = KeypadEntry(HOCKEY)
    pad.begin(EntryWhat.PENALTY, Team.HOME, S(10))
    keys(pad, 11, "7", "enter", "backspace", "backspace", "8", "enter")
    assert keys(pad, 12, "2") == [Penalty(S(10), Team.HOME, 8, "double_minor")]


def test_shot_shooter_then_scored_or_missed_at_the_instant_of_the_button() -> None:
    pad = KeypadEntry(HOCKEY)
    pad.choose("shot_home", S(10))
    assert keys(pad, 11, "1", "0", "enter") == []
    described = pad.describe()
    assert described is not None and described["stage"] == "outcome"
    assert described["keys"][:3] == [["1", "scored"], ["0", "missed"], ["enter", "scored"]]
    assert keys(pad, 12, "0") == [Shot(S(10), Team.HOME, scored=False, player=10)]
    pad.choose("shot_away", S(20))
    assert keys(pad, 21, "enter", "enter") == [Shot(S(20), Team.AWAY, scored=True)]
    pad.choose("shot_away", S(30))
    assert keys(pad, 31, "4", "enter", "backspace", "backspace", "5", "enter", "1") == [
        Shot(S(30), Team.AWAY, scored=True, player=5)]


def test_a_shot_whose_outcome_was_not_typed_is_dropped_on_timeout_never_guessed() -> None:
    pad = KeypadEntry(HOCKEY, timeout=S(5))
    pad.choose("shot_home", S(10))
    keys(pad, 11, "7", "enter")
    assert pad.poll(S(16)) == [] and pad.pending is None
    pad.choose("shot_home", S(20))
    assert pad.begin(EntryWhat.GOAL, Team.HOME, S(21)) == []  # dropped, not completed


@pytest.mark.parametrize(("typed", "expected"), [
    (("1", "2", "0", "0"), 720_000),  # 12:00
    (("4", "5"), 45_000),  # 0:45
    (("1", "2", "3", "4", "dot", "5"), 754_500),  # 12:34.5
    (("dot", "7"), 700),  # 0:00.7
    (("9", "0"), 90_000),  # a microwave's 0:90 is 1:30
    (("1", "2", "3", "4", "5"), 754_000),  # a fifth digit before the dot is ignored
    (("3", "0", "dot", "1", "2"), 30_100),  # one tenths digit only
    (("1", "2", "backspace", "3", "0", "0"), 780_000),  # 12, erased to 1, then 300: 13:00
])
def test_set_clock_digits_fill_from_the_right(typed: tuple[str, ...], expected: int) -> None:
    pad = KeypadEntry(HOCKEY)
    pad.choose("set_clock", S(10))
    assert keys(pad, 11, *typed) == []
    assert keys(pad, 12, "enter") == [SetClock(S(12), expected)]  # at the Enter


def test_set_clock_shows_the_value_and_needs_a_digit_and_drops_on_timeout() -> None:
    pad = KeypadEntry(HOCKEY, timeout=S(5))
    pad.choose("set_clock", S(10))
    assert keys(pad, 11, "enter") == []  # nothing typed: nothing set
    keys(pad, 11, "1", "2", "3", "4", "dot", "5")
    described = pad.describe()
    assert described is not None and described["typed"] == "12:34.5"
    assert ["enter", "set the clock to 12:34.5"] in described["keys"]
    assert described["player"] is None and described["team"] is None
    assert pad.poll(S(16)) == [] and pad.pending is None


@pytest.mark.parametrize(("action", "command"), [
    ("end", End(S(12))), ("next", Next(S(12))), ("undo", Undo(S(12))),
    ("forfeit_home", Forfeit(S(12), Team.HOME)), ("forfeit_away", Forfeit(S(12), Team.AWAY)),
])
def test_deliberate_actions_need_an_enter_and_nothing_else_confirms(
        action: str, command: Output) -> None:
    pad = KeypadEntry(HOCKEY, timeout=S(5))
    pad.choose(action, S(10))
    assert keys(pad, 11, "1", "dot", "backspace", "0") == []  # no stray key confirms
    assert keys(pad, 12, "enter") == [command]
    pad.choose(action, S(20))
    assert pad.poll(S(25)) == [] and pad.pending is None  # a timeout never confirms
    pad.choose(action, S(30))
    assert keys(pad, 31, "escape", "enter") == []


def test_start_stop_and_time_outs_act_at_once() -> None:
    pad = KeypadEntry(HOCKEY)
    assert pad.choose("start_stop", S(10)) == [StartStop(S(10))]
    assert pad.choose("timeout_away", S(11)) == [Timeout(S(11), Team.AWAY)]
    with pytest.raises(ValueError, match="unknown console action 'jump'"):
        pad.choose("jump", S(12))


def test_the_menu_reaches_every_action_with_one_or_two_digits() -> None:
    # (tests/hardware checks that MENU holds every console action but the menu itself)
    expected_stage = {"goal_home": "number", "shot_away": "number", "set_clock": "clock",
                      "end": "confirm", "forfeit_home": "confirm", "cancel": "list",
                      "next": "confirm", "undo": "confirm", "horn": "sounding"}
    for number, (action, label) in enumerate(MENU, start=1):
        pad = KeypadEntry(HOCKEY)
        pad.choose("menu", S(10))
        described = pad.describe()
        assert described is not None
        if number > PAGE:  # on the next page: dot turns to it
            pad.key("dot", S(10))
            described = pad.describe()
            assert described is not None
        assert [str(number), label] in described["keys"]
        digits = list(str(number))
        # "1" could be 1 or 10..17: it waits for the second digit or Enter.
        out = keys(pad, 11, *digits, *(["enter"] if number == 1 else []))
        if action == "start_stop":
            assert out == [StartStop(S(11))]
        elif action.startswith("timeout"):
            assert out == [Timeout(S(11), Team(action.split("_")[1]))]
        elif action == "horn":
            assert out == [Horn(S(11), on=True)]
        if action in expected_stage:
            assert pad.pending is not None and pad.pending.stage.value == expected_stage[action]


@pytest.mark.parametrize(("preset", "score"), [("ice-hockey-2x20", "0:5"),
                                               ("football-p10", "0:3")])
def test_the_forfeit_confirmation_says_the_presets_score(preset: str, score: str) -> None:
    # Rules 000 'Rules': a technical loss 0:5; rules 003 (the football presets' [forfeit]
    # goals): 0:3. The keypad says what the core will record (Preset.forfeit_goals).
    goals = presets.load(preset).forfeit_goals
    pad = KeypadEntry(HOCKEY, forfeit_goals=goals)
    pad.choose("forfeit_home", S(10))
    described = pad.describe()
    assert described is not None
    assert ["enter", f"forfeit: home loses {score}"] in described["keys"]


def test_the_menu_shows_the_numbers_that_are_left_a_page_at_a_time_and_waits() -> None:
    pad = KeypadEntry(HOCKEY, timeout=S(5))
    pad.choose("menu", S(10))
    described = pad.describe()
    assert described is not None
    # The whole menu is 18 numbers: 1-9 on the first page, dot turns to 10-18.
    assert [k for k, _ in described["keys"] if k.isdigit()] == [str(n) for n in range(1, 10)]
    assert ["dot", "more: page 1 of 2"] in described["keys"]
    keys(pad, 11, "dot")
    described = pad.describe()
    assert described is not None
    assert [k for k, _ in described["keys"] if k.isdigit()] == [str(n) for n in range(10, 19)]
    assert ["dot", "more: page 2 of 2"] in described["keys"]
    keys(pad, 11, "dot")  # from the last page back to the first
    described = pad.describe()
    assert described is not None and ["dot", "more: page 1 of 2"] in described["keys"]
    keys(pad, 11, "1")
    described = pad.describe()
    assert described is not None
    # 1 and 10-18 are left: ten numbers, so the first page shows nine of them.
    assert [k for k, _ in described["keys"] if k.isdigit()] == [
        "1", *[str(n) for n in range(10, 18)]]
    assert ["enter", "pick it"] in described["keys"]
    keys(pad, 11, "dot")
    described = pad.describe()
    assert described is not None
    assert [k for k, _ in described["keys"] if k.isdigit()] == ["18"]
    assert keys(pad, 11, "9") == []  # 19: no such item, ignored
    # A list waits for its key: it never vanishes unseen, however long it is read.
    assert pad.next_deadline() is None and pad.lapse() is None
    assert pad.poll(S(600)) == [] and pad.pending is not None
    assert keys(pad, 600, "5") == []  # 15: cancel/correct, itself a list that waits
    assert pad.pending is not None and pad.pending.what is EntryWhat.CANCEL
    assert pad.poll(S(1200)) == [] and pad.pending is not None
    assert keys(pad, 1200, "escape") == [] and pad.pending is None
    assert pad.lapsed is None  # nothing timed out


def test_a_menu_goal_is_entered_and_completes_like_the_button() -> None:
    pad = KeypadEntry(HOCKEY, timeout=S(5))
    pad.choose("menu", S(10))
    keys(pad, 11, "4", "2", "1")  # 4: goal away, then #21
    assert pad.poll(S(16)) == [Goal(S(11), Team.AWAY, 21)]


def test_the_horn_from_the_menu_sounds_until_any_key_or_the_timeout() -> None:
    pad = KeypadEntry(HOCKEY, timeout=S(5))
    pad.choose("menu", S(10))
    assert keys(pad, 11, "2") == [Horn(S(11), on=True)]
    assert keys(pad, 13, "escape") == [Horn(S(13), on=False)]
    pad.choose("menu", S(20))
    keys(pad, 21, "2")
    assert pad.next_deadline() == S(26)
    assert pad.poll(S(30)) == [Horn(S(26), on=False)]
    pad.choose("horn", S(40))
    assert pad.choose("goal_home", S(41)) == [Horn(S(41), on=False)]


RECORDS = (
    Record(9, "penalty", Team.AWAY, 12, "minor", 2, 600_000),
    Record(5, "goal", Team.HOME, 7, None, 1, 1_000_000),
    Record(3, "goal", Team.HOME, None, None, 1, 1_190_000),
)


def test_cancel_lists_the_records_newest_first_and_enter_cancels_one() -> None:
    pad = KeypadEntry(HOCKEY)
    pad.records = RECORDS
    pad.choose("cancel", S(10))
    described = pad.describe()
    assert described is not None and described["stage"] == "list"
    assert described["keys"][:3] == [["1", "penalty away #12 minor P2 10:00"],
                                     ["2", "goal home #7 P1 16:40"],
                                     ["3", "goal home #? P1 19:50"]]
    assert keys(pad, 11, "2") == []
    described = pad.describe()
    assert described is not None and described["stage"] == "record"
    assert described["prompt"].startswith("GOAL HOME #7 P1 16:40")
    assert keys(pad, 12, "enter") == [Cancel(S(12), 5)]


def test_cancel_then_a_number_corrects_the_player() -> None:
    pad = KeypadEntry(HOCKEY)
    pad.records = RECORDS
    pad.choose("cancel", S(10))
    keys(pad, 11, "1", "2", "1")
    described = pad.describe()
    assert described is not None and ["enter", "correct to #21"] in described["keys"]
    assert keys(pad, 12, "enter") == [Correct(S(12), 9, 21)]
    # Backspace steps back: the digits, then the list, then another record.
    pad.choose("cancel", S(20))
    keys(pad, 21, "1", "4", "backspace", "backspace", "3")
    assert keys(pad, 22, "enter") == [Cancel(S(22), 3)]


def test_cancel_waits_on_its_list_and_drops_on_timeout_once_a_record_is_picked() -> None:
    pad = KeypadEntry(HOCKEY, timeout=S(5))
    pad.choose("cancel", S(10))
    described = pad.describe()
    assert described is not None and "no goal or penalty" in described["prompt"]
    assert keys(pad, 11, "1", "enter") == []
    assert pad.poll(S(100)) == [] and pad.pending is not None  # the list waits
    pad.records = RECORDS
    pad.choose("cancel", S(200))
    assert pad.poll(S(260)) == [] and pad.pending is not None
    keys(pad, 261, "1")  # a record picked: now Enter (or a number) is asked, in time
    assert pad.lapse() == Lapse(EntryWhat.CANCEL, None, S(266), entered=False)
    assert pad.poll(S(266)) == [] and pad.pending is None  # a timeout never cancels
    assert pad.lapsed == Lapse(EntryWhat.CANCEL, None, S(266), entered=False)


def test_the_cancel_list_turns_its_pages_and_picks_by_the_number_shown() -> None:
    """Twenty records (``RECENT``): three pages; the number typed is the number shown,
    whichever page is on screen."""
    records = tuple(Record(100 - n, "goal", Team.HOME, n, None, 1, 60_000 * n)
                    for n in range(1, 21))  # newest first: #1 has the highest seq
    pad = KeypadEntry(HOCKEY, timeout=S(5))
    pad.records = records
    pad.choose("cancel", S(10))
    pages = []
    for _ in range(4):
        described = pad.describe()
        assert described is not None
        pages.append([k for k, _ in described["keys"] if k.isdigit()])
        assert ["dot", f"more: page {len(pages) % 3 or 3} of 3"] in described["keys"]
        keys(pad, 11, "dot")
    assert pages == [[str(n) for n in range(1, 10)], [str(n) for n in range(10, 19)],
                     ["19", "20"], [str(n) for n in range(1, 10)]]
    # Four turns: page 2 is on screen.
    described = pad.describe()
    assert described is not None
    assert ["12", "goal home #12 P1 12:00"] in described["keys"]
    keys(pad, 13, "1", "2")
    assert keys(pad, 14, "enter") == [Cancel(S(14), 88)]  # record 12: seq 100 - 12


def test_an_entry_says_when_it_times_out_and_what_it_then_does() -> None:
    pad = KeypadEntry(HOCKEY, timeout=S(5))
    assert pad.lapse() is None
    pad.choose("goal_home", S(10))
    assert pad.lapse() == Lapse(EntryWhat.GOAL, Team.HOME, S(15), entered=True)
    keys(pad, 12, "7")
    assert pad.lapse() == Lapse(EntryWhat.GOAL, Team.HOME, S(17), entered=True)
    assert pad.poll(S(17)) == [Goal(S(10), Team.HOME, 7)]
    assert pad.lapsed == Lapse(EntryWhat.GOAL, Team.HOME, S(17), entered=True)
    pad.choose("set_clock", S(20))
    keys(pad, 21, "1", "2")
    assert pad.lapse() == Lapse(EntryWhat.SET_CLOCK, None, S(26), entered=False)
    assert pad.poll(S(26)) == [] and pad.lapsed is not None
    assert pad.lapsed.what is EntryWhat.SET_CLOCK and not pad.lapsed.entered
    # The penalty's kind list times out with the first kind: a countdown says so.
    pad.choose("penalty_away", S(30))
    keys(pad, 31, "4", "enter")
    assert pad.pending is not None and pad.pending.stage.value == "kind"
    assert pad.lapse() == Lapse(EntryWhat.PENALTY, Team.AWAY, S(36), entered=True)
    # Interrupted by another button, an entry did not time out: nothing to tell.
    pad.choose("goal_home", S(32))
    assert pad.lapsed is not None and pad.lapsed.what is EntryWhat.SET_CLOCK


def test_records_of_a_match_newest_first_without_the_cancelled() -> None:
    game = Game("ice-hockey-2x20")
    game.do(Start(S(0)))
    game.do(Goal(S(60), Team.HOME, 7))
    game.do(Penalty(S(120), Team.AWAY, 12, "minor"))
    game.do(Goal(S(180), Team.AWAY, None))
    goal_seq = game.match.state.goals[0].seq
    game.do(Cancel(S(200), goal_seq))
    listed = records_of(game.match.state)
    assert [(r.what, r.team, r.player) for r in listed] == [
        ("goal", Team.AWAY, None), ("penalty", Team.AWAY, 12)]
    assert listed[1].kind == "minor" and listed[1].period == 1


def test_every_entry_describes_its_keys_for_any_view() -> None:
    pad = KeypadEntry(HOCKEY)
    pad.records = RECORDS
    for action in ("goal_home", "penalty_away", "shot_home", "set_clock", "end",
                   "forfeit_away", "cancel", "menu", "horn", "next", "undo"):
        pad.choose(action, S(10))
        described = pad.describe()
        assert described is not None, action
        assert described["prompt"] and isinstance(described["typed"], str), action
        assert all(len(k) == 2 and all(isinstance(x, str) for x in k)
                   for k in described["keys"]), action
        pad.key("escape", S(11))
    assert pad.describe() is None
