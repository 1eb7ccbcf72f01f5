"""The horn's deadline thread: the horn switches at the core's instants, not at frames.

The main loop may be drawing or fsyncing when a period ends; the horn must not wait for it.
This thread owns the horn's switching: it hands the current match to ``HornDriver``, which
asks the core once what the horn does now and when that may next change (the core reads its
immutable state once, so the answer is consistent without a lock), sets every output (the
relay, and the audio output where there is one: display/audiohorn.py), and the thread waits
for that instant with ``wait_until`` (sleep, then spin the last 2 ms; SCHED_FIFO when
allowed: arena/timesource.py). A command that changes the horn (the HORN
button, a stop, an undo) wakes it at once via ``poke``.

The main thread keeps ``fail_safe`` (every output off) for stopping and errors; ``stop`` joins
the thread first, so nothing switches an output on again afterwards, then closes what the
thread was given to close (the audio output; the relay is the daemon's, closed after).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from arena.core.match import Match
from arena.timesource import TimeSource, make_realtime
from display.audiostatus import OFF, AudioStatus
from firmware_py.timeline import Timeline
from hardware.horn import HornDriver

log = logging.getLogger(__name__)

IDLE_S = 1.0  # with nothing scheduled, look again this often anyway


class HornThread:
    def __init__(self, driver: HornDriver, timeline: Timeline,
                 current: Callable[[], Match], time: TimeSource,
                 closing: Sequence[Callable[[], None]] = (), *,
                 audio: Callable[[], AudioStatus] = lambda: OFF) -> None:
        """``audio``: the audio output's status for the timekeeper (``AudioHorn.status``);
        off where the config has none."""
        self.driver = driver
        self._audio = audio
        self._closing = tuple(closing)
        self.timeline = timeline
        self.time = time
        self._current = current
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="horn-deadlines", daemon=True)
        self.scheduling = ""

    def start(self) -> None:
        self._thread.start()

    def poke(self) -> None:
        """The match changed: look again now."""
        self._wake.set()

    def next_change(self, now: int) -> int | None:
        """None: this thread keeps the horn's own time; the loop need not wake for it."""
        return None

    def audio(self) -> AudioStatus:
        return self._audio()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread.ident is not None:  # started (a start that failed half-way: not)
            self._thread.join(5.0)
        self.driver.fail_safe()
        for close in self._closing:
            try:
                close()
            except Exception:
                log.exception("could not close a horn output")

    def _run(self) -> None:
        self.scheduling = make_realtime()
        log.info("horn deadline thread", extra={"kv": {"scheduling": self.scheduling}})
        try:
            while not self._stopping.is_set():
                self._wake.clear()
                change = self.driver.follow(self._current(), self.timeline.now())
                if self._stopping.is_set():
                    break
                if change is None:
                    self._wake.wait(IDLE_S)
                    continue
                self.time.wait_until(self.timeline.to_real(change), cancel=self._wake)
        except Exception:
            log.exception("horn deadline thread failed; horn off")
        finally:
            self.driver.fail_safe()
