"""``scoreboard wiring`` (firmware_py/wiring.py): every button edge and keypad key shown with
its pin or device and its own edge time, the relay and the audio horn switched on request
and off at their time, the pin map printed with header pins, and the test refused while a
scoreboard holds the state folder, in-process on gpiozero's MockFactory and as a process."""

from __future__ import annotations

import io
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from gpiozero import DigitalOutputDevice
from gpiozero.pins import mock as gpiozero_mock
from gpiozero.pins.mock import MockFactory

from arena.timesource import FakeClock
from display.audiohorn import AudioHorn, Output
from firmware_py.cli import main
from firmware_py.statelock import LOCK_NAME, StateLock
from firmware_py.wiring import WiringTest, pin_map, run_wiring
from hardware.console import ConsoleConfig, load_config
from hardware.keymap import load_keypad_config
from hardware.keypad import EvdevKeys
from hardware.pins import HEADER_PINS
from tests.hardware.conftest import FakeTicks
from tests.hardware.fake_evdev import FakeBus

NS = 1_000_000_000
MS = 1_000_000
T0 = 1000 * NS  # the test starts here; FakeTicks (the pins' edge clock) starts at 1000 s too
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def ticks(monkeypatch: pytest.MonkeyPatch) -> FakeTicks:
    fake = FakeTicks("1000")
    monkeypatch.setattr(gpiozero_mock, "monotonic", fake)
    return fake


@pytest.fixture
def factory(ticks: FakeTicks) -> Iterator[MockFactory]:
    made = MockFactory()
    yield made
    made.reset()


class Rig:
    """A wiring test on mock pins, its output, and the clock its relay lines are timed on."""

    def __init__(self, factory: MockFactory, ticks: FakeTicks, console: ConsoleConfig | None = None,
                 **kwargs: Any) -> None:
        self.factory, self.ticks = factory, ticks
        self.clock = FakeClock(T0)
        self.out = io.StringIO()
        self.console = console or load_config()
        self.test = WiringTest(self.console, factory, out=self.out, clock=self.clock.monotonic_ns,
                               mock=True, **kwargs)

    def pin(self, bcm: int) -> Any:
        return self.factory.pin(bcm)

    def lines(self) -> list[str]:
        text, self.out = self.out.getvalue(), io.StringIO()
        self.test.out = self.out
        return [" ".join(line.split()) for line in text.splitlines()]  # one space apart

    def at(self, seconds: str) -> int:
        self.ticks.at(seconds)
        self.clock.now = self.ticks.ns()
        return self.clock.now


def test_the_header_pins_are_the_boards_own() -> None:
    # Checked against gpiozero's description of the 40-pin header, not a copy of our table.
    j8 = MockFactory().board_info.headers["J8"].pins
    board = {int(info.name[4:]): number for number, info in j8.items()
             if info.name.startswith("GPIO")}
    assert board == HEADER_PINS


def test_the_pin_map_names_each_button_its_bcm_and_header_pin_and_the_relays_polarity() -> None:
    lines = [" ".join(line.split()) for line in pin_map(load_config())]
    assert "start_stop GPIO17 (pin 11) pull up start_stop (press)" in lines
    assert "next GPIO5 (pin 29) pull up next (hold 1 s)" in lines
    assert "menu GPIO16 (pin 36) pull up menu (press)" in lines
    assert lines[-1].startswith("horn relay: GPIO26 (pin 37), active high")
    low = load_config({"horn": {"pin": 21, "active_high": False},
                       "buttons": {"goal_home": {"pin": 19, "pull": "down"}}})
    lines = [" ".join(line.split()) for line in pin_map(low)]
    assert "goal_home GPIO19 (pin 35) pull down goal_home (press)" in lines
    assert lines[-1].startswith("horn relay: GPIO21 (pin 40), active low (the relay is on "
                                "while the pin is low")


def test_each_edge_is_shown_at_the_pins_own_instant_with_its_button_and_pin(
        factory: MockFactory, ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks)
    rig.at("1000.250")
    rig.pin(17).drive_low()  # START/STOP pressed (pull-up: a press pulls the pin to ground)
    rig.at("1000.400")
    rig.pin(17).drive_high()
    rig.at("1003")  # drained much later: the lines carry the edges' instants, not this one
    rig.test.drain(rig.clock.now)
    assert rig.lines() == ["250.000 ms GPIO17 (pin 11) start_stop pressed",
                           "400.000 ms GPIO17 (pin 11) start_stop released held 150.0 ms"]


def test_a_pull_down_button_reads_pressed_when_its_pin_goes_high(
        factory: MockFactory, ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks, load_config({"buttons": {"horn": {"pull": "down"}}}))
    rig.at("1000.5")
    rig.pin(27).drive_high()
    rig.test.drain(rig.clock.now)
    assert rig.lines() == ["500.000 ms GPIO27 (pin 13) horn pressed"]


def test_chatter_within_the_debounce_window_is_marked(factory: MockFactory,
                                                      ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks)
    for at, level in (("1001.000", 0), ("1001.002", 1), ("1001.003", 0), ("1001.200", 1)):
        rig.at(at)
        (rig.pin(22).drive_low if level == 0 else rig.pin(22).drive_high)()
    rig.test.drain(rig.clock.now)
    lines = rig.lines()
    assert lines[0] == "1000.000 ms GPIO22 (pin 15) goal_home pressed"
    assert lines[1].startswith("1002.000 ms GPIO22 (pin 15) goal_home released held 2.0 ms "
                               "2.0 ms after its last edge: chatter (the game counts edges "
                               "within 20 ms")
    assert lines[2].startswith("1003.000 ms GPIO22 (pin 15) goal_home pressed 1.0 ms after")
    assert lines[3] == "1200.000 ms GPIO22 (pin 15) goal_home released held 197.0 ms"


def test_edges_of_several_buttons_come_out_in_the_order_they_happened(
        factory: MockFactory, ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks)
    rig.at("1000.1")
    rig.pin(5).drive_low()  # NEXT
    rig.at("1000.2")
    rig.pin(6).drive_low()  # UNDO
    rig.at("1000.3")
    rig.pin(5).drive_high()
    rig.test.drain(rig.clock.now)
    assert [line.split(" ms ")[1] for line in rig.lines()] == [
        "GPIO5 (pin 29) next pressed", "GPIO6 (pin 31) undo pressed",
        "GPIO5 (pin 29) next released held 200.0 ms"]


def test_h_switches_the_relay_on_for_one_second_and_it_goes_off_at_its_time(
        factory: MockFactory, ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks)
    relay = rig.pin(26)
    assert relay.state == 0  # opened off (active high: low)
    now = rig.at("1002")
    rig.test.command("h", now)
    assert relay.state == 1
    assert rig.test.next_deadline() == now + NS
    rig.test.due(now + NS - 1)
    assert relay.state == 1
    rig.test.due(now + NS)
    assert relay.state == 0
    assert rig.lines() == ["2000.000 ms horn relay GPIO26 (pin 37) ON (pin high) for 1 s",
                           "3000.000 ms horn relay GPIO26 (pin 37) off (pin low)"]
    assert rig.test.next_deadline() is None


def test_t_toggles_an_active_low_relay_and_h_takes_a_length(factory: MockFactory,
                                                            ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks, load_config({"horn": {"active_high": False}}))
    relay = rig.pin(26)
    assert relay.state == 1  # a low-trigger board: idle (off) is high
    now = rig.at("1001")
    rig.test.command("t", now)
    assert relay.state == 0
    rig.test.command("t", now + MS)
    assert relay.state == 1
    rig.test.command("h 2.5", now + 2 * MS)
    assert relay.state == 0 and rig.test.next_deadline() == now + 2 * MS + 2_500 * MS
    assert rig.lines() == [
        "1000.000 ms horn relay GPIO26 (pin 37) ON (pin low)",
        "1001.000 ms horn relay GPIO26 (pin 37) off (pin high)",
        "1002.000 ms horn relay GPIO26 (pin 37) ON (pin low) for 2.5 s"]


@pytest.mark.parametrize("length", ["0", "-1", "11", "x", "nan"])
def test_a_length_out_of_range_is_refused_and_the_relay_stays_off(
        factory: MockFactory, ticks: FakeTicks, length: str) -> None:
    rig = Rig(factory, ticks)
    rig.test.command(f"h {length}", rig.at("1001"))
    assert rig.pin(26).state == 0
    assert rig.lines() == [f"1000.000 ms wiring test {length!r}: give seconds above 0 and at "
                           "most 10"]


def test_unknown_commands_and_unknown_buttons_are_named(factory: MockFactory,
                                                        ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks)
    now = rig.at("1001")
    rig.test.command("x", now)
    rig.test.command("press goal", now)
    rig.test.command("", now)  # a bare Enter: nothing
    lines = rig.lines()
    assert lines[0] == "1000.000 ms wiring test unknown command 'x' (? lists them)"
    assert lines[1].startswith("1000.000 ms wiring test no button 'goal' (one of start_stop, "
                               "horn,")
    assert len(lines) == 2


def test_mock_commands_drive_a_pin_as_its_button_would(factory: MockFactory,
                                                       ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks)
    rig.test.command("press undo", rig.at("1000.5"))
    assert rig.pin(6).state == 0  # pulled to ground, as the button does
    rig.test.command("release undo", rig.at("1001.7"))
    rig.test.drain(rig.clock.now)
    assert rig.lines() == ["500.000 ms GPIO6 (pin 31) undo pressed",
                           "1700.000 ms GPIO6 (pin 31) undo released held 1200.0 ms"]


def test_real_pins_are_not_driven_from_the_keyboard(factory: MockFactory,
                                                    ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks)
    rig.test.mock = False  # as on lgpio: only the button can press its pin
    rig.test.command("press undo", rig.at("1001"))
    assert rig.pin(6).state == 1
    assert rig.lines() == ["1000.000 ms wiring test press drives mock pins only: on real "
                           "pins press the button"]


def test_a_button_that_reads_pressed_at_start_is_reported(factory: MockFactory,
                                                          ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks)
    rig.pin(23).drive_low()  # GOAL AWAY shorted to ground before the test begins
    rig.test.greet("mock", "not read")
    out = rig.lines()
    assert "0.000 ms GPIO23 (pin 16) goal_away reads PRESSED with nobody on it: stuck, " \
           "shorted, or wired to the other side of its pull" in out
    assert not any("start_stop reads PRESSED" in line for line in out)
    assert "pins: mock" in out and "keypad: not read" in out


def test_the_farewell_lists_the_buttons_never_pressed(factory: MockFactory,
                                                      ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks, load_config({"buttons": {name: {"disabled": True} for name in (
        "horn", "goal_home", "goal_away", "penalty_home", "penalty_away", "next", "undo",
        "timeout_home", "timeout_away")}}))
    rig.at("1000.1")
    rig.pin(17).drive_low()
    rig.test.drain(rig.clock.now)
    rig.test.close()
    rig.test.farewell()
    assert rig.lines()[-1] == "100.000 ms wiring test no press seen on: menu"


class FakeChannel:
    """What the audio horn asks of a mixer channel, noted."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def set_volume(self, volume: float) -> None:
        self.calls.append("volume")

    def play(self, *args: object, **kwargs: object) -> None:
        self.calls.append("play")

    def fadeout(self, ms: int) -> None:
        self.calls.append("fadeout")


def test_a_sounds_the_audio_horn_and_stops_it_at_its_time(factory: MockFactory,
                                                          ticks: FakeTicks) -> None:
    channel = FakeChannel()
    audio = AudioHorn(opener=lambda sound, frames: Output(channel, object(), "alsa", 48_000, 2,
                                                          owned=True), closer=lambda: None)
    assert audio.open()
    rig = Rig(factory, ticks, audio=audio)
    now = rig.at("1001")
    rig.test.command("a 0.5", now)
    assert channel.calls == ["volume", "play"]
    rig.test.due(now + 499 * MS)
    assert channel.calls == ["volume", "play"]
    rig.test.due(now + 500 * MS)
    assert channel.calls == ["volume", "play", "fadeout"]
    assert rig.pin(26).state == 0  # the relay is a test of its own
    assert rig.lines() == ["1000.000 ms audio horn ON for 0.5 s; on (alsa)",
                           "1500.000 ms audio horn off; on (alsa)"]


def test_without_audio_in_the_config_a_says_so(factory: MockFactory, ticks: FakeTicks) -> None:
    rig = Rig(factory, ticks, load_config({"horn": {"audio": False}}))
    rig.test.command("a", rig.at("1001"))
    assert rig.lines() == ["1000.000 ms audio horn off in the config ([console.horn] audio = "
                           "false)"]
    assert rig.test.next_deadline() is None


def test_keypad_keys_show_device_key_name_target_and_the_kernels_instant(
        factory: MockFactory, ticks: FakeTicks) -> None:
    bus = FakeBus()
    pad = bus.plug("/dev/input/event3")
    clock = FakeClock(T0)
    keys = EvdevKeys(load_keypad_config(), monotonic=clock.monotonic_ns,
                     realtime=clock.monotonic_ns, list_paths=bus.paths, open_device=bus.open,
                     set_clock=bus.set_clock)
    try:
        rig = Rig(factory, ticks, keys=keys)
        rig.test.drain(T0)
        assert rig.lines() == ["0.000 ms keypad /dev/input/event3 found"]
        pad.tap("KEY_KPPLUS", T0 + 1_234_567_000, T0 + 1_334_567_000)
        pad.tap("KEY_Q", T0 + 2 * NS, T0 + 2 * NS + 50 * MS)  # not in the numpad layout
        rig.test.drain(T0 + 5 * NS)
        assert rig.lines() == [
            "1234.567 ms keypad /dev/input/event3 KEY_KPPLUS pressed -> start_stop",
            "1334.567 ms keypad /dev/input/event3 KEY_KPPLUS released held 100.0 ms",
            "2000.000 ms keypad /dev/input/event3 KEY_Q pressed (not in the key map)",
            "2050.000 ms keypad /dev/input/event3 KEY_Q released held 50.0 ms"]
        bus.unplug("/dev/input/event3")
        rig.test.drain(T0 + 6 * NS)
        assert rig.lines() == ["6000.000 ms keypad /dev/input/event3 lost (unplugged?)"]
    finally:
        bus.close()


def test_a_relay_pin_in_use_is_refused_naming_it_and_nothing_stays_open(
        factory: MockFactory, ticks: FakeTicks) -> None:
    holder = DigitalOutputDevice(26, pin_factory=factory)  # another program's relay
    try:
        with pytest.raises(Exception) as raised:
            run_wiring(load_config(), factory, "mock", keys=None, keypad="", audio=None,
                      stdin=0, out=io.StringIO(), clock=FakeClock(T0).monotonic_ns)
        assert "opening GPIO26 for the horn relay" in raised.value.__notes__
    finally:
        holder.close()


def test_it_refuses_while_a_scoreboard_holds_the_state_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    daemon = StateLock(tmp_path)
    daemon.acquire()  # as `scoreboard run` does first thing
    try:
        code = main(["wiring", "--mock-pins", "--state-dir", str(tmp_path), "--config",
                     str(empty_config(tmp_path))])
    finally:
        daemon.release()
    assert code == 3
    err = capsys.readouterr().err
    assert f"state folder {tmp_path} is in use by another scoreboard (pid {os.getpid()})" in err
    assert "Stop it first: sudo systemctl stop scoreboard" in err


def test_a_bad_config_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "scoreboard.toml"
    config.write_text("[console.horn]\npin = 99\n")
    assert main(["wiring", "--mock-pins", "--config", str(config)]) == 2
    assert f"{config}: console: horn.pin: must be a whole number 2..27, got 99" in \
        capsys.readouterr().err


def empty_config(directory: Path) -> Path:
    config = directory / "scoreboard.toml"
    config.write_text("[keypad]\nevdev = false\n")  # this machine's own keyboards stay out
    return config


class Child:
    """``scoreboard wiring`` as a process: its stdout read line by line on a thread, so the
    test waits for a line with a bound, never a fixed sleep."""

    def __init__(self, log: Path, *args: str) -> None:
        self.log = log
        with open(log, "w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "firmware_py.cli", "wiring", *args], cwd=ROOT,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
                env={**os.environ, "SDL_AUDIODRIVER": "dummy"})
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        assert self.proc.stdout is not None
        self.reader = threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True)
        self.reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(" ".join(line.split()))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def expect(self, part: str, timeout: float = 30) -> str:
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no line with {part!r}; seen: {self.seen}; stderr: "
                                     f"{self.log.read_text()}") from None
            self.seen.append(line)
            if part in line:
                return line

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()  # only on a failure: this test's own child, by its pid
        self.proc.wait(10)
        self.reader.join(10)  # the child's end closed its stdout: the reader is at its end
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


@pytest.mark.slow
def test_as_a_process_it_shows_presses_switches_the_relay_and_keeps_the_daemon_out(
        tmp_path: Path) -> None:
    config, state = empty_config(tmp_path), tmp_path / "state"
    child = Child(tmp_path / "wiring.err", "--mock-pins", "--config", str(config),
                  "--state-dir", str(state))
    try:
        child.expect("horn relay: GPIO26 (pin 37), active high")
        child.expect("wiring test ready")
        child.send("press start_stop")
        pressed = child.expect("GPIO17 (pin 11) start_stop pressed")
        child.send("release start_stop")
        released = child.expect("GPIO17 (pin 11) start_stop released")
        assert " held " in released
        assert float(released.split()[0]) >= float(pressed.split()[0])
        child.send("h 0.2")
        on = child.expect("horn relay GPIO26 (pin 37) ON (pin high) for 0.2 s")
        # Off from the loop's own deadline, no command in between.
        off = child.expect("horn relay GPIO26 (pin 37) off (pin low)")
        assert float(off.split()[0]) - float(on.split()[0]) >= 200
        # Meanwhile the daemon cannot start on that state folder, and says why.
        daemon = subprocess.run(
            [sys.executable, "-m", "firmware_py.cli", "run", "--headless", "--mock-pins",
             "--config", str(config), "--state-dir", str(state)], cwd=ROOT,
            capture_output=True, text=True, timeout=120, check=False)
        assert daemon.returncode == 3, daemon.stderr
        assert f"pid {child.proc.pid}" in daemon.stderr
        assert (state / LOCK_NAME).read_text().strip() == str(child.proc.pid)
        child.send("q")
        assert child.proc.wait(30) == 0
        child.expect("horn relay GPIO26 (pin 37) off, released")
        assert "no press seen on: horn, goal_home" in child.expect("no press seen on")
    finally:
        child.stop()


def test_the_command_names_a_pin_another_program_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, factory: MockFactory,
        capsys: pytest.CaptureFixture[str]) -> None:
    import hardware.pins  # noqa: PLC0415

    holder = DigitalOutputDevice(26, pin_factory=factory)  # e.g. a daemon on another folder
    monkeypatch.setattr(hardware.pins, "factory", lambda name: factory)
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    with open(os.devnull) as nothing:
        monkeypatch.setattr(sys, "stdin", nothing)
        try:
            code = main(["wiring", "--mock-pins", "--state-dir", str(tmp_path / "state"),
                         "--config", str(empty_config(tmp_path))])
        finally:
            holder.close()
    assert code == 1
    err = capsys.readouterr().err
    assert "scoreboard wiring: opening GPIO26 for the horn relay (mock): GPIOPinInUse" in err
    assert "another program may hold the pin (the scoreboard service: sudo systemctl stop " \
           "scoreboard)" in err
    lock = StateLock(tmp_path / "state")
    lock.acquire()  # free again: the refusal let the lock go
    lock.release()
