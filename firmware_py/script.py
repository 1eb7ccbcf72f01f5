"""Replay scripts (docs/developer.md 4.2): one timekeeper action per JSON line.

``{"t": 75.3, "do": "penalty", "team": "home", "player": 7, "kind": "minor"}``: ``t`` is seconds
since the script began, as the timekeeper lived it. Numbers are read as ``Decimal`` so that
``75.3`` is exactly 75.3 s, not a float a few nanoseconds off.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from arena.core.commands import Command, parse_command
from arena.core.errors import CommandError, ScoreboardError
from arena.core.units import NS_PER_S, Nanos, ns_from_seconds
from arena.safejson import JsonError, load_object


class ScriptError(ScoreboardError):
    """A malformed script line; the message names the script and the line."""


@dataclass(frozen=True, slots=True)
class ScriptLine:
    line: int  # 1-based line number in the file
    t: Nanos
    command: Command


def parse_time(value: object) -> Nanos:
    """A ``t`` or ``--at`` value in seconds (JSON number or Decimal) as nanoseconds."""
    if isinstance(value, bool) or not isinstance(value, int | Decimal | float):
        raise ValueError(f"must be a number of seconds, got {value!r}")
    if isinstance(value, float | Decimal) and not Decimal(value).is_finite():
        raise ValueError(f"must be a finite number of seconds, got {value!r}")
    if value < 0:
        raise ValueError(f"must not be negative, got {value}")
    return ns_from_seconds(Decimal(value) if not isinstance(value, int) else value)


def parse_script(text: str, name: str) -> list[ScriptLine]:
    """Every command of a script, or a ``ScriptError`` for the first malformed line."""
    lines: list[ScriptLine] = []
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
        try:
            command = parse_command(obj, t, ignore=frozenset({"t"}))
        except CommandError as err:
            raise ScriptError(f"{where}: {err}") from err
        lines.append(ScriptLine(number, t, command))
        previous = t
    return lines
