"""The phases' course as data (arena/core/machine.py TRANSITIONS) and the engine's split:
the engine reads the table, and no part of it grows into a second 1,000-line class."""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

import pytest

from arena.core import machine
from arena.core.commands import End, Forfeit, Start
from arena.core.machine import TRANSITIONS, Trigger, after
from arena.core.phase import Phase, Stage, Team

from .helpers import Game, S

CORE = Path(__file__).resolve().parents[2] / "arena" / "core"


def test_every_phase_has_a_row_and_every_phase_but_the_first_is_reached() -> None:
    assert set(TRANSITIONS) == set(Phase)
    reached = {to for row in TRANSITIONS.values() for to in row.values()}
    assert reached == set(Phase) - {Phase.PREGAME}
    # A forfeit ends the match from wherever it stands.
    assert all(row[Trigger.DECIDED] is Phase.FINAL for row in TRANSITIONS.values())


def test_the_course_of_a_match() -> None:
    assert after(Phase.PREGAME, Trigger.START) is Phase.PERIOD
    assert after(Phase.PERIOD, Trigger.PERIOD_OVER) is Phase.INTERMISSION
    assert after(Phase.INTERMISSION, Trigger.BREAK_OVER) is Phase.PERIOD
    assert after(Phase.PERIOD, Trigger.TIE_TO_OVERTIME) is Phase.OVERTIME_BREAK
    assert after(Phase.OVERTIME_BREAK, Trigger.BREAK_OVER) is Phase.OVERTIME
    assert after(Phase.OVERTIME, Trigger.TIE_TO_SHOOTOUT) is Phase.SHOOTOUT
    assert after(Phase.SHOOTOUT, Trigger.DECIDED) is Phase.FINAL


def test_a_trigger_without_a_cell_is_a_bug_not_a_refusal() -> None:
    with pytest.raises(AssertionError, match="no transition from pregame on break_over"):
        after(Phase.PREGAME, Trigger.BREAK_OVER)


def test_a_playoff_tie_walks_the_table() -> None:
    game = Game("youth-hockey-3x18", Stage.PLAYOFF)
    seen = [game.match.state.phase]
    for i, command in enumerate([Start, End, End, End, End, End, End, End]):
        game.do(command(S(i + 1)))
        seen.append(game.match.state.phase)
    assert game.refusals == []
    assert seen == [Phase.PREGAME, Phase.PERIOD, Phase.INTERMISSION, Phase.PERIOD,
                    Phase.INTERMISSION, Phase.PERIOD, Phase.OVERTIME_BREAK, Phase.OVERTIME,
                    Phase.SHOOTOUT]
    assert all(to in TRANSITIONS[fr].values() for fr, to in pairwise(seen)
               if fr is not to)


def test_the_engine_reads_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the cell the first face-off has nowhere to go: the engine asks the table.
    course = {**TRANSITIONS, Phase.PREGAME: {Trigger.DECIDED: Phase.FINAL}}
    monkeypatch.setattr(machine, "TRANSITIONS", course)
    game = Game("ice-hockey-2x20")
    with pytest.raises(AssertionError, match="no transition from pregame on start"):
        game.do(Start(S(1)))
    game.do(Forfeit(S(2), Team.HOME))
    assert game.match.state.phase is Phase.FINAL


def _lines(node: ast.AST) -> int:
    assert node.end_lineno is not None
    return node.end_lineno - node.lineno + 1


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_no_core_module_over_800_lines_and_no_class_over_400(path: Path) -> None:
    source = path.read_text()
    assert len(source.splitlines()) <= 800
    classes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)]
    assert all(_lines(c) <= 400 for c in classes), [(c.name, _lines(c)) for c in classes]
