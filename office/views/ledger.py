"""The office's view of a tournament, folded from what the halls sent and what the office did.

Pure: the service hands in the stored events, the office's own audited actions (corrections,
lots drawn) and the wall time; out comes every match's state and result, the group tables,
the bracket, the suspensions and each hall's next match. Nothing here depends on the order
the events arrived in or on how often one arrived: a match is read off its events by ``seq``
(the hall numbers them gaplessly), so duplicates and reordering change nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

from arena import wire
from arena.core.values import MatchSetup
from arena.tournament.model import (
    DecidedBy,
    Draw,
    GameResult,
    GoalEntry,
    Group,
    GroupTable,
    MatchOutcome,
    PenaltyEntry,
    ResultState,
    ScheduledMatch,
    Stage,
    Tournament,
)
from office.rules import bracket, discipline, rulings
from office.rules.standings import rank_group
from office.views.gapless import Gapless
from office.views.revision import Revisions, frozen

# For teams the tournament file gives no colours: the scoreboard's own defaults (home dark,
# away light: rules 000 "The home-team plays in dark-colored forms").
_SETUP = MatchSetup()
DEFAULT_COLOURS = {"home": list(_SETUP.home.colours), "away": list(_SETUP.away.colours)}


class HallEventLike(Protocol):
    """One stored event of a hall (``office.storage.store.StoredEvent`` is one)."""

    @property
    def match(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def data(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Received:
    """An event as the ledger reads it, with the office's wall time of its arrival (the
    protest window runs from the office's clock: a hall's may not be set)."""

    event: HallEventLike
    received: datetime


@dataclass(frozen=True, slots=True)
class Correction:
    """``office correct``: the jury's result replaces the hall's (audited, with a reason)."""

    match: str
    home_goals: int
    away_goals: int
    reason: str
    at: datetime
    decided_by: DecidedBy | None = None  # None: as the hall had it (or regulation)
    forfeit: rulings.Forfeit | None = None  # awarded under a rule (``office forfeit``)


class ReviewAction(StrEnum):
    """How the office settles a result that does not fit the schedule (``office review``)."""

    KEEP = "keep"  # the result stands for the teams who played it; they are the pairing
    SWAP = "swap"  # the result is credited to the pairing the schedule names now
    REPLAY = "replay"  # the result is void: the match is sent to its hall again


@dataclass(frozen=True, slots=True)
class Review:
    """``office review`` (or ``office alerts resolve``): audited, with a reason.

    ``home``/``away`` name the teams the action was taken for (keep: the teams who played;
    swap: the pairing at the time). The action holds only while they still are: should the
    pairing move again, the result is under review again rather than credited to whoever
    the bracket names next."""

    match: str
    action: ReviewAction
    reason: str
    at: datetime
    home: str | None = None
    away: str | None = None
    # replay: the seq of the hall's final it voids (read off the events, not off a clock:
    # the office's command and its service may not share one)
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class MatchView:
    """Everything the office shows of one scheduled match."""

    scheduled: ScheduledMatch
    outcome: MatchOutcome
    live_score: tuple[int, int] | None = None  # the latest score the hall sent
    hall_teams: tuple[str, str] | None = None  # the names the hall played under
    gaps: tuple[int, ...] = ()  # seqs missing between 1 and the highest received
    ended: datetime | None = None  # when the office received the final
    final_seq: int | None = None  # the seq of the hall's match_ended that stands
    confirm_at: datetime | None = None
    correction: Correction | None = None
    review: str | None = None  # why the result needs the office (state NEEDS_REVIEW)
    resolved: Review | None = None  # the office's review that the result stands on
    # A replay ordered and not begun: the hall numbers the new game above this seq (the
    # voided final's, or the highest the office holds of the match if that is more).
    replay_above: int | None = None
    # The teams whose goals the office's correction took below what the hall recorded:
    # which goal was taken away is not known, so none of theirs counts for a scorer.
    uncredited: tuple[str, ...] = ()

    def warnings(self) -> tuple[str, ...]:
        """What the office is told of this match (``Ledger.warnings``)."""
        m = self.scheduled
        out = []
        if self.gaps:
            out.append(f"{m.id}: events {_ranges(self.gaps)} from {m.hall} not received")
        c = self.correction
        for team in self.uncredited:
            assert c is not None
            out.append(f"{m.id}: corrected to {c.home_goals}:{c.away_goals}, fewer goals for "
                       f"{team} than the hall recorded: which was taken away is not known, "
                       f"so {team}'s scorers of {m.id} are not counted")
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Ledger:
    tournament: Tournament
    matches: Mapping[str, MatchView]
    tables: Mapping[str, GroupTable]
    pairings: Mapping[str, bracket.Pairing]
    suspensions: tuple[discipline.Suspension, ...]
    warnings: tuple[str, ...] = ()
    next_change: datetime | None = None  # the next protest window to close
    draws: tuple[Draw, ...] = field(default=())
    # The office's rulings (office.rules.rulings): the standing forfeits, the teams eliminated
    # (rules 001 'Waiting period') with the matches voided, the green cards (rules 003).
    forfeits: tuple[rulings.Forfeit, ...] = ()
    eliminations: tuple[rulings.Elimination, ...] = ()
    voided: frozenset[str] = frozenset()
    green_cards: tuple[rulings.GreenCard, ...] = ()

    def review(self) -> list[MatchView]:
        """The results waiting for the office (state needs_review), in schedule order."""
        return [v for v in self.matches.values() if v.review is not None]

    def held(self, match: ScheduledMatch) -> tuple[str, ...]:
        """The sides of ``match`` whose team is not known yet, as a person reads them ("2nd
        B", "Winner SF1"); empty when both are known and the match can be sent."""
        pairing = self.pairings.get(match.id)
        out = []
        for slot, team in ((match.home, pairing.home if pairing else None),
                           (match.away, pairing.away if pairing else None)):
            if team is None:
                out.append(slot.label())
        return tuple(out)
    # The schedule by hall, in schedule order: a hall's next reads its own matches, not the
    # whole event's (empty: the whole schedule is read).
    by_hall: Mapping[str, tuple[ScheduledMatch, ...]] = field(default_factory=dict,
                                                               compare=False)
    # What changed since another ledger, by revision (office.views.revision): what reads a
    # ledger and keeps what it made of it makes again what has a new revision. Not part of
    # the value: a ledger from scratch equals the fold's, its revisions are all new.
    revisions: Revisions = field(default_factory=Revisions, compare=False)

    def __post_init__(self) -> None:
        # Handed out read-only: a part kept under its revision cannot change under it.
        for name in ("matches", "tables", "pairings", "by_hall"):
            object.__setattr__(self, name, frozen(getattr(self, name)))

    def outcomes(self) -> dict[str, MatchOutcome]:
        return {m: v.outcome for m, v in self.matches.items()}

    def next_for_hall(self, hall: str) -> ScheduledMatch | None:
        """The hall's next match: the first of its schedule it has sent nothing of and that
        has no result. A match being played is not "next": the hall loads the next one only
        after its final, and must not load the one it is playing again."""
        for m in self.by_hall.get(hall, ()) if self.by_hall else self.tournament.matches:
            if m.hall != hall:
                continue
            view = self.matches[m.id]
            # A voided match (its team eliminated) is not played.
            if view.outcome.state is ResultState.SCHEDULED and m.id not in self.voided:
                return m
        return None

    def next_match(self, hall: str) -> wire.Next | None:
        """The retained ``next`` for a hall (docs/developer.md 4.4), with the players suspended for
        that match; None when the hall has nothing left to play.

        A match whose teams are not both known yet (a group incomplete or waiting for lots,
        a feeding match undecided or under review) is sent ``waiting``: the hall shows it
        as "waiting for the office" and does not load it (its sides carry the slots'
        labels, marked placeholder)."""
        m = self.next_for_hall(hall)
        if m is None:
            return None
        pairing = self.pairings.get(m.id)
        known = {"home": pairing.home if pairing else None,
                 "away": pairing.away if pairing else None}
        names = {"home": known["home"] or m.home.label(), "away": known["away"] or m.away.label()}
        teams: dict[str, wire.Team] = {}
        for side in ("home", "away"):
            entry = self.tournament.teams.get(names[side])
            colours = entry.colours if entry and entry.colours else DEFAULT_COLOURS[side]
            # The roster only of a team the match is known to have (a placeholder's slot
            # label names no team): so the hall names its scorers.
            roster = entry.roster if entry and known[side] is not None else {}
            teams[side] = wire.Team(names[side], (colours[0], colours[1]),
                                    placeholder=known[side] is None,
                                    roster=tuple(sorted(roster.items())))
        suspended = tuple(
            wire.Suspended(side, s.player)
            for s in discipline.suspended_in(m.id, self.suspensions)
            for side in ("home", "away") if s.team == names[side]
        )
        return wire.Next(match=m.id, preset=m.preset,
                         stage=m.stage.played_as.value,
                         home=teams["home"], away=teams["away"],
                         scheduled=m.start.isoformat(timespec="minutes"), label=_label(m),
                         suspended=suspended,
                         waiting=known["home"] is None or known["away"] is None,
                         replay_above=self.matches[m.id].replay_above)

    def next_document(self, hall: str) -> dict[str, Any] | None:
        """``next_match`` as its JSON document."""
        upcoming = self.next_match(hall)
        return None if upcoming is None else wire.next_document(upcoming)

    def standings(self, group: str) -> wire.Standings:
        """The retained ``standings/<group>`` (also what a hall shows between games)."""
        table = self.tables[group]
        return wire.Standings(group=group, rows=table.rows,
                              tournament=self.tournament.id, provisional=table.provisional,
                              complete=table.complete)

    def standings_document(self, group: str) -> dict[str, Any]:
        return wire.standings_document(self.standings(group))


def _label(m: ScheduledMatch) -> str:
    if m.stage is Stage.GROUP:
        return f"Group {m.group}"
    return m.id


# Events after which a final no longer stands: play resumed (the end was undone, and its
# ``undone`` may be missing), read off the event types the hall sends (docs/developer.md 4.4).
_RESUMING = frozenset({"period_started", "clock_started"})
# An end taken back outside the final phase (an undo of it, a cancelled golden goal): the
# match goes on.
_TAKEN_BACK = frozenset({"undone", "cancelled"})


class MatchDigest:
    """What the ledger reads of one match, folded as its events arrive, in any order.

    Reading a match by ``seq`` needs only: the latest score sent, the latest
    ``match_ended`` (its result and record), and whether play resumed after it (an
    ``undone`` of the end, a cancelled golden goal, a period or the clock started again).
    So that is all that is kept: the office's memory grows with the matches of the event,
    not with their events (docs/office.md, "The office's faults"). The first arrival of a seq
    counts; a repeat of it changes nothing, so duplicates and reordering give the same view.
    """

    __slots__ = ("_final", "_reported", "_resumed", "_score", "seqs", "version")

    def __init__(self) -> None:
        self.seqs = Gapless()
        self.version = 0  # counts the events added: the cache's key
        self._score: tuple[int, tuple[int, int]] | None = None  # (seq, (home, away))
        self._final: Received | None = None  # the match_ended of the highest seq
        self._resumed = 0  # the highest seq after which play resumed
        # The final a form entered (a referee's phone, the office: office.views.reported),
        # the latest entry of the match: it stands only while no board's final does.
        self._reported: Received | None = None

    @classmethod
    def of(cls, items: Iterable[Received]) -> MatchDigest:
        digest = cls()
        for item in items:
            digest.add(item)
        return digest

    def add(self, item: Received) -> bool:
        """Fold in one event; False if its seq was already folded (the first one counts).
        Everything is read off the event before anything changes: an event this raises on
        leaves the digest as it was (the service quarantines it)."""
        ev = item.event
        seq = ev.seq
        if seq in self.seqs:
            return False
        data = ev.data
        score = data.get("score")
        new_score = self._score
        if isinstance(score, Mapping) and isinstance(score.get("home"), int) \
                and isinstance(score.get("away"), int) \
                and (new_score is None or seq > new_score[0]):
            new_score = (seq, (score["home"], score["away"]))
        final, resumed = self._final, self._resumed
        if ev.type == "match_ended":
            if final is None or seq > final.event.seq:
                final = item
        elif ev.type in _RESUMING or (ev.type in _TAKEN_BACK and data.get("phase") != "final"):
            resumed = max(resumed, seq)
        self.seqs.add(seq)
        self.version += 1
        self._score, self._final, self._resumed = new_score, final, resumed
        return True

    @property
    def top(self) -> int:
        return self.seqs.top

    @property
    def live_score(self) -> tuple[int, int] | None:
        return None if self._score is None else self._score[1]

    @property
    def final(self) -> Received | None:
        """The final that stands: the latest ``match_ended``, unless play resumed after it;
        without one, the final a form entered (a board's final wins over a phone's)."""
        final = self.board_final
        return final if final is not None else self._reported

    @property
    def board_final(self) -> Received | None:
        """The hall's own final that stands (None: none, or play resumed after it)."""
        final = self._final
        return final if final is not None and final.event.seq > self._resumed else None

    @property
    def reported(self) -> Received | None:
        return self._reported

    def report(self, item: Received | None) -> None:
        """The final a form entered for this match (None: none); a new one is a change of
        the match (the cache and the fold read it again)."""
        if item is not self._reported:
            self._reported = item
            self.version += 1

    def copy(self) -> MatchDigest:
        out = MatchDigest()
        out.seqs, out.version = self.seqs.copy(), self.version
        out._score, out._final, out._resumed = self._score, self._final, self._resumed
        out._reported = self._reported
        return out


class MatchCache:
    """Matches already read, by their digest's version: the service re-reads only the
    matches that got new events (events are only ever added)."""

    def __init__(self) -> None:
        self._views: dict[str, tuple[MatchDigest, int, MatchView]] = {}

    def read(self, m: ScheduledMatch, digest: MatchDigest, window: timedelta) -> MatchView:
        cached = self._views.get(m.id)
        if cached is not None and cached[0] is digest and cached[1] == digest.version:
            return cached[2]
        view = _read_match(m, digest, window)
        self._views[m.id] = (digest, digest.version, view)
        return view

    def forget(self, match: str) -> None:
        """Read ``match`` again next time."""
        self._views.pop(match, None)


def build(
    tournament: Tournament,
    events: Iterable[Received],
    corrections: Sequence[Correction] = (),
    draws: Sequence[Draw] = (),
    now: datetime | None = None,
    *,
    cache: MatchCache | None = None,
    reviews: Sequence[Review] = (),
    green_cards: Sequence[rulings.GreenCard] = (),
    reported: Mapping[str, Received] | None = None,
) -> Ledger:
    """Fold everything known into the office's view at wall time ``now`` (None: every final
    counts as confirmed, as for a results file). ``reported``: by match, the final a form
    entered (office.views.reported)."""
    by_match = {m.id: MatchDigest() for m in tournament.matches}
    for item in events:
        digest = by_match.get(item.event.match)
        if digest is not None:
            # Duplicates carry the same content (the journal is the hall's truth); the first
            # arrival is kept so the protest window does not restart on a re-delivery.
            digest.add(item)
    for match, item in (reported or {}).items():
        if match in by_match:
            by_match[match].report(item)
    return build_from(tournament, by_match, corrections, draws, now, cache=cache,
                      reviews=reviews, green_cards=green_cards)


def build_from(
    tournament: Tournament,
    by_match: Mapping[str, MatchDigest],
    corrections: Sequence[Correction] = (),
    draws: Sequence[Draw] = (),
    now: datetime | None = None,
    *,
    cache: MatchCache | None = None,
    reviews: Sequence[Review] = (),
    green_cards: Sequence[rulings.GreenCard] = (),
) -> Ledger:
    """``build`` from the events already folded by match (what the service keeps).

    ``corrections`` include the office's forfeits (``Correction.forfeit``); ``reviews``: the
    office's resolutions of results that did not fit, oldest first (the latest of a match
    counts)."""
    cache = cache or MatchCache()
    latest_correction: dict[str, Correction] = {}
    for c in corrections:
        latest_correction[c.match] = c
    latest_review = {r.match: r for r in reviews}
    window = timedelta(seconds=tournament.rules.protest_window_s)

    views: dict[str, MatchView] = {}
    warnings: list[str] = list(tournament.warnings)  # the schedule's own (back to back...)
    next_change: datetime | None = None
    for m in tournament.matches:
        view = _settle(cache.read(m, by_match.get(m.id) or MatchDigest(), window), now)
        view = replay_voided(view, latest_review.get(m.id), by_match.get(m.id))
        correction = latest_correction.get(m.id)
        if correction is not None:
            view = _corrected(view, correction)
        warnings += view.warnings()
        if view.outcome.state is ResultState.FINAL and view.confirm_at is not None \
                and (next_change is None or view.confirm_at < next_change):
            next_change = view.confirm_at
        views[m.id] = view

    # A group match names its teams in the schedule: its result counts under those names,
    # whatever the hall called them, so the tables need nothing of the bracket. A bracket
    # match's teams depend on results: name its result after the filled slots and fill
    # again, until nothing moves (one round of the bracket per pass at most).
    #
    # A hall's result counts only for the teams it was played by: one played under other
    # names than the schedule's (placeholders such as "2nd B" while the teams were not
    # known, or teams a correction has since moved out of the match) waits for the office
    # (needs_review) instead of being credited to whoever the schedule names now.
    outcomes: dict[str, MatchOutcome] = {}
    why: dict[str, str] = {}
    resolved: dict[str, Review] = {}
    pinned: dict[str, tuple[str, str]] = {}
    bracket_ids: list[str] = []
    for m in tournament.matches:
        view = views[m.id]
        review = latest_review.get(m.id)
        if m.group is not None:
            assert m.home.team is not None and m.away.team is not None
            teams = (m.home.team, m.away.team)
            outcome = _renamed(view.outcome, *teams)
            if _from_hall(view) and view.hall_teams != teams:
                if review is not None and review.action is ReviewAction.SWAP \
                        and (review.home, review.away) == teams:
                    resolved[m.id] = review
                else:
                    why[m.id] = _misfit(view, teams)
                    outcome = replace(outcome, state=ResultState.NEEDS_REVIEW)
            outcomes[m.id] = outcome
        else:
            outcomes[m.id] = view.outcome
            bracket_ids.append(m.id)
            if review is not None and review.action is ReviewAction.KEEP \
                    and _from_hall(view) and view.hall_teams == (review.home, review.away):
                assert review.home is not None and review.away is not None
                pinned[m.id] = (review.home, review.away)
                resolved[m.id] = review
    # Rules 001 'Waiting period' and "Player's start": the forfeits that stand (each the
    # latest office result of its match) eliminate teams and expel players.
    forfeits = tuple(c.forfeit for c in latest_correction.values()
                     if c.forfeit is not None and tournament.match(c.match) is not None)
    eliminations = rulings.eliminations(tournament, forfeits)
    voided = frozenset(mid for e in eliminations for mid in e.voided)
    eliminated = frozenset(e.team for e in eliminations)
    scheduled = group_schedule(tournament)
    tables = {g.name: group_table(tournament, g, scheduled[g.name], outcomes, draws,
                                  voided=voided, eliminated=eliminated)
              for g in tournament.groups}
    pairings: dict[str, bracket.Pairing] = {}
    for _ in range(len(bracket_ids) + 1):
        filled = bracket.fill(tournament, tables, outcomes, pinned)
        if filled == pairings:
            break
        pairings = filled
        _settle_bracket(bracket_ids, views, pairings, latest_review, pinned,
                        outcomes=outcomes, why=why, resolved=resolved)
    views = {mid: _shown(v, outcomes[mid], why.get(mid), resolved.get(mid, v.resolved))
             for mid, v in views.items()}

    for m in tournament.matches:
        view = views[m.id]
        pairing = pairings.get(m.id)
        if pairing is not None and view.outcome.state is ResultState.SCHEDULED:
            for team in (pairing.home, pairing.away):
                if team in eliminated:
                    warnings.append(f"{m.id}: {team} is eliminated ({rulings.WAITING_PERIOD});"
                                    " the office decides this match (office correct)")
        if m.stage.decided and view.outcome.result is not None \
                and view.outcome.result.winner is None:
            warnings.append(f"{m.id}: a {m.stage.value} match ended level; the bracket waits "
                            "for a decision (office correct)")

    expelled = [discipline.Expulsion(f.team, f.player, f.match, f.cause.rule)
                for f in forfeits
                if f.cause is rulings.ForfeitCause.UNAUTHORISED and f.player is not None]
    suspensions = tuple(discipline.suspensions(tournament, pairings, outcomes, expelled,
                                               voided))
    return Ledger(tournament, views, tables, pairings, suspensions, tuple(warnings),
                  next_change, tuple(draws), forfeits, eliminations, voided,
                  rulings.current_cards(tournament, green_cards),
                  by_hall=schedule_by_hall(tournament))


def schedule_by_hall(tournament: Tournament) -> dict[str, tuple[ScheduledMatch, ...]]:
    by_hall: dict[str, list[ScheduledMatch]] = {}
    for m in tournament.matches:
        by_hall.setdefault(m.hall, []).append(m)
    return {hall: tuple(ms) for hall, ms in by_hall.items()}


def group_schedule(tournament: Tournament) -> dict[str, tuple[ScheduledMatch, ...]]:
    """Every group's matches (``Tournament.group_matches`` of each, in one pass)."""
    by_group: dict[str, list[ScheduledMatch]] = {g.name: [] for g in tournament.groups}
    for m in tournament.matches:
        if m.group is not None:
            by_group.setdefault(m.group, []).append(m)
    return {g: tuple(ms) for g, ms in by_group.items()}


def group_table(tournament: Tournament, group: Group, scheduled: Sequence[ScheduledMatch],
                outcomes: Mapping[str, MatchOutcome], draws: Sequence[Draw], *,
                voided: frozenset[str] = frozenset(),
                eliminated: frozenset[str] = frozenset()) -> GroupTable:
    """One group's table from the outcomes of its ``scheduled`` matches; without the voided
    matches and the eliminated teams (rules 001 'Waiting period': the table is recomputed
    without them)."""
    if voided:
        scheduled = [m for m in scheduled if m.id not in voided]
    counted = [outcomes[m.id] for m in scheduled if outcomes[m.id].result is not None]
    table = rank_group(
        Group(group.name, tuple(t for t in group.teams if t not in eliminated)),
        [o.result for o in counted if o.result is not None],
        tournament.rules,
        [d for d in draws if d.group == group.name],
        provisional=any(not o.state.settled for o in counted),
        complete=len(counted) == len(scheduled),
    )
    if any(o.state is ResultState.NEEDS_REVIEW for o in counted):
        table = replace(table, under_review=True)
    return table


def _from_hall(view: MatchView) -> bool:
    """The result is the hall's own (not the office's correction)."""
    return view.hall_teams is not None and view.outcome.result is not None \
        and view.outcome.state in (ResultState.FINAL, ResultState.CONFIRMED)


def _misfit(view: MatchView, teams: tuple[str | None, str | None]) -> str:
    assert view.hall_teams is not None
    m = view.scheduled
    played = f"{view.hall_teams[0]} - {view.hall_teams[1]}"
    if teams[0] is None or teams[1] is None:
        known = " - ".join(t or s.label() for t, s in ((teams[0], m.home), (teams[1], m.away)))
        return (f"{m.hall} played it as {played} while its teams were not known "
                f"({known})")
    return f"{m.hall} played it as {played}, the schedule says {teams[0]} - {teams[1]}"


def _settle_bracket(ids: Iterable[str], views: Mapping[str, MatchView],
                    pairings: Mapping[str, bracket.Pairing], reviews: Mapping[str, Review],
                    pinned: Mapping[str, tuple[str, str]], *, outcomes: dict[str, MatchOutcome],
                    why: dict[str, str], resolved: dict[str, Review]) -> None:
    """Each bracket match of ``ids`` under its pairing (``_bracket_outcome``): its outcome
    into ``outcomes``, why it needs the office into ``why``, the review it stands on into
    ``resolved`` (a match pinned by a keep keeps its own). ``build_from``'s and the fold's
    round of the bracket's fill."""
    for mid in ids:
        outcome, reason, review = _bracket_outcome(views[mid], pairings[mid], reviews.get(mid))
        outcomes[mid] = outcome
        if reason is None:
            why.pop(mid, None)
        else:
            why[mid] = reason
        if review is not None:
            resolved[mid] = review
        elif mid not in pinned:
            resolved.pop(mid, None)


def _bracket_outcome(view: MatchView, pairing: bracket.Pairing, review: Review | None
                     ) -> tuple[MatchOutcome, str | None, Review | None]:
    """A bracket match's outcome under the pairing: the result renamed to it (a
    correction, or a swap the office recorded for this very pairing), kept as played (it
    fits, or is pinned by a keep), or under review; with why, and the review it stands on."""
    outcome = view.outcome
    if not _from_hall(view):  # nothing played yet, or the office's own correction
        return _renamed(outcome, pairing.home, pairing.away), None, None
    teams = (pairing.home, pairing.away)
    if view.hall_teams == teams:
        pinned = review is not None and review.action is ReviewAction.KEEP
        return outcome, None, review if pinned else None
    if review is not None and review.action is ReviewAction.SWAP \
            and (review.home, review.away) == teams:
        return _renamed(outcome, pairing.home, pairing.away), None, review
    return (replace(outcome, state=ResultState.NEEDS_REVIEW), _misfit(view, teams), None)


def replay_voided(view: MatchView, review: Review | None, digest: MatchDigest | None) -> MatchView:
    """``view`` as a replay ordered by ``review`` leaves it (``build_from``'s and the
    fold's): while the final the hall sent is the one voided (or an older one), nothing it
    sent counts and the match is its hall's next again, to be numbered above the voided
    final and above every seq stored of it (a seq used twice would be dropped as a
    duplicate). Once the replayed game begins (play resumes above the voided final) or
    ends, its events are read as any match's."""
    if review is None or review.action is not ReviewAction.REPLAY or review.seq is None \
            or view.final_seq is None or view.final_seq > review.seq:
        return view
    m = view.scheduled
    top = 0 if digest is None else digest.top
    return MatchView(m, MatchOutcome(m.id, ResultState.SCHEDULED), resolved=review,
                     replay_above=max(review.seq, top))


def _shown(view: MatchView, outcome: MatchOutcome, why: str | None,
           resolved: Review | None) -> MatchView:
    if outcome is view.outcome and why == view.review and resolved is view.resolved:
        return view
    return replace(view, outcome=outcome, review=why, resolved=resolved)


def _settle(view: MatchView, now: datetime | None) -> MatchView:
    """A final is confirmed once its protest window has passed."""
    if view.outcome.state is not ResultState.FINAL or view.confirm_at is None:
        return view
    if now is not None and now < view.confirm_at:
        return view
    return replace(view, outcome=replace(view.outcome, state=ResultState.CONFIRMED))


def _read_match(m: ScheduledMatch, digest: MatchDigest,
                window: timedelta) -> MatchView:
    if digest.version == 0:
        return MatchView(m, MatchOutcome(m.id, ResultState.SCHEDULED))
    gaps = digest.seqs.missing()
    final = digest.final
    if final is None:
        return MatchView(m, MatchOutcome(m.id, ResultState.LIVE),
                         live_score=digest.live_score, gaps=gaps)
    data = final.event.data
    result = data["result"]
    record = data.get("record") or {}
    teams = record.get("teams") or {}
    hall_home = str(teams.get("home") or m.home.label())
    hall_away = str(teams.get("away") or m.away.label())
    pim = record.get("penalty_minutes") or {}
    game = GameResult(
        match=m.id, home=hall_home, away=hall_away,
        home_goals=int(result["home"]), away_goals=int(result["away"]),
        decided_by=DecidedBy(result["decided_by"]),
        home_pim=int(pim.get("home", 0)), away_pim=int(pim.get("away", 0)),
    )
    penalties = tuple(
        PenaltyEntry(team=hall_home if p["team"] == "home" else hall_away,
                     player=int(p["player"]), kind=str(p["kind"]), minutes=int(p["minutes"]))
        for p in record.get("penalties") or ()
        if isinstance(p.get("player"), int)
    )
    goals = tuple(
        GoalEntry(team=hall_home if g["team"] == "home" else hall_away,
                  player=g["player"] if isinstance(g.get("player"), int) else None,
                  period=int(g.get("period") or 0), clock_ms=int(g.get("clock_ms") or 0))
        for g in record.get("goals") or ()
        if isinstance(g, Mapping) and g.get("team") in ("home", "away")
    )
    confirm_at = final.received + window
    return MatchView(
        m, MatchOutcome(m.id, ResultState.FINAL, game, penalties, goals),
        live_score=(game.home_goals, game.away_goals), hall_teams=(hall_home, hall_away),
        gaps=gaps, ended=final.received, confirm_at=confirm_at, final_seq=final.event.seq,
    )


def _corrected(view: MatchView, c: Correction) -> MatchView:
    m = view.scheduled
    old = view.outcome.result
    home = old.home if old else m.home.label()
    away = old.away if old else m.away.label()
    decided_by = c.decided_by or (old.decided_by if old else DecidedBy.REGULATION)
    result = GameResult(m.id, home, away, c.home_goals, c.away_goals, decided_by,
                        old.home_pim if old else 0, old.away_pim if old else 0)
    # The hall's goals stand for a side as long as the jury's score keeps as many: a goal
    # corrected away takes that side's scorers of the match off the count (the record does
    # not say which goal the jury struck). A forfeit's score counts no scorer at all
    # (office.views.scorers).
    goals = view.outcome.goals
    uncredited = tuple(team for team, kept in ((home, c.home_goals), (away, c.away_goals))
                       if sum(g.team == team for g in goals) > kept)
    if uncredited and decided_by is not DecidedBy.FORFEIT:
        goals = tuple(g for g in goals if g.team not in uncredited)
    else:
        uncredited = ()
    outcome = MatchOutcome(m.id, ResultState.CORRECTED, result, view.outcome.penalties,
                           goals)
    return replace(view, outcome=outcome, correction=c,
                   hall_teams=view.hall_teams or (home, away), uncredited=uncredited)


def _renamed(outcome: MatchOutcome, home: str | None, away: str | None) -> MatchOutcome:
    """The outcome with its result under the schedule's names once they are known (a hall
    may have played under a placeholder such as "1st A", or under its default names)."""
    result = outcome.result
    if result is None or home is None or away is None \
            or (result.home, result.away) == (home, away):
        return outcome
    rename = {result.home: home, result.away: away}
    return replace(
        outcome,
        result=replace(result, home=home, away=away),
        penalties=tuple(replace(p, team=rename.get(p.team, p.team)) for p in outcome.penalties),
        goals=tuple(replace(g, team=rename.get(g.team, g.team)) for g in outcome.goals),
    )


def _ranges(numbers: Sequence[int]) -> str:
    parts: list[str] = []
    start = prev = numbers[0]
    for n in numbers[1:]:
        if n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = n
    parts.append(str(start) if start == prev else f"{start}-{prev}")
    return ", ".join(parts)
