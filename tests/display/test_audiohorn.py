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
import threading
import time
import wave
from collections.abc import Callable, Iterator

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from arena import presets
from arena.core.commands import Start
from arena.core.match import Match, feed
from display._pygame import pygame
from display.audiohorn import RATE, SOUND, AudioHorn, Output, retry_delay
from display.audiostatus import AudioStatus
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
    assert audio.status().state == "opening"
    thread = audio.open_in_background()
    assert audio.opened.wait(5.0) and audio.ready
    assert horn_channel().get_busy()
    assert audio.status() == AudioStatus("on", driver="dummy", silent=True)
    audio.close()
    thread.join(5.0)  # closing ends the thread that keeps it open
    assert not thread.is_alive()


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


# ------------------------------------------------------------------ a sound card that comes later


class FakeChannel:
    """What the audio horn asks of a mixer channel, noted."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.broken = False

    def set_volume(self, volume: float) -> None:
        self.calls.append("volume")

    def play(self, *args: object, **kwargs: object) -> None:
        if self.broken:
            raise pygame.error("device unplugged")
        self.calls.append("play")

    def fadeout(self, ms: int) -> None:
        if self.broken:
            raise pygame.error("device unplugged")
        self.calls.append("fadeout")


class FlakySoundCard:
    """An opener that fails ``fails`` times (no card yet) and then opens ``channel``; every
    open and close noted. ``waits`` are the pauses the audio horn asked for between tries:
    answered at once (the test's time, not a real one). ``channel``: the latest opened."""

    def __init__(self, fails: int) -> None:
        self.fails = fails
        self.tries = 0
        self.closed = 0
        self.channel = FakeChannel()
        self.waits: list[float] = []
        self.open_now = threading.Event()  # set at each successful open

    def open(self, sound: object, buffer_frames: int) -> Output:
        self.tries += 1
        if self.tries <= self.fails:
            raise pygame.error("ALSA: Couldn't open audio device: No such file or directory")
        self.channel = FakeChannel()  # each open: a channel of its own
        self.open_now.set()
        return Output(self.channel, object(), "alsa", 48_000, 2, owned=True)

    def close(self) -> None:
        self.closed += 1

    def wait(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def a_sound_card_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDL told to use ALSA (as the service does): a failed try is worth another."""
    monkeypatch.setenv("SDL_AUDIODRIVER", "alsa")


def flaky_horn(card: FlakySoundCard, *, required: bool = False) -> AudioHorn:
    return AudioHorn(required=required, opener=card.open, closer=card.close, wait=card.wait)


def test_the_waits_between_tries_start_short_and_back_off() -> None:
    assert [retry_delay(n) for n in range(1, 11)] == [2, 2, 2, 2, 2, 4, 8, 16, 30, 30]


@pytest.mark.usefixtures("a_sound_card_driver")
def test_a_sound_card_that_comes_after_the_board_is_found(
        caplog: pytest.LogCaptureFixture) -> None:
    """At boot the card finished probing after the board's first try: fails, fails, opens;
    a horn set meanwhile sounds once it is open; one line off, one line on."""
    card = FlakySoundCard(fails=2)
    audio = flaky_horn(card, required=True)
    audio.set(True)  # a period ended before the card was there
    with caplog.at_level(logging.DEBUG, logger="display.audiohorn"):
        thread = audio.open_in_background()
        assert card.open_now.wait(5.0)
        assert audio.opened.wait(5.0)
        assert wait_for(lambda: audio.ready)
        assert card.tries == 3 and card.waits == [2.0, 2.0]
        assert audio.status() == AudioStatus("on", driver="alsa")
        assert card.channel.calls == ["volume", "play"]  # what the horn was set to, applied
        audio.close()
        thread.join(5.0)  # its lines all written
    said = [(r.levelno, r.getMessage()) for r in caplog.records if r.levelno > logging.DEBUG]
    assert said == [
        (logging.WARNING, "audio horn off: cannot open the audio output: ALSA: Couldn't open "
                          "audio device: No such file or directory; trying again"),
        (logging.INFO, "audio horn on after 3 tries")]
    assert not thread.is_alive() and card.closed == 1


@pytest.mark.usefixtures("a_sound_card_driver")
def test_while_there_is_no_card_the_timekeeper_is_told_it_is_retried() -> None:
    card = FlakySoundCard(fails=10**6)
    paused = threading.Event()

    def wait(seconds: float) -> None:
        card.waits.append(seconds)
        if len(card.waits) == 7:
            paused.set()
            release.wait(5.0)  # hold the keeper here while the test looks

    release = threading.Event()
    audio = AudioHorn(opener=card.open, closer=card.close, wait=wait)
    thread = audio.open_in_background()
    try:
        assert paused.wait(5.0)
        status = audio.status()
        assert status.state == "retrying" and status.tries == 7
        assert "Couldn't open audio device" in status.problem
        assert card.waits == [2, 2, 2, 2, 2, 4, 8]
        audio.set(True)  # never raises, never waits
        audio.set(False)
    finally:
        audio.close()
        release.set()
    thread.join(5.0)
    assert not thread.is_alive() and card.closed == 0  # nothing was opened: nothing closed


@pytest.mark.usefixtures("a_sound_card_driver")
def test_a_speaker_pulled_out_is_tried_again(caplog: pytest.LogCaptureFixture) -> None:
    """The mixer fails on a later set (the device went): off with one line, the mixer closed
    by the keeping thread (not the horn's), and opened again when the card is back."""
    card = FlakySoundCard(fails=0)
    audio = flaky_horn(card)
    thread = audio.open_in_background()
    assert card.open_now.wait(5.0) and wait_for(lambda: audio.ready)
    card.open_now.clear()
    card.fails = card.tries + 1  # the next try fails, the one after opens
    card.channel.broken = True
    with caplog.at_level(logging.INFO, logger="display.audiohorn"):
        audio.set(True)  # on the horn's thread: returns at once, no raise
        assert not audio.ready
        assert card.open_now.wait(5.0) and wait_for(lambda: audio.ready)
        assert card.closed == 1  # the lost mixer was let go before trying again
        assert card.channel.calls == ["volume", "play"]  # the horn still on: sounds again
        audio.close()
        thread.join(5.0)  # its lines all written
    assert [r.getMessage() for r in caplog.records] == [
        "audio horn off: the audio output failed: device unplugged; trying again",
        "audio horn on after 2 tries"]
    assert not thread.is_alive() and card.closed == 2


@pytest.mark.usefixtures("mixer_closed")
def test_on_a_silent_driver_a_failure_is_not_tried_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Headless and in tests (SDL's dummy driver) nothing changes: one try."""
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    card = FlakySoundCard(fails=1)
    audio = flaky_horn(card)
    audio.keep_open()  # returns: there is nothing to keep open
    assert card.tries == 1 and card.waits == [] and audio.status().state == "failed"


@pytest.mark.usefixtures("a_sound_card_driver")
def test_a_missing_sound_file_is_not_tried_again() -> None:
    def no_file(sound: object, buffer_frames: int) -> Output:
        raise FileNotFoundError(2, "No such file or directory", "absent.wav")

    audio = AudioHorn(opener=no_file, wait=lambda s: pytest.fail("waited"))
    audio.keep_open()  # returns after one try: no sound card could bring the file
    assert audio.status().state == "failed" and "absent.wav" in audio.status().problem


def wait_for(condition: Callable[[], bool]) -> bool:
    """A condition another thread makes true (polled with a timeout, not a fixed sleep)."""
    return eventually(condition, 5.0)
