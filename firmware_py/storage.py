"""The match's journal seen from the loop: noticing that it cannot be written, retrying it
with a growing gap and catching up, the ``current`` pointer, the office's share of what is on
the disk, the clock's checkpoints, and a journal damaged in the middle.

When the journal cannot be written the game goes on from memory (firmware_py/recorder.py
keeps the records, in order); the board says NOT RECORDING - STORAGE FAULT; the loop retries,
backing off from ``RETRY_FIRST_NS`` to ``RETRY_MAX_NS``, and logs one line when it starts
failing, at most one a minute while it fails and one when it has caught up. A journal damaged
in the middle is shown and nothing but the horn is played until the timekeeper holds NEXT.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from arena.core.commands import Horn as HornCommand
from arena.core.commands import Next, Stop
from arena.core.phase import Phase
from arena.core.units import NS_PER_S
from firmware_py.logfmt import kv

if TYPE_CHECKING:
    from firmware_py.daemon import Daemon
    from firmware_py.session import Session

log = logging.getLogger("firmware_py.daemon")

# While a clock runs, its instant is journalled this often (match time): after a power cut
# the clock comes back stopped at the last journalled instant, so at most this much behind
# the game instead of back at the last goal or whistle.
CHECKPOINT_NS = 5 * NS_PER_S
# While the journal cannot be written: the first retry after this long (real time), each
# failure doubling the wait up to the last; a retry is one open and one write, so cheap, and
# a disk that comes back is caught up within RETRY_MAX_NS.
RETRY_FIRST_NS = NS_PER_S // 4
RETRY_MAX_NS = 5 * NS_PER_S
FAULT_LOG_EVERY_NS = 60 * NS_PER_S  # "still not recording": at most one line a minute
# What the timekeeper may still do while a damaged journal waits for the NEXT hold.
WHILE_DAMAGED = frozenset({Next.name, HornCommand.name})


class Storage:
    """The journal's health for one daemon: its failures (real time), its retries, and a
    ``current`` pointer not yet written."""

    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon
        self._fault_since: int | None = None  # when the journal started failing
        self._retry_at = 0
        self._retry_gap = RETRY_FIRST_NS
        self._fault_logged = 0  # the last "still not recording" line
        self._pointer_pending: str | None = None

    @property
    def _session(self) -> Session:
        return self._daemon.session_on_board()

    def retry_at(self) -> int | None:
        """The next retry of a failing journal (real time), or None while it is written."""
        return None if self._fault_since is None else self._retry_at

    def set_current(self, match_id: str) -> None:
        try:
            self._daemon.files.set_current(match_id)
        except OSError as err:
            # Written once the disk is back (with the journal's catch-up).
            self._pointer_pending = match_id
            kv(log, logging.WARNING, "current match pointer not written", match=match_id,
               problem=str(err))
        else:
            self._pointer_pending = None

    def to_outbox(self) -> None:
        """What is on the disk since the last call goes to the office (only that: an event
        kept in memory is sent once it is written, so the office never holds an event the
        journal might lose)."""
        fresh = self._session.new_records()
        link = self._daemon.link
        if link is not None and link.outbox is not None:
            link.outbox.add(fresh)

    def check(self) -> None:
        """Notice the journal failing, retry it with a growing gap, catch up when it takes
        records again. Bounded logs: one line when it starts, one a minute, one at the end."""
        session = self._session
        recorder = session.recorder
        real = self._daemon.time.monotonic_ns()
        if self._fault_since is None:
            if recorder.recording:
                return
            self._fault_since = real
            self._fault_logged = real
            self._retry_gap = RETRY_FIRST_NS
            self._retry_at = real + self._retry_gap
            kv(log, logging.ERROR, "NOT RECORDING: the journal cannot be written; the game "
               "goes on from memory and is written when the disk is back",
               match=session.match_id, problem=recorder.fault,
               unwritten=len(recorder.unwritten))
            self._daemon.dirty = True  # the board says so at once
            return
        if real < self._retry_at:
            return
        if not recorder.flush():
            self._retry_gap = min(2 * self._retry_gap, RETRY_MAX_NS)
            self._retry_at = real + self._retry_gap
            if real - self._fault_logged >= FAULT_LOG_EVERY_NS:
                self._fault_logged = real
                kv(log, logging.ERROR, "still not recording", match=session.match_id,
                   problem=recorder.fault, unwritten=len(recorder.unwritten),
                   for_s=(real - self._fault_since) // NS_PER_S)
            return
        down = real - self._fault_since
        self._fault_since = None
        before = len(session.records)
        self.to_outbox()
        kv(log, logging.WARNING, "recording again: the records kept in memory are written",
           match=session.match_id, written=len(session.records) - before,
           down_s=round(down / NS_PER_S, 1))
        if self._pointer_pending is not None:
            self.set_current(self._pointer_pending)
        self._daemon.office.disk_back()
        self._daemon.dirty = True

    def checkpoint(self, now: int) -> None:
        """The running clock's instant, journalled every ``CHECKPOINT_NS``."""
        session = self._session
        state = session.recorder.match.state
        if not state.clock.running or state.phase is Phase.FINAL:
            return
        if not session.recorder.recording:
            return  # not while the disk fails: it would only pile up in memory
        last = next((r["at"] for r in reversed(session.records[-50:])
                     if isinstance(r.get("at"), int)), None)
        if last is not None and now - last < CHECKPOINT_NS:
            return
        session.recorder.note({"type": "clock", "at": now})
        session.new_records()  # no events: nothing for the outbox

    # ---------------------------------------------------------- a damaged journal

    def damage_found(self) -> None:
        """A record damaged in the middle of the journal (the disk lied: not a torn write):
        the board stops a running clock and waits for the timekeeper's NEXT hold."""
        session = self._session
        if not session.damaged:
            return
        kv(log, logging.ERROR, "JOURNAL DAMAGED: waiting for the timekeeper (hold NEXT) "
           "before playing on from what could be read", match=session.match_id,
           journal=session.path, at_bytes=",".join(map(str, session.damaged)),
           highest_seq=session.seq_floor)
        # Before any new event (the stop below makes one): number above every seq the file
        # ever held, journalled so a replay numbers the same.
        now = self._daemon.timeline.now()
        session.recorder.note({"type": "damage", "at": now, "offsets": list(session.damaged),
                               "seq_floor": session.seq_floor, "confirmed": False})
        session.recorder.raise_seq(session.seq_floor)
        state = session.recorder.match.state
        if state.phase.is_play and state.clock.running:
            session.recorder.command(Stop(now))  # at start: the horn starts after this
        self.to_outbox()
        self._daemon.dirty = True

    def damage_confirmed(self, at: int) -> None:
        session = self._session
        recorder = session.recorder
        # Journalled, so a restart does not ask again.
        recorder.note({"type": "damage", "at": at, "offsets": list(session.damaged),
                       "seq_floor": session.seq_floor, "confirmed": True})
        kv(log, logging.WARNING, "damaged journal confirmed by the timekeeper: playing on",
           match=session.match_id, at_bytes=",".join(map(str, session.damaged)),
           next_seq=recorder.match.state.seq + 1)
        session.damaged = []
        self.to_outbox()
        self._daemon.dirty = True

    # ---------------------------------------------------------- stop

    def close(self) -> None:
        """The last try at what is unwritten, then the journal closed."""
        session = self._daemon.session
        if session is None:
            return
        recorder = session.recorder
        if not recorder.flush():  # a last try: what stays unwritten is lost with us
            kv(log, logging.ERROR, "stopping with records not journalled",
               match=session.match_id, unwritten=len(recorder.unwritten),
               problem=recorder.fault)
        session.close()
        kv(log, logging.INFO, "journal closed", match=session.match_id)
