"""One daemon per state folder: an exclusive ``flock`` on ``<state dir>/scoreboard.lock``,
held for the process's life.

Two daemons on one folder would both append to the match's journal and number events with
the same seqs: the office keeps one of each and the journal no longer replays. The kernel
lets a lock go when its process dies (even by SIGKILL or a power cut), so a crash never
leaves a stale lock behind; the pid written into the file is only there to name the holder
in the refusal.

A state folder that cannot be written (a read-only card at start) cannot hold a new lock
file: an existing one is locked read-only, and with none the daemon runs unlocked (nothing
can be journalled there by anyone, so nothing can be written twice) and says so.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from pathlib import Path

LOCK_NAME = "scoreboard.lock"


class StateLocked(Exception):
    """Another daemon holds the state folder."""


class StateLock:
    def __init__(self, directory: Path) -> None:
        self.path = directory / LOCK_NAME
        self._fd = -1
        self.problem: str | None = None  # why the folder is not locked, if it is not

    @property
    def held(self) -> bool:
        return self._fd >= 0

    def acquire(self) -> None:
        """Take the lock, or raise ``StateLocked`` naming the folder and the holder's pid."""
        fd = self._open()
        if fd < 0:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            holder = _read_pid(fd)
            os.close(fd)
            if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                who = f"pid {holder}" if holder else "another process (pid unknown)"
                raise StateLocked(
                    f"state folder {self.path.parent} is in use by another scoreboard "
                    f"({who}); one daemon per state folder") from err
            raise
        self._fd = fd
        with contextlib.suppress(OSError):  # a read-only lock file keeps the old pid
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)

    def _open(self) -> int:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            first = err
        try:
            return os.open(self.path, os.O_RDONLY)
        except OSError:
            self.problem = (f"state folder {self.path.parent}: no lock file can be made "
                            f"({first.strerror or first}); running without the lock")
            return -1

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing lets the flock go
            self._fd = -1


def _read_pid(fd: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(os.pread(fd, 32, 0).decode("ascii").strip())
    return None
