"""The office page in a real browser: Debian's headless Chromium, driven over the DevTools
pipe (tests/office/cdp.py), loads the page from an OfficeWeb on 127.0.0.1, shows the
published tables, and follows a new snapshot by itself.

Waits are bounded polls of the page's DOM; the one timing assertion (the page follows a
publish within a few seconds) is far below the server's 15 s long-poll hold, so only a
working wake-up can pass it.
"""

from __future__ import annotations

import json
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
from tests.office.test_web import sample_snapshot, table_row

CHROMIUM = find_chromium()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (Debian: apt-get install chromium); "
           "the office page's browser test needs it")]


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    assert CHROMIUM is not None
    with Chromium(CHROMIUM) as b:
        yield b


@pytest.fixture
def board() -> SnapshotBoard:
    b = SnapshotBoard()
    b.publish(sample_snapshot())
    return b


@pytest.fixture
def web(board: SnapshotBoard) -> Iterator[OfficeWeb]:
    server = OfficeWeb(board, host="127.0.0.1", port=0)  # the real 15 s long-poll hold
    server.start()
    yield server
    server.stop()


@pytest.fixture
def tab(browser: Chromium, web: OfficeWeb) -> Iterator[Tab]:
    t = browser.open_tab(web.url("/"))
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


def test_table_appears_then_follows_a_new_snapshot(tab: Tab, board: SnapshotBoard) -> None:
    tab.wait_for(f"{cell('A', 'Lions', 'points')} === '4'")
    assert tab.evaluate(teams_of("A")) == ["Lions", "Bears", "Wolves", "Eagles"]
    assert tab.evaluate(cell("A", "Lions", "goals")) == "7:2"
    assert tab.evaluate(cell("A", "Lions", "gd")) == "+5"
    assert tab.evaluate(cell("A", "Bears", "why")) == "head-to-head pts"
    assert tab.evaluate(text("#tournament-name")) == "Example Cup 2026"
    assert tab.evaluate(text("#render-error")) == ""

    doc = sample_snapshot()
    doc["groups"][0]["rows"][:2] = [table_row(1, "Bears", (2, 1, 0, 8, 4, 12), "points"),
                                    table_row(2, "Lions", (2, 0, 1, 8, 5, 6), "points")]
    start = time.monotonic()
    board.publish(doc)
    tab.wait_for(f"{cell('A', 'Bears', 'rank')} === '1' && {cell('A', 'Bears', 'points')} === '5'"
                 f" && {teams_of('A')}[0] === 'Bears'")
    elapsed = time.monotonic() - start
    assert elapsed < 5, f"the page took {elapsed:.2f} s to follow the publish"
    assert tab.evaluate("document.body.dataset.version") == "2"


def test_shows_every_part_of_the_snapshot(tab: Tab) -> None:
    tab.wait_for(f"{cell('B', 'Falcons', 'why')} === 'lots needed'")
    # Level teams waiting for lots: marked in the row and the "why" column.
    assert tab.evaluate(cell("B", "Tigers", "why")) == "lots needed"
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
    assert tab.evaluate(text(f"{sf1} .home .name")) == "1st A"
    assert tab.evaluate(text(f"{sf1} .away .name")) == "2nd B"
    assert tab.evaluate(f"document.querySelector({js(sf1)}).dataset.provisional") == "true"
    assert tab.evaluate(text(f"{sf2} .home .name")) == "Sharks"
    assert tab.evaluate(text('#bracket [data-match="F"] .home .name')) == "Winner SF1"
    # Halls: online state, live score and clock (754.2 s left reads 12:35, rounded up).
    assert tab.evaluate(
        "document.querySelector('[data-hall=\"hall-3\"]').dataset.online") == "false"
    assert tab.evaluate(text('[data-hall="hall-2"] .clock')) == "12:35"
    assert tab.evaluate(text('[data-hall="hall-2"] .live .score')) == "3 : 1"
    assert tab.evaluate(text('[data-hall="hall-1"] .next')).startswith("Next: A5 Lions")
    # Suspensions and alerts (newest first).
    assert tab.evaluate(text('#suspensions tr[data-team="Bears"][data-player="7"] .pending')
                        ) == "A5"
    alerts = "[...document.querySelectorAll('#alerts li')].map(li => li.textContent)"
    assert tab.evaluate(alerts) == ["10:02hall-3 offline",
                                    "09:51A2 corrected to 2:1 (goal 3 was Wolves')",
                                    "group B: Tigers and Falcons need lots"]
    # Unfilled sides in the results, whether sent as null or as the slot's label.
    assert tab.evaluate('document.querySelector(\'#results tr[data-match="SF1"] td.home\')'
                        ".dataset.filled") == "false"
    assert tab.evaluate(text('#results tr[data-match="SF1"] td.home')) == "1st A"
    assert tab.evaluate(text('#results tr[data-match="F"] td.away')) == "Winner SF2"
    assert tab.evaluate('document.querySelector(\'#results tr[data-match="SF2"] td.home\')'
                        ".dataset.filled") == "true"
    assert tab.evaluate("document.querySelector('#csv-tables').getAttribute('href')"
                        ) == "/tables.csv"


ODD = ['<img src=x onerror="window.__pwned=1">', 'Ö\'s "Ice" & <b>co</b>',
       "</script><script>window.__pwned=2</script>", "🏒 Åland"]


def test_odd_names_are_shown_as_text(tab: Tab, board: SnapshotBoard) -> None:
    tab.wait_for(f"{cell('A', 'Lions', 'points')} === '4'")
    doc = sample_snapshot()
    doc["tournament"]["name"] = ODD[1]
    doc["groups"][0]["rows"] = [table_row(i + 1, t, (1, 0, 0, 1, 0, 0), "points")
                                for i, t in enumerate(ODD)]
    doc["alerts"] = [{"at": "2026-12-05T10:00:00", "text": ODD[0]}]
    board.publish(doc)
    tab.wait_for(f"{teams_of('A')}.length === 4 && {teams_of('A')}[0] === {js(ODD[0])}")
    names = js('table[data-group="A"] td.team')
    assert tab.evaluate(f"[...document.querySelectorAll({names})].map(td => td.textContent)"
                        ) == ODD
    assert tab.evaluate(text("#tournament-name")) == ODD[1]
    assert tab.evaluate(text("#alerts li .text")) == ODD[0]
    assert tab.evaluate("document.querySelectorAll('img, b, #groups script').length") == 0
    assert tab.evaluate("window.__pwned === undefined")


def test_survives_a_restart_of_the_service(browser: Chromium) -> None:
    """The server goes away: the page says so, retries, and shows the new run's data even
    though that run's versions start again from 1."""
    board = SnapshotBoard()
    for _ in range(3):
        board.publish(sample_snapshot())
    first = OfficeWeb(board, host="127.0.0.1", port=0)
    first.start()
    port = first.port
    tab = browser.open_tab(first.url("/"))
    try:
        tab.wait_for("document.body.dataset.version === '3'")
        first.stop()
        tab.wait_for("document.getElementById('status').dataset.status === 'error'")
        restarted = SnapshotBoard()
        doc: dict[str, Any] = sample_snapshot()
        doc["tournament"]["name"] = "After the restart"
        restarted.publish(doc)
        with OfficeWeb(restarted, host="127.0.0.1", port=port):
            tab.wait_for(f"{text('#tournament-name')} === 'After the restart'")
            tab.wait_for("document.getElementById('status').dataset.status === 'ok'")
    finally:
        tab.close()


def test_screenshot_of_a_full_snapshot(tab: Tab, tmp_path: Path) -> None:
    tab.wait_for(f"{cell('A', 'Lions', 'points')} === '4'")
    png = tab.screenshot(tmp_path / "office.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000


def test_an_events_page_names_each_tables_category(browser: Chromium, tmp_path: Path) -> None:
    """Group A of U9 and group A of U11 (rules 001 'Playing time' categories) are two tables,
    each headed by its category; matches and bracket matches say theirs."""
    root = Path(__file__).resolve().parents[2]
    event: Event = load_event(root / "examples/events/001-floorball-event.toml")
    board = SnapshotBoard()
    OfficeService(event, Store(tmp_path / "office.sqlite"), None, board).refresh_all()
    server = OfficeWeb(board, host="127.0.0.1", port=0)
    server.start()
    tab = browser.open_tab(server.url("/"))
    try:
        tab.wait_for("document.querySelectorAll('.group[data-category]').length === 3")
        heads = tab.evaluate("[...document.querySelectorAll('.group h3')].map(h => h.textContent)")
        assert heads == ["U9 · Group A", "U11 · Group A", "U11 · Group B"]
        assert tab.evaluate(text('#results tr[data-match="U11-A1"] .category')) == " U11"
        assert tab.evaluate(text('.tie[data-match="U9-F"] .head span')).startswith("U9 · U9-F")
        assert tab.evaluate(text("#render-error")) == ""
    finally:
        tab.close()
        server.stop()


def test_results_to_review_and_open_alerts_come_first_the_rest_in_the_history(
        tab: Tab, board: SnapshotBoard) -> None:
    # A result that does not fit the schedule stays at the top with what to do;
    # an acknowledged or resolved alert leaves the top and stays in the history.
    tab.wait_for(f"{cell('A', 'Lions', 'points')} === '4'")
    doc = sample_snapshot()
    doc["review"] = [{"match": "SF1", "hall": "hall-1", "stage": "playoff",
                      "why": "hall-1 played it as 1st A - 2nd B while its teams were not known",
                      "played_as": ["1st A", "2nd B"],
                      "todo": "correct it, or settle it: office review SF1 --keep|--swap|--replay"}]
    doc["alerts"] = [
        {"at": "2026-12-05T10:05:00", "text": "SF2 was already played", "id": 3, "match": "SF2",
         "status": "open", "todo": "office alerts resolve 3 --replay|--keep|--swap"},
        {"at": "2026-12-05T10:01:00", "text": "bracket re-filled: F home", "id": 2,
         "match": None, "status": "acknowledged", "note": "seen"}]
    board.publish(doc)
    tab.wait_for("document.querySelectorAll('#review li').length === 1")
    assert "office review SF1" in tab.evaluate(text("#review li .todo"))
    assert tab.evaluate("document.querySelectorAll('#alerts li').length") == 1
    assert "office alerts resolve 3" in tab.evaluate(text("#alerts li .todo"))
    assert tab.evaluate(text("#alert-history-count")) == "1"
    assert "acknowledged" in tab.evaluate(text("#alert-history li"))


def test_the_public_sites_address_is_shown_with_the_offices_health(
        tab: Tab, board: SnapshotBoard) -> None:
    """``office serve --public-url``: the office page says what the halls' QR codes show."""
    tab.wait_for(f"{cell('A', 'Lions', 'points')} === '4'")
    assert tab.evaluate("document.querySelector('.public-url')") is None
    doc = sample_snapshot()
    doc["office"] = {**doc.get("office", {}), "public_url": "https://cup.example.org/live/"}
    board.publish(doc)
    tab.wait_for("document.querySelector('.public-url a')?.getAttribute('href') === "
                 "'https://cup.example.org/live/'")
    assert "QR" in tab.evaluate(text(".public-url"))
