"""The score of a forfeit the office awards, from the match's preset: the hall records a
forfeit by the very same field (``Preset.forfeit_goals``, ``[forfeit] goals`` in
arena/presets/*.toml, each value cited there), so the office and the hall never disagree on
what a forfeit is worth in a sport."""

from __future__ import annotations

import functools

from arena import presets as bundled
from arena.tournament.model import Tournament


@functools.cache
def _preset_goals(name: str) -> int:
    # A tournament file is refused when it names a preset that does not load
    # (arena.tournament.files.load_presets), so every name reaching here loads.
    return bundled.load(name).forfeit_goals


def forfeit_goals(tournament: Tournament, match: str) -> int:
    """The goals a forfeit of ``match`` gives against the team that forfeits: its own
    preset's (a match may name another preset than its tournament's default)."""
    scheduled = tournament.match(match)
    return _preset_goals(scheduled.preset if scheduled is not None else tournament.preset)
