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
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from ._pygame import pygame

log = logging.getLogger(__name__)

SOUND = Path(__file__).parent / "sounds" / "horn.wav"
RATE = 44_100
# Frames the mixer mixes at a time: the onset is late by up to one such buffer (11.6 ms at
# 512) plus the device's own queue. Smaller buffers cost CPU and risk underruns on a Pi.
BUFFER_FRAMES = 512
RELEASE_MS = 40  # the fade out at each end: starts at the deadline, no click
NOT_DEVICES = ("dummy", "disk")  # SDL drivers that make no sound


class AudioHorn:
    """The horn sound on one reserved mixer channel; off until told otherwise."""

    def __init__(self, sound: Path = SOUND, *, buffer_frames: int = BUFFER_FRAMES,
                 required: bool = False) -> None:
        """``required``: the config asked for audio (``audio = true``), so failing to open is
        a warning rather than a note; either way the horn goes on without sound."""
        self.sound_path = sound
        self.buffer_frames = buffer_frames
        self.required = required
        self.driver = ""  # SDL's audio driver once open
        self.problem = ""  # why there is no sound, once known
        self._lock = threading.Lock()  # between the opening thread and set
        self._sound: pygame.mixer.Sound | None = None
        self._channel: pygame.mixer.Channel | None = None
        self._want = False  # what the horn should do (remembered until open)
        self._on = False  # what the channel was last told
        self._closed = False
        self.opened = threading.Event()  # set once open() has finished, opened or not

    @property
    def is_on(self) -> bool:
        """Whether the horn should sound now (what it was last set to)."""
        return self._want

    @property
    def ready(self) -> bool:
        """The mixer is open and the sound loaded."""
        return self._channel is not None

    def open(self, prepare: Callable[[], str] | None = None) -> bool:
        """Open the mixer and load the sound; False (and one log line) if that fails.

        ``prepare`` runs first on this thread and says how it is scheduled: the daemon
        passes ``make_realtime``, as SDL's audio thread (started by the mixer) inherits the
        policy; at normal scheduling a loaded CPU delays its buffers by tens of ms
        (bench/horn_deadline.py)."""
        scheduling = prepare() if prepare is not None else ""
        opened_here = False
        try:
            if pygame.mixer.get_init() is None:
                # Mono at 44.1 kHz asked for; the device may choose its own rate and channels
                # (HDMI: often 48 kHz stereo), and the sound is converted once, on loading.
                pygame.mixer.init(frequency=RATE, size=-16, channels=1,
                                  buffer=self.buffer_frames)
                opened_here = True
            sound = pygame.mixer.Sound(str(self.sound_path))
            pygame.mixer.set_reserved(1)  # channel 0 is the horn's alone
            channel = pygame.mixer.Channel(0)
            driver = pygame.mixer.get_driver()
        except (pygame.error, OSError) as err:
            if opened_here:
                pygame.mixer.quit()  # no half-open device held for nothing
            self._give_up(f"cannot open the audio output: {err}")
            self.opened.set()
            return False
        with self._lock:
            closed = self._closed
            if not closed:
                self._sound, self._channel, self.driver = sound, channel, driver
                self._apply()
        if closed:  # the daemon stopped while the device was opening
            if opened_here:
                pygame.mixer.quit()
            self.opened.set()
            return False
        frequency, _, channels = pygame.mixer.get_init() or (0, 0, 0)
        # A warning only where sound was asked for (audio = true) and none will come: with
        # "auto", headless runs and tests choose the silent driver on purpose.
        silent = driver in NOT_DEVICES
        level = logging.WARNING if silent and self.required else logging.INFO
        note = " (makes no sound)" if silent else ""
        log.log(level, f"audio horn on{note}", extra={"kv": {
            "driver": driver, "device": os.environ.get("AUDIODEV", "default"),
            "rate": frequency, "channels": channels, "buffer": self.buffer_frames,
            **({"scheduling": scheduling} if scheduling else {})}})
        self.opened.set()
        return True

    def open_in_background(self, prepare: Callable[[], str] | None = None
                           ) -> threading.Thread:
        """``open`` on a thread of its own: the caller never waits for the audio device."""
        thread = threading.Thread(target=self.open, args=(prepare,), name="audio-horn-open",
                                  daemon=True)
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
            channel, self._channel, self._sound = self._channel, None, None
        if channel is not None:
            try:
                pygame.mixer.quit()
            except pygame.error as err:
                log.warning("audio horn: closing the mixer failed: %s", err)

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
            self._give_up(f"the audio output failed: {err}")

    def _give_up(self, problem: str) -> None:
        self.problem = problem
        level = logging.WARNING if self.required else logging.INFO
        log.log(level, "audio horn off: %s", problem)

    def __repr__(self) -> str:
        state = "on" if self._want else "off"
        where = self.driver or ("failed" if self.problem else "not open")
        return f"AudioHorn({where}, {state})"
