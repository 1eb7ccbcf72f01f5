"""One event, several categories, shared halls.

An event is what one office runs: one topic tree (``wire.tournament_root(<event id>)``),
one store, the halls. Each category is a ``Tournament`` of its own (its preset(s), groups,
standings rules, bracket and placings; team and group names unique within it) folded by its own,
unchanged ``Ledger``; the service merges them only where they meet: a hall's ``next`` (the
earliest match across categories), the standings topics, the page.

Pure: ``parse_event`` takes ``tomllib`` output and a way to read an included category file;
reading files is ``arena.tournament.files``. A plain tournament file is a one-category event
(``Event.single``): its topics and documents stay exactly as they were.

The format (examples/tournaments/README.md, "Events")::

    [event]
    name = "Floorball Cup 2026"
    id = "floorball-cup"                 # the topic level of the whole event
    include = ["u11.toml", "u13.toml"]   # category files, relative to this one

    [[categories]]                       # and/or inline, each a tournament file's table
    id = "U9"                            # the category: a topic level (standings/U9/A)
    name = "U9"
    preset = "floorball-u9-2x10"
    ...

Match ids must be unique across the whole event, and a file that reuses one is refused,
naming both categories: a hall journals, numbers and reports its events by match id only
(``<hall>:<match>:<seq>``, its state folder's ``<match>.journal``), so qualifying ids in the
office alone would not keep two categories' events apart on a hall that plays both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from arena import wire, words
from arena.core.tables import Table

from .model import ScheduledMatch, Tournament
from .reader import TournamentError, title

_TOP_KEYS = ("event", "categories")
_EVENT_KEYS = ("name", "id", "include", "language")


@dataclass(frozen=True, slots=True)
class Category:
    """One category of an event: its name (a topic level) and its tournament, whose ``id``
    is the event's (the topic root every category shares)."""

    name: str
    title: str  # what a person reads ("U11 boys"): the category file's ``name``
    tournament: Tournament
    source: str  # the file (or file and key) it was read from, for messages


@dataclass(frozen=True, slots=True)
class Event:
    id: str
    name: str
    categories: tuple[Category, ...]
    # A plain tournament file: no category level in topics or documents (as before events).
    plain: bool = False
    # What the public reads is in this language (arena.words.LANGUAGES): the event
    # file's [event] language, a plain tournament file's top-level one.
    language: str = words.DEFAULT

    @classmethod
    def single(cls, tournament: Tournament) -> Event:
        """A plain tournament file as a one-category event."""
        return cls(tournament.id, tournament.name,
                   (Category(tournament.id, tournament.name, tournament, tournament.name),),
                   plain=True, language=tournament.language)

    def schedule(self) -> tuple[tuple[Category, ScheduledMatch], ...]:
        """Every match of every category in start order; matches starting together keep the
        file's order (categories in file order, then each category's own order)."""
        every = [(c, m) for c in self.categories for m in c.tournament.matches]
        return tuple(sorted(every, key=lambda cm: cm[1].start))  # stable

    def halls(self) -> tuple[str, ...]:
        """Every hall of the event, in the order of their first match."""
        return tuple(dict.fromkeys(m.hall for _, m in self.schedule()))

    def match(self, match_id: str) -> ScheduledMatch | None:
        found = self.category_of(match_id)
        return None if found is None else found.tournament.match(match_id)

    def category_of(self, match_id: str) -> Category | None:
        """The category a match id belongs to (ids are unique across the event)."""
        for c in self.categories:
            if c.tournament.match(match_id) is not None:
                return c
        return None

    def category(self, name: str) -> Category | None:
        for c in self.categories:
            if c.name == name:
                return c
        return None

    def level(self, category: Category) -> str | None:
        """The category level of a category's topics and documents; None for a plain
        tournament file, whose topics stay ``standings/<group>``."""
        return None if self.plain else category.name


# Parses one category's table (a tournament file's keys) into a Tournament; the shell
# supplies it with the presets the table names (arena.tournament.files).
ParseCategory = Callable[[Mapping[str, Any], str], Tournament]
# Reads an included file: its parsed TOML and the name to show for it.
ReadInclude = Callable[[str, str], tuple[Mapping[str, Any], str]]


def is_event(data: Mapping[str, object]) -> bool:
    """An event file has an ``[event]`` table (or ``[[categories]]``); else it is a plain
    tournament file."""
    return "event" in data or "categories" in data


def parse_event(data: Mapping[str, Any], source: str, parse: ParseCategory,
                read: ReadInclude) -> Event:
    """Validate an event file: its ``[event]`` table, its included and inline categories,
    and what they share (unique category names and match ids, one match at a time in a
    hall)."""
    top = Table(data, source, TournamentError, keys=_TOP_KEYS)
    if "event" not in data:
        raise TournamentError(f"{source}: an event file needs an [event] table "
                              "(name, id, include)")
    head = top.table("event", _EVENT_KEYS)
    name = title(head, "name", "the event's")
    # the event's id is the topic level of every category (the wire's limits)
    event_id = head.matching("id", wire.LIMITS.name_pattern,
                             f"a valid name ({wire.LIMITS.name_rule})")
    language = head.choice("language", words.LANGUAGES, words.DEFAULT)
    parsed: list[tuple[Tournament, str]] = []
    includes = head.get("include", [])
    if not isinstance(includes, list) or not all(isinstance(i, str) for i in includes):
        raise head.error("include", f"must be a list of file names, got {includes!r}")
    for i, path in enumerate(includes):
        cat_data, cat_source = read(path, f"{source}: event.include[{i}]")
        parsed.append((parse(cat_data, cat_source), cat_source))
    for i, table in enumerate(top.tables("categories")):
        # Each is a tournament file's table: parse_tournament checks its keys.
        parsed.append((parse(table.data, f"{source}: categories[{i}]"),
                       f"{source}: categories[{i}]"))
    if not parsed:
        raise TournamentError(f"{source}: the event has no category: name files in "
                              "event.include or add [[categories]]")
    categories = tuple(Category(t.id, t.name, replace(t, id=event_id), where)
                       for t, where in parsed)
    _check_shared(categories)
    return Event(event_id, name, categories, language=language)


def _check_shared(categories: tuple[Category, ...]) -> None:
    """What categories share: the event's names and ids, and the halls."""
    names: dict[str, Category] = {}
    owner: dict[str, Category] = {}
    halls: dict[tuple[str, datetime], tuple[Category, str]] = {}
    for c in categories:
        if c.name in names:
            raise TournamentError(f"{c.source}: id: category {c.name!r} is already the id of "
                                  f"{names[c.name].source}")
        names[c.name] = c
        for m in c.tournament.matches:
            if m.id in owner:
                raise TournamentError(
                    f"{c.source}: match id {m.id!r} of category {c.name} is already a match "
                    f"of category {owner[m.id].name} ({owner[m.id].source}): match ids must "
                    "be unique across the event (a hall reports its events by match id)")
            owner[m.id] = c
            other = halls.get((m.hall, m.start))
            if other is not None and other[0] is not c:
                raise TournamentError(
                    f"{c.source}: match {m.id}: {m.hall} already has match {other[1]} of "
                    f"category {other[0].name} at {m.start.isoformat(' ', 'minutes')}")
            halls[m.hall, m.start] = (c, m.id)
