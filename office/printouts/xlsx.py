"""A one-sheet spreadsheet file (Office Open XML, ``.xlsx``) from a header and rows: the
office's exports in a form that Excel and LibreOffice open by a double click, with no
import dialog, in any locale (docs/public.md, "Printouts").

Why beside the CSV: a CSV carries no encoding and no separator. Excel reads a UTF-8 BOM
but splits at the locale's list separator (a semicolon in Czech, Finnish and Serbian
settings, so a comma CSV lands in one column there); LibreOffice always asks through its
text import dialog, and converting one headless reads it as Western text, BOM or not.
An ``.xlsx`` names its cells. Standard library only (zipfile and XML text): the smallest
package both programs accept; strings are inline (no shared-strings table), numbers are
numbers.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Sequence
from xml.sax.saxutils import escape

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/xl/styles.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
    "</Types>")
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>')
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/worksheet" Target="worksheets/sheet1.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/styles" Target="styles.xml"/></Relationships>')
_STYLES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font>'
    '<font><b/><sz val="11"/><name val="Calibri"/></font></fonts>'
    '<fills count="2"><fill><patternFill patternType="none"/></fill>'
    '<fill><patternFill patternType="gray125"/></fill></fills>'
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/>'
    "</cellStyleXfs>"
    '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
    '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>'
    "</styleSheet>")
_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'

Cell = str | int | float


def _column(index: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def _clean(text: str) -> str:
    """XML 1.0 cannot carry most control characters: a name with one must not make the
    whole file unreadable, so they are dropped (tab and newline stay)."""
    return "".join(c for c in text if c >= " " or c in "\t\n\r")


def _cell(ref: str, value: Cell, style: int) -> str:
    s = f' s="{style}"' if style else ""
    if isinstance(value, bool):  # before int: a bool is an int
        value = "true" if value else "false"
    if isinstance(value, int | float):
        return f'<c r="{ref}"{s}><v>{value!r}</v></c>'
    return (f'<c r="{ref}" t="inlineStr"{s}><is><t xml:space="preserve">'
            f"{escape(_clean(value))}</t></is></c>")


def workbook(sheet: str, header: Sequence[str], rows: Iterable[Sequence[Cell | None]]
             ) -> bytes:
    """The ``.xlsx`` bytes: one sheet named ``sheet``, the header in bold, then the rows
    (None: an empty cell)."""
    lines = []
    table: list[Sequence[Cell | None]] = [list(header), *rows]
    for r, row in enumerate(table, start=1):
        cells = "".join(_cell(f"{_column(c)}{r}", v, 1 if r == 1 else 0)
                        for c, v in enumerate(row) if v is not None and v != "")
        lines.append(f'<row r="{r}">{cells}</row>')
    name = escape(_clean(sheet).translate({ord(c): "-" for c in "[]:*?/\\"})[:31] or "Sheet1",
                  {'"': "&quot;"})
    book = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook {_NS} '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
            f'<sheets><sheet name="{name}" sheetId="1" r:id="rId1"/></sheets></workbook>')
    data = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet {_NS}>'
            f'<sheetData>{"".join(lines)}</sheetData></worksheet>')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, text in (("[Content_Types].xml", _CONTENT_TYPES), ("_rels/.rels", _RELS),
                           ("xl/workbook.xml", book),
                           ("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS),
                           ("xl/styles.xml", _STYLES), ("xl/worksheets/sheet1.xml", data)):
            # A fixed date: the same rows give the same bytes.
            info = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text.encode("utf-8"))
    return buf.getvalue()
