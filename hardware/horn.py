"""The horn relay: switched to what the core says, off whenever anything goes wrong.

The core decides *when* the horn sounds and when to look again (``Match.horn_outlook``:
period, break and time-out ends over line changes over the manual button, each with its
length from the preset). This module only makes the relay follow that, and keeps it off when
the daemon is not in control:

- at start: ``HornRelay`` opens the pin already at the inactive level (no on-glitch);
- on a normal stop, on an exception and on SIGTERM (systemctl stop): the daemon's stopping
  closes the relay, its signal handler and error path call ``switch_off``;
- after a crash, from outside: ``force_off`` (``scoreboard horn-off``, the unit's
  ExecStopPost), because an output can stay latched after the process dies
  (docs/developer.md, "Dependency facts").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Protocol

from gpiozero import DigitalOutputDevice, Factory  # type: ignore[import-untyped]

from arena.core.match import Match

log = logging.getLogger(__name__)

class HornRelay:
    """One relay on one GPIO pin, off until told otherwise.

    ``active_high=False`` is for the common relay boards that switch on a low input: then the
    idle (off) level of the pin is high.

    No lock on purpose: ``off`` may be called from the SIGTERM handler, which runs on the main
    thread between two bytecodes, possibly while that same thread is inside ``set``; a lock
    would deadlock it there. Instead ``on``/``off`` always write the pin, so a stale cached
    value can never keep the horn sounding.
    """

    def __init__(
        self, pin: int, *, active_high: bool = True, pin_factory: Factory | None = None
    ) -> None:
        self.pin = pin
        self.active_high = active_high
        # initial_value=False: the pin is claimed as an output already at the inactive level,
        # so even a relay left on by a crashed process goes off the moment we start.
        self._device = DigitalOutputDevice(
            pin, active_high=active_high, initial_value=False, pin_factory=pin_factory
        )
        self._on = False

    @property
    def is_on(self) -> bool:
        """What this relay last drove (False once closed)."""
        return self._on

    @property
    def closed(self) -> bool:
        return bool(self._device.closed)

    def on(self) -> None:
        self._device.on()
        self._on = True

    def off(self) -> None:
        self._device.off()
        self._on = False

    def set(self, on: bool) -> None:
        """Switch to ``on``; touch the pin only when that is a change."""
        if on != self._on:
            if on:
                self.on()
            else:
                self.off()

    def close(self) -> None:
        """Drive off, then release the pin. Idempotent.

        Note (Pi, lgpio): gpiozero releases a closed pin as an input without pull, so after
        ``close`` the relay board's own input resistor decides the level: wire the board so
        that a floating input means off.
        """
        if self.closed:
            return
        try:
            self.off()
        finally:
            self._device.close()

    def __enter__(self) -> HornRelay:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("on" if self._on else "off")
        return f"HornRelay(pin={self.pin}, active_high={self.active_high}, {state})"


def force_off(pin: int, *, active_high: bool, pin_factory: Factory | None = None) -> None:
    """Drive the horn pin to its inactive level and release it: ``scoreboard horn-off``.

    For use from outside the daemon (after a crash another process may have left the line
    active): opening the pin as ``HornRelay`` does claims it as an output at the inactive
    level, and closing drives off once more. Raises if the line is held by a running daemon
    (lgpio: GPIO busy): stop the daemon first; ExecStopPost runs after it has exited.
    """
    HornRelay(pin, active_high=active_high, pin_factory=pin_factory).close()
    log.info("horn relay on pin %s forced off (active_high=%s)", pin, active_high)


def switch_off(relay: HornRelay) -> None:
    """Drive the relay off; log instead of raising. For the paths where raising would only
    hide the original error (an exception, a signal): nothing more can be done in-process,
    and ``scoreboard horn-off`` in ExecStopPost is the backup."""
    try:
        relay.off()
    except Exception:
        log.exception("could not switch the horn relay off (pin %s)", relay.pin)


class HornOutput(Protocol):
    """Something that sounds the horn: the relay, the audio output (display/audiohorn.py)."""

    @property
    def is_on(self) -> bool: ...

    def set(self, on: bool) -> None: ...

    def off(self) -> None: ...


class HornDriver:
    """Keeps the horn's outputs (the relay, the audio output, or both) at what the core says
    the horn does (``Match.horn_outlook``); decides nothing itself: the core knows when a
    horn starts, ends, and when to look again.

    At each instant every output is switched in the order given, one after the other: the
    relay first, as it takes microseconds; the audio output's ``set`` only tells the mixer
    (it never waits for the device)."""

    def __init__(self, outputs: Sequence[HornOutput], clock: Callable[[], int]) -> None:
        """``clock``: the monotonic instant now, on the match's timeline (the daemon's)."""
        self.outputs = tuple(outputs)
        self.clock = clock

    @property
    def relay(self) -> HornRelay | None:
        """The relay among the outputs, if any."""
        return next((o for o in self.outputs if isinstance(o, HornRelay)), None)

    @property
    def is_on(self) -> bool:
        """Whether the outputs were last set on."""
        return any(o.is_on for o in self.outputs)

    def follow(self, match: Match, now: int | None = None) -> int | None:
        """Set the outputs for ``now`` (default: the clock) and return the next instant at
        which they may have to switch (``None``: nothing is scheduled; wait for the next
        command). One question to the core, so both answers come from one state."""
        outlook = match.horn_outlook(self.clock() if now is None else now)
        self._set(outlook.on)
        return outlook.next_change

    def update(self, match: Match, now: int | None = None) -> bool:
        """Set the outputs for ``now`` (default: the clock); return whether they are on."""
        outlook = match.horn_outlook(self.clock() if now is None else now)
        self._set(outlook.on)
        return outlook.on

    def next_change(self, match: Match, now: int | None = None) -> int | None:
        """The next instant after ``now`` at which the outputs may have to switch."""
        return match.horn_outlook(self.clock() if now is None else now).next_change

    def fail_safe(self) -> None:
        """Drive every output off; never raises (logs)."""
        for output in self.outputs:
            if isinstance(output, HornRelay):
                switch_off(output)
                continue
            try:
                output.off()
            except Exception:
                log.exception("could not switch a horn output off (%r)", output)

    def _set(self, on: bool) -> None:
        for output in self.outputs:
            output.set(on)
