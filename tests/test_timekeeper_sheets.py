"""The printed sheets for the table (docs/timekeeper.md, examples/keypad-labels.md)
say what the code does: the menu's numbers and the default keypad map, so a printout never
sends a timekeeper to the wrong action."""

from __future__ import annotations

import re
from pathlib import Path

from arena.core.entry import MENU
from arena.keys import NUMPAD

ROOT = Path(__file__).resolve().parent.parent


def test_the_guides_menu_is_the_consoles_menu() -> None:
    text = (ROOT / "docs/timekeeper.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| ([^|]+?) \|", text, flags=re.MULTILINE)
    assert [(int(n), label) for n, label in rows] == [
        (i, label) for i, (_, label) in enumerate(MENU, start=1)]


def test_the_label_sheet_names_every_key_of_the_default_map() -> None:
    text = (ROOT / "examples/keypad-labels.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(KEY_[A-Z0-9]+)`", text))
    digits = {f"KEY_KP{d}" for d in range(10)}
    assert set(NUMPAD) - digits <= named
    assert {"KEY_KP0", "KEY_KP9"} <= named  # the digits as a range: KEY_KP0 ... KEY_KP9
