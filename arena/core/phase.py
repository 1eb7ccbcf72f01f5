"""Phases of a match, stages of a tournament and the two teams."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where a match is. The order of a match::

        pregame -> period -> intermission -> period ... -> final
                                   \\-> overtime_break -> overtime -> shootout -> final
    """

    PREGAME = "pregame"
    PERIOD = "period"
    INTERMISSION = "intermission"
    OVERTIME_BREAK = "overtime_break"
    OVERTIME = "overtime"
    SHOOTOUT = "shootout"
    FINAL = "final"

    @property
    def is_break(self) -> bool:
        return self in (Phase.INTERMISSION, Phase.OVERTIME_BREAK)

    @property
    def is_play(self) -> bool:
        return self in (Phase.PERIOD, Phase.OVERTIME)


class Stage(StrEnum):
    """A group match may end in a draw; a playoff (or placement) match is played to a decision."""

    GROUP = "group"
    PLAYOFF = "playoff"


class Team(StrEnum):
    HOME = "home"
    AWAY = "away"

    @property
    def other(self) -> Team:
        return Team.AWAY if self is Team.HOME else Team.HOME
