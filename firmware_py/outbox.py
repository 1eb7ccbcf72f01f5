"""The MQTT outbox: the journal's events, sent in ``seq`` order, marked sent only on PUBACK.

The journal is the queue (README "Dependency facts": paho keeps unsent messages in memory
only and the broker is transport, not storage). What has been acknowledged is kept beside
the journal in a small append-only side file, ``<journal>.acked``, one ``seq`` per line,
fsync'd per batch of acks. The journal itself is never rewritten: it stays the untouched
source of truth.

A crash between a PUBACK and the fsync of its line only means the event is sent again after
the restart: a duplicate with the same ``event_id``, which MQTT QoS 1 allows anyway and the
office removes. Nothing here imports paho; ``mqtt.py`` drives it.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections import deque
from collections.abc import Iterable
from pathlib import Path

from firmware_py.journal import Record, scan

log = logging.getLogger(__name__)


class SeqLog:
    """An append-only file of integers, one a line, fsync'd per batch; a torn tail is cut off."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        size = os.fstat(self._fd).st_size
        data = os.pread(self._fd, size, 0) if size else b""
        self.values: set[int] = set()
        end = data.rfind(b"\n") + 1  # whatever follows the last newline is a torn write
        for number, line in enumerate(data[:end].split(b"\n")[:-1], start=1):
            try:
                self.values.add(int(line))
            except ValueError:
                # Not from a torn write (that can only be the tail): report it, keep the rest.
                log.warning("%s: line %d is not a number, ignored", self.path, number)
        if end < size:
            log.warning("%s: torn last line (%d bytes) dropped", self.path, size - end)
            os.ftruncate(self._fd, end)
            os.fsync(self._fd)

    def add(self, values: Iterable[int]) -> None:
        """Record values durably (one write, one fsync for the whole batch)."""
        new = [v for v in values if v not in self.values]
        if not new:
            return
        data = "".join(f"{v}\n" for v in new).encode("ascii")
        os.write(self._fd, data)
        os.fsync(self._fd)
        self.values.update(new)

    def close(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1


def acked_path(journal_path: str | Path) -> Path:
    """Where the acks of a journal are kept."""
    journal_path = Path(journal_path)
    return journal_path.with_name(journal_path.name + ".acked")


class Outbox:
    """Events to send, in ``seq`` order, at most ``max_in_flight`` unacknowledged at a time."""

    def __init__(self, acked: str | Path, max_in_flight: int = 20) -> None:
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.max_in_flight = max_in_flight
        self._log = SeqLog(acked)
        self._pending: deque[Record] = deque()  # not yet handed out, in seq order
        self._in_flight: dict[int, Record] = {}
        self._last_added = -1

    def add(self, records: Iterable[Record]) -> None:
        """Offer journal records; only events not yet acknowledged and not seen are kept.

        Records must come in journal order; offering the same event twice is harmless.
        """
        for record in records:
            if record.get("type") != "event":
                continue
            seq = int(record["seq"])
            if seq <= self._last_added:
                continue
            self._last_added = seq
            if seq not in self._log.values:
                self._pending.append(record)

    def take(self) -> list[Record]:
        """The next records to send, marked in flight; empty when the window is full."""
        out: list[Record] = []
        while self._pending and len(self._in_flight) < self.max_in_flight:
            record = self._pending.popleft()
            self._in_flight[int(record["seq"])] = record
            out.append(record)
        return out

    def acked(self, seqs: Iterable[int]) -> None:
        """PUBACKs received: made durable before the window moves on."""
        seqs = [s for s in seqs if s in self._in_flight]
        self._log.add(seqs)
        for seq in seqs:
            del self._in_flight[seq]

    def requeue(self) -> None:
        """Put what is in flight back in front (e.g. the client was replaced and lost it)."""
        for seq in sorted(self._in_flight, reverse=True):
            self._pending.appendleft(self._in_flight.pop(seq))

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    @property
    def unacked(self) -> int:
        return len(self._pending) + len(self._in_flight)

    def is_acked(self, seq: int) -> bool:
        return seq in self._log.values

    def close(self) -> None:
        self._log.close()


class JournalTail:
    """Reads the records appended to a journal since the last call (the outbox's feed).

    Only whole records are returned: a line still being written is left for the next call.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._offset = 0

    def read(self) -> list[Record]:
        with open(self.path, "rb") as f:
            f.seek(self._offset)
            data = f.read()
        end = data.rfind(b"\n") + 1
        if end == 0:
            return []
        self._offset += end
        recovery = scan(data[:end], str(self.path))
        for warning in recovery.warnings:
            log.warning("%s", warning)
        return recovery.records
