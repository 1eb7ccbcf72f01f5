"""Command parsing (docs/developer.md 4.2): well-formed commands in, precise errors for the rest."""

from __future__ import annotations

import pytest

from arena.core.commands import (
    COMMANDS,
    Goal,
    Penalty,
    SetClock,
    Shot,
    Start,
    parse_command,
)
from arena.core.errors import CommandError
from arena.core.phase import Team


def test_parses_every_command_of_the_design() -> None:
    assert set(COMMANDS) == {
        "start", "stop", "goal", "penalty", "timeout", "shot", "next", "set_clock", "horn",
        "undo", "forfeit", "end", "cancel", "correct",
    }
    assert parse_command({"do": "start"}, 5) == Start(at=5)
    assert parse_command({"do": "goal", "team": "away", "player": 11}, 7) == Goal(
        at=7, team=Team.AWAY, player=11)
    assert parse_command({"do": "goal", "team": "home"}, 7) == Goal(at=7, team=Team.HOME)
    assert parse_command(
        {"do": "penalty", "team": "home", "player": 7, "kind": "minor", "coincidental": True}, 1
    ) == Penalty(at=1, team=Team.HOME, player=7, kind="minor", coincidental=True)
    assert parse_command({"do": "shot", "team": "away", "scored": False}, 1) == Shot(
        at=1, team=Team.AWAY, scored=False)
    assert parse_command({"do": "set_clock", "ms": 60000}, 1) == SetClock(at=1, ms=60000)


@pytest.mark.parametrize(
    "obj",
    [
        {"do": "goal", "team": "away", "player": 11},
        {"do": "penalty", "team": "home", "player": 7, "kind": "double_minor"},
        {"do": "penalty", "team": "home", "player": 7, "kind": "minor", "coincidental": True},
        {"do": "horn", "on": True},
        {"do": "forfeit", "team": "home"},
        {"do": "set_clock", "ms": 0},
        {"do": "cancel", "seq": 12},
        {"do": "correct", "seq": 3, "player": 17},
    ],
)
def test_to_json_round_trips(obj: dict[str, object]) -> None:
    assert parse_command(obj, 3).to_json() == obj


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"do": "jump"}, "unknown command 'jump'"),
        ({"do": "cancel"}, "cancel: missing field 'seq'"),
        ({"do": "cancel", "seq": 0}, "'seq' must be an event's seq"),
        ({"do": "correct", "seq": 4}, "correct: missing field 'player'"),
        ({"do": "correct", "seq": 4, "player": 100}, "'player' must be a shirt number"),
        ({}, "'do' must name a command"),
        ({"do": "goal"}, "goal: missing field 'team'"),
        ({"do": "goal", "team": "visitors"}, "'team' must be \"home\" or \"away\", got 'visitors'"),
        ({"do": "goal", "team": "home", "plyer": 4}, "goal: unknown field 'plyer'"),
        ({"do": "goal", "team": "home", "player": "7"}, "'player' must be a shirt number"),
        ({"do": "goal", "team": "home", "player": 100}, "'player' must be a shirt number"),
        ({"do": "goal", "team": "home", "player": True}, "'player' must be a shirt number"),
        ({"do": "penalty", "team": "home", "player": 7}, "penalty: missing field 'kind'"),
        ({"do": "shot", "team": "home", "scored": 1}, "'scored' must be true or false"),
        ({"do": "set_clock", "ms": -1}, "'ms' must be whole milliseconds"),
        ({"do": "set_clock", "ms": 1.5}, "'ms' must be whole milliseconds"),
        ({"do": "start", "team": "home"}, "start: unknown field 'team' (takes no fields)"),
    ],
)
def test_malformed_commands_name_the_field_and_the_problem(obj: dict[str, object],
                                                           message: str) -> None:
    with pytest.raises(CommandError) as err:
        parse_command(obj, 0)
    assert message in str(err.value)
