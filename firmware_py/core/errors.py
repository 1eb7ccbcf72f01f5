"""The core's errors. Every message names what was wrong and where."""

from __future__ import annotations


class ScoreboardError(Exception):
    """Base of every error the core raises on purpose."""


class Refused(ScoreboardError):
    """The rules refuse this command at this moment; nothing changed.

    The live scoreboard logs it and goes on; ``scoreboard replay`` reports it with the
    script line and skips it.
    """

    def __init__(self, command: str, reason: str) -> None:
        super().__init__(f"{command} refused: {reason}")
        self.command = command
        self.reason = reason


class CommandError(ScoreboardError):
    """A command is malformed: unknown, a field missing or of the wrong type."""


class PresetError(ScoreboardError):
    """A preset file is invalid; the message names the file, the key and the problem."""
