"""The audio horn (the console's): the horn through the audio output, for a hall without a
relay or beside it.

The mixer is pygame's real one on SDL's ``dummy`` audio driver (tests/conftest.py), which
plays at real-time pace into nothing: ``Channel.get_busy`` says whether the horn's channel
sounds. Its fade out takes real time, so a stop is awaited as a condition polled with a
timeout, never as a fixed sleep; every instant of the match itself is a fake one.
"""

from __future__ import annotations

import itertools
import logging
import time
import wave
from collections.abc import Callable, Iterator

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from arena import presets
from arena.core.commands import Start
from arena.core.match import Match, feed
from display._pygame import pygame
from display.audiohorn import RATE, SOUND, AudioHorn
from display.sounds import make_horn
from hardware.horn import HornDriver, HornRelay

PIN = 17
S = 1_000_000_000
PERIOD_END = 1200 * S  # ice-hockey-2x20: a 20-minute period started at 0
STOP_WITHIN_S = 2.0  # the 40 ms release takes this long at most even on a loaded machine


@pytest.fixture
def mixer_closed() -> Iterator[None]:
    """Every test opens its own mixer; none leaks one into the next."""
    pygame.mixer.quit()
    yield
    pygame.mixer.quit()


def eventually(condition: Callable[[], bool], timeout_s: float = STOP_WITHIN_S) -> bool:
    """Poll ``condition`` until true or ``timeout_s`` passed (the mixer plays in real time)."""
    end = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.002)
    return True


def horn_channel() -> pygame.mixer.Channel:
    return pygame.mixer.Channel(0)


# ------------------------------------------------------------------ the sound


def test_the_shipped_sound_is_what_make_horn_makes() -> None:
    """CC0, made by us: the WAV is reproducible from the script (no downloaded sound)."""
    assert make_horn.matches(SOUND)


def test_the_sound_is_a_short_16_bit_mono_loop_without_a_seam() -> None:
    with wave.open(str(SOUND), "rb") as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, RATE)
        assert wav.getnframes() / RATE == pytest.approx(0.5)
        frames = wav.readframes(wav.getnframes())
    values = [int.from_bytes(frames[i:i + 2], "little", signed=True)
              for i in range(0, len(frames), 2)]
    steps = [abs(b - a) for a, b in itertools.pairwise(values)]
    # The jump from the last sample back to the first is no larger than one inside the loop.
    assert abs(values[0] - values[-1]) <= max(steps)
    assert max(abs(v) for v in values) > 16_000  # loud enough: about 0.7 of full scale


# ------------------------------------------------------------------ the part


@pytest.mark.usefixtures("mixer_closed")
def test_the_horn_loops_while_on_and_stops_when_off(caplog: pytest.LogCaptureFixture) -> None:
    audio = AudioHorn()
    with caplog.at_level(logging.INFO, logger="display.audiohorn"):
        assert audio.open()
    assert audio.ready and audio.driver == "dummy"
    # One line, and it says the dummy driver is silent (an operator must not be fooled);
    # a note, as "auto" asked for no sound in particular.
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.INFO, "audio horn on (makes no sound)")]
    assert not horn_channel().get_busy()

    audio.set(True)
    assert audio.is_on and horn_channel().get_busy()
    assert horn_channel().get_sound() is not None
    # Loops: still sounding after longer than the 0.5 s sound (a condition, not a sleep).
    started = time.monotonic()
    assert eventually(lambda: time.monotonic() - started > 0.7 and horn_channel().get_busy())
    audio.set(False)
    assert not audio.is_on
    assert eventually(lambda: not horn_channel().get_busy())
    audio.close()
    assert pygame.mixer.get_init() is None


@pytest.mark.usefixtures("mixer_closed")
def test_asked_for_sound_on_a_silent_driver_is_a_warning(
        caplog: pytest.LogCaptureFixture) -> None:
    audio = AudioHorn(required=True)  # audio = true, but SDL's dummy driver: no sound
    with caplog.at_level(logging.INFO, logger="display.audiohorn"):
        assert audio.open()
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.WARNING, "audio horn on (makes no sound)")]
    audio.close()


@pytest.mark.usefixtures("mixer_closed")
def test_a_horn_set_before_the_mixer_opened_sounds_once_it_is_open() -> None:
    """The daemon opens in the background: a period may end before the device is ready."""
    audio = AudioHorn()
    audio.set(True)
    assert not audio.ready and pygame.mixer.get_init() is None
    audio.open_in_background().join(5.0)
    assert audio.opened.is_set() and audio.ready
    assert horn_channel().get_busy()
    audio.close()


@pytest.mark.usefixtures("mixer_closed")
@pytest.mark.parametrize(("required", "level"), [(False, logging.INFO),
                                                 (True, logging.WARNING)])
def test_no_audio_device_means_no_audio_horn_and_one_log_line(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        required: bool, level: int) -> None:
    monkeypatch.setenv("SDL_AUDIODRIVER", "no-such-device")
    audio = AudioHorn(required=required)
    with caplog.at_level(logging.DEBUG, logger="display.audiohorn"):
        assert audio.open() is False
        audio.set(True)  # never raises: the horn goes on without sound
        audio.set(False)
        audio.close()
    assert not audio.ready and "no-such-device" in audio.problem
    assert [(r.levelno, r.getMessage().split(":")[0]) for r in caplog.records] == [
        (level, "audio horn off")]


@pytest.mark.usefixtures("mixer_closed")
def test_a_missing_sound_file_means_no_audio_horn(caplog: pytest.LogCaptureFixture) -> None:
    audio = AudioHorn(sound=SOUND.with_name("absent.wav"))
    with caplog.at_level(logging.INFO, logger="display.audiohorn"):
        assert audio.open() is False
        audio.set(True)
    assert pygame.mixer.get_init() is None  # the device it opened is let go again
    assert [r.getMessage().split(":")[0] for r in caplog.records] == ["audio horn off"]


class BrokenChannel:
    def set_volume(self, volume: float) -> None:
        pass

    def play(self, *args: object, **kwargs: object) -> None:
        raise pygame.error("device unplugged")

    def fadeout(self, ms: int) -> None:
        raise pygame.error("device unplugged")


@pytest.mark.usefixtures("mixer_closed")
def test_a_mixer_error_later_turns_the_audio_off_without_raising(
        caplog: pytest.LogCaptureFixture) -> None:
    audio = AudioHorn()
    assert audio.open()
    audio._channel = BrokenChannel()  # type: ignore[assignment]  # a USB speaker pulled out
    with caplog.at_level(logging.INFO, logger="display.audiohorn"):
        audio.set(True)
        audio.set(False)
        audio.set(True)
    assert not audio.ready
    assert caplog.text.count("audio horn off: the audio output failed: device unplugged") == 1
    audio.close()


# ------------------------------------------------------------------ with the relay


def started_match() -> Match:
    match = Match(presets.load("ice-hockey-2x20"))
    assert feed(match, Start(at=0)).refused is None
    return match


@pytest.mark.usefixtures("mixer_closed")
def test_one_driver_switches_relay_and_audio_at_the_same_instants() -> None:
    factory = MockFactory()
    relay = HornRelay(PIN, pin_factory=factory)
    audio = AudioHorn()
    assert audio.open()
    driver = HornDriver([relay, audio], clock=lambda: 0)
    match = started_match()
    try:
        assert driver.follow(match, PERIOD_END - 1) == PERIOD_END
        assert not relay.is_on and not horn_channel().get_busy()
        # The period's end: both start on the one call at the deadline.
        assert driver.follow(match, PERIOD_END) == PERIOD_END + 2 * S
        assert relay.is_on and factory.pin(PIN).state
        assert audio.is_on and horn_channel().get_busy()
        match.advance(PERIOD_END)
        # The preset's length (2 s): both end at PERIOD_END + 2 s, not a nanosecond before.
        driver.follow(match, PERIOD_END + 2 * S - 1)
        assert relay.is_on and horn_channel().get_busy()
        driver.follow(match, PERIOD_END + 2 * S)
        assert not relay.is_on and not audio.is_on
        assert eventually(lambda: not horn_channel().get_busy())

        driver.follow(match, PERIOD_END + 60 * S)  # the break's end horn
        assert relay.is_on and horn_channel().get_busy()
        driver.fail_safe()  # stopping or an error: every output off
        assert not relay.is_on and not factory.pin(PIN).state
        assert eventually(lambda: not horn_channel().get_busy())
    finally:
        relay.close()
        audio.close()
        factory.close()


@pytest.mark.usefixtures("mixer_closed")
def test_a_blast_shorter_than_a_mixer_buffer_still_ends_and_the_next_is_full_volume() -> None:
    """A tap of HORN: off before the mixer mixed a single buffer, on again mid release."""
    audio = AudioHorn()
    assert audio.open()
    audio.set(True)
    audio.set(False)  # microseconds later
    assert eventually(lambda: not horn_channel().get_busy())
    audio.set(True)
    audio.set(False)
    audio.set(True)  # during the release: full volume again, not the fade's
    assert horn_channel().get_busy() and horn_channel().get_volume() == 1.0
    audio.close()


@pytest.mark.usefixtures("mixer_closed")
def test_closed_while_opening_leaves_no_mixer_open() -> None:
    """The daemon stopped before a slow device opened: nothing is left holding it."""
    audio = AudioHorn()
    audio.close()
    assert audio.open() is False
    assert pygame.mixer.get_init() is None and not audio.ready
