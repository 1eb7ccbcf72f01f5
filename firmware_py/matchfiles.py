"""The state directory: one journal per match and a pointer to the current one.

    <dir>/<match>.journal          the match's journal (firmware_py/journal.py)
    <dir>/<match>.journal.acked    the seqs the broker acknowledged (firmware_py/outbox.py)
    <dir>/<match>.journal.script   replay-script lines played that journalled nothing
    <dir>/current                  the id of the match on the board, written atomically

The pointer is switched only after the new match's journal exists, with a write to a
temporary file, fsync, rename and fsync of the directory: a power cut leaves either the old
pointer or the new one, never a torn one.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from firmware_py.wire import check_name

POINTER = "current"
SUFFIX = ".journal"


class MatchFiles:
    def __init__(self, directory: Path) -> None:
        self.dir = directory

    def journal(self, match_id: str) -> Path:
        check_name("match", match_id)  # a match id becomes a file name: no '/' or '..'
        return self.dir / f"{match_id}{SUFFIX}"

    def script_progress(self, match_id: str) -> Path:
        path = self.journal(match_id)
        return path.with_name(path.name + ".script")

    def current(self) -> str | None:
        """The current match's id, or None (a fresh state directory, or a bad pointer)."""
        try:
            text = (self.dir / POINTER).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        try:
            check_name("match", text)
        except ValueError:
            return None
        return text if self.journal(text).exists() else None

    def set_current(self, match_id: str) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        target = self.dir / POINTER
        tmp = self.dir / f".{POINTER}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, f"{check_name('match', match_id)}\n".encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        dir_fd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def journals(self) -> list[Path]:
        """Every match journal, oldest last-write first (the order to resend them in)."""
        if not self.dir.is_dir():
            return []
        found = [p for p in self.dir.iterdir() if p.name.endswith(SUFFIX) and p.is_file()]

        def written(path: Path) -> float:
            with contextlib.suppress(OSError):
                return path.stat().st_mtime
            return 0.0

        return sorted(found, key=lambda p: (written(p), p.name))
