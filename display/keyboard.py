"""The keyboard: a USB keypad's keys, and on a desktop the console's buttons too.

pygame stays inside ``display/``: this module turns pygame's key events into plain values
the daemon feeds to ``hardware.console.Console`` (``button`` for button edges, ``key`` for
keypad keys). Key presses are stamped when the loop reads them (pygame gives no usable edge
time); on a desktop that is a few ms, and the real console stamps its GPIO edges exactly.

Key map (``scoreboard run --help`` prints it):

    Space            START/STOP
    H                HORN (sounds while held)
    G / Shift+G      GOAL HOME / GOAL AWAY
    P / Shift+P      PENALTY HOME / PENALTY AWAY
    T / Shift+T      TIME-OUT HOME / TIME-OUT AWAY
    S / Shift+S      SHOT HOME / SHOT AWAY (shootout: shooter, Enter, 1 scored / 0 missed)
    C                SET CLOCK (digits fill m:ss from the right, . tenths, Enter)
    E                END the period or break (Enter confirms)
    F / Shift+F      FORFEIT HOME / FORFEIT AWAY (that team loses; hold 1 s)
    X                CANCEL/CORRECT an earlier goal or penalty
    M                MENU (then a number picks any action)
    N                NEXT (hold 1 s)
    U                UNDO (hold 1 s)
    L                NEXT MATCH from the local schedule (its number, Enter)
    0-9, Enter, Backspace, Escape, . (main keys or the numeric keypad): the keypad
    numeric keypad +: MENU

The button keys act only with ``buttons=True`` (the daemon sets it in windowed mode); the
keypad keys and the numeric keypad's + always do (a USB numeric keypad on the Pi arrives as
keyboard events, and with MENU its 17 keys reach every action).
Closing the window asks the daemon to stop; closing the timekeeper's own window
(display/operatorwindow.py) only closes that one.
"""

from __future__ import annotations

from dataclasses import dataclass

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

# key -> (action without Shift, action with Shift)
_BUTTONS: dict[int, tuple[str, str]] = {
    pygame.K_SPACE: ("start_stop", "start_stop"),
    pygame.K_h: ("horn", "horn"),
    pygame.K_g: ("goal_home", "goal_away"),
    pygame.K_p: ("penalty_home", "penalty_away"),
    pygame.K_t: ("timeout_home", "timeout_away"),
    pygame.K_n: ("next", "next"),
    pygame.K_u: ("undo", "undo"),
    pygame.K_s: ("shot_home", "shot_away"),
    pygame.K_c: ("set_clock", "set_clock"),
    pygame.K_e: ("end", "end"),
    pygame.K_f: ("forfeit_home", "forfeit_away"),
    pygame.K_x: ("cancel", "cancel"),
    pygame.K_m: ("menu", "menu"),
    pygame.K_l: ("schedule", "schedule"),
}
# Buttons on the numeric keypad itself, in every mode: MENU makes its 17 keys enough.
_KEYPAD_BUTTONS: dict[int, str] = {pygame.K_KP_PLUS: "menu"}
_KEYPAD: dict[int, str] = {
    **{getattr(pygame, f"K_{d}"): str(d) for d in range(10)},
    **{getattr(pygame, f"K_KP{d}"): str(d) for d in range(10)},
    pygame.K_RETURN: "enter",
    pygame.K_KP_ENTER: "enter",
    pygame.K_BACKSPACE: "backspace",
    pygame.K_ESCAPE: "escape",
    pygame.K_PERIOD: "dot",
    pygame.K_KP_PERIOD: "dot",
}


class Keyboard:
    def __init__(self, *, buttons: bool) -> None:
        self.buttons = buttons
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
        if key in _KEYPAD_BUTTONS or (self.buttons and key in _BUTTONS):
            action = _KEYPAD_BUTTONS.get(key) or _BUTTONS[key][1 if shift else 0]
            self._held[key] = action
            return [ButtonEdge(action, True)]
        name = _KEYPAD.get(key)
        return [KeypadKey(name)] if name is not None else []
