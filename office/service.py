"""``office serve``: the standings service's loop.

One thread owns everything: it takes the broker's messages from the peer's queue, refuses
garbage with a log line naming the topic and the reason, stores every hall event in SQLite
before acknowledging it (so an event the broker handed over is never lost to a crash of the
office), folds the ledger, and publishes what changed: the retained ``standings/<group>``,
each hall's retained ``next`` and ``acks`` (what the office has durably stored of its
events: the hall's proof of delivery, docs/developer.md, "MQTT to the office"), and the page's
snapshot.
Corrections and lots drawn from the shell (``office correct``, ``office draw-lots``) reach it
through the same database.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from arena import wire
from arena.timesource import SteadyWall
from arena.tournament.event import Event
from arena.tournament.model import Tournament
from office.inforce import (  # re-exported: the shell's commands read the store through them
    SCHEDULE_KEY,
    ScheduleIndex,
    category_draws,
    corrections_and_draws,
    effective_event,
    excluded_events,
    green_cards,
    ledger_from_store,
    replayed,
    schedule_steps,
)
from office.serving.base import NUDGE_S, VIEW_S, Message, Peer
from office.serving.folding import Folding
from office.storage import faults, intake
from office.storage.backlog import Backlog
from office.storage.store import Store
from office.views.board import SnapshotBoard
from office.views.gapless import Gapless
from office.views.ledger import MatchCache, MatchDigest
from office.views.snapshot import AlertView, HallLive

__all__ = ["NUDGE_S", "SCHEDULE_KEY", "VIEW_S", "Message", "OfficeService", "Peer",
           "ScheduleIndex", "category_draws", "corrections_and_draws", "effective_event",
           "excluded_events", "green_cards", "ledger_from_store", "schedule_steps"]


class OfficeService(Folding):
    """The standings service: its layers (``office.serving``) over one state."""

    def __init__(
        self,
        tournament: Tournament | Event,
        store: Store,
        peer: Peer | None,
        board: SnapshotBoard | None = None,
        *,
        wall: Callable[[], datetime] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        public_url: str | None = None,
    ) -> None:
        # One ledger per category, each folded as a tournament of its own; a plain tournament
        # file is a one-category event (arena.tournament.event). That is the file it started with;
        # what it serves has the office's schedule changes (a restart keeps them: they are
        # rows of the store, office.schedule).
        self.base = tournament if isinstance(tournament, Event) else Event.single(tournament)
        steps = schedule_steps(store)
        self._schedule_rows = tuple(step.id for step in steps)
        self.event = replayed(self.base, steps)
        event = self.event
        self.store = store
        self.peer = peer
        # The public site's address phones reach (``office serve --public-url``), told to
        # every hall in its `next` (wire.Nx.PUBLIC_URL). Refused here, where it enters, so a
        # hall never has to ignore the office's own mistake.
        self.public_url = None if public_url is None else wire.check_public_url(public_url)
        self.board = board
        # The office's time: arrivals, protest windows, corrections. A wall clock that never
        # jumps (arena.timesource.SteadyWall): an NTP step or a DST change must not close
        # every open protest window at once, or hold them an hour longer.
        self.wall = wall if wall is not None else SteadyWall()
        self.monotonic = monotonic
        self.halls: dict[str, HallLive] = {h: HallLive() for h in event.halls()}
        # The stored events of the schedule's matches, folded by match as they arrive: what
        # the ledger reads of them and no more (ledger.MatchDigest: the memory grows with
        # the matches, not with their events).
        self._events = {m.id: MatchDigest() for _, m in event.schedule()}
        self._index_schedule(event)
        self.refusals = faults.RefusalCounts()
        self.store_error: str | None = None  # the store's last failure, shown on the page
        self.backlog = Backlog()
        self._keep_slugs(event)  # the public pages' addresses, kept since first published
        # Quarantine: stored events the office will not fold (docs/office.md, "The office's
        # faults").
        self._quarantine = store.quarantine_status()
        # The checks run on every event before it is stored; at start only on the rows
        # stored since the last start (or by another version of the checks).
        self._checked_upto = store.checked_upto(faults.checks_version())
        self._load_all()
        # What the store holds of each match's events, and the matches each hall sent: its
        # `acks` are published for every hall of the schedule from the start, an empty word
        # included (a hall whose events this store lacks, restored from an older copy, must
        # hear so and send them again). A hall's mark of a match counts the seqs below its
        # first whichever hall sent them: a replay played in another hall numbers on above
        # the first hall's events (wire.Nx.REPLAY), and its hall must hear them stored too;
        # from its first on, only its own (``_mark``).
        self._stored = {}
        self._own = {}
        self._sent = {h: set() for h in event.halls()}
        # A match moved away from the hall playing it stays that hall's (intake.Playing).
        self._playing = intake.Playing()
        self._claims = intake.Claims()
        for hall, match, seq in store.iter_stored_seqs():
            self._stored.setdefault(match, Gapless()).add(seq)
            self._own_seqs(hall, match, seq).add(seq)
            self._sent.setdefault(hall, set()).add(match)
            self._playing.add(hall, match, seq)
        self._cache = MatchCache()
        self._published = {}  # topic -> retained payload last sent
        self._sent_tables = {}  # (category, group) -> the table's revision published
        self._data_version = -1
        # Only this process adds alerts; the office's actions are re-read when another
        # process has written to the store (refresh_if_needed), not on every refresh.
        self._alerts = [AlertView(a.at, a.text, a.id, a.match) for a in store.alerts()]
        self._admin = corrections_and_draws(store)
        self._read_reviews()
        self._green = green_cards(store)
        self._dirty = True
        self._view_dirty = False
        self._view_at = float("-inf")  # monotonic time the snapshot was last rebuilt
        self.ledgers = None  # by category name
        self._conflicts = store.conflicts()
        self._fold_error = ""
        self._start_reports()  # the result links, and the results entered on a form
        for hall in self._sent:
            self._publish_acks(hall)

    def pump(self, timeout: float = 0.2) -> int:
        """Take what the broker sent (waiting up to ``timeout``), retry what the store could
        not take if that is due, then refresh if needed."""
        n = 0
        if self.peer is not None:
            for message in self.peer.poll(timeout):
                self.handle(message)
                n += 1
        self.retry_backlog()  # due at most every MAX_RETRY_S; this loop turns within 0.2 s
        self.refresh_if_needed()
        return n
