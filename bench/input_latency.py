"""Benchmark: a button edge on a (mock) GPIO pin, or a USB keypad key read through evdev,
-> command applied -> clock stopped.

For 10,000 presses of START/STOP on gpiozero's MockFactory, with both cores loaded, prints
p50/p99/max of the time from the edge to the command being applied by the core, and the
error between the edge instant and the instant the clock stopped at (ours must be 0: the
press takes effect at its edge). The same presses stamped the naive way, with the time the
loop got round to them, are the baseline: their error is the processing latency itself.

The evdev path (hardware/keypad.py): the same presses as START/STOP keys (KP+) of a fake
evdev device (tests/hardware/fake_evdev.py, a real pipe to select on) stamped with the
kernel's microsecond instant, read by ``EvdevKeys.poll`` and fed to the console with that
instant; and, where /dev/uinput is writable, of a real virtual keypad stamped by the kernel
itself. Latency is kernel stamp -> applied; the press-time error is the instant the clock
stopped at minus the stamp (0 by construction: the stamp is the press time).

Debounce and the double-tap guard are set to 0 here: the bench presses far faster than a
hand, and it measures the input path, not those policies (tests/hardware covers them).

    python bench/input_latency.py [--presses 10000] [--no-load] [--no-uinput]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpuload import busy_cores, ms, percentile
from report import add_write_docs, run_writing_docs

from arena import presets
from arena.core.commands import Command, Stop
from arena.core.match import Match, feed
from arena.core.units import NS_PER_S
from hardware.console import Console, load_config
from hardware.keymap import KEY_CODES, ButtonEdge, load_keypad_config
from hardware.keypad import EvdevKeys
from hardware.pins import mock_factory
from tests.hardware.fake_evdev import FakeBus

KPPLUS = KEY_CODES["KEY_KPPLUS"]


def run(presses: int) -> tuple[list[int], list[int], list[int]]:
    """Latencies edge -> applied, our stop errors, naive stop errors (all ns)."""
    factory = mock_factory()
    config = load_config({"debounce_ms": 0, "double_tap_ms": 0})
    match = Match(presets.load("ice-hockey-2x20"))
    console = Console(config, factory, [])
    pin = factory.pin(next(b.pin for b in config.buttons if b.action == "start_stop"))
    latency: list[int] = []
    ours: list[int] = []
    naive: list[int] = []
    applied: list[Command] = []
    try:
        for _ in range(presses):
            pin.drive_low()  # the edge, stamped by the pin driver
            edge = round(pin._last_change * NS_PER_S)  # what the driver's callback received
            console.drain(time.monotonic_ns(), match, applied.append)
            command = applied.pop()
            feed(match, command)
            done = time.monotonic_ns()
            latency.append(done - edge)
            if isinstance(command, Stop):
                stopped_at = match.state.last_at or 0
                ours.append(stopped_at - edge)
                naive.append(done - edge)  # a loop that stamps presses when it sees them
            pin.drive_high()
            console.drain(time.monotonic_ns(), match, applied.append)
            if match.state.clock.remaining(time.monotonic_ns()) < 60 * NS_PER_S:
                match = Match(match.preset)  # a fresh game before the period can end
    finally:
        console.close()
    return latency, ours, naive


def run_keys(presses: int, keys: EvdevKeys, press: Callable[[int], int | None]
             ) -> tuple[list[int], list[int]]:
    """Latencies kernel stamp -> applied and stop errors (stop instant - stamp), in ns.
    ``press(value)`` makes a KP+ edge (1 down, 0 up) and returns its stamp if it knows it
    (the fake), or None (uinput: the kernel stamps it; the reader says when)."""
    config = load_config({"debounce_ms": 0, "double_tap_ms": 0})
    match = Match(presets.load("ice-hockey-2x20"))
    console = Console(config, mock_factory(), [])
    latency: list[int] = []
    errors: list[int] = []
    applied: list[Command] = []

    def read_until_edge(injected: int | None) -> ButtonEdge:
        while True:
            items = keys.poll(time.monotonic_ns())
            for item in items:
                assert isinstance(item, ButtonEdge)
                console.button(item.action, item.at, item.active)
            if items:
                edge = items[-1]
                assert isinstance(edge, ButtonEdge)
                assert injected is None or edge.at == injected
                return edge

    try:
        keys.poll(time.monotonic_ns())  # the first scan opens the device
        for _ in range(presses):
            edge = read_until_edge(press(1))
            console.drain(time.monotonic_ns(), match, applied.append)
            command = applied.pop()
            feed(match, command)
            latency.append(time.monotonic_ns() - edge.at)
            if isinstance(command, Stop):
                errors.append((match.state.last_at or 0) - edge.at)
            read_until_edge(press(0))
            console.drain(time.monotonic_ns(), match, applied.append)
            if match.state.clock.remaining(time.monotonic_ns()) < 60 * NS_PER_S:
                match = Match(match.preset)
    finally:
        keys.close()
        console.close()
    return latency, errors


def run_fake_evdev(presses: int) -> tuple[list[int], list[int]]:
    bus = FakeBus()
    pad = bus.plug("/dev/input/event0")
    keys = EvdevKeys(load_keypad_config(), monotonic=time.monotonic_ns, realtime=time.time_ns,
                     list_paths=bus.paths, open_device=bus.open, set_clock=bus.set_clock)

    def press(value: int) -> int:
        stamp = time.monotonic_ns() // 1000 * 1000  # the kernel's stamp: microseconds
        pad.key("KEY_KPPLUS", stamp, value)
        return stamp

    try:
        return run_keys(presses, keys, press)
    finally:
        bus.close()


def run_uinput(presses: int) -> tuple[list[int], list[int]] | None:
    """The same through a real virtual keypad, or None where /dev/uinput is not writable."""
    if not os.access("/dev/uinput", os.W_OK):
        return None
    import evdev  # noqa: PLC0415

    ui: Any = evdev.UInput({evdev.ecodes.EV_KEY: [KPPLUS]}, name="bench keypad")
    try:
        time.sleep(0.5)  # udev makes the node
        keys = EvdevKeys(load_keypad_config({"grab": False}), monotonic=time.monotonic_ns,
                         realtime=time.time_ns, list_paths=lambda: [ui.device.path])

        def press(value: int) -> None:
            ui.write(evdev.ecodes.EV_KEY, KPPLUS, value)
            ui.syn()

        return run_keys(presses, keys, press)
    finally:
        ui.close()


def print_keys(label: str, latency: list[int], errors: list[int]) -> int:
    print(f"{label} stamp -> applied   p50 {ms(percentile(latency, 50))}, "
          f"p99 {ms(percentile(latency, 99))}, max {ms(max(latency))}")
    worst = max(abs(e) for e in errors)
    print(f"press-time error, {label} (stop instant - kernel stamp), {len(errors)} stops: "
          f"max |error| {worst} ns ({'exact' if worst == 0 else 'NOT EXACT'})")
    return worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Benchmark, not a test: button edge -> command applied -> clock stopped, "
        "on gpiozero's MockFactory, and a USB keypad key read through evdev (a fake device, "
        "and a uinput keypad where /dev/uinput is writable), with every core loaded; prints "
        "percentiles and the error between each edge and the instant the clock stopped "
        "(ours must be 0)."
    )
    parser.add_argument("--presses", type=int, default=10_000, help="default 10000")
    parser.add_argument("--no-load", action="store_true", help="no busy-loop processes")
    parser.add_argument("--no-uinput", action="store_true",
                        help="skip the real virtual keypad even where /dev/uinput is writable")
    add_write_docs(parser)
    args = parser.parse_args(argv)
    with busy_cores(not args.no_load) as workers:
        latency, ours, naive = run(args.presses)
        fake = run_fake_evdev(args.presses)
        real = None if args.no_uinput else run_uinput(args.presses)
    print(f"presses        {args.presses} on MockFactory, load: {workers} busy-loop processes")
    print(f"edge -> applied   p50 {ms(percentile(latency, 50))}, "
          f"p99 {ms(percentile(latency, 99))}, max {ms(max(latency))}")
    worst = max(abs(e) for e in ours)
    print(f"stop error, ours (stop instant - edge), {len(ours)} stops: max |error| {worst} ns "
          f"({'exact' if worst == 0 else 'NOT EXACT'})")
    print(f"stop error, naive (stamped when processed): p50 {ms(percentile(naive, 50))}, "
          f"p99 {ms(percentile(naive, 99))}, max {ms(max(naive))}")
    worst = max(worst, print_keys("evdev (fake device)", *fake))
    if real is None:
        print("evdev (uinput)      not run: /dev/uinput is not writable here"
              if not args.no_uinput else "evdev (uinput)      skipped (--no-uinput)")
    else:
        worst = max(worst, print_keys("evdev (uinput)", *real))
    return 0 if worst == 0 else 1


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "input_latency"))
