"""What the office could not store yet (a full disk, a store gone read-only): each hall's
events kept in memory, in the order they came, and retried with back-off until stored.

The broker's copy of an event is acknowledged only once it is stored, so the backlog is
also what keeps the broker's in-flight window for the office full: it sends nothing more
until the office acknowledges, and what it holds beyond the window waits there. A retry
that stores the backlog acknowledges it, and the broker hands the rest over at once; no
reconnect (and no restart of the office) is needed.

Pure: standard library only; the service owns the clock (``monotonic``, injected) and does
the storing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from arena.wire import HallEvent

FIRST_RETRY_S = 0.5  # the first retry after a failure; the wait doubles on every failure
MAX_RETRY_S = 10.0  # up to this: a freed disk is noticed within it
# Events kept at most. The broker's in-flight window (mosquitto's max_inflight_messages,
# 20) keeps the backlog far below it; beyond it an event is neither kept nor acknowledged:
# the broker hands it over again on the next connect, and the hall re-sends what the
# office's acks lack.
MAX_WAITING = 10_000


@dataclass
class Waiting:
    """One event not stored yet, with every broker copy of it, acknowledged once stored."""

    event: HallEvent
    received: datetime  # when the office first had it (stored as its reception time)
    messages: list[Any] = field(default_factory=list)


class Backlog:
    """Each hall's events not stored yet, oldest first, and when to try again."""

    def __init__(self) -> None:
        self._halls: dict[str, deque[Waiting]] = {}
        self._size = 0
        self.since: datetime | None = None  # the office's wall time of the first failure
        self.retry_at: float | None = None  # monotonic seconds of the next retry
        self.delay = FIRST_RETRY_S
        self.failures = 0  # since the first failure of this outage

    def __len__(self) -> int:
        return self._size

    @property
    def failing(self) -> bool:
        """The store failed and has not stored the backlog since: every new event waits
        behind it (a hall's events are stored in the order they came)."""
        return self.since is not None

    def waiting(self, hall: str) -> int:
        queue = self._halls.get(hall)
        return 0 if queue is None else len(queue)

    def by_hall(self) -> dict[str, int]:
        return {hall: len(q) for hall, q in sorted(self._halls.items()) if q}

    def top(self, match: str) -> int:
        """The highest seq of ``match`` waiting (0: none), so that the intake's reach above
        the highest stored counts what waits too."""
        return max((w.event.seq for q in self._halls.values() for w in q
                    if w.event.match == match), default=0)

    def keep(self, event: HallEvent, received: datetime, message: Any) -> bool:
        """Keep an event (behind its hall's others); False if the backlog is full.

        The same event again (the broker's copy after a reconnect, the hall re-sending) is
        not kept twice: its message joins the first copy's, acknowledged with it."""
        queue = self._halls.setdefault(event.hall, deque())
        for w in queue:
            if w.event == event:
                w.messages.append(message)
                return True
        if self._size >= MAX_WAITING:
            return False
        queue.append(Waiting(event, received, [message]))
        self._size += 1
        return True

    def failed(self, now: float, wall: datetime) -> None:
        """The store failed at monotonic ``now``: the next retry after the current wait,
        which doubles (up to ``MAX_RETRY_S``) for the one after."""
        if self.since is None:
            self.since = wall
            self.delay = FIRST_RETRY_S
            self.failures = 0
        self.failures += 1
        self.retry_at = now + self.delay
        self.delay = min(2 * self.delay, MAX_RETRY_S)

    def due(self, now: float) -> bool:
        return self.retry_at is not None and now >= self.retry_at

    def halls(self) -> list[str]:
        """The halls with events waiting, in a fixed order."""
        return sorted(h for h, q in self._halls.items() if q)

    def head(self, hall: str) -> Waiting | None:
        queue = self._halls.get(hall)
        return queue[0] if queue else None

    def stored(self, hall: str) -> Waiting:
        """The hall's oldest event is stored: off the backlog (its messages to ack)."""
        w = self._halls[hall].popleft()
        self._size -= 1
        return w

    def healed(self) -> None:
        """Everything kept is stored: new events are stored as they come again."""
        if self._size:
            raise ValueError(f"the backlog still holds {self._size} events")
        self._halls.clear()
        self.since = self.retry_at = None
        self.delay = FIRST_RETRY_S
