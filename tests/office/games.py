"""Matches played through the real core, as a hall would publish them (docs/developer.md 4.4).

The office tests feed the office what a hall really sends: the core's events, numbered by
the core, wrapped as ``events`` messages by ``wire.event_document``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena import presets, wire
from arena.core.commands import Command, End, Goal, Penalty, Shot, Start
from arena.core.match import Match, feed
from arena.core.phase import Phase, Stage, Team
from arena.core.values import MatchSetup, TeamInfo
from arena.wire import event_document
from office.storage.intake import HallEvent

S = 1_000_000_000  # ns a second


@dataclass(frozen=True)
class Play:
    """One match to play: goals and penalties as (side, player) in the first period."""

    match: str
    home: str
    away: str
    home_goals: int
    away_goals: int
    penalties: Sequence[tuple[str, int, str]] = ()  # (side, player, kind)
    stage: Stage = Stage.GROUP


def play(preset: str, hall: str, game: Play, *, finish: bool = True) -> list[dict[str, Any]]:
    """The ``events`` payloads of a whole match (or of its start only, ``finish=False``)."""
    p = presets.load(preset)
    match = Match(p, MatchSetup(game.match, game.stage, TeamInfo(game.home, ("#000000", "#ffffff")),
                                TeamInfo(game.away, ("#ffffff", "#000000"))))
    events = []
    t = 0

    def do(cmd: Command) -> None:
        fed = feed(match, cmd)
        assert fed.refused is None, fed.refused
        events.extend(fed.events)

    do(Start(at=t))
    for i in range(game.home_goals):
        t += S
        do(Goal(at=t, team=Team.HOME, player=10 + i))
    for i in range(game.away_goals):
        t += S
        do(Goal(at=t, team=Team.AWAY, player=20 + i))
    for side, player, kind in game.penalties:
        t += S
        do(Penalty(at=t, team=Team(side), player=player, kind=kind))
    if finish:
        while match.state.phase is not Phase.FINAL:
            t += S
            if match.state.phase is Phase.SHOOTOUT:
                # Home scores every shot, away misses: home wins the shootout.
                last = match.state.shots[-1].team if match.state.shots else None
                shooter = Team.AWAY if last is Team.HOME else Team.HOME
                try:
                    do(Shot(at=t, team=shooter, player=None, scored=shooter is Team.HOME))
                except AssertionError:
                    do(Shot(at=t, team=shooter.other, player=None,
                            scored=shooter.other is Team.HOME))
            else:
                do(End(at=t))
    return [event_document(hall, {"match": game.match, "seq": e.seq, "event": e.kind.value,
                                 "data": dict(e.data), "at": e.at}) for e in events]


def hall_event(payload: dict[str, Any]) -> HallEvent:
    """The event as the office's intake reads it off the wire (``wire.check_event``)."""
    hall = payload["event_id"].split(":")[0]
    topic = wire.hall_topic("cup", hall, wire.EVENTS)
    return wire.check_event(topic, encoded(payload), "cup")


def encoded(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()
