"""The office side of the hall: the office link (started on a disk that takes its side
files), its pump (acknowledgements, events, ``next``), the office's ``next`` and tables as
they arrive, and the office's problems shown to the timekeeper."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.wire import Nx
from firmware_py.logfmt import kv
from firmware_py.nextmatch import NextMatch, replay_above
from firmware_py.operatorview import OfficeLine
from firmware_py.outbox import JournalTail, Outbox, stored_path
from firmware_py.recorder import replay_due
from firmware_py.storage import FAULT_LOG_EVERY_NS

if TYPE_CHECKING:
    from firmware_py.daemon import Daemon
    from firmware_py.parts import OfficeLink
    from firmware_py.session import Session

log = logging.getLogger("firmware_py.daemon")


class OfficeSide:
    """What the hall knows of its office, and the link that carries it."""

    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon
        self.link: OfficeLink | None = None
        self.next_match = NextMatch()
        self.standings: dict[str, Mapping[str, object]] = {}  # group -> the office's table
        # The public site's address as the office's latest `next` gave it (wire.Nx.PUBLIC_URL):
        # shown between games when [display] public_url is not set. A cleared `next` (no
        # match planned here) says nothing of the site, so it keeps the last one heard.
        self.public_url: str | None = None
        # The latest thing the office sent that the hall could not take (OfficeLink.problem):
        # told to the timekeeper once as it comes, and kept on the operator view.
        self.problem: str | None = None
        # Whether an office has sent a `next`: then it decides, not the local schedule.
        self.next_seen = False
        self.arrived = False  # a `next` came in during a nap: the loop wakes for it
        self._waits = False  # the link could not start on the failing disk
        self._ack_logged: int | None = None

    # ---------------------------------------------------------- the link

    def start(self) -> None:
        """The office link, unless the state folder cannot take its side files (a read-only
        card at start): then the board plays without it and tries again once the journal
        is written (``disk_back``)."""
        try:
            self._open()
        except OSError as err:
            self.link = None
            self._waits = True
            kv(log, logging.ERROR, "office link not started: the state folder cannot be "
               "written", problem=str(err))
        else:
            self._waits = False

    def disk_back(self) -> None:
        """The journal is written again: a link that waited for the disk starts now."""
        if self._waits:
            self.start()

    def _open(self) -> None:
        daemon = self._daemon
        link_cfg = daemon.config.mqtt
        if link_cfg is None:
            return
        session = daemon.session_on_board()
        link = daemon.parts.link(link_cfg, self.on_next, self.on_standings)
        # Every match in the state directory (this tournament's and hall's only: see
        # firmware_py/boardmatch.py), oldest first: a crash or an outage during an earlier
        # match loses none of its events, and an office that later says it lost a finished
        # match (restored from an older backup) gets it again.
        files = daemon.files
        current = session.path
        for path in files.journals():
            if path == current:
                continue
            outbox = Outbox(stored_path(path), match=files.match_of(path))
            outbox.add(JournalTail(path).read())
            if outbox.unacked:
                kv(log, logging.INFO, "resending", journal=path.name, events=outbox.unacked)
            link.add_outbox(outbox)
        outbox = Outbox(stored_path(current), match=session.match_id)
        outbox.add(session.records)
        link.add_outbox(outbox)
        self.link = link
        link.start()

    def follow(self, session: Session) -> None:
        """A new match on the board: its journal's outbox joins the link's (the old ones stay,
        drained first)."""
        link = self.link
        if link is None or (link.outbox is not None and link.outbox.match == session.match_id):
            return  # (the match already the newest outbox's, replayed: that one sends on)
        outbox = Outbox(stored_path(session.path), match=session.match_id)
        outbox.add(session.records)
        link.add_outbox(outbox)

    def pump(self) -> None:
        """The link's pump; an acknowledgement the disk cannot keep must not stop the board
        (the event stays unacknowledged and is sent again later: a duplicate the office
        removes). Logged at most once a minute."""
        link = self.link
        if link is None:
            return
        daemon = self._daemon
        try:
            link.pump()
        except OSError as err:
            real = daemon.time.monotonic_ns()
            if self._ack_logged is None or real - self._ack_logged >= FAULT_LOG_EVERY_NS:
                self._ack_logged = real
                kv(log, logging.ERROR, "office acknowledgements not kept: the disk refuses",
                   problem=str(err))
        problem = link.problem
        if problem is not None and problem != self.problem:
            # Not only the log: the table sees at once that the office's word was not taken
            # (the office's page is where it is mended).
            self.problem = problem
            daemon.feedback.note("", problem, daemon.timeline.now(), key="press.office_next")
            daemon.dirty = True

    def view(self) -> OfficeLine | None:
        """The office as the operator view shows it: online, unacknowledged, its problem,
        since when it cannot store, the matches it refuses from this hall."""
        link = self.link
        return None if link is None else OfficeLine(
            link.connected, link.unacked, self.problem, link.cannot_store_since,
            tuple(sorted(link.refused.items())))

    def close(self, doc: dict[str, Any] | None) -> None:
        """The last state, then ``offline`` (the will is not sent on a clean stop)."""
        link = self.link
        if link is None:
            return
        if doc is not None:
            link.publish_state(doc)
        link.pump()
        link.close()  # publishes `offline` first
        kv(log, logging.INFO, "office link closed", unacked=link.unacked)

    # ---------------------------------------------------------- what the office sends

    def on_standings(self, group: str, doc: dict[str, Any] | None) -> None:
        if doc is None:
            self.standings.pop(group, None)
        else:
            self.standings[group] = doc
        self._daemon.dirty = True  # the between-games screen shows the tables

    def on_next(self, doc: dict[str, Any]) -> None:
        self.next_match.offer(doc)  # called from pump(), on this thread
        self.public_url = doc.get(Nx.PUBLIC_URL)  # checked by wire.check_next
        # The office decides from now on: its `next` replaces a local pick not yet started.
        self.next_seen = True
        self._daemon.plan.office_decides()
        self.arrived = True
        self._daemon.dirty = True  # the between-games screen shows the next match

    def take_next(self) -> None:
        """The office's `next` onto the board once the hall is free, else the local
        schedule's."""
        daemon = self._daemon
        session = daemon.session_on_board()
        pending = self.next_match.pending
        if pending is not None and pending["match"] == session.match_id \
                and not self._replay_due(session, pending):
            self.next_match.pending = None  # the match on the board already
            loaded = daemon.loader.loaded_next
            if loaded is None or loaded.get("match") == pending["match"]:
                # After a restart the office's retained `next` is the only word of the
                # board's match: its scheduled time and suspensions are kept, as at loading.
                daemon.loader.loaded_next = pending
                daemon.dirty = True
            return
        if not session.recorder.recording or session.damaged:
            return  # the match's records must be on the disk (and confirmed) first
        doc = self.next_match.take(session.recorder.match.state, daemon.timeline.now(),
                                   daemon.final_hold)
        if doc is not None:
            daemon.loader.load_next(doc)
            return
        daemon.plan.take_local()

    @staticmethod
    def _replay_due(session: Session, doc: Mapping[str, Any]) -> bool:
        """The office replays the match on the board and this journal has not started that
        replay yet (firmware_py/recorder.py ``replay_due``): it is loaded again, as a fresh
        game, once the hall is free."""
        above = replay_above(doc)
        return above is not None and replay_due(session.recorder, above)
