"""``scoreboard run``: the shell that wires the console, the core, the journal, the horn, the
display, the serial link and the office link, in one loop on the main thread.

``Daemon`` takes its time source and its parts as arguments (``time``: a
arena/timesource.py ``TimeSource``; ``parts``: a firmware_py/parts.py ``Parts``), with
the real ones as defaults, so a test runs a whole scoreboard in-process on a fake clock.
Nothing here reads the OS clock: every instant comes from ``time``.

Each iteration:

1. **drain inputs**: console button edges and keypad keys (the desktop keyboard stands in for
   the buttons in windowed mode; headless, USB keypads are read through evdev, each key at
   the kernel's edge time), serial command lines, due replay-script lines;
2. **apply** each through the Recorder at its own edge time: journal + fsync first, then it
   exists (and is logged: ``command applied`` / ``command refused``);
3. **advance** the match to now (periods, penalties, shifts ending at their deadlines), and
   take the office's ``next`` if the hall is free;
4. **draw** a frame at the instant the shown state next changes (firmware_py/frameplan.py),
   computed for that very instant; when a core deadline falls first, wait for it, journal
   what it does, then draw;
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

Storage (docs/developer.md, "The journal"): when the journal cannot be written the game goes on from
memory (firmware_py/recorder.py keeps the records, in order); ``status()`` says
``recording: false`` and the display shows NOT RECORDING - STORAGE FAULT; the loop retries,
backing off from ``RETRY_FIRST_NS`` to ``RETRY_MAX_NS``, and logs one line when it starts
failing, at most one a minute while it fails and one when it has caught up. A journal damaged
in the middle is shown (``journal_damaged``: the byte offset) and nothing but the horn is
played until the timekeeper holds NEXT. ``scoreboard.lock`` (firmware_py/statelock.py)
keeps a second daemon off the state folder.

Stopping (SIGTERM, SIGINT, the window closed, ``--exit-when-done``), in order: STOPPING=1,
inputs closed, horn off, the last state and ``offline`` published, journal closed, display
closed; exit 0.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from firmware_py.between import between_games

if TYPE_CHECKING:
    from display.hall import HallGeometry
from arena.core.catchup import catch_up, describe, due_end
from arena.core.commands import Command, Next, Stop
from arena.core.commands import Horn as HornCommand
from arena.core.entry import PickMatch, ScheduledChoice
from arena.core.errors import Reason, because
from arena.core.events import Event
from arena.core.match import Match
from arena.core.phase import Phase
from arena.core.pregame import pregame_plan
from arena.core.state import state_document
from arena.core.units import NS_PER_S
from arena.timesource import SystemTime, TimeSource
from arena.wire import Nx
from firmware_py.config import Config
from firmware_py.feedback import SHOWN_NS, Feedback, Notice
from firmware_py.frameplan import MIN_FRAME_GAP_NS, FramePlanner
from firmware_py.logfmt import kv
from firmware_py.matchday import MatchDay, Scheduled
from firmware_py.matchfiles import MatchFiles
from firmware_py.nextmatch import (
    NextMatch,
    in_progress,
    replay_above,
    setup_from_next,
    showing_final,
)
from firmware_py.operatorview import operator_document
from firmware_py.operatorweb import OperatorWeb, Snapshot
from firmware_py.outbox import JournalTail, Outbox, SeqLog, stored_path
from firmware_py.outputs import Outputs, status_text, write_state_file
from firmware_py.parts import (
    Console,
    Display,
    HallParts,
    Horn,
    Keyboard,
    KeySource,
    OfficeLink,
    OperatorWindow,
    Parts,
    Relay,
    SerialPort,
)
from firmware_py.recorder import current_game, replay_due
from firmware_py.runconfig import RunOptions, preset_text
from firmware_py.schedule import LocalSchedule, ScheduleError, next_document
from firmware_py.schedule import load as load_schedule
from firmware_py.script import ScriptLine, parse_script
from firmware_py.scriptplayer import ScriptPlayer, origin_of, played_lines
from firmware_py.session import CONFIRMING, Session, open_session
from firmware_py.statelock import StateLock
from firmware_py.timeline import Timeline, boot_id
from hardware import keymap

log = logging.getLogger("firmware_py.daemon")

# The nap between looks at an input that cannot wake the loop itself (a window's keys, an
# open USB keypad): a press shows within ~10 ms. Serial lines and GPIO edges end a nap at
# once (their threads set the loop's wake event), so without those inputs a nap lasts up to
# NAP_NS: a stop signal and the office link's pump (acks, `next`) are taken within it. A
# nap is a sleep (arena/timesource.py sleep_until), never a spin.
SLICE_NS = 10_000_000
NAP_NS = 100_000_000
# A scripted match loaded from `next` starts this much later (its between-games screen shows).
SCRIPTED_PREGAME_NS = 20 * NS_PER_S
# While a clock runs, its instant is journalled this often (match time): after a power cut
# the clock comes back stopped at the last journalled instant, so at most this much behind
# the game instead of back at the last goal or whistle.
CHECKPOINT_NS = 5 * NS_PER_S
UNCLAIMED = "unclaimed"  # where a board that could not claim its state folder would write
# While the journal cannot be written: the first retry after this long (real time), each
# failure doubling the wait up to the last; a retry is one open and one write, so cheap, and
# a disk that comes back is caught up within RETRY_MAX_NS.
RETRY_FIRST_NS = NS_PER_S // 4
RETRY_MAX_NS = 5 * NS_PER_S
FAULT_LOG_EVERY_NS = 60 * NS_PER_S  # "still not recording": at most one line a minute
# What the timekeeper may still do while a damaged journal waits for the NEXT hold.
WHILE_DAMAGED = frozenset({Next.name, HornCommand.name})
# The operator view (page and window) is rebuilt at most this often (real time): a phone
# polls twice a second, and the loop's frames must not pay for more.
VIEW_GAP_NS = NS_PER_S // 10
# The wall clock, not synchronised at start, is looked at again this often (real time): once
# it is, a scheduled start can be mapped onto the match timeline (firmware_py/matchday.py).
WALL_RETRY_NS = 5 * NS_PER_S
# The timekeeper's schedule line is recomputed this often (real time) while a match with a
# scheduled start is on the board: a stopped clock keeps the game time, not the hall's.
SCHEDULE_VIEW_NS = NS_PER_S
PRESSES = frozenset({"console", "serial"})  # sources whose outcome the timekeeper is shown

__all__ = ["CHECKPOINT_NS", "MIN_FRAME_GAP_NS", "RETRY_MAX_NS", "Daemon"]


class Daemon:
    """One hall's scoreboard. ``run()`` is ``scoreboard run``; a test calls ``start()``,
    ``run_until(instant)`` and ``shutdown()`` instead, on a fake ``time``.

    ``boot``: this boot's id (default: the kernel's), which tells a crash from a power loss.
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
        # Storage: when the journal started failing (real time), the next retry, its gap, the
        # last "still not recording" line, and a `current` pointer not yet written.
        self._fault_since: int | None = None
        self._retry_at = 0
        self._retry_gap = RETRY_FIRST_NS
        self._fault_logged = 0
        self._pointer_pending: str | None = None
        self._link_waits = False  # the office link could not start on the failing disk
        self._ack_logged: int | None = None
        self.notifier = self.parts.notifier()
        self.next_match = NextMatch()
        self.final_hold = config.final_hold_s * NS_PER_S
        self.standings: dict[str, dict[str, Any]] = {}  # group -> the office's table
        self._loaded_next: dict[str, Any] | None = None  # the `next` on the board, if any
        # The public site's address as the office's latest `next` gave it (wire.Nx.PUBLIC_URL):
        # shown between games when [display] public_url is not set. A cleared `next` (no
        # match planned here) says nothing of the site, so it keeps the last one heard.
        self.office_public_url: str | None = None
        # The latest thing the office sent that the hall could not take (OfficeLink.problem):
        # told to the timekeeper once as it comes, and kept on the operator view.
        self.office_problem: str | None = None
        # A hall without an office (docs/technician.md, "A hall without an office"): the local
        # schedule (or why there is none), the matches played here, a placeholder match waiting for
        # the timekeeper, and whether an office has sent a `next` (then it decides).
        self.schedule: LocalSchedule | None = None
        self.schedule_problem: str | None = None
        self._played: set[str] = set()
        self._local_offer: dict[str, Any] | None = None
        self._office_next_seen = False
        self._offered: tuple[ScheduledChoice, ...] | None = None
        # Where journals of another tournament or hall were moved at start (for the
        # timekeeper's status), relative to the state directory; None if there were none.
        self.set_aside: str | None = None
        self.stopping: str | None = None
        self.wall = self.time.wall()
        self._wall_retry = 0  # real time: when to look at an unknown wall clock again
        # The match day (docs/timekeeper.md, "The match day"): the board's match's scheduled start
        # on the match timeline, once the wall clock is known; the timekeeper's schedule line.
        self.matchday = MatchDay()
        self.scheduled: Scheduled | None = None
        self._schedule_view_at: int | None = None  # match time: rebuild the view then
        # Set up by start(), in order; shutdown() tolerates any of them missing.
        self.pins: Any = None
        self.relay: Relay | None = None
        self.horn: Horn | None = None
        self.session: Session | None = None
        self.script: ScriptPlayer | None = None
        self.display: Display | None = None
        self.keyboard: Keyboard | None = None
        self.console: Console | None = None
        self.keys: KeySource | None = None  # USB keypads through evdev, if read
        self.serial: SerialPort | None = None
        self.link: OfficeLink | None = None
        self.frames: FramePlanner | None = None
        self.options_layout: Any = None
        # The timekeeper's side: the last press's outcome, and the operator view's page and
        # window (docs/timekeeper.md, "The operator view").
        self.feedback = Feedback(lang=self.config.display_language)
        self._shown_notice: Notice | None = None  # in the last frame drawn
        self.operator_web: OperatorWeb | None = None
        self.operator_window: OperatorWindow | None = None
        self.operator_line = True  # the hall display's operator line
        self._view_last: dict[str, Any] | None = None
        self._view_at = 0  # real time: the view may be rebuilt from then
        self._view_pending = False  # a frame was drawn while the view waited for its gap
        self.outputs = Outputs(self.time.monotonic_ns, state_file=options.state_file,
                               serial_hz=config.serial.state_hz)
        self._dirty = True
        self._serial_input = False
        self._wake = threading.Event()  # set by an input's thread: ends the loop's nap
        self._next_arrived = False
        self._watchdog_at = 0
        self._snapshots = 0
        self._until: int | None = None  # run_until's instant: no wait goes past it
        self.started_real = self.time.monotonic_ns()

    # -------------------------------------------------------------- properties

    @property
    def match(self) -> Match:
        assert self.session is not None
        return self.session.recorder.match

    @property
    def replaying(self) -> bool:
        """The game on the board replays a match whose result the office voided."""
        assert self.session is not None
        return self.session.recorder.replay_above is not None

    @property
    def frame_count(self) -> int:
        return 0 if self.frames is None else self.frames.count

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
                if self.timeline.now() >= instant and not self._dirty:
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
        from display.options import options_for  # noqa: PLC0415

        cfg, opts, parts = self.config, self.options, self.parts
        kv(log, logging.INFO, "starting", config=cfg.source, state_dir=opts.state_dir,
           display=opts.display_mode, pins=opts.pin_factory, boot=self.boot,
           time_scale=opts.time_scale, wall_synced=self.wall is not None)
        # The lock before anything: a second daemon must touch neither the journal nor the
        # relay's pin. StateLocked propagates: `scoreboard run` prints it and exits.
        self.lock.acquire()
        if self.lock.problem is not None:
            kv(log, logging.WARNING, "state folder not locked", problem=self.lock.problem)
        # The relay first: claiming its pin drives it off, whatever a crash left latched.
        self.pins = parts.pins(opts.pin_factory)
        self.relay = parts.relay(cfg, self.pins)
        self._load_schedule()
        self._open_first_match()
        self.console = parts.console(cfg, self.pins, list(self.match.preset.penalties.kinds),
                                     self.timeline.ticks_to_ns)
        self._offer_choices()
        self.console.on_edge(self._wake.set)
        self.options_layout = options_for(self.match.preset, self._hall(),
                                         self.config.display_language)
        self.display, self.keyboard = parts.display(opts.display_mode, cfg.display_size)
        if keymap.enabled(cfg.keypad.mode, opts.display_mode, sys.platform):
            self.keys = parts.keys(cfg, self.time)
        # Through self.match each time: `next` replaces the match on the board.
        self.frames = FramePlanner(lambda now: self.match.display_deadline(now),  # noqa: PLW0108
                                   self.timeline.scale)
        self.feedback.shown_ns = self.frames.match_ns(SHOWN_NS)  # real seconds, time-scaled
        self._open_operator_view()
        if cfg.serial.url:
            self.serial = parts.serial(cfg.serial, self.timeline.now, self._serial_woke)
            self.serial.start()
        self._start_link()
        self.horn = parts.horn(cfg, self.relay, self.timeline, self.time, lambda: self.match)
        self.horn.start()

    def _open_operator_view(self) -> None:
        """The page (``[operator] port``) and, in windowed mode, the second window; the
        hall's operator line then goes unless the config says otherwise. A page that
        cannot be served (the port is taken) is logged: the board plays without it."""
        cfg = self.config
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
            self.operator_window = self.parts.operator_window(self.options.display_mode)
        line = cfg.operator_line
        self.operator_line = (self.operator_web is None and self.operator_window is None
                              if line == "auto" else bool(line))

    def _open_first_match(self) -> None:
        cfg, opts = self.config, self.options
        if cfg.mqtt is not None:
            # Before anything is replayed or sent: journals of another tournament or hall
            # (or of no recorded one) must never reach this tournament's office.
            try:
                aside = self.files.claim(cfg.mqtt.tournament, cfg.mqtt.hall)
            except OSError as err:
                # They cannot be moved (a read-only card): neither read nor send them. The
                # board plays from memory, on journals in a folder that cannot be made
                # either, and says so; a start with the card writable sets them aside.
                kv(log, logging.ERROR, "journals of another tournament or hall cannot be set "
                   "aside: the state folder cannot be written; playing from memory",
                   folder=self.files.dir, problem=str(err))
                self.set_aside = "NOT CHECKED - STATE FOLDER READ-ONLY"
                self.files = MatchFiles(self.files.dir / UNCLAIMED)
                aside = None
            if aside is not None:
                self.set_aside = str(aside.relative_to(self.files.dir))
                kv(log, logging.WARNING, "journals of another tournament or hall set aside",
                   folder=aside, tournament=cfg.mqtt.tournament, hall=cfg.mqtt.hall)
        current = self.files.current()
        match_cfg = cfg.match
        setup = match_cfg.setup
        toml_text, source = preset_text(match_cfg.preset, match_cfg.preset_file)
        first = self._first_from_schedule(current)
        if first is not None:
            # A fresh hall with a schedule: its first match here instead of the config's.
            self._loaded_next = first
            name, setup = setup_from_next(first)
            toml_text, source = preset_text(name, None)
        elif current is not None and current != setup.match_id:
            # The board was on another match (loaded from `next`): its journal holds its
            # setup; the config's match is only what a fresh hall plays first.
            setup = type(setup)(match_id=current)
        path = self.files.journal(setup.match_id)
        self.session = open_session(path, toml_text, source, setup, timeline=self.timeline,
                                    boot=self.boot, wall=self.wall, adopt_timeline=True)
        if current != setup.match_id:
            self._set_current(setup.match_id)
        kv(log, logging.INFO, "match on the board", match=self.session.match_id,
           preset=self.match.preset.name, phase=self.match.state.phase.value,
           seq=self.match.state.seq, restored=self.session.restored,
           recording=self.session.recorder.recording)
        self._storage()  # a read-only or full disk at start: said at once
        self._damage_found()
        script = opts.script
        if script is None and opts.script_dir is not None:
            candidate = opts.script_dir / f"{self.session.match_id}.jsonl"
            script = candidate if candidate.exists() else None
        if script is not None:
            self._start_script(script)

    # -------------------------------------------------------------- the local schedule

    def _load_schedule(self) -> None:
        """``[schedule] file``: read once at start. A missing or broken file, or a hall it
        does not know, is logged and shown on the board; the board plays without it."""
        cfg = self.config
        if cfg.schedule.file is None:
            return
        try:
            self.schedule = load_schedule(cfg.schedule, cfg.mqtt.hall if cfg.mqtt else None)
        except ScheduleError as err:
            self.schedule_problem = str(err)
            kv(log, logging.ERROR, "schedule not used", problem=str(err))
            return
        kv(log, logging.INFO, "schedule", file=cfg.schedule.file, hall=self.schedule.hall,
           tournament=self.schedule.tournament.id,
           matches=len(self.schedule.remaining(())))

    def _first_from_schedule(self, current: str | None) -> dict[str, Any] | None:
        """With a schedule: the matches played here (their journals are final) and, for a
        fresh hall (no match on the board yet), the first one left. A match the board is
        on came from the schedule if its id is there: its time and label are shown."""
        if self.schedule is None:
            return None
        self._played = self.files.played()
        if current is not None:
            m = self.schedule.tournament.match(current)
            if m is not None:
                self._loaded_next = next_document(self.schedule.tournament, m, confirmed=True)
            return None
        return self._schedule_next(on_board=None)

    def _schedule_next(self, on_board: str | None) -> dict[str, Any] | None:
        """The next match in this hall, as a ``next`` document; one whose teams are still
        placeholders waits for the timekeeper (``_local_offer``) and None is returned."""
        assert self.schedule is not None
        left = self.schedule.remaining(self._played, on_board)
        if not left:
            return None
        doc = next_document(self.schedule.tournament, left[0])
        if doc.get("teams_known") is False:
            self._local_offer = doc
            self._dirty = True
            return None
        return doc

    def _offer_choices(self) -> None:
        """The keypad's SCHEDULE entry lists this hall's matches still to play."""
        if self.schedule is None or self.console is None or self.session is None:
            return
        choices = self.schedule.choices(self._played, self.session.match_id)
        if choices != self._offered:
            self._offered = choices
            self.console.offer_schedule(choices, self.schedule.teams())

    def _take_local(self) -> None:
        """After a final (once it has been up for the final hold): the next match in this
        hall, unless an office decides (it has sent a `next`)."""
        assert self.session is not None
        if self.schedule is None or self._office_next_seen:
            return
        state = self.match.state
        if state.phase is not Phase.FINAL:
            return
        if self.session.match_id not in self._played:
            self._played.add(self.session.match_id)
            self._offer_choices()
        if showing_final(state, self.timeline.now(), self.final_hold):
            return
        if self._local_offer is not None:
            return  # a placeholder match: the timekeeper picks its teams
        doc = self._schedule_next(on_board=self.session.match_id)
        if doc is not None:
            self._load_next(doc)

    def _pick(self, pick: PickMatch) -> None:
        """The timekeeper picked the next match from the schedule (the keypad's SCHEDULE
        entry). Loaded like the office's `next`: its journal and the current pointer are
        written at once, so a restart comes back to it."""
        assert self.session is not None
        reason = self._pick_refusal(pick)
        if reason is not None:
            kv(log, logging.WARNING, "next match not picked", match=pick.match,
               reason=reason if isinstance(reason, str) else reason.text)
            self.feedback.note(pick.match, reason, pick.at)
            self._dirty = True
            return
        assert self.schedule is not None
        m = self.schedule.tournament.match(pick.match)
        assert m is not None
        doc = next_document(self.schedule.tournament, m, pick.home, pick.away, confirmed=True)
        kv(log, logging.INFO, "next match picked at the table", match=pick.match,
           home=doc["teams"]["home"]["name"], away=doc["teams"]["away"]["name"])
        self._local_offer = None
        self._load_next(doc)
        self.feedback.note(pick.match, None, pick.at)

    def _pick_refusal(self, pick: PickMatch) -> Reason | str | None:
        assert self.session is not None
        if self.schedule is None:
            return self.schedule_problem or because(
                "no_schedule", "no schedule: [schedule] file in the config")
        if self._office_next_seen and self.link is not None and self.link.connected:
            return because("office_sends", "the office sends the next match")
        if in_progress(self.match.state):
            return because("in_progress", "a match is in progress: pick after its final")
        if not self.session.recorder.recording or self.session.damaged:
            return because("journal_first", "the journal must be written first")
        if pick.match == self.session.match_id:
            return because("on_board", "already on the board")
        if pick.match in self._played or self.schedule.tournament.match(pick.match) is None:
            return because("not_in_schedule", f"{pick.match} is not left in this hall's "
                           "schedule", match=pick.match)
        if pick.home is not None and pick.home == pick.away:
            return because("plays_itself", f"{pick.home} cannot play itself", name=pick.home)
        return None

    def _start_script(self, path: Path, delay: int = 0) -> None:
        """Play ``path`` on the match on the board, from now + ``delay`` (match time)."""
        assert self.session is not None
        lines: list[ScriptLine] = parse_script(path.read_text(encoding="utf-8"), str(path))
        records = current_game(self.session.records)  # a replayed match plays its script anew
        origin = origin_of(records)
        if origin is None:
            origin = self.timeline.now() + delay
            self.session.recorder.note({"type": "script", "origin": origin, "name": path.name})
            self.session.new_records()
        try:
            progress = SeqLog(self.files.script_progress(
                self.session.match_id, self.session.recorder.replay_above))
        except OSError as err:
            # A read-only state folder: play the script all the same (only a restart could
            # then play a refused line twice, and nothing is journalled meanwhile anyway).
            kv(log, logging.WARNING, "script progress not kept", problem=str(err))
            progress = SeqLog(Path(os.devnull))
        done = played_lines(records) | progress.values
        self.script = ScriptPlayer(str(path), lines, origin, done, progress)
        kv(log, logging.INFO, "script", match=self.session.match_id, file=path,
           lines=len(lines), already_played=len(done), origin=origin)

    def _open_link(self) -> None:
        link_cfg = self.config.mqtt
        if link_cfg is None:
            return
        assert self.session is not None
        link = self.parts.link(link_cfg, self._on_next, self._on_standings)
        # Every match in the state directory (this tournament's and hall's only: see
        # _open_first_match), oldest first: a crash or an outage during an earlier match
        # loses none of its events, and an office that later says it lost a finished match
        # (restored from an older backup) gets it again.
        current = self.session.path
        for path in self.files.journals():
            if path == current:
                continue
            outbox = Outbox(stored_path(path), match=self.files.match_of(path))
            outbox.add(JournalTail(path).read())
            if outbox.unacked:
                kv(log, logging.INFO, "resending", journal=path.name, events=outbox.unacked)
            link.add_outbox(outbox)
        outbox = Outbox(stored_path(current), match=self.session.match_id)
        outbox.add(self.session.records)
        link.add_outbox(outbox)
        self.link = link
        link.start()

    # -------------------------------------------------------------- one iteration

    def iterate(self) -> None:
        """One turn of the loop: inputs, deadlines, `next`, a frame if due, then a wait."""
        assert self.frames is not None
        now = self.timeline.now()
        self._inputs(now)
        self._advance(now)
        self._storage()
        self._take_next()
        self._pump_link()
        self._match_day(now)
        self._watchdog()
        if self.stopping is not None:
            return
        now = self.timeline.now()
        if self._schedule_view_at is not None and now >= self._schedule_view_at:
            # The hall's lateness moved on. Cleared first: a view that waits for its gap
            # (or is not open) must not keep the loop awake; building it sets the next one.
            self._schedule_view_at = None
            self._publish_view(self.document(now), now)
        if self.feedback.current(now) is not self._shown_notice:
            self._dirty = True  # a notice came or went: the next frame shows it
        if self._view_pending and self.time.monotonic_ns() >= self._view_at:
            self._publish_view(self.document(now), now)
        due = self._next_due()
        if self._dirty:
            present = self.frames.earliest(now)
            if due is not None and due <= present:
                # Something happens before that frame could be shown: do it first (the
                # next turn), so no frame shows a state a deadline has already changed.
                target = due
            else:
                self._frame(present)
                target = self._plan(self.timeline.now())
        else:
            target = self._plan(now, render=True)
        self._check_done()
        self._wait(target)

    def _next_due(self) -> int | None:
        """The next instant the match or the script changes by itself."""
        found = [d for d in (self.match.next_deadline(),
                             self.script.next_at() if self.script else None) if d is not None]
        return min(found, default=None)

    def _plan(self, now: int, render: bool = False) -> int:
        """The next instant the loop must act on (match time); with ``render``, draws the
        planned frame if its time has come."""
        assert self.frames is not None and self.console is not None and self.horn is not None
        due = self.match.next_deadline()
        if render:
            # Whether a frame is due does not depend on the other instants (they only bring
            # the wake-up forward): a turn that draws skips gathering them, as the plan after
            # the frame gathers them anyway (a tenths frame: one gathering instead of two).
            step = self.frames.plan(now, due, ())
            if step.draw_at is not None:
                self._frame(step.draw_at)
                return self._plan(self.timeline.now())
        others = [self.console.next_deadline(), self.horn.next_change(now),
                  self.script.next_at() if self.script else None]
        if self._fault_since is not None:  # wake for the next retry of the journal
            others.append(self.frames.match_ns(self._retry_at - self.timeline.real())
                          + self.timeline.now())
        if self.notifier.watchdog_ns is not None:
            others.append(self.frames.match_ns(self._watchdog_at - self.timeline.real())
                          + self.timeline.now())
        others.append(self.feedback.expires(now))  # a frame without it, on time
        if self._view_pending:
            others.append(self.frames.match_ns(self._view_at - self.timeline.real())
                          + self.timeline.now())
        others.append(self._schedule_view_at)
        return self.frames.plan(now, due, others).wake_at

    def _wait(self, target: int) -> None:
        """Sleep until ``target`` (match time) or until an input arrives, never spinning:
        naps of at most ``_nap_ns()`` with a look at the inputs between them, each ended
        at once by ``_wake``; pump the office link meanwhile (acks, `next`)."""
        if self._until is not None:
            target = min(target, max(self._until, self.timeline.now()))
        real_target = self.timeline.to_real(target)
        nap = self._nap_ns()
        while self.stopping is None:
            # Cleared before each look at the inputs: a line arriving after the look sets it
            # again and the nap ends at once; one set before the look costs one more round
            # at most, never a spin.
            self._wake.clear()
            if self._input_waiting():
                return
            real = self.time.monotonic_ns()
            if real >= real_target:
                return
            self.time.sleep_until(min(real_target, real + nap), cancel=self._wake)
            if self.link is not None:
                self._pump_link()
                if self._next_arrived:
                    # Only a new arrival wakes the loop: one that waits for the final
                    # must not keep it spinning.
                    self._next_arrived = False
                    return

    def _on_standings(self, group: str, doc: dict[str, Any] | None) -> None:
        if doc is None:
            self.standings.pop(group, None)
        else:
            self.standings[group] = doc
        self._dirty = True  # the between-games screen shows the tables

    def _on_next(self, doc: dict[str, Any]) -> None:
        self.next_match.offer(doc)  # called from pump(), on this thread
        self.office_public_url = doc.get(Nx.PUBLIC_URL)  # checked by wire.check_next
        # The office decides from now on: its `next` replaces a local pick not yet started.
        self._office_next_seen = True
        self._local_offer = None
        self._next_arrived = True
        self._dirty = True  # the between-games screen shows the next match

    def _nap_ns(self) -> int:
        """``SLICE_NS`` while an input must be looked at (a window's keys, an open USB
        keypad), else ``NAP_NS``: every other input wakes the loop itself."""
        polled = (self.options.display_mode != "headless"
                  or (self.keys is not None and self.keys.watching()))
        return SLICE_NS if polled else NAP_NS

    def _input_waiting(self) -> bool:
        assert self.console is not None and self.keyboard is not None
        return (self.console.pending() or self._serial_input or self.keyboard.pending()
                or (self.keys is not None and self.keys.pending()))

    def _serial_woke(self) -> None:
        # From the serial reader's thread: a plain flag for the loop, and its nap ended.
        self._serial_input = True
        self._wake.set()

    # -------------------------------------------------------------- inputs

    def _inputs(self, now: int) -> None:
        from display.keyboard import ButtonEdge, KeypadKey, QuitRequest  # noqa: PLC0415

        assert self.console is not None and self.keyboard is not None
        entry_before = self.console.entry()
        notice_before = self.feedback.current(now)
        for item in self.keyboard.poll():
            if isinstance(item, QuitRequest):
                self.request_stop("window closed")
            elif isinstance(item, ButtonEdge):
                self.console.button(item.action, now, item.active)
            elif isinstance(item, KeypadKey):
                self.console.key(item.name, now)
                self._dirty = True  # the operator line shows the entry
        if self.keys is not None:
            self._usb_keys()
        if self.script is not None:
            for line, command in self.script.due(now):
                self._apply(command, "script", line)
        if self.serial is not None:
            self._serial_input = False
            for command in self.serial.drain():
                self._apply(command, "serial")
        self.console.drain(now, self.match, lambda c: self._pick(c) if isinstance(
            c, PickMatch) else self._apply(c, "console"))
        if self.console.entry() != entry_before:
            self._dirty = True
            if self.feedback.current(now) is notice_before:
                # Typing on (or cancelling) with no new outcome: the last one is old news,
                # and the operator line shows the entry instead.
                self.feedback.clear()

    def _usb_keys(self) -> None:
        """The USB keypad's keys, each at the kernel's stamp of its edge (real monotonic
        time) put on the match's timeline, never at the loop's ``now``."""
        assert self.console is not None and self.keys is not None
        for item in self.keys.poll(self.time.monotonic_ns()):
            at = self.timeline.from_real(item.at)
            if isinstance(item, keymap.ButtonEdge):
                if not self.console.button(item.action, at, item.active) and item.active:
                    kv(log, logging.DEBUG, "key without a button", action=item.action)
            else:
                self.console.key(item.name, at)
                self._dirty = True  # the operator line shows the entry

    def _apply(self, command: Command, source: str, line: ScriptLine | None = None) -> None:
        assert self.session is not None
        # A command's own "seq" (cancel, correct: the record it names) is logged as
        # "record", so it never clashes with the seq range of the events it made.
        fields: dict[str, Any] = {"match": self.session.match_id, "do": command.name,
                                  **{("record" if k == "seq" else k): v
                                     for k, v in command.to_json().items() if k != "do"},
                                  "at": _seconds(command.at), "source": source}
        if line is not None:
            fields["line"] = line.line
        if self.session.damaged:
            if command.name == Next.name:
                self._damage_confirmed(command.at)
                self._told(command, source, None)
                return
            if command.name not in WHILE_DAMAGED:
                reason = because("journal_damaged", "the journal is damaged: hold NEXT to play "
                                 "on from what was read")
                kv(log, logging.WARNING, "command refused", **fields, reason=reason.text)
                self._told(command, source, reason)
                return
        fed = self.session.recorder.command(
            command, {"script": line.line} if line is not None else None)
        if line is not None and not fed.events and self.script is not None:
            try:
                self.script.played(line)
            except OSError as err:  # the same failing disk: the game goes on
                kv(log, logging.WARNING, "script progress not kept", line=line.line,
                   problem=str(err))
        self._told(command, source, None if fed.refused is None else fed.refused.why)
        if fed.refused is not None:
            kv(log, logging.WARNING, "command refused", **fields, reason=fed.refused.reason)
        else:
            applied = [e for e in fed.events if e.at >= command.at]
            kv(log, logging.INFO, "command applied", **fields, seq=_seq_range(applied or
                                                                                fed.events))
            if command.name in CONFIRMING and self.session.restored:
                self.session.restored = False
                kv(log, logging.INFO, "clock confirmed by the timekeeper",
                   match=self.session.match_id)
        if fed.events:
            self._journalled(fed.events)

    def _told(self, command: Command, source: str, refused: Reason | None) -> None:
        """The timekeeper sees what the press did in the next frame (docs/timekeeper.md, "The
        operator view"); a script line is no press."""
        if source not in PRESSES:
            return
        if refused is None:
            self.feedback.accepted(command, command.at)
        else:
            self.feedback.refused(command, refused, command.at)
        self._dirty = True

    def _advance(self, now: int) -> None:
        assert self.session is not None
        events = self.session.recorder.advance(now)  # a disk fault keeps them in memory
        if events:
            kv(log, logging.INFO, "deadline", match=self.session.match_id,
               events=",".join(e.kind.value for e in events), at=_seconds(events[0].at),
               seq=_seq_range(events))
            self._journalled(events)
        self._checkpoint(now)

    def _checkpoint(self, now: int) -> None:
        assert self.session is not None
        state = self.session.recorder.match.state
        if not state.clock.running or state.phase is Phase.FINAL:
            return
        if not self.session.recorder.recording:
            return  # not while the disk fails: it would only pile up in memory
        last = next((r["at"] for r in reversed(self.session.records[-50:])
                     if isinstance(r.get("at"), int)), None)
        if last is not None and now - last < CHECKPOINT_NS:
            return
        self.session.recorder.note({"type": "clock", "at": now})
        self.session.new_records()  # no events: nothing for the outbox

    def _journalled(self, events: list[Event]) -> None:
        assert self.session is not None and self.horn is not None
        self._to_outbox()
        self.horn.poke()
        self._dirty = True

    def _to_outbox(self) -> None:
        """What is on the disk since the last call goes to the office (only that: an event
        kept in memory is sent once it is written, so the office never holds an event the
        journal might lose)."""
        assert self.session is not None
        fresh = self.session.new_records()
        if self.link is not None and self.link.outbox is not None:
            self.link.outbox.add(fresh)

    # -------------------------------------------------------------- storage

    def _set_current(self, match_id: str) -> None:
        try:
            self.files.set_current(match_id)
        except OSError as err:
            # Written once the disk is back (with the journal's catch-up).
            self._pointer_pending = match_id
            kv(log, logging.WARNING, "current match pointer not written", match=match_id,
               problem=str(err))
        else:
            self._pointer_pending = None

    def _storage(self) -> None:
        """Notice the journal failing, retry it with a growing gap, catch up when it takes
        records again. Bounded logs: one line when it starts, one a minute, one at the end."""
        assert self.session is not None
        recorder = self.session.recorder
        real = self.time.monotonic_ns()
        if self._fault_since is None:
            if recorder.recording:
                return
            self._fault_since = real
            self._fault_logged = real
            self._retry_gap = RETRY_FIRST_NS
            self._retry_at = real + self._retry_gap
            kv(log, logging.ERROR, "NOT RECORDING: the journal cannot be written; the game "
               "goes on from memory and is written when the disk is back",
               match=self.session.match_id, problem=recorder.fault,
               unwritten=len(recorder.unwritten))
            self._dirty = True  # the board says so at once
            return
        if real < self._retry_at:
            return
        if not recorder.flush():
            self._retry_gap = min(2 * self._retry_gap, RETRY_MAX_NS)
            self._retry_at = real + self._retry_gap
            if real - self._fault_logged >= FAULT_LOG_EVERY_NS:
                self._fault_logged = real
                kv(log, logging.ERROR, "still not recording", match=self.session.match_id,
                   problem=recorder.fault, unwritten=len(recorder.unwritten),
                   for_s=(real - self._fault_since) // NS_PER_S)
            return
        down = real - self._fault_since
        self._fault_since = None
        before = len(self.session.records)
        self._to_outbox()
        kv(log, logging.WARNING, "recording again: the records kept in memory are written",
           match=self.session.match_id, written=len(self.session.records) - before,
           down_s=round(down / NS_PER_S, 1))
        if self._pointer_pending is not None:
            self._set_current(self._pointer_pending)
        if self._link_waits:
            self._start_link()
        self._dirty = True

    def _start_link(self) -> None:
        """The office link, unless the state folder cannot take its side files (a read-only
        card at start): then the board plays without it and tries again once the journal
        is written (``_storage``)."""
        try:
            self._open_link()
        except OSError as err:
            self.link = None
            self._link_waits = True
            kv(log, logging.ERROR, "office link not started: the state folder cannot be "
               "written", problem=str(err))
        else:
            self._link_waits = False

    def _pump_link(self) -> None:
        """The link's pump; an acknowledgement the disk cannot keep must not stop the board
        (the event stays unacknowledged and is sent again later: a duplicate the office
        removes). Logged at most once a minute."""
        if self.link is None:
            return
        try:
            self.link.pump()
        except OSError as err:
            real = self.time.monotonic_ns()
            if self._ack_logged is None or real - self._ack_logged >= FAULT_LOG_EVERY_NS:
                self._ack_logged = real
                kv(log, logging.ERROR, "office acknowledgements not kept: the disk refuses",
                   problem=str(err))
        problem = self.link.problem
        if problem is not None and problem != self.office_problem:
            # Not only the log: the table sees at once that the office's word was not taken
            # (the office's page is where it is mended).
            self.office_problem = problem
            self.feedback.note("", problem, self.timeline.now(), key="press.office_next")
            self._dirty = True

    # -------------------------------------------------------------- a damaged journal

    def _damage_found(self) -> None:
        """A record damaged in the middle of the journal (the disk lied: not a torn write):
        the board stops a running clock and waits for the timekeeper's NEXT hold."""
        assert self.session is not None
        session = self.session
        if not session.damaged:
            return
        kv(log, logging.ERROR, "JOURNAL DAMAGED: waiting for the timekeeper (hold NEXT) "
           "before playing on from what could be read", match=session.match_id,
           journal=session.path, at_bytes=",".join(map(str, session.damaged)),
           highest_seq=session.seq_floor)
        # Before any new event (the stop below makes one): number above every seq the file
        # ever held, journalled so a replay numbers the same.
        now = self.timeline.now()
        session.recorder.note({"type": "damage", "at": now, "offsets": list(session.damaged),
                               "seq_floor": session.seq_floor, "confirmed": False})
        session.recorder.raise_seq(session.seq_floor)
        state = self.match.state
        if state.phase.is_play and state.clock.running:
            session.recorder.command(Stop(now))  # at start: the horn starts after this
        self._to_outbox()
        self._dirty = True

    def _damage_confirmed(self, at: int) -> None:
        assert self.session is not None
        session = self.session
        recorder = session.recorder
        # Journalled, so a restart does not ask again.
        recorder.note({"type": "damage", "at": at, "offsets": list(session.damaged),
                       "seq_floor": session.seq_floor, "confirmed": True})
        kv(log, logging.WARNING, "damaged journal confirmed by the timekeeper: playing on",
           match=session.match_id, at_bytes=",".join(map(str, session.damaged)),
           next_seq=recorder.match.state.seq + 1)
        session.damaged = []
        self._to_outbox()
        self._dirty = True

    # -------------------------------------------------------------- the office's next

    def _take_next(self) -> None:
        assert self.session is not None
        pending = self.next_match.pending
        if pending is not None and pending["match"] == self.session.match_id \
                and not self._replay_due(pending):
            self.next_match.pending = None  # the match on the board already
            if self._loaded_next is None or self._loaded_next.get("match") == pending["match"]:
                # After a restart the office's retained `next` is the only word of the
                # board's match: its scheduled time and suspensions are kept, as at loading.
                self._loaded_next = pending
                self._dirty = True
            return
        if not self.session.recorder.recording or self.session.damaged:
            return  # the match's records must be on the disk (and confirmed) first
        doc = self.next_match.take(self.match.state, self.timeline.now(), self.final_hold)
        if doc is not None:
            self._load_next(doc)
            return
        self._take_local()

    def _replay_due(self, doc: dict[str, Any]) -> bool:
        """The office replays the match on the board and this journal has not started that
        replay yet (firmware_py/recorder.py ``replay_due``): it is loaded again, as a fresh
        game, once the hall is free."""
        assert self.session is not None
        above = replay_above(doc)
        return above is not None and replay_due(self.session.recorder, above)

    def _load_next(self, doc: dict[str, Any]) -> None:
        from display.options import options_for  # noqa: PLC0415

        assert self.session is not None and self.console is not None
        assert self.horn is not None
        self._loaded_next = doc
        name, setup = setup_from_next(doc)
        toml_text, source = preset_text(name, None)
        old = self.session
        path = self.files.journal(setup.match_id)
        if path == old.path:
            old.close()  # the board's match replayed: one writer on its journal
        new = open_session(path, toml_text, source, setup, timeline=self.timeline,
                           boot=self.boot, wall=self.wall, adopt_timeline=False,
                           replay_above=replay_above(doc))
        self._set_current(setup.match_id)
        # The old journal is closed; its outbox stays with the link, drained first.
        old.close()
        if self.script is not None:
            self.script.close()
            self.script = None
        self.session = new
        self._damage_found()  # that match's journal may be damaged too: ask first
        replayed = new.recorder.replay_above
        if replayed is not None:
            kv(log, logging.WARNING, "replay: the office voided the result, a fresh game",
               match=new.match_id, numbered_above=replayed)
            self.feedback.note(new.match_id, None, self.timeline.now(), key="press.replay")
        if self.link is not None and not (self.link.outbox is not None
                                          and self.link.outbox.match == new.match_id):
            # (The match already the newest outbox's, replayed: that one sends on.)
            outbox = Outbox(stored_path(new.path), match=new.match_id)
            outbox.add(new.records)
            self.link.add_outbox(outbox)
        self.console.new_match(list(self.match.preset.penalties.kinds))
        self._offer_choices()
        self.options_layout = options_for(self.match.preset, self._hall(),
                                         self.config.display_language)
        self.outputs.forget()
        kv(log, logging.INFO, "next match loaded", match=setup.match_id, preset=name,
           stage=setup.stage.value, home=setup.home.name, away=setup.away.name,
           previous=old.match_id)
        if self.options.script_dir is not None:
            script = self.options.script_dir / f"{setup.match_id}.jsonl"
            if script.exists():
                # As in a hall: the teams line up while the between-games screen shows the
                # match and the tables, then the timekeeper starts the clock.
                self._start_script(script, delay=SCRIPTED_PREGAME_NS)
        self.horn.poke()
        self._dirty = True

    # -------------------------------------------------------------- the match day

    def _match_day(self, now: int) -> None:
        """The board's match's scheduled start on the match timeline (docs/timekeeper.md, "The match
        day"), and the pregame's timetable the core counts down to and sounds the warm-up's
        horn by. Nothing of it is journalled: it is mapped again after a restart."""
        assert self.session is not None and self.horn is not None
        if self.wall is None and self.time.monotonic_ns() >= self._wall_retry:
            self.wall = self.time.wall()
            self._wall_retry = self.time.monotonic_ns() + WALL_RETRY_NS
        match = self.match
        scheduled = self.matchday.scheduled(self.session.match_id, self._loaded_next,
                                            self._next_in_hall(), now=now, wall=self.wall,
                                            scale=self.timeline.scale)
        if scheduled != self.scheduled:
            self.scheduled = scheduled
            self._schedule_view_at = now  # the timekeeper's line at once
        plan = None if scheduled is None else pregame_plan(match.preset, scheduled.start)
        if match.pregame == plan:
            return
        match.schedule(plan)
        if plan is not None:
            kv(log, logging.INFO, "pregame scheduled", match=self.session.match_id,
               start_in=_seconds(plan.start - now),
               steps=",".join(span.step.name.lower() for span in plan.spans),
               warmup_horn_in=None if plan.horn is None else _seconds(plan.horn.start - now))
        self.horn.poke()  # the warm-up's horn is a deadline of the horn's thread now
        self._dirty = True

    def _next_in_hall(self) -> str | None:
        """The scheduled start of the match after the board's in this hall, from the local
        schedule (None without one, or for a match it does not hold)."""
        if self.schedule is None or self.session is None:
            return None
        hall = [m for m in self.schedule.tournament.matches if m.hall == self.schedule.hall]
        ids = [m.id for m in hall]
        if self.session.match_id not in ids:
            return None
        at = ids.index(self.session.match_id)
        return hall[at + 1].start.isoformat(timespec="minutes") if at + 1 < len(hall) else None

    def schedule_view(self, at: int) -> dict[str, Any] | None:
        """The timekeeper's schedule line at ``at`` (arena/core/catchup.py): how far
        the hall runs behind and what shortened periods would bring it back; a suggestion
        only, never applied."""
        scheduled = self.scheduled
        if scheduled is None:
            return None
        due = due_end(self.match, scheduled.start, scheduled.next_start)
        result = None if due is None else catch_up(self.match, at, scheduled.start, due)
        if result is None:
            return None
        return {"behind_ms": result.behind // 1_000_000, "periods": result.periods,
                "period_ms": None if result.period_length is None
                else result.period_length // 1_000_000,
                "clock_ms": None if result.clock is None else result.clock // 1_000_000,
                "text": describe(result)}

    # -------------------------------------------------------------- frames and outputs

    def document(self, at: int) -> dict[str, Any]:
        assert self.session is not None
        doc = state_document(self.match, at, self.console.entry() if self.console else None)
        doc["restored"] = self.session.restored  # an extra key (docs/developer.md 4.3 allows them)
        return doc

    def status(self, at: int | None = None) -> dict[str, Any]:
        """What the display shows of the scoreboard itself: the restored mark, the office,
        ``recording`` (false: the journal cannot be written, the game is only in memory) and
        ``journal_damaged`` (the byte offset of a damaged record, until the NEXT hold)."""
        assert self.session is not None
        status: dict[str, Any] = {
            "restored": self.session.restored,
            "office_online": None if self.link is None else self.link.connected,
            "recording": self.session.recorder.recording,
            "journal_damaged": self.session.damaged[0] if self.session.damaged else None}
        if not self.operator_line:
            status["operator_line"] = False  # the timekeeper has a view of their own
        notice = self.feedback.current(self.timeline.now() if at is None else at)
        if notice is not None and self.operator_line:
            status["feedback"] = {"text": notice.text(marks=False),
                                  "shorter": notice.shorter(), "accepted": notice.accepted}
        if self.set_aside is not None and self.match.state.phase is Phase.PREGAME:
            # Until the first game starts: the timekeeper has seen it by then.
            status["set_aside"] = self.set_aside
        if self.schedule_problem is not None and self.match.state.phase is Phase.PREGAME:
            status["schedule"] = self.schedule_problem  # until the first game starts
        return status

    def _hall(self) -> HallGeometry:
        """The hall the display hangs in ([display] screen_height_cm, farthest_seat_m)."""
        from display.hall import HallGeometry  # noqa: PLC0415 - the display loads lazily

        return HallGeometry(self.config.screen_height_cm, self.config.farthest_seat_m)

    def between(self, at: int) -> dict[str, Any] | None:
        """The between-games screen's data at ``at`` (firmware_py/between.py)."""
        return between_games(self.match, at, pending=self.next_match.pending,
                             loaded=self._loaded_next, standings=self.standings,
                             final_hold=self.final_hold, offer=self._local_offer,
                             # the hall's own address wins: it knows its own network
                             public_url=self.config.public_url or self.office_public_url,
                             replay=self.replaying)

    def _frame(self, present_at: int) -> None:
        assert self.display is not None and self.frames is not None
        assert self.session is not None
        doc = self.document(present_at)
        started = self.time.monotonic_ns()
        dirty = self.display.draw(doc, between=self.between(present_at),
                                  status=self.status(present_at),
                                  options=self.options_layout)
        self.frames.rendered(self.time.monotonic_ns() - started)
        # Asleep until the instant the frame was computed for, never before it (nor does a
        # spin hold the core: a wake-up ~0.1 ms late still shows that instant's tenth).
        self.time.sleep_until(self.timeline.to_real(present_at))
        self.display.present(dirty)
        self.frames.presented(present_at)
        self._dirty = False
        self._shown_notice = self.feedback.current(present_at)
        self._publish_view(doc, present_at)
        self.outputs.send(doc, present_at, link=self.link, serial=self.serial,
                          notifier=self.notifier, restored=self.session.restored,
                          on_change=lambda before, after: self._state_changed(
                              before, after, doc, present_at))
        if self.frames.count == 1:
            kv(log, logging.INFO, "first frame", ms_since_start=round(
                (self.time.monotonic_ns() - self.started_real) / 1e6, 1), size="x".join(
                map(str, self.display.size)))
            self.notifier.ready(status_text(doc, self.session.restored))

    def _publish_view(self, doc: dict[str, Any], at: int) -> None:
        """The operator view of the frame just drawn, to the page and the window: built at
        most every ``VIEW_GAP_NS``, encoded only when it changed, handed to the page by
        swapping one reference (nothing here waits for a client)."""
        if self.operator_web is None and self.operator_window is None:
            return
        real = self.time.monotonic_ns()
        if real < self._view_at:
            self._view_pending = True  # _plan wakes the loop for it
            return
        self._view_pending = False
        self._view_at = real + VIEW_GAP_NS
        link = None if self.link is None else (self.link.connected, self.link.unacked,
                                               self.office_problem)
        schedule = self.schedule_view(at)
        assert self.frames is not None
        self._schedule_view_at = None if schedule is None else (
            at + self.frames.match_ns(SCHEDULE_VIEW_NS))
        view = operator_document(self.match, doc, notice=self.feedback.current(at), office=link,
                                 next_doc=self._loaded_next, schedule=schedule,
                                 replay=self.replaying,
                                 lang=self.config.display_language)
        if view == self._view_last:
            return
        self._view_last = view
        if self.operator_web is not None:
            self.operator_web.publish(Snapshot(view))
        if self.operator_window is not None:
            self.operator_window.draw(view)

    def _state_changed(self, before: dict[str, Any] | None, after: dict[str, Any],
                       doc: dict[str, Any], at: int) -> None:
        if self.options.snapshots is not None and (
                before is None or before["phase"] != after["phase"]
                or before["period"] != after["period"]):
            self._snapshot(doc, at)

    def _snapshot(self, doc: dict[str, Any], at: int) -> None:
        folder = self.options.snapshots
        assert folder is not None and self.display is not None
        self._snapshots += 1
        name = f"{doc['match']}-{self._snapshots:03d}-{doc['phase']}-p{doc['period']}.png"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self.parts.snapshot(doc, self.display.size, folder / name,
                                between=self.between(at), status=self.status(),
                                options=self.options_layout)
        except OSError as err:
            kv(log, logging.WARNING, "snapshot not written", file=name, problem=str(err))

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
        if self.match.state.phase is not Phase.FINAL or self._dirty:
            return
        if self.link is not None and self.link.unacked:
            return
        if self.next_match.pending is not None:
            return  # the office's next match waits (the final is held up first)
        if (self.schedule is not None and not self._office_next_seen
                and self._local_offer is None
                and self.schedule.remaining(self._played, self.match.setup.match_id)):
            return  # the schedule's next match follows the final hold
        self.request_stop("done")

    # -------------------------------------------------------------- stop

    def shutdown(self) -> None:
        """Stop in order: inputs, horn, the last state and ``offline``, journal, display.
        Each step runs even if an earlier one failed."""
        reason = self.stopping or "error"
        self.notifier.stopping()
        kv(log, logging.INFO, "stopping", reason=reason)
        steps = [
            ("inputs", self._close_inputs),
            ("horn", self._horn_off),
            ("publish", self._publish_last),
            ("journal", self._close_journal),
            ("operator view", self._close_operator_view),
            ("display", self._close_display),
        ]
        for name, step in steps:
            try:
                step()
            except Exception:
                log.exception("while stopping", extra={"kv": {"step": name}})
        self.notifier.close()
        self.lock.release()
        kv(log, logging.INFO, "stopped", reason=reason)

    def _close_inputs(self) -> None:
        if self.keys is not None:
            self.keys.close()
        if self.console is not None:
            self.console.close()

    def _horn_off(self) -> None:
        if self.horn is not None:
            self.horn.stop()
        if self.relay is not None:
            self.relay.close()
            kv(log, logging.INFO, "horn relay off", pin=self.relay.pin)

    def _publish_last(self) -> None:
        doc = None
        if self.session is not None and self.console is not None:
            now = self.timeline.now()
            doc = self.document(now)
            write_state_file(self.options.state_file, doc, now)
        if self.serial is not None:
            if doc is not None:
                self.serial.send_state(doc)
            self.serial.close()
        if self.link is not None:
            if doc is not None:
                self.link.publish_state(doc)
            self.link.pump()
            self.link.close()  # publishes `offline` first (the will is not sent on a clean stop)
            kv(log, logging.INFO, "office link closed", unacked=self.link.unacked)

    def _close_journal(self) -> None:
        if self.script is not None:
            self.script.close()
        if self.session is not None:
            recorder = self.session.recorder
            if not recorder.flush():  # a last try: what stays unwritten is lost with us
                kv(log, logging.ERROR, "stopping with records not journalled",
                   match=self.session.match_id, unwritten=len(recorder.unwritten),
                   problem=recorder.fault)
            self.session.close()
            kv(log, logging.INFO, "journal closed", match=self.session.match_id)

    def _close_operator_view(self) -> None:
        if self.operator_web is not None:
            self.operator_web.close()
        if self.operator_window is not None:
            self.operator_window.close()

    def _close_display(self) -> None:
        if self.display is not None:
            self.display.close()
        if self.pins is not None:
            with contextlib.suppress(Exception):
                self.pins.close()


def _seconds(ns: int) -> str:
    return f"{ns / NS_PER_S:.6f}"


def _seq_range(events: list[Event]) -> str | None:
    if not events:
        return None
    first, last = events[0].seq, events[-1].seq
    return str(first) if first == last else f"{first}..{last}"
