"""``scoreboard wiring``: the technician's test of the console before the first game.

It opens what the daemon would open, from the same config (the pin map of ``[console]``, the
pin factory of ``[gpio]``, the key map of ``[keypad]``, the horn's ``audio``), and shows
every input as it comes: each GPIO edge with its button, BCM and header pin and the pin
driver's own edge time; each key of a USB keypad with its device, the kernel's key name and
what the key map makes of it. Edges are shown raw, before the game's debounce: contact
chatter is exactly what a technician is looking for, so an edge closer to the last one than
the debounce window is marked as such. On request it switches the horn relay (for a moment,
or on and off) and sounds the audio horn.

It never runs beside the daemon: it takes the daemon's own lock on the state folder
(firmware_py/statelock.py) before opening a pin, so it refuses while the service runs, and
the service refuses to start while it runs (both name the other's pid). The relay is off at
start (opened at its inactive level, as the daemon opens it) and off again on ``q``, on
Ctrl-C, SIGTERM or SIGHUP (an SSH session dropped) and on end of input.

Times are monotonic: an edge's instant is the pin driver's (or the kernel's) stamp, shown
in ms since the test started; relay and audio lines show the instant they were switched.
Commands are lines on standard input, so it needs no display and works the same over SSH
and from a test's pipe.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from types import FrameType
from typing import Any, TextIO

from arena.core.units import NS_PER_MS, NS_PER_S
from display.audiohorn import AudioHorn
from display.audiostatus import AudioStatus
from firmware_py.operatorview import audio_line
from hardware.buttons import ButtonPanel, ButtonSpec
from hardware.console import ConsoleConfig, HornAudio
from hardware.horn import HornRelay
from hardware.keypad import EvdevKeys, KeyEdge
from hardware.pins import HEADER_PINS

log = logging.getLogger(__name__)

DEFAULT_ON_S = Decimal(1)  # `h` and `a` without a length: one second, as a short blast
MAX_ON_S = Decimal(10)  # the HORN button's own limit: a test never sounds longer
RESCAN_NS = NS_PER_S  # a keypad plugged in during the test is found within this
HELP = ("commands (then Enter): h [S] = horn relay on for S s (default 1, at most 10); "
        "t = horn relay on/off; a [S] = audio horn for S s; ? = this list; q = quit")
MOCK_HELP = ("mock pins: press NAME, release NAME, tap NAME drive a button's pin as its "
             "button would")

Clock = Callable[[], int]


def header(bcm: int) -> str:
    """``GPIO17 (pin 11)``: the BCM number and the header pin it is on."""
    pin = HEADER_PINS.get(bcm)
    return f"GPIO{bcm} (pin {pin})" if pin is not None else f"GPIO{bcm}"


def pin_map(console: ConsoleConfig) -> list[str]:
    """The config's pin map as the technician wires it: every button, the relay."""
    width = max((len(b.name) for b in console.buttons), default=6)
    lines = ["buttons (pull up: between the pin and ground, a press reads low; pull down: "
             "between the pin and 3.3 V):"]
    for b in console.buttons:
        gesture = f"hold {console.hold_ns / NS_PER_S:g} s" if b.hold else "press"
        lines.append(f"  {b.name:<{width}}  {header(b.pin):<16}  pull {b.pull:<4}  "
                     f"{b.action} ({gesture})")
    if not console.buttons:
        lines.append("  (none: every button is disabled in [console.buttons])")
    level = "high" if console.horn_active_high else "low"
    lines.append(f"horn relay: {header(console.horn_pin)}, active {level} (the relay is on "
                 f"while the pin is {level}; off at start and at the end)")
    return lines


def audio_text(status: AudioStatus) -> str:
    """The operator view's line without its "audio horn: " (``on (alsa)``, ``OFF, no sound
    card yet, retrying``)."""
    return str(audio_line(status, "en")["text"]).removeprefix("audio horn: ")


@dataclass(frozen=True, slots=True)
class Edge:
    """One input edge to show: ``source`` names it, ``at`` is its own stamp (monotonic ns)."""

    at: int
    source: str
    pressed: bool
    note: str = ""


@dataclass(slots=True)
class _Seen:
    """One input's last edges, for the notes on the next."""

    last_at: int | None = None
    pressed_at: int | None = None
    presses: int = 0


class WiringTest:
    """The pins, the relay, the keypads and the audio horn of one config, and what has been
    seen on them. The loop (``run``) feeds it; a test calls ``drain``, ``command`` and
    ``due`` itself, on its own clock."""

    def __init__(self, console: ConsoleConfig, pins: Any, *, out: TextIO, clock: Clock,
                 keys: EvdevKeys | None = None, audio: AudioHorn | None = None,
                 mock: bool = False) -> None:
        """``pins``: gpiozero's pin factory; ``mock``: it is MockFactory, whose pins the
        ``press``/``release``/``tap`` commands drive (a dry run on a PC)."""
        self.console = console
        self.out = out
        self.clock = clock
        self.keys = keys
        self.audio = audio
        self.mock = mock
        self._factory = pins
        self.start = clock()
        # The relay first: it is opened at its inactive level, so a relay a crashed board
        # left on goes off before anything else happens.
        try:
            self.relay = HornRelay(console.horn_pin, active_high=console.horn_active_high,
                                   pin_factory=pins)
        except Exception as err:
            err.add_note(f"opening GPIO{console.horn_pin} for the horn relay")
            raise
        try:
            self.panel = ButtonPanel(list(console.buttons), pins)
        except Exception:
            self.relay.close()
            raise
        self._specs = {b.name: b for b in console.buttons}
        self._seen: dict[str, _Seen] = {}
        self._keys_found: set[str] = set()
        self._key_edges: list[KeyEdge] = []
        self.relay_off_at: int | None = None  # the relay goes off then (None: not timed)
        self.audio_off_at: int | None = None
        self.done = False
        if keys is not None:
            keys.watch = self._key_edges.append

    # ------------------------------------------------------------------ what it shows

    def say(self, at: int, source: str, what: str) -> None:
        ms = (at - self.start) / NS_PER_MS
        self.out.write(f"{ms:>10.3f} ms  {source:<32}  {what}\n")
        self.out.flush()

    def greet(self, pins_name: str, keypad: str) -> None:
        """The pin map, what else is open, the commands, and the buttons as they read now."""
        for line in pin_map(self.console):
            self.out.write(line + "\n")
        audio = ("off ([console.horn] audio = false)" if self.audio is None
                 else audio_text(self.audio.status()))
        self.out.write(f"audio horn: {audio}\n")
        self.out.write(f"keypad: {keypad}\n")
        self.out.write(f"pins: {pins_name}\n")
        self.out.write(HELP + "\n")
        if self.mock:
            self.out.write(MOCK_HELP + "\n")
        now = self.clock()
        for name, pressed in self.panel.pressed().items():
            if pressed:
                spec = self._specs[name]
                self.say(now, self._gpio(spec), "reads PRESSED with nobody on it: stuck, "
                         "shorted, or wired to the other side of its pull")
        self.say(now, "wiring test", "ready: press each button, each key")

    @staticmethod
    def _gpio(spec: ButtonSpec) -> str:
        return f"{header(spec.pin)} {spec.name}"

    def _edge(self, edge: Edge) -> None:
        seen = self._seen.setdefault(edge.source, _Seen())
        notes = [edge.note] if edge.note else []
        if edge.pressed:
            seen.presses += 1
            seen.pressed_at = edge.at
        elif seen.pressed_at is not None:
            notes.append(f"held {(edge.at - seen.pressed_at) / NS_PER_MS:.1f} ms")
            seen.pressed_at = None
        if seen.last_at is not None and edge.at - seen.last_at < self.console.debounce_ns:
            notes.append(f"{(edge.at - seen.last_at) / NS_PER_MS:.1f} ms after its last "
                         f"edge: chatter (the game counts edges within "
                         f"{self.console.debounce_ns / NS_PER_MS:g} ms as one)")
        seen.last_at = edge.at
        self.say(edge.at, edge.source,
                 "  ".join(["pressed" if edge.pressed else "released", *notes]))

    # ------------------------------------------------------------------ inputs

    def drain(self, now: int) -> None:
        """Every edge since the last call, GPIO and keypad, in the order they happened;
        ``now`` times the keypad's rescans (a keypad plugged in later)."""
        edges: list[Edge] = []
        while not self.panel.edges.empty():
            name, at, active = self.panel.edges.get_nowait()
            edges.append(Edge(at, self._gpio(self._specs[name]), active))
        if self.keys is not None:
            self.keys.poll(now)
            found = set(self.keys.devices)
            for path in sorted(found - self._keys_found):
                self.say(now, f"keypad {path}", "found")
            for path in sorted(self._keys_found - found):
                self.say(now, f"keypad {path}", "lost (unplugged?)")
            self._keys_found = found
            key_edges, self._key_edges[:] = list(self._key_edges), []
            for k in key_edges:
                target = (f"-> {k.target}" if k.target is not None
                          else "(not in the key map)") if k.pressed else ""
                edges.append(Edge(k.at, f"keypad {k.device} {k.key}", k.pressed, target))
        for edge in sorted(edges, key=lambda e: e.at):
            self._edge(edge)

    def unpressed(self) -> list[str]:
        """The buttons no press was seen on."""
        return [b.name for b in self.console.buttons
                if self._seen.get(self._gpio(b), _Seen()).presses == 0]

    # ------------------------------------------------------------------ outputs

    def _relay_source(self) -> str:
        return f"horn relay {header(self.relay.pin)}"

    def _relay(self, on: bool, now: int, until: int | None = None) -> None:
        self.relay.set(on)
        self.relay_off_at = until
        level = "high" if on == self.console.horn_active_high else "low"
        how = f" for {(until - now) / NS_PER_S:g} s" if until is not None else ""
        self.say(now, self._relay_source(), f"{'ON ' if on else 'off'} (pin {level}){how}")

    def _audio(self, on: bool, now: int, until: int | None = None) -> None:
        if self.audio is None:
            self.say(now, "audio horn", "off in the config ([console.horn] audio = false)")
            return
        self.audio.set(on)
        self.audio_off_at = until
        how = f" for {(until - now) / NS_PER_S:g} s" if until is not None else ""
        self.say(now, "audio horn", f"{'ON ' if on else 'off'}{how}; "
                 f"{audio_text(self.audio.status())}")

    def due(self, now: int) -> None:
        """Switch off what was switched on for a while, once its time is up."""
        if self.relay_off_at is not None and now >= self.relay_off_at:
            self._relay(False, now)
        if self.audio_off_at is not None and now >= self.audio_off_at:
            self._audio(False, now)

    def next_deadline(self) -> int | None:
        due = [t for t in (self.relay_off_at, self.audio_off_at) if t is not None]
        return min(due, default=None)

    # ------------------------------------------------------------------ commands

    def command(self, line: str, now: int) -> None:
        """One line typed by the technician (``HELP``)."""
        words = line.split()
        if not words:
            return
        verb, rest = words[0], words[1:]
        try:
            if verb == "q" and not rest:
                self.done = True
            elif verb in ("?", "help") and not rest:
                self.out.write(HELP + "\n" + (MOCK_HELP + "\n" if self.mock else ""))
            elif verb == "h" and len(rest) <= 1:
                self._relay(True, now, now + self._length(rest))
            elif verb == "t" and not rest:
                self._relay(not self.relay.is_on, now)
            elif verb == "a" and len(rest) <= 1:
                self._audio(True, now, now + self._length(rest))
            elif verb in ("press", "release", "tap") and len(rest) == 1:
                self._drive(verb, rest[0], now)
            else:
                raise ValueError(f"unknown command {line.strip()!r} (? lists them)")
        except ValueError as err:
            self.say(now, "wiring test", str(err))

    @staticmethod
    def _length(rest: list[str]) -> int:
        if not rest:
            return int(DEFAULT_ON_S * NS_PER_S)
        try:
            seconds = Decimal(rest[0])
        except InvalidOperation:
            seconds = Decimal(-1)
        if not seconds.is_finite() or not 0 < seconds <= MAX_ON_S:
            raise ValueError(f"{rest[0]!r}: give seconds above 0 and at most {MAX_ON_S}")
        return int(seconds * NS_PER_S)

    def _drive(self, verb: str, name: str, now: int) -> None:
        if not self.mock:
            raise ValueError(f"{verb} drives mock pins only: on real pins press the button")
        spec = self._specs.get(name)
        if spec is None:
            raise ValueError(f"no button {name!r} (one of {', '.join(self._specs)})")
        pin = self._factory.pin(spec.pin)
        # What the button does to its pin: pull up, a press connects it to ground.
        down, up = ((pin.drive_low, pin.drive_high) if spec.pull == "up"
                    else (pin.drive_high, pin.drive_low))
        if verb in ("press", "tap"):
            down()
        if verb in ("release", "tap"):
            up()

    # ------------------------------------------------------------------ the loop

    def run(self, stdin: int) -> None:
        """Until ``q``, the end of input or a stop signal: wait for a line, an edge, a key
        or the next switch-off, and act on each at once."""
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)

        def wake() -> None:
            # From the GPIO thread, or a signal handler: a byte ends the wait.
            with contextlib.suppress(BlockingIOError):  # full: it is awake anyway
                os.write(wake_w, b".")

        stopped: list[str] = []

        def stop(signum: int, frame: FrameType | None) -> None:
            stopped.append(signal.Signals(signum).name)
            wake()

        self.panel.on_edge = wake
        buffer = b""
        try:
            with _signals(stop):
                while not self.done:
                    now = self.clock()
                    self.due(now)
                    self.drain(now)
                    if stopped:
                        self.say(now, "wiring test", f"{stopped[0]}: stopping")
                        break
                    fds = [stdin, wake_r, *(self.keys.descriptors() if self.keys else [])]
                    select.select(fds, [], [], self._timeout(now))
                    with contextlib.suppress(BlockingIOError):
                        while os.read(wake_r, 4096):
                            pass
                    chunk = _read_ready(stdin)
                    if chunk is None:
                        continue
                    if chunk == b"":
                        self.say(self.clock(), "wiring test", "end of input: stopping")
                        break
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        now = self.clock()
                        self.command(line.decode("utf-8", "replace"), now)
                        self.drain(now)  # a mock press's edges before the next line
                        if self.finished():
                            break
                self.drain(self.clock())
        finally:
            self.panel.on_edge = None
            os.close(wake_r)
            os.close(wake_w)

    def finished(self) -> bool:
        """``q`` was typed."""
        return self.done

    def _timeout(self, now: int) -> float:
        """Seconds until something is due without a new input: the next switch-off, the
        keypads' rescan."""
        due = [RESCAN_NS] if self.keys is not None else []
        deadline = self.next_deadline()
        if deadline is not None:
            due.append(max(0, deadline - now))
        return min(due) / NS_PER_S if due else 3600.0

    def close(self) -> None:
        """The relay off and released first, then everything else. Idempotent."""
        self.relay.close()
        if self.audio is not None:
            self.audio.close()
        self.panel.close()
        if self.keys is not None:
            self.keys.close()

    def farewell(self) -> None:
        missing = self.unpressed()
        now = self.clock()
        self.say(now, self._relay_source(), "off, released")
        if missing:
            self.say(now, "wiring test", f"no press seen on: {', '.join(missing)}")
        elif self.console.buttons:
            self.say(now, "wiring test", "a press seen on every button")


def _read_ready(fd: int) -> bytes | None:
    """What standard input has now (b"": its end), or None if it has nothing yet."""
    ready, _, _ = select.select([fd], [], [], 0)
    if not ready:
        return None
    try:
        return os.read(fd, 4096)
    except BlockingIOError:
        return None


@contextlib.contextmanager
def _signals(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP end the test in order (the relay off), not mid-switch."""
    names = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {sig: signal.signal(sig, handler) for sig in names}
    try:
        yield
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)


def audio_for(console: ConsoleConfig) -> AudioHorn | None:
    """The audio horn as the daemon has it: none if the config says ``audio = false``,
    otherwise opened in the background (the test never waits for a sound card)."""
    if console.horn_audio is HornAudio.OFF:
        return None
    audio = AudioHorn(required=console.horn_audio is HornAudio.ON)
    audio.open_in_background()
    return audio


def stderr_logging() -> None:
    """The parts' own log lines (a keypad not opened for want of permission, the audio
    output) on standard error, as key=value lines: the test's own lines are on stdout.
    Where logging is set up already (a caller of ``main``, pytest) it is left alone."""
    from firmware_py.logfmt import KeyValueFormatter  # noqa: PLC0415

    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(KeyValueFormatter())
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def keypad_text(keys: EvdevKeys | None, layout: str, grab: bool) -> str:
    if keys is None:
        return "not read ([keypad] evdev = false, or not Linux)"
    grabbed = "grabbed: its keys reach only this test" if grab else "not grabbed"
    return (f"USB keypads through evdev, layout {layout} ({grabbed}); each shows up as "
            "'found' when opened")


def run_wiring(console: ConsoleConfig, pins: Any, pins_name: str, *, keys: EvdevKeys | None,
              keypad: str, audio: AudioHorn | None, stdin: int, out: TextIO,
              clock: Clock) -> None:
    """Open the relay and the buttons on ``pins``, greet, run until told to stop, and
    close (the relay off) whatever happens; a pin that does not open raises, naming it."""
    try:
        test = WiringTest(console, pins, out=out, clock=clock, keys=keys, audio=audio,
                          mock=pins_name == "mock")
    except Exception:
        if audio is not None:
            audio.close()
        if keys is not None:
            keys.close()
        raise
    try:
        test.greet(pins_name, keypad)
        test.run(stdin)
    finally:
        test.close()
    test.farewell()
