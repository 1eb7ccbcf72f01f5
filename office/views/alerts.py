"""The office's alerts and reviews: what stays at the top of the page until someone acts.

Alerts are stored once and never changed (``office.storage.store``: append-only). What the office
did about one is an audited office action in the ``admin`` table: ``alert_ack`` (seen: the
alert leaves the top and stays in the history) or ``review`` (a result that did not fit the
schedule settled: keep, swap or replay; ``office.views.ledger.Review``), which resolves the
alerts it names. Everything here is read off those rows, so every process that opens the
store sees the same state.

An alert about a played bracket match (its teams changed after it was played: a
correction, or lots drawn late) names the match and stays open until the office resolves
that match; acknowledging it takes it off the top, but the match itself stays in the
review list while its result does not fit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from office.storage.store import AdminAction, Alert
from office.views.ledger import Ledger, Review, ReviewAction

ACK = "alert_ack"
REVIEW = "review"

def todo(alert_id: int | None, match: str | None) -> str:
    """What the office does about an alert, as the page and ``office alerts list`` say."""
    which = "ID" if alert_id is None else str(alert_id)
    if match is None:
        return f"office alerts ack {which} once seen"
    return (f"replay, keep or swap {match}: office alerts resolve {which} "
            "--replay|--keep|--swap --reason ...")


class AlertStatus(StrEnum):
    OPEN = "open"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"


@dataclass(frozen=True, slots=True)
class Handled:
    """What the office did about one alert, and why."""

    status: AlertStatus
    note: str


def reviews_of(actions: Iterable[AdminAction]) -> list[Review]:
    """The office's ``review`` actions as the ledger reads them, oldest first."""
    out: list[Review] = []
    for a in actions:
        if a.kind != REVIEW:
            continue
        data = a.data
        out.append(Review(match=str(data["match"]), action=ReviewAction(data["action"]),
                          reason=str(data["reason"]), at=a.at,
                          home=_opt(data.get("home")), away=_opt(data.get("away")),
                          seq=int(data["seq"]) if data.get("seq") is not None else None))
    return out


def handled(actions: Iterable[AdminAction]) -> dict[int, Handled]:
    """Alert id -> what the office last did about it (a resolution outranks an ack)."""
    out: dict[int, Handled] = {}
    for a in actions:
        data = a.data
        if a.kind == ACK:
            alert = int(data["alert"])
            if alert not in out or out[alert].status is not AlertStatus.RESOLVED:
                out[alert] = Handled(AlertStatus.ACKNOWLEDGED, str(data.get("reason") or ""))
        elif a.kind == REVIEW:
            for alert in data.get("alerts") or ():
                out[int(alert)] = Handled(AlertStatus.RESOLVED,
                                          f"{data['action']}: {data['reason']}")
    return out


def review_data(review: Review, alerts: Sequence[int]) -> dict[str, Any]:
    """A review as its ``admin`` row (what ``reviews_of`` reads back)."""
    return {"match": review.match, "action": review.action.value, "reason": review.reason,
            "home": review.home, "away": review.away, "seq": review.seq,
            "alerts": list(alerts)}


def open_alerts_of(match: str, alerts: Iterable[Alert],
                   done: Mapping[int, Handled]) -> list[int]:
    """The ids of the alerts about ``match`` not resolved yet (acknowledged ones too)."""
    return [a.id for a in alerts if a.match == match
            and (a.id not in done or done[a.id].status is not AlertStatus.RESOLVED)]


def played_changes(old: Ledger, new: Ledger) -> list[tuple[str, str]]:
    """(match, text) for every bracket match the halls already played whose pairing the
    bracket changed, a side filled for the first time included (lots drawn after a match
    was played while held): the office must resolve each (keep, swap or replay)."""
    out: list[tuple[str, str]] = []
    for m in new.tournament.matches:
        if m.group is not None:
            continue
        view = new.matches[m.id]
        if view.hall_teams is None or view.correction is not None:
            continue
        before, after = old.pairings.get(m.id), new.pairings.get(m.id)
        if before is None or after is None or (before.home, before.away) == (after.home,
                                                                             after.away):
            continue
        if view.review is None:
            continue  # the change put the match back to the teams who played it
        shown = " - ".join(t or s.label() for t, s in ((after.home, m.home),
                                                        (after.away, m.away)))
        out.append((m.id, f"{m.id} was already played as {view.hall_teams[0]} - "
                          f"{view.hall_teams[1]}; the bracket now says {shown}"))
    return out


def _opt(value: object) -> str | None:
    return None if value is None else str(value)
