"""The between-games screen's data: what the hall display shows when no game is on.

Before the first face-off: the match on the board (with the time the office scheduled it)
and the office's group tables. After a final, once the result has been up for the final
hold: the next match the office sent, if any, and the tables. A ``next`` whose teams the
office does not know yet (``waiting``, arena/wire/) is shown with its slots' labels
and ``"waiting": true``: the display says "waiting for the office". The tables turn a page every
``PAGE_NS`` when they do not fit (the display picks the page from ``page``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.core.match import Match
from arena.core.phase import Phase
from arena.core.units import NS_PER_S
from firmware_py.nextmatch import before_first_press, replay_above, showing_final, waiting

PAGE_NS = 8 * NS_PER_S


def between_games(match: Match, at: int, *, pending: Mapping[str, Any] | None,
                  loaded: Mapping[str, Any] | None,
                  standings: Mapping[str, Mapping[str, Any]],
                  final_hold: int, offer: Mapping[str, Any] | None = None,
                  public_url: str | None = None, replay: bool = False
                  ) -> dict[str, Any] | None:
    """The screen's data at ``at``, or None while a game (or a final being held) is on.

    ``pending``: the office's ``next`` waiting to be loaded; ``loaded``: the ``next`` the
    match on the board came from (None for the config's first match); ``standings``: the
    office's tables by group (``wire.between_table``: what the display shows of each);
    ``offer``: a match of the local schedule whose teams are not known yet, waiting for the
    timekeeper (docs/technician.md, "A hall without an office"): shown instead of the board's match
    before its first press, and after a final when the office sent nothing;
    ``public_url``: the public site's address ([display] public_url), shown as a QR code;
    ``replay``: the game on the board replays a match whose result the office voided (the
    screen says so before its face-off, as it does of a ``next`` that replays one)."""
    state = match.state
    upcoming: dict[str, Any] | None
    if state.phase is Phase.FINAL:
        if showing_final(state, at, final_hold):
            return None  # the final result stays up first
        shown = pending if pending is not None else offer
        upcoming = None if shown is None else _upcoming(shown)
    elif state.phase is Phase.PREGAME and offer is not None and before_first_press(state):
        upcoming = _upcoming(offer)
    elif state.phase is Phase.PREGAME:
        setup = match.setup
        source = loaded or {}
        upcoming = {"match": setup.match_id, "time": source.get("scheduled"),
                    "label": source.get("label"),
                    # who may not play (the office's suspensions): shown before the face-off
                    "suspended": list(source.get("suspended") or []),
                    "home": {"name": setup.home.name, "colours": list(setup.home.colours)},
                    "away": {"name": setup.away.name, "colours": list(setup.away.colours)}}
        if replay:
            upcoming["replay"] = True
    else:
        return None
    # In an event of several categories the office's `next` names the match's category and
    # its tables arrive as "<category>/<group>": only that category's are shown (those of
    # the next match once a final is done, else those of the match on the board). Without a
    # category (a one-category event, the config's first match) every table is shown.
    shown = pending if state.phase is Phase.FINAL and pending is not None else loaded
    category = (shown or {}).get("category")
    tables = [dict(standings[g]) for g in sorted(standings)  # as wire.between_table made them
              if category is None or g.startswith(f"{category}/")]
    if upcoming is None and not tables:
        return None
    out: dict[str, Any] = {"next": upcoming, "tables": tables, "page": max(at, 0) // PAGE_NS}
    if public_url is not None:
        out["public_url"] = public_url
    return out


def _upcoming(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A ``next`` document as the screen shows it."""
    out = {"match": doc["match"], "time": doc.get("scheduled"), "label": doc.get("label"),
           "home": doc["teams"]["home"], "away": doc["teams"]["away"]}
    if waiting(doc):
        out["waiting"] = True
    if replay_above(doc) is not None:
        out["replay"] = True
    return out
