"""Playing a replay script (docs/developer.md 4.2) in the daemon, restart-safe.

Line ``i`` is applied at ``origin + t_i`` on the daemon's timeline. The origin is journalled
once (a ``script`` record) when the script first begins, so a restarted daemon continues
the same timeline. Which lines were played is known from the journal itself: each command a
line produced carries ``"script": <line>`` in its input record, written in the same fsync as
the command, so a kill can never leave a line both applied and unmarked. A line that
journalled nothing (refused without any effect) is marked in ``<journal>.script``; if a kill
comes before that mark, the line is played again on the same state at the same instant and
is refused again: same outcome.
"""

from __future__ import annotations

from dataclasses import replace

from arena.core.commands import Command
from firmware_py.journal import Record
from firmware_py.outbox import SeqLog
from firmware_py.script import ScriptLine


def origin_of(records: list[Record]) -> int | None:
    for record in records:
        if record.get("type") == "script":
            return int(record["origin"])
    return None


def played_lines(records: list[Record]) -> set[int]:
    return {int(r["script"]) for r in records
            if r.get("type") in ("command", "advance") and "script" in r}


class ScriptPlayer:
    def __init__(self, name: str, lines: list[ScriptLine], origin: int, done: set[int],
                 progress: SeqLog) -> None:
        self.name = name
        self.origin = origin
        last = max(done, default=0)
        self._rest = [line for line in lines if line.line > last]
        self._progress = progress

    @property
    def finished(self) -> bool:
        return not self._rest

    def next_at(self) -> int | None:
        return self.origin + self._rest[0].t if self._rest else None

    def due(self, now: int) -> list[tuple[ScriptLine, Command]]:
        """The lines due by ``now``, each with its command at its own instant."""
        out: list[tuple[ScriptLine, Command]] = []
        while self._rest and self.origin + self._rest[0].t <= now:
            line = self._rest.pop(0)
            out.append((line, replace(line.command, at=self.origin + line.t)))
        return out

    def played(self, line: ScriptLine) -> None:
        self._progress.add([line.line])

    def close(self) -> None:
        self._progress.close()
