"""The USB keypad's key map: which key of a keypad or keyboard does what (no I/O here).

Each key, named as the kernel names it (``KEY_KPPLUS``), does one of two things:
- a console **action** (hardware/console.py ``ACTIONS``): its press and its release are
  button edges, so the horn sounds while the key is held and UNDO/NEXT act after a hold,
  exactly as the GPIO buttons do;
- a **keypad key** (``KEYPAD_KEYS``): digits and the entry keys, on press only.

Two default maps: ``numpad`` for a standard 17-key numeric keypad (docs/timekeeper.md, "The
keys": the label sheet is examples/keypad-labels.md) and ``keyboard``, the numpad's keys
plus letter keys for a full keyboard. The config file's ``[keypad.keys]`` overrides single
keys (``""`` takes a key out of the map); an unknown key name or target is refused naming it.

Key codes are the kernel's (linux/input-event-codes.h, a stable ABI): the ones the default
maps use are listed here, so the map is checked and the fakes run where python-evdev is not
installed; other names are looked up in python-evdev's table when it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.core.tables import Table
from hardware.console import ACTIONS

KEYPAD_KEYS = (*(str(d) for d in range(10)), "enter", "escape", "backspace", "dot")
TARGETS = (*ACTIONS, *KEYPAD_KEYS)
MODES = ("auto", "on", "off")  # in the file: "auto", true or false
LAYOUTS = ("numpad", "keyboard")

# linux/input-event-codes.h
EV_KEY = 1
KEY_CODES: dict[str, int] = {
    "KEY_ESC": 1, **{f"KEY_{d}": d + 1 for d in range(1, 10)}, "KEY_0": 11,
    "KEY_MINUS": 12, "KEY_BACKSPACE": 14, "KEY_TAB": 15,
    **{f"KEY_{c}": 16 + i for i, c in enumerate("QWERTYUIOP")}, "KEY_ENTER": 28,
    **{f"KEY_{c}": 30 + i for i, c in enumerate("ASDFGHJKL")},
    **{f"KEY_{c}": 44 + i for i, c in enumerate("ZXCVBNM")},
    "KEY_DOT": 52, "KEY_SLASH": 53, "KEY_KPASTERISK": 55, "KEY_SPACE": 57,
    **{f"KEY_F{n}": 58 + n for n in range(1, 11)}, "KEY_NUMLOCK": 69,
    "KEY_KP7": 71, "KEY_KP8": 72, "KEY_KP9": 73, "KEY_KPMINUS": 74,
    "KEY_KP4": 75, "KEY_KP5": 76, "KEY_KP6": 77, "KEY_KPPLUS": 78,
    "KEY_KP1": 79, "KEY_KP2": 80, "KEY_KP3": 81, "KEY_KP0": 82, "KEY_KPDOT": 83,
    "KEY_KPENTER": 96, "KEY_KPSLASH": 98, "KEY_DELETE": 111,
}
_KEY_NAME = re.compile(r"KEY_[A-Z0-9_]+")

# A standard 17-key numeric keypad: the big + key starts and stops the clock, * is the horn,
# / opens the menu (goals, penalties, time-outs, corrections: menu + digits), NumLock held
# is UNDO. The kernel sends the KP codes whatever NumLock's light says.
NUMPAD: dict[str, str] = {
    **{f"KEY_KP{d}": str(d) for d in range(10)},
    "KEY_KPDOT": "dot",
    "KEY_KPENTER": "enter",
    "KEY_KPPLUS": "start_stop",
    "KEY_KPMINUS": "escape",
    "KEY_KPASTERISK": "horn",
    "KEY_KPSLASH": "menu",
    "KEY_NUMLOCK": "undo",
    "KEY_BACKSPACE": "backspace",  # the keypads that have one
}
# A full keyboard: the numpad's keys, the main digits, and a letter per button (home on the
# left hand, away on the right).
KEYBOARD: dict[str, str] = {
    **NUMPAD,
    **{f"KEY_{d}": str(d) for d in range(10)},
    "KEY_DOT": "dot", "KEY_ENTER": "enter", "KEY_ESC": "escape",
    "KEY_SPACE": "start_stop", "KEY_H": "horn", "KEY_M": "menu",
    "KEY_Q": "goal_home", "KEY_P": "goal_away",
    "KEY_A": "penalty_home", "KEY_L": "penalty_away",
    "KEY_Z": "timeout_home", "KEY_SLASH": "timeout_away",
    "KEY_W": "shot_home", "KEY_O": "shot_away",
    "KEY_N": "next", "KEY_U": "undo", "KEY_DELETE": "cancel",
}
DEFAULT_MAPS = {"numpad": NUMPAD, "keyboard": KEYBOARD}


class KeypadConfigError(ValueError):
    """The [keypad] table is invalid; the message names the source, the key and the problem."""


@dataclass(frozen=True, slots=True)
class KeypadConfig:
    mode: str = "auto"  # "on", "off", or "auto": on when the daemon runs headless on Linux
    layout: str = "numpad"
    keys: tuple[tuple[str, str], ...] = tuple(NUMPAD.items())  # key name -> target
    grab: bool = True  # the keys reach only the scoreboard, not the console's login prompt

    def codes(self) -> dict[int, str]:
        """Key code -> target, for the device reader."""
        return {key_code(name): target for name, target in self.keys}


@dataclass(frozen=True, slots=True)
class ButtonEdge:
    """A key mapped to a console action went down or up at ``at`` (monotonic ns, the
    kernel's stamp of the key's edge)."""

    action: str
    at: int
    active: bool


@dataclass(frozen=True, slots=True)
class KeypadKey:
    """A keypad key pressed at ``at`` (monotonic ns, the kernel's stamp)."""

    name: str
    at: int


KeyInput = ButtonEdge | KeypadKey


def key_code(name: str) -> int:
    """The kernel's code of ``name``; KeyError if neither table knows it."""
    if name in KEY_CODES:
        return KEY_CODES[name]
    try:
        from evdev import ecodes  # noqa: PLC0415
    except ImportError as err:
        raise KeyError(name) from err
    code = ecodes.ecodes.get(name)
    if code is None:
        raise KeyError(name)
    return int(code)


def _known(name: str) -> bool:
    if not _KEY_NAME.fullmatch(name):
        return False
    try:
        key_code(name)
    except KeyError:
        try:
            import evdev  # noqa: F401, PLC0415
        except ImportError:
            return True  # no table to check against here (not Linux): the pattern must do
        return False
    return True


_KEYS = ("evdev", "layout", "grab", "keys")


def load_keypad_config(overrides: Mapping[str, Any] | None = None,
                       source: str = "keypad") -> KeypadConfig:
    """The config file's [keypad] table: the default map of ``layout`` with ``keys`` over
    it."""
    top = Table(overrides or {}, source, KeypadConfigError, keys=_KEYS)
    evdev = top.get("evdev", "auto")
    if evdev not in (True, False, "auto"):
        raise top.error("evdev", f"must be true, false or \"auto\", got {evdev!r}")
    mode = "auto" if evdev == "auto" else "on" if evdev else "off"
    layout = top.choice("layout", LAYOUTS, "numpad")
    keys = dict(DEFAULT_MAPS[layout])
    table = top.table("keys", default={})
    for name in table.key_names():
        if not _known(name):
            raise table.error(name, "unknown key name (the kernel's, e.g. \"KEY_KPPLUS\", "
                              "\"KEY_F1\"; `evtest` shows a key's name)")
        target = table.get(name)
        if target == "":
            keys.pop(name, None)
        elif isinstance(target, str) and target in TARGETS:
            keys[name] = target
        else:
            raise table.error(name, f"unknown action or keypad key {target!r} (an action: "
                              f"{', '.join(ACTIONS)}; a keypad key: {', '.join(KEYPAD_KEYS)}; "
                              f"or \"\" for none)")
    return KeypadConfig(mode=mode, layout=layout, keys=tuple(keys.items()),
                        grab=top.boolean("grab", default=True))


def enabled(mode: str, display_mode: str, platform: str) -> bool:
    """Whether the daemon reads the keypad through evdev: ``auto`` means when it runs
    headless on Linux (with a window or full screen, pygame reads the keys)."""
    if mode == "auto":
        return display_mode == "headless" and platform.startswith("linux")
    return mode == "on"
