"""USB keypads through evdev (hardware/keypad.py, hardware/keymap.py) on fake devices: the
kernel's stamp is the press time, autorepeat is ignored, action keys give both edges, an
unplugged keypad releases what was held and a replugged one is found again; the key map in
the config file is checked strictly."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from datetime import timedelta

import pytest

from arena.timesource import EPOCH, FakeClock
from firmware_py.config import ConfigError, parse
from hardware.keymap import (
    KEY_CODES,
    ButtonEdge,
    KeypadConfig,
    KeypadConfigError,
    KeypadKey,
    enabled,
    load_keypad_config,
)
from hardware.keypad import EVIOCSCLOCKID, RESCAN_NS, EvdevKeys

from .fake_evdev import MOUSE_CODES, FakeBus, FakeDevice

NS = 1_000_000_000
T0 = 5_000 * NS  # the monotonic clock some time after boot
PAD = "/dev/input/event3"


# The kernel's realtime clock runs 1.7e9 s ahead of the monotonic one.
REALTIME_OFFSET = 1_700_000_000 * NS + 123_456_000


@pytest.fixture
def bus() -> Iterator[FakeBus]:
    made = FakeBus()
    yield made
    made.close()


@pytest.fixture
def clocks() -> FakeClock:
    return FakeClock(T0, wall=EPOCH + timedelta(microseconds=(T0 + REALTIME_OFFSET) // 1_000))


def reader(bus: FakeBus, clocks: FakeClock, config: KeypadConfig | None = None) -> EvdevKeys:
    return EvdevKeys(config or load_keypad_config(), monotonic=clocks.monotonic_ns,
                     realtime=clocks.realtime_ns, list_paths=bus.paths, open_device=bus.open,
                     set_clock=bus.set_clock)


def test_a_press_is_its_action_at_the_kernels_instant(bus: FakeBus, clocks: FakeClock) -> None:
    pad = bus.plug(PAD)
    keys = reader(bus, clocks)
    assert keys.poll(T0) == []
    assert pad.clock_set and pad.grabbed  # stamped on CLOCK_MONOTONIC, keys ours only
    down, up = T0 + 1_234_567_000, T0 + 1_334_567_000
    pad.tap("KEY_KPPLUS", down, up)
    # Read much later: the instants are still the kernel's, not the poll's.
    assert keys.poll(T0 + 9 * NS) == [ButtonEdge("start_stop", down, True),
                                      ButtonEdge("start_stop", up, False)]


def test_digits_and_entry_keys_are_keypad_keys_on_press_only(bus: FakeBus,
                                                            clocks: FakeClock) -> None:
    pad = bus.plug(PAD)
    keys = reader(bus, clocks)
    keys.poll(T0)
    pad.tap("KEY_KP7", T0 + 1000, T0 + 2000)
    pad.tap("KEY_KPENTER", T0 + 3000, T0 + 4000)
    pad.tap("KEY_KPMINUS", T0 + 5000, T0 + 6000)
    pad.tap("KEY_KPDOT", T0 + 7000, T0 + 8000)
    assert keys.poll(T0 + NS // 2) == [KeypadKey("7", T0 + 1000),
                                       KeypadKey("enter", T0 + 3000),
                                       KeypadKey("escape", T0 + 5000),
                                       KeypadKey("dot", T0 + 7000)]


def test_autorepeat_is_ignored(bus: FakeBus, clocks: FakeClock) -> None:
    pad = bus.plug(PAD)
    keys = reader(bus, clocks)
    keys.poll(T0)
    pad.key("KEY_KPASTERISK", T0 + 1000, 1)
    for n in range(1, 6):
        pad.key("KEY_KPASTERISK", T0 + n * 33_000_000, 2)  # the kernel's autorepeat
        pad.key("KEY_KP5", T0 + n * 33_000_000 + 1000, 2)
    pad.key("KEY_KPASTERISK", T0 + 400_000_000, 0)
    assert keys.poll(T0 + NS // 2) == [ButtonEdge("horn", T0 + 1000, True),
                                       ButtonEdge("horn", T0 + 400_000_000, False)]


def test_unplugged_mid_hold_releases_at_the_unplug_and_says_so_once(
        bus: FakeBus, clocks: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    pad = bus.plug(PAD)
    keys = reader(bus, clocks)
    keys.poll(T0)
    pad.key("KEY_KPASTERISK", T0 + 1000, 1)  # the horn, held
    assert keys.poll(T0 + 2000) == [ButtonEdge("horn", T0 + 1000, True)]
    pad.key("KEY_KP3", T0 + 3000)  # typed, then the cable pulled before it was read
    bus.unplug(PAD)
    assert keys.pending()  # the loop wakes for it
    with caplog.at_level(logging.INFO, logger="hardware.keypad"):
        lost_at = T0 + 50_000_000
        assert keys.poll(lost_at) == [ButtonEdge("horn", lost_at, False)]
        assert keys.poll(lost_at + 1000) == []
        assert keys.poll(lost_at + 3 * NS) == []
    assert pad.closed and not keys.devices
    lost = [r for r in caplog.records if r.getMessage() == "keypad lost"]
    assert len(lost) == 1 and lost[0].kv == {  # type: ignore[attr-defined]
        "device": PAD, "why": "unplugged", "released": 1}


def test_a_replugged_keypad_is_found_at_the_next_rescan(bus: FakeBus, clocks: FakeClock) -> None:
    pad = bus.plug(PAD)
    keys = reader(bus, clocks)
    keys.poll(T0)
    bus.unplug(PAD)
    keys.poll(T0 + 1000)
    again = bus.plug("/dev/input/event4")  # a new node, as the kernel gives it
    keys.poll(T0 + RESCAN_NS - 1)
    assert keys.devices == {}  # listed at most once a second
    keys.poll(T0 + RESCAN_NS)
    assert list(keys.devices) == ["/dev/input/event4"] and again.clock_set
    again.key("KEY_KPPLUS", T0 + RESCAN_NS + 5000)
    assert keys.poll(T0 + RESCAN_NS + NS // 10) == [
        ButtonEdge("start_stop", T0 + RESCAN_NS + 5000, True)]
    assert pad.closed


def test_devices_without_mapped_keys_are_left_alone(bus: FakeBus, clocks: FakeClock) -> None:
    mouse = bus.plug("/dev/input/event0", FakeDevice(MOUSE_CODES))
    keys = reader(bus, clocks)
    for n in range(5):
        keys.poll(T0 + n * RESCAN_NS)
    assert keys.devices == {} and mouse.closed
    assert bus.opened == ["/dev/input/event0"]  # not opened again at every rescan


def test_a_device_that_cannot_be_opened_yet_is_tried_again(
        bus: FakeBus, clocks: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    pad = FakeDevice()
    denied = True

    def open_device(path: str) -> FakeDevice:
        if denied:  # udev has not given the group its permission yet
            raise PermissionError(13, "Permission denied", path)
        return pad

    keys = EvdevKeys(load_keypad_config(), monotonic=clocks.monotonic_ns,
                     realtime=clocks.realtime_ns, list_paths=lambda: [PAD],
                     open_device=open_device, set_clock=bus.set_clock)
    with caplog.at_level(logging.WARNING, logger="hardware.keypad"):
        keys.poll(T0)
        keys.poll(T0 + RESCAN_NS)
    assert [r.getMessage() for r in caplog.records] == ["input device not opened"]
    denied = False
    keys.poll(T0 + 2 * RESCAN_NS)
    assert list(keys.devices) == [PAD]
    keys.close()
    assert pad.closed


def test_realtime_stamps_are_mapped_when_the_clock_cannot_be_set(
        bus: FakeBus, clocks: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    pad = bus.plug(PAD, FakeDevice(clock_ok=False))
    keys = reader(bus, clocks)
    with caplog.at_level(logging.WARNING, logger="hardware.keypad"):
        keys.poll(T0)
        bus.plug("/dev/input/event5", FakeDevice(clock_ok=False))
        keys.poll(T0 + RESCAN_NS)
    assert len(keys.devices) == 2
    said = [r for r in caplog.records if "CLOCK_REALTIME" in r.getMessage()]
    assert len(said) == 1  # once, not per device
    press = T0 + 2 * NS + 250_000  # monotonic; the kernel stamps it on the realtime clock
    pad.key("KEY_KPPLUS", press + REALTIME_OFFSET)
    clocks.now = T0 + 3 * NS
    assert keys.poll(clocks.now) == [ButtonEdge("start_stop", press, True)]


def test_pending_selects_on_the_devices(bus: FakeBus, clocks: FakeClock) -> None:
    pad = bus.plug(PAD)
    keys = reader(bus, clocks)
    assert not keys.pending()  # nothing open yet
    keys.poll(T0)
    assert not keys.pending()
    pad.key("KEY_KP1", T0 + 1000)
    assert keys.pending()
    keys.poll(T0 + 2000)
    assert not keys.pending()


def test_without_python_evdev_there_are_no_keys(clocks: FakeClock,
                                                caplog: pytest.LogCaptureFixture) -> None:
    def missing() -> list[str]:
        raise ImportError("No module named 'evdev'")

    keys = EvdevKeys(load_keypad_config(), monotonic=clocks.monotonic_ns,
                     realtime=clocks.realtime_ns, list_paths=missing)
    with caplog.at_level(logging.WARNING, logger="hardware.keypad"):
        assert keys.poll(T0) == [] and keys.poll(T0 + RESCAN_NS) == []
    assert [r.getMessage() for r in caplog.records] == ["input devices not listed"]


# ---------------------------------------------------------------- the map


def test_the_numpad_map_puts_every_action_of_the_brief_on_a_key() -> None:
    keys = dict(load_keypad_config().keys)
    assert keys["KEY_KPPLUS"] == "start_stop" and keys["KEY_KPASTERISK"] == "horn"
    assert keys["KEY_KPSLASH"] == "menu" and keys["KEY_KPENTER"] == "enter"
    assert {keys[f"KEY_KP{d}"] for d in range(10)} == {str(d) for d in range(10)}
    keyboard = dict(load_keypad_config({"layout": "keyboard"}).keys)
    assert keyboard["KEY_SPACE"] == "start_stop" and keyboard["KEY_KPPLUS"] == "start_stop"


def test_overrides_change_add_and_remove_keys() -> None:
    config = load_keypad_config({"keys": {"KEY_F1": "goal_home", "KEY_KPMINUS": "cancel",
                                          "KEY_NUMLOCK": ""}})
    keys = dict(config.keys)
    assert keys["KEY_F1"] == "goal_home" and keys["KEY_KPMINUS"] == "cancel"
    assert "KEY_NUMLOCK" not in keys
    assert config.codes()[KEY_CODES["KEY_F1"]] == "goal_home"


@pytest.mark.parametrize(("table", "message"), [
    ({"keys": {"KEY_KPPLUSS": "start_stop"}},
     "test: keys.KEY_KPPLUSS: unknown key name"),
    ({"keys": {"kpplus": "start_stop"}}, "test: keys.kpplus: unknown key name"),
    ({"keys": {"KEY_KPPLUS": "start"}},
     "test: keys.KEY_KPPLUS: unknown action or keypad key 'start'"),
    ({"keys": {"KEY_KP1": 1}}, "test: keys.KEY_KP1: unknown action or keypad key 1"),
    ({"evdev": "yes"}, "test: evdev: must be true, false or \"auto\", got 'yes'"),
    ({"layout": "qwerty"}, "test: layout: must be one of numpad, keyboard, got 'qwerty'"),
    ({"grab": 1}, "test: grab: must be true or false, got 1"),
    ({"keyz": {}}, "test: keyz: unknown key (misspelt?); did you mean 'keys'?"),
])
def test_bad_map_entries_are_refused_naming_them(table: dict[str, object],
                                                 message: str) -> None:
    with pytest.raises(KeypadConfigError) as err:
        load_keypad_config(table, source="test")
    assert str(err.value).startswith(message)


def test_the_config_file_checks_the_keypad_table() -> None:
    config = parse({"keypad": {"evdev": True, "keys": {"KEY_F2": "goal_away"}}}, "hall.toml")
    assert config.keypad.mode == "on" and ("KEY_F2", "goal_away") in config.keypad.keys
    assert parse({}, "defaults").keypad.mode == "auto"
    with pytest.raises(ConfigError, match=r"hall.toml: keypad: keys.KEY_F2: unknown action "
                                          r"or keypad key 'goal'"):
        parse({"keypad": {"keys": {"KEY_F2": "goal"}}}, "hall.toml")


@pytest.mark.parametrize(("mode", "display", "platform", "on"), [
    ("auto", "headless", "linux", True),
    ("auto", "windowed", "linux", False),
    ("auto", "fullscreen", "linux", False),
    ("auto", "headless", "darwin", False),
    ("on", "fullscreen", "linux", True),
    ("off", "headless", "linux", False),
])
def test_auto_reads_the_keypad_when_headless_on_linux(mode: str, display: str, platform: str,
                                                     on: bool) -> None:
    assert enabled(mode, display, platform) is on


def test_the_key_codes_are_the_kernels() -> None:
    ecodes = pytest.importorskip("evdev.ecodes")
    assert {name: ecodes.ecodes[name] for name in KEY_CODES} == KEY_CODES
    # _IOW('E', 0xa0, int) as linux/input.h defines it.
    assert EVIOCSCLOCKID == 0x400445A0


@pytest.mark.skipif(not os.access("/dev/uinput", os.W_OK), reason="no writable /dev/uinput")
def test_a_real_virtual_keypad_is_stamped_on_the_monotonic_clock() -> None:  # pragma: no cover
    evdev = pytest.importorskip("evdev")
    from arena.timesource import SYSTEM, realtime_ns  # noqa: PLC0415

    codes = [KEY_CODES["KEY_KPPLUS"]]
    with evdev.UInput({1: codes}, name="scoreboard test keypad") as ui:
        keys = EvdevKeys(load_keypad_config({"grab": False}), monotonic=SYSTEM.monotonic_ns,
                         realtime=realtime_ns,
                         list_paths=lambda: [ui.device.path])
        try:
            keys.poll(SYSTEM.monotonic_ns())
            before = SYSTEM.monotonic_ns()
            ui.write(1, codes[0], 1)
            ui.syn()
            got: list[object] = []
            while not got:
                got = list(keys.poll(SYSTEM.monotonic_ns()))
            after = SYSTEM.monotonic_ns()
            edge = got[0]
            assert isinstance(edge, ButtonEdge) and before - 1000 <= edge.at <= after
        finally:
            keys.close()


def test_lost_events_release_what_was_held(bus: FakeBus, clocks: FakeClock) -> None:
    """SYN_DROPPED: the kernel's buffer overflowed and a release may be lost."""
    from .fake_evdev import EV_SYN, Event  # noqa: PLC0415

    pad = bus.plug(PAD)
    keys = reader(bus, clocks)
    keys.poll(T0)
    pad.key("KEY_KPASTERISK", T0 + 1000)
    pad.push(Event(T0 // NS, 5, EV_SYN, 3, 0))  # SYN_DROPPED at T0 + 5 µs
    assert keys.poll(T0 + 2 * NS // 10) == [ButtonEdge("horn", T0 + 1000, True),
                                            ButtonEdge("horn", T0 + 5000, False)]


def test_shift_is_read_per_device_and_a_release_ends_what_its_press_began(
        bus: FakeBus, clocks: FakeClock) -> None:
    board = bus.plug(PAD, FakeDevice(list(KEY_CODES.values())))
    pad = bus.plug("/dev/input/event4")
    keys = reader(bus, clocks, load_keypad_config({"layout": "keyboard"}))
    keys.poll(T0)
    board.key("KEY_LEFTSHIFT", T0 + 1000)
    board.key("KEY_G", T0 + 2000)
    board.key("KEY_LEFTSHIFT", T0 + 3000, 0)  # Shift let go before G
    board.key("KEY_G", T0 + 4000, 0)
    board.key("KEY_RIGHTSHIFT", T0 + 5000)
    board.key("KEY_7", T0 + 6000)  # no Shift+KEY_7: the digit
    board.key("KEY_Q", T0 + 7000)  # no Shift+KEY_Q: GOAL HOME
    pad.key("KEY_KPPLUS", T0 + 8000)  # the board's Shift is not the keypad's
    assert keys.poll(T0 + NS // 10) == [
        ButtonEdge("goal_away", T0 + 2000, True), ButtonEdge("goal_away", T0 + 4000, False),
        KeypadKey("7", T0 + 6000), ButtonEdge("goal_home", T0 + 7000, True),
        ButtonEdge("start_stop", T0 + 8000, True)]


def test_a_shifted_key_can_be_given_its_own_action() -> None:
    config = load_keypad_config({"keys": {"Shift+KEY_KPPLUS": "horn", "Shift+KEY_F3": "end"}})
    assert config.codes(shift=True) == {KEY_CODES["KEY_KPPLUS"]: "horn",
                                        KEY_CODES["KEY_F3"]: "end"}
    assert config.codes()[KEY_CODES["KEY_KPPLUS"]] == "start_stop"
    with pytest.raises(KeypadConfigError, match="Shift\\+KEY_KPPLUSS: unknown key name"):
        load_keypad_config({"keys": {"Shift+KEY_KPPLUSS": "horn"}})


def test_the_window_gets_the_keyboard_layout_with_the_same_overrides() -> None:
    config = load_keypad_config({"keys": {"KEY_KPMINUS": "cancel", "KEY_NUMLOCK": ""}})
    window = config.display_keymap("windowed")
    assert window["KEY_KPMINUS"] == "cancel" and "KEY_NUMLOCK" not in window
    assert window["KEY_G"] == "goal_home"
    assert config.display_keymap("fullscreen") == dict(config.keys)
    assert "KEY_G" not in config.display_keymap("fullscreen")


@pytest.mark.parametrize("step_s", [3600, -3600])
def test_a_wall_clock_step_does_not_move_a_realtime_stamped_press_by_the_step(
        bus: FakeBus, clocks: FakeClock, step_s: int) -> None:
    """NTP steps the wall clock by an hour between the kernel's stamp and the poll: the
    offset measured at the poll is an hour off for that press. It is held between the
    last poll and this one, never an hour into the game's past or future."""
    pad = bus.plug(PAD, FakeDevice(clock_ok=False))
    keys = reader(bus, clocks)
    keys.poll(T0)
    press = T0 + 2 * NS
    before = T0 + 2 * NS - 10_000_000  # the loop's last look, 10 ms before the press
    assert keys.poll(before) == []
    pad.key("KEY_KPPLUS", press + REALTIME_OFFSET)  # stamped on the wall clock as it was
    clocks.now = press + 5_000_000
    clocks.set_wall(clocks.wall_datetime() + timedelta(seconds=step_s))  # then the step
    [edge] = keys.poll(clocks.now)
    assert before <= edge.at <= clocks.now
    # The next press, stamped after the step, is exact again.
    later = clocks.now + NS
    pad.key("KEY_KPPLUS", later + REALTIME_OFFSET + step_s * NS, value=0)
    pad.key("KEY_KPPLUS", later + REALTIME_OFFSET + step_s * NS)
    clocks.now = later + 5_000_000
    assert keys.poll(clocks.now) == [ButtonEdge("start_stop", later, False),
                                     ButtonEdge("start_stop", later, True)]
