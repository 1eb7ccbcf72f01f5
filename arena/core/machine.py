"""The phase machine's one table: which command may be given in which phase, and why not.

Kept in one place, as h11 keeps its connection states, so the whole protocol reads at a
glance and a test can hold it against the commands and the phases: every command has a row
and every row a cell per phase. ``Match.apply`` consults it before any handler runs, so a
handler only refuses for reasons beyond the phase (a clock already running, a time-out
already used, a shooter barred).

Beside it, the phases' course as data (``TRANSITIONS``): from a phase, on a trigger, to the
next phase, as h11 keeps its state transitions. The engine decides which trigger a moment is
(the score and the preset say whether a tie goes to overtime or a shootout) and reads where
it leads here; a trigger the table has no cell for in a phase is a bug, never a refusal.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Final

from .commands import (
    Cancel,
    Command,
    Correct,
    End,
    Forfeit,
    Goal,
    Horn,
    Next,
    Penalty,
    SetClock,
    Shot,
    Start,
    Stop,
    Timeout,
    Undo,
)
from .errors import Reason, because
from .phase import Phase

# A cell: None where the command is allowed, else why not ("{phase}" is the phase's name;
# the key is the table's few words for it, see errors.Reason).
Cell = Reason | None
OK: Final = None

# Why not, one name each, so that the table below fits on a screen.
NO_CLOCK: Final = because("no_clock", "there is no game clock in the {phase} phase")
STOPPED: Final = because("stopped", "the clock is already stopped")
BREAK_RUNS: Final = because("break_runs", "the break clock runs by itself; use next or end "
                            "to end the break, set_clock to correct it")
NO_GOAL: Final = because("no_goal", "no goal can be scored in the {phase} phase")
SHOTS_ONLY: Final = because("shots_only", "in the shootout, record shots (shot, scored: true)")
NO_TIMEOUT: Final = because("no_timeout", "no time-out in the {phase} phase")
NO_SHOTS: Final = because("no_shots", "no shootout is on (the match is in the {phase} phase)")
DECIDED: Final = because("decided", "the match is over (final phase): the shootout, if any, "
                         "is decided")
NO_NEXT: Final = because("no_next", "nothing follows the {phase} phase by itself")
PRESS_START: Final = because("press_start", "nothing follows the {phase} phase by itself; "
                             "press start to begin")
NO_END: Final = because("no_end", "there is no period or break to end in the {phase} phase")
OVER: Final = because("over", "the match is already over (undo first to change it)")

COLUMNS: Final = tuple(Phase)

# The table: a row per command, a cell per phase in the order of COLUMNS.
GRID: Final[Mapping[type[Command], tuple[Cell, ...]]] = {
    #          PREGAME      PERIOD      INTERMISS.  OT_BREAK    OVERTIME    SHOOTOUT    FINAL
    Start:    (OK,          OK,         OK,         OK,         OK,         NO_CLOCK,   NO_CLOCK),
    Stop:     (STOPPED,     OK,         BREAK_RUNS, BREAK_RUNS, OK,         STOPPED,    STOPPED),
    Goal:     (NO_GOAL,     OK,         OK,         NO_GOAL,    OK,         SHOTS_ONLY, NO_GOAL),
    Penalty:  (OK,          OK,         OK,         OK,         OK,         OK,         OK),
    Timeout:  (NO_TIMEOUT,  OK,         NO_TIMEOUT, NO_TIMEOUT, OK,         NO_TIMEOUT, NO_TIMEOUT),
    Shot:     (NO_SHOTS,    NO_SHOTS,   NO_SHOTS,   NO_SHOTS,   NO_SHOTS,   OK,         DECIDED),
    Next:     (PRESS_START, OK,         OK,         OK,         OK,         NO_NEXT,    NO_NEXT),
    SetClock: (OK,          OK,         OK,         OK,         OK,         NO_CLOCK,   NO_CLOCK),
    Horn:     (OK,          OK,         OK,         OK,         OK,         OK,         OK),
    Undo:     (OK,          OK,         OK,         OK,         OK,         OK,         OK),
    Forfeit:  (OK,          OK,         OK,         OK,         OK,         OK,         OVER),
    End:      (NO_END,      OK,         OK,         OK,         OK,         NO_END,     NO_END),
    Cancel:   (OK,          OK,         OK,         OK,         OK,         OK,         OK),
    Correct:  (OK,          OK,         OK,         OK,         OK,         OK,         OK),
}  # fmt: skip

# The same, to look up: command -> phase -> cell (zip's strict: a row short of a cell fails
# at import, not at the match it would have let through).
TABLE: Final[Mapping[type[Command], Mapping[Phase, Cell]]] = {
    command: dict(zip(COLUMNS, row, strict=True)) for command, row in GRID.items()
}

UNSUPPORTED: Final = because("unsupported", "not supported by this version of the scoreboard")


def refusal(command: Command, phase: Phase) -> Reason | None:
    """Why ``command`` is refused in ``phase`` whatever else holds, or ``None`` if the phase
    allows it (its handler may still refuse it for another reason)."""
    row = TABLE.get(type(command))
    if row is None:
        return UNSUPPORTED
    cell = row[phase]
    if cell is None:
        return None
    return because(cell.key, cell.text.format(phase=phase.value), phase=phase.value)


class Trigger(StrEnum):
    """What moves a match on to another phase."""

    START = "start"  # the first face-off
    PERIOD_OVER = "period_over"  # a period of regulation ended and another one follows
    BREAK_OVER = "break_over"  # a break ran out, or ended early
    TIE_TO_OVERTIME = "tie_to_overtime"  # regulation ended tied and must be decided
    TIE_TO_SHOOTOUT = "tie_to_shootout"  # tied, and the preset decides it by shots
    DECIDED = "decided"  # the result stands (regulation, overtime, shootout or a forfeit)
    GOLDEN_GOAL_UNDONE = "golden_goal_undone"  # overtime goes on from the goal taken back


P = Phase
# The course: from phase -> trigger -> to phase. The rows past the final and the shootout
# are undo's and cancel's: a goal taken back decides again how regulation or overtime ended.
TRANSITIONS: Final[Mapping[Phase, Mapping[Trigger, Phase]]] = {
    P.PREGAME: {Trigger.START: P.PERIOD, Trigger.DECIDED: P.FINAL},
    P.PERIOD: {Trigger.PERIOD_OVER: P.INTERMISSION, Trigger.TIE_TO_OVERTIME: P.OVERTIME_BREAK,
               Trigger.TIE_TO_SHOOTOUT: P.SHOOTOUT, Trigger.DECIDED: P.FINAL},
    P.INTERMISSION: {Trigger.BREAK_OVER: P.PERIOD, Trigger.DECIDED: P.FINAL},
    P.OVERTIME_BREAK: {Trigger.BREAK_OVER: P.OVERTIME, Trigger.TIE_TO_OVERTIME: P.OVERTIME_BREAK,
                       Trigger.TIE_TO_SHOOTOUT: P.SHOOTOUT, Trigger.DECIDED: P.FINAL},
    P.OVERTIME: {Trigger.TIE_TO_SHOOTOUT: P.SHOOTOUT, Trigger.DECIDED: P.FINAL},
    P.SHOOTOUT: {Trigger.TIE_TO_OVERTIME: P.OVERTIME_BREAK, Trigger.TIE_TO_SHOOTOUT: P.SHOOTOUT,
                 Trigger.DECIDED: P.FINAL},
    P.FINAL: {Trigger.TIE_TO_OVERTIME: P.OVERTIME_BREAK, Trigger.TIE_TO_SHOOTOUT: P.SHOOTOUT,
              Trigger.DECIDED: P.FINAL, Trigger.GOLDEN_GOAL_UNDONE: P.OVERTIME},
}


def after(phase: Phase, trigger: Trigger) -> Phase:
    """The phase ``trigger`` leads to from ``phase``."""
    to = TRANSITIONS[phase].get(trigger)
    if to is None:
        raise AssertionError(f"no transition from {phase.value} on {trigger.value}")
    return to
