"""The demo's work dir (``--out DIR`` or a temporary one): what it may reuse, what it keeps."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from demo.tournaments import DemoError

MARKER = ".scoreboard-demo"  # marks a folder as a demo's work dir (safe to clean on reuse)


def prepare_work_dir(out: Path | None) -> tuple[Path, bool]:
    """The work dir and whether it is a temporary one (removed after a good run). A given
    folder must be empty or a previous demo's (its entries are then replaced)."""
    if out is None:
        work = Path(tempfile.mkdtemp(prefix="scoreboard-demo-"))
        (work / MARKER).touch()
        return work, True
    out.mkdir(parents=True, exist_ok=True)
    entries = [p for p in out.iterdir() if p.name != MARKER]
    if entries and not (out / MARKER).exists():
        raise DemoError(f"--out {out}: the folder is not empty and not a previous demo's "
                        "work dir; give an empty or new folder")
    for p in entries:  # a previous demo's output: a new run starts clean
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()
    (out / MARKER).touch()
    return out, False


def count_pngs(folder: Path) -> int:
    return sum(1 for _ in folder.rglob("*.png")) if folder.exists() else 0
