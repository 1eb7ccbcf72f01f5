"""The match on the board: its recorder, its journal's tail, and how its clock came back.

Opening a match's journal also decides the daemon's timeline (firmware_py/timeline.py):

- journalled in this boot (a ``timeline`` record carries this boot's id): keep its offset. A
  crash in the same boot lost no time: the monotonic clock kept running, so a running game
  clock resumes exactly where the game is; the loop's first ``advance`` emits what fell due
  meanwhile, each stamped at its own deadline.
- journalled in another boot (a power loss or reboot): the old monotonic instants mean
  nothing now. The offset is chosen so that "now" is the last journalled instant and
  journalled; a running clock is stopped at that instant (a normal ``stop`` command, so it
  replays), and the board says "CLOCK RESTORED - CHECK" until the timekeeper starts the
  clock or corrects it. A break clock cannot be stopped (it runs by itself): it runs on
  from its last journalled value, with the same mark.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from arena.core.commands import SetClock, Start, Stop
from arena.core.values import MatchSetup
from firmware_py.journal import Record
from firmware_py.logfmt import kv
from firmware_py.outbox import JournalTail
from firmware_py.recorder import Recorder, WallClock, open_or_create
from firmware_py.timeline import Timeline

log = logging.getLogger("firmware_py.daemon")

CONFIRMING = frozenset({Start.name, SetClock.name})  # what clears the restored mark


@dataclass
class Session:
    recorder: Recorder
    path: Path
    tail: JournalTail
    records: list[Record]  # every record read so far (the tail's)
    restored: bool = False
    # Byte offsets of records damaged in the middle of the journal that the timekeeper has
    # not yet confirmed (the daemon waits for the NEXT hold), and the highest seq ever seen
    # in the file: events after the confirmation are numbered above it.
    damaged: list[int] = field(default_factory=list)
    seq_floor: int = 0

    @property
    def match_id(self) -> str:
        return self.recorder.match.setup.match_id

    def new_records(self) -> list[Record]:
        """The records journalled since the last call (for the outbox)."""
        try:
            fresh = self.tail.read()
        except OSError:
            # No file yet (a read-only disk at start) or an unreadable card: what it holds
            # is read once the recorder has caught up.
            return []
        self.records += fresh
        return fresh

    def close(self) -> None:
        if self.recorder.journal is not None:
            self.recorder.journal.close()


def open_session(path: Path, preset_toml: str, preset_source: str, setup: MatchSetup, *,
                 timeline: Timeline, boot: str, wall: WallClock | None,
                 adopt_timeline: bool, replay_above: int | None = None) -> Session:
    """Open (or create) a match's journal. ``adopt_timeline``: this match decides the
    daemon's timeline (the match on the board at start); else the match joins the current
    timeline (a match loaded from ``next``). ``replay_above``: the office's ``next`` replays
    the match (firmware_py/recorder.py ``open_or_create``)."""
    resumed = open_or_create(path, preset_toml, preset_source, setup, wall=wall, boot_id=boot,
                             degrade=True, replay_above=replay_above)
    for warning in resumed.warnings:
        kv(log, logging.WARNING, "journal recovery", match=setup.match_id, problem=warning)
    tail = JournalTail(path)
    session = Session(resumed.recorder, path, tail, [])
    session.new_records()
    recovery = resumed.recovery
    if recovery is not None and recovery.damaged:
        confirmed = {o for r in session.records
                     if r.get("type") == "damage" and r.get("confirmed")
                     for o in r.get("offsets", [])}
        session.damaged = [o for o in recovery.damaged if o not in confirmed]
        session.seq_floor = recovery.max_seq
    if adopt_timeline:
        _recover_timeline(session, timeline, boot)
    else:
        session.recorder.note({"type": "timeline", "offset": timeline.offset,
                               "scale": str(timeline.scale), "restored": False})
        session.new_records()
    return session


def _recover_timeline(session: Session, timeline: Timeline, boot: str) -> None:
    records = session.records
    recorder = session.recorder
    mine = [i for i, r in enumerate(records)
            if r.get("type") == "timeline" and r.get("boot") == boot]
    if mine:
        index = mine[-1]
        record = records[index]
        timeline.offset = int(record["offset"])
        session.restored = bool(record.get("restored")) and not any(
            r.get("type") == "command" and r.get("command", {}).get("do") in CONFIRMING
            for r in records[index + 1:])
        kv(log, logging.INFO, "resumed in the same boot", match=session.match_id,
           offset_ns=timeline.offset, restored=session.restored)
        return
    instants = [int(r["at"]) for r in records if "at" in r]
    boots = [r["boot"] for r in records if r.get("boot")]
    if not instants or (boots and boots[-1] == boot):
        # Nothing happened on a clock yet (or this boot wrote it): no time to map.
        recorder.note({"type": "timeline", "offset": timeline.offset,
                       "scale": str(timeline.scale), "restored": False})
        session.new_records()
        return
    last_at = max(instants)
    timeline.offset = 0
    timeline.offset = last_at - timeline.now()
    recorder.note({"type": "timeline", "offset": timeline.offset, "scale": str(timeline.scale),
                   "restored": True, "at": last_at})
    state = recorder.match.state
    running = state.phase.is_play and state.clock.running
    kv(log, logging.WARNING, "power loss: clock restored from the journal, CHECK IT",
       match=session.match_id, last_boot=boots[-1] if boots else None, boot=boot,
       last_at=last_at, clock_was_running=running, offset_ns=timeline.offset)
    if running:
        fed = recorder.command(Stop(last_at))
        if fed.refused is not None:
            kv(log, logging.WARNING, "command refused", match=session.match_id, do="stop",
               at=last_at, reason=str(fed.refused))
    session.new_records()
    session.restored = True
