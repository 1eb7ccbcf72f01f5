"""The office's one CSV writer: every CSV export is written here, so every one is inert.

A spreadsheet reads a CSV cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula
and runs it when the file is opened (``=HYPERLINK(...)`` sends whoever clicks to a site of
the team's choosing; ``+1+cmd|...`` is the old Excel way to start a program, through DDE);
a leading tab or carriage return can hide such a start from a check but not from every
spreadsheet. Team and player names come from tournament files and rosters that anyone may
send the office, so, as OWASP's advice on CSV injection has it, such a text cell gets a
single quote in front (``'=HYPERLINK(...)``): the spreadsheet reads it as text (LibreOffice
shows the quote with it; the tests open every export there). Only text is prefixed:
numbers are written as numbers, so a goal difference of -3 stays the number -3 to the
spreadsheet (sortable, summable). The ``.xlsx`` exports need none of this: their cells are
typed, and a string cell is never a formula (``office.printouts.xlsx``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

Cell = str | int | float

# What a spreadsheet takes for the start of a formula, and the whitespace before it that
# some skip when they look for one.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"


def inert(value: Cell | None) -> Cell:
    """The cell as written: text that a spreadsheet would take for a formula with a quote
    in front; other text, numbers and an empty cell (None) as they are; a bool as
    ``true``/``false``, as the ``.xlsx`` writes it."""
    if value is None:
        return ""
    if isinstance(value, bool):  # before the numbers: a bool is an int
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return QUOTE + value
    return value


def table(header: Sequence[str], rows: Iterable[Sequence[Cell | None]]) -> bytes:
    """The CSV bytes: the header, then the rows, every cell through :func:`inert`."""
    buf = io.StringIO()
    # RFC 4180 line endings: what spreadsheets expect from a download.
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([inert(c) for c in header])
    for row in rows:
        writer.writerow([inert(c) for c in row])
    # With a byte order mark: Excel, what most offices open a download with, reads UTF-8
    # without one as the local code page and garbles "Střešovice".
    return buf.getvalue().encode("utf-8-sig")
