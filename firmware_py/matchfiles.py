"""The state directory: one journal per match and a pointer to the current one.

    <dir>/<match>.journal          the match's journal (firmware_py/journal.py)
    <dir>/<match>.journal.stored   the office's word: the highest seq it stored, none
                                   missing below (firmware_py/outbox.py)
    <dir>/<match>.journal.script   replay-script lines played that journalled nothing
                                   (``.script-above-<seq>``: those of a replayed game)
    <dir>/current                  the id of the match on the board, written atomically
    <dir>/owner.json               the tournament and hall the journals belong to
    <dir>/set-aside/<n>-<tournament>-<hall>/   journals found here that belonged elsewhere

Identity: a journal's events are keyed by tournament, hall and match, but the journal only
holds the match. ``claim`` makes the folder the tournament's and hall's before anything is
replayed or sent: journals left by another tournament (last year's cup, whose match ids
repeat), another hall, or a version that did not record an owner are moved aside whole,
never sent, and a ``next`` for one of their match ids opens a fresh journal.

The pointer is switched only after the new match's journal exists, with a write to a
temporary file, fsync, rename and fsync of the directory: a power cut leaves either the old
pointer or the new one, never a torn one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path

from arena.wire import check_name
from firmware_py.journal import scan

POINTER = "current"
SUFFIX = ".journal"
OWNER = "owner.json"
SET_ASIDE = "set-aside"

log = logging.getLogger(__name__)


class MatchFiles:
    def __init__(self, directory: Path) -> None:
        self.dir = directory

    def match_of(self, journal: Path) -> str:
        """The match id a journal's file name carries."""
        return journal.name.removesuffix(SUFFIX)

    def owner(self) -> tuple[str, str] | None:
        """``(tournament, hall)`` recorded in the folder, or None (none, or unreadable)."""
        try:
            doc = json.loads((self.dir / OWNER).read_text(encoding="utf-8"))
            owner = (check_name("tournament", doc["tournament"]), check_name("hall", doc["hall"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return owner

    def claim(self, tournament: str, hall: str) -> Path | None:
        """Make the folder ``tournament``'s and ``hall``'s; the folder the journals of any
        other owner (or of none recorded) were moved to, else None.

        Files are moved before the owner is written: a power cut in between leaves the rest
        to be moved at the next start, never another owner's journal under this one.
        """
        wanted = (check_name("tournament", tournament), check_name("hall", hall))
        found = self.owner()
        if found == wanted:
            return None
        theirs = self._belongings()
        aside: Path | None = None
        if theirs:
            aside = self._aside_folder(found)
            aside.mkdir(parents=True)
            for path in theirs:
                os.replace(path, aside / path.name)
            _fsync_dir(aside)
            log.warning("%s: journals of %s set aside in %s, never sent", self.dir,
                        "/".join(found) if found else "an unrecorded tournament and hall",
                        aside)
        self._write_owner(wanted)
        return aside

    def _belongings(self) -> list[Path]:
        """What belongs to the owner: journals, their side files, the pointer."""
        if not self.dir.is_dir():
            return []
        return sorted(p for p in self.dir.iterdir() if p.is_file() and (
            SUFFIX in p.name or p.name == POINTER))

    def _aside_folder(self, owner: tuple[str, str] | None) -> Path:
        base = self.dir / SET_ASIDE
        label = "-".join(owner) if owner else "unknown-owner"
        taken = [p.name for p in base.iterdir()] if base.is_dir() else []
        number = 1 + max((int(n.split("-", 1)[0]) for n in taken
                          if n.split("-", 1)[0].isdigit()), default=0)
        return base / f"{number:03d}-{label}"

    def _write_owner(self, owner: tuple[str, str]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"tournament": owner[0], "hall": owner[1]}) + "\n"
        _write_atomically(self.dir / OWNER, text)

    def journal(self, match_id: str) -> Path:
        check_name("match", match_id)  # a match id becomes a file name: no '/' or '..'
        return self.dir / f"{match_id}{SUFFIX}"

    def script_progress(self, match_id: str, replay_above: int | None = None) -> Path:
        """The script lines played that journalled nothing; a replayed game (numbered
        above ``replay_above``) keeps its own, as it plays its script from the start."""
        path = self.journal(match_id)
        suffix = ".script" if replay_above is None else f".script-above-{replay_above}"
        return path.with_name(path.name + suffix)

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
        _write_atomically(self.dir / POINTER, f"{check_name('match', match_id)}\n")

    def played(self) -> set[str]:
        """The matches whose journal here is final: a ``match_ended`` event not undone
        in its last game (what a hall without an office counts as played). An unreadable
        journal counts as not played: the timekeeper sees it offered again and can pick
        another."""
        out: set[str] = set()
        for path in self.journals():
            try:
                data = path.read_bytes()
            except OSError:
                continue
            final = False
            for r in scan(data, path.name).records:
                if r.get("type") == "match":
                    final = False  # a replay begins: the voided game no longer counts
                if r.get("type") != "event":
                    continue
                if r.get("event") == "match_ended":
                    final = True
                elif r.get("event") == "undone":  # it says the phase it leaves
                    final = r.get("data", {}).get("phase") == "final"
            if final:
                out.add(self.match_of(path))
        return out

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


def _write_atomically(target: Path, text: str) -> None:
    tmp = target.with_name(f".{target.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, target)
    _fsync_dir(target.parent)


def _fsync_dir(directory: Path) -> None:
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
