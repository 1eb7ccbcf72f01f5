"""The timekeeper's console: buttons and keypad in, commands out.

Every action of ``ACTIONS`` can be a GPIO button (the console map) and is reachable from the
keypad through ``menu``; an action without a pin still has a button here (``button``), so a
desktop keyboard or a USB keypad's extra keys can press it with the same debounce and hold.
NEXT, UNDO and FORFEIT act only on a hold (``HOLD_ACTIONS``); the keypad grammar
(``arena/core/entry.py``) does the rest.

``Console.drain`` hands the daemon's loop every command the console produced since the last
call, each stamped with the instant of its press, in order. START/STOP is resolved against
the match as it is when that press is applied, so two presses in one batch (more than the
double-tap guard apart) stop and then start, as the timekeeper meant. Which of the two a
press means is the core's decision (``Match.start_stop``); this module only times presses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import partial
from pathlib import Path
from typing import Any

from arena.core.commands import (
    Command,
    End,
    Forfeit,
    Goal,
    Horn,
    Next,
    Penalty,
    Timeout,
    Undo,
)
from arena.core.entry import (
    KeypadEntry,
    Lapse,
    Output,
    PickMatch,
    ScheduledChoice,
    StartStop,
    records_of,
)
from arena.core.match import Match
from arena.core.phase import Team
from arena.core.preview import foresee
from arena.core.tables import Table, parse_toml
from arena.core.units import NS_PER_MS
from hardware.buttons import ButtonLogic, ButtonPanel, ButtonSpec, Press

ACTIONS = (
    "start_stop", "horn", "goal_home", "goal_away", "penalty_home", "penalty_away", "next",
    "undo", "timeout_home", "timeout_away", "shot_home", "shot_away", "set_clock", "end",
    "forfeit_home", "forfeit_away", "cancel", "menu", "schedule",
)
# A deliberate gesture: these act only after a hold, on any button that does them (the menu
# asks for an Enter instead). A forfeit ends the match; it must never come from a brush.
HOLD_ACTIONS = frozenset({"next", "undo", "forfeit_home", "forfeit_away"})
# What a hold does at once (END's button may be held instead of confirmed with Enter).
_HELD: dict[str, Callable[[int], Command]] = {
    "next": Next, "undo": Undo, "end": End,
    "forfeit_home": lambda at: Forfeit(at, Team.HOME),
    "forfeit_away": lambda at: Forfeit(at, Team.AWAY),
}
BCM_PINS = range(2, 28)


class ConsoleConfigError(ValueError):
    """A console map is invalid; the message names the source, the key and the problem."""


class HornAudio(Enum):
    """Whether the horn also sounds through the audio output (display/audiohorn.py)."""

    AUTO = "auto"  # where an audio output opens; a note in the log where none does
    ON = "on"  # asked for: a warning in the log where none opens (the horn goes on anyway)
    OFF = "off"  # the relay alone; the mixer is never opened


@dataclass(frozen=True, slots=True)
class ConsoleConfig:
    buttons: tuple[ButtonSpec, ...]
    debounce_ns: int
    hold_ns: int
    double_tap_ns: int
    keypad: bool
    entry_timeout_ns: int
    horn_pin: int
    horn_active_high: bool
    horn_audio: HornAudio = HornAudio.AUTO


def default_map() -> dict[str, Any]:
    # Beside this module (importlib.resources trips over setuptools' editable finder here).
    text = (Path(__file__).parent / "console.toml").read_text(encoding="utf-8")
    return parse_toml(text, "hardware/console.toml", ConsoleConfigError)


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


_KEYS = ("debounce_ms", "hold_ms", "double_tap_ms", "keypad", "entry_timeout_ms", "horn",
         "buttons")
_BUTTON_KEYS = ("pin", "pull", "action", "hold", "disabled")
_HORN_KEYS = ("pin", "active_high", "audio")


def load_config(overrides: Mapping[str, Any] | None = None,
                source: str = "console") -> ConsoleConfig:
    """The default console map with a user's overrides (the config file's [console] table)."""
    top = Table(_merge(default_map(), overrides or {}), source, ConsoleConfigError, keys=_KEYS)

    def number(table: Table, key: str, low: int, high: int) -> int:
        value = table.integer(key, minimum=None)
        if not low <= value <= high:
            raise table.error(key, f"must be a whole number {low}..{high}, got {value!r}")
        return value

    buttons: list[ButtonSpec] = []
    used: dict[int, str] = {}
    all_buttons = top.table("buttons", default={})
    for name in all_buttons.key_names():
        spec = all_buttons.table(name, _BUTTON_KEYS)
        if spec.boolean("disabled", default=False):
            continue
        pin = number(spec, "pin", BCM_PINS.start, BCM_PINS.stop - 1)
        if pin in used:
            raise spec.error("pin", f"GPIO{pin} is already used by {used[pin]}")
        used[pin] = f"buttons.{name}"
        pull = spec.choice("pull", ("up", "down"), default="up")
        action = spec.get("action")
        if action not in ACTIONS:
            raise spec.error("action", f"unknown action {action!r} (one of "
                             f"{', '.join(ACTIONS)})")
        held = spec.boolean("hold", default=action in HOLD_ACTIONS)
        if action in HOLD_ACTIONS and not held:
            raise spec.error("hold", f"{action} acts only on a hold; hold = false is refused")
        buttons.append(ButtonSpec(name, pin, pull, action, held))
    horn = top.table("horn", _HORN_KEYS, default={})
    horn_pin = number(horn, "pin", BCM_PINS.start, BCM_PINS.stop - 1)
    if horn_pin in used:
        raise horn.error("pin", f"GPIO{horn_pin} is already used by {used[horn_pin]}")
    return ConsoleConfig(
        buttons=tuple(buttons),
        debounce_ns=number(top, "debounce_ms", 0, 1000) * NS_PER_MS,
        hold_ns=number(top, "hold_ms", 0, 10_000) * NS_PER_MS,
        double_tap_ns=number(top, "double_tap_ms", 0, 5000) * NS_PER_MS,
        keypad=top.boolean("keypad"),
        entry_timeout_ns=number(top, "entry_timeout_ms", 500, 60_000) * NS_PER_MS,
        horn_pin=horn_pin,
        horn_active_high=horn.boolean("active_high", default=True),
        horn_audio=_horn_audio(horn),
    )


def _horn_audio(horn: Table) -> HornAudio:
    value = horn.get("audio", "auto")
    # bool before the text: TOML's true/false are the natural way to say it.
    if value is True or value is False:
        return HornAudio.ON if value else HornAudio.OFF
    if value == "auto":
        return HornAudio.AUTO
    raise horn.error("audio", f'must be "auto", true or false, got {value!r}')


_TEAM = {"home": Team.HOME, "away": Team.AWAY}

Submit = Callable[[Command | PickMatch], object]


class Console:
    def __init__(self, config: ConsoleConfig, pin_factory: Any, penalty_kinds: list[str],
                 ticks_to_ns: Callable[[float], int] | None = None) -> None:
        """``ticks_to_ns`` maps the pins' edge timestamps (seconds) onto the match's
        timeline (the daemon's clock may be offset after a power loss, or scaled)."""
        self.config = config
        wired = {spec.action for spec in config.buttons}
        # A button for every action without a pin: a keyboard or keypad key presses it.
        self._virtual = {action: ButtonSpec(f"virtual.{action}", -1, "up", action,
                                            action in HOLD_ACTIONS)
                         for action in ACTIONS if action not in wired}
        self.logic = ButtonLogic([*config.buttons, *self._virtual.values()],
                                 debounce_ns=config.debounce_ns,
                                 hold_ns=config.hold_ns, double_tap_ns=config.double_tap_ns)
        self.keypad = KeypadEntry(penalty_kinds, timeout=config.entry_timeout_ns)
        self._keys: list[tuple[str, int]] = []
        self.panel = ButtonPanel(list(config.buttons), pin_factory, ticks_to_ns)

    def button(self, action: str, at: int, active: bool) -> bool:
        """An edge of the button doing ``action`` from elsewhere than its pin (a desktop
        keyboard standing in for the console, a keypad's extra key): debounced, held and
        guarded exactly like the pin's own edges; an action without a pin has a button of
        its own. False for an unknown action."""
        for spec in (*self.config.buttons, *self._virtual.values()):
            if spec.action == action:
                self.panel.edges.put((spec.name, at, active))
                return True
        return False

    def on_edge(self, wake: Callable[[], None]) -> None:
        """``wake()`` is called from the GPIO thread after each pin edge is queued."""
        self.panel.on_edge = wake

    def pending(self) -> bool:
        """Edges or keys are waiting for ``drain``."""
        return bool(self._keys) or not self.panel.edges.empty()

    def key(self, name: str, at: int) -> None:
        """A keypad key (from the display's keyboard events or a serial keypad)."""
        self._keys.append((name, at))

    def next_deadline(self) -> int | None:
        """When ``drain`` next has something to do without a new edge (debounce settling,
        a hold completing, an entry timing out)."""
        found = [d for d in (self.logic.next_deadline(), self.keypad.next_deadline())
                 if d is not None]
        return min(found, default=None)

    def drain(self, now: int, match: Match, submit: Submit) -> None:
        """Turn every queued edge and key into commands and ``submit`` them in order."""
        presses: list[Press] = []
        while not self.panel.edges.empty():
            name, at, active = self.panel.edges.get_nowait()
            presses += self.logic.edge(name, at, active)
        presses += self.logic.poll(now)
        keys, self._keys = self._keys, []
        # Buttons and keys in the order they happened: a scorer typed before the next
        # START/STOP belongs to the goal before it.
        inputs: list[tuple[int, int, Press | str]] = [(p.at, 0, p) for p in presses]
        inputs += [(at, 1, name) for name, at in keys]
        for at, _, item in sorted(inputs, key=lambda x: (x[0], x[1])):
            self._submit(self.keypad.poll(at), match, submit)
            # What cancel offers is the record as it stands at this key; what a correction
            # would do is asked of the match as it stands when the key confirms it.
            self.keypad.records = records_of(match.state)
            self.keypad.foresee = partial(foresee, match)
            made = self._commands(item) if isinstance(item, Press) else \
                self.keypad.key(item, at)
            self._submit(made, match, submit)
        self._submit(self.keypad.poll(now), match, submit)

    @staticmethod
    def _submit(outputs: list[Output], match: Match, submit: Submit) -> None:
        for output in outputs:
            # START/STOP is resolved against the match as it is when this press is applied.
            submit(match.start_stop(output.at) if isinstance(output, StartStop) else output)

    def _commands(self, press: Press) -> list[Output]:
        action, at, kind = press.action, press.at, press.kind
        if action == "horn":
            return [Horn(at, on=kind == "press")]
        if kind == "hold" and action in _HELD:
            return [_HELD[action](at)]
        if kind not in ("press", "hold"):
            return []
        what, _, side = action.partition("_")
        if action == "start_stop":
            return [StartStop(at)]  # the core knows what the press means now
        if what == "timeout":
            return [Timeout(at, _TEAM[side])]
        if self.config.keypad:
            return self.keypad.choose(action, at)
        # Without a keypad only what needs no number acts: a goal without a scorer, a
        # penalty of the first kind for player 0.
        if what == "goal":
            return [Goal(at, _TEAM[side])]
        kinds = self.keypad.kinds
        if what == "penalty" and kinds:
            return [Penalty(at, _TEAM[side], 0, kinds[0])]
        return []

    def new_match(self, penalty_kinds: list[str], forfeit_goals: int = 5) -> None:
        """Another match on the board: its preset's penalty kinds and forfeit score, no
        entry pending."""
        self.keypad.kinds = list(penalty_kinds)
        self.keypad.forfeit_goals = forfeit_goals
        self.keypad.pending = None

    def offer_schedule(self, choices: tuple[ScheduledChoice, ...], teams: tuple[str, ...]
                       ) -> None:
        """What the keypad's SCHEDULE entry lists: this hall's remaining matches and the
        tournament's teams (docs/technician.md, "A hall without an office")."""
        self.keypad.schedule = choices
        self.keypad.teams = teams

    def entry(self) -> dict[str, Any] | None:
        """The pending keypad entry for the state document's ``entry`` key."""
        return self.keypad.describe()

    def lapse(self) -> Lapse | None:
        """When the pending entry times out, and what it then does (None: none pending, or a
        list that waits for its key)."""
        return self.keypad.lapse()

    def lapsed(self) -> Lapse | None:
        """The last entry that timed out: the operator view says so for a few seconds."""
        return self.keypad.lapsed

    def close(self) -> None:
        self.panel.close()
