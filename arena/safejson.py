"""The one JSON loader for everything that comes from outside (docs/developer.md 5: bad input of
any kind gets a clear message naming what was wrong and where).

MQTT payloads, serial command lines, replay scripts, the office's results file and
``scoreboard snapshot`` input all come through here, so every one of them is held to the
same limits: a size limit (checked before parsing), a nesting limit, no NaN or Infinity
(not JSON; whoever reads the value later would choke), valid UTF-8 and no lone surrogate
(``"\\ud800"`` decodes to one; SQLite and UTF-8 encoders refuse it later, far from here), and
an object where an object is expected.

Every refusal is a ``JsonError``: ``str()`` is ``"<source>: <problem>"``, where the source is
whatever the caller names (a topic, ``file line N``, a serial line). It also keeps the parts
(``kind``, ``line``, ``column``, ``value``) for a caller whose messages have their own long
established wording.

Standard library only: the office's pure parts, the display and the core's neighbours
import it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

MAX_BYTES = 64 * 1024  # an MQTT message or one line: a real one is a few kB at most
# A match record is 4 levels deep. Far deeper JSON parses, but could hit Python's recursion
# limit later, deeper in some other call stack (storing, the page, the display).
MAX_DEPTH = 32

Kind = Literal["too_big", "not_utf8", "syntax", "not_json", "too_deep", "surrogate",
               "not_object"]


class JsonError(ValueError):
    """Input that is not the JSON we accept; ``str()`` is ``"<source>: <problem>"`` (just the
    problem when the source is empty)."""

    def __init__(self, source: str, kind: Kind, problem: str, *, line: int | None = None,
                 column: int | None = None, detail: str = "", value: Any = None) -> None:
        super().__init__(f"{source}: {problem}" if source else problem)
        self.source = source
        self.kind: Kind = kind
        self.problem = problem
        self.line = line  # 1-based, for a syntax error
        self.column = column
        self.detail = detail  # the decoder's own words for a syntax error
        self.value = value  # what was there instead of an object, for "not_object"


@dataclass(frozen=True, slots=True)
class Limits:
    max_bytes: int = MAX_BYTES
    max_depth: int = MAX_DEPTH


DEFAULT = Limits()


def kind_of(value: Any) -> str:
    """A JSON value's kind in words, for messages ("got a list")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__  # a Decimal from parse_float, say


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def loads(data: bytes | str, source: str = "", *, limits: Limits = DEFAULT,
          parse_float: Callable[[str], Any] | None = None) -> Any:
    """One JSON value from ``data``, or a ``JsonError`` naming ``source`` and the problem."""
    size = len(data)  # a str's length in characters: never more than its UTF-8 bytes
    if size > limits.max_bytes:
        raise JsonError(source, "too_big",
                        f"{size} bytes, over the {limits.max_bytes}-byte limit")
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise JsonError(source, "not_utf8", f"not UTF-8 text (byte {err.start + 1})",
                            column=err.start + 1) from None
    else:
        text = data
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=parse_float)
    except json.JSONDecodeError as err:
        where = (f"line {err.lineno} column {err.colno}" if "\n" in text.rstrip("\n")
                 else f"column {err.colno}")
        raise JsonError(source, "syntax", f"not JSON ({err.msg} at {where})",
                        line=err.lineno, column=err.colno, detail=err.msg) from None
    except RecursionError:  # [[[[... a few thousand deep
        raise JsonError(source, "too_deep", "not JSON (nested too deeply)") from None
    except ValueError as err:  # NaN, Infinity, an integer of thousands of digits
        raise JsonError(source, "not_json", f"not JSON ({err})") from None
    _walk(value, source, limits.max_depth)
    return value


def load_object(data: bytes | str, source: str = "", *, limits: Limits = DEFAULT,
                parse_float: Callable[[str], Any] | None = None,
                expected: str = "a JSON object") -> dict[str, Any]:
    """As ``loads``, where only an object will do (``expected`` says which, in words)."""
    value = loads(data, source, limits=limits, parse_float=parse_float)
    return expect_object(value, source, expected)


def expect_object(value: Any, source: str = "", expected: str = "a JSON object"
                  ) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise JsonError(source, "not_object", f"must be {expected}, got {kind_of(value)}",
                        value=value)
    return value


def _walk(value: Any, source: str, max_depth: int) -> None:
    """Depth and lone surrogates, iteratively (no recursion limit of our own)."""
    todo: list[tuple[Any, int]] = [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, str):
            _check_text(item, source)
        elif isinstance(item, dict | list):
            if level > max_depth:
                raise JsonError(source, "too_deep", f"nested more than {max_depth} levels deep")
            if isinstance(item, dict):
                for key, inner in item.items():
                    _check_text(key, source)
                    todo.append((inner, level + 1))
            else:
                todo.extend((inner, level + 1) for inner in item)


def _check_text(text: str, source: str) -> None:
    if text.isascii():
        return  # the common case, and cheap
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise JsonError(source, "surrogate", "contains a string that is not valid Unicode "
                        "(a lone surrogate)") from None
