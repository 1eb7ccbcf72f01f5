"""The MQTT outbox: the journal's events, sent in ``seq`` order until the office has stored them.

The journal is the queue (docs/developer.md, "Dependency facts": paho keeps unsent messages in
memory only and the broker is transport, not storage). An event is delivered only when the office
says it has stored it: its retained ``acks`` document gives, per match, the highest ``seq``
stored with none missing below (``wire.check_acks``). That word is kept beside the journal
in ``<journal>.stored`` (one number, replaced atomically), so ``unacked`` is right from the
first moment after a restart. It is not monotonic: an office restored from an older backup
says less than before, and the hall re-sends what it lost.

A broker's PUBACK only frees a place in the in-flight window (at most ``max_in_flight``
handed to paho). Events PUBACK'd but not yet stored are sent again from the office's mark
whenever the office's word shows no progress on the match (``office_acked``): the office
(re)connecting, the hall (re)subscribing, a regression, or the office repeating its word
because it stored events above a gap. And when events handed out wait longer than the
re-send interval for the office's word (``overdue``/``resend``, with the caller's monotonic
``now``: this module never reads a clock): an event lost while hall and office both stay
connected, the last of a match included, is not waited for forever. The interval starts at
5 s and doubles up to 60 s while the office stores nothing more (an office that is down gets
a copy a minute, not a flood); progress resets it. A crash anywhere only means duplicates
with the same ``event_id``, which the office's store drops.

A match the office refuses from this hall because another hall plays it (its ``acks``
say so, ``refuse``) is held: nothing of it is handed out or re-sent, and the next match's
events go, until the office takes it (the refusal gone from its word: everything it lacks
is offered at once). The events stay in the journal, so nothing is lost while it waits.

The older ``<journal>.acked`` (broker PUBACKs, written by earlier versions) is not read: a
PUBACK never proved the office had the event, so after an upgrade everything is offered
again and the office keeps one copy. Nothing here imports paho; ``mqtt.py`` drives it.
"""

from __future__ import annotations

import bisect
import contextlib
import logging
import os
from collections.abc import Iterable
from pathlib import Path

from arena.core.units import NS_PER_S, Nanos
from firmware_py.journal import Record, scan

log = logging.getLogger(__name__)

# Events handed out wait this long for the office's word before they are offered again; the
# wait doubles up to RESEND_MAX_NS while nothing progresses. Far above an office's usual
# store-and-ack round trip (milliseconds), so a healthy link never re-sends on time.
RESEND_FIRST_NS: Nanos = 5 * NS_PER_S
RESEND_MAX_NS: Nanos = 60 * NS_PER_S


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


def stored_path(journal_path: str | Path) -> Path:
    """Where the office's word on a journal's events is kept."""
    journal_path = Path(journal_path)
    return journal_path.with_name(journal_path.name + ".stored")


class StoredMark:
    """One number in a file, replaced atomically: the office's last word on a match.

    Missing or unreadable means 0 (nothing known stored): the events are offered again and
    the office drops the copies it has.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.value = 0
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as err:
            log.warning("%s: unreadable (%s); everything is offered to the office again",
                        self.path, err)
            return
        try:
            self.value = max(0, int(text))
        except ValueError:
            log.warning("%s: %r is not a number; everything is offered to the office again",
                        self.path, text[:40])

    def set(self, value: int) -> None:
        if value == self.value:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, f"{value}\n".encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        # No fsync of the directory: a mark lost to a power cut only costs duplicates.
        os.replace(tmp, self.path)
        self.value = value


class Outbox:
    """One match's events: handed out in ``seq`` order, at most ``max_in_flight`` waiting
    for the broker's PUBACK, counted unacknowledged until the office has stored them.

    ``stored``: the mark file (``stored_path(journal)``); ``match``: the match id the office
    acknowledges the events under (learnt from the first event when not given).
    """

    def __init__(self, stored: str | Path, max_in_flight: int = 20, *,
                 match: str | None = None) -> None:
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.max_in_flight = max_in_flight
        self.match = match
        self._mark = StoredMark(stored)
        self._seqs: list[int] = []  # every event of the journal, in seq order
        self._records: dict[int, Record] = {}  # kept for a re-send after a regression
        self._next = 0  # index in _seqs of the next event to hand out
        self._in_flight: set[int] = set()  # handed to paho, no PUBACK yet
        self._resend_after: Nanos = RESEND_FIRST_NS
        self._waiting_since: Nanos | None = None  # handed-out events wait since (overdue)
        # The hall the office takes this match's events from instead (``refuse``): held.
        self.refused_by: str | None = None
        self._skip_stored()

    def add(self, records: Iterable[Record]) -> None:
        """Offer journal records; only events are kept. Records must come in journal
        order; offering the same event twice is harmless."""
        for record in records:
            if record.get("type") != "event":
                continue
            seq = int(record["seq"])
            if self._seqs and seq <= self._seqs[-1]:
                continue
            if self.match is None:
                self.match = str(record["match"])
            self._seqs.append(seq)
            self._records[seq] = record
        self._skip_stored()

    def refuse(self, played_in: str | None) -> bool:
        """The office's word on this match: it refuses our events of it, ``played_in``
        plays it (held: nothing handed out, nothing re-sent); None, it takes them (after
        a refusal, everything it lacks is offered again at once). True if that changed."""
        if played_in == self.refused_by:
            return False
        lifted = played_in is None
        self.refused_by = played_in
        if lifted:
            self._next = self._first_unstored()
            self._waiting_since = None
            self._resend_after = RESEND_FIRST_NS
        return True

    def take(self) -> list[Record]:
        """The next records to send, marked in flight; empty when the window is full or
        the office refuses the match (``refuse``)."""
        out: list[Record] = []
        if self.refused_by is not None:
            return out
        while self._next < len(self._seqs) and len(self._in_flight) < self.max_in_flight:
            seq = self._seqs[self._next]
            self._next += 1
            if seq in self._in_flight:
                continue  # re-sent by paho itself; a second copy would only be a duplicate
            self._in_flight.add(seq)
            out.append(self._records[seq])
        return out

    def published(self, seqs: Iterable[int]) -> None:
        """PUBACKs received: the window moves on (the office has not said anything yet)."""
        self._in_flight.difference_update(seqs)

    def office_acked(self, upto: int) -> bool:
        """The office's word: every event up to ``upto`` is stored (its own, authoritative,
        even when less than before). Made durable; True if a re-send was started.

        A word that does not move the mark forward (the office reconnected and repeated
        it, the hall resubscribed, the office lost events) is when the events handed out
        beyond it may have been lost with a broker or an office: they are offered again.
        """
        progress = upto > self._mark.value
        self._mark.set(max(0, upto))
        # Any word starts the wait over: after progress the office is working, and after no
        # progress what it lacks is offered again just now.
        self._waiting_since = None
        if progress:
            self._resend_after = RESEND_FIRST_NS
            self._skip_stored()
            return False
        first = self._first_unstored()
        if self._next > first and self.refused_by is None:
            self._next = first
            return True
        return False

    def overdue(self, now: Nanos) -> bool:
        """Events handed out have waited at least the re-send interval for the office's
        word (``now``: the caller's monotonic instant, ns). The first call that finds events
        waiting starts the wait; the caller asks only while the office can hear it. Never
        while the office refuses the match: it has said why it does not store them."""
        if self._next <= self._first_unstored() or self.refused_by is not None:
            self._waiting_since = None  # nothing handed out that the office lacks
            return False
        if self._waiting_since is None:
            self._waiting_since = now
            return False
        return now - self._waiting_since >= self._resend_after

    def resend(self, now: Nanos) -> int:
        """Offer again, from the office's mark, everything it has not stored; the next wait
        is twice as long (up to ``RESEND_MAX_NS``). Returns how many events that is."""
        self._next = self._first_unstored()
        self._waiting_since = now
        self._resend_after = min(2 * self._resend_after, RESEND_MAX_NS)
        return self.unacked

    @property
    def resend_after(self) -> Nanos:
        """The current re-send interval (ns)."""
        return self._resend_after

    def requeue(self) -> None:
        """Offer again everything not stored (e.g. the client was replaced and lost it)."""
        self._in_flight.clear()
        self._waiting_since = None
        self._next = self._first_unstored()

    def _first_unstored(self) -> int:
        """The index in ``_seqs`` of the first event the office has not stored."""
        return bisect.bisect_right(self._seqs, self._mark.value)

    def _skip_stored(self) -> None:
        self._next = max(self._next, bisect.bisect_right(self._seqs, self._mark.value))

    @property
    def stored(self) -> int:
        """The office's last word: the highest seq stored with none missing below it."""
        return self._mark.value

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    @property
    def unsent(self) -> bool:
        """Something is still to hand out or waits for its PUBACK: the next match waits
        (not for a match the office refuses: that one waits for the office)."""
        if self.refused_by is not None:
            return False
        return self._next < len(self._seqs) or bool(self._in_flight)

    @property
    def unacked(self) -> int:
        """Events the office has not stored."""
        return len(self._seqs) - bisect.bisect_right(self._seqs, self._mark.value)

    def is_acked(self, seq: int) -> bool:
        """The office has stored ``seq`` (and every one before it)."""
        return seq <= self._mark.value

    def close(self) -> None:
        """Nothing is held open (the mark is written whole each time); kept for callers."""


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
