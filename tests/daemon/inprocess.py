"""A whole scoreboard in the test's own process, on a fake clock.

The time source is ``arena.timesource.FakeClock``, whose clock moves only when the daemon
waits: a nap or a wait for a deadline jumps straight to its end (as trio's MockClock does
with autojump). So a 40-minute game runs in milliseconds and every instant is exact: a frame
is computed for the instant the daemon planned, with nothing of the machine's load in it.

``TestParts`` are the real parts where they can run here, fakes where they cannot or where
they only cost time:
- the pins are gpiozero's MockFactory, the relay the real ``HornRelay`` on it, the console
  the real GPIO ``Console`` (presses go in through ``Console.button`` with their instants);
- the horn is switched from the loop (``LoopHorn``: the real ``HornDriver``, woken at its
  own deadlines) instead of by the deadline thread, whose waits are in real time; it drives
  the relay alone unless a test asks for the real audio horn too (``audio=True``: pygame's
  mixer on SDL's dummy driver, opened before the first instant);
- the display records what it is asked to draw (``RecordingDisplay``); a test that wants
  the pixels asks for the real headless pygame display instead (``real_display=True``);
- the USB keypad is none, or the test's own ``KeySource`` (``key_source``: e.g. the real
  ``EvdevKeys`` on fake devices): never this machine's /dev/input;
- the office link is ``FakeLink`` unless a test passes its own (the real ``HallLink`` on a
  real mosquitto, for example): it stores every event at once, as an office that is up.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.core.match import Match
from arena.timesource import FAKE_START_NS, FakeClock, TimeSource
from display.audiostatus import OFF, AudioStatus
from firmware_py.config import Config, parse
from firmware_py.daemon import Daemon
from firmware_py.linkconfig import LinkConfig
from firmware_py.outbox import Outbox
from firmware_py.parts import (
    Display,
    HallParts,
    Horn,
    Keyboard,
    KeySource,
    NoKeys,
    OfficeLink,
    OnNext,
    OnStandings,
    Relay,
)
from firmware_py.runconfig import RunOptions
from firmware_py.sdnotify import Notifier
from firmware_py.timeline import Timeline
from hardware.console import HornAudio
from hardware.horn import HornDriver, HornOutput, HornRelay
from hardware.keymap import KeypadConfig

START_NS = FAKE_START_NS  # a monotonic clock some time after boot


@dataclass(frozen=True)
class Frame:
    doc: dict[str, Any]
    at: int  # the instant it was computed for (match time)
    drained: int  # the loop's "now" when it was drawn: inputs and deadlines taken up to it
    between: Mapping[str, Any] | None
    status: Mapping[str, Any] | None


class RecordingDisplay:
    """Keeps every frame the daemon draws; presents nothing."""

    def __init__(self, timeline: Callable[[], Timeline], size: tuple[int, int]) -> None:
        self._timeline = timeline
        self.size = size
        self.frames: list[Frame] = []
        self.closed = False

    def draw(self, doc: Mapping[str, Any], *, between: Mapping[str, Any] | None = None,
             status: Mapping[str, Any] | None = None, options: Any = None) -> list[Any]:
        line = self._timeline()
        self.frames.append(Frame(dict(doc), -1, line.now(), between, status))
        return [(0, 0, *self.size)]

    def present(self, dirty: list[Any]) -> None:
        # The daemon waited for the frame's instant before presenting it: that is "at".
        last = self.frames[-1]
        self.frames[-1] = Frame(last.doc, self._timeline().now(), last.drained, last.between,
                                last.status)

    def close(self) -> None:
        self.closed = True


class NoKeyboard:
    def poll(self) -> list[Any]:
        return []

    def pending(self) -> bool:
        return False


def no_audio() -> AudioStatus:
    return OFF


class LoopHorn:
    """The real relay (and audio horn) and ``HornDriver``, switched by the daemon's loop at
    the instants the driver names (``next_change``), instead of by a thread waiting in real
    time."""

    def __init__(self, driver: HornDriver, timeline: Timeline,
                 current: Callable[[], Match], closing: list[Callable[[], None]],
                 audio: Callable[[], AudioStatus] = no_audio) -> None:
        self.driver = driver
        self._audio = audio
        self._closing = closing
        self.timeline = timeline
        self._current = current
        self.switched: list[tuple[int, bool]] = []  # (instant, on) at every change
        # (instant, each output's on) whenever one of them changes: relay, audio, ...
        self.outputs_switched: list[tuple[int, tuple[bool, ...]]] = []

    def start(self) -> None:
        self.poke()

    def poke(self) -> None:
        now = self.timeline.now()
        before = self.driver.is_on
        on = self.driver.update(self._current(), now)
        if on != before:
            self.switched.append((now, on))
        states = tuple(output.is_on for output in self.driver.outputs)
        if not self.outputs_switched or self.outputs_switched[-1][1] != states:
            self.outputs_switched.append((now, states))

    def next_change(self, now: int) -> int | None:
        self.poke()  # the loop woke: switch for now first
        return self.driver.next_change(self._current(), now)

    def audio(self) -> AudioStatus:
        return self._audio()

    def stop(self) -> None:
        self.driver.fail_safe()
        for close in self._closing:
            close()


class FakeLink:
    """An office that is up and stores every event at once: ``pump`` takes what the outboxes
    offer, in order, PUBACKs it and acknowledges it as the office does (per match, the
    highest seq stored with none missing below; ``stored`` is that store). A test delivers
    ``next`` and tables with ``offer_next``/``offer_standings`` (handed on at the next pump,
    on the loop's thread, as the real link does)."""

    def __init__(self, on_next: OnNext, on_standings: OnStandings) -> None:
        self._on_next = on_next
        self._on_standings = on_standings
        self.outboxes: list[Outbox] = []
        self.sent: list[dict[str, Any]] = []  # every event record, in the order sent
        self.stored: dict[str, set[int]] = {}  # match -> the seqs the "office" holds
        self.states: list[dict[str, Any]] = []
        self.online = True
        self.started = self.closed = False
        self.problem: str | None = None  # what a test says the office sent wrong
        self.cannot_store_since: str | None = None  # always stores
        self.refused: dict[str, str] = {}  # refuses nothing
        self._inbox: list[tuple[str, Any]] = []

    @property
    def outbox(self) -> Outbox | None:
        return self.outboxes[-1] if self.outboxes else None

    @property
    def unacked(self) -> int:
        return sum(o.unacked for o in self.outboxes)

    @property
    def connected(self) -> bool:
        return self.online

    def start(self) -> None:
        self.started = True

    def add_outbox(self, outbox: Outbox) -> None:
        self.outboxes.append(outbox)

    def offer_next(self, doc: dict[str, Any]) -> None:
        self._inbox.append(("next", doc))

    def offer_standings(self, group: str, doc: dict[str, Any] | None) -> None:
        self._inbox.append(("standings", (group, doc)))

    def pump(self) -> None:
        inbox, self._inbox = self._inbox, []
        for kind, value in inbox:
            if kind == "next":
                self._on_next(value)
            else:
                self._on_standings(*value)
        if not self.online:
            return
        for outbox in self.outboxes:
            taken = outbox.take()
            self.sent += taken
            seqs = [int(r["seq"]) for r in taken]
            outbox.published(seqs)
            for r in taken:
                self.stored.setdefault(str(r["match"]), set()).add(int(r["seq"]))
            if outbox.match is not None:
                outbox.office_acked(self.acked_upto(outbox.match))
            if outbox.unsent:
                break  # an earlier match's events all go before the next match's

    def acked_upto(self, match: str) -> int:
        """What the office's ``acks`` say of ``match``."""
        held, upto = self.stored.get(match, set()), 0
        while upto + 1 in held:
            upto += 1
        return upto

    def publish_state(self, doc: dict[str, Any]) -> None:
        if self.online:
            self.states.append(doc)

    def close(self) -> None:
        self.closed = True
        for outbox in self.outboxes:
            outbox.close()


@dataclass
class TestParts(HallParts):
    """The parts of an in-process hall; what each made is kept for the test to look at."""

    __test__ = False  # not a pytest test class

    real_display: bool = False
    audio: bool = False  # the real audio horn beside the relay (as the config says)
    link_factory: Callable[[LinkConfig, OnNext, OnStandings], OfficeLink] | None = None
    key_source: KeySource | None = None
    made: dict[str, Any] = field(default_factory=dict)

    def pins(self, name: str) -> Any:
        assert name == "mock", "in-process halls run on gpiozero's MockFactory"
        self.made["pins"] = super().pins(name)
        return self.made["pins"]

    def horn(self, config: Config, relay: Relay, timeline: Timeline, time: TimeSource,
             current: Callable[[], Match]) -> Horn:
        assert isinstance(relay, HornRelay)
        outputs: list[HornOutput] = [relay]
        closing: list[Callable[[], None]] = []
        status: Callable[[], AudioStatus] = no_audio
        if self.audio and config.console.horn_audio is not HornAudio.OFF:
            from display.audiohorn import AudioHorn  # noqa: PLC0415

            audio = AudioHorn(required=config.console.horn_audio is HornAudio.ON)
            audio.open()  # here and now: the fake clock must not run ahead of the mixer
            self.made["audio"] = audio
            outputs.append(audio)
            closing.append(audio.close)
            status = audio.status
        self.made["horn"] = LoopHorn(HornDriver(outputs, timeline.now), timeline, current,
                                     closing, status)
        return self.made["horn"]

    def display(self, mode: str, size: tuple[int, int],
                keys: KeypadConfig) -> tuple[Display, Keyboard]:
        if self.real_display:
            screen, _ = super().display("headless", size, keys)
            self.made["display"] = screen
            return screen, NoKeyboard()
        timeline = self.made["timeline"]
        self.made["display"] = RecordingDisplay(lambda: timeline, size)
        return self.made["display"], NoKeyboard()

    def keys(self, config: Config, clock: TimeSource) -> KeySource:
        self.made["keys"] = self.key_source if self.key_source is not None else NoKeys()
        return self.made["keys"]

    def link(self, config: LinkConfig, on_next: OnNext, on_standings: OnStandings
             ) -> OfficeLink:
        if self.link_factory is not None:
            self.made["link"] = self.link_factory(config, on_next, on_standings)
        else:
            self.made["link"] = FakeLink(on_next, on_standings)
        return self.made["link"]

    def notifier(self) -> Notifier:
        return Notifier(environ={})


class InProcessHall:
    """One hall: a state directory and a config, and the daemons run on it one after the
    other (a crash is simply a daemon dropped without ``shutdown``)."""

    def __init__(self, directory: Path, config: str = "", *, time: FakeClock | None = None,
                 boot: str = "boot-1") -> None:
        self.dir = directory
        self.state_dir = directory / "state"
        self.config: Config = parse(tomllib.loads(config), "test config")
        self.time = time or FakeClock()
        self.boot = boot
        self.daemon: Daemon | None = None
        self.parts: TestParts | None = None

    def start(self, *, script: Path | None = None, script_dir: Path | None = None,
              exit_when_done: bool = False, state_file: Path | None = None,
              snapshots: Path | None = None, parts: TestParts | None = None,
              display_mode: str = "headless", frame_log: Path | None = None) -> Daemon:
        options = RunOptions(display_mode=display_mode, pin_factory="mock",
                             state_dir=self.state_dir, script=script, script_dir=script_dir,
                             exit_when_done=exit_when_done, state_file=state_file,
                             snapshots=snapshots, frame_log=frame_log)
        self.parts = parts or TestParts()
        daemon = Daemon(self.config, options, time=self.time, parts=self.parts, boot=self.boot)
        self.parts.made["timeline"] = daemon.timeline
        daemon.start()
        self.daemon = daemon
        return daemon

    def crash(self) -> None:
        """The process is gone: nothing of the daemon's stopping runs. Only its open files
        are closed, as the kernel would."""
        daemon = self.daemon
        assert daemon is not None
        if daemon.session is not None:
            daemon.session.close()
        if daemon.link is not None:
            for outbox in getattr(daemon.link, "outboxes", []):
                outbox.close()
        if daemon.script is not None:
            daemon.script.close()
        if daemon.pins is not None:
            daemon.pins.close()
        daemon.lock.release()  # the kernel lets a dead process's flock go
        self.daemon = None

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.request_stop("test")
            self.daemon.shutdown()
            self.daemon = None

    @property
    def frames(self) -> list[Frame]:
        assert self.parts is not None
        display = self.parts.made["display"]
        assert isinstance(display, RecordingDisplay)
        return display.frames

    @property
    def link(self) -> FakeLink:
        assert self.parts is not None
        link = self.parts.made["link"]
        assert isinstance(link, FakeLink)
        return link

    @property
    def horn(self) -> LoopHorn:
        assert self.parts is not None
        horn = self.parts.made["horn"]
        assert isinstance(horn, LoopHorn)
        return horn
