"""What is printed from the key map (arena/keys.py): the keypad's label sheet, the key table of
a markdown page (between ``<!-- keymap:begin -->`` and ``<!-- keymap:end -->``), and the
key part of ``scoreboard run --help``. Nothing here is written by hand per key, so a printout
can never name a key for another action than the code gives it.

``python -m hardware.keydocs --write-docs`` rewrites the checked-in files; ``--check`` only
says which differ (tests/hardware/test_keydocs.py fails on a stale one).
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.keys import KEYBOARD, KEYPAD_KEYS, NUMPAD, SHIFT, plain_name

BEGIN, END = "<!-- keymap:begin -->", "<!-- keymap:end -->"
LABEL_SHEET = Path("examples/keypad-labels.md")
MARKED_PAGES = (Path("docs/timekeeper.md"),)
REGENERATE = "python -m hardware.keydocs --write-docs"
DIGITS = "the digit"


@dataclass(frozen=True, slots=True)
class Meaning:
    """How a target is printed: its label, a hint for a key that must be held, what it
    does."""

    label: str
    does: str
    hint: str = ""

    def titled(self) -> str:
        return f"{self.label} ({self.hint})" if self.hint else self.label


_HOLD = "hold 1 s"
MEANINGS: Mapping[str, Meaning] = {
    "start_stop": Meaning("START / STOP", "starts or stops the clock at the instant it goes "
                          "down"),
    "horn": Meaning("HORN", "the horn sounds while the key is held", "held"),
    "goal_home": Meaning("GOAL HOME", "the scorer's number (or none), Enter"),
    "goal_away": Meaning("GOAL AWAY", "the scorer's number (or none), Enter"),
    "penalty_home": Meaning("PENALTY HOME", "the player's number, Enter, the kind"),
    "penalty_away": Meaning("PENALTY AWAY", "the player's number, Enter, the kind"),
    "timeout_home": Meaning("TIME-OUT HOME", "acts at once"),
    "timeout_away": Meaning("TIME-OUT AWAY", "acts at once"),
    "shot_home": Meaning("SHOT HOME", "shootout: shooter, Enter, 1 scored / 0 missed"),
    "shot_away": Meaning("SHOT AWAY", "shootout: shooter, Enter, 1 scored / 0 missed"),
    "set_clock": Meaning("SET CLOCK", "digits fill m:ss from the right, . tenths, Enter"),
    "end": Meaning("END", "ends the period or break (Enter confirms)"),
    "forfeit_home": Meaning("FORFEIT HOME", "the home team loses", _HOLD),
    "forfeit_away": Meaning("FORFEIT AWAY", "the away team loses", _HOLD),
    "cancel": Meaning("CANCEL / CORRECT", "an earlier goal or penalty"),
    "menu": Meaning("MENU", "opens the menu: every action by its number (goals, penalties, "
                    "time-outs, shots, corrections)"),
    "next": Meaning("NEXT", "the next period, break or match", _HOLD),
    "undo": Meaning("UNDO", "takes back the last goal, penalty, time-out, shot or "
                    "correction", _HOLD),
    "schedule": Meaning("NEXT MATCH", "from the local schedule: its number, Enter"),
    **{d: Meaning(DIGITS, "player numbers, menu choices") for d in KEYPAD_KEYS if d.isdigit()},
    "enter": Meaning("ENTER", "ends a number, confirms"),
    "escape": Meaning("ESCAPE", "cancels the entry or the menu"),
    "backspace": Meaning("BACKSPACE", "removes the last digit"),
    "dot": Meaning("DOT", "tenths when setting the clock; coincidental when giving a penalty; "
                   "the next page of a list"),
}

# The 17 keys of a numeric keypad as they lie on the table, by rows of four columns; a tall
# key (+, Enter) is named again in the row below, the wide 0 twice in its row.
GRID: tuple[tuple[str, str, str, str], ...] = (
    ("KEY_NUMLOCK", "KEY_KPSLASH", "KEY_KPASTERISK", "KEY_KPMINUS"),
    ("KEY_KP7", "KEY_KP8", "KEY_KP9", "KEY_KPPLUS"),
    ("KEY_KP4", "KEY_KP5", "KEY_KP6", "KEY_KPPLUS"),
    ("KEY_KP1", "KEY_KP2", "KEY_KP3", "KEY_KPENTER"),
    ("KEY_KP0", "KEY_KP0", "KEY_KPDOT", "KEY_KPENTER"),
)
GRID_KEYS = tuple(dict.fromkeys(name for row in GRID for name in row))
# The order of the sheet's tables: the keys with a label first, the digits last.
_SHEET_ORDER = ("KEY_KPPLUS", "KEY_KPASTERISK", "KEY_KPSLASH", "KEY_NUMLOCK", "KEY_KPMINUS",
                "KEY_KPENTER", "KEY_KPDOT")
_CAPS = {"KPPLUS": "+", "KPMINUS": "-", "KPASTERISK": "*", "KPSLASH": "/", "KPDOT": ".",
         "KPENTER": "Enter", "NUMLOCK": "NumLock", "ESC": "Esc", "ENTER": "Enter",
         "SPACE": "Space", "DOT": ".", "SLASH": "/", "MINUS": "-", "BACKSPACE": "Backspace",
         "DELETE": "Delete", "TAB": "Tab", "COMMA": ",", "EQUAL": "="}
_NOTES = {"KEY_KPPLUS": "the tall key", "KEY_BACKSPACE": "some keypads"}
WIDTH = 11  # a key's inside in the drawing


def cap(name: str, *, keypad: bool = False) -> str:
    """What is printed on the key ``name``: ``KP+``, ``Shift+G``; on the keypad's own sheet
    (``keypad``) without the ``KP`` a keypad's keys do not need."""
    bare = plain_name(name).removeprefix("KEY_")
    on_keypad = bare.startswith("KP")
    key = bare[2:] if on_keypad and bare not in _CAPS else bare
    text = _CAPS.get(key, key if len(key) <= 3 else key.title())
    if on_keypad and not keypad:
        text = ("KP" if len(text) == 1 else "KP ") + text
    return SHIFT + text if name.startswith(SHIFT) else text


def _digit_blocks(keymap: Mapping[str, str]) -> list[list[str]]:
    """The blocks of ten digit keys (the keypad's, the main keys') that each type their own
    digit: printed as one row or range."""
    blocks = ([f"{prefix}{d}" for d in range(10)] for prefix in ("KEY_KP", "KEY_"))
    return [block for block in blocks if all(keymap.get(n) == n[-1] for n in block)]


def _row_keys(keymap: Mapping[str, str]) -> list[list[str]]:
    """The sheet's table rows: a key each, the digit blocks last, a row each."""
    blocks = _digit_blocks(keymap)
    in_blocks = {n for block in blocks for n in block}
    ordered = [n for n in _SHEET_ORDER if n in keymap]
    ordered += [n for n in keymap if n not in ordered and n not in in_blocks]
    return [[n] for n in ordered] + blocks


# ----------------------------------------------------------------- the label sheet

def label_sheet(keymap: Mapping[str, str] = NUMPAD) -> str:
    """The printed label sheet of a numeric keypad for ``keymap`` (the ``numpad`` layout)."""
    drawing = "\n".join(drawing_lines(keymap))
    table = "\n".join(key_table(keymap))
    cutouts = [names[0] for names in _row_keys(keymap) if names[0] in GRID_KEYS
               and len(names) == 1 and MEANINGS[keymap[names[0]]].label != DIGITS]
    labels = " | ".join(MEANINGS[keymap[n]].titled().replace(_HOLD, "hold")
                        for n in cutouts)
    keys = " | ".join(f"`{cap(n, keypad=True)}`" for n in cutouts)
    return f"""# Key labels for a 17-key USB numeric keypad

<!-- Printed from the key map (arena/keys.py): do not edit, run `{REGENERATE}`. -->

The default map of `[keypad] layout = "numpad"` (docs/technician.md, "Wiring the console"),
the same in every mode: read through evdev headless, by the display in full screen and in a
window. Print this page, cut out the labels and stick them on the keys (or on a card beside
the keypad). Keys changed under `[keypad.keys]` need their own label.

## The keypad as it lies on the table

```
{drawing}
```

## Physical key -> label

{table}

NumLock's light does not matter: the keypad sends the same keys either way.

## Cut-out labels

| {labels} |
| {" | ".join(":---:" for _ in cutouts)} |
| {keys} |
"""


def key_table(keymap: Mapping[str, str]) -> list[str]:
    """The sheet's table: physical key, kernel name, label, what it does."""
    lines = ["| physical key | kernel name | label | what it does |", "| --- | --- | --- | --- |"]
    for names in _row_keys(keymap):
        first, meaning = names[0], MEANINGS[keymap[names[0]]]
        if len(names) > 1:
            key = f"`{cap(first, keypad=True)}` ... `{cap(names[-1], keypad=True)}`"
            if not first.startswith("KEY_KP"):
                key += " (a full keyboard's main keys)"
        else:
            key = f"`{cap(first, keypad=True)}`"
            note = _NOTES.get(first, "" if first in GRID_KEYS else "a full keyboard")
            key += f" ({note})" if note else ""
        kernel = ", ".join(f"`{n}`" for n in names)
        lines.append(f"| {key} | {kernel} | {meaning.titled()} | {meaning.does} |")
    return lines


def _cell(keymap: Mapping[str, str], name: str, lines: int, width: int) -> list[str]:
    """A key's lines in the drawing: its cap, then its label (and hint) in the middle."""
    target = keymap.get(name)
    body: list[str] = []
    if target is not None:
        meaning = MEANINGS[target]
        if meaning.label != DIGITS or target != cap(name, keypad=True):
            for part in meaning.label.split(" / "):
                body += textwrap.wrap(part, width - 2) or [""]
            if meaning.hint:
                body.append(f"({meaning.hint})")
    free = lines - 1
    top = max(0, (free - len(body)) // 2) if lines > 3 else 0
    text = [cap(name, keypad=True), *[""] * top, *body]
    text += [""] * (lines - len(text))
    return [t.center(width) for t in text[:lines]]


def drawing_lines(keymap: Mapping[str, str]) -> list[str]:
    """The keypad drawn in text, each key with its label."""
    cells: dict[str, list[str]] = {}
    for name in GRID_KEYS:
        wide = name == "KEY_KP0"
        tall = name in ("KEY_KPPLUS", "KEY_KPENTER")
        cells[name] = _cell(keymap, name, 7 if tall else 3, 2 * WIDTH + 1 if wide else WIDTH)
    dash = "-" * WIDTH
    full = "+" + "+".join([dash] * 4) + "+"
    out = [full]
    for r, row in enumerate(GRID):
        for i in range(3):
            parts: list[str] = []
            for c, name in enumerate(row):
                if c == 1 and name == row[0]:
                    continue  # the wide key, drawn once
                first_row = r == 0 or GRID[r - 1][c] != name
                parts.append(cells[name][i if first_row else 4 + i])
            out.append("|" + "|".join(parts) + "|")
        if r + 1 < len(GRID):
            nxt = GRID[r + 1]
            if row[3] == nxt[3]:  # a tall key goes on through the border
                left = "+" + "+".join([dash] * 3) + "+"
                out.append(left + cells[row[3]][3] + "|")
            else:
                out.append(full)
    out.append("+" + "-" * (2 * WIDTH + 1) + "+" + dash + "+" + dash + "+")
    return out


# ----------------------------------------------------------------- a page's key table

def page_block(keymap: Mapping[str, str] = NUMPAD) -> str:
    """The key table of the timekeeper's page: the keypad's keys and what each does."""
    lines = [BEGIN, f"<!-- Printed from the key map (arena/keys.py): run `{REGENERATE}`. -->",
             "", "| key | does |", "| --- | --- |"]
    for names in _row_keys({n: t for n, t in keymap.items() if n in GRID_KEYS}):
        meaning = MEANINGS[keymap[names[0]]]
        if len(names) > 1:
            lines.append(f"| `{cap(names[0], keypad=True)}`-`{cap(names[-1], keypad=True)}` "
                         f"| {meaning.does} |")
            continue
        lines.append(f"| `{cap(names[0], keypad=True)}` {meaning.titled()} | "
                     f"{meaning.does} |")
    return "\n".join([*lines, "", END])


def fill_markers(text: str, block: str, source: str = "the page") -> str:
    """``text`` with what is between its keymap markers replaced by ``block`` (which
    carries the markers itself); ValueError if the markers are not there once each."""
    found = re.findall(re.escape(BEGIN) + r".*?" + re.escape(END), text, flags=re.DOTALL)
    if len(found) != 1:
        raise ValueError(f"{source}: needs {BEGIN} ... {END} once, found {len(found)}")
    return text.replace(found[0], block)


# ----------------------------------------------------------------- scoreboard run --help

def help_lines(keymap: Mapping[str, str]) -> list[str]:
    """One line per action or keypad key: its label, then every key that does it."""
    by_target: dict[str, list[str]] = {}
    for name, target in keymap.items():
        by_target.setdefault(DIGITS if target.isdigit() else target, []).append(name)
    lines = []
    for target, names in by_target.items():
        if target == DIGITS:
            caps = _digit_ranges(names, keymap)
            label = "0-9 (the digits)"
        else:
            caps = [cap(n) for n in names]
            label = MEANINGS[target].titled()
        lines.append(f"  {label:<24} {', '.join(caps)}")
    return lines


def _digit_ranges(names: Sequence[str], keymap: Mapping[str, str]) -> list[str]:
    blocks = _digit_blocks(keymap)
    in_blocks = {n for block in blocks for n in block}
    return ([f"{cap(block[0])}-{cap(block[-1])}" for block in blocks]
            + [f"{cap(n)} ({keymap[n]})" for n in names if n not in in_blocks])


def run_help(numpad: Mapping[str, str] = NUMPAD, keyboard: Mapping[str, str] = KEYBOARD) -> str:
    """The key part of ``scoreboard run --help``."""
    return "\n".join([
        "keys (arena/keys.py; [keypad.keys] in the config changes a key on every path):",
        "numeric keypad, layout \"numpad\" (full screen, and headless through evdev):",
        *help_lines(numpad),
        "keyboard, layout \"keyboard\" (always with --windowed; Shift+ a key: with Shift held,",
        "else Shift does not matter):",
        *help_lines(keyboard),
        "  closing the window stops the daemon",
    ])


# ----------------------------------------------------------------- the command

def stale(root: Path, pages: Sequence[Path] = MARKED_PAGES) -> list[Path]:
    """The files under ``root`` that differ from what the map prints."""
    return [path for path, text in _printed(root, pages).items()
            if (root / path).read_text(encoding="utf-8") != text]


def _printed(root: Path, pages: Sequence[Path]) -> dict[Path, str]:
    out = {LABEL_SHEET: label_sheet()}
    block = page_block()
    for page in pages:
        out[page] = fill_markers((root / page).read_text(encoding="utf-8"), block, str(page))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hardware.keydocs",
        description="Print the keypad's label sheet and the key table of markdown pages from "
        f"the key map (arena/keys.py): {LABEL_SHEET} whole, and each PAGE between "
        f"{BEGIN} and {END}.")
    parser.add_argument("pages", nargs="*", type=Path, metavar="PAGE",
                        help="markdown files with the markers, relative to --root; default "
                        + ", ".join(map(str, MARKED_PAGES)))
    parser.add_argument("--root", type=Path, default=Path(), help="the repository (default .)")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--write-docs", action="store_true", help="rewrite the files")
    what.add_argument("--check", action="store_true",
                      help="exit 1 naming each file that differs from the map")
    args = parser.parse_args(argv)
    pages = tuple(args.pages) or MARKED_PAGES
    try:
        printed = _printed(args.root, pages)
    except (OSError, ValueError) as err:
        print(f"keydocs: {err}", file=sys.stderr)
        return 2
    if args.check:
        old = stale(args.root, pages)
        for path in old:
            print(f"{path}: differs from the key map; run `{REGENERATE}`", file=sys.stderr)
        return 1 if old else 0
    for path, text in printed.items():
        (args.root / path).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
