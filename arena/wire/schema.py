"""A payload's fields as a table: one declaration from which its check and its builder both
derive, so what a builder writes is what a checker takes.

A ``Schema`` is an object's fields in the order they are checked. Keys it does not declare
are ignored (a newer minor version may add some, docs/developer.md 4.4); a declared one that is
missing, mistyped or out of range is refused naming the field and where it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from arena.safejson import kind_of

from . import fields as f
from .limits import LIMITS


class Kind(Enum):
    """What a field holds, and so which check reads it."""

    INT = "an integer"
    TEXT = "a string"  # held to the limits' text rules
    STRING = "any string"  # only its type checked (a wall time, a boot id)
    CHOICE = "one of a few strings"
    SIDE = "'home' or 'away'"
    BOOL = "true or false"
    OBJECT = "an object"
    ITEMS = "a list of objects"


class Presence(Enum):
    REQUIRED = "required"  # missing is refused
    OPTIONAL = "optional"  # may be absent; checked when present
    NULLABLE = "nullable"  # may be absent or null
    PRESENT = "present"  # must be there, may be null


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    kind: Kind
    presence: Presence = Presence.REQUIRED
    minimum: int = 0
    maximum: int = LIMITS.int64 - 1
    choices: tuple[str, ...] = ()
    nonempty: bool = False
    plain: bool = False  # a CHOICE read as any string first
    schema: Schema | None = None  # an OBJECT's fields, or each of the ITEMS'
    hint: str = ""  # said when a PRESENT field is missing

    def check(self, topic: str, doc: Mapping[str, Any], where: str) -> None:
        """This field of ``doc`` (the object at ``where``), or refuse it."""
        name, at = self.name, f"{where}{self.name}."
        if name not in doc:
            if self.presence in (Presence.REQUIRED, Presence.PRESENT):
                f.refuse(topic, f"'{where}{name}' is missing{self.hint}")
            return
        value = doc[name]
        if value is None and self.presence in (Presence.NULLABLE, Presence.PRESENT):
            return
        nullable = self.presence in (Presence.NULLABLE, Presence.PRESENT)
        if self.kind is Kind.INT:
            f.integer(topic, doc, name, self.minimum, where=where, maximum=self.maximum)
        elif self.kind is Kind.TEXT:
            f.text(topic, doc, name, where=where, nonempty=self.nonempty)
        elif self.kind is Kind.STRING:
            if nullable:
                f.opt_str(topic, doc, name, where=where)
            else:
                f.get(topic, doc, name, str, "a string", where=where)
        elif self.kind is Kind.CHOICE:
            f.choice(topic, doc, name, self.choices, where=where, plain=self.plain)
        elif self.kind is Kind.SIDE:
            if nullable and value not in f.SIDES:
                f.refuse(topic, f"'{where}{name}' must be 'home', 'away' or null, got "
                                f"{f.show(value)}")
            f.side(topic, doc, name, where=where)
        elif self.kind is Kind.BOOL:
            f.boolean(topic, doc, name, False, where=where)
        elif self.kind is Kind.OBJECT:
            if nullable and not isinstance(value, dict):
                f.refuse(topic, f"'{where}{name}' must be an object or null, got "
                                f"{kind_of(value)}")
            inner = f.get(topic, doc, name, dict, "an object", where=where)
            if self.schema is not None:
                self.schema.check(topic, inner, at)
        else:
            for i, item in enumerate(f.items(topic, doc, name, where)):
                if self.schema is not None:
                    self.schema.check(topic, item, f"{where}{name}[{i}].")


@dataclass(frozen=True, slots=True)
class Schema:
    """An object's declared fields, in the order they are checked."""

    fields: tuple[Field, ...]
    names: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", frozenset(x.name for x in self.fields))

    def check(self, topic: str, doc: Mapping[str, Any], where: str = "") -> None:
        for x in self.fields:
            x.check(topic, doc, where)

    def build(self, **values: Any) -> dict[str, Any]:
        """The object, its keys in declared order; a key the schema does not declare, or a
        required one not given, is a bug in the builder (TypeError), never sent."""
        unknown = set(values) - self.names
        if unknown:
            raise TypeError(f"undeclared field(s): {', '.join(sorted(unknown))}")
        missing = [x.name for x in self.fields
                   if x.presence in (Presence.REQUIRED, Presence.PRESENT)
                   and x.name not in values]
        if missing:
            raise TypeError(f"missing field(s): {', '.join(missing)}")
        return {x.name: values[x.name] for x in self.fields if x.name in values}


EMPTY = Schema(())
