"""Revisions: how what the office keeps between refreshes says that it changed.

The service, the page cache and the page's lists keep what they made of a ledger and make
again only what changed. They tell what changed by a revision, not by the identity of an
object: a revision is a stamp drawn from one counter of the process, so two parts with
the same stamp are the same value, whichever fold (or ``build_from``) made them, and a new
value always has a new stamp. What is kept is handed out read-only (frozen dataclasses,
tuples, ``MappingProxyType``), so a part cannot change under its stamp.

A ledger made from scratch (``ledger.build_from``) has a new stamp for everything: whoever
reads it next makes everything again. The fold (``office.views.fold``) stamps anew only
the parts, matches, tables and pairings it changed (tests/office/test_fold.py checks that
a kept stamp is a kept value and a changed value a new stamp, after every step).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

_STAMPS = itertools.count(1)  # next() is atomic under the GIL: stamps are never repeated

NONE: Mapping[str, int] = MappingProxyType({})


def stamp() -> int:
    """A revision no value had before."""
    return next(_STAMPS)


@dataclass(frozen=True, slots=True)
class Revisions:
    """The revisions of one ledger's parts.

    ``stamp``: the revision of every part not named in the maps (a ledger from scratch
    names none: all of it is new). ``parts``: by ledger field name (``"suspensions"``,
    ``"pairings"``: the whole mapping); ``matches``, ``tables``, ``pairings``: of each
    match's view, each group's table and each match's pairing."""

    stamp: int = field(default_factory=stamp)
    parts: Mapping[str, int] = field(default_factory=lambda: NONE)
    matches: Mapping[str, int] = field(default_factory=lambda: NONE)
    tables: Mapping[str, int] = field(default_factory=lambda: NONE)
    pairings: Mapping[str, int] = field(default_factory=lambda: NONE)

    def part(self, name: str) -> int:
        return self.parts.get(name, self.stamp)

    def match(self, match: str) -> int:
        return self.matches.get(match, self.stamp)

    def table(self, group: str) -> int:
        return self.tables.get(group, self.stamp)

    def pairing(self, match: str) -> int:
        return self.pairings.get(match, self.stamp)


def frozen(mapping: Mapping[str, object]) -> Mapping[str, object]:
    """``mapping`` read-only (the very proxy when it is one already)."""
    return mapping if isinstance(mapping, MappingProxyType) else MappingProxyType(mapping)
