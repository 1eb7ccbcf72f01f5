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
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

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


# The ledger's parts stamped by comparing them with the previous ledger's (small); the
# matches, tables and pairings are stamped by what the build says it changed of them.
_COMPARED = ("suspensions", "warnings", "next_change", "draws", "forfeits", "eliminations",
             "voided", "green_cards")
_WHOLE = ("tournament", "by_hall", "matches", "tables", "pairings", *_COMPARED)


class Stamps:
    """The revisions of one fold's ledgers (``office.views.fold``), each map made anew when
    one changes: the previous ledger's stay as they were handed out."""

    def __init__(self) -> None:
        self._last: Revisions | None = None

    def revise(self, previous: Any, built: Any, matches: Collection[str],
               tables: Collection[str], pairings: Collection[str]) -> Revisions:
        """The revisions of the ledger ``built``: ``previous``'s (the fold's last ledger,
        None after a reset: all new), a new stamp for what this build changed."""
        before = self._last
        now = stamp()
        if before is None or previous is None:
            revisions = Revisions(now, MappingProxyType(dict.fromkeys(_WHOLE, now)),
                                  MappingProxyType(dict.fromkeys(built.matches, now)),
                                  MappingProxyType(dict.fromkeys(built.tables, now)),
                                  MappingProxyType(dict.fromkeys(built.pairings, now)))
        else:
            parts = dict(before.parts)
            for name, changed in (("matches", matches), ("tables", tables),
                                  ("pairings", pairings)):
                if changed:
                    parts[name] = now
            for name in _COMPARED:
                new, old = getattr(built, name), getattr(previous, name)
                if new is not old and new != old:  # the fold hands on what it kept
                    parts[name] = now
            revisions = Revisions(before.stamp, MappingProxyType(parts),
                                  _stamped(before.matches, matches, now),
                                  _stamped(before.tables, tables, now),
                                  _stamped(before.pairings, pairings, now))
        self._last = revisions
        return revisions


def _stamped(revisions: Mapping[str, int], changed: Collection[str], now: int
             ) -> Mapping[str, int]:
    """``revisions`` with ``changed`` at ``now``: a new map, the old one as handed out."""
    if not changed:
        return revisions
    out = dict(revisions)
    out.update(dict.fromkeys(changed, now))
    return MappingProxyType(out)
