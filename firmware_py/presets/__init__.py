"""The bundled rule presets (DESIGN.md 4.1) and loading of a user's own preset file.

This is the shell side: it reads files. Validation is the core's ``parse_preset``.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from firmware_py.core.errors import PresetError
from firmware_py.core.preset import Preset, parse_preset


def names() -> list[str]:
    """The bundled presets, sorted."""
    return sorted(
        entry.name.removesuffix(".toml")
        for entry in resources.files(__package__).iterdir()
        if entry.name.endswith(".toml")
    )


def load(name: str) -> Preset:
    """A bundled preset by name."""
    if name not in names():
        raise PresetError(f"unknown preset {name!r} (one of {', '.join(names())})")
    source = resources.files(__package__).joinpath(f"{name}.toml")
    return _parse(source.read_text(encoding="utf-8"), f"{name}.toml")


def load_file(path: str | Path) -> Preset:
    """A user's own preset file; errors name the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise PresetError(f"{path}: cannot read: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise PresetError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from err
    return _parse(text, str(path))


def _parse(text: str, source: str) -> Preset:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise PresetError(f"{source}: not valid TOML: {err}") from err
    return parse_preset(data, source)
