"""Phases of a match, stages of a tournament and the two teams."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


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
    """Where a match stands in the tournament: a group match may end in a draw; a playoff or
    placement match is played to a decision. The one enum of stages, the tournament file's
    and the scoreboard's alike."""

    GROUP = "group"
    PLAYOFF = "playoff"
    PLACEMENT = "placement"

    @property
    def decided(self) -> bool:
        """Played to a decision (the scoreboard's ``playoff`` stage)."""
        return self is not Stage.GROUP

    @property
    def played_as(self) -> Stage:
        """The stage the scoreboard plays the match at: a preset's rules (``stages``) and the
        hall's options name only the two of ``PLAYED_STAGES``, a placement match is played as
        a playoff."""
        return Stage.PLAYOFF if self.decided else Stage.GROUP


# The stages a preset's ``stages`` and the hall's ``--stage`` name: whether a draw stands.
PLAYED_STAGES: Final = (Stage.GROUP, Stage.PLAYOFF)


class Team(StrEnum):
    HOME = "home"
    AWAY = "away"

    @property
    def other(self) -> Team:
        return Team.AWAY if self is Team.HOME else Team.HOME
