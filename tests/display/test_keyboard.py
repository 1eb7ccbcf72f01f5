"""The window's and the full screen's keys (display/keyboard.py): pygame key events looked up
in the one key map (arena/keys.py) with the config's overrides, and the help that lists it."""

from __future__ import annotations

import pytest

from arena.keys import KEYBOARD
from display._pygame import pygame
from display.keyboard import ButtonEdge, Keyboard, KeypadKey
from firmware_py.cli import KEY_MAP_HELP
from hardware.console import ACTIONS
from hardware.keymap import KeypadConfig, load_keypad_config

WINDOWED = KeypadConfig().display_keymap("windowed")
FULLSCREEN = KeypadConfig().display_keymap("fullscreen")


def _typed(monkeypatch: pytest.MonkeyPatch, *events: pygame.event.Event) -> None:
    monkeypatch.setattr(pygame.event, "get", lambda: list(events))


def test_keyboard_edges_and_keypad(monkeypatch: pytest.MonkeyPatch) -> None:
    _typed(monkeypatch,
           pygame.event.Event(pygame.KEYDOWN, key=pygame.K_g, mod=pygame.KMOD_LSHIFT),
           pygame.event.Event(pygame.KEYUP, key=pygame.K_g, mod=0),
           pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP7, mod=0),
           pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0))
    assert Keyboard(WINDOWED).poll() == [ButtonEdge("goal_away", True),
                                         ButtonEdge("goal_away", False), KeypadKey("7"),
                                         KeypadKey("enter")]
    # Full screen reads the numpad layout: the letters are no buttons there.
    assert Keyboard(FULLSCREEN).poll() == [KeypadKey("7"), KeypadKey("enter")]


def test_every_console_action_has_a_key_and_the_numeric_keypad_reaches_the_menu(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(KEYBOARD.values()) - set("0123456789") - {
        "enter", "escape", "backspace", "dot"} == set(ACTIONS)
    _typed(monkeypatch,
           pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP_PLUS, mod=0),
           pygame.event.Event(pygame.KEYUP, key=pygame.K_KP_PLUS, mod=0),
           pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP_DIVIDE, mod=0),
           pygame.event.Event(pygame.KEYUP, key=pygame.K_KP_DIVIDE, mod=0),
           pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP_PERIOD, mod=0))
    # Not windowed: the letters are no buttons, but the keypad's + is START/STOP (as its
    # printed label says) and its / is MENU.
    assert Keyboard(FULLSCREEN).poll() == [
        ButtonEdge("start_stop", True), ButtonEdge("start_stop", False),
        ButtonEdge("menu", True), ButtonEdge("menu", False), KeypadKey("dot")]


def test_a_release_goes_to_the_action_its_press_started(monkeypatch: pytest.MonkeyPatch) -> None:
    _typed(monkeypatch,
           pygame.event.Event(pygame.KEYDOWN, key=pygame.K_t, mod=pygame.KMOD_RSHIFT),
           pygame.event.Event(pygame.KEYDOWN, key=pygame.K_t, mod=pygame.KMOD_RSHIFT),
           pygame.event.Event(pygame.KEYUP, key=pygame.K_t, mod=0),
           pygame.event.Event(pygame.KEYDOWN, key=pygame.K_7, mod=pygame.KMOD_LSHIFT))
    # Auto-repeat is no second press; Shift let go first does not change the release; a
    # shifted digit without an entry of its own is the digit.
    assert Keyboard(WINDOWED).poll() == [ButtonEdge("timeout_away", True),
                                         ButtonEdge("timeout_away", False), KeypadKey("7")]


def test_the_configs_overrides_reach_the_window_and_the_full_screen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_keypad_config({"keys": {"KEY_KPPLUS": "menu", "KEY_KPSLASH": "",
                                          "Shift+KEY_H": "next", "KEY_F1": "set_clock"}})
    events = (pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP_PLUS, mod=0),
              pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP_DIVIDE, mod=0),
              pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F1, mod=0),
              pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h, mod=pygame.KMOD_SHIFT),
              pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h, mod=0))
    for mode in ("fullscreen", "windowed"):
        _typed(monkeypatch, *events)
        # The plain H after Shift+H: auto-repeat in the window (H is held), no key of the
        # numpad layout in full screen; either way nothing new.
        assert Keyboard(config.display_keymap(mode)).poll() == [
            ButtonEdge("menu", True), ButtonEdge("set_clock", True),
            ButtonEdge("next", True)], mode


def test_the_help_shows_every_desktop_key() -> None:
    lines = KEY_MAP_HELP.splitlines()
    keyboard = lines.index(next(line for line in lines if line.startswith("keyboard,")))
    for letter, action in (("G", "GOAL HOME"), ("Shift+G", "GOAL AWAY"), ("Space", "START"),
                           ("Shift+F", "FORFEIT AWAY"), ("K", "NEXT MATCH"),
                           ("KP+", "START / STOP"), ("KP/", "MENU")):
        line = next(line for line in lines[keyboard:]
                    if letter in line.split("  ")[-1].strip().split(", "))
        assert action in line, (letter, line)
