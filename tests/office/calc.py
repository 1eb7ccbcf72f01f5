"""The exports as a spreadsheet reads them: LibreOffice (headless) converts a CSV or
``.xlsx`` to OpenDocument, and the cells are read back from its XML, each with what the
spreadsheet made of it (text or number, and the formula, if it took one)."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
needs_soffice = pytest.mark.skipif(
    SOFFICE is None, reason="LibreOffice is not installed (Debian: apt-get install "
                            "--no-install-recommends libreoffice-calc-nogui)")

_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"


def soffice_all(sources: Sequence[Path], target: str, out: Path, *,
                infilter: str | None = None) -> list[Path]:
    """LibreOffice converts every one of ``sources`` in one start (a profile of its own, no
    network); the converted files, in the same order."""
    assert SOFFICE is not None
    args = [SOFFICE, "--headless", "--norestore", "--nolockcheck",
            f"-env:UserInstallation={(out / 'profile').as_uri()}"]
    if infilter is not None:
        args.append(f"--infilter={infilter}")
    subprocess.run([*args, "--convert-to", target, "--outdir", str(out),
                    *(str(s) for s in sources)], capture_output=True, check=True, timeout=180)
    converted = [out / (s.stem + "." + target.split(":", maxsplit=1)[0]) for s in sources]
    for path in converted:
        assert path.is_file(), f"LibreOffice wrote no {path.name}"
    return converted


def soffice(source: Path, target: str, out: Path, *, infilter: str | None = None) -> Path:
    """LibreOffice converts ``source`` headless."""
    return soffice_all([source], target, out, infilter=infilter)[0]


@dataclass(frozen=True)
class CalcCell:
    """A cell as the spreadsheet holds it."""

    text: str  # as shown: paragraphs joined by a newline
    kind: str  # office:value-type ("string", "float", ...; "" for an empty cell)
    value: str | None  # office:value, a number's value
    formula: str | None  # table:formula: set only where the spreadsheet took a formula


def _text(node: ET.Element) -> str:
    """A paragraph's text with its tabs, runs of spaces and line breaks as characters."""
    out = [node.text or ""]
    for child in node:
        if child.tag == f"{{{_TEXT}}}tab":
            out.append("\t")
        elif child.tag == f"{{{_TEXT}}}s":
            out.append(" " * int(child.get(f"{{{_TEXT}}}c", "1")))
        elif child.tag == f"{{{_TEXT}}}line-break":
            out.append("\n")
        else:
            out.append(_text(child))
        out.append(child.tail or "")
    return "".join(out)


def ods_rows(path: Path) -> list[list[CalcCell]]:
    """The cells LibreOffice wrote to an .ods, row by row (empty rows and trailing empty
    cells left out)."""
    root = ET.fromstring(zipfile.ZipFile(path).read("content.xml"))
    out = []
    for row in root.iter(f"{{{_TABLE}}}table-row"):
        cells: list[CalcCell] = []
        for c in row.findall(f"{{{_TABLE}}}table-cell"):
            repeat = int(c.get(f"{{{_TABLE}}}number-columns-repeated", "1"))
            cell = CalcCell("\n".join(_text(p) for p in c.findall(f"{{{_TEXT}}}p")),
                            c.get(f"{{{_OFFICE}}}value-type", ""),
                            c.get(f"{{{_OFFICE}}}value"), c.get(f"{{{_TABLE}}}formula"))
            cells += [cell] * min(repeat, 50)
        while cells and cells[-1].kind == "" and cells[-1].text == "":
            cells.pop()
        if cells:
            out.append(cells)
    return out


def ods_cells(path: Path) -> list[list[str]]:
    """The cells LibreOffice wrote to an .ods, as text, row by row."""
    return [[c.text for c in row] for row in ods_rows(path)]
