"""Following a demo hall's journals while it plays: the records each match's journal gained.

A hall keeps one journal per match in its state folder (firmware_py/matchfiles.py); the
office's ``next`` adds a new one when the hall loads the next match. This reads them with
the outbox's own tailing reader, so only whole records come back: a line the hall is still
writing waits for the next read. Reading never writes, so it cannot disturb the hall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from firmware_py.journal import Record
from firmware_py.matchfiles import SUFFIX, MatchFiles
from firmware_py.outbox import JournalTail


@dataclass(frozen=True)
class Gained:
    """Records appended to one match's journal since the last read."""

    match: str
    records: list[Record]


class HallJournals:
    """The journals in a hall's state folders (one a run of the hall), in the order the
    hall opened them."""

    def __init__(self, state_dirs: Sequence[Path]) -> None:
        self._folders = [MatchFiles(d) for d in state_dirs]
        self._tails: dict[Path, JournalTail] = {}

    def read(self) -> list[Gained]:
        """What every journal gained, the ones already followed first: a hall opens a match's
        journal only once the one before is over, so this keeps the matches in order."""
        out = [self._gained(path, tail) for path, tail in self._tails.items()]
        for folder in self._folders:
            for path in folder.journals():  # oldest first
                if path not in self._tails:
                    self._tails[path] = JournalTail(path)
                    out.append(self._gained(path, self._tails[path]))
        return [g for g in out if g.records]

    @staticmethod
    def _gained(path: Path, tail: JournalTail) -> Gained:
        return Gained(path.name.removesuffix(SUFFIX), tail.read())
