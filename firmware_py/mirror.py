"""``scoreboard run --mirror HALL``: a second board of a hall (the far end, a lobby TV) that
follows the hall's board over the broker (docs/technician.md, "A second board").

It reads the hall's retained ``state`` and ``status`` (firmware_py/mqtt.py ``MirrorLink``)
and draws the same frame with the same display code. Its countdowns are computed from the
hall's anchor (arena/wire/anchor.py), never from the once-a-second ticks: each document
carries the instant it is exact for on the hall's clocks, and the mirror maps that instant
onto its own monotonic clock once, when the document arrives (``Basis``):

- ``monotonic``: the hall runs in this same boot of this machine (same boot id): the hall's
  monotonic clock is ours, the mapping is exact;
- ``wall``: another machine, both wall clocks synchronised (NTP/chrony; the hall sends its
  wall clock only when it is): the error is the two clocks' disagreement, a few ms on a LAN;
- ``arrival``: no shared clock: the document is taken as exact when it arrived, late by the
  network's and the broker's latency.

It has no console, no pins, no horn and no journal: nothing it does is a record of the game.
Under systemd (the hall's unit with another ExecStart, docs/technician.md) it speaks the
same notify protocol as the hall's daemon: READY=1 once its loop runs (the hall may be
away: a dark board that waits for it is up), WATCHDOG=1 from the loop, STATUS= the link.
When the hall's board goes silent (its ``status`` says offline, the broker is gone, or no
state came for ``silent_ns``: the hall refreshes it at least every 10 s) the board shows
BOARD LINK LOST and its clock runs on (or stays stopped) from the last anchor.

Frames are drawn at the instants the followed document next shows another digit (the
hall's own rule: whole seconds, tenths in the last minute), at once when a document
arrives, and when the link-lost mark comes or goes. Nothing here reads the OS clock: every
instant comes from ``time``.
"""

from __future__ import annotations

import enum
import logging
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol

from arena import wire
from arena.core.units import NS_PER_S
from arena.timesource import SystemTime, TimeSource
from firmware_py.config import Config
from firmware_py.linkconfig import LinkConfig
from firmware_py.logfmt import kv
from firmware_py.outputs import FrameLog, write_state_file
from firmware_py.sdnotify import Notifier
from firmware_py.timeline import boot_id

if TYPE_CHECKING:
    from display.screens.common import LayoutOptions
    from firmware_py.parts import Display

log = logging.getLogger("firmware_py.mirror")

# No state for this long and the board says BOARD LINK LOST: the hall refreshes its retained
# state at least every 10 s (arena/broker.py STATE_EVERY_S), every second while a clock
# counts; two refreshes missed is a hall gone, not a late packet.
SILENT_NS = 25 * NS_PER_S
# The longest nap between looks at the link when nothing wakes the loop (a message does).
NAP_NS = NS_PER_S // 2
# A frame is drawn this long before its instant, plus twice the last drawing's time (at most
# LEAD_MAX_NS), then shown at the instant.
LEAD_NS = NS_PER_S // 1000
LEAD_MAX_NS = NS_PER_S // 20


class Basis(enum.Enum):
    """How a document's instant is put on the mirror's clock (see the module's docstring)."""

    MONOTONIC = "monotonic"
    WALL = "wall"
    ARRIVAL = "arrival"


class Link(Protocol):
    """What the mirror needs of its connection (``MirrorLink``; a test's fake)."""

    @property
    def connected(self) -> bool: ...
    def start(self) -> None: ...
    def pump(self, timeout: float = 0.0) -> list[tuple[str, Any]]: ...
    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class MirrorOptions:
    hall: str  # the hall whose board this one follows
    display_mode: str  # resolved: fullscreen, windowed or headless
    state_file: Path | None = None
    silent_ns: int = SILENT_NS
    frame_log: Path | None = None  # --frame-log (firmware_py/outputs.py FrameLog)


@dataclass(frozen=True, slots=True)
class Followed:
    """The hall's latest document, placed on the mirror's clock: ``base`` is the mirror's
    monotonic instant of the document's own instant."""

    doc: Mapping[str, Any]
    anchor: wire.Anchor | None
    base: int
    basis: Basis

    def elapsed(self, at: int) -> int:
        """Match ns from the document's instant to the mirror's instant ``at``."""
        if self.anchor is None:
            return 0
        scale = self.anchor.scale
        return (at - self.base) * scale.numerator // scale.denominator

    def shown(self, at: int) -> dict[str, Any]:
        if self.anchor is None:  # an older hall: the document as it came
            return dict(self.doc)
        return wire.follow(self.doc, self.anchor, self.elapsed(at))

    def next_change(self, at: int) -> int | None:
        """The mirror's instant after ``at`` at which the shown document next changes."""
        if self.anchor is None:
            return None
        due = wire.next_change(self.doc, self.anchor, self.elapsed(at))
        if due is None:
            return None
        scale = self.anchor.scale  # back to real ns, rounded up: never before the change
        return self.base - (-due * scale.denominator // scale.numerator)


def check_link(config: Config, hall: str) -> LinkConfig:
    """The config's ``[mqtt]`` for a mirror of ``hall``, or ``ValueError`` saying what is
    wrong: there must be a broker, and the mirror must not log in as the hall itself (one
    connection per user on the shipped broker: it would throw the hall's board off)."""
    wire.check_hall(hall)
    link = config.mqtt
    if link is None:
        raise ValueError(f"{config.source}: [mqtt]: a mirror needs the broker (broker, "
                         "tournament, hall, and a username of its own)")
    if link.username is not None and link.username == hall:
        raise ValueError(f"{config.source}: [mqtt] username {hall!r} is the hall's own: its "
                         "board would be thrown off the broker; give the mirror its own user, "
                         f"e.g. 'mirror-{hall}' (systemd/mosquitto/README.md)")
    return link


class Mirror:
    """One second board. ``run()`` is ``scoreboard run --mirror``; a test calls ``start()``,
    ``run_until(instant)`` and ``shutdown()`` on a fake ``time``, a fake ``link`` and a
    recording ``display``."""

    def __init__(self, config: Config, options: MirrorOptions, *,
                 time: TimeSource | None = None, link: Link | None = None,
                 display: Display | None = None, boot: str | None = None,
                 notifier: Notifier | None = None) -> None:
        self.config = config
        self.options = options
        self.time: TimeSource = time if time is not None else SystemTime()
        self.link = link
        self.display = display
        self.boot = boot_id() if boot is None else boot
        self.notifier = notifier if notifier is not None else Notifier()
        self._watchdog_at = 0
        self.followed: Followed | None = None
        self.hall_online: bool | None = None  # the hall's retained status; None: not heard
        self.heard_at: int | None = None  # the last state's arrival (mirror's clock)
        self.started_at = 0
        self.frames = 0
        self.stopping: str | None = None
        self.dirty = True
        self._lost_shown: bool | None = None
        self._basis: Basis | None = None
        self._layouts: dict[object, LayoutOptions] = {}
        self._wake = threading.Event()
        self._render_ns = 0  # the last frame's drawing time
        self.shown_at: int | None = None  # the instant the frame on the screen is for
        self.frame_log = FrameLog(None)

    # ------------------------------------------------------------------ starting

    def start(self) -> None:
        cfg, opts = self.config, self.options
        kv(log, logging.INFO, "mirror starting", hall=opts.hall, display=opts.display_mode,
           config=cfg.source, boot=self.boot)
        if self.link is None:
            self.link = self._real_link()
        if self.display is None:
            from firmware_py.parts import HallParts  # noqa: PLC0415 - pygame only here

            self.display, _ = HallParts().display(opts.display_mode, cfg.display_size,
                                                  cfg.keypad)
        self.frame_log = FrameLog(opts.frame_log)
        self.started_at = self.time.monotonic_ns()
        self.link.start()
        self.notifier.ready(f"mirror of {opts.hall}: waiting for its board")

    def _real_link(self) -> Link:
        from firmware_py.mqtt import MirrorLink  # noqa: PLC0415 - paho only with a broker

        link = check_link(self.config, self.options.hall)
        return MirrorLink(link.broker.host, link.broker.port, link.tournament,
                          self.options.hall, username=link.username, password=link.password,
                          tls=link.tls, on_arrival=self._wake.set)

    # ------------------------------------------------------------------ running

    def run(self) -> int:
        previous = {sig: signal.signal(sig, self._on_signal)
                    for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.start()
            while self.stopping is None:
                self.iterate()
            return 0
        finally:
            self.shutdown()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.request_stop(signal.Signals(signum).name)

    def request_stop(self, reason: str) -> None:
        if self.stopping is None:
            self.stopping = reason
            self._wake.set()

    def run_until(self, instant: int, *, stop_when: Callable[[], bool] | None = None) -> None:
        """Run the loop until the mirror's monotonic ``instant`` (for tests and tools)."""
        while self.stopping is None and self.time.monotonic_ns() < instant:
            self.iterate(until=instant)
            if stop_when is not None and stop_when():
                return

    def iterate(self, until: int | None = None) -> None:
        """Take what arrived (a new document is drawn at once), draw the next change's frame
        if it is near, then sleep until the next thing to do or a message."""
        link = self.link
        if link is None:
            raise RuntimeError("the loop runs after start()")
        now = self.time.monotonic_ns()
        self._watchdog(now)
        for kind, value in link.pump():
            self._take(kind, value, now)
        lost = self.link_lost(now)
        if lost != self._lost_shown:
            self.dirty = True
            if self._lost_shown is not None or lost:
                kv(log, logging.WARNING if lost else logging.INFO,
                   "board link lost" if lost else "board link back", hall=self.options.hall,
                   online=self.hall_online, connected=link.connected)
            self.notifier.status(f"mirror of {self.options.hall}: "
                                 + ("BOARD LINK LOST" if lost else "following"))
        if self.dirty:
            self.frame(now)
            now = self.time.monotonic_ns()
        wakes = [now + NAP_NS]
        if self.notifier.watchdog_ns is not None:
            wakes.append(self._watchdog_at)
        if until is not None:
            wakes.append(until)
        if self.heard_at is not None and not lost:
            wakes.append(self.heard_at + self.options.silent_ns)
        change = None
        if self.followed is not None:
            # From the frame on the screen, not from now: a loop that woke after a change (a
            # loaded machine) draws at once, for now, instead of leaving the over value up
            # until the change after it (the hall's pacer does the same: display/pacing.py).
            shown = now if self.shown_at is None else min(self.shown_at, now)
            change = self.followed.next_change(shown)
            if change is not None and change <= now:
                self.frame(now)
                return
        if change is not None:
            # Drawn ahead, shown at the instant (as the hall's board does): the lead is the
            # last drawing's time, and a little for the wake-up.
            lead = min(LEAD_MAX_NS, 2 * self._render_ns + LEAD_NS)
            if change - lead <= now:
                self.frame(change)
                return
            wakes.append(change - lead)
        self._wake.clear()
        target = min(wakes)
        if self.stopping is None and self.time.monotonic_ns() < target:
            self.time.sleep_until(target, cancel=self._wake)

    def _watchdog(self, now: int) -> None:
        """WATCHDOG=1 every half WatchdogSec=: a hung loop gets the board restarted."""
        if self.notifier.watchdog_ns is not None and now >= self._watchdog_at:
            self.notifier.watchdog()
            self._watchdog_at = now + self.notifier.watchdog_ns

    def link_lost(self, now: int) -> bool:
        """Nothing trustworthy from the hall's board: no connection, the hall offline, or
        no state for ``silent_ns`` (counted from start while none came yet)."""
        link = self.link
        if link is None or not link.connected or self.hall_online is False:
            return True
        last = self.started_at if self.heard_at is None else self.heard_at
        return now - last >= self.options.silent_ns

    def _take(self, kind: str, value: Any, now: int) -> None:
        if kind == "state":
            if not value:
                return  # the retained state was cleared: keep what is shown
            try:
                anchor = wire.read_anchor(wire.STATE, value)
            except wire.WireError as err:
                kv(log, logging.WARNING, "state refused", problem=err.reason)
                return
            self.followed = self._place(value, anchor, now)
            self.heard_at = now
            self.dirty = True
        elif kind == "status":
            self.dirty = self.dirty or self.hall_online != bool(value)
            self.hall_online = bool(value)
        elif kind == "connected":
            self.dirty = True

    def _place(self, doc: Mapping[str, Any], anchor: wire.Anchor | None, now: int) -> Followed:
        """The document on the mirror's clock (``Basis``): the best shared clock there is."""
        base, basis = now, Basis.ARRIVAL
        if anchor is not None:
            wall = self.time.wall()
            if anchor.boot and anchor.boot == self.boot:
                base, basis = anchor.mono_ns, Basis.MONOTONIC
            elif anchor.wall_ns is not None and wall is not None:
                # The hall's wall instant, moved onto our monotonic clock by our wall clock.
                base = anchor.wall_ns - round(wall() * NS_PER_S) + self.time.monotonic_ns()
                basis = Basis.WALL
        if basis is not self._basis:
            kv(log, logging.INFO, "mirror clock basis", hall=self.options.hall,
               basis=basis.value)
            self._basis = basis
        return Followed(doc, anchor, base, basis)

    # ------------------------------------------------------------------ drawing

    def shown(self, at: int) -> dict[str, Any] | None:
        """The document this board shows at its instant ``at`` (None before the first)."""
        return None if self.followed is None else self.followed.shown(at)

    def _layout(self, doc: Mapping[str, Any]) -> LayoutOptions:
        from display.hall import HallGeometry  # noqa: PLC0415 - the display loads lazily
        from display.options import options_for_name  # noqa: PLC0415

        name = doc.get("preset")
        if name not in self._layouts:
            cfg = self.config
            self._layouts[name] = options_for_name(
                name, HallGeometry(cfg.screen_height_cm, cfg.farthest_seat_m),
                cfg.display_language)
        return self._layouts[name]

    def frame(self, at: int) -> None:
        """Draw the frame for the instant ``at`` (now, or a little ahead) and show it then:
        with the link-lost mark as it is at that instant."""
        display = self.display
        if display is None:
            raise RuntimeError("frames are drawn after start()")
        self.dirty = False
        lost = self.link_lost(at)
        self._lost_shown = lost
        doc = self.shown(at)
        if doc is None:
            return  # nothing heard yet: the board stays dark
        status = {"operator_line": False, "board_link_lost": lost,
                  "restored": bool(doc.get("restored", False))}
        started = self.time.monotonic_ns()
        dirty = display.draw(doc, status=status, options=self._layout(doc))
        self._render_ns = self.time.monotonic_ns() - started
        self.time.sleep_until(at)  # never before the instant the frame was computed for
        display.present(dirty)
        self.frame_log.presented(self.time.monotonic_ns(), at, doc)
        self.shown_at = at
        self.frames += 1
        write_state_file(self.options.state_file, doc, at)

    # ------------------------------------------------------------------ stopping

    def shutdown(self) -> None:
        """Link, then display; each even if the other failed."""
        self.notifier.stopping()
        try:
            if self.link is not None:
                self.link.close()
        finally:
            self.frame_log.close()
            if self.display is not None:
                self.display.close()
        self.notifier.close()
        kv(log, logging.INFO, "mirror stopped", hall=self.options.hall, frames=self.frames,
           reason=self.stopping)
