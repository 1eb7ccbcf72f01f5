"""The office view's latest snapshot, shared between the service and the web page's readers.

The service publishes a whole new document whenever anything changes; readers (the page's
long-poll requests) either take the current one or wait for the next. A version number, not
a timestamp, tells a reader whether it is behind: it is what the page sends back as ``since``.
"""

from __future__ import annotations

import threading
import time
from typing import Any


class SnapshotBoard:
    """Thread-safe holder of the latest snapshot document.

    Version 0 is the empty board before the first publish, so a page that has seen nothing
    (``since=0``) waits for the first real snapshot instead of spinning on an empty one.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._version = 0
        self._doc: dict[str, Any] = {"version": 0}

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
        with self._cond:
            self._version += 1
            stored = dict(doc)
            stored["version"] = self._version
            self._doc = stored
            self._cond.notify_all()
            return self._version

    def current(self) -> dict[str, Any]:
        with self._cond:
            return self._doc

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
            return self._doc
