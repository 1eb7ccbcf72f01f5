"""The office page's document: the ledger, the halls' live states and the alerts as one JSON
object (the page and the CSV exports read only this). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arena.tournament.event import Event
from office.rules import rulings
from office.views import merge
from office.views.alerts import AlertStatus, Handled, todo
from office.views.ledger import Ledger, MatchView
from office.views.placings import placings
from office.views.scorers import top_scorers


@dataclass(frozen=True, slots=True)
class HallLive:
    """What a hall last said of itself: ``status`` (online/offline) and its ``state``."""

    online: bool | None = None  # None: never heard of
    state: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class AlertView:
    at: datetime
    text: str
    id: int | None = None  # the store's (None: it could not be stored)
    match: str | None = None  # a played match the office must resolve


def snapshot(ledger: Ledger, halls: Mapping[str, HallLive], alerts: Sequence[AlertView],
             now: datetime, *, office: Mapping[str, Any] | None = None,
             handled: Mapping[int, Handled] | None = None) -> dict[str, Any]:
    """``office``: the service's own health (refusals, quarantine, conflicts, the store);
    ``handled``: what the office did about each alert (``office.views.alerts.handled``).

    ``review`` (the results waiting for the office) and the open alerts come first on the
    page; acknowledged and resolved alerts stay in ``alerts`` as history."""
    t = ledger.tournament
    done = handled or {}
    return {
        "review": [_review(v) for v in ledger.review()],
        "held": [{"match": m.id, "hall": m.hall, "waiting_for": list(ledger.held(m))}
                 for m in (ledger.next_for_hall(h) for h in t.halls())
                 if m is not None and ledger.held(m)],
        "office": dict(office or {}),
        "generated": _iso(now),
        "tournament": {"id": t.id, "name": t.name},
        "groups": [ledger.tables[g.name].to_json() for g in t.groups],
        "matches": [_match(ledger, v) for v in ledger.matches.values()],
        "bracket": [
            {"match": m.id, "stage": m.stage.value,
             "home": ledger.pairings[m.id].home, "away": ledger.pairings[m.id].away,
             "home_slot": m.home.text, "away_slot": m.away.text,
             "provisional": ledger.pairings[m.id].provisional,
             "start": _iso(m.start), "hall": m.hall}
            for m in t.matches if m.group is None
        ],
        "suspensions": [
            {"team": s.team, "player": s.player, "name": s.name, "rule": s.rule,
             "offences": s.offences, "offence_match": s.offence_match, "banned": s.banned,
             "served": list(s.served), "pending": list(s.pending), "waiting": s.waiting}
            for s in ledger.suspensions
        ],
        **_rulings(ledger),
        "halls": [_hall(ledger, hall, halls.get(hall, HallLive())) for hall in t.halls()],
        "alerts": [_alert(a, done) for a in reversed(alerts)]
        + warning_entries(ledger),
    }


def warning_entries(ledger: Ledger, prefix: str = "") -> list[dict[str, Any]]:
    """The ledger's warnings as open alerts with no time: the schedule's own first (``kind``
    ``schedule``: the page folds them into one line), then the results' (``results``)."""
    own = len(ledger.tournament.warnings)  # the ledger's warnings start with them
    return [{"at": None, "text": prefix + w, "status": AlertStatus.OPEN.value,
             "kind": "schedule" if i < own else "results"}
            for i, w in enumerate(ledger.warnings)]


def _rulings(ledger: Ledger) -> dict[str, Any]:
    """What the tournament gives out and the office ruled (office.rules.rulings): placings, top
    scorers, green cards, eliminated teams with their voided matches."""
    return {
        "placings": [p.to_json() for p in placings(ledger)],
        "scorers": [s.to_json() for s in top_scorers(ledger)],
        "green_cards": [{"match": g.match, "team": g.team, "player": g.player,
                         "name": g.name, "reason": g.reason} for g in ledger.green_cards],
        "eliminated": [{"team": e.team, "forfeits": list(e.forfeits), "voided": list(e.voided),
                        "rule": rulings.WAITING_PERIOD} for e in ledger.eliminations],
    }


def event_snapshot(event: Event, ledgers: Mapping[str, Ledger], halls: Mapping[str, HallLive],
                   alerts: Sequence[AlertView], now: datetime, *,
                   office: Mapping[str, Any] | None = None,
                   handled: Mapping[int, Handled] | None = None) -> dict[str, Any]:
    """The page's document for an event: a plain tournament file's exactly as
    ``snapshot`` makes it; an event file's with a category level: ``categories`` lists
    them, and every group, match, bracket match and suspension names its ``category``
    (group names repeat across categories). A hall's ``next`` is its earliest match
    across the categories (``office.views.merge``)."""
    if event.plain:
        (only,) = event.categories
        return snapshot(ledgers[only.name], halls, alerts, now, office=office,
                        handled=handled)
    parts = [(c.name, snapshot(ledgers[c.name], {}, (), now)) for c in event.categories]

    def tagged(key: str) -> list[dict[str, Any]]:
        return [{**item, "category": name} for name, doc in parts for item in doc[key]]

    def hall(name: str) -> dict[str, Any]:
        found = merge.next_for_hall(event, ledgers, name)
        doc = _hall_doc(name, halls.get(name, HallLive()),
                        found[1].id if found is not None else None)
        doc["next_category"] = found[0].name if found is not None else None
        return doc

    return {
        "office": dict(office or {}),
        "generated": _iso(now),
        "tournament": {"id": event.id, "name": event.name},
        "categories": [{"name": c.name, "title": c.title, "preset": c.tournament.preset,
                        "groups": [g.name for g in c.tournament.groups]}
                       for c in event.categories],
        "groups": tagged("groups"),
        # In schedule order across the categories (ISO times sort as times; stable).
        "matches": sorted(tagged("matches"), key=lambda m: str(m["start"])),
        "bracket": sorted(tagged("bracket"), key=lambda m: str(m["start"])),
        "suspensions": tagged("suspensions"),
        "review": tagged("review"),
        "held": tagged("held"),
        "placings": tagged("placings"),
        "scorers": tagged("scorers"),
        "green_cards": tagged("green_cards"),
        "eliminated": tagged("eliminated"),
        "halls": [hall(h) for h in event.halls()],
        "alerts": [_alert(a, handled or {}) for a in reversed(alerts)]
        + [w for c in event.categories for w in warning_entries(ledgers[c.name], f"{c.name}: ")],
    }


def _alert(a: AlertView, done: Mapping[int, Handled]) -> dict[str, Any]:
    step = done.get(a.id) if a.id is not None else None
    out: dict[str, Any] = {"at": _iso(a.at), "text": a.text, "id": a.id, "match": a.match,
                           "status": (step.status if step else AlertStatus.OPEN).value}
    if step is not None:
        out["note"] = step.note
    else:
        out["todo"] = todo(a.id, a.match)
    return out


def _review(v: MatchView) -> dict[str, Any]:
    m = v.scheduled
    return {"match": m.id, "hall": m.hall, "stage": m.stage.value, "why": v.review,
            "played_as": list(v.hall_teams) if v.hall_teams else None,
            "todo": (f"correct it (office correct {m.id} ...), or settle it: office review "
                     f"{m.id} " + ("--swap (accept it for the schedule's teams)"
                                   if m.group is not None else "--keep|--swap|--replay")
                     + " --reason ...")}


def _match(ledger: Ledger, v: MatchView) -> dict[str, Any]:
    m = v.scheduled
    pairing = ledger.pairings.get(m.id)
    result = v.outcome.result
    score = None
    if result is not None:
        score = {"home": result.home_goals, "away": result.away_goals}
    elif v.live_score is not None:
        score = {"home": v.live_score[0], "away": v.live_score[1]}
    return {
        "id": m.id, "stage": m.stage.value, "group": m.group, "hall": m.hall,
        "start": _iso(m.start),
        "home": (pairing.home if pairing else None) or m.home.label(),
        "away": (pairing.away if pairing else None) or m.away.label(),
        "home_slot": m.home.text, "away_slot": m.away.text,
        "state": v.outcome.state.value,
        "score": score,
        "decided_by": result.decided_by.value if result is not None else None,
        "penalty_minutes": {"home": result.home_pim, "away": result.away_pim}
        if result is not None else None,
        "confirm_at": _iso(v.confirm_at) if v.confirm_at is not None else None,
        "gaps": list(v.gaps),
        "voided": m.id in ledger.voided,  # rules 001 'Waiting period': does not count
        "correction": {"reason": v.correction.reason, "at": _iso(v.correction.at)}
        if v.correction is not None else None,
    }


def _hall(ledger: Ledger, hall: str, live: HallLive) -> dict[str, Any]:
    nxt = ledger.next_for_hall(hall)
    return _hall_doc(hall, live, nxt.id if nxt is not None else None)


def _hall_doc(hall: str, live: HallLive, next_id: str | None) -> dict[str, Any]:
    state = live.state
    shown = None
    if state is not None and isinstance(state.get("match"), str):
        raw = state.get("teams")
        teams: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        shown = {
            "match": state.get("match"),
            "phase": state.get("phase"),
            "period": state.get("period"),
            "clock_ms": state.get("clock_ms"),
            "running": state.get("running"),
            "score": state.get("score"),
            "teams": {side: _team_name(teams.get(side)) for side in ("home", "away")},
        }
    return {"hall": hall, "online": live.online, "live": shown, "next": next_id}


def _team_name(team: object) -> str | None:
    if isinstance(team, Mapping):
        name = team.get("name")
        return name if isinstance(name, str) else None
    return team if isinstance(team, str) else None


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="seconds")
