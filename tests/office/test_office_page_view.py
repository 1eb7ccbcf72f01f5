"""The office page's view, without a browser: the alerts grouped by kind (the schedule's
warnings folded into one, an alert about a match closed by itself once the match is
settled), the links to every export and printout, and a section that cannot be shown
leaving the rest of the page standing."""

from __future__ import annotations

import html
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena import words
from arena.tournament.files import load_event
from office.service import OfficeService
from office.storage.store import Store
from office.views.board import SnapshotBoard
from office.views.snapshot import event_snapshot
from office.web import officealerts
from office.web.officepage import OfficeWeb
from office.web.officeview import SECTIONS, OfficeView, SectionCache
from tests.office.test_web import sample_snapshot

ROOT = Path(__file__).resolve().parents[2]


def grouped(doc: dict[str, Any]) -> officealerts.Alerts:
    return OfficeView(doc).alerts()


def kinds(alerts: officealerts.Alerts) -> list[tuple[str, int]]:
    return [(g.kind, len(g.lines)) for g in alerts.groups]


def played_alert(alert_id: int, match: str, status: str = "open",
                 note: str | None = None) -> dict[str, Any]:
    a = {"at": "2026-12-05T10:05:00", "text": f"{match} was already played as 1st A - 2nd B",
         "id": alert_id, "match": match, "status": status}
    return {**a, "note": note} if note is not None else a


def review(match: str) -> dict[str, Any]:
    return {"match": match, "hall": "hall-1", "stage": "playoff", "why": "played as 1st A",
            "played_as": ["1st A", "2nd B"], "todo": ""}


def test_every_kind_has_its_group_in_order_of_urgency() -> None:
    doc = sample_snapshot()
    doc["office"] = {"store_since": "2026-12-05T10:00:00",
                     "store_waiting": {"hall-1": 3, "hall-2": 4}}
    doc["review"] = [review("SF1")]
    doc["held"] = [{"match": "F", "hall": "hall-1", "waiting_for": ["Winner SF1"]}]
    doc["alerts"] = [played_alert(3, "SF1"), *doc["alerts"],
                     {"at": None, "text": "A2: Lions plays back to back", "status": "open",
                      "kind": "schedule"}]
    alerts = grouped(doc)
    assert kinds(alerts) == [("store", 1), ("review", 1), ("played", 1), ("results", 1),
                             ("notices", 2), ("held", 1), ("schedule", 1)]
    assert [g.kind for g in alerts.groups] == list(officealerts.KINDS)
    by_kind = {g.kind: g for g in alerts.groups}
    assert by_kind["store"].lines[0].text == ("7 events waiting (hall-1 3, hall-2 4), kept in "
                                              "memory and retried; the halls are told")
    assert by_kind["held"].lines[0].text == "F (hall-1) waits for Winner SF1"
    assert by_kind["review"].lines[0].todo == (
        "Correct it (office correct), or settle it:", "office review SF1 --keep|--swap|--replay")
    assert by_kind["played"].lines[0].todo == (
        "Replay, keep or swap SF1:", "office alerts resolve 3 --replay|--keep|--swap --reason ...")
    assert [g.folded for g in alerts.groups] == [False] * 6 + [True]
    assert alerts.history == ()


def test_fifteen_schedule_warnings_are_one_folded_group() -> None:
    doc = sample_snapshot()
    doc["alerts"] = [{"at": None, "text": f"A{i}: back to back", "status": "open",
                      "kind": "schedule"} for i in range(15)]
    alerts = grouped(doc)
    assert kinds(alerts) == [("schedule", 15)]
    assert alerts.groups[0].heading == "The schedule's warnings: 15"
    page = OfficeView(doc).live()
    # One closed <details>: the warnings are there, folded, under one line.
    found = re.search(r'<details id="fold-schedule"><summary>(.*?)</summary>(.*?)</details>',
                      page, re.S)
    assert found is not None and html.unescape(found.group(1)) == "The schedule's warnings: 15"
    assert found.group(2).count("<li ") == 15


def test_a_played_matchs_alert_closes_by_itself_once_the_match_is_settled() -> None:
    doc = sample_snapshot()
    doc["alerts"] = [played_alert(3, "SF1"), played_alert(4, "SF2", "acknowledged", "seen"),
                     played_alert(2, "F", "resolved", "keep: as played")]
    doc["review"] = [review("SF1"), review("SF2")]
    alerts = grouped(doc)
    # While SF1 waits for review its alert is open; the acknowledged one is history.
    assert [(line.id, line.status) for line in alerts.groups[1].lines] == [(3, "open")]
    assert [(line.id, line.status) for line in alerts.history] == [(4, "acknowledged"),
                                                                   (2, "resolved")]
    # Settled (a review, a correction, the bracket moving back): no match waits any more.
    doc["review"] = []
    alerts = grouped(doc)
    assert kinds(alerts) == []
    assert [(line.id, line.status) for line in alerts.history] == [
        (3, "settled"), (4, "settled"), (2, "resolved")]
    assert alerts.history[0].note == (
        "SF1 no longer waits for the office, so the alert closed by itself")
    page = OfficeView(doc).live()
    assert '<li data-status="settled" data-alert="3" data-match="SF1">' in page
    assert "Alerts dealt with: 3" in page and "No open alerts." in page


def test_notices_are_open_until_acknowledged() -> None:
    doc = sample_snapshot()
    doc["alerts"] = [{"at": "2026-12-05T10:01:00", "text": "bracket re-filled: F home",
                      "id": 2, "match": None, "status": "open"},
                     {"at": "2026-12-05T10:00:00", "text": "bracket re-filled: F away",
                      "id": 1, "match": None, "status": "acknowledged", "note": "seen"}]
    alerts = grouped(doc)
    assert kinds(alerts) == [("notices", 1)]
    assert alerts.groups[0].lines[0].todo == ("Once seen:", "office alerts ack 2")
    assert [(line.id, line.note) for line in alerts.history] == [(1, "seen")]


@pytest.mark.parametrize("plain", [True, False])
def test_the_snapshot_says_which_warnings_are_the_schedules(tmp_path: Path,
                                                            plain: bool) -> None:
    """The demo's football day has teams back to back (rules 003 'General' slots): those
    warnings are the schedule's (folded on the page), in the service's snapshot as in
    ``event_snapshot``."""
    path = ROOT / ("examples/demo/event/p08.toml" if plain else "examples/demo/event.toml")
    event = load_event(path)
    schedule = [(c.name, w) for c in event.categories for w in c.tournament.warnings]
    assert schedule
    board = SnapshotBoard()
    service = OfficeService(event, Store(tmp_path / "office.sqlite"), None, board)
    ledgers = service.refresh_all()
    prefix = "" if plain else "{}: "
    expected = [prefix.format(c) + w for c, w in schedule]
    for doc in (board.current(), event_snapshot(event, ledgers, {}, [],
                                                service.wall())):
        shown = [a["text"] for a in doc["alerts"] if a.get("kind") == "schedule"]
        assert shown == expected
        assert kinds(grouped(doc)) == [("schedule", len(expected))]


def test_every_word_of_the_page_is_in_every_language() -> None:
    """The page in each language uses only its own table: no key falls back to English."""
    doc = sample_snapshot()
    doc["review"] = [review("SF1")]
    doc["alerts"] = [played_alert(3, "SF1"), *doc["alerts"]]
    keys = [k for k in words.table("en") if k.startswith("office.")]
    for lang in words.LANGUAGES:
        assert all(k in words.table(lang) for k in keys), lang
        page = OfficeView(doc, lang).page()
        assert f'<html lang="{lang}">' in page and 'class="render-error"' not in page


def test_a_section_that_cannot_be_shown_says_so_and_the_rest_stands(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: OfficeView) -> Any:
        raise TypeError("no bracket today")

    monkeypatch.setattr(OfficeView, "bracket", broken)
    page = OfficeView(sample_snapshot()).page()
    assert ('<section id="bracket-section"><p class="render-error">Could not show bracket: '
            "TypeError: no bracket today</p></section>") in page
    assert '<tr data-team="Lions">' in page and 'data-match="A3"' in page


def test_a_section_is_one_partial_and_one_line() -> None:
    """What the next section needs: its own template and a line of SECTIONS."""
    ids = [s.id for s in SECTIONS]
    assert len(ids) == len(set(ids))
    page = OfficeView(sample_snapshot()).page()
    for s in SECTIONS:
        assert (ROOT / "office/web/templates" / s.template).is_file()
        assert f'<section id="{s.id}-section">' in page


def links(page: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'<a [^>]*href="(/[^"]*)"', page)]


def get(server: OfficeWeb, path: str) -> int:
    try:
        with urllib.request.urlopen(server.url(path), timeout=30) as r:
            r.read()
            return int(r.status)
    except urllib.error.HTTPError as err:
        return err.code


def test_the_page_links_every_export_and_printout_and_each_answers(tmp_path: Path) -> None:
    from office.printouts.printing import Printouts  # noqa: PLC0415

    event = load_event(ROOT / "examples/events/001-floorball-event.toml")
    board = SnapshotBoard()
    store = Store(tmp_path / "office.sqlite")
    service = OfficeService(event, store, None, board)
    service.refresh_all()
    printouts = Printouts(lambda: (service.event, service.ledgers or {}), store, "en")
    with OfficeWeb(board, host="127.0.0.1", printouts=printouts.page) as web:
        with urllib.request.urlopen(web.url("/?lang=cs"), timeout=30) as r:
            page = r.read().decode("utf-8")
        found = links(page)
        exports = [f"/{what}.{ext}" for what in ("tables", "results", "placings", "scorers")
                   for ext in ("csv", "xlsx")]
        assert all(e in found for e in exports)
        prints = ["/print/tables?lang=cs", "/print/placings?lang=cs", "/print/schedule?lang=cs",
                  *(f"/print/schedule?hall={h}&lang=cs" for h in event.halls())]
        assert all(p in found for p in prints), found
        sheets = [f"/sheet/{m.id}?lang=cs" for _, m in event.schedule()]
        assert all(s in found for s in sheets)
        for path in {*found} - {f"/?lang={code}" for code in words.LANGUAGES}:
            assert get(web, path) == 200, path
    # Without printouts (a bare OfficeWeb) the page links only what it serves.
    with OfficeWeb(board, host="127.0.0.1") as bare, \
            urllib.request.urlopen(bare.url("/"), timeout=30) as r:
        assert not [p for p in links(r.read().decode()) if p.startswith(("/print", "/sheet"))]
    store.close()


def test_a_section_is_rendered_again_only_when_what_it_shows_changed() -> None:
    """A hall's clock makes a new snapshot four times a second, every other part the very
    list it was (office.views.pagecache): only the halls are rendered again."""
    cache = SectionCache()
    doc = sample_snapshot()
    first = {r.section.id: r for r in OfficeView(doc, cache=cache).sections()}
    ticked = {**doc, "generated": "2026-12-05T10:31:03",
              "halls": [{**h, "online": True} for h in doc["halls"]]}
    again = {r.section.id: r for r in OfficeView(ticked, cache=cache).sections()}
    assert [s for s in first if first[s] is not again[s]] == ["halls", "links"]
    assert 'data-hall="hall-3" data-online="true"' in again["halls"].html
    # A list equal but not the same one is a new part (the office never edits one in place).
    moved = {**ticked, "groups": [dict(g) for g in doc["groups"]]}
    third = {r.section.id: r for r in OfficeView(moved, cache=cache).sections()}
    assert [s for s in first if third[s] is not again[s]] == [
        "halls", "groups", "bracket", "results"]
    # Another language, or another day to show the times against, is another rendering.
    cs = {r.section.id: r for r in OfficeView(moved, "cs", cache=cache).sections()}
    assert "Tabulky skupin" in cs["groups"].html
    tomorrow = {**moved, "generated": "2026-12-06T08:00:00"}
    shown = {r.section.id: r for r in OfficeView(tomorrow, cache=cache).sections()}
    assert "12-05 09:00" in shown["results"].html and shown["groups"] is third["groups"]


def test_one_result_renders_one_row_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The office replaces a changed entry of a list and keeps the others (the very
    objects): the results section is made again from the rows kept, but one."""
    from office.web import officeview  # noqa: PLC0415

    rendered: list[str] = []
    real = officeview._TEMPLATES

    class Counting:
        def render(self, name: str, /, **context: Any) -> str:
            if name == "office/_result.html.j2":
                rendered.append(str(context["x"].get("id")))
            return real.render(name, **context)

    monkeypatch.setattr(officeview, "_TEMPLATES", Counting())
    cache = SectionCache()
    doc = sample_snapshot()
    OfficeView(doc, cache=cache).live()
    assert len(rendered) == len(doc["matches"])
    rendered.clear()
    matches = list(doc["matches"])
    matches[4] = {**matches[4], "state": "live", "score": {"home": 1, "away": 0}}
    page = OfficeView({**doc, "matches": matches}, cache=cache).live()
    assert rendered == ["A5"]
    assert '<tr data-match="A5" data-state="live">' in page
    assert page.count("<tr data-match=") == len(matches)


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_every_tie_break_criterion_is_worded(lang: str) -> None:
    """The "why" column says what placed a team in words, for every criterion a preset may
    name (rules 000 'The ranking of each team in each group'), never the criterion's key."""
    from arena.core.preset import Criterion  # noqa: PLC0415

    view = OfficeView(sample_snapshot(), lang)
    for c in Criterion:
        assert view.whys([{"decided_by": c.value}]) == [words.word(f"print.why.{c.value}", lang)]


def test_the_team_the_lots_placed_last_says_lots() -> None:
    """The row below a lots boundary was placed by the lots too, whatever separates it from
    the next team (rules 000 'Rules' "8. Dice"): its "why" names lots, not points."""
    view = OfficeView(sample_snapshot(), "en")
    rows = [{"decided_by": "lots"}, {"decided_by": "points"}, {"decided_by": None}]
    assert view.whys(rows) == [words.word("print.why.lots", "en")] * 2 + [""]
