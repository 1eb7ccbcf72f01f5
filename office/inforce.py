"""What is in force as the office's store holds it: the schedule after the office's reloads
and reschedules, the office's audited actions (corrections, forfeits, lots, green cards),
the events set aside; and each category's ledger folded from them. The service and every
shell command (printouts, exports, rulings) read them here, so all tell the same facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from arena.tournament.event import Event
from arena.tournament.files import event_from_files, load_event
from arena.tournament.model import DecidedBy, Draw, ScheduledMatch, Tournament
from office import schedule
from office.rules import rulings
from office.storage import reports
from office.storage.store import RELEASED, Store, StoreError
from office.views import alerts
from office.views.ledger import Correction, Ledger, Received, build
from office.views.reported import ReportedResult, final_of

# kv: the file the service started with, {"source", "files"} (its text and its included
# files'): what `office reload` compares an edited file with (edited in place, the file on
# disk no longer says what runs).
SCHEDULE_KEY = "schedule"



def corrections_and_draws(store: Store) -> tuple[list[Correction], list[Draw]]:
    """The office's own audited actions, in the order they were taken."""
    corrections: list[Correction] = []
    draws: list[Draw] = []
    for action in store.admin_actions():
        data = action.data
        if action.kind == "correct":
            decided = data.get("decided_by")
            corrections.append(Correction(
                match=str(data["match"]), home_goals=int(data["home"]),
                away_goals=int(data["away"]), reason=str(data["reason"]), at=action.at,
                decided_by=DecidedBy(decided) if decided else None))
        elif action.kind == rulings.FORFEIT:
            # Awarded under a rule (office forfeit / office unauthorised): a correction to
            # the preset's forfeit score that also counts towards eliminations and
            # expulsions (office.rules.rulings).
            forfeit = rulings.forfeit_of(data, action.at)
            corrections.append(Correction(
                match=forfeit.match, home_goals=int(data["home"]),
                away_goals=int(data["away"]),
                reason=f"{forfeit.cause.rule}: {forfeit.reason}", at=action.at,
                decided_by=DecidedBy.FORFEIT, forfeit=forfeit))
        elif action.kind == "draw":
            seed = data.get("seed")
            category = data.get("category")
            draws.append(Draw(str(data["group"]), tuple(str(t) for t in data["order"]),
                              int(seed) if seed is not None else None,
                              str(category) if category is not None else None))
    return corrections, draws


def schedule_steps(store: Store) -> list[schedule.Step]:
    """The office's schedule changes (reloads, reschedules), in the order they were made."""
    return [schedule.Step(a.id, a.kind, a.data, a.at) for a in store.admin_actions()
            if a.kind in schedule.KINDS]


def replayed(base: Event, steps: Sequence[schedule.Step]) -> Event:
    """``base`` with the schedule changes ``steps`` (``office.schedule.replay``, a reload's
    files parsed as the service parses them): the one way the schedule in force is made,
    by the running service and by every command that prints or exports."""
    return schedule.replay(base, steps, event_from_files)


def effective_event(base: Event, store: Store) -> Event:
    """The schedule in force: ``base`` (the file the service started with) with the office's
    reloads and reschedules."""
    return replayed(base, schedule_steps(store))


def green_cards(store: Store) -> list[rulings.GreenCard]:
    """The green cards the office recorded (rules 003), in the order recorded."""
    return rulings.green_cards_of((a.kind, a.data, a.at) for a in store.admin_actions())


def started_event(store: Store, tournament: Path | None) -> Event:
    """The file the service started with, as it read it then (kept in the store: the file
    on disk may have been edited in place since, ``office reload``); ``tournament`` read
    when the store does not know it yet (a service never started on it)."""
    started = store.kv_get(SCHEDULE_KEY)
    if isinstance(started, dict) and isinstance(started.get("files"), dict):
        return event_from_files(started["files"], str(started.get("source")))
    if tournament is None:
        raise StoreError("the store does not know the service's tournament file yet: name "
                         "it with --tournament")
    return load_event(tournament)


def event_in_force(store: Store, tournament: Path | None) -> Event:
    """The schedule the service runs now: the file it started with, and every change made
    to it since (what every printout, export and page reads)."""
    return effective_event(started_event(store, tournament), store)


def ledger_from_store(tournament: Tournament, store: Store, now: datetime | None,
                      category: str | None = None) -> Ledger:
    """The ledger as the service would fold it now (for the shell commands): without the
    events in quarantine. ``now`` None: every final counts as confirmed (``ledger.build``).
    ``category``: in an event of several, the one ``tournament`` is (only its lots count:
    group names repeat across categories). A plain tournament file is read with the
    office's schedule changes (``effective_event``)."""
    if category is None:
        (only,) = effective_event(Event.single(tournament), store).categories
        tournament = only.tournament
    return _fold(tournament, store, now, category)


def ledger_in_force(event: Event, category: str, store: Store, now: datetime | None
                    ) -> Ledger:
    """The ledger of one category of ``event``, the schedule in force (``event_in_force``:
    not changed again here), as the service would fold it now (``ledgers_in_force``'s)."""
    c = event.category(category)
    if c is None:
        raise StoreError(f"no category {category!r} in the schedule in force (categories: "
                         f"{', '.join(c.name for c in event.categories)})")
    return _fold(c.tournament, store, now, category if len(event.categories) > 1 else None)


def ledgers_in_force(event: Event, store: Store, now: datetime | None) -> dict[str, Ledger]:
    """Each category's ledger of ``event``, the schedule in force (``event_in_force``: not
    changed again here), as the service would fold it now; in an event of several
    categories, each one's own lots (group names repeat)."""
    several = len(event.categories) > 1
    return {c.name: _fold(c.tournament, store, now, c.name if several else None)
            for c in event.categories}


def _fold(tournament: Tournament, store: Store, now: datetime | None,
          category: str | None) -> Ledger:
    corrections, draws = corrections_and_draws(store)
    excluded = excluded_events(store)
    events = [Received(e, e.received) for e in store.events() if e.event_id not in excluded]
    if category is not None:
        draws = [d for d in draws if d.category == category]
    return build(tournament, events, corrections, draws, now,
                 reviews=alerts.reviews_of(store.admin_actions()),
                 green_cards=green_cards(store), reported=reported_finals(store))


def reported_finals(store: Store) -> dict[str, Received]:
    """By match, the final its latest form entry makes (a phone's, the office's form)."""
    return {match: Received(final_of(match, r.id, ReportedResult.from_data(r.data)), r.at)
            for match, r in reports.latest(reports.reports(store)).items()}


def category_draws(event: Event, category: str, draws: list[Draw]) -> list[Draw]:
    """The lots drawn for one category's groups: group names repeat across categories, so a
    draw names its category; in a one-category event every draw is its own."""
    if len(event.categories) == 1:
        return draws
    return [d for d in draws if d.category == category]


def excluded_events(store: Store) -> set[str]:
    """The event ids set aside from folding: quarantined or discarded, not released."""
    return {eid for eid, q in store.quarantine_status().items() if q.action != RELEASED}


class ScheduleIndex:
    """The event's schedule as the intake checks read it (``intake.Schedule``), by match id:
    ``Event.match`` and ``Event.halls`` walk the whole schedule, once per message."""

    def __init__(self, event: Event) -> None:
        self.id = event.id
        self._matches = {m.id: m for _, m in event.schedule()}
        self._halls = event.halls()

    def match(self, match_id: str) -> ScheduledMatch | None:
        return self._matches.get(match_id)

    def halls(self) -> tuple[str, ...]:
        return self._halls

