"""Line changes (rules 002): the youth game's shifts, ended by the horn at fixed game times.

The one reckoning of the shift countdown: the engine's deadlines, the display's next frame
and the state document's ``shift_ms`` all read it from here.
"""

from __future__ import annotations

from .lengths import play_length
from .penalties import ShiftEnd
from .phase import Phase
from .preset import Preset
from .units import Nanos
from .values import MatchState


def shifts_on(preset: Preset, phase: Phase) -> bool:
    """Whether line changes count in ``phase`` (overtime: only if the preset says so)."""
    shifts = preset.shifts
    if shifts is None or phase in (Phase.SHOOTOUT, Phase.FINAL):
        return False
    if phase in (Phase.OVERTIME, Phase.OVERTIME_BREAK):
        return shifts.in_overtime
    return True


def shift_end(preset: Preset, s: MatchState) -> ShiftEnd | None:
    """Game time -> the end of the shift running then (rules 002 minors end there).

    The period's end ends its last shift. A part that starts at that very instant (a double
    minor's second part, a penalty whose place freed then) belongs to the first shift played
    next, after the break (rules 002: penalised players stay in the penalty box over it): it
    is given the end of a whole shift after the period's end, which ``carried`` reads again
    off the phase that follows once the period has ended (overtime may be shorter, or have
    no shifts)."""
    shifts = preset.shifts
    if shifts is None or not shifts_on(preset, s.phase):
        return None
    played, length, shift = s.played, play_length(preset, s.phase), shifts.length

    def end(elapsed: Nanos) -> Nanos:
        if elapsed - played >= length:
            return played + length + shift
        return played + min(length, ((elapsed - played) // shift + 1) * shift)

    return end


def mark_at(preset: Preset, s: MatchState, at: Nanos) -> Nanos | None:
    """The last line change before the clock's time at ``at``: after a clock correction the
    next change is the next one after the new time. None in a break or without shifts."""
    shifts = preset.shifts
    if shifts is None or s.phase.is_break:
        return None
    into = play_length(preset, s.phase) - s.clock.remaining(at)
    return (into // shifts.length) * shifts.length


def _change_after_mark(preset: Preset, s: MatchState) -> Nanos | None:
    """Period game time of the line change after the last one, inside the period or not."""
    shifts = preset.shifts
    if shifts is None or not shifts_on(preset, s.phase):
        return None
    return (s.shift_mark // shifts.length + 1) * shifts.length


def next_change(preset: Preset, s: MatchState) -> Nanos | None:
    """Period game time of the next line change, if one falls inside the period."""
    change = _change_after_mark(preset, s)
    return change if change is not None and change < play_length(preset, s.phase) else None


def shift_left(preset: Preset, s: MatchState, now: Nanos) -> Nanos | None:
    """Time at ``now`` to the next line change, or to the period's end if none falls before
    it: it counts with the game clock. None outside play and its pregame (a break, the
    shootout, the final) or where the preset has no shifts (then, too, in overtime)."""
    change = _change_after_mark(preset, s)
    if change is None or s.phase.is_break:
        return None
    length = play_length(preset, s.phase)
    into = length - s.clock.remaining(now)
    return max(0, min(change, length) - into)


def changes_passed(preset: Preset, before: MatchState, after: MatchState) -> int:
    """How many line changes lie between ``before`` and ``after`` of one period: a clock
    set forward passes them without their horn (the mark jumps)."""
    shifts = preset.shifts
    if shifts is None or after.phase is not before.phase or after.period != before.period:
        return 0
    return max(0, (after.shift_mark - before.shift_mark) // shifts.length)
