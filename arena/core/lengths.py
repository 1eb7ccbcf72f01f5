"""How long a phase's clock runs: the one place that knows which of the preset's lengths
belongs to which phase (the engine, the state document and the office's game sheet ask
here, so a period, a break and overtime are never measured two ways)."""

from __future__ import annotations

from .phase import Phase
from .preset import Preset
from .units import Nanos


def phase_length(preset: Preset, phase: Phase, period: int) -> Nanos:
    """The full length of ``phase``'s clock; ``period`` is the state's period number (in an
    intermission: the period that comes next). 0 where the preset has no such phase, and
    the period's length in the phases without a clock of their own (pregame: the first
    period's, which the clock shows)."""
    if phase is Phase.INTERMISSION:
        return preset.break_after(period - 1)
    if phase is Phase.OVERTIME_BREAK:
        return preset.decision.overtime_break or 0
    if phase is Phase.OVERTIME:
        return preset.decision.overtime or 0
    return preset.period_length


def play_length(preset: Preset, phase: Phase) -> Nanos:
    """The length of the period being played in ``phase`` or coming next after it: game
    time (penalties, line changes) is measured against this one, a break's too."""
    overtime = phase in (Phase.OVERTIME, Phase.OVERTIME_BREAK)
    return phase_length(preset, Phase.OVERTIME if overtime else Phase.PERIOD, 0)
