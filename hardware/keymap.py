"""The key map as the config gives it, and the kernel's key codes (no I/O here).

The map itself, one for every input path, is arena/keys.py: a kernel key name
(``KEY_KPPLUS``, ``Shift+KEY_G``) -> a console action or a keypad key, in two default
layouts, ``numpad`` and ``keyboard``. The config file's ``[keypad.keys]`` overrides single
keys (``""`` takes a key out of the map) on every path alike: evdev headless, pygame in full
screen and in a window; an unknown key name or target is refused naming it.

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
from arena.keys import DEFAULT_MAPS, KEYPAD_KEYS, LAYOUTS, NUMPAD, SHIFT, plain_name
from hardware.console import ACTIONS

TARGETS = (*ACTIONS, *KEYPAD_KEYS)
MODES = ("auto", "on", "off")  # in the file: "auto", true or false

# linux/input-event-codes.h
EV_KEY = 1
KEY_CODES: dict[str, int] = {
    "KEY_ESC": 1, **{f"KEY_{d}": d + 1 for d in range(1, 10)}, "KEY_0": 11,
    "KEY_MINUS": 12, "KEY_BACKSPACE": 14, "KEY_TAB": 15,
    **{f"KEY_{c}": 16 + i for i, c in enumerate("QWERTYUIOP")}, "KEY_ENTER": 28,
    **{f"KEY_{c}": 30 + i for i, c in enumerate("ASDFGHJKL")}, "KEY_LEFTSHIFT": 42,
    **{f"KEY_{c}": 44 + i for i, c in enumerate("ZXCVBNM")},
    "KEY_DOT": 52, "KEY_SLASH": 53, "KEY_RIGHTSHIFT": 54, "KEY_KPASTERISK": 55,
    "KEY_SPACE": 57,
    **{f"KEY_F{n}": 58 + n for n in range(1, 11)}, "KEY_NUMLOCK": 69,
    "KEY_KP7": 71, "KEY_KP8": 72, "KEY_KP9": 73, "KEY_KPMINUS": 74,
    "KEY_KP4": 75, "KEY_KP5": 76, "KEY_KP6": 77, "KEY_KPPLUS": 78,
    "KEY_KP1": 79, "KEY_KP2": 80, "KEY_KP3": 81, "KEY_KP0": 82, "KEY_KPDOT": 83,
    "KEY_KPENTER": 96, "KEY_KPSLASH": 98, "KEY_DELETE": 111,
}
SHIFT_CODES = frozenset({KEY_CODES["KEY_LEFTSHIFT"], KEY_CODES["KEY_RIGHTSHIFT"]})
_KEY_NAME = re.compile(r"(Shift\+)?KEY_[A-Z0-9_]+")


class KeypadConfigError(ValueError):
    """The [keypad] table is invalid; the message names the source, the key and the problem."""


@dataclass(frozen=True, slots=True)
class KeypadConfig:
    mode: str = "auto"  # "on", "off", or "auto": on when the daemon runs headless on Linux
    layout: str = "numpad"
    keys: tuple[tuple[str, str], ...] = tuple(NUMPAD.items())  # key name -> target
    grab: bool = True  # the keys reach only the scoreboard, not the console's login prompt
    # [keypad.keys] as given (target "" takes the key out): laid over another layout too.
    overrides: tuple[tuple[str, str], ...] = ()

    def codes(self, *, shift: bool = False) -> dict[int, str]:
        """Key code -> target, for the device reader: the plain keys, or (``shift``) the
        entries a key has of its own with Shift held."""
        return {key_code(plain_name(name)): target for name, target in self.keys
                if name.startswith(SHIFT) == shift}

    def keymap(self, layout: str | None = None) -> dict[str, str]:
        """Key name -> target: the map of this config, or of another default ``layout``
        with this config's overrides over it."""
        if layout is None or layout == self.layout:
            return dict(self.keys)
        return _overridden(DEFAULT_MAPS[layout], self.overrides)

    def display_keymap(self, display_mode: str) -> dict[str, str]:
        """The map pygame reads in ``display_mode``: in a window the desktop keyboard stands
        in for the console, so the ``keyboard`` layout (the ``numpad`` one and a letter per
        action); in full screen this config's map, as evdev reads it headless."""
        return self.keymap("keyboard" if display_mode == "windowed" else None)


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


@dataclass(frozen=True, slots=True)
class DeviceChange:
    """A keypad went (``plugged`` False: unplugged or unreadable, ``why`` says which) or was
    found at ``at`` (monotonic ns, the caller's ``now`` of the poll that saw it)."""

    device: str
    plugged: bool
    at: int
    why: str = ""


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


def key_name(code: int) -> str:
    """The kernel's name of key ``code`` (``KEY_KP5``), for people reading what was pressed
    (`scoreboard wiring`); ``code N`` if neither table knows it."""
    for name, known in KEY_CODES.items():
        if known == code:
            return name
    try:
        from evdev import ecodes  # noqa: PLC0415
    except ImportError:
        return f"code {code}"
    names = ecodes.KEY.get(code) or ecodes.BTN.get(code)
    if isinstance(names, list | tuple):  # several names for one code: the first is the usual
        names = names[0] if names else None
    return str(names) if names else f"code {code}"


def _known(name: str) -> bool:
    if not _KEY_NAME.fullmatch(name):
        return False
    name = plain_name(name)
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
    table = top.table("keys", default={})
    given: list[tuple[str, str]] = []
    for name in table.key_names():
        if not _known(name):
            raise table.error(name, "unknown key name (the kernel's, e.g. \"KEY_KPPLUS\", "
                              "\"KEY_F1\", \"Shift+KEY_G\"; `evtest` shows a key's name)")
        target = table.get(name)
        if isinstance(target, str) and (target == "" or target in TARGETS):
            given.append((name, target))
        else:
            raise table.error(name, f"unknown action or keypad key {target!r} (an action: "
                              f"{', '.join(ACTIONS)}; a keypad key: {', '.join(KEYPAD_KEYS)}; "
                              f"or \"\" for none)")
    keys = _overridden(DEFAULT_MAPS[layout], tuple(given))
    return KeypadConfig(mode=mode, layout=layout, keys=tuple(keys.items()),
                        grab=top.boolean("grab", default=True), overrides=tuple(given))


def _overridden(default: Mapping[str, str],
                overrides: tuple[tuple[str, str], ...]) -> dict[str, str]:
    keys = dict(default)
    for name, target in overrides:
        if target == "":
            keys.pop(name, None)
        else:
            keys[name] = target
    return keys


def enabled(mode: str, display_mode: str, platform: str) -> bool:
    """Whether the daemon reads the keypad through evdev: ``auto`` means when it runs
    headless on Linux (with a window or full screen, pygame reads the keys)."""
    if mode == "auto":
        return display_mode == "headless" and platform.startswith("linux")
    return mode == "on"
