"""What the timekeeper is told about the audio horn: on, opening, off and retrying, off.

Pure (no pygame): the daemon's operator view (firmware_py/operatorview.py) carries it, and
``display.audiohorn.AudioHorn.status`` makes it. A hall that counts on the audio horn (no
relay) must see at the table that it is silent, not find out at the period's end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

State = Literal["on", "opening", "retrying", "failed", "off"]


@dataclass(frozen=True)
class AudioStatus:
    """``on``: the mixer is open (``silent`` on a driver that makes no sound, ``dummy`` or
    ``disk``); ``opening``: the first try has not finished; ``retrying``: no audio output
    yet (no sound card, or it went away), tried ``tries`` times, tried again later;
    ``failed``: no sound and no point in trying again (the sound file is missing);
    ``off``: the config says no audio (``[console.horn] audio = false``)."""

    state: State
    driver: str = ""
    problem: str = ""
    tries: int = 0
    silent: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state}
        if self.driver:
            out["driver"] = self.driver
        if self.silent:
            out["silent"] = True
        if self.problem:
            out["problem"] = self.problem
        if self.tries:
            out["tries"] = self.tries
        return out


OFF = AudioStatus("off")  # no audio output in this hall's config
