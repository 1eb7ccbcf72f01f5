"""What is printed from the key map (hardware/keydocs.py): the checked-in label sheet and
the key tables between the markers are what the map prints now, and the command that
rewrites them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hardware import keydocs

ROOT = Path(__file__).resolve().parents[2]


def test_the_checked_in_sheets_are_what_the_map_prints() -> None:
    stale = keydocs.stale(ROOT)
    assert stale == [], (f"{', '.join(map(str, stale))} differ from the key map "
                         f"(arena/keys.py): run `{keydocs.REGENERATE}` and commit the result")


def test_every_page_with_the_markers_is_what_the_map_prints() -> None:
    # A page moved or added later (docs/) is checked as soon as it has the markers.
    pages = [p.relative_to(ROOT) for folder in ("examples", "docs")
             for p in sorted((ROOT / folder).rglob("*.md"))
             if keydocs.BEGIN in p.read_text(encoding="utf-8")]
    assert Path("docs/timekeeper.md") in pages
    stale = keydocs.stale(ROOT, pages)
    assert stale == [], (f"{', '.join(map(str, stale))} differ from the key map: run "
                         f"`{keydocs.REGENERATE} {' '.join(map(str, pages))}`")


def test_the_markers_are_filled_in_any_page() -> None:
    page = "# A page\n\nbefore\n<!-- keymap:begin -->\nstale table\n<!-- keymap:end -->\nafter\n"
    filled = keydocs.fill_markers(page, keydocs.page_block())
    assert filled.startswith("# A page\n\nbefore\n<!-- keymap:begin -->\n")
    assert filled.endswith("<!-- keymap:end -->\nafter\n") and "stale table" not in filled
    assert "| `+` START / STOP |" in filled
    with pytest.raises(ValueError, match="needs <!-- keymap:begin -->"):
        keydocs.fill_markers("# no markers\n", keydocs.page_block())


def test_the_command_checks_and_rewrites(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    for path in (keydocs.LABEL_SHEET, *keydocs.MARKED_PAGES):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, tmp_path / path)
    sheet = tmp_path / keydocs.LABEL_SHEET
    sheet.write_text(sheet.read_text(encoding="utf-8").replace("START", "STRAT"),
                     encoding="utf-8")
    root = ["--root", str(tmp_path)]
    assert keydocs.main([*root, "--check"]) == 1
    assert f"keypad-labels.md: differs from the key map; run `{keydocs.REGENERATE}`" \
        in capsys.readouterr().err
    assert keydocs.main([*root, "--write-docs"]) == 0
    assert keydocs.main([*root, "--check"]) == 0
    assert sheet.read_text(encoding="utf-8") == (ROOT / keydocs.LABEL_SHEET).read_text(
        encoding="utf-8")
    (tmp_path / "plain.md").write_text("# none\n", encoding="utf-8")
    assert keydocs.main([*root, "--check", "plain.md"]) == 2


def test_the_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        keydocs.main(["--help"])
    assert done.value.code == 0 and "--write-docs" in capsys.readouterr().out
