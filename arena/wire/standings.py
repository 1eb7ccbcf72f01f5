"""The office's retained ``standings/[<category>/]<group>``: one group's table as it ranks
it, read by every hall's display between games."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.safejson import kind_of

from . import fields as f
from .fields import encode
from .limits import LIMITS
from .topics import ROOT, STANDINGS, VERSION, route


class St:
    """The keys of a ``standings`` document, of a table and of its rows (with ``FIGURES``)."""

    GROUP = "group"
    CATEGORY = "category"  # optional: in an event of several categories
    TOURNAMENT = "tournament"
    NAME = "name"
    PROVISIONAL = "provisional"
    COMPLETE = "complete"
    ROWS = "rows"
    TEAM = "team"
    RANK = "rank"
    PENALTY_MINUTES = "penalty_minutes"
    DECIDED_BY = "decided_by"
    LOTS_NEEDED = "lots_needed"



# The figures of a table row, in the order a table shows them: what the hall's display
# reads between games, and what every row must carry.
FIGURES = ("played", "won", "drawn", "lost", "goals_for", "goals_against", "points")


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a group table."""

    team: str
    played: int
    won: int
    drawn: int
    lost: int
    goals_for: int
    goals_against: int
    points: int
    rank: int | None = None
    penalty_minutes: int | None = None
    decided_by: str | None = None  # the criterion that placed it above the next row
    lots_needed: bool = False

    def figures(self) -> dict[str, int]:
        return {k: int(getattr(self, k)) for k in FIGURES}

    @classmethod
    def of(cls, team: str, figures: Mapping[str, int]) -> Row:
        """A row from a team and its figures (every one of ``FIGURES``)."""
        return cls(team, figures["played"], figures["won"], figures["drawn"], figures["lost"],
                   figures["goals_for"], figures["goals_against"], figures["points"])


@dataclass(frozen=True, slots=True)
class Standings:
    """The retained ``standings/<group>``: one group's table as the office ranks it."""

    group: str
    rows: tuple[Row, ...]
    tournament: str | None = None
    provisional: bool = False  # counts a result not yet confirmed
    complete: bool = False  # every group match has a result
    category: str | None = None  # in an event of several categories (its topic level)


def row_document(row: Row) -> dict[str, Any]:
    """A row as JSON (also the office page's and ``office standings --json``'s rows)."""
    return {St.RANK: row.rank, St.TEAM: row.team, **row.figures(),
            St.PENALTY_MINUTES: row.penalty_minutes, St.DECIDED_BY: row.decided_by,
            St.LOTS_NEEDED: row.lots_needed}


def table_document(group: str, rows: tuple[Row, ...], provisional: bool, complete: bool
                   ) -> dict[str, Any]:
    """A group table as JSON, without the tournament (the page and the CLI show it so)."""
    return {St.NAME: group, St.PROVISIONAL: provisional, St.COMPLETE: complete,
            St.ROWS: [row_document(r) for r in rows]}


def standings_document(s: Standings) -> dict[str, Any]:
    doc = {St.GROUP: s.group, St.TOURNAMENT: s.tournament,
           **table_document(s.group, s.rows, s.provisional, s.complete)}
    if s.category is not None:  # absent for one category: its documents stay as they were
        doc[St.CATEGORY] = s.category
    return doc


def build_standings(s: Standings) -> bytes:
    return encode(standings_document(s))


def between_table(s: Standings) -> dict[str, Any]:
    """The part of a table the hall's display shows between games (``display.document``'s
    ``tables[]`` entry): the group and each row's team and figures."""
    return {St.GROUP: s.group, St.ROWS: [{St.TEAM: r.team, **r.figures()} for r in s.rows]}


def check_standings(topic: str, payload: bytes, tournament: str | None = None) -> Standings:
    """A retained ``standings/<group>``; the group must be the topic's (when ``tournament``
    is given, the topic is checked too)."""
    if tournament is not None:
        found = route(topic, tournament)
        if found is None or found.kind != STANDINGS:
            f.refuse(topic, f"not a topic of the form {ROOT}/{VERSION}/{tournament}/"
                           f"{STANDINGS}/<group> (or {STANDINGS}/<category>/<group>)")
    doc = f.parse_object(topic, payload)
    group = f.get(topic, doc, St.GROUP, str, "a group name")
    category = f.opt_category(topic, doc, St.CATEGORY)
    levels = topic.split(f"/{STANDINGS}/", 1)[1].split("/") if f"/{STANDINGS}/" in topic \
        else None
    if levels is not None and group != levels[-1]:
        f.refuse(topic, f"'{St.GROUP}' {group!r} is not the topic's group {levels[-1]!r}")
    if levels is not None and category != (levels[0] if len(levels) == 2 else None):
        want = repr(levels[0]) if len(levels) == 2 else "none"
        f.refuse(topic, f"'{St.CATEGORY}' {category!r} is not the topic's category ({want})")
    rows = tuple(_row(topic, raw, i) for i, raw in enumerate(f.listed(topic, doc, St.ROWS)))
    return Standings(group=group, rows=rows, tournament=f.opt_str(topic, doc, St.TOURNAMENT),
                     provisional=f.boolean(topic, doc, St.PROVISIONAL, False),
                     complete=f.boolean(topic, doc, St.COMPLETE, False), category=category)


def _row(topic: str, raw: Any, i: int) -> Row:
    where = f"{St.ROWS}[{i}]."
    if not isinstance(raw, dict):
        f.refuse(topic, f"'{St.ROWS}[{i}]' must be an object, got {kind_of(raw)}")
    team = f.get(topic, raw, St.TEAM, str, "a team name", where=where)
    # Points may go below zero where a preset deducts them (a forfeit, say); counts may not.
    figures = {k: f.integer(topic, raw, k, -LIMITS.int64 if k == "points" else 0, where=where)
               for k in FIGURES}
    rank = raw.get(St.RANK)
    pim = raw.get(St.PENALTY_MINUTES)
    for name, value in ((St.RANK, rank), (St.PENALTY_MINUTES, pim)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            f.refuse(topic, f"'{where}{name}' must be an integer or null, got {kind_of(value)}")
    return Row(team=team, **figures, rank=rank, penalty_minutes=pim,
               decided_by=f.opt_str(topic, raw, St.DECIDED_BY, where=where),
               lots_needed=f.boolean(topic, raw, St.LOTS_NEEDED, False, where=where))
