"""Rewrite the reference images in tests/display/reference/ after a deliberate change of the
display's look. Review every picture (and the git diff) by eye before committing them.

    python tests/display/regenerate_references.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = Path(__file__).resolve().parent / "reference"


def reference_path(name: str, size: tuple[int, int]) -> Path:
    return REFERENCE / f"{name}-{size[0]}x{size[1]}.png"


def main() -> int:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    sys.path.insert(0, str(ROOT))
    from display.hall import DEFAULT  # noqa: PLC0415
    from display.options import options_for_name  # noqa: PLC0415
    from display.snapshot import snapshot  # noqa: PLC0415
    from tests.display.states import HALLS, LANGUAGE_REFERENCE, LANGUAGE_SIZE, SIZES  # noqa: PLC0415
    from tests.display.states import REFERENCE as SCREENS  # noqa: PLC0415

    REFERENCE.mkdir(exist_ok=True)
    for name, (doc, between, status) in SCREENS.items():
        for size in SIZES:
            path = snapshot(doc, size, reference_path(name, size), between=between,
                            status=status, options=options_for_name(
                                doc.get("preset"), HALLS.get(name, DEFAULT)))
            print(path.relative_to(ROOT))
    for name, lang in LANGUAGE_REFERENCE:
        doc, between, status = SCREENS[name]
        path = snapshot(doc, LANGUAGE_SIZE, reference_path(f"{name}-{lang}", LANGUAGE_SIZE),
                        between=between, status=status, options=options_for_name(
                            doc.get("preset"), HALLS.get(name, DEFAULT), lang))
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
