"""The public site as files: a static export any web server or CDN can serve.

``write_site`` writes what changed since the last export into the folder, each file first
into a hidden folder inside it (``.incoming``, so on the same file system) and then renamed
over the old one: ``os.replace`` is atomic, so a web server reading a file sees either the
old one or the new one whole, never a half-written file. Pages that are gone (a team page
after a reload) are removed after the new files are in place. Files that did not change are
not touched, so their modification time (what a static server's ``Last-Modified`` and
``ETag`` are made of) stays, and a CDN keeps its copy.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

INCOMING = ".incoming"


class ExportError(OSError):
    """The export folder cannot be written; the message names it."""


def write_site(directory: Path, files: Mapping[str, bytes],
               previous: Mapping[str, bytes] | None = None) -> dict[str, bytes]:
    """Make ``directory`` hold exactly ``files`` (relative path -> bytes); ``previous``:
    what the last call wrote (files equal to it are left alone). Returns ``files``, for the
    next call. Paths are the site's own (``team/lions/index.html``): never absolute, no
    ``..``."""
    before = dict(previous or {})
    for rel in files:
        if rel.startswith("/") or ".." in rel.split("/") or not rel:
            raise ValueError(f"export: {rel!r} is not a path inside the site")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        incoming = directory / INCOMING
        shutil.rmtree(incoming, ignore_errors=True)  # a crash's leftovers
        incoming.mkdir()
        try:
            changed = [rel for rel, body in files.items()
                       if before.get(rel) != body or not (directory / rel).is_file()]
            for n, rel in enumerate(changed):
                staged = incoming / str(n)
                staged.write_bytes(files[rel])
                target = directory / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(staged, target)
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
        for rel in before:
            if rel not in files:
                _remove(directory, rel)
    except OSError as err:
        raise ExportError(f"export to {directory}: {err.strerror or err}") from err
    return dict(files)


def _remove(directory: Path, rel: str) -> None:
    """A page no longer in the site, and the folders it leaves empty."""
    with contextlib.suppress(FileNotFoundError):
        (directory / rel).unlink()
    parent = (directory / rel).parent
    while parent != directory:
        try:
            parent.rmdir()
        except OSError:
            break  # not empty (or gone): leave it
        parent = parent.parent
