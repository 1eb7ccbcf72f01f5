"""The office view's latest snapshot, shared between the service and the web page's readers.

The service publishes a whole new document whenever anything changes; readers (the page's
long-poll requests) either take the current one or wait for the next. A version number, not
a timestamp, tells a reader whether it is behind: it is what the page sends back as ``since``.

A part of the document may be ``Later``: made by the first reader of that version, on the
reader's thread, not by the service on every change (the top scorers' entries,
whose ranks move by the thousand with one goal at 3,000 matches). Readers only ever get
the document with every part made.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class Later:
    """A part of a snapshot made when it is first read: ``make`` is called once, by the first
    reader, and must read only values that do not change (the version's own)."""

    __slots__ = ("_lock", "_make", "_value")

    def __init__(self, make: Callable[[], object]) -> None:
        self._make: Callable[[], object] | None = make
        self._value: object = None
        self._lock = threading.Lock()

    def value(self) -> object:
        with self._lock:
            if self._make is not None:
                self._value, self._make = self._make(), None
            return self._value


def made(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with its ``Later`` parts made (the very ``doc`` when it has none)."""
    later = {key: part.value() for key, part in doc.items() if isinstance(part, Later)}
    return {**doc, **later} if later else doc


class SnapshotBoard:
    """Thread-safe holder of the latest snapshot document.

    Version 0 is the empty board before the first publish, so a page that has seen nothing
    (``since=0``) waits for the first real snapshot instead of spinning on an empty one.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._version = 0
        self._doc: dict[str, Any] = {"version": 0}
        self._later = False  # the current doc has Later parts not yet made

    @property
    def version(self) -> int:
        with self._cond:
            return self._version

    def publish(self, doc: dict[str, Any]) -> int:
        """Store ``doc`` as the new snapshot and wake every waiter; returns its version.

        The board owns the version: whatever ``version`` the caller put in is replaced, so
        versions only ever grow by one and a reader can never be skipped past a change.
        The doc is copied (shallowly) so the caller may keep building its next one.
        """
        later = any(isinstance(part, Later) for part in doc.values())
        with self._cond:
            self._version += 1
            stored = dict(doc)
            stored["version"] = self._version
            self._doc = stored
            self._later = later
            self._cond.notify_all()
            return self._version

    def current(self) -> dict[str, Any]:
        with self._cond:
            doc, later = self._doc, self._later
        return self._made(doc, later)

    def _made(self, doc: dict[str, Any], later: bool) -> dict[str, Any]:
        """``doc`` with its ``Later`` parts made (outside the lock: the service's next
        publish must not wait for a reader); kept as the board's while it is current."""
        if not later:
            return doc
        full = made(doc)
        with self._cond:
            if self._doc is doc:
                self._doc, self._later = full, False
        return full

    def wait(self, since: int, timeout: float) -> dict[str, Any]:
        """The current doc as soon as its version is newer than ``since``, else after
        ``timeout`` seconds the current doc anyway (the reader then asks again).

        A ``since`` *ahead* of the board also returns at once: that reader saw an earlier
        run of the service (versions restart at 1), and must not sit out a whole timeout
        before it gets today's document.
        """
        # A deadline rather than one wait(timeout): a spurious wake-up must not restart or
        # cut short the reader's wait.
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cond:
            while self._version == since:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
            doc, later = self._doc, self._later
        return self._made(doc, later)
