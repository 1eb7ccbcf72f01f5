"""Replay scripts (docs/developer.md 4.2): one timekeeper action per JSON line.

``{"t": 75.3, "do": "penalty", "team": "home", "player": 7, "kind": "minor"}``: ``t`` is seconds
since the script began, as the timekeeper lived it. Numbers are read as ``Decimal`` so that
``75.3`` is exactly 75.3 s, not a float a few nanoseconds off.

``scoreboard replay`` also takes two lines no live board plays (``parse_replay_script``):
``{"t": 3, "key": "KEY_KP5"}`` a key press by its key-map name (arena/keys.py; ``"keys": [...]``
several at one instant, ``"hold": 1.2`` seconds a console action's key is held), and
``{"t": 0, "match_day": {"clock": "09:40", "scheduled": "10:30"}}`` the hall's clock of day at
that line and the scheduled starts (firmware_py/replayday.py). A script a board plays
(``scoreboard run --script``) is commands only (``parse_script``): its keys would be a
console's, and its day the office's; ``--publish`` sends the commands a script's keys make.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from arena.core.commands import Command, parse_command
from arena.core.errors import CommandError, ScoreboardError
from arena.core.units import NS_PER_S, Nanos, ns_from_seconds
from arena.keys import DEFAULT_MAPS, SHIFT, is_keypad_key, plain_name, target_of
from arena.safejson import JsonError, load_object
from firmware_py.replayday import MatchDay, parse_day

TAP_NS = 100_000_000  # not a rule: how long a key a script taps is down (a finger's tap)


class ScriptError(ScoreboardError):
    """A malformed script line; the message names the script and the line."""


@dataclass(frozen=True, slots=True)
class ScriptLine:
    line: int  # 1-based line number in the file
    t: Nanos
    command: Command


@dataclass(frozen=True, slots=True)
class KeyLine:
    """A key press of a replay script: ``name`` as the script writes it (``Shift+KEY_G``),
    ``target`` what the key map makes of it (a console action or a keypad key), ``hold``
    how long a console action's key stays down (None: a tap, ``TAP_NS``)."""

    line: int
    t: Nanos
    name: str
    target: str
    hold: Nanos | None = None


@dataclass(frozen=True, slots=True)
class DayLine:
    """The hall's clock of day at ``t`` and the scheduled starts (``match_day``)."""

    line: int
    t: Nanos
    day: MatchDay


Line = ScriptLine | KeyLine | DayLine
ONLY_REPLAY = ("key", "keys", "match_day")


def parse_time(value: object) -> Nanos:
    """A ``t`` or ``--at`` value in seconds (JSON number or Decimal) as nanoseconds."""
    if isinstance(value, bool) or not isinstance(value, int | Decimal | float):
        raise ValueError(f"must be a number of seconds, got {value!r}")
    if isinstance(value, float | Decimal) and not Decimal(value).is_finite():
        raise ValueError(f"must be a finite number of seconds, got {value!r}")
    if value < 0:
        raise ValueError(f"must not be negative, got {value}")
    return ns_from_seconds(Decimal(value) if not isinstance(value, int) else value)


def _objects(text: str, name: str) -> Iterator[tuple[int, str, dict[str, Any], Nanos]]:
    """Each non-blank line as (number, where, object, t), in time order, or a
    ``ScriptError`` for the first malformed one."""
    previous: Nanos | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue  # blank lines are harmless
        where = f"{name} line {number}"
        try:
            obj = load_object(raw, where, parse_float=Decimal,
                              expected='a JSON object like {"t": 0.0, "do": "start"}')
        except JsonError as err:
            raise ScriptError(str(err)) from None
        if "t" not in obj:
            raise ScriptError(f"{where}: missing field 't' (seconds since the script began)")
        try:
            t = parse_time(obj["t"])
        except ValueError as err:
            raise ScriptError(f"{where}: 't' {err}") from err
        if previous is not None and t < previous:
            raise ScriptError(
                f"{where}: 't' {obj['t']} is smaller than the line before "
                f"({Decimal(previous) / NS_PER_S} s); lines must be in time order"
            )
        previous = t
        yield number, where, obj, t


def _command(number: int, where: str, obj: Mapping[str, Any], t: Nanos) -> ScriptLine:
    try:
        command = parse_command(obj, t, ignore=frozenset({"t"}))
    except CommandError as err:
        raise ScriptError(f"{where}: {err}") from err
    return ScriptLine(number, t, command)


def parse_script(text: str, name: str) -> list[ScriptLine]:
    """Every command of a script, or a ``ScriptError`` for the first malformed line (a key
    press or a match day among them too: only ``scoreboard replay`` plays those)."""
    lines: list[ScriptLine] = []
    for number, where, obj, t in _objects(text, name):
        extra = next((k for k in ONLY_REPLAY if k in obj), None)
        if extra is not None:
            raise ScriptError(f"{where}: {extra!r} lines are played by `scoreboard replay` "
                              "(its snapshots, or --publish) only; a script a board plays "
                              "holds commands (\"do\")")
        lines.append(_command(number, where, obj, t))
    return lines


def parse_replay_script(text: str, name: str, layout: str = "keyboard") -> list[Line]:
    """Every line of a ``scoreboard replay`` script: commands, key presses (named in the
    ``layout`` key map) and the match day; a ``ScriptError`` for the first malformed one."""
    keymap = DEFAULT_MAPS[layout]
    lines: list[Line] = []
    for number, where, obj, t in _objects(text, name):
        if "match_day" in obj:
            lines.append(_day_line(number, where, obj, t))
        elif "key" in obj or "keys" in obj:
            lines += _key_lines(number, where, obj, t, keymap=keymap, layout=layout)
        else:
            lines.append(_command(number, where, obj, t))
    return lines


def _day_line(number: int, where: str, obj: Mapping[str, Any], t: Nanos) -> DayLine:
    _only(obj, where, {"t", "match_day"})
    day = obj["match_day"]
    if not isinstance(day, dict):
        raise ScriptError(f"{where}: 'match_day' must be an object like "
                          '{"clock": "09:40", "scheduled": "10:30"}')
    try:
        return DayLine(number, t, parse_day(day, where))
    except ValueError as err:
        raise ScriptError(str(err)) from None


def _key_lines(number: int, where: str, obj: Mapping[str, Any], t: Nanos, *,
               keymap: Mapping[str, str], layout: str) -> list[KeyLine]:
    _only(obj, where, {"t", "key", "keys", "hold"})
    if "key" in obj and "keys" in obj:
        raise ScriptError(f"{where}: give 'key' (one) or 'keys' (several at once), not both")
    names = [obj["key"]] if "key" in obj else obj["keys"]
    if not isinstance(names, list) or not names:
        raise ScriptError(f"{where}: 'keys' must be a list of key names, got {names!r}")
    hold: Nanos | None = None
    if "hold" in obj:
        if len(names) != 1:
            raise ScriptError(f"{where}: 'hold' is for one key ('key'), not for 'keys'")
        try:
            hold = parse_time(obj["hold"])
        except ValueError as err:
            raise ScriptError(f"{where}: 'hold' {err}") from err
        if hold <= 0:
            raise ScriptError(f"{where}: 'hold' must be more than 0 seconds")
    out: list[KeyLine] = []
    for key in names:
        if not isinstance(key, str):
            raise ScriptError(f"{where}: a key name must be a string like \"KEY_KP5\", "
                              f"got {key!r}")
        target = target_of(keymap, plain_name(key), shift=key.startswith(SHIFT))
        if target is None:
            raise ScriptError(f"{where}: key {key!r} is not in the {layout} key map "
                              "(kernel names as docs/timekeeper.md, \"The keys\" lists them: "
                              "\"KEY_KP5\", \"KEY_KPENTER\", \"KEY_G\", \"Shift+KEY_G\")")
        if "hold" in obj and is_keypad_key(target):
            raise ScriptError(f"{where}: {key} is the keypad's {target!r}, which acts on its "
                              "press: 'hold' is for a key that does a console action")
        out.append(KeyLine(number, t, key, target, hold))
    return out


def _only(obj: Mapping[str, Any], where: str, allowed: set[str]) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise ScriptError(f"{where}: unknown field {unknown[0]!r} (this line takes "
                          f"{', '.join(sorted(allowed))})")
