"""The phase table (arena/core/machine.py) against the commands, the phases and what
``Match.apply`` actually does in each phase."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from arena import presets
from arena.core.commands import (
    COMMANDS,
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
from arena.core.errors import Refused
from arena.core.machine import GRID, TABLE, UNSUPPORTED, refusal
from arena.core.match import Match
from arena.core.phase import Phase, Stage, Team

from .helpers import Game, S

HOME = Team.HOME

# One instance of every command at instant ``at``.
MAKE: dict[type[Command], Callable[[int], Command]] = {
    Start: Start,
    Stop: Stop,
    Goal: lambda at: Goal(at, HOME),
    Penalty: lambda at: Penalty(at, HOME, 7, "minor"),
    Timeout: lambda at: Timeout(at, HOME),
    Shot: lambda at: Shot(at, HOME, scored=True, player=9),
    Next: Next,
    SetClock: lambda at: SetClock(at, ms=1000),
    Horn: lambda at: Horn(at, on=True),
    Undo: Undo,
    Forfeit: lambda at: Forfeit(at, HOME),
    End: End,
    Cancel: lambda at: Cancel(at, 1),
    Correct: lambda at: Correct(at, 1, 5),
}

# How to reach each phase: a youth-hockey playoff (overtime, then a shootout) walked through
# by ``end``, a tie all the way; the final by a forfeit.
WALK: dict[Phase, list[Callable[[int], Command]]] = {
    Phase.PREGAME: [],
    Phase.PERIOD: [Start],
    Phase.INTERMISSION: [Start, End],
    Phase.OVERTIME_BREAK: [Start, End, End, End, End, End],
    Phase.OVERTIME: [Start, End, End, End, End, End, End],
    Phase.SHOOTOUT: [Start, End, End, End, End, End, End, End],
    Phase.FINAL: [lambda at: Forfeit(at, HOME)],
}


def in_phase(phase: Phase) -> tuple[Game, int]:
    """A game in ``phase`` and the next free instant."""
    game = Game("youth-hockey-3x18", Stage.PLAYOFF)
    at = 0
    for make in WALK[phase]:
        game.do(make(at))
        at += S(1)
    assert game.refusals == []
    assert game.match.state.phase is phase
    return game, at


def test_the_table_has_a_row_per_command_and_a_cell_per_phase() -> None:
    assert set(TABLE) == set(COMMANDS.values()) == set(MAKE)
    for command, row in GRID.items():
        assert len(row) == len(Phase), command.name
    assert all(set(row) == set(Phase) for row in TABLE.values())


def test_every_command_of_the_table_has_a_handler() -> None:
    match = Match(in_phase(Phase.PREGAME)[0].match.preset)
    assert set(match._handlers()) == set(TABLE)


def test_a_command_outside_the_table_is_refused_as_unsupported() -> None:
    class Teleport(Command):
        name = "teleport"

    assert refusal(Teleport(0), Phase.PERIOD) == UNSUPPORTED
    game = Game("ice-hockey-2x20")
    with pytest.raises(Refused, match="teleport refused: not supported"):
        game.match.apply(Teleport(S(1)))


CELLS = [(command, phase) for command in MAKE for phase in Phase]
YOUTH_NO_TIMEOUT = presets.load("youth-hockey-3x18").cite("timeouts.per_team") or ""

# Where the table allows a command but the walk's state does not: each handler's own reason.
BEYOND_THE_PHASE = {
    (Start, Phase.PERIOD): "the clock is already running",
    (Stop, Phase.OVERTIME): "the clock is already stopped",
    (Next, Phase.PERIOD): "the clock is running: stop it first (or use end)",
    # With the reason its preset cites (timeouts.per_team = 0: rules 002's running clock).
    (Timeout, Phase.PERIOD): "the youth-hockey-3x18 rules have no time-outs: " + YOUTH_NO_TIMEOUT,
    (Timeout, Phase.OVERTIME): "the youth-hockey-3x18 rules have no time-outs: "
                               + YOUTH_NO_TIMEOUT,
    (Undo, Phase.PREGAME): "there is nothing to undo",
    (Undo, Phase.PERIOD): "there is nothing to undo",
    # Event 1 is the start of play (or, in the final, the forfeit): no goal, no penalty.
    **{(c, Phase.PREGAME): "there is no event 1 in this match (the latest is 0)"
       for c in (Cancel, Correct)},
    **{(c, p): "event 1 is not a goal or a penalty on record (another event, or one taken "
       "back by undo)" for c in (Cancel, Correct) for p in Phase if p is not Phase.PREGAME},
}


@pytest.mark.parametrize(("command", "phase"), CELLS,
                         ids=[f"{c.name}-{p.value}" for c, p in CELLS])
def test_the_match_refuses_exactly_where_the_table_says(
    command: type[Command], phase: Phase
) -> None:
    game, at = in_phase(phase)
    game.match.advance(at)
    before = game.match.state
    cell = TABLE[command][phase]
    expected = cell.text.format(phase=phase.value) if cell is not None else \
        BEYOND_THE_PHASE.get((command, phase))
    try:
        game.match.apply(MAKE[command](at))
    except Refused as refused:
        assert refused.reason == expected
        assert game.match.state is before
    else:
        assert expected is None, f"{command.name} was accepted in the {phase.value} phase"


def test_the_reasons_name_the_phase() -> None:
    def text(command: Command, phase: Phase) -> str | None:
        why = refusal(command, phase)
        return None if why is None else why.text

    assert text(Goal(0, HOME), Phase.OVERTIME_BREAK) == (
        "no goal can be scored in the overtime_break phase")
    assert text(Next(0), Phase.PREGAME) == (
        "nothing follows the pregame phase by itself; press start to begin")
    assert text(Shot(0, HOME, scored=True), Phase.PERIOD) == (
        "no shootout is on (the match is in the period phase)")
    # The table's words for it: the key, and the phase to word (docs/developer.md, "Languages").
    why = refusal(Goal(0, HOME), Phase.OVERTIME_BREAK)
    assert why is not None and (why.key, why.field("phase")) == ("no_goal", "overtime_break")
    assert refusal(Undo(0), Phase.FINAL) is None
