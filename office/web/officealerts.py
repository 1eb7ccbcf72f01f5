"""The office page's alerts, grouped by kind: each kind under one heading, most urgent first,
so a day's fifteen schedule warnings never bury the one result that waits for the office.

Pure: the office's snapshot (``office.views.snapshot``) and a language in, groups out. The
kinds, in the order the page shows them (``KINDS``):

- ``store``: the store fails (a full disk): since when and how many events wait in memory;
- ``review``: results that do not fit the schedule (``review``), each with what to do;
- ``played``: an alert about a played bracket match whose teams changed (it names the match);
- ``results``: the ledgers' own warnings (missing events, an eliminated team in a match, a
  decided match that ended level);
- ``notices``: the service's other alerts (the bracket re-filled, a conflicting duplicate, a
  schedule change), each open until acknowledged;
- ``held``: matches the halls are not sent yet, and what each waits for;
- ``schedule``: the schedule's own warnings (back to back, home and away), folded into one
  line that opens: they are known before the first whistle and change nothing by the hour.

An alert about a match closes by itself once that match no longer waits for the office
(settled by ``office review``, by a correction, or by the bracket moving back): it is shown
in the history as settled, even where no office action named it. Acknowledged and resolved
alerts are in the history too, newest first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from office.views.jsonread import dicts, mapping, strings

KINDS = ("store", "review", "played", "results", "notices", "held", "schedule")
SETTLED = "settled"  # a status of the page's own: what raised the alert is settled

Words = Callable[..., str]


@dataclass(frozen=True, slots=True)
class AlertLine:
    """One line of an alert group or of the history. ``todo``: what the office does, as
    (words before, the command); ``note``: what was done about it."""

    text: str
    at: str = ""
    todo: tuple[str, str] | None = None
    id: int | None = None
    match: str | None = None
    status: str = "open"
    note: str = ""


@dataclass(frozen=True, slots=True)
class AlertGroup:
    kind: str
    heading: str
    lines: tuple[AlertLine, ...]

    @property
    def folded(self) -> bool:
        """Shown as one line that opens to the list."""
        return self.kind == "schedule"


@dataclass(frozen=True, slots=True)
class Alerts:
    groups: tuple[AlertGroup, ...]  # only the kinds that have a line, in ``KINDS`` order
    history: tuple[AlertLine, ...]

    def count(self, kind: str) -> int:
        return next((len(g.lines) for g in self.groups if g.kind == kind), 0)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _id(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def kind_of(alert: Mapping[str, Any]) -> str:
    """``played``, ``notices``, ``results`` or ``schedule`` for one of the snapshot's alerts:
    a stored alert has an id or a time; the ledgers' warnings have neither, and the
    schedule's own say so (``kind``)."""
    if alert.get("kind") == "schedule":
        return "schedule"
    if _id(alert.get("id")) is not None or alert.get("at") is not None:
        return "played" if _str(alert.get("match")) else "notices"
    return "results"


def group(doc: Mapping[str, Any], w: Words, hm: Callable[[Any], str]) -> Alerts:
    """The snapshot's alerts by kind; ``w(key, **fields)`` words them, ``hm`` a time."""
    lines: dict[str, list[AlertLine]] = {k: [] for k in KINDS}
    history: list[AlertLine] = []
    office = mapping(doc.get("office"))
    if office.get("store_since"):
        waiting = {k: v for k, v in mapping(office.get("store_waiting")).items()
                   if isinstance(v, int)}
        halls = ", ".join(f"{hall} {n}" for hall, n in waiting.items())
        lines["store"].append(AlertLine(
            w("office.alert.store", n=sum(waiting.values()), halls=halls or "-"),
            hm(office.get("store_since")), (w("office.todo.store"), "")))
    to_review = set()
    for r in dicts(doc.get("review")):
        match = _str(r.get("match"))
        to_review.add(match)
        lines["review"].append(AlertLine(
            w("office.alert.review", match=match, why=_str(r.get("why"))),
            todo=(w("office.todo.review"), f"office review {match} --keep|--swap|--replay"
                  if r.get("stage") != "group" else f"office review {match} --swap"),
            match=match))
    for a in dicts(doc.get("alerts")):
        kind = kind_of(a)
        alert_id, about = _id(a.get("id")), _str(a.get("match")) or None
        status = _str(a.get("status")) or "open"
        line = AlertLine(_str(a.get("text")), hm(a.get("at")) if a.get("at") else "",
                         id=alert_id, match=about, status=status, note=_str(a.get("note")))
        if kind == "played" and status != "resolved" and about not in to_review:
            # What raised it is settled: it closes by itself, whatever the office did.
            history.append(replace(line, status=SETTLED,
                                    note=w("office.alert.settled", match=about)))
        elif status != "open":
            history.append(line)
        else:
            lines[kind].append(replace(line, todo=_todo(kind, alert_id, about, w)))
    for held in dicts(doc.get("held")):
        lines["held"].append(AlertLine(
            w("office.alert.held", match=_str(held.get("match")), hall=_str(held.get("hall")),
              what=", ".join(strings(held.get("waiting_for")))),
            match=_str(held.get("match")) or None))
    groups = tuple(AlertGroup(k, w(f"office.kind.{k}", n=len(v)), tuple(v))
                   for k, v in lines.items() if v)
    return Alerts(groups, tuple(history))


def _todo(kind: str, alert_id: int | None, match: str | None, w: Words
          ) -> tuple[str, str] | None:
    """What the office does about an open alert: the words, then the command to type."""
    which = "ID" if alert_id is None else str(alert_id)
    if kind == "played" and match is not None:
        return (w("office.todo.played", match=match),
                f"office alerts resolve {which} --replay|--keep|--swap --reason ...")
    if kind == "notices":
        return w("office.todo.ack"), f"office alerts ack {which}"
    return None  # a ledger's warning says what to do in its own words (the service's)
