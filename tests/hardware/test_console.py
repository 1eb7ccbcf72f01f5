"""The console through gpiozero's MockFactory: every button, chatter, holds, double taps, the
keypad, and presses that take effect at their edge time."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from arena import presets
from arena.core.commands import (
    Command,
    Goal,
    Horn,
    Next,
    Penalty,
    Start,
    Stop,
    Timeout,
    Undo,
)
from arena.core.events import Event
from arena.core.match import Match, feed
from arena.core.phase import Stage, Team
from arena.core.state import state_document
from arena.core.values import MatchSetup
from hardware.buttons import ButtonLogic, ButtonSpec, Press
from hardware.console import Console, ConsoleConfigError, load_config

from .conftest import FakeTicks

NS = 1_000_000_000
MS = 1_000_000


class Bench:
    """A console on mock pins, a match, and every command the console submitted."""

    def __init__(self, factory: MockFactory, ticks: FakeTicks, *, stage: Stage = Stage.PLAYOFF,
                 preset: str = "floorball-2x20", **overrides: Any) -> None:
        self.ticks = ticks
        self.factory = factory
        self.config = load_config(overrides)
        self.match = Match(presets.load(preset), MatchSetup(stage=stage))
        self.console = Console(self.config, factory,
                               list(self.match.preset.penalties.kinds))
        self.commands: list[Command] = []
        self.events: list[Event] = []
        self.refusals: list[str] = []
        self.pins = {b.name: factory.pin(b.pin) for b in self.config.buttons}

    def submit(self, command: Command) -> None:
        self.commands.append(command)
        fed = feed(self.match, command)
        self.events += fed.events
        if fed.refused is not None:
            self.refusals.append(str(fed.refused))

    def keys(self, at: str, *names: str) -> None:
        """Keypad keys, all at one instant (their order is kept)."""
        for name in names:
            self.console.key(name, s(at))

    def press(self, name: str, at: str) -> None:
        self.ticks.at(at)
        self.pins[name].drive_low()  # pull-up wiring: a press pulls the pin to ground

    def release(self, name: str, at: str) -> None:
        self.ticks.at(at)
        self.pins[name].drive_high()

    def tap(self, name: str, at: str, held: str = "0.1") -> None:
        self.press(name, at)
        self.release(name, str(Decimal(at) + Decimal(held)))

    def drain(self, now: str) -> list[Command]:
        before = len(self.commands)
        self.ticks.at(now)
        self.console.drain(self.ticks.ns(), self.match, self.submit)
        return self.commands[before:]


def s(seconds: str) -> int:
    return int(Decimal(seconds) * NS)


@pytest.fixture
def bench(factory: MockFactory, ticks: FakeTicks) -> Bench:
    return Bench(factory, ticks)


def test_start_stop_toggles_the_clock_at_the_edge_time(bench: Bench) -> None:
    bench.tap("start_stop", "1000")
    assert bench.drain("1000.5") == [Start(s("1000"))]
    bench.tap("start_stop", "1010")
    assert bench.drain("1011") == [Stop(s("1010"))]


def test_a_press_processed_200_ms_late_stops_the_clock_at_its_own_edge(bench: Bench) -> None:
    bench.tap("start_stop", "1000")
    bench.drain("1000.01")
    bench.press("start_stop", "1060.000")
    bench.match.advance(s("1060.2"))  # the loop was busy for 200 ms before draining
    bench.drain("1060.200")
    doc = state_document(bench.match, s("1061"))
    assert doc["running"] is False
    assert doc["clock_ms"] == 1_200_000 - 60_000  # stopped at the press, not 200 ms later


def test_fifty_chattering_edges_within_5_ms_count_as_one_press(bench: Bench) -> None:
    for i in range(50):
        at = f"1000.{i:04d}"  # an edge every 0.1 ms
        if i % 2 == 0:
            bench.press("start_stop", at)
        else:
            bench.release("start_stop", at)
    assert bench.drain("1000.5") == [Start(s("1000"))]


def test_chatter_on_release_counts_once_and_a_real_second_press_counts(bench: Bench) -> None:
    bench.press("start_stop", "1000")
    for i in range(10):
        (bench.release if i % 2 == 0 else bench.press)("start_stop", f"1000.3{i:02d}")
    bench.release("start_stop", "1000.310")
    bench.tap("start_stop", "1001")
    assert bench.drain("1002") == [Start(s("1000")), Stop(s("1001"))]


def test_a_short_tap_inside_the_debounce_window_is_not_lost(bench: Bench) -> None:
    bench.press("horn", "1000")
    bench.release("horn", "1000.005")  # released 5 ms later, inside the 20 ms window
    assert bench.drain("1000.010") == [Horn(s("1000"), on=True)]
    assert bench.console.next_deadline() == s("1000.020")
    assert bench.drain("1000.020") == [Horn(s("1000.005"), on=False)]


def test_a_double_tap_of_start_stop_is_ignored(bench: Bench) -> None:
    bench.tap("start_stop", "1000", held="0.05")
    bench.tap("start_stop", "1000.2", held="0.05")  # 200 ms later: a bounce of the hand
    assert bench.drain("1001") == [Start(s("1000"))]
    assert bench.match.state.clock.running


def test_horn_sounds_while_held(bench: Bench) -> None:
    bench.tap("horn", "1000", held="1.5")
    assert bench.drain("1002") == [Horn(s("1000"), on=True), Horn(s("1001.5"), on=False)]


@pytest.mark.parametrize("name", ["undo", "next"])
def test_undo_and_next_act_only_on_a_one_second_hold(bench: Bench, name: str) -> None:
    bench.tap(name, "1000", held="0.5")
    assert bench.drain("1002") == []
    bench.press(name, "1010")
    assert bench.drain("1010.999") == []
    assert bench.console.next_deadline() == s("1011")
    expected = Undo(s("1011")) if name == "undo" else Next(s("1011"))
    assert bench.drain("1011") == [expected]
    bench.release(name, "1013")
    assert bench.drain("1014") == []  # acting once per hold


def test_timeout_buttons(bench: Bench) -> None:
    bench.tap("timeout_home", "1000")
    bench.tap("timeout_away", "1040")
    assert bench.drain("1041") == [Timeout(s("1000"), Team.HOME), Timeout(s("1040"), Team.AWAY)]


def test_goal_with_a_scorer_from_the_keypad(bench: Bench) -> None:
    bench.tap("goal_away", "1000")
    assert bench.drain("1000.5") == []
    entry = bench.console.entry()
    assert entry is not None
    assert {k: entry[k] for k in ("what", "team", "player", "stage")} == {
        "what": "goal", "team": "away", "player": None, "stage": "number"}
    assert entry["prompt"] == "GOAL AWAY: scorer"
    for key in ("1", "1"):
        bench.console.key(key, s("1001"))
    bench.console.key("enter", s("1002"))
    assert bench.drain("1002") == [Goal(s("1000"), Team.AWAY, 11)]
    assert bench.console.entry() is None


def test_penalty_entry_number_then_kind_and_the_default_after_a_timeout(bench: Bench) -> None:
    bench.tap("penalty_home", "1000")
    bench.drain("1000.2")
    for key in ("7", "enter", "3"):  # 3: the preset's third kind (floorball: major)
        bench.console.key(key, s("1001"))
    assert bench.drain("1001") == [Penalty(s("1000"), Team.HOME, 7, "major")]
    bench.tap("penalty_away", "1100")
    bench.drain("1100.2")
    bench.console.key("4", s("1101"))
    assert bench.drain("1105.999") == []
    assert bench.drain("1106") == [Penalty(s("1100"), Team.AWAY, 4, "minor")]


def test_without_a_keypad_goal_and_penalty_act_at_once(factory: MockFactory,
                                                        ticks: FakeTicks) -> None:
    bench = Bench(factory, ticks, keypad=False)
    bench.tap("goal_home", "1000")
    bench.tap("penalty_away", "1010")
    assert bench.drain("1011") == [Goal(s("1000"), Team.HOME),
                                   Penalty(s("1010"), Team.AWAY, 0, "minor")]


def test_callbacks_only_enqueue_until_the_loop_drains(bench: Bench) -> None:
    bench.press("start_stop", "1000")
    assert bench.commands == []
    assert bench.console.panel.edges.qsize() == 1
    assert not bench.match.state.clock.running


def test_a_whole_game_on_the_default_console(bench: Bench) -> None:
    bench.tap("start_stop", "1000")
    bench.tap("goal_home", "1100")
    bench.console.key("9", s("1101"))
    bench.console.key("enter", s("1101"))
    bench.tap("start_stop", "1200")
    bench.tap("timeout_away", "1210")
    bench.drain("1300")
    bench.match.advance(s("1300"))
    doc = state_document(bench.match, s("1300"))
    assert doc["score"] == {"home": 1, "away": 0}
    assert doc["clock_ms"] == 1_000_000 and doc["running"] is False
    assert doc["timeout"] is None  # 30 s from 1210 s are over


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"buttons": {"undo": {"pin": 17}}}, "buttons.undo.pin: GPIO17 is already used"),
        ({"buttons": {"undo": {"pin": 40}}}, "buttons.undo.pin: must be a whole number 2..27"),
        ({"buttons": {"undo": {"action": "fly"}}}, "buttons.undo.action: unknown action 'fly'"),
        ({"buttons": {"undo": {"pul": "up"}}}, "buttons.undo.pul: unknown key"),
        ({"buttons": {"undo": {"pull": "sideways"}}}, "buttons.undo.pull: must be"),
        ({"hold_ms": "1s"}, "hold_ms: must be a whole number"),
        ({"horn": {"pin": 17}}, "horn.pin: GPIO17 is already used"),
        ({"keypd": True}, "keypd: unknown key"),
    ],
)
def test_a_bad_console_map_names_the_key(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ConsoleConfigError) as err:
        load_config(overrides, "scoreboard.toml [console]")
    assert str(err.value).startswith("scoreboard.toml [console]: ")
    assert message in str(err.value)


def test_the_default_map_has_every_action_once() -> None:
    config = load_config()
    assert sorted(b.action for b in config.buttons) == sorted(
        ["start_stop", "horn", "goal_home", "goal_away", "penalty_home", "penalty_away",
         "next", "undo", "timeout_home", "timeout_away", "menu"])
    assert {b.name for b in config.buttons if b.hold} == {"undo", "next"}
    assert config.horn_pin not in {b.pin for b in config.buttons}


def test_closing_releases_the_pins(bench: Bench) -> None:
    bench.console.close()
    assert all(pin.when_changed is None for pin in bench.pins.values())


def _one_by_one(logic: ButtonLogic, edges: list[tuple[int, bool]], end: int) -> list[Press]:
    out: list[Press] = []
    for at, active in edges:
        out += logic.poll(at)
        out += logic.edge("b", at, active)
    return out + logic.poll(end)


def _in_one_batch(logic: ButtonLogic, edges: list[tuple[int, bool]], end: int
                  ) -> list[Press]:
    out: list[Press] = []
    for at, active in edges:
        out += logic.edge("b", at, active)
    return out + logic.poll(end)


@pytest.mark.parametrize(("hold", "edges"), [
    # Taps 24 ms apart, each released 1 ms after its press (a flood from a USB keyboard):
    # a release still settling must not swallow the next press.
    (False, [(n * 24 * MS + d, d == 0) for n in range(4) for d in (0, MS)]),
    # A hold completed, then released: its release read with it must not cancel the hold.
    (True, [(0, True), (1500 * MS, False)]),
])
def test_edges_read_in_one_batch_mean_what_they_mean_one_by_one(
        hold: bool, edges: list[tuple[int, bool]]) -> None:
    def logic() -> ButtonLogic:
        return ButtonLogic([ButtonSpec("b", 5, "up", "next" if hold else "goal_home", hold)],
                           debounce_ns=20 * MS, hold_ns=1000 * MS)

    end = edges[-1][0] + 100 * MS
    expected = _one_by_one(logic(), edges, end)
    assert [p.kind for p in expected] == (
        ["hold", "release"] if hold else ["press", "release"] * 4)
    assert _in_one_batch(logic(), edges, end) == expected
