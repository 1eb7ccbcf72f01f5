"""Reading the office's input files (the shell side; validation is ``office.tournament``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from firmware_py import presets as bundled
from firmware_py.core.errors import PresetError
from firmware_py.core.preset import Preset
from firmware_py.core.tables import parse_toml

from .model import Tournament
from .tournament import TournamentError, parse_tournament


def load_tournament(path: str | Path) -> Tournament:
    """Read, parse and validate a tournament file with the bundled presets it names. Every
    error is a ``TournamentError`` naming the file (as given) and, where there is one, the key."""
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise TournamentError(f"{source}: cannot read: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise TournamentError(f"{source}: not UTF-8 text ({err.reason} at byte "
                              f"{err.start})") from err
    return tournament_from_text(text, source)


def tournament_from_text(text: str, source: str) -> Tournament:
    """A tournament file's text, parsed and validated as ``load_tournament`` does (the text
    of a reloaded file is kept in the store: ``office.schedule``)."""
    data = parse_toml(text, source, TournamentError)
    return parse_tournament(data, source, load_presets(data, source))


def tournament_presets(data: Mapping[str, object]) -> dict[str, str]:
    """The preset names a parsed tournament file mentions, each with the key path of its
    first mention (``"preset"``, ``"matches[4].preset"``), in file order. Values of the wrong
    type are skipped: ``parse_tournament`` reports those with the rest of the file."""
    named: dict[str, str] = {}
    top = data.get("preset")
    if isinstance(top, str):
        named[top] = "preset"
    matches = data.get("matches")
    if isinstance(matches, list):
        for i, match in enumerate(matches):
            if isinstance(match, Mapping):
                name = match.get("preset")
                if isinstance(name, str):
                    named.setdefault(name, f"matches[{i}].preset")
    return named


def load_presets(data: Mapping[str, object], source: str) -> dict[str, Preset]:
    """Every bundled preset the file names, parsed. An unknown name is the file's error (at
    the key that names it); a bundled preset that fails to parse is reported as it is."""
    loaded: dict[str, Preset] = {}
    known = bundled.names()
    for name, key in tournament_presets(data).items():
        if name not in known:
            raise TournamentError(f"{source}: {key}: unknown preset {name!r} "
                                  f"(one of {', '.join(known)})")
        try:
            loaded[name] = bundled.load(name)
        except PresetError as err:
            raise TournamentError(f"{source}: {key}: preset {name!r} is invalid: {err}") from err
    return loaded
