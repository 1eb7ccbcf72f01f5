"""The horn through the audio output (HDMI, 3.5 mm jack, USB speaker): a hall without a relay
hears it from the board's speakers; a hall with one hears both.

``AudioHorn`` is a horn output like the relay (``hardware.horn.HornOutput``): the same
``HornDriver`` on the same deadline thread calls ``set`` at the core's instants, so the sound
starts when the relay closes; its onset comes one mixer period or so later (the mixer mixes
a buffer at a time: ``BUFFER_FRAMES``; bench/horn_deadline.py measures it). While the horn is
on, ``sounds/horn.wav`` (a seamless loop, made by ``sounds/make_horn.py``, CC0) plays over and
over on a channel of its own. It starts at once (no fade in: SDL_mixer ignores a fade out
while a fade in has not yet raised the volume, so a short blast would never end), without
a click as the loop begins on a zero crossing; it ends with a short fade out.

Audio is a convenience, never a reason to stop: if there is no device or the mixer cannot
open, the horn is off with one log line and ``set`` does nothing; every later pygame error
also turns it off with one line. Opening may take long (a sound server that hangs, a device
another program holds), so the daemon opens in the background (``open_in_background``):
until it is open ``set`` only remembers what the horn should do, and the mixer applies that
once open. Nothing here is signal-safe or needs to be: a dying process's sound dies with it.

The sound card may come after the board: at boot the kernel may finish probing it seconds
after the service started (a Pi's HDMI audio registers late; ``After=sound.target`` does
not wait for it), and a USB speaker may be plugged in at half time. So the background
thread keeps trying while the output is not open (``RETRY_S``, then backing off to
``RETRY_MAX_S``), and goes back to trying when the mixer fails later (the speaker pulled
out). One line when the horn goes off, one when it comes on ("after N tries"), never one
per try; ``status`` tells the timekeeper (the operator view). A silent driver (``dummy``,
``disk``: headless runs, tests) and a missing sound file are tried once: no later try can
change them.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._pygame import pygame
from .audiostatus import AudioStatus

log = logging.getLogger(__name__)

SOUND = Path(__file__).parent / "sounds" / "horn.wav"
RATE = 44_100
# Frames the mixer mixes at a time: the onset is late by up to one such buffer (11.6 ms at
# 512) plus the device's own queue. Smaller buffers cost CPU and risk underruns on a Pi.
BUFFER_FRAMES = 512
RELEASE_MS = 40  # the fade out at each end: starts at the deadline, no click
NOT_DEVICES = ("dummy", "disk")  # SDL drivers that make no sound
# The waits between tries while there is no audio output: a card still probing at boot
# comes within seconds, so the first tries are close together; a hall without speakers (or
# one waiting for a USB speaker) is then tried only every RETRY_MAX_S, as each try reloads
# the sound library's configuration and costs a few ms of CPU.
RETRY_S = 2.0
RETRY_FAST = 5  # tries RETRY_S apart before backing off (about 10 s of boot)
RETRY_MAX_S = 30.0


def retry_delay(tries: int) -> float:
    """Seconds to wait after ``tries`` failed tries (1, 2, ...): 2 s five times, then
    doubling up to 30 s."""
    if tries <= RETRY_FAST:
        return RETRY_S
    return min(RETRY_MAX_S, RETRY_S * 2.0 ** (tries - RETRY_FAST))


@dataclass(frozen=True)
class Output:
    """An open audio output: the horn's channel and sound, and what the mixer chose.
    ``owned``: this opened SDL's mixer (and closes it); False where it was open before."""

    channel: Any  # pygame.mixer.Channel, or a test's stand-in with the same three calls
    sound: Any
    driver: str
    rate: int
    channels: int
    owned: bool


Opener = Callable[[Path, int], Output]


def open_mixer(sound_path: Path, buffer_frames: int) -> Output:
    """Open SDL's mixer (unless open) and load the horn's sound on channel 0, reserved;
    raises ``pygame.error`` (no device) or ``OSError`` (no sound file), the mixer closed
    again if it was opened here."""
    owned = False
    try:
        if pygame.mixer.get_init() is None:
            # Mono at 44.1 kHz asked for; the device may choose its own rate and channels
            # (HDMI: often 48 kHz stereo), and the sound is converted once, on loading.
            pygame.mixer.init(frequency=RATE, size=-16, channels=1, buffer=buffer_frames)
            owned = True
        sound = pygame.mixer.Sound(str(sound_path))
        pygame.mixer.set_reserved(1)  # channel 0 is the horn's alone
        channel = pygame.mixer.Channel(0)
        driver = pygame.mixer.get_driver()
    except (pygame.error, OSError):
        if owned:
            pygame.mixer.quit()  # no half-open device held for nothing
        raise
    frequency, _, channels = pygame.mixer.get_init() or (0, 0, 0)
    return Output(channel, sound, driver, frequency, channels, owned)


def close_mixer() -> None:
    pygame.mixer.quit()


def silent_driver(environ: Any = os.environ) -> bool:
    """SDL was told to use a driver that makes no sound: no later try would differ."""
    return str(environ.get("SDL_AUDIODRIVER", "")).lower() in NOT_DEVICES


class AudioHorn:
    """The horn sound on one reserved mixer channel; off until told otherwise.

    ``opener`` and ``closer`` open and close the audio output (SDL's mixer: ``open_mixer``,
    ``close_mixer``); ``wait(seconds)`` waits between tries and returns early once there is
    something to do (closed, the output lost). A test passes its own three to run "fails,
    fails, opens" without a device and without waiting."""

    def __init__(self, sound: Path = SOUND, *, buffer_frames: int = BUFFER_FRAMES,
                 required: bool = False, opener: Opener = open_mixer,
                 closer: Callable[[], None] = close_mixer,
                 wait: Callable[[float], object] | None = None) -> None:
        """``required``: the config asked for audio (``audio = true``), so failing to open is
        a warning rather than a note; either way the horn goes on without sound."""
        self.sound_path = sound
        self.buffer_frames = buffer_frames
        self.required = required
        self.driver = ""  # SDL's audio driver once open
        self.problem = ""  # why there is no sound, once known
        self.tries = 0  # failed tries since the output was last open
        self._opener, self._closer = opener, closer
        self._wake = threading.Event()  # closed, or the output lost: the keeper looks again
        self._wait = wait if wait is not None else self._wake.wait
        self._lock = threading.Lock()  # between the opening thread and set
        self._sound: Any = None
        self._channel: Any = None
        self._owned = False  # the mixer is open and this closes it
        self._silent = False
        self._retrying = False  # a try failed and another will come
        self._keeping = False  # keep_open runs: a lost output is tried again
        self._off_told = False  # "audio horn off" logged since it was last on
        self._want = False  # what the horn should do (remembered until open)
        self._on = False  # what the channel was last told
        self._closed = False
        self.opened = threading.Event()  # set once the first try has finished, opened or not

    @property
    def is_on(self) -> bool:
        """Whether the horn should sound now (what it was last set to)."""
        return self._want

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def ready(self) -> bool:
        """The mixer is open and the sound loaded."""
        return self._channel is not None

    def status(self) -> AudioStatus:
        """What the timekeeper is told (the operator view); any thread."""
        with self._lock:
            if self._channel is not None:
                return AudioStatus("on", driver=self.driver, silent=self._silent)
            if self._retrying:
                return AudioStatus("retrying", problem=self.problem, tries=self.tries)
            if self.problem:
                return AudioStatus("failed", problem=self.problem, tries=self.tries)
            return AudioStatus("opening")

    def open(self, prepare: Callable[[], str] | None = None) -> bool:
        """One try: open the mixer and load the sound; False (and one log line) if that
        fails.

        ``prepare`` runs first on this thread and says how it is scheduled: the daemon
        passes ``make_realtime``, as SDL's audio thread (started by the mixer) inherits the
        policy; at normal scheduling a loaded CPU delays its buffers by tens of ms
        (bench/horn_deadline.py)."""
        scheduling = prepare() if prepare is not None else ""
        opened = self._try_open(scheduling, retry=False)
        self.opened.set()
        return opened

    def keep_open(self, prepare: Callable[[], str] | None = None) -> None:
        """Open, trying again (``retry_delay``) while it fails, and again when the output is
        lost later; returns once closed, or after a failure no try can mend (a silent
        driver, no sound file). Runs on a thread of its own (``open_in_background``)."""
        scheduling = prepare() if prepare is not None else ""
        self._keeping = True
        while True:
            self._wake.clear()  # before looking: a close from now on ends the next wait
            if self._closed:
                return
            opened = self._try_open(scheduling, retry=True)
            self.opened.set()
            if self.closed:  # while it was opening (another thread)
                return
            if opened:
                self._wait_while_open()
                continue
            if not self._retrying:
                return
            self._wait(retry_delay(self.tries))

    def open_in_background(self, prepare: Callable[[], str] | None = None
                           ) -> threading.Thread:
        """``keep_open`` on a thread of its own: the caller never waits for the audio
        device, and a sound card that comes later is found."""
        thread = threading.Thread(target=self.keep_open, args=(prepare,),
                                  name="audio-horn-open", daemon=True)
        thread.start()
        return thread

    def set(self, on: bool) -> None:
        """Sound (loop) or stop; never raises, never waits for the device."""
        with self._lock:
            self._want = on
            self._apply()

    def on(self) -> None:
        self.set(True)

    def off(self) -> None:
        self.set(False)

    def close(self) -> None:
        """Stop the sound and close the mixer (if this opened it). Idempotent."""
        with self._lock:
            self._want = False
            self._apply()
            self._closed = True
            self._channel = self._sound = None
            owned, self._owned = self._owned, False
        self._wake.set()
        if owned:
            try:
                self._closer()
            except pygame.error as err:
                log.warning("audio horn: closing the mixer failed: %s", err)

    # ---------------------------------------------------------- inside

    def _try_open(self, scheduling: str, *, retry: bool) -> bool:
        """One try; on failure, whether another is worth it goes into ``_retrying``."""
        try:
            output = self._opener(self.sound_path, self.buffer_frames)
        except pygame.error as err:  # no device (yet): a later try may find one
            again = retry and not silent_driver()
            self._failed(f"cannot open the audio output: {err}", again)
            return False
        except OSError as err:  # the sound file: no later try will differ
            self._failed(f"cannot open the audio output: {err}", False)
            return False
        with self._lock:
            closed = self._closed
            if not closed:
                self._sound, self._channel, self.driver = output.sound, output.channel, \
                    output.driver
                self._owned = output.owned
                self._silent = output.driver in NOT_DEVICES
                tries, self.tries, self._retrying, self.problem = self.tries + 1, 0, False, ""
                self._off_told = False
                self._on = False  # a fresh channel: nothing playing on it yet
                self._apply()
        if closed:  # the daemon stopped while the device was opening
            if output.owned:
                self._closer()
            return False
        # A warning only where sound was asked for (audio = true) and none will come: with
        # "auto", headless runs and tests choose the silent driver on purpose.
        level = logging.WARNING if self._silent and self.required else logging.INFO
        note = " (makes no sound)" if self._silent else ""
        after = f" after {tries} tries" if tries > 1 else ""
        log.log(level, f"audio horn on{note}{after}", extra={"kv": {
            "driver": output.driver, "device": os.environ.get("AUDIODEV", "default"),
            "rate": output.rate, "channels": output.channels, "buffer": self.buffer_frames,
            **({"tries": tries} if tries > 1 else {}),
            **({"scheduling": scheduling} if scheduling else {})}})
        return True

    def _failed(self, problem: str, again: bool) -> None:
        with self._lock:
            self.tries += 1
            self._retrying = again
            told, self._off_told = self._off_told, True
        if told:  # one line when it goes off, not one per try
            self.problem = problem
            log.debug("audio horn: try %d: %s", self.tries, problem)
        else:
            self._give_up(problem, again=again)

    def _wait_while_open(self) -> None:
        """Until closed or the output lost (``_apply`` let the channel go); a lost output's
        mixer is closed here, off the horn's deadline thread, before the next try."""
        self._wake.wait()
        with self._lock:
            if self._closed or self._channel is not None:
                return
            owned, self._owned = self._owned, False
            self._retrying = True
        if owned:
            try:
                self._closer()
            except pygame.error as err:
                log.debug("audio horn: closing the lost output: %s", err)

    def _apply(self) -> None:
        """Make the channel do what ``_want`` says (the lock held)."""
        channel, sound = self._channel, self._sound
        if channel is None or sound is None or self._want == self._on:
            return
        try:
            if self._want:
                # Full volume first: a start during the last stop's fade out would go on at
                # that fade's volume (SDL_mixer keeps it).
                channel.set_volume(1.0)
                channel.play(sound, loops=-1)
            else:
                channel.fadeout(RELEASE_MS)
            self._on = self._want
        except Exception as err:  # any: the relay on this thread must go on
            self._channel = self._sound = None
            self._on = False
            # The keeper, woken, closes the mixer and tries again (not on this thread).
            self._retrying = self._keeping and not self._closed
            self._off_told = True
            self._give_up(f"the audio output failed: {err}", again=self._retrying)
            self._wake.set()

    def _give_up(self, problem: str, *, again: bool = False) -> None:
        self.problem = problem
        level = logging.WARNING if self.required else logging.INFO
        log.log(level, "audio horn off: %s%s", problem, "; trying again" if again else "")

    def __repr__(self) -> str:
        state = "on" if self._want else "off"
        where = self.driver or ("failed" if self.problem else "not open")
        return f"AudioHorn({where}, {state})"
