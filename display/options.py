"""Layout options from a rule preset: what the state document does not carry.

The daemon passes its preset (``options_for``); ``scoreboard snapshot`` only has the preset's
name from the document (``options_for_name``), and falls back to the defaults (60 s tenths,
three shootout rounds, 60 s shifts) for a preset it does not bundle.
"""

from __future__ import annotations

from arena import presets, words
from arena.core.errors import PresetError
from arena.core.preset import Preset
from arena.core.units import NS_PER_MS

from .hall import DEFAULT as DEFAULT_HALL
from .hall import HallGeometry
from .screens.common import LayoutOptions


def options_for(preset: Preset, hall: HallGeometry = DEFAULT_HALL,
                language: str = words.DEFAULT) -> LayoutOptions:
    """``language``: the hall's (``[display] language``, one of ``words.LANGUAGES``)."""
    defaults = LayoutOptions()
    return LayoutOptions(
        hall=hall,
        language=language,
        tenths_below_ms=preset.tenths_below // NS_PER_MS,
        shootout_rounds=preset.shootout.rounds if preset.shootout else defaults.shootout_rounds,
        shift_length_ms=preset.shifts.length // NS_PER_MS if preset.shifts
        else defaults.shift_length_ms,
        periods=preset.periods,
        period_ms=preset.period_length // NS_PER_MS,
    )


def options_for_name(name: object, hall: HallGeometry = DEFAULT_HALL,
                     language: str = words.DEFAULT) -> LayoutOptions:
    if not isinstance(name, str) or name not in presets.names():
        return LayoutOptions(hall=hall, language=language)
    try:
        return options_for(presets.load(name), hall, language)
    except PresetError:
        return LayoutOptions(hall=hall, language=language)
