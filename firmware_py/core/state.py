"""The state document (DESIGN.md 4.3): one JSON shape for the display, the retained MQTT
``state`` topic, the serial link and ``scoreboard replay``.

It is a pure function of a match's state and an instant, so the display computes it for the
very instant a frame is presented and a late frame never shows a stale tenth.
"""

from __future__ import annotations

from typing import Any

from .match import Match
from .phase import Phase, Team
from .units import Nanos, ceil_ms


def state_document(match: Match, now: Nanos) -> dict[str, Any]:
    s = match.state
    preset = match.preset
    setup = match.setup
    clock_ms = ceil_ms(s.clock.remaining(now))
    window = preset.stop_time_window(s.period) if s.phase is Phase.PERIOD else None
    stop_time = window is not None and 0 < s.clock.remaining(now) <= window
    horn = any(h is not None and h.sounding(now) for h in (s.horn_auto, s.horn_manual))
    players = preset.players
    if s.phase in (Phase.OVERTIME, Phase.OVERTIME_BREAK) and preset.decision.overtime_players:
        players = preset.decision.overtime_players
    return {
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
        "penalties": {"home": [], "away": []},
        "strength": {"home": players, "away": players},
        "shift_ms": None,
        "timeout": None,
        "shootout": None,
        "extra_player": None,
        "result": s.result.to_json() if s.result is not None else None,
    }
