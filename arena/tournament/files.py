"""Reading the office's input files (the shell side; validation is ``arena.tournament.reader``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from arena import presets as bundled
from arena.core.errors import PresetError
from arena.core.preset import Preset
from arena.core.tables import parse_toml

from .event import Event, is_event, parse_event
from .model import Tournament
from .reader import TournamentError, parse_tournament


def load_tournament(path: str | Path) -> Tournament:
    """Read, parse and validate a tournament file with the bundled presets it names. Every
    error is a ``TournamentError`` naming the file (as given) and, where there is one, the key."""
    source = str(path)
    data = _read_toml(Path(path), source)
    return _parse_category(data, source)


def load_event(path: str | Path) -> Event:
    """Read an event file (``[event]``, its included and inline categories) or a plain
    tournament file (a one-category event, ``Event.single``). Included files are read
    relative to the event file; errors are ``TournamentError`` naming the file and key."""
    return _event(Path(path), _read_toml)


def event_files(path: str | Path) -> dict[str, str]:
    """The text of an event (or tournament) file and of every file it includes, by the
    names ``load_event`` reads them under; checked as ``load_event`` checks them. What
    ``office reload`` keeps in the store (``office.schedule``)."""
    texts: dict[str, str] = {}

    def remember(file: Path, source: str) -> dict[str, Any]:
        texts[str(file)] = _read_text(file, source)
        return parse_toml(texts[str(file)], source, TournamentError)

    _event(Path(path), remember)
    return texts


def event_from_files(files: Mapping[str, str], source: str) -> Event:
    """An event read from ``event_files``' texts instead of the disk (a reload kept in the
    store): the same checks, the same messages."""

    def lookup(file: Path, name: str) -> dict[str, Any]:
        if str(file) not in files:
            raise TournamentError(f"{name}: {file} was not kept with the reload")
        return parse_toml(files[str(file)], name, TournamentError)

    return _event(Path(source), lookup)


def _event(path: Path, read_toml: Callable[[Path, str], dict[str, Any]]) -> Event:
    source = str(path)
    data = read_toml(path, source)
    if not is_event(data):
        return Event.single(parse_tournament(data, source, load_presets(data, source)))

    def read(name: str, where: str) -> tuple[Mapping[str, Any], str]:
        included = path.parent / name
        try:
            return read_toml(included, str(included)), str(included)
        except TournamentError as err:
            raise TournamentError(f"{where}: {err}") from None

    return parse_event(data, source, _parse_category, read)


def _parse_category(data: Mapping[str, Any], source: str) -> Tournament:
    return parse_tournament(data, source, load_presets(data, source))


def _read_toml(path: Path, source: str) -> dict[str, Any]:
    return parse_toml(_read_text(path, source), source, TournamentError)


def _read_text(path: Path, source: str) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise TournamentError(f"{source}: cannot read: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise TournamentError(f"{source}: not UTF-8 text ({err.reason} at byte "
                              f"{err.start})") from err
    return text


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
