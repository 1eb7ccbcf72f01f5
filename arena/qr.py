"""QR codes as symbols of dark modules: the hall's between-games screen shows the public
address (``display.qr``), the office's game sheets print each match's result link.

The encoding itself (ISO/IEC 18004: Reed-Solomon, masks, format and version information) is
segno's; this module only fixes what the display relies on: byte mode (UTF-8), versions 1 to
10 (up to 213 bytes at level M: an address of 200 characters fits, ``arena.wire`` checks
that limit without importing this), the smallest version that holds the text at the level
asked for (no boosting of the level, so the size is predictable), and the modules without the
quiet zone (the renderer adds four light modules around it, as the standard requires).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import segno

Level = Literal["L", "M", "Q", "H"]
MAX_VERSION = 10
QUIET_ZONE = 4  # light modules on every side (ISO 18004 7.3.7)


class QrError(ValueError):
    """The text does not fit a version 1..10 symbol at the level asked for."""


@dataclass(frozen=True, slots=True)
class QrCode:
    """A symbol: ``rows[y][x]`` is True for a dark module; no quiet zone."""

    version: int
    level: Level
    mask: int
    rows: tuple[tuple[bool, ...], ...]

    @property
    def size(self) -> int:
        return len(self.rows)


def encode(text: str, level: Level = "M") -> QrCode:
    """The smallest symbol (version 1..10) holding ``text`` in byte mode at ``level``."""
    data = text.encode("utf-8")
    if len(data) > capacity(MAX_VERSION, level):
        raise QrError(f"{len(data)} bytes do not fit a QR code of version {MAX_VERSION} at "
                      f"level {level} (at most {capacity(MAX_VERSION, level)})")
    symbol = _make(data, None, level)
    return QrCode(int(symbol.version), level, int(symbol.mask),
                  tuple(tuple(bool(m) for m in row) for row in symbol.matrix))


@lru_cache(maxsize=64)
def capacity(version: int, level: Level) -> int:
    """The bytes a symbol of ``version`` holds in byte mode at ``level``: the largest data
    segno fits in it (found by bisection once; the standard's table is not public API)."""
    fits, fails = 0, 4096
    while fails - fits > 1:
        n = (fits + fails) // 2
        try:
            _make(b"x" * n, version, level)
        except segno.DataOverflowError:
            fails = n
        else:
            fits = n
    return fits


def _make(data: bytes, version: int | None, level: Level) -> segno.QRCode:
    return segno.make_qr(data, error=level, version=version, mode="byte", boost_error=False)
