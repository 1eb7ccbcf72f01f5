"""Results from a pitch without a board (office.storage.reports, office.views.reported,
office.serving.reporting, office.web.resultdesk): each match's result link, a referee's
phone entering the result through it, the office's own form, and the office's service
reading them as it reads a hall's final.

Rules 003 youth football (examples/tournaments/003-football.toml): several pitches at once,
most without a scoreboard. The service runs on a fake wall clock; the forms are the desk's
answers, as the HTTP servers send them (tests/office/test_reports_chromium.py drives them in
a browser against ``office serve``)."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

import pytest

from arena.timesource import FakeClock
from arena.tournament.files import load_tournament
from arena.tournament.model import DecidedBy, ResultState, Tournament
from office.service import OfficeService
from office.storage import reports
from office.storage.store import Store
from office.views import reported
from office.views.board import SnapshotBoard
from office.views.ledger import Ledger, MatchView
from office.web.resultdesk import Answer, ResultDesk
from tests.office.test_service import FakePeer, messages_of

ROOT = Path(__file__).resolve().parents[2]
FOOTBALL = ROOT / "examples/tournaments/003-football.toml"
T0 = datetime(2027, 5, 22, 9, 30)
PUBLIC = "http://results.cup.example/"


class Office:
    """The service on a fake clock, and the desk on a connection of its own (as `office
    serve` runs them)."""

    def __init__(self, tmp_path: Path, t: Tournament, clock: FakeClock | None = None) -> None:
        self.db = tmp_path / "office.sqlite"
        self.clock = clock or FakeClock(wall=T0)
        self.store = Store(self.db)
        self.peer = FakePeer()
        self.service = OfficeService(t, self.store, self.peer, SnapshotBoard(),
                                     wall=self.clock.wall_datetime,
                                     monotonic=self.clock.monotonic, public_url=PUBLIC)
        self.service.refresh_all()
        self.desk_store = Store(self.db)
        self.desk = ResultDesk(self.desk_store, lambda: (self.service.event,
                                                         self.service.ledgers or {}),
                               base_url=PUBLIC, wall=self.clock.wall_datetime)

    def token(self, match: str) -> str:
        link = self.desk.link(match)
        assert link is not None and link.startswith(PUBLIC + "r/")
        return link.rsplit("/", 1)[1]

    def phone_form(self, match: str) -> Answer:
        return self.desk.phone(self.token(match), {}, "test phone")

    def send(self, match: str, form: Answer, **fields: str) -> Answer:
        return self.desk.phone_post(self.token(match), body(form, **fields), "test phone")

    def view(self, match: str) -> MatchView:
        self.service.refresh_if_needed()
        return self.ledger.matches[match]

    def score(self, match: str) -> tuple[int, int]:
        """The result that counts for ``match``, as home and away goals."""
        result = self.view(match).outcome.result
        assert result is not None
        return result.home_goals, result.away_goals

    @property
    def ledger(self) -> Ledger:
        ledger = self.service.ledger
        assert ledger is not None
        return ledger

    def close(self) -> None:
        self.desk_store.close()
        self.store.close()


def nonce_of(answer: Answer) -> str:
    found = re.search(r'name="nonce" value="([^"]+)"', answer.html)
    assert found is not None, answer.html
    return found.group(1)


def body(form: Answer, **fields: str) -> bytes:
    return urlencode({"nonce": nonce_of(form), **fields}).encode()


@pytest.fixture
def cup() -> Tournament:
    return load_tournament(FOOTBALL)


@pytest.fixture
def office(tmp_path: Path, cup: Tournament) -> Iterator[Office]:
    o = Office(tmp_path, cup)
    yield o
    o.close()


def test_every_match_gets_one_unguessable_link_kept_across_a_restart(
        tmp_path: Path, cup: Tournament) -> None:
    first = Office(tmp_path, cup)
    tokens = {m.id: first.token(m.id) for m in cup.matches}
    first.close()
    assert len(set(tokens.values())) == len(cup.matches) == 16
    assert all(len(t) >= 24 and re.fullmatch(r"[A-Za-z0-9_-]+", t) for t in tokens.values())
    again = Office(tmp_path, cup)
    try:
        assert {m.id: again.token(m.id) for m in cup.matches} == tokens
    finally:
        again.close()


def test_the_entries_and_the_links_are_append_only(office: Office) -> None:
    assert office.send("A1", office.phone_form("A1"), home_goals="1",
                       away_goals="0").status == 303
    for statement in ("UPDATE reports SET data = '{}'", "DELETE FROM reports",
                      "UPDATE result_links SET token = 'x'", "DELETE FROM result_links"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"), \
                office.store.transaction() as db:
            db.execute(statement)
    assert [r.source for r in reports.reports(office.store)] == [reports.PHONE]


def test_a_token_finds_its_match_only_when_it_is_exactly_the_token() -> None:
    index = reports.LinkIndex({"A1": "abcdefghijklmnopqrstuvwx", "A2": "zyxwvutsrqponmlkjihgfedc"})
    assert index.match_of("abcdefghijklmnopqrstuvwx") == "A1"
    assert index.match_of("abcdefghijklmnopqrstuvwy") is None
    assert index.match_of("abcdefghijklmnopqrstuvw") is None
    assert index.match_of("") is None


def test_a_phones_result_is_a_final_with_the_protest_window_of_rules_003(
        office: Office) -> None:
    form = office.phone_form("A1")
    assert form.status == 200 and "<script" not in form.html
    assert "HJK Sininen" in form.html and "PPJ Lauttasaari" in form.html
    sent = office.send("A1", form, home_goals="2", away_goals="1", home_scorers="7 ?",
                       away_scorers="10", home_yellow="4", away_green="3")
    assert sent.status == 303 and sent.location == f"/r/{office.token('A1')}?stored=1"
    view = office.view("A1")
    assert view.outcome.state is ResultState.FINAL
    result = view.outcome.result
    assert result is not None
    assert (result.home, result.away, result.home_goals, result.away_goals) == (
        "HJK Sininen", "PPJ Lauttasaari", 2, 1)
    assert [(g.team, g.player) for g in view.outcome.goals] == [
        ("HJK Sininen", 7), ("HJK Sininen", None), ("PPJ Lauttasaari", 10)]
    assert {(p.team, p.player, p.kind) for p in view.outcome.penalties} == {
        ("HJK Sininen", 4, "yellow_card"), ("PPJ Lauttasaari", 3, "green_card")}
    table = office.ledger.tables["A"]
    assert table.rows[0].team == "HJK Sininen" and table.rows[0].points == 3
    assert table.provisional
    # Rules 003, 'Protests': at the latest 20 minutes after the end of the match.
    office.clock.advance(19 * 60)
    assert office.view("A1").outcome.state is ResultState.FINAL
    office.clock.advance(61)
    assert office.view("A1").outcome.state is ResultState.CONFIRMED
    stored = office.desk.phone(office.token("A1"), {"stored": ["1"]}, "test phone")
    assert "Stored. Thank you!" in stored.html and 'data-source="phone"' in stored.html


def test_the_same_form_twice_is_stored_once_and_a_form_not_made_for_the_match_is_refused(
        office: Office) -> None:
    form = office.phone_form("A1")
    assert office.send("A1", form, home_goals="1", away_goals="0").status == 303
    again = office.send("A1", form, home_goals="1", away_goals="0")
    assert again.status == 200 and "stored already" in again.html
    other = office.send("A1", form, home_goals="5", away_goals="0")
    assert other.status == 409 and "sent already" in other.html
    assert [r.data["home"] for r in reports.reports(office.store)] == [1]
    # Another match's form, and a nonce made up: refused, nothing stored.
    a2 = office.phone_form("A2")
    assert office.send("A1", a2, home_goals="3", away_goals="0").status == 400
    forged = urlencode({"nonce": "abc.0.0123456789abcdef0123456789abcdef",
                        "home_goals": "3", "away_goals": "0"}).encode()
    assert office.desk.phone_post(office.token("A1"), forged, "x").status == 400
    assert office.desk.phone_post("not-a-token", forged, "x").status == 404
    assert office.desk.phone("not-a-token", {}, "x").status == 404
    assert len(reports.reports(office.store)) == 1


def test_two_phones_of_one_match_never_overwrite_each_other_unseen(office: Office) -> None:
    first, second = office.phone_form("A2"), office.phone_form("A2")
    assert office.send("A2", first, home_goals="2", away_goals="2").status == 303
    stale = office.send("A2", second, home_goals="3", away_goals="2")
    assert stale.status == 409 and "meanwhile" in stale.html
    assert 'value="3"' in stale.html  # what the second phone sent, to send again
    assert office.score("A2") == (2, 2)
    # The second phone sends again from the form it got back: a correction, the latest counts.
    assert office.send("A2", stale, home_goals="3", away_goals="2").status == 303
    assert office.score("A2") == (3, 2)
    assert [r.id for r in reports.reports(office.store, "A2")] == [1, 2]


def test_a_phone_corrects_its_entry_until_the_office_confirms_it(office: Office) -> None:
    assert office.send("A1", office.phone_form("A1"), home_goals="1",
                       away_goals="1").status == 303
    assert office.send("A1", office.phone_form("A1"), home_goals="2",
                       away_goals="1").status == 303
    before = office.phone_form("A1")
    listing = office.desk.listing({})
    row = re.search(r'<tr data-match="A1">.*?</tr>', listing.html, re.S)
    assert row is not None and "2-1" in row.group(0)
    confirm = re.search(r'action="/results/A1/confirm"><input type="hidden" name="nonce" '
                        r'value="([^"]+)"', row.group(0))
    assert confirm is not None
    done = office.desk.confirm_post("A1", urlencode({"nonce": confirm.group(1)}).encode(),
                                    "office")
    assert done.status == 303
    assert reports.confirmations(office.store) == {"A1": 2}
    shown = office.phone_form("A1")
    assert "confirmed" in shown.html and "<form" not in shown.html
    # A form shown before the confirmation, sent after it: refused.
    locked = office.desk.phone_post(office.token("A1"), body(before, home_goals="3",
                                                             away_goals="1"), "test phone")
    assert locked.status == 409 and "confirmed" in locked.html
    assert office.score("A1") == (2, 1)
    # The confirmation's nonce was for entry 2: used again, or for another entry, refused.
    assert office.desk.confirm_post("A2", urlencode({"nonce": confirm.group(1)}).encode(),
                                    "office").status == 409


def test_the_offices_own_entry_is_stored_the_same_way_and_no_phone_changes_it(
        office: Office) -> None:
    early = office.phone_form("B1")  # the referee opened the link before the office wrote
    form = office.desk.office("B1", {})
    assert form.status == 200
    sent = office.desk.office_post("B1", body(form, home_goals="0", away_goals="4"), "office")
    assert sent.status == 303 and sent.location == "/results/B1?stored=1"
    (entry,) = reports.reports(office.store, "B1")
    assert entry.source == reports.OFFICE
    assert office.score("B1") == (0, 4)
    assert "<form" not in office.phone_form("B1").html  # the phone is told, not asked
    phone = office.desk.phone_post(office.token("B1"), body(form, home_goals="1",
                                                            away_goals="4"), "test phone")
    assert phone.status == 400  # the office's form, sent to the phone's link: not its own
    late = office.send("B1", early, home_goals="1", away_goals="4")
    assert late.status == 409 and "entered it itself" in late.html
    assert office.score("B1") == (0, 4)
    # A phone's form is not the office's: the office's signature is for the office only.
    assert office.desk.office_post("B2", body(office.phone_form("B2"), home_goals="1",
                                              away_goals="0"), "office").status == 400


def test_a_boards_final_wins_over_a_phones_and_a_disagreement_is_alerted_once(
        tmp_path: Path, cup: Tournament) -> None:
    office = Office(tmp_path, cup)
    try:
        assert office.send("A1", office.phone_form("A1"), home_goals="2",
                           away_goals="1").status == 303
        assert office.score("A1") == (2, 1)
        office.peer.inbox = messages_of(cup, "A1", 3, 0)  # the pitch had a board after all
        office.service.pump()
        assert office.score("A1") == (3, 0)
        texts = [a.text for a in office.store.alerts() if "disagree" in a.text]
        assert texts == ["A1: the board's final and the entered result (entry 1) disagree: "
                         "the board says 3-0 (regulation), the form says 2-1 (regulation); "
                         "the board's stands"]
        form = office.phone_form("A1")
        assert "The scoreboard's result stands for this match: 3-0." in unescape(form.html)
    finally:
        office.close()
    again = Office(tmp_path, cup)  # a restart: the same disagreement is not alerted again
    try:
        assert len([a for a in again.store.alerts() if "disagree" in a.text]) == 1
        # A phone that agrees with the board raises nothing.
        assert again.send("A1", again.phone_form("A1"), home_goals="3",
                          away_goals="0").status == 303
        again.view("A1")
        assert len([a for a in again.store.alerts() if "disagree" in a.text]) == 1
    finally:
        again.close()


def test_bad_input_says_which_field_and_why_in_the_events_language(office: Office) -> None:
    form = office.phone_form("A1")
    missing = office.send("A1", form, home_goals="", away_goals="1")
    assert missing.status == 400 and 'data-field="home_goals"' in missing.html
    assert "enter the goals of both teams" in missing.html
    many = office.send("A1", form, home_goals="1", away_goals="0", home_scorers="7 8")
    assert many.status == 400 and "more scorers than the 1 goals of HJK Sininen" in many.html
    assert 'value="7 8"' in many.html  # what was typed comes back, to be fixed
    word = office.send("A1", form, home_goals="1", away_goals="0", away_red="x")
    assert "x is not a shirt number" in word.html
    finnish = office.desk.phone(office.token("A1"), {"lang": ["fi"]}, "x")
    assert "Lähetä tulos" in finnish.html
    assert reports.reports(office.store) == []
    # The fixed form, with the nonce it came back with, is stored.
    assert office.send("A1", many, home_goals="1", away_goals="0",
                       home_scorers="7").status == 303


def test_a_level_placement_match_needs_the_shootout(office: Office) -> None:
    """Rules 003, 'Ranking': a placement match that ends level is decided by a penalty
    shootout, its winning goal counted in the result (the preset's winner_goals)."""
    t = office.service.event.categories[0].tournament
    teams = ("HJK Sininen", "FC Kontu")
    form = {"home_goals": ["1"], "away_goals": ["1"]}
    with pytest.raises(reported.FormError) as err:
        reported.parse(form, teams, decided=True)
    assert err.value.key == "report.error.level"
    result = reported.parse({**form, "home_goals": ["2"], "decided_by": ["shootout"]}, teams,
                            decided=True)
    assert result.decided_by is DecidedBy.SHOOTOUT
    x1_match = t.match("X1")
    assert x1_match is not None and x1_match.stage.decided
    # Before the groups are played its teams are not known: the office enters it.
    x1 = office.phone_form("X1")
    assert "not known yet" in x1.html and "<form" not in x1.html


def test_a_roster_bounds_the_shirt_numbers() -> None:
    roster = {"Lions": {7: "A. Aalto", 9: "B. Berg"}}
    ok = reported.parse({"home_goals": ["1"], "away_goals": ["0"], "home_scorers": ["9"]},
                        ("Lions", "Bears"), decided=False, rosters=roster)
    assert ok.goals == (reported.Goal("home", 9),)
    with pytest.raises(reported.FormError) as err:
        reported.parse({"home_goals": ["1"], "away_goals": ["0"], "home_scorers": ["8"]},
                       ("Lions", "Bears"), decided=False, rosters=roster)
    assert (err.value.field, err.value.key) == ("home_scorers", "report.error.roster")


def test_a_placement_result_entered_for_teams_the_tables_later_move_needs_review(
        office: Office) -> None:
    """The needs-review rule of a hall's final holds for a phone's: the result counts for
    the teams it was entered for (rules 003 'General': the follow-up match by group
    placing); when a correction moves the pairing, it waits for the office."""
    t = office.service.event.categories[0].tournament
    at = office.clock.wall_datetime()
    for m in t.matches:
        if m.group is None:
            continue
        assert m.home.team is not None and m.away.team is not None
        # The home side wins every group match by its place in the file's order.
        result = reported.ReportedResult(m.home.team, m.away.team, 2, 0)
        written = reports.write(office.desk_store, m.id, reports.OFFICE,
                                nonce=f"setup-{m.id}", base=0, data=result.to_data(), at=at)
        assert written.outcome is reports.Outcome.STORED
    office.clock.advance(21 * 60)
    office.view("X1")
    pairing = office.ledger.pairings["X1"]
    assert pairing.home is not None and pairing.away is not None
    form = office.phone_form("X1")
    assert office.send("X1", form, home_goals="2", away_goals="0").status == 303
    assert office.view("X1").outcome.state is ResultState.FINAL
    # The jury turns group A around: A's first is another team now.
    first = pairing.home
    for m in t.matches:
        if m.group == "A" and first in (m.home.team, m.away.team):
            office.desk_store.admin("correct", {"match": m.id, "home": 0 if m.home.team == first
                                           else 9, "away": 9 if m.home.team == first else 0,
                                           "decided_by": None, "reason": "jury"},
                               office.clock.wall_datetime())
    view = office.view("X1")
    assert office.ledger.pairings["X1"].home != first
    assert view.outcome.state is ResultState.NEEDS_REVIEW


@pytest.mark.slow  # `office sheet` as a child process
def test_the_game_sheet_prints_the_link_as_a_qr_code(office: Office, tmp_path: Path) -> None:
    sheet = subprocess.run(
        [sys.executable, "-m", "office", "sheet", "A1", "--tournament", str(FOOTBALL),
         "--db", str(office.db), "--html", "-"], cwd=ROOT, capture_output=True, text=True,
        check=True).stdout
    link = office.desk.link("A1")
    assert link is not None and link in sheet
    svg = re.search(r'<svg [^>]*viewBox="0 0 (\d+) \1"[^>]*>.*?<path d="([^"]+)"', sheet,
                    re.S)
    assert svg is not None
    size = int(svg.group(1))
    assert (size - 8) % 4 == 1 and 21 <= size - 8 <= 57  # a QR version 1..10, quiet zone
    assert svg.group(2).count("M") > size  # modules drawn
