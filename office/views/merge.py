"""Where an event's categories meet: each is folded by its own ``Ledger``, unchanged; here
their views are put together for what is shared: a hall's next match across
every category, and the standings topics with their category level.

Pure: ledgers in, values out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from arena import wire
from arena.tournament.event import Category, Event
from arena.tournament.model import ScheduledMatch
from office.views.ledger import Ledger


def next_for_hall(event: Event, ledgers: Mapping[str, Ledger], hall: str
                  ) -> tuple[Category, ScheduledMatch] | None:
    """The hall's next match across the categories: each category's own next in that hall
    (``Ledger.next_for_hall``), the earliest start winning; at the same start the category
    first in the file."""
    best: tuple[Category, ScheduledMatch] | None = None
    for category in event.categories:
        m = ledgers[category.name].next_for_hall(hall)
        if m is not None and (best is None or m.start < best[1].start):
            best = (category, m)
    return best


def next_match(event: Event, ledgers: Mapping[str, Ledger], hall: str) -> wire.Next | None:
    """The hall's retained ``next``: what its match's category's ledger says of it, with the
    category named when the event has a category level (so the hall shows its tables)."""
    found = next_for_hall(event, ledgers, hall)
    if found is None:
        return None
    category, _ = found
    upcoming = ledgers[category.name].next_match(hall)
    level = event.level(category)
    if upcoming is None or level is None:
        return upcoming
    return replace(upcoming, category=level)


def standings(event: Event, ledgers: Mapping[str, Ledger]) -> list[tuple[str, wire.Standings]]:
    """Every group table of every category with its retained topic: ``standings/<group>``
    for a plain tournament file, ``standings/<category>/<group>`` in an event file."""
    return [group_standings(event, category, ledgers[category.name], group.name)
            for category in event.categories for group in category.tournament.groups]


def group_standings(event: Event, category: Category, ledger: Ledger, group: str
                    ) -> tuple[str, wire.Standings]:
    """One group's table with its retained topic (``standings``)."""
    level = event.level(category)
    table = ledger.standings(group)
    if level is not None:
        table = replace(table, category=level)
    return wire.standings_topic(event.id, group, level), table
