"""Every key of each default layout, driven through each input path and read off the paper:
the evdev reader (hardware/keypad.py, a fake device stamped by the "kernel") and the display's
keyboard (display/keyboard.py, pygame events under SDL's dummy driver) do the same, and the
printed label sheet and ``scoreboard run --help`` name that action for that key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.keys import DEFAULT_MAPS, LAYOUTS, SHIFT, plain_name
from display._pygame import pygame
from display.keyboard import KERNEL_NAMES, Keyboard
from display.keyboard import ButtonEdge as WindowEdge
from display.keyboard import KeypadKey as WindowKey
from firmware_py.cli import KEY_MAP_HELP
from hardware.keydocs import cap
from hardware.keymap import KEY_CODES, ButtonEdge, KeyInput, KeypadKey, load_keypad_config
from hardware.keypad import EvdevKeys
from tests.hardware.fake_evdev import FakeBus, FakeDevice

ROOT = Path(__file__).resolve().parents[2]
MS = 1_000_000
# What the paper must call each target: written here, not taken from the printing code.
NAMES = {"start_stop": "START / STOP", "horn": "HORN", "goal_home": "GOAL HOME",
         "goal_away": "GOAL AWAY", "penalty_home": "PENALTY HOME",
         "penalty_away": "PENALTY AWAY", "timeout_home": "TIME-OUT HOME",
         "timeout_away": "TIME-OUT AWAY", "next": "NEXT", "undo": "UNDO",
         "shot_home": "SHOT HOME", "shot_away": "SHOT AWAY", "set_clock": "SET CLOCK",
         "end": "END", "forfeit_home": "FORFEIT HOME", "forfeit_away": "FORFEIT AWAY",
         "cancel": "CANCEL / CORRECT", "menu": "MENU", "schedule": "NEXT MATCH",
         "enter": "ENTER", "escape": "ESCAPE", "backspace": "BACKSPACE", "dot": "DOT"}
Seen = tuple[str, str, bool]  # ("button", action, pressed) or ("key", name, True)


def _expected(target: str) -> list[Seen]:
    if target in NAMES and target not in ("enter", "escape", "backspace", "dot"):
        return [("button", target, True), ("button", target, False)]
    return [("key", target, True)]


def _from_evdev(items: list[KeyInput]) -> list[Seen]:
    return [("button", i.action, i.active) if isinstance(i, ButtonEdge)
            else ("key", i.name, True) for i in items if isinstance(i, ButtonEdge | KeypadKey)]


def _through_evdev(keys: EvdevKeys, device: FakeDevice, name: str, at: int) -> list[Seen]:
    shift = name.startswith(SHIFT)
    if shift:
        device.key("KEY_LEFTSHIFT", at, 1)
    device.tap(plain_name(name), at + 10 * MS, at + 70 * MS)
    if shift:
        device.key("KEY_LEFTSHIFT", at + 80 * MS, 0)
    return _from_evdev(keys.poll(at + 100 * MS))


PYGAME_CODE = {kernel: code for code, kernel in KERNEL_NAMES.items()}


def _through_pygame(keyboard: Keyboard, name: str, monkeypatch: pytest.MonkeyPatch
                    ) -> list[Seen]:
    code = PYGAME_CODE[plain_name(name)]
    mod = pygame.KMOD_LSHIFT if name.startswith(SHIFT) else 0
    events = [pygame.event.Event(pygame.KEYDOWN, key=pygame.K_LSHIFT, mod=mod)] if mod else []
    events += [pygame.event.Event(pygame.KEYDOWN, key=code, mod=mod),
               pygame.event.Event(pygame.KEYUP, key=code, mod=mod)]
    events += [pygame.event.Event(pygame.KEYUP, key=pygame.K_LSHIFT, mod=0)] if mod else []
    monkeypatch.setattr(pygame.event, "get", lambda: events)
    out: list[Seen] = []
    for item in keyboard.poll():
        assert isinstance(item, WindowEdge | WindowKey)
        out.append(("button", item.action, item.active) if isinstance(item, WindowEdge)
                   else ("key", item.name, True))
    return out


def _help_section(layout: str) -> dict[str, str]:
    """The help's lines of ``layout``: each key's cap -> the label its line starts with."""
    lines = KEY_MAP_HELP.splitlines()
    start = next(i for i, line in enumerate(lines) if f'layout "{layout}"' in line)
    out: dict[str, str] = {}
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            if out:
                break
            continue  # the heading's second line
        found = re.fullmatch(r"  (.+?)\s{2,}(.+)", line)
        if found is None:
            continue  # a line without keys ("closing the window ...")
        label, caps = found.groups()
        for one in caps.split(", "):
            digits = re.fullmatch(r"(KP)?0-(KP)?9", one)
            for c in ([f"{digits[1] or ''}{d}" for d in range(10)] if digits else [one]):
                assert c not in out, f"{c} twice in the help"
                out[c] = label
    return out


def _sheet() -> dict[str, str]:
    """The label sheet's table: kernel name -> its label."""
    text = (ROOT / "examples/keypad-labels.md").read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for row in re.findall(r"^\|([^\n]+)\|$", text, flags=re.MULTILINE):
        cells = [c.strip() for c in row.split("|")]
        if len(cells) == 4:
            for name in re.findall(r"`(KEY_[A-Z0-9]+)`", cells[1]):
                out[name] = cells[2]
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_key_does_the_same_on_every_path_and_on_paper(
        layout: str, monkeypatch: pytest.MonkeyPatch) -> None:
    keymap = DEFAULT_MAPS[layout]
    config = load_keypad_config({"layout": layout, "evdev": True})
    bus = FakeBus()
    device = bus.plug("/dev/input/event3", FakeDevice(list(KEY_CODES.values())))
    keys = EvdevKeys(config, monotonic=lambda: 0, realtime=lambda: 0, list_paths=bus.paths,
                     open_device=bus.open, set_clock=bus.set_clock)
    # The window in this layout's mode: full screen reads the config's map, a window the
    # keyboard layout (the same map when the layout is "keyboard").
    mode = "windowed" if layout == "keyboard" else "fullscreen"
    window = Keyboard(config.display_keymap(mode))
    helped = _help_section(layout)
    sheet = _sheet()
    try:
        for i, (name, target) in enumerate(keymap.items()):
            want = _expected(target)
            assert _through_evdev(keys, device, name, (i + 1) * 1000 * MS) == want, name
            assert _through_pygame(window, name, monkeypatch) == want, name
            said = "0-9" if target.isdigit() else NAMES[target]
            assert helped[cap(name)].startswith(said), (name, helped[cap(name)])
            if layout == "numpad":
                assert sheet[name].startswith("the digit" if target.isdigit() else said), name
        assert len(helped) == len(keymap)  # no key in the help that the map does not have
    finally:
        keys.close()
        bus.close()


def test_the_numpad_sheet_and_its_map_hold_the_same_keys() -> None:
    assert set(_sheet()) == set(DEFAULT_MAPS["numpad"])
