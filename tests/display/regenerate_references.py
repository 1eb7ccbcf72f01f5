"""Rewrite the reference images in tests/display/reference/ after a deliberate change of the
display's look. Review every picture (and the git diff) by eye before committing them.

Each picture is written again more tightly than ``scoreboard snapshot`` writes it
(``compact``: the same pixels, no row filter, zlib at its highest level): the board's flat
areas compress a fifth smaller that way than with libpng's usual adaptive filters, and the
repository carries every version of every picture.

    python tests/display/regenerate_references.py
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = Path(__file__).resolve().parent / "reference"


def reference_path(name: str, size: tuple[int, int]) -> Path:
    return REFERENCE / f"{name}-{size[0]}x{size[1]}.png"


def png(width: int, height: int, rgb: bytes) -> bytes:
    """A PNG of ``rgb`` (8-bit RGB, rows top to bottom), every row unfiltered."""
    row = 3 * width
    if len(rgb) != row * height:
        raise ValueError(f"{len(rgb)} bytes of pixels for {width}x{height} RGB")
    raw = b"".join(b"\x00" + rgb[y * row:(y + 1) * row] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def compact(path: Path) -> None:
    """``path`` rewritten as ``png`` writes it, if that is smaller; its pixels unchanged."""
    from display._pygame import pygame  # noqa: PLC0415

    image = pygame.image.load(str(path))
    rgb = pygame.image.tobytes(image, "RGB")
    data = png(*image.get_size(), rgb)
    if len(data) < path.stat().st_size:
        path.write_bytes(data)


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
            compact(path)
            print(path.relative_to(ROOT))
    for name, lang in LANGUAGE_REFERENCE:
        doc, between, status = SCREENS[name]
        path = snapshot(doc, LANGUAGE_SIZE, reference_path(f"{name}-{lang}", LANGUAGE_SIZE),
                        between=between, status=status, options=options_for_name(
                            doc.get("preset"), HALLS.get(name, DEFAULT), lang))
        compact(path)
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
