"""The parts a scoreboard is made of, as the daemon sees them, and the real ones.

``Daemon`` (firmware_py/daemon.py) takes a ``Parts``: a factory of the console, the horn, the
display and keyboard, the USB keypad read through evdev, the serial link and the office link,
each made when the daemon starts and from what it knows by then (the pins, the preset's
penalty kinds, the timeline). The protocols below are all the daemon uses of each.
``HallParts`` makes the real ones, as in a hall; a test passes its own
(tests/daemon/inprocess.py), in the way gpiozero's devices take an injected pin factory.
Third-party libraries load only when a part is made, each inside its own package (gpiozero,
pyserial and evdev in hardware/, pygame in display/, paho in firmware_py/mqtt.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from arena.core.commands import Command
from arena.core.entry import Lapse, PickMatch, ScheduledChoice
from arena.core.match import Match
from arena.timesource import TimeSource
from display.audiostatus import AudioStatus
from firmware_py.config import Config, SerialConfig
from firmware_py.linkconfig import LinkConfig
from firmware_py.outbox import Outbox
from firmware_py.sdnotify import Notifier
from firmware_py.timeline import Timeline
from hardware.keymap import DeviceChange, KeyInput, KeypadConfig


class Relay(Protocol):
    pin: int

    def close(self) -> None: ...


class Console(Protocol):
    def button(self, action: str, at: int, active: bool) -> bool: ...
    def key(self, name: str, at: int) -> None: ...
    def pending(self) -> bool: ...
    def on_edge(self, wake: Callable[[], None]) -> None:
        """``wake()`` is called from the input's thread after each pin edge is queued."""
    def next_deadline(self) -> int | None: ...
    def drain(self, now: int, match: Match,
              submit: Callable[[Command | PickMatch], object]) -> None: ...
    def offer_schedule(self, choices: tuple[ScheduledChoice, ...],
                       teams: tuple[str, ...]) -> None: ...
    def entry(self) -> dict[str, Any] | None: ...
    def lapse(self) -> Lapse | None: ...
    def lapsed(self) -> Lapse | None: ...
    def new_match(self, penalty_kinds: list[str], forfeit_goals: int = 5) -> None: ...
    def close(self) -> None: ...


class Horn(Protocol):
    """Switches the horn's outputs (the relay, the audio output) at the core's instants."""

    def start(self) -> None: ...

    def poke(self) -> None:
        """The match changed: look again now."""

    def next_change(self, now: int) -> int | None:
        """When the loop must wake for the horn (None: the horn keeps its own time)."""

    def stop(self) -> None:
        """No more switching; every output off (the relay stays open: the daemon closes it)."""

    def audio(self) -> AudioStatus:
        """The audio output's status for the timekeeper (on, retrying, off by config)."""


class Display(Protocol):
    @property
    def size(self) -> tuple[int, int]: ...

    def draw(self, doc: Mapping[str, Any], *, between: Mapping[str, Any] | None = None,
             status: Mapping[str, Any] | None = None, options: Any = None) -> list[Any]: ...
    def present(self, dirty: list[Any]) -> None: ...
    def close(self) -> None: ...


class OperatorWindow(Protocol):
    """The timekeeper's own window (windowed mode): draws the operator view's document."""

    def draw(self, view: Mapping[str, Any]) -> None: ...
    def close(self) -> None: ...


class Keyboard(Protocol):
    def poll(self) -> list[Any]: ...
    def pending(self) -> bool: ...


class KeySource(Protocol):
    """USB keypads and keyboards read headless (hardware/keypad.py): every item carries the
    kernel's edge time (monotonic ns), as a GPIO edge does."""

    def poll(self, now: int) -> list[KeyInput]:
        """The keys since the last call; ``now`` (monotonic ns) paces the rescans."""
    def changes(self) -> list[DeviceChange]:
        """The keypads lost and found since the last call (the timekeeper is told)."""
    def pending(self) -> bool: ...
    def watching(self) -> bool:
        """A device is open: the loop looks at it every few ms (it cannot wake the loop)."""
    def close(self) -> None: ...


class NoKeys:
    """A ``KeySource`` with no keypad: for runs that must not read this machine's input
    devices (a benchmark, a test's hall)."""

    def poll(self, now: int) -> list[KeyInput]:
        return []

    def changes(self) -> list[DeviceChange]:
        return []

    def pending(self) -> bool:
        return False

    def watching(self) -> bool:
        return False

    def close(self) -> None:
        pass


class SerialPort(Protocol):
    def start(self) -> None: ...
    def send_state(self, doc: dict[str, Any]) -> None: ...
    def drain(self) -> list[Command]: ...
    def close(self) -> None: ...


class OfficeLink(Protocol):
    @property
    def outbox(self) -> Outbox | None: ...
    @property
    def unacked(self) -> int: ...
    @property
    def connected(self) -> bool: ...
    @property
    def problem(self) -> str | None:
        """The latest thing the office sent that the hall could not take (a refused
        ``next``, a key of one left out), or None: the timekeeper is told (the daemon)."""
    @property
    def cannot_store_since(self) -> str | None:
        """Since when the office cannot store (its ``acks`` say so), or None: the operator
        view says the hall's results are kept at the office and retried."""
    @property
    def refused(self) -> Mapping[str, str]:
        """Match -> the hall playing it, for this hall's matches whose events the office
        refuses (its ``acks`` say so): the operator view names each."""

    def start(self) -> None: ...
    def add_outbox(self, outbox: Outbox) -> None: ...
    def pump(self) -> None: ...
    def publish_state(self, doc: dict[str, Any]) -> None: ...
    def close(self) -> None: ...


OnNext = Callable[[dict[str, Any]], None]
OnStandings = Callable[[str, dict[str, Any] | None], None]


class Parts(Protocol):
    def pins(self, name: str) -> Any: ...
    def relay(self, config: Config, pins: Any) -> Relay: ...
    def switch_off(self, relay: Relay) -> None:
        """Drive the relay off from a signal handler or an error path; never raises."""
    def console(self, config: Config, pins: Any, penalty_kinds: list[str],
                ticks_to_ns: Callable[[float], int]) -> Console: ...
    def horn(self, config: Config, relay: Relay, timeline: Timeline, time: TimeSource,
             current: Callable[[], Match]) -> Horn: ...
    def display(self, mode: str, size: tuple[int, int],
                keys: KeypadConfig) -> tuple[Display, Keyboard]: ...
    def keys(self, config: Config, clock: TimeSource) -> KeySource: ...
    def operator_window(self, mode: str) -> OperatorWindow | None:
        """The second window, in windowed mode only (after ``display``); else None."""
    def serial(self, config: SerialConfig, clock: Callable[[], int],
               on_input: Callable[[], None]) -> SerialPort: ...
    def link(self, config: LinkConfig, on_next: OnNext,
             on_standings: OnStandings) -> OfficeLink: ...
    def notifier(self) -> Notifier: ...
    def snapshot(self, doc: dict[str, Any], size: tuple[int, int], path: Any,
                 **extra: Any) -> None: ...


class HallParts:
    """The real parts: gpiozero pins and relay, the GPIO console, the horn's deadline
    thread (the relay and the audio output), the pygame display, evdev keypads, pyserial,
    paho, systemd's notify socket."""

    def pins(self, name: str) -> Any:
        from hardware import pins  # noqa: PLC0415

        return pins.factory(name)

    def relay(self, config: Config, pins: Any) -> Relay:
        from hardware.horn import HornRelay  # noqa: PLC0415

        return HornRelay(config.console.horn_pin, active_high=config.console.horn_active_high,
                         pin_factory=pins)

    def switch_off(self, relay: Relay) -> None:
        from hardware.horn import HornRelay, switch_off  # noqa: PLC0415

        assert isinstance(relay, HornRelay)
        switch_off(relay)

    def console(self, config: Config, pins: Any, penalty_kinds: list[str],
                ticks_to_ns: Callable[[float], int]) -> Console:
        from hardware.console import Console as GpioConsole  # noqa: PLC0415

        return GpioConsole(config.console, pins, penalty_kinds, ticks_to_ns=ticks_to_ns)

    def horn(self, config: Config, relay: Relay, timeline: Timeline, time: TimeSource,
             current: Callable[[], Match]) -> Horn:
        from arena.timesource import make_realtime  # noqa: PLC0415
        from firmware_py.hornthread import HornThread  # noqa: PLC0415
        from hardware.console import HornAudio  # noqa: PLC0415
        from hardware.horn import HornDriver, HornOutput, HornRelay  # noqa: PLC0415

        assert isinstance(relay, HornRelay)
        outputs: list[HornOutput] = [relay]
        closing: list[Callable[[], None]] = []
        if config.console.horn_audio is HornAudio.OFF:
            return HornThread(HornDriver(outputs, timeline.now), timeline, current, time)
        from display.audiohorn import AudioHorn  # noqa: PLC0415

        audio = AudioHorn(required=config.console.horn_audio is HornAudio.ON)
        # The daemon never waits for an audio device; SDL's audio thread gets the horn
        # thread's scheduling (SCHED_FIFO where allowed) from the thread that opens it.
        # The thread keeps trying until a sound card is there (it may come after the
        # board at boot, or be plugged in later).
        audio.open_in_background(prepare=make_realtime)
        outputs.append(audio)
        closing.append(audio.close)
        return HornThread(HornDriver(outputs, timeline.now), timeline, current, time,
                          closing=closing, audio=audio.status)

    def display(self, mode: str, size: tuple[int, int],
                keys: KeypadConfig) -> tuple[Display, Keyboard]:
        import os  # noqa: PLC0415

        from display.keyboard import Keyboard as KeyMap  # noqa: PLC0415
        from display.screen import Display as Screen  # noqa: PLC0415
        from firmware_py.runconfig import sdl_environment  # noqa: PLC0415

        for key, value in sdl_environment(mode, os.environ).items():
            os.environ.setdefault(key, value)
        screen = Screen(mode, size)  # type: ignore[arg-type]
        return screen, KeyMap(keys.display_keymap(mode))

    def keys(self, config: Config, clock: TimeSource) -> KeySource:
        from arena.timesource import realtime_ns  # noqa: PLC0415
        from hardware.keypad import EvdevKeys  # noqa: PLC0415

        return EvdevKeys(config.keypad, monotonic=clock.monotonic_ns,
                         realtime=realtime_ns)

    def operator_window(self, mode: str) -> OperatorWindow | None:
        if mode != "windowed":
            return None
        from display.operatorwindow import OperatorWindow as Window  # noqa: PLC0415

        return Window()

    def serial(self, config: SerialConfig, clock: Callable[[], int],
               on_input: Callable[[], None]) -> SerialPort:
        from hardware.serial_link import SerialLink  # noqa: PLC0415

        return SerialLink(config.url, config.baud, clock=clock, on_input=on_input)

    def link(self, config: LinkConfig, on_next: OnNext, on_standings: OnStandings
             ) -> OfficeLink:
        from firmware_py.mqtt import HallLink  # noqa: PLC0415

        return HallLink(config.broker.host, config.broker.port, config.tournament,
                        config.hall, username=config.username, password=config.password,
                        tls=config.tls, on_next=on_next, on_standings=on_standings)

    def notifier(self) -> Notifier:
        return Notifier()

    def snapshot(self, doc: dict[str, Any], size: tuple[int, int], path: Any,
                 **extra: Any) -> None:
        from display.snapshot import snapshot  # noqa: PLC0415

        snapshot(doc, size, path, **extra)
