"""pyserial's ``loop://`` as the far end of a real ``SerialLink``: what the link writes is
read back here, line by line, with the instant each line came out of the port.

A plain ``loop://`` hands the link's own lines to the link's own reader, which would count
every state document as a bad command line. The tapped port's ``read`` takes the bytes off
the loop instead, as an LED board on the cable would, and gives the link's reader nothing.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import serial
from serial.urlhandler import protocol_loop

DEADLINE = 5.0  # seconds; reached only if the link hangs


class LoopTap:
    """``opener`` for ``SerialLink``; ``lines`` are ``(instant, line)`` in arrival order,
    stamped with ``clock`` (monotonic ns) when the line's last byte was read back."""

    def __init__(self, clock: Callable[[], int] = time.monotonic_ns) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._pending = bytearray()
        self.lines: list[tuple[int, bytes]] = []
        self.ports: list[serial.SerialBase] = []

    def opener(self, url: str, **options: Any) -> serial.SerialBase:
        port = _TappedLoop(self, **options)
        port.port = "loop://"  # whatever the config said: this is the cable
        port.open()
        self.ports.append(port)
        return port

    def feed(self, data: bytes) -> None:
        at = self._clock()
        with self._arrived:
            self._pending += data
            *whole, rest = self._pending.split(b"\n")
            self._pending = bytearray(rest)
            self.lines += [(at, bytes(line)) for line in whole if line]  # blank: a reconnect
            self._arrived.notify_all()

    def docs(self) -> list[tuple[int, dict[str, Any]]]:
        with self._lock:
            return [(at, json.loads(line)) for at, line in self.lines]

    def wait_for(self, condition: Callable[[list[bytes]], bool],
                 deadline: float = DEADLINE) -> None:
        """Bounded polling on the link's writer thread: until ``condition(lines)`` holds."""
        end = time.monotonic() + deadline
        with self._arrived:
            while not condition([line for _, line in self.lines]):
                left = end - time.monotonic()
                assert left > 0, "the serial link did not write what was expected"
                self._arrived.wait(left)


class _TappedLoop(protocol_loop.Serial):  # type: ignore[misc]  # pyserial has no hints
    def __init__(self, tap: LoopTap, **options: Any) -> None:
        self._tap = tap
        super().__init__(None, **options)

    def read(self, size: int = 1) -> bytes:
        data: bytes = super().read(max(size, self.in_waiting))  # waits up to the timeout
        if data:
            self._tap.feed(data)
        return b""
