"""The core's errors. Every message names what was wrong and where."""

from __future__ import annotations

from dataclasses import dataclass

# A refusal's field: a number, or a name the shell may word (a phase, a team, a kind).
Field = str | int


@dataclass(frozen=True, slots=True)
class Reason:
    """Why the rules refuse a command, said twice: ``text`` the whole English sentence for
    the log and ``scoreboard replay``; ``key`` with ``fields`` the few words the timekeeper
    reads at the table, worded by the shell in the hall's language (``refused.<key>`` in
    arena/words, docs/developer.md, "Languages"). The core names what to say and never says it:
    it stays free of the tables and of any notion of a language."""

    text: str
    key: str
    fields: tuple[tuple[str, Field], ...] = ()

    def field(self, name: str) -> Field | None:
        return next((value for key, value in self.fields if key == name), None)


def because(key: str, text: str, **fields: Field) -> Reason:
    """``Reason(text, key, fields)``, the fields by name (sorted: two equal reasons compare
    equal whatever order a caller wrote them in)."""
    return Reason(text, key, tuple(sorted(fields.items())))


class ScoreboardError(Exception):
    """Base of every error the core raises on purpose."""


class Refused(ScoreboardError):
    """The rules refuse this command at this moment; nothing changed.

    The live scoreboard logs it and goes on; ``scoreboard replay`` reports it with the
    script line and skips it. ``reason`` is the log's sentence, ``why`` the whole
    ``Reason`` (its key and fields for the table's words).
    """

    def __init__(self, command: str, why: Reason) -> None:
        super().__init__(f"{command} refused: {why.text}")
        self.command = command
        self.reason = why.text
        self.why = why


class CommandError(ScoreboardError):
    """A command is malformed: unknown, a field missing or of the wrong type."""


class PresetError(ScoreboardError):
    """A preset file is invalid; the message names the file, the key and the problem."""
