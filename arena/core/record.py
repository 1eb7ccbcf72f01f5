"""What the tournament records of a match: the office ranks and suspends from it alone."""

from __future__ import annotations

from typing import Any

from . import shootout as shootout_rules
from .phase import Team
from .preset import Preset
from .step import score_json
from .values import MatchSetup, MatchState


def match_record(preset: Preset, setup: MatchSetup, s: MatchState) -> dict[str, Any]:
    """The record of the match ``s`` is the state of (the last event of a match carries it)."""
    rules = preset.shootout
    record: dict[str, Any] = {
        "match": setup.match_id,
        "preset": preset.name,
        "stage": setup.stage.value,
        "teams": {"home": setup.home.name, "away": setup.away.name},
        "result": s.result.to_json() if s.result is not None else None,
        "score": score_json(s.score()),
        "goals": [
            {"team": g.team.value, "player": g.player, "period": g.period,
             "clock_ms": g.clock_ms}
            for g in s.goals
        ],
        "penalties": [
            {"team": p.team.value, "player": p.player, "kind": p.kind.name,
             "minutes": p.kind.recorded_minutes, "period": p.period, "clock_ms": p.clock_ms,
             "coincidental": p.coincidental, "ejected": p.kind.ejects}
            for p in s.box
        ],
        "penalty_minutes": {
            team.value: sum(p.kind.recorded_minutes for p in s.box if p.team is team)
            for team in Team
        },
        "forfeit": s.forfeit.value if s.forfeit is not None else None,
        "shootout": None,
    }
    if s.shots and rules is not None:
        won_by = shootout_rules.winner(rules, s.shots)
        deciding = shootout_rules.decisive(s.shots, won_by) if won_by is not None else None
        record["shootout"] = {
            "shots": [{"team": x.team.value, "player": x.player, "scored": x.scored}
                      for x in s.shots],
            "decisive": {"team": deciding.team.value, "player": deciding.player}
            if deciding is not None else None,
        }
    return record
