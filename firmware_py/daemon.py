"""``scoreboard run``: the shell that wires the console, the core, the journal, the horn, the
display, the serial link and the office link, in one loop on the main thread.

Each iteration:

1. **drain inputs**: console button edges and keypad keys (the desktop keyboard stands in for
   the buttons in windowed mode), serial command lines, due replay-script lines;
2. **apply** each through the Recorder at its own edge time: journal + fsync first, then it
   exists (and is logged: ``command applied`` / ``command refused``);
3. **advance** the match to now (periods, penalties, shifts ending at their deadlines), and
   take the office's ``next`` if the hall is free;
4. **draw** a frame at the instant the shown state next changes (``FramePacer`` on the core's
   ``display_deadline``), computed for that very instant; when a core deadline falls first,
   wait for it, journal what it does, then draw;
5. **publish**: HallLink.pump (acks, events, ``next``), the state document on change (to the
   retained MQTT topic, to the serial link at most ``state_hz`` a second for clock-only
   changes, to ``--state-file``), systemd STATUS and WATCHDOG.

Nothing here waits on the broker, the serial port or the GPIO library: they have their own
threads and queues. The horn relay is switched at its deadlines by its own thread
(firmware_py/hornthread.py), never by a frame.

Stopping (SIGTERM, SIGINT, the window closed, ``--exit-when-done``), in order: STOPPING=1,
inputs closed, horn off, the last state and ``offline`` published, journal closed, display
closed; exit 0.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import time
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from pathlib import Path
from types import FrameType
from typing import Any

from firmware_py import presets
from firmware_py.clocks import Timeline, boot_id
from firmware_py.config import Config
from firmware_py.core.commands import Command
from firmware_py.core.events import Event
from firmware_py.core.match import Match
from firmware_py.core.phase import Phase
from firmware_py.core.state import state_document
from firmware_py.core.units import NS_PER_S
from firmware_py.journal import JournalError
from firmware_py.logfmt import kv
from firmware_py.matchfiles import MatchFiles
from firmware_py.mqtt import HallLink
from firmware_py.nextmatch import NextMatch, setup_from_next, showing_final
from firmware_py.outbox import JournalTail, Outbox, SeqLog, acked_path
from firmware_py.recorder import WallClock
from firmware_py.script import ScriptLine, parse_script
from firmware_py.scriptplay import ScriptPlayer, origin_of, played_lines
from firmware_py.sdnotify import Notifier
from firmware_py.session import CONFIRMING, Session, open_session
from firmware_py.timing import wait_until

log = logging.getLogger("firmware_py.daemon")

SYNCED_FLAG = Path("/run/systemd/timesync/synchronized")
DEVICE_TREE_MODEL = Path("/proc/device-tree/model")
SLICE_S = 0.010  # the longest nap between looks at the inputs (a press shows within ~10 ms)
SPIN_NS = 2_000_000  # the last 2 ms before a frame's instant are spun (timing.wait_until)
MIN_FRAME_GAP_NS = 33_000_000  # real time: at most ~30 frames a second, even time-scaled
BETWEEN_PAGE_NS = 8 * NS_PER_S  # the group tables turn a page this often when they do not fit
# A scripted match loaded from `next` starts this much later (its between-games screen shows).
SCRIPTED_PREGAME_NS = 20 * NS_PER_S
MQTT_CLOCK_EVERY_NS = NS_PER_S  # clock-only changes go to the retained state once a second
# While a clock runs, its instant is journalled this often (match time): after a power cut
# the clock comes back stopped at the last journalled instant, so at most this much behind
# the game instead of back at the last goal or whistle.
CHECKPOINT_NS = 5 * NS_PER_S
# Keys of the state document that change by themselves as time passes; a change of any
# other key is a "state change" (logged, published at once).
TICKING = ("clock_ms", "shift_ms", "timeout", "penalties", "running", "horn", "stop_time")


@dataclass(frozen=True)
class RunOptions:
    """What the command line adds to the config file."""

    display_mode: str  # resolved: fullscreen, windowed or headless
    pin_factory: str  # resolved: lgpio or mock
    state_dir: Path
    time_scale: Fraction = Fraction(1)
    script: Path | None = None
    script_dir: Path | None = None
    snapshots: Path | None = None
    state_file: Path | None = None
    exit_when_done: bool = False


# ------------------------------------------------------------------ environment


def is_raspberry_pi(model_file: Path = DEVICE_TREE_MODEL) -> bool:
    try:
        return "Raspberry Pi" in model_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def resolve_display_mode(mode: str, environ: dict[str, str] | os._Environ[str], *,
                         pi: bool, dri: bool) -> str:
    """``auto``: full screen on a Pi's console (a /dev/dri and no desktop session), a window
    on a desktop (DISPLAY or WAYLAND_DISPLAY set), else headless."""
    if mode != "auto":
        return mode
    desktop = bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))
    if pi and dri and not desktop:
        return "fullscreen"
    return "windowed" if desktop else "headless"


def resolve_pin_factory(name: str, *, pi: bool) -> str:
    return ("lgpio" if pi else "mock") if name == "auto" else name


def preset_text(name: str, preset_file: Path | None) -> tuple[str, str]:
    """A preset's TOML text and its source name (the journal keeps the whole text)."""
    if preset_file is not None:
        return preset_file.read_text(encoding="utf-8"), str(preset_file)
    presets.load(name)  # raises a PresetError naming the bundled ones
    source = resources.files(presets).joinpath(f"{name}.toml")
    return source.read_text(encoding="utf-8"), f"{name}.toml"


def write_atomic(path: Path, text: str) -> None:
    """For --state-file: a reader never sees half a document (no fsync: it is a view)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def steady_part(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without what ticks by itself; penalties kept as who and what."""
    out = {k: v for k, v in doc.items() if k not in TICKING}
    out["penalties"] = {side: [(p["player"], p["kind"], p["running"]) for p in listed]
                        for side, listed in doc["penalties"].items()}
    out["timeout"] = doc["timeout"]["team"] if doc["timeout"] else None
    return out


def clock_text(ms: int) -> str:
    seconds = -(-ms // 1000)
    if ms < 60_000 and ms % 1000:
        return f"{ms // 1000}.{ms % 1000 // 100}"
    return f"{seconds // 60}:{seconds % 60:02d}"


def status_text(doc: dict[str, Any], restored: bool) -> str:
    """systemd STATUS=, e.g. ``M1 P2 12:34 running 2-1``."""
    phase, period = doc["phase"], doc["period"]
    label = {"period": f"P{period}", "overtime": f"OT{period}"}.get(phase, phase)
    score = f"{doc['score']['home']}-{doc['score']['away']}"
    running = "running" if doc["running"] else "stopped"
    text = f"{doc['match']} {label} {clock_text(doc['clock_ms'])} {running} {score}"
    return text + (" CLOCK RESTORED - CHECK" if restored else "")


def describe_penalties(doc: dict[str, Any], side: str) -> str:
    return ",".join(f"{p['player']}:{p['kind']}{'' if p['running'] else '(waiting)'}"
                    for p in doc["penalties"][side]) or "-"


# ------------------------------------------------------------------ the daemon


class Daemon:
    def __init__(self, config: Config, options: RunOptions) -> None:
        self.config = config
        self.options = options
        self.timeline = Timeline(options.time_scale)
        self.boot = boot_id()
        self.files = MatchFiles(options.state_dir)
        self.notifier = Notifier()
        self.next_match = NextMatch()
        self._final_hold = config.final_hold_s * NS_PER_S
        self.standings: dict[str, dict[str, Any]] = {}  # group -> the office's table
        self._loaded_next: dict[str, Any] | None = None  # the `next` on the board, if any
        self.stopping: str | None = None
        self.wall: WallClock | None = time.time if SYNCED_FLAG.exists() else None
        # Set up by _start, in order; _shutdown tolerates any of them missing.
        self.pins: Any = None
        self.relay: Any = None
        self.horn: Any = None
        self.session: Session | None = None
        self.script: ScriptPlayer | None = None
        self.display: Any = None
        self.keyboard: Any = None
        self.console: Any = None
        self.serial: Any = None
        self.link: HallLink | None = None
        self.pacer: Any = None
        self.options_layout: Any = None
        self._dirty = True
        self._frames = 0
        self._last_present = -(1 << 62)
        self._last_steady: dict[str, Any] | None = None
        self._last_doc: dict[str, Any] | None = None
        self._mqtt_sent_at = -(1 << 62)
        self._serial_sent_at = -(1 << 62)
        self._serial_input = False
        self._next_arrived = False
        self._watchdog_at = 0
        self._snapshots = 0
        self.started_real = time.monotonic_ns()

    # -------------------------------------------------------------- properties

    @property
    def match(self) -> Match:
        assert self.session is not None
        return self.session.recorder.match

    # -------------------------------------------------------------- running

    def run(self) -> int:
        previous = {sig: signal.signal(sig, self._on_signal)
                    for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            self._start()
            while self.stopping is None:
                self._iterate()
            return 0
        except BaseException:
            if self.relay is not None:
                from hardware.horn import switch_off  # noqa: PLC0415

                switch_off(self.relay)
            raise
        finally:
            self._shutdown()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        # Runs between two bytecodes of the main thread: only switch the relay off (it takes
        # no lock) and raise the flag; the loop stops in order within one slice.
        if self.relay is not None:
            from hardware.horn import switch_off  # noqa: PLC0415

            switch_off(self.relay)
        if self.stopping is None:
            self.stopping = signal.Signals(signum).name

    def request_stop(self, reason: str) -> None:
        if self.stopping is None:
            self.stopping = reason

    # -------------------------------------------------------------- start

    def _start(self) -> None:
        from display.options import options_for  # noqa: PLC0415
        from display.pacing import FramePacer  # noqa: PLC0415
        from hardware import pins  # noqa: PLC0415
        from hardware.console import Console  # noqa: PLC0415
        from hardware.horn import HornDriver, HornRelay  # noqa: PLC0415

        cfg, opts = self.config, self.options
        kv(log, logging.INFO, "starting", config=cfg.source, state_dir=opts.state_dir,
           display=opts.display_mode, pins=opts.pin_factory, boot=self.boot,
           time_scale=opts.time_scale, wall_synced=self.wall is not None)
        # The relay first: claiming its pin drives it off, whatever a crash left latched.
        self.pins = pins.factory(opts.pin_factory)
        self.relay = HornRelay(cfg.console.horn_pin, active_high=cfg.console.horn_active_high,
                               pin_factory=self.pins)
        self._open_first_match()
        assert self.session is not None
        self.console = Console(cfg.console, self.pins,
                               list(self.match.preset.penalties.kinds),
                               ticks_to_ns=self.timeline.ticks_to_ns)
        self.options_layout = options_for(self.match.preset)
        self._open_display()
        # Through self.match each time: `next` replaces the match on the board.
        self.pacer = FramePacer(lambda now: self.match.display_deadline(now),  # noqa: PLW0108
                                idle_ns=self._match_ns(NS_PER_S))
        if cfg.serial.url:
            from hardware.serial_link import SerialLink  # noqa: PLC0415

            self.serial = SerialLink(cfg.serial.url, cfg.serial.baud, clock=self.timeline.now,
                                     on_input=self._serial_woke)
            self.serial.start()
        self._open_link()
        from firmware_py.hornthread import HornThread  # noqa: PLC0415

        self.horn = HornThread(HornDriver(self.relay), self.timeline, lambda: self.match)
        self.horn.start()

    def _open_first_match(self) -> None:
        cfg, opts = self.config, self.options
        current = self.files.current()
        match_cfg = cfg.match
        setup = match_cfg.setup
        toml_text, source = preset_text(match_cfg.preset, match_cfg.preset_file)
        if current is not None and current != setup.match_id:
            # The board was on another match (loaded from `next`): its journal holds its
            # setup; the config's match is only what a fresh hall plays first.
            setup = type(setup)(match_id=current)
        path = self.files.journal(setup.match_id)
        self.session = open_session(path, toml_text, source, setup, timeline=self.timeline,
                                    boot=self.boot, wall=self.wall, adopt_timeline=True)
        if current != setup.match_id:
            self.files.set_current(setup.match_id)
        kv(log, logging.INFO, "match on the board", match=self.session.match_id,
           preset=self.match.preset.name, phase=self.match.state.phase.value,
           seq=self.match.state.seq, restored=self.session.restored)
        script = opts.script
        if script is None and opts.script_dir is not None:
            candidate = opts.script_dir / f"{self.session.match_id}.jsonl"
            script = candidate if candidate.exists() else None
        if script is not None:
            self._start_script(script)

    def _start_script(self, path: Path, delay: int = 0) -> None:
        """Play ``path`` on the match on the board, from now + ``delay`` (match time)."""
        assert self.session is not None
        lines: list[ScriptLine] = parse_script(path.read_text(encoding="utf-8"), str(path))
        records = self.session.records
        origin = origin_of(records)
        if origin is None:
            origin = self.timeline.now() + delay
            self.session.recorder.note({"type": "script", "origin": origin, "name": path.name})
            self.session.new_records()
        progress = SeqLog(self.files.script_progress(self.session.match_id))
        done = played_lines(records) | progress.values
        self.script = ScriptPlayer(str(path), lines, origin, done, progress)
        kv(log, logging.INFO, "script", match=self.session.match_id, file=path,
           lines=len(lines), already_played=len(done), origin=origin)

    def _open_display(self) -> None:
        from display.keyboard import Keyboard  # noqa: PLC0415
        from display.screen import Display  # noqa: PLC0415

        mode = self.options.display_mode
        if mode == "headless":
            os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        elif mode == "fullscreen" and not (os.environ.get("DISPLAY")
                                          or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("SDL_VIDEODRIVER", "kmsdrm")  # a Pi console: STACK-NOTES
        self.display = Display(mode, self.config.display_size)  # type: ignore[arg-type]
        self.keyboard = Keyboard(buttons=mode == "windowed")

    def _open_link(self) -> None:
        link_cfg = self.config.mqtt
        if link_cfg is None:
            return
        assert self.session is not None
        link = HallLink(link_cfg.broker.host, link_cfg.broker.port, link_cfg.tournament,
                        link_cfg.hall, username=link_cfg.username, password=link_cfg.password,
                        tls=link_cfg.tls, on_next=self._on_next,
                        on_standings=self._on_standings)
        # Everything not yet acknowledged, of every match in the state directory, oldest
        # first: a crash or an outage during an earlier match loses none of its events.
        current = self.session.path
        for path in self.files.journals():
            if path == current:
                continue
            outbox = Outbox(acked_path(path))
            outbox.add(JournalTail(path).read())
            if outbox.unacked:
                kv(log, logging.INFO, "resending", journal=path.name, events=outbox.unacked)
                link.add_outbox(outbox)
            else:
                outbox.close()
        outbox = Outbox(acked_path(current))
        outbox.add(self.session.records)
        link.add_outbox(outbox)
        self.link = link
        link.start()

    # -------------------------------------------------------------- one iteration

    def _iterate(self) -> None:
        now = self.timeline.now()
        self._inputs(now)
        self._advance(now)
        self._take_next()
        if self.link is not None:
            self.link.pump()
        self._watchdog()
        if self.stopping is not None:
            return
        now = self.timeline.now()
        target: int
        if self._dirty:
            present = max(now, self._earliest_frame())
            due = self._next_due()
            if due is not None and due <= present:
                # Something happens before that frame could be shown: do it first (the
                # next turn), so no frame shows a state a deadline has already changed.
                target = due
            else:
                self._frame(present)
                target = self._plan_target(self.timeline.now())
        else:
            target = self._plan_target(now, render=True)
        self._check_done()
        self._wait(target)

    def _next_due(self) -> int | None:
        """The next instant the match or the script changes by itself."""
        found = [d for d in (self.match.next_deadline(),
                             self.script.next_at() if self.script else None) if d is not None]
        return min(found, default=None)

    def _earliest_frame(self) -> int:
        return self._last_present + self._match_ns(MIN_FRAME_GAP_NS)

    def _match_ns(self, real_ns: int) -> int:
        return real_ns * self.timeline.scale.numerator // self.timeline.scale.denominator

    def _plan_target(self, now: int, render: bool = False) -> int:
        """The next instant the loop must act on (match time); with ``render``, draws the
        planned frame if its time has come."""
        plan = self.pacer.plan(now)
        # With no display deadline (a stopped clock, pregame, the final) the pacer plans an
        # idle frame a second ahead of *now*, which moves on every turn: anchor it on the
        # last frame shown, so a status change (office offline) is drawn within a second.
        present_at = max(now, min(plan.present_at, self._last_present + self.pacer.idle_ns),
                         self._earliest_frame())
        render_at: int = present_at - (plan.present_at - plan.render_at)
        due = self.match.next_deadline()
        targets: list[int] = [render_at]
        if due is not None and due <= present_at:
            # Something happens at or before that frame: journal it first, then draw.
            targets = [due]
        elif render and now >= render_at:
            self._frame(present_at)
            return self._plan_target(self.timeline.now())
        for other in (self.console.next_deadline(),
                      self.script.next_at() if self.script else None):
            if other is not None:
                targets.append(other)
        if self.notifier.watchdog_ns is not None:
            targets.append(self._match_ns(self._watchdog_at - self.timeline.real())
                           + self.timeline.now())
        return min(targets)

    def _wait(self, target: int) -> None:
        """Nap until ``target`` (match time) or until an input arrives; pump the office link
        meanwhile (acks, `next`)."""
        real_target = self.timeline.to_real(target)
        while self.stopping is None:
            if self._input_waiting():
                return
            left = real_target - self.timeline.real()
            if left <= 0:
                return
            if left <= SPIN_NS:
                wait_until(real_target, clock=self.timeline.real)
                return
            time.sleep(min(SLICE_S, (left - SPIN_NS) / 1e9))
            if self.link is not None:
                self.link.pump()
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
        self._next_arrived = True
        self._dirty = True  # the between-games screen shows the next match

    def _input_waiting(self) -> bool:
        return (self.console.pending() or self._serial_input or self.keyboard.pending())

    def _serial_woke(self) -> None:
        self._serial_input = True  # read by the loop within a slice; a plain flag, no lock

    # -------------------------------------------------------------- inputs

    def _inputs(self, now: int) -> None:
        from display.keyboard import ButtonEdge, KeypadKey, QuitRequest  # noqa: PLC0415

        for item in self.keyboard.poll():
            if isinstance(item, QuitRequest):
                self.request_stop("window closed")
            elif isinstance(item, ButtonEdge):
                self.console.button(item.action, now, item.active)
            elif isinstance(item, KeypadKey):
                self.console.key(item.name, now)
                self._dirty = True  # the operator line shows the entry
        if self.script is not None:
            for line, command in self.script.due(now):
                self._apply(command, "script", line)
        if self.serial is not None:
            self._serial_input = False
            for command in self.serial.drain():
                self._apply(command, "serial")
        entry_before = self.console.entry()
        self.console.drain(now, self.match, lambda c: self._apply(c, "console"))
        if self.console.entry() != entry_before:
            self._dirty = True

    def _apply(self, command: Command, source: str, line: ScriptLine | None = None) -> None:
        assert self.session is not None
        fields: dict[str, Any] = {"match": self.session.match_id, "do": command.name,
                                  **{k: v for k, v in command.to_json().items() if k != "do"},
                                  "at": _seconds(command.at), "source": source}
        if line is not None:
            fields["line"] = line.line
        try:
            fed = self.session.recorder.command(
                command, {"script": line.line} if line is not None else None)
        except JournalError as err:
            kv(log, logging.ERROR, "command not applied: the journal cannot be written",
               **fields, problem=str(err))
            return
        if line is not None and not fed.events and self.script is not None:
            self.script.played(line)
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

    def _advance(self, now: int) -> None:
        assert self.session is not None
        try:
            events = self.session.recorder.advance(now)
        except JournalError as err:
            kv(log, logging.ERROR, "time cannot pass: the journal cannot be written",
               match=self.session.match_id, problem=str(err))
            return
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
        last = next((r["at"] for r in reversed(self.session.records[-50:])
                     if isinstance(r.get("at"), int)), None)
        if last is not None and now - last < CHECKPOINT_NS:
            return
        try:
            self.session.recorder.note({"type": "clock", "at": now})
        except JournalError as err:
            kv(log, logging.ERROR, "clock checkpoint not journalled",
               match=self.session.match_id, problem=str(err))
            return
        self.session.new_records()  # no events: nothing for the outbox

    def _journalled(self, events: list[Event]) -> None:
        assert self.session is not None
        fresh = self.session.new_records()
        if self.link is not None and self.link.outbox is not None:
            self.link.outbox.add(fresh)
        self.horn.poke()
        self._dirty = True

    # -------------------------------------------------------------- the office's next

    def _take_next(self) -> None:
        assert self.session is not None
        pending = self.next_match.pending
        if pending is not None and pending["match"] == self.session.match_id:
            self.next_match.pending = None  # the match on the board already
            return
        doc = self.next_match.take(self.match.state, self.timeline.now(), self._final_hold)
        if doc is not None:
            self._load_next(doc)

    def _load_next(self, doc: dict[str, Any]) -> None:
        from display.options import options_for  # noqa: PLC0415

        assert self.session is not None
        self._loaded_next = doc
        name, setup = setup_from_next(doc)
        toml_text, source = preset_text(name, None)
        old = self.session
        new = open_session(self.files.journal(setup.match_id), toml_text, source, setup,
                           timeline=self.timeline, boot=self.boot, wall=self.wall,
                           adopt_timeline=False)
        self.files.set_current(setup.match_id)
        # The old journal is closed; its outbox stays with the link, drained first.
        old.close()
        if self.script is not None:
            self.script.close()
            self.script = None
        self.session = new
        if self.link is not None:
            outbox = Outbox(acked_path(new.path))
            outbox.add(new.records)
            self.link.add_outbox(outbox)
        self.console.keypad.kinds = list(self.match.preset.penalties.kinds)
        self.console.keypad.pending = None
        self.options_layout = options_for(self.match.preset)
        self._last_steady = None
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

    # -------------------------------------------------------------- frames and outputs

    def document(self, at: int) -> dict[str, Any]:
        assert self.session is not None
        doc = state_document(self.match, at, self.console.entry() if self.console else None)
        doc["restored"] = self.session.restored  # an extra key (DESIGN.md 4.3 allows them)
        return doc

    def _status(self) -> dict[str, Any]:
        assert self.session is not None
        return {"restored": self.session.restored,
                "office_online": None if self.link is None else self.link.connected}

    def _between(self, at: int) -> dict[str, Any] | None:
        """The between-games screen's data, when it is its time: before the first face-off
        (the match on the board and the office's group tables) and, once a final result has
        been up for ``final_hold_s``, the next match (if the office sent one) and the tables.
        The tables turn a page every ``BETWEEN_PAGE_NS`` when they do not fit."""
        state = self.match.state
        if state.phase is Phase.FINAL:
            if showing_final(state, at, self._final_hold):
                return None  # the final result stays up first
            pending = self.next_match.pending
            upcoming = None if pending is None else {
                "match": pending["match"], "time": pending.get("scheduled"),
                "label": pending.get("label"),
                "home": pending["teams"]["home"], "away": pending["teams"]["away"]}
        elif state.phase is Phase.PREGAME:
            setup = self.match.setup
            loaded = self._loaded_next or {}
            upcoming = {"match": setup.match_id, "time": loaded.get("scheduled"),
                        "label": loaded.get("label"),
                        "home": {"name": setup.home.name, "colours": list(setup.home.colours)},
                        "away": {"name": setup.away.name, "colours": list(setup.away.colours)}}
        else:
            return None
        tables = [{"group": g, "rows": self.standings[g]["rows"]} for g in sorted(self.standings)]
        if upcoming is None and not tables:
            return None
        return {"next": upcoming, "tables": tables, "page": max(at, 0) // BETWEEN_PAGE_NS}

    def _frame(self, present_at: int) -> None:
        doc = self.document(present_at)
        started = time.monotonic_ns()
        dirty = self.display.draw(doc, between=self._between(present_at), status=self._status(),
                                  options=self.options_layout)
        self.pacer.rendered(self._match_ns(time.monotonic_ns() - started))
        wait_until(self.timeline.to_real(present_at), clock=self.timeline.real)
        self.display.present(dirty)
        self._last_present = present_at
        self._dirty = False
        self._frames += 1
        self._outputs(doc, present_at)
        if self._frames == 1:
            kv(log, logging.INFO, "first frame", ms_since_start=round(
                (time.monotonic_ns() - self.started_real) / 1e6, 1), size="x".join(
                map(str, self.display.size)))
            assert self.session is not None
            self.notifier.ready(status_text(doc, self.session.restored))

    def _outputs(self, doc: dict[str, Any], at: int) -> None:
        assert self.session is not None
        self._last_doc = doc
        self._write_state_file(doc, at)
        steady = steady_part(doc)
        changed = steady != self._last_steady
        previous, self._last_steady = self._last_steady, steady
        real = time.monotonic_ns()
        if changed:
            self._log_state(doc)
            if self.options.snapshots is not None and (
                    previous is None or previous["phase"] != steady["phase"]
                    or previous["period"] != steady["period"]):
                self._snapshot(doc, at)
        if self.link is not None and (changed or real - self._mqtt_sent_at >= MQTT_CLOCK_EVERY_NS):
            self.link.publish_state(doc)
            self._mqtt_sent_at = real
        if self.serial is not None and (
                changed or real - self._serial_sent_at >= NS_PER_S / self.config.serial.state_hz):
            self.serial.send_state(doc)
            self._serial_sent_at = real
        self.notifier.status(status_text(doc, self.session.restored))

    def _write_state_file(self, doc: dict[str, Any], at: int) -> None:
        """``at_ns``: the instant (match timeline) the document was computed for, so a test
        or a second display can tell exactly what it shows."""
        if self.options.state_file is not None:
            write_atomic(self.options.state_file,
                         json.dumps({**doc, "at_ns": at}, separators=(",", ":")))

    def _log_state(self, doc: dict[str, Any]) -> None:
        result = doc["result"]
        kv(log, logging.INFO, "state", match=doc["match"], phase=doc["phase"],
           period=doc["period"], clock=clock_text(doc["clock_ms"]),
           score=f"{doc['score']['home']}-{doc['score']['away']}",
           penalties_home=describe_penalties(doc, "home"),
           penalties_away=describe_penalties(doc, "away"),
           timeout=doc["timeout"]["team"] if doc["timeout"] else None,
           result=None if result is None else
           f"{result['home']}-{result['away']}/{result['decided_by']}",
           restored=doc["restored"])

    def _snapshot(self, doc: dict[str, Any], at: int) -> None:
        from display.snapshot import snapshot  # noqa: PLC0415

        folder = self.options.snapshots
        assert folder is not None
        self._snapshots += 1
        name = f"{doc['match']}-{self._snapshots:03d}-{doc['phase']}-p{doc['period']}.png"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            snapshot(doc, self.display.size, folder / name,
                     between=self._between(at),
                     status=self._status(), options=self.options_layout)
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
        self.request_stop("done")

    # -------------------------------------------------------------- stop

    def _shutdown(self) -> None:
        reason = self.stopping or "error"
        self.notifier.stopping()
        kv(log, logging.INFO, "stopping", reason=reason)
        steps = [
            ("inputs", self._close_inputs),
            ("horn", self._horn_off),
            ("publish", self._publish_last),
            ("journal", self._close_journal),
            ("display", self._close_display),
        ]
        for name, step in steps:
            try:
                step()
            except Exception:
                log.exception("while stopping", extra={"kv": {"step": name}})
        self.notifier.close()
        kv(log, logging.INFO, "stopped", reason=reason)

    def _close_inputs(self) -> None:
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
            self._write_state_file(doc, now)
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
            self.session.close()
            kv(log, logging.INFO, "journal closed", match=self.session.match_id)

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
