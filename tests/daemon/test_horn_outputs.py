"""The horn's outputs in a whole in-process hall (tests/daemon/inprocess.py), and on the real
deadline thread: the relay and the audio horn (the console's) switched by one
``HornDriver`` at the same fake instants.

The audio horn is the real one on pygame's mixer with SDL's dummy driver (tests/conftest.py),
which plays in real time: its channel's stop after the fade out is awaited as a condition
with a timeout; the match's instants are all fake.
"""

from __future__ import annotations

import json
import threading
import time
import tomllib
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from arena import presets
from arena.core.commands import Start
from arena.core.match import Match, feed
from arena.core.units import NS_PER_S
from arena.timesource import FakeClock
from display._pygame import pygame
from display.audiohorn import AudioHorn, Output
from firmware_py.config import Config, parse
from firmware_py.daemon import Daemon
from firmware_py.hornthread import HornThread
from firmware_py.operatorweb import body_html
from firmware_py.parts import HallParts, Horn, Relay
from firmware_py.timeline import Timeline
from hardware.horn import HornDriver, HornRelay
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import InProcessHall, LoopHorn, TestParts
from tests.display.test_audiohorn import FakeChannel

CONFIG = '[match]\npreset = "floorball-2x15"\n'
SERVED = '[operator]\nport = 0\nbind = "127.0.0.1"\n'


@pytest.fixture(autouse=True)
def mixer_closed() -> Iterator[None]:
    pygame.mixer.quit()
    yield
    pygame.mixer.quit()


def channel_busy() -> bool:
    return bool(pygame.mixer.Channel(0).get_busy())


def until_silent(timeout_s: float = 2.0) -> bool:
    end = time.monotonic() + timeout_s
    while channel_busy():
        if time.monotonic() > end:
            return False
        time.sleep(0.002)
    return True


def test_relay_and_audio_sound_together_from_the_same_instants(tmp_path: Path) -> None:
    # The HORN button held from 5 s to 8 s, then the first period's end (15 min).
    script = write_script(tmp_path / "s.jsonl", [
        {"t": 0, "do": "start"}, {"t": 5, "do": "horn", "on": True},
        {"t": 8, "do": "horn", "on": False}])
    clock = FakeClock()
    hall = InProcessHall(tmp_path, CONFIG, time=clock)
    start = clock.now
    daemon = hall.start(script=script, parts=TestParts(audio=True))
    assert hall.parts is not None
    audio = hall.parts.made["audio"]
    assert isinstance(audio, AudioHorn) and audio.ready

    daemon.run_until(start + 6 * NS_PER_S)  # mid blast: both sound, the mixer too
    relay = hall.horn.driver.relay
    assert relay is not None and relay.is_on and audio.is_on and channel_busy()
    daemon.run_until(start + 10 * NS_PER_S)
    assert not relay.is_on and not audio.is_on
    assert until_silent()

    daemon.run_until(start + 1000 * NS_PER_S)  # past the period's end and its horn
    daemon.shutdown()
    # Every change switched both outputs at the one instant, never one without the other:
    # the held button's 3 s, the period's end (15:00) for the preset's 2 s.
    assert [((at - start) / NS_PER_S, states) for at, states in hall.horn.outputs_switched] \
        == [(0, (False, False)), (5, (True, True)), (8, (False, False)),
            (900, (True, True)), (902, (False, False))]
    assert pygame.mixer.get_init() is None  # stopping closed the mixer


def test_audio_false_keeps_the_mixer_closed(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, CONFIG + "[console.horn]\naudio = false\n")
    daemon = hall.start(parts=TestParts(audio=True))
    assert hall.parts is not None and "audio" not in hall.parts.made
    assert len(hall.horn.driver.outputs) == 1 and pygame.mixer.get_init() is None
    daemon.shutdown()


class GatedTime(FakeClock):
    """Fake time for the real horn thread: each wait for a deadline blocks until the test
    lets time reach it (``jump_to``), so the test sees every output between two instants."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting: int | None = None  # the deadline the thread waits for
        self._gate = threading.Condition()

    def wait_until(self, deadline_ns: int, cancel: threading.Event | None = None) -> int:
        with self._gate:
            self.waiting = deadline_ns
            self._gate.notify_all()
            while self.now < deadline_ns and not (cancel is not None and cancel.is_set()):
                self._gate.wait(0.01)  # a poll of the stop flag, not a wait for time
            self.waiting = None
            return self.now

    def waits_for(self, deadline_ns: int, timeout_s: float = 5.0) -> bool:
        with self._gate:
            return self._gate.wait_for(lambda: self.waiting == deadline_ns, timeout_s)

    def jump_to(self, instant_ns: int) -> int:
        with self._gate:
            super().jump_to(instant_ns)
            self._gate.notify_all()
            return self.now


def test_the_horn_thread_switches_relay_and_audio_together(tmp_path: Path) -> None:
    """The daemon's own deadline thread (firmware_py/hornthread.py), on fake time."""
    time_source = GatedTime()
    line = Timeline(time_source.monotonic_ns)
    match = Match(presets.load("floorball-2x15"))
    assert feed(match, Start(at=line.now())).refused is None
    period_end = match.next_deadline()
    assert period_end is not None
    factory = MockFactory()
    relay = HornRelay(17, pin_factory=factory)
    audio = AudioHorn()
    assert audio.open()
    thread = HornThread(HornDriver([relay, audio], line.now), line, lambda: match,
                        time_source, closing=[audio.close])
    thread.start()
    try:
        assert time_source.waits_for(line.to_real(period_end))
        assert not relay.is_on and not audio.is_on and not channel_busy()
        time_source.jump_to(line.to_real(period_end))  # the period's end: both, at once
        assert time_source.waits_for(line.to_real(period_end + 2 * NS_PER_S))
        assert relay.is_on and factory.pin(17).state and audio.is_on and channel_busy()
        match.advance(period_end)  # the daemon's loop journals the end meanwhile
        time_source.jump_to(line.to_real(period_end + 2 * NS_PER_S))  # the preset's 2 s
        break_end = match.horn_outlook(period_end + 2 * NS_PER_S).next_change
        assert break_end is not None and break_end > period_end + 2 * NS_PER_S
        assert time_source.waits_for(line.to_real(break_end))  # the break's end is next
        assert not relay.is_on and not audio.is_on
        assert until_silent()
    finally:
        thread.stop()  # every output off, the mixer closed
        relay.close()
        factory.close()
    assert pygame.mixer.get_init() is None


@pytest.mark.parametrize(("text", "outputs"), [("", 2), ("audio = true", 2),
                                               ("audio = false", 1)])
def test_the_hall_parts_give_the_horn_thread_what_the_config_says(text: str,
                                                                  outputs: int) -> None:
    cfg = parse(tomllib.loads(f"[console.horn]\n{text}\n"), "test config")
    factory = MockFactory()
    relay = HornRelay(17, pin_factory=factory)
    time_source = FakeClock()
    horn = HallParts().horn(cfg, relay, Timeline(time_source.monotonic_ns), time_source,
                            lambda: Match(presets.load("floorball-2x15")))
    try:
        assert isinstance(horn, HornThread)
        assert len(horn.driver.outputs) == outputs and horn.driver.outputs[0] is relay
        if outputs == 2:
            audio = horn.driver.outputs[1]
            assert isinstance(audio, AudioHorn)
            assert audio.opened.wait(5.0) and audio.ready  # opened in the background
    finally:
        horn.stop()  # never started: only every output off, the mixer closed
        relay.close()
        factory.close()
    assert pygame.mixer.get_init() is None


# ------------------------------------------------------------------ what the timekeeper sees


def operator_view(daemon: Daemon) -> dict[str, Any]:
    assert daemon.operator_web is not None
    with urllib.request.urlopen(daemon.operator_web.url("/operator.json"),  # 127.0.0.1
                                timeout=5) as answer:
        doc: dict[str, Any] = json.loads(answer.read())
    return doc


@pytest.mark.parametrize(("text", "line", "alert"), [
    ("", "audio horn: on (dummy), makes NO SOUND", True),  # the tests' silent driver
    ("audio = false", "audio horn: off (config)", False)])
def test_the_operator_view_says_whether_the_audio_horn_sounds(
        tmp_path: Path, text: str, line: str, alert: bool) -> None:
    hall = InProcessHall(tmp_path, CONFIG + SERVED + f"[console.horn]\n{text}\n")
    daemon = hall.start(parts=TestParts(audio=True))
    daemon.run_until(hall.time.now + NS_PER_S)
    audio = operator_view(daemon)["audio"]
    assert audio["text"] == line and audio["alert"] is alert
    assert line in body_html(operator_view(daemon))
    daemon.shutdown()


class SoundCardLater(TestParts):
    """The hall's audio horn as HallParts makes it (kept open in the background), on a
    sound card that is not there until the test plugs it in (``plug_in``); the waits
    between tries end when the test says (no real time passes)."""

    def __init__(self) -> None:
        super().__init__()
        self.present = False
        self.tried = threading.Event()
        self.next_try = threading.Event()

    def open(self, sound: object, buffer_frames: int) -> Output:
        self.tried.set()
        if not self.present:
            raise pygame.error("ALSA: Couldn't open audio device: No such file or directory")
        return Output(FakeChannel(), object(), "alsa", 48_000, 2, owned=False)

    def wait(self, seconds: float) -> None:
        self.next_try.wait(5.0)
        self.next_try.clear()

    def plug_in(self) -> None:
        self.present = True
        self.next_try.set()

    def horn(self, config: Config, relay: Relay, timeline: Timeline, time: FakeClock,
             current: Callable[[], Match]) -> Horn:
        assert isinstance(relay, HornRelay)
        audio = AudioHorn(opener=self.open, wait=self.wait)
        self.made["audio"] = audio
        audio.open_in_background()
        assert self.tried.wait(5.0) and audio.opened.wait(5.0)
        self.made["horn"] = LoopHorn(HornDriver([relay, audio], timeline.now), timeline,
                                     current, [audio.close, self.next_try.set],
                                     audio.status)
        return self.made["horn"]


def test_the_timekeeper_sees_the_audio_horn_retried_until_the_card_comes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_AUDIODRIVER", "alsa")  # as the service runs: worth retrying
    parts = SoundCardLater()
    hall = InProcessHall(tmp_path, CONFIG + SERVED)
    daemon = hall.start(parts=parts)
    daemon.run_until(hall.time.now + NS_PER_S)
    waiting = operator_view(daemon)["audio"]
    assert waiting["state"] == "retrying" and waiting["alert"] is True
    assert waiting["text"] == "audio horn: OFF, no sound card yet, retrying"
    assert waiting["text"] in body_html(operator_view(daemon))

    parts.plug_in()
    audio = parts.made["audio"]
    end = time.monotonic() + 5.0  # the keeping thread opens it: a condition, not a sleep
    while not audio.ready and time.monotonic() < end:
        time.sleep(0.002)
    daemon.run_until(hall.time.now + NS_PER_S)
    assert operator_view(daemon)["audio"] == {"state": "on", "driver": "alsa",
                                              "text": "audio horn: on (alsa)",
                                              "alert": False}
    daemon.shutdown()
