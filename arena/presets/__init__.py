"""The bundled rule presets (docs/developer.md 4.1) and loading of a user's own preset file.

This is the shell side: it reads files. Validation is the core's ``parse_preset``; the
``extends`` merge is the core's ``resolve`` (its docstring defines the merge).

- Playable presets are the ``*.toml`` files here; ``names()`` lists them.
- Base presets are the ``base/*.toml`` files: shared rules that playable presets (and a
  user's own preset file) ``extends = "NAME"``. A base is not playable on its own and is not
  in ``names()``. A preset may also extend a playable bundled preset.
- The journal keeps a preset's whole text so a replay never depends on files that may
  change later: ``journal_text`` makes that text self-contained (its bases merged in).
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from arena.core.errors import PresetError
from arena.core.preset import EXTENDS, Preset, parse_preset, resolve
from arena.core.tables import parse_toml, to_toml

BASE_DIR = "base"


def _files(folder: Traversable) -> dict[str, Traversable]:
    return {entry.name.removesuffix(".toml"): entry for entry in folder.iterdir()
            if entry.name.endswith(".toml")}


def _playable() -> dict[str, Traversable]:
    return _files(resources.files(__package__))


def _bases() -> dict[str, Traversable]:
    return _files(resources.files(__package__).joinpath(BASE_DIR))


def names() -> list[str]:
    """The bundled playable presets, sorted."""
    return sorted(_playable())


def base_names() -> list[str]:
    """The bundled base presets (extended, never played), sorted."""
    return sorted(_bases())


def load(name: str) -> Preset:
    """A bundled preset by name."""
    return parse_text(*bundled_text(name))


def load_file(path: str | Path) -> Preset:
    """A user's own preset file; errors name the file."""
    return parse_text(*file_text(path))


def bundled_text(name: str) -> tuple[str, str]:
    """A bundled playable preset's own text (its ``extends`` unresolved) and source name."""
    entry = _playable().get(name)
    if entry is None:
        hint = (f"; {name!r} is a base preset, which a preset extends"
                if name in _bases() else "")
        raise PresetError(f"unknown preset {name!r} (one of {', '.join(names())}){hint}")
    return entry.read_text(encoding="utf-8"), f"{name}.toml"


def file_text(path: str | Path) -> tuple[str, str]:
    """A preset file's own text and source name (the path as given)."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except OSError as err:
        raise PresetError(f"{path}: cannot read: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise PresetError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from err


def text(name: str, preset_file: Path | None) -> tuple[str, str]:
    """The text and source of the preset a match plays: ``preset_file`` if given, else the
    bundled ``name``. As read: ``journal_text`` makes it self-contained."""
    return file_text(preset_file) if preset_file is not None else bundled_text(name)


def resolved(text: str, source: str) -> tuple[dict[str, Any], str]:
    """A preset text's data with its ``extends`` chain (bundled presets) merged in, and the
    source to name in errors."""
    return resolve(parse_toml(text, source, PresetError), source, _load_base)


def parse_text(text: str, source: str) -> Preset:
    """A preset from its text, its ``extends`` resolved against the bundled presets."""
    data, where = resolved(text, source)
    return parse_preset(data, where)


def journal_text(text: str, source: str) -> str:
    """What the journal keeps of a preset: a text that needs no other file to parse.

    A text without ``extends`` is kept as it is, comments and all (so is every journal
    written before ``extends`` existed). A text with ``extends`` is replaced by the resolved
    preset, written out as TOML, its bases named in a comment at the top. Either way
    ``parse_journalled(journal_text(t, s), s)`` is the preset ``parse_text(t, s)`` is."""
    data = parse_toml(text, source, PresetError)
    if EXTENDS not in data:
        parse_preset(data, source)
        return text
    merged, where = resolve(data, source, _load_base)
    parse_preset(merged, where)
    return to_toml(merged, header=f"{where}, resolved: self-contained for the journal")


def parse_journalled(text: str, source: str) -> Preset:
    """The preset of a journal's setup record. It must be self-contained: a journal never
    depends on a preset file that may have changed since (see ``journal_text``)."""
    data = parse_toml(text, source, PresetError)
    if EXTENDS in data:
        raise PresetError(f"{source}: {EXTENDS}: a journalled preset must be self-contained "
                          "(written by journal_text)")
    return parse_preset(data, source)


def _load_base(name: str) -> tuple[Mapping[str, Any], str]:
    entry = _bases().get(name)
    source = f"{BASE_DIR}/{name}.toml"
    if entry is None:
        entry = _playable().get(name)
        source = f"{name}.toml"
    if entry is None:
        known = ", ".join([*base_names(), *names()])
        raise PresetError(f"unknown preset {name!r} (one of {known})")
    return parse_toml(entry.read_text(encoding="utf-8"), source, PresetError), source
