"""One way to read TOML: text to a dict, and typed reading of its tables.

Every TOML file the project reads (presets, tournament files, the hall's config, the console
map, the link config) goes through here, so every mistake is reported the same way:
``SOURCE: KEY.PATH: problem``. The error class is the caller's (``PresetError``,
``TournamentError``, ``ConfigError``...), so each caller keeps its own exception type.

Pure: parsing text is computation. Reading the file is the shell's job.
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

# An error class: called with the whole message.
ErrorClass = Callable[[str], Exception]

MISSING: Any = object()
"""The default of a getter whose key is required."""


def parse_toml(text: str, source: str, error: ErrorClass) -> dict[str, Any]:
    """TOML text as a dict; a syntax error names ``source`` and the line (and column)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise error(f"{source}: not valid TOML: {err}") from err


class Table:
    """A TOML table being read.

    Typed getters name the key on error; ``done`` reports the first key nobody read (a typo
    must not silently become a default). With ``keys``, unknown keys are refused up front,
    before any "missing" error, with the nearest known key as a hint, so a misspelt key is
    reported as what it is rather than as the key it was meant to be.

    ``where`` is the key path of this table with a trailing dot (``"clock."``, ``""`` at the
    top), prefixed to every key an error names. ``entries`` names what the keys are in
    errors ("key"; "table" for a file of tables).
    """

    def __init__(self, data: Mapping[str, Any], source: str, error: ErrorClass, *,
                 where: str = "", keys: Sequence[str] | None = None,
                 entries: str = "key") -> None:
        self.data = data
        self.source = source
        self.where = where
        self._error = error
        self._entries = entries
        self._read: set[str] = set()
        if keys is not None:
            for key in data:
                if key not in keys:
                    raise self.unknown(key, keys)

    # ---------------------------------------------------------------- errors

    def error(self, key: str, problem: str) -> Exception:
        return self._error(f"{self.source}: {self.where}{key}: {problem}")

    def unknown(self, key: str, keys: Sequence[str] = ()) -> Exception:
        close = difflib.get_close_matches(key, list(keys), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return self.error(key, f"unknown {self._entries} (misspelt?){hint}")

    # ---------------------------------------------------------------- getters

    def get(self, key: str, default: Any = MISSING) -> Any:
        """The raw value (any type, for the caller to check); ``default`` if absent."""
        self._read.add(key)
        if key in self.data:
            return self.data[key]
        if default is MISSING:
            raise self.error(key, "missing")
        return default

    value = get

    def string(self, key: str, default: Any = MISSING, *, exact: bool = False) -> str:
        """A non-empty string; ``exact``: no leading or trailing spaces either (names that
        other entries refer to by their exact text)."""
        value = self.get(key, default)
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"must be a non-empty string, got {value!r}")
        if exact and value != value.strip():
            raise self.error(key, f"{value!r} has leading or trailing spaces")
        return value

    def text(self, key: str, default: Any = MISSING) -> str:
        """Any string, empty allowed."""
        value = self.get(key, default)
        if not isinstance(value, str):
            raise self.error(key, f"must be a string, got {value!r}")
        return value

    def optional_string(self, key: str) -> str | None:
        """A non-empty string, or None if the key is absent."""
        if key not in self.data:
            self._read.add(key)
            return None
        return self.string(key)

    def matching(self, key: str, pattern: re.Pattern[str], what: str,
                 default: Any = MISSING) -> str:
        """A string matching ``pattern`` whole; ``what`` it must be, for the error
        (``"a valid name (1-64 of A-Z a-z 0-9 _ . -)"``)."""
        value = self.string(key, default)
        if not pattern.fullmatch(value):
            raise self.error(key, f"{value!r} is not {what}")
        return value

    def choice(self, key: str, options: Sequence[str], default: Any = MISSING) -> str:
        value = self.get(key, default)
        if not isinstance(value, str) or value not in options:
            raise self.error(key, f"must be one of {', '.join(options)}, got {value!r}")
        return value

    def integer(self, key: str, *, minimum: int | None = 0, maximum: int | None = None,
                default: Any = MISSING) -> int:
        value = self.get(key, default)
        # bool is an int in Python; `periods = true` is still a mistake.
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(key, f"must be a whole number, got {value!r}")
        if (minimum is not None and value < minimum) or (maximum is not None
                                                         and value > maximum):
            lower = f"at least {minimum}" if minimum is not None else ""
            upper = f"at most {maximum}" if maximum is not None else ""
            joined = " and ".join(b for b in (lower, upper) if b)
            raise self.error(key, f"must be {joined}, got {value}")
        return value

    def optional_integer(self, key: str, *, minimum: int | None = 0,
                         maximum: int | None = None) -> int | None:
        if key not in self.data:
            self._read.add(key)
            return None
        return self.integer(key, minimum=minimum, maximum=maximum)

    def number(self, key: str, default: Any = MISSING) -> float:
        """An integer or a float (not a bool)."""
        value = self.get(key, default)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self.error(key, f"must be a number, got {value!r}")
        return float(value)

    def boolean(self, key: str, default: Any = MISSING) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, got {value!r}")
        return value

    def integers(self, key: str, *, minimum: int = 0, default: Any = MISSING) -> list[int]:
        value = self.get(key, default)
        if not isinstance(value, list):
            raise self.error(key, f"must be a list of whole numbers, got {value!r}")
        for item in value:
            if not isinstance(item, int) or isinstance(item, bool) or item < minimum:
                raise self.error(
                    key, f"every entry must be a whole number >= {minimum}, got {item!r}"
                )
        return list(value)

    def strings(self, key: str, choices: Sequence[str] | None = None,
                default: Any = MISSING) -> list[str]:
        value = self.get(key, default)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, f"must be a list of strings, got {value!r}")
        for item in value:
            if choices is not None and item not in choices:
                raise self.error(key, f"unknown value {item!r} (one of {', '.join(choices)})")
        return list(value)

    # ---------------------------------------------------------------- sub-tables

    def child(self, data: Mapping[str, Any], where: str,
              keys: Sequence[str] | None = None) -> Self:
        """A table inside this one (subclasses that carry more state override this)."""
        return type(self)(data, self.source, self._error, where=where, keys=keys)

    def table(self, key: str, keys: Sequence[str] | None = None,
              default: Any = MISSING) -> Self:
        value = self.get(key, default)
        if not isinstance(value, Mapping):
            raise self.error(key, f"must be a table, got {value!r}")
        return self.child(value, f"{self.where}{key}.", keys)

    def optional_table(self, key: str, keys: Sequence[str] | None = None) -> Self | None:
        if key not in self.data:
            self._read.add(key)
            return None
        return self.table(key, keys)

    def tables(self, key: str, keys: Sequence[str] | None = None, *, required: bool = False
               ) -> list[Self]:
        """An array of tables (``[[key]]``); ``required``: present and not empty."""
        value = self.get(key, MISSING if required else [])
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            raise self.error(key, f"must be an array of tables ([[{self.where}{key}]])")
        if required and not value:
            raise self.error(key, "is empty")
        return [self.child(v, f"{self.where}{key}[{i}].", keys) for i, v in enumerate(value)]

    # ---------------------------------------------------------------- the rest

    def has(self, key: str) -> bool:
        return key in self.data

    def key_names(self) -> list[str]:
        """The keys of this table, in file order."""
        return list(self.data)

    def done(self, known: Sequence[str] = ()) -> None:
        """Every key was read; ``known`` lists the keys a hint may point to."""
        unknown = sorted(set(self.data) - self._read)
        if unknown:
            raise self.unknown(unknown[0], known or sorted(self._read))


# ---------------------------------------------------------------- writing

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def to_toml(data: Mapping[str, Any], header: str = "") -> str:
    """``data`` (strings, whole numbers, booleans, lists and tables, as ``tomllib`` gives
    them) as TOML text that parses back to the same dict. ``header`` becomes comment lines
    at the top."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    _write_table(lines, data, ())
    return "\n".join(lines).lstrip("\n") + "\n"


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping)
                                                           for v in value)


def _write_table(lines: list[str], data: Mapping[str, Any], path: tuple[str, ...]) -> None:
    nested = [(k, v) for k, v in data.items() if isinstance(v, Mapping) or _is_table_array(v)]
    for key, value in data.items():
        if not (isinstance(value, Mapping) or _is_table_array(value)):
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in nested:
        full = (*path, key)
        name = ".".join(_key(k) for k in full)
        if isinstance(value, Mapping):
            lines += ["", f"[{name}]"]
            _write_table(lines, value, full)
        else:
            for item in value:
                lines += ["", f"[[{name}]]"]
                _write_table(lines, item, full)


def toml_value(value: Any) -> str:
    """One value as TOML writes it (``[120, 120]``, ``"chosen"``, ``{win = 2}``)."""
    return _value(value)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        # A JSON string is a TOML basic string: the same escapes (TOML also escapes DEL).
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {value!r} as TOML")
