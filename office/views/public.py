"""The public projection of the office's snapshot: what spectators may read, and nothing else.

The office's snapshot (``office.views.snapshot``) also carries the office's own business: alerts,
results waiting for review, the service's health (refusals, quarantine, conflicts), the
reasons of corrections, suspensions and rulings. The public site (``office.web.publicsite``) is
built from ``public_snapshot`` alone, which copies only the fields named here (a whitelist:
a key the office adds to its snapshot later stays private until it is named here).

Pure and tolerant: an odd or missing part of the snapshot is dropped, never an error, so a
half-built document cannot take the public site down.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from office.views.jsonread import dicts, mapping, strings

# A match's state as the public reads it: a correction is the office's own (its reason
# never leaves the office), and a result under review has no public score until settled.
PUBLIC_STATES = {"scheduled": "scheduled", "live": "live", "final": "final",
                 "confirmed": "confirmed", "corrected": "confirmed",
                 "needs_review": "pending"}

_SCORE = ("home", "away")
_ROW = ("rank", "team", "played", "won", "drawn", "lost", "goals_for", "goals_against",
        "points", "penalty_minutes", "decided_by", "lots_needed")
_GROUP = ("name", "category", "provisional", "complete")
_MATCH = ("id", "category", "stage", "group", "hall", "start", "home", "away", "home_slot",
          "away_slot", "decided_by", "voided")
_BRACKET = ("match", "category", "stage", "home", "away", "home_slot", "away_slot",
            "provisional", "start", "hall")
_LIVE = ("match", "phase", "period", "clock_ms", "running")
_HALL = ("hall", "online", "next", "next_category")
_PLACING = ("place", "team", "label", "match", "shared", "provisional", "eliminated",
            "category")
_SCORER = ("rank", "team", "player", "name", "goals", "category")
_CATEGORY = ("name", "title", "preset")
_SLUG = ("kind", "category", "name", "slug")  # the pages' addresses (office.views.slugs)


def public_snapshot(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The public part of an office snapshot (``office.views.snapshot.event_snapshot``)."""
    tournament = mapping(doc.get("tournament"))
    # No "generated" time: the same public content must be the same bytes (one ETag, a 304
    # for every phone) however often the office rebuilds its own view; when it last
    # changed is the HTTP Last-Modified.
    out: dict[str, Any] = {
        "tournament": _pick(tournament, ("id", "name")),
        "groups": [_group(g) for g in dicts(doc.get("groups"))],
        "matches": [_match(m) for m in dicts(doc.get("matches"))],
        "bracket": [_pick(b, _BRACKET) for b in dicts(doc.get("bracket"))],
        "halls": [_hall(h) for h in dicts(doc.get("halls"))],
        "placings": [_pick(p, _PLACING) for p in dicts(doc.get("placings"))],
        "scorers": [_pick(s, _SCORER) for s in dicts(doc.get("scorers"))],
    }
    if "slugs" in doc:  # the addresses the office keeps for good: shared links hold
        out["slugs"] = [_pick(s, _SLUG) for s in dicts(doc.get("slugs"))]
    if "categories" in doc:  # an event of several: the category level, as the office's
        out["categories"] = [
            {**_pick(c, _CATEGORY), "groups": strings(c.get("groups"))}
            for c in dicts(doc.get("categories"))]
    return out


def _group(g: Mapping[str, Any]) -> dict[str, Any]:
    return {**_pick(g, _GROUP), "rows": [_pick(r, _ROW) for r in dicts(g.get("rows"))]}


def _match(m: Mapping[str, Any]) -> dict[str, Any]:
    out = _pick(m, _MATCH)
    state = PUBLIC_STATES.get(str(m.get("state")), "scheduled")
    out["state"] = state
    score = mapping(m.get("score"))
    out["score"] = _pick(score, _SCORE) if score and state != "pending" else None
    if state == "pending":
        out["decided_by"] = None
    return out


def _hall(h: Mapping[str, Any]) -> dict[str, Any]:
    out = _pick(h, _HALL)
    live = mapping(h.get("live"))
    if live:
        shown = _pick(live, _LIVE)
        score = mapping(live.get("score"))
        shown["score"] = _pick(score, _SCORE) if score else None
        teams = mapping(live.get("teams"))
        shown["teams"] = _pick(teams, _SCORE)
        out["live"] = shown
    else:
        out["live"] = None
    return out


def _pick(item: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The named keys that are there, each a plain value (a list or a table where a plain
    value belongs is dropped: it could hide anything)."""
    return {k: _scalar(item[k]) for k in keys if k in item}


def _scalar(value: Any) -> str | int | float | bool | None:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return None


