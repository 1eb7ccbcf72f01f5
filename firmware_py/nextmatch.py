"""The office's ``next`` (docs/developer.md 4.4): the match this hall plays next.

A new ``next`` loads the match into pregame only when no match is in progress: before the
first press of the current match, or once it is final. During a game it waits (the latest
one wins) and is taken as soon as the hall is free. Retained topics carry state, never
commands: loading the next match is the hall's own decision, made here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.core.phase import Phase, Stage
from arena.core.values import MatchSetup, MatchState, TeamInfo
from arena.wire import Nx


def in_progress(state: MatchState | None) -> bool:
    """A match has begun and is not over: a new ``next`` must wait."""
    if state is None:
        return False
    if state.phase is Phase.FINAL:
        return False
    return not before_first_press(state)


def before_first_press(state: MatchState) -> bool:
    """Nothing has happened in the game yet. Read off the latest event's instant, not its
    seq: a replayed game (``replay_above``) or one after a damaged journal starts its
    numbering above zero before anything happens."""
    return state.phase is Phase.PREGAME and state.last_at is None


def showing_final(state: MatchState | None, now: int | None, hold: int) -> bool:
    """A final result still within ``hold`` of its last event: it stays on the board (the
    spectators read it) before the next match, or the between-games screen, replaces it."""
    return (state is not None and now is not None and state.phase is Phase.FINAL
            and state.last_at is not None and now - state.last_at < hold)


def setup_from_next(doc: dict[str, Any]) -> tuple[str, MatchSetup]:
    """The preset name and the match setup of a checked ``next`` (its ``wire.next_document``)."""
    teams = doc["teams"]
    return doc["preset"], MatchSetup(
        match_id=doc["match"],
        stage=Stage(doc.get("stage", "group")),
        home=team_from_next(teams["home"]),
        away=team_from_next(teams["away"]),
    )


def team_from_next(team: Mapping[str, Any]) -> TeamInfo:
    """One side of a checked ``next`` (its roster, when it has one, keyed by the number's
    digits as ``wire.roster_document`` writes it)."""
    roster = team.get(Nx.ROSTER) or {}
    return TeamInfo(team[Nx.NAME], (team[Nx.COLOURS][0], team[Nx.COLOURS][1]),
                    bool(team.get(Nx.PLACEHOLDER, False)),
                    tuple(sorted((int(n), str(name)) for n, name in roster.items())))


def replay_above(doc: Mapping[str, Any] | None) -> int | None:
    """The seq a ``next`` that replays its match numbers the fresh game above (docs/developer.md,
    "MQTT to the office"); None for any other ``next``."""
    replay = None if doc is None else doc.get(Nx.REPLAY)
    return int(replay[Nx.ABOVE_SEQ]) if isinstance(replay, Mapping) else None


def waiting(doc: Mapping[str, Any] | None) -> bool:
    """The office's ``next`` names a match whose teams it does not know yet: shown as
    "waiting for the office", never loaded."""
    return doc is not None and bool(doc.get("waiting", False))


class NextMatch:
    def __init__(self) -> None:
        self.pending: dict[str, Any] | None = None

    def offer(self, doc: dict[str, Any]) -> None:
        """A validated ``next`` arrived (the latest replaces an earlier one not yet taken)."""
        self.pending = doc

    def take(self, current: MatchState | None, now: int | None = None, hold: int = 0
             ) -> dict[str, Any] | None:
        """The ``next`` to load now, if one waits and the hall is free (and a final result
        has been up for ``hold`` at ``now``); else None."""
        if self.pending is None or waiting(self.pending) or in_progress(current) \
                or showing_final(current, now, hold):
            return None
        doc, self.pending = self.pending, None
        return doc
