"""Facts of the core told once: a second copy coming back elsewhere fails here.

Read from the sources (the syntax tree, not the text), so a comment or a docstring that
mentions a name is no copy; the behaviour each fact stands for is tested beside it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import presets, wire
from arena.core.commands import SetClock, Start, Stop
from arena.core.lengths import phase_length, play_length
from arena.core.phase import PLAYED_STAGES, Phase, Stage
from arena.core.shifts import shift_left
from arena.core.units import NS_PER_MS, NS_PER_S
from arena.tournament import model

from .helpers import Game, S

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("arena", "firmware_py", "office", "display", "hardware", "demo", "bench")


def sources() -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(), str(path))


SOURCES = list(sources())
NODES = [(name, node) for name, tree in SOURCES for node in ast.walk(tree)]


def where(found: type[ast.AST], test: object) -> list[str]:
    """The modules with a node of type ``found`` for which ``test(node)`` holds."""
    assert callable(test)
    return sorted({name for name, node in NODES if isinstance(node, found) and test(node)})


def test_the_sources_are_read() -> None:
    assert "arena/core/units.py" in dict(SOURCES)
    assert len(SOURCES) > 100


# ---------------------------------------------------------------- 1. one Stage enum


def test_stage_is_defined_once_in_the_core() -> None:
    assert where(ast.ClassDef, lambda n: n.name == "Stage") == ["arena/core/phase.py"]
    assert model.Stage is Stage


def test_a_standings_row_is_defined_once_in_the_wire() -> None:
    # The office ranks into it, the topic carries it, the hall's display reads it.
    assert where(ast.ClassDef, lambda n: n.name == "Row") == ["arena/wire/standings.py"]
    assert model.Row is wire.Row


def test_the_tournament_files_stages_and_the_scoreboards() -> None:
    # The tournament file's spelling, accepted as it always was.
    assert [s.value for s in Stage] == ["group", "playoff", "placement"]
    # Presets and the hall's --stage name only these: whether a draw stands.
    assert [s.value for s in PLAYED_STAGES] == ["group", "playoff"]
    assert [s.played_as for s in Stage] == [Stage.GROUP, Stage.PLAYOFF, Stage.PLAYOFF]
    assert [s.decided for s in Stage] == [False, True, True]
    decision = presets.load("ice-hockey-2x20").decision
    assert decision.required(Stage.PLACEMENT) == decision.required(Stage.PLAYOFF)


# ---------------------------------------------------------------- 2. one time-units module

UNIT_NAMES = {"NS_PER_S", "NS_PER_MS", "MS_PER_S", "NS", "MS", "NS_PER_SECOND"}
FACTORS = {1_000_000, 1_000_000_000}


def _binds_a_unit(node: ast.Assign | ast.AnnAssign) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    names = {t.id for t in targets if isinstance(t, ast.Name)}
    bare = isinstance(node.value, ast.Constant) and node.value.value in FACTORS
    timed = any("NS" in name or "MS" in name for name in names)  # not a PPM's million
    return bool(names & UNIT_NAMES) or (timed and bare)


def test_time_units_are_defined_only_in_the_units_module() -> None:
    found = where(ast.Assign, _binds_a_unit) + where(ast.AnnAssign, _binds_a_unit)
    assert found == ["arena/core/units.py"]


def _is_ten_to_the_nine(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):  # 1_000_000_000, and 1e9 too
        return type(node.value) in (int, float) and node.value == 1_000_000_000
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) \
        and ast.unparse(node).replace(" ", "") == "10**9"


def test_no_module_spells_nanoseconds_per_second_itself() -> None:
    assert where(ast.AST, _is_ten_to_the_nine) == ["arena/core/units.py"]
    assert (NS_PER_S, NS_PER_MS) == (10**9, 10**6)


# ---------------------------------------------------------------- 3. one phase length


def _reads_a_phase_length(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr in ("break_after", "overtime_break"):
        return True
    # ``decision.overtime or ...``: a length, not the question whether there is overtime.
    return isinstance(node, ast.BoolOp) and isinstance(node.values[0], ast.Attribute) \
        and node.values[0].attr == "overtime"


def test_phase_lengths_are_computed_only_in_the_lengths_module() -> None:
    found = where(ast.Attribute, _reads_a_phase_length) + where(ast.BoolOp, _reads_a_phase_length)
    assert set(found) == {"arena/core/lengths.py"}


def test_the_phase_lengths_of_a_preset() -> None:
    preset = presets.load("youth-hockey-3x18")
    assert phase_length(preset, Phase.PERIOD, 2) == preset.period_length
    assert phase_length(preset, Phase.INTERMISSION, 2) == preset.break_after(1)
    assert phase_length(preset, Phase.OVERTIME, 4) == preset.decision.overtime
    assert phase_length(preset, Phase.OVERTIME_BREAK, 4) == preset.decision.overtime_break
    assert play_length(preset, Phase.OVERTIME_BREAK) == preset.decision.overtime
    assert play_length(preset, Phase.INTERMISSION) == preset.period_length


def test_a_clock_is_set_no_longer_than_the_phase_length() -> None:
    game = Game("ice-hockey-2x20")
    length_ms = phase_length(game.match.preset, Phase.PERIOD, 1) // NS_PER_MS
    game.do(SetClock(S(1), ms=length_ms + 1))
    assert game.refusals and "more than the" in game.refusals[-1]
    game.do(SetClock(S(2), ms=length_ms))
    assert game.refusals == game.refusals[:1]


# ---------------------------------------------------------------- 4. one shift countdown


def test_the_shift_countdown_is_computed_only_in_the_shifts_module() -> None:
    def counts_shifts(node: ast.AST) -> bool:
        return isinstance(node, ast.BinOp) and isinstance(node.left, ast.Attribute) \
            and node.left.attr == "shift_mark"

    assert where(ast.BinOp, counts_shifts) == ["arena/core/shifts.py"]


@pytest.mark.parametrize("after_s", [0, 1, 30, 59, 61, 130])
def test_the_state_documents_shift_is_the_cores_countdown(after_s: int) -> None:
    game = Game("youth-hockey-3x18")
    game.do(Start(S(10)))
    game.do(Stop(S(10 + after_s)))
    now = S(10 + after_s)
    left = shift_left(game.match.preset, game.match.state, now)
    assert left is not None
    assert game.at(10 + after_s)["shift_ms"] == -(-left // NS_PER_MS)
