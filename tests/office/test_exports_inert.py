"""The exports are inert: a team or player name that a spreadsheet would take for a formula
(``=HYPERLINK(...)``, ``+1+cmd|...``, ``@SUM(1)``, ``-2+3``, a leading tab or carriage
return) is written to every CSV as text with a quote in front, and LibreOffice, told to
evaluate formulas as its import dialog is by default, opens every CSV and ``.xlsx`` export
with no formula in any cell, the names as given and the numbers as numbers."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from arena.tournament.files import load_tournament
from office.printouts.csvfile import FORMULA_STARTS, inert
from office.views.ledger import build
from office.views.snapshot import snapshot
from office.web.officepage import (
    export_xlsx,
    placings_csv,
    results_csv,
    scorers_csv,
    tables_csv,
)

from .calc import CalcCell, needs_soffice, ods_rows, soffice_all
from .games import Play
from .test_ledger import T0, events_of

HYPERLINK = '=HYPERLINK("http://127.0.0.1/x","x")'
DDE = "+1+cmd|' /C calc'!A0"
AT = "@SUM(1)"
MINUS = "-2+3"
TEAMS = (HYPERLINK, DDE, AT, MINUS)
# A tournament file refuses control characters in a name, so these two reach an export
# only in a snapshot: the writer must not count on the file's checks.
TAB, CR = "\tx", "\rx"
EXPORTS: Mapping[str, Callable[[Mapping[str, Any]], bytes]] = {
    "tables": tables_csv, "results": results_csv, "placings": placings_csv,
    "scorers": scorers_csv}
# LibreOffice's CSV import, as its dialog stands: comma, double quote, UTF-8, from line 1,
# special numbers detected, formulas evaluated (the 13th option: what would run one).
# The round robin, A1 to A6, as indices into TEAMS (home, away).
PAIRS = ((0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2))
CSV_FILTER = "CSV:44,34,76,1,,0,false,true,false,false,false,0,true"


def roster(i: int) -> dict[int, str]:
    """Team i's scorers (tests/office/games.py: a side's goals by #10, #11, #12 at home and
    #20, #21, #22 away), named after the teams, so the player names are formula-like too."""
    return {n: TEAMS[(i + k) % 4] for k, n in enumerate((10, 11, 12, 20, 21, 22), start=1)}


def cup_file(path: Path) -> Path:
    """One group of the four names, a single round robin in one hall (json.dumps writes a
    name as a TOML basic string)."""
    teams = ",\n".join(
        f"  {{name = {json.dumps(t)}, short = \"T{i}\", roster = {{"
        + ", ".join(f"{n} = {json.dumps(p)}" for n, p in roster(i).items()) + "}}"
        for i, t in enumerate(TEAMS))
    matches = "".join(
        f'\n[[matches]]\nid = "A{k + 1}"\ngroup = "A"\nstage = "group"\nhall = "hall-1"\n'
        f"start = 2026-12-05T{8 + k:02d}:00:00\nhome = {json.dumps(TEAMS[h])}\n"
        f"away = {json.dumps(TEAMS[a])}\n" for k, (h, a) in enumerate(PAIRS))
    path.write_text('name = "Inert Cup"\nid = "inert-cup"\npreset = "ice-hockey-2x20"\n\n'
                    f'[[groups]]\nname = "A"\nteams = [\n{teams},\n]\n{matches}',
                    encoding="utf-8")
    return path


@pytest.fixture
def doc(tmp_path: Path) -> dict[str, Any]:
    """The office's snapshot of the cup played out (the team listed first wins every match
    3:1 ... the last loses every one), plus a table row and a scorer named with a leading
    tab and carriage return."""
    t = load_tournament(cup_file(tmp_path / "cup.toml"))
    plays = []
    for m in t.group_matches("A"):
        assert m.home.team is not None and m.away.team is not None
        first = TEAMS.index(m.home.team) < TEAMS.index(m.away.team)
        plays.append(Play(m.id, m.home.team, m.away.team, *((3, 1) if first else (1, 3))))
    ledger = build(t, events_of(t, plays), now=T0)
    out = snapshot(ledger, {}, (), T0)
    row = dict(out["groups"][0]["rows"][-1])
    out["groups"][0]["rows"].append({**row, "rank": 5, "team": TAB})
    out["scorers"].append({**out["scorers"][-1], "team": TAB, "name": CR})
    return out


def rows_of(body: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"), newline="")))


def column(rows: list[list[Any]], name: str) -> list[Any]:
    at = [str(c.text) if isinstance(c, CalcCell) else c for c in rows[0]].index(name)
    return [r[at] for r in rows[1:]]


@pytest.mark.parametrize("text", [*TEAMS, TAB, CR, "=", "-", "+3", "@"])
def test_text_a_spreadsheet_would_run_gets_a_quote_in_front(text: str) -> None:
    assert inert(text) == "'" + text


@pytest.mark.parametrize("value", ["Kärpät", "1. FC", " =1+1", "x=1", "'=1", "", "2026-12-05"])
def test_other_text_is_written_as_it_is(value: str) -> None:
    # A leading space, a quote already there, an equals sign inside: no spreadsheet reads
    # a formula there (LibreOffice's import, checked below, agrees for the names).
    assert inert(value) == value


@pytest.mark.parametrize("value", [-3, 0, 7, -0.5, 2.25])
def test_numbers_stay_numbers(value: float) -> None:
    # A goal difference of -3 must stay the number -3, sortable and summable.
    assert inert(value) == value and type(inert(value)) is type(value)


def test_every_csv_export_quotes_the_names_and_only_them(doc: dict[str, Any]) -> None:
    quoted = {"'" + n for n in (*TEAMS, TAB, CR)}
    for what, export in EXPORTS.items():
        rows = rows_of(export(doc))
        assert len(rows) > 2, what
        for row in rows:
            for cell in row:
                # Nothing a spreadsheet would read as a formula, unless it is a number.
                assert not cell.startswith(FORMULA_STARTS) or cell.lstrip("-").isdigit(), \
                    (what, cell)
        names = {c for row in rows for c in row if c.startswith("'")}
        assert names <= quoted, what
    tables = rows_of(tables_csv(doc))
    assert column(tables, "team") == ["'" + n for n in (*TEAMS, TAB)]
    # 3:1 wins: the first team +6, then +2, -2, -6, the last row a copy of the last team's.
    assert column(tables, "goal_difference") == ["6", "2", "-2", "-6", "-6"]
    results = rows_of(results_csv(doc))
    assert column(results, "home") == ["'" + TEAMS[h] for h, _ in PAIRS]
    assert column(results, "away") == ["'" + TEAMS[a] for _, a in PAIRS]
    assert sorted(column(rows_of(placings_csv(doc)), "team")) == sorted("'" + n for n in TEAMS)
    scorers = rows_of(scorers_csv(doc))
    assert {*column(scorers, "name")} == {"'" + n for n in (*TEAMS, CR)}
    assert {*column(scorers, "team")} <= {"'" + n for n in (*TEAMS, TAB)}


def shown(name: str) -> str:
    """A name as LibreOffice shows it: a carriage return inside a cell is a line break."""
    return name.replace("\r", "\n")


def no_formula(rows: list[list[CalcCell]], what: str) -> None:
    formulas = [(what, c.text, c.formula) for row in rows for c in row if c.formula]
    assert formulas == []


@pytest.mark.slow
@needs_soffice
def test_libreoffice_opens_every_csv_export_with_no_formula(doc: dict[str, Any],
                                                             tmp_path: Path) -> None:
    sources = []
    for what, export in EXPORTS.items():
        sources.append(tmp_path / f"{what}.csv")
        sources[-1].write_bytes(export(doc))
    opened = dict(zip(EXPORTS, (ods_rows(p) for p in soffice_all(
        sources, "ods", tmp_path / "ods", infilter=CSV_FILTER)), strict=True))
    for what, rows in opened.items():
        assert len(rows) == len(rows_of(EXPORTS[what](doc))), what
        no_formula(rows, what)
    tables = opened["tables"]
    # The names as given, behind the quote, which the spreadsheet shows as written.
    assert [c.text for c in column(tables, "team")] == ["'" + shown(n) for n in (*TEAMS, TAB)]
    assert all(c.kind == "string" for c in column(tables, "team"))
    # The goal difference is a number to the spreadsheet, not text.
    assert [(c.kind, c.value) for c in column(tables, "goal_difference")] == [
        ("float", "6"), ("float", "2"), ("float", "-2"), ("float", "-6"), ("float", "-6")]
    assert [c.text for c in column(opened["results"], "home")] == [
        "'" + TEAMS[h] for h, _ in PAIRS]
    assert sorted(c.text for c in column(opened["placings"], "team")) == sorted(
        "'" + n for n in TEAMS)
    assert {c.text for c in column(opened["scorers"], "name")} == {
        "'" + shown(n) for n in (*TEAMS, CR)}
    assert all(c.kind == "float" for c in column(opened["scorers"], "goals"))


@pytest.mark.slow
@needs_soffice
def test_libreoffice_opens_every_xlsx_export_with_no_formula(doc: dict[str, Any],
                                                              tmp_path: Path) -> None:
    # The .xlsx types its cells: a name is a string cell, never a formula, so it is written
    # as it is, no quote.
    sources = []
    for what in EXPORTS:
        sources.append(tmp_path / f"{what}.xlsx")
        sources[-1].write_bytes(export_xlsx(doc, what))
    opened = dict(zip(EXPORTS, (ods_rows(p) for p in soffice_all(
        sources, "ods", tmp_path / "ods")), strict=True))
    for what, rows in opened.items():
        no_formula(rows, what)
    tables = opened["tables"]
    assert [c.text for c in column(tables, "team")] == [shown(n) for n in (*TEAMS, TAB)]
    assert [(c.kind, c.value) for c in column(tables, "goal_difference")] == [
        ("float", "6"), ("float", "2"), ("float", "-2"), ("float", "-6"), ("float", "-6")]
    assert {c.text for c in column(opened["scorers"], "name")} == {
        shown(n) for n in (*TEAMS, CR)}
