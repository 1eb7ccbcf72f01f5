"""The durable, append-only journal: the source of truth of a match.

One file per match. Each record is one line, ``<crc32 as 8 hex digits> <compact JSON>\\n``,
written with a single ``write`` and made durable with ``fsync`` before anything is shown or
sent (a few records a minute make fsync cheap: docs/developer.md, "Dependency facts"). The checksum
and the newline tell a whole record from one a power cut tore in half.

Reading back:
- a torn *last* record (no newline, wrong checksum, not JSON) is what a power cut mid-write
  leaves: it is dropped with a warning naming the file and offset, and the file is cut back
  to the end of the last whole record so the next append starts clean;
- a damaged record *before* the end cannot come from a torn write (the disk lied): it is
  skipped with a warning naming the offset, and every whole record around it is kept. Its
  offset is in ``Recovery.damaged`` (the daemon asks the timekeeper before playing on) and
  any ``seq`` still legible in it counts in ``Recovery.max_seq``, so no seq is used twice.

When the disk fails (full, gone read-only, the card pulled), an append raises
``JournalError`` and the file descriptor is let go: the next append opens the file again by
its path (a card that comes back is a new mount, the old descriptor would keep failing), cuts
any fragment off and carries on behind the last whole record. A journal that could not be
opened for writing at all (``Journal.open_detached``) starts in that state.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Record = dict[str, Any]


class JournalError(Exception):
    """The journal cannot be opened or written."""


@dataclass
class Recovery:
    """What reading a journal found: the whole records and what was wrong."""

    records: list[Record] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    valid_length: int = 0  # bytes up to the end of the last whole record
    # Derived from the records and warnings above (so not compared): the byte offsets of
    # damaged records, and the highest event seq in the file, damaged records included.
    damaged: list[int] = field(default_factory=list, compare=False)
    max_seq: int = field(default=0, compare=False)


def encode(record: Record) -> bytes:
    body = json.dumps(record, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    data = body.encode("utf-8")
    return b"%08x " % zlib.crc32(data) + data + b"\n"


def _decode(line: bytes) -> Record | None:
    """A whole line (without its newline) as a record, or None if it is damaged."""
    if len(line) < 10 or line[8:9] != b" ":
        return None
    try:
        crc = int(line[:8], 16)
    except ValueError:
        return None
    body = line[9:]
    if zlib.crc32(body) != crc:
        return None
    try:
        record = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return record if isinstance(record, dict) else None


def scan(data: bytes, name: str) -> Recovery:
    """Split a journal's bytes into records; pure, so the torn-write tests need no disk."""
    out = Recovery()
    offset = 0
    for line in _lines(data):
        end = offset + len(line)
        whole = line.endswith(b"\n")
        record = _decode(line[:-1]) if whole else None
        if record is not None:
            out.records.append(record)
            out.valid_length = end
            if record.get("type") == "event" and isinstance(record.get("seq"), int):
                out.max_seq = max(out.max_seq, record["seq"])
        elif end == len(data):
            out.warnings.append(
                f"journal {name}: torn last record at byte {offset} dropped "
                f"({len(line)} bytes); {len(out.records)} records before it kept"
            )
        else:
            out.warnings.append(
                f"journal {name}: damaged record at byte {offset} ({len(line)} bytes) skipped; "
                "the records around it are kept"
            )
            out.valid_length = end  # keep it in the file for the record; it is not ours to erase
            out.damaged.append(offset)
            out.max_seq = max(out.max_seq, _legible_seq(line))
        offset = end
    return out


_SEQ = re.compile(rb'"seq":(\d{1,18})')


def _legible_seq(line: bytes) -> int:
    """The highest ``seq`` still readable in a damaged line (0 if none): a seq the office
    may already hold must never be given to another event."""
    return max((int(m) for m in _SEQ.findall(line)), default=0)


def _lines(data: bytes) -> Iterator[bytes]:
    start = 0
    while start < len(data):
        nl = data.find(b"\n", start)
        end = len(data) if nl < 0 else nl + 1
        yield data[start:end]
        start = end


class Journal:
    """An open journal file, appended to with fsync per record."""

    def __init__(self, path: Path, fd: int, size: int) -> None:
        self.path = path
        self._fd = fd  # -1 while detached: the next append opens the file again
        self._size = size  # end of the last whole record
        self._torn = False  # a failed append may have left bytes past _size
        self._closed = False

    @property
    def writable(self) -> bool:
        """The file is open for appending (the last append, if any, succeeded)."""
        return self._fd >= 0

    @classmethod
    def open_detached(cls, path: str | Path) -> tuple[Journal, Recovery]:
        """Read a journal that cannot be opened for writing (a read-only or full disk at
        start): its records, and a journal that opens the file on its first append. A file
        that exists but cannot be read raises: writing behind records we never saw could
        destroy them."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        except OSError as err:
            raise JournalError(f"journal {path}: cannot read: {err.strerror or err}") from err
        recovery = scan(data, str(path))
        journal = cls(path, -1, recovery.valid_length)
        return journal, recovery

    def ensure_open(self) -> None:
        """Open the file for appending if it is not (detached after a failure, or never
        opened); raises ``JournalError`` if the disk still refuses."""
        if self._closed:
            raise JournalError(f"journal {self.path}: closed")
        if self._fd >= 0:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            created = not self.path.exists()
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as err:
            raise JournalError(
                f"journal {self.path}: cannot open: {err.strerror or err}") from err
        try:
            size = os.fstat(fd).st_size
            if size < self._size:
                raise JournalError(f"journal {self.path}: shorter ({size} bytes) than the "
                                   f"{self._size} bytes already journalled; not appending")
            if size > self._size:
                # A fragment of a failed append (or a torn tail a read-only start could
                # not cut): cut it before anything is written behind it.
                os.ftruncate(fd, self._size)
            if created:
                os.fsync(fd)
                _fsync_dir(self.path.parent)
        except OSError as err:
            os.close(fd)
            raise JournalError(
                f"journal {self.path}: cannot open: {err.strerror or err}") from err
        except JournalError:
            os.close(fd)
            raise
        self._fd = fd
        self._torn = False

    @classmethod
    def open(cls, path: str | Path) -> tuple[Journal, Recovery]:
        """Open (or create) a journal, recover what it holds and cut off a torn tail."""
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            created = not path.exists()
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as err:
            raise JournalError(f"journal {path}: cannot open: {err.strerror or err}") from err
        try:
            size = os.fstat(fd).st_size
            data = os.pread(fd, size, 0) if size else b""
            recovery = scan(data, str(path))
            if recovery.valid_length < size:
                os.ftruncate(fd, recovery.valid_length)
                os.fsync(fd)
            if created:
                _fsync_dir(path.parent)
        except OSError as err:
            os.close(fd)
            raise JournalError(f"journal {path}: cannot recover: {err.strerror or err}") from err
        return cls(path, fd, recovery.valid_length), recovery

    def append(self, *records: Record) -> None:
        """Append records durably: they are on the disk when this returns."""
        data = b"".join(encode(r) for r in records)
        self.ensure_open()
        try:
            if self._torn:
                # The cut-back after a failed append failed too: it must succeed before
                # anything is written behind the fragment, or the new record is glued to it.
                os.ftruncate(self._fd, self._size)
                self._torn = False
            written = os.write(self._fd, data)
            if written != len(data):  # a full disk writes short; never leave half a record
                raise OSError(28, f"short write ({written} of {len(data)} bytes)")
            os.fsync(self._fd)
        except OSError as err:
            # Never leave half a record behind the whole ones: cut back to where we were.
            self._torn = True
            with contextlib.suppress(OSError):  # retried before the next append
                os.ftruncate(self._fd, self._size)
                self._torn = False
            # Let the descriptor go: the next append opens the file again by its path (a
            # card that comes back is a new mount; and a read-only remount needs no
            # writer left). Opening cuts off whatever the cut-back above could not.
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1
            raise JournalError(
                f"journal {self.path}: cannot append: {err.strerror or err}"
            ) from err
        self._size += len(data)

    def close(self) -> None:
        self._closed = True
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _fsync_dir(directory: Path) -> None:
    """Make a new file's directory entry durable too (else a power cut can lose the file)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
