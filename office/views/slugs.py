"""The public site's addresses: ``team/<slug>/``, ``hall/<slug>/``, ``category/<slug>/``.

A slug is the name reduced to ``a-z 0-9 -`` (a file name on any file system, a URL without
escaping); names that reduce to the same slug are told apart by a number (``lions``,
``lions-2``). Once published, a slug is kept for good: the service keeps each one in its
store the first time the schedule that has it is in force (``Store.add_slugs``) and hands
the site the kept ones in its snapshot, so a reload that adds, renames or removes a team
never renumbers another's link that was shared; a newcomer gets the next free number,
never one that was ever taken (a team removed keeps its slug, should it come back).

Pure: standard library and the project's pure modules only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.tournament.event import Event

TEAM, HALL, CATEGORY = "team", "hall", "category"
KINDS = (TEAM, HALL, CATEGORY)
MAX_LEN = 80  # a name's 60 characters and a number: what a kept slug may be
_SAFE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True, slots=True)
class Named:
    """What has a page: a team (of its category, in an event of several: names repeat
    across categories), a hall or a category."""

    kind: str
    category: str | None
    name: str

    def label(self) -> str:
        """The text its slug is made of: a team in a category is prefixed by it."""
        return self.name if self.category is None else f"{self.category} {self.name}"


def slug(name: str) -> str:
    """``name`` as ``a-z 0-9 -`` ("Střešovice B" -> "stresovice-b"); "x" if nothing is left."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    out = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    return out[:60].strip("-") or "x"


def safe(text: object) -> bool:
    """Whether ``text`` can be a slug: a path level that needs no escaping, never ``..``."""
    return isinstance(text, str) and len(text) <= MAX_LEN and _SAFE.fullmatch(text) is not None


def assign(wanted: Iterable[Named], kept: Mapping[Named, str]) -> dict[Named, str]:
    """A slug for each of ``wanted``, in order: its kept one, else its name's, numbered
    past every slug of its kind that is kept or given here (a clash gets -2, -3, ...)."""
    taken: dict[str, set[str]] = {}
    for named, s in kept.items():
        taken.setdefault(named.kind, set()).add(s)
    out: dict[Named, str] = {}
    for named in wanted:
        if named in out:
            continue
        found = kept.get(named)
        if found is None:
            used = taken.setdefault(named.kind, set())
            base = found = slug(named.label())
            n = 1
            while found in used:
                n += 1
                found = f"{base}-{n}"
            used.add(found)
        out[named] = found
    return out


def of_event(event: Event) -> list[Named]:
    """Every team, hall and category of ``event`` that the site may show, in the file's
    order (a category level only in an event of several)."""
    out: list[Named] = []
    for c in event.categories:
        category = None if event.plain else c.name
        teams = [t for g in c.tournament.groups for t in g.teams]
        out += [Named(TEAM, category, t) for t in dict.fromkeys([*teams, *c.tournament.teams])]
    out += [Named(HALL, None, h) for h in event.halls()]
    if not event.plain:
        out += [Named(CATEGORY, None, c.name) for c in event.categories]
    return out


def to_json(slugs: Mapping[Named, str]) -> list[dict[str, Any]]:
    """The slugs as the snapshot carries them (``from_json`` reads them)."""
    return [{"kind": n.kind, "category": n.category, "name": n.name, "slug": s}
            for n, s in slugs.items()]


def from_json(value: Any) -> dict[Named, str]:
    """The slugs a snapshot carries; an odd entry, an unsafe slug, or one given twice (the
    first counts) is dropped, never an error: the site then makes that page's slug itself."""
    out: dict[Named, str] = {}
    seen: set[tuple[str, str]] = set()
    for item in value if isinstance(value, list) else ():
        if not isinstance(item, Mapping):
            continue
        kind, category, name, s = (item.get(k) for k in ("kind", "category", "name", "slug"))
        if kind not in KINDS or not isinstance(name, str) or not safe(s) \
                or not (category is None or isinstance(category, str)):
            continue
        named = Named(str(kind), category, name)
        if named in out or (str(kind), str(s)) in seen:
            continue
        seen.add((str(kind), str(s)))
        out[named] = str(s)
    return out
