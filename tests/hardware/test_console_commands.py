"""Every timekeeper command from the console's buttons and keypad (docs/timekeeper.md, "The
buttons"), on gpiozero's MockFactory with injected edge times, and a whole tied play-off
game entered from nothing else."""

from __future__ import annotations

import re
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from arena.core.commands import (
    Correct,
    End,
    Forfeit,
    Penalty,
    SetClock,
    Shot,
    Start,
    Stop,
    Timeout,
)
from arena.core.entry import MENU
from arena.core.events import EventKind
from arena.core.phase import Team
from hardware.console import ACTIONS, HOLD_ACTIONS, ConsoleConfigError, load_config

from .conftest import FakeTicks
from .test_console import Bench, s


@pytest.fixture
def bench(factory: MockFactory, ticks: FakeTicks) -> Bench:
    return Bench(factory, ticks)


def let_time_pass(bench: Bench, now: str) -> None:
    """The loop advances the match to its deadlines between presses (the daemon does)."""
    bench.events += bench.match.advance(s(now))


def test_the_menu_offers_every_console_action_but_itself() -> None:
    assert [action for action, _ in MENU] == [a for a in (
        "start_stop", "horn", "goal_home", "goal_away", "penalty_home", "penalty_away",
        "timeout_home", "timeout_away", "shot_home", "shot_away", "set_clock", "end",
        "forfeit_home", "forfeit_away", "cancel", "next", "undo", "schedule")]
    assert set(ACTIONS) == {action for action, _ in MENU} | {"menu"}


def test_forfeit_next_and_undo_buttons_must_be_held() -> None:
    config = load_config({"buttons": {"forfeit_home": {"pin": 19, "action": "forfeit_home"}}})
    assert {b.action for b in config.buttons if b.hold} == HOLD_ACTIONS & {
        b.action for b in config.buttons}
    with pytest.raises(ConsoleConfigError, match=re.escape(
            "buttons.f.hold: forfeit_away acts only on a hold; hold = false is refused")):
        load_config({"buttons": {"f": {"pin": 19, "action": "forfeit_away", "hold": False}}})


def test_a_forfeit_button_acts_only_on_a_one_second_hold(factory: MockFactory,
                                                         ticks: FakeTicks) -> None:
    bench = Bench(factory, ticks, buttons={"forfeit_away": {"pin": 19,
                                                            "action": "forfeit_away"}})
    bench.tap("forfeit_away", "1000", held="0.9")
    assert bench.drain("1002") == []
    bench.press("forfeit_away", "1010")
    assert bench.drain("1011") == [Forfeit(s("1011"), Team.AWAY)]
    assert bench.match.state.result is not None


def test_actions_without_a_pin_are_pressed_from_elsewhere_with_debounce_and_hold(
        bench: Bench) -> None:
    console = bench.console
    assert console.button("forfeit_home", s("1000"), True)  # no pin in the default map
    assert bench.drain("1000.5") == []
    assert bench.drain("1001") == [Forfeit(s("1001"), Team.HOME)]
    assert not console.button("fly", s("1002"), True)


def test_menu_then_digits_reach_shot_set_clock_and_end(bench: Bench) -> None:
    bench.tap("start_stop", "1000")
    bench.tap("menu", "1100")
    bench.keys("1101", "1", "1")  # 11: set clock
    bench.keys("1102", "5", "0", "0", "enter")  # 5:00
    assert bench.drain("1103")[-1] == SetClock(s("1102"), 300_000)
    bench.tap("menu", "1200")
    bench.keys("1201", "1", "2")  # 12: end
    assert bench.drain("1201.5") == []  # not yet: it needs the Enter
    bench.keys("1202", "enter")
    assert bench.drain("1203")[-1] == End(s("1202"))
    assert bench.match.state.phase.value == "intermission"
    assert bench.refusals == []


def test_start_stop_and_a_time_out_from_the_menu(bench: Bench) -> None:
    bench.tap("menu", "1000")
    bench.keys("1000.5", "1", "enter")  # 1 (not 10..17): start/stop
    bench.tap("menu", "1060")
    bench.keys("1060.5", "1", "enter")
    bench.tap("menu", "1061")
    bench.keys("1061.5", "8")  # time-out away (a play-off, clock stopped: rules 001)
    assert bench.drain("1062") == [Start(s("1000.5")), Stop(s("1060.5")),
                                   Timeout(s("1061.5"), Team.AWAY)]


def test_the_cancel_list_is_the_match_as_it_stands_at_the_key(bench: Bench) -> None:
    bench.tap("start_stop", "1000")
    bench.tap("penalty_home", "1100")
    bench.keys("1101", "1", "2", "enter", "1")
    bench.drain("1102")
    bench.tap("menu", "1200")
    bench.keys("1201", "1", "5")
    bench.drain("1201.5")
    entry: Any = bench.console.entry()
    assert entry["stage"] == "list" and entry["keys"][0] == ["1", "penalty home #12 minor "
                                                             "P1 18:20"]
    bench.keys("1202", "1", "2", "1", "enter")
    assert bench.drain("1203")[-1] == Correct(s("1202"), bench.match.state.box[0].seq, 21)
    assert [p.player for p in bench.match.state.box] == [21]


def test_a_whole_tied_playoff_game_from_buttons_and_keypad_only(factory: MockFactory,
                                                               ticks: FakeTicks) -> None:
    """Youth hockey (rules 002, play-off): a 1:1 tie after three periods goes to a 3 min
    break, 6 min of overtime with a golden goal ('Overtime'), then penalty shots ('Penalty
    shots' 1, 2, 5). On the way: the clock corrected, a period ended early by the referee,
    a penalty given to the wrong number and corrected, a shot entered through the menu."""
    bench = Bench(factory, ticks, preset="youth-hockey-3x18",
                  buttons={"shot_home": {"pin": 19, "action": "shot_home"},
                           "shot_away": {"pin": 20, "action": "shot_away"}})
    bench.tap("start_stop", "1000")
    bench.tap("goal_home", "1100")
    bench.keys("1101", "9", "enter")
    bench.tap("penalty_away", "1200")
    bench.keys("1201", "1", "2", "enter", "1")  # #12, minor: it was #21
    bench.tap("goal_away", "1300")
    bench.keys("1301", "7", "enter")
    bench.drain("1302")
    # The clock shows 11:18 but should show 10:00: MENU 11, then 1000, Enter.
    bench.tap("menu", "1400")
    bench.keys("1401", "1", "1")
    bench.keys("1402", "1", "0", "0", "0", "enter")
    bench.drain("1402.5")
    # Set forward (6:42 to 8:00 played) it passes the line changes at 7:00 and 8:00 (rules
    # 002, 'Rules': play is stopped after every 60 sec): shown before it acts,
    # the second Enter sets it.
    entry: Any = bench.console.entry()
    assert entry["stage"] == "preview"
    assert entry["prompt"] == "SET CLOCK: line changes passed: 2"
    assert ["enter", "confirm: set the clock to 10:00.0"] in entry["keys"]
    bench.keys("1402.5", "enter")
    bench.drain("1403")
    # The wrong number: MENU 15 (cancel/correct), record 3 (newest first, below the clock
    # correction and the away goal), #21, Enter.
    bench.tap("menu", "1500")
    bench.keys("1501", "1", "5", "3", "2", "1", "enter")
    bench.drain("1502")
    let_time_pass(bench, "2699")  # period 1 ended at 1402.5 + 600 s, the break by itself
    bench.tap("start_stop", "2700")
    bench.drain("2701")
    bench.tap("menu", "2800")  # the referee ends period 2 early: MENU 12, Enter
    bench.keys("2801", "1", "2")
    bench.keys("2802", "enter")
    bench.drain("2803")
    bench.tap("start_stop", "2900")  # ends the break early: period 3 runs at once
    bench.drain("2901")
    let_time_pass(bench, "4000")  # period 3 over at 3980: 1:1, the overtime break
    bench.tap("start_stop", "4200")  # overtime starts
    bench.drain("4201")
    let_time_pass(bench, "4600")  # no golden goal: the shootout
    assert bench.match.state.phase.value == "shootout"
    shots = [("home", "9", "1"), ("away", "7", "0"), ("home", "10", "0"),
             ("away", "8", "0"), ("home", "11", "enter"), ("away", "21", "0"),
             ("home", "12", "0"), ("away", "22", "0")]
    for n, (side, player, outcome) in enumerate(shots):
        at = 4600 + 10 * n
        if n == 1:  # one through the menu: 10 is shot away
            bench.tap("menu", str(at))
            bench.keys(str(at + 1), "1", "0")
        else:
            bench.tap(f"shot_{side}", str(at))
        bench.keys(str(at + 2), *player, "enter", outcome)
        bench.drain(str(at + 3))
    assert bench.refusals == []
    assert bench.match.state.phase.value == "final"
    ended = [e for e in bench.events if e.kind is EventKind.PERIOD_ENDED]
    assert [(e.at, e.data["shortened"]) for e in ended] == [
        (s("2002.5"), False), (s("2802"), True), (s("3980"), False), (s("4560"), False)]
    assert [e.data["to_ms"] for e in bench.events if e.kind is EventKind.CLOCK_SET] == [600_000]
    assert Penalty(s("1200"), Team.AWAY, 12, "minor") in bench.commands
    assert [e.data for e in bench.events if e.kind is EventKind.CORRECTED] == [
        {"corrected_seq": next(e.seq for e in bench.events if e.kind is EventKind.PENALTY),
         "what": "penalty", "team": "away", "player": 21, "was": 12}]
    # From the menu, the shot is at the digit that chose it.
    assert Shot(s("4611"), Team.AWAY, scored=False, player=7) in bench.commands
    record = [e for e in bench.events if e.kind is EventKind.MATCH_ENDED][-1].data["record"]
    assert record["result"] == {"home": 2, "away": 1, "decided_by": "shootout"}
    assert [(g["team"], g["player"], g["period"]) for g in record["goals"]] == [
        ("home", 9, 1), ("away", 7, 1)]
    assert [(p["team"], p["player"], p["kind"]) for p in record["penalties"]] == [
        ("away", 21, "minor")]
    assert record["penalty_minutes"] == {"home": 0, "away": 2}
    assert [(x["team"], x["player"], x["scored"]) for x in record["shootout"]["shots"]] == [
        (side, int(player), outcome != "0") for side, player, outcome in shots]
    # Away scored none: home's first goal put it ahead for good (rules 000's decisive goal).
    assert record["shootout"]["decisive"] == {"team": "home", "player": 9}


def test_an_end_button_asks_for_enter_or_acts_on_a_hold_if_mapped_so(
        factory: MockFactory, ticks: FakeTicks) -> None:
    bench = Bench(factory, ticks, buttons={"end": {"pin": 19, "action": "end"}})
    bench.tap("start_stop", "1000")
    bench.drain("1001")
    bench.tap("end", "1100")
    assert bench.drain("1101") == []
    bench.keys("1102", "enter")
    assert bench.drain("1103") == [End(s("1102"))]
    held = Bench(factory, ticks, buttons={"end": {"pin": 21, "action": "end", "hold": True}})
    held.tap("start_stop", "2000")
    held.drain("2001")
    held.press("end", "2100")
    assert held.drain("2101") == [End(s("2101"))]  # the hold completes: no Enter needed
    held.release("end", "2101.5")
    assert held.drain("2102") == []


def test_without_a_keypad_entries_that_need_one_do_nothing(factory: MockFactory,
                                                             ticks: FakeTicks) -> None:
    bench = Bench(factory, ticks, keypad=False)
    for action in ("menu", "shot_home", "set_clock", "cancel"):
        bench.console.button(action, s("1000"), True)
        bench.console.button(action, s("1000.1"), False)
    bench.keys("1001", "1", "enter")
    assert bench.drain("1002") == [] and bench.console.entry() is None
