"""The public site's content: the projection keeps nothing of the office's own, the pages are
whole without any script, names are escaped, every page links where it should, and the
event's language is read strictly."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from arena import words
from arena.tournament.files import load_event
from arena.tournament.reader import TournamentError
from office.service import OfficeService
from office.storage.store import Store
from office.views import slugs
from office.views.board import SnapshotBoard
from office.views.public import public_snapshot
from office.views.slugs import slug
from office.web.publicsite import Site
from tests.office.games import Play, hall_event, play
from tests.office.test_web import sample_snapshot

ROOT = Path(__file__).resolve().parents[2]
CUP = ROOT / "examples/tournaments/001-floorball.toml"
EVENT = ROOT / "examples/events/001-floorball-event.toml"

# What only the office may read (docs/public.md, "The public site").
OFFICE_ONLY = {"alerts", "review", "office", "held", "correction", "reason", "quarantine",
               "conflicts", "refused", "refused_total", "refusals", "store_error",
               "suspensions", "green_cards", "eliminated_teams", "todo", "gaps",
               "confirm_at", "note", "why", "played_as", "waiting_for"}
SECRET = "SECRET-the-referee-said-so"


def keys_of(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from keys_of(v)
    elif isinstance(value, list):
        for v in value:
            yield from keys_of(v)


def office_snapshot_with_everything(tmp_path: Path) -> dict[str, Any]:
    """A real service's snapshot with a correction (its reason), an alert and the office's
    own health in it."""
    event = load_event(CUP)
    store = Store(tmp_path / "office.sqlite")
    (cat,) = event.categories
    t = cat.tournament
    for m in t.matches[:3]:
        assert m.home.team and m.away.team
        for p in play(m.preset, m.hall, Play(m.id, m.home.team, m.away.team, 2, 1)):
            store.add_event(hall_event(p), datetime(2026, 12, 5, 12))
    store.admin("correct", {"match": t.matches[0].id, "home": 0, "away": 3,
                            "decided_by": None, "reason": SECRET}, datetime(2026, 12, 5, 13))
    board = SnapshotBoard()
    service = OfficeService(event, store, None, board,
                            wall=lambda: datetime(2026, 12, 5, 14))
    service.refresh_all()
    doc = board.current()
    store.close()
    return doc


def test_no_office_only_key_or_text_survives_the_projection(tmp_path: Path) -> None:
    doc = office_snapshot_with_everything(tmp_path)
    # The office's view does hold them (else this test proves nothing).
    assert SECRET in json.dumps(doc) and "office" in doc and "alerts" in doc
    doc["review"] = [{"match": "X", "why": SECRET, "todo": SECRET}]
    doc["office"] = {"quarantine": [{"reason": SECRET}], "conflicts": [{"event": SECRET}],
                     "refused": {SECRET: 1}, "store_error": SECRET}
    doc["alerts"].append({"at": None, "text": SECRET})
    public = public_snapshot(doc)
    text = json.dumps(public)
    assert SECRET not in text
    assert not OFFICE_ONLY & set(keys_of(public)), OFFICE_ONLY & set(keys_of(public))
    site = Site(public)
    for path in site.paths():
        page = site.page(path)
        assert page is not None and SECRET not in page, path
    # What the public does read is there: the corrected score, as a settled result.
    first = next(m for m in public["matches"] if m["score"] == {"home": 0, "away": 3})
    assert first["state"] == "confirmed"


def test_a_key_the_office_adds_later_stays_private_until_named() -> None:
    doc = sample_snapshot()
    doc["new_office_thing"] = SECRET
    doc["groups"][0]["rows"][0]["new_row_thing"] = SECRET
    doc["matches"][0]["score"]["new"] = SECRET
    doc["halls"][1]["live"]["entry"] = {"prompt": SECRET}
    doc["matches"][1]["home"] = {"nested": SECRET}  # a table where a name belongs: dropped
    assert SECRET not in json.dumps(public_snapshot(doc))


def test_a_result_under_review_shows_no_score_and_odd_parts_are_dropped() -> None:
    doc = sample_snapshot()
    doc["matches"][0]["state"] = "needs_review"
    doc["groups"].append("not a group")
    doc["halls"] = "not a list"
    public = public_snapshot(doc)
    assert public["matches"][0]["state"] == "pending" and public["matches"][0]["score"] is None
    assert len(public["groups"]) == 2 and public["halls"] == []
    Site(public).page("")  # and it renders


def test_the_front_page_is_whole_without_any_script() -> None:
    page = Site(public_snapshot(sample_snapshot())).page("")
    assert page is not None
    before_script = page.split("<script>")[0]
    # The tables with the why column, the live hall with its clock, the bracket.
    assert 'data-team="Lions"' in before_script
    assert "head-to-head points" in before_script
    assert "level: lots to be drawn" in before_script
    assert re.search(r'class="clock" data-ms="754200" data-running="1">12:35<', before_script)
    assert "Winner SF1" in before_script and "#1 group A" in before_script
    assert 'href="team/lions/"' in before_script and 'href="hall/hall-2/"' in before_script


def test_names_are_escaped_everywhere() -> None:
    doc = sample_snapshot()
    evil = '<script>alert("x")</script>&"'
    doc["groups"][0]["rows"][0]["team"] = evil
    doc["matches"][0]["home"] = evil
    doc["halls"][1]["live"]["teams"]["home"] = evil
    doc["tournament"]["name"] = evil
    site = Site(public_snapshot(doc))
    for path in site.paths():
        page = site.page(path)
        assert page is not None
        assert evil not in page, path
        assert page.count("<script>") == 1, path  # only the site's own


def test_every_page_exists_and_links_are_relative_to_it() -> None:
    site = Site(public_snapshot(sample_snapshot()))
    assert site.paths()[:2] == ["", "schedule/"]
    team = site.page("team/bears/")
    assert team is not None
    assert 'href="../../"' in team and 'href="../../hall/hall-1/"' in team
    assert 'tr data-team="Bears" class="me"' in team
    assert 'data-match="A4"' in team and 'data-match="A2"' not in team  # its own matches
    hall = site.page("hall/hall-2/")
    assert hall is not None and 'data-match="A4"' in hall and 'data-match="A1"' not in hall
    assert site.page("team/nobody/") is None and site.page("nothing/") is None
    assert site.page("team/bears") is None  # the server redirects to the slash


def test_an_event_has_a_page_per_category_and_teams_per_category(tmp_path: Path) -> None:
    event = load_event(EVENT)
    store = Store(tmp_path / "office.sqlite")
    board = SnapshotBoard()
    OfficeService(event, store, None, board, wall=lambda: datetime(2026, 12, 5, 8)
                  ).refresh_all()
    store.close()
    site = Site(public_snapshot(board.current()))
    names = [c.name for c in event.categories]
    assert [p for p in site.paths() if p.startswith("category/")] == \
        [f"category/{slug(n)}/" for n in names]
    for path in site.paths():
        assert site.page(path) is not None, path
    teams = [p for p in site.paths() if p.startswith("team/")]
    assert len(teams) == sum(len(c.tournament.teams) for c in event.categories)


def test_slugs_are_safe_and_distinct() -> None:
    assert slug("Střešovice B") == "stresovice-b"
    assert slug("../../etc") == "etc" and slug("Лавови") == "x"
    doc = sample_snapshot()
    doc["groups"][0]["rows"][0]["team"] = "Bears!"  # and "Bears": the same slug
    site = Site(public_snapshot(doc))
    assert {"team/bears/", "team/bears-2/"} <= set(site.paths())


def test_the_site_keeps_the_offices_slugs_and_drops_unsafe_ones() -> None:
    doc = sample_snapshot()
    doc["groups"][0]["rows"][0]["team"] = "Bears!"  # and "Bears": the same slug
    doc["slugs"] = [{"kind": "team", "category": None, "name": "Bears", "slug": "bears"},
                    {"kind": "team", "category": None, "name": "Bears!", "slug": "../x"},
                    {"kind": "team", "category": None, "name": "Gone", "slug": "bears-2"},
                    {"kind": "hall", "category": None, "name": "hall-1", "slug": "bears"},
                    "garbage"]
    site = Site(public_snapshot(doc))
    assert site.team_slugs[(None, "Bears")] == "bears"  # kept, though listed second
    # Unsafe: made here, past every slug the office keeps ("bears-2" is another's).
    assert site.team_slugs[(None, "Bears!")] == "bears-3"
    assert site.hall_slugs["hall-1"] == "bears"  # each kind has its own slugs
    assert all(slugs.safe(p.strip("/").rpartition("/")[2]) for p in site.paths() if p)


def test_the_site_speaks_the_events_language(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.words import cs  # noqa: PLC0415

    monkeypatch.setitem(cs.WORDS, "site.schedule", "Rozpis")
    page = Site(public_snapshot(sample_snapshot()), "cs").page("")
    assert page is not None and '<html lang="cs">' in page and ">Rozpis<" in page
    with pytest.raises(ValueError, match="language 'de'"):
        Site({}, "de")


def test_the_language_is_read_strictly_from_the_file(tmp_path: Path) -> None:
    text = CUP.read_text(encoding="utf-8")
    assert load_event(CUP).language == words.DEFAULT
    good = tmp_path / "cs.toml"
    good.write_text('language = "cs"\n' + text, encoding="utf-8")
    assert load_event(good).language == "cs"
    bad = tmp_path / "de.toml"
    bad.write_text('language = "de"\n' + text, encoding="utf-8")
    with pytest.raises(TournamentError, match="language: must be one of en, cs, sr, fi"):
        load_event(bad)
    event_text = EVENT.read_text(encoding="utf-8").replace(
        "[event]\n", '[event]\nlanguage = "fi"\n', 1)
    (tmp_path / "event.toml").write_text(event_text, encoding="utf-8")
    for inc in EVENT.parent.glob("001-u*.toml"):
        (tmp_path / inc.name).write_text(inc.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_event(tmp_path / "event.toml").language == "fi"
