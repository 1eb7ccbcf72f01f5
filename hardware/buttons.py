"""The timekeeper's buttons: edges in, presses out, at the instant of the edge.

Two halves:
- ``ButtonPanel`` (I/O): gpiozero pins from an injected pin factory. Its callback runs on the
  GPIO library's thread (under MockFactory: in the thread that drives the pin) and does only
  two things: convert the driver's edge timestamp to nanoseconds and enqueue it.
- ``ButtonLogic`` (pure, no clock of its own): our own debounce on the edge timestamps (not
  gpiozero's ``bounce_time``, which means different things per backend and delays every
  event under lgpio: docs/developer.md, "Dependency facts"), the deliberate gestures (a hold of one
  second for UNDO and NEXT, decided with our clock, not gpiozero's hold thread), and the
  double-tap guard of START/STOP. It says when it next needs to be polled.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.core.units import NS_PER_S


@dataclass(frozen=True, slots=True)
class ButtonSpec:
    name: str  # e.g. "start_stop"
    pin: int  # BCM number
    pull: str  # "up": the button connects the pin to ground; "down": to 3.3 V
    action: str  # what it does (hardware/console.py maps actions to commands)
    hold: bool = False  # acts only after being held (UNDO, NEXT)


@dataclass(frozen=True, slots=True)
class Press:
    """A debounced gesture: ``kind`` is "press", "release" or "hold" (held long enough)."""

    button: str
    action: str
    kind: str
    at: int  # the edge instant (for a hold: the instant the hold completed)


@dataclass(slots=True)
class Debouncer:
    """Contact chatter counts once: after an accepted change, edges are ignored for
    ``window``; if the contact then rests in the other state, that is accepted at the time of
    its last edge (so a short tap is not lost)."""

    window: int
    pressed: bool = False
    raw: bool = False
    raw_at: int = 0
    locked_until: int | None = None

    def edge(self, at: int, active: bool) -> list[tuple[int, bool]]:
        self.raw, self.raw_at = active, at
        if self.locked_until is not None and at < self.locked_until:
            return []
        return self._accept(at) if active != self.pressed else []

    def settle(self, now: int) -> list[tuple[int, bool]]:
        if self.locked_until is None or now < self.locked_until:
            return []
        if self.raw != self.pressed:
            return self._accept(self.raw_at)
        self.locked_until = None
        return []

    def deadline(self) -> int | None:
        return self.locked_until if self.raw != self.pressed else None

    def _accept(self, at: int) -> list[tuple[int, bool]]:
        self.pressed = self.raw
        self.locked_until = at + self.window
        return [(at, self.pressed)]


@dataclass(slots=True)
class _Button:
    spec: ButtonSpec
    debounce: Debouncer
    held_since: int | None = None  # a hold button pressed, not yet acted on
    last_press: int | None = None


@dataclass
class ButtonLogic:
    specs: list[ButtonSpec]
    debounce_ns: int = 20_000_000
    hold_ns: int = NS_PER_S
    double_tap_ns: int = 300_000_000
    double_tap_actions: frozenset[str] = frozenset({"start_stop"})
    _buttons: dict[str, _Button] = field(init=False)

    def __post_init__(self) -> None:
        self._buttons = {s.name: _Button(s, Debouncer(self.debounce_ns)) for s in self.specs}

    def edge(self, name: str, at: int, active: bool) -> list[Press]:
        button = self._buttons[name]
        # What fell due on this button before this edge comes first (a rest after chatter,
        # a hold completed): edges read in one batch (a flood of keys, a loop that was
        # late) then mean what they mean read one by one. Without it a tap's release still
        # waiting to settle swallowed the next press, and a hold's release its hold.
        out = self._due(button, at)
        return out + [p for at_, on in button.debounce.edge(at, active)
                      for p in self._changed(button, at_, on)]

    def poll(self, now: int) -> list[Press]:
        out: list[Press] = []
        for button in self._buttons.values():
            out += self._due(button, now)
        return sorted(out, key=lambda p: p.at)

    def _due(self, button: _Button, now: int) -> list[Press]:
        out: list[Press] = []
        for at, on in button.debounce.settle(now):
            out += self._changed(button, at, on)
        if button.held_since is not None and now >= button.held_since + self.hold_ns:
            at = button.held_since + self.hold_ns
            button.held_since = None
            out.append(Press(button.spec.name, button.spec.action, "hold", at))
        return out

    def next_deadline(self) -> int | None:
        # One pass, no lists: the loop asks twice a frame, and nearly every button is idle.
        found: int | None = None
        for b in self._buttons.values():
            d = b.debounce
            if d.locked_until is not None and d.raw != d.pressed and (
                    found is None or d.locked_until < found):
                found = d.locked_until
            if b.held_since is not None and (found is None or b.held_since + self.hold_ns < found):
                found = b.held_since + self.hold_ns
        return found

    def _changed(self, button: _Button, at: int, pressed: bool) -> list[Press]:
        spec = button.spec
        if pressed:
            if spec.hold:
                button.held_since = at  # acts only if still held after hold_ns
                return []
            if spec.action in self.double_tap_actions and button.last_press is not None \
                    and at - button.last_press < self.double_tap_ns:
                return []  # a double tap must not start and stop the clock
            button.last_press = at
            return [Press(spec.name, spec.action, "press", at)]
        button.held_since = None  # released before the hold completed: nothing happens
        return [Press(spec.name, spec.action, "release", at)]


class ButtonPanel:
    """The buttons' pins. ``pin_factory`` is gpiozero's (lgpio on a Pi, MockFactory in tests
    and on a PC); edges go into ``edges`` as (button name, edge instant in ns, active)."""

    def __init__(self, specs: list[ButtonSpec], pin_factory: Any,
                 ticks_to_ns: Callable[[float], int] | None = None) -> None:
        self.edges: queue.SimpleQueue[tuple[str, int, bool]] = queue.SimpleQueue()
        # Called on the GPIO thread after each edge is queued: the daemon's loop sleeps until
        # then instead of looking at the queue every few ms (firmware_py/daemon.py).
        self.on_edge: Callable[[], None] | None = None
        # gpiozero ticks are the factory's monotonic seconds (lgpio: the kernel's edge time).
        self._to_ns = ticks_to_ns or (lambda ticks: round(ticks * NS_PER_S))
        self._pins: list[Any] = []
        self._specs: list[ButtonSpec] = []  # beside _pins, one each
        self._callbacks: list[Callable[[float, bool], None]] = []  # gpiozero keeps weak refs
        for spec in specs:
            try:
                self._attach(spec, pin_factory)
            except Exception as err:
                # The driver's message rarely names the pin ("GPIO busy"): the note does,
                # for the traceback and for `scoreboard wiring`'s refusal.
                err.add_note(f"opening GPIO{spec.pin} for the button {spec.name}")
                self.close()
                raise

    def _attach(self, spec: ButtonSpec, pin_factory: Any) -> None:
        pin = pin_factory.pin(spec.pin)
        self._pins.append(pin)
        self._specs.append(spec)
        pin.function = "input"
        pin.pull = spec.pull
        pin.bounce = None  # our own debounce, on timestamps
        pin.edges = "both"
        active_low = spec.pull == "up"

        def changed(ticks: float, state: bool, name: str = spec.name) -> None:
            # Runs on the GPIO thread: timestamp, enqueue and wake the loop, nothing else.
            self.edges.put((name, self._to_ns(ticks), bool(state) != active_low))
            wake = self.on_edge
            if wake is not None:
                wake()

        self._callbacks.append(changed)
        pin.when_changed = changed

    def pressed(self) -> dict[str, bool]:
        """Each button as its pin reads now (True: pressed), for `scoreboard wiring`: a
        button that reads pressed with nobody on it is stuck, shorted or wired to the wrong
        side."""
        return {spec.name: bool(pin.state) != (spec.pull == "up")
                for spec, pin in zip(self._specs, self._pins, strict=True)}

    def close(self) -> None:
        for pin in self._pins:
            pin.when_changed = None
            pin.close()
        self._pins.clear()
        self._specs.clear()
        self._callbacks.clear()
