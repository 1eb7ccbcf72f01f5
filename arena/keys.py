"""The one key map of the timekeeper's keys, for every input path (pure data, no I/O).

A key is named as the Linux kernel names it (``KEY_KPPLUS``), whichever path reads it: the
evdev reader (hardware/keypad.py) has the kernel's codes, the pygame window and full screen
(display/keyboard.py) translate pygame's key codes to these names. ``Shift+KEY_G`` is the key
with a Shift key held; a shifted key with no entry of its own does what the key does.

Each key does one of two things:
- a console **action** (hardware/console.py ``ACTIONS``): press and release are button
  edges, so the horn sounds while the key is held and UNDO/NEXT act after a hold;
- a **keypad key** (``KEYPAD_KEYS``): digits and the entry keys, on press only.

Two default layouts: ``numpad``, a standard 17-key numeric keypad (the label sheet
examples/keypad-labels.md is printed from it) plus the main keyboard's digits and entry keys,
and ``keyboard``, the numpad's keys plus a letter per action for a full keyboard (the window
on a desktop reads this one). The config's ``[keypad.keys]`` changes single keys of either
(hardware/keymap.py checks and applies them).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

KEYPAD_KEYS = (*(str(d) for d in range(10)), "enter", "escape", "backspace", "dot")
SHIFT = "Shift+"  # the prefix of a key name read with a Shift key held

# The big + key starts and stops the clock (the printed sheet says so: it is the contract at
# the table), * is the horn, / opens the menu (every action: menu + digits), NumLock held is
# UNDO. The kernel sends the KP codes whatever NumLock's light says. The main keyboard's
# digits and entry keys type too, so a full keyboard on the Pi works without a layout change.
NUMPAD: Mapping[str, str] = MappingProxyType({
    **{f"KEY_KP{d}": str(d) for d in range(10)},
    "KEY_KPDOT": "dot",
    "KEY_KPENTER": "enter",
    "KEY_KPPLUS": "start_stop",
    "KEY_KPMINUS": "escape",
    "KEY_KPASTERISK": "horn",
    "KEY_KPSLASH": "menu",
    "KEY_NUMLOCK": "undo",
    "KEY_BACKSPACE": "backspace",  # the keypads that have one
    **{f"KEY_{d}": str(d) for d in range(10)},
    "KEY_DOT": "dot", "KEY_ENTER": "enter", "KEY_ESC": "escape",
})

# A full keyboard: the numpad's keys and a letter per action. Two hands on the keys: home on
# the left hand and away on the right (Q/P, A/L, Z//, W/O), or one letter whose shifted key
# is the away team's (G, T, S, F).
KEYBOARD: Mapping[str, str] = MappingProxyType({
    **NUMPAD,
    "KEY_SPACE": "start_stop", "KEY_H": "horn", "KEY_M": "menu",
    "KEY_Q": "goal_home", "KEY_P": "goal_away",
    "KEY_G": "goal_home", "Shift+KEY_G": "goal_away",
    "KEY_A": "penalty_home", "KEY_L": "penalty_away",
    "KEY_Z": "timeout_home", "KEY_SLASH": "timeout_away",
    "KEY_T": "timeout_home", "Shift+KEY_T": "timeout_away",
    "KEY_W": "shot_home", "KEY_O": "shot_away",
    "KEY_S": "shot_home", "Shift+KEY_S": "shot_away",
    "KEY_C": "set_clock", "KEY_E": "end",
    "KEY_F": "forfeit_home", "Shift+KEY_F": "forfeit_away",
    "KEY_X": "cancel", "KEY_DELETE": "cancel",
    "KEY_N": "next", "KEY_U": "undo",
    "KEY_K": "schedule",
})

LAYOUTS = ("numpad", "keyboard")
DEFAULT_MAPS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {"numpad": NUMPAD, "keyboard": KEYBOARD})


def is_keypad_key(target: str) -> bool:
    """Whether ``target`` is a keypad key (else it is a console action)."""
    return target in KEYPAD_KEYS


def target_of(keymap: Mapping[str, str], name: str, *, shift: bool) -> str | None:
    """What the key ``name`` (a kernel name) does with Shift held or not, or None: the
    shifted entry if there is one, else the key's own."""
    if shift and SHIFT + name in keymap:
        return keymap[SHIFT + name]
    return keymap.get(name)


def plain_name(name: str) -> str:
    """The key's name without the Shift prefix."""
    return name.removeprefix(SHIFT)
