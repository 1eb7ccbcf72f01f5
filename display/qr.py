"""A QR code encoder (ISO/IEC 18004) for the between-games screen's public address.

Pure: standard library only, no I/O. Byte mode (UTF-8), versions 1 to 10 (up to 213 bytes at
level M: an address of 200 characters fits), levels L, M, Q and H, Reed-Solomon over GF(256),
the eight masks chosen by the standard's penalty score, format and version information.
Written here rather than taken from a library: it is small, and the display keeps its
dependencies few. ``encode`` returns the symbol's modules without the quiet zone (the
renderer adds four light modules around it, as the standard requires).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

Level = Literal["L", "M", "Q", "H"]
MAX_VERSION = 10
QUIET_ZONE = 4  # light modules on every side (ISO 18004 7.3.7)

# Per version 1..10: total codewords, then per level the EC codewords of a block and the
# blocks as (count, data codewords in each) (ISO 18004 Table 9).
_Blocks = tuple[int, tuple[tuple[int, int], ...]]
_TABLE: dict[int, tuple[int, dict[str, _Blocks]]] = {
    1: (26, {"L": (7, ((1, 19),)), "M": (10, ((1, 16),)), "Q": (13, ((1, 13),)),
             "H": (17, ((1, 9),))}),
    2: (44, {"L": (10, ((1, 34),)), "M": (16, ((1, 28),)), "Q": (22, ((1, 22),)),
             "H": (28, ((1, 16),))}),
    3: (70, {"L": (15, ((1, 55),)), "M": (26, ((1, 44),)), "Q": (18, ((2, 17),)),
             "H": (22, ((2, 13),))}),
    4: (100, {"L": (20, ((1, 80),)), "M": (18, ((2, 32),)), "Q": (26, ((2, 24),)),
              "H": (16, ((4, 9),))}),
    5: (134, {"L": (26, ((1, 108),)), "M": (24, ((2, 43),)), "Q": (18, ((2, 15), (2, 16))),
              "H": (22, ((2, 11), (2, 12)))}),
    6: (172, {"L": (18, ((2, 68),)), "M": (16, ((4, 27),)), "Q": (24, ((4, 19),)),
              "H": (28, ((4, 15),))}),
    7: (196, {"L": (20, ((2, 78),)), "M": (18, ((4, 31),)), "Q": (18, ((2, 14), (4, 15))),
              "H": (26, ((4, 13), (1, 14)))}),
    8: (242, {"L": (24, ((2, 97),)), "M": (22, ((2, 38), (2, 39))),
              "Q": (22, ((4, 18), (2, 19))), "H": (26, ((4, 14), (2, 15)))}),
    9: (292, {"L": (30, ((2, 116),)), "M": (22, ((3, 36), (2, 37))),
              "Q": (20, ((4, 16), (4, 17))), "H": (24, ((4, 12), (4, 13)))}),
    10: (346, {"L": (18, ((2, 68), (2, 69))), "M": (26, ((4, 43), (1, 44))),
               "Q": (24, ((6, 19), (2, 20))), "H": (28, ((6, 15), (2, 16)))}),
}
_ALIGNMENT = {1: (), 2: (6, 18), 3: (6, 22), 4: (6, 26), 5: (6, 30), 6: (6, 34),
              7: (6, 22, 38), 8: (6, 24, 42), 9: (6, 26, 46), 10: (6, 28, 50)}
_LEVEL_BITS = {"L": 1, "M": 0, "Q": 3, "H": 2}  # the format information's two EC bits
_MASKS: tuple[Callable[[int, int], bool], ...] = (  # (x: column, y: row) -> flip
    lambda x, y: (x + y) % 2 == 0,
    lambda x, y: y % 2 == 0,
    lambda x, y: x % 3 == 0,
    lambda x, y: (x + y) % 3 == 0,
    lambda x, y: (x // 3 + y // 2) % 2 == 0,
    lambda x, y: x * y % 2 + x * y % 3 == 0,
    lambda x, y: (x * y % 2 + x * y % 3) % 2 == 0,
    lambda x, y: ((x + y) % 2 + x * y % 3) % 2 == 0,
)


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
    for version in range(1, MAX_VERSION + 1):
        if len(data) <= capacity(version, level):
            return _symbol(data, version, level)
    raise QrError(f"{len(data)} bytes do not fit a QR code of version {MAX_VERSION} at level "
                  f"{level} (at most {capacity(MAX_VERSION, level)})")


def capacity(version: int, level: Level) -> int:
    """The bytes a symbol holds in byte mode: the data bits less the mode and count."""
    return (_data_codewords(version, level) * 8 - 4 - _count_bits(version)) // 8


def _data_codewords(version: int, level: Level) -> int:
    _ec, blocks = _TABLE[version][1][level]
    return sum(count * size for count, size in blocks)


def _count_bits(version: int) -> int:
    return 8 if version < 10 else 16


def _symbol(data: bytes, version: int, level: Level) -> QrCode:
    codewords = _interleave(_data_bits(data, version, level), version, level)
    grid = _Grid(version)
    grid.place(codewords)
    best = min(range(8), key=lambda mask: penalty(grid.masked(mask, level)))
    return QrCode(version, level, best, tuple(tuple(row) for row in grid.masked(best, level)))


def _data_bits(data: bytes, version: int, level: Level) -> bytes:
    """Mode 0100 (byte), the count, the bytes, the terminator, then the pad codewords."""
    bits = [0, 1, 0, 0]
    bits += [(len(data) >> i) & 1 for i in reversed(range(_count_bits(version)))]
    for byte in data:
        bits += [(byte >> i) & 1 for i in reversed(range(8))]
    room = _data_codewords(version, level) * 8
    bits += [0] * min(4, room - len(bits))
    bits += [0] * (-len(bits) % 8)
    out = bytearray(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))
    pads = (0xEC, 0x11)
    while len(out) < room // 8:
        out.append(pads[(len(out) - len(bits) // 8) % 2])
    return bytes(out)


def _interleave(data: bytes, version: int, level: Level) -> bytes:
    """Split into blocks, add each block's EC codewords, then interleave (ISO 18004 7.6)."""
    ec_len, groups = _TABLE[version][1][level]
    blocks: list[bytes] = []
    at = 0
    for count, size in groups:
        for _ in range(count):
            blocks.append(data[at:at + size])
            at += size
    ecs = [reed_solomon(block, ec_len) for block in blocks]
    out = bytearray()
    for i in range(max(len(b) for b in blocks)):
        out += bytes(b[i] for b in blocks if i < len(b))
    for i in range(ec_len):
        out += bytes(e[i] for e in ecs)
    return bytes(out)


# GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
_EXP = [0] * 512
_LOG = [0] * 256
_value = 1
for _i in range(255):
    _EXP[_i] = _value
    _LOG[_value] = _i
    _value <<= 1
    if _value & 0x100:
        _value ^= 0x11D
for _i in range(255, 512):
    _EXP[_i] = _EXP[_i - 255]


def _mul(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else _EXP[_LOG[a] + _LOG[b]]


def reed_solomon(data: bytes, ec_len: int) -> bytes:
    """The ``ec_len`` error-correction codewords of ``data``: the remainder of data(x)·x^n
    divided by the generator (x - α^0)(x - α^1)...(x - α^(n-1))."""
    generator = [1]
    for i in range(ec_len):
        generator = [a ^ _mul(b, _EXP[i]) for a, b in zip([*generator, 0], [0, *generator],
                                                           strict=True)]
    # generator[0] is the highest power's (1); long division by it.
    remainder = list(data) + [0] * ec_len
    for i in range(len(data)):
        factor = remainder[i]
        if factor:
            for j, g in enumerate(generator):
                remainder[i + j] ^= _mul(g, factor)
    return bytes(remainder[len(data):])


def _bch(value: int, generator: int, bits: int) -> int:
    """``value`` followed by its BCH remainder (``bits`` check bits)."""
    rem = value << bits
    top = generator.bit_length() - 1
    for shift in reversed(range(rem.bit_length() - top)):
        if rem >> (shift + top) & 1:
            rem ^= generator << shift
    return value << bits | rem


def format_bits(level: Level, mask: int) -> int:
    """The 15 format bits: level and mask, BCH(15,5), XORed with 101010000010010."""
    return _bch(_LEVEL_BITS[level] << 3 | mask, 0x537, 10) ^ 0x5412


def version_bits(version: int) -> int:
    """The 18 version bits (versions 7 and up): the version and its BCH(18,6) check."""
    return _bch(version, 0x1F25, 12)


class _Grid:
    """The symbol being built: the function patterns, then the data, then a mask."""

    def __init__(self, version: int) -> None:
        self.version = version
        self.size = 17 + 4 * version
        self.dark = [[False] * self.size for _ in range(self.size)]
        self.function = [[False] * self.size for _ in range(self.size)]
        self._patterns()

    def _set(self, x: int, y: int, dark: bool) -> None:
        self.dark[y][x] = dark
        self.function[y][x] = True

    def _patterns(self) -> None:
        n = self.size
        for i in range(n):  # timing patterns
            self._set(6, i, i % 2 == 0)
            self._set(i, 6, i % 2 == 0)
        for cx, cy in ((3, 3), (n - 4, 3), (3, n - 4)):  # finders with their separators
            for dy in range(-4, 5):
                for dx in range(-4, 5):
                    x, y = cx + dx, cy + dy
                    if 0 <= x < n and 0 <= y < n:
                        ring = max(abs(dx), abs(dy))
                        self._set(x, y, ring not in (2, 4))
        centres = _ALIGNMENT[self.version]
        corners = {(centres[0], centres[0]), (centres[0], centres[-1]),
                   (centres[-1], centres[0])} if centres else set()
        for cy in centres:
            for cx in centres:
                if (cx, cy) in corners:
                    continue  # where the finders are
                for dy in range(-2, 3):
                    for dx in range(-2, 3):
                        self._set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1)
        self._format(0, "M")  # reserves the format areas; written for real per mask
        if self.version >= 7:
            bits = version_bits(self.version)
            for i in range(18):
                bit = bits >> i & 1 == 1
                a, b = n - 11 + i % 3, i // 3
                self._set(a, b, bit)
                self._set(b, a, bit)

    def _format(self, mask: int, level: Level) -> None:
        n = self.size
        bits = format_bits(level, mask)

        def bit(i: int) -> bool:
            return bits >> i & 1 == 1

        for i in range(6):
            self._set(8, i, bit(i))
        self._set(8, 7, bit(6))
        self._set(8, 8, bit(7))
        self._set(7, 8, bit(8))
        for i in range(9, 15):
            self._set(14 - i, 8, bit(i))
        for i in range(8):
            self._set(n - 1 - i, 8, bit(i))
        for i in range(8, 15):
            self._set(8, n - 15 + i, bit(i))
        self._set(8, n - 8, True)  # the dark module

    def place(self, codewords: bytes) -> None:
        """The codewords' bits in the two-column zigzag from the bottom right (7.7.3);
        modules left over (remainder bits) stay light."""
        n, i, total = self.size, 0, len(codewords) * 8
        right = n - 1
        while right >= 1:
            if right == 6:
                right = 5  # the vertical timing pattern's column is skipped
            upward = (right + 1) & 2 == 0
            for vert in range(n):
                y = n - 1 - vert if upward else vert
                for x in (right, right - 1):
                    if not self.function[y][x]:
                        if i < total:
                            self.dark[y][x] = codewords[i >> 3] >> (7 - (i & 7)) & 1 == 1
                        i += 1
            right -= 2

    def masked(self, mask: int, level: Level) -> list[list[bool]]:
        """A copy with ``mask`` applied to the data modules and its format bits written."""
        self._format(mask, level)
        flip = _MASKS[mask]
        return [[dark != (not self.function[y][x] and flip(x, y))
                 for x, dark in enumerate(row)] for y, row in enumerate(self.dark)]


_FINDER_LIKE = ((True, False, True, True, True, False, True, False, False, False, False),
                (False, False, False, False, True, False, True, True, True, False, True))


def penalty(rows: list[list[bool]]) -> int:
    """The standard's score of a masked symbol (ISO 18004 7.8.3): lower is easier to read."""
    n = len(rows)
    columns = [[rows[y][x] for y in range(n)] for x in range(n)]
    score = 0
    for line in (*rows, *columns):
        run = 1
        for a, b in pairwise(line):  # N1: runs of five or more
            if a == b:
                run += 1
                continue
            score += run - 2 if run >= 5 else 0
            run = 1
        score += run - 2 if run >= 5 else 0
        for i in range(n - 10):  # N3: 1:1:3:1:1 with four light modules on one side
            if tuple(line[i:i + 11]) in _FINDER_LIKE:
                score += 40
    for y in range(n - 1):  # N2: 2x2 blocks of one colour
        for x in range(n - 1):
            if rows[y][x] == rows[y][x + 1] == rows[y + 1][x] == rows[y + 1][x + 1]:
                score += 3
    dark = sum(map(sum, rows))  # N4: far from half dark
    return score + abs(dark * 20 - n * n * 10) // (n * n) * 10
