"""The office page in a real browser: Debian's headless Chromium, driven over the DevTools
pipe (tests/office/cdp.py), loads the page from an OfficeWeb on 127.0.0.1.

The page is rendered on the server: with JavaScript off it is whole (tables, halls, results,
alerts, links); at a phone's 390 px and at 1920 px nothing scrolls sideways; with
JavaScript on it follows a new snapshot by itself, keeps open what the reader opened, and
survives a restart of the service.

Waits are bounded polls of the page's DOM; the one timing assertion (the page follows a
publish within a few seconds) is far below the server's 15 s long-poll hold, so only a
working wake-up can pass it.
"""

from __future__ import annotations

import json
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.tournament.event import Event
from arena.tournament.files import load_event
from office.service import OfficeService
from office.storage.store import Store
from office.views.board import SnapshotBoard
from office.web.officepage import OfficeWeb
from tests.office.cdp import Chromium, Tab, find_chromium
from tests.office.test_public_chromium import LONG, count, full_width_screenshot, open_at
from tests.office.test_web import sample_snapshot, table_row

CHROMIUM = find_chromium()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (Debian: apt-get install chromium); "
           "the office page's browser test needs it")]

PHONE, DESKTOP = (390, 844), (1920, 1080)
# The page's last element: the document is whole once it is there.
LAST = "body > script"
NO_SIDEWAYS = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
# Every element inside the viewport's width (an overflow hidden in a clipped box included).
ALL_INSIDE = ("[...document.querySelectorAll('body *')].every(e => "
              "e.getBoundingClientRect().right <= document.documentElement.clientWidth + 0.5)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    assert CHROMIUM is not None
    with Chromium(CHROMIUM) as b:
        yield b


def busy_snapshot() -> dict[str, Any]:
    """The sample day at its worst for a page: a name as long as names get, a result to
    review, an alert about a played bracket match, fifteen schedule warnings."""
    doc = sample_snapshot()
    doc["groups"][0]["rows"][1]["team"] = LONG
    doc["review"] = [{"match": "SF1", "hall": "hall-1", "stage": "playoff",
                      "why": "hall-1 played it as 1st A - 2nd B while its teams were not known",
                      "played_as": ["1st A", "2nd B"], "todo": "office review SF1 ..."}]
    doc["alerts"] = [
        {"at": "2026-12-05T10:05:00", "text": "SF1 was already played as 1st A - 2nd B; "
         "the bracket now says Lions - Tigers", "id": 3, "match": "SF1", "status": "open"},
        *sample_snapshot()["alerts"],
        *({"at": None, "text": f"A{i}: Lions plays back to back: A{i - 1} then A{i}, "
           "5 min apart", "status": "open", "kind": "schedule"} for i in range(1, 16))]
    return doc


@pytest.fixture
def board() -> SnapshotBoard:
    b = SnapshotBoard()
    b.publish(busy_snapshot())
    return b


@pytest.fixture
def web(board: SnapshotBoard) -> Iterator[OfficeWeb]:
    server = OfficeWeb(board, host="127.0.0.1", port=0)  # the real 15 s long-poll hold
    server.start()
    yield server
    server.stop()


@pytest.fixture
def tab(browser: Chromium, web: OfficeWeb) -> Iterator[Tab]:
    t = open_at(browser, web.url("/"), *DESKTOP, last=LAST)
    yield t
    t.close()


def js(value: str) -> str:
    """A JavaScript string literal (JSON is one)."""
    return json.dumps(value)


def cell(group: str, team: str, column: str) -> str:
    sel = f'table[data-group={js(group)}] tr[data-team={js(team)}] td.{column}'
    return f"document.querySelector({js(sel)})?.textContent"


def teams_of(group: str) -> str:
    sel = f"table[data-group={js(group)}] tbody tr"
    return f"[...document.querySelectorAll({js(sel)})].map(r => r.dataset.team)"


def text(selector: str) -> str:
    return f"document.querySelector({js(selector)})?.textContent"


def texts(selector: str) -> str:
    return f"[...document.querySelectorAll({js(selector)})].map(e => e.textContent)"


@pytest.mark.parametrize("size", [PHONE, DESKTOP])
def test_the_page_is_whole_without_javascript(browser: Chromium, web: OfficeWeb,
                                              size: tuple[int, int]) -> None:
    """What a plain screenshot sees: the content is there before (here: without) any
    script; the status says the page does not follow changes by itself."""
    tab = open_at(browser, web.url("/"), *size, scripts=False, last=LAST)
    try:
        assert count(tab, 'table[data-group="A"] tr[data-team="Lions"]') == 1
        assert count(tab, '.hall[data-hall="hall-2"] .clock') == 1
        assert count(tab, '#results tr[data-match="A3"]') == 1
        assert count(tab, '.alert-group[data-kind="review"] li') == 1
        assert count(tab, "#links a[href]") >= 8
        assert tab.evaluate(text('.hall[data-hall="hall-2"] .clock')) == "12:35"
        assert tab.evaluate("document.getElementById('status').dataset.status") == "loaded"
        assert tab.evaluate(text("#status")) == "as loaded: reload for news"
        assert tab.evaluate(text("#tournament-name")) == "Example Cup 2026"
    finally:
        tab.close()


@pytest.mark.parametrize("scripts", [False, True])
@pytest.mark.parametrize("size", [PHONE, DESKTOP])
def test_nothing_scrolls_sideways(browser: Chromium, web: OfficeWeb, tmp_path: Path,
                                  size: tuple[int, int], scripts: bool) -> None:
    tab = open_at(browser, web.url("/"), *size, scripts=scripts, last=LAST)
    try:
        assert tab.evaluate(NO_SIDEWAYS)
        assert tab.evaluate(ALL_INSIDE)
        content_width, png_width = full_width_screenshot(tab, tmp_path / "office.png")
        assert content_width <= size[0], f"the page at {size[0]} px is {content_width} px wide"
        assert png_width == content_width
        if size == PHONE:  # the columns a phone can spare are gone, the rest is there
            assert tab.evaluate(f"getComputedStyle(document.querySelector("
                                f"{js('table[data-group=A] td.pim')})).display") == "none"
            assert tab.evaluate(cell("A", "Lions", "points")) == "4"
    finally:
        tab.close()


def test_the_width_check_can_fail(browser: Chromium, web: OfficeWeb) -> None:
    tab = open_at(browser, web.url("/"), *PHONE, last=LAST)
    try:
        tab.evaluate("document.getElementById('results').append(Object.assign("
                     "document.createElement('div'), {style: 'width: 600px', textContent: 'x'}))")
        assert tab.evaluate(f"!({NO_SIDEWAYS})") and tab.evaluate(f"!({ALL_INSIDE})")
    finally:
        tab.close()


def test_the_table_follows_a_new_snapshot(tab: Tab, board: SnapshotBoard) -> None:
    assert tab.evaluate(cell("A", "Lions", "points")) == "4"
    assert tab.evaluate(teams_of("A")) == ["Lions", LONG, "Wolves", "Eagles"]
    tab.wait_for("document.getElementById('status').dataset.status === 'ok'")
    assert tab.evaluate(text("#status")) == "live"

    doc = busy_snapshot()
    doc["groups"][0]["rows"][:2] = [table_row(1, "Bears", (2, 1, 0, 8, 4, 12), "points"),
                                    table_row(2, "Lions", (2, 0, 1, 8, 5, 6), "points")]
    doc["halls"][1]["live"]["clock_ms"] = 700_000
    start = time.monotonic()
    board.publish(doc)
    tab.wait_for(f"{cell('A', 'Bears', 'rank')} === '1' && {cell('A', 'Bears', 'points')} === '5'"
                 f" && {teams_of('A')}[0] === 'Bears'")
    elapsed = time.monotonic() - start
    assert elapsed < 5, f"the page took {elapsed:.2f} s to follow the publish"
    assert tab.evaluate("document.body.dataset.version") == "2"
    assert tab.evaluate(text('.hall[data-hall="hall-2"] .clock')) == "11:40"
    assert tab.evaluate(text("#status")) == "live"
    assert tab.evaluate("document.querySelectorAll('.render-error').length") == 0


def test_shows_every_part_of_the_snapshot(tab: Tab) -> None:
    # Level teams waiting for lots: marked in the row and the "why" column.
    assert tab.evaluate(cell("B", "Tigers", "why")) == "lots needed"
    assert tab.evaluate(cell("A", LONG, "why")) == "head-to-head points"
    assert tab.evaluate(cell("A", "Lions", "goals")) == "7:2"
    assert tab.evaluate(cell("A", "Lions", "gd")) == "+5"
    assert tab.evaluate(
        "document.querySelector('table[data-group=\"B\"] tr[data-team=\"Tigers\"]')"
        ".classList.contains('lots')")
    # Provisional and complete tables are told apart.
    assert tab.evaluate("document.querySelector('.group[data-group=\"A\"]').dataset.provisional"
                        ) == "true"
    assert tab.evaluate(text('.group[data-group="A"] .badge')) == "provisional"
    assert tab.evaluate(text('.group[data-group="B"] .badge')) == "complete"
    # Results: states, the confirm time, gaps, corrections.
    a3, a3_note = '#results tr[data-match="A3"]', '#results tr[data-match-note="A3"]'
    assert tab.evaluate(text(f"{a3} .badge")) == "final"
    assert tab.evaluate(text(f"{a3} td.score")) == "4 : 1OT"
    assert tab.evaluate(text(f"{a3_note} .confirm")) == "confirms 10:40"
    assert tab.evaluate(text(f"{a3_note} .gaps")) == "missing events 4, 5"
    assert tab.evaluate(text('#results tr[data-match="A4"] .badge')) == "live"
    assert "goal 3 was scored by Wolves" in tab.evaluate(
        text('#results tr[data-match-note="A2"] .correction'))
    # Bracket: slot labels until filled, teams once filled, provisional marked.
    sf1, sf2 = '#bracket [data-match="SF1"]', '#bracket [data-match="SF2"]'
    assert tab.evaluate(text(f"{sf1} .home .name")) == "#1 group A"
    assert tab.evaluate(text(f"{sf1} .away .name")) == "#2 group B"
    assert tab.evaluate(f"document.querySelector({js(sf1)}).dataset.provisional") == "true"
    assert tab.evaluate(text(f"{sf2} .home .name")) == "Sharks"
    assert tab.evaluate(text('#bracket [data-match="F"] .home .name')) == "Winner SF1"
    # Halls: online state, live score and clock (754.2 s left reads 12:35, rounded up).
    assert tab.evaluate(
        "document.querySelector('[data-hall=\"hall-3\"]').dataset.online") == "false"
    assert tab.evaluate(text('[data-hall="hall-2"] .live .score')) == "3 : 1"
    assert tab.evaluate(text('[data-hall="hall-2"] .phase')) == "period 2"
    assert tab.evaluate(text('[data-hall="hall-1"] .next')).startswith("Next: A5 Lions")
    # Suspensions.
    assert tab.evaluate(text('#suspensions tr[data-team="Bears"][data-player="7"] .pending')
                        ) == "A5"
    # Unfilled sides in the results, whether sent as null or as the slot's label.
    assert tab.evaluate('document.querySelector(\'#results tr[data-match="SF1"] td.home\')'
                        ".dataset.filled") == "false"
    assert tab.evaluate(text('#results tr[data-match="SF1"] td.home')) == "#1 group A"
    assert tab.evaluate(text('#results tr[data-match="F"] td.away')) == "Winner SF2"
    assert tab.evaluate('document.querySelector(\'#results tr[data-match="SF2"] td.home\')'
                        ".dataset.filled") == "true"


def test_alerts_are_grouped_by_kind_the_schedules_warnings_folded(tab: Tab) -> None:
    kinds = "[...document.querySelectorAll('.alert-group')].map(g => g.dataset.kind)"
    assert tab.evaluate(kinds) == ["review", "played", "results", "notices", "schedule"]
    assert tab.evaluate(texts(".alert-group h2, .alert-group summary")) == [
        "Results to review: 1", "Played matches whose teams changed: 1", "Results to check: 1",
        "Notices: 2", "The schedule's warnings: 15"]
    # The fifteen warnings are one closed line: the rest of the page starts right below it.
    fold = "document.getElementById('fold-schedule')"
    assert tab.evaluate(f"{fold}.open") is False
    assert tab.evaluate(f"{fold}.getBoundingClientRect().height < 60")
    assert tab.evaluate(f"{fold}.querySelectorAll('li').length") == 15
    assert "office review SF1 --keep|--swap|--replay" in tab.evaluate(
        text('.alert-group[data-kind="review"] .todo'))
    assert "office alerts resolve 3" in tab.evaluate(
        text('.alert-group[data-kind="played"] .todo'))
    assert tab.evaluate(texts('.alert-group[data-kind="notices"] li .text')) == [
        "hall-3 offline", "A2 corrected to 2:1 (goal 3 was Wolves')"]


def test_an_alert_closes_by_itself_once_its_match_is_settled(
        tab: Tab, board: SnapshotBoard) -> None:
    """The alert about SF1 (a played bracket match whose teams changed) stays at the top
    while SF1 waits for review; once nothing waits (here the review list empties, as after
    ``office review SF1 --keep`` or a correction) it moves to the history as settled, though
    no office action named it. What the reader opened stays open across the update."""
    tab.wait_for("document.getElementById('status').dataset.status === 'ok'")
    tab.evaluate("document.getElementById('fold-schedule').open = true")
    tab.evaluate("document.getElementById('alert-history').open = true")
    assert tab.evaluate("document.querySelectorAll('#alert-history li').length") == 0
    doc = busy_snapshot()
    doc["review"] = []
    board.publish(doc)
    tab.wait_for("document.querySelectorAll('.alert-group[data-kind=\"played\"]').length === 0"
                 " && document.body.dataset.version === '2'")
    assert tab.evaluate("document.querySelectorAll('.alert-group[data-kind=\"review\"]').length"
                        ) == 0
    settled = '#alert-history li[data-alert="3"]'
    assert tab.evaluate(f"document.querySelector({js(settled)}).dataset.status") == "settled"
    assert tab.evaluate(text(f"{settled} .done")) == (
        "settled: SF1 no longer waits for the office, so the alert closed by itself")
    assert tab.evaluate(text("#alert-history summary")) == "Alerts dealt with: 1"
    assert tab.evaluate("document.getElementById('fold-schedule').open") is True
    assert tab.evaluate("document.getElementById('alert-history').open") is True


ODD = ['<img src=x onerror="window.__pwned=1">', 'Ö\'s "Ice" & <b>co</b>',
       "</script><script>window.__pwned=2</script>", "🏒 Åland"]


@pytest.mark.parametrize("scripts", [False, True])
def test_odd_names_are_shown_as_text(browser: Chromium, board: SnapshotBoard, web: OfficeWeb,
                                     scripts: bool) -> None:
    doc = sample_snapshot()
    doc["tournament"]["name"] = ODD[1]
    doc["groups"][0]["rows"] = [table_row(i + 1, t, (1, 0, 0, 1, 0, 0), "points")
                                for i, t in enumerate(ODD)]
    doc["alerts"] = [{"at": "2026-12-05T10:00:00", "text": ODD[0]}]
    if scripts:  # rendered first, then again by the live update
        tab = open_at(browser, web.url("/"), *DESKTOP, last=LAST)
        tab.wait_for("document.getElementById('status').dataset.status === 'ok'")
        board.publish(doc)
        tab.wait_for(f"{teams_of('A')}.length === 4 && {teams_of('A')}[0] === {js(ODD[0])}")
    else:
        board.publish(doc)
        tab = open_at(browser, web.url("/"), *DESKTOP, last=LAST, scripts=False)
    try:
        names = js('table[data-group="A"] td.team')
        assert tab.evaluate(f"[...document.querySelectorAll({names})].map(td => td.textContent)"
                            ) == ODD
        assert tab.evaluate(text("#tournament-name")) == ODD[1]
        assert tab.evaluate(text(".alert-group li .text")) == ODD[0]
        assert tab.evaluate("document.querySelectorAll('img, b:not([lang]), #live script')"
                            ".length") == 0
        assert tab.evaluate("window.__pwned === undefined")
    finally:
        tab.close()


def test_survives_a_restart_of_the_service(browser: Chromium) -> None:
    """The server goes away: the page says so, retries, and shows the new run's data even
    though that run's versions start again from 1."""
    board = SnapshotBoard()
    for _ in range(3):
        board.publish(sample_snapshot())
    first = OfficeWeb(board, host="127.0.0.1", port=0)
    first.start()
    port = first.port
    tab = open_at(browser, first.url("/"), *DESKTOP, last=LAST)
    try:
        assert tab.evaluate("document.body.dataset.version") == "3"
        tab.wait_for("document.getElementById('status').dataset.status === 'ok'")
        first.stop()
        tab.wait_for("document.getElementById('status').dataset.status === 'error'")
        assert tab.evaluate(text("#status")) == "connection lost, retrying"
        restarted = SnapshotBoard()
        doc: dict[str, Any] = sample_snapshot()
        doc["tournament"]["name"] = "After the restart"
        restarted.publish(doc)
        with OfficeWeb(restarted, host="127.0.0.1", port=port):
            tab.wait_for(f"{text('#tournament-name')} === 'After the restart'")
            tab.wait_for("document.getElementById('status').dataset.status === 'ok'")
            assert tab.evaluate("document.title") == "After the restart"
    finally:
        tab.close()


def test_a_page_in_another_language(browser: Chromium, web: OfficeWeb) -> None:
    """``?lang=cs``: every word of the page in Czech, kept by the live updates."""
    tab = open_at(browser, web.url("/?lang=cs"), *DESKTOP, last=LAST)
    try:
        assert tab.evaluate("document.documentElement.lang") == "cs"
        assert tab.evaluate(text("#groups-section h2")) == "Tabulky skupin"
        assert tab.evaluate(cell("B", "Tigers", "why")) == "nutný los"
        tab.wait_for(f"{text('#status')} === 'živě'")
    finally:
        tab.close()


def test_an_events_page_names_each_tables_category(browser: Chromium, tmp_path: Path) -> None:
    """Group A of U9 and group A of U11 (rules 001 'Playing time' categories) are two tables,
    each headed by its category; matches and bracket matches say theirs."""
    root = Path(__file__).resolve().parents[2]
    event: Event = load_event(root / "examples/events/001-floorball-event.toml")
    board = SnapshotBoard()
    OfficeService(event, Store(tmp_path / "office.sqlite"), None, board).refresh_all()
    server = OfficeWeb(board, host="127.0.0.1", port=0)
    server.start()
    tab = open_at(browser, server.url("/"), *DESKTOP, last=LAST, scripts=False)
    try:
        heads = tab.evaluate(texts(".group h3"))
        assert heads == ["U9 · Group A", "U11 · Group A", "U11 · Group B"]
        assert tab.evaluate(text('#results tr[data-match="U11-A1"] .category')) == " U11"
        assert tab.evaluate(text('.tie[data-match="U9-F"] .head span')).startswith("U9 · U9-F")
        assert tab.evaluate("document.querySelectorAll('.render-error').length") == 0
    finally:
        tab.close()
        server.stop()


def test_the_public_sites_address_is_shown_with_the_offices_health(
        tab: Tab, board: SnapshotBoard) -> None:
    """``office serve --public-url``: the office page says what the halls' QR codes show."""
    assert tab.evaluate("document.querySelector('.public-url')") is None
    tab.wait_for("document.getElementById('status').dataset.status === 'ok'")
    doc = busy_snapshot()
    doc["office"] = {**doc.get("office", {}), "public_url": "https://cup.example.org/live/"}
    board.publish(doc)
    tab.wait_for("document.querySelector('.public-url a')?.getAttribute('href') === "
                 "'https://cup.example.org/live/'")
    assert "QR" in tab.evaluate(text(".public-url"))


def test_the_docs_screenshots_can_be_made_again(tmp_path: Path) -> None:
    """docs/office.md's pictures: tests/office/office_screenshots.py makes them; here into a
    temporary folder, to know the script works and the pictures stay small."""
    from tests.display.regenerate_references import compact  # noqa: PLC0415
    from tests.office.office_screenshots import DOCS, SHOTS, take  # noqa: PLC0415

    assert CHROMIUM is not None
    made = take(CHROMIUM, busy_snapshot(), tmp_path, compact)
    for path, (name, width, height) in zip(made, SHOTS, strict=True):
        png = path.read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        assert struct.unpack(">II", png[16:24]) == (width, height)
        assert 10_000 < len(png) < 250_000, f"{name}: {len(png)} bytes"
        shipped = (DOCS / name).read_bytes()
        assert struct.unpack(">II", shipped[16:24]) == (width, height)
        assert len(shipped) < 250_000
        assert f"images/{name}" in (DOCS.parent / "office.md").read_text(encoding="utf-8")


def test_the_servers_language_and_its_links_stay_as_rendered(browser: Chromium) -> None:
    """``office serve --lang fi``: the page and its live updates in Finnish, and a live
    update keeps the links as the first rendering made them (no ``?lang=`` added)."""
    board = SnapshotBoard()
    board.publish(busy_snapshot())
    with OfficeWeb(board, host="127.0.0.1", lang="fi",
                   printouts=lambda path, query: "<p>printed</p>") as web:
        tab = open_at(browser, web.url("/"), *DESKTOP, last=LAST)
        try:
            links = "[...document.querySelectorAll('#links a')].map(a => a.getAttribute('href'))"
            before = tab.evaluate(links)
            assert "/print/tables" in before
            tab.wait_for(f"{text('#status')} === 'ajantasalla'")
            board.publish(busy_snapshot())
            tab.wait_for("document.body.dataset.version === '2'")
            assert tab.evaluate(links) == before
            assert tab.evaluate(text("#groups-section h2")) == "Lohkotaulukot"
        finally:
            tab.close()
