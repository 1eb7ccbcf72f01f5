"""The printouts: a game sheet read off a match played through the real core and
stored as the office stores it, checked line by line against the stored events (as HTML,
and as the PDF headless Chromium prints); the door schedule, the tables, the placings; the
office page's printout routes; the commands' errors; the exports as LibreOffice reads them.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from arena import presets
from arena.tournament.files import load_event
from arena.words import cs
from office.cli.main import main
from office.printouts import printing as printouts_module
from office.printouts.printing import Printouts, ledgers_from_store
from office.printouts.sheets import GameTime, game_time, read_events
from office.storage.store import Store, StoredEvent
from office.views.board import SnapshotBoard
from office.web.officepage import OfficeWeb, export_xlsx, results_csv, tables_csv
from tests.office.cdp import Chromium, find_chromium

from .calc import needs_soffice, ods_cells, soffice
from .printed import AWAY, HOME, RECEIVED, cup

CHROMIUM = find_chromium()
PDFTOTEXT = shutil.which("pdftotext")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install chromium)")
needs_pdftotext = pytest.mark.skipif(
    PDFTOTEXT is None, reason="pdftotext is not installed (Debian: apt-get install "
                              "poppler-utils)")
ROSTER = {HOME: {7: "Jääskeläinen", 9: "Kärkkäinen", 30: "Ögren"},
          AWAY: {4: "Đorđević", 5: "Šćekić"}}
PRESET = presets.load("ice-hockey-2x20")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return cup(tmp_path_factory.mktemp("cup"))


@pytest.fixture
def store(played: tuple[Path, Path]) -> Iterator[Store]:
    s = Store(played[1], read_only=True)
    yield s
    s.close()


def printouts(played: tuple[Path, Path], store: Store, lang: str = "en") -> Printouts:
    event = load_event(played[0])
    ledgers = ledgers_from_store(event, store, RECEIVED)
    return Printouts(lambda: (event, ledgers), store, lang, wall=lambda: RECEIVED)


class Tables(HTMLParser):
    """The text of every table row of a page, by the heading above its table."""

    def __init__(self) -> None:
        super().__init__()
        self.by_heading: dict[str, list[list[str]]] = {}
        self.heading = ""
        self._in_heading = False
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h1", "h2", "h3"):
            self._in_heading, self.heading = True, ""
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2", "h3"):
            self._in_heading = False
        elif tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.by_heading.setdefault(self.heading.strip(), []).append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._in_heading:
            self.heading += data
        if self._cell is not None:
            self._cell.append(data)


def tables_of(html: str) -> dict[str, list[list[str]]]:
    parser = Tables()
    parser.feed(html)
    return parser.by_heading


def expected_from_events(events: list[StoredEvent]) -> dict[str, list[list[str]]]:
    """The sheet's rows worked out from the stored events here, independently of
    office.printouts.sheets: what was struck, corrected and scored, in the hall's own words."""
    struck = {e.data["cancelled_seq"] for e in events if e.type == "cancelled"}
    struck |= {e.data["undone_seq"] for e in events if e.type == "undone"}
    fixed = {e.data["corrected_seq"]: e.data["player"] for e in events if e.type == "corrected"}
    team = {"home": HOME, "away": AWAY}

    def who(side: str, player: int | None) -> str:
        return "not entered" if player is None \
            else f"#{player} {ROSTER[team[side]][player]}"

    def when(d: Any) -> str:
        played_ms = PRESET.period_length // 1_000_000 - d["clock_ms"]
        return f"P{d['period']} {played_ms // 60000:02d}:{played_ms // 1000 % 60:02d}"

    goals: list[list[str]] = []
    penalties: list[list[str]] = []
    timeouts: list[list[str]] = []
    shots: list[list[str]] = []
    score = {"home": 0, "away": 0}
    clock: Any = {}
    tally = {"home": 0, "away": 0}
    for e in events:
        if "clock_ms" in e.data and "period" in e.data:
            clock = e.data
        if e.seq in struck:
            continue
        player = fixed.get(e.seq, e.data.get("player"))
        if e.type == "goal":
            score[e.data["team"]] += 1
            goals.append([when(e.data), team[e.data["team"]], who(e.data["team"], player),
                          f"{score['home']}:{score['away']}"])
        elif e.type == "penalty":
            penalties.append([when(e.data), team[e.data["team"]],
                              who(e.data["team"], player), e.data["kind"],
                              str(e.data["minutes"])])
        elif e.type == "timeout_started":
            timeouts.append([when(clock), team[e.data["team"]]])
        elif e.type == "shot":
            tally[e.data["team"]] += e.data["scored"]
            shots.append([str(len(shots) + 1), team[e.data["team"]],
                          who(e.data["team"], player),
                          "scored" if e.data["scored"] else "missed",
                          f"{tally['home']}:{tally['away']}"])
    return {"Goals": goals, "Penalties": penalties, "Time-outs": timeouts, "Shootout": shots}


def test_the_game_sheet_says_what_the_stored_events_say(played: tuple[Path, Path],
                                                         store: Store) -> None:
    html = printouts(played, store).sheet("F")
    rows = tables_of(html)
    expected = expected_from_events(store.events("F"))
    for heading, lines in expected.items():
        assert rows[heading][1:] == lines, heading  # [0]: the table's header
    # And what the script played, in plain figures: the cancelled goal of #9 at 03:50 is
    # gone, #30's goal went to #9, the away scorer was never entered.
    assert expected["Goals"] == [
        ["P1 01:05", HOME, "#7 Jääskeläinen", "1:0"], ["P1 03:20", AWAY, "#5 Šćekić", "1:1"],
        ["P1 04:10", HOME, "#9 Kärkkäinen", "2:1"], ["P1 04:40", AWAY, "not entered", "2:2"]]
    assert expected["Penalties"] == [["P1 02:50", AWAY, "#4 Đorđević", "minor", "2"]]
    assert expected["Time-outs"] == [["P1 05:00", AWAY]]
    assert [s[3] for s in expected["Shootout"]] == ["missed", "scored", "missed", "scored"]
    facts = dict((r[0], r[1]) for r in rows[f"Game sheet: {HOME} – {AWAY}"])
    assert facts["Event"] == "Pohár Čeština 2026"
    assert facts["Match"] == "F" and facts["Hall"] == "hall-1"
    assert facts["Stage"] == "Play-off" and facts["Date and time"] == "2026-12-05 10:30"
    # A shootout adds only the decisive goal to the result (docs/developer.md 4.3).
    assert facts["Result"] == "3:2 (shootout)"
    assert rows[f"Home: {HOME} – Roster"][1:] == [["7", "Jääskeläinen"], ["9", "Kärkkäinen"],
                                                  ["30", "Ögren"]]
    assert rows[f"Away: {AWAY} – Roster"][1:] == [["4", "Đorđević"], ["5", "Šćekić"]]
    for signer in ("Referee 1", "Referee 2", "Timekeeper", f"Team official, {HOME}",
                   f"Team official, {AWAY}"):
        assert f"<div>{signer}</div>" in html
    assert "@page { size: A4;" in html


def test_a_match_not_played_yet_gets_an_empty_sheet(played: tuple[Path, Path],
                                                    tmp_path: Path) -> None:
    empty = Store(tmp_path / "empty.sqlite")
    try:
        rows = tables_of(printouts(played, empty).sheet("F"))
    finally:
        empty.close()
    facts = dict((r[0], r[1]) for r in rows["Game sheet: 1st A – 2nd A"])
    assert facts["Result"] == "not final yet" and facts["State"] == "scheduled"
    assert rows["Goals"][1:] == [["none"]]
    assert "Shootout" not in rows  # no shot, no shootout table


def test_undone_and_repeated_events_leave_the_sheet_as_the_hall_left_it() -> None:
    def ev(seq: int, kind: str, **data: Any) -> StoredEvent:
        return StoredEvent(f"h:M:{seq}", "h", "M", seq, kind, data, 0, None, RECEIVED)

    goal = ev(2, "goal", team="home", player=7, period=2, clock_ms=600_000)
    events = [ev(1, "clock_started", period=2, clock_ms=1_200_000), goal, goal,
              ev(3, "goal", team="away", player=4, period=2, clock_ms=500_000),
              ev(4, "undone", undone_seq=3, what="goal", clock_ms=500_000),
              ev(5, "corrected", corrected_seq=2, player=8, team="home", was=7)]
    facts = read_events(reversed(events))  # any order: the seq decides
    assert [(g.side, g.player, g.score) for g in facts.goals] == [("home", 8, (1, 0))]
    assert game_time(facts.goals[0].at, PRESET, "en") == "P2 10:00"
    # Overtime counts from its own length (youth hockey: 6 min, rules 002).
    youth = presets.load("youth-hockey-3x18")
    assert game_time(GameTime(4, 300_000), youth, "en") == "OT1 01:00"
    assert game_time(GameTime(1, 300_000), None, "en") == "P1 05:00"  # no preset: as shown


def test_markup_in_names_is_printed_as_text(played: tuple[Path, Path], store: Store,
                                            tmp_path: Path) -> None:
    text = played[0].read_text(encoding="utf-8").replace(
        'name = "Pohár Čeština 2026"', 'name = "<script>alert(1)</script> & Co"')
    other = tmp_path / "odd.toml"
    other.write_text(text, encoding="utf-8")
    event = load_event(other)
    ledgers = ledgers_from_store(event, store, RECEIVED)
    p = Printouts(lambda: (event, ledgers), store)
    for html in (p.sheet("F"), p.schedule(), p.tables(), p.placings()):
        assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co" in html


def test_door_schedule_tables_and_placings(played: tuple[Path, Path], store: Store) -> None:
    p = printouts(played, store)
    schedule = tables_of(p.schedule("hall-1"))["Schedule: hall-1"]
    assert schedule == [["Start", "Match", "Stage", "Home", "Away", "Result"],
                        ["2026-12-05 08:00", "A1", "Group A", HOME, AWAY, "1:0"],
                        ["2026-12-05 10:30", "F", "Play-off", HOME, AWAY, "3:2"]]
    assert "class=\"page door\"" in p.schedule()  # every hall starts a page of its own
    tables = tables_of(p.tables())
    group = tables["Group A (complete)"]  # no protest window in rules 000
    assert group[0][-1] == "Why"
    assert group[1] == ["1", HOME, "1", "1", "0", "0", "1:0", "+1", "2", "0", "points"]
    assert group[2][:2] == ["2", AWAY]
    placings = tables_of(p.placings())["Final placings"]
    assert placings[1:] == [["1.", HOME, ""], ["2.", AWAY, ""]]


def test_the_language_comes_through_words(played: tuple[Path, Path], store: Store,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # Whatever a language's table says is what the sheet prints (the translations are the
    # languages' work; English fills a gap).
    monkeypatch.setitem(cs.WORDS, "sheet.goals", "Branky")
    rows = tables_of(printouts(played, store, "cs").sheet("F"))
    assert "Branky" in rows and "Goals" not in rows
    assert '<html lang="cs">' in printouts(played, store, "cs").sheet("F")


@pytest.mark.slow
@needs_chromium
@needs_pdftotext
def test_office_sheet_pdf_has_the_events_in_its_text(played: tuple[Path, Path],
                                                     store: Store, tmp_path: Path) -> None:
    pdf = tmp_path / "F.pdf"
    tournament, db = played
    assert main(["sheet", "F", "--tournament", str(tournament), "--db", str(db),
                 "--pdf", str(pdf)]) == 0
    assert PDFTOTEXT is not None
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    assert "(A4)" in info.stdout
    text = subprocess.run([PDFTOTEXT, "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    lines = [" ".join(line.split()) for line in text.splitlines()]
    for heading, rows in expected_from_events(store.events("F")).items():
        assert heading in lines
        for row in rows:
            assert any(line.endswith(" ".join(row)) for line in lines), (heading, row)
    assert any("3:2 (shootout)" in line for line in lines)
    assert any("Team official, Crvena Đorđević" in line for line in lines)


@pytest.mark.slow
@needs_chromium
@needs_pdftotext
def test_the_page_printed_by_the_browser_is_the_sheet(played: tuple[Path, Path],
                                                      store: Store, tmp_path: Path) -> None:
    # The office page's /sheet/F, printed to PDF by Chromium as a person printing from the
    # browser would (CDP Page.printToPDF), reads as the sheet.
    server = OfficeWeb(SnapshotBoard(), host="127.0.0.1", port=0,
                       printouts=printouts(played, store).page)
    server.start()
    assert CHROMIUM is not None and PDFTOTEXT is not None
    try:
        with Chromium(CHROMIUM) as browser:
            tab = browser.open_tab(server.url("/sheet/F"))
            dom = tab.evaluate("document.body.innerText")
            pdf = tab.print_pdf(tmp_path / "page.pdf")
    finally:
        server.stop()
    text = subprocess.run([PDFTOTEXT, "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    for name in ("Jääskeläinen", "Đorđević", "Šćekić", "P1 04:40", "3:2"):
        assert name in dom and name in text


def get(server: OfficeWeb, path: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(server.url(path), timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_the_office_page_serves_the_printouts(played: tuple[Path, Path],
                                              store: Store) -> None:
    server = OfficeWeb(SnapshotBoard(), host="127.0.0.1", port=0,
                       printouts=printouts(played, store).page)
    server.start()
    try:
        status, headers, body = get(server, "/sheet/F")
        assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert "Jääskeläinen" in body.decode()
        status, _, body = get(server, "/print/schedule?hall=hall-1")
        assert status == 200 and "Schedule: hall-1" in body.decode()
        assert get(server, "/print/tables")[0] == 200
        assert get(server, "/print/placings")[0] == 200
        assert '<html lang="fi">' in get(server, "/print/tables?lang=fi")[2].decode()
        status, _, body = get(server, "/sheet/NOPE")
        assert status == 404 and b"no match 'NOPE'" in body
        assert get(server, "/print/schedule?hall=hall-9")[0] == 404
        assert get(server, "/print/tables?lang=xx")[0] == 404
        assert get(server, "/print/nothing")[0] == 404
    finally:
        server.stop()
    plain = OfficeWeb(SnapshotBoard(), host="127.0.0.1", port=0)  # no printouts given
    plain.start()
    try:
        assert get(plain, "/sheet/F")[0] == 404
    finally:
        plain.stop()


def test_the_commands_write_html_and_say_what_is_wrong(
        played: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    tournament, db = played
    base = ["--tournament", str(tournament), "--db", str(db)]
    out = tmp_path / "tables.html"
    assert main(["print", "tables", *base, "--html", str(out), "--lang", "sr"]) == 0
    assert '<html lang="sr">' in out.read_text(encoding="utf-8")
    assert main(["print", "schedule", "--hall", "hall-1", *base, "--html", "-"]) == 0
    assert "Schedule: hall-1" in capsys.readouterr().out
    assert main(["sheet", "X9", *base, "--html", str(out)]) == 2
    assert "office sheet: no match 'X9' in the schedule (matches: A1, F)" in \
        capsys.readouterr().err
    assert main(["print", "tables", "--hall", "hall-1", *base, "--html", str(out)]) == 2
    assert "--hall: only for the schedule" in capsys.readouterr().err
    assert main(["sheet", "F", "--tournament", str(tournament), "--db",
                 str(tmp_path / "none.sqlite"), "--html", str(out)]) == 2
    assert "no such store" in capsys.readouterr().err
    # No Chromium on the office machine: --pdf says so, --html still works.
    monkeypatch.setattr(printouts_module, "find_chromium", lambda: None)
    assert main(["sheet", "F", *base, "--pdf", str(tmp_path / "F.pdf")]) == 2
    err = capsys.readouterr().err
    assert "--pdf needs Chromium" in err and "--html" in err
    assert not (tmp_path / "F.pdf").exists()
    for command in (["sheet"], ["print"]):
        with pytest.raises(SystemExit) as done:
            main([*command, "--help"])
        assert done.value.code == 0
        assert capsys.readouterr().out.startswith("usage: office")


# --- exports as LibreOffice reads them --------------------------------------------------

NAMES = ("Čeština", "Kärpät", "Đorđević", 'Say "hi", ok')


def odd_snapshot() -> dict[str, Any]:
    rows = [{"rank": i + 1, "team": name, "played": 2, "won": 1, "drawn": 0, "lost": 1,
             "goals_for": 3, "goals_against": 2, "points": 2, "penalty_minutes": 4,
             "decided_by": "lots", "lots_needed": False} for i, name in enumerate(NAMES)]
    return {"tournament": {"id": "pohar"}, "groups": [{"name": "A", "rows": rows}],
            "matches": [{"id": "A1", "stage": "group", "group": "A", "hall": "hall-1",
                         "start": "2026-12-05T08:00:00", "home": NAMES[0], "away": NAMES[2],
                         "score": {"home": 1, "away": 0}, "state": "final"}]}


@pytest.mark.slow
@needs_soffice
def test_libreoffice_opens_the_xlsx_exports_cell_by_cell(tmp_path: Path) -> None:
    doc = odd_snapshot()
    book = tmp_path / "tables.xlsx"
    book.write_bytes(export_xlsx(doc, "tables"))
    rows = ods_cells(soffice(book, "ods", tmp_path))
    expected = list(csv.reader(io.StringIO(tables_csv(doc).decode("utf-8-sig"))))
    assert rows == expected  # the CSV's cells, every one where it belongs
    assert [r[2] for r in rows[1:]] == list(NAMES)
    # Numbers are numbers to the spreadsheet (sortable, summable), not text.
    root = zipfile.ZipFile(tmp_path / "tables.ods").read("content.xml").decode()
    assert 'office:value-type="float" office:value="3"' in root
    results = tmp_path / "results.xlsx"
    results.write_bytes(export_xlsx(doc, "results"))
    assert ods_cells(soffice(results, "ods", tmp_path))[1][5:7] == [NAMES[0], NAMES[2]]


@pytest.mark.slow
@needs_soffice
def test_libreoffice_reads_the_csv_as_utf8_with_its_quoting(tmp_path: Path) -> None:
    # A CSV carries no encoding: LibreOffice asks in its import dialog (headless: the
    # filter options). Set to UTF-8 and comma, as the dialog is, every cell comes back,
    # the byte order mark not in the first one, the quoted comma and quotes intact.
    doc = odd_snapshot()
    path = tmp_path / "tables.csv"
    path.write_bytes(tables_csv(doc))
    rows = ods_cells(soffice(path, "ods", tmp_path, infilter="CSV:44,34,76,1"))
    assert rows[0][0] == "group"
    assert [r[2] for r in rows[1:]] == list(NAMES)
    path.write_bytes(results_csv(doc))
    assert ods_cells(soffice(path, "ods", tmp_path, infilter="CSV:44,34,76,1"))[1][5] \
        == NAMES[0]


def test_the_exports_as_files(tmp_path: Path) -> None:
    doc = odd_snapshot()
    body = tables_csv(doc)
    # UTF-8 with a byte order mark (Excel's cue), CRLF line ends, quoting where needed.
    assert body.startswith(b"\xef\xbb\xbf") and b"\r\n" in body
    assert b'"Say ""hi"", ok"' in body
    book = zipfile.ZipFile(io.BytesIO(export_xlsx(doc, "tables")))
    assert book.testzip() is None
    sheet = book.read("xl/worksheets/sheet1.xml").decode()
    assert "Đorđević" in sheet and 'Say "hi", ok' in sheet
    assert '<c r="D2"><v>2</v></c>' in sheet  # a number cell
    assert export_xlsx(doc, "tables") == export_xlsx(doc, "tables")  # same rows, same bytes
