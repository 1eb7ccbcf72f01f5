"""The results file: one finished match or one drawing of lots a line.

Pure: text in, values out (the CLI reads and appends the file). JSON Lines::

    {"match": "A3", "home": "Lions", "away": "Bears", "score": {"home": 3, "away": 1},
     "decided_by": "regulation", "penalty_minutes": {"home": 4, "away": 12},
     "state": "confirmed"}
    {"draw": "A", "order": ["C", "B"], "seed": 12345}

``decided_by`` may be absent (regulation), ``penalty_minutes`` too (0 each), ``state`` too
(confirmed: a file typed by the office is its own confirmation). ``seed`` is null or absent
when people drew the lots. Blank lines and lines starting with ``#`` are skipped, so an
office can annotate the file. Every error names the source, the line, the key and the
problem; keys we do not know are errors, so a typo never silently drops a figure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.safejson import JsonError, load_object
from arena.tournament.model import DecidedBy, Draw, GameResult, ResultState

# The states a finished match can be in; scheduled and live matches have no result line.
_STATES = (ResultState.FINAL, ResultState.CONFIRMED, ResultState.CORRECTED)
_RESULT_KEYS = frozenset({"match", "home", "away", "score", "decided_by", "penalty_minutes",
                          "state"})
_DRAW_KEYS = frozenset({"draw", "order", "seed"})
_SIDES = frozenset({"home", "away"})
_E = TypeVar("_E", DecidedBy, ResultState)


class ResultsError(ValueError):
    """A results file that cannot be read; the message names source, line and key."""


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """A result as the file has it: the result, its state and where it was written."""

    result: GameResult
    state: ResultState
    line: int


@dataclass(frozen=True, slots=True)
class DrawRecord:
    draw: Draw
    line: int


@dataclass(frozen=True, slots=True)
class ResultsFile:
    """Everything in a results file, in file order (draws oldest first: the latest wins)."""

    results: tuple[ResultRecord, ...]
    draws: tuple[DrawRecord, ...]


def parse_results(text: str, source: str) -> tuple[list[GameResult], list[Draw]]:
    """The results and the draws of a results file, in file order."""
    parsed = parse_results_file(text, source)
    return [r.result for r in parsed.results], [d.draw for d in parsed.draws]


def parse_results_file(text: str, source: str) -> ResultsFile:
    """As ``parse_results``, keeping each result's state and every record's line number
    (the CLI's messages point at the line)."""
    results: list[ResultRecord] = []
    draws: list[DrawRecord] = []
    seen: dict[str, int] = {}
    # Lines end at "\n" only (JSON Lines): str.splitlines would also break at U+2028 and
    # friends, which json.dumps(ensure_ascii=False) leaves raw inside a team's name.
    for number, raw in enumerate(text.split("\n"), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        where = _Where(source, number)
        try:
            data = load_object(stripped)
        except JsonError as err:
            # The file's own wording (a person edits it): the value as written, the column.
            if err.kind == "syntax":
                problem = f"not valid JSON: {err.detail} (column {err.column})"
            elif err.kind == "not_object":
                problem = f"must be a JSON object, got {_show(err.value)}"
            else:
                problem = err.problem
            raise where.error(None, problem) from None
        if "draw" in data:
            draws.append(DrawRecord(_parse_draw(data, where), number))
            continue
        record = _parse_result(data, where)
        first = seen.get(record.result.match)
        if first is not None:
            raise where.error("match", f"{_show(record.result.match)} is already on line "
                                       f"{first}; a match has one result line")
        seen[record.result.match] = number
        results.append(record)
    return ResultsFile(tuple(results), tuple(draws))


def result_line(result: GameResult, state: ResultState | None = None) -> str:
    """One line of the file for ``result`` (no newline); ``parse_results`` reads it back.
    ``state`` None leaves the key out (confirmed)."""
    data = result.to_json()
    if state is not None:
        data["state"] = state.value
    return json.dumps(data, ensure_ascii=False)


def draw_line(draw: Draw) -> str:
    """One line of the file for ``draw`` (no newline); ``parse_results`` reads it back."""
    return json.dumps({"draw": draw.group, "order": list(draw.order), "seed": draw.seed},
                      ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class _Where:
    source: str
    line: int

    def error(self, key: str | None, problem: str) -> ResultsError:
        at = f"{self.source}:{self.line}: "
        return ResultsError(f"{at}{key}: {problem}" if key else f"{at}{problem}")


def _show(value: object) -> str:
    """A value as the file spells it, for messages (``"3"`` is visibly a string)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # pragma: no cover - json.loads only gives JSON values
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _unknown(data: dict[str, Any], known: frozenset[str], where: _Where,
             prefix: str = "") -> None:
    for key in data:
        if key not in known:
            raise where.error(f"{prefix}{key}", f"unknown key (known: {', '.join(sorted(known))})")


def _name(data: dict[str, Any], key: str, where: _Where) -> str:
    if key not in data:
        raise where.error(key, "missing")
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise where.error(key, f"must be a non-empty string, got {_show(value)}")
    return value


def _count(data: dict[str, Any], key: str, where: _Where, prefix: str) -> int:
    if key not in data:
        raise where.error(f"{prefix}{key}", "missing")
    value = data[key]
    # bool is an int in Python but never a count in a results file.
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise where.error(f"{prefix}{key}", f"must be a whole number >= 0, got {_show(value)}")
    return value


def _pair(data: dict[str, Any], key: str, where: _Where) -> tuple[int, int]:
    value = data[key]
    if not isinstance(value, dict):
        raise where.error(key, f'must be an object {{"home": n, "away": n}}, got {_show(value)}')
    _unknown(value, _SIDES, where, f"{key}.")
    return (_count(value, "home", where, f"{key}."), _count(value, "away", where, f"{key}."))


def _choice(data: dict[str, Any], key: str, choices: tuple[_E, ...], where: _Where) -> _E:
    value = data[key]
    for choice in choices:
        if value == choice.value:
            return choice
    names = ", ".join(c.value for c in choices)
    raise where.error(key, f"must be one of {names}, got {_show(value)}")


def _parse_result(data: dict[str, Any], where: _Where) -> ResultRecord:
    _unknown(data, _RESULT_KEYS, where)
    match = _name(data, "match", where)
    home = _name(data, "home", where)
    away = _name(data, "away", where)
    if home == away:
        raise where.error("away", f"a team cannot play itself ({_show(home)})")
    if "score" not in data:
        raise where.error("score", "missing")
    home_goals, away_goals = _pair(data, "score", where)
    decided_by = DecidedBy.REGULATION
    if "decided_by" in data:
        decided_by = _choice(data, "decided_by", tuple(DecidedBy), where)
    # Overtime and a shootout exist to produce a winner: a level score there is a typo.
    if decided_by in (DecidedBy.OVERTIME, DecidedBy.SHOOTOUT) and home_goals == away_goals:
        raise where.error("score", f"a match decided by {decided_by.value} has a winner, got "
                                   f"{home_goals}:{away_goals}")
    home_pim = away_pim = 0
    if "penalty_minutes" in data:
        home_pim, away_pim = _pair(data, "penalty_minutes", where)
    state = ResultState.CONFIRMED
    if "state" in data:
        state = _choice(data, "state", _STATES, where)
    result = GameResult(match, home, away, home_goals, away_goals, decided_by, home_pim,
                        away_pim)
    return ResultRecord(result, state, where.line)


def _parse_draw(data: dict[str, Any], where: _Where) -> Draw:
    _unknown(data, _DRAW_KEYS, where)
    group = _name(data, "draw", where)
    if "order" not in data:
        raise where.error("order", "missing")
    order = data["order"]
    if (not isinstance(order, list) or len(order) < 2
            or not all(isinstance(t, str) and t.strip() for t in order)):
        raise where.error("order", f"must be a list of two or more team names, got "
                                   f"{_show(order)}")
    if len(set(order)) != len(order):
        raise where.error("order", f"names a team twice: {_show(order)}")
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise where.error("seed", f"must be a whole number or null, got {_show(seed)}")
    return Draw(group, tuple(order), seed)
