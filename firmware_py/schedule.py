"""A hall without an office plays from a local copy of the office's file (docs/technician.md, "A
hall without an office"): ``[schedule] file`` in the config, the event file (several categories
sharing halls) or a tournament file (one category).

The file is read with the office's own reader (``arena.tournament.files.load_event``: the
standard library and firmware_py only), so the hall and the office never disagree on what it
says; a tournament file is a one-category event there too. The hall then offers its **next
match in this hall**: the first of its matches across every category, in start order, that
it has not played (a final journal in the state folder, ``MatchFiles.played``) and that is
not on the board. Each match is played with its own category's preset, teams and rosters
(match ids are unique across an event, team names only within a category). A bracket match
whose sides are still placeholders ("1st A", "Winner SF1") is never loaded by itself under
those names: it waits for the timekeeper, who picks the teams or keeps the names shown (the
keypad's SCHEDULE entry, arena/core/entry.py).

What this module makes of a scheduled match is a document shaped like the office's
``next`` (``wire.next_document``, with the match's ``category`` in an event file as the
office names it), plus ``"source": "schedule"`` and, for a placeholder match not yet
confirmed, ``"teams_known": false``: the daemon loads it the same way, and the
between-games screen shows it the same way.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from arena import wire
from arena.core.entry import ScheduledChoice
from arena.core.values import MatchSetup
from arena.tournament.event import Category, Event
from arena.tournament.files import load_event
from arena.tournament.model import ScheduledMatch, Slot, SlotKind, Stage, Tournament
from arena.tournament.reader import TournamentError
from firmware_py.config import ScheduleConfig

_DEFAULT = MatchSetup()
DEFAULT_COLOURS = {"home": _DEFAULT.home.colours, "away": _DEFAULT.away.colours}
NOT_KNOWN = "TEAMS NOT KNOWN"


@dataclass(frozen=True)
class LocalSchedule:
    """This hall's part of an event (a tournament file: a one-category event)."""

    event: Event
    hall: str

    def matches(self) -> tuple[ScheduledMatch, ...]:
        """This hall's matches across every category, in start order."""
        return hall_matches(self.event, self.hall)

    def remaining(self, played: Collection[str], on_board: str | None = None
                  ) -> tuple[ScheduledMatch, ...]:
        """This hall's matches not yet played and not on the board, in start order."""
        return remaining(self.event, self.hall, played, on_board)

    def match(self, match_id: str) -> ScheduledMatch | None:
        return self.event.match(match_id)

    def category_of(self, match_id: str) -> Category | None:
        return self.event.category_of(match_id)

    def teams(self) -> tuple[str, ...]:
        """The keypad's team list: the teams of every category that plays in this hall, in
        file order, a name two categories share once (each category's own team is looked
        up by name in the match's category)."""
        here = {m.id for m in self.matches()}
        return tuple(dict.fromkeys(name for c in self.event.categories
                                   if any(m.id in here for m in c.tournament.matches)
                                   for name in c.tournament.teams))

    def choices(self, played: Collection[str], on_board: str | None = None
                ) -> tuple[ScheduledChoice, ...]:
        """What the keypad's SCHEDULE entry lists, numbered from 1 in this order."""
        return tuple(ScheduledChoice(m.id, choice_label(m), open_sides(m))
                     for m in self.remaining(played, on_board))

    def document(self, match_id: str, home: str | None = None, away: str | None = None,
                 *, confirmed: bool = False) -> dict[str, Any] | None:
        """The match as a ``next`` document (``next_document``), with its category's teams
        and, in an event file, the category the office's ``next`` would name."""
        category = self.event.category_of(match_id)
        if category is None:
            return None
        m = category.tournament.match(match_id)
        assert m is not None  # category_of found it there
        return next_document(category.tournament, m, home, away, confirmed=confirmed,
                             category=self.event.level(category))


def load(config: ScheduleConfig, default_hall: str | None) -> LocalSchedule:
    """The schedule the config names; a ``ScheduleError`` says what is wrong with it (the
    board then starts without one and shows the message)."""
    assert config.file is not None
    try:
        event = load_event(config.file)
    except TournamentError as err:
        raise ScheduleError(str(err)) from err
    halls = event.halls()
    hall = config.hall or default_hall
    if hall is None:
        if len(halls) != 1:
            raise ScheduleError(f"{config.file}: {len(halls)} halls ({', '.join(halls)}): say "
                                "which is this one with [schedule] hall")
        hall = halls[0]
    if hall not in halls:
        raise ScheduleError(f"{config.file}: no match in hall {hall!r} (the halls: "
                            f"{', '.join(halls) or 'none'})")
    return LocalSchedule(event, hall)


class ScheduleError(ValueError):
    """The local schedule cannot be used; the message names the file and the problem."""


# ------------------------------------------------------------------ pure


def hall_matches(event: Event, hall: str) -> tuple[ScheduledMatch, ...]:
    """A hall's matches across the categories, in start order (``Event.schedule``: a hall
    never has two at one start, the reader refuses that)."""
    return tuple(m for _, m in event.schedule() if m.hall == hall)


def remaining(event: Event, hall: str, played: Collection[str],
              on_board: str | None = None) -> tuple[ScheduledMatch, ...]:
    return tuple(m for m in hall_matches(event, hall)
                 if m.id not in played and m.id != on_board)


def open_sides(m: ScheduledMatch) -> tuple[bool, bool]:
    """Which sides are still placeholders (home, away)."""
    return m.home.kind is not SlotKind.TEAM, m.away.kind is not SlotKind.TEAM


def _side(slot: Slot) -> str:
    return slot.label() if slot.kind is SlotKind.TEAM else f"{slot.label()}?"


def choice_label(m: ScheduledMatch) -> str:
    """``A3 Lions - Bears 10:30``; ``SF1 1st A? - 2nd B? 14:30 TEAMS NOT KNOWN``."""
    mark = f" {NOT_KNOWN}" if any(open_sides(m)) else ""
    return f"{m.id} {_side(m.home)} - {_side(m.away)} {m.start:%H:%M}{mark}"


def match_label(m: ScheduledMatch) -> str:
    """What the display shows above the match (the office's ``next`` label)."""
    return f"Group {m.group}" if m.stage is Stage.GROUP else m.id


def next_document(tournament: Tournament, m: ScheduledMatch, home: str | None = None,
                  away: str | None = None, *, confirmed: bool = False,
                  category: str | None = None) -> dict[str, Any]:
    """``m`` (a match of ``tournament``, its category) as a ``next`` document;
    ``home``/``away``: the teams the timekeeper chose for placeholder sides (None: the
    schedule's name, or the placeholder's label). Unless the timekeeper ``confirmed`` it, a
    placeholder side without a choice makes the document say ``teams_known: false``: it is
    shown, never loaded by itself. ``category``: the category level an event file's matches
    carry (``Event.level``), so the between-games screen shows that category's tables."""
    chosen = {"home": home, "away": away}
    teams: dict[str, wire.Team] = {}
    sides = (("home", m.home), ("away", m.away))
    known = confirmed or all(chosen[side] is not None or slot.kind is SlotKind.TEAM
                             for side, slot in sides)
    for side, slot in sides:
        name = chosen[side] or slot.label()
        entry = tournament.teams.get(name)
        colours = entry.colours if entry and entry.colours else DEFAULT_COLOURS[side]
        # The file's roster, as an office's `next` carries it: the scorers get their names.
        roster = tuple(sorted(entry.roster.items())) if entry else ()
        teams[side] = wire.Team(name, colours, roster=roster)
    label = match_label(m)
    doc = wire.next_document(wire.Next(
        match=m.id, preset=m.preset, stage=m.stage.played_as.value,
        home=teams["home"], away=teams["away"],
        scheduled=m.start.isoformat(timespec="minutes"),
        label=label if known else f"{label} - {NOT_KNOWN}", category=category))
    doc["source"] = "schedule"
    if not known:
        doc["teams_known"] = False
    return doc
