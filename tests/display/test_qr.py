"""The QR code (display/qr.py, segno underneath) and the between screen's QR code
(display/screens/address.py).

Checked against what the standard publishes (ISO/IEC 18004: the byte capacities, the fixed
patterns, the 32 format words) and against an independent decoder, ZBar's ``zbarimg``
(Debian's zbar-tools; the tests that need it skip without it), on the symbols' matrices and
on the rendered between screen.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from display import fonts, qr
from display._pygame import pygame
from display.document import DocumentError, read_between
from display.items import Frame, Qr
from display.layout import FrameInputs, layout
from display.render import render
from display.screens.address import shown_address
from tests.display import states

ZBAR = shutil.which("zbarimg")
needs_zbar = pytest.mark.skipif(ZBAR is None, reason="no zbarimg (apt-get install zbar-tools)")

# ISO 18004 Annex C, Table C.1: the 15 format bits by level and mask 0..7.
FORMAT = {
    "L": ["111011111000100", "111001011110011", "111110110101010", "111100010011101",
          "110011000101111", "110001100011000", "110110001000001", "110100101110110"],
    "M": ["101010000010010", "101000100100101", "101111001111100", "101101101001011",
          "100010111111001", "100000011001110", "100111110010111", "100101010100000"],
    "Q": ["011010101011111", "011000001101000", "011111100110001", "011101000000110",
          "010010010110100", "010000110000011", "010111011011010", "010101111101101"],
    "H": ["001011010001001", "001001110111110", "001110011100111", "001100111010000",
          "000011101100010", "000001001010101", "000110100001100", "000100000111011"],
}
def test_the_smallest_version_that_holds_the_text_and_its_fixed_patterns() -> None:
    code = qr.encode("http://results.local/")
    assert (code.version, code.size, code.level) == (2, 25, "M")
    finder = [[max(abs(x - 3), abs(y - 3)) != 2 for x in range(7)] for y in range(7)]
    n = code.size
    for x0, y0 in ((0, 0), (n - 7, 0), (0, n - 7)):
        assert [list(r[x0:x0 + 7]) for r in code.rows[y0:y0 + 7]] == finder
    assert [code.rows[6][x] for x in range(8, n - 8)] == [x % 2 == 0 for x in range(8, n - 8)]
    assert code.rows[n - 8][8]  # the dark module
    # The format word's both copies (ISO 18004 7.9.1, Figure 25), bit 0 the least significant.
    first = [(8, y) for y in (0, 1, 2, 3, 4, 5, 7, 8)] + [(x, 8) for x in (7, 5, 4, 3, 2, 1, 0)]
    second = [(n - 1 - i, 8) for i in range(8)] + [(8, n - 7 + i) for i in range(7)]
    for copy in (first, second):
        bits = "".join("1" if code.rows[y][x] else "0" for x, y in reversed(copy))
        assert bits == FORMAT["M"][code.mask]


def test_the_capacities_are_the_standards_byte_mode_table() -> None:
    """ISO 18004 Table 7, byte mode, versions 1 to 10."""
    assert [qr.capacity(v, "M") for v in range(1, 11)] == [14, 26, 42, 62, 84, 106, 122, 152,
                                                            180, 213]
    assert [qr.capacity(10, level) for level in "LMQH"] == [271, 213, 151, 119]


def test_two_hundred_characters_fit_and_more_than_version_10_holds_is_refused() -> None:
    assert qr.capacity(10, "M") == 213
    assert qr.encode(states.LONG_URL).version == 10
    with pytest.raises(qr.QrError, match="214 bytes do not fit a QR code of version 10"):
        qr.encode("x" * 214)


def _png(code: qr.QrCode, path: Path, module: int = 4) -> Path:
    side = (code.size + 2 * qr.QUIET_ZONE) * module
    surface = pygame.Surface((side, side))
    surface.fill((255, 255, 255))
    for y, row in enumerate(code.rows):
        for x, dark in enumerate(row):
            if dark:
                surface.fill((0, 0, 0), ((x + qr.QUIET_ZONE) * module,
                                         (y + qr.QUIET_ZONE) * module, module, module))
    pygame.image.save(surface, str(path))
    return path


def _decoded(path: Path) -> str:
    assert ZBAR is not None
    done = subprocess.run([ZBAR, "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(path)],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.removesuffix("\n")


TEXTS = ["a", "http://results.local/", "https://tournament.example.org/halls/2/standings",
         "http://ÚSTÍ.example/výsledky", states.LONG_URL]


@pytest.mark.slow
@needs_zbar
@pytest.mark.parametrize("level", "LMQH")
def test_zbar_reads_back_every_version_and_level(level: qr.Level, tmp_path: Path) -> None:
    versions = set()
    for n in (1, 10, 17, 30, 45, 60, 80, 100, 120, 150, 180, 213):
        text = ("http://x.example/" + "0123456789abcdef" * 14)[:n]
        if len(text) > qr.capacity(qr.MAX_VERSION, level):
            continue
        code = qr.encode(text, level)
        versions.add(code.version)
        assert _decoded(_png(code, tmp_path / f"{level}{n}.png")) == text, (level, n)
    assert len(versions) >= 6  # the small, the mid (alignment) and version-info sizes


@pytest.mark.slow
@needs_zbar
@pytest.mark.parametrize("text", TEXTS)
def test_zbar_reads_back_addresses(text: str, tmp_path: Path) -> None:
    assert _decoded(_png(qr.encode(text), tmp_path / "code.png")) == text


def _between(size: tuple[int, int], url: str | None = states.PUBLIC_URL) -> Frame:
    return layout(states.BETWEEN, size, between={**states.BETWEEN_DATA, "public_url": url},
                  measure=fonts.measure)


@pytest.mark.slow
@needs_zbar
@pytest.mark.parametrize("size", states.SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("url", [states.PUBLIC_URL, states.LONG_URL], ids=["short", "long"])
def test_a_phone_reads_the_whole_rendered_between_screen(size: tuple[int, int], url: str,
                                                         tmp_path: Path) -> None:
    surface = render(FrameInputs(states.BETWEEN, size,
                                 {**states.BETWEEN_DATA, "public_url": url}))
    path = tmp_path / "between.png"
    pygame.image.save(surface, str(path))
    assert _decoded(path) == url


def test_the_drawn_code_is_black_modules_on_a_white_square() -> None:
    size = (1280, 720)
    frame = _between(size)
    (item,) = [i for i in frame.items if isinstance(i, Qr)]
    surface = render(FrameInputs(states.BETWEEN, size, {**states.BETWEEN_DATA,
                                                        "public_url": states.PUBLIC_URL}))
    x, y, w, h = item.rect
    m = item.module
    assert w == h == (len(item.rows) + 2 * qr.QUIET_ZONE) * m
    for dy in range(0, h, m):  # the quiet zone: white all round
        for dx in (0, w - 1):
            assert surface.get_at((x + dx, y + dy))[:3] == (255, 255, 255)
    for row, cells in enumerate(item.rows):
        for col, dark in enumerate(cells):
            centre = (x + (col + qr.QUIET_ZONE) * m + m // 2,
                      y + (row + qr.QUIET_ZONE) * m + m // 2)
            assert surface.get_at(centre)[:3] == ((0, 0, 0) if dark else (255, 255, 255))
    assert surface.get_at((x - 2, y + h // 2))[:3] != (255, 255, 255)  # the board around


@pytest.mark.parametrize("size", states.SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_code_and_its_address_sit_right_of_the_tables(size: tuple[int, int]) -> None:
    frame = _between(size)
    (code,) = frame.with_role("address.qr")
    (address,) = frame.with_role("address.text")
    assert address.text == "results.local"  # type: ignore[union-attr]
    assert address.rect[1] >= code.rect[1] + code.rect[3]
    tables = [i for i in frame.items if i.role.startswith("table.")]
    assert tables and all(t.rect[0] + t.rect[2] < code.rect[0] for t in tables)


def test_a_module_is_at_least_a_centimetre_on_the_default_55_inch_tv() -> None:
    """68.5 cm of picture: 1 cm is 15.8 px at 1080 lines, 10.5 px at 720."""
    for size in ((1920, 1080), (1280, 720)):
        (code,) = _between(size).with_role("address.qr")
        assert isinstance(code, Qr)
        assert code.module * 68.5 / size[1] >= 1.0, size


def test_without_an_address_or_tables_there_is_no_code() -> None:
    assert not _between((1920, 1080), None).with_role("address.qr")
    only_next = layout(states.BETWEEN, (1920, 1080), between={
        "next": states.BETWEEN_DATA["next"], "public_url": states.PUBLIC_URL},
        measure=fonts.measure)
    assert only_next.screen == "between" and not only_next.with_role("address.qr")


def test_an_address_too_long_for_a_code_is_refused_naming_the_key() -> None:
    with pytest.raises(DocumentError, match="public_url: 214 bytes: a QR code holds 1 to 213"):
        read_between({"public_url": "x" * 214})
    with pytest.raises(DocumentError, match="public_url"):
        read_between({"public_url": 5})
    assert read_between({"public_url": states.PUBLIC_URL}).public_url == states.PUBLIC_URL


def test_the_address_shown_is_what_a_spectator_types() -> None:
    assert shown_address("http://results.local/") == "results.local"
    assert shown_address("https://cup.example.org/u11/") == "cup.example.org/u11/"
    assert shown_address("HTTP://Results.Local") == "Results.Local"


def test_the_daemon_passes_the_configured_address_to_the_screen(tmp_path: Path) -> None:
    """[display] public_url reaches the between-games data, which the screen draws."""
    from arena import presets  # noqa: PLC0415
    from arena.core.match import Match  # noqa: PLC0415
    from arena.core.values import MatchSetup  # noqa: PLC0415
    from firmware_py import config  # noqa: PLC0415
    from firmware_py.between import between_games  # noqa: PLC0415

    path = tmp_path / "hall.toml"
    path.write_text('[display]\npublic_url = "http://results.local/"\n', encoding="utf-8")
    url = config.load(path).public_url
    assert url == "http://results.local/"
    match = Match(presets.load("ice-hockey-2x20"), MatchSetup(match_id="A5"))
    standings = {"A": states.BETWEEN_DATA["tables"][0]}
    data = between_games(match, 0, pending=None, loaded=None, standings=standings,
                         final_hold=0, public_url=url)
    assert data is not None and data["public_url"] == url
    frame = layout(states.PREGAME, (1920, 1080), between=data, measure=fonts.measure)
    assert frame.with_role("address.qr")
    plain = between_games(match, 0, pending=None, loaded=None, standings=standings,
                          final_hold=0)
    assert plain is not None and "public_url" not in plain


def test_the_configs_limit_is_what_the_code_holds() -> None:
    """The limit every entry point checks (wire.check_public_url: the hall's config, the
    office's --public-url, the ``next`` a hall reads) is what the display's code holds."""
    from arena import wire  # noqa: PLC0415

    assert qr.capacity(qr.MAX_VERSION, "M") == wire.PUBLIC_URL_BYTES
    assert len(states.LONG_URL) == wire.PUBLIC_URL_CHARS
