"""The horn's outputs in a whole in-process hall (tests/daemon/inprocess.py): the relay and the
audio horn (issue 14, console) switched by one ``HornDriver`` at the same fake instants.

The audio horn is the real one on pygame's mixer with SDL's dummy driver (tests/conftest.py),
which plays in real time: its channel's stop after the fade out is awaited as a condition
with a timeout; the match's instants are all fake.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from display._pygame import pygame
from display.audiohorn import AudioHorn
from firmware_py.core.units import NS_PER_S
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import FakeTime, InProcessHall, TestParts

CONFIG = '[match]\npreset = "floorball-2x15"\n'


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
    clock = FakeTime()
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
