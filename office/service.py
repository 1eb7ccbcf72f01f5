"""``office serve``: the standings service's loop.

One thread owns everything: it takes the broker's messages from the peer's queue, refuses
garbage with a log line naming the topic and the reason, stores every hall event in SQLite
before acknowledging it (so an event the broker handed over is never lost to a crash of the
office), folds the ledger, and publishes what changed: the retained ``standings/<group>``,
each hall's retained ``next`` and ``acks`` (what the office has durably stored of its
events: the hall's proof of delivery, README "MQTT to the office"), and the page's snapshot.
Corrections and lots drawn from the shell (``office correct``, ``office draw-lots``) reach it
through the same database.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from firmware_py import wire

from . import bracket, intake
from .board import SnapshotBoard
from .ledger import Correction, Ledger, MatchCache, Received, build, build_from
from .model import DecidedBy, Draw, Tournament
from .snapshot import AlertView, HallLive, snapshot
from .store import Store

log = logging.getLogger("office")

# A hall's state (its clock) changes every second: the page's snapshot is rebuilt from it at
# most this often, and without re-folding the ledger, which only events and the office's
# own actions change.
VIEW_S = 0.25


class Message(Protocol):
    @property
    def topic(self) -> str: ...
    @property
    def payload(self) -> bytes: ...


class Peer(Protocol):
    """The broker connection (``firmware_py.mqtt.OfficePeer``; a fake in tests)."""

    def poll(self, timeout: float = ...) -> list[Any]: ...
    def ack(self, message: Any) -> object: ...
    def publish_retained(self, topic: str, payload: bytes, qos: int = ...) -> None: ...


def corrections_and_draws(store: Store) -> tuple[list[Correction], list[Draw]]:
    """The office's own audited actions, in the order they were taken."""
    corrections: list[Correction] = []
    draws: list[Draw] = []
    for action in store.admin_actions():
        data = action.data
        if action.kind == "correct":
            decided = data.get("decided_by")
            corrections.append(Correction(
                match=str(data["match"]), home_goals=int(data["home"]),
                away_goals=int(data["away"]), reason=str(data["reason"]), at=action.at,
                decided_by=DecidedBy(decided) if decided else None))
        elif action.kind == "draw":
            seed = data.get("seed")
            draws.append(Draw(str(data["group"]), tuple(str(t) for t in data["order"]),
                              int(seed) if seed is not None else None))
    return corrections, draws


def ledger_from_store(tournament: Tournament, store: Store, now: datetime) -> Ledger:
    """The ledger as the service would fold it now (for the shell commands)."""
    corrections, draws = corrections_and_draws(store)
    events = [Received(e, e.received) for e in store.events()]
    return build(tournament, events, corrections, draws, now)


class Gapless:
    """The seqs of one match stored so far: ``upto`` is the highest with none missing below
    (what the hall may count delivered); the ones above a gap wait for it to be filled."""

    def __init__(self, seqs: list[int] | None = None) -> None:
        self.upto = 0
        self._above: set[int] = set()
        for seq in seqs or ():
            self.add(seq)

    def add(self, seq: int) -> bool:
        """True if ``upto`` moved."""
        if seq <= self.upto:
            return False
        self._above.add(seq)
        before = self.upto
        while self.upto + 1 in self._above:
            self.upto += 1
            self._above.discard(self.upto)
        return self.upto != before


class OfficeService:
    def __init__(
        self,
        tournament: Tournament,
        store: Store,
        peer: Peer | None,
        board: SnapshotBoard | None = None,
        *,
        wall: Callable[[], datetime] = datetime.now,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tournament = tournament
        self.store = store
        self.peer = peer
        self.board = board
        self.wall = wall
        self.monotonic = monotonic
        self.halls: dict[str, HallLive] = {h: HallLive() for h in tournament.halls()}
        # Every stored event of the schedule's matches, by match and seq (first arrival).
        self._events: dict[str, dict[int, Received]] = {m.id: {} for m in tournament.matches}
        for e in store.events():
            self._keep(Received(e, e.received))
        # What each hall's events the store holds; its `acks` are published for every hall
        # of the schedule from the start, an empty word included: a hall whose events this
        # store lacks (restored from an older copy) must hear so and send them again.
        self._stored: dict[str, dict[str, Gapless]] = {h: {} for h in tournament.halls()}
        for hall, matches in store.stored_seqs().items():
            self._stored[hall] = {m: Gapless(seqs) for m, seqs in matches.items()}
        self._cache = MatchCache()
        self._published: dict[str, bytes] = {}  # topic -> retained payload last sent
        self._data_version = -1
        # Only this process adds alerts; the office's actions are re-read when another
        # process has written to the store (refresh_if_needed), not on every refresh.
        self._alerts = [AlertView(a.at, a.text) for a in store.alerts()]
        self._admin = corrections_and_draws(store)
        self._dirty = True
        self._view_dirty = False
        self._view_at = float("-inf")  # monotonic time the snapshot was last rebuilt
        self.ledger: Ledger | None = None
        self.refused = 0
        for hall in self._stored:
            self._publish_acks(hall)

    # -- input -------------------------------------------------------------------------

    def handle(self, message: Any) -> None:
        """One message from the broker. Garbage is logged and dropped (and acknowledged, or
        the broker would hand it over again for ever); nothing stored is touched."""
        topic: str = message.topic
        kind = intake.classify(topic, self.tournament)
        try:
            if kind is None:
                raise intake.Refusal(topic, "not a topic the office reads")
            hall, what = kind
            if what == "events":
                ev = intake.check_event(topic, message.payload, self.tournament)
                received = self.wall()
                if self.store.add_event(ev, received):  # committed when it returns
                    self._keep(Received(ev, received))
                    self._dirty = True
                    if self._stored.setdefault(ev.hall, {}).setdefault(
                            ev.match, Gapless()).add(ev.seq):
                        self._publish_acks(ev.hall)
            elif what == "state":
                hall, doc = intake.check_state(topic, message.payload, self.tournament)
                old = self.halls.get(hall, HallLive())
                self.halls[hall] = HallLive(old.online, doc)
                self._view_dirty = True
            elif what == "status":
                hall, online = intake.check_status(topic, message.payload, self.tournament)
                old = self.halls.get(hall, HallLive())
                self.halls[hall] = HallLive(online, old.state)
                self._view_dirty = True
        except intake.Refusal as err:
            self.refused += 1
            log.warning("refused %s", err)
        if self.peer is not None:
            self.peer.ack(message)

    def _keep(self, item: Received) -> None:
        seqs = self._events.get(item.event.match)
        if seqs is not None:
            seqs.setdefault(item.event.seq, item)

    def pump(self, timeout: float = 0.2) -> int:
        """Take what the broker sent (waiting up to ``timeout``), then refresh if needed."""
        n = 0
        if self.peer is not None:
            for message in self.peer.poll(timeout):
                self.handle(message)
                n += 1
        self.refresh_if_needed()
        return n

    # -- output ------------------------------------------------------------------------

    def refresh_if_needed(self) -> None:
        version = self.store.data_version()
        if version != self._data_version:
            # Another process wrote (`office correct`, `office draw-lots`): read its actions.
            self._data_version = version
            self._admin = corrections_and_draws(self.store)
            self._dirty = True
        ledger = self.ledger
        now = self.wall()
        if ledger is not None and ledger.next_change is not None and now >= ledger.next_change:
            self._dirty = True
        if self._dirty:
            self.refresh(now)
        elif self._view_dirty and self.monotonic() - self._view_at >= VIEW_S \
                and self.ledger is not None:
            self._show(self.ledger, now)

    def refresh(self, now: datetime | None = None) -> Ledger:
        now = now or self.wall()
        self._dirty = False
        corrections, draws = self._admin
        ledger = build_from(self.tournament, self._events, corrections, draws, now,
                            cache=self._cache)
        if self.ledger is not None:
            for change in bracket.changes(self.ledger.pairings, ledger.pairings):
                text = f"bracket re-filled: {change}"
                log.warning("%s", text)
                self.store.add_alert(text, now)
                self._alerts.append(AlertView(now, text))
        self.ledger = ledger
        self._publish(ledger)
        self._show(ledger, now)
        return ledger

    def _show(self, ledger: Ledger, now: datetime) -> None:
        self._view_dirty = False
        self._view_at = self.monotonic()
        if self.board is not None:
            self.board.publish(snapshot(ledger, self.halls, self._alerts, now))

    def _publish(self, ledger: Ledger) -> None:
        tid = self.tournament.id
        for group in self.tournament.groups:
            self._retain(wire.standings_topic(tid, group.name),
                         wire.build_standings(ledger.standings(group.name)))
        for hall in self.tournament.halls():
            upcoming = ledger.next_match(hall)
            self._retain(wire.hall_topic(tid, hall, wire.NEXT),
                         b"" if upcoming is None else wire.build_next(upcoming))

    def _publish_acks(self, hall: str) -> None:
        """The hall's retained ``acks``: only after the SQLite commit of what it says."""
        self._retain(wire.hall_topic(self.tournament.id, hall, wire.ACKS),
                     wire.build_acks({m: g.upto for m, g in self._stored[hall].items()
                                      if g.upto > 0}))

    def _retain(self, topic: str, payload: bytes) -> None:
        """Publish a retained document unless it is what was sent last (b"": clear it)."""
        if self._published.get(topic) == payload:
            return
        if self.peer is not None:
            self.peer.publish_retained(topic, payload)
        self._published[topic] = payload
