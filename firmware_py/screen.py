"""What is drawn when: the frame at the instant it was computed for (the state document, the
between-games screen, the board's own status), the operator view (page and window) built
from the frame just drawn, the state handed to the outputs, and a snapshot at each new phase
or period."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.core.entry import Lapse
from arena.core.phase import Phase
from arena.core.state import state_document
from arena.core.units import NS_PER_MS, NS_PER_S
from arena.wire import Anchor
from firmware_py.between import between_games
from firmware_py.feedback import Notice
from firmware_py.logfmt import kv
from firmware_py.operatorview import operator_document
from firmware_py.operatorweb import OperatorWeb, Snapshot
from firmware_py.outputs import status_text, write_between_file
from firmware_py.timetable import SCHEDULE_VIEW_NS

if TYPE_CHECKING:
    from display.hall import HallGeometry
    from display.screens.common import LayoutOptions
    from firmware_py.daemon import Daemon
    from firmware_py.parts import Display, OperatorWindow

log = logging.getLogger("firmware_py.daemon")

# The operator view (page and window) is rebuilt at most this often (real time): a phone
# polls twice a second, and the loop's frames must not pay for more.
VIEW_GAP_NS = NS_PER_S // 10


class Screen:
    """The hall display and the timekeeper's view of one daemon."""

    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon
        self.display: Display | None = None
        self.layout: LayoutOptions | None = None  # the preset's layout options
        self._shown_notice: Notice | None = None  # in the last frame drawn
        # What the between file holds; "" (no document's text) so that the first frame
        # writes it or removes a stale one left by an earlier run.
        self._between_written: str | None = ""
        self.operator_web: OperatorWeb | None = None
        self.operator_window: OperatorWindow | None = None
        self.operator_line = True  # the hall display's operator line
        self._view_last: Mapping[str, object] | None = None
        self._view_at = 0  # real time: the view may be rebuilt from then
        self.view_pending = False  # a frame was drawn while the view waited for its gap
        self.entry_view_next: int | None = None  # match time: the entry's countdown moves on
        self._snapshots = 0
        self._started_real = daemon.time.monotonic_ns()

    # ---------------------------------------------------------- opening

    def open_operator_view(self) -> None:
        """The page (``[operator] port``) and, in windowed mode, the second window; the
        hall's operator line then goes unless the config says otherwise. A page that
        cannot be served (the port is taken) is logged: the board plays without it."""
        daemon = self._daemon
        cfg = daemon.config
        if cfg.operator.port is not None:
            try:
                web = OperatorWeb(cfg.operator.bind, cfg.operator.port, cfg.display_language)
            except OSError as err:
                kv(log, logging.ERROR, "operator page not served", bind=cfg.operator.bind,
                   port=cfg.operator.port, problem=str(err))
            else:
                web.start()
                self.operator_web = web
                # The port, not an address: "0.0.0.0" is every interface, the phone
                # uses the Pi's own address or host name.
                kv(log, logging.INFO, "operator page served", bind=web.host, port=web.port)
        if cfg.operator.window:
            self.operator_window = daemon.parts.operator_window(daemon.options.display_mode)
        line = cfg.operator_line
        self.operator_line = (self.operator_web is None and self.operator_window is None
                              if line == "auto" else bool(line))

    def lay_out(self) -> None:
        """The layout options of the preset on the board, for the hall it hangs in."""
        from display.options import options_for  # noqa: PLC0415

        daemon = self._daemon
        self.layout = options_for(daemon.match.preset, self._hall(),
                                  daemon.config.display_language)

    def _hall(self) -> HallGeometry:
        """The hall the display hangs in ([display] screen_height_cm, farthest_seat_m)."""
        from display.hall import HallGeometry  # noqa: PLC0415 - the display loads lazily

        cfg = self._daemon.config
        return HallGeometry(cfg.screen_height_cm, cfg.farthest_seat_m)

    # ---------------------------------------------------------- what a frame shows

    def document(self, at: int) -> dict[str, Any]:
        daemon = self._daemon
        session = daemon.session_on_board()
        console = daemon.console
        doc = state_document(session.recorder.match, at,
                             console.entry() if console else None)
        doc["restored"] = session.restored  # an extra key (docs/developer.md 4.3 allows them)
        return doc

    def anchor(self, at: int) -> dict[str, Any]:
        """Where the document of ``at`` sits on this machine's clocks (arena/wire/anchor.py):
        a second board computes the countdowns from it, not from the once-a-second ticks.
        The game clock's remaining time to the nanosecond: the shown tenth is rounded."""
        daemon = self._daemon
        match = daemon.match
        real = daemon.timeline.to_real(at)
        wall = daemon.time.wall()
        wall_ns = None
        if wall is not None:
            # The wall clock read now, carried to the frame's instant on the monotonic one.
            wall_ns = round(wall() * NS_PER_S) + real - daemon.time.monotonic_ns()
        return Anchor(mono_ns=real, wall_ns=wall_ns, boot=daemon.boot,
                      scale=daemon.timeline.scale, clock_ns=match.state.clock.remaining(at),
                      tenths_below_ms=match.preset.tenths_below // NS_PER_MS).to_json()

    def status(self, at: int | None = None) -> dict[str, object]:
        """What the display shows of the scoreboard itself: the restored mark, the office,
        ``recording`` (false: the journal cannot be written, the game is only in memory) and
        ``journal_damaged`` (the byte offset of a damaged record, until the NEXT hold)."""
        daemon = self._daemon
        session = daemon.session_on_board()
        link = daemon.link
        status: dict[str, object] = {
            "restored": session.restored,
            "office_online": None if link is None else link.connected,
            "recording": session.recorder.recording,
            "journal_damaged": session.damaged[0] if session.damaged else None}
        if not self.operator_line:
            status["operator_line"] = False  # the timekeeper has a view of their own
        notice = daemon.feedback.current(daemon.timeline.now() if at is None else at)
        if notice is not None and self.operator_line:
            status["feedback"] = {"text": notice.text(marks=False),
                                  "shorter": notice.shorter(), "accepted": notice.accepted}
        pregame = session.recorder.match.state.phase is Phase.PREGAME
        # Until the first game starts: the timekeeper has seen them by then.
        if daemon.loader.set_aside is not None and pregame:
            status["set_aside"] = daemon.loader.set_aside
        if daemon.plan.problem is not None and pregame:
            status["schedule"] = daemon.plan.problem
        return status

    def between(self, at: int) -> dict[str, Any] | None:
        """The between-games screen's data at ``at`` (firmware_py/between.py)."""
        daemon = self._daemon
        office = daemon.office
        return between_games(daemon.match, at, pending=office.next_match.pending,
                             loaded=daemon.loader.loaded_next, standings=office.standings,
                             final_hold=daemon.final_hold, offer=daemon.plan.offer,
                             # the hall's own address wins: it knows its own network
                             public_url=daemon.config.public_url or office.public_url,
                             replay=daemon.replaying)

    def notice_changed(self, now: int) -> bool:
        """A notice came or went since the last frame: the next frame shows it."""
        return self._daemon.feedback.current(now) is not self._shown_notice

    # ---------------------------------------------------------- drawing

    def frame(self, present_at: int) -> None:
        """Draw the frame for ``present_at``, present it at that instant, then the operator
        view and the outputs from the same document."""
        daemon = self._daemon
        display, frames = self.display, daemon.frames
        if display is None or frames is None:
            raise RuntimeError("frames are drawn after start()")
        session = daemon.session_on_board()
        clock = daemon.time
        doc = daemon.document(present_at)  # through the daemon: a test wraps it
        started = clock.monotonic_ns()
        between = self.between(present_at)
        dirty = display.draw(doc, between=between, status=self.status(present_at),
                             options=self.layout)
        frames.rendered(clock.monotonic_ns() - started)
        # Asleep until the instant the frame was computed for, never before it (nor does a
        # spin hold the core: a wake-up ~0.1 ms late still shows that instant's tenth).
        clock.sleep_until(daemon.timeline.to_real(present_at))
        display.present(dirty)
        daemon.frame_log.presented(clock.monotonic_ns(), present_at, doc)
        frames.presented(present_at)
        daemon.dirty = False
        self._shown_notice = daemon.feedback.current(present_at)
        self.publish_view(doc, present_at)
        self._between_written = write_between_file(daemon.options.state_file, between,
                                                   self._between_written)
        daemon.outputs.send(doc, present_at, link=daemon.link, serial=daemon.serial,
                            notifier=daemon.notifier, restored=session.restored,
                            anchor=self.anchor(present_at),
                            on_change=lambda before, after: self._state_changed(
                                before, after, doc, present_at))
        if frames.count == 1:
            kv(log, logging.INFO, "first frame", ms_since_start=round(
                (clock.monotonic_ns() - self._started_real) / 1e6, 1), size="x".join(
                map(str, display.size)))
            daemon.notifier.ready(status_text(doc, session.restored))

    def view_wake(self) -> int | None:
        """When a view that waits for its gap may be built (real time), if one waits."""
        return self._view_at if self.view_pending else None

    def view_due(self) -> bool:
        return self.view_pending and self._daemon.time.monotonic_ns() >= self._view_at

    def publish_view(self, doc: dict[str, Any], at: int) -> None:
        """The operator view of the frame just drawn, to the page and the window: built at
        most every ``VIEW_GAP_NS``, encoded only when it changed, handed to the page by
        swapping one reference (nothing here waits for a client)."""
        if self.operator_web is None and self.operator_window is None:
            return
        daemon = self._daemon
        real = daemon.time.monotonic_ns()
        if real < self._view_at:
            self.view_pending = True  # the loop's plan wakes it for it
            return
        self.view_pending = False
        self._view_at = real + VIEW_GAP_NS
        timetable, frames = daemon.timetable, daemon.frames
        schedule = timetable.line(at)
        timetable.view_at = None if schedule is None or frames is None else (
            at + frames.match_ns(SCHEDULE_VIEW_NS))
        console = daemon.console
        view = operator_document(daemon.match, doc, notice=daemon.feedback.current(at),
                                 office=daemon.office.view(),
                                 next_doc=daemon.loader.loaded_next, schedule=schedule,
                                 replay=daemon.replaying,
                                 audio=None if daemon.horn is None else daemon.horn.audio(),
                                 lapse=None if console is None else console.lapse(),
                                 timed_out=self._timed_out(at), at=at,
                                 lang=daemon.config.display_language)
        self.entry_view_next = self.entry_view_at(at)
        if view == self._view_last:
            return
        self._view_last = view
        if self.operator_web is not None:
            self.operator_web.publish(Snapshot(view))
        if self.operator_window is not None:
            self.operator_window.draw(view)

    def _timed_out(self, at: int) -> Lapse | None:
        """The last entry's timeout while the view still tells it (as long as a press's
        answer stays)."""
        console = self._daemon.console
        lapsed = None if console is None else console.lapsed()
        if lapsed is None or not lapsed.at <= at < lapsed.at + self._daemon.feedback.shown_ns:
            return None
        return lapsed

    def entry_view_at(self, now: int) -> int | None:
        """When the operator view's entry changes by itself (match time): its countdown
        shows one second less, or the line saying an entry timed out goes. None without an
        operator view, or with nothing counting."""
        daemon, console = self._daemon, self._daemon.console
        if console is None or (self.operator_web is None and self.operator_window is None):
            return None
        found = []
        lapse = console.lapse()
        if lapse is not None and lapse.at > now:
            left = -(-(lapse.at - now) // NS_PER_S)
            found.append(lapse.at - (left - 1) * NS_PER_S)
        lapsed = self._timed_out(now)
        if lapsed is not None:
            found.append(lapsed.at + daemon.feedback.shown_ns)
        return min(found, default=None)

    def _state_changed(self, before: dict[str, Any] | None, after: dict[str, Any],
                       doc: dict[str, Any], at: int) -> None:
        if self._daemon.options.snapshots is not None and (
                before is None or before["phase"] != after["phase"]
                or before["period"] != after["period"]):
            self._snapshot(doc, at)

    def _snapshot(self, doc: dict[str, Any], at: int) -> None:
        daemon = self._daemon
        folder, display = daemon.options.snapshots, self.display
        if folder is None or display is None:
            return
        self._snapshots += 1
        name = f"{doc['match']}-{self._snapshots:03d}-{doc['phase']}-p{doc['period']}.png"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            daemon.parts.snapshot(doc, display.size, folder / name,
                                  between=self.between(at), status=self.status(),
                                  options=self.layout)
        except OSError as err:
            kv(log, logging.WARNING, "snapshot not written", file=name, problem=str(err))

    # ---------------------------------------------------------- stop

    def close_operator_view(self) -> None:
        if self.operator_web is not None:
            self.operator_web.close()
        if self.operator_window is not None:
            self.operator_window.close()
