"""Changing the schedule while the event runs (rules 001 'Match schedule': "The
organizer reserves the right to change the published schedule").

Pure. Two audited office actions change it, both rows of the store's append-only ``admin``
table: ``reschedule`` (one match to another hall or start) and ``reload`` (an edited
tournament or event file, its text and its included files' kept in the row). The schedule
in force is the file the service started with, replaced by the last ``reload``, then every
``reschedule`` after it, in order (``replay``): a restart loses none of them, and the
stored events are never touched. A change that would leave stored results without their
match (the match removed, its teams or its hall changed) is refused unless forced; a forced
one is kept as such and shown as a warning for as long as it is in force.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from arena import wire
from arena.tournament.event import Category, Event
from arena.tournament.model import ScheduledMatch, TeamEntry, Tournament
from arena.tournament.reader import ScheduleProblem, check_schedule, overlap

RESCHEDULE = "reschedule"
RELOAD = "reload"
KINDS = (RESCHEDULE, RELOAD)

_HALL = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # as a tournament file's hall (a topic level)


class ScheduleError(ValueError):
    """A schedule change the office refuses; the message names the matches, teams, times."""


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between two schedules, as the office reads it out."""

    text: str  # "A3 moved: hall-1 09:00 -> hall-2 10:30"
    match: str | None = None
    # Stored results would lose their match (or their teams): refused unless forced.
    orphans: bool = False


def when(start: datetime) -> str:
    return start.isoformat(" ", "minutes")


def _pair(m: ScheduledMatch) -> str:
    return f"{m.home.text} v {m.away.text}"


def _where(m: ScheduledMatch) -> str:
    return f"{m.hall} {when(m.start)}"


# -- one match -----------------------------------------------------------------------------


def parse_start(text: str, current: datetime) -> datetime:
    """``2026-06-01 10:30`` (or ISO ``2026-06-01T10:30``), or ``10:30`` on the match's day."""
    value = text.strip()
    try:
        if re.fullmatch(r"[0-9]{1,2}:[0-9]{2}", value):
            hour, minute = (int(x) for x in value.split(":"))
            return current.replace(hour=hour, minute=minute, second=0, microsecond=0)
        start = datetime.fromisoformat(value)
    except ValueError:
        raise ScheduleError(f"--start {text!r}: expected YYYY-MM-DD HH:MM, or HH:MM on the "
                            f"match's day ({current:%Y-%m-%d})") from None
    if start.tzinfo is not None:
        raise ScheduleError(f"--start {text!r}: the tournament's local time, without a UTC "
                            "offset")
    return start


def check_hall_name(hall: str) -> str:
    if not _HALL.fullmatch(hall):
        raise ScheduleError(f"--hall {hall!r}: not a valid hall name (1-64 of A-Z a-z 0-9 _ . -)")
    try:
        return wire.check_hall(hall)
    except ValueError as err:
        raise ScheduleError(f"--hall: {err}") from None


def _moved(t: Tournament, match: str, hall: str | None, start: datetime | None
           ) -> list[ScheduledMatch]:
    m = t.match(match)
    if m is None:
        raise ScheduleError(f"no match {match!r} in the schedule (matches: "
                            f"{', '.join(x.id for x in t.matches)})")
    new = replace(m, hall=hall if hall is not None else m.hall,
                  start=start if start is not None else m.start)
    # In start order, file order on ties (as the file's): sorted() is stable.
    return sorted((new if x.id == match else x for x in t.matches), key=lambda x: x.start)


def moved(t: Tournament, match: str, hall: str | None, start: datetime | None
          ) -> Tournament:
    """The tournament with one match in another hall or at another start, unchecked: what
    the check finds is in its warnings."""
    matches = _moved(t, match, hall, start)
    found = check_schedule(matches, t.groups)
    return replace(t, matches=tuple(matches),
                   warnings=tuple(p.message() for p in (*found.errors, *found.warnings)))


def reschedule(t: Tournament, match: str, hall: str | None, start: datetime | None, *,
               started: Collection[str] = (), force: bool = False,
               shared: Sequence[ScheduledMatch] = ()) -> Tournament:
    """One match moved, checked against the rest of the schedule with the file's own checks
    (``tournament.check_schedule``). ``started``: the matches the office has events or a
    result of; moving one of those to another hall is done only with ``force`` (the office
    still takes its events from the hall playing it: ``office.storage.intake.Playing``).
    ``shared``: the other categories' matches, in the same halls."""
    if hall is None and start is None:
        raise ScheduleError("say what changes: --hall, --start or both")
    m = t.match(match)
    if m is None:
        raise ScheduleError(f"no match {match!r} in the schedule (matches: "
                            f"{', '.join(x.id for x in t.matches)})")
    if hall is not None:
        check_hall_name(hall)
    if (hall or m.hall) == m.hall and (start or m.start) == m.start:
        raise ScheduleError(f"{match} is already at {_where(m)}")
    if hall is not None and hall != m.hall and match in started and not force:
        raise ScheduleError(f"{match} has events or a result from {m.hall}: --force to move "
                            f"it anyway (kept as a forced change; {m.hall}'s events of it are "
                            "still taken until the new hall plays it)")
    matches = _moved(t, match, hall, start)
    found = check_schedule(matches, t.groups)
    after = next(x for x in matches if x.id == match)
    errors = [*found.errors,
              *(ScheduleProblem(f"{after.hall} already has match {x.id} at this time "
                                f"({x.id} {_where(x)})", match, "start")
                for x in shared if x.hall == after.hall and overlap(x, after))]
    if errors:
        raise ScheduleError(f"{match} to {_where(after)} clashes with the schedule: "
                            + "; ".join(p.message() for p in errors))
    return replace(t, matches=tuple(matches),
                   warnings=tuple(p.message() for p in found.warnings))


def reschedule_data(before: Tournament, after: Tournament, match: str, *,
                    reason: str | None, forced: bool) -> dict[str, Any]:
    """The ``reschedule`` admin row: the match's new and old hall and start."""
    old, new = before.match(match), after.match(match)
    assert old is not None and new is not None
    return {"match": match, "hall": new.hall, "start": new.start.isoformat(),
            "was": {"hall": old.hall, "start": old.start.isoformat()},
            "reason": reason, "forced": forced}


# -- two schedules -------------------------------------------------------------------------


def _diff(old: Tournament, new: Tournament, started: Collection[str], label: str
          ) -> list[Change]:
    """What changes from ``old`` to ``new``: matches added, removed, moved, re-paired;
    teams added, removed, renamed, moved between groups; the rules. ``started``: the matches
    with stored events or a result; removing one, or changing its teams or hall, orphans
    what is stored of it."""
    changes: list[Change] = []
    if new.name != old.name:
        changes.append(Change(f"tournament renamed: {old.name!r} -> {new.name!r}"))
    if new.preset != old.preset:
        changes.append(Change(f"{label}preset: {old.preset} -> {new.preset}"))
    if new.rules != old.rules:
        changes.append(Change(f"{label}standings rules changed (points, tie-breaks, protest "
                              "window or suspensions)"))
    changes += [replace(c, text=label + c.text) for c in _team_changes(old, new)]
    new_matches = {m.id: m for m in new.matches}
    for m in old.matches:
        after = new_matches.get(m.id)
        stored = m.id in started
        if after is None:
            changes.append(Change(f"{m.id} removed (was {_where(m)}, {_pair(m)})"
                                  + (": its stored events and result would be orphaned"
                                     if stored else ""), m.id, stored))
            continue
        if (after.hall, after.start) != (m.hall, m.start):
            orphans = stored and after.hall != m.hall
            changes.append(Change(f"{m.id} moved: {_where(m)} -> {_where(after)}"
                                  + (f": its events came from {m.hall}" if orphans else ""),
                                  m.id, orphans))
        if (after.home.text, after.away.text) != (m.home.text, m.away.text):
            changes.append(Change(f"{m.id} re-paired: {_pair(m)} -> {_pair(after)}"
                                  + (": its stored result is of the old teams"
                                     if stored else ""), m.id, stored))
        for what, a, b in (("stage", m.stage.value, after.stage.value),
                           ("group", m.group, after.group), ("preset", m.preset, after.preset)):
            if a != b:
                changes.append(Change(f"{m.id} {what}: {a or 'none'} -> {b or 'none'}",
                                      m.id, stored and what != "preset"))
    old_ids = {m.id for m in old.matches}
    for m in new.matches:
        if m.id not in old_ids:
            changes.append(Change(f"{m.id} added: {_where(m)}, {_pair(m)}", m.id))
    return changes


def diff(old: Event, new: Event, started: Collection[str] = ()) -> list[Change]:
    """What changes from ``old`` to ``new``, category by category: matches added, removed,
    moved, re-paired; teams added, removed, renamed, moved between groups; the rules.
    ``started``: the matches with stored events or a result; removing one, or changing its
    teams or hall, orphans what is stored of it."""
    if new.id != old.id:
        raise ScheduleError(f"the tournament id changes ({old.id!r} -> {new.id!r}): the halls "
                            "publish under it; a new id is a new tournament (restart the "
                            "service on it)")
    changes: list[Change] = []
    for c in old.categories:
        after = new.category(c.name)
        label = "" if old.plain and new.plain else f"category {c.name}: "
        if after is None:
            changes.append(Change(f"category {c.name} removed"))
            gone = replace(c.tournament, matches=(), groups=(), teams={})
            changes += [ch for ch in _diff(c.tournament, gone, started, label) if ch.match]
        else:
            changes += _diff(c.tournament, after.tournament, started, label)
    for c in new.categories:
        if old.category(c.name) is None:
            changes.append(Change(f"category {c.name} added ({len(c.tournament.matches)} "
                                  "matches)"))
    return changes


def _team_changes(old: Tournament, new: Tournament) -> list[Change]:
    changes: list[Change] = []
    old_group = {t: g.name for g in old.groups for t in g.teams}
    new_group = {t: g.name for g in new.groups for t in g.teams}
    gone = [t for t in old.teams if t not in new.teams]
    came = [t for t in new.teams if t not in old.teams]
    # A team gone and one new in the same group, at the same place: a renaming.
    for g in old.groups:
        after = new.group(g.name)
        if after is None or len(after.teams) != len(g.teams):
            continue
        for a, b in zip(g.teams, after.teams, strict=True):
            if a in gone and b in came:
                changes.append(Change(f"team renamed: {a} -> {b} (group {g.name})"))
                gone.remove(a)
                came.remove(b)
    changes += [Change(f"team removed: {t} (was in group {old_group.get(t)})") for t in gone]
    changes += [Change(f"team added: {t} (group {new_group.get(t)})") for t in came]
    for team, group in new_group.items():
        if team in old_group and old_group[team] != group:
            changes.append(Change(f"team {team} moved from group {old_group[team]} to {group}"))
    for name, entry in new.teams.items():
        before: TeamEntry | None = old.teams.get(name)
        if before is not None and before != entry:
            what = [f for f in ("short", "colours", "roster")
                    if getattr(before, f) != getattr(entry, f)]
            changes.append(Change(f"team {name}: {', '.join(what)} changed"))
    old_groups = {g.name for g in old.groups}
    new_groups = {g.name for g in new.groups}
    changes += [Change(f"group {name} added") for name in sorted(new_groups - old_groups)]
    changes += [Change(f"group {name} removed") for name in sorted(old_groups - new_groups)]
    return changes


def reload_data(source: str, files: Mapping[str, str], changes: Sequence[Change], *,
                reason: str | None, forced: bool) -> dict[str, Any]:
    """The ``reload`` admin row: the file's whole text and its included files' (what the
    service will parse) and the differences as they were shown."""
    return {"source": source, "files": dict(files), "changes": [c.text for c in changes],
            "forced": [c.text for c in changes if c.orphans] if forced else [],
            "reason": reason}


# -- the schedule in force -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """A schedule action as ``replay`` reads it (``store.AdminAction`` has these)."""

    id: int
    kind: str
    data: Mapping[str, Any]
    at: datetime


def with_category(event: Event, category: Category, tournament: Tournament) -> Event:
    """The event with one category's tournament replaced."""
    return replace(event, categories=tuple(
        replace(c, tournament=tournament) if c is category else c for c in event.categories))


def others(event: Event, category: Category) -> list[ScheduledMatch]:
    """The matches of the event's other categories (they share the halls)."""
    return [m for c in event.categories if c is not category for m in c.tournament.matches]


def reschedule_in(event: Event, match: str, hall: str | None, start: datetime | None, *,
                  started: Collection[str] = (), force: bool = False
                  ) -> tuple[Event, Tournament, Tournament]:
    """``reschedule`` in the category that has the match, its halls shared with the other
    categories: the new event, and the category's tournament before and after."""
    category = event.category_of(match)
    if category is None:
        raise ScheduleError(f"no match {match!r} in the schedule (matches: "
                            f"{', '.join(m.id for _, m in event.schedule())})")
    before = category.tournament
    after = reschedule(before, match, hall, start, started=started, force=force,
                       shared=others(event, category))
    return with_category(event, category, after), before, after


def describe(step: Step) -> str:
    """A schedule action in a line, for the office's alerts."""
    data = step.data
    if step.kind == RELOAD:
        changes = [str(c) for c in data.get("changes") or ()]
        return (f"schedule reloaded from {data.get('source')}: "
                + ("; ".join(changes) if changes else "no change"))
    was = data.get("was") or {}
    text = (f"schedule: {data.get('match')} moved to {data.get('hall')} "
            f"{_at(data.get('start'))} (was {was.get('hall')} {_at(was.get('start'))})")
    reason = data.get("reason")
    return f"{text}: {reason}" if reason else text


def _at(value: object) -> str:
    try:
        return when(datetime.fromisoformat(str(value)))
    except ValueError:
        return str(value)


def replay(base: Event, actions: Iterable[Step],
           parse: Callable[[Mapping[str, str], str], Event]) -> Event:
    """The schedule in force: ``base`` (the file the service started with), replaced by the
    last ``reload`` (``parse(files, source)``), then every ``reschedule`` after it. A row
    that no longer applies (a file today's checks refuse, a match no longer scheduled) is
    skipped and said in the warnings (of the first category): the service runs on."""
    steps = [a for a in actions if a.kind in KINDS]
    last_reload = max((i for i, a in enumerate(steps) if a.kind == RELOAD), default=-1)
    t = base
    notes: list[str] = []
    if last_reload >= 0:
        row = steps[last_reload]
        try:
            t = parse(dict(row.data["files"]), str(row.data["source"]))
        except (ValueError, KeyError, TypeError) as err:
            notes.append(f"schedule: the file reloaded at {when(row.at)} no longer loads, "
                         f"kept the one before ({err})")
            t = base
        notes += [f"schedule: forced at {when(row.at)}: {c}"
                  for c in row.data.get("forced") or ()]
    for row in steps[last_reload + 1:]:
        data = row.data
        try:
            category = t.category_of(str(data["match"]))
            if category is None:
                raise ScheduleError(f"no match {data['match']!r} in the schedule")
            t = with_category(t, category, moved(
                category.tournament, str(data["match"]), str(data["hall"]),
                datetime.fromisoformat(str(data["start"]))))
        except (ScheduleError, KeyError, ValueError) as err:
            notes.append(f"schedule: the reschedule at {when(row.at)} no longer applies "
                         f"({err})")
            continue
        if data.get("forced"):
            was = data.get("was") or {}
            notes.append(f"schedule: forced at {when(row.at)}: {data['match']} moved from "
                         f"{was.get('hall')} although it had started there")
    if not notes:
        return t
    first = t.categories[0]
    return with_category(t, first, replace(first.tournament,
                                           warnings=(*first.tournament.warnings, *notes)))
