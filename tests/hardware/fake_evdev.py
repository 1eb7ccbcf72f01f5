"""A fake of what hardware/keypad.py uses of python-evdev: input devices that can be plugged,
typed on at chosen kernel instants, and unplugged, on a "bus" the reader lists and opens.

Each fake device holds a real pipe, so ``EvdevKeys.pending`` selects on a real descriptor:
a queued event makes it readable, as the kernel's evdev node would be.
"""

from __future__ import annotations

import errno
import os
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hardware.keymap import EV_KEY, KEY_CODES

EV_SYN = 0
NUMPAD_CODES = [code for name, code in KEY_CODES.items()
                if name.startswith("KEY_KP") or name == "KEY_NUMLOCK"]
MOUSE_CODES = [0x110, 0x111, 0x112]  # BTN_LEFT, BTN_RIGHT, BTN_MIDDLE


@dataclass(frozen=True, slots=True)
class Event:
    sec: int
    usec: int
    type: int
    code: int
    value: int


class FakeDevice:
    def __init__(self, codes: Iterable[int] = NUMPAD_CODES, *, clock_ok: bool = True) -> None:
        self.codes = list(codes)
        self.clock_ok = clock_ok  # EVIOCSCLOCKID accepted
        self.clock_set = False
        self.grabbed = False
        self.unplugged = False
        self.closed = False
        self.reads = 0
        self._queue: deque[Event] = deque()
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)

    def key(self, name: str, at_ns: int, value: int = 1) -> None:
        """The kernel stamps a key event at ``at_ns`` (its clock, µs resolution)."""
        sec, rest = divmod(at_ns, 1_000_000_000)
        self._queue.append(Event(sec, rest // 1000, EV_KEY, KEY_CODES[name], value))
        self._queue.append(Event(sec, rest // 1000, EV_SYN, 0, 0))
        os.write(self._w, b"k")

    def push(self, event: Event) -> None:
        self._queue.append(event)
        os.write(self._w, b"e")

    def tap(self, name: str, down_ns: int, up_ns: int) -> None:
        self.key(name, down_ns, 1)
        self.key(name, up_ns, 0)

    def unplug(self) -> None:
        self.unplugged = True
        self._queue.clear()  # what the kernel still held for us is gone with the device
        os.write(self._w, b"x")  # a vanished node reads as ready (then fails)

    # ---------------------------------------------------------------- InputDevice

    def fileno(self) -> int:
        return self._r

    def read(self) -> list[Event]:
        self.reads += 1
        if self.unplugged:
            raise OSError(errno.ENODEV, "No such device")
        if not self._queue:
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        while True:
            try:
                os.read(self._r, 4096)
            except BlockingIOError:
                break
        events = list(self._queue)
        self._queue.clear()
        return events

    def capabilities(self) -> Mapping[int, Sequence[Any]]:
        return {EV_SYN: [0], EV_KEY: self.codes}

    def grab(self) -> None:
        self.grabbed = True

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self._r)
            os.close(self._w)


class FakeBus:
    """/dev/input: paths and the devices plugged in at them."""

    def __init__(self) -> None:
        self.plugged: dict[str, FakeDevice] = {}
        self.opened: list[str] = []

    def plug(self, path: str, device: FakeDevice | None = None) -> FakeDevice:
        self.plugged[path] = device or FakeDevice()
        return self.plugged[path]

    def unplug(self, path: str) -> None:
        self.plugged.pop(path).unplug()

    def paths(self) -> list[str]:
        return sorted(self.plugged)

    def open(self, path: str) -> FakeDevice:
        if path not in self.plugged:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        self.opened.append(path)
        return self.plugged[path]

    def set_clock(self, device: Any) -> None:
        assert isinstance(device, FakeDevice)
        if not device.clock_ok:
            raise OSError(errno.EINVAL, "Invalid argument")
        device.clock_set = True

    def close(self) -> None:
        for device in self.plugged.values():
            device.close()
