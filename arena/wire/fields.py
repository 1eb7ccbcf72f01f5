"""What every check of a payload shares: the error, the JSON encoding, and the checks of
one field, each naming the field and where it is (``'data.record.teams.home' ...``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NoReturn

from arena.safejson import JsonError, expect_object, kind_of, loads

from .limits import LIMITS

SIDES = ("home", "away")
STAGES = ("group", "playoff")


class WireError(ValueError):
    """A message that cannot be used; ``str()`` is ``"<topic>: <reason>"``."""

    def __init__(self, topic: str, reason: str) -> None:
        super().__init__(f"{topic}: {reason}")
        self.topic = topic
        self.reason = reason


def refuse(topic: str, reason: str) -> NoReturn:
    raise WireError(topic, reason)


def encode(doc: Mapping[str, Any]) -> bytes:
    """The one JSON encoding of every document we publish: compact, keys sorted (equal
    documents give equal bytes, so an unchanged retained document is not sent again)."""
    return json.dumps(doc, separators=(",", ":"), sort_keys=True, allow_nan=False,
                      ensure_ascii=False).encode("utf-8")


def parse_object(topic: str, payload: bytes) -> dict[str, Any]:
    try:
        return expect_object(loads(payload, topic))
    except JsonError as err:
        refuse(topic, err.problem)


def show(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def get(topic: str, doc: Mapping[str, Any], name: str, kind: type[Any], wanted: str, *,
        where: str = "") -> Any:
    if name not in doc:
        refuse(topic, f"'{where}{name}' is missing")
    value = doc[name]
    # bool is a subclass of int in Python, but `true` is not a number here
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        refuse(topic, f"'{where}{name}' must be {wanted}, got {kind_of(value)} {show(value)}")
    return value


def integer(topic: str, doc: Mapping[str, Any], name: str, minimum: int, *, where: str = "",
            maximum: int = LIMITS.int64 - 1) -> int:
    value: int = get(topic, doc, name, int, "an integer", where=where)
    if not minimum <= value <= maximum:
        if maximum >= LIMITS.int64 - 1:
            refuse(topic, f"'{where}{name}' must be an integer from {minimum} up, got "
                          f"{show(value)}")
        refuse(topic, f"'{where}{name}' must be an integer from {minimum} to {maximum}, got "
                      f"{show(value)}")
    return value


def opt_str(topic: str, doc: Mapping[str, Any], name: str, *, where: str = "") -> str | None:
    value = doc.get(name)
    if value is not None and not isinstance(value, str):
        refuse(topic, f"'{where}{name}' must be a string or null, got {kind_of(value)}")
    return value


def boolean(topic: str, doc: Mapping[str, Any], name: str, default: bool, *,
            where: str = "") -> bool:
    value = doc.get(name, default)
    if not isinstance(value, bool):
        refuse(topic, f"'{where}{name}' must be true or false, got {kind_of(value)}")
    return value


def listed(topic: str, doc: Mapping[str, Any], name: str, *, where: str = "") -> list[Any]:
    value: list[Any] = get(topic, doc, name, list, "a list", where=where)
    return value


def items(topic: str, doc: Mapping[str, Any], name: str, where: str) -> list[dict[str, Any]]:
    """A list of objects (goals, penalties, shots), at most ``items_max`` of them."""
    found = listed(topic, doc, name, where=where)
    if len(found) > LIMITS.items_max:
        refuse(topic, f"'{where}{name}' has {len(found)} items, more than {LIMITS.items_max}")
    for i, item in enumerate(found):
        if not isinstance(item, dict):
            refuse(topic, f"'{where}{name}[{i}]' must be an object, got {kind_of(item)}")
    return found


def side(topic: str, doc: Mapping[str, Any], name: str, *, where: str) -> str:
    value: str = get(topic, doc, name, str, "'home' or 'away'", where=where)
    if value not in SIDES:
        refuse(topic, f"'{where}{name}' must be 'home' or 'away', got {show(value)}")
    return value


def text(topic: str, doc: Mapping[str, Any], name: str, *, where: str = "",
         nonempty: bool = False) -> str:
    """A string of an event, within the limits' text rules (``Limits.text_problem``)."""
    value: str = get(topic, doc, name, str, "a string", where=where)
    if len(value) > LIMITS.text_chars:
        refuse(topic, f"'{where}{name}' is {len(value)} characters, more than "
                      f"{LIMITS.text_chars}")
    if nonempty and not value.strip():
        refuse(topic, f"'{where}{name}' must not be empty")
    if LIMITS.forbidden(value) is not None:
        refuse(topic, f"'{where}{name}' contains a control character")
    return value


def choice(topic: str, doc: Mapping[str, Any], name: str, allowed: tuple[str, ...], *,
           where: str, plain: bool = False) -> str:
    """One of ``allowed``; ``plain``: any string first (not held to the text rules)."""
    value: str = (get(topic, doc, name, str, "a string", where=where) if plain
                  else text(topic, doc, name, where=where))
    if value not in allowed:
        refuse(topic, f"'{where}{name}' must be one of {', '.join(allowed)}, got {show(value)}")
    return value


def opt_category(topic: str, doc: Mapping[str, Any], key: str) -> str | None:
    """An optional category: absent or null, else a name (it is a topic level)."""
    value = doc.get(key)
    if value is not None and not LIMITS.is_name(value):
        refuse(topic, f"'{key}' must be a category name ({LIMITS.name_rule}), got "
                      f"{show(value)}")
    return value
