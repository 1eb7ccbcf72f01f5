"""``scoreboard run``: the shell that wires the console, the core, the journal, the horn, the
display, the serial link and the office link, in one loop on the main thread.

``Daemon`` takes its time source and its parts as arguments (``time``: a
arena/timesource.py ``TimeSource``; ``parts``: a firmware_py/parts.py ``Parts``), with
the real ones as defaults, so a test runs a whole scoreboard in-process on a fake clock.
Nothing here reads the OS clock: every instant comes from ``time``.

Each iteration:

1. **drain inputs** (firmware_py/inputs.py): console button edges and keypad keys (the
   desktop keyboard stands in for the buttons in windowed mode; headless, USB keypads are
   read through evdev, each key at the kernel's edge time), serial command lines, due
   replay-script lines;
2. **apply** each through the Recorder at its own edge time: journal + fsync first, then it
   exists (and is logged: ``command applied`` / ``command refused``);
3. **advance** the match to now (periods, penalties, shifts ending at their deadlines), and
   take the office's ``next`` if the hall is free (firmware_py/officeside.py), else the
   local schedule's (firmware_py/localplan.py); the match day's pregame
   (firmware_py/timetable.py);
4. **draw** a frame (firmware_py/screen.py) at the instant the shown state next changes
   (firmware_py/frameplan.py), computed for that very instant; when a core deadline falls
   first, wait for it, journal what it does, then draw;
5. **wait**, asleep, never spinning (``TimeSource.sleep_until``): until the earliest of the
   next frame's rendering, a core or input deadline, the operator view's or a notice's
   expiry. Serial lines and GPIO edges end a nap at once (their threads set ``_wake``);
   naps look at the other inputs every ``SLICE_NS`` while there are any (a window's keys,
   an open USB keypad), else every ``NAP_NS``. A frame is presented by
   sleeping until its instant: the OS wakes the loop a little after it (~0.1 ms), well
   inside the tenth the frame shows. Only the horn's thread waits exactly (it spins);
6. **publish** (firmware_py/outputs.py): the office link's pump (acks, events, ``next``), the
   state document on change (to the retained MQTT topic, to the serial link, to
   ``--state-file``), systemd STATUS and WATCHDOG.

Nothing here waits on the broker, the serial port or the GPIO library: they have their own
threads and queues. The horn relay is switched at its deadlines by its own thread
(firmware_py/hornthread.py), never by a frame.

Storage (docs/developer.md, "The journal", firmware_py/storage.py): when the journal cannot
be written the game goes on from memory (firmware_py/recorder.py keeps the records, in order);
``status()`` says
``recording: false`` and the display shows NOT RECORDING - STORAGE FAULT; the loop retries,
backing off from ``RETRY_FIRST_NS`` to ``RETRY_MAX_NS``, and logs one line when it starts
failing, at most one a minute while it fails and one when it has caught up. A journal damaged
in the middle is shown (``journal_damaged``: the byte offset) and nothing but the horn is
played until the timekeeper holds NEXT. ``scoreboard.lock`` (firmware_py/statelock.py)
keeps a second daemon off the state folder.

Stopping (firmware_py/stopping.py; SIGTERM, SIGINT, the window closed,
``--exit-when-done``), in order: STOPPING=1, inputs closed, horn off, the last state and
``offline`` published, journal closed, display closed; exit 0.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol

from arena.core.commands import Command
from arena.core.match import Match
from arena.core.phase import Phase
from arena.core.units import NS_PER_S
from arena.timesource import SystemTime, TimeSource
from firmware_py.boardmatch import MatchLoader
from firmware_py.config import Config
from firmware_py.feedback import SHOWN_NS, Feedback
from firmware_py.frameplan import MIN_FRAME_GAP_NS, FramePlanner
from firmware_py.inputs import NAP_NS, SLICE_NS, Inputs
from firmware_py.localplan import LocalPlan
from firmware_py.logfmt import kv
from firmware_py.loglines import seconds, seq_range
from firmware_py.matchfiles import MatchFiles
from firmware_py.nextmatch import NextMatch
from firmware_py.officeside import OfficeSide
from firmware_py.operatorweb import OperatorWeb
from firmware_py.outputs import FrameLog, Outputs
from firmware_py.parts import (
    Console,
    HallParts,
    Horn,
    Keyboard,
    KeySource,
    OfficeLink,
    Parts,
    Relay,
    SerialPort,
)
from firmware_py.runconfig import RunOptions
from firmware_py.screen import Screen
from firmware_py.script import ScriptLine
from firmware_py.scriptplayer import ScriptPlayer
from firmware_py.session import Session
from firmware_py.statelock import StateLock
from firmware_py.stopping import stop_in_order
from firmware_py.storage import CHECKPOINT_NS, RETRY_MAX_NS, Storage
from firmware_py.timeline import Timeline, boot_id
from firmware_py.timetable import ScheduleLine, Timetable
from hardware import keymap

if TYPE_CHECKING:
    from display.screens.common import LayoutOptions

log = logging.getLogger("firmware_py.daemon")

__all__ = ["CHECKPOINT_NS", "MIN_FRAME_GAP_NS", "NAP_NS", "RETRY_MAX_NS", "SLICE_NS", "Daemon"]


class Pins(Protocol):
    """The pin factory (gpiozero's): the daemon only closes it; the parts use the rest."""

    def close(self) -> None: ...


class Daemon:
    """One hall's scoreboard. ``run()`` is ``scoreboard run``; a test calls ``start()``,
    ``run_until(instant)`` and ``shutdown()`` instead, on a fake ``time``.

    ``boot``: this boot's id (default: the kernel's), which tells a crash from a power loss.

    The loop is here; each of its jobs is a part of its own, wired to this daemon:
    ``storage`` (firmware_py/storage.py), ``office`` (officeside.py), ``plan`` (the local
    schedule, localplan.py), ``timetable`` (the match day, timetable.py), ``loader`` (the
    match on the board, boardmatch.py), ``screen`` (frames and the operator view,
    screen.py) and ``inputs`` (inputs.py).
    """

    def __init__(self, config: Config, options: RunOptions, *,
                 time: TimeSource | None = None, parts: Parts | None = None,
                 boot: str | None = None) -> None:
        self.config = config
        self.options = options
        self.time: TimeSource = time if time is not None else SystemTime()
        self.parts: Parts = parts if parts is not None else HallParts()
        self.timeline = Timeline(self.time.monotonic_ns, options.time_scale)
        self.boot = boot_id() if boot is None else boot
        self.files = MatchFiles(options.state_dir)
        self.lock = StateLock(options.state_dir)
        self.notifier = self.parts.notifier()
        self.final_hold = config.final_hold_s * NS_PER_S
        self.stopping: str | None = None
        # Set up by start(), in order; shutdown() tolerates any of them missing.
        self.pins: Pins | None = None
        self.relay: Relay | None = None
        self.horn: Horn | None = None
        self.session: Session | None = None
        self.script: ScriptPlayer | None = None
        self.keyboard: Keyboard | None = None
        self.console: Console | None = None
        self.keys: KeySource | None = None  # USB keypads through evdev, if read
        self.serial: SerialPort | None = None
        self.frames: FramePlanner | None = None
        # The timekeeper's side: the last press's outcome (docs/timekeeper.md, "The operator view").
        self.feedback = Feedback(lang=self.config.display_language)
        self.outputs = Outputs(self.time.monotonic_ns, state_file=options.state_file,
                               serial_hz=config.serial.state_hz)
        self.frame_log = FrameLog(options.frame_log)
        self.dirty = True  # the shown state changed: a frame is due
        self._wake = threading.Event()  # set by an input's thread: ends the loop's nap
        self._watchdog_at = 0
        self._until: int | None = None  # run_until's instant: no wait goes past it
        # The jobs, each a part of its own (see the class's docstring).
        self.storage = Storage(self)
        self.office = OfficeSide(self)
        self.plan = LocalPlan(self)
        self.timetable = Timetable(self)
        self.loader = MatchLoader(self)
        self.screen = Screen(self)
        self.inputs = Inputs(self, self._wake)

    # -------------------------------------------------------------- properties

    def session_on_board(self) -> Session:
        """The session of the match on the board; there is one from ``start()`` on."""
        if self.session is None:
            raise RuntimeError("no match on the board before start()")
        return self.session

    def horn_on_board(self) -> Horn:
        if self.horn is None:
            raise RuntimeError("no horn before start()")
        return self.horn

    @property
    def match(self) -> Match:
        return self.session_on_board().recorder.match

    @property
    def replaying(self) -> bool:
        """The game on the board replays a match whose result the office voided."""
        return self.session_on_board().recorder.replay_above is not None

    @property
    def frame_count(self) -> int:
        return 0 if self.frames is None else self.frames.count

    @property
    def link(self) -> OfficeLink | None:
        return self.office.link

    @property
    def next_match(self) -> NextMatch:
        return self.office.next_match

    @property
    def office_problem(self) -> str | None:
        """The latest thing the office sent that the hall could not take."""
        return self.office.problem

    @property
    def office_public_url(self) -> str | None:
        """The public site's address as the office's latest `next` gave it."""
        return self.office.public_url

    @property
    def operator_web(self) -> OperatorWeb | None:
        return self.screen.operator_web

    @property
    def operator_line(self) -> bool:
        return self.screen.operator_line

    @property
    def options_layout(self) -> LayoutOptions | None:
        return self.screen.layout

    def document(self, at: int) -> dict[str, Any]:
        """The state document at ``at`` (docs/developer.md 4.3), with the restored mark."""
        return self.screen.document(at)

    def status(self, at: int | None = None) -> dict[str, object]:
        """What the display shows of the scoreboard itself (firmware_py/screen.py)."""
        return self.screen.status(at)

    def between(self, at: int) -> dict[str, Any] | None:
        """The between-games screen's data at ``at`` (firmware_py/between.py)."""
        return self.screen.between(at)

    def schedule_view(self, at: int) -> ScheduleLine | None:
        """The timekeeper's schedule line at ``at`` (firmware_py/timetable.py)."""
        return self.timetable.line(at)

    # -------------------------------------------------------------- running

    def run(self) -> int:
        """``scoreboard run``: start, loop until asked to stop, stop in order; 0."""
        previous = {sig: signal.signal(sig, self._on_signal)
                    for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.start()
            while self.stopping is None:
                self.iterate()
            return 0
        except BaseException:
            if self.relay is not None:
                self.parts.switch_off(self.relay)
            raise
        finally:
            self.shutdown()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def run_until(self, instant: int, *, stop_when: Callable[[], bool] | None = None) -> None:
        """Run the loop until the match time ``instant`` (the inputs due then taken and a
        frame drawn if one is due), or until ``stop_when()`` holds, or the daemon stops. For
        tests and tools that drive the daemon on their own clock."""
        self._until = instant
        try:
            while self.stopping is None:
                self.iterate()
                if stop_when is not None and stop_when():
                    return
                if self.timeline.now() >= instant and not self.dirty:
                    return
        finally:
            self._until = None

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        # Runs between two bytecodes of the main thread: only switch the relay off (it takes
        # no lock) and raise the flag; the loop stops in order within one nap (NAP_NS at most).
        if self.relay is not None:
            self.parts.switch_off(self.relay)
        if self.stopping is None:
            self.stopping = signal.Signals(signum).name

    def request_stop(self, reason: str) -> None:
        if self.stopping is None:
            self.stopping = reason

    # -------------------------------------------------------------- start

    def start(self) -> None:
        cfg, opts, parts = self.config, self.options, self.parts
        kv(log, logging.INFO, "starting", config=cfg.source, state_dir=opts.state_dir,
           display=opts.display_mode, pins=opts.pin_factory, boot=self.boot,
           time_scale=opts.time_scale, wall_synced=self.timetable.wall is not None)
        # The lock before anything: a second daemon must touch neither the journal nor the
        # relay's pin. StateLocked propagates: `scoreboard run` prints it and exits.
        self.lock.acquire()
        if self.lock.problem is not None:
            kv(log, logging.WARNING, "state folder not locked", problem=self.lock.problem)
        # The relay first: claiming its pin drives it off, whatever a crash left latched.
        pins = parts.pins(opts.pin_factory)
        self.pins = pins
        relay = parts.relay(cfg, pins)
        self.relay = relay
        self.plan.load()
        session = self.loader.open_first()
        console = parts.console(cfg, pins, list(session.recorder.match.preset.penalties.kinds),
                                self.timeline.ticks_to_ns)
        console.new_match(list(session.recorder.match.preset.penalties.kinds),
                          session.recorder.match.preset.forfeit_goals)
        self.console = console
        self.plan.offer_choices()
        console.on_edge(self._wake.set)
        self.screen.lay_out()
        self.screen.display, self.keyboard = parts.display(opts.display_mode, cfg.display_size,
                                                           cfg.keypad)
        if keymap.enabled(cfg.keypad.mode, opts.display_mode, sys.platform):
            self.keys = parts.keys(cfg, self.time)
        # Through self.match each time: `next` replaces the match on the board.
        frames = FramePlanner(lambda now: self.match.display_deadline(now),  # noqa: PLW0108
                              self.timeline.scale)
        self.frames = frames
        self.feedback.shown_ns = frames.match_ns(SHOWN_NS)  # real seconds, time-scaled
        self.screen.open_operator_view()
        if cfg.serial.url:
            self.serial = parts.serial(cfg.serial, self.timeline.now, self.inputs.serial_woke)
            self.serial.start()
        self.office.start()
        self.horn = parts.horn(cfg, relay, self.timeline, self.time, lambda: self.match)
        self.horn.start()

    # -------------------------------------------------------------- one iteration

    def iterate(self) -> None:
        """One turn of the loop: inputs, deadlines, `next`, a frame if due, then a wait."""
        frames = self.frames
        if frames is None:
            raise RuntimeError("the loop runs after start()")
        now = self.timeline.now()
        self.inputs.drain(now)
        self._advance(now)
        self.storage.check()
        self.office.take_next()
        self.office.pump()
        self.timetable.tick(now)
        self._watchdog()
        if self.stopping is not None:
            return
        now = self.timeline.now()
        view_at = self.timetable.view_at
        if view_at is not None and now >= view_at:
            # The hall's lateness moved on. Cleared first: a view that waits for its gap
            # (or is not open) must not keep the loop awake; building it sets the next one.
            self.timetable.view_at = None
            self.screen.publish_view(self.document(now), now)
        entry_at = self.screen.entry_view_next
        if entry_at is not None and now >= entry_at:
            # The entry's countdown moved on, or its timed-out line goes: the view alone.
            # Cleared first, as the schedule line's: building the view sets the next one.
            self.screen.entry_view_next = None
            self.screen.publish_view(self.document(now), now)
        if self.screen.notice_changed(now):
            self.dirty = True  # a notice came or went: the next frame shows it
        if self.screen.view_due():
            self.screen.publish_view(self.document(now), now)
        due = self._next_due()
        if self.dirty:
            present = frames.earliest(now)
            if due is not None and due <= present:
                # Something happens before that frame could be shown: do it first (the
                # next turn), so no frame shows a state a deadline has already changed.
                target = due
            else:
                self.screen.frame(present)
                target = self._plan(self.timeline.now())
        else:
            target = self._plan(now, render=True)
        self._check_done()
        self._wait(target)

    def _apply(self, command: Command, source: str, line: ScriptLine | None = None) -> None:
        # The one door of every command (firmware_py/inputs.py): a test wraps it to time them.
        self.inputs.apply(command, source, line)

    def journalled(self) -> None:
        """New events are in the journal (or kept in memory): to the office, to the horn's
        thread, and a frame."""
        self.storage.to_outbox()
        self.horn_on_board().poke()
        self.dirty = True

    def _advance(self, now: int) -> None:
        session = self.session_on_board()
        events = session.recorder.advance(now)  # a disk fault keeps them in memory
        if events:
            kv(log, logging.INFO, "deadline", match=session.match_id,
               events=",".join(e.kind.value for e in events), at=seconds(events[0].at),
               seq=seq_range(events))
            self.journalled()
        self.storage.checkpoint(now)

    def _next_due(self) -> int | None:
        """The next instant the match or the script changes by itself."""
        found = [d for d in (self.match.next_deadline(),
                             self.script.next_at() if self.script else None) if d is not None]
        return min(found, default=None)

    def _plan(self, now: int, render: bool = False) -> int:
        """The next instant the loop must act on (match time); with ``render``, draws the
        planned frame if its time has come."""
        frames, console, horn = self.frames, self.console, self.horn
        if frames is None or console is None or horn is None:
            raise RuntimeError("the loop runs after start()")
        due = self.match.next_deadline()
        if render:
            # Whether a frame is due does not depend on the other instants (they only bring
            # the wake-up forward): a turn that draws skips gathering them, as the plan after
            # the frame gathers them anyway (a tenths frame: one gathering instead of two).
            step = frames.plan(now, due, ())
            if step.draw_at is not None:
                self.screen.frame(step.draw_at)
                return self._plan(self.timeline.now())
        others = [console.next_deadline(), horn.next_change(now),
                  self.script.next_at() if self.script else None,
                  self.feedback.expires(now),  # a frame without it, on time
                  self.timetable.view_at, self.screen.entry_view_next]
        # Real instants to wake for: the journal's next retry, the watchdog, a view waiting
        # for its gap.
        watchdog = None if self.notifier.watchdog_ns is None else self._watchdog_at
        for real in (self.storage.retry_at(), watchdog, self.screen.view_wake()):
            if real is not None:
                others.append(frames.match_ns(real - self.timeline.real())
                              + self.timeline.now())
        return frames.plan(now, due, others).wake_at

    def _wait(self, target: int) -> None:
        """Sleep until ``target`` (match time) or until an input arrives, never spinning:
        naps of at most the inputs' ``nap_ns()`` with a look at the inputs between them,
        each ended at once by ``_wake``; pump the office link meanwhile (acks, `next`)."""
        if self._until is not None:
            target = min(target, max(self._until, self.timeline.now()))
        real_target = self.timeline.to_real(target)
        nap = self.inputs.nap_ns()
        while self.stopping is None:
            # Cleared before each look at the inputs: a line arriving after the look sets it
            # again and the nap ends at once; one set before the look costs one more round
            # at most, never a spin.
            self._wake.clear()
            if self.inputs.waiting():
                return
            real = self.time.monotonic_ns()
            if real >= real_target:
                return
            self.time.sleep_until(min(real_target, real + nap), cancel=self._wake)
            if self.office.link is not None:
                self.office.pump()
                if self.office.arrived:
                    # Only a new arrival wakes the loop: one that waits for the final
                    # must not keep it spinning.
                    self.office.arrived = False
                    return

    def _watchdog(self) -> None:
        if self.notifier.watchdog_ns is None:
            return
        real = self.timeline.real()
        if real >= self._watchdog_at:
            self.notifier.watchdog()
            self._watchdog_at = real + self.notifier.watchdog_ns

    def _check_done(self) -> None:
        if not self.options.exit_when_done or self.stopping is not None:
            return
        if self.script is not None and not self.script.finished:
            return
        if self.match.state.phase is not Phase.FINAL or self.dirty:
            return
        if self.link is not None and self.link.unacked:
            return
        if self.next_match.pending is not None:
            return  # the office's next match waits (the final is held up first)
        if self.plan.more_to_play(self.match.setup.match_id):
            return  # the schedule's next match follows the final hold
        self.request_stop("done")

    # -------------------------------------------------------------- stop

    def shutdown(self) -> None:
        """Stop in order (firmware_py/stopping.py): inputs, horn, the last state and
        ``offline``, journal, operator view, display; each step even if one failed."""
        stop_in_order(self)
