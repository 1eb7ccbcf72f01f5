"""USB keypads and keyboards through the kernel's evdev interface, headless, with each key's
edge time as the kernel stamped it.

``EvdevKeys.poll(now)`` returns the mapped keys (the one key map, arena/keys.py, as the
config gives it: hardware/keymap.py) since the last call: ``ButtonEdge`` for keys that are
console actions (press and release), ``KeypadKey`` for digits and entry keys (press only);
a key pressed while a Shift key of the same device is held reads as ``Shift+`` the key, as
in the window; autorepeat is ignored, and when the kernel says it dropped events
(SYN_DROPPED) every held key is released at that instant. No thread: the
daemon's loop calls ``poll`` and asks ``pending`` (a zero-timeout select) between naps.

**Edge time.** Each device's clock is switched to CLOCK_MONOTONIC (the EVIOCSCLOCKID
ioctl), so an event's stamp *is* the monotonic instant of the press, on the clock of
``TimeSource.monotonic_ns``: it is handed on unchanged, as a GPIO edge is. Where the ioctl
fails (an old kernel) the stamps are CLOCK_REALTIME and are mapped with the offset between
the two clocks, measured at each poll, and that is logged once. A wall-clock step (NTP, a
technician's ``date``) between the kernel's stamp and the poll would move that press by the
whole step, an hour into the past or the future of the game: a mapped stamp is therefore
kept between the previous poll and this one, the only span in which it can have been made.

**Hot-plug.** A read error (ENODEV: unplugged) closes that device and logs it once; a key
held on it gets a release at ``now``, so the horn never sticks on. Keys pressed on a vanished
device are gone, nothing half-applied. At most once a second (on the caller's ``now``) the
device folder is listed again and new devices with mapped keys are opened, so a replugged
keypad works again without a restart. Each loss and each find is also handed to the caller
(``changes``): the timekeeper is told on the table, not only in the log.

**Watching.** ``watch`` (set by `scoreboard wiring`) is told every key edge of every open
device, mapped or not, with the device it came from and the kernel's name of the key: the
technician sees which keypad and which key, at the same instant the game would use.

python-evdev is imported only here, and only by the real lister and opener; a test injects
its own (``list_paths``, ``open_device``, ``set_clock``) with fake devices.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import logging
import select
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.core.units import NS_PER_S
from arena.keys import is_keypad_key
from hardware.keymap import (
    EV_KEY,
    SHIFT_CODES,
    ButtonEdge,
    DeviceChange,
    KeyInput,
    KeypadConfig,
    KeypadKey,
    key_name,
)

log = logging.getLogger(__name__)

RESCAN_NS = NS_PER_S  # new devices are looked for at most once a second
DEVICE_DIR = "/dev/input"
CLOCK_MONOTONIC = 1  # linux/time.h
# _IOW('E', 0xa0, int): direction write (1) << 30 | size 4 << 16 | type 'E' << 8 | nr 0xa0
EVIOCSCLOCKID = (1 << 30) | (struct.calcsize("i") << 16) | (ord("E") << 8) | 0xA0
RELEASE, PRESS, REPEAT = 0, 1, 2
EV_SYN, SYN_DROPPED = 0, 3  # the kernel's buffer overflowed: events were lost


class InputEvent(Protocol):
    """What this module reads of python-evdev's ``InputEvent``."""

    sec: int
    usec: int
    type: int
    code: int
    value: int


class KeyDevice(Protocol):
    """What this module uses of python-evdev's ``InputDevice``."""

    def fileno(self) -> int: ...
    def read(self) -> Iterable[InputEvent]: ...
    def capabilities(self) -> Mapping[int, Sequence[Any]]: ...
    def grab(self) -> None: ...
    def close(self) -> None: ...


def set_monotonic_clock(device: KeyDevice) -> None:
    """Stamp this device's events with CLOCK_MONOTONIC; OSError if the kernel refuses."""
    fcntl.ioctl(device.fileno(), EVIOCSCLOCKID, struct.pack("i", CLOCK_MONOTONIC))


def list_event_devices() -> list[str]:
    from evdev import list_devices  # noqa: PLC0415

    return list(list_devices(DEVICE_DIR))


def open_event_device(path: str) -> KeyDevice:
    from evdev import InputDevice  # noqa: PLC0415

    return InputDevice(path)  # opened non-blocking by python-evdev


@dataclass(frozen=True, slots=True)
class KeyEdge:
    """A key of an open device went down or up at ``at`` (monotonic ns, the kernel's stamp):
    what ``EvdevKeys.watch`` is told. ``target``: what the key map makes of it (an action or
    a keypad key, with Shift as held on that device), None for a key the map leaves out."""

    device: str  # its path, e.g. /dev/input/event3
    key: str  # the kernel's name, e.g. KEY_KP5
    pressed: bool
    at: int
    target: str | None


@dataclass(slots=True)
class _Open:
    device: KeyDevice
    monotonic: bool  # its stamps are CLOCK_MONOTONIC (else CLOCK_REALTIME)
    path: str = ""
    held: dict[int, str] = field(default_factory=dict)  # key code -> action, while down
    shifts: set[int] = field(default_factory=set)  # the Shift keys down on this device


class EvdevKeys:
    """Every input device with a mapped key, read non-blocking."""

    def __init__(self, config: KeypadConfig, *, monotonic: Callable[[], int],
                 realtime: Callable[[], int],
                 list_paths: Callable[[], list[str]] = list_event_devices,
                 open_device: Callable[[str], KeyDevice] = open_event_device,
                 set_clock: Callable[[KeyDevice], None] = set_monotonic_clock) -> None:
        """``monotonic``/``realtime``: the clocks (ns) the realtime fallback maps between
        (the time source's monotonic clock, and the kernel's CLOCK_REALTIME)."""
        self.config = config
        self.codes = config.codes()
        self.shifted = config.codes(shift=True)
        self._monotonic = monotonic
        self._realtime = realtime
        self._list = list_paths
        self._open_device = open_device
        self._set_clock = set_clock
        self.devices: dict[str, _Open] = {}
        self._ignored: set[str] = set()  # no mapped key: not opened again while present
        self._warned: set[str] = set()  # could not be opened: said once while present
        self._next_scan: int | None = None
        self._realtime_logged = False
        self._changes: list[DeviceChange] = []
        self._polled: int | None = None  # the ``now`` of the last poll
        # Told every key edge of an open device (autorepeat aside), on the caller's thread
        # inside ``poll``: `scoreboard wiring` shows them; the daemon sets none.
        self.watch: Callable[[KeyEdge], None] | None = None

    def poll(self, now: int) -> list[KeyInput]:
        """The mapped keys since the last call, in the order they happened; ``now``
        (monotonic ns) times the rescans and the release of keys held on a lost device."""
        if self._next_scan is None or now >= self._next_scan:
            self._next_scan = now + RESCAN_NS
            self._scan(now)
        out: list[KeyInput] = []
        offset: int | None = None
        # A realtime-mapped stamp cannot be before the last poll (that one read everything
        # there was) nor after this one: the bounds a wall-clock step is held to.
        since, self._polled = (now if self._polled is None else self._polled), now
        for path, entry in list(self.devices.items()):
            try:
                events = list(entry.device.read())
            except BlockingIOError:
                continue
            except OSError as err:
                out += self._lost(path, entry, now, err)
                continue
            if not entry.monotonic and offset is None:
                offset = self._monotonic() - self._realtime()
            for event in events:
                if entry.monotonic:
                    out += self._event(entry, event, 0)
                else:
                    out += [_within(item, since, now)
                            for item in self._event(entry, event, offset or 0)]
        return sorted(out, key=lambda item: item.at)

    def changes(self) -> list[DeviceChange]:
        """The keypads lost and found since the last call, in order (then forgotten)."""
        out, self._changes = self._changes, []
        return out

    def watching(self) -> bool:
        """A device is open (``pending`` has something to look at)."""
        return bool(self.devices)

    def pending(self) -> bool:
        """An open device has something to read (or has gone: that is read as an error)."""
        if not self.devices:
            return False
        fds = [entry.device.fileno() for entry in self.devices.values()]
        try:
            ready, _, _ = select.select(fds, [], [], 0)
        except (OSError, ValueError):
            return True  # a closed descriptor: poll finds out which
        return bool(ready)

    def descriptors(self) -> list[int]:
        """The open devices' file descriptors, for a caller that waits on them (select)."""
        return [entry.device.fileno() for entry in self.devices.values()]

    def close(self) -> None:
        for entry in self.devices.values():
            _close(entry.device)
        self.devices.clear()

    # ---------------------------------------------------------------- inside

    def _event(self, entry: _Open, event: InputEvent, offset: int) -> list[KeyInput]:
        at = event.sec * NS_PER_S + event.usec * 1000 + offset
        if event.type == EV_SYN and event.code == SYN_DROPPED:
            # A release may be among the lost events: let go of every held key now rather
            # than risk a horn that never stops.
            held, entry.held = entry.held, {}
            entry.shifts.clear()  # its release may be lost too
            return [ButtonEdge(action, at, False) for action in held.values()]
        if event.type != EV_KEY or event.value == REPEAT:
            return []
        if event.code in SHIFT_CODES:
            # Shift is per device, as the kernel sends it: the keypad's keys never read as
            # shifted because a keyboard beside it has Shift down.
            if event.value == PRESS:
                entry.shifts.add(event.code)
            else:
                entry.shifts.discard(event.code)
        target = self.shifted.get(event.code) if entry.shifts else None
        target = target or self.codes.get(event.code)
        if self.watch is not None:
            self.watch(KeyEdge(entry.path, key_name(event.code), event.value == PRESS, at,
                               target))
        if target is None:
            return []
        if is_keypad_key(target):
            return [KeypadKey(target, at)] if event.value == PRESS else []
        if event.value == PRESS:
            entry.held[event.code] = target
            return [ButtonEdge(target, at, True)]
        action = entry.held.pop(event.code, None)  # a release whose press came before we did
        return [] if action is None else [ButtonEdge(action, at, False)]

    def _lost(self, path: str, entry: _Open, now: int, err: OSError) -> list[KeyInput]:
        del self.devices[path]
        _close(entry.device)
        why = "unplugged" if err.errno == errno.ENODEV else f"read error: {err}"
        log.warning("keypad lost", extra={"kv": {"device": path, "why": why,
                                                 "released": len(entry.held)}})
        self._changes.append(DeviceChange(path, False, now, why))
        # The horn (or a hold) must not stay on for a key nobody can let go of any more.
        return [ButtonEdge(action, now, False) for action in entry.held.values()]

    def _scan(self, now: int) -> None:
        try:
            paths = self._list()
        except (OSError, ImportError) as err:  # ImportError: python-evdev not installed
            if "list" not in self._warned:
                self._warned.add("list")
                log.warning("input devices not listed", extra={"kv": {"error": str(err)}})
            return
        present = set(paths)
        self._ignored &= present
        self._warned &= present | {"list"}
        for path in paths:
            if path not in self.devices and path not in self._ignored:
                self._try_open(path, now)

    def _try_open(self, path: str, now: int) -> None:
        try:
            device = self._open_device(path)
        except OSError as err:
            # Often a permission not yet given (udev sets the group just after the node
            # appears): tried again at the next scan, said once.
            if path not in self._warned:
                self._warned.add(path)
                log.warning("input device not opened", extra={"kv": {"device": path,
                                                                     "error": str(err)}})
            return
        keys = set(device.capabilities().get(EV_KEY, ()))
        if not keys & (self.codes.keys() | self.shifted.keys()):
            _close(device)
            self._ignored.add(path)  # a mouse, a power button: none of our keys
            return
        try:
            self._set_clock(device)
            monotonic = True
        except OSError as err:
            monotonic = False
            if not self._realtime_logged:
                self._realtime_logged = True
                log.warning("keypad stamps are CLOCK_REALTIME (EVIOCSCLOCKID refused): "
                            "mapped to monotonic by an offset",
                            extra={"kv": {"device": path, "error": str(err)}})
        if self.config.grab:
            try:
                device.grab()
            except OSError as err:
                log.warning("keypad not grabbed (its keys also reach the console)",
                            extra={"kv": {"device": path, "error": str(err)}})
        self.devices[path] = _Open(device, monotonic, path)
        self._warned.discard(path)
        self._changes.append(DeviceChange(path, True, now))
        log.info("keypad found", extra={"kv": {"device": path, "clock":
                                               "monotonic" if monotonic else "realtime"}})


def _within(item: KeyInput, low: int, high: int) -> KeyInput:
    """``item`` with its instant held to [low, high]."""
    at = min(max(item.at, low), high)
    return item if at == item.at else dataclasses.replace(item, at=at)


def _close(device: KeyDevice) -> None:
    with contextlib.suppress(OSError):  # gone already
        device.close()
