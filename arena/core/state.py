"""The state document (docs/developer.md 4.3): one JSON shape for the display, the retained MQTT
``state`` topic, the serial link and ``scoreboard replay``.

It is a pure function of a match's state and an instant, so the display computes it for the
very instant a frame is presented and a late frame never shows a stale tenth.
"""

from __future__ import annotations

from typing import Any

from . import shootout as shootout_rules
from .match import Match
from .phase import Phase, Team
from .shifts import shift_left
from .units import Nanos, ceil_ms


def state_document(match: Match, now: Nanos, entry: dict[str, Any] | None = None
                   ) -> dict[str, Any]:
    """The state at ``now``; ``entry`` is the console's pending keypad entry, if any (the
    display shows it on the operator line; docs/developer.md 4.3 allows extra keys)."""
    s = match.state
    preset = match.preset
    setup = match.setup
    clock_ms = ceil_ms(s.clock.remaining(now))
    window = preset.stop_time_window(s.period) if s.phase is Phase.PERIOD else None
    stop_time = window is not None and 0 < s.clock.remaining(now) <= window
    horn = match.horn_sounding(now)
    extra = match.extra_player(s)
    doc: dict[str, Any] = {
        "preset": preset.name,
        "stage": setup.stage.value,
        "match": setup.match_id,
        "teams": {
            team.value: {"name": info.name, "colours": list(info.colours)}
            for team, info in ((Team.HOME, setup.home), (Team.AWAY, setup.away))
        },
        "phase": s.phase.value,
        "period": s.period,
        "clock_ms": clock_ms,
        "running": s.clock.running and clock_ms > 0,
        "stop_time": stop_time,
        "horn": horn,
        "score": {team.value: n for team, n in s.score().items()},
        "penalties": {team.value: _penalties(match, team, now) for team in Team},
        "strength": {team.value: match.strength(s, team) for team in Team},
        "shift_ms": _shift_ms(match, now),
        "timeout": None if s.timeout is None else {
            "team": s.timeout.team.value,
            "remaining_ms": ceil_ms(max(0, s.timeout.end - now)),
        },
        "shootout": _shootout(match),
        "extra_player": extra.value if extra is not None else None,
        "result": s.result.to_json() if s.result is not None else None,
        "entry": entry,
    }
    goal = _goal(match, now)
    if goal is not None:  # only for a few seconds after a goal: most documents lack it
        doc["goal"] = goal
    countdown = match.countdown(now)
    if countdown is not None:  # only before a scheduled start (core/pregame.py)
        doc["countdown"] = {"label": countdown.step.value,
                            "remaining_ms": ceil_ms(countdown.remaining)}
    return doc


def _goal(match: Match, now: Nanos) -> dict[str, Any] | None:
    """The goal just scored, for a few seconds (``Match.goal_shown``): who scored it, and
    his name when the team's roster has the number (only then: a document of a match
    without rosters stays as it was)."""
    goal = match.goal_shown(now)
    if goal is None:
        return None
    doc: dict[str, Any] = {"team": goal.team.value, "player": goal.player}
    team = match.setup.home if goal.team is Team.HOME else match.setup.away
    name = team.player_name(goal.player)
    if name is not None:
        doc["name"] = name
    return doc


def _penalties(match: Match, team: Team, now: Nanos) -> list[dict[str, Any]]:
    """Running ones first (in the order they started), then the waiting ones (in the order
    they will start); a double minor is one entry covering both parts."""
    s = match.state
    elapsed = match.elapsed(s, now)
    shift = match.preset.shifts.length if match.preset.shifts else None
    mine = [p for p in s.box if p.team is team and not p.done]
    running = sorted((p for p in mine if p.running), key=lambda p: (p.started or 0, p.seq))
    waiting = sorted((p for p in mine if p.waiting), key=lambda p: p.queue_key())
    return [
        {"player": p.player, "kind": p.kind.name,
         "remaining_ms": ceil_ms(p.remaining(elapsed, shift)), "running": p.running}
        for p in running + waiting
    ]


def _shift_ms(match: Match, now: Nanos) -> int | None:
    """Time to the next line change (rules 002): counts with the game clock."""
    left = shift_left(match.preset, match.state, now)
    return None if left is None else ceil_ms(left)


def _shootout(match: Match) -> dict[str, Any] | None:
    s = match.state
    rules = match.preset.shootout
    if rules is None or (s.phase is not Phase.SHOOTOUT and not s.shots):
        return None
    following = shootout_rules.next_team(rules, s.shots) if s.phase is Phase.SHOOTOUT else None
    return {
        "home": [x.scored for x in s.shots if x.team is Team.HOME],
        "away": [x.scored for x in s.shots if x.team is Team.AWAY],
        "next": following.value if following is not None else None,
    }
