"""The keyboard in a window or full screen: a USB keypad's keys, and on a desktop the
console's buttons too.

pygame stays inside ``display/``: this module turns pygame's key events into plain values
the daemon feeds to ``hardware.console.Console`` (``button`` for button edges, ``key`` for
keypad keys). What a key does is the one key map (arena/keys.py, with the config's
overrides: the daemon hands it over): each pygame key code is translated to the kernel's name
of that key (``KEY_KPPLUS``), with ``Shift+`` while a Shift key is held, and looked up there,
so a key does here what it does read through evdev headless. Key presses are stamped when
the loop reads them (pygame gives no usable edge time); on a desktop that is a few ms, and
the real console stamps its GPIO edges exactly.

Closing the window asks the daemon to stop; closing the timekeeper's own window
(display/operatorwindow.py) only closes that one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from arena.keys import is_keypad_key, target_of

from . import operatorwindow
from ._pygame import pygame


@dataclass(frozen=True, slots=True)
class ButtonEdge:
    action: str  # a console action: "start_stop", "goal_home", ...
    active: bool  # pressed (True) or released


@dataclass(frozen=True, slots=True)
class KeypadKey:
    name: str  # "0".."9", "enter", "backspace", "escape", "dot"


@dataclass(frozen=True, slots=True)
class QuitRequest:
    """The window was closed."""


KeyInput = ButtonEdge | KeypadKey | QuitRequest


def _kernel_names() -> dict[int, str]:
    """pygame's key code -> the kernel's name of the same key, for every key the default
    maps use and the usual others an override may name (a key not here does nothing in
    the window, whatever the map says)."""
    names: dict[str, str] = {
        **{f"K_{d}": f"KEY_{d}" for d in range(10)},
        **{f"K_KP{d}": f"KEY_KP{d}" for d in range(10)},
        **{f"K_{c.lower()}": f"KEY_{c}" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
        **{f"K_F{n}": f"KEY_F{n}" for n in range(1, 13)},
        "K_SPACE": "KEY_SPACE", "K_RETURN": "KEY_ENTER", "K_ESCAPE": "KEY_ESC",
        "K_BACKSPACE": "KEY_BACKSPACE", "K_TAB": "KEY_TAB", "K_DELETE": "KEY_DELETE",
        "K_INSERT": "KEY_INSERT", "K_HOME": "KEY_HOME", "K_END": "KEY_END",
        "K_PAGEUP": "KEY_PAGEUP", "K_PAGEDOWN": "KEY_PAGEDOWN",
        "K_UP": "KEY_UP", "K_DOWN": "KEY_DOWN", "K_LEFT": "KEY_LEFT", "K_RIGHT": "KEY_RIGHT",
        "K_PERIOD": "KEY_DOT", "K_COMMA": "KEY_COMMA", "K_SLASH": "KEY_SLASH",
        "K_MINUS": "KEY_MINUS", "K_EQUALS": "KEY_EQUAL", "K_SEMICOLON": "KEY_SEMICOLON",
        "K_KP_PERIOD": "KEY_KPDOT", "K_KP_ENTER": "KEY_KPENTER", "K_KP_PLUS": "KEY_KPPLUS",
        "K_KP_MINUS": "KEY_KPMINUS", "K_KP_MULTIPLY": "KEY_KPASTERISK",
        "K_KP_DIVIDE": "KEY_KPSLASH", "K_NUMLOCK": "KEY_NUMLOCK",
        "K_LSHIFT": "KEY_LEFTSHIFT", "K_RSHIFT": "KEY_RIGHTSHIFT",
    }
    return {getattr(pygame, k): v for k, v in names.items() if hasattr(pygame, k)}


KERNEL_NAMES = _kernel_names()


class Keyboard:
    def __init__(self, keys: Mapping[str, str]) -> None:
        """``keys``: kernel key name -> console action or keypad key (the config's map for
        this display mode)."""
        self.keys = dict(keys)
        self._held: dict[int, str] = {}  # key -> the action its press started

    def poll(self) -> list[KeyInput]:
        """Everything typed since the last call (also keeps the window responsive)."""
        out: list[KeyInput] = []
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                out.append(QuitRequest())
            elif event.type == pygame.WINDOWCLOSE:
                # With a second window open SDL sends no QUIT for the first one's close.
                if not operatorwindow.closed_by_user(getattr(event, "window", None)):
                    out.append(QuitRequest())
            elif event.type == pygame.KEYDOWN:
                out += self._down(event.key, bool(event.mod & pygame.KMOD_SHIFT))
            elif event.type == pygame.KEYUP:
                action = self._held.pop(event.key, None)
                if action is not None:
                    # The release goes to the action the press started, even if Shift was
                    # let go first.
                    out.append(ButtonEdge(action, False))
        return out

    def pending(self) -> bool:
        """Something was typed (or the window closed) since the last ``poll``."""
        return bool(pygame.event.peek((pygame.KEYDOWN, pygame.KEYUP, pygame.QUIT,
                                       pygame.WINDOWCLOSE)))

    def _down(self, key: int, shift: bool) -> list[KeyInput]:
        if key in self._held:
            return []  # a key's auto-repeat: the button is still held
        name = KERNEL_NAMES.get(key)
        target = None if name is None else target_of(self.keys, name, shift=shift)
        if target is None:
            return []
        if is_keypad_key(target):
            return [KeypadKey(target)]
        self._held[key] = target
        return [ButtonEdge(target, True)]
